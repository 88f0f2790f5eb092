// From a results file to the statistics the tables show: per configuration the mean and 95% CI of every
// figure over its repeats, the Welch t-test against its baseline, the efficiency against the physical
// ceiling, the server metrics. Pure functions of the ResultsFile, so `syncbench run`, `syncbench compare`
// and the report all agree; the words (verdict lines, p-values, run counts) are lib/report's.
import { summarize as summarizeValues, welchTTest, mean, rateInterval, ratioInterval } from './stats.js'
import { strategyStyles } from '../lab/strategies.js'
import { invalidReason } from './validity.js'
import { summarizeLatency } from './latency.js'
import { summarizeProbe } from './probe-summary.js'
import { combineProfiles, combineRoutes } from './profile.js'
import { experimentBounds } from './bounds.js'
import { summarizeRoutes, mixRouteNames, routeRuns } from './routes-summary.js'
import { routeLabel } from '../lab/route-blocks.js'

export { invalidReason } from './validity.js'

/**
 * A run that counts in the figures (isMeasured): its load result is there.
 * @typedef {import('../types.js').RunRecord & { load: import('../types.js').LoadResult }} MeasuredRun
 */

/**
 * Whether a run counts in the figures: it did not fail, it has a load result, that result was not
 * cut short (an interrupted run's req/s covers a part of the requests and would drag the mean), and it
 * is valid (no failed request, no non-2xx answer: lib/analysis/validity.js).
 * The one filter of the tables, the verdicts, compare and the charts.
 * @param {import('../types.js').RunRecord} run
 * @returns {run is MeasuredRun}
 */
export function isMeasured (run) {
  if (run.error || !run.load) return false
  return !run.load.aborted && invalidReason(run) === null
}

/**
 * The invalid runs of a list (lib/analysis/validity.js), with why: left out of the figures, named by the tables and verdicts.
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {{ id: string, repeat: number, reason: string }[]}
 */
export function invalidRuns (runs) {
  return runs.flatMap((r) => {
    const reason = invalidReason(r)
    return reason === null ? [] : [{ id: r.id, repeat: r.repeat, reason }]
  })
}

/**
 * @typedef {object} Row
 * @property {string} label
 * @property {MeasuredRun[]} runs                       the measured runs (isMeasured)
 * @property {number} failed                              runs that failed, were interrupted or are invalid
 * @property {{ id: string, repeat: number, reason: string }[]} invalid  the invalid runs (failed requests, non-2xx), left out
 * @property {Record<string, import('./stats.js').Summary>} figures  requestsPerSecond, timePerRequestMs, ... over repeats
 * @property {{ baseline: string, ratio: number, test: import('./stats.js').WelchResult, interval: import('./stats.js').RatioInterval }|null} comparison
 *           req/s against the baseline: ratio of the means, Welch's test, the log-scale 95% CI of the ratio
 * @property {number|null} efficiency                     mean req/s / ceiling
 * @property {import('./stats.js').RateInterval} rate     req/s on the log scale: 95% CI (n >= 3), coefficient of variation
 * @property {Derived} derived                            figures derived from the mean req/s, as ab derives them
 * @property {CeilingCheck|null} ceiling                  efficiency against the calibration's spread
 * @property {RowFlag[]} flags                            why this row's figure should not be taken at face value
 * @property {Record<ServerFigure, number>|null} server   each figure combined over the runs by its rule (SERVER_FIGURES)
 * @property {import('./latency.js').LatencySummary|null} latency  total time per request: the runs' merged histograms
 * @property {import('./probe-summary.js').ProbeSummary|null} probe  the probe beside its runs (null: none ran)
 * @property {ConfigurationProfile|null} profile   where a user's app's main thread went, its runs' profiles added (null: none)
 * @property {import('./bounds.js').RowBound|null} bound  what bounds it on this machine and the rate that allows (lib/analysis/bounds.js)
 * @property {import('./routes-summary.js').RouteSummary[]|null} routes  a mix: each route over the runs (null: no mix)
 */

/**
 * @typedef {NonNullable<ReturnType<typeof combineProfiles>> & { routes?: import('../types.js').RouteBlocks[], spansMs?: number, heldShare?: number|null }} ConfigurationProfile
 *   heldShare: the share of the runs' windows the loop was held (heldShare()), the figure the verdict gives
 */

/**
 * How runs combine into one cross-run figure: 'mean' (with a 95% CI where one is drawn), 'max' (the
 * highest of the runs), 'merged' (from the sum of the runs' histograms, lib/analysis/latency.js).
 * @typedef {'mean'|'max'|'merged'} Combine
 */

/** @typedef {'loopP50'|'loopP99'|'loopMax'|'elu'|'cpuPercent'|'peakRssBytes'|'threads'} ServerFigure */

/**
 * The one rule of each server figure, used by the server table, the charts, summary.md and report.html,
 * and named where the figure is shown ("loop max ms (max of runs)"): a peak or a maximum is the highest
 * of the runs (the worst the server did), a rate or a level is their mean. The server sends percentiles
 * of its event-loop delay, not its histogram, so loop p50/p99 can only be means of the runs' values.
 * @type {Readonly<Record<ServerFigure, { combine: 'mean'|'max', rule: string, of: (s: import('../types.js').ServerMetrics) => number }>>}
 */
export const SERVER_FIGURES = Object.freeze({
  loopP50: { combine: 'mean', rule: 'mean of runs', of: (s) => s.eventLoopDelay.p50 },
  loopP99: { combine: 'mean', rule: 'mean of runs', of: (s) => s.eventLoopDelay.p99 },
  loopMax: { combine: 'max', rule: 'max of runs', of: (s) => s.eventLoopDelay.max },
  elu: { combine: 'mean', rule: 'mean of runs', of: (s) => s.elu },
  cpuPercent: { combine: 'mean', rule: 'mean of runs', of: (s) => s.cpu.percent },
  peakRssBytes: { combine: 'max', rule: 'max of runs', of: (s) => s.memory.peakRssBytes },
  threads: { combine: 'max', rule: 'max of runs', of: (s) => s.threads }
})

/**
 * Combine the runs' values of one figure by a rule (NaN for no value).
 * @param {'mean'|'max'} how
 * @param {number[]} values
 */
export function combineValues (how, values) {
  if (values.length === 0) return NaN
  return how === 'max' ? Math.max(...values) : mean(values)
}

/**
 * ab's derived figures recomputed from the merged runs (the mean req/s), so that they invert the req/s
 * the tables print rather than average each run's own: ab.c's "Time per request" is
 * concurrency * timetaken * 1000 / done = concurrency * 1000 / (req/s).
 * @typedef {object} Derived
 * @property {number} requestsPerSecond       mean over the runs
 * @property {number} timePerRequestMs        concurrency * 1000 / requestsPerSecond
 * @property {number} timePerRequestAcrossMs  1000 / requestsPerSecond
 * @property {number} transferRateKBps        bytes per request (all runs) * requestsPerSecond / 1024
 */

/**
 * The efficiency against the ceiling's spread over the calibration's timings: [low, high] is mean req/s
 * over the highest and the lowest ceiling. `above`: beyond even the highest ceiling (low > 1), something
 * is wrong with the calibration or the measurement; `withinSpread`: above the median ceiling but not the
 * highest, an efficiency over 100% that the calibration's own noise explains.
 * @typedef {{ efficiency: number, low: number, high: number, timings: number, above: boolean, withinSpread: boolean }} CeilingCheck
 */

/**
 * A reason not to take a row's figure at face value. 'spread': its repeats disagree (coefficient of
 * variation of req/s over CV_LIMIT). 'cpu': the server's CPU time (cpuMs, all measured windows) is
 * short of the work its requests need at the calibrated speed of one operation (neededMs). 'idle-loop':
 * a strategy that runs its work on the event loop kept the loop busy (ELU x window) for less than that.
 * @typedef {{ kind: 'spread', cv: number, n: number }
 *   | { kind: 'cpu', cpuMs: number, neededMs: number, requests: number }
 *   | { kind: 'idle-loop', busyMs: number, neededMs: number, requests: number, strategy: string }} RowFlag
 */

/** Repeats that disagree by more than this coefficient of variation are flagged. */
export const CV_LIMIT = 0.10
// The server metrics must show at least this share of the work the requests imply, at the fastest calibrated
// time of one operation (a lower bound of a request's cost): below it they contradict the throughput.
const METRICS_SHARE = 0.75

/**
 * One experiment's statistics, its configurations in table order.
 * @typedef {object} ExperimentSummary
 * @property {string} name
 * @property {string} title
 * @property {string} description
 * @property {string} table         'seed-001' | 'seed-002' | 'generic': which comparison table it prints
 * @property {string} [baseline]
 * @property {string} [reference]
 * @property {string} [target]      the --target URL that was measured instead of servers syncbench started
 * @property {import('../types.js').ResultsFile['experiments'][number]['calibration']} [calibration]
 * @property {Record<string, import('../types.js').Capacity>} [capacity]  rate-sweep: each variant's closed-loop capacity
 * @property {number} [sloP99Ms]    rate-sweep: the p99 a sustained rate stays under
 * @property {import('../types.js').ScanInfo} [scan]  a scan's: what it found and planned
 * @property {Row[]} rows
 */

/**
 * LoadResult's numeric figures, as the tables name them.
 * @typedef {'concurrency'|'timeTakenSeconds'|'completeRequests'|'failedRequests'|'keepAliveRequests'|'totalTransferredBytes'|
 *   'htmlTransferredBytes'|'requestsPerSecond'|'timePerRequestMs'|'timePerRequestAcrossMs'|'transferRateKBps'} Figure
 */

/**
 * LoadResult figures averaged over repeats (the seed tables' rows).
 * @type {Figure[]}
 */
export const FIGURES = ['concurrency', 'timeTakenSeconds', 'completeRequests', 'failedRequests', 'keepAliveRequests',
  'totalTransferredBytes', 'htmlTransferredBytes', 'requestsPerSecond', 'timePerRequestMs', 'timePerRequestAcrossMs', 'transferRateKBps']

/**
 * @param {import('../types.js').ResultsFile} results
 * @returns {ExperimentSummary[]}
 */
export function summarizeExperiments (results) {
  return results.experiments.map((experiment) => {
    const runs = results.runs.filter((r) => r.experiment === experiment.name)
    const rows = experiment.labels.map((label) => checked(row(label, runs.filter((r) => r.label === label), experiment.calibration), experiment.calibration))
    const byLabel = new Map(rows.map((r) => [r.label, r]))
    for (const r of rows) {
      const baseLabel = experiment.comparisons[r.label]
      const base = baseLabel && byLabel.get(baseLabel)
      if (base) r.comparison = compareRows(r, base)
    }
    const bounds = experimentBounds(rows.map((r) => ({ label: r.label, runs: r.runs, rps: r.figures.requestsPerSecond.mean })), experiment.calibration)
    for (const r of rows) r.bound = bounds.get(r.label) ?? null
    return { name: experiment.name, title: experiment.title ?? experiment.name, description: experiment.description ?? '', table: experiment.table ?? 'generic', baseline: experiment.baseline, reference: experiment.reference, target: experiment.target, calibration: experiment.calibration, capacity: experiment.capacity, sloP99Ms: experiment.sloP99Ms, scan: experiment.scan, rows }
  })
}

/**
 * A row's req/s against another's: the ratio of the means, Welch's test, the log-scale 95% CI of the
 * ratio; null when either has no measured run. The one rule of a ratio, for the tables, the verdicts
 * and the articles' comparison (lib/report/articles.js) alike.
 * @param {Row} r
 * @param {Row} base
 * @returns {Row['comparison']}
 */
export function compareRows (r, base) {
  if (r.runs.length === 0 || base.runs.length === 0 || !(base.figures.requestsPerSecond.mean > 0)) return null
  return {
    baseline: base.label,
    ratio: r.figures.requestsPerSecond.mean / base.figures.requestsPerSecond.mean,
    test: welchTTest(rps(r.runs), rps(base.runs)),
    interval: ratioInterval(rps(r.runs), rps(base.runs))
  }
}

/**
 * Requests per second of each run: the figure compared between strategies, as compare.R compares rates.
 * @param {MeasuredRun[]} runs
 * @returns {number[]}
 */
export function rps (runs) {
  return runs.map((r) => r.load.requestsPerSecond)
}

/**
 * @param {string} label
 * @param {import('../types.js').RunRecord[]} runs   every run of this configuration, measured or not
 * @param {ExperimentSummary['calibration']} calibration
 * @returns {Row}
 */
function row (label, runs, calibration) {
  const ok = runs.filter(isMeasured)
  /** @type {Record<string, import('./stats.js').Summary>} */
  const figures = {}
  for (const f of FIGURES) figures[f] = summarizeValues(ok.map((r) => r.load[f]))
  const servers = ok.map((r) => r.server).filter((s) => s !== null && s !== undefined)
  return {
    label,
    runs: ok,
    failed: runs.length - ok.length,
    invalid: invalidRuns(runs),
    figures,
    comparison: null,
    rate: rateInterval([]),
    derived: derive(ok, figures),
    ceiling: null,
    flags: [],
    // The ceiling is the calibrated operation's: rows of another workload (strategies mixes three) have none.
    efficiency: calibration && ok.length && sameOperation(ok[0].config?.workload, calibration.op) ? figures.requestsPerSecond.mean / calibration.ceilingRps : null,
    server: servers.length === 0 ? null : serverFigures(servers),
    latency: summarizeLatency(ok),
    probe: summarizeProbe(ok),
    profile: combinedProfile(ok),
    bound: null,
    routes: summarizeRoutes(ok)
  }
}

/**
 * The CPU profiles of a configuration's runs added up (lib/analysis/profile.js), null when none was recorded.
 * @param {import('../types.js').RunRecord[]} runs  its runs: only the measured ones count
 * @returns {ConfigurationProfile|null}
 */
export function combinedProfile (runs) {
  const profiled = runs.filter((r) => r.profile && isMeasured(r))
  const profiles = combineProfiles(profiled.map((r) => /** @type {import('../types.js').ProfileSummary} */ (r.profile)))
  if (!profiles) return null
  // How long the loop was held: the metrics' spans over the measured runs' windows, as the verdict says it.
  const combined = { ...profiles, heldShare: heldShare(runs.filter(isMeasured)) }
  // Which routes' requests were in progress while the loop was held: the metrics', beside the profile.
  const named = combineRoutes(profiled.map((r) => r.server?.loopBlocks?.routes))
  if (!named) return combined
  // A mix's route named by the user ("login") is shown by its name beside what the server saw.
  /** @type {Map<string, string>} */
  const names = new Map()
  for (const run of profiled) {
    for (const r of run.load?.routes ?? []) {
      const seen = routeLabel({ method: r.method, url: r.path })
      if (r.name !== `${r.method} ${r.path}` && r.name !== seen) names.set(seen, r.name)
    }
  }
  const routes = named.map((r) => names.has(r.route) ? { ...r, route: `${names.get(r.route)} (${r.route})` } : r)
  // The time of the spans themselves: what the routes' shares of blocking time are shares of.
  const spansMs = profiled.reduce((a, r) => a + (r.server?.loopBlocks?.spans ?? []).reduce((b, [from, to]) => b + to - from, 0), 0)
  return { ...combined, routes, spansMs }
}

/**
 * The share of runs' measured windows the event loop was held past the blocking threshold: their spans
 * (ServerMetrics.loopBlocks) over their windows; null when no run recorded spans (a server without the
 * preload, a file from before them). The verdict and "where the event loop went" both give this figure.
 * @param {Pick<import('../types.js').RunRecord, 'server'>[]} runs
 * @returns {number|null}
 */
export function heldShare (runs) {
  const windows = runs.flatMap((run) => run.server?.loopBlocks && run.server.windowMs > 0 ? [run.server] : [])
  if (windows.length === 0) return null
  const held = windows.reduce((n, s) => n + /** @type {import('../types.js').LoopBlocks} */ (s.loopBlocks).spans.reduce((m, [from, to]) => m + (to - from), 0), 0)
  const total = windows.reduce((n, s) => n + s.windowMs, 0)
  return Math.min(1, held / total)
}

/**
 * Every server figure of a configuration, each combined over its runs by its rule.
 * @param {import('../types.js').ServerMetrics[]} servers
 * @returns {Record<ServerFigure, number>}
 */
function serverFigures (servers) {
  const entries = Object.entries(SERVER_FIGURES).map(([figure, { combine, of }]) => [figure, combineValues(combine, servers.map(of))])
  // the entries are SERVER_FIGURES' keys
  return /** @type {Record<ServerFigure, number>} */ (Object.fromEntries(entries))
}

/**
 * @param {MeasuredRun[]} runs
 * @param {Record<string, import('./stats.js').Summary>} figures
 * @returns {Derived}
 */
function derive (runs, figures) {
  const requestsPerSecond = figures.requestsPerSecond.mean
  const done = runs.reduce((n, r) => n + r.load.completeRequests, 0)
  const bytes = runs.reduce((n, r) => n + r.load.totalTransferredBytes, 0)
  return {
    requestsPerSecond,
    timePerRequestMs: figures.concurrency.mean * 1000 / requestsPerSecond,
    timePerRequestAcrossMs: 1000 / requestsPerSecond,
    transferRateKBps: done > 0 ? bytes / done * requestsPerSecond / 1024 : NaN
  }
}

/**
 * A row with its req/s interval, its efficiency against the calibration's spread and its flags.
 * @param {Row} r
 * @param {ExperimentSummary['calibration']} calibration
 * @returns {Row}
 */
function checked (r, calibration) {
  const values = rps(r.runs)
  const rate = rateInterval(values)
  /** @type {RowFlag[]} */
  const flags = []
  if (rate.cv > CV_LIMIT) flags.push({ kind: 'spread', cv: rate.cv, n: rate.n })
  let ceiling = null
  if (r.efficiency !== null && calibration) {
    const { low, high } = ceilingSpread(calibration)
    const mean = r.figures.requestsPerSecond.mean
    const timings = calibration.timings?.length ?? 1
    ceiling = { efficiency: r.efficiency, low: mean / high, high: mean / low, timings, above: mean > high, withinSpread: r.efficiency > 1 && mean <= high }
    flags.push(...metricFlags(r, calibration))
  }
  return { ...r, rate, ceiling, flags }
}

/**
 * The lowest and the highest ceiling over a calibration's timings (a file from before the repeats has
 * one timing: both are its ceiling).
 * @param {NonNullable<ExperimentSummary['calibration']>} calibration
 */
export function ceilingSpread (calibration) {
  return { low: calibration.ceilingLowRps ?? calibration.ceilingRps, high: calibration.ceilingHighRps ?? calibration.ceilingRps }
}

/**
 * Server metrics that contradict the row's throughput. The work its requests need is requests x the
 * least calibrated time of one operation, wall or CPU (a lower bound of a request's cost); the server's CPU time
 * and its event loop's busy time (ELU x window) are compared with it as times, not as percentages,
 * so that a metrics window a little longer than the load does not count as idleness.
 * @param {Row} r
 * @param {NonNullable<ExperimentSummary['calibration']>} calibration
 * @returns {RowFlag[]}
 */
function metricFlags (r, calibration) {
  // The least of the fastest wall time and the least CPU time: a busy machine stretches the wall time,
  // while the CPU time (a mean over calls) counts the GC threads' work too, above a 4 MiB read's wall time.
  const opMs = Math.min(calibration.opCpuMsMin ?? Infinity, calibration.opMsMin ?? calibration.opMs)
  const windows = r.runs.map((run) => run.server).filter((s) => s !== null && s !== undefined)
  if (windows.length === 0 || !(opMs > 0)) return []
  const requests = windows.reduce((n, s) => n + s.requests, 0)
  const neededMs = requests * opMs
  const cpuMs = windows.reduce((n, s) => n + s.cpu.userMs + s.cpu.systemMs, 0)
  const busyMs = windows.reduce((n, s) => n + s.elu * s.windowMs, 0)
  /** @type {RowFlag[]} */
  const flags = []
  if (cpuMs < METRICS_SHARE * neededMs) flags.push({ kind: 'cpu', cpuMs, neededMs, requests })
  const strategy = String(r.runs[0]?.config?.strategy ?? '')
  if (strategyStyles.get(strategy)?.onEventLoop === true && busyMs < METRICS_SHARE * neededMs) {
    flags.push({ kind: 'idle-loop', busyMs, neededMs, requests, strategy })
  }
  return flags
}

/**
 * Is a row of `workload` (none: the experiment's only one) measured against the ceiling of `op`?
 * @param {string|number|boolean|undefined} workload config.workload
 * @param {string} op the calibrated operation
 */
function sameOperation (workload, op) {
  return workload === undefined || workload === op
}

/**
 * syncbench compare: the same configurations in two results files, req/s of b against a.
 * @param {import('../types.js').ResultsFile} a
 * @param {import('../types.js').ResultsFile} b
 * @returns {{ experiment: string, label: string, a: import('./stats.js').Summary, b: import('./stats.js').Summary, change: number, test: import('./stats.js').WelchResult,
 *   rate: { a: import('./stats.js').RateInterval, b: import('./stats.js').RateInterval }, ratio: import('./stats.js').RatioInterval,
 *   latency: { a: import('./latency.js').LatencySummary|null, b: import('./latency.js').LatencySummary|null },
 *   runs: { a: MeasuredRun[], b: MeasuredRun[] } }[]}
 *   rate: each side's req/s interval on the log scale (as the tables'); ratio: b / a of the geometric
 *   means of req/s and its 95% CI (ratioInterval; the CI gate's input);
 *   latency: each side's runs' merged latency (lib/analysis/latency.js); runs: each side's measured runs (a
 *   route's as routeRuns gives them: no server metrics), for what is read from runs directly (the
 *   quantiles' bootstrap, the server's costs); label: the configuration's, followed by
 *   "@" and the binary's name for runs under run --node
 */
export function compareResults (a, b) {
  // runs under several Node.js binaries (run --node) are compared binary by binary
  const key = (/** @type {import('../types.js').RunRecord} */ r) => `${r.experiment}\0${r.label}\0${r.node?.name ?? ''}`
  const keys = [...new Set(a.runs.filter(isMeasured).map(key))]
  const out = []
  for (const k of keys) {
    const ra = a.runs.filter(isMeasured).filter((r) => key(r) === k)
    const rb = b.runs.filter(isMeasured).filter((r) => key(r) === k)
    if (rb.length === 0) continue
    const [experiment, configuration, node] = k.split('\0')
    const label = node ? `${configuration} @${node}` : configuration
    out.push(compareRuns(experiment, label, ra, rb))
    // a mix: each route compared too, as a configuration of its own ("mix GET /health")
    for (const name of mixRouteNames(ra)) {
      const [pa, pb] = [routeRuns(ra, name), routeRuns(rb, name)]
      if (pa.length > 0 && pb.length > 0) out.push(compareRuns(experiment, `${label} ${name}`, pa, pb))
    }
  }
  return out
}

/**
 * One row of compare: b's runs against a's.
 * @param {string} experiment @param {string} label
 * @param {MeasuredRun[]} ra @param {MeasuredRun[]} rb
 */
function compareRuns (experiment, label, ra, rb) {
  const sa = summarizeValues(rps(ra))
  const sb = summarizeValues(rps(rb))
  return { experiment, label, a: sa, b: sb, rate: { a: rateInterval(rps(ra)), b: rateInterval(rps(rb)) }, change: sb.mean / sa.mean - 1, test: welchTTest(rps(rb), rps(ra)), ratio: ratioInterval(rps(rb), rps(ra)), latency: { a: summarizeLatency(ra), b: summarizeLatency(rb) }, runs: { a: ra, b: rb } }
}
