// syncbench run end to end through the real CLI: real server children, tiny request counts.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile, access } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { runCli, startHttpServer, binPath } from './helper.js'
import { spawnServer } from '../lib/lab/spawn.js'
import { welchTTest, formatP } from '../lib/run/stats.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-run-')) })
after(() => rm(dir, { recursive: true, force: true }))

const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'))

test('--list shows every built-in experiment with a description', async () => {
  const { code, stdout, stderr } = await runCli(['run', '--list'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  for (const name of ['seed-bcrypt', 'seed-readfile', 'delay-sweep', 'concurrency-sweep', 'threadpool-sweep', 'strategies']) {
    assert.match(stdout, new RegExp(`^${name} +\\S.+$`, 'm'))
  }
})

test('--help prints the options on stdout', async () => {
  const { code, stdout } = await runCli(['run', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /^Usage: syncbench run/)
  assert.match(stdout, /--runs <n>/)
})

test('seed-bcrypt with --runs 2: seed 001 table, verdict, results.json and summary.md', async () => {
  const out = path.join(dir, 'bcrypt')
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '-n', '6', '-c', '2', '--runs', '2', '--out', out], { timeoutMs: 120_000 })
  assert.equal(code, 0, stderr)
  // One ab-format report per run, in interleaved order.
  const headers = [...stdout.matchAll(/^=== (\S+): /gm)].map((m) => m[1])
  assert.deepEqual(headers, ['seed-bcrypt/sync#1', 'seed-bcrypt/async#1', 'seed-bcrypt/sync#2', 'seed-bcrypt/async#2'])
  assert.equal(stdout.match(/^Percentage of the requests served within a certain time \(ms\)$/gm).length, 4)
  // Every row of the seed's comparison table.
  for (const row of ['Concurrency Level', 'Time taken for tests:', 'Complete requests:', 'Failed requests:', 'Keep-Alive requests:',
    'Total transferred:', 'HTML transferred:', 'Requests per second:', 'Transfer rate:']) {
    assert.match(stdout, new RegExp(`^${row.replace(/[?]/g, '\\$&')} +\\S`, 'm'), row)
  }
  assert.match(stdout, /^Metrics +sync +async$/m)
  assert.match(stdout, /^Complete requests: +6 +6$/m)
  assert.match(stdout, /^Time per request: +[\d.]+ \[ms\] \(mean\) +[\d.]+ \[ms\] \(mean\)$/m)
  assert.match(stdout, /\(mean, across all concurrent requests\) +[\d.]+ \[ms\] \(mean, across all concurrent requests\)$/m)
  assert.match(stdout, /^Runs +2 +2$/m)

  const results = await readJson(path.join(out, 'results.json'))
  assert.equal(results.schema, 'syncbench/results@1')
  assert.match(results.syncbench, /^\d+\.\d+\.\d+/)
  assert.ok(Date.parse(results.createdAt) <= Date.parse(results.finishedAt))
  assert.deepEqual(results.argv, ['seed-bcrypt', '-n', '6', '-c', '2', '--runs', '2', '--out', out])
  assert.equal(results.options.runs, 2)
  assert.equal(results.options.engine, 'builtin')
  assert.equal(results.options.requests, 6)
  const env = results.environment
  assert.equal(env.node, process.versions.node)
  assert.equal(env.v8, process.versions.v8)
  assert.equal(env.uv, process.versions.uv)
  assert.equal(env.cpuCount, os.availableParallelism())
  assert.equal(typeof env.cpuModel, 'string')
  assert.ok('uvThreadpoolSize' in env && 'uvUseIoUring' in env)
  const [experiment] = results.experiments
  assert.equal(experiment.name, 'seed-bcrypt')
  assert.equal(experiment.baseline, 'sync')
  assert.deepEqual(experiment.labels, ['sync', 'async'])
  assert.deepEqual(experiment.comparisons, { async: 'sync' })
  assert.ok(experiment.calibration.opMs > 0)
  assert.equal(experiment.calibration.usableCores, os.availableParallelism())
  assert.ok(Math.abs(experiment.calibration.ceilingRps - experiment.calibration.usableCores * 1000 / experiment.calibration.opMs) < 1e-9)

  assert.equal(results.runs.length, 4)
  for (const [i, run] of results.runs.entries()) {
    assert.equal(run.id, headers[i])
    assert.equal(run.experiment, 'seed-bcrypt')
    assert.equal(run.repeat, i < 2 ? 1 : 2)
    assert.equal(run.engine, 'builtin')
    assert.equal(run.error, null)
    assert.equal(run.config.strategy, run.label)
    assert.equal(run.config.concurrency, 2)
    assert.equal(run.load.completeRequests, 6)
    assert.equal(run.load.concurrency, 2)
    assert.equal(run.load.keepAliveRequests, 6)
    // The server's window covers the measured load only: the warm-up requests are not in it.
    assert.equal(run.server.requests, 6)
    assert.ok(run.server.eventLoopDelay.max >= run.server.eventLoopDelay.p99)
    assert.ok(run.server.threads > 0)
    assert.equal(run.serverEnv.node, process.versions.node)
  }
  // Each run had its own server process.
  assert.equal(new Set(results.runs.map((r) => r.serverEnv && r.startedAt)).size, 4)

  // The verdict's p-value is the Welch t-test of the runs' req/s in results.json.
  const rps = (label) => results.runs.filter((r) => r.label === label).map((r) => r.load.requestsPerSecond)
  const expected = formatP(welchTTest(rps('async'), rps('sync')))
  const verdict = stdout.split('\n').find((l) => l.startsWith('seed-bcrypt: async is '))
  assert.ok(verdict, 'verdict line')
  assert.ok(verdict.includes(`x sync (${expected})`), `${verdict} should contain ${expected}`)
  assert.match(verdict, /ceiling \d+ cores x [\d.]+ hash\/s = [\d.]+ req\/s: sync \d+%, async \d+%/)

  const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.match(summary, /^\| Metrics \| sync \| async \|$/m)
  assert.match(summary, /^\| Complete requests: \| 6 \| 6 \|$/m)
  assert.ok(summary.includes(verdict))
})

test('seed-readfile prints the seed 002 table with readFile = 100%, 5 interleaved runs by default', async () => {
  const out = path.join(dir, 'readfile')
  const { code, stdout, stderr } = await runCli(['run', 'seed-readfile', '-n', '20', '-c', '5', '--quiet', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  assert.doesNotMatch(stdout, /^=== /m, '--quiet prints no per-run report')
  assert.match(stdout, /^Mode +Req\/s +Time\/req/m)
  assert.match(stdout, /^readFile +[\d.]+ \(100%\) +[\d.]+ \(100%\)/m)
  assert.match(stdout, /^readFileSync +[\d.]+ \(\d+%\) +[\d.]+ \(\d+%\)/m)
  assert.match(stdout, /^fake async +[\d.]+ \(\d+%\) +[\d.]+ \(\d+%\)/m)
  const results = await readJson(path.join(out, 'results.json'))
  const once = ['readFile', 'readFileSync', 'fake async']
  assert.equal(results.experiments[0].runs, 5)
  assert.equal(results.options.runs, null, 'no --runs given: each experiment uses its own default')
  assert.deepEqual(results.runs.map((r) => r.label), [...once, ...once, ...once, ...once, ...once])
  assert.deepEqual(results.runs.map((r) => r.repeat), [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5])
  assert.deepEqual(results.runs.slice(0, 3).map((r) => r.config.strategy), ['async', 'sync', 'fake-async'])
  for (const run of results.runs) assert.equal(run.server.requests, 20)
  assert.match(stdout, /^readFile .* p = [\d.]+/m, 'five runs each give a Welch p-value')
})

test('an experiment file: lab server, threadpool axis set at spawn, generic table', async () => {
  const file = path.join(dir, 'tiny.json')
  await writeFile(file, JSON.stringify({
    name: 'tiny',
    title: 'bcrypt cost 4',
    server: { app: 'lab' },
    load: { requests: 10, concurrency: 2, keepAlive: true },
    variants: [
      { label: 'sync', path: '/bcrypt/sync?cost=4', config: { strategy: 'sync' } },
      { label: 'async', path: '/bcrypt/async?cost=4', config: { strategy: 'async' } }
    ],
    axes: { threadpoolSize: [1, 3] },
    calibration: { op: 'bcrypt', cost: 4 }
  }))
  const out = path.join(dir, 'tiny')
  const { code, stdout, stderr } = await runCli(['run', '--experiment', file, '--quiet', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = await readJson(path.join(out, 'results.json'))
  assert.deepEqual(results.runs.map((r) => r.label), ['sync pool=1', 'async pool=1', 'sync pool=3', 'async pool=3'])
  assert.deepEqual(results.runs.map((r) => r.serverEnv.uvThreadpoolSize), ['1', '1', '3', '3'])
  assert.deepEqual(results.runs.map((r) => r.config.threadpoolSize), [1, 1, 3, 3])
  assert.deepEqual(results.experiments[0].comparisons, { 'async pool=1': 'sync pool=1', 'async pool=3': 'sync pool=3' })
  // One run each: no confidence interval column.
  assert.match(stdout, /^Configuration +Req\/s +Time\/req ms +across ms +vs baseline +of ceiling$/m)
  assert.match(stdout, /^async pool=3 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+x sync pool=3, p n\/a +\d+%$/m)
  assert.match(stdout, /^tiny: /m)
  // After a sweep, a text chart of req/s against the swept axis, one bar per strategy and value.
  assert.match(stdout, /^bcrypt cost 4 — requests\/s vs UV_THREADPOOL_SIZE$/m)
  assert.match(stdout, /^ {2}1 {2}sync +█+[▏▎▍▌▋▊▉]? +\d+$/m)
  assert.match(stdout, /^ {5}async +█+[▏▎▍▌▋▊▉]? +\d+$/m)
})

test('--workload serves and compares the module\'s handlers', async () => {
  const file = path.join(dir, 'handlers.mjs')
  await writeFile(file, `
    export function sync () { const end = Date.now() + 2; while (Date.now() < end); return 'done' }
    export async function async () { await new Promise((resolve) => setTimeout(resolve, 2)); return { done: true } }
  `)
  const out = path.join(dir, 'workload')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '-n', '20', '-c', '4', '--quiet', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = await readJson(path.join(out, 'results.json'))
  assert.deepEqual(results.runs.map((r) => r.label), ['sync', 'async'])
  for (const run of results.runs) {
    assert.equal(run.load.completeRequests, 20)
    assert.equal(run.load.failedRequests, 0)
    assert.equal(run.load.non2xxResponses, 0)
    assert.equal(run.server.requests, 20)
  }
  assert.equal(results.runs[1].load.document.length, Buffer.byteLength('{"done":true}'))
  assert.match(stdout, /^workload: async is [\d.]+x sync/m)
})

test('--target runs against a server already running (no server metrics from a plain server)', async () => {
  const server = await startHttpServer((req, res) => res.end('hi'))
  try {
    const file = path.join(dir, 'target.json')
    await writeFile(file, JSON.stringify({ name: 'remote', server: { app: 'lab' }, load: { requests: 5 }, variants: [{ label: 'a', path: '/a' }, { label: 'b', path: '/b' }] }))
    const out = path.join(dir, 'target')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--target', server.url, '--quiet', '--out', out])
    assert.equal(code, 0, stderr)
    const results = await readJson(path.join(out, 'results.json'))
    assert.deepEqual(results.runs.map((r) => r.load.document.path), ['/a', '/b'])
    assert.deepEqual(results.runs.map((r) => r.server), [null, null])
    assert.equal(results.options.target, server.url)
  } finally {
    await server.close()
  }
})

test('--target on a syncbench server reads its metrics over /__syncbench/metrics', async () => {
  const server = await spawnServer({ app: 'lab' })
  try {
    const file = path.join(dir, 'target-lab.json')
    await writeFile(file, JSON.stringify({ name: 'remote-lab', server: { app: 'lab' }, load: { requests: 5 }, variants: [{ label: 'wait', path: '/wait/async?ms=1' }] }))
    const out = path.join(dir, 'target-lab')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--target', server.servers[0].url, '--quiet', '--out', out])
    assert.equal(code, 0, stderr)
    const [run] = (await readJson(path.join(out, 'results.json'))).runs
    assert.equal(run.server.requests, 5, 'the window was reset after the warm-up')
    assert.equal(run.serverEnv.node, process.versions.node)
  } finally {
    await server.stop()
  }
})

test('errors: one line each, non-zero exit', async (t) => {
  const oneLine = (stderr) => assert.equal(stderr.trim().split('\n').length, 1, stderr)
  await t.test('unknown experiment', async () => {
    const { code, stdout, stderr } = await runCli(['run', 'nope', '--out', path.join(dir, 'e1')])
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /^syncbench: unknown experiment "nope" \(try: seed-bcrypt, /)
    oneLine(stderr)
    await assert.rejects(access(path.join(dir, 'e1')), 'nothing written')
  })
  await t.test('missing workload file', async () => {
    const { code, stderr } = await runCli(['run', '--workload', './missing.js'], { cwd: dir })
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench: --workload \.\/missing\.js: no such file$/m)
    oneLine(stderr)
  })
  await t.test('workload module that throws', async () => {
    await writeFile(path.join(dir, 'throws.mjs'), 'throw new Error("boom at load")\n')
    const { code, stderr } = await runCli(['run', '--workload', 'throws.mjs'], { cwd: dir })
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench: --workload throws\.mjs threw while loading: boom at load$/m)
    oneLine(stderr)
  })
  await t.test('bad option value', async () => {
    const { code, stderr } = await runCli(['run', '--runs', 'zero'])
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench: --runs must be an integer from 1 to 1000, got "zero"$/m)
  })
  await t.test('a server that fails to start keeps the runs before it', async () => {
    const file = path.join(dir, 'fails.json')
    await writeFile(file, JSON.stringify({
      name: 'fails',
      server: { app: 'lab' },
      load: { requests: 3 },
      variants: [{ label: 'ok', path: '/wait/sync?ms=0' }, { label: 'broken', path: '/', server: { args: ['--pool-size', '0'] } }]
    }))
    const out = path.join(dir, 'fails')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--quiet', '--out', out])
    assert.equal(code, 1)
    const lines = stderr.trim().split('\n')
    assert.match(lines[lines.length - 1], /^syncbench: .*pool-size/)
    const results = await readJson(path.join(out, 'results.json'))
    assert.equal(results.finishedAt, null)
    assert.equal(results.runs.length, 2)
    assert.equal(results.runs[0].load.completeRequests, 3)
    assert.equal(results.runs[1].load, null)
    assert.equal(results.runs[1].error.code, 'SB_ERR_SERVER_START')
    await access(path.join(out, 'summary.md'))
  })
})

test('Ctrl-C keeps the runs measured so far and exits 130', async () => {
  const file = path.join(dir, 'interrupt.json')
  await writeFile(file, JSON.stringify({
    name: 'interrupt',
    server: { app: 'lab' },
    load: { requests: 5 },
    variants: [{ label: 'quick', path: '/wait/async?ms=1' }, { label: 'slow', path: '/wait/async?ms=200' }]
  }))
  const out = path.join(dir, 'interrupt')
  // The second run would take 100 x 200 ms; the interrupt comes as soon as the first run's report is out.
  const child = spawn(process.execPath, [binPath, 'run', '--experiment', file, '-n', '100', '--out', out], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const safety = setTimeout(() => child.kill('SIGKILL'), 60_000)
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
    if (stdout.includes('(longest request)')) child.kill('SIGINT')
  })
  const [code] = await once(child, 'close')
  clearTimeout(safety)
  assert.equal(code, 130, stderr)
  assert.match(stderr, /interrupted: partial/)
  const results = await readJson(path.join(out, 'results.json'))
  assert.equal(results.finishedAt, null)
  assert.equal(results.runs.length, 2)
  assert.equal(results.runs[0].load.completeRequests, 100)
  assert.equal(results.runs[1].load.aborted, true)
  assert.ok(results.runs[1].load.completeRequests < 100)
  assert.equal(results.runs[1].error, null)
})
