// The two charts about waiting: the client's latency percentile curve (where the sync tail in seconds
// sits beside async's) and the server's event-loop delay (how late the loop ran while it served).
import * as Plot from '@observablehq/plot'
import { latencyCurve, seriesOf, seriesNames, summarizeBy, formatAxisValue, axisTitle, shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, niceLogTicks, formatMs, INK, WIDTH } from './chart-style.js'
import { sweepChart, strategyOf } from './chart-shapes.js'
import { isMeasured, SERVER_FIGURES } from '../analysis/summarize.js'
import { describeLatencyCombine } from '../analysis/latency.js'

const RANKS = [2, 10, 100, 1000, 10000]
/** @type {Record<number, string|undefined>} */
const RANK_LABEL = { 2: '50%', 10: '90%', 100: '99%', 1000: '99.9%', 10000: '99.99%' }

/** @typedef {import('../types.js').RunRecord} RunRecord */

/**
 * Percentile curves, one per series. In a sweep with several series, the curves are taken at the
 * largest axis value (where the difference is widest); with one series, one curve per axis value.
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./charts.js').Drawing|null}
 */
export function latencyChart ({ experiment, runs, axis, note, id, name, latencyOf }) {
  const series = seriesOf(runs, axis)
  /** @type {Map<string, RunRecord[]>} */
  let groups
  let where = ''
  if (axis === null) {
    groups = groupBy(runs, series)
  } else {
    const names = new Set(runs.map(series))
    if (names.size > 1) {
      // the largest axis value every series reached (a failed run must not drop a series)
      /** @param {string} name */
      const xsOf = (name) => new Set(runs.filter((r) => series(r) === name).map((r) => Number(r.config[axis])))
      const common = [...names].map(xsOf).reduce((a, b) => new Set([...a].filter((x) => b.has(x))))
      const top = Math.max(...(common.size ? common : runs.map((r) => Number(r.config[axis]))))
      groups = groupBy(runs.filter((r) => Number(r.config[axis]) === top), series)
      where = ` At ${axisTitle(axis).replace(/ \(.*\)$/, '')} = ${formatAxisValue(axis, top)}.`
    } else {
      const name = [...names][0]
      groups = groupBy(runs, (r) => `${name} ${shortAxis(axis)}=${formatAxisValue(axis, Number(r.config[axis]))}`)
      const order = (/** @type {RunRecord[]} */ rs) => Number(rs[0].config[axis])
      groups = new Map([...groups].sort((a, b) => order(a[1]) - order(b[1])))
    }
  }
  // each group's runs merged once: the curve and the caption read the same summary
  const latencies = new Map([...groups].map(([name, rs]) => [name, latencyOf(rs.filter(isMeasured))]))
  /** @type {(import('./chart-data.js').CurvePoint & { series: string, n: number })[]} */
  const data = []
  for (const [name, rs] of groups) for (const p of latencyCurve(latencies.get(name) ?? null)) data.push({ series: name, ...p, n: rs.length })
  if (data.length === 0) return null
  const names = [...groups.keys()]
  /** @param {string} name */
  const strategy = (name) => String(groups.get(name)?.[0].config?.strategy ?? '')
  const colors = axis !== null && new Set(runs.map(series)).size === 1 ? sequentialColors(names) : colorsFor(names, strategy)
  /** @param {{ series: string }} d */
  const color = (d) => colors.get(d.series)
  const lo = Math.min(...data.map((d) => d.ms)) / 1.25
  const hi = Math.max(...data.map((d) => d.ms)) * 1.25
  const maxes = data.filter((d) => d.isMax)
  /** @param {import('./chart-data.js').CurvePoint & { series: string }} d */
  const tip = (d) => d.isMax
    ? `${d.series}: max ${formatMs(d.ms)} (${d.count} requests: too few for ${d.label})`
    : `${d.series}: ${Number((d.q * 100).toPrecision(4))}% of requests within ${formatMs(d.ms)}`
  return (width = WIDTH) => ({
    id: `${id}-latency`,
    experiment: name,
    kind: 'latency',
    title: joinTitle(shortTitle(experiment), 'latency by percentile'),
    subtitle: `Time per request at each percentile, both axes log scale: the further right, the rarer the request.${where}` +
      combinedNote(latencies) +
      (maxes.length ? ' A curve ends in "max" where its requests are too few for the next percentile.' : ''),
    note,
    legend: names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)) })),
    plot: {
      width,
      height: width < 500 ? 280 : 340,
      marginLeft: 60,
      marginRight: 28,
      marginBottom: 40,
      color: { type: 'identity' },
      x: { type: 'log', domain: [1.8, 11000], ticks: RANKS, tickFormat: (/** @type {number} */ v) => RANK_LABEL[v] ?? '', label: 'percentile →', labelAnchor: 'center' },
      y: { type: 'log', domain: [lo, hi], ticks: niceLogTicks(lo, hi), tickFormat: formatMs, grid: true, label: '↑ latency' },
      marks: [
        Plot.line(data, { x: 'rank', y: 'ms', z: 'series', stroke: color, strokeWidth: 2.5 }),
        Plot.dot(data, { x: 'rank', y: 'ms', fill: color, r: 3.5, stroke: 'white', strokeWidth: 1, title: tip }),
        Plot.text(maxes, { x: 'rank', y: 'ms', text: () => 'max', dy: -10, fill: color, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' })
      ]
    }
  })
}

/**
 * Event-loop delay of the server: p50, p99 and max per configuration; in a sweep, p99 against the axis.
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./charts.js').Drawing|null}
 */
export function eventLoopChart ({ experiment, runs, axis, note, id, name }) {
  const withServer = runs.filter((r) => r.server?.eventLoopDelay)
  if (withServer.length === 0) return null
  /** @param {number} width */
  const base = (width) => ({
    id: `${id}-event-loop`,
    experiment: name,
    kind: 'event-loop',
    title: joinTitle(shortTitle(experiment), 'server event-loop delay'),
    note,
    width
  })
  const p99 = SERVER_FIGURES.loopP99
  if (axis !== null) {
    const points = summarizeBy(withServer, axis, (r) => r.server && p99.of(r.server), p99.combine)
    const repeated = points.some((p) => p.n > 1)
    return (width = WIDTH) => sweepChart({
      ...base(width),
      subtitle: 'p99 of how late the server\'s event loop ran (a 10 ms timer, sampled as monitorEventLoopDelay does), log scale: while it is late, every request waits.' +
        (repeated ? ' With repeats, the mean of the runs\' p99 (the server reports percentiles, not its histogram).' : ''),
      points,
      axis,
      refs: [],
      repeated,
      yLabel: 'p99 event-loop delay (ms)',
      yType: 'log'
    })
  }
  // each figure combined over the runs by its one rule, as the server table combines it
  const rows = [SERVER_FIGURES.loopP50, p99, SERVER_FIGURES.loopMax].map(({ of, combine }) => summarizeBy(withServer, null, (r) => r.server && of(r.server), combine))
  const data = rows[0].map((p, i) => ({ series: p.series, p50: p.mean, p99: rows[1][i].mean, max: rows[2][i].mean }))
  const repeated = rows[0].some((p) => p.n > 1)
  const names = seriesNames(rows[0])
  const colors = colorsFor(names, strategyOf(rows[0]), { unique: false })
  /** @param {{ series: string }} d */
  const color = (d) => colors.get(d.series)
  return (width = WIDTH) => ({
    ...base(width),
    subtitle: 'How late the server\'s event loop ran a 10 ms timer during the run (sampled as perf_hooks.monitorEventLoopDelay does), log scale. ' +
      'While the loop is late, every request waits.' +
      (repeated ? ' p50 and p99: mean of the runs\' values (the server reports percentiles, not its histogram); max: the highest of the runs.' : ''),
    ...percentileStrip({
      data,
      names,
      color,
      width,
      xLabel: 'event-loop delay →',
      room: 80,
      p99Title: (d) => `${d.series}: p99 ${formatMs(d.p99)}`,
      label: (d) => `max ${formatMs(d.max)}`
    })
  })
}

/**
 * One row per configuration on one log axis: p50 a ring, p99 a dot, max a tick, a line from p50 to
 * max, and a label right of the max (the event-loop chart; the probe's chart).
 * @template {{ series: string, p50: number, p99: number, max: number }} D
 * @param {object} o
 * @param {D[]} o.data
 * @param {string[]} o.names                the rows, top to bottom
 * @param {(d: D) => string|undefined} o.color
 * @param {number} o.width
 * @param {string} o.xLabel
 * @param {number} o.room                   px kept right of the largest value for its label
 * @param {(d: D) => string} o.p99Title     the p99 dot's tooltip
 * @param {(d: D) => string} o.label        printed right of the max tick
 * @returns {Pick<import('./svg.js').ChartSpec, 'legend'|'plot'>}
 */
export function percentileStrip ({ data, names, color, width, xLabel, room, p99Title, label }) {
  const values = data.flatMap((d) => [d.p50, d.p99, d.max]).filter((v) => v > 0)
  const lo = Math.min(...values) / 1.5
  const longest = Math.max(...names.map((n) => n.length))
  const marginLeft = Math.min(width * 0.3, 16 + longest * 7.2)
  const inner = width - marginLeft - 28
  // keep `room` px right of the largest value for its printed label: on a log axis that sets the upper end
  const top = Math.max(...values) * 1.05
  const hi = lo * (top / lo) ** (inner / Math.max(inner - room, inner / 2))
  return {
    legend: [
      { label: 'p50', color: INK, shape: 'ring' },
      { label: 'p99', color: INK, shape: 'dot' },
      { label: 'max', color: INK, shape: 'tick' }
    ],
    plot: {
      width,
      height: 56 + names.length * 44,
      marginTop: 8,
      marginLeft,
      marginRight: 28,
      marginBottom: 40,
      color: { type: 'identity' },
      x: { type: 'log', domain: [lo, hi], ticks: niceLogTicks(lo, hi), tickFormat: formatMs, grid: true, label: xLabel, labelAnchor: 'center' },
      y: { domain: names, label: null, tickSize: 0 },
      marks: [
        Plot.ruleY(data, { y: 'series', x1: 'p50', x2: 'max', stroke: color, strokeWidth: 3, strokeOpacity: 0.5 }),
        Plot.tickX(data, { y: 'series', x: 'max', stroke: color, strokeWidth: 2.5, insetTop: 10, insetBottom: 10 }),
        Plot.dot(data, { y: 'series', x: 'p99', fill: color, r: 6, title: p99Title }),
        Plot.dot(data, { y: 'series', x: 'p50', fill: 'white', stroke: color, strokeWidth: 2, r: 5.5, title: (d) => `${d.series}: p50 ${formatMs(d.p50)}` }),
        Plot.text(data, { y: 'series', x: 'max', text: label, dx: 8, textAnchor: 'start', fill: INK, fontSize: 11 })
      ]
    }
  }
}

/**
 * How each curve combined its runs, in one sentence ('' when every curve is one run).
 * @param {Map<string, import('../analysis/latency.js').LatencySummary|null>} latencies
 */
function combinedNote (latencies) {
  const how = new Set()
  for (const latency of latencies.values()) {
    if (latency && latency.runs > 1) how.add(describeLatencyCombine(latency))
  }
  return how.size ? ` Each curve: ${[...how].join(', or ')}.` : ''
}

/**
 * @param {RunRecord[]} runs
 * @param {(run: RunRecord) => string} key
 * @returns {Map<string, RunRecord[]>}
 */
function groupBy (runs, key) {
  /** @type {Map<string, RunRecord[]>} */
  const map = new Map()
  for (const r of runs) {
    const k = key(r)
    const group = map.get(k)
    if (group) group.push(r)
    else map.set(k, [r])
  }
  return map
}

/** @param {string} axis */
function shortAxis (axis) {
  /** @type {Record<string, string|undefined>} */
  const short = { concurrency: 'c', threadpoolSize: 'pool', poolSize: 'pool', fileSize: 'size' }
  return short[axis] ?? axis
}

/**
 * Light to dark blue for an ordered axis, so the eye reads the order without the legend.
 * @param {string[]} names
 * @returns {Map<string, string>}
 */
function sequentialColors (names) {
  const ramp = ['#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b']
  /** @type {Map<string, string>} */
  const map = new Map()
  names.forEach((n, i) => map.set(n, ramp[Math.round(i * (ramp.length - 1) / Math.max(1, names.length - 1))]))
  return map
}
