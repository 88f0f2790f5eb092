// --hdr-log: the latency of a run as an HdrHistogram interval log, the text format of HdrHistogram's
// HistogramLogWriter (written here with hdr-histogram-js's port of it), which HdrHistogram's own
// HistogramLogProcessor and every port's log reader read. One line per interval (one second by default):
// its start (seconds after the log's StartTime), its length, its max (ms) and the interval's histogram,
// compressed base64, in microseconds.
//
// During the run each request's time is counted into the current interval in stats.js's bucket layout
// (integer ops, the package is not loaded); a closed interval is kept as its non-empty buckets only, so a
// long run costs memory per distinct value per interval, not 184 KB per interval. The package turns
// them into histograms once, at the end.
import { countsIndex, valueAtIndex, HIGHEST_US } from '../load/request-times.js'
import { createHistogram, logWriterClass } from '../load/histogram.js'
import { version } from '../version.js'

const COUNTS_LENGTH = countsIndex(HIGHEST_US) + 1

/**
 * @typedef {object} Interval
 * @property {number} startMs   epoch ms
 * @property {number} endMs     epoch ms
 * @property {Uint32Array} indexes  the non-empty buckets (stats.js layout)
 * @property {Float64Array} counts  their counts
 */

export class IntervalLog {
  /**
   * @param {number} [intervalMs=1000]
   * @param {number} [startMs]  epoch ms: the first interval's start (default: the first request's start)
   */
  constructor (intervalMs = 1000, startMs = NaN) {
    this.startMs = startMs
    this.intervalMs = intervalMs
    /** end of the current interval, epoch ms */
    this.currentEndMs = startMs + intervalMs
    this.counts = new Float64Array(COUNTS_LENGTH)
    /** @type {number[]} buckets touched in the current interval */
    this.touched = []
    /** @type {Interval[]} */
    this.intervals = []
  }

  /**
   * One completed request (the engine's onRequest): its latency (corrected under -R) counts in the
   * interval where it ended. Requests arrive in the order they end.
   * @param {import('../types.js').RequestRecord} r
   */
  onRequest (r) {
    if (Number.isNaN(this.startMs)) this.start(r.start)
    this.record(r.start + r.total, r.latency)
  }

  /** @param {number} startMs epoch ms */
  start (startMs) {
    this.startMs = startMs
    this.currentEndMs = startMs + this.intervalMs
  }

  /**
   * One request that ended at `endMs` (epoch ms) after `ms` milliseconds.
   * @param {number} endMs @param {number} ms
   */
  record (endMs, ms) {
    while (endMs >= this.currentEndMs) this.closeInterval(this.currentEndMs)
    let us = Math.round(ms * 1000)
    if (us > HIGHEST_US) us = HIGHEST_US
    const i = countsIndex(us)
    if (this.counts[i]++ === 0) this.touched.push(i)
  }

  /** @param {number} endMs */
  closeInterval (endMs) {
    const touched = this.touched.sort((a, b) => a - b)
    const indexes = Uint32Array.from(touched)
    const counts = Float64Array.from(touched, (i) => this.counts[i])
    for (const i of touched) this.counts[i] = 0
    this.touched = []
    this.intervals.push({ startMs: this.currentEndMs - this.intervalMs, endMs, indexes, counts })
    this.currentEndMs += this.intervalMs
  }

  /**
   * The log: HdrHistogram's header comments (format version, StartTime, our own line), the legend and
   * one line per interval, the last one ending at `endMs` (the run's end).
   * @param {number} endMs epoch ms
   * @param {number} runStartMs epoch ms: the start when no request completed
   * @returns {string}
   */
  format (endMs, runStartMs) {
    if (Number.isNaN(this.startMs)) this.start(runStartMs)
    while (this.currentEndMs < endMs) this.closeInterval(this.currentEndMs)
    // the last interval, cut at the run's end (left out when it is empty and has no length)
    const lastStart = this.currentEndMs - this.intervalMs
    if (endMs > lastStart || this.touched.length > 0 || this.intervals.length === 0) this.closeInterval(Math.max(endMs, lastStart))
    let text = ''
    const writer = new (logWriterClass())((line) => { text += line })
    writer.outputComment(`[Logged with syncbench ${version}: latency in microseconds, 1 us to 1 hour, 3 digits]`)
    writer.outputLogFormatVersion()
    writer.outputStartTime(this.startMs)
    writer.outputLegend()
    for (const interval of this.intervals) {
      const h = createHistogram()
      for (let k = 0; k < interval.indexes.length; k++) h.recordValueWithCount(valueAtIndex(interval.indexes[k]), interval.counts[k])
      // timestamps relative to StartTime, the Java writer's default; max in ms (values are microseconds)
      writer.outputIntervalHistogram(h, (interval.startMs - this.startMs) / 1000, (interval.endMs - this.startMs) / 1000, 1000)
    }
    return text
  }
}
