// What bounds each strategy's throughput on a machine, and the rate that bound predicts, from what a
// run measured: one request's work alone (the calibration: a bcrypt hash, a file read) and its cost
// on the server's main thread without the work (the same server answering its cheapest route).
//
// Where the work runs decides what bounds it:
//   main     (sync, fake-async, immediate: the work on the event loop) one core: the main thread does
//            the work and the HTTP, one request at a time.
//   pool     (async, promises, stream: libuv's thread pool) at most min(UV_THREADPOOL_SIZE, cores,
//            requests in flight) works at once.
//   workers  (a worker pool) at most min(workers, cores, requests in flight) at once.
// Every strategy also pays its HTTP work on the main thread (parsing, routing, writing), which bounds
// it at 1 / httpMs, and all of it shares the machine's cores: cores / (workMs + httpMs). The bound is
// the tightest of these, named by what it is ("main thread", "4 pool threads", "2 cores", "20 in
// flight"), and the predicted rate is that bound's. A bound that cannot be computed (the work or the
// HTTP cost unknown, a strategy whose place is unknown) is null with the reason: never a figure that
// leaves part of the work out.

/** libuv's default UV_THREADPOOL_SIZE. */
export const DEFAULT_POOL = 4

/**
 * Where each strategy's work runs (lib/lab/strategies.js, the seeds' handlers).
 * @type {Readonly<Record<string, 'main'|'pool'|'workers'>>}
 */
export const WHERE = Object.freeze({
  sync: 'main',
  'fake-async': 'main',
  immediate: 'main',
  readfilesync: 'main',
  async: 'pool',
  promises: 'pool',
  stream: 'pool',
  readfile: 'pool',
  worker: 'workers'
})

/**
 * The shape of the machine and of the load a bound is computed for.
 * @typedef {object} Shape
 * @property {number} cores       usable cores
 * @property {number} pool        UV_THREADPOOL_SIZE
 * @property {number|null} workers the worker pool's size (null: none)
 * @property {number} inFlight    requests in flight at once (the closed loop's concurrency)
 */

/**
 * A strategy's bound.
 * @typedef {object} Bound
 * @property {string} name         what binds: "main thread", "4 pool threads", "2 cores", "20 in flight", "3 workers"
 * @property {'main'|'pool'|'workers'|'cores'|'in-flight'} kind
 * @property {number} predictedRps the rate it allows
 * @property {string|null} lever   what would raise it ("raise UV_THREADPOOL_SIZE", "move the work off the loop", ...)
 */

/**
 * The bound of one strategy on one machine shape, or the reason there is none.
 * @param {object} o
 * @param {string} o.strategy
 * @param {number|null} o.workMs   CPU ms of one request's work alone (calibration)
 * @param {number|null} o.httpMs   main-thread ms per request without the work (the same server's cheapest route)
 * @param {Shape} o.shape
 * @returns {{ bound: Bound, why: null } | { bound: null, why: string }}
 */
export function strategyBound ({ strategy, workMs, httpMs, shape }) {
  const where = Object.hasOwn(WHERE, strategy) ? WHERE[strategy] : null
  if (where === null) return { bound: null, why: `where "${strategy}" does its work is not known` }
  if (workMs === null || !(workMs > 0)) return { bound: null, why: 'the work was not calibrated' }
  if (httpMs === null || !(httpMs > 0)) return { bound: null, why: 'the HTTP work on the main thread was not measured' }
  const { cores, pool, workers, inFlight } = shape
  /** @type {Bound[]} */
  const candidates = []
  if (where === 'main') {
    candidates.push({ name: 'main thread', kind: 'main', predictedRps: 1000 / (workMs + httpMs), lever: 'move the work off the event loop' })
  } else {
    candidates.push({ name: 'main thread', kind: 'main', predictedRps: 1000 / httpMs, lever: 'the HTTP work itself: more processes (cluster)' })
    const threads = where === 'pool' ? pool : /** @type {number} */ (workers ?? cores)
    const k = Math.min(threads, cores, inFlight)
    if (k === inFlight && inFlight < Math.min(threads, cores)) {
      candidates.push({ name: `${inFlight} in flight`, kind: 'in-flight', predictedRps: k * 1000 / workMs, lever: 'more concurrent requests' })
    } else if (threads <= cores) {
      const name = where === 'pool' ? `${threads} pool thread${threads === 1 ? '' : 's'}` : `${threads} worker${threads === 1 ? '' : 's'}`
      const lever = where === 'pool' ? `raise UV_THREADPOOL_SIZE (${threads} of ${cores} cores)` : `more workers (${threads} of ${cores} cores)`
      candidates.push({ name, kind: where, predictedRps: k * 1000 / workMs, lever: threads < cores ? lever : null })
    }
  }
  candidates.push({ name: `${cores} core${cores === 1 ? '' : 's'}`, kind: 'cores', predictedRps: cores * 1000 / (workMs + httpMs), lever: 'more cores' })
  const bound = candidates.reduce((a, b) => b.predictedRps < a.predictedRps ? b : a)
  return { bound, why: null }
}
