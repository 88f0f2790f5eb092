// The two shapes most charts take: a metric against a swept axis (one line per series) and one
// horizontal bar per configuration. Both draw 95% CI whiskers when runs were repeated, each run as a
// small dot beside them (runValue), and dashed reference lines (ceilings, one core) labelled on the line
// and in the legend. A ceiling far above the data is named at the plot's edge instead of drawn: drawn,
// it would squeeze the bars it bounds into a corner (the readfile seed's, at 5x its fastest bar).
import * as Plot from '@observablehq/plot'
import { isLogAxis, seriesNames, axisTitle, formatAxisValue } from './chart-data.js'
import { colorsFor, niceLogTicks, REFERENCE_COLOR, INK, WIDTH } from './chart-style.js'
import { formatNumber } from '../format.js'

/** @typedef {import('./chart-data.js').Point} Point */

/**
 * A bound (Reference.bound) more than FAR times the largest figure is off the chart: named, not drawn.
 * Twice keeps the data on at least half the axis.
 */
export const FAR = 2

/**
 * @typedef {object} Reference a dashed line: a constant (value) or a function of the swept axis (curve)
 * @property {string} label         the legend's words
 * @property {string} [short]       the words on the line (default: label)
 * @property {number} [value]
 * @property {(x: number) => number} [curve]
 * @property {boolean} [bound]      a limit the data cannot pass (a ceiling): drawn only within FAR of the data
 */

/**
 * A mark whose group says what it is (aria-label): 'reference label', 'run'. Plot's ariaLabel option
 * labels each element, from a channel; the group's label is the mark's own property.
 * @template {Plot.Mark} M
 * @param {M} mark
 * @param {string} label
 * @returns {M}
 */
export function named (mark, label) {
  // Plot's typings leave out the property its renderer reads for the group's aria-label
  /** @type {{ ariaLabel?: string }} */ (/** @type {unknown} */ (mark)).ariaLabel = label
  return mark
}

/** The style of the words on a reference line: grey, with a white halo over grid and data. */
const REF_TEXT = { fill: REFERENCE_COLOR, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }

/**
 * One run of a point, as a dot beside its mean.
 * @typedef {{ series: string, x: number|null, px?: number, value: number, id: string }} RunDot
 */

/**
 * The runs of repeated points (n > 1) as dots; a single run is its point already.
 * @param {Point[]} points
 * @param {((run: import('../types.js').RunRecord) => number|undefined|null)|undefined} runValue
 * @returns {RunDot[]}
 */
function runDots (points, runValue) {
  if (!runValue) return []
  return points.filter((p) => p.n > 1).flatMap((p) => p.runs.flatMap((run) => {
    const value = runValue(run)
    return typeof value === 'number' && Number.isFinite(value) ? [{ series: p.series, x: p.x, value, id: run.id }] : []
  }))
}

/**
 * Split the references into those drawn and the bounds too far above the data to draw (FAR).
 * @param {Reference[]} refs
 * @param {number} dataMax  the largest figure drawn (means, CI ends, runs)
 * @param {(ref: Reference) => number} lowest  the reference's lowest value on the chart
 */
function splitFar (refs, dataMax, lowest) {
  const far = refs.filter((r) => r.bound && dataMax > 0 && lowest(r) > FAR * dataMax)
  return { near: refs.filter((r) => !far.includes(r)), far }
}

/**
 * The bounds left off the chart, one line each at its top right, short enough for a phone:
 * "ceiling 1053 req/s, 4.9× the fastest: off the chart ↑" (up the value axis, → when it is horizontal).
 * @param {Reference[]} far
 * @param {number} fastest  the largest mean
 * @param {(ref: Reference) => number} lowest
 * @param {{ dy: number, arrow: string }} at  dy: the first line's offset above the plot's frame, px
 * @returns {Plot.Markish[]}
 */
function offChartMarks (far, fastest, lowest, { dy, arrow }) {
  return far.map((r, i) => {
    const text = `${r.short ?? r.label}, ${(lowest(r) / fastest).toFixed(1)}× the fastest: off the chart ${arrow}`
    return named(Plot.text([text], { text: (d) => d, frameAnchor: 'top-right', textAnchor: 'end', dy: dy - 15 * i, ...REF_TEXT }), 'off-chart reference')
  })
}

/**
 * The legend entries of the references, a bound off the chart said so.
 * @param {Reference[]} refs
 * @param {Reference[]} far
 * @returns {import('./svg.js').LegendItem[]}
 */
function referenceLegend (refs, far) {
  return refs.map((r) => ({ label: far.includes(r) ? `${r.label} (off the chart)` : r.label, color: REFERENCE_COLOR, shape: /** @type {const} */ ('dash') }))
}

/**
 * What a chart says besides its plot, passed through to the ChartSpec; width is the layout's.
 * @typedef {Omit<import('./svg.js').ChartSpec, 'plot'|'legend'> & { width?: number }} ChartHead
 */

/**
 * A metric against the swept axis.
 * @param {ChartHead & {
 *   points: import('./chart-data.js').Point[],
 *   axis: string,
 *   refs: Reference[],
 *   repeated: boolean,
 *   yLabel: string,
 *   yType?: 'linear'|'log',
 *   zero?: boolean,
 *   pointLabel?: (p: import('./chart-data.js').Point) => string,
 *   legendLabel?: (series: string) => string,
 *   runValue?: (run: import('../types.js').RunRecord) => number|undefined|null
 * }} o  zero: start the y axis at 0; pointLabel: printed above each point; legendLabel: the series'
 *        legend text (default: its name); runValue: each run's figure, drawn as a dot beside its point
 * @returns {import('./svg.js').ChartSpec}
 */
export function sweepChart ({ points, axis, refs, repeated, yLabel, yType = 'linear', zero, pointLabel, legendLabel = (n) => n, runValue, width = WIDTH, ...spec }) {
  const names = seriesNames(points)
  const colors = colorsFor(names, strategyOf(points))
  // summarizeBy gave every point of a sweep its axis value: x is never null here
  const xOf = (/** @type {Point} */ p) => /** @type {number} */ (p.x)
  const xs = [...new Set(points.map(xOf))].sort((a, b) => a - b)
  const logX = isLogAxis(axis, xs)
  // A log axis is drawn as log10 on a linear scale: Plot's log scale hides tick labels d3 deems
  // crowded (64 KiB disappears next to 1 MiB), and every swept value must keep its label.
  /** @type {(x: number) => number} */
  const X = logX ? Math.log10 : (x) => x
  /** @type {(v: number) => number} */
  const unX = logX ? (v) => Number((10 ** v).toPrecision(12)) : (v) => v
  const sorted = [...points].sort((a, b) => xOf(a) - xOf(b)).map((p) => ({ ...p, px: X(xOf(p)) }))
  /** @param {Point} p */
  const color = (p) => colors.get(p.series)
  /** @type {Plot.Markish[]} */
  const marks = []
  const dots = runDots(sorted, runValue).map((d) => ({ ...d, px: X(/** @type {number} */ (d.x)) }))
  const ys = [...points.flatMap((p) => [p.mean, p.ciLow, p.ciHigh]), ...dots.map((d) => d.value)].filter((v) => Number.isFinite(v) && (yType !== 'log' || v > 0))
  const dense = denseSamples(xs, logX)
  // a reference without a value has a curve (Reference)
  const curveOf = (/** @type {Reference} */ ref) => dense.map((x) => ({ x: X(x), y: /** @type {(x: number) => number} */ (ref.curve)(x) }))
  const lowest = (/** @type {Reference} */ ref) => ref.value ?? Math.min(...curveOf(ref).map((d) => d.y))
  const dataMax = Math.max(...ys, 0)
  const { near, far } = splitFar(refs, dataMax, lowest)
  for (const ref of near) {
    const text = () => ref.short ?? ref.label
    if (ref.value !== undefined) {
      marks.push(Plot.ruleY([ref.value], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
      // its words on the line, at its right end, where the series' lines are least likely to be
      marks.push(named(Plot.text([ref.value], { y: (d) => d, text, frameAnchor: 'right', textAnchor: 'end', dx: -4, dy: -7, ...REF_TEXT }), 'reference label'))
      ys.push(ref.value)
    } else {
      const curve = curveOf(ref)
      marks.push(Plot.line(curve, { x: 'x', y: 'y', stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
      marks.push(named(Plot.text(curve.slice(-1), { x: 'x', y: 'y', text, textAnchor: 'end', dy: -7, ...REF_TEXT }), 'reference label'))
      ys.push(...curve.map((d) => d.y))
    }
  }
  // above the y axis's label, which sits in the top margin
  marks.push(...offChartMarks(far, Math.max(...points.map((p) => p.mean)), lowest, { dy: -26, arrow: '↑' }))
  if (zero && yType !== 'log') marks.push(Plot.ruleY([0], { stroke: INK, strokeOpacity: 0.4 }))
  marks.push(Plot.line(sorted, { x: 'px', y: 'mean', z: 'series', stroke: color, strokeWidth: 2.5 }))
  if (repeated) {
    const bars = sorted.filter((p) => p.n > 1 && Number.isFinite(p.ciLow))
      .map((p) => ({ ...p, ciLow: yType === 'log' ? Math.max(p.ciLow, p.mean / 10) : p.ciLow }))
    marks.push(Plot.link(bars, { x1: 'px', x2: 'px', y1: 'ciLow', y2: 'ciHigh', stroke: color, strokeWidth: 1.5, markerStart: 'tick', markerEnd: 'tick' }))
  }
  /** @param {Point} p */
  const tip = (p) => `${p.series}, ${axisTitle(axis)} ${formatAxisValue(axis, xOf(p))}: ${describe(p)}`
  // each run beside its point (right of the whisker), smaller and paler than the mean
  if (dots.length) marks.push(named(Plot.dot(dots, { x: 'px', y: 'value', dx: 8, r: 2.2, fill: (/** @type {RunDot} */ d) => colors.get(d.series), fillOpacity: 0.6, title: (/** @type {RunDot} */ d) => `${d.id}: ${formatNumber(d.value)}` }), 'run'))
  marks.push(Plot.dot(sorted, { x: 'px', y: 'mean', fill: color, r: 4, stroke: 'white', strokeWidth: 1, title: tip }))
  if (pointLabel) marks.push(Plot.text(sorted, { x: 'px', y: 'mean', text: pointLabel, dy: -12, fill: color, fontSize: 11, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }))
  /** @type {import('@observablehq/plot').ScaleOptions} */
  const yScale = { label: `↑ ${yLabel}`, grid: true, type: yType }
  if (yType === 'log' && ys.length) {
    const lo = Math.min(...ys) / 1.3
    const hi = Math.max(...ys) * 1.3
    Object.assign(yScale, { domain: [lo, hi], ticks: niceLogTicks(lo, hi), tickFormat: (/** @type {number} */ v) => trimNumber(v) })
  } else if (zero || ys.every((v) => v >= 0)) {
    yScale.domain = [0, Math.max(...ys, 1) * 1.08]
    yScale.nice = true
  }
  return {
    ...spec,
    legend: [
      ...names.map((n) => ({ label: legendLabel(n), color: /** @type {string} */ (colors.get(n)) })),
      ...referenceLegend(refs, far)
    ],
    plot: {
      width,
      height: (width < 500 ? 280 : 340) + 15 * far.length,
      marginTop: 24 + 15 * far.length,
      marginLeft: 56,
      marginRight: 28,
      marginBottom: 40,
      color: { type: 'identity' },
      x: {
        type: 'linear',
        ticks: xs.map(X),
        tickFormat: (/** @type {number} */ v) => formatAxisValue(axis, unX(v)),
        label: `${axisTitle(axis)}${logX ? ', log scale' : ''} →`,
        labelAnchor: 'center',
        inset: 14
      },
      y: yScale,
      marks
    }
  }
}

/**
 * One bar per configuration, with its value printed at the end.
 * @param {ChartHead & {
 *   points: Point[],
 *   refs: Reference[],
 *   repeated: boolean,
 *   yLabel: string,
 *   format: (v: number, p: Point) => string,
 *   runValue?: (run: import('../types.js').RunRecord) => number|undefined|null
 * }} o  yLabel names the value axis (horizontal here); runValue: each run's figure, a dot on its bar
 * @returns {import('./svg.js').ChartSpec}
 */
export function barChart ({ points, refs, repeated, yLabel, format, runValue, width = WIDTH, ...spec }) {
  const names = seriesNames(points)
  const colors = colorsFor(names, strategyOf(points), { unique: false })
  /** @param {Point} p */
  const color = (p) => colors.get(p.series)
  /** @param {Point} p */
  const end = (p) => Number.isFinite(p.ciHigh) ? p.ciHigh : p.mean
  const dots = runDots(points, runValue)
  const valued = refs.filter((r) => r.value !== undefined)
  const lowest = (/** @type {Reference} */ r) => /** @type {number} */ (r.value)
  const figureMax = Math.max(...points.map(end), ...dots.map((d) => d.value))
  const { near, far } = splitFar(valued, figureMax, lowest)
  const refValues = near.map(lowest)
  const labelChars = Math.max(...points.map((p) => format(p.mean, p).length))
  const dataMax = Math.max(figureMax, ...refValues)
  const longest = Math.max(...names.map((n) => n.length))
  const marginLeft = Math.min(width * 0.3, 16 + longest * 7.2)
  const inner = width - marginLeft - 24
  // leave room right of the longest bar for its printed value (about 7 px a character at 12 px)
  const room = Math.min(0.75, (labelChars * 7 + 8) / inner)
  const max = Math.max(dataMax / (1 - room), ...refValues.map((v) => v * 1.04))
  /** @type {Plot.Markish[]} */
  const marks = [Plot.ruleX([0], { stroke: INK, strokeOpacity: 0.5 })]
  // the words of each line above the plot, one row each (the first nearest the plot), so that close lines
  // never print over each other; on the line's left when it is in the right half, else on its right
  const rows = near.length + far.length
  near.forEach((ref, i) => {
    const v = /** @type {number} */ (ref.value)
    marks.push(Plot.ruleX([v], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
    const right = v > max / 2
    marks.push(named(Plot.text([v], { x: (d) => d, text: () => ref.short ?? ref.label, frameAnchor: 'top', textAnchor: right ? 'end' : 'start', dx: right ? 4 : -4, dy: -6 - 15 * i, ...REF_TEXT }), 'reference label'))
  })
  marks.push(...offChartMarks(far, Math.max(...points.map((p) => p.mean)), lowest, { dy: -6 - 15 * near.length, arrow: '→' }))
  marks.push(Plot.barX(points, { y: 'series', x: 'mean', fill: color, fillOpacity: 0.85, insetTop: 4, insetBottom: 4, title: (p) => `${p.series}: ${describe(p)}` }))
  if (repeated) {
    const bars = points.filter((p) => p.n > 1 && Number.isFinite(p.ciLow))
    marks.push(Plot.link(bars, { x1: 'ciLow', x2: 'ciHigh', y1: 'series', y2: 'series', stroke: INK, strokeWidth: 1.5, markerStart: 'tick', markerEnd: 'tick' }))
  }
  // each run on its bar, below the whisker
  if (dots.length) marks.push(named(Plot.dot(dots, { x: 'value', y: 'series', dy: 9, r: 2.5, fill: INK, fillOpacity: 0.7, stroke: 'white', strokeWidth: 0.75, title: (/** @type {RunDot} */ d) => `${d.id}: ${formatNumber(d.value)}` }), 'run'))
  marks.push(Plot.text(points, { y: 'series', x: end, text: (p) => format(p.mean, p), textAnchor: 'start', dx: 6, fill: INK, fontSize: 12, stroke: 'white', strokeWidth: 4, paintOrder: 'stroke' }))
  return {
    ...spec,
    legend: referenceLegend(valued, far),
    plot: {
      width,
      height: 56 + names.length * 44 + 15 * rows,
      marginLeft,
      marginRight: 24,
      marginTop: 8 + 15 * rows,
      marginBottom: 40,
      color: { type: 'identity' },
      x: { domain: [0, max], nice: true, grid: true, label: `${yLabel} →`, labelAnchor: 'center' },
      y: { domain: names, label: null, tickSize: 0, padding: 0.15 },
      marks
    }
  }
}

/**
 * @param {Point[]} points
 * @returns {(name: string) => string}
 */
export function strategyOf (points) {
  const map = new Map(points.map((p) => [p.series, p.strategy]))
  return (name) => map.get(name) ?? ''
}

/**
 * @param {number[]} xs  sorted
 * @param {boolean} log
 */
function denseSamples (xs, log) {
  const lo = xs[0]
  const hi = xs[xs.length - 1]
  const out = []
  for (let i = 0; i <= 64; i++) {
    const t = i / 64
    out.push(log ? lo * (hi / lo) ** t : lo + (hi - lo) * t)
  }
  return [...new Set([...out, ...xs])].sort((a, b) => a - b)
}

/**
 * The hover text of a point in report.html: mean, CI and the number of runs.
 * @param {Point} p
 */
function describe (p) {
  const ci = p.n > 1 && Number.isFinite(p.ciLow) ? ` (95% CI ${formatNumber(p.ciLow)} to ${formatNumber(p.ciHigh)}, ${p.n} runs)` : ''
  return `${formatNumber(p.mean)}${ci}`
}

/**
 * Log-axis tick labels: short and with thousands separators ("1,000"), unlike the values they mark.
 * @param {number} v
 */
function trimNumber (v) {
  return Number(v.toPrecision(3)).toLocaleString('en-US')
}
