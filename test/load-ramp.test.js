// syncbench ab -R FROM..TO --ramp T: the open loop's rate ramped linearly, each request due when the
// rate's integral reaches it (lib/load/schedule.js). The schedule is checked against its closed form
// and its integral, exactly (it is deterministic); shards and worker threads against the one schedule;
// the refusals line by line; then a real run against a node:http server on 127.0.0.1 port 0, read
// from --json's series. What the series says a machine did is checked by invariants that hold however
// loaded the machine is (never sent before due, every scheduled request sent once); how closely each
// second's sends follow the schedule is a timing, reported as a diagnostic, never asserted.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { Schedule, dueSeconds, integral, rateShape, requestsWithin } from '../lib/load/schedule.js'
import { normalizeLoadOptions, segmentShare, defaultRequests } from '../lib/load/options.js'
import { splitOptions } from '../lib/load/workers.js'
import { parseAbArgs } from '../lib/ab/ab-args.js'
import { loadtest } from '../lib/load/loadtest.js'
import { loadResultProblem } from '../lib/run/results-schema.js'
import { runCli, startHttpServer, abJson } from './helper.js'

/** @type {Array<() => Promise<unknown>>} */
const closers = []
after(async () => { for (const close of closers) await close() })

/** The request times of a whole schedule, ms. @param {import('../lib/load/schedule.js').RateShape} shape @param {number} n */
const wholeTimes = (shape, n) => Array.from({ length: n }, (_, j) => new Schedule(shape).dueMs(j))

/** a relative difference, 0 for two zeros @param {number} a @param {number} b */
const rel = (a, b) => a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b))

test('a flat ramp (FROM = TO) is the constant rate: request g due at g / rate', () => {
  for (const rate of [0.5, 1, 100, 1e6]) {
    const flat = new Schedule({ from: rate, to: rate, seconds: 20 })
    const constant = new Schedule({ from: rate, to: rate, seconds: 0 })
    for (const g of [0, 1, 2, 17, 999, rate * 20 - 1, rate * 20, rate * 20 + 1, 1e7]) {
      assert.ok(rel(flat.dueMs(g), g * 1000 / rate) < 1e-12, `flat ${rate}: ${g}`)
      assert.ok(rel(constant.dueMs(g), g * 1000 / rate) < 1e-12, `constant ${rate}: ${g}`)
    }
  }
  // a ramp that is nearly flat: the form without the textbook's cancellation stays exact
  const nearly = new Schedule({ from: 100, to: 100 * (1 + 1e-12), seconds: 1000 })
  for (const g of [1, 10, 1e4, 99999]) assert.ok(rel(nearly.dueMs(g), g * 10) < 1e-9, `nearly flat: ${g}`)
})

test('each request is due where the rate integral reaches it: a = 1, large T, a falling ramp, the tail at TO', () => {
  const shapes = [
    { from: 1, to: 1000, seconds: 10 },
    { from: 1, to: 2, seconds: 86400 },
    { from: 100, to: 2000, seconds: 20 },
    { from: 2000, to: 100, seconds: 20 },
    { from: 1e6, to: 1, seconds: 3 },
    { from: 1e6, to: 0.001, seconds: 3 }
  ]
  for (const shape of shapes) {
    const onRamp = (shape.from + shape.to) * shape.seconds / 2
    const gs = [0, 1, 2, 3, 10, Math.floor(onRamp / 3), Math.floor(onRamp) - 1, Math.ceil(onRamp), Math.ceil(onRamp) + 5]
    let last = -1
    for (const g of gs) {
      const t = dueSeconds(shape, g)
      assert.ok(t > last || g === 0, `${JSON.stringify(shape)}: ${g} due after the one before`)
      last = t
      // the integral at the due time is the request's index, to float precision
      assert.ok(Math.abs(integral(shape, t) - g) <= 1e-9 * Math.max(1, g), `${JSON.stringify(shape)}: A(t(${g})) = ${integral(shape, t)}`)
      if (g >= onRamp) assert.ok(rel(t, shape.seconds + (g - onRamp) / shape.to) < 1e-12, 'the tail runs at TO')
      else assert.ok(t < shape.seconds, 'on the ramp before its end')
    }
    // a ramp from 1 req/s: the first request is due at once, the second within the first second
    // (the rate only grows), within a hair of it on the day-long ramp
    if (shape.from === 1) assert.ok(dueSeconds(shape, 1) > 0 && dueSeconds(shape, 1) < 1, `${JSON.stringify(shape)}: ${dueSeconds(shape, 1)}`)
    if (shape.seconds === 86400) assert.ok(dueSeconds(shape, 1) > 0.99999, `${dueSeconds(shape, 1)}`)
  }
})

test('the requests scheduled in each second are the integral over it, rounded: within 1 request, so within 1% from 100 req/s', () => {
  const shape = { from: 100, to: 2000, seconds: 20 }
  const n = requestsWithin(shape, 20)
  assert.equal(n, 21000)
  const times = wholeTimes(shape, n)
  const perSecond = new Array(20).fill(0)
  for (const ms of times) perSecond[Math.floor(ms / 1000)]++
  const schedule = new Schedule(shape)
  for (let s = 0; s < 20; s++) {
    const exact = integral(shape, s + 1) - integral(shape, s)
    assert.ok(Math.abs(perSecond[s] - exact) <= 1, `second ${s}: ${perSecond[s]} vs ${exact}`)
    assert.ok(Math.abs(perSecond[s] - exact) / exact <= 0.01, `second ${s}`)
    // dueBy counts exactly what dueMs schedules (the series' offered count)
    assert.equal(schedule.dueBy((s + 1) * 1000 - 1e-6) - schedule.dueBy(s * 1000 - 1e-6), perSecond[s], `dueBy, second ${s}`)
  }
  assert.equal(perSecond.reduce((a, b) => a + b), n)
  // dueBy at a request's own time counts it, just before it does not
  for (const j of [0, 1, 500, 20999]) {
    assert.equal(schedule.dueBy(times[j]), j + 1)
    assert.equal(schedule.dueBy(times[j] - 1e-6), j)
  }
})

test('shards and worker threads split a ramp into every N-th request of the one schedule, adding up to it exactly', () => {
  const shape = { from: 100, to: 2000, seconds: 20 }
  const n = 21000
  const whole = wholeTimes(shape, n)
  for (const count of [1, 2, 3, 7]) {
    const parts = []
    for (let index = 0; index < count; index++) {
      const o = normalizeLoadOptions({ url: 'http://127.0.0.1:1/', rate: 100, rampTo: 2000, ramp: 20, concurrency: 7, segment: { index, count } })
      assert.equal(o.requests, segmentShare(n, index, count))
      // not divided: the shard follows the whole ramp
      assert.equal(o.rate, 100)
      assert.deepEqual(o.interleave, { index, count })
      const part = new Schedule(/** @type {import('../lib/load/schedule.js').RateShape} */ (rateShape(o)), index, count)
      for (let j = 0; j < o.requests; j++) parts.push(part.dueMs(j))
    }
    assert.deepEqual(parts.sort((a, b) => a - b), whole, `${count} shards`)
  }
  // --workers 3 within shard 1 of 2: thread w takes the shard's requests w, w + 3..., the schedule's 1 + 2w, 1 + 2w + 6...
  const shard = normalizeLoadOptions({ url: 'http://127.0.0.1:1/', rate: 100, rampTo: 2000, ramp: 20, concurrency: 6, workers: 3, segment: { index: 1, count: 2 } })
  const threads = splitOptions(shard)
  assert.deepEqual(threads.map((t) => t.interleave), [{ index: 1, count: 6 }, { index: 3, count: 6 }, { index: 5, count: 6 }])
  assert.deepEqual(threads.map((t) => t.requests), [3500, 3500, 3500])
  const times = threads.flatMap((t) => Array.from({ length: t.requests }, (_, j) => new Schedule(shape, t.interleave?.index, t.interleave?.count).dueMs(j)))
  assert.deepEqual(times.sort((a, b) => a - b), whole.filter((_, g) => g % 2 === 1))
  // a constant rate is still divided as before (rate / N, in proportion to each thread's requests)
  assert.deepEqual(splitOptions(normalizeLoadOptions({ url: 'http://127.0.0.1:1/', rate: 90, requests: 90, concurrency: 3, workers: 3 })).map((t) => [t.rate, t.interleave]), [[30, undefined], [30, undefined], [30, undefined]])
})

test('-n defaults: the requests the ramp schedules over its duration; -t, those due within it; -n wins', () => {
  const url = 'http://127.0.0.1:1/'
  assert.equal(parseAbArgs(['-R', '100..2000', '--ramp', '20s', url]).options.requests, 21000)
  assert.deepEqual(parseAbArgs(['-R', '100..2000', '--ramp', '20s', url]).options.rampTo, 2000)
  assert.equal(parseAbArgs(['-R', '100..2000', '--ramp', '20s', url]).options.ramp, 20)
  // 10 s past the ramp at TO: 21000 + 20000
  assert.equal(parseAbArgs(['-R', '100..2000', '--ramp', '20s', '-t', '30', url]).options.requests, 41000)
  // -t within the ramp: the integral up to it, 100 x 10 + 1900 x 100 / 40
  assert.equal(parseAbArgs(['-R', '100..2000', '--ramp', '20s', '-t', '10', url]).options.requests, 5750)
  assert.equal(parseAbArgs(['-R', '100..2000', '--ramp', '20s', '-n', '50', url]).options.requests, 50)
  assert.equal(parseAbArgs(['-n', '50', '-R', '2000..100', '--ramp', '20', url]).options.requests, 50)
  // a falling ramp: the same count as the rising one
  assert.equal(parseAbArgs(['-R', '2000..100', '--ramp', '20s', url]).options.requests, 21000)
  assert.equal(parseAbArgs(['-R', '0.5..1.5', '--ramp', '3s', url]).options.requests, 3)
  // the API's default is the CLI's
  assert.equal(defaultRequests({ timelimit: 0, rate: 100, rampTo: 2000, ramp: 20 }), 21000)
  assert.equal(normalizeLoadOptions({ url, rate: 100, rampTo: 2000, ramp: 20 }).requests, 21000)
  assert.equal(normalizeLoadOptions({ url, rate: 100 }).requests, 1)
})

test('bad ramps: one line naming the option and the value, exit 2; the API in the same words', async () => {
  const url = 'http://127.0.0.1:1/'
  const range = 'must be FROM..TO, two positive numbers of requests per second (100..2000)'
  const cases = [
    [['-R', '100..', '--ramp', '20s'], `-R ${range}, got "100.."`],
    [['-R', '..2000', '--ramp', '20s'], `-R ${range}, got "..2000"`],
    [['-R', '100...2000', '--ramp', '20s'], `-R ${range}, got "100...2000"`],
    [['-R', '100..abc', '--ramp', '20s'], `-R ${range}, got "100..abc"`],
    [['-R', '0..2000', '--ramp', '20s'], '-R must be a positive number of requests per second, got "0..2000"'],
    [['-R', '100..1000001', '--ramp', '20s'], '-R must be at most 1000000 requests per second, got "100..1000001"'],
    [['--ramp', '20s'], '--ramp needs -R FROM..TO, the rates to ramp between (as -R 100..2000 --ramp 20s), got "20s"'],
    [['-R', '100', '--ramp', '20s'], '--ramp needs -R FROM..TO, the rates to ramp between (as -R 100..2000 --ramp 20s), got "20s"'],
    [['-R', '100..2000'], '-R needs --ramp DURATION, the time the rate takes from FROM to TO (as -R 100..2000 --ramp 20s), got "100..2000"'],
    [['-R', '100..2000', '--ramp', '0'], '--ramp must be a positive number of seconds or a duration (500ms, 10s, 2m), got "0"'],
    [['-R', '1..2', '--ramp', '2s', '-c', '4'], '-c must not exceed the number of requests (-R 1..2 --ramp 2s, which implies -n 3), got "4"']
  ]
  for (const [args, message] of cases) {
    const r = await runCli(['ab', ...args, url])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, `syncbench ab: ${message}\n`, args.join(' '))
  }
  // a falling ramp and a flat one are runs, not refusals
  assert.equal(parseAbArgs(['-R', '2000..100', '--ramp', '1s', url]).options.rampTo, 100)
  assert.equal(parseAbArgs(['-R', '100..100', '--ramp', '1s', url]).options.requests, 100)
  const api = [
    [{ rate: 100, ramp: 20 }, '--ramp (ramp) needs -R FROM..TO, the rates to ramp between (as -R 100..2000 --ramp 20s), got "20"'],
    [{ rate: 100, rampTo: 2000 }, '-R (rampTo) needs --ramp DURATION, the time the rate takes from FROM to TO (as -R 100..2000 --ramp 20s), got "100..2000"'],
    [{ rampTo: 2000, ramp: 20 }, '--ramp (ramp) needs -R FROM..TO, the rates to ramp between (as -R 100..2000 --ramp 20s), got "20"'],
    [{ rate: 100, rampTo: 0, ramp: 20 }, '-R (rampTo) must be a positive number of requests per second, got "0"']
  ]
  for (const [options, message] of api) {
    await assert.rejects(loadtest({ url, ...options }), (err) => {
      assert.equal(/** @type {any} */ (err).code, 'SB_ERR_INVALID_OPTION')
      assert.equal(/** @type {Error} */ (err).message, message)
      return true
    }, JSON.stringify(options))
  }
})

test('a real ramp, -R 200..1000 --ramp 3s, against a fast server: the series offers the ramp, sends it all, never early', async (t) => {
  const s = await startHttpServer((req, res) => { res.writeHead(200, { 'Content-Length': 2 }); res.end('ok') })
  closers.push(s.close)
  const shape = { from: 200, to: 1000, seconds: 3 }
  const r = await abJson(['-R', '200..1000', '--ramp', '3s', '-c', '20', '-k', s.url], { timeoutMs: 60_000 })
  const n = 1800
  assert.equal(r.options.requests, n)
  assert.equal(r.completeRequests, n)
  assert.equal(r.failedRequests, 0)
  assert.deepEqual(r.openLoop.ramp, { fromRate: 200, toRate: 1000, seconds: 3 })
  // the mean over the ramp: 1800 requests over the 3 s the schedule takes to offer them
  assert.equal(r.openLoop.targetRate, 600)
  assert.equal(loadResultProblem(r), null)
  const series = r.series
  for (const key of ['scheduled', 'sent', 'late', 'p50UncorrectedMs', 'p99UncorrectedMs']) assert.equal(series[key].length, series.t.length, key)
  const sum = (/** @type {number[]} */ xs) => xs.reduce((a, b) => a + b, 0)
  assert.equal(sum(series.scheduled), n)
  assert.equal(sum(series.sent), n)
  assert.equal(sum(series.requests), n)
  assert.equal(sum(series.late), r.openLoop.lateRequests)
  const schedule = new Schedule(shape)
  let scheduled = 0
  let sent = 0
  let done = 0
  let prev = 0
  let worst = 0
  for (let i = 0; i < series.t.length; i++) {
    scheduled += series.scheduled[i]
    sent += series.sent[i]
    done += series.requests[i]
    // nothing is sent before it is due, nothing completes before it is sent
    assert.ok(sent <= scheduled, `by ${series.t[i]} s: ${sent} sent, ${scheduled} scheduled`)
    assert.ok(done <= sent, `by ${series.t[i]} s: ${done} completed, ${sent} sent`)
    // the offered count is the schedule's over the interval (t is rounded to the ms: a request or two either side)
    const expected = Math.min(n, schedule.dueBy(series.t[i] * 1000)) - Math.min(n, schedule.dueBy(prev * 1000))
    assert.ok(Math.abs(series.scheduled[i] - expected) <= 2, `interval to ${series.t[i]} s: ${series.scheduled[i]} scheduled, the ramp ${expected}`)
    if (series.scheduled[i] > 0) worst = Math.max(worst, Math.abs(series.sent[i] - series.scheduled[i]) / series.scheduled[i])
    prev = series.t[i]
  }
  for (const key of ['p50Ms', 'p99Ms', 'p50UncorrectedMs', 'p99UncorrectedMs']) assert.ok(series[key].some((/** @type {number|null} */ v) => v !== null && v >= 0), key)
  t.diagnostic(`largest per-interval gap between sent and scheduled: ${(worst * 100).toFixed(2)}% (late: ${r.openLoop.lateRequests})`)
})

test('a shard and a --workers run of a real ramp: each follows its part of the one schedule to the end', async () => {
  const s = await startHttpServer((req, res) => { res.writeHead(200, { 'Content-Length': 2 }); res.end('ok') })
  closers.push(s.close)
  const ramp = { url: s.url, rate: 100, rampTo: 300, ramp: 1, keepAlive: true }
  // shard 1 of 2 of the ramp's 200 requests: the odd ones, 100, the last due at 0.99.. s; its series
  // offers exactly those (the engine's schedule is the interleaved one)
  const shard = await loadtest({ ...ramp, concurrency: 4, segment: { index: 1, count: 2 }, series: true })
  assert.equal(shard.completeRequests, 100)
  assert.equal(/** @type {number[]} */ (shard.series?.scheduled).reduce((a, b) => a + b, 0), 100)
  assert.equal(/** @type {number[]} */ (shard.series?.sent).reduce((a, b) => a + b, 0), 100)
  assert.equal(shard.options.rate, 100, 'a ramp is not divided')
  // its last request is the schedule's 199th, due at 0.997 s: it cannot end before (a bound by
  // construction, not a timing: its own first 100 would have ended by 0.58 s)
  const last = dueSeconds({ from: 100, to: 300, seconds: 1 }, 199)
  assert.ok(shard.timeTakenSeconds >= last - 1e-6, `${shard.timeTakenSeconds} s, the last request due at ${last} s`)
  assert.equal(loadResultProblem(shard), null)
  // two threads of one process: the whole 200, the ramp said once, its mean 200 req/s
  const threads = await loadtest({ ...ramp, concurrency: 2, workers: 2 })
  assert.equal(threads.completeRequests, 200)
  assert.deepEqual(threads.openLoop?.ramp, { fromRate: 100, toRate: 300, seconds: 1 })
  assert.equal(threads.openLoop?.targetRate, 200)
})

test("ab's report says the ramp where -R's rate is said", async () => {
  const s = await startHttpServer((req, res) => { res.writeHead(200, { 'Content-Length': 2 }); res.end('ok') })
  closers.push(s.close)
  const r = await runCli(['ab', '-R', '50..100', '--ramp', '1s', '-c', '2', '-k', s.url])
  assert.equal(r.code, 0, r.stderr)
  // 75 requests over the 1 s the ramp takes to offer them
  assert.match(r.stdout, /^Complete requests: {6}75$/m)
  assert.match(r.stdout, /^Target rate: {12}50\.00\.\.100\.00 \[#\/sec\], ramp over 1 s \(mean 75\.00\)$/m)
})
