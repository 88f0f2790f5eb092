// syncbench's public API. Everything a program can use is listed here; the CLI in bin/ uses the same.

export { SyncbenchError } from './lib/errors.js'

// --- lib/load: the load generator (syncbench ab) ---
export { loadtest } from './lib/load/loadtest.js'
export { parseAbArgs } from './lib/load/ab-args.js'
export { formatAbReport } from './lib/load/ab-report.js'

// --- lib/lab: the servers under test (syncbench serve) ---
export { spawnServer } from './lib/lab/spawn.js'
export { startApp, appNames } from './lib/lab/apps.js'
export { createSeedBcryptApp } from './lib/lab/seed-bcrypt.js'
export { seedReadfileServers, seedReadfileHandler } from './lib/lab/seed-readfile.js'
export { createLab, labRoutes } from './lib/lab/lab-app.js'
export { workloads, strategies, execute as executeWorkload } from './lib/lab/workloads.js'
export { createServerMetrics, collectEnvironment } from './lib/lab/metrics.js'
export { ensureDataFile, parseSize, cacheDir } from './lib/lab/data-file.js'
export { parseServeArgs } from './lib/cli/serve.js'

// --- lib/run: experiments, the runner, statistics (syncbench run, syncbench compare) ---
export { runExperiments } from './lib/run/runner.js'
export { experiments, defaultExperiments } from './lib/run/experiments.js'
export { listExperiments, builtinExperiment, loadExperimentFile, loadWorkload, validateExperiment } from './lib/run/experiment-loader.js'
export { expandExperiment, schedule } from './lib/run/plan.js'
export { mean, sd, summarize, welchTTest, tCdf, tQuantile, stars } from './lib/run/stats.js'
export { summarizeResults, compareResults } from './lib/run/summarize.js'
export { readResultsFile, RESULTS_SCHEMA } from './lib/run/results-writer.js'
export { calibrate } from './lib/run/calibrate.js'
export { getEngine, engineNames } from './lib/run/engines/index.js'
export { spawnWorkloadServer } from './lib/run/workload-server.js'
export { parseRunArgs } from './lib/cli/run.js'
export { experimentTables, compareTable, renderText } from './lib/report/tables.js'
export { renderSummaryMarkdown, renderMarkdownTable } from './lib/report/markdown.js'

// --- lib/report: tables, markdown, charts, HTML (syncbench report) ---
export { renderReport, checkResults } from './lib/report/report.js'
export { chartsFor } from './lib/report/charts.js'
export { renderChartSvg } from './lib/report/svg.js'
export { svgToPng, svgToPngAsync, pngHasFonts } from './lib/report/png.js'
export { renderHtml } from './lib/report/html.js'
export { textCharts, textChart } from './lib/report/text-chart.js'
export { parseReportArgs } from './lib/cli/report.js'
