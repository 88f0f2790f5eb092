// The load over time (LoadResult.series, lib/load/load-series.js): a real run against a real server,
// its seconds adding up to the run's own counts, each second's percentiles from that second's requests
// only; and the report's time-series chart gaining the throughput and p99 panels from it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import { chartsFor } from '../lib/report/charts.js'
import { startHttpServer } from './helper.js'
import { loadFixture } from './fixtures/report-helpers.js'

test('series: one point a second plus the last, summing to the run\'s requests and failures; onSecond sees each as it ends', async () => {
  let n = 0
  // slow answers after the first second, 500s now and then: a second's p50 must follow it, errors count the 500s
  const started = Date.now()
  const server = await startHttpServer((req, res) => {
    n++
    const late = Date.now() - started > 1100
    setTimeout(() => { res.statusCode = n % 10 === 0 ? 500 : 200; res.end('ok') }, late ? 20 : 0)
  })
  try {
    const seen = []
    const result = await loadtest({ url: server.url, requests: 1e6, timelimit: 2.3, concurrency: 4, keepAlive: true, series: true, onSecond: (s) => seen.push(s) })
    const s = result.series
    assert.ok(s, 'the result keeps the series')
    assert.equal(s.intervalMs, 1000)
    assert.equal(s.t.length, 3, `t: ${s.t}`)
    assert.deepEqual(seen.map((p) => p.t), s.t.slice(0, 2), 'onSecond had every whole second, the last partial one is the result\'s only')
    assert.ok(s.t[2] <= result.timeTakenSeconds + 0.001 && s.t[2] > s.t[1])
    assert.equal(s.requests.reduce((a, b) => a + b, 0), result.completeRequests)
    assert.equal(s.errors.reduce((a, b) => a + b, 0), result.failedRequests + result.non2xxResponses)
    assert.ok(result.non2xxResponses > 0)
    // the first second was fast, the last ones answered after 20 ms
    assert.ok(/** @type {number} */ (s.p50Ms[0]) < 20, `p50 of the first second: ${s.p50Ms[0]}`)
    assert.ok(/** @type {number} */ (s.p50Ms[2]) >= 20, `p50 of the last second: ${s.p50Ms[2]}`)
    for (let i = 0; i < s.t.length; i++) assert.ok(s.p50Ms[i] <= s.p90Ms[i] && s.p90Ms[i] <= s.p99Ms[i] && s.p99Ms[i] <= s.maxMs[i])
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
