// The time-series chart's Plot marks, from runs to Observable Plot options: the panels, the rows they
// plot, each panel's ticks and the marks. It imports nothing, Plot included (the caller hands it in),
// so the same code draws the report's chart (chart-timeseries.js, Plot on linkedom) and the live
// dashboard's in a browser (lib/cli/dashboard.js serves this file as it is, beside Plot's own bundle).

/** Bytes in a MiB (format.js's MIB: this module imports nothing). */
const MIB = 1024 * 1024

/**
 * A panel: its name, how its values read, and how a run gives them (one value per sample, times in s).
 * @typedef {{ metric: string, unit: string, values: (run: import('../types.js').RunRecord) => { t: number[], value: (number|null)[] }|null }} Panel
 */

/** The server's panels, top to bottom (ServerMetrics.series). @type {Panel[]} */
export const SERVER_PANELS = [
  { metric: 'event-loop delay', unit: 'ms', values: (run) => serverValues(run, 'loopDelayMaxMs', 1) },
  { metric: 'CPU', unit: '%', values: (run) => serverValues(run, 'cpuPercent', 1) },
  { metric: 'RSS', unit: 'MiB', values: (run) => serverValues(run, 'rssBytes', MIB) }
]

/**
 * The event loop's utilization, for a live view: its reads of the server (ServerSecond.elu, carried
 * as the series' `elu`); the report's series has none, so the report never draws this panel.
 * @type {Panel}
 */
export const ELU_PANEL = {
  metric: 'ELU',
  unit: '%',
  values: (run) => {
    const s = /** @type {(import('../types.js').ServerMetricsSeries & { elu?: number[] })|undefined} */ (run.server?.series)
    if (!s?.elu || s.t.length === 0) return null
    return { t: s.t.map((t) => t / 1000), value: s.elu.map((v) => v * 100) }
  }
}

/** The load's panels, above the server's when the runs kept the load over time (LoadResult.series). @type {Panel[]} */
export const LOAD_PANELS = [
  { metric: 'throughput', unit: 'req/s', values: (run) => loadValues(run.load?.series, (s, i) => s.requests[i] / intervalSeconds(s.t, i)) },
  { metric: 'p99 latency', unit: 'ms', values: (run) => loadValues(run.load?.series, (s, i) => s.p99Ms[i]) }
]

/** What the probe waited each second (its p99: the wait of any other request), for a live view. @type {Panel} */
export const PROBE_PANEL = { metric: 'probe wait p99', unit: 'ms', values: (run) => loadValues(run.probe?.load?.series, (s, i) => s.p99Ms[i]) }

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
 * @param {import('../types.js').LoadSeries|undefined} s
 * @param {(s: import('../types.js').LoadSeries, i: number) => number|null} value
 */
function loadValues (s, value) {
  if (!s || s.t.length === 0) return null
  // a point at the start too: a step-before line draws the first second from 0, as it does the others
  const values = s.t.map((_, i) => value(s, i))
  return { t: [0, ...s.t], value: [values[0], ...values] }
}

/** The length of interval i of a series, s (its end less the previous end). @param {number[]} t @param {number} i */
function intervalSeconds (t, i) {
  return Math.max(t[i] - (i > 0 ? t[i - 1] : 0), 1e-3)
}

/**
 * The panels the runs fill: the load's (when any run kept its series) above the server's.
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {Panel[]}
 */
export function panelsOf (runs) {
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
 * @param {Panel[]} [panels]
 * @returns {TimeRow[]}
 */
export function timeSeriesRows (runs, panels = panelsOf(runs)) {
  /** @type {Map<string, import('../types.js').RunRecord>} */
  const first = new Map()
  for (const run of runs) {
    const has = (run.server?.series?.t.length ?? 0) > 0 || (run.load?.series?.t.length ?? 0) > 0
    if (!has || first.has(run.label)) continue
    first.set(run.label, run)
  }
  /** @type {TimeRow[]} */
  const rows = []
  for (const { metric, values } of panels) {
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
 * The Plot options of the chart: one panel per metric (fy), one line per configuration, each panel's
 * own ticks as text (the shared y scale has no units).
 * @param {typeof import('@observablehq/plot')} Plot
 * @param {object} chart
 * @param {TimeRow[]} chart.rows
 * @param {Pick<Panel, 'metric'|'unit'>[]} chart.panels
 * @param {(series: string) => string|undefined} chart.color  a configuration's colour
 * @param {string} chart.ink
 * @param {number} width
 * @returns {import('@observablehq/plot').PlotOptions}
 */
export function timeSeriesPlot (Plot, { rows, panels, color, ink }, width) {
  const narrow = width < 500
  const ticks = panels.flatMap(({ metric, unit }) => {
    const values = rows.filter((r) => r.metric === metric).map((r) => r.value)
    const top = Math.max(...values)
    return (top > 0 ? [0, 0.5, 1] : [0]).map((y) => ({ metric, y, label: `${tickNumber(top * y)} ${unit}` }))
  })
  const end = Math.max(...rows.map((r) => r.t))
  return {
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
      Plot.frame({ stroke: ink, strokeOpacity: 0.15 }),
      Plot.ruleY(ticks, { fy: 'metric', y: 'y', stroke: ink, strokeOpacity: 0.08 }),
      Plot.text(ticks, { fy: 'metric', y: 'y', text: 'label', frameAnchor: 'left', textAnchor: 'end', dx: -6, fill: ink, fontSize: 11 }),
      // step-before: a sample covers the interval that ends at its time, so a 1 s block is 1 s wide
      Plot.line(rows, { fy: 'metric', x: 't', y: 'y', z: 'series', stroke: (/** @type {TimeRow} */ d) => color(d.series), strokeWidth: 1.8, curve: 'step-before' })
    ]
  }
}

/**
 * A tick value a reader says aloud: "1,000", "49.5", "0".
 * @param {number} v
 */
function tickNumber (v) {
  return Number(v.toPrecision(3)).toLocaleString('en-US')
}
