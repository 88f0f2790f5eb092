// A run's time bounds, checked by one timer for both engines (engine.js's connections, h2-engine.js's
// stream seats), so that the hot path sets no timer per request:
//   -t: the run ends at its limit whatever the server does. ab checks -t only between socket events,
//       so a response dripped a byte at a time, or an endless chunked body, keeps ab running; we end
//       it here on purpose (a documented deviation: see syncbench ab --help).
//   -s: ab's inactivity timeout, for the whole run (one stalled request among busy ones does not trip it).
//   --response-timeout: each response's own deadline from its request's start (connect included);
//       one past it fails its request (the engine's responseTimedOut()).
import { TimeoutError } from '../errors.js'

/** setTimeout's longest delay. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * What carries one request at a time: a connection (HTTP/1) or a stream seat (HTTP/2).
 * @typedef {{ start: number }} Carrier
 */

/**
 * The engine's side of the bounds: its state and what it does when one is reached.
 * @template {Carrier} C
 * @typedef {object} Bounded
 * @property {boolean} finished
 * @property {number} stopAt          -t's end (performance.now() ms; Infinity without -t)
 * @property {number} lastTime
 * @property {number} lastActivity    the last send or response (-s counts from it)
 * @property {number} timeoutMs       -s
 * @property {number} responseTimeoutMs  0: none
 * @property {boolean} openLoop
 * @property {number} nextDue         the next request of the schedule to send
 * @property {number} requests
 * @property {import('./ab-counts.js').AbCounts} counts
 * @property {() => void} finish
 * @property {(Failure: typeof TimeoutError, message: string) => void} fail
 * @property {() => string} target    host:port, or unix:path, for messages
 * @property {(carrier: C, now: number) => void} responseTimedOut
 */

/**
 * Check every bound now: end or fail the run when one is reached, fail the requests past their
 * response deadline. Returns how long until the next check is due, or -1 when the run has ended.
 * @template {Carrier} C
 * @param {Bounded<C>} e
 * @param {C[]} carriers
 * @param {(carrier: C) => boolean} inFlight  a request is on its way on this carrier
 * @returns {number} ms, at least 1 and at most MAX_TIMER_MS; -1: the run has ended
 */
export function checkBounds (e, carriers, inFlight) {
  if (e.finished) return -1
  const now = performance.now()
  if (now >= e.stopAt) {
    e.lastTime = now
    e.finish()
    return -1
  }
  // open loop: carriers waiting for their schedule are not a silent server; -s counts only while
  // a request is in flight (a send counts as activity, so a request sent after a long wait starts
  // afresh) or once the schedule is over (a request lost on the way then ends the run as in ab)
  if (e.openLoop && e.nextDue < e.requests && !carriers.some(inFlight)) e.lastActivity = now
  const idle = now - e.lastActivity
  const timeoutMs = e.timeoutMs
  if (idle >= timeoutMs - 1) {
    e.counts.error('ETIMEDOUT')
    e.fail(TimeoutError, `${e.target()}: no response within ${timeoutMs / 1000} s (-s ${timeoutMs / 1000}): the timeout specified has expired`)
    return -1
  }
  let next = Math.min(timeoutMs - idle, e.stopAt - now)
  const limit = e.responseTimeoutMs
  if (limit > 0) {
    for (const c of carriers) {
      if (!inFlight(c)) continue
      const left = c.start + limit - now
      if (left <= 1) {
        e.responseTimedOut(c, now)
        if (e.finished) return -1
      } else if (left < next) {
        next = left
      }
    }
    if (limit < next) next = limit
  }
  // at least 1 ms: a timer may fire a fraction of a millisecond before performance.now() says it is due
  return Math.max(1, Math.min(next, MAX_TIMER_MS))
}
