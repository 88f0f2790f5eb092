// The thread-cost experiment's table (lib/report/thread-cost.js computes its figures): beside each
// configuration's req/s, what its threads cost the server: OS threads, peak RSS, RSS per thread over the
// event loop's, and voluntary and involuntary context switches per request.
import { threadCostRows } from './thread-cost.js'
import { formatP, invalidCell, formatRateInterval } from './phrases.js'

/**
 * @param {import('../analysis/summarize.js').ExperimentSummary} s
 * @param {import('../analysis/summarize.js').Row[]} rows  the measured ones
 * @returns {import('./tables.js').Table}
 */
export function threadCostTable (s, rows) {
  const figures = new Map(threadCostRows(s).map((r) => [r.label, r]))
  /** @param {number|null|undefined} x @param {number} digits */
  const num = (x, digits) => x === null || x === undefined ? '' : x.toFixed(digits)
  const body = rows.map((r) => {
    if (r.runs.length === 0) return [r.label, invalidCell(r), '', '', '', '', '', '', '']
    const f = figures.get(r.label)
    // the other tables' req/s interval (log scale, none below 3 runs), not a t-interval that can go negative
    const ci = formatRateInterval(r, 1)
    return [r.label, r.figures.requestsPerSecond.mean.toFixed(1), ci, f?.threads === null || f?.threads === undefined ? '' : String(f.threads),
      num(f?.peakRssMiB, 1), num(f?.mibPerThread, 2), num(f?.voluntary, 2), num(f?.involuntary, 2),
      r.comparison ? `${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline}, ${formatP(r.comparison.test)}` : '']
  })
  return {
    title: `${s.name}: ${s.title}`,
    columns: ['Configuration', 'Req/s', '95% CI', 'threads', 'peak RSS MiB', 'MiB/thread', 'vol. cs/req', 'invol. cs/req', `vs ${s.baseline}`],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: body
  }
}
