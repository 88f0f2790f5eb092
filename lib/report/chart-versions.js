// The chart of a `syncbench run --node` file: each experiment's comparisons (readFile / readFileSync)
// by Node.js version, the ratio of the means as a dot with its 95% CI as a rule, on a log axis around
// 1 (the two sides equal): a conclusion that changes between versions crosses the line.
import * as Plot from '@observablehq/plot'
import { versionsOf } from './version-report.js'
import { colorsFor, environmentNote, REFERENCE_COLOR, WIDTH } from './chart-style.js'
import { slug } from './chart-data.js'

/**
 * One chart per experiment that compares configurations, run under two or more binaries; none otherwise.
 * @param {import('../types.js').ResultsFile} results
 * @returns {import('./charts.js').Drawing[]}
 */
export function versionCharts (results) {
  const model = versionsOf(results)
  if (!model) return []
  const order = model.summary.nodes.map((n) => n.name)
  return model.summary.experiments.flatMap((e) => {
    const data = e.comparisons.flatMap((c) => c.byVersion.flatMap(({ node, comparison }) => comparison && comparison.ratio > 0
      ? [{ series: `${c.label} / ${c.baseline}`, node, ratio: comparison.ratio, low: comparison.interval.low, high: comparison.interval.high, p: comparison.test.p }]
      : []))
    if (data.length === 0) return []
    const names = [...new Set(data.map((d) => d.series))]
    const colors = colorsFor(names, (n) => n.split(' / ')[0])
    const withCi = data.filter((d) => Number.isFinite(d.low) && Number.isFinite(d.high))
    const values = [...data.map((d) => d.ratio), ...withCi.flatMap((d) => [d.low, d.high]), 1]
    const domain = [Math.min(...values) / 1.15, Math.max(...values) * 1.15]
    const title = model.summary.versions[0].summaries.find((s) => s.name === e.name)?.title ?? e.name
    /** @type {import('./charts.js').Drawing} */
    const draw = (width = WIDTH) => ({
      id: `${slug(e.name)}-versions`,
      experiment: e.name,
      kind: 'versions',
      title: `${title}: each comparison by Node.js version`,
      subtitle: `Requests per second of each configuration over its baseline's, on each Node.js binary (--node ${order.join(', ')}), log scale; ` +
        'dot: the ratio of the means; rule: its 95% CI (3 runs or more a side); above 1 the first is faster.',
      note: environmentNote(results.environment),
      legend: names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)) })),
      plot: {
        width,
        height: 320,
        marginLeft: 60,
        x: { domain: order, label: 'Node.js (--node) →', padding: 0.3 },
        y: { type: 'log', domain, label: '↑ ratio', grid: true, tickFormat: (/** @type {number} */ v) => `${Number(v.toPrecision(2))}x` },
        marks: [
          Plot.ruleY([1], { stroke: REFERENCE_COLOR, strokeDasharray: '4 3' }),
          Plot.ruleX(withCi, { x: 'node', y1: 'low', y2: 'high', stroke: (/** @type {{ series: string }} */ d) => colors.get(d.series), strokeWidth: 2 }),
          Plot.line(data, { x: 'node', y: 'ratio', z: 'series', stroke: (/** @type {{ series: string }} */ d) => colors.get(d.series), strokeOpacity: 0.5 }),
          Plot.dot(data, { x: 'node', y: 'ratio', fill: (/** @type {{ series: string }} */ d) => colors.get(d.series), r: 4 }),
          Plot.text(data, { x: 'node', y: 'ratio', text: (/** @type {{ ratio: number }} */ d) => `${d.ratio.toFixed(2)}x`, dx: 8, textAnchor: 'start', fill: (/** @type {{ series: string }} */ d) => colors.get(d.series) })
        ]
      }
    })
    return [draw]
  })
}
