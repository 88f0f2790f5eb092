// The open loop's schedule (-R): when each request of the run is due. A constant rate r is a ramp
// whose two ends are equal: request g (0-based) is due at g / r. A ramp (-R FROM..TO --ramp T) grows
// or falls linearly, r(t) = a + (b - a) t / T, and request g is due when the rate's integral reaches
// g, the t solving a t + (b - a) t^2 / (2T) = g; after T the rate stays at b. The root is written as
//   t = 2g / (a + sqrt(a^2 + 2 (b - a) g / T))
// rather than the textbook (-a + sqrt(...)) / slope, which cancels catastrophically when a ramp is
// nearly flat (b close to a) and divides by zero when it is flat. For a falling ramp (b < a) the
// square root's argument stays at least b^2 > 0 up to T, where the integral is (a + b) T / 2.
//
// A run split over shards (--segment i/N) or threads (--workers) follows one schedule: part i of N
// takes requests i, i + N, i + 2N... of it, so its local request j is the schedule's i + N j.
//
// The engine asks dueMs(j) once per request (its scheduler's turn and a freed connection): one
// comparison, and a square root on the ramp, with every other term computed here once.

/**
 * An open-loop rate: constant (`to` equal to `from`, `seconds` 0) or a linear ramp.
 * @typedef {object} RateShape
 * @property {number} from     requests per second at the start (-R's rate, or FROM)
 * @property {number} to       requests per second at the ramp's end and after it (TO)
 * @property {number} seconds  the ramp's duration (0: a constant rate)
 */

/**
 * The rate of LoadOptions: -R alone, or -R FROM..TO with --ramp.
 * @param {{ rate?: number, rampTo?: number, ramp?: number }} o
 * @returns {RateShape|null} null: ab's closed loop
 */
export function rateShape (o) {
  if (o.rate === undefined) return null
  if (o.rampTo === undefined || o.ramp === undefined) return { from: o.rate, to: o.rate, seconds: 0 }
  return { from: o.rate, to: o.rampTo, seconds: o.ramp }
}

/**
 * The requests due by `seconds` after the start: the rate's integral from 0 to there (fractional).
 * @param {RateShape} shape @param {number} seconds
 */
export function integral ({ from, to, seconds: T }, seconds) {
  if (seconds <= T) return from * seconds + (to - from) * seconds * seconds / (2 * T)
  return (from + to) * T / 2 + to * (seconds - T)
}

/**
 * When request g (0-based, of the whole run) is due, in seconds from the start.
 * @param {RateShape} shape @param {number} g
 */
export function dueSeconds ({ from, to, seconds: T }, g) {
  const onRamp = (from + to) * T / 2
  if (g >= onRamp) return T + (g - onRamp) / to
  return 2 * g / (from + Math.sqrt(Math.max(Math.min(from, to) ** 2, from * from + 2 * (to - from) * g / T)))
}

/**
 * The requests whose intended time falls within `timelimit` seconds (g due before it), at least one:
 * what -t implies for -n under -R, and what a ramp implies without -t (its own duration).
 * @param {RateShape} shape @param {number} timelimit
 */
export function requestsWithin (shape, timelimit) {
  return Math.max(1, Math.ceil(integral(shape, timelimit) - 1e-9))
}

export class Schedule {
  /**
   * @param {RateShape} shape the whole run's rate
   * @param {number} [phase] this part's first request in the whole run's numbering (shard or thread i)
   * @param {number} [stride] the parts the run is split over (N): this part takes every N-th request
   */
  constructor (shape, phase = 0, stride = 1) {
    this.shape = shape
    this.phase = phase
    this.stride = stride
    const { from, to, seconds } = shape
    /** ms: when the ramp ends */
    this.rampMs = seconds * 1000
    /** requests due on the ramp (its integral); request g >= this one is on the constant tail */
    this.onRamp = (from + to) * seconds / 2
    /** ms between requests on the tail */
    this.tailMs = 1000 / to
    this.from = from
    this.fromSquared = from * from
    /** the square root's slope in g: 2 (b - a) / T (0 for a constant rate: never used then) */
    this.slope = seconds > 0 ? 2 * (to - from) / seconds : 0
    // On the ramp the square root's argument lies between a^2 and b^2; near the end of a steep fall
    // (-R 1000000..0.001) its two terms cancel to within float noise of b^2, which could dip below
    // zero: it is held at the lesser end.
    this.least = Math.min(from, to) ** 2
  }

  /**
   * When this part's request j is due, in ms from the start (the hot path: no allocation).
   * @param {number} j
   */
  dueMs (j) {
    const g = this.phase + this.stride * j
    if (g >= this.onRamp) return this.rampMs + (g - this.onRamp) * this.tailMs
    // g = 0 with from = 0 cannot happen (from > 0), so the denominator is positive
    return 2000 * g / (this.from + Math.sqrt(Math.max(this.least, this.fromSquared + this.slope * g)))
  }

  /**
   * This part's requests due by `ms` after the start (dueMs(j) <= ms), exactly as dueMs() computes
   * them: the integral gives the count to within float noise, then the boundary is checked.
   * @param {number} ms
   */
  dueBy (ms) {
    if (ms < 0) return 0
    const total = integral(this.shape, ms / 1000)
    let n = total < this.phase ? 0 : Math.floor((total - this.phase) / this.stride) + 1
    while (n > 0 && this.dueMs(n - 1) > ms) n--
    while (this.dueMs(n) <= ms) n++
    return n
  }
}
