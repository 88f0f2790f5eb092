// --workers N: one run split over N worker threads, merged back into one LoadResult. Real servers on
// 127.0.0.1 port 0, the real CLI for the report, the exit codes, Ctrl-C and the heartbeats. Every
// load is bounded in count and time; no timing decides an outcome except the -R schedule's own bound.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { loadtest } from '../lib/load/loadtest.js'
import { splitOptions } from '../lib/load/workers.js'
import { normalizeLoadOptions } from '../lib/load/options.js'
import { createHistogram, decodeHistogram } from '../lib/load/histogram.js'
import { RequestTimes, HIGHEST_US } from '../lib/load/request-times.js'
import { roundTo } from '../lib/format.js'
import { binPath, closedPort, runCli, startHttpServer, abJson } from './helper.js'

/** @type {Array<() => Promise<unknown>>} */
const closers = []
after(async () => { for (const close of closers) await close() })

const BODY = Buffer.alloc(1234, 'w')

/** A fixed-length server: every response the same 1234-byte body, its Server header set. */
async function fixedServer () {
  const s = await startHttpServer((req, res) => {
    res.setHeader('Server', 'fixed/1.0')
    res.setHeader('Content-Length', BODY.length)
    res.end(BODY)
  })
  closers.push(s.close)
  return s
}

/** @param {string[]} args */
const abJsonLong = (args) => abJson(args, { timeoutMs: 60_000 })

test('the split: -c, -n and -R shared as evenly as they go, each worker at least one connection', () => {
  const o = normalizeLoadOptions({ url: 'http://127.0.0.1:1/', requests: 1001, concurrency: 10, rate: 300, workers: 3 })
  const shares = splitOptions(o)
  assert.deepEqual(shares.map((s) => s.requests), [334, 334, 333])
  assert.deepEqual(shares.map((s) => s.concurrency), [4, 3, 3])
  assert.equal(shares.reduce((sum, s) => sum + (s.rate ?? 0), 0).toFixed(9), (300).toFixed(9))
  // every worker's schedule ends when the run's does: n_i / rate_i = n / rate
  for (const s of shares) assert.ok(Math.abs(s.requests / (s.rate ?? 0) - 1001 / 300) < 1e-9)
  for (const s of shares) assert.equal(s.workers, 1)
  // the tightest case: as many workers as connections as requests
  const tight = splitOptions(normalizeLoadOptions({ url: 'http://127.0.0.1:1/', requests: 5, concurrency: 5, workers: 5 }))
  assert.deepEqual(tight.map((s) => [s.requests, s.concurrency]), [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1]])
})

test('--workers 1 vs --workers 3 on a fixed-length server: the same counts and byte totals (CLI --json)', async () => {
  const s = await fixedServer()
  const one = await abJsonLong(['-n', '3000', '-c', '6', '-k', '--workers', '1', s.url])
  const three = await abJsonLong(['-n', '3000', '-c', '6', '-k', '--workers', '3', s.url])
  for (const key of ['completeRequests', 'failedRequests', 'failures', 'writeErrors', 'non2xxResponses', 'keepAliveRequests',
    'totalTransferredBytes', 'htmlTransferredBytes', 'totalBodySentBytes', 'statusCodes', 'errors', 'aborted', 'document', 'server', 'concurrency']) {
    assert.deepEqual(three[key], one[key], key)
  }
  assert.equal(three.completeRequests, 3000)
  assert.equal(three.htmlTransferredBytes, 3000 * BODY.length)
  assert.equal(three.server.software, 'fixed/1.0')
  assert.equal(three.options.workers, 3)
  assert.equal(one.options.workers, 1)
  // the merged histogram holds every request
  assert.equal(decodeHistogram(three.latencyHistogram).totalCount, 3000)
  // the same without keep-alive: every request its own connection, in every worker
  const closed = await abJsonLong(['-n', '600', '-c', '4', '--workers', '2', s.url])
  assert.equal(closed.completeRequests, 600)
  assert.equal(closed.keepAliveRequests, 0)
  assert.equal(closed.htmlTransferredBytes, 600 * BODY.length)
})

test('--workers 3: the merged histogram, percentiles and connection times equal those of all the samples recorded in one place', async () => {
  const s = await fixedServer()
  /** @type {import('../lib/types.js').RequestRecord[]} */
  const samples = []
  const result = await loadtest({ url: s.url, requests: 2400, concurrency: 6, keepAlive: true, workers: 3, onRequest: (r) => { samples.push(r) } })
  assert.equal(samples.length, 2400)
  assert.equal(result.completeRequests, 2400)

  // an HdrHistogram of every sample, recorded as the engine records one (ms -> whole us, capped)
  const all = createHistogram()
  for (const r of samples) all.recordValue(Math.min(Math.round(r.total * 1000), HIGHEST_US))
  const merged = decodeHistogram(result.latencyHistogram)
  assert.equal(merged.totalCount, all.totalCount)
  for (const p of [1, 10, 25, 50, 66, 75, 90, 95, 99, 99.9, 99.99, 100]) {
    assert.equal(merged.getValueAtPercentile(p), all.getValueAtPercentile(p), `p${p}`)
  }
  // the encoding keeps each bucket at its lowest value: the extremes are the same buckets
  assert.equal(merged.lowestEquivalentValue(merged.maxValue), all.lowestEquivalentValue(all.maxValue))
  assert.equal(merged.lowestEquivalentValue(merged.minNonZeroValue), all.lowestEquivalentValue(all.minNonZeroValue))

  // ab's tables from one RequestTimes fed every sample: min, mean, sd (from the sums), median, max, percentiles
  const times = new RequestTimes()
  for (const r of samples) times.record(r.connect, r.total, r.waiting)
  const rows = times.connectionTimes()
  for (const row of /** @type {const} */ (['connect', 'processing', 'waiting', 'total'])) {
    for (const k of /** @type {const} */ (['min', 'mean', 'sd', 'median', 'max'])) {
      assert.equal(result.connectionTimes[row][k], roundTo(rows[row][k], 3), `${row}.${k}`)
    }
  }
  const percentiles = times.percentiles()
  for (const p of Object.keys(percentiles)) assert.equal(result.percentiles[p], roundTo(percentiles[p], 3), `${p}%`)
  const latency = times.latency()
  for (const k of /** @type {const} */ (['p50', 'p75', 'p90', 'p99', 'p999', 'p9999', 'max', 'mean', 'stddev'])) {
    assert.equal(result.latency[k], roundTo(latency[k], 3), `latency.${k}`)
  }
  // every request started within the run's window (the union of the workers' windows)
  const first = Math.min(...samples.map((r) => r.start))
  const last = Math.max(...samples.map((r) => r.start + r.total))
  assert.ok(last - first <= result.timeTakenSeconds * 1000 + 1, `${last - first} ms within ${result.timeTakenSeconds} s`)
})

test('-R 600 -n 1200 --workers 3: every request, the schedule held (achieved rate within 3%), the corrected histogram merged', async () => {
  const s = await fixedServer()
  const r = await abJsonLong(['-R', '600', '-n', '1200', '-c', '6', '-k', '--workers', '3', s.url])
  assert.equal(r.completeRequests, 1200)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.openLoop.targetRate, 600)
  // never early: the last request is due (n_i - 1) / rate_i after each worker's start, ~2 s
  assert.ok(r.timeTakenSeconds >= 1.99, `time taken ${r.timeTakenSeconds}`)
  assert.ok(Math.abs(r.openLoop.achievedRate - 600) <= 18, `achieved ${r.openLoop.achievedRate} req/s`)
  assert.equal(decodeHistogram(r.latencyHistogram).totalCount, 1200)
  assert.equal(decodeHistogram(r.latencyHistogramUncorrected).totalCount, 1200)
})

test('heartbeats count the whole run, in order, at the same totals as one thread', async () => {
  const s = await fixedServer()
  /** @type {number[]} */
  const seen = []
  const r = await loadtest({ url: s.url, requests: 1000, concurrency: 4, keepAlive: true, workers: 2, heartbeat: 100, onProgress: (done) => { seen.push(done) } })
  assert.equal(r.completeRequests, 1000)
  assert.deepEqual(seen, [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
})

test('a callback that throws ends every worker; its own error is thrown with the merged partial result', async () => {
  const s = await fixedServer()
  const boom = new Error('stop here')
  let calls = 0
  await assert.rejects(loadtest({
    url: s.url, requests: 100_000, concurrency: 4, keepAlive: true, workers: 2, onRequest: () => { if (++calls === 50) throw boom }
  }), (err) => {
    assert.equal(err, boom)
    const result = /** @type {{ result?: import('../lib/types.js').LoadResult }} */ (err).result
    assert.ok(result !== undefined && result.aborted)
    assert.ok(result.completeRequests >= 50 && result.completeRequests < 100_000, String(result.completeRequests))
    return true
  })
})

test('a refused connection ends the run as with one worker: the same line on stderr, the same exit code', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/`
  const one = await runCli(['ab', '-n', '100', '-c', '4', url])
  const two = await runCli(['ab', '-n', '100', '-c', '4', '--workers', '2', url])
  assert.equal(one.code, 1)
  assert.equal(two.code, one.code)
  assert.equal(two.stderr, one.stderr)
  assert.match(two.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\n$/)
  assert.equal(two.stdout, one.stdout)
})

test('Ctrl-C stops every worker and prints the report of what was measured (exit 1)', async () => {
  let answered = 0
  let onAnswer = () => {}
  const s = await startHttpServer((req, res) => {
    // slow enough that the run is still going when the signal comes
    setTimeout(() => { answered++; onAnswer(); res.setHeader('Content-Length', 2); res.end('ok') }, 5)
  })
  closers.push(s.close)
  const child = spawn(process.execPath, [binPath, 'ab', '-q', '-k', '-c', '4', '-n', '100000', '--workers', '2', s.url], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const safety = setTimeout(() => child.kill('SIGKILL'), 30_000)
  await new Promise((resolve) => { onAnswer = () => { if (answered >= 40) resolve(undefined) } })
  child.kill('SIGINT')
  const [code] = await once(child, 'close')
  clearTimeout(safety)
  assert.equal(code, 1, stderr)
  assert.equal(stderr, '')
  const done = Number(/^Complete requests: +(\d+)$/m.exec(stdout)?.[1])
  assert.ok(done >= 30 && done < 100000, `complete requests ${done}`)
  assert.match(stdout, /^Connection Times \(ms\)$/m)
})

test('bad --workers values: one line, exit 2, nothing on stdout; loadtest() refuses them too', async () => {
  const url = 'http://127.0.0.1:9/'
  const cases = [
    [['--workers', '0', url], /^syncbench ab: --workers must be a positive integer, got "0"\n$/],
    [['--workers', 'two', url], /^syncbench ab: --workers must be a positive integer, got "two"\n$/],
    [['--workers', '65', '-c', '100', '-n', '100', url], /^syncbench ab: --workers must be at most 64, got "65"\n$/],
    [['--workers', '4', '-c', '3', '-n', '10', url], /^syncbench ab: --workers must not exceed the concurrency \(-c 3\): each worker holds at least one connection, got "4"\n$/],
    [['--workers=2', url], /^syncbench ab: --workers must not exceed the concurrency \(-c 1\)/],
    [[url, '--workers'], /^syncbench ab: --workers needs a value\n$/]
  ]
  for (const [argv, pattern] of cases) {
    const r = await runCli(['ab', ...argv])
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, pattern)
    assert.equal(r.stdout, '')
  }
  await assert.rejects(loadtest({ url, workers: 1.5 }), { code: 'SB_ERR_INVALID_OPTION', message: /^--workers \(workers\) must be a positive integer, got "1.5"$/ })
  await assert.rejects(loadtest({ url, requests: 4, concurrency: 2, workers: 3 }), { code: 'SB_ERR_INVALID_OPTION', message: /^--workers \(workers\) must not exceed the concurrency \(-c \(concurrency\) 2\)/ })
})

test('syncbench run --workers 2: each run split, results.json records it, a sweep point with one connection runs on one', async (t) => {
  const { mkdtemp, writeFile, readFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const path = await import('node:path')
  const dir = await mkdtemp(path.join(tmpdir(), 'syncbench-workers-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const s = await fixedServer()
  const file = path.join(dir, 'sweep.json')
  await writeFile(file, JSON.stringify({ name: 'split', server: { app: 'lab' }, load: { requests: 40 }, axes: { concurrency: [1, 4] }, variants: [{ label: 'a', path: '/a' }] }))
  const out = path.join(dir, 'out')
  const r = await runCli(['run', '--experiment', file, '--target', s.url, '--workers', '2', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.deepEqual(results.runs.map((/** @type {any} */ run) => [run.load.concurrency, run.load.options.workers, run.load.completeRequests]), [[1, 1, 40], [4, 2, 40]])
  assert.equal(results.options.workers, 2)
  const refused = await runCli(['run', '--experiment', file, '--workers', '2', '--engine', 'wrk', '--no-report', '--out', path.join(dir, 'no')])
  assert.equal(refused.code, 2)
  assert.match(refused.stderr, /^syncbench run: --workers applies to the built-in engine only, not --engine wrk, got "2"\n$/)
  const bad = await runCli(['run', '--workers', '0', '--no-report', '--out', path.join(dir, 'no')])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^syncbench run: --workers must be an integer from 1 to 64, got "0"\n$/)
})

test('-g and -e with --workers 2: every request of every worker in the files', async (t) => {
  const { mkdtemp, readFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const path = await import('node:path')
  const dir = await mkdtemp(path.join(tmpdir(), 'syncbench-workers-g-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const s = await fixedServer()
  const gnuplot = path.join(dir, 'g.tsv')
  const csv = path.join(dir, 'e.csv')
  const r = await runCli(['ab', '-q', '-k', '-n', '300', '-c', '4', '--workers', '2', '-g', gnuplot, '-e', csv, s.url])
  assert.equal(r.code, 0, r.stderr)
  const lines = (await readFile(gnuplot, 'utf8')).trim().split('\n')
  assert.equal(lines.length, 301, 'a header and one line per request')
  assert.match(lines[0], /^starttime\tseconds\tctime\tdtime\tttime\twait$/)
  assert.equal((await readFile(csv, 'utf8')).trim().split('\n').length, 102, 'a header and 0..100%')
})
