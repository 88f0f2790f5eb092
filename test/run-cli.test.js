// syncbench run end to end through the real CLI: real server children, tiny request counts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { readFile, readdir, writeFile, access } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { runCli, startHttpServer, startRawServer, binPath, tempCacheDir } from './helper.js'
import { spawnServer } from '../lib/lab/spawn.js'
import { welchTTest } from '../lib/analysis/stats.js'
import { formatP } from '../lib/report/phrases.js'

let dir
tempCacheDir('syncbench-run-', (d) => { dir = d })

const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'))

test('--list shows every built-in experiment with a description', async () => {
  const { code, stdout, stderr } = await runCli(['run', '--list'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  for (const name of ['seed-bcrypt', 'seed-readfile', 'delay-sweep', 'concurrency-sweep', 'threadpool-sweep', 'strategies']) {
    assert.match(stdout, new RegExp(`^${name} +\\S.+$`, 'm'))
  }
})

test('--list with an experiment name beside it: one line, exit 2, nothing listed (issue 12)', async () => {
  const { code, stdout, stderr } = await runCli(['run', '--list', 'extra'])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.equal(stderr, 'syncbench run: --list takes no experiment names, got "extra"\n')
})

test('run --out under /proc: refused in one line before any run, not a hang (issue 12)', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '--out', '/proc/x', '-n', '2', '--runs', '1', '--no-calibrate'], { timeoutMs: 30_000 })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr, 'syncbench run: --out /proc/x cannot be created: /proc is on proc, a kernel file system\n')
})

test('--help prints the options on stdout', async () => {
  const { code, stdout } = await runCli(['run', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /^Usage: syncbench run/)
  assert.match(stdout, /--runs <n>/)
  assert.match(stdout, /report\.html and charts\/\*\.png/)
  assert.match(stdout, /^ {2}--no-report {2}/m)
  assert.match(stdout, /-q, --quiet .*text charts/)
  assert.match(stdout, /concurrency is above its\s+request count gets that many requests/)
})

test('seed-bcrypt with --runs 2: seed 001 table, verdict, results.json and summary.md', async () => {
  const out = path.join(dir, 'bcrypt')
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '-n', '6', '-c', '2', '--runs', '2', '--verbose', '--out', out], { timeoutMs: 120_000 })
  assert.equal(code, 0, stderr)
  // With --verbose, one ab-format report per run, in interleaved order.
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
  // ab's "(mean, across all concurrent requests)" shortened to fit a terminal; summary.md has it whole
  assert.match(stdout, /^Time per request: +[\d.]+ \[ms\] \(mean, across all\) +[\d.]+ \[ms\] \(mean, across all\)$/m)
  assert.match(stdout, /^Runs +2 +2$/m)

  const results = await readJson(path.join(out, 'results.json'))
  assert.equal(results.schema, 'syncbench/results@1')
  assert.match(results.syncbench, /^\d+\.\d+\.\d+/)
  assert.ok(Date.parse(results.createdAt) <= Date.parse(results.finishedAt))
  assert.deepEqual(results.argv, ['seed-bcrypt', '-n', '6', '-c', '2', '--runs', '2', '--verbose', '--out', out])
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
  // five independent timings kept, the ceiling's spread from the fastest and the slowest
  assert.equal(experiment.calibration.timings.length, 5)
  assert.equal(experiment.calibration.opMsMin, Math.min(...experiment.calibration.timings.map((t) => t.opMs)))
  assert.equal(experiment.calibration.opMsMax, Math.max(...experiment.calibration.timings.map((t) => t.opMs)))
  assert.ok(experiment.calibration.ceilingLowRps <= experiment.calibration.ceilingRps && experiment.calibration.ceilingRps <= experiment.calibration.ceilingHighRps)

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
  // the verdict's lines, a subject each, their continuation lines (indented two spaces) joined back
  const lines = stdout.replace(/\n {2}(?=\S)/g, ' ').split('\n')
  const verdict = lines.find((l) => l.startsWith('seed-bcrypt: async is '))
  assert.ok(verdict, 'verdict line')
  // two runs a side: a p-value but no interval (issue 10: fewer than 3 runs give none)
  assert.ok(verdict.includes(`x sync (2 runs: no interval, ${expected})`), `${verdict} should contain ${expected}`)
  // a share over 100% says why (formatEfficiency): on a busy machine the calibration can come out low,
  // as in "sync 120% (within the calibration's spread)"
  assert.match(lines[lines.indexOf(verdict) + 1], /^ceiling \d+ cores x [\d.]+ hash\/s = [\d.]+ req\/s \(5 timings: [\d.]+\.\.[\d.]+\): sync \d+%( \((within the calibration's spread|above the ceiling's spread!)\))?, async \d+%/)

  // The one run test that renders the HTML report (the others pass --no-report).
  assert.match(await readFile(path.join(out, 'report.html'), 'utf8'), /<html/i)
  assert.ok((await readdir(path.join(out, 'charts'))).some((f) => f.endsWith('.png')), 'charts/*.png')
  assert.match(stderr, /report\.html/)

  const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.match(summary, /^\| Metrics \| sync \| async \|$/m)
  assert.match(summary, /^\| Complete requests: \| 6 \| 6 \|$/m)
  assert.ok(summary.includes(verdict))
})

test('seed-readfile prints the seed 002 table with readFileSync (its baseline) = 100%, 5 interleaved runs by default', async () => {
  const out = path.join(dir, 'readfile')
  const { code, stdout, stderr } = await runCli(['run', 'seed-readfile', '-n', '20', '-c', '5', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  assert.doesNotMatch(stdout, /^=== /m, '--quiet prints no per-run report')
  // one baseline (issue 10, item 8): the percentages and the ratios are both against readFileSync
  // on a terminal the ratio's column may be a part of its own beside the flags (100 columns)
  assert.match(stdout, /^Mode +Req\/s +% of readFileSync +Req\/s 95% CI( +Flags)?( +vs readFileSync)?$/m)
  assert.match(stdout, /^Mode .* vs readFileSync$/m)
  assert.match(stdout, /^readFile +[\d.]+ +\d+% +[\d.]+\.\.[\d.]+/m)
  assert.match(stdout, /^readFileSync +[\d.]+ +100% +[\d.]+\.\.[\d.]+/m)
  assert.match(stdout, /^fake async +[\d.]+ +\d+% +[\d.]+\.\.[\d.]+/m)
  assert.match(stdout, /^Also in summary\.md and report\.html: Time\/req ms, across ms\.$/m)
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
  const { code, stdout, stderr } = await runCli(['run', '--experiment', file, '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = await readJson(path.join(out, 'results.json'))
  assert.deepEqual(results.runs.map((r) => r.label), ['sync pool=1', 'async pool=1', 'sync pool=3', 'async pool=3'])
  assert.deepEqual(results.runs.map((r) => r.serverEnv.uvThreadpoolSize), ['1', '1', '3', '3'])
  assert.deepEqual(results.runs.map((r) => r.config.threadpoolSize), [1, 1, 3, 3])
  assert.deepEqual(results.experiments[0].comparisons, { 'async pool=1': 'sync pool=1', 'async pool=3': 'sync pool=3' })
  // One run each: no confidence interval column.
  assert.match(stdout, /^Configuration +Req\/s +vs baseline +of ceiling( +Flags)?$/m)
  // a ratio from one run says so (issue 10, item 7)
  assert.match(stdout, /^async pool=3 +[\d.]+ +[\d.]+x sync pool=3, one run: not a result +\d+%/m)
  assert.match(stdout, /^tiny: /m)
  // After a sweep, a text chart of req/s against the swept axis, one bar per strategy and value.
  assert.match(stdout, /^bcrypt cost 4 — requests\/s vs UV_THREADPOOL_SIZE$/m)
  assert.match(stdout, /^ {2}1 {2}sync +█+[▏▎▍▌▋▊▉]? +[\d.]+$/m)
  assert.match(stdout, /^ {5}async +█+[▏▎▍▌▋▊▉]? +[\d.]+$/m)
})

test('--workload serves and compares the module\'s handlers', async () => {
  const file = path.join(dir, 'handlers.mjs')
  await writeFile(file, `
    export function sync () { const end = Date.now() + 2; while (Date.now() < end); return 'done' }
    export async function async () { await new Promise((resolve) => setTimeout(resolve, 2)); return { done: true } }
  `)
  const out = path.join(dir, 'workload')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '-n', '20', '-c', '4', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
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
  await assert.rejects(access(path.join(out, 'report.html')), '--no-report writes no report.html')
  await assert.rejects(access(path.join(out, 'charts')), '--no-report writes no charts/')
  await access(path.join(out, 'summary.md'))
})

test('--target runs against a server already running (no server metrics from a plain server)', async () => {
  const server = await startHttpServer((req, res) => res.end('hi'))
  try {
    const file = path.join(dir, 'target.json')
    await writeFile(file, JSON.stringify({ name: 'remote', server: { app: 'lab' }, load: { requests: 5 }, variants: [{ label: 'a', path: '/a' }, { label: 'b', path: '/b' }] }))
    const out = path.join(dir, 'target')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--target', server.url, '--quiet', '--no-report', '--out', out])
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
    const { code, stderr } = await runCli(['run', '--experiment', file, '--target', server.servers[0].url, '--quiet', '--no-report', '--out', out])
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
    const { code, stdout, stderr } = await runCli(['run', 'nope', '--no-report', '--out', path.join(dir, 'e1')])
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, /^syncbench run: unknown experiment "nope" \(try: seed-bcrypt, /)
    oneLine(stderr)
    await assert.rejects(access(path.join(dir, 'e1')), 'nothing written')
  })
  await t.test('missing workload file', async () => {
    const { code, stderr } = await runCli(['run', '--workload', './missing.js', '--no-report'], { cwd: dir })
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench run: --workload \.\/missing\.js: no such file$/m)
    oneLine(stderr)
  })
  await t.test('workload module that throws', async () => {
    await writeFile(path.join(dir, 'throws.mjs'), 'throw new Error("boom at load")\n')
    const { code, stderr } = await runCli(['run', '--workload', 'throws.mjs', '--no-report'], { cwd: dir })
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench run: --workload throws\.mjs threw while loading: boom at load$/m)
    oneLine(stderr)
  })
  await t.test('workload module with no handler functions', async () => {
    await writeFile(path.join(dir, 'empty.mjs'), 'export const answer = 42\n')
    const { code, stderr } = await runCli(['run', '--workload', 'empty.mjs', '--no-report'], { cwd: dir })
    assert.equal(code, 1)
    assert.match(stderr, /^syncbench run: --workload empty\.mjs exports no handler functions \(export e\.g\. sync\(req\) and async\(req\)\)$/m)
    oneLine(stderr)
  })
  await t.test('an --experiment file that is neither .json nor a module is not executed (issue 12)', async () => {
    const marker = path.join(dir, 'executed')
    // extensionless, as /etc/hostname: import() would run it as CommonJS
    await writeFile(path.join(dir, 'hostname'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\n`)
    const { code, stdout, stderr } = await runCli(['run', '--experiment', 'hostname', '--no-report', '--out', path.join(dir, 'e7')], { cwd: dir })
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.equal(stderr, 'syncbench run: --experiment hostname: must be a .json file or a module (.js, .mjs, .cjs)\n')
    await assert.rejects(access(marker), 'the file was not run')
    await assert.rejects(access(path.join(dir, 'e7')), 'nothing written')
  })
  await t.test('an experiment name longer than 64 characters: refused before anything runs (issue 12)', async () => {
    const name = 'x'.repeat(65)
    await writeFile(path.join(dir, 'long.json'), JSON.stringify({ name, server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }] }))
    const { code, stdout, stderr } = await runCli(['run', '--experiment', 'long.json', '--no-report', '--out', path.join(dir, 'e8')], { cwd: dir })
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.equal(stderr, `syncbench run: --experiment long.json: name must be 1 to 64 letters, digits, "-", "_" or ".", got "${name}"\n`)
    await assert.rejects(access(path.join(dir, 'e8')), 'nothing written')
  })
  await t.test('bad option value', async () => {
    const { code, stderr } = await runCli(['run', '--runs', 'zero'])
    assert.equal(code, 2, 'a bad command line is a usage error')
    assert.match(stderr, /^syncbench run: --runs must be an integer from 1 to 1000, or auto, got "zero"$/m)
  })
  await t.test('a server that fails to start keeps the runs before it', async () => {
    // A port in use: what no validation can know before the run (a bad server arg is refused before anything runs).
    const busy = await startHttpServer((req, res) => res.end())
    const file = path.join(dir, 'fails.json')
    await writeFile(file, JSON.stringify({
      name: 'fails',
      server: { app: 'lab' },
      load: { requests: 3 },
      variants: [{ label: 'ok', path: '/wait/sync?ms=0' }, { label: 'broken', path: '/', server: { args: ['--port', String(busy.port)] } }]
    }))
    const out = path.join(dir, 'fails')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--quiet', '--no-report', '--out', out]).finally(() => busy.close())
    assert.equal(code, 1)
    const lines = stderr.trim().split('\n')
    assert.match(lines[lines.length - 1], /^syncbench run: .*EADDRINUSE/)
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
  // The second run would take 100 x 200 ms; the interrupt comes as soon as the first run's report is out
  // (on stdout with --verbose).
  const child = spawn(process.execPath, [binPath, 'run', '--experiment', file, '-n', '100', '--verbose', '--no-report', '--out', out], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const safety = setTimeout(() => child.kill('SIGKILL'), 60_000)
  let sent = false
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
    // Once: a second SIGINT ends syncbench at once.
    if (!sent && stdout.includes('(longest request)')) sent = child.kill('SIGINT')
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

/** pids of the live processes whose environment holds SB_TEST_MARK=<mark> (Linux /proc). */
async function markedProcesses (mark) {
  const pids = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let environ
    try {
      environ = await readFile(`/proc/${entry}/environ`, 'latin1')
      // A zombie keeps its /proc entry until reaped, with an empty environ: it is gone for our purpose.
    } catch {
      continue
    }
    if (environ.split('\0').includes(`SB_TEST_MARK=${mark}`)) pids.push(Number(entry))
  }
  return pids
}

/** Start the CLI as a terminal would: in its own process group, so the test can signal the whole group. */
function runDetached (args, mark) {
  const child = spawn(process.execPath, [binPath, ...args], {
    env: { ...process.env, NO_COLOR: '1', SB_TEST_MARK: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true
  })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (d) => { out.stdout += d; child.emit('output') })
  child.stderr.setEncoding('utf8').on('data', (d) => { out.stderr += d; child.emit('output') })
  const safety = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL') } catch {} }, 90_000)
  const closed = once(child, 'close').finally(() => clearTimeout(safety))
  /** Resolve once stdout or stderr satisfies `test` (checked on every chunk). */
  const output = (test) => new Promise((resolve, reject) => {
    const check = () => { if (test(out)) { child.off('output', check); resolve() } }
    child.on('output', check)
    closed.then(() => reject(new Error(`exited first: ${out.stderr}`)))
    check()
  })
  return { child, out, closed, output }
}

const linuxOnly = process.platform !== 'linux' && 'reads /proc'

test('Ctrl-C in a terminal (SIGINT to the whole process group): exit 130, partial run kept, no process left', { skip: linuxOnly }, async () => {
  const file = path.join(dir, 'group.mjs')
  const measuring = path.join(dir, 'group-measuring')
  // slow marks its 6th call: the 4 warm-up requests are over, the measured load of the second run is on.
  await writeFile(file, `import { writeFileSync } from 'node:fs'
    let calls = 0
    export function sync () { return 'quick' }
    export async function slow () {
      if (++calls === 6) writeFileSync(${JSON.stringify(measuring)}, '')
      await new Promise((resolve) => setTimeout(resolve, 200))
      return 'slow'
    }
  `)
  const out = path.join(dir, 'group')
  const mark = `group-${process.pid}-${Date.now()}`
  const run = runDetached(['run', '--workload', file, '-n', '100', '-c', '2', '--no-report', '--out', out], mark)
  await waitForFile(measuring)
  const before = await markedProcesses(mark)
  assert.ok(before.includes(run.child.pid))
  assert.ok(before.length >= 2, 'the CLI and its workload server')
  process.kill(-run.child.pid, 'SIGINT')
  const [code, signal] = await run.closed
  assert.equal(signal, null, run.out.stderr)
  assert.equal(code, 130, run.out.stderr)
  assert.match(run.out.stderr, /interrupted: partial/)
  const results = await readJson(path.join(out, 'results.json'))
  assert.equal(results.finishedAt, null)
  assert.deepEqual(results.runs.map((r) => r.label), ['sync', 'slow'])
  assert.equal(results.runs[0].load.completeRequests, 100)
  assert.equal(results.runs[1].error, null, 'the interrupt is not recorded as a failure')
  assert.ok(results.runs[1].load, 'the partial run\'s load is kept')
  assert.equal(results.runs[1].load.aborted, true)
  assert.ok(results.runs[1].load.completeRequests < 100)
  await access(path.join(out, 'summary.md'))
  // Neither the runner nor the servers it started (in their own groups) is left behind.
  assert.equal(await eventually(async () => (await markedProcesses(mark)).length === 0), true, 'no process left')
})

test('Ctrl-C during calibration is the interrupt: exit 130, results.json kept, the calibration child gone', { skip: linuxOnly }, async () => {
  const file = path.join(dir, 'calibrating.json')
  // bcrypt cost 16 takes seconds per hash: the calibration is surely still running when the signal comes.
  await writeFile(file, JSON.stringify({
    name: 'calibrating',
    server: { app: 'lab' },
    load: { requests: 2 },
    variants: [{ label: 'wait', path: '/wait/async?ms=1' }],
    calibration: { op: 'bcrypt', cost: 16 }
  }))
  const out = path.join(dir, 'calibrating')
  const mark = `calibrate-${process.pid}-${Date.now()}`
  const run = runDetached(['run', '--experiment', file, '--no-report', '--out', out], mark)
  // Wait for the calibration child itself (a process of this run other than the CLI).
  let calibrator
  while (!calibrator) {
    for (const pid of await markedProcesses(mark)) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
      if (cmdline.includes('calibrate-child.js')) calibrator = pid
    }
    if (!calibrator) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  process.kill(-run.child.pid, 'SIGINT')
  const [code] = await run.closed
  assert.equal(code, 130, run.out.stderr)
  assert.doesNotMatch(run.out.stderr, /calibration of bcrypt failed/)
  const results = await readJson(path.join(out, 'results.json'))
  assert.equal(results.finishedAt, null)
  assert.deepEqual(results.runs, [])
  await access(path.join(out, 'summary.md'))
  assert.deepEqual(await markedProcesses(mark), [])
})

test('a second Ctrl-C ends syncbench at once, servers included, even when a handler never returns', { skip: linuxOnly }, async (t) => {
  const file = path.join(dir, 'spin.mjs')
  const started = path.join(dir, 'spin-started')
  // The handler marks that it runs, then blocks its server for good: after the first Ctrl-C the runner
  // waits for metrics that never come (60 s); only the second Ctrl-C ends it.
  await writeFile(file, `import { writeFileSync } from 'node:fs'
    export function spin () { writeFileSync(${JSON.stringify(started)}, String(process.pid)); for (;;); }
  `)
  const out = path.join(dir, 'spin')
  const mark = `spin-${process.pid}-${Date.now()}`
  const run = runDetached(['run', '--workload', file, '-n', '2', '-c', '1', '--no-calibrate', '--no-report', '--out', out], mark)
  await waitForFile(started)
  const server = Number(await readFile(started, 'utf8'))
  // If syncbench fails to kill it, the spinning server must not outlive the test.
  t.after(() => { try { process.kill(server, 'SIGKILL') } catch {} })
  process.kill(-run.child.pid, 'SIGINT')
  await run.output((o) => /Ctrl-C again to quit at once/.test(o.stderr))
  process.kill(-run.child.pid, 'SIGINT')
  const [code, signal] = await run.closed
  // Ended by the default SIGINT action: a shell reports exit status 130.
  assert.equal(signal, 'SIGINT', `code ${code}: ${run.out.stderr}`)
  assert.equal((await readJson(path.join(out, 'results.json'))).finishedAt, null)
  // SIGKILL was sent before syncbench ended; its delivery to a process spinning on the other core is
  // asynchronous, so wait for the death (bounded) instead of reading the state at one instant.
  assert.equal(await eventually(async () => !(await alive(server))), true, 'the blocked server was killed')
  assert.equal(await eventually(async () => (await markedProcesses(mark)).length === 0), true, 'no process left')
})

test('a measured run that fails keeps the partial LoadResult beside the error', async () => {
  let served = 0
  // Answers the warm-up (4) and 3 measured requests, then resets every connection.
  const server = await startRawServer((socket) => {
    socket.once('data', (data) => {
      // The runner's metrics requests (/__syncbench/*) are not counted: a plain server has none.
      if (data.toString().includes(' /__syncbench/')) return socket.end('HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
      if (++served > 7) return socket.resetAndDestroy()
      socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
  })
  try {
    const file = path.join(dir, 'resets.json')
    await writeFile(file, JSON.stringify({ name: 'resets', server: { app: 'lab' }, load: { requests: 20, concurrency: 1 }, variants: [{ label: 'a', path: '/a' }] }))
    const out = path.join(dir, 'resets')
    const { code, stderr } = await runCli(['run', '--experiment', file, '--target', server.url, '--quiet', '--no-report', '--out', out])
    assert.equal(code, 1, stderr)
    const [run] = (await readJson(path.join(out, 'results.json'))).runs
    assert.equal(run.error.code, 'SB_ERR_CONNECT')
    assert.equal(run.load.completeRequests, 3)
    assert.equal(run.load.options.requests, 20)
  } finally {
    await server.close()
  }
})

/** Is `pid` running? A zombie (killed, not yet reaped by init) is not. */
async function alive (pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat)
}

/** Poll `check` until it is true (resolves true) or 10 s passed (resolves false): a safety net, not a measure. */
async function eventually (check) {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}

async function waitForFile (file) {
  for (;;) {
    try {
      return await access(file)
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
