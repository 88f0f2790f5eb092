// The two shapes most charts take: a metric against a swept axis (one line per series) and one
// horizontal bar per configuration. Both draw 95% CI whiskers when runs were repeated and dashed
// reference lines (ceilings, one core) with their labels in the legend.
import * as Plot from '@observablehq/plot'
import { isLogAxis, seriesNames, axisTitle, formatAxisValue } from './chart-data.js'
import { colorsFor, niceLogTicks, REFERENCE_COLOR, INK } from './chart-style.js'
import { formatNumber } from '../format.js'

/** The wide layout: report.html on a desktop and the PNGs. The narrow one (phones) passes width. */
export const WIDTH = 720

/** @typedef {import('./chart-data.js').Point} Point */

/**
 * @typedef {object} Reference a dashed line: a constant (value) or a function of the swept axis (curve)
 * @property {string} label
 * @property {number} [value]
 * @property {(x: number) => number} [curve]
 */

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
 *   legendLabel?: (series: string) => string
 * }} o  zero: start the y axis at 0; pointLabel: printed above each point; legendLabel: the series'
 *        legend text (default: its name)
 * @returns {import('./svg.js').ChartSpec}
 */
export function sweepChart ({ points, axis, refs, repeated, yLabel, yType = 'linear', zero, pointLabel, legendLabel = (n) => n, width = WIDTH, ...spec }) {
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
  const ys = points.flatMap((p) => [p.mean, p.ciLow, p.ciHigh]).filter((v) => Number.isFinite(v) && (yType !== 'log' || v > 0))
  for (const ref of refs) {
    if (ref.value !== undefined) {
      marks.push(Plot.ruleY([ref.value], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
      ys.push(ref.value)
    } else {
      const dense = denseSamples(xs, logX)
      // a reference without a value has a curve (Reference)
      const curve = dense.map((x) => ({ x: X(x), y: /** @type {(x: number) => number} */ (ref.curve)(x) }))
      marks.push(Plot.line(curve, { x: 'x', y: 'y', stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
      ys.push(...curve.map((d) => d.y))
    }
  }
  if (zero && yType !== 'log') marks.push(Plot.ruleY([0], { stroke: INK, strokeOpacity: 0.4 }))
  marks.push(Plot.line(sorted, { x: 'px', y: 'mean', z: 'series', stroke: color, strokeWidth: 2.5 }))
  if (repeated) {
    const bars = sorted.filter((p) => p.n > 1 && Number.isFinite(p.ciLow))
      .map((p) => ({ ...p, ciLow: yType === 'log' ? Math.max(p.ciLow, p.mean / 10) : p.ciLow }))
    marks.push(Plot.link(bars, { x1: 'px', x2: 'px', y1: 'ciLow', y2: 'ciHigh', stroke: color, strokeWidth: 1.5, markerStart: 'tick', markerEnd: 'tick' }))
  }
  /** @param {Point} p */
  const tip = (p) => `${p.series}, ${axisTitle(axis)} ${formatAxisValue(axis, xOf(p))}: ${describe(p)}`
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
      ...refs.map((r) => ({ label: r.label, color: REFERENCE_COLOR, shape: /** @type {const} */ ('dash') }))
    ],
    plot: {
      width,
      height: width < 500 ? 280 : 340,
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
 *   format: (v: number, p: Point) => string
 * }} o  yLabel names the value axis (horizontal here)
 * @returns {import('./svg.js').ChartSpec}
 */
export function barChart ({ points, refs, repeated, yLabel, format, width = WIDTH, ...spec }) {
  const names = seriesNames(points)
  const colors = colorsFor(names, strategyOf(points), { unique: false })
  /** @param {Point} p */
  const color = (p) => colors.get(p.series)
  /** @param {Point} p */
  const end = (p) => Number.isFinite(p.ciHigh) ? p.ciHigh : p.mean
  const refValues = refs.flatMap((r) => r.value !== undefined ? [r.value] : [])
  const labelChars = Math.max(...points.map((p) => format(p.mean, p).length))
  const dataMax = Math.max(...points.map(end), ...refValues)
  const longest = Math.max(...names.map((n) => n.length))
  const marginLeft = Math.min(width * 0.3, 16 + longest * 7.2)
  const inner = width - marginLeft - 24
  // leave room right of the longest bar for its printed value (about 7 px a character at 12 px)
  const room = Math.min(0.75, (labelChars * 7 + 8) / inner)
  const max = Math.max(dataMax / (1 - room), ...refValues.map((v) => v * 1.04))
  /** @type {Plot.Markish[]} */
  const marks = [Plot.ruleX([0], { stroke: INK, strokeOpacity: 0.5 })]
  for (const v of refValues) marks.push(Plot.ruleX([v], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }))
  marks.push(Plot.barX(points, { y: 'series', x: 'mean', fill: color, fillOpacity: 0.85, insetTop: 4, insetBottom: 4, title: (p) => `${p.series}: ${describe(p)}` }))
  if (repeated) {
    const bars = points.filter((p) => p.n > 1 && Number.isFinite(p.ciLow))
    marks.push(Plot.link(bars, { x1: 'ciLow', x2: 'ciHigh', y1: 'series', y2: 'series', stroke: INK, strokeWidth: 1.5, markerStart: 'tick', markerEnd: 'tick' }))
  }
  marks.push(Plot.text(points, { y: 'series', x: end, text: (p) => format(p.mean, p), textAnchor: 'start', dx: 6, fill: INK, fontSize: 12, stroke: 'white', strokeWidth: 4, paintOrder: 'stroke' }))
  return {
    ...spec,
    legend: refs.filter((r) => r.value !== undefined).map((r) => ({ label: r.label, color: REFERENCE_COLOR, shape: /** @type {const} */ ('dash') })),
    plot: {
      width,
      height: 56 + names.length * 44,
      marginLeft,
      marginRight: 24,
      marginTop: 8,
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
