// The server metrics over time (ServerMetrics.series in lib/types.js): one sample per interval of
// event-loop delay, CPU and RSS, so a handler's stop-the-world pauses show where they happened rather
// than only in a window's total (clinic doctor's view). Memory stays bounded however long the window:
// when the series is full, neighbouring samples are merged in pairs and the interval doubles, so the
// series always covers the whole window with at most `maxSamples` points.
import { roundTo } from '../format.js'

/** 100 ms: ten samples a second, fine enough to place a 65 ms hash, as clinic doctor samples. */
export const SERIES_INTERVAL_MS = 100
/** 600 samples: a minute at 100 ms before the first merge; never more than this many points. */
export const SERIES_MAX_SAMPLES = 600

/**
 * One interval as the sampler measured it.
 * @typedef {object} RawSample
 * @property {number} t             ms since the window started, at the end of the interval
 * @property {number} durationMs    how long the interval really lasted (longer than asked when the loop was blocked)
 * @property {number} loopDelayMs   the largest delay the loop showed in it: a 1 s block reads 1000
 * @property {number} cpuMs         user + system CPU time the process used in it
 * @property {number} rssBytes      the resident set size at its end
 */

/**
 * @param {{ intervalMs?: number, maxSamples?: number }} [options]
 */
export function createSeries ({ intervalMs = SERIES_INTERVAL_MS, maxSamples = SERIES_MAX_SAMPLES } = {}) {
  // An odd cap would leave one sample unpaired at every merge.
  const cap = Math.max(2, maxSamples - (maxSamples % 2))
  let interval = intervalMs
  /** @type {number[]} */ let t = []
  /** @type {number[]} */ let durations = []
  /** @type {number[]} */ let delay = []
  /** @type {number[]} */ let cpuMs = []
  /** @type {number[]} */ let rss = []
  // Raw samples are gathered here until they span the current interval (after a merge, two or more).
  let pending = emptyPending()

  /** Merge neighbours in pairs: the max of delays and RSS peaks, CPU time summed, so percentages stay right. */
  function halve () {
    /** @template T @param {T[]} xs @param {(a: T, b: T) => T} fn */
    const pairs = (xs, fn) => xs.flatMap((x, i) => i % 2 === 0 ? [i + 1 < xs.length ? fn(x, xs[i + 1]) : x] : [])
    t = pairs(t, (a, b) => b)
    durations = pairs(durations, (a, b) => a + b)
    delay = pairs(delay, Math.max)
    cpuMs = pairs(cpuMs, (a, b) => a + b)
    rss = pairs(rss, Math.max)
    interval *= 2
  }

  /** @param {{ t: number, durationMs: number, loopDelayMs: number, cpuMs: number, rssBytes: number }} s */
  function push (s) {
    if (t.length >= cap) halve()
    t.push(s.t)
    durations.push(s.durationMs)
    delay.push(s.loopDelayMs)
    cpuMs.push(s.cpuMs)
    rss.push(s.rssBytes)
  }

  return {
    /**
     * Add one interval. It becomes a point once the gathered intervals span the series' interval.
     * @param {RawSample} sample
     */
    add (sample) {
      pending = {
        t: sample.t,
        durationMs: pending.durationMs + sample.durationMs,
        loopDelayMs: Math.max(pending.loopDelayMs, sample.loopDelayMs),
        cpuMs: pending.cpuMs + sample.cpuMs,
        rssBytes: Math.max(pending.rssBytes, sample.rssBytes)
      }
      // Half an interval of slack: a timer that fires a little early must not postpone a point.
      if (pending.durationMs >= interval - intervalMs / 2) {
        push(pending)
        pending = emptyPending()
      }
    },
    /**
     * The series so far, the intervals not yet a point included (the end of a window is a point of its own).
     * @returns {import('../types.js').ServerMetricsSeries}
     */
    snapshot () {
      const tail = pending.durationMs > 0 ? [pending] : []
      const ds = [...durations, ...tail.map((p) => p.durationMs)]
      const cs = [...cpuMs, ...tail.map((p) => p.cpuMs)]
      return {
        intervalMs: interval,
        t: [...t, ...tail.map((p) => p.t)].map((x) => roundTo(x, 1)),
        loopDelayMaxMs: [...delay, ...tail.map((p) => p.loopDelayMs)].map((x) => roundTo(x, 1)),
        cpuPercent: cs.map((c, i) => ds[i] > 0 ? roundTo(c / ds[i] * 100, 1) : 0),
        rssBytes: [...rss, ...tail.map((p) => p.rssBytes)]
      }
    },
    reset () {
      interval = intervalMs
      t = []
      durations = []
      delay = []
      cpuMs = []
      rss = []
      pending = emptyPending()
    }
  }
}

function emptyPending () {
  return { t: 0, durationMs: 0, loopDelayMs: 0, cpuMs: 0, rssBytes: 0 }
}
