// syncbench's public API. Everything a program can use is listed here; the CLI in bin/ uses the same.

export { SyncbenchError } from './lib/errors.js'

// --- lib/load: the load generator (syncbench ab) ---
export { loadtest } from './lib/load/loadtest.js'
export { parseAbArgs } from './lib/load/ab-args.js'
export { formatAbReport } from './lib/load/ab-report.js'

// --- lib/lab: the servers under test (syncbench serve) ---

// --- lib/run: experiments, the runner, statistics (syncbench run, syncbench compare) ---

// --- lib/report: tables, markdown, charts, HTML (syncbench report) ---
