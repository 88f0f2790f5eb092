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
 * @property {number} inFlight    requests in flight at once (the closed loop's concurrency; over HTTP/2, its connections x streams)
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

/** Calibration timings further apart than this (the slowest over the fastest) do not make one figure. */
export const SPREAD_LIMIT = 1.5

/**
 * A configuration's bound on the machine it ran on, and how it compares with what it measured.
 * @typedef {object} RowBound
 * @property {Bound|null} bound
 * @property {string|null} why          why there is no bound (bound null)
 * @property {number|null} ofBound      mean req/s over the bound's predicted rate
 * @property {number|null} workMs       one request's work alone: the calibration's fastest timing, wall or CPU
 * @property {number|null} httpMs       main-thread ms per request without the work
 * @property {string|null} httpFrom     where httpMs comes from: "its event loop", "async's event loop", "the HTTP calibration"
 * @property {Shape|null} shape         the machine and load it ran on
 * @property {string[]} doubts          why the bound is uncertain: "calibration timings 2.3x apart"
 */

/**
 * What a bound is computed from: a configuration's measured runs (lib/analysis/summarize.js's Row, in part).
 * @typedef {{ label: string, runs: import('../types.js').RunRecord[], rps: number }} BoundInput
 */

/** @typedef {import('../types.js').HttpCalibration} HttpCalibration */

/**
 * Main-thread ms per request over runs: the main thread's CPU time over the requests served where the
 * server measured it (Linux), else its event loop's busy time (ELU x window), which also counts the
 * time the loop waited for a core and so overstates the cost on a machine whose cores are all busy.
 * Null without server metrics or requests.
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {number|null}
 */
export function mainThreadMs (runs) {
  const servers = runs.flatMap((r) => r.server && r.server.requests > 0 && Number.isFinite(r.server.elu) ? [r.server] : [])
  if (servers.length === 0) return null
  const cpu = servers.every((s) => typeof s.mainThreadCpuMs === 'number')
  const busy = servers.reduce((n, s) => n + (cpu ? /** @type {number} */ (s.mainThreadCpuMs) : s.elu * s.windowMs), 0)
  const requests = servers.reduce((n, s) => n + s.requests, 0)
  return busy > 0 ? busy / requests : null
}

/**
 * The shape a configuration ran on: the calibration's usable cores, the server's UV_THREADPOOL_SIZE (the
 * threadpoolSize axis, else its environment, else libuv's default), its worker pool (the poolSize axis;
 * null: the lab's default, one per core) and the load's concurrency (over HTTP/2, each connection carries
 * its streams at once).
 * @param {import('../types.js').RunRecord[]} runs
 * @param {number} cores
 * @returns {Shape}
 */
export function shapeOf (runs, cores) {
  const run = runs[0]
  const config = run?.config ?? {}
  const pool = Number(config.threadpoolSize ?? run?.serverEnv?.uvThreadpoolSize ?? DEFAULT_POOL)
  const workers = Number(config.poolSize)
  const inFlight = Number(run?.load?.concurrency ?? config.concurrency) * (run?.load?.http2?.streams ?? 1)
  return {
    cores,
    pool: pool > 0 ? pool : DEFAULT_POOL,
    workers: workers > 0 ? workers : null,
    inFlight: inFlight > 0 ? inFlight : Infinity
  }
}

/**
 * "calibration timings 2.3x apart" for each calibration whose timings disagree by more than SPREAD_LIMIT.
 * @param {{ opMsMin?: number, opMsMax?: number, http?: HttpCalibration }} calibration
 * @returns {string[]}
 */
export function calibrationDoubts (calibration) {
  const doubts = []
  const work = spreadOf(calibration.opMsMin, calibration.opMsMax)
  if (work > SPREAD_LIMIT) doubts.push(`work timings ${work.toFixed(1)}x apart`)
  const http = spreadOf(calibration.http?.httpMsMin, calibration.http?.httpMsMax)
  if (http > SPREAD_LIMIT) doubts.push(`HTTP timings ${http.toFixed(1)}x apart`)
  return doubts
}

/** @param {number|undefined} low @param {number|undefined} high */
function spreadOf (low, high) {
  return low !== undefined && high !== undefined && low > 0 ? high / low : 1
}

/**
 * Every configuration's bound in one experiment, by label. The HTTP work on the main thread comes, for a
 * strategy whose work is off the loop, from its own event loop's busy time per request; for one whose work
 * is on the loop (that busy time includes the work), from a sibling off the loop with the same workload
 * (the one whose other settings match most), else from the experiment's HTTP calibration.
 * @param {BoundInput[]} rows
 * @param {(import('../types.js').ResultsFile['experiments'][number]['calibration'] & { http?: HttpCalibration })|undefined} calibration
 * @returns {Map<string, RowBound>}
 */
export function experimentBounds (rows, calibration) {
  /** @type {Map<string, RowBound>} */
  const out = new Map()
  const own = new Map(rows.map((r) => [r.label, offLoop(r) ? mainThreadMs(r.runs) : null]))
  for (const r of rows) {
    /** @type {RowBound} */
    const result = { bound: null, why: null, ofBound: null, workMs: null, httpMs: null, httpFrom: null, shape: null, doubts: [] }
    out.set(r.label, result)
    const run = r.runs[0]
    if (!run) { result.why = 'nothing measured'; continue }
    if (!calibration) { result.why = 'the work was not calibrated'; continue }
    const workload = run.config?.workload
    if (workload !== undefined && workload !== calibration.op) { result.why = `its work (${workload}) was not calibrated (${calibration.op} was)`; continue }
    if (run.load?.openLoop) { result.why = 'an open-loop run is offered its rate: no capacity to compare'; continue }
    const strategy = String(run.config?.strategy ?? '')
    result.shape = shapeOf(r.runs, calibration.usableCores)
    // The least a request's work cost in any timing, wall or CPU: a bound is the most a strategy can
    // serve, and another process on the machine only ever makes a timing slower.
    result.workMs = Math.min(calibration.opMsMin ?? calibration.opMs, calibration.opCpuMsMin ?? Infinity)
    const http = httpOf(r, rows, own, calibration)
    result.httpMs = http.ms
    result.httpFrom = http.from
    const { bound, why } = strategyBound({ strategy, workMs: result.workMs, httpMs: result.httpMs, shape: result.shape })
    result.bound = bound
    result.why = why !== null && result.httpMs === null && http.why && why.includes('HTTP') ? `${why} (${http.why})` : why
    if (bound) {
      result.ofBound = r.rps / bound.predictedRps
      result.doubts = calibrationDoubts(calibration)
    }
  }
  return out
}

/** @param {BoundInput} r */
function offLoop (r) {
  const strategy = String(r.runs[0]?.config?.strategy ?? '')
  return Object.hasOwn(WHERE, strategy) && WHERE[strategy] !== 'main'
}

/**
 * @param {BoundInput} r
 * @param {BoundInput[]} rows
 * @param {Map<string, number|null>} own  each off-loop row's main-thread ms per request
 * @param {{ http?: HttpCalibration }} calibration
 * @returns {{ ms: number|null, from: string|null, why: string|null }}
 */
function httpOf (r, rows, own, calibration) {
  if (offLoop(r)) {
    const ms = own.get(r.label) ?? null
    return ms === null ? { ms, from: null, why: 'no server metrics' } : { ms, from: 'its event loop', why: null }
  }
  const config = r.runs[0]?.config ?? {}
  const siblings = rows.filter((s) => s !== r && own.get(s.label) && s.runs[0]?.config?.workload === config.workload)
  if (siblings.length > 0) {
    const alike = (/** @type {BoundInput} */ s) => Object.entries(s.runs[0]?.config ?? {}).filter(([k, v]) => k !== 'strategy' && config[k] === v).length
    const best = Math.max(...siblings.map(alike))
    const chosen = siblings.filter((s) => alike(s) === best)
    const ms = mainThreadMs(chosen.flatMap((s) => s.runs))
    const names = [...new Set(chosen.map((s) => String(s.runs[0]?.config?.strategy ?? s.label)))]
    return { ms, from: `${names.join(', ')}'s event loop`, why: null }
  }
  if (calibration.http) return { ms: calibration.http.httpMs, from: 'the HTTP calibration', why: null }
  return { ms: null, from: null, why: 'its event loop runs the work too, and no strategy off the loop or HTTP calibration measured it alone' }
}

/**
 * A configuration's bound on another machine shape: its measured work and HTTP costs, the shape it ran
 * on with the given parts replaced (cores, UV_THREADPOOL_SIZE, workers). Null bound with the reason
 * where it had none.
 * @param {string} strategy
 * @param {RowBound} measured
 * @param {{ cores?: number, pool?: number, workers?: number }} to
 * @returns {{ bound: Bound, why: null, shape: Shape } | { bound: null, why: string, shape: Shape|null }}
 */
export function projectBound (strategy, measured, to) {
  if (!measured.shape || measured.bound === null) return { bound: null, why: measured.why ?? 'no bound', shape: measured.shape }
  const shape = { ...measured.shape, ...to.cores !== undefined && { cores: to.cores }, ...to.pool !== undefined && { pool: to.pool }, ...to.workers !== undefined && { workers: to.workers } }
  const r = strategyBound({ strategy, workMs: measured.workMs, httpMs: measured.httpMs, shape })
  return r.bound ? { bound: r.bound, why: null, shape } : { bound: null, why: r.why, shape }
}

/**
 * A configuration's capacity at a latency goal (run --capacity) on another machine shape, as a factor
 * of the capacity measured here. A capacity is a rate below the strategy's bound, the rate at which the
 * queue in front of that bound still keeps the goal's percentile under its limit; while the same kind
 * of bound holds on both shapes (the main thread on both, the pool threads on both, the cores on both),
 * the queue is the same queue served faster or slower, and the capacity scales with the bound's rate.
 * Where the bound changes kind (async's 4 pool threads here, the cores there), the queue that sets the
 * latency is another one, and so is the capacity: no factor. Nor for a goal with a loop p99 term: the
 * event loop's delay is not a rate the bounds predict. The bound here is recomputed with the search's
 * connections in flight, which an open loop's steps hold at most.
 * @param {string} strategy
 * @param {RowBound} measured   the configuration's bound on the machine it ran on (experimentBounds)
 * @param {number} connections  the open loop's connections in the search's steps
 * @param {import('../types.js').Slo} slo
 * @param {{ cores?: number, pool?: number, workers?: number }} to
 * @returns {{ scale: number, here: Bound, there: Bound, why: null } | { scale: null, here: Bound|null, there: Bound|null, why: string }}
 */
export function projectCapacity (strategy, measured, connections, slo, to) {
  if (slo.terms.some((t) => t.measure === 'loop p99')) {
    return { scale: null, here: null, there: null, why: 'its goal has a loop p99 term: the event loop\'s delay is not a rate the bounds scale' }
  }
  if (!measured.shape || measured.bound === null) return { scale: null, here: null, there: null, why: measured.why ?? 'no bound' }
  const shape = { ...measured.shape, ...connections > 0 && { inFlight: connections } }
  const here = strategyBound({ strategy, workMs: measured.workMs, httpMs: measured.httpMs, shape })
  if (here.bound === null) return { scale: null, here: null, there: null, why: here.why }
  const there = projectBound(strategy, { ...measured, shape, bound: here.bound }, to)
  if (there.bound === null) return { scale: null, here: here.bound, there: null, why: there.why }
  if (there.bound.kind !== here.bound.kind) {
    return { scale: null, here: here.bound, there: there.bound, why: `its bound moves from the ${here.bound.name} to the ${there.bound.name}: a capacity scales only under the same kind of bound` }
  }
  return { scale: there.bound.predictedRps / here.bound.predictedRps, here: here.bound, there: there.bound, why: null }
}
