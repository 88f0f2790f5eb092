// The chart of a capacity run (`syncbench run --capacity`): every step of every search, its corrected
// latency at the goal's measure (p99 unless the goal names another) against the rate it offered, a
// series per configuration, on log axes (the growth doubles the rate, and latency past the capacity
// grows by decades). A filled dot is a step that met the goal, a ring one that missed it, a triangle one
// the generator could not send; the dashed line is the goal's bound and each configuration's capacity
// (the geometric mean of its searches) is a dashed rule in its colour: the reader sees where each
// series crosses the goal and how far past it the closed loop sits.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle, slug } from './chart-data.js'
import { named } from './chart-shapes.js'
import { colorsFor, formatMs, niceLogTicks, INK, REFERENCE_COLOR, WIDTH } from './chart-style.js'
import { formatNumber } from '../format.js'

/** The symbol of each step's verdict, and how the legend draws it. */
const VERDICTS = /** @type {const} */ ({
  pass: { symbol: 'circle', filled: true, legend: 'dot', label: 'met the goal' },
  fail: { symbol: 'circle', filled: false, legend: 'ring', label: 'missed it' },
  'generator-bound': { symbol: 'triangle', filled: true, legend: 'tick', label: 'generator-bound' }
})

/**
 * The capacity chart of an experiment, null when no step has a latency to draw.
 * @param {import('./charts.js').ChartContext} ctx  the experiment's (its first part: the chart is the
 *        experiment's whole, whatever its workloads)
 * @param {import('./capacity-report.js').CapacityReading} reading  the model's (ReportSummary.capacityReading)
 * @returns {import('./charts.js').Drawing|null}
 */
export function capacityChart ({ experiment, name, note }, reading) {
  const { measure } = reading
  const names = reading.rows.map((r) => r.node === null ? r.label : `${r.label} (${r.node})`)
  const data = reading.rows.flatMap((row, i) => row.searches.flatMap((s) => (s.search?.steps ?? []).map((step) => ({
    series: names[i],
    rate: step.rate,
    ms: step.figures[measure.figure],
    verdict: step.verdict
  })))).filter((d) => typeof d.ms === 'number' && d.ms > 0 && Number.isFinite(d.ms) && d.rate > 0)
  if (data.length === 0) return null
  const strategies = new Map(reading.rows.map((r, i) => [names[i], String(r.searches[0]?.config?.strategy ?? r.label)]))
  const colors = colorsFor(names, (n) => strategies.get(n) ?? n)
  /** @param {{ series: string }} d */
  const color = (d) => /** @type {string} */ (colors.get(d.series))
  const capacities = reading.rows.flatMap((r, i) => r.interval.n > 0 && Number.isFinite(r.interval.geometricMean)
    ? [{ series: names[i], rate: r.interval.geometricMean, lower: r.searches.some((s) => s.search?.capacity != null && (s.error || s.search.reason !== 'found')) }]
    : [])
  const goal = measure.below
  const ys = [...data.map((d) => /** @type {number} */ (d.ms)), ...goal === null ? [] : [goal]]
  const xs = [...data.map((d) => d.rate), ...capacities.map((c) => c.rate)]
  const y = /** @type {[number, number]} */ ([Math.min(...ys) / 1.3, Math.max(...ys) * 1.3])
  const x = /** @type {[number, number]} */ ([Math.min(...xs) / 1.2, Math.max(...xs) * 1.2])
  const shown = Object.entries(VERDICTS).filter(([v]) => data.some((d) => d.verdict === v))
  /** @param {keyof typeof VERDICTS} verdict */
  const steps = (verdict) => {
    const style = VERDICTS[verdict]
    const these = data.filter((d) => d.verdict === verdict)
    return named(Plot.dot(these, { x: 'rate', y: 'ms', r: 4, symbol: style.symbol, ...style.filled ? { fill: color } : { stroke: color, fill: 'white', strokeWidth: 1.5 }, title: (/** @type {typeof data[number]} */ d) => `${d.series}: ${formatNumber(d.rate)} req/s offered, ${measure.name} ${formatMs(/** @type {number} */ (d.ms))}, ${d.verdict}` }), `step ${verdict}`)
  }
  const latency = measure.figure === 'loopP99Ms' ? 'event-loop delay p99' : `${measure.name}, corrected for coordinated omission`
  return (width = WIDTH) => ({
    id: `${slug(name)}-capacity`,
    experiment: name,
    kind: 'capacity',
    title: joinTitle(shortTitle(experiment), `the rate each configuration holds at ${reading.goal}`),
    subtitle: `Each step of the capacity searches (${reading.stepSeconds} s of open-loop load at one rate): its ${latency}, against the rate offered, log scales. ` +
      `Filled dot: the step met the goal; ring: it missed it${shown.some(([v]) => v === 'generator-bound') ? '; triangle: the generator could not send the rate' : ''}. ` +
      `${goal === null ? '' : `Dashed grey line: the goal (${measure.name} < ${formatMs(goal)}). `}Dashed rule: each configuration's capacity (the geometric mean of its searches${capacities.some((c) => c.lower) ? '; ≥: a lower bound, the search stopped before bisecting' : ''}).`,
    note,
    legend: [
      ...names.map((n) => ({ label: n, color: /** @type {string} */ (colors.get(n)), shape: /** @type {const} */ ('dot') })),
      ...shown.map(([, style]) => ({ label: style.label, color: INK, shape: style.legend })),
      ...goal === null ? [] : [{ label: `goal: ${reading.goal}`, color: REFERENCE_COLOR, shape: /** @type {const} */ ('dash') }]
    ],
    plot: {
      width,
      height: 360,
      marginLeft: 64,
      // room for the last capacity's label beside its rule
      marginRight: 48,
      x: { type: 'log', domain: x, label: 'offered rate (req/s) →', ticks: niceLogTicks(x[0], x[1]), tickFormat: (/** @type {number} */ v) => String(Number(v.toPrecision(3))) },
      y: { type: 'log', domain: y, label: `↑ ${measure.name}`, grid: true, ticks: niceLogTicks(y[0], y[1]), tickFormat: formatMs },
      marks: [
        ...goal === null
          ? []
          : [named(Plot.ruleY([goal], { stroke: REFERENCE_COLOR, strokeDasharray: '6 4', strokeWidth: 1.5 }), 'goal'),
              named(Plot.text([goal], { x: x[0], y: (/** @type {number} */ v) => v, text: () => `goal: ${reading.goal}`, textAnchor: 'start', dx: 4, dy: -7, fill: REFERENCE_COLOR, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }), 'goal label')],
        named(Plot.ruleX(capacities, { x: 'rate', stroke: color, strokeDasharray: '3 3', strokeWidth: 1.5 }), 'capacity'),
        // every other label by rate a line lower: two capacities close on the rate axis keep their labels apart
        ...[0, 1].map((row) => named(Plot.text([...capacities].sort((a, b) => a.rate - b.rate).filter((_, i) => i % 2 === row), { x: 'rate', y: y[1], text: (/** @type {typeof capacities[number]} */ c) => `${c.lower ? '≥ ' : ''}${formatNumber(c.rate)}`, fill: color, dy: 8 + 14 * row, dx: 4, textAnchor: 'start', fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }), 'capacity label')),
        ...shown.map(([v]) => steps(/** @type {keyof typeof VERDICTS} */ (v)))
      ]
    }
  })
}
