// --runs auto's stopping rule (lib/analysis/sequential.js) by simulation: seeded lognormal req/s for a
// baseline and a configuration, looked at after every round from the third as the runner does, 1,000
// trials a case. The false-alarm rate must stay at or under the rule's nominal rate where looking at a
// plain 95% interval after every round does not (the same trials: the test can tell the two apart), a
// true 10% slowdown must be seen in most trials, and a clear 20% regression decided in fewer rounds than
// a fixed 10. Pure computation, seeded: the same figures on every run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sequentialDecision, lookAtExperiment, lookLevel, maxLooks, SEQUENTIAL_ALPHA, FIRST_LOOK_ROUND } from '../lib/analysis/sequential.js'
import { ratioInterval } from '../lib/analysis/stats.js'
import { gateDecision } from '../lib/analysis/gate.js'

const TRIALS = 1000
const MAX_RUNS = 10
const THRESHOLD = 0.05
/** A false "slower" (or "faster") is one side of the interval missing: alpha / 2 of the time at most. */
const NOMINAL_ONE_SIDED = SEQUENTIAL_ALPHA / 2

/**
 * A 32-bit seeded generator (mulberry32): uniform in [0, 1).
 * @param {number} seed
 */
function generator (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A standard normal draw (Box-Muller).
 * @param {() => number} uniform
 */
function normal (uniform) {
  const u = 1 - uniform()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform())
}

/**
 * How each way of deciding reads one look: the rule under test, or a plain 95% interval at every look
 * (the inflation the rule exists to prevent).
 * @typedef {(a: number[], b: number[], look: number, looks: number) => { decided: boolean, verdict: string }} Look
 */

/** @type {Look} */
const rule = (a, b, look, looks) => sequentialDecision(a, b, { look, looks, threshold: THRESHOLD })
/** @type {Look} */
const naive95 = (a, b) => {
  const { verdict } = gateDecision(ratioInterval(b, a), a.length, b.length, THRESHOLD)
  return { decided: ['slower', 'equivalent', 'faster'].includes(verdict), verdict }
}

/**
 * Trials of a baseline at 1000 req/s and a configuration at `ratio` times it, each run's req/s
 * lognormal with coefficient of variation `cv`, looked at after each round from the third until decided
 * or MAX_RUNS rounds (fixed: once, after MAX_RUNS rounds).
 * @param {{ ratio: number, cv: number, look?: Look, fixed?: boolean, seed?: number }} o
 * @returns {{ rate: (verdict: string) => number, meanRounds: number }}
 */
function simulate ({ ratio, cv, look = rule, fixed = false, seed = 35 }) {
  const uniform = generator(seed)
  const sigma = Math.sqrt(Math.log(1 + cv * cv))
  /** @type {Map<string, number>} */
  const counts = new Map()
  let rounds = 0
  for (let t = 0; t < TRIALS; t++) {
    const a = Array.from({ length: MAX_RUNS }, () => 1000 * Math.exp(sigma * normal(uniform)))
    const b = Array.from({ length: MAX_RUNS }, () => 1000 * ratio * Math.exp(sigma * normal(uniform)))
    let verdict = ''
    let round = fixed ? MAX_RUNS : FIRST_LOOK_ROUND
    for (; round <= MAX_RUNS; round++) {
      const d = look(a.slice(0, round), b.slice(0, round), fixed ? 1 : round - FIRST_LOOK_ROUND + 1, fixed ? 1 : maxLooks(MAX_RUNS))
      verdict = d.verdict
      if (d.decided) break
    }
    rounds += Math.min(round, MAX_RUNS)
    counts.set(verdict, (counts.get(verdict) ?? 0) + 1)
  }
  return { rate: (verdict) => (counts.get(verdict) ?? 0) / TRIALS, meanRounds: rounds / TRIALS }
}

/** @param {number} x */
const pct = (x) => `${(x * 100).toFixed(1)}%`

test('identical req/s: false "slower" at or under the nominal rate, at 5% and 10% noise', () => {
  for (const cv of [0.05, 0.1]) {
    const r = simulate({ ratio: 1, cv })
    assert.ok(r.rate('slower') <= NOMINAL_ONE_SIDED, `cv ${cv}: slower in ${pct(r.rate('slower'))} of trials`)
    // "faster" is as wrong when nothing changed: the other side of the same interval
    assert.ok(r.rate('faster') <= NOMINAL_ONE_SIDED, `cv ${cv}: faster in ${pct(r.rate('faster'))} of trials`)
    // and looking at the plain 95% interval every round raises it past the nominal rate, on the same trials
    const naive = simulate({ ratio: 1, cv, look: naive95 })
    assert.ok(naive.rate('faster') > NOMINAL_ONE_SIDED, `cv ${cv}: the plain 95% looks said faster in ${pct(naive.rate('faster'))} only`)
  }
})

test('a slowdown of exactly the threshold (the worst case for a false "slower"): at or under the nominal rate', () => {
  // 5% slower is not "slower beyond 5%": every "slower" here is a false alarm, and as likely as it can be
  for (const cv of [0.05, 0.1]) {
    const r = simulate({ ratio: 1 - THRESHOLD, cv })
    const naive = simulate({ ratio: 1 - THRESHOLD, cv, look: naive95 })
    assert.ok(r.rate('slower') <= NOMINAL_ONE_SIDED, `cv ${cv}: slower in ${pct(r.rate('slower'))} of trials`)
    assert.ok(naive.rate('slower') > NOMINAL_ONE_SIDED, `cv ${cv}: the plain 95% looks said slower in ${pct(naive.rate('slower'))} only`)
  }
})

test('a true 10% slowdown is seen in most trials (5% noise)', () => {
  const r = simulate({ ratio: 0.9, cv: 0.05 })
  // seen: the last interval lies below 1, beyond the threshold or not yet surely
  const seen = r.rate('slower') + r.rate('slower-within')
  assert.ok(seen > 0.5, `seen in ${pct(seen)} (slower beyond 5% in ${pct(r.rate('slower'))}), ${r.meanRounds.toFixed(2)} rounds on average`)
  assert.equal(r.rate('faster') + r.rate('equivalent'), 0, 'never said faster or equivalent')
})

test('a clear 20% regression is decided slower in fewer rounds than a fixed 10', () => {
  for (const cv of [0.05, 0.1]) {
    const r = simulate({ ratio: 0.8, cv })
    const fixed = simulate({ ratio: 0.8, cv, look: naive95, fixed: true })
    const message = `cv ${cv}: slower in ${pct(r.rate('slower'))} after ${r.meanRounds.toFixed(2)} rounds on average; a fixed 10 runs at 95%: slower in ${pct(fixed.rate('slower'))}`
    assert.ok(r.meanRounds < MAX_RUNS, message)
    // at 10% noise a few trials reach the maximum undecided (a fixed 10 at 95% decides 95%)
    assert.ok(r.rate('slower') > (cv === 0.05 ? 0.99 : 0.85), message)
  }
})

test('each look spends its share of alpha: the interval at the first look of one is the gate\'s 95% one', () => {
  const a = [1000, 1040, 980, 1010]
  const b = [900, 950, 920, 935]
  const one = sequentialDecision(a, b, { look: 1, looks: 1, threshold: THRESHOLD })
  const gate = ratioInterval(b, a)
  assert.equal(one.level, 0.95)
  assert.deepEqual([one.low, one.high], [gate.low, gate.high])
  // with 8 looks the same runs get a wider interval
  const eight = sequentialDecision(a, b, { look: 1, looks: 8, threshold: THRESHOLD })
  assert.equal(eight.level, lookLevel(1, 8))
  assert.ok(eight.low < one.low && eight.high > one.high)
  // half of alpha at the last look, the other half shared by the looks before; one look alone: 95%
  assert.equal(lookLevel(8, 8), 1 - SEQUENTIAL_ALPHA / 2)
  assert.equal(lookLevel(7, 8), 1 - SEQUENTIAL_ALPHA / 2 / 7)
  assert.equal(lookLevel(1, 1), 1 - SEQUENTIAL_ALPHA)
  // the levels of all the looks spend alpha and no more
  const looks = maxLooks(MAX_RUNS)
  const spent = Array.from({ length: looks }, (_, i) => 1 - lookLevel(i + 1, looks)).reduce((s, x) => s + x, 0)
  assert.ok(Math.abs(spent - SEQUENTIAL_ALPHA) < 1e-12, `alpha spent ${spent}`)
})

test('the Bonferroni widening decides: just past the bound at one look, short of it at eight', () => {
  // b's interval against a: its high end sits between the 95% interval's and the widened one's
  const a = [1000, 1010, 990]
  const b = [930, 935, 925]
  const plain = ratioInterval(b, a)
  const wide = sequentialDecision(a, b, { look: 1, looks: 8, threshold: THRESHOLD })
  // a threshold just above the 95% interval's high end: decided at one look only
  const threshold = 1 - (plain.high + wide.high) / 2
  assert.equal(sequentialDecision(a, b, { look: 1, looks: 1, threshold }).verdict, 'slower')
  const undecided = sequentialDecision(a, b, { look: 1, looks: 8, threshold })
  assert.equal(undecided.verdict, 'slower-within')
  assert.equal(undecided.decided, false)
})

test('the gate\'s bounds, each just either side, decide or not', () => {
  const a = [1000, 1000, 1000]
  // no spread: the interval is the ratio itself
  const at = (/** @type {number} */ ratio) => sequentialDecision(a, a.map((x) => x * ratio), { look: 1, looks: 8, threshold: THRESHOLD })
  assert.deepEqual([at(0.9499).verdict, at(0.9499).decided], ['slower', true])
  assert.deepEqual([at(0.9501).verdict, at(0.9501).decided], ['equivalent', true])
  assert.deepEqual([at(1.0499).verdict, at(1.0499).decided], ['equivalent', true])
  assert.deepEqual([at(1.0501).verdict, at(1.0501).decided], ['faster', true])
  // an interval that holds 1 and is wider than the threshold: no decision
  const spread = sequentialDecision(a, [800, 1000, 1250], { look: 1, looks: 8, threshold: THRESHOLD })
  assert.deepEqual([spread.verdict, spread.decided], ['no-change', false])
})

test('fewer than 3 runs a side, or a look past the planned ones, decide nothing', () => {
  const d = sequentialDecision([1000, 1001], [500, 501], { look: 1, looks: 8, threshold: THRESHOLD })
  assert.deepEqual([d.verdict, d.decided], ['too-few-runs', false])
  assert.equal(sequentialDecision([1000, 1001, 1002], [500, 501, 502], { look: 1, looks: 8, threshold: THRESHOLD }).verdict, 'slower')
  assert.throws(() => sequentialDecision([1], [1], { look: 9, looks: 8, threshold: THRESHOLD }), RangeError)
  assert.throws(() => sequentialDecision([1], [1], { look: 0, looks: 8, threshold: THRESHOLD }), RangeError)
  assert.doesNotThrow(() => sequentialDecision([1], [1], { look: 8, looks: 8, threshold: THRESHOLD }))
})

test('a look at an experiment: each comparison from its measured runs, decided when all are', () => {
  /** @param {string} label @param {number} rps @param {object} [extra] */
  const run = (label, rps, extra = {}) => ({ experiment: 'x', label, error: null, invalid: null, load: { requestsPerSecond: rps, aborted: false, failedRequests: 0, completeRequests: 10, statusCodes: { 200: 10 }, errors: {}, options: {} }, ...extra })
  const results = /** @type {any} */ ({
    experiments: [{ name: 'x', comparisons: { slow: 'base', same: 'base' } }],
    runs: [
      ...[1000, 1002, 998].map((v) => run('base', v)),
      ...[500, 501, 499].map((v) => run('slow', v)),
      ...[1000, 1002, 998].map((v) => run('same', v)),
      // an invalid run counts in no figure: without it "same" has 3 runs
      run('same', 5, { invalid: { reason: 'test' } })
    ]
  })
  const look = lookAtExperiment(results, 'x', { round: 3, maxRuns: MAX_RUNS, threshold: THRESHOLD })
  assert.deepEqual(look.decisions.map((d) => [d.label, d.baseline, d.verdict]), [['slow', 'base', 'slower'], ['same', 'base', 'equivalent']])
  assert.equal(look.decided, true)
  assert.equal(look.level, lookLevel(1, maxLooks(MAX_RUNS)))
  results.runs.push(run('same', 2000), run('same', 400))
  assert.equal(lookAtExperiment(results, 'x', { round: 4, maxRuns: MAX_RUNS, threshold: THRESHOLD }).decided, false)
})
