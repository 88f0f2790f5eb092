// The rate-sweep's chart, the "hockey stick": corrected p99 latency (log) against the offered rate,
// one line per strategy. Flat while the server keeps up, then a wall once the offered rate passes what
// it can serve: queueing time grows without bound. The SLO is a dashed line; each strategy's capacity
// at the SLO (lib/report/rate-sweep.js) is where its line crosses it.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, niceLogTicks, formatMs, REFERENCE_COLOR, INK } from './chart-style.js'
import { WIDTH } from './chart-kinds.js'
import { summarizeExperiments } from '../analysis/summarize.js'
import { rateSweepSteps, DEFAULT_SLO_P99_MS } from './rate-sweep.js'
import { formatNumber } from '../format.js'

/**
 * @param {import('./charts.js').ChartContext} ctx
 * @param {import('../types.js').ResultsFile} results
 * @returns {import('./charts.js').Drawing|null}
 */
export function rateSweepChart (ctx, results) {
  const { experiment, note, id, name } = ctx
  // the model's summary, or the experiment summarized here (a chart drawn without the model)
  const summary = ctx.summary ?? summarizeExperiments({ ...results, experiments: results.experiments.filter((e) => e.name === name) })[0]
  if (!summary) return null
  const steps = rateSweepSteps(summary).filter((x) => x.latency.p99 > 0)
  if (steps.length === 0) return null
  const slo = summary.sloP99Ms ?? DEFAULT_SLO_P99_MS
  const variants = [...new Set(steps.map((x) => x.variant))]
  const strategies = new Map(steps.map((x) => [x.variant, x.strategy]))
  const colors = colorsFor(variants, (v) => strategies.get(v) ?? '')
  /** @param {{ variant: string }} d */
  const color = (d) => colors.get(d.variant)
  const data = steps.map((x) => ({ ...x, p99: x.latency.p99, p50: x.latency.p50 })).sort((a, b) => a.target - b.target)
  const ys = [...data.flatMap((d) => [d.p99, d.p50]), slo].filter((v) => v > 0)
  const lo = Math.min(...ys) / 1.3
  const hi = Math.max(...ys) * 1.3
  const maxRate = Math.max(...data.map((d) => d.target))
  return (width = WIDTH) => ({
    id: `${id}-rate-sweep`,
    experiment: name,
    kind: 'rate-sweep',
    title: joinTitle(shortTitle(experiment), 'latency against offered load'),
    subtitle: 'Open loop: requests offered at a fixed rate whatever the answers, latency measured from each request\'s intended send time ' +
      '(corrected for coordinated omission), log scale. Solid: p99; faint: p50. Each strategy\'s rates are ' +
      `${Math.round(Math.min(...data.map((d) => d.offered)) * 100)}% to ${Math.round(Math.max(...data.map((d) => d.offered)) * 100)}% of its own closed-loop capacity: ` +
      `once the offered rate passes what it serves, requests queue and latency climbs the wall. Dashed: the SLO, p99 under ${formatMs(slo)}.`,
    note,
    legend: [
      ...variants.map((v) => ({ label: v, color: /** @type {string} */ (colors.get(v)) })),
      { label: `SLO: p99 under ${formatMs(slo)}`, color: REFERENCE_COLOR, shape: /** @type {const} */ ('dash') }
    ],
    plot: {
      width,
      height: width < 500 ? 300 : 360,
      marginLeft: 60,
      marginRight: 28,
      marginBottom: 40,
      color: { type: 'identity' },
      x: { type: 'linear', domain: [0, maxRate * 1.05], nice: true, grid: true, label: 'offered rate (requests / s) →', labelAnchor: 'center' },
      y: { type: 'log', domain: [lo, hi], ticks: niceLogTicks(lo, hi), tickFormat: formatMs, grid: true, label: '↑ latency (corrected)' },
      marks: [
        Plot.ruleY([slo], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }),
        Plot.text([slo], { y: (d) => d, text: () => `SLO p99 ${formatMs(slo)}`, frameAnchor: 'left', textAnchor: 'start', dx: 4, dy: -7, fill: REFERENCE_COLOR, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }),
        Plot.line(data, { x: 'target', y: 'p50', z: 'variant', stroke: color, strokeWidth: 1.5, strokeOpacity: 0.45 }),
        Plot.line(data, { x: 'target', y: 'p99', z: 'variant', stroke: color, strokeWidth: 2.5 }),
        Plot.dot(data, { x: 'target', y: 'p99', fill: color, r: 4, stroke: 'white', strokeWidth: 1, title: (d) => `${d.label}: ${formatNumber(d.target)} req/s offered, ${formatNumber(d.achieved)} answered; p99 ${formatMs(d.p99)}, p50 ${formatMs(d.p50)}` }),
        Plot.text(data.filter((d) => d.offered === Math.max(...data.filter((x) => x.variant === d.variant).map((x) => x.offered))), { x: 'target', y: 'p99', text: 'variant', dy: -10, fill: color, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }),
        Plot.ruleX([0], { stroke: INK, strokeOpacity: 0.4 })
      ]
    }
  })
}
