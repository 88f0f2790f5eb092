// Experiments and the runner (syncbench run), and the servers under test they start (syncbench serve).
import type { LoadResult, LoadOptions, LoadSecond } from './load.js'
import type { CapacityStep, Environment, ResultsFile, RunRecord, RouteBlocks, ScanInfo, SequentialRecord, ServerHandle, ServerMetrics, ServerSecond, Slo } from './results.js'
import type { SyncbenchError } from './errors.js'

/** The server an experiment's runs start: a `syncbench serve` app, a --workload module or a user's command. */
export interface ServerSpec {
  /** seed-bcrypt, seed-readfile, lab */
  app?: string
  /** absolute path of a --workload module */
  workload?: string
  /** a user's own server command (--app) */
  command?: string
  name?: string
  cwd?: string
  port?: number
  profile?: boolean
  startTimeoutMs?: number
  args?: string[]
  env?: Record<string, string>
}

/** One configuration of an experiment before its axes are applied. */
/** A request an experiment sends: a variant's own, or one route of its mix. */
export interface RequestSpec {
  /** with an optional query */
  path: string
  /** default GET, or POST with a body */
  method?: string
  /** header lines "Name: value", after the load section's */
  headers?: string[]
  /** text in a file; a bodyFile's bytes once loaded */
  body?: string | Buffer
  /** a file of the body, next to the experiment file */
  bodyFile?: string
  /** of the body (default text/plain) */
  contentType?: string
}

/** A configuration's route: one of path, request and mix. */
export interface Variant {
  label: string
  /** route with an optional query, e.g. "/bcrypt/async?cost=4" */
  path?: string
  /** a request of its own: method, headers, body */
  request?: RequestSpec
  /** routes loaded together in each run, the connections shared out by weight */
  mix?: { request: RequestSpec, weight?: number, name?: string }[]
  config?: Record<string, string | number | boolean>
  /** merged over the experiment's server */
  server?: Partial<ServerSpec>
  /** false: run once beside the sweep, as a reference */
  sweep?: boolean
}

/** An open-loop sweep: each variant's capacity measured first, then fractions of it offered. */
export interface RateSweep {
  stepSeconds: number
  capacitySeconds: number
  capacityConcurrency: number
  sloP99Ms: number
}

/** One operation to time alone for the physical ceiling. */
export interface CalibrationSpec {
  op: 'bcrypt' | 'bcryptjs' | 'readfile'
  cost?: number
  bytes?: number
}

/** An experiment (built in, an --experiment file, --workload, --app), checked by validateExperiment. */
export interface Experiment {
  name: string
  title: string
  description: string
  /** the kind that presents it: generic (default), seed-001, seed-002, thread-cost, rate-sweep, h2-head-of-line, app (default for a command's server) */
  table?: string
  baseline?: string
  reference?: string
  runs?: number
  server: ServerSpec
  /** LoadOptions without url */
  load?: Record<string, any>
  warmup?: { requests: number, concurrency: number }
  variants: Variant[]
  axes?: Record<string, (string | number | boolean)[]>
  serverAxes?: Record<string, string>
  calibration?: CalibrationSpec
  rateSweep?: RateSweep
  probe?: boolean
  /** syncbench scan's plan, kept in results.json */
  scan?: ScanInfo
}

/** The load options `syncbench run` overrides for every configuration. */
export interface LoadOverrides {
  requests?: number
  concurrency?: number
  keepAlive?: boolean
  rate?: number
  responseTimeout?: number
  workers?: number
}

/** A load generator the runner can drive (--engine). */
export interface LoadTool {
  name: RunRecord['engine']
  available: () => boolean | Promise<boolean>
  run: (options: LoadOptions) => Promise<LoadResult>
}

/**
 * The progress of a run of experiments, one event at a time: `plan`, then per experiment `calibrate`
 * and `capacity`, per run `run-start`, its load's `heartbeat`s and `second`s (the probe's too), its server's
 * `server-second`s (only while a subscriber asked for them), `run-end`; `experiment-end` after an experiment's
 * last run, with its verdict lines (only where the caller asked for verdicts); `end` last. Under `sequential`
 * (--runs auto) the totals are `upTo` the most rounds, and `rounds-end` says an experiment's rounds are
 * over: the runs it will not need leave `total`.
 */
export type RunEvent =
  | { type: 'plan', total: number, upTo?: true, runs: { experiment: string, label: string }[], experiments: { name: string, title: string, configurations: number, runs: number }[] }
  | { type: 'calibrate', experiment: string, op: string }
  | { type: 'capacity', experiment: string, label: string, seconds: number }
  | { type: 'run-start', index: number, total: number, upTo?: true, experiment: string, label: string, repeat: number, etaMs: number | null }
  | { type: 'heartbeat', index: number, total: number, experiment: string, label: string, done: number, requests: number }
  | { type: 'second', index: number, experiment: string, label: string, source: 'load' | 'probe', second: LoadSecond }
  | { type: 'server-second', index: number, experiment: string, label: string, second: ServerSecond }
  | { type: 'run-end', index: number, total: number, upTo?: true, record: RunRecord }
  | { type: 'capacity-step', experiment: string, label: string, repeat: number, step: CapacityStep }
  | { type: 'rounds-end', experiment: string, rounds: number, maxRuns: number, level: number, decisions: SequentialRecord['decisions'] }
  | { type: 'experiment-end', experiment: string, verdicts: string[] }
  | { type: 'end', runs: number, total: number, interrupted: boolean }

export interface RunnerOptions {
  experiments: Experiment[]
  /** repeats of every configuration, interleaved (default: each experiment's own) */
  runs?: number
  /** --runs auto: rounds until every comparison is decided against threshold (a fraction), or maxRuns rounds */
  sequential?: { maxRuns: number, threshold: number }
  /** the load generator (default: the built-in one) */
  engine?: Pick<LoadTool, 'name' | 'run'>
  /** a server already running: no server is started */
  target?: string
  overrides?: LoadOverrides
  sloP99Ms?: number
  /** count runs with failed requests or non-2xx answers */
  allowErrors?: boolean
  calibrate?: boolean
  probe?: boolean
  /** results.json goes there */
  outDir: string
  argv?: string[]
  options?: object
  /** seconds each run may take */
  runTimeout?: number
  /** seconds the next run may take, asked as it starts (over runTimeout) */
  runDeadline?: () => number
  /** a time-limited load shortened as it starts to end readsSeconds before its run's deadline, never below minSeconds */
  fitLoad?: { readsSeconds: number, minSeconds: number }
  /** after each configuration's closed-loop run, a search for its capacity at the goal */
  capacity?: { slo: Slo, stepSeconds: number, budgetMs: number }
  signal?: AbortSignal
  onEvent?: (event: RunEvent) => void
}

export interface RunOutcome {
  results: ResultsFile
  file: string
  interrupted: boolean
  error: SyncbenchError | null
  /** the runs recorded invalid, in run order */
  invalid: { id: string, reason: string }[]
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv
  cwd?: string
  startTimeoutMs?: number
  stopGraceMs?: number
  metricsTimeoutMs?: number
  onChild?: (child: import('node:child_process').ChildProcess) => void
}

/** A server child spawnServer started. */
export type ChildHandle = ServerHandle & {
  ready: {
    type: 'syncbench:ready'
    address: { host: string, port: number }
    servers: { name: string, url: string, port: number }[]
    env: Environment
    handlers?: string[]
    app?: string
    appPid?: number
  }
  profile: (request: { action: 'start' | 'stop', file?: string, signal?: AbortSignal }) => Promise<{ file: string, intervalUs: number, startOffsetMs: number } | null>
  /** the server's figures since the previous live read, its metrics window untouched; null where nothing measures it */
  live: (request?: { server?: string, signal?: AbortSignal }) => Promise<ServerSecond | null>
  exited: Promise<void>
}

/** `syncbench serve`'s options of an app started in this process. */
export interface AppOptions {
  port?: number
  host?: string
  fileSize?: number
  cacheDir?: string
  only?: string
  delay?: number
  poolSize?: number
  memoryBudget?: number
  framework?: 'http' | 'express'
  /** serve HTTP/2: h2c (cleartext, prior knowledge), or h2 with `tls` */
  http2?: boolean
  /** with http2: HTTP/2 over TLS by ALPN, HTTP/1.1 as fallback */
  tls?: boolean
  /** with tls: the certificate's PEM file (default: a self-signed one made at start) */
  cert?: string
  /** with tls: its private key's PEM file */
  key?: string
  signal?: AbortSignal
}

/** An app startApp started in this process. */
export interface RunningApp {
  app: string
  servers: { name: string, url: string, host: string, port: number, protocol: 'http1' | 'h2c' | 'h2', server: import('node:net').Server, close: () => Promise<void>, routes: string[] }[]
  env: Environment
  metrics: {
    requests: number
    /** the requests in progress by route, charged the blocking spans they cover (LoopBlocks.routes) */
    routes: {
      followed: boolean
      started (request: { method?: string, url?: string }, response: object & { destroyed?: boolean }): void
      finished (response: object): void
      tick (block?: { from: number, to: number }): void
      snapshot (pending?: { from: number, to: number }): RouteBlocks[]
      reset (): void
    }
    read: (options?: { reset?: boolean }) => ServerMetrics
    /** the figures since the previous live read (the first: since the window started), the window untouched */
    live: () => ServerSecond
    reset: () => void
    windowStart: () => number
    close: () => void
  }
  close: () => Promise<void>
}
