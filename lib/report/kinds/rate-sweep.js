// The rate-sweep kind (`table: 'rate-sweep'`): for each variant (a strategy), the offered rate stepped
// from a fraction of its measured capacity to beyond it, in an open loop (latency from each request's
// intended send time, corrected for coordinated omission). Its table (one row per step, its own
// percentiles: no latency table after it), its verdict (capacity at an SLO, the highest rate whose p99
// stays under the target, beside the closed-loop capacity and the physical ceiling) and its charts (the
// hockey stick, then the probe). Its steps' req/s are the rates it offered, so the terminal draws no
// bars of them. (Each variant's capacity is measured before its steps by the runner, as the experiment's
// rateSweep section asks: lib/run/runner.js.)
import { strategyStyles } from '../../lab/strategies.js'
import { summarizeExperiments } from '../../analysis/summarize.js'
import { formatNumber } from '../../format.js'
import { shortTitle, joinTitle } from '../chart-data.js'
import { colorsFor, niceLogTicks, formatMs, REFERENCE_COLOR, INK, WIDTH } from '../chart-style.js'
import { generic } from './generic.js'

/** @type {import('../kinds.js').ExperimentKind} */
export const rateSweep = {
  ...generic,
  name: 'rate-sweep',
  table: (s) => rateSweepTable(s),
  verdict: rateSweepVerdict,
  latencyTable: false,
  textChart: false,
  charts: (ctx, kit, results) => [rateSweepChart(ctx, kit, results), kit.probeChart(ctx)]
}

/** @typedef {import('../../analysis/summarize.js').Row} Row */
/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */

/** The SLO when a results file names none (the built-in rate-sweep's default, for bcrypt). */
const DEFAULT_SLO_P99_MS = 500
/**
 * A step is sustained when, besides its p99, the server answered at least this share of the offered
 * rate (a saturated server drains its backlog late: its achieved rate falls behind the target).
 */
const ACHIEVED_SHARE = 0.9

/**
 * One step of the sweep, as the table, the verdict and the chart read it.
 * @typedef {object} Step
 * @property {string} variant     the variant's label (the configuration's without its "50%")
 * @property {string} label
 * @property {string} strategy
 * @property {number} offered     fraction of the variant's capacity
 * @property {number} target      req/s offered
 * @property {number} achieved    req/s answered (mean of the runs)
 * @property {number} late        requests sent late (their connection busy), all runs
 * @property {{ p50: number, p99: number, p999: number, max: number, p99IsMax: boolean, count: number }} latency  corrected, ms
 * @property {boolean} sustained  p99 under the SLO and the offered rate answered
 */

/**
 * The steps of a rate-sweep summary, by variant then offered rate.
 * @param {ExperimentSummary} s
 * @returns {Step[]}
 */
function rateSweepSteps (s) {
  const slo = s.sloP99Ms ?? DEFAULT_SLO_P99_MS
  /** @type {Step[]} */
  const steps = []
  for (const r of s.rows) {
    const run = r.runs[0]
    if (!run || !r.latency || typeof run.config.rate !== 'number') continue
    const at = (/** @type {string} */ key) => r.latency?.percentiles.find((q) => q.key === key)
    const p99 = at('p99')
    const target = Number(run.config.rate)
    const achieved = r.figures.requestsPerSecond.mean
    const latency = { p50: at('p50')?.ms ?? NaN, p99: p99?.ms ?? r.latency.max, p999: at('p999')?.ms ?? r.latency.max, max: r.latency.max, p99IsMax: !p99 || p99.isMax, count: r.latency.count }
    steps.push({
      variant: variantOf(r.label),
      label: r.label,
      strategy: String(run.config.strategy ?? ''),
      offered: Number(run.config.offered),
      target,
      achieved,
      late: r.runs.reduce((n, x) => n + (x.load.openLoop?.lateRequests ?? 0), 0),
      latency,
      sustained: latency.p99 <= slo && achieved >= ACHIEVED_SHARE * target
    })
  }
  return steps
}

/** "sync 50%" -> "sync" (lib/run/plan.js labels an offered step so). @param {string} label */
function variantOf (label) {
  return label.replace(/ [\d.]+%$/, '')
}

/**
 * Each variant's capacity at the SLO: the highest offered rate it sustained, with every lower step
 * sustained too (null: not even the lowest), its
 * closed-loop capacity and its ceiling (one core for a strategy whose work runs on the event loop).
 * @param {ExperimentSummary} s
 */
function capacityAtSlo (s) {
  const steps = rateSweepSteps(s)
  const variants = [...new Set(steps.map((x) => x.variant))]
  return variants.map((variant) => {
    const mine = steps.filter((x) => x.variant === variant).sort((a, b) => a.target - b.target)
    // sustained from the lowest rate up: a step that passes again above a failed one is noise, not capacity
    const firstFail = mine.findIndex((x) => !x.sustained)
    const held = firstFail === -1 ? mine : mine.slice(0, firstFail)
    const best = held.length ? held[held.length - 1] : null
    const worst = mine.reduce((a, b) => b.latency.p99 > a.latency.p99 ? b : a)
    const strategy = mine[0].strategy
    const cal = s.calibration
    const onLoop = strategyStyles.get(strategy)?.onEventLoop === true
    const ceiling = cal ? (onLoop ? { rps: 1000 / cal.opMs, what: 'one core' } : { rps: cal.ceilingRps, what: `${cal.usableCores} cores` }) : null
    return { variant, strategy, best, worst, capacity: s.capacity?.[variant] ?? null, ceiling }
  })
}

/**
 * "rate-sweep: capacity at p99 under 500 ms: sync 16.3 req/s (90% of its closed-loop 18.1 req/s; ceiling
 * one core 18.4), async ...; past it, p99 reached 2.1 s (sync at 120%)".
 * @param {ExperimentSummary} s
 * @returns {string}
 */
function rateSweepVerdict (s) {
  const slo = s.sloP99Ms ?? DEFAULT_SLO_P99_MS
  const list = capacityAtSlo(s)
  if (list.length === 0) return `${s.name}: nothing measured`
  const parts = list.map(({ variant, best, capacity, ceiling }) => {
    const of = capacity && capacity.rps > 0 && best ? `${Math.round(best.target / capacity.rps * 100)}% of its closed-loop ${formatNumber(capacity.rps)} req/s` : capacity?.error ? `closed-loop capacity not measured: ${capacity.error}` : ''
    const bound = ceiling ? `ceiling ${ceiling.what} ${formatNumber(ceiling.rps)}` : ''
    const detail = [of, bound].filter(Boolean).join('; ')
    return `${variant} ${best ? `${formatNumber(best.target)} req/s` : 'none of its rates'}${detail ? ` (${detail})` : ''}`
  })
  const worst = list.map((x) => x.worst).reduce((a, b) => b.latency.p99 > a.latency.p99 ? b : a)
  const past = worst.latency.p99 > slo ? `; past it, p99 reached ${formatMs(worst.latency.p99)} (${worst.label}, ${formatNumber(worst.target)} req/s offered)` : ''
  return `${s.name}: capacity at p99 under ${formatMs(slo)}: ${parts.join(', ')}${past} [open loop, latency corrected for coordinated omission]`
}

/**
 * The sweep's table: one row per step.
 * @param {ExperimentSummary} s
 * @returns {import('../tables.js').Table}
 */
function rateSweepTable (s) {
  const slo = s.sloP99Ms ?? DEFAULT_SLO_P99_MS
  const steps = rateSweepSteps(s)
  const ms = (/** @type {number} */ v, /** @type {boolean} */ isMax = false) => Number.isFinite(v) ? `${formatNumber(v)}${isMax ? ' (max)' : ''}` : ''
  return {
    title: `${s.name}: ${s.title} (latency from each request's intended send time, ms)`,
    columns: ['Configuration', 'offered', 'target req/s', 'achieved req/s', 'late', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', `p99 < ${formatMs(slo)}`],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: steps.map((x) => [x.label, `${Math.round(x.offered * 100)}%`, formatNumber(x.target), formatNumber(x.achieved), String(x.late),
      ms(x.latency.p50), ms(x.latency.p99, x.latency.p99IsMax), ms(x.latency.p999, x.latency.count < 1000), ms(x.latency.max), x.sustained ? 'yes' : 'no'])
  }
}

/**
 * The "hockey stick": corrected p99 latency (log) against the offered rate, one line per strategy. Flat
 * while the server keeps up, then a wall once the offered rate passes what it can serve: queueing time
 * grows without bound. The SLO is a dashed line; each strategy's capacity at the SLO is where its line
 * crosses it.
 * @param {import('../charts.js').ChartContext} ctx
 * @param {import('../charts.js').ChartKit} kit
 * @param {import('../../types.js').ResultsFile} results
 * @returns {import('../charts.js').Drawing|null}
 */
function rateSweepChart (ctx, { Plot }, results) {
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
