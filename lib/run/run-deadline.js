// Every run's deadline: a handler that never returns, a server that trickles, or an external tool
// that never reaches its request count must not stall an experiment. Past the deadline the runner
// kills the server child (and ends the load tool), records the run invalid with the reason, and goes on.

/** Time to start the server child, warm up and read its metrics, on top of the measured load. */
const SETUP_MS = 30_000
/** A generous bound per request on one connection: a lab handler takes milliseconds. */
const PER_REQUEST_MS = 1000
/** The load part of a derived deadline at most (a longer run sets --run-timeout). */
const MAX_LOAD_MS = 3600_000
/**
 * The per-response deadline `syncbench run` sets unless --response-timeout or an experiment's
 * load.responseTimeout says otherwise, in seconds: a response that takes longer is a failed request
 * (RESPONSE_TIMEOUT), so a handler that dribbles or never finishes fails its requests instead of holding
 * the run until its deadline. Far above any legitimate seed response: the slowest measured here is
 * seed-bcrypt's sync tail at -k -c 20 (20 hashes of ~60 ms queue up, and the keep-alive connection the
 * loop serves last waits up to 13.8 s); seed-readfile at -c 100 stays under 0.3 s.
 */
export const DEFAULT_RESPONSE_TIMEOUT = 60
/** --run-timeout's bounds, in seconds. */
export const MIN_RUN_TIMEOUT = 1
export const MAX_RUN_TIMEOUT = 86400

/**
 * The deadline of one run, in ms: `runTimeout` seconds when given (--run-timeout), else derived from
 * its load options: -t (or the requests one connection makes, at PER_REQUEST_MS each, plus, in an open
 * loop, the schedule's own length, requests / rate; capped at an hour), plus the response timeout, plus SETUP_MS.
 * @param {Pick<import('../types.js').LoadOptions, 'requests'|'concurrency'|'timelimit'|'responseTimeout'|'rate'>} load
 * @param {number} [runTimeout] seconds
 * @returns {number}
 */
export function runDeadlineMs (load, runTimeout) {
  if (runTimeout !== undefined) return runTimeout * 1000
  const timelimit = load.timelimit ?? 0
  const perConnection = Math.ceil((load.requests ?? 1) / (load.concurrency ?? 1))
  // an open loop sends its last request at (requests - 1) / rate seconds, however fast the server answers
  const scheduleMs = load.rate ? (load.requests ?? 1) / load.rate * 1000 : 0
  const loadMs = timelimit > 0 ? timelimit * 1000 : Math.min(perConnection * PER_REQUEST_MS + scheduleMs, MAX_LOAD_MS)
  return SETUP_MS + loadMs + (load.responseTimeout ?? 0) * 1000
}

/**
 * A time-limited load shortened to end `readsSeconds` before a deadline `leftMs` away, never below
 * `minSeconds` (RunnerOptions.fitLoad); a load that fits, or has no -t, as it is.
 * @template {Record<string, any>} L
 * @param {L} load
 * @param {number} leftMs
 * @param {{ readsSeconds: number, minSeconds: number }} fit
 * @returns {L}
 */
export function fittedLoad (load, leftMs, { readsSeconds, minSeconds }) {
  const timelimit = Number(load.timelimit ?? 0)
  if (!(timelimit > 0)) return load
  const fits = Math.floor(leftMs - readsSeconds * 1000) / 1000
  return fits >= timelimit ? load : { ...load, timelimit: Math.max(minSeconds, fits) }
}
