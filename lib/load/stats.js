// Per-request times -> the figures of ab's "Connection Times" and percentile tables, in constant memory.
// Exact min, max, sum and sum of squares per row; HDR histograms for the order statistics (median,
// percentiles), so memory does not grow with -n as ab's stats array does.
// The plain JS histogram class, not the package index: the index also loads the WebAssembly build
// and log codecs, which cost ~70 ms of CPU at startup (measured), a lot for a short `syncbench ab` run.
import int32Histogram from 'hdr-histogram-js/dist/Int32Histogram.js'

const Int32Histogram = int32Histogram.default

/** 1 us to 1 hour, kept to 3 significant digits (values recorded in microseconds). */
const LOWEST_US = 1
const HIGHEST_US = 3_600_000_000
const DIGITS = 3

// The histogram's bucket layout for those parameters: 2048 sub-buckets (3 digits), half of them
// (1024, magnitude 10) per bucket after the first, 22 buckets up to 2^32 us. During the run times
// are counted in this layout with integer ops (HDR's recordValue calls Math.pow and Math.log2 per
// value: ~7% of the engine's CPU per request, measured with perf), then handed to hdr-histogram-js
// in one pass per non-empty bucket when the figures are asked for.
const HALF_MAGNITUDE = 10
const SUB_BUCKETS = 2048
const COUNTS_LENGTH = (32 - HALF_MAGNITUDE) * 1024 + 1024

/** Index of `us` (an integer, 0 <= us < 2^32) in the layout above. */
export function countsIndex (us) {
  if (us < SUB_BUCKETS) return us
  const bucket = 31 - Math.clz32(us) - HALF_MAGNITUDE
  return bucket * 1024 + (us >>> bucket)
}

/** Lowest value of the bucket at `index`. */
export function valueAtIndex (index) {
  if (index < SUB_BUCKETS) return index
  const bucket = (index >>> HALF_MAGNITUDE) - 1
  return (index - bucket * 1024) * 2 ** bucket
}

/** ab's percentile rows. */
export const PERCENTS = [50, 66, 75, 80, 90, 95, 98, 99, 100]

export function createHistogram () {
  return new Int32Histogram(LOWEST_US, HIGHEST_US, DIGITS)
}

/** One row of the Connection Times table: exact moments plus a histogram for the order statistics. */
export class Row {
  constructor () {
    this.count = 0
    this.min = Infinity
    this.max = 0
    this.sum = 0
    this.sumSquares = 0
    this.counts = new Float64Array(COUNTS_LENGTH)
    /** @type {ReturnType<typeof createHistogram>|null} */
    this.built = null
  }

  /** @param {number} ms */
  record (ms) {
    this.count++
    if (ms < this.min) this.min = ms
    if (ms > this.max) this.max = ms
    this.sum += ms
    this.sumSquares += ms * ms
    let us = Math.round(ms * 1000)
    if (us > HIGHEST_US) us = HIGHEST_US
    this.counts[countsIndex(us)]++
    this.built = null
  }

  /** The HDR histogram of this row's times, in microseconds. */
  get histogram () {
    if (this.built === null) {
      const h = createHistogram()
      const counts = this.counts
      for (let i = 0; i < COUNTS_LENGTH; i++) if (counts[i] > 0) h.recordValueWithCount(valueAtIndex(i), counts[i])
      this.built = h
    }
    return this.built
  }

  get mean () {
    return this.count > 0 ? this.sum / this.count : 0
  }

  /** Sample standard deviation, as ab computes it (n - 1; 0 for a single value). */
  sd () {
    if (this.count < 2) return 0
    const variance = (this.sumSquares - (this.sum * this.sum) / this.count) / (this.count - 1)
    return variance > 0 ? Math.sqrt(variance) : 0
  }

  /**
   * The value at 0-based index `index` of the sorted times, in ms, within the histogram's precision
   * and never outside the exact [min, max].
   * @param {number} index
   */
  at (index) {
    if (this.count === 0) return 0
    if (index <= 0) return this.min
    if (index >= this.count - 1) return this.max
    // getValueAtPercentile rounds its count up (minus one ulp), so this percentile lands on rank
    // index+1; it answers the bucket's highest value, we take its lowest (exact below 2048 us).
    const h = this.histogram
    const us = h.lowestEquivalentValue(h.getValueAtPercentile(((index + 1) / this.count) * 100))
    return Math.min(this.max, Math.max(this.min, us / 1000))
  }

  /**
   * ab's median, a known quirk reproduced on purpose: for an odd count it averages the middle value
   * with the one after it, for an even count it takes the upper middle value.
   */
  median () {
    const n = this.count
    if (n === 0) return 0
    const k = Math.floor(n / 2)
    if (n > 1 && n % 2 === 1) return (this.at(k) + this.at(k + 1)) / 2
    return this.at(k)
  }

  /** @returns {import('../types.js').TimeRow} */
  toTimeRow () {
    if (this.count === 0) return { min: 0, mean: 0, sd: 0, median: 0, max: 0 }
    return { min: this.min, mean: this.mean, sd: this.sd(), median: this.median(), max: this.max }
  }
}

/** The four rows of ab's Connection Times table. */
export class RequestTimes {
  constructor () {
    this.connect = new Row()
    this.processing = new Row()
    this.waiting = new Row()
    this.total = new Row()
  }

  /**
   * @param {number} ctime ms from start to connected
   * @param {number} time ms from start to done
   * @param {number} wait ms from end of write to first byte
   */
  record (ctime, time, wait) {
    this.connect.record(ctime)
    this.processing.record(time - ctime)
    this.waiting.record(wait)
    this.total.record(time)
  }

  get count () {
    return this.total.count
  }

  connectionTimes () {
    return {
      connect: this.connect.toTimeRow(),
      processing: this.processing.toTimeRow(),
      waiting: this.waiting.toTimeRow(),
      total: this.total.toTimeRow()
    }
  }

  /**
   * ab's percentile table: the sorted total times at index floor(n * p / 100), and the maximum for 100%.
   * @returns {Record<string, number>}
   */
  percentiles () {
    const total = this.total
    const n = total.count
    /** @type {Record<string, number>} */
    const out = {}
    for (const p of PERCENTS) {
      if (n === 0) out[p] = 0
      else out[p] = p >= 100 ? total.max : total.at(Math.floor((n * p) / 100))
    }
    return out
  }

  /** HDR view of the total time, ms. */
  latency () {
    const t = this.total
    if (t.count === 0) return { p50: 0, p75: 0, p90: 0, p99: 0, p999: 0, p9999: 0, max: 0, mean: 0, stddev: 0 }
    const h = t.histogram
    const q = (p) => Math.min(t.max, Math.max(t.min, h.getValueAtPercentile(p) / 1000))
    return {
      p50: q(50),
      p75: q(75),
      p90: q(90),
      p99: q(99),
      p999: q(99.9),
      p9999: q(99.99),
      max: t.max,
      mean: t.mean,
      stddev: t.sd()
    }
  }
}

/**
 * ab's rates, derived from the time taken exactly as output_results() does (0 where ab prints nothing).
 * @param {{ done: number, timeTakenSeconds: number, concurrency: number, totalRead: number }} f
 */
export function rates ({ done, timeTakenSeconds: t, concurrency, totalRead }) {
  if (!(t > 0) || done === 0) {
    return { requestsPerSecond: 0, timePerRequestMs: 0, timePerRequestAcrossMs: 0, transferRateKBps: 0 }
  }
  return {
    requestsPerSecond: done / t,
    timePerRequestMs: (concurrency * t * 1000) / done,
    timePerRequestAcrossMs: (t * 1000) / done,
    transferRateKBps: totalRead / 1024 / t
  }
}
