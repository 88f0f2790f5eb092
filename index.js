// syncbench's public API: what a program needs to load a server, run experiments on fresh servers and
// read, compare and report their results. The CLI in bin/ uses the same functions. Anything not
// exported here (chart specs, SVG and PNG helpers, the engine's parts) is internal and may change
// without notice. Its TypeScript declarations are types/*.d.ts, written by hand and held to this code by
// npm run types (scripts/api-conformance.ts).

// --- errors: one class per code (lib/errors.js documents each code) ---
export {
  SyncbenchError, errorCodes,
  InvalidOptionError, UnknownOptionError, MissingArgumentError, InvalidUrlError,
  ConnectError, TimeoutError,
  ServerStartError, ServerExitedError, ServerMetricsError,
  ExperimentError, ResultsError, NativeIoError
} from './lib/errors.js'
export { version } from './lib/version.js'

// --- lib/load: the load generator (syncbench ab) ---
export { loadtest } from './lib/load/loadtest.js'
export { openSharedConnection } from './lib/load/h2-shared.js'
export { defaultOptions, MAX_CONCURRENCY } from './lib/load/options.js'
export { parseAbArgs } from './lib/ab/ab-args.js'
export { formatAbReport } from './lib/ab/ab-report.js'
export { mergeLoadResults } from './lib/load/merge-results.js'

// --- lib/lab: the servers under test (syncbench serve) ---
export { spawnServer } from './lib/lab/spawn.js'
export { startApp, appNames } from './lib/lab/apps.js'

// --- lib/run: experiments and the runner (syncbench run) ---
export { runExperiments } from './lib/run/runner.js'
export { experiments, defaultExperiments } from './lib/run/experiments.js'
export { listExperiments, builtinExperiment, loadExperimentFile, loadWorkload, validateExperiment } from './lib/run/experiment-loader.js'
export { readResultsFile, RESULTS_SCHEMA } from './lib/run/results-writer.js'

// --- lib/analysis: statistics of repeated runs (syncbench compare) ---
export { summarize, welchTTest } from './lib/analysis/stats.js'
export { compareResults } from './lib/analysis/summarize.js'

// --- lib/report: verdicts, summary.md, report.html (syncbench report) ---
export { summarizeResults } from './lib/report/model.js'
export { renderSummaryMarkdown } from './lib/report/markdown.js'
export { writeReport } from './lib/report/write-report.js'

// --- the data contracts (lib/types.js), for JSDoc and TypeScript users ---
/** @typedef {import('./lib/types.js').LoadOptions} LoadOptions */
/** @typedef {import('./lib/types.js').LoadResult} LoadResult */
/** @typedef {import('./lib/types.js').SharedHttp2Connection} SharedHttp2Connection */
/** @typedef {import('./lib/types.js').OpenLoop} OpenLoop */
/** @typedef {import('./lib/types.js').TlsInfo} TlsInfo */
/** @typedef {import('./lib/types.js').TlsProtocol} TlsProtocol */
/** @typedef {import('./lib/types.js').Segment} Segment */
/** @typedef {import('./lib/types.js').Merged} Merged */
/** @typedef {import('./lib/types.js').TimeRow} TimeRow */
/** @typedef {import('./lib/types.js').RequestTiming} RequestTiming */
/** @typedef {import('./lib/types.js').ServerHandle} ServerHandle */
/** @typedef {import('./lib/types.js').ServerMetrics} ServerMetrics */
/** @typedef {import('./lib/types.js').Environment} Environment */
/** @typedef {import('./lib/types.js').RunRecord} RunRecord */
/** @typedef {import('./lib/types.js').ResultsFile} ResultsFile */
/** @typedef {import('./lib/errors.js').ErrorCode} ErrorCode */
