// thread-cost's verdict says the threads serve fewer (or more) requests a second only when the Welch
// test says the difference is there; otherwise it says it found none, with the p-value.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { threadCostVerdict } from '../lib/report/kinds/thread-cost.js'

/**
 * An experiment summary with the event loop and a pool of 20, as summarize.js makes it.
 * @param {number} poolRps @param {number} p the Welch p of the pool against the event loop
 */
function summary (poolRps, p) {
  const metrics = (rss, threads) => ({ memory: { peakRssBytes: rss * 1048576 }, contextSwitches: { voluntaryPerRequest: 1, involuntaryPerRequest: 0.5 }, threads })
  const row = (label, poolSize, rps, rss, threads, comparison) => ({
    label,
    runs: [{ config: poolSize === null ? {} : { poolSize }, server: metrics(rss, threads) }],
    figures: { requestsPerSecond: { mean: rps } },
    server: { threads },
    comparison
  })
  return /** @type {any} */ ({
    name: 'thread-cost',
    baseline: 'async',
    rows: [
      row('worker pool=20', 20, poolRps, 280, 32, { baseline: 'async', ratio: poolRps / 1680, test: { t: 1, df: 2, p, stars: p < 0.001 ? '***' : p < 0.01 ? '**' : p < 0.05 ? '*' : '' } }),
      row('async', null, 1680, 73, 12, null)
    ]
  })
}

test('a difference the test does not find is not called fewer', () => {
  const line = threadCostVerdict(summary(1644, 0.264))
  assert.match(line, /the threads serve about as many requests a second \(0\.98x, p = 0\.264: no significant difference\)$/)
  assert.doesNotMatch(line, /fewer/)
})

test('a significant difference is named, with its p-value', () => {
  assert.match(threadCostVerdict(summary(1500, 0.001)), /the threads serve fewer requests a second \(0\.89x, p = 0\.001 \*\*\)$/)
  assert.match(threadCostVerdict(summary(1900, 0.01)), /the threads serve more requests a second \(1\.13x, p = 0\.01 \*\)$/)
})

test('with too few runs for a test, the ratio is given as it is', () => {
  assert.match(threadCostVerdict(summary(1500, NaN)), /the threads serve 0\.89x the event loop's requests a second \(p n\/a: too few runs to test\)$/)
})
