// The server over time (clinic doctor's view): event-loop delay, CPU and RSS of the measured window,
// sample by sample (ServerMetrics.series, lib/lab/metrics-series.js), one panel per metric and one line
// per configuration (its first run); above them, when the runs kept it (LoadResult.series), the load's
// throughput and p99 latency each second, so warm-up, stalls and the run's end line up with the server's.
// A window's totals hide when the loop stopped; here a synchronous handler's stop-the-world pauses show
// as spikes as wide as the pause. The Plot marks are chart-timeseries-plot.js's, which the live
// dashboard draws too.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, INK, WIDTH } from './chart-style.js'
import { panelsOf, SERVER_PANELS, timeSeriesPlot, timeSeriesRows } from './chart-timeseries-plot.js'

export { timeSeriesRows }

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
  const panels = panelsOf(runs)
  const withLoad = panels.length > SERVER_PANELS.length
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
  return (width = WIDTH) => ({
    id: `${id}-timeseries`,
    experiment: name,
    kind: 'timeseries',
    title: joinTitle(shortTitle(experiment), withLoad ? 'the load and the server over time' : 'the server over time'),
    subtitle,
    note,
    legend: names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)) })),
    plot: timeSeriesPlot(Plot, { rows, panels, color: (series) => colors.get(series), ink: INK }, width)
  })
}
