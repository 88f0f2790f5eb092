// syncbench's public API: what a program needs to load a server, run experiments on fresh servers and
// read, compare and report their results. These declarations are the whole of it, written by hand and
// held to the implementation by `npm run types` (scripts/api-conformance.ts).
import type { AbOutput, AbReportParts, LoadOptions, LoadResult, SharedHttp2Connection } from './load.js'
import type { ResultsFile } from './results.js'
import type { AppOptions, ChildHandle, Experiment, RunnerOptions, RunOutcome, RunningApp, SpawnOptions } from './experiments.js'
import type { Comparison, ReportSummary, Summary, WelchResult, WriteReportOptions, WrittenReport } from './report.js'

export * from './errors.js'
export type * from './load.js'
export type * from './results.js'
export type * from './experiments.js'
export type * from './report.js'

/** syncbench's version */
export declare const version: string

// --- the load generator (syncbench ab) ---

/**
 * Run one load test the way ab does. Rejects with InvalidOptionError or InvalidUrlError for bad options,
 * and where ab would abort (ConnectError, TimeoutError) with the partial LoadResult as `err.result`.
 */
export declare function loadtest (options: LoadOptions): Promise<LoadResult>
/**
 * Open an HTTP/2 connection (h2c for http://, ALPN h2 for https://) that several loadtest() runs share
 * through LoadOptions.http2Session, each on seats of its own: `seats`, the most streams they hold at
 * once. Resolves once the server's SETTINGS came; rejects with ConnectError.
 */
export declare function openSharedConnection (url: string, options: { seats: number, signal?: AbortSignal }): Promise<SharedHttp2Connection>
/** ab's defaults of the options a run does not give. */
export declare const defaultOptions: Readonly<{
  requests: number
  concurrency: number
  timelimit: number
  timeout: number
  responseTimeout: number
  keepAlive: boolean
  headers: readonly string[]
  cookies: readonly string[]
  variableLength: boolean
  continueOnReceiveError: boolean
  http11: boolean
  verbosity: number
  workers: number
}>
/** The most connections a run may open. */
export declare const MAX_CONCURRENCY: 20000
/** `syncbench ab`'s argv (after "ab") to LoadOptions, with ab's names, defaults and rules; reads a -p / -u file. */
export declare function parseAbArgs (argv: string[]): { options: LoadOptions, output: AbOutput }
/** A LoadResult as ab prints its report. */
export declare function formatAbReport (result: LoadResult, output?: AbReportParts): string
/** Several LoadResults (the shards of one run) as one: counts summed, every percentile from the summed histograms. */
export declare function mergeLoadResults (results: LoadResult[], names?: string[]): LoadResult

// --- the servers under test (syncbench serve) ---

/** Start a `syncbench serve` app (seed-bcrypt, seed-readfile, lab) in a child process of its own. */
export declare function spawnServer (options: { app: string, args?: string[] } & SpawnOptions): Promise<ChildHandle>
/** Start a `syncbench serve` app in this process. */
export declare function startApp (app: string, options?: AppOptions): Promise<RunningApp>
export declare const appNames: string[]

// --- experiments and the runner (syncbench run) ---

/** Run experiments, each configuration on a fresh server; results.json is rewritten after every run. */
export declare function runExperiments (options: RunnerOptions): Promise<RunOutcome>
/** The built-in experiments. */
export declare const experiments: Experiment[]
/** The experiments `syncbench run` runs without a name (npm start). */
export declare const defaultExperiments: string[]
export declare function listExperiments (): Experiment[]
export declare function builtinExperiment (name: string): Experiment
/** An experiment file (.json, or a module whose default export is one or an array), checked. */
export declare function loadExperimentFile (file: string, cwd: string): Promise<Experiment[]>
/** A module's handler functions served and compared (--workload). */
export declare function loadWorkload (file: string, cwd: string, options?: { baseline?: string }): Promise<Experiment>
/** An experiment definition checked (its schema, then what a schema cannot say); throws ExperimentError naming `where`. */
export declare function validateExperiment (e: any, where: string): Experiment
/** A results file read and checked against its schema. */
export declare function readResultsFile (file: string): Promise<ResultsFile>
export declare const RESULTS_SCHEMA: 'syncbench/results@1'

// --- statistics of repeated runs (syncbench compare) ---

export declare function summarize (xs: number[]): Summary
export declare function welchTTest (a: number[], b: number[]): WelchResult
/** The same configurations in two results files, b's req/s against a's. */
export declare function compareResults (a: ResultsFile, b: ResultsFile): Comparison[]

// --- the report (syncbench report) ---

/** Every experiment of a results file summarized, with its verdict line and its seed articles. */
export declare function summarizeResults (results: ResultsFile): ReportSummary[]
export declare function renderSummaryMarkdown (results: ResultsFile, summaries: ReportSummary[]): string
/** summary.md, report.html and charts/*.png of a results file, written into outDir. */
export declare function writeReport (results: ResultsFile, outDir: string, options?: WriteReportOptions): Promise<WrittenReport>

