// A small terminal chart of requests per second against a sweep's axis, for the end of `syncbench run`
// and `syncbench report`: one bar per series at each axis value, eighth-block precision, the
// physical ceiling marked where the runner calibrated one. Plain text; the CLI decides on colour.
import { experimentsOf, sweptAxis, summarizeBy, seriesNames, formatAxisValue, axisTitle, withoutInterval } from './chart-data.js'
import { isMeasured } from '../analysis/summarize.js'
import { kindOf } from './kinds.js'
import { MIN_RUNS_FOR_INTERVAL } from '../analysis/stats.js'
import { formatNumber as fmt } from '../format.js'
import { TEXT_WIDTH, wrap } from './wrap.js'

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/**
 * Text charts of every swept experiment in a results file ('' when nothing was swept).
 * @param {import('../types.js').ResultsFile} results
 * @param {{ width?: number, ascii?: boolean }} [options]  width: bar columns (default 40)
 * @returns {string}
 */
export function textCharts (results, options = {}) {
  const out = []
  for (const { experiment, runs } of experimentsOf(results)) {
    // a kind whose req/s say nothing of their own (the rate-sweep's are the rates it offered) draws none
    if (!kindOf(experiment.table).textChart) continue
    const chart = textChart(experiment, runs, options)
    if (chart) out.push(chart)
  }
  return out.join('\n')
}

/**
 * One experiment's chart, or '' when it sweeps no numeric axis or measured nothing.
 * @param {{ name: string, title?: string, axes?: string[], calibration?: { opMs: number, usableCores: number } }} experiment
 * @param {import('../types.js').RunRecord[]} runs
 * @param {{ width?: number, ascii?: boolean }} [options]
 * @returns {string}
 */
export function textChart (experiment, runs, { width = 40, ascii = false } = {}) {
  const ok = runs.filter(isMeasured)
  const axis = sweptAxis(experiment, ok)
  if (axis === null) return ''
  // the tables' req/s interval (log scale, asymmetric, none below 3 runs), not a symmetric ± that can go negative
  const points = summarizeBy(ok, axis, (r) => r.load?.requestsPerSecond, 'rate')
  if (points.length === 0) return ''
  const names = seriesNames(points)
  // summarizeBy gave every point of a sweep its axis value: x is never null here
  const xs = [...new Set(points.map((p) => /** @type {number} */ (p.x)))].sort((a, b) => a - b)
  const dataMax = Math.max(...points.map((p) => p.mean))
  let ceiling = ceilingAt(experiment.calibration, axis)
  // a ceiling far above every bar would squash them into a few cells: name it instead of drawing it
  const offScale = ceiling && Math.max(...xs.map(ceiling)) > 1.6 * dataMax ? Math.max(...xs.map(ceiling)) : null
  if (offScale) ceiling = null
  const max = Math.max(dataMax, ...(ceiling ? xs.map(ceiling) : []))
  const scale = width / (max || 1)
  const xLabels = xs.map((x) => formatAxisValue(axis, x))
  const xWidth = Math.max(...xLabels.map((l) => l.length))
  const nameWidth = names.length > 1 ? Math.max(...names.map((n) => n.length)) : 0
  const lines = [`${experiment.title ?? experiment.name} — requests/s vs ${axisTitle(axis)}`]
  for (const [i, x] of xs.entries()) {
    for (const [j, name] of names.entries()) {
      const p = points.find((q) => q.series === name && q.x === x)
      const head = `  ${(j === 0 ? xLabels[i] : '').padStart(xWidth)}  ${nameWidth ? name.padEnd(nameWidth) + '  ' : ''}`
      if (!p) { lines.push(`${head}${' '.repeat(width)}  (no run)`); continue }
      const barText = bar(p.mean * scale, width, ceiling ? Math.round(ceiling(x) * scale) : null, ascii)
      const mean = fmt(p.mean)
      // the interval to the mean's last digit: "14.4 (13.9..15.0)", not "(13.912..15.034)"
      const digits = (mean.split('.')[1] ?? '').length
      const ci = p.n > 1 && Number.isFinite(p.ciLow) ? ` (${p.ciLow.toFixed(digits)}..${p.ciHigh.toFixed(digits)})` : ''
      lines.push(`${head}${barText}  ${mean}${ci}`)
    }
  }
  const notes = [rateNote(points)]
  if (ceiling) notes.push(`${ascii ? '|' : '┊'} physical ceiling`)
  if (offScale) notes.push(`physical ceiling ${fmt(offScale)} req/s, off this scale`)
  // under the bars, wrapped as prose is
  const indent = `  ${' '.repeat(xWidth)}  ${nameWidth ? ' '.repeat(nameWidth + 2) : ''}`
  for (const line of wrap(notes.join('; '), TEXT_WIDTH - indent.length).split('\n')) lines.push(indent + line)
  return lines.join('\n') + '\n'
}

/**
 * What the figures after the bars are: "one run per point", "mean of repeated runs (95% CI)", and
 * plainly when repeats are too few for an interval, rather than a bare mean that looks exact.
 * @param {import('./chart-data.js').Point[]} points
 */
function rateNote (points) {
  const repeated = points.filter((p) => p.n > 1)
  if (repeated.length === 0) return 'one run per point'
  const bare = withoutInterval(points)
  if (bare.length === 0) return 'mean of repeated runs (95% CI)'
  const few = `${Math.max(...bare.map((p) => p.n))} runs are too few for a 95% CI (${MIN_RUNS_FOR_INTERVAL} or more give one)`
  return bare.length === repeated.length ? `mean of repeated runs; no interval: ${few}` : `mean of repeated runs (95% CI); none where ${few}`
}

/**
 * A bar `cells` long (fractional), padded to `width`, with the ceiling mark at column `mark`.
 * @param {number} cells
 * @param {number} width
 * @param {number|null} mark
 * @param {boolean} ascii
 */
function bar (cells, width, mark, ascii) {
  const full = Math.floor(cells)
  const rest = Math.round((cells - full) * 8)
  let s = ascii
    ? '#'.repeat(full) + (rest >= 4 ? '#' : '')
    : '█'.repeat(full) + (rest === 8 ? '█' : EIGHTHS[rest])
  if (s.length === 0 && cells > 0) s = ascii ? '#' : '▏'
  const chars = [...s.padEnd(width)]
  const at = mark === null ? -1 : Math.min(mark, width - 1)
  // the mark shows only past the bar's end: a bar reaching the ceiling hides it
  if (at >= 0 && chars[at] === ' ') chars[at] = ascii ? '|' : '┊'
  return chars.join('')
}

/**
 * @param {{ opMs: number, usableCores?: number }|undefined} cal
 * @param {string} axis
 * @returns {((x: number) => number)|null}
 */
function ceilingAt (cal, axis) {
  if (!cal || !(cal.opMs > 0)) return null
  const single = 1000 / cal.opMs
  const cores = cal.usableCores ?? 1
  if (axis === 'concurrency' || axis === 'threadpoolSize' || axis === 'poolSize') return (x) => Math.min(x, cores) * single
  return () => cores * single
}
