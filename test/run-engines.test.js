// The external-engine adapters: parsing their real output formats, and one real run each when installed.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { parse as parseAb, abTool as abEngine } from '../lib/run/tools/apache-bench.js'
import { parse as parseWrk, wrkTool as wrkEngine } from '../lib/run/tools/wrk.js'
import { parse as parseAutocannon, autocannonTool as autocannonEngine } from '../lib/run/tools/autocannon.js'
import { emptyResult, runTool, probe } from '../lib/run/tools/shape.js'

// ab 2.3's report as the French seed article (seed 002, fs.readFile server) printed it, with the
// header lines ab prints before it.
const AB_OUTPUT = `Server Software:        
Server Hostname:        localhost
Server Port:            8081

Document Path:          /
Document Length:        12 bytes

Concurrency Level:      100
Time taken for tests:   14.054 seconds
Complete requests:      1000
Failed requests:        0
Write errors:           0
Total transferred:      76000 bytes
HTML transferred:       12000 bytes
Requests per second:    71.15 [#/sec] (mean)
Time per request:       1405.418 [ms] (mean)
Time per request:       14.054 [ms] (mean, across all concurrent requests)
Transfer rate:          5.28 [Kbytes/sec] received

Connection Times (ms)
              min  mean[+/-sd] median   max
Connect:        0    0   0.7      0       3
Processing:   744 1366 113.4   1382    1745
Waiting:      744 1366 113.4   1382    1745
Total:        746 1367 112.9   1382    1745

Percentage of the requests served within a certain time (ms)
  50%   1382
  66%   1394
  75%   1402
  80%   1409
  90%   1431
  95%   1462
  98%   1536
  99%   1633
 100%   1745 (longest request)
`

test('ab adapter parses ab\'s report into LoadResult fields', () => {
  const r = parseAb(AB_OUTPUT, emptyResult({ url: 'http://localhost:8081/', requests: 1000, concurrency: 100 }))
  assert.equal(r.server.software, '')
  assert.equal(r.server.hostname, 'localhost')
  assert.equal(r.server.port, 8081)
  assert.equal(r.document.path, '/')
  assert.equal(r.document.length, 12)
  assert.equal(r.concurrency, 100)
  assert.equal(r.timeTakenSeconds, 14.054)
  assert.equal(r.completeRequests, 1000)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.totalTransferredBytes, 76000)
  assert.equal(r.htmlTransferredBytes, 12000)
  assert.equal(r.requestsPerSecond, 71.15)
  assert.equal(r.timePerRequestMs, 1405.418)
  assert.equal(r.timePerRequestAcrossMs, 14.054)
  assert.equal(r.transferRateKBps, 5.28)
  assert.deepEqual(r.connectionTimes.total, { min: 746, mean: 1367, sd: 112.9, median: 1382, max: 1745 })
  assert.deepEqual(r.connectionTimes.connect, { min: 0, mean: 0, sd: 0.7, median: 0, max: 3 })
  assert.deepEqual(r.percentiles, { 50: 1382, 66: 1394, 75: 1402, 80: 1409, 90: 1431, 95: 1462, 98: 1536, 99: 1633, 100: 1745 })
  assert.equal(r.latency.p99, 1633)
})

test('wrk adapter parses the JSON line of its Lua script', () => {
  const line = 'SYNCBENCH-JSON {"requests":500,"durationUs":250000,"bytes":63500,"connect":0,"read":1,"write":0,"status":2,"timeout":0,' +
    '"meanUs":1500.5,"stdevUs":300,"minUs":800,"maxUs":9000,"percentilesUs":{"50":1400,"66":1500,"75":1600,"80":1700,"90":2000,"95":2500,"98":4000,"99":6000}}'
  const r = parseWrk(`Running 1h test\n${line}\n`, emptyResult({ url: 'http://127.0.0.1:1/x', requests: 500, concurrency: 10 }))
  assert.equal(r.completeRequests, 500)
  assert.equal(r.timeTakenSeconds, 0.25)
  assert.equal(r.requestsPerSecond, 2000)
  assert.equal(r.timePerRequestAcrossMs, 0.5)
  assert.equal(r.timePerRequestMs, 5)
  assert.equal(r.failedRequests, 3)
  assert.equal(r.non2xxResponses, 2)
  assert.equal(r.totalTransferredBytes, 63500)
  assert.equal(r.latency.p99, 6)
  assert.equal(r.percentiles['100'], 9)
  assert.equal(parseWrk('no json here', emptyResult({ url: 'http://127.0.0.1:1/' })), null)
})

test('autocannon adapter parses --json output', () => {
  const json = { start: '2026-01-01T00:00:00.000Z', finish: '2026-01-01T00:00:00.500Z', errors: 1, timeouts: 0, non2xx: 0, statusCodeStats: { 200: { count: 99 } }, latency: { mean: 2, stddev: 1, min: 1, max: 9, p50: 2, p75: 3, p90: 4, p99: 8, p99_9: 9, p99_99: 9 }, requests: { total: 100 }, throughput: { total: 12800 } }
  const r = parseAutocannon(JSON.stringify(json) + '\n', emptyResult({ url: 'http://127.0.0.1:1/', requests: 100, concurrency: 4 }))
  assert.equal(r.timeTakenSeconds, 0.5)
  assert.equal(r.completeRequests, 100)
  assert.equal(r.requestsPerSecond, 200)
  assert.equal(r.failedRequests, 1)
  assert.deepEqual(r.statusCodes, { 200: 99 })
  assert.equal(r.transferRateKBps, 25)
})

let dir
let workload
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-engines-'))
  workload = path.join(dir, 'h.mjs')
  await writeFile(workload, 'export function sync () { return \'hello\' }\n')
})
after(() => rm(dir, { recursive: true, force: true }))

for (const engine of [abEngine, wrkEngine, autocannonEngine]) {
  test(`--engine ${engine.name} drives a real run into the same result shape`, async (t) => {
    if (!(await engine.available())) return t.skip(`${engine.name} is not installed`)
    const out = path.join(dir, engine.name)
    const { code, stdout, stderr } = await runCli(['run', '--workload', workload, '-n', '30', '-c', '3', '--engine', engine.name, '--verbose', '--no-report', '--out', out], { timeoutMs: 60_000 })
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^Complete requests: +\d+$/m)
    const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
    assert.equal(results.options.engine, engine.name)
    const [run] = results.runs
    assert.equal(run.engine, engine.name)
    // wrk stops at -n by signal: requests in flight then may still complete.
    assert.ok(run.load.completeRequests >= 30 && run.load.completeRequests <= 32, String(run.load.completeRequests))
    assert.equal(run.load.failedRequests, 0)
    assert.ok(run.load.requestsPerSecond > 0)
    assert.ok(run.load.timeTakenSeconds > 0)
    // The server's window counts what reached it: with wrk, also requests sent but not awaited at the stop.
    assert.ok(run.server.requests >= run.load.completeRequests && run.server.requests <= run.load.completeRequests + 3, String(run.server.requests))
  })
}

test('probe: true for a command that runs (whatever its exit code), false for one that is not installed', () => {
  assert.equal(probe(process.execPath, ['-e', 'process.exit(1)']), true)
  assert.equal(probe('syncbench-no-such-tool', ['-h']), false)
})

test('runTool: onStderr can stop the tool; past timeoutMs the tool is killed and the call rejects', async () => {
  // A tool that says it is done on stderr, then waits for SIGINT to print its summary (as wrk does).
  const script = `process.on('SIGINT', () => { console.log('summary'); process.exit(0) })
    process.stderr.write('syncbench:done\\n'); setInterval(() => {}, 1000)`
  const seen = []
  const out = await runTool(process.execPath, ['-e', script], {
    onStderr: (stderr, stop) => { seen.push(stderr); if (stderr.includes('syncbench:done')) stop() }
  })
  assert.equal(out.code, 0)
  assert.equal(out.stdout, 'summary\n')
  assert.ok(seen.length >= 1)
  // A tool that never ends (wrk whose -n is never reached): the safety timeout ends it.
  await assert.rejects(runTool(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { timeoutMs: 200 }), {
    code: 'SB_ERR_TIMEOUT',
    message: /did not finish within 0\.2 s and was killed/
  })
})

test('runTool: an aborted signal sends the tool SIGINT', async () => {
  const controller = new AbortController()
  const script = `process.on('SIGINT', () => { console.log('partial'); process.exit(0) })
    process.stderr.write('running\\n'); setInterval(() => {}, 1000)`
  const out = await runTool(process.execPath, ['-e', script], {
    signal: controller.signal,
    onStderr: (stderr) => { if (stderr.includes('running')) controller.abort() }
  })
  assert.equal(out.stdout, 'partial\n')
})
