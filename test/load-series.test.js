// The load over time (LoadResult.series, lib/load/load-series.js): a real run against a real server,
// its seconds adding up to the run's own counts, each second's percentiles from that second's requests
// only; and the report's time-series chart gaining the throughput and p99 panels from it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import { chartsFor } from '../lib/report/charts.js'
import { startHttpServer } from './helper.js'
import { loadFixture } from './fixtures/report-helpers.js'

test('series: a point a second and the last, each from exactly the requests of its interval; they sum to the run\'s counts', async () => {
  let n = 0
  // 500s now and then (errors), a few slow answers (a spread of latencies)
  const server = await startHttpServer((req, res) => {
    n++
    setTimeout(() => { res.statusCode = n % 10 === 0 ? 500 : 200; res.end('ok') }, n % 7 === 0 ? 15 : 0)
  })
  try {
    // onRequest and onSecond run on the same thread, in order: the requests recorded between two
    // seconds are exactly the first one's interval, whatever the machine's speed
    /** @type {number[]} */
    let pending = []
    const intervals = []
    const seen = []
    const result = await loadtest({
      url: server.url,
      requests: 1e6,
      timelimit: 2.3,
      concurrency: 4,
      keepAlive: true,
      series: true,
      onRequest: (r) => pending.push(r.latency),
      onSecond: (s) => { seen.push(s); intervals.push(pending); pending = [] }
    })
    intervals.push(pending)
    const s = result.series
    assert.ok(s, 'the result keeps the series')
    assert.equal(s.intervalMs, 1000)
    assert.ok(s.t.length >= 2, `t: ${s.t}`)
    // the last, shorter interval is the result's only (unless a tick fell after the last response)
    assert.ok(seen.length === s.t.length - 1 || seen.length === s.t.length, `${seen.length} seconds seen, ${s.t.length} kept`)
    assert.deepEqual(seen.map((p) => p.t), s.t.slice(0, seen.length))
    assert.ok(s.t.at(-1) <= result.timeTakenSeconds + 0.001)
    assert.equal(s.requests.reduce((a, b) => a + b, 0), result.completeRequests)
    assert.equal(s.errors.reduce((a, b) => a + b, 0), result.failedRequests + result.non2xxResponses)
    assert.ok(result.non2xxResponses > 0)
    for (let i = 0; i < s.t.length; i++) {
      const mine = (intervals[i] ?? []).sort((x, y) => x - y)
      assert.equal(s.requests[i], mine.length, `interval ${i}: its requests`)
      if (mine.length === 0) {
        assert.equal(s.p99Ms[i], null)
        continue
      }
      // hdr's rank (the count at the percentile, rounded up), read at 3 significant digits
      const exact = (/** @type {number} */ q) => mine[Math.max(1, Math.ceil(q * mine.length)) - 1]
      for (const [key, q] of /** @type {const} */ ([['p50Ms', 0.5], ['p90Ms', 0.9], ['p99Ms', 0.99], ['maxMs', 1]])) {
        const want = exact(q)
        const got = /** @type {number} */ (s[key][i])
        assert.ok(Math.abs(got - want) <= want * 0.002 + 0.002, `interval ${i} ${key}: ${got} for ${want}`)
      }
    }
  } finally {
    await server.close()
  }
})

test('without series: no field, and the options record nothing of it', async () => {
  const server = await startHttpServer((req, res) => res.end('ok'))
  try {
    const result = await loadtest({ url: server.url, requests: 20, concurrency: 2 })
    assert.equal(result.series, undefined)
    assert.equal(Object.hasOwn(result.options, 'series'), false)
  } finally {
    await server.close()
  }
})

test('report: runs that kept the load over time get throughput and p99 panels above the server\'s', () => {
  const results = loadFixture()
  const series = { intervalMs: 1000, t: [1, 2, 2.5], requests: [100, 0, 40], errors: [0, 0, 1], p50Ms: [1, null, 2], p90Ms: [2, null, 3], p99Ms: [3, null, 4], maxMs: [4, null, 5] }
  for (const run of results.runs) {
    if (run.experiment !== 'seed-bcrypt' || !run.load) continue
    run.load.series = series
    if (run.server) run.server.series = { intervalMs: 100, t: [100, 200], loopDelayMaxMs: [1, 2], cpuPercent: [10, 20], rssBytes: [1, 2] }
  }
  const spec = chartsFor(results).find((s) => s.id === 'seed-bcrypt-timeseries')
  assert.ok(spec)
  assert.deepEqual(spec.plot.fy.domain, ['throughput', 'p99 latency', 'event-loop delay', 'CPU', 'RSS'])
  const line = spec.plot.marks.find((m) => m.constructor.name === 'Line')
  const sync = line.data.filter((d) => d.series === 'sync' && d.metric === 'throughput')
  // req/s over each interval (the first also at 0, where its step starts): the stall is a zero, the
  // last half second's 40 requests are 80 req/s
  assert.deepEqual(sync.map((d) => d.value), [100, 100, 0, 80])
  assert.deepEqual(sync.map((d) => d.t), [0, 1, 2, 2.5])
  assert.deepEqual(line.data.filter((d) => d.series === 'sync' && d.metric === 'p99 latency').map((d) => d.t), [0, 1, 2.5], 'a second without requests has no p99')
})
