// The load over time (LoadResult.series): per second of the run, the requests completed, the failed
// ones and the non-2xx answers, and the latency percentiles of those requests. Nothing is added to the
// hot path: a one-second timer reads the counts the engine keeps anyway (AbCounts: its totals and the
// latency row's bucket counts) and takes the difference from the last reading, so a second's
// percentiles come from exactly its own requests, at the histogram's precision.
//
// Under -R the series also records, per interval, what the schedule offered and what the generator did
// with it: the requests scheduled in it (the schedule's count, exact: schedule.js dueBy), those sent
// (on time or late) and the late ones, and the uncorrected p50 and p99 beside the corrected ones. The
// offered rate is `scheduled` over the interval, the achieved rate `requests` over it; intervals are
// one second but the last one, so a count is a rate there.
import { roundTo } from '../format.js'
import { countsIndex, highestAtIndex, HIGHEST_US } from './request-times.js'

/** One point a second: warm-up, stalls and the end of a run are visible, and a live view keeps up. */
export const LOAD_SERIES_INTERVAL_MS = 1000

/** @typedef {import('../types.js').LoadSecond} LoadSecond one interval, as a live view receives it */

export class LoadSeries {
  /**
   * @param {import('./ab-counts.js').AbCounts} counts the run's counts (a single-thread run's)
   * @param {{ schedule: import('./schedule.js').Schedule, requests: number }|null} [open] -R: the run's
   *        schedule and its requests (the scheduled count stops there)
   */
  constructor (counts, open = null) {
    this.counts = counts
    // the row LoadResult.latency is read from: corrected under -R
    this.row = counts.corrected ?? counts.times.total
    /** the row's bucket counts at the last reading */
    this.seen = new Float64Array(this.row.counts.length)
    this.open = open
    /** -R: the uncorrected row, and its bucket counts at the last reading */
    this.uncorrected = open === null ? null : counts.times.total
    this.seenUncorrected = open === null ? null : new Float64Array(counts.times.total.counts.length)
    this.startTime = 0
    this.lastTime = 0
    this.done = 0
    this.errors = 0
    this.scheduled = 0
    this.sent = 0
    this.late = 0
    /** @type {import('../types.js').LoadSeries} */
    this.series = { intervalMs: LOAD_SERIES_INTERVAL_MS, t: [], requests: [], errors: [], p50Ms: [], p90Ms: [], p99Ms: [], maxMs: [] }
    if (open !== null) Object.assign(this.series, { scheduled: [], sent: [], late: [], p50UncorrectedMs: [], p99UncorrectedMs: [] })
  }

  /** The load starts now. @param {number} now performance.now() */
  start (now) {
    this.startTime = this.lastTime = now
  }

  /**
   * Close the interval that ends now (the timer's tick, or the run's end).
   * @param {number} now performance.now()
   * @returns {LoadSecond|null} null: no time passed since the last reading
   */
  sample (now) {
    if (now <= this.lastTime) return null
    this.lastTime = now
    const c = this.counts
    const errors = c.bad + c.errResponse
    /** @type {LoadSecond} */
    const point = { t: roundTo((now - this.startTime) / 1000, 3), requests: c.done - this.done, errors: errors - this.errors, ...percentiles(this.row, this.seen) }
    this.done = c.done
    this.errors = errors
    const s = this.series
    s.t.push(point.t)
    s.requests.push(point.requests)
    s.errors.push(point.errors)
    s.p50Ms.push(point.p50Ms)
    s.p90Ms.push(point.p90Ms)
    s.p99Ms.push(point.p99Ms)
    s.maxMs.push(point.maxMs)
    if (this.open !== null) this.#openLoop(point, now, s)
    return point
  }

  /**
   * -R: the interval's scheduled, sent and late requests and its uncorrected percentiles, onto the
   * point and the series.
   * @param {LoadSecond} point @param {number} now @param {import('../types.js').LoadSeries} s
   */
  #openLoop (point, now, s) {
    const { schedule, requests } = /** @type {NonNullable<LoadSeries['open']>} */ (this.open)
    const c = this.counts
    const scheduled = Math.min(requests, schedule.dueBy(now - this.startTime))
    const uncorrected = percentiles(/** @type {import('./request-times.js').Row} */ (this.uncorrected), /** @type {Float64Array} */ (this.seenUncorrected))
    point.scheduled = scheduled - this.scheduled
    point.sent = c.sent - this.sent
    point.late = c.late - this.late
    point.p50UncorrectedMs = uncorrected.p50Ms
    point.p99UncorrectedMs = uncorrected.p99Ms
    this.scheduled = scheduled
    this.sent = c.sent
    this.late = c.late
    // the constructor made these arrays under -R
    const open = /** @type {Required<import('../types.js').LoadSeries>} */ (s)
    open.scheduled.push(point.scheduled)
    open.sent.push(point.sent)
    open.late.push(point.late)
    open.p50UncorrectedMs.push(point.p50UncorrectedMs)
    open.p99UncorrectedMs.push(point.p99UncorrectedMs)
  }

  /** @returns {import('../types.js').LoadSeries} */
  toJSON () {
    return this.series
  }
}

/**
 * The percentiles of the requests since the last reading: the row's bucket counts less those seen,
 * walked over the buckets the run's min..max span (every other bucket is empty), with hdr's rules;
 * `seen` becomes the row's counts.
 * @param {import('./request-times.js').Row} row @param {Float64Array} seen
 */
function percentiles (row, seen) {
  if (row.count === 0) return { p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null }
  const from = countsIndex(Math.min(Math.round(row.min * 1000), HIGHEST_US))
  const to = countsIndex(Math.min(Math.round(row.max * 1000), HIGHEST_US))
  const counts = row.counts
  let n = 0
  for (let i = from; i <= to; i++) n += counts[i] - seen[i]
  if (n === 0) return { p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null }
  const wanted = [0.5, 0.9, 0.99].map((q) => Math.max(1, Math.ceil(q * n)))
  /** @type {number[]} */
  const found = []
  let total = 0
  let top = from
  for (let i = from; i <= to; i++) {
    const d = counts[i] - seen[i]
    if (d === 0) continue
    total += d
    top = i
    while (found.length < wanted.length && total >= wanted[found.length]) found.push(i)
    seen[i] = counts[i]
  }
  const ms = (/** @type {number} */ index) => roundTo(Math.min(highestAtIndex(index) / 1000, row.max), 3)
  return { p50Ms: ms(found[0]), p90Ms: ms(found[1]), p99Ms: ms(found[2]), maxMs: ms(top) }
}
