// syncbench ab -R: the open loop (wrk2's semantics) and its latency corrected for coordinated omission.
// Real servers on 127.0.0.1 port 0; the load from the real CLI in a child process where a server
// blocks its own event loop (the stall must not block the generator too). Every load is bounded in
// count and time; the timing bounds below are the schedule's (a stall of 1 s, requests due 10 ms
// apart), loose enough for a shared machine, never a speed.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { parseAbArgs } from '../lib/ab/ab-args.js'
import { loadtest } from '../lib/load/loadtest.js'
import { decodeHistogram } from '../lib/load/histogram.js'
import { LATE_THRESHOLD_MS } from '../lib/load/engine.js'
import { runCli, startHttpServer, startStallingServer, abJson } from './helper.js'

/** @type {Array<() => Promise<unknown>>} */
const closers = []
after(async () => { for (const close of closers) await close() })

/** @param {{ atRequest: number, stallMs: number }} options */
async function stallingServer (options) {
  const s = await startStallingServer(options)
  closers.push(s.close)
  return s
}

/** A fast server that answers at once (never stalls). */
const fastServer = () => stallingServer({ atRequest: Infinity, stallMs: 0 })

const KEYS = ['p50', 'p75', 'p90', 'p99', 'p999', 'p9999', 'max']

test('a 1 s stall under -R 100 -c 10 for 4 s: the corrected percentiles show it, the uncorrected p90 does not', async () => {
  // request 150 arrives ~1.5 s in; while the server busy-waits for 1 s about 100 requests come due.
  // The issue's -t 4 schedules the same 400 requests; -n 400 with -t 10 as the bound lets the last
  // responses arrive on a busy machine (under -t 4 a response due at 3.99 s may be cut off)
  const s = await stallingServer({ atRequest: 150, stallMs: 1000 })
  const r = await abJson(['-R', '100', '-c', '10', '-t', '10', '-n', '400', '-k', s.url])
  const { latency: c, latencyUncorrected: u, openLoop } = r
  const summary = JSON.stringify({ c, u, openLoop, done: r.completeRequests })
  // the stall delays the 400 intended requests, it loses none; -t 4 at -R 100 implies the same 400
  assert.equal(r.options.requests, 400)
  assert.equal(parseAbArgs(['-R', '100', '-c', '10', '-t', '4', s.url]).options.requests, 400)
  assert.equal(r.completeRequests, 400, summary)
  assert.equal(r.failedRequests, 0)
  // wrk2 on the same scenario: corrected p90 ~615 ms, p99 ~987 ms, uncorrected p90 ~2 ms
  assert.ok(c.p90 >= 300 && c.p90 <= 900, `corrected p90 in the hundreds of ms: ${summary}`)
  assert.ok(c.p99 >= 800, `corrected p99 near the stall: ${summary}`)
  assert.ok(c.max >= 900, `corrected max at least the stall: ${summary}`)
  assert.ok(u.p90 < 100, `uncorrected p90 far below the stall: only the ~10 requests in flight saw it: ${summary}`)
  assert.ok(u.p99 >= 500 && u.max >= 900, `uncorrected p99 and max do show it (10 of 400 is 2.5%): ${summary}`)
  // about rate x stall requests came due while their connections were blocked
  // (the upper bound is wide: on a busy machine the generator's own turns may lag past the threshold)
  assert.ok(openLoop.lateRequests >= 60 && openLoop.lateRequests <= 200, `late requests ~100: ${summary}`)
  assert.equal(openLoop.targetRate, 100)
  assert.equal(openLoop.lateThresholdMs, LATE_THRESHOLD_MS)
  // each request's corrected time is at least its uncorrected one, so every percentile is too
  for (const k of KEYS) assert.ok(c[k] >= u[k], `${k}: ${summary}`)
  assert.ok(c.mean > u.mean)
})

test('the achieved rate is within 2% of the target against a fast server (-R 500 for 2 s)', async () => {
  const s = await fastServer()
  // -n rather than -t: a response still on its way at -t's limit would not count
  const r = await abJson(['-R', '500', '-c', '10', '-n', '1000', '-k', s.url])
  assert.equal(r.completeRequests, 1000)
  assert.equal(r.failedRequests, 0)
  assert.ok(Math.abs(r.openLoop.achievedRate - 500) <= 10, `achieved ${r.openLoop.achievedRate} req/s`)
  // all 1000 completed: over the schedule's 2 s (or the run's time, if longer)
  assert.equal(r.openLoop.achievedRate, Math.round(1000 / Math.max(2, r.timeTakenSeconds) * 1e6) / 1e6)
  // -t implies the requests due within it
  assert.equal(parseAbArgs(['-R', '500', '-t', '2', s.url]).options.requests, 1000)
})

test('-n counts intended requests; -t implies the ones due within it; -c may exceed the rate', async () => {
  const s = await fastServer()
  const r = await abJson(['-R', '200', '-n', '50', '-c', '5', s.url])
  assert.equal(r.completeRequests, 50)
  assert.equal(s.stats.arrivals.length, 50)
  // request 49 is due 245 ms after the start: an open loop cannot end before it
  assert.ok(r.timeTakenSeconds >= 0.245 - 0.002, String(r.timeTakenSeconds))
  // fewer requests per second than connections: each connection waits its turn
  const slow = await abJson(['-R', '20', '-n', '4', '-c', '4', s.url])
  assert.equal(slow.completeRequests, 4)
  assert.ok(slow.timeTakenSeconds >= 0.15 - 0.002, String(slow.timeTakenSeconds))

  /** @param {string[]} argv */
  const requests = (argv) => parseAbArgs([...argv, 'http://127.0.0.1:1/']).options.requests
  assert.equal(requests(['-t', '2', '-R', '100']), 200)
  assert.equal(requests(['-R', '100', '-t', '2']), 200)
  assert.equal(requests(['-R', '0.5', '-t', '3']), 2)
  // ab's order rule stays: a -n after -t wins, a -t after -n overrides it
  assert.equal(requests(['-R', '100', '-t', '2', '-n', '30']), 30)
  assert.equal(requests(['-n', '30', '-t', '2', '-R', '100']), 200)
  // -t 0 is no limit, as in ab: its 50000 requests stay
  assert.equal(requests(['-t', '0', '-R', '100']), 50000)
  assert.equal(parseAbArgs(['-R', '2.5', 'http://127.0.0.1:1/']).options.rate, 2.5)
  assert.equal(parseAbArgs(['http://127.0.0.1:1/']).options.rate, undefined)
})

test('bad -R values: one line naming the flag and the value, exit 2, nothing on stdout', async () => {
  const url = 'http://127.0.0.1:1/'
  const cases = [
    [['-R', '0'], '-R must be a positive number of requests per second, got "0"'],
    [['-R', '-5'], '-R must be a positive number of requests per second, got "-5"'],
    [['-R', 'abc'], '-R must be a positive number of requests per second, got "abc"'],
    [['-R', 'NaN'], '-R must be a positive number of requests per second, got "NaN"'],
    [['-R', '1e3'], '-R must be a positive number of requests per second, got "1e3"'],
    [['-R', ''], '-R must be a positive number of requests per second, got ""'],
    [['-R', '1000001'], '-R must be at most 1000000 requests per second, got "1000001"'],
    [['-R', '5', '-c', '10', '-t', '1'], '-c must not exceed the number of requests (-t 1 with -R 5, which implies -n 5), got "10"']
  ]
  for (const [args, message] of [...cases.map(([a, m]) => [[...a, url], m]), [[url, '-R'], '-R needs a value']]) {
    const r = await runCli(['ab', ...args])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, `syncbench ab: ${message}\n`, args.join(' '))
  }
  // the API refuses what the CLI refuses, in the same words
  for (const [rate, shown] of [[0, '0'], [-1, '-1'], [NaN, 'NaN'], [Infinity, 'Infinity'], ['100', '100'], [2e6, '2000000']]) {
    await assert.rejects(loadtest({ url, rate: /** @type {number} */ (rate), requests: 1 }), (err) => {
      assert.equal(/** @type {any} */ (err).code, 'SB_ERR_INVALID_OPTION')
      assert.match(/** @type {Error} */ (err).message, new RegExp(`^-R \\(rate\\) must be .* requests per second, got "${shown}"$`))
      return true
    })
  }
})

test('with --http1.1, with and without -k: on schedule, one connection per request without -k', async () => {
  for (const mode of [[], ['-k'], ['--http1.1'], ['--http1.1', '-k']]) {
    const s = await fastServer()
    const r = await abJson(['-R', '100', '-c', '4', '-n', '20', ...mode, s.url])
    const label = mode.join(' ') || 'no -k'
    assert.equal(r.completeRequests, 20, label)
    assert.equal(r.failedRequests, 0, label)
    assert.equal(r.openLoop.targetRate, 100, label)
    const keepAlive = mode.includes('-k')
    assert.equal(s.stats.connections, keepAlive ? 4 : 20, `${label}: connections`)
    assert.equal(r.keepAliveRequests, keepAlive ? 20 : 0, label)
    // request 19 is due 190 ms after the start: sent on the schedule, not as fast as the server
    // answers (a closed loop takes a few ms)
    assert.ok(r.timeTakenSeconds >= 0.19, `${label}: ${r.timeTakenSeconds} s`)
    assert.equal(s.stats.arrivals.length, 20)
  }
})

test('never early, phase-shifted: request k of the run is sent no sooner than k / rate after the run starts', async () => {
  const s = await fastServer()
  for (const keepAlive of [false, true]) {
    /** @type {number[]} */
    const starts = []
    // the run's schedule starts after this instant: no request may be sent before it plus k / rate
    const before = performance.timeOrigin + performance.now()
    // 4 connections at 100 req/s: each connection's requests 40 ms apart, connection i starting at i x 10 ms
    const r = await loadtest({ url: s.url, rate: 100, requests: 12, concurrency: 4, keepAlive, onRequest: (record) => { starts.push(record.start) } })
    assert.equal(r.completeRequests, 12)
    starts.sort((a, b) => a - b)
    // a request is sent at its intended time or later, never before. The schedule's origin is not
    // seen from outside, but it comes after \`before\`: request k no sooner than k x 10 ms after it, with
    // 1 ms of slack (Node's timer granularity), far below one 10 ms step of the schedule. Request 0's
    // own send is no reference: on a loaded machine its cold connection can make it late by a few ms,
    // and the requests after it are still due on the schedule, not on it
    for (let k = 0; k < 12; k++) assert.ok(starts[k] - before >= k * 10 - 1, `keepAlive ${keepAlive}: request ${k} sent ${starts[k] - before} ms after the run was asked for`)
    // and the run follows the schedule rather than the server's pace: 12 requests of a closed loop
    // take a few ms, on the schedule the last is sent 110 ms after the first is due
    assert.ok(starts[11] - starts[0] >= 90, `keepAlive ${keepAlive}: the run took ${starts[11] - starts[0]} ms`)
  }
})

test('-k: a server closing idle connections between scheduled requests costs no failure', async () => {
  let connections = 0
  // a keep-alive response, then the server closes the connection 10 ms later (its idle timeout)
  const s = await startHttpServer((req, res) => {
    res.setHeader('Content-Length', 2)
    res.setHeader('Connection', 'keep-alive')
    res.end('ok', () => setTimeout(() => req.socket.end(), 10))
  })
  closers.push(s.close)
  s.server.on('connection', () => { connections++ })
  // each connection's requests are 400 ms apart: the close comes long before the next one
  const r = await abJson(['-R', '5', '-c', '2', '-n', '6', '-k', s.url])
  assert.equal(r.completeRequests, 6)
  assert.equal(r.failedRequests, 0, JSON.stringify(r.failures))
  assert.deepEqual(r.errors, {})
  assert.equal(r.keepAliveRequests, 6)
  // every request found its connection closed and opened a new one
  assert.equal(connections, 6)
})

test('-s counts only while a request is in flight: a slow schedule is not a silent server', async () => {
  const s = await fastServer()
  // requests 500 ms apart, -s 0.2: ab's inactivity timeout would fire between them
  const r = await abJson(['-R', '2', '-c', '1', '-n', '3', '-s', '0.2', s.url])
  assert.equal(r.completeRequests, 3)
  assert.equal(r.aborted, false)
  assert.ok(r.timeTakenSeconds >= 1 - 0.002, String(r.timeTakenSeconds))
})

test('loadtest({ rate }): the corrected and uncorrected histograms, and no open-loop fields without rate', async () => {
  const s = await startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') })
  closers.push(s.close)
  const r = await loadtest({ url: s.url, rate: 400, requests: 40, concurrency: 4, keepAlive: true })
  assert.equal(r.options.rate, 400)
  assert.equal(r.completeRequests, 40)
  assert.deepEqual(Object.keys(r.openLoop ?? {}), ['targetRate', 'achievedRate', 'lateRequests', 'lateThresholdMs'])
  assert.deepEqual(Object.keys(r.latencyUncorrected ?? {}), Object.keys(r.latency))
  const corrected = decodeHistogram(r.latencyHistogram ?? '')
  const uncorrected = decodeHistogram(r.latencyHistogramUncorrected ?? '')
  assert.equal(corrected.totalCount, 40)
  assert.equal(uncorrected.totalCount, 40)
  // latency (corrected) and its histogram agree; so do the uncorrected twins
  assert.ok(Math.abs(corrected.maxValue / 1000 - r.latency.max) <= r.latency.max / 500 + 0.002, `${corrected.maxValue} ${r.latency.max}`)
  assert.ok(Math.abs(uncorrected.maxValue / 1000 - (r.latencyUncorrected?.max ?? NaN)) <= r.latency.max / 500 + 0.002)
  assert.ok(corrected.maxValue >= uncorrected.maxValue)

  // a run cut short (here by its signal) is measured over its own time, not the schedule's 1 s
  const cut = await loadtest({ url: s.url, rate: 100, requests: 100, concurrency: 2, signal: AbortSignal.timeout(300) })
  assert.equal(cut.aborted, true)
  assert.ok(cut.completeRequests < 100)
  assert.equal(cut.openLoop?.achievedRate, Math.round(cut.completeRequests / cut.timeTakenSeconds * 1e6) / 1e6)

  const closed = await loadtest({ url: s.url, requests: 10, concurrency: 2 })
  for (const key of ['openLoop', 'latencyUncorrected', 'latencyHistogramUncorrected']) assert.equal(key in closed, false, key)
  assert.equal('rate' in closed.options, false)
})

test('the ab report gains the corrected section with -R, after ab\'s own report', async () => {
  const s = await fastServer()
  const r = await runCli(['ab', '-R', '200', '-c', '2', '-n', '20', s.url])
  assert.equal(r.code, 0, r.stderr)
  const lines = r.stdout.split('\n')
  const longest = lines.findIndex((l) => l.endsWith('(longest request)'))
  const at = lines.indexOf('Target rate:            200.00 [#/sec]')
  assert.ok(longest > 0 && at === longest + 2, r.stdout)
  assert.match(lines[at + 1], /^Achieved rate: {10}\d+\.\d\d \[#\/sec\] \(mean\)$/)
  assert.match(lines[at + 2], new RegExp(`^Late requests: {10}\\d+ \\(sent over ${LATE_THRESHOLD_MS} ms after their intended time\\)$`))
  assert.deepEqual(lines.slice(at + 3, at + 6), ['', 'Latency (corrected for coordinated omission) (ms)', '         corrected  uncorrected'])
  const rows = lines.slice(at + 6, at + 13)
  assert.deepEqual(rows.map((l) => l.trim().split(/\s+/)[0]), ['50%', '75%', '90%', '99%', '99.9%', '99.99%', '100%'])
  for (const row of rows) {
    const [, corrected, uncorrected] = row.trim().split(/\s+/).map(Number)
    assert.ok(corrected >= uncorrected, row)
  }
  assert.equal(lines.slice(at + 13).join('\n'), '')
})
