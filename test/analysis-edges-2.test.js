// More of the analysis layer at the edges of its rules, on fixtures where the alternatives differ: the CI
// gate's verdict at each bound of 1 +- X and with one side short of runs (test/compare-gate.test.js runs
// the same through the CLI), which status codes an invalid mix run names (every 2xx is good, not only
// 200), and a configuration's routes of the blocking spans added over its runs (each run's count of
// blocks, not one per run).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { statusText, routeStatusText } from '../lib/analysis/routes-summary.js'
import { loadInvalidity } from '../lib/analysis/validity.js'
import { combineRoutes } from '../lib/analysis/profile.js'
import { gateDecision, evaluateGate } from '../lib/analysis/gate.js'

test('the gate at the edges: 1 +- X inside, just past it not; an interval wholly above 1 inside X is equivalent; one side short of runs', () => {
  /** @param {number} low @param {number} high @param {number} [nA] @param {number} [nB] */
  const verdict = (low, high, nA = 3, nB = 3) => gateDecision({ low, high }, nA, nB, 0.05).verdict
  assert.equal(verdict(1.01, 1.05), 'equivalent')
  assert.equal(verdict(1.01, 1.0501), 'faster')
  assert.equal(verdict(0.95, 0.99), 'equivalent')
  assert.equal(verdict(0.9499, 0.99), 'slower-within')
  assert.equal(verdict(0.9, 0.95), 'slower-within')
  assert.equal(verdict(0.9, 0.9499), 'slower')
  assert.equal(verdict(0.99, 1.06), 'no-change')
  assert.equal(verdict(0.5, 0.52, 2, 3), 'too-few-runs')
  assert.equal(verdict(0.5, 0.52, 3, 2), 'too-few-runs')
  assert.equal(verdict(0.5, 0.52, 3, 3), 'slower')
  assert.equal(verdict(NaN, NaN), 'no-interval')
  assert.equal(verdict(0.9, Infinity), 'no-interval')
  // an interval that reaches 1 holds it: neither slower nor faster
  assert.equal(verdict(0.9, 1), 'no-change')
  assert.equal(verdict(1, 1.1), 'no-change')
  // only "slower" fails
  assert.equal(gateDecision({ low: 0.9, high: 0.94 }, 3, 3, 0.05).fails, true)
  assert.equal(gateDecision({ low: 0.9, high: 0.96 }, 3, 3, 0.05).fails, false)
  /** @param {number} low @param {number} high @param {number} [n] */
  const row = (low, high, n = 3) => ({ ratio: { low, high }, a: { n }, b: { n } })
  const gate = evaluateGate(/** @type {any} */ ([row(0.8, 0.85), row(0.5, 0.52, 2), row(NaN, NaN), row(0.99, 1.01)]), 0.05)
  assert.deepEqual([gate.slower, gate.undecided, gate.failed], [[0], [1, 2], true])
  assert.deepEqual(gate.decisions.map((d) => d.verdict), ['slower', 'too-few-runs', 'no-interval', 'equivalent'])
  assert.equal(evaluateGate(/** @type {any} */ ([row(0.99, 1.01)]), 0.05).failed, false)
})

test('status codes named as not 2xx: 199 and 300 are, 200 to 299 (201, 204) are not', () => {
  assert.equal(statusText({ 199: 1, 200: 5, 201: 3, 204: 2, 299: 1, 300: 2, 404: 4 }), '199 x1, 300 x2, 404 x4')
  assert.equal(statusText({ 201: 3, 204: 2 }), '')
  /** @type {any} */
  const routes = [
    { name: 'POST /items', statusCodes: { 201: 10 }, failedRequests: 0 },
    { name: 'DELETE /items/1', statusCodes: { 204: 8, 404: 2 }, failedRequests: 1 }
  ]
  assert.equal(routeStatusText(routes), 'DELETE /items/1 404 x2, failed x1')
  // the reason an invalid run gives names only what was not 2xx
  const load = { completeRequests: 20, failedRequests: 0, non2xxResponses: 2, options: { requests: 20 }, statusCodes: { 201: 10, 204: 8, 404: 2 } }
  assert.equal(loadInvalidity(load, { statuses: true }), '2 of 20 non-2xx: 404 x2')
  assert.equal(loadInvalidity({ ...load, routes }), '2 of 20 non-2xx: DELETE /items/1 404 x2, failed x1')
})

test('the routes of blocking spans over several runs: their blocks and milliseconds added, largest first', () => {
  const combined = combineRoutes([
    [{ route: 'POST /login', ms: 100.04, blocks: 3 }, { route: 'GET /health', ms: 0.5, blocks: 3 }],
    undefined,
    [{ route: 'POST /login', ms: 50.03, blocks: 2 }, { route: 'GET /report', ms: 200, blocks: 1 }]
  ])
  // POST /login: 3 + 2 blocks (not one per run, 2; nor the most of one run, 3)
  assert.deepEqual(combined, [
    { route: 'GET /report', ms: 200, blocks: 1 },
    { route: 'POST /login', ms: 150.1, blocks: 5 },
    { route: 'GET /health', ms: 0.5, blocks: 3 }
  ])
  // no run followed its routes: none; runs that did, with no block: an empty list
  assert.equal(combineRoutes([undefined, undefined]), null)
  assert.deepEqual(combineRoutes([[], undefined]), [])
})
