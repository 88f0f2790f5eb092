// The thread-cost kind (`table: 'thread-cost'`): one event loop against pools of blocked threads, per
// configuration its throughput, OS threads, peak RSS, RSS per thread over the event loop's, and context
// switches per request (its table), the verdict that states what this machine's numbers show whichever
// way they go (the readers' claim under seed 002, 8 MB a thread and context switches, is tested, not
// repeated), and a chart of the context switches beside the comparison kind's charts.
import { mean } from '../../analysis/stats.js'
import { MIB } from '../../format.js'
import { formatP, invalidCell, formatRateInterval } from '../phrases.js'
import { summarizeBy, shortTitle, joinTitle } from '../chart-data.js'
import { generic } from './generic.js'

/** @type {import('../kinds.js').ExperimentKind} */
export const threadCost = {
  ...generic,
  name: 'thread-cost',
  table: threadCostTable,
  verdict: threadCostVerdict,
  charts: (ctx, kit) => [...kit.comparisonCharts(ctx), contextSwitchChart(ctx, kit), kit.probeChart(ctx)]
}

/**
 * One configuration's figures, averaged over its measured runs.
 * @typedef {object} ThreadCostRow
 * @property {string} label
 * @property {boolean} base            the one event loop every pool is compared with
 * @property {number|null} poolSize    worker threads (null for the event loop)
 * @property {number} rps
 * @property {number|null} threads     OS threads of the server at the end of the window (largest over runs)
 * @property {number|null} peakRssMiB  peak RSS of the window, mean over runs
 * @property {number|null} mibPerThread  (peak RSS - the event loop's) / (threads - the event loop's)
 * @property {import('../../analysis/stats.js').WelchResult|null} welch  its req/s against the event loop's (null: not compared)
 * @property {number|null} voluntary     voluntary context switches per request, mean over runs
 * @property {number|null} involuntary   involuntary context switches per request, mean over runs
 */

/**
 * @param {import('../../analysis/summarize.js').ExperimentSummary} s
 * @returns {ThreadCostRow[]}  measured configurations only, in table order
 */
function threadCostRows (s) {
  const measured = s.rows.filter((r) => r.runs.length > 0)
  /** @param {(m: import('../../types.js').ServerMetrics) => number|null|undefined} pick */
  const avg = (/** @type {import('../../analysis/summarize.js').Row} */ r, pick) => {
    const xs = r.runs.flatMap((run) => {
      const v = run.server ? pick(run.server) : null
      return typeof v === 'number' && Number.isFinite(v) ? [v] : []
    })
    return xs.length ? mean(xs) : null
  }
  const rows = measured.map((r) => ({
    label: r.label,
    base: r.label === s.baseline,
    poolSize: typeof r.runs[0].config.poolSize === 'number' ? r.runs[0].config.poolSize : null,
    rps: r.figures.requestsPerSecond.mean,
    threads: r.server ? r.server.threads : null,
    peakRssMiB: avg(r, (m) => m.memory.peakRssBytes / MIB),
    mibPerThread: /** @type {number|null} */ (null),
    welch: r.comparison && r.comparison.baseline === s.baseline ? r.comparison.test : null,
    voluntary: avg(r, (m) => m.contextSwitches?.voluntaryPerRequest),
    involuntary: avg(r, (m) => m.contextSwitches?.involuntaryPerRequest)
  }))
  const base = rows.find((r) => r.base)
  for (const r of rows) {
    if (r.base || !base || r.threads === null || base.threads === null || r.peakRssMiB === null || base.peakRssMiB === null) continue
    const extra = r.threads - base.threads
    if (extra > 0) r.mibPerThread = (r.peakRssMiB - base.peakRssMiB) / extra
  }
  return rows
}

/**
 * "thread-cost: one event loop (async) 1,890 req/s, 48.2 MiB, 1.10 context switches a request; thread
 * per request (worker pool=20, 27 threads) 1,510 req/s (0.80x), 1.3 MiB of RSS per extra thread, 4.02
 * context switches a request (3.65x): here a blocked thread costs 1.3 MiB resident, less than an 8 MB
 * stack (untouched stack pages are not resident), and more context switches than the event loop"
 * @param {import('../../analysis/summarize.js').ExperimentSummary} s
 * @returns {string}
 */
export function threadCostVerdict (s) {
  const rows = threadCostRows(s)
  const base = rows.find((r) => r.base)
  const pools = rows.filter((r) => !r.base && r.poolSize !== null)
  if (!base || pools.length === 0) return `${s.name}: nothing to compare (the event loop or the pools were not measured)`
  const top = pools.reduce((a, b) => (/** @type {number} */ (b.poolSize) > /** @type {number} */ (a.poolSize) ? b : a))
  const switches = (/** @type {ThreadCostRow} */ r) => r.voluntary === null || r.involuntary === null ? null : r.voluntary + r.involuntary
  const parts = [`one event loop (${base.label}) ${rate(base.rps)} req/s, ${mib(base.peakRssMiB)}, ${count(switches(base))} context switches a request`]
  const ratio = base.rps > 0 ? ` (${(top.rps / base.rps).toFixed(2)}x)` : ''
  const perThread = top.mibPerThread === null ? 'RSS per thread unknown' : `${top.mibPerThread.toFixed(1)} MiB of RSS per extra thread`
  const baseSwitches = switches(base)
  const topSwitches = switches(top)
  const switchRatio = baseSwitches && topSwitches !== null ? ` (${(topSwitches / baseSwitches).toFixed(2)}x)` : ''
  parts.push(`${top.poolSize} threads (${top.label}, ${top.threads ?? '?'} OS threads) ${rate(top.rps)} req/s${ratio}, ${perThread}, ${count(topSwitches)} context switches a request${switchRatio}`)
  const findings = []
  if (top.mibPerThread !== null) {
    findings.push(top.mibPerThread < 8
      ? `a blocked thread costs ${top.mibPerThread.toFixed(1)} MiB resident, less than the 8 MB stack the claim names (a stack's untouched pages are not resident)`
      : `a blocked thread costs ${top.mibPerThread.toFixed(1)} MiB resident, at least the 8 MB the claim names (a Node worker thread carries its own V8 heap besides its stack)`)
  }
  if (baseSwitches !== null && topSwitches !== null) {
    findings.push(topSwitches > baseSwitches
      ? 'threads cost more context switches a request than the event loop'
      : 'threads cost no more context switches a request than the event loop')
  }
  findings.push(throughputFinding(top, base))
  return `${s.name}: ${parts.join('; ')}. On this machine ${findings.join('; ')}`
}

/**
 * How the pool's requests a second compare with the event loop's: fewer or more only when the Welch
 * test of their runs says so (p < 0.05), as every verdict of syncbench words it.
 * @param {ThreadCostRow} top @param {ThreadCostRow} base
 */
function throughputFinding (top, base) {
  const ratio = base.rps > 0 ? `${(top.rps / base.rps).toFixed(2)}x` : 'n/a'
  const welch = top.welch
  if (welch === null || !(welch.p >= 0)) return `the threads serve ${ratio} the event loop's requests a second (p n/a: too few runs to test)`
  const test = formatP(welch)
  if (welch.p >= 0.05) return `the threads serve about as many requests a second (${ratio}, ${test}: no significant difference)`
  return `the threads serve ${top.rps < base.rps ? 'fewer' : 'more'} requests a second (${ratio}, ${test})`
}

/** @param {number} x */
function rate (x) {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1)
}

/** @param {number|null} x */
function mib (x) {
  return x === null ? '? MiB' : `${x.toFixed(1)} MiB`
}

/** @param {number|null} x */
function count (x) {
  return x === null ? '?' : x.toFixed(2)
}

/**
 * @param {import('../../analysis/summarize.js').ExperimentSummary} s
 * @param {import('../../analysis/summarize.js').Row[]} rows  the configurations shown: measured, or all of whose runs are invalid
 * @returns {import('../tables.js').Table}
 */
function threadCostTable (s, rows) {
  const figures = new Map(threadCostRows(s).map((r) => [r.label, r]))
  /** @param {number|null|undefined} x @param {number} digits */
  const num = (x, digits) => x === null || x === undefined ? '' : x.toFixed(digits)
  const body = rows.map((r) => {
    if (r.runs.length === 0) return [r.label, invalidCell(r), '', '', '', '', '', '', '']
    const f = figures.get(r.label)
    // the other tables' req/s interval (log scale, none below 3 runs), not a t-interval that can go negative
    const ci = formatRateInterval(r, 1)
    return [r.label, r.figures.requestsPerSecond.mean.toFixed(1), ci, f?.threads === null || f?.threads === undefined ? '' : String(f.threads),
      num(f?.peakRssMiB, 1), num(f?.mibPerThread, 2), num(f?.voluntary, 2), num(f?.involuntary, 2),
      r.comparison ? `${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline}, ${formatP(r.comparison.test)}` : '']
  })
  return {
    title: `${s.name}: ${s.title}`,
    columns: ['Configuration', 'Req/s', '95% CI', 'threads', 'peak RSS MiB', 'MiB/thread', 'vol. cs/req', 'invol. cs/req', `vs ${s.baseline}`],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: body
  }
}

/**
 * Context switches per request, voluntary and involuntary, against the worker pool's size, with the one
 * event loop's as dashed reference lines: the readers' claim is that threads cost context switches an
 * event loop avoids; this draws it.
 * @param {import('../charts.js').ChartContext} ctx
 * @param {import('../charts.js').ChartKit} kit
 * @returns {import('../charts.js').Drawing|null}
 */
function contextSwitchChart (ctx, { sweepChart }) {
  const { experiment, runs, axis } = ctx
  if (axis === null) return null
  /** @type {[string, (m: import('../../types.js').ContextSwitches) => number|null][]} */
  const kinds = [['voluntary', (c) => c.voluntaryPerRequest], ['involuntary', (c) => c.involuntaryPerRequest]]
  const points = kinds.flatMap(([name, pick]) => summarizeBy(runs, axis, (r) => r.server?.contextSwitches ? pick(r.server.contextSwitches) : undefined)
    .map((p) => ({ ...p, series: `${p.series} ${name}`, strategy: '' })))
  if (points.length === 0) return null
  // the runs outside the sweep (the event loop), one dashed line per kind
  const refs = kinds.flatMap(([name, pick]) => summarizeBy(ctx.references ?? [], null, (r) => r.server?.contextSwitches ? pick(r.server.contextSwitches) : undefined)
    .map((p) => ({ label: `${p.series}: ${p.mean.toFixed(2)} ${name} a request`, value: p.mean })))
  return (width) => sweepChart({
    id: `${ctx.id}-context-switches`,
    experiment: ctx.name,
    width,
    kind: 'thread-cost',
    title: joinTitle(shortTitle(experiment), 'context switches per request'),
    subtitle: 'Context switches of the whole server process (process.resourceUsage(): every thread) per request served, ' +
      'voluntary (a thread waited) and involuntary (the kernel took its core); dashed: the one event loop\'s.',
    note: ctx.note,
    points,
    axis,
    refs,
    repeated: points.some((p) => p.n > 1),
    yLabel: 'context switches / request',
    zero: true
  })
}
