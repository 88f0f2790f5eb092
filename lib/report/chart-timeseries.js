// The server over time (clinic doctor's view): event-loop delay, CPU and RSS of the measured window,
// sample by sample (ServerMetrics.series, lib/lab/metrics-series.js), one panel per metric and one line
// per configuration (its first run). A window's totals hide when the loop stopped; here a synchronous
// handler's stop-the-world pauses show as spikes as wide as the pause.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, INK, WIDTH } from './chart-style.js'
import { MIB } from '../format.js'

/**
 * The panels, top to bottom: the series' field, the panel's name, and how its values read.
 * @type {{ key: 'loopDelayMaxMs'|'cpuPercent'|'rssBytes', metric: string, scale: number, unit: string }[]}
 */
const PANELS = [
  { key: 'loopDelayMaxMs', metric: 'event-loop delay', scale: 1, unit: 'ms' },
  { key: 'cpuPercent', metric: 'CPU', scale: 1, unit: '%' },
  { key: 'rssBytes', metric: 'RSS', scale: MIB, unit: 'MiB' }
]

/**
 * One plotted value: a sample of one configuration's series in one panel.
 * @typedef {object} TimeRow
 * @property {string} series   the configuration's label
 * @property {string} strategy config.strategy ('' when unset): picks the colour
 * @property {string} metric   the panel
 * @property {number} t        seconds since the measured window started (the end of the sample)
 * @property {number} value    in the panel's unit (ms, % of one core, MiB)
 * @property {number} y        value / the panel's largest value: panels of different units share one y scale
 */

/**
 * The rows the chart draws: for each configuration (label), the first run that has a series.
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {TimeRow[]}
 */
export function timeSeriesRows (runs) {
  /** @type {Map<string, import('../types.js').ServerMetricsSeries & { strategy: string }>} */
  const first = new Map()
  for (const run of runs) {
    const s = run.server?.series
    if (!s || s.t.length === 0 || first.has(run.label)) continue
    first.set(run.label, { ...s, strategy: String(run.config?.strategy ?? '') })
  }
  /** @type {TimeRow[]} */
  const rows = []
  for (const { key, metric, scale } of PANELS) {
    const start = rows.length
    for (const [label, s] of first) {
      s.t.forEach((t, i) => rows.push({ series: label, strategy: s.strategy, metric, t: t / 1000, value: s[key][i] / scale, y: 0 }))
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
  const ticks = PANELS.flatMap(({ metric, unit }) => {
    const values = rows.filter((r) => r.metric === metric).map((r) => r.value)
    const top = Math.max(...values)
    return (top > 0 ? [0, 0.5, 1] : [0]).map((y) => ({ metric, y, label: `${tickNumber(top * y)} ${unit}` }))
  })
  const interval = Math.min(...runs.flatMap((r) => r.server?.series ? [r.server.series.intervalMs] : []))
  const end = Math.max(...rows.map((r) => r.t))
  return (width = WIDTH) => {
    const narrow = width < 500
    return {
      id: `${id}-timeseries`,
      experiment: name,
      kind: 'timeseries',
      title: joinTitle(shortTitle(experiment), 'the server over time'),
      subtitle: `Event-loop delay, CPU and RSS of the server during the measured window, one sample every ${interval} ms, ` +
        'first run of each configuration. A sample cannot run while the loop is blocked: the next one records the gap, ' +
        'so a stop-the-world pause shows as a spike as wide as the pause.',
      note,
      legend: names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)) })),
      plot: {
        width,
        height: (narrow ? 96 : 118) * PANELS.length + 48,
        marginLeft: 72,
        marginRight: narrow ? 84 : 116,
        marginBottom: 40,
        color: { type: 'identity' },
        x: { domain: [0, end], label: 'seconds into the measured window →', labelAnchor: 'center', grid: true, nice: true },
        y: { axis: null, domain: [0, 1.12] },
        fy: { domain: PANELS.map((p) => p.metric), axis: 'right', label: null, padding: 0.18 },
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
