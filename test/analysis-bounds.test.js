// The bound model (lib/analysis/bounds.js): which constraint binds each strategy on machines of
// several shapes, and the rate it allows, at the edges where one constraint takes over from another.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { strategyBound } from '../lib/analysis/bounds.js'

/** @param {string} strategy @param {Partial<import('../lib/analysis/bounds.js').Shape>} shape @param {number} [workMs] @param {number} [httpMs] */
function bound (strategy, shape, workMs = 80, httpMs = 1.2) {
  const r = strategyBound({ strategy, workMs, httpMs, shape: { cores: 2, pool: 4, workers: null, inFlight: 20, ...shape } })
  assert.equal(r.why, null)
  return /** @type {import('../lib/analysis/bounds.js').Bound} */ (r.bound)
}

test('work on the main thread is bound by the main thread, whatever the cores', () => {
  for (const cores of [1, 2, 16]) {
    const b = bound('sync', { cores })
    assert.equal(b.name, 'main thread')
    assert.equal(b.predictedRps, 1000 / 81.2)
    assert.match(String(b.lever), /off the event loop/)
  }
  assert.equal(bound('fake-async', { cores: 16 }).name, 'main thread')
})

test('libuv pool work: the pool, the cores or the requests in flight, whichever is fewer', () => {
  // 16 cores, the default pool of 4: the pool binds (the 16-core machine's async: 4 x 12.5 = 50 req/s)
  const b16 = bound('async', { cores: 16 })
  assert.equal(b16.name, '4 pool threads')
  assert.equal(b16.predictedRps, 50)
  assert.match(String(b16.lever), /raise UV_THREADPOOL_SIZE \(4 of 16 cores\)/)
  // 2 cores: the cores bind, the HTTP work counted on them too
  const b2 = bound('async', { cores: 2 })
  assert.equal(b2.name, '2 cores')
  assert.equal(b2.predictedRps, 2000 / 81.2)
  // 1 core (taskset -c 0)
  assert.equal(bound('async', { cores: 1 }).name, '1 core')
  // pools of 1 to 16 on 16 cores: the pool binds up to the cores, then the cores
  assert.equal(bound('async', { cores: 16, pool: 1 }).name, '1 pool thread')
  assert.equal(bound('async', { cores: 16, pool: 1 }).predictedRps, 1000 / 80)
  assert.equal(bound('async', { cores: 16, pool: 15 }).name, '15 pool threads')
  assert.equal(bound('async', { cores: 16, pool: 16 }).name, '16 cores', 'a pool as large as the machine shares it with the main thread')
  assert.equal(bound('async', { cores: 16, pool: 32 }).name, '16 cores')
  // fewer requests in flight than threads: each waits for none
  const few = bound('async', { cores: 16, pool: 16, inFlight: 3 })
  assert.equal(few.name, '3 in flight')
  assert.equal(few.predictedRps, 3000 / 80)
})

test('a cheap operation is bound by the HTTP work on the main thread', () => {
  const b = bound('async', { cores: 16, pool: 16 }, 0.5, 0.25)
  assert.equal(b.name, 'main thread')
  assert.equal(b.predictedRps, 4000)
  // at the edge: the main thread's 1 / httpMs against the pool's k / workMs
  assert.equal(bound('async', { cores: 16, pool: 4 }, 4, 1.01).name, 'main thread')
  assert.equal(bound('async', { cores: 16, pool: 4 }, 4, 0.99).name, '4 pool threads')
})

test('a worker pool: the workers, the cores or the requests in flight', () => {
  assert.equal(bound('worker', { cores: 16, workers: 3 }).name, '3 workers')
  assert.equal(bound('worker', { cores: 2, workers: 3 }).name, '2 cores')
  assert.equal(bound('worker', { cores: 16, workers: 16, inFlight: 20 }).name, '16 cores')
})

test('no bound without the figures it needs, and the reason', () => {
  const shape = { cores: 2, pool: 4, workers: null, inFlight: 20 }
  assert.deepEqual(strategyBound({ strategy: 'sync', workMs: null, httpMs: 1, shape }), { bound: null, why: 'the work was not calibrated' })
  assert.deepEqual(strategyBound({ strategy: 'sync', workMs: 80, httpMs: null, shape }), { bound: null, why: 'the HTTP work on the main thread was not measured' })
  assert.deepEqual(strategyBound({ strategy: 'my-app', workMs: 80, httpMs: 1, shape }), { bound: null, why: 'where "my-app" does its work is not known' })
})
