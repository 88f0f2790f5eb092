// How far each latency quantile of b moved from a's, with a 95% interval across runs: a bootstrap over
// runs. Each resample draws each side's runs with replacement (as many as it has), adds the drawn
// runs' histograms (a run drawn twice counts twice), reads the quantile from that sum with
// HdrHistogram's rule, and takes b's minus a's; the 2.5th and 97.5th percentiles of those differences
// are the interval. Runs, not requests, are resampled: requests of one run share its server process,
// its JIT state and its machine's moment, so they are not independent draws, and an interval over
// requests would be far too narrow. A tail that got worse shows here even when req/s did not move.
//
// The generator is seeded, so the same two files always give the same intervals (a pull request's
// comment does not change when the job is re-run on the same results).
import { decodeHistogram, countsOfHistogram } from '../load/histogram.js'
import { COUNTS_LENGTH, highestAtIndex } from '../load/request-times.js'
import { ResultsError } from '../errors.js'
import { roundTo } from '../format.js'
import { MIN_RUNS_FOR_INTERVAL } from './stats.js'

/** Resamples per interval: 2,000 put the 2.5th and 97.5th percentiles 50 draws from each end. */
export const BOOTSTRAP_RESAMPLES = 2000

/** The fixed seed: a reader re-running compare on the same files gets the same text. */
export const BOOTSTRAP_SEED = 0x5eed

/**
 * mulberry32: a small seedable generator of floats in [0, 1), ample for drawing run indexes.
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom (seed) {
  let t = seed >>> 0
  return () => {
    t = (t + 0x6d2b79f5) >>> 0
    let x = Math.imul(t ^ (t >>> 15), t | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * One side's runs in a form a resample reads fast: the buckets any run recorded (ascending) and each
 * run's cumulative counts over them, so the sum of drawn runs up to a bucket is a few multiplications.
 * @typedef {object} SideBuckets
 * @property {number[]} values   each bucket's highest value, us (HdrHistogram's value at a percentile)
 * @property {Float64Array[]} cumulative  per run: requests at or below each bucket
 * @property {number[]} totals   per run: its requests
 * @property {number[]} min      per run: its fastest request, ms (a quantile is kept within the exact extremes)
 * @property {number[]} max      per run: its slowest request, ms
 */

/**
 * @param {import('./summarize.js').MeasuredRun[]} runs  each with a latencyHistogram
 * @returns {SideBuckets}
 */
function sideBuckets (runs) {
  const counts = runs.map((r) => {
    try {
      return countsOfHistogram(decodeHistogram(/** @type {string} */ (r.load.latencyHistogram)), COUNTS_LENGTH)
    } catch (err) {
      throw new ResultsError(`run "${r.id}": load.latencyHistogram is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour (${err instanceof Error ? err.message : err})`)
    }
  })
  /** @type {number[]} */
  const used = []
  for (let i = 0; i < COUNTS_LENGTH; i++) if (counts.some((c) => c[i] > 0)) used.push(i)
  const cumulative = counts.map((c) => {
    const out = new Float64Array(used.length)
    let sum = 0
    used.forEach((i, j) => { sum += c[i]; out[j] = sum })
    return out
  })
  return {
    values: used.map(highestAtIndex),
    cumulative,
    totals: cumulative.map((c) => c.length ? c[c.length - 1] : 0),
    min: runs.map((r) => r.load.connectionTimes?.total?.min ?? 0),
    max: runs.map((r) => r.load.latency.max)
  }
}

/**
 * HdrHistogram's count at a percentile: the requests at or below the value it reads, rounded up
 * (minus one ulp of floating-point slack, as its getValueAtPercentile does), at least 1.
 * @param {number} p percent @param {number} total
 */
function countAtPercentile (p, total) {
  const fp = (p / 100) * total
  const ulp = fp > 0 ? 2 ** (Math.floor(Math.log2(fp)) - 52) : 0
  return Math.max(Math.ceil(fp - ulp), 1)
}

/**
 * The percentiles, ms, of the sum of a side's runs drawn `weights` times each.
 * @param {SideBuckets} side @param {number[]} weights per run @param {number[]} percents
 * @returns {number[]}
 */
function weightedPercentiles (side, weights, percents) {
  // plain loops: this runs 2 x BOOTSTRAP_RESAMPLES times a configuration, and arrays made per call
  // kept the garbage collector busier than the search itself
  /** @type {number[]} */
  const drawn = []
  let total = 0
  let min = Infinity
  let max = -Infinity
  for (let r = 0; r < weights.length; r++) {
    if (weights[r] === 0) continue
    drawn.push(r)
    total += weights[r] * side.totals[r]
    min = Math.min(min, side.min[r])
    max = Math.max(max, side.max[r])
  }
  return percents.map((p) => {
    const target = countAtPercentile(p, total)
    // the first bucket whose cumulative count reaches the target: cumulative counts only grow
    let lo = 0
    let hi = side.values.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      let sum = 0
      for (let j = 0; j < drawn.length; j++) sum += weights[drawn[j]] * side.cumulative[drawn[j]][mid]
      if (sum >= target) hi = mid
      else lo = mid + 1
    }
    return roundTo(Math.min(max, Math.max(min, side.values[lo] / 1000)), 3)
  })
}

/**
 * How many times each of n runs is drawn in one resample of n draws with replacement.
 * @param {number} n @param {() => number} random
 */
function drawWeights (n, random) {
  const weights = new Array(n).fill(0)
  for (let i = 0; i < n; i++) weights[Math.floor(random() * n)]++
  return weights
}

/**
 * @typedef {object} QuantileDifference
 * @property {number} p       the percentile, percent
 * @property {number} low     95% bootstrap interval of b's quantile minus a's, ms
 * @property {number} high
 */

/**
 * The 95% bootstrap interval of b's minus a's latency at each percentile, over runs. Null when a side
 * has fewer than MIN_RUNS_FOR_INTERVAL runs (three runs give ten distinct resamples; fewer, no
 * interval worth printing) or some run has no histogram (an external engine's: nothing to add up).
 * @param {import('./summarize.js').MeasuredRun[]} runsA
 * @param {import('./summarize.js').MeasuredRun[]} runsB
 * @param {number[]} percents  e.g. [50, 90, 99, 99.9]
 * @param {{ resamples?: number, seed?: number }} [options]
 * @returns {QuantileDifference[]|null}
 */
export function bootstrapQuantileDifferences (runsA, runsB, percents, { resamples = BOOTSTRAP_RESAMPLES, seed = BOOTSTRAP_SEED } = {}) {
  const timed = (/** @type {import('./summarize.js').MeasuredRun[]} */ runs) => runs.filter((r) => r.load.latency && r.load.completeRequests > 0)
  const [ta, tb] = [timed(runsA), timed(runsB)]
  if (ta.length < MIN_RUNS_FOR_INTERVAL || tb.length < MIN_RUNS_FOR_INTERVAL) return null
  if (![...ta, ...tb].every((r) => typeof r.load.latencyHistogram === 'string')) return null
  const [a, b] = [sideBuckets(ta), sideBuckets(tb)]
  const random = seededRandom(seed)
  const differences = percents.map(() => new Float64Array(resamples))
  for (let i = 0; i < resamples; i++) {
    const [wa, wb] = [drawWeights(ta.length, random), drawWeights(tb.length, random)]
    const [qa, qb] = [weightedPercentiles(a, wa, percents), weightedPercentiles(b, wb, percents)]
    percents.forEach((p, k) => { differences[k][i] = qb[k] - qa[k] })
  }
  return percents.map((p, k) => {
    const sorted = differences[k].sort()
    return { p, low: roundTo(percentileOfSorted(sorted, 0.025), 3), high: roundTo(percentileOfSorted(sorted, 0.975), 3) }
  })
}

/**
 * The q-quantile of sorted values, interpolated between neighbours (the usual "type 7" rule).
 * @param {Float64Array} sorted @param {number} q
 */
function percentileOfSorted (sorted, q) {
  const at = (sorted.length - 1) * q
  const below = Math.floor(at)
  const above = Math.min(below + 1, sorted.length - 1)
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below)
}
