// results.json (`syncbench run` writes it after every run; `syncbench report` and `compare` read it,
// as readResultsFile does) and the server measurements it holds. schemas/results.schema.json is the
// same contract as a JSON Schema.
import type { LoadResult } from './load.js'

/** One measurement window of a server syncbench started (or any server answering /__syncbench/metrics). */
export interface ServerMetrics {
  windowMs: number
  /** requests answered in the window */
  requests: number
  /** ms: lateness of a 10 ms timer */
  eventLoopDelay: { min: number, mean: number, p50: number, p99: number, max: number, stddev: number }
  /** event-loop utilization, 0..1 */
  elu: number
  /** percent of one core (can exceed 100) */
  cpu: { userMs: number, systemMs: number, percent: number }
  /** at the window's end; peak: over the window; start*: at its start (absent from older files) */
  memory: { rssBytes: number, peakRssBytes: number, heapUsedBytes: number, startRssBytes?: number, startHeapUsedBytes?: number }
  threads: number
  /** CPU time of the main thread alone over the window (Linux; null elsewhere; absent in older files) */
  mainThreadCpuMs?: number | null
  activeHandles: number
  contextSwitches?: ContextSwitches
  series?: ServerMetricsSeries
  loopBlocks?: LoopBlocks
}

/** When the event loop was held past `thresholdMs`: [from, to] ms since the window started. */
export interface LoopBlocks {
  thresholdMs: number
  spans: [number, number][]
  mergedGapMs: number
  /** the routes whose requests were in progress during the spans, largest first */
  routes?: RouteBlocks[]
}

/** A route ("METHOD /path") and the time of the blocking spans its requests were in progress for. */
export interface RouteBlocks {
  route: string
  ms: number
  blocks: number
}

/** Context switches of the server process in the window; per request: null when it served none. */
export interface ContextSwitches {
  voluntary: number
  involuntary: number
  voluntaryPerRequest: number | null
  involuntaryPerRequest: number | null
}

/** The window over time, parallel arrays sampled every `intervalMs`. */
export interface ServerMetricsSeries {
  intervalMs: number
  t: number[]
  loopDelayMaxMs: number[]
  cpuPercent: number[]
  rssBytes: number[]
}

/**
 * The server's last interval as a live view reads it: the figures since the previous live read (the
 * first: since the metrics window started), read without touching the window.
 */
export interface ServerSecond {
  /** ms since the window started, at the read */
  t: number
  /** the time since the previous live read, ms */
  intervalMs: number
  requests: number
  loopDelayMaxMs: number
  loopDelayP99Ms: number
  /** event-loop utilization, 0..1 */
  elu: number
  /** percent of one core */
  cpuPercent: number
  rssBytes: number
}

/** Where a run happened. */
export interface Environment {
  node: string
  v8: string
  uv: string
  /** process.versions.openssl; absent in files from before it */
  openssl?: string
  /** null: libuv's default, 4 */
  uvThreadpoolSize: string | null
  uvUseIoUring: string | null
  cpuModel: string
  cpuCount: number
  platform: string
  arch: string
  totalMemoryBytes: number
}

/** A running server under test (spawnServer). */
export interface ServerHandle {
  pid: number
  address?: { host: string, port: number }
  servers: { name: string, url: string, port: number }[]
  env: Environment
  /** reads the window, then resets it if asked */
  metrics: (options?: { reset?: boolean, server?: string, signal?: AbortSignal }) => Promise<ServerMetrics>
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone */
  stop: (graceMs?: number) => Promise<void>
}

/**
 * One row of a profile's reduction: in self time with `entry` or `caller`, a call (the package entry its
 * caller called at one line), `name` and `location` naming its hottest leaf; otherwise one function.
 */
export interface ProfileEntry {
  name: string
  /** file:line relative to the app's folder, or a node: module */
  location: string
  /** the native function the leaf was in; in files from before calls, the Node/V8 function the app's frame called */
  via?: string
  ms: number
  /** of ms, native code, garbage collection or "(program)": outside JavaScript */
  nativeMs?: number
  /** where control entered the leaf's package; absent when the leaf is the caller's own code */
  entry?: ProfileCallEntry
  /** the app's frame (the calling package's, for an app that is a package) that made the call */
  caller?: ProfileCaller
  /** the package's work ran in slices from Node's timers or ticks */
  chunked?: boolean
  /** of ms, the leaf's */
  leafMs?: number
}

/** A package's function where control entered it. */
export interface ProfileCallEntry {
  name: string
  /** "bcryptjs", or a Node module ("node:crypto"; "node" when internal) */
  package: string
}

/** The function that made a call, and the line of the call. */
export interface ProfileCaller {
  name: string
  /** the function's file:line */
  location: string
  /** the line of the call in that file, when the samples or the source tell it */
  line?: number
}

/** Where a user's app's main thread went in a measured window. */
export interface ProfileSummary {
  /** the .cpuprofile, relative to the results folder */
  file: string
  intervalUs: number
  samples: number
  totalMs: number
  idleMs: number
  self: ProfileEntry[]
  inclusive: ProfileEntry[]
  blocking: { thresholdMs: number, ms: number, self: ProfileEntry[] } | null
}

/** The probe beside one run: 10 req/s in an open loop on the same server's GET /__syncbench/health. */
export interface ProbeRecord {
  path: string
  rate: number
  connections: number
  /** over HTTP/2 (syncbench run --http2): the streams of each connection; absent over HTTP/1 */
  streams?: number
  /** true: its streams rode the measured load's own HTTP/2 connection (axes.probeConnection "load"); absent otherwise */
  sameConnection?: boolean
  load: LoadResult | null
  error: { code: string, message: string } | null
}

/** A rate-sweep variant's closed-loop capacity, measured before its steps. */
export interface Capacity {
  rps: number
  seconds: number
  concurrency: number
  requests: number
  error: string | null
}

/** One run in a results file. */
export interface RunRecord {
  /** "seed-bcrypt/sync#1" */
  id: string
  experiment: string
  /** what the tables call its configuration */
  label: string
  config: Record<string, string | number | boolean>
  repeat: number
  engine: 'builtin' | 'ab' | 'wrk' | 'autocannon'
  /** null when nothing was measured */
  load: LoadResult | null
  server: ServerMetrics | null
  serverEnv: Environment | null
  startedAt: string
  error: { code: string, message: string } | null
  profile?: ProfileSummary | null
  probe?: ProbeRecord | null
  /** failed requests or non-2xx answers: left out of every figure */
  invalid?: { reason: string } | null
  /** syncbench run --node: the binary its server child ran under; absent without --node */
  node?: RunNode
}

/** The Node.js binary of a run under syncbench run --node, by its --node name, with its versions. */
export interface RunNode {
  name: string
  node: string
  v8: string
  uv: string
  openssl: string
}

/** An operation timed alone: the physical ceiling of an experiment. */
export interface Calibration {
  opMs: number
  usableCores: number
  ceilingRps: number
  op: string
  unit: string
  samples: number
  timings?: { opMs: number, cpuMs?: number, samples: number }[]
  opMsMin?: number
  opMsMax?: number
  ceilingLowRps?: number
  ceilingHighRps?: number
  opCpuMsMin?: number
  /** the same server answering its no-work route: main-thread ms per request (absent in older files) */
  http?: HttpCalibration
}

/** An experiment's server answering without the work, timed alone. */
export interface HttpCalibration {
  /** the median of the timings */
  httpMs: number
  route: string
  timings: { httpMs: number, requests: number, busyMs: number }[]
  httpMsMin: number
  httpMsMax: number
}

/** One experiment of a results file. */
export interface ExperimentEntry {
  name: string
  title: string
  description: string
  axes: string[]
  runs: number
  baseline?: string
  calibration?: Calibration
  /** the kind that presents it (the schema lists them; absent: generic) */
  table?: string
  reference?: string
  target?: string
  /** its configurations in table order */
  labels: string[]
  /** label -> the label it is compared with */
  comparisons: Record<string, string>
  capacity?: Record<string, Capacity>
  sloP99Ms?: number
  /** a scan's: what it found and planned */
  scan?: ScanInfo
  /** syncbench run --runs auto: the rounds and the stopping rule's last look */
  sequential?: SequentialRecord
}

/** syncbench run --runs auto: an experiment's rounds and the stopping rule's last look at each comparison. */
export interface SequentialRecord {
  /** alpha split over the looks, half of it at the last one */
  rule: 'bonferroni'
  /** the error rate spent over all the looks at one comparison */
  alpha: number
  /** the slowdown decided against, a fraction */
  threshold: number
  maxRuns: number
  /** the last look's intervals' confidence level */
  level: number
  /** the rounds that ended */
  rounds: number
  /** every comparison decided at the last look */
  decided: boolean
  /** each comparison's gate verdict on its interval of label / baseline at `level` (null: no interval) */
  decisions: { label: string, baseline: string, verdict: string, decided: boolean, ratio: number | null, low: number | null, high: number | null }[]
}

/** A route of a scan's plan; a measured route is the configuration labelled with its key. */
export interface PlannedRoute {
  /** "GET /users/:id" */
  key: string
  method: string
  /** "/users/:id" */
  pattern: string
  /** the concrete path sent; null when skipped */
  path: string | null
  /** where the route was found: a framework's name, 'openapi', 'har' */
  from: string[]
  /** the handler's file (relative to the app's folder) and 1-based line */
  declared: { file: string, line: number } | null
  headers?: string[]
  body?: { contentType: string, text: string }
  /** why it was not sent, and the flag that would send it */
  skipped: { reason: string, flag?: string } | null
}

/** What a scan found and planned (results.json experiments[].scan). */
export interface ScanInfo {
  budgetMs: number
  frameworks: { name: string, version: string }[]
  tried: string[]
  notes: string[]
  /** every planned route, the skipped ones included */
  routes: PlannedRoute[]
}

/** results/<timestamp>/results.json. */
export interface ResultsFile {
  schema: 'syncbench/results@1'
  syncbench: string
  createdAt: string
  /** null while running or after an interruption */
  finishedAt: string | null
  /** the `syncbench run` arguments, credentials starred with their digests */
  argv: string[]
  options: { engine?: string, [option: string]: unknown }
  environment: Environment
  experiments: ExperimentEntry[]
  runs: RunRecord[]
  /** syncbench run --capacity: the goal and every search; absent without it */
  capacity?: CapacityRuns
  /** syncbench run --node: the binaries every configuration ran under, the baseline first */
  nodes?: { name: string, path: string, versions: { node: string, v8: string, uv: string, openssl: string, modules: string } }[]
}

/** One term of a latency goal (--slo): met when its figure is strictly below `below` (ms; a fraction for errors). */
export interface SloTerm {
  measure: 'p50' | 'p90' | 'p99' | 'p99.9' | 'loop p99' | 'errors'
  below: number
}

/** A goal as --slo parses it. */
export interface Slo {
  terms: SloTerm[]
}

/** What one open-loop step of a capacity search measured (latencies corrected, ms). */
export interface StepFigures {
  achievedRate: number
  p50Ms: number | null
  p90Ms: number | null
  p99Ms: number | null
  p999Ms: number | null
  loopP99Ms: number | null
  errorRate: number
  /** requests sent late in each whole second of the step */
  late: number[]
  sentRate?: number
  latencyRiseMs?: number
  scheduled?: number
  completed?: number
}

/** One step of a capacity search. */
export interface CapacityStep {
  rate: number
  phase: 'grow' | 'descend' | 'bisect'
  verdict: 'pass' | 'fail' | 'generator-bound'
  why: string[]
  figures: StepFigures
}

/** A capacity search's outcome. */
export interface CapacitySearch {
  capacity: number | null
  lastFail: number | null
  reason: 'found' | 'no-rate-meets' | 'generator-bound' | 'budget' | 'max-rate' | 'error'
  tolerance: number
  elapsedMs: number
  steps: CapacityStep[]
}

/** One search of one configuration, one repeat (results.json capacity.searches[]). */
export interface CapacityRecord {
  id: string
  experiment: string
  label: string
  config: Record<string, string | number | boolean>
  repeat: number
  node?: RunNode
  startedAt: string
  connections: number
  closedLoopRps: number | null
  startRate: number | null
  search: CapacitySearch | null
  error: { code: string, message: string } | null
}

/** `syncbench run --capacity --slo`: the goal, how each step ran, and every search in the order run. */
export interface CapacityRuns {
  goal: string
  slo: Slo
  stepSeconds: number
  closedLoopSeconds: number
  budgetMs: number
  tolerance: number
  growth: number
  startShare: number
  searches: CapacityRecord[]
}
