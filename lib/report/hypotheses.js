// The claims the built-in sweeps test (lib/run/experiments.js's descriptions), judged on the machine at
// hand: whether each held here and why, as the seed articles' claims are (lib/report/articles.js). A
// claim true on 2 cores can be false on 16: the sentence says which constraint decided it here.
import { formatNumber } from '../format.js'
import { formatP } from './phrases.js'
import { DEFAULT_POOL } from '../analysis/bounds.js'
import { strategyStyles } from '../lab/strategies.js'

/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../analysis/summarize.js').Row} Row */

/** A ratio within this of 1 is "no gain" (with p >= 0.05, or on its own without repeats). */
const SAME = 0.15

/** @type {Record<string, (s: ExperimentSummary) => string>} */
const CLAIMS = {
  'threadpool-sweep': threadpoolClaim,
  'delay-sweep': delayClaim,
  'concurrency-sweep': concurrencyClaim,
  strategies: strategiesClaim
}

/**
 * Whether a built-in sweep's claim held on this machine, and why; '' for other experiments or when
 * the rows it needs were not measured.
 * @param {ExperimentSummary} s
 * @returns {string}
 */
export function hypothesisVerdict (s) {
  return Object.hasOwn(CLAIMS, s.name) && !s.target ? CLAIMS[s.name](s) : ''
}

/** @param {Row} r */
const rpsOf = (r) => r.figures.requestsPerSecond.mean

/** @param {Row} r @param {string} key */
const configNumber = (r, key) => Number(r.runs[0]?.config?.[key])

/**
 * The usable cores the experiment ran on: its calibration's, else its runs' environment's.
 * @param {ExperimentSummary} s
 * @returns {number|null}
 */
function coresOf (s) {
  if (s.calibration) return s.calibration.usableCores
  const env = s.rows.flatMap((r) => r.runs).find((r) => r.serverEnv)?.serverEnv
  return env?.cpuCount ?? null
}

/**
 * "cores, not the pool, set the ceiling": a pool beyond the cores adds nothing, and the default pool
 * is not below them (else the pool binds the default configuration).
 * @param {ExperimentSummary} s
 */
function threadpoolClaim (s) {
  const cores = coresOf(s)
  const rows = s.rows.filter((r) => r.runs.length > 0 && configNumber(r, 'threadpoolSize') > 0)
    .sort((a, b) => configNumber(a, 'threadpoolSize') - configNumber(b, 'threadpoolSize'))
  if (cores === null || rows.length < 2) return ''
  const pool = (/** @type {Row} */ r) => configNumber(r, 'threadpoolSize')
  const atCores = rows.find((r) => pool(r) >= cores)
  const largest = rows[rows.length - 1]
  const smallest = rows[0]
  const claim = 'claim "cores, not the pool, set the ceiling"'
  if (!atCores) {
    return `${claim} not tested here: every pool is below the ${cores} cores, and ${largest.label} served ${ratio(largest, smallest)} ${smallest.label}, so the pool set it`
  }
  const plateau = rpsOf(largest) / rpsOf(atCores) < 1 + SAME
  const below = rows.filter((r) => pool(r) < cores)
  const growth = below.length ? `; below ${cores} cores the pool sets it (${atCores.label} ${ratio(atCores, smallest)} ${smallest.label})` : ''
  if (!plateau) return `${claim} did not hold here: beyond ${cores} cores a larger pool still gained (${largest.label} ${ratio(largest, atCores)} ${atCores.label})${growth}`
  const beyond = largest === atCores ? '' : `beyond ${cores} cores a larger pool adds nothing (${largest.label} ${ratio(largest, atCores)} ${atCores.label})`
  if (DEFAULT_POOL >= cores) return `${claim} held here: ${beyond || `the ${cores} cores bind ${atCores.label}`}${growth}`
  return `${claim} held only beyond the cores here: ${beyond || `the ${cores} cores bind ${atCores.label}`}${growth}, so with the default pool of ${DEFAULT_POOL} on ${cores} cores the pool, not the cores, sets the ceiling: raise UV_THREADPOOL_SIZE to ${cores}`
}

/**
 * Seed 002's note: "no difference from 1 to 5 ms, at 10 ms we lose 2 req/s", each delay against 0.
 * @param {ExperimentSummary} s
 */
function delayClaim (s) {
  const rows = s.rows.filter((r) => r.runs.length > 0 && r.comparison !== null && Number.isFinite(configNumber(r, 'delay')))
  const small = rows.filter((r) => configNumber(r, 'delay') >= 1 && configNumber(r, 'delay') <= 5)
  const ten = rows.find((r) => configNumber(r, 'delay') === 10)
  if (small.length === 0 && !ten) return ''
  const differs = (/** @type {Row} */ r) => differsFrom(r)
  const parts = []
  if (small.length) {
    const moved = small.filter(differs)
    parts.push(moved.length === 0
      ? `"no difference from 1 to 5 ms" held here (${range(small)} of 0 ms)`
      : `"no difference from 1 to 5 ms" did not hold here: ${moved.map((r) => `${r.label} ${cmp(r)}`).join(', ')}`)
  }
  if (ten) {
    const c = /** @type {NonNullable<Row['comparison']>} */ (ten.comparison)
    const lost = rpsOf(ten) - rpsOf(ten) / c.ratio
    parts.push(differs(ten) && c.ratio < 1
      ? `"at 10 ms we lose" held here (${formatNumber(-lost)} req/s lost, ${cmp(ten)})`
      : `"at 10 ms we lose" did not hold here (${cmp(ten)})`)
  }
  const main = rows.filter((r) => r.bound?.bound?.kind === 'main')
  const why = main.length === rows.length && rows.length > 0
    ? ': every delay still runs the read on the main thread, which bounds them all; a delay only costs where the loop runs out of queued requests and waits for the timer'
    : ''
  return `seed 002's note: ${parts.join(', ')}${why}`
}

/**
 * "async gains only with requests in flight to overlap": at c = 1 async is no faster than sync, and
 * with more in flight it gains, up to min(pool, cores).
 * @param {ExperimentSummary} s
 */
function concurrencyClaim (s) {
  const cores = coresOf(s)
  const async = s.rows.filter((r) => r.runs.length > 0 && r.runs[0].config?.strategy === 'async' && r.comparison !== null)
  const one = async.find((r) => configNumber(r, 'concurrency') === 1)
  const more = async.filter((r) => configNumber(r, 'concurrency') > 1)
  if (!one || more.length === 0 || cores === null) return ''
  const best = more.reduce((a, b) => (/** @type {NonNullable<Row['comparison']>} */ (b.comparison).ratio > /** @type {NonNullable<Row['comparison']>} */ (a.comparison).ratio ? b : a))
  const noGainAtOne = !(differsFrom(one) && /** @type {NonNullable<Row['comparison']>} */ (one.comparison).ratio > 1)
  const gains = differsFrom(best) && /** @type {NonNullable<Row['comparison']>} */ (best.comparison).ratio > 1
  const pool = best.bound?.shape?.pool ?? DEFAULT_POOL
  const lanes = Math.min(pool, cores)
  const why = `one request in flight is one hash at a time whatever the strategy; with more, async runs min(${pool} pool threads, ${cores} cores) = ${lanes} at once`
  const claim = 'claim "async gains only with requests in flight to overlap"'
  if (noGainAtOne && gains) return `${claim} held here: ${one.label} ${cmp(one)}, ${best.label} ${cmp(best)}: ${why}`
  if (lanes < 2) return `${claim} not testable here: ${why}, so async cannot gain at any concurrency`
  return `${claim} did not hold here: ${one.label} ${cmp(one)}, ${best.label} ${cmp(best)} (${why}; a busy machine starves the pool threads: run again, with more --runs)`
}

/**
 * Whether a row's req/s differs from its baseline's: p < 0.05 where there are repeats, else a ratio
 * beyond SAME.
 * @param {Row} r
 */
function differsFrom (r) {
  const c = r.comparison
  if (!c) return false
  return c.test.p >= 0 ? c.test.p < 0.05 : Math.abs(c.ratio - 1) >= SAME
}

/** "1.02x delay=0, p = 0.41" @param {Row} r */
function cmp (r) {
  const c = /** @type {NonNullable<Row['comparison']>} */ (r.comparison)
  return `${c.ratio.toFixed(2)}x ${c.baseline}, ${formatP(c.test)}`
}

/** "0.98x..1.03x" over rows' ratios @param {Row[]} rows */
function range (rows) {
  const ratios = rows.map((r) => /** @type {NonNullable<Row['comparison']>} */ (r.comparison).ratio)
  const [lo, hi] = [Math.min(...ratios), Math.max(...ratios)]
  return lo === hi ? `${lo.toFixed(2)}x` : `${lo.toFixed(2)}x..${hi.toFixed(2)}x`
}

/** "12.0x" @param {Row} a @param {Row} b */
function ratio (a, b) {
  return `${(rpsOf(a) / rpsOf(b)).toFixed(2)}x`
}

/**
 * "sync blocks, async does not", for every way out: per workload, the event loop's p99 delay under
 * every strategy that runs the work on the loop above its p99 under every one that does not.
 * @param {ExperimentSummary} s
 */
function strategiesClaim (s) {
  const rows = s.rows.filter((r) => r.runs.length > 0 && r.server !== null && strategyStyles.has(String(r.runs[0].config?.strategy)))
  /** @type {Map<string, { on: Row[], off: Row[] }>} */
  const byWorkload = new Map()
  for (const r of rows) {
    const workload = String(r.runs[0].config?.workload ?? '')
    const group = byWorkload.get(workload) ?? { on: [], off: [] }
    const onLoop = strategyStyles.get(String(r.runs[0].config?.strategy))?.onEventLoop === true
    group[onLoop ? 'on' : 'off'].push(r)
    byWorkload.set(workload, group)
  }
  const p99 = (/** @type {Row} */ r) => /** @type {NonNullable<Row['server']>} */ (r.server).loopP99
  const parts = []
  let held = true
  for (const [workload, { on, off }] of byWorkload) {
    if (on.length === 0 || off.length === 0) continue
    const leastOn = on.reduce((a, b) => (p99(b) < p99(a) ? b : a))
    const mostOff = off.reduce((a, b) => (p99(b) > p99(a) ? b : a))
    const separated = p99(leastOn) > p99(mostOff)
    held &&= separated
    parts.push(`${workload}: loop p99 ${separated ? 'at least' : 'down to'} ${formatNumber(p99(leastOn))} ms on the loop (${leastOn.label}), ${separated ? 'at most' : 'up to'} ${formatNumber(p99(mostOff))} ms off it (${mostOff.label})`)
  }
  if (parts.length === 0) return ''
  return `claim "sync blocks, async does not" ${held ? 'held' : 'did not hold'} here for every way out: ${parts.join('; ')}`
}
