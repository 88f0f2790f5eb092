// The stopping rule of `syncbench run --runs auto`: after each round of interleaved runs, from the
// third on (the fewest runs a side an interval needs), every compared pair's throughput ratio gets an
// interval, read with the CI gate's verdicts (lib/analysis/gate.js) against its threshold; the runs stop
// once every pair is decided (slower beyond the threshold, equivalent within it, or faster), else at
// the most rounds allowed.
//
// Stopping at the first 95% interval that decides would not keep the gate's error rate: every look is
// one more chance for the noise to carry an interval across a bound, and the chances add up (simulated:
// a false "slower" 6% of the time where one look allows 2.5%). So the looks share the error rate alpha
// instead: look k of at most K (one a round from the third: K = maxRuns - 2) uses the interval at level
// 1 - alpha_k, the alpha_k adding up to alpha. By Bonferroni's inequality the probability that any of the
// K intervals misses the true ratio is at most that sum, however the looks are correlated, so whichever
// look the runs stop at, its interval holds the true ratio with probability 1 - alpha at least. A
// verdict is wrong only when its interval misses on one side: a false "slower" (the true ratio at or
// above 1 - threshold) and a false "faster" (at or below 1) each happen at most alpha / 2 of the time.
//
// The split: half of alpha to the last look, the other half evenly over the earlier ones. An even split
// over all the looks would make the last one as wide as the first (99.4% with 8 looks), deciding less
// often at the maximum than a fixed --runs 10 does; with half of alpha the last look's interval is the
// 97.5% one, near the fixed design's, while the early looks (99.6%) still stop on a clear difference.
// Group-sequential boundaries (Pocock's, O'Brien and Fleming's) spend alpha more tightly still, but their
// constants assume a known variance; with 3 to 10 runs a side the t distribution's own width outweighs
// what they save, and Bonferroni's bound needs no assumption beyond each interval's own.
import { ratioInterval, MIN_RUNS_FOR_INTERVAL } from './stats.js'
import { gateDecision } from './gate.js'
import { isMeasured } from './summarize.js'

/** The error rate spent over all the looks at one comparison: the gate's 95% intervals' 5%. */
export const SEQUENTIAL_ALPHA = 0.05
/** --max-runs without a value: the rounds --runs auto may take. */
export const DEFAULT_MAX_RUNS = 10
/** --threshold without a value: the slowdown --runs auto decides against, the gate's usual 5%. */
export const DEFAULT_THRESHOLD = 0.05
/** The first round looked at: the fewest runs a side an interval needs. */
export const FIRST_LOOK_ROUND = MIN_RUNS_FOR_INTERVAL

/** The gate's verdicts that end the runs: the others (slower-within, no-change, too few runs) need more. */
const DECIDED = new Set(['slower', 'equivalent', 'faster'])

/**
 * The most looks a maximum of rounds allows: one a round, from FIRST_LOOK_ROUND to maxRuns.
 * @param {number} maxRuns  at least FIRST_LOOK_ROUND
 */
export function maxLooks (maxRuns) {
  return maxRuns - FIRST_LOOK_ROUND + 1
}

/**
 * The confidence level of a look's interval: 1 - alpha_k, half of alpha at the last look and the other
 * half split evenly over the ones before (one look alone: the gate's 95%). The levels' misses add up
 * to alpha, which is what Bonferroni's bound needs.
 * @param {number} look  1 to looks
 * @param {number} looks
 * @param {number} [alpha]
 */
export function lookLevel (look, looks, alpha = SEQUENTIAL_ALPHA) {
  if (looks === 1) return 1 - alpha
  return 1 - (look === looks ? alpha / 2 : alpha / 2 / (looks - 1))
}

/**
 * @typedef {object} SequentialDecision
 * @property {boolean} decided   verdict is slower, equivalent or faster
 * @property {import('./gate.js').GateVerdict} verdict  the gate's verdict on this look's interval
 * @property {number} ratio      b / a of the geometric means (NaN when a side has no positive rate)
 * @property {number} low        the look's interval (NaN when a side has fewer than 3 runs)
 * @property {number} high
 * @property {number} level      its confidence level (lookLevel)
 */

/**
 * One look at one compared pair: the interval of b / a at this look's level and the gate's verdict on it.
 * @param {number[]} a  the baseline's req/s so far, one a measured run
 * @param {number[]} b  the compared configuration's
 * @param {{ look: number, looks: number, threshold: number, alpha?: number }} at  look: 1 for the
 *   first round looked at; looks: the most there will be (maxLooks); threshold: the allowed slowdown as a
 *   fraction, 0 < threshold < 1
 * @returns {SequentialDecision}
 */
export function sequentialDecision (a, b, { look, looks, threshold, alpha = SEQUENTIAL_ALPHA }) {
  // a look past the planned ones would spend error rate the split never set aside
  if (!(Number.isInteger(looks) && looks >= 1 && Number.isInteger(look) && look >= 1 && look <= looks)) {
    throw new RangeError(`look must be an integer from 1 to looks (${looks}), got ${look}`)
  }
  const level = lookLevel(look, looks, alpha)
  const interval = ratioInterval(b, a, level)
  const { verdict } = gateDecision(interval, a.length, b.length, threshold)
  return { decided: DECIDED.has(verdict), verdict, ratio: interval.ratio, low: interval.low, high: interval.high, level }
}

/**
 * @typedef {SequentialDecision & { label: string, baseline: string }} PairDecision
 */

/**
 * A look at an experiment's measured runs after a round: each comparison (results.experiments[].comparisons,
 * label -> its baseline) decided or not. An experiment that compares nothing is decided at once.
 * @param {import('../types.js').ResultsFile} results  the runs so far
 * @param {string} experiment
 * @param {{ round: number, maxRuns: number, threshold: number }} at  round: the rounds run, FIRST_LOOK_ROUND to maxRuns
 * @returns {{ decided: boolean, level: number, decisions: PairDecision[] }}  level: this look's intervals'
 */
export function lookAtExperiment (results, experiment, { round, maxRuns, threshold }) {
  const record = results.experiments.find((e) => e.name === experiment)
  if (!record) throw new RangeError(`no experiment ${experiment} in the results`)
  const runs = results.runs.filter((r) => r.experiment === experiment && isMeasured(r))
  const rps = (/** @type {string} */ label) => runs.flatMap((r) => r.label === label && r.load ? [r.load.requestsPerSecond] : [])
  const at = { look: round - FIRST_LOOK_ROUND + 1, looks: maxLooks(maxRuns), threshold }
  const decisions = Object.entries(record.comparisons).map(([label, baseline]) => ({ label, baseline, ...sequentialDecision(rps(baseline), rps(label), at) }))
  return { decided: decisions.every((d) => d.decided), level: lookLevel(at.look, at.looks), decisions }
}
