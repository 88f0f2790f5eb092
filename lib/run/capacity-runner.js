// `syncbench run --capacity --slo EXPR`: each configuration's highest open-loop rate that meets the goal,
// found by lib/analysis/capacity.js's search, each of its steps a run of this module's making.
//
// Per configuration and repeat, the runner first runs the configuration closed-loop as it always does,
// its load cut at CLOSED_LOOP_SECONDS (runs[]: the req/s the tables show beside the capacity). The
// search starts from START_SHARE of that req/s: a rate the server holds unless its latency at that rate
// already misses the goal, when the search descends instead.
//
// A step is a run of its own: a fresh server (the configuration's, started as for any run and warmed by
// the same few requests), the rate offered open loop for `stepSeconds`, corrected latency counted from
// each request's intended send time. A fresh server per step, because a step that failed leaves a
// backlog of accepted connections, queued work and a grown heap that would count against the next,
// lower rate; its cost is one server start per step (about 0.3 s for the lab, the app's own start for
// --app). The step then waits for the answers still due, at most the goal's largest latency bound plus
// a tenth of a second (ANSWER_WAIT_MS): every request still unanswered then has waited longer than any bound, so
// it counts as slower than all of them, and its step's percentiles are lower bounds where it reaches
// them. A saturated step therefore ends a bounded time after its schedule, not after its backlog drains.
//
// When the first step fails, the search halves the rate down to an eighth of it (MIN_RATE_SHARE) before
// it says no rate meets the goal.
//
// The step has enough connections for its rate at the goal's latency (rate x the largest bound), and at
// least the configuration's -c: an open loop short of connections sends late, which would read as the
// server's backlog. The probe does not run in steps: it is load the step did not offer.
import { searchCapacity, backlogRise, BACKLOG_MIN_SECONDS, DEFAULT_GROWTH, DEFAULT_TOLERANCE } from '../analysis/capacity.js'
import { latencyBounds, sloText } from '../analysis/slo.js'
import { decodeHistogram } from '../load/histogram.js'

/** The closed-loop run before each search is cut at this many seconds. */
export const CLOSED_LOOP_SECONDS = 3
/** The first step offers this share of the closed loop's req/s. */
export const START_SHARE = 0.5
/** A search descends at most to this share of its start (three halvings): a goal that an eighth of the
 * start misses is beyond the server's latency with next to no load. */
export const MIN_RATE_SHARE = 1 / 8
/** --step's default: seconds each step offers its rate. */
export const DEFAULT_STEP_SECONDS = 4
/** --step's least: the backlog rule reads at least this many whole seconds. */
export const MIN_STEP_SECONDS = BACKLOG_MIN_SECONDS
/** --budget's default: this many seconds per search (configuration and repeat). */
export const DEFAULT_SECONDS_PER_SEARCH = 90
/** After its schedule, a step waits for answers at most the goal's largest latency bound plus this, ms:
 * a request unanswered then has waited longer than the bound, which a strict bound fails. */
export const ANSWER_WAIT_MS = 100
/** The wait when the goal names no latency (loop p99 and errors only), ms. */
const NO_LATENCY_BOUND_MS = 1000
/** A step's connections are at most this many. */
export const MAX_STEP_CONNECTIONS = 1000

/** The latency measures a goal may name, with the quantile of each. */
const QUANTILES = /** @type {const} */ ([['p50Ms', 50], ['p90Ms', 90], ['p99Ms', 99], ['p999Ms', 99.9]])

/**
 * @typedef {object} CapacitySettings
 * @property {import('../types.js').Slo} slo
 * @property {number} stepSeconds
 * @property {number} budgetMs        every search's time together
 */

/**
 * The results.json `capacity` a set of settings starts with (its searches added as they end).
 * @param {CapacitySettings} settings
 * @returns {import('../types.js').CapacityRuns}
 */
export function capacityRuns ({ slo, stepSeconds, budgetMs }) {
  return {
    goal: sloText(slo),
    slo,
    stepSeconds,
    closedLoopSeconds: CLOSED_LOOP_SECONDS,
    budgetMs,
    tolerance: DEFAULT_TOLERANCE,
    growth: DEFAULT_GROWTH,
    startShare: START_SHARE,
    searches: []
  }
}

/**
 * A configuration's closed-loop run before its search: the experiment's load, cut at CLOSED_LOOP_SECONDS.
 * @param {import('./plan.js').Configuration} configuration
 * @returns {import('./plan.js').Configuration}
 */
export function closedLoopConfiguration (configuration) {
  return { ...configuration, load: { ...configuration.load, timelimit: CLOSED_LOOP_SECONDS } }
}

/**
 * The longest a step waits for its answers after its schedule: the goal's largest latency bound plus
 * ANSWER_WAIT_MS.
 * @param {import('../types.js').Slo} slo
 */
export function answerWaitMs (slo) {
  const bounds = latencyBounds(slo)
  return (bounds.length > 0 ? Math.max(...bounds) : NO_LATENCY_BOUND_MS) + ANSWER_WAIT_MS
}

/**
 * One step's configuration: the rate open loop for `stepSeconds`, then the answer wait.
 * @param {import('./plan.js').Configuration} configuration
 * @param {number} rate
 * @param {{ stepSeconds: number, waitMs: number }} step
 * @returns {import('./plan.js').Configuration}
 */
export function stepConfiguration (configuration, rate, { stepSeconds, waitMs }) {
  const requests = Math.max(1, Math.ceil(rate * stepSeconds))
  // Little's law at the goal: requests in flight = rate x the time each may take
  const needed = Math.ceil(rate * waitMs / 1000)
  const concurrency = Math.min(requests, Math.max(configuration.load.concurrency, Math.min(MAX_STEP_CONNECTIONS, needed)))
  const timelimit = stepSeconds + waitMs / 1000
  return {
    ...configuration,
    load: { ...configuration.load, rate, requests, concurrency, timelimit },
    config: { ...configuration.config, rate, requests, concurrency }
  }
}

/**
 * What a step's run measured, as the search judges it (types.js StepFigures). Percentiles are read
 * over every request the step offered: those still unanswered when it ended rank above every answered
 * one, at the wait they have at least waited.
 * @param {import('../types.js').RunRecord} record
 * @param {{ stepSeconds: number, waitMs: number }} step
 * @returns {import('../types.js').StepFigures}
 */
export function stepFigures (record, { stepSeconds, waitMs }) {
  const load = /** @type {import('../types.js').LoadResult} */ (record.load)
  const scheduled = load.options?.requests ?? load.completeRequests
  const completed = load.completeRequests
  const histogram = load.latencyHistogram ? decodeHistogram(load.latencyHistogram) : null
  /** @param {number} q */
  const quantile = (q) => {
    const rank = Math.ceil(q / 100 * scheduled)
    if (rank > completed) return waitMs
    if (histogram === null || completed === 0) return null
    // the rank-th answered request: hdr's percentile over the answered ones
    return histogram.getValueAtPercentile(rank / completed * 100) / 1000
  }
  const errors = load.failedRequests + (load.non2xxResponses ?? 0)
  const seconds = Math.floor(stepSeconds)
  const series = load.series
  const late = (series?.late ?? []).slice(0, seconds)
  const sent = (series?.sent ?? []).slice(0, seconds)
  // each second's p50, over the seconds that had answers: at saturation the line rises through the wait too
  const p50s = series ? series.p50Ms.filter((p, i) => series.requests[i] > 0 && p !== null) : []
  const figures = Object.fromEntries(QUANTILES.map(([key, q]) => [key, round(quantile(q))]))
  return {
    achievedRate: round(load.openLoop?.achievedRate ?? completed / stepSeconds) ?? 0,
    p50Ms: figures.p50Ms,
    p90Ms: figures.p90Ms,
    p99Ms: figures.p99Ms,
    p999Ms: figures.p999Ms,
    loopP99Ms: record.server?.eventLoopDelay?.p99 ?? null,
    errorRate: scheduled > 0 ? Math.min(1, errors / scheduled) : 0,
    late,
    ...sent.length === seconds && seconds > 0 && { sentRate: round(sent.reduce((a, b) => a + b, 0) / seconds) ?? 0 },
    ...p50s.length >= BACKLOG_MIN_SECONDS && { latencyRiseMs: round(backlogRise(/** @type {number[]} */ (p50s))) ?? 0 },
    scheduled,
    completed
  }
}

/** @param {number|null} x @returns {number|null} three decimals */
function round (x) {
  return x === null ? null : Math.round(x * 1000) / 1000
}

/**
 * Search one configuration's capacity, its steps run by `runStep`.
 * @param {object} o
 * @param {import('./plan.js').Configuration} o.configuration
 * @param {import('../types.js').RunRecord} o.closedLoop  the configuration's closed-loop run, just ended
 * @param {CapacitySettings} o.settings
 * @param {number} o.budgetMs  this search's share of the budget
 * @param {(configuration: import('./plan.js').Configuration) => Promise<import('../types.js').RunRecord>} o.runStep
 * @param {(step: import('../types.js').CapacityStep) => void} [o.onStep]
 * @param {AbortSignal} [o.signal]  Ctrl-C: the search ends after the running step, its steps kept
 * @returns {Promise<import('../types.js').CapacityRecord>}
 */
export async function searchConfiguration ({ configuration, closedLoop, settings, budgetMs, runStep, onStep, signal }) {
  const closedLoopRps = closedLoop.load && !closedLoop.error && !closedLoop.invalid ? closedLoop.load.requestsPerSecond : null
  /** @type {import('../types.js').CapacityRecord} */
  const record = {
    id: closedLoop.id,
    experiment: closedLoop.experiment,
    label: closedLoop.label,
    config: configuration.config,
    repeat: closedLoop.repeat,
    ...closedLoop.node && { node: closedLoop.node },
    startedAt: new Date().toISOString(),
    connections: configuration.load.concurrency,
    closedLoopRps,
    startRate: null,
    search: null,
    error: null
  }
  if (closedLoopRps === null || !(closedLoopRps > 0)) {
    const why = closedLoop.error?.message ?? closedLoop.invalid?.reason ?? 'it answered no request'
    record.error = { code: closedLoop.error?.code ?? 'ERR_CAPACITY_START', message: `no search: the closed-loop run it starts from failed: ${why}` }
    return record
  }
  const startRate = Number((closedLoopRps * START_SHARE).toPrecision(4))
  record.startRate = startRate
  const step = { stepSeconds: settings.stepSeconds, waitMs: answerWaitMs(settings.slo) }
  /** @type {import('../types.js').CapacityStep[]} */
  const steps = []
  const started = Date.now()
  const measure = async (/** @type {number} */ rate) => {
    if (signal?.aborted) throw new StepInterrupted()
    const run = await runStep(stepConfiguration(configuration, rate, step))
    if (signal?.aborted) throw new StepInterrupted()
    const failure = run.error ?? (run.load === null ? { code: 'ERR_CAPACITY_STEP', message: run.invalid?.reason ?? 'nothing measured' } : null)
    if (failure) throw new StepFailed(rate, failure)
    return stepFigures(run, step)
  }
  try {
    record.search = await searchCapacity({
      measure,
      slo: settings.slo,
      startRate,
      minRate: startRate * MIN_RATE_SHARE,
      budgetMs,
      onStep: (s) => { steps.push(s); onStep?.(s) }
    })
  } catch (err) {
    if (!(err instanceof StepFailed) && !(err instanceof StepInterrupted)) throw err
    // what the steps so far show: the highest pass below the lowest failure
    const passes = steps.filter((s) => s.verdict === 'pass').map((s) => s.rate)
    const fails = steps.filter((s) => s.verdict === 'fail').map((s) => s.rate)
    record.search = {
      capacity: passes.length > 0 ? Math.max(...passes) : null,
      lastFail: fails.length > 0 ? Math.min(...fails) : null,
      reason: 'error',
      tolerance: DEFAULT_TOLERANCE,
      elapsedMs: Date.now() - started,
      steps
    }
    record.error = err instanceof StepFailed
      ? { code: err.failure.code, message: `the step at ${err.rate} req/s could not run: ${err.failure.message}` }
      : { code: 'ERR_INTERRUPTED', message: 'interrupted' }
  }
  return record
}

/** A step whose run failed (its server did not start, crashed, its port was taken). */
class StepFailed extends Error {
  /** @param {number} rate @param {{ code: string, message: string }} failure */
  constructor (rate, failure) {
    super(failure.message)
    this.rate = rate
    this.failure = failure
  }
}

/** Ctrl-C during a search. */
class StepInterrupted extends Error {}

/**
 * Why a capacity run answers less than it was asked (syncbench run exits 1 with it on stderr): each
 * search that found no rate meeting the goal, with the lowest rate it tried and why that failed, and each
 * that could not run. Null when every search found its capacity (or stopped at a bound it names: the
 * generator, the budget).
 * @param {import('../types.js').ResultsFile} results
 * @returns {string|null}
 */
export function capacityFailure (results) {
  const capacity = results.capacity
  if (!capacity) return null
  const lines = capacity.searches.flatMap((s) => {
    const name = `${s.experiment} ${s.label}${s.node ? ` (node ${s.node.name})` : ''} #${s.repeat}`
    if (s.error) return [`${name}: ${s.error.message}`]
    if (s.search?.reason !== 'no-rate-meets') return []
    const lowest = s.search.steps.reduce((a, b) => (b.rate < a.rate ? b : a))
    return [`no rate met ${capacity.goal} for ${name}: the lowest tried, ${lowest.rate} req/s, failed with ${lowest.why.join('; ')}`]
  })
  return lines.length > 0 ? lines.join('\n') : null
}
