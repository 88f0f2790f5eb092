// The charts of an experiment that compares configurations (the comparison kind's, and so most kinds'):
// a sweep gets metric-vs-axis lines, an experiment without a numeric axis one bar per configuration;
// throughput with the physical ceiling the runner calibrated, the latency percentile curves, and with
// server metrics the event loop, CPU, memory and the server over time. Repeated runs draw 95% confidence
// intervals.
import { summarizeBy, seriesNames, axisTitle, joinTitle, shortTitle, withoutInterval } from './chart-data.js'
import { sweepChart, barChart } from './chart-shapes.js'
import { latencyChart, eventLoopChart } from './chart-latency.js'
import { timeSeriesChart } from './chart-timeseries.js'
import { SERVER_FIGURES, combineValues } from '../analysis/summarize.js'
import { strategyStyles } from '../lab/strategies.js'
import { MIN_RUNS_FOR_INTERVAL } from '../analysis/stats.js'
import { formatNumber as fmt, MIB } from '../format.js'

/** @typedef {import('../types.js').RunRecord} RunRecord */
/** @typedef {import('./chart-data.js').Point} Point */
/** @typedef {import('./charts.js').ChartContext} ChartContext */
/** @typedef {import('./charts.js').Drawing} Drawing */
/** @typedef {NonNullable<import('./chart-data.js').ExperimentInfo['calibration']>} Calibration */

/**
 * Throughput and latency, then, where the server reported metrics, its event loop, CPU, memory and its
 * samples over time (the runs outside the sweep beside the others).
 * @param {ChartContext} ctx
 * @returns {(Drawing|null)[]}
 */
export function comparisonCharts (ctx) {
  const drawings = [throughput(ctx), latencyChart(ctx)]
  if (ctx.runs.some((r) => r.server)) drawings.push(eventLoopChart(ctx), cpu(ctx), memory(ctx), timeSeriesChart({ ...ctx, runs: [...ctx.runs, ...ctx.references ?? []] }))
  return drawings
}

/**
 * Strategies that run the work on the event loop: one core is their ceiling whatever the machine has.
 * @param {string} strategy
 */
const onEventLoop = (strategy) => strategyStyles.get(strategy)?.onEventLoop === true

/**
 * @param {ChartContext} ctx
 * @returns {Drawing}
 */
function throughput (ctx) {
  const { experiment, runs, axis } = ctx
  // the tables' rule for a rate's interval (log scale, none below 3 runs): no whisker below zero
  const points = summarizeBy(runs, axis, (r) => r.load?.requestsPerSecond, 'rate')
  const repeated = points.some((p) => p.n > 1)
  const means = points.map((p) => p.mean)
  // a sweep over decades of cost (file sizes) spans decades of req/s too: only a log axis shows both ends
  const yType = Math.min(...means) > 0 && Math.max(...means) / Math.min(...means) >= 20 ? 'log' : /** @type {const} */ ('linear')
  const refs = [...referenceLines(ctx, (r) => r.load?.requestsPerSecond, (v) => `${fmt(v)} req/s`), ...ceilings(experiment.calibration, axis, points, ctx.cores)]
  const spec = {
    id: `${ctx.id}-throughput`,
    experiment: ctx.name,
    kind: 'throughput',
    title: joinTitle(experiment.title, axis ? `requests/s vs ${axisTitle(axis)}` : 'requests per second'),
    subtitle: subtitleFor(points, 'requests per second, higher is better'),
    note: ctx.note,
    yLabel: 'requests / s'
  }
  /** @param {RunRecord} r */
  const runValue = (r) => r.load?.requestsPerSecond
  if (axis) return (width) => sweepChart({ ...spec, width, points, axis, refs, repeated, yType, zero: yType === 'linear', runValue })
  return (width) => barChart({ ...spec, width, points, refs, repeated, format: (v) => `${fmt(v)} req/s`, runValue })
}

/**
 * The physical ceiling from the runner's calibration: cores x 1000 / opMs. Along the threads or the
 * requests in flight, only min(x, cores) operations can run at once, so the ceiling bends there;
 * strategies that work on the event loop also get their own one-core line.
 * @param {Calibration|undefined} cal
 * @param {string|null} axis
 * @param {Point[]} points
 * @param {number|null} machineCores
 * @returns {import('./chart-shapes.js').Reference[]}
 */
function ceilings (cal, axis, points, machineCores) {
  if (!cal || !(cal.opMs > 0)) return []
  const single = 1000 / cal.opMs
  const cores = cal.usableCores ?? machineCores ?? 1
  const refs = []
  if (axis === 'threadpoolSize' || axis === 'poolSize' || axis === 'concurrency') {
    const what = { threadpoolSize: 'threads', poolSize: 'workers', concurrency: 'c' }[axis]
    const short = `ceiling min(${what}, ${cores} cores) × ${fmt(single)} ${cal.unit}`
    refs.push({ label: `ceiling: min(${what}, ${cores} cores) × ${fmt(single)} ${cal.unit}`, short, curve: (/** @type {number} */ x) => Math.min(x, cores) * single, bound: true })
  } else {
    refs.push({ label: `ceiling: ${cores} cores × ${fmt(single)} ${cal.unit} = ${fmt(cores * single)} req/s`, short: `ceiling ${fmt(cores * single)} req/s`, value: cores * single, bound: true })
  }
  if (cores > 1 && points.some((p) => onEventLoop(p.strategy))) {
    refs.push({ label: `one core (work on the event loop): ${fmt(single)} req/s`, short: `one core ${fmt(single)} req/s`, value: single, bound: true })
  }
  return refs
}

/**
 * @param {ChartContext} ctx
 * @returns {Drawing|null}
 */
function cpu (ctx) {
  const { experiment, runs, axis, cores } = ctx
  const cpuPercent = SERVER_FIGURES.cpuPercent
  const points = summarizeBy(runs, axis, (r) => r.server && cpuPercent.of(r.server), cpuPercent.combine)
  if (points.length === 0) return null
  const refs = [...referenceLines(ctx, (r) => r.server?.cpu.percent, (v) => `${Math.round(v)}%`), { label: 'one core (100%)', value: 100 }]
  if (cores !== null && cores > 1) refs.push({ label: `all ${cores} cores (${cores * 100}%)`, value: cores * 100 })
  const base = {
    id: `${ctx.id}-cpu`,
    experiment: ctx.name,
    kind: 'cpu',
    title: joinTitle(shortTitle(experiment), 'server CPU'),
    subtitle: subtitleFor(points, 'percent of one core used by the server process during the measured window'),
    note: ctx.note,
    yLabel: 'CPU (% of one core)'
  }
  if (axis) return (width) => sweepChart({ ...base, width, points, axis, refs, repeated: points.some((p) => p.n > 1), zero: true })
  return (width) => barChart({ ...base, width, points, refs, repeated: points.some((p) => p.n > 1), format: (v) => `${Math.round(v)}%` })
}

/**
 * @param {ChartContext} ctx
 * @returns {Drawing|null}
 */
function memory (ctx) {
  const { experiment, runs, axis } = ctx
  // peak RSS and threads combine over the runs by their rules (the server table's): the highest of the runs
  const { peakRssBytes, threads: threadCount } = SERVER_FIGURES
  const points = summarizeBy(runs, axis, (r) => r.server ? peakRssBytes.of(r.server) / MIB : undefined, peakRssBytes.combine)
  if (points.length === 0) return null
  /** @param {Point} p */
  const threads = (p) => {
    const t = p.runs.flatMap((r) => r.server && r.server.threads > 0 ? [threadCount.of(r.server)] : [])
    return t.length ? Math.round(combineValues(threadCount.combine, t)) : null
  }
  const repeated = points.some((p) => p.n > 1)
  const base = {
    id: `${ctx.id}-memory`,
    experiment: ctx.name,
    kind: 'memory',
    title: joinTitle(shortTitle(experiment), 'peak memory and threads'),
    subtitle: 'Peak resident set size of the server process, with its OS thread count (each thread holds a stack, blocked or not).' +
      (repeated ? ` With repeats, the highest of the runs (${peakRssBytes.rule}), as in the server table.` : ''),
    note: ctx.note,
    yLabel: 'peak RSS (MiB)'
  }
  if (axis) {
    const single = seriesNames(points).length === 1
    /** @param {string} name */
    const range = (name) => {
      const ts = points.filter((p) => p.series === name).map(threads).filter((t) => t !== null)
      if (ts.length === 0) return name
      const lo = Math.min(...ts)
      const hi = Math.max(...ts)
      return `${name} · ${lo === hi ? lo : `${lo}–${hi}`} threads`
    }
    const refs = referenceLines(ctx, (r) => r.server ? peakRssBytes.of(r.server) / MIB : undefined, (v) => `${Math.round(v)} MiB`)
    return (width) => sweepChart({
      ...base,
      width,
      points,
      axis,
      refs,
      repeated,
      zero: true,
      legendLabel: range,
      // one series: room to print each point's thread count; several: the legend gives the range
      pointLabel: single ? (p) => threads(p) === null ? '' : `${threads(p)} threads` : undefined
    })
  }
  return (width) => barChart({ ...base, width, points, refs: [], repeated, format: (v, p) => `${Math.round(v)} MiB · ${threads(p) ?? '?'} threads` })
}

/**
 * The runs outside the sweep as dashed lines, one per configuration at its mean: "readFileSync: 310 req/s".
 * @param {ChartContext} ctx
 * @param {(run: RunRecord) => number|undefined|null} metric
 * @param {(v: number) => string} format
 * @returns {import('./chart-shapes.js').Reference[]}
 */
function referenceLines (ctx, metric, format) {
  return summarizeBy(ctx.references ?? [], null, metric).map((p) => ({ label: `${p.series}: ${format(p.mean)}`, value: p.mean }))
}

/**
 * @param {Point[]} points
 * @param {string} what
 */
function subtitleFor (points, what) {
  const ns = [...new Set(points.map((p) => p.n))]
  const most = Math.max(...ns)
  if (most <= 1) return `${cap(what)}; one run per point.`
  const mean = `${cap(what)}; mean of ${ns.length === 1 ? most : `up to ${most}`} runs`
  const bare = withoutInterval(points)
  if (bare.length === 0) return `${mean}, whiskers show the 95% confidence interval.`
  // say why a whisker is missing rather than let a reader take the point as exact
  const few = `${Math.max(...bare.map((p) => p.n))} runs are too few for a 95% confidence interval (${MIN_RUNS_FOR_INTERVAL} or more give one)`
  if (bare.length === points.filter((p) => p.n > 1).length) return `${mean}; no whiskers: ${few}.`
  return `${mean}, whiskers show the 95% confidence interval; none where ${few}.`
}

const cap = (/** @type {string} */ s) => s[0].toUpperCase() + s.slice(1)
