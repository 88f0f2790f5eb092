// Per-request times -> the figures of ab's "Connection Times" and percentile tables, in constant memory.
// Exact min, max, sum and sum of squares per row; HDR-layout bucket counts for the order statistics
// (median, percentiles), so memory does not grow with -n as ab's stats array does.
// The order statistics are read straight from the counts, with hdr-histogram-js's own rules (same
// bucket layout, same rounding of a percentile's count): the package is CommonJS and loading it cost
// ~6 ms of CPU per run (cjs-module-lexer, 3 files; measured with --cpu-prof), for one pass over the
// counts at the end (test/load-stats.test.js checks the layout against the package's histogram).

/** 1 us to 1 hour, kept to 3 significant digits (values recorded in microseconds): HDR's (1, HIGHEST_US, 3). */
export const HIGHEST_US = 3_600_000_000

// The histogram's bucket layout for those parameters: 2048 sub-buckets (3 digits), half of them
// (1024, magnitude 10) per bucket after the first, 22 buckets up to 2^32 us. During the run times
// are counted in this layout with integer ops (HDR's recordValue calls Math.pow and Math.log2 per
// value: ~7% of the engine's CPU per request, measured with perf), and read back with its rules.
const HALF_MAGNITUDE = 10
const SUB_BUCKETS = 2048
/** Buckets in the layout: Row.counts' length. */
export const COUNTS_LENGTH = (32 - HALF_MAGNITUDE) * 1024 + 1024

/** Index of `us` (an integer, 0 <= us < 2^32) in the layout above. @param {number} us */
export function countsIndex (us) {
  if (us < SUB_BUCKETS) return us
  const bucket = 31 - Math.clz32(us) - HALF_MAGNITUDE
  return bucket * 1024 + (us >>> bucket)
}

/** Lowest value of the bucket at `index`. @param {number} index */
export function valueAtIndex (index) {
  if (index < SUB_BUCKETS) return index
  const bucket = (index >>> HALF_MAGNITUDE) - 1
  return (index - bucket * 1024) * 2 ** bucket
}

/** ab's percentile rows. */
export const PERCENTS = [50, 66, 75, 80, 90, 95, 98, 99, 100]

/** Highest value of the bucket at `index` (hdr's highestEquivalentValue of its lowest value). @param {number} index */
export function highestAtIndex (index) {
  return index < SUB_BUCKETS ? index : valueAtIndex(index) + 2 ** ((index >>> HALF_MAGNITUDE) - 1) - 1
}

/**
 * A Row's fields, as a Row cloned to another thread has them (no methods).
 * @typedef {Pick<Row, 'count'|'min'|'max'|'sum'|'sumSquares'|'counts'>} RowState
 */

/** One row of the Connection Times table: exact moments plus bucket counts for the order statistics. */
export class Row {
  constructor () {
    this.count = 0
    this.min = Infinity
    this.max = 0
    this.sum = 0
    this.sumSquares = 0
    this.counts = new Float64Array(COUNTS_LENGTH)
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
  }

  /**
   * Add another row's times, as if they had been recorded here (workers.js merges its threads' rows):
   * count, min, max, sum, sum of squares and bucket counts are all additive, so the mean, the sd
   * (from the sums, as ab computes it) and every order statistic of the union follow exactly.
   * @param {RowState} other a Row, or one cloned across threads (structuredClone keeps the fields)
   */
  add (other) {
    this.count += other.count
    if (other.min < this.min) this.min = other.min
    if (other.max > this.max) this.max = other.max
    this.sum += other.sum
    this.sumSquares += other.sumSquares
    const counts = this.counts
    const more = other.counts
    for (let i = 0; i < COUNTS_LENGTH; i++) counts[i] += more[i]
  }

  /**
   * Index of the bucket holding hdr's value at `percentile` (getValueAtPercentile's walk: the count
   * at the percentile rounded up, less one ulp of float error, at least 1).
   * @param {number} percentile 0 < percentile <= 100
   */
  bucketAtPercentile (percentile) {
    const fp = (Math.min(percentile, 100) / 100) * this.count
    const wanted = Math.max(Math.ceil(fp - 2 ** (Math.floor(Math.log2(fp)) - 52)), 1)
    const counts = this.counts
    let total = 0
    // Every bucket below the minimum's is empty: starting there saved ~2 ms of a short run's CPU
    // (the walks run before the JIT has compiled them).
    for (let i = countsIndex(Math.min(Math.round(this.min * 1000), HIGHEST_US)); i < COUNTS_LENGTH; i++) {
      total += counts[i]
      if (total >= wanted) return i
    }
    return COUNTS_LENGTH - 1
  }

  /** hdr's getValueAtPercentile, in microseconds: the highest value of the bucket. @param {number} percentile */
  valueAtPercentile (percentile) {
    return highestAtIndex(this.bucketAtPercentile(percentile))
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
    // hdr's percentile rounds its count up (minus one ulp), so this percentile lands on rank
    // index+1; we take its bucket's lowest value (exact below 2048 us), not hdr's highest.
    const us = valueAtIndex(this.bucketAtPercentile(((index + 1) / this.count) * 100))
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

  /** HDR view of the row, ms: LoadResult.latency's figures. */
  latency () {
    if (this.count === 0) return { p50: 0, p75: 0, p90: 0, p99: 0, p999: 0, p9999: 0, max: 0, mean: 0, stddev: 0 }
    /** @param {number} p */
    const q = (p) => Math.min(this.max, Math.max(this.min, this.valueAtPercentile(p) / 1000))
    return {
      p50: q(50),
      p75: q(75),
      p90: q(90),
      p99: q(99),
      p999: q(99.9),
      p9999: q(99.99),
      max: this.max,
      mean: this.mean,
      stddev: this.sd()
    }
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

  /** Add another RequestTimes' rows (Row.add). @param {{ connect: RowState, processing: RowState, waiting: RowState, total: RowState }} other */
  add (other) {
    this.connect.add(other.connect)
    this.processing.add(other.processing)
    this.waiting.add(other.waiting)
    this.total.add(other.total)
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
    return this.total.latency()
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
