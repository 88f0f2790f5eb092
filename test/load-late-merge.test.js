// Late requests (an open loop's requests sent after their intended time, their connection still busy)
// counted through every merge: the threads of --workers, the shards `syncbench merge` adds. A server
// that answers each request 100 ms later, 2 connections a worker, 100 requests a second: every request
// after a connection's first waits for the one before it, so most are late by 90 ms or more, and a
// count lost or taken from one part only cannot pass for the whole.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import { mergeLoadResults } from '../lib/load/merge-results.js'
import { startSlowServer } from './helper.js'

const server = await startSlowServer(100)
after(() => server.close())

/**
 * Requests sent later than the threshold after their intended time, from each request's own times:
 * `latency` counts from the intended time, `total` from the send (kept-alive: the same moment the
 * engine judges lateness at), so their difference is how late it was sent.
 * @param {import('../lib/types.js').RequestTiming[]} timings @param {number} thresholdMs
 */
function lateOf (timings, thresholdMs) {
  return timings.filter((t) => t.latency - t.total > thresholdMs).length
}

test('--workers 2: the merged late count is every thread\'s, as the requests\' own times count them', { timeout: 60_000 }, async () => {
  /** @type {import('../lib/types.js').RequestTiming[]} */
  const timings = []
  const result = await loadtest({ url: server.url, requests: 40, concurrency: 4, workers: 2, rate: 100, keepAlive: true, onRequest: (t) => { timings.push(t) } })
  assert.equal(result.completeRequests, 40)
  const openLoop = /** @type {NonNullable<typeof result.openLoop>} */ (result.openLoop)
  assert.ok(openLoop.lateRequests >= 20, `${openLoop.lateRequests} late: 4 connections of 100 ms answers cannot keep 100 req/s`)
  assert.equal(openLoop.lateRequests, lateOf(timings, openLoop.lateThresholdMs))
})

test('syncbench merge: two shards\' late requests add up', { timeout: 60_000 }, async () => {
  const shard = (/** @type {number} */ index) => loadtest({ url: server.url, requests: 40, concurrency: 4, rate: 100, keepAlive: true, segment: { index, count: 2 } })
  const [a, b] = [await shard(0), await shard(1)]
  const late = (/** @type {import('../lib/types.js').LoadResult} */ r) => /** @type {NonNullable<typeof r.openLoop>} */ (r.openLoop).lateRequests
  assert.ok(late(a) > 0 && late(b) > 0, `${late(a)} and ${late(b)} late`)
  const merged = mergeLoadResults([a, b])
  assert.equal(late(merged), late(a) + late(b))
  assert.equal(merged.completeRequests, a.completeRequests + b.completeRequests)
})
