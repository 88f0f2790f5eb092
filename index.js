// syncbench's public API. Everything a program can use is listed here; the CLI in bin/ uses the same
// functions. Anything not exported here is internal and may change without notice.

export { SyncbenchError } from './lib/errors.js'
export { version } from './lib/version.js'

// --- lib/load: the load generator (syncbench ab) ---
export { loadtest } from './lib/load/loadtest.js'
export { parseAbArgs } from './lib/load/ab-args.js'
export { formatAbReport } from './lib/load/ab-report.js'

// --- lib/lab: the servers under test (syncbench serve) ---
export { spawnServer } from './lib/lab/spawn.js'
export { startApp, appNames } from './lib/lab/apps.js'
export { createServerMetrics, collectEnvironment } from './lib/lab/metrics.js'

// --- lib/run: experiments, the runner, statistics (syncbench run, syncbench compare) ---
export { runExperiments } from './lib/run/runner.js'
export { experiments, defaultExperiments } from './lib/run/experiments.js'
export { listExperiments, builtinExperiment, loadExperimentFile, loadWorkload, validateExperiment } from './lib/run/experiment-loader.js'
export { summarize, welchTTest } from './lib/run/stats.js'
export { compareResults } from './lib/run/summarize.js'
export { readResultsFile, RESULTS_SCHEMA } from './lib/run/results-writer.js'

// --- lib/report: tables, markdown, charts, HTML (syncbench report) ---
export { experimentTables } from './lib/report/tables.js'
export { summarizeResults } from './lib/report/verdicts.js'
export { renderSummaryMarkdown } from './lib/report/markdown.js'
export { renderReport } from './lib/report/report.js'
export { renderHtml } from './lib/report/html.js'
export { chartsFor } from './lib/report/charts.js'
export { renderChartSvg } from './lib/report/svg.js'
export { svgToPng } from './lib/report/png.js'
export { textCharts } from './lib/report/text-chart.js'
