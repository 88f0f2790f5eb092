// The latency percentiles of a configuration over its repeated runs. Percentiles do not average: the
// runs' histograms (LoadResult.latencyHistogram) are added into one, exactly, and every cross-run
// percentile is read from that. A percentile needs enough requests to exist: with fewer than
// 1 / (1 - q) of them the q-th is simply the maximum, so it is reported as the max, flagged.
// Runs without a histogram (external engines, files from before it was kept) can only be summarized
// by the mean of their own percentiles: that is said, never passed off as a merged figure.
import { createHistogram, decodeHistogram } from '../load/histogram.js'
import { ResultsError } from '../errors.js'
import { roundTo } from '../format.js'
import { mean } from './stats.js'

/**
 * The cross-run percentiles syncbench reports, with their LoadResult.latency keys; q is p / 100 written
 * out (99.9 / 100 is 0.9990000000000001 in floating point).
 * @type {readonly { key: 'p50'|'p75'|'p90'|'p99'|'p999'|'p9999', p: number, q: number, label: string }[]}
 */
export const LATENCY_PERCENTILES = Object.freeze([
  { key: 'p50', p: 50, q: 0.5, label: 'p50' },
  { key: 'p75', p: 75, q: 0.75, label: 'p75' },
  { key: 'p90', p: 90, q: 0.9, label: 'p90' },
  { key: 'p99', p: 99, q: 0.99, label: 'p99' },
  { key: 'p999', p: 99.9, q: 0.999, label: 'p99.9' },
  { key: 'p9999', p: 99.99, q: 0.9999, label: 'p99.99' }
])

/**
 * Requests needed before the p-th percentile is more than the maximum: 1 / (1 - p/100), so p99.9
 * needs 1000 and p99.99 10000 (below that, ceil(n * p / 100) is n: the largest value).
 * @param {number} p percent, below 100
 */
export function samplesFor (p) {
  return Math.round(100 / (100 - p))
}

/**
 * @typedef {object} LatencyPercentile
 * @property {string} key      LoadResult.latency's key ('p99', 'p999', ...)
 * @property {number} p        the percentile, percent (99.9)
 * @property {number} q        the same as a fraction (0.999)
 * @property {string} label    'p99.9'
 * @property {number} ms       the value; the maximum when isMax
 * @property {boolean} isMax   too few requests for this percentile (count < samplesFor(p)): ms is the max
 */

/**
 * @typedef {object} LatencySummary  total time per request over a configuration's runs, ms
 * @property {'merged'|'mean'} combine  merged: read from the sum of the runs' histograms (exact, also
 *           for one run); mean: the mean of the runs' own percentiles (some run has no histogram)
 * @property {number} runs
 * @property {number} count    requests measured, all runs together
 * @property {number} max      the largest time of any run (exact)
 * @property {LatencyPercentile[]} percentiles  in LATENCY_PERCENTILES order, those the runs measured
 */

/** @typedef {import('./summarize.js').MeasuredRun} MeasuredRun */

/**
 * The cross-run latency of a configuration, or null when its runs recorded no time.
 * @param {MeasuredRun[]} runs measured runs (isMeasured)
 * @returns {LatencySummary|null}
 */
export function summarizeLatency (runs) {
  const timed = runs.filter((r) => r.load.latency && r.load.completeRequests > 0)
  if (timed.length === 0) return null
  const max = Math.max(...timed.map((r) => r.load.latency.max))
  const min = Math.min(...timed.map((r) => r.load.connectionTimes?.total?.min ?? 0))
  if (timed.every((r) => typeof r.load.latencyHistogram === 'string')) {
    const merged = mergeHistograms(timed)
    const count = merged.totalCount
    return {
      combine: 'merged',
      runs: timed.length,
      count,
      max,
      // hdr's value at the percentile (the highest of its bucket), kept within the exact extremes as
      // the engine does for one run (lib/load/stats.js latency())
      percentiles: LATENCY_PERCENTILES.map((which) => percentile(which, count,
        roundTo(Math.min(max, Math.max(min, merged.getValueAtPercentile(which.p) / 1000)), 3), max))
    }
  }
  // each run's percentile stands on that run's own requests: the smallest run decides what is supported
  const fewest = Math.min(...timed.map((r) => r.load.completeRequests))
  const measured = LATENCY_PERCENTILES.filter(({ key }) => timed.some((r) => r.load.latency[key] > 0))
  return {
    combine: 'mean',
    runs: timed.length,
    count: timed.reduce((n, r) => n + r.load.completeRequests, 0),
    max,
    percentiles: measured.map((which) => percentile(which, fewest, mean(timed.map((r) => r.load.latency[which.key])), max))
  }
}

/**
 * @param {typeof LATENCY_PERCENTILES[number]} which
 * @param {number} count requests behind the value @param {number} ms @param {number} max
 * @returns {LatencyPercentile}
 */
function percentile ({ key, p, q, label }, count, ms, max) {
  const isMax = count < samplesFor(p)
  return { key, p, q, label, ms: isMax ? max : ms, isMax }
}

/**
 * The sum of the runs' histograms: every request of every run, as if recorded in one histogram.
 * @param {MeasuredRun[]} runs  each with a latencyHistogram
 */
function mergeHistograms (runs) {
  const merged = createHistogram()
  for (const r of runs) {
    try {
      merged.add(decodeHistogram(/** @type {string} */ (r.load.latencyHistogram)))
    } catch (err) {
      throw new ResultsError(`run "${r.id}": load.latencyHistogram is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour (${err instanceof Error ? err.message : err})`)
    }
  }
  return merged
}

/**
 * How the runs were combined, in words for a table cell or a caption:
 * "merged histograms of 3 runs", "1 run", "mean of 3 runs' percentiles (no histograms: not mergeable)".
 * @param {LatencySummary} latency
 */
export function describeLatencyCombine (latency) {
  if (latency.runs === 1) return '1 run'
  if (latency.combine === 'merged') return `merged histograms of ${latency.runs} runs`
  return `mean of ${latency.runs} runs' percentiles (no histograms: not mergeable)`
}
