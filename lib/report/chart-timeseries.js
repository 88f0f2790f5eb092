// The server over time (clinic doctor's view): event-loop delay, CPU and RSS of the measured window,
// sample by sample (ServerMetrics.series, lib/lab/metrics-series.js), one panel per metric and one line
// per configuration (its first run); above them, when the runs kept it (LoadResult.series), the load's
// throughput and p99 latency each second, so warm-up, stalls and the run's end line up with the server's. A window's totals hide when the loop stopped; here a synchronous
// handler's stop-the-world pauses show as spikes as wide as the pause.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, INK, WIDTH } from './chart-style.js'
import { MIB } from '../format.js'

/**
 * A panel: its name, how its values read, and how a run gives them (one value per sample, its times in s).
 * @typedef {{ metric: string, unit: string, values: (run: import('../types.js').RunRecord) => { t: number[], value: (number|null)[] }|null }} Panel
 */

/** The server's panels, top to bottom (ServerMetrics.series). @type {Panel[]} */
const SERVER_PANELS = [
  { metric: 'event-loop delay', unit: 'ms', values: (run) => serverValues(run, 'loopDelayMaxMs', 1) },
  { metric: 'CPU', unit: '%', values: (run) => serverValues(run, 'cpuPercent', 1) },
  { metric: 'RSS', unit: 'MiB', values: (run) => serverValues(run, 'rssBytes', MIB) }
]

/** The load's panels, above the server's when the runs kept the load over time (LoadResult.series). @type {Panel[]} */
const LOAD_PANELS = [
  { metric: 'throughput', unit: 'req/s', values: (run) => loadValues(run, (s, i) => s.requests[i] / intervalSeconds(s.t, i)) },
  { metric: 'p99 latency', unit: 'ms', values: (run) => loadValues(run, (s, i) => s.p99Ms[i]) }
]

/**
 * @param {import('../types.js').RunRecord} run
 * @param {'loopDelayMaxMs'|'cpuPercent'|'rssBytes'} key
 * @param {number} scale
 */
function serverValues (run, key, scale) {
  const s = run.server?.series
  if (!s || s.t.length === 0) return null
  return { t: s.t.map((t) => t / 1000), value: s[key].map((v) => v / scale) }
}

/**
 * @param {import('../types.js').RunRecord} run
 * @param {(s: import('../types.js').LoadSeries, i: number) => number|null} value
 */
function loadValues (run, value) {
  const s = run.load?.series
  if (!s || s.t.length === 0) return null
  return { t: s.t, value: s.t.map((_, i) => value(s, i)) }
}

/** The length of interval i of a series, s (its end less the previous end). @param {number[]} t @param {number} i */
function intervalSeconds (t, i) {
  return Math.max(t[i] - (i > 0 ? t[i - 1] : 0), 1e-3)
}

/**
 * The panels the runs fill: the load's (when any run kept its series) above the server's.
 * @param {import('../types.js').RunRecord[]} runs
 */
function panelsOf (runs) {
  return runs.some((run) => (run.load?.series?.t.length ?? 0) > 0) ? [...LOAD_PANELS, ...SERVER_PANELS] : SERVER_PANELS
}

/**
 * One plotted value: a sample of one configuration's series in one panel.
 * @typedef {object} TimeRow
 * @property {string} series   the configuration's label
 * @property {string} strategy config.strategy ('' when unset): picks the colour
 * @property {string} metric   the panel
 * @property {number} t        seconds since the measured window started (the end of the sample)
 * @property {number} value    in the panel's unit (ms, % of one core, MiB, req/s)
 * @property {number} y        value / the panel's largest value: panels of different units share one y scale
 */

/**
 * The rows the chart draws: for each configuration (label), the first run that has a series (the
 * server's, or the load's).
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {TimeRow[]}
 */
export function timeSeriesRows (runs) {
  /** @type {Map<string, import('../types.js').RunRecord>} */
  const first = new Map()
  for (const run of runs) {
    const has = (run.server?.series?.t.length ?? 0) > 0 || (run.load?.series?.t.length ?? 0) > 0
    if (!has || first.has(run.label)) continue
    first.set(run.label, run)
  }
  /** @type {TimeRow[]} */
  const rows = []
  for (const { metric, values } of panelsOf(runs)) {
    const start = rows.length
    for (const [label, run] of first) {
      const v = values(run)
      if (v === null) continue
      const strategy = String(run.config?.strategy ?? '')
      v.t.forEach((t, i) => {
        const value = v.value[i]
        if (value !== null) rows.push({ series: label, strategy, metric, t, value, y: 0 })
      })
    }
    const panel = rows.slice(start)
    const top = Math.max(...panel.map((r) => r.value))
    for (const r of panel) r.y = top > 0 ? r.value / top : 0
  }
  return rows
}

/**
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./charts.js').Drawing|null}
 */
export function timeSeriesChart ({ experiment, runs, note, id, name }) {
  const rows = timeSeriesRows(runs)
  if (rows.length === 0) return null
  const names = [...new Set(rows.map((r) => r.series))]
  const strategies = new Map(rows.map((r) => [r.series, r.strategy]))
  const colors = colorsFor(names, (n) => strategies.get(n) ?? '')
  /** @param {TimeRow} d */
  const color = (d) => colors.get(d.series)
  // Each panel's own ticks (0, half, its largest value), drawn as text: the shared y scale has no units.
  const panels = panelsOf(runs)
  const withLoad = panels.length > SERVER_PANELS.length
  const ticks = panels.flatMap(({ metric, unit }) => {
    const values = rows.filter((r) => r.metric === metric).map((r) => r.value)
    const top = Math.max(...values)
    return (top > 0 ? [0, 0.5, 1] : [0]).map((y) => ({ metric, y, label: `${tickNumber(top * y)} ${unit}` }))
  })
  const interval = Math.min(...runs.flatMap((r) => r.server?.series ? [r.server.series.intervalMs] : []))
  const subtitle = withLoad && !Number.isFinite(interval)
    ? 'The load\'s throughput and p99 latency each second, first run of each configuration (the server\'s own series were not measured).'
    : withLoad
      ? `The load's throughput and p99 latency each second, then the server's event-loop delay, CPU and RSS during the measured window, one sample every ${interval} ms, ` +
        'first run of each configuration. A sample cannot run while the loop is blocked: the next one records the gap, ' +
        'so a stop-the-world pause shows as a spike as wide as the pause, and as a drop in throughput.'
      : `Event-loop delay, CPU and RSS of the server during the measured window, one sample every ${interval} ms, ` +
        'first run of each configuration. A sample cannot run while the loop is blocked: the next one records the gap, ' +
        'so a stop-the-world pause shows as a spike as wide as the pause.'
  const end = Math.max(...rows.map((r) => r.t))
  return (width = WIDTH) => {
    const narrow = width < 500
    return {
      id: `${id}-timeseries`,
      experiment: name,
      kind: 'timeseries',
      title: joinTitle(shortTitle(experiment), withLoad ? 'the load and the server over time' : 'the server over time'),
      subtitle,
      note,
      legend: names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)) })),
      plot: {
        width,
        height: (narrow ? 96 : 118) * panels.length + 48,
        marginLeft: 72,
        marginRight: narrow ? 84 : 116,
        marginBottom: 40,
        color: { type: 'identity' },
        x: { domain: [0, end], label: 'seconds into the measured window →', labelAnchor: 'center', grid: true, nice: true },
        y: { axis: null, domain: [0, 1.12] },
        fy: { domain: panels.map((p) => p.metric), axis: 'right', label: null, padding: 0.18 },
        marks: [
          Plot.frame({ stroke: INK, strokeOpacity: 0.15 }),
          Plot.ruleY(ticks, { fy: 'metric', y: 'y', stroke: INK, strokeOpacity: 0.08 }),
          Plot.text(ticks, { fy: 'metric', y: 'y', text: 'label', frameAnchor: 'left', textAnchor: 'end', dx: -6, fill: INK, fontSize: 11 }),
          // step-before: a sample covers the interval that ends at its time, so a 1 s block is 1 s wide
          Plot.line(rows, { fy: 'metric', x: 't', y: 'y', z: 'series', stroke: color, strokeWidth: 1.8, curve: 'step-before' })
        ]
      }
    }
  }
}

/**
 * A tick value a reader says aloud: "1,000", "49.5", "0".
 * @param {number} v
 */
function tickNumber (v) {
  return Number(v.toPrecision(3)).toLocaleString('en-US')
}
