// syncbench compare's chart of one configuration: how far each latency quantile of b moved from a's
// (b - a, ms), quantile by quantile from the median to the tail, each with its 95% bootstrap interval
// across runs as a bar, and the zero line. A tail that got worse stands above zero while the median
// sits on it: the regression a req/s ratio, or a p50, never shows.
import * as Plot from '@observablehq/plot'
import { named } from './chart-shapes.js'
import { formatMs, INK, REFERENCE_COLOR, WIDTH } from './chart-style.js'

/** The interval's colour where b is worse beyond it, better beyond it, and within it. */
const MOVED_COLOR = { 1: '#d62728', '-1': '#2ca02c', 0: '#1f77b4' }

/** The marks' names (their group's aria-label), which tests and screen readers find them by. */
export const BAND_LABEL = '95% interval of b - a'
export const ZERO_LABEL = 'zero: no change'

/**
 * "+1.2 ms", "-0.40 ms", "0 ms": a difference of ms, its sign always shown.
 * @param {number} ms
 */
function signedMs (ms) {
  if (ms === 0) return '0 ms'
  return `${ms > 0 ? '+' : '-'}${formatMs(Math.abs(ms))}`
}

/**
 * The chart of one configuration's quantile differences; null when no quantile of it can be drawn (a
 * side without latency, or every quantile read as a maximum: too few requests).
 * @param {{ id: string, experiment: string, title: string, note?: string }} head  id: unique in the page
 * @param {import('./compare-markdown.js').QuantileCell[]|null} cells  quantileCells' of the configuration
 * @returns {import('./charts.js').Drawing|null}
 */
export function quantileDifferenceChart (head, cells) {
  // a quantile read as a side's slowest request is no quantile: its difference means nothing
  const drawn = (cells ?? []).filter((c) => !c.a.isMax && !c.b.isMax)
  if (drawn.length === 0) return null
  const bands = drawn.filter((c) => c.low !== null && c.high !== null)
  const values = drawn.flatMap((c) => [c.diff, c.low ?? c.diff, c.high ?? c.diff, 0])
  const [lo, hi] = [Math.min(...values), Math.max(...values)]
  // room above and below the data, and a visible span when nothing moved at all
  const pad = Math.max((hi - lo) * 0.08, 0.001)
  const left = (cells ?? []).length - drawn.length
  const without = drawn.length - bands.length
  /** @param {import('./compare-markdown.js').QuantileCell} c */
  const tip = (c) => `${c.label}: b - a ${signedMs(c.diff)}` +
    (c.low === null || c.high === null ? ' (no interval)' : `, 95% interval ${signedMs(c.low)} to ${signedMs(c.high)}`)
  /** @param {import('./compare-markdown.js').QuantileCell} c */
  const color = (c) => MOVED_COLOR[c.moved]
  return (width = WIDTH) => ({
    id: head.id,
    experiment: head.experiment,
    kind: 'quantile-difference',
    title: `${head.title}: latency b - a by quantile`,
    subtitle: 'How much slower (above zero) or faster (below) each latency quantile of b is than a\'s, ms. ' +
      'Bars: the 95% interval of b - a, a bootstrap over runs; red where b is worse beyond it, green where better.' +
      (without ? ` ${without === drawn.length ? 'No quantile has' : `${without} quantile${without === 1 ? ' has' : 's have'}`} an interval (3 runs a side give one).` : '') +
      (left ? ` ${left} quantile${left === 1 ? '' : 's'} left out: too few requests (a side's slowest request, not a quantile).` : ''),
    note: head.note,
    legend: [
      { label: 'b - a', color: INK, shape: /** @type {const} */ ('dot') },
      { label: 'worse beyond the interval', color: MOVED_COLOR[1], shape: /** @type {const} */ ('tick') },
      { label: 'within it', color: MOVED_COLOR[0], shape: /** @type {const} */ ('tick') },
      { label: 'better', color: MOVED_COLOR[-1], shape: /** @type {const} */ ('tick') }
    ],
    plot: {
      width,
      height: width < 500 ? 260 : 300,
      marginLeft: 72,
      marginRight: 20,
      marginBottom: 40,
      x: { type: 'point', domain: drawn.map((c) => c.label), padding: 0.6, label: 'quantile →', labelAnchor: 'center' },
      y: { domain: [lo - pad, hi + pad], nice: true, grid: true, tickFormat: signedMs, label: '↑ b - a (slower)' },
      marks: [
        named(Plot.ruleY([0], { stroke: REFERENCE_COLOR, strokeWidth: 1.5, strokeDasharray: '4,3' }), ZERO_LABEL),
        named(Plot.ruleX(bands, { x: 'label', y1: 'low', y2: 'high', stroke: color, strokeWidth: 10, strokeOpacity: 0.35, title: tip }), BAND_LABEL),
        named(Plot.line(drawn, { x: 'label', y: 'diff', stroke: INK, strokeWidth: 1, strokeOpacity: 0.5 }), 'b - a'),
        named(Plot.dot(drawn, { x: 'label', y: 'diff', fill: color, r: 4, stroke: 'white', strokeWidth: 1, title: tip }), 'quantile'),
        Plot.text(drawn, { x: 'label', y: 'diff', text: (/** @type {import('./compare-markdown.js').QuantileCell} */ c) => signedMs(c.diff), dx: 8, textAnchor: 'start', fill: INK, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' })
      ]
    }
  })
}
