// The CI gate of `syncbench compare --fail-if-slower X`: a decision per configuration from the 95% CI
// of the throughput ratio b / a (stats.js ratioInterval: Welch's t-interval on log rates). Only an
// interval entirely below 1 - X fails: a slowdown that the runs show beyond the allowed one, not a
// mean that happened to land there. An interval entirely inside 1 ± X is "equivalent" (the interval
// form of an equivalence test, conservative: TOST at 5% would use the 90% interval). The words are
// lib/report/compare-gate.js's; the exit code is lib/cli/compare.js's.
//
// Capacities (run --capacity) go through the same rule, their found capacities in place of the runs'
// req/s, with one verdict more: a configuration whose goal b meets at no rate, where a met it at some,
// fails whatever the interval (there is no ratio to a rate that does not exist).
import { MIN_RUNS_FOR_INTERVAL } from './stats.js'

/**
 * - `slower`: the whole interval is below 1 - X (the only verdict that fails the gate)
 * - `slower-within`: below 1, but reaching above 1 - X: slower, not surely beyond the threshold
 * - `equivalent`: the whole interval is inside 1 ± X
 * - `no-change`: the interval holds 1 (and is wider than ± X)
 * - `faster`: the whole interval is above 1
 * - `too-few-runs`: a side has fewer than MIN_RUNS_FOR_INTERVAL runs: no interval, no decision
 * - `no-interval`: enough runs, but a rate of 0 leaves the log-scale interval undefined
 * - `none-found`: capacities only: a search of b found no rate that meets the goal, where a found one (fails)
 * @typedef {'slower'|'slower-within'|'equivalent'|'no-change'|'faster'|'too-few-runs'|'no-interval'|'none-found'} GateVerdict
 */

/**
 * @typedef {object} GateDecision
 * @property {GateVerdict} verdict
 * @property {boolean} fails   verdict === 'slower' or 'none-found'
 */

/**
 * @param {{ low: number, high: number }} ratio  the 95% CI of b / a
 * @param {number} nA  measured runs of a
 * @param {number} nB  measured runs of b
 * @param {number} threshold  the allowed slowdown as a fraction (0.05 for 5%), 0 < threshold < 1
 * @returns {GateDecision}
 */
export function gateDecision (ratio, nA, nB, threshold) {
  /** @param {GateVerdict} verdict */
  const d = (verdict) => ({ verdict, fails: verdict === 'slower' })
  if (nA < MIN_RUNS_FOR_INTERVAL || nB < MIN_RUNS_FOR_INTERVAL) return d('too-few-runs')
  const { low, high } = ratio
  if (!(Number.isFinite(low) && Number.isFinite(high))) return d('no-interval')
  if (high < 1 - threshold) return d('slower')
  if (low >= 1 - threshold && high <= 1 + threshold) return d('equivalent')
  if (high < 1) return d('slower-within')
  if (low > 1) return d('faster')
  return d('no-change')
}

/**
 * @typedef {object} GateResult
 * @property {number} threshold          the allowed slowdown as a fraction
 * @property {GateDecision[]} decisions  one per compared configuration, in the rows' order
 * @property {number[]} slower           indexes of the rows that fail the gate
 * @property {number[]} undecided        indexes of the rows without an interval (too few runs, a rate of 0)
 * @property {boolean} failed            some row fails
 */

/**
 * The gate over every configuration compareResults compared.
 * @param {ReturnType<typeof import('./summarize.js').compareResults>} rows
 * @param {number} threshold
 * @returns {GateResult}
 */
export function evaluateGate (rows, threshold) {
  return gateOver(rows.map((r) => gateDecision(r.ratio, r.a.n, r.b.n, threshold)), threshold)
}

/**
 * The gate over every configuration's capacity (lib/analysis/capacity.js compareCapacities): the
 * rule of gateDecision on the found capacities, and 'none-found' where b meets the goal at no rate.
 * @param {import('./capacity.js').CapacityComparison[]} rows
 * @param {number} threshold
 * @returns {GateResult}
 */
export function evaluateCapacityGate (rows, threshold) {
  /** @type {GateDecision} */
  const none = { verdict: 'none-found', fails: true }
  return gateOver(rows.map((r) => r.noneFound ? none : gateDecision(r.ratio, r.a.n, r.b.n, threshold)), threshold)
}

/**
 * @param {GateDecision[]} decisions
 * @param {number} threshold
 * @returns {GateResult}
 */
function gateOver (decisions, threshold) {
  const where = (/** @type {(d: GateDecision) => boolean} */ f) => decisions.flatMap((d, i) => f(d) ? [i] : [])
  const slower = where((d) => d.fails)
  const undecided = where((d) => d.verdict === 'too-few-runs' || d.verdict === 'no-interval')
  return { threshold, decisions, slower, undecided, failed: slower.length > 0 }
}
