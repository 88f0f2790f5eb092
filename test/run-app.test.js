// syncbench run --app: a user's own server started by a command, its port found by the preload
// (lib/lab/instrument.js), measured at each --path in a fresh process per run, and "Where the event
// loop went" naming the blocking function; an app that crashes, never listens or exits mid-run is one
// line naming its last stderr lines, the run recorded as failed, and no process left behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises'
import { readFileSync, readdirSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { pbkdf2Sync } from 'node:crypto'
import { binPath, closedPort, runCli, tempCacheDir } from './helper.js'
import { parseCommand } from '../lib/lab/command.js'
import { parseAppOption } from '../lib/run/experiment-loader.js'
import { BLOCKING_DELAY_MS } from '../lib/analysis/profile.js'

const apps = fileURLToPath(new URL('./fixtures/apps/', import.meta.url))
const root = fileURLToPath(new URL('..', import.meta.url))
let dir
tempCacheDir('syncbench-app-', (d) => { dir = d })

/** @param {string} pid */
function alive (pid) {
  try {
    process.kill(Number(pid), 0)
    return true
  } catch {
    return false
  }
}

/**
 * Poll until `check` is true or `ms` passed.
 * @param {() => boolean} check
 * @param {number} ms
 */
async function waitUntil (check, ms) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) return false
    await delay(50)
  }
  return true
}

test('a command is split without a shell (quotes kept), and given to a shell when it needs one', () => {
  assert.deepEqual(parseCommand('node server.js --name "my app" \'a b\''), { file: 'node', args: ['server.js', '--name', 'my app', 'a b'], shell: false })
  assert.deepEqual(parseCommand('node -e "console.log(1|2)"'), { file: 'node', args: ['-e', 'console.log(1|2)'], shell: false })
  for (const needsShell of ['npm run build && node dist/app.js', 'PORT=0 node app.js', 'node app.js > out.log', 'node $APP']) {
    assert.deepEqual(parseCommand(needsShell), { file: needsShell, args: [], shell: true }, needsShell)
  }
  assert.throws(() => parseCommand('node "app.js'), /--app has an unclosed " quote, got "node "app.js"/)
})

test('--app NAME=COMMAND names an app; a command alone is named after its script', () => {
  assert.deepEqual(parseAppOption(['before=node v1.js', 'node server.js', 'npm start', 'node server.js', 'HASH_ITERATIONS=10 node app.js']),
    [{ name: 'before', command: 'node v1.js' }, { name: 'server', command: 'node server.js' }, { name: 'npm', command: 'npm start' }, { name: 'server-2', command: 'node server.js' },
      { name: 'app', command: 'HASH_ITERATIONS=10 node app.js' }])
})

for (const [args, message] of [
  [['--app', ''], /^syncbench run: --app needs a command, e\.g\. .*got ""$/],
  [['--app', 'a=node x.js', '--app', 'a=node y.js'], /^syncbench run: --app names "a" twice, got "a=node y\.js"$/],
  [['--app', 'node "x.js'], /^syncbench run: --app x has an unclosed " quote/],
  [['--app', 'node x.js', '--path', 'report'], /^syncbench run: --path must be a path such as \/report .*got "report"$/],
  [['--app', 'node x.js', '--port', '0'], /^syncbench run: --port must be an integer from 1 to 65535, got "0"$/],
  [['--path', '/a'], /^syncbench run: --path applies to --app only, got "\/a"$/],
  [['--profile'], /^syncbench run: --profile applies to --app only$/],
  [['--app', 'node x.js', '--target', 'http://127.0.0.1:1/'], /^syncbench run: --target cannot go with --app/]
]) {
  test(`bad --app input is one line and exit 2: ${args.join(' ')}`, async () => {
    const out = path.join(dir, `bad-${Math.random().toString(36).slice(2)}`)
    const { code, stderr, stdout } = await runCli(['run', ...args, '--out', out])
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '')
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
    assert.match(stderr.trim(), message)
    await assert.rejects(readdir(out), { code: 'ENOENT' }, 'nothing written')
  })
}

/**
 * pbkdf2Sync iterations that take about `cpuMs` of CPU time on this machine. CPU time, not wall time: a
 * busy machine only makes the app's hash take longer than measured here, never shorter.
 * @param {number} cpuMs
 */
function hashIterationsFor (cpuMs) {
  const probe = 50_000
  let least = Infinity
  for (let i = 0; i < 3; i++) {
    const before = process.cpuUsage()
    pbkdf2Sync('secret', 'salt', probe, 32, 'sha256')
    const used = process.cpuUsage(before)
    least = Math.min(least, (used.user + used.system) / 1000)
  }
  return Math.ceil(probe * cpuMs / Math.max(least, 0.1))
}

// About 60 ms of pbkdf2Sync per request, whatever the machine's speed. A block of B ms reads as a loop
// delay of about B - 10 ms (the 10 ms ticker runs just before the poll phase that runs the handler), so
// the profile's 20 ms threshold needs blocks past 30 ms: a fixed 100000 iterations hashed in 20 ms on
// an idle core here, and /hash counted as blocking only when two requests shared a loop turn.
const BLOCKING_ITERATIONS = String(hashIterationsFor(60))
const frameworks = [
  ['node:http', 'node test/fixtures/apps/http-app.js', 'test/fixtures/apps/http-app.js:8', true],
  ['Express', 'node test/fixtures/apps/express-app.js', 'test/fixtures/apps/express-app.js:8', false],
  ['Fastify', 'node test/fixtures/apps/fastify-app.cjs', 'test/fixtures/apps/fastify-app.cjs:10', true],
  ['Koa', 'node test/fixtures/apps/koa-app.js', 'test/fixtures/apps/koa-app.js:11', true]
]
for (const [framework, command, where, noReport] of frameworks) {
  test(`${framework}: run --app finds the port, measures both routes, and names the blocking function first`, async () => {
    const out = path.join(dir, framework.replace(/\W/g, ''))
    const { code, stdout, stderr } = await runCli(['run', '--app', command, '--path', '/hash', '--path', '/hash-async', '-n', '30', '-c', '2', '--profile',
      '--out', out, ...(noReport ? ['--no-report'] : [])], { cwd: root, env: { HASH_ITERATIONS: BLOCKING_ITERATIONS }, timeoutMs: 110_000 })
    assert.equal(code, 0, stderr)
    const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
    assert.deepEqual(results.runs.map((r) => r.label), ['/hash', '/hash-async'])
    for (const run of results.runs) {
      assert.equal(run.error, null)
      assert.equal(run.load.completeRequests, 30, run.id)
      assert.equal(run.load.failedRequests, 0, run.id)
      assert.equal(run.load.statusCodes['200'], 30, run.id)
      // The preload counted the app's own requests in the window: the measured 30, not the warm-up's.
      assert.equal(run.server.requests, 30, run.id)
      assert.ok(run.server.series.t.length > 0, run.id)
      assert.ok(run.profile.samples > 0, run.id)
      assert.ok((await readdir(path.join(out, 'profiles'))).includes(path.basename(run.profile.file)), run.profile.file)
    }
    const [hash, hashAsync] = results.runs
    // the call: pbkdf2Sync (Node's crypto) from hashPasswordSlowly at the line of the call, the line after its first
    const [file, line] = where.split(':')
    const call = `pbkdf2Sync (node:crypto) from hashPasswordSlowly at ${file}:${Number(line) + 1}`
    const first = hash.profile.self[0]
    assert.deepEqual({ entry: first.entry, caller: first.caller, via: first.via },
      { entry: { name: 'pbkdf2Sync', package: 'node:crypto' }, caller: { name: 'hashPasswordSlowly', location: where, line: Number(line) + 1 }, via: 'run' })
    // What blocks is what the blocking windows hold: the sync route's loop was late, its hash is first.
    assert.ok(Math.max(...hash.server.series.loopDelayMaxMs) > BLOCKING_DELAY_MS, `the loop was late past the threshold: ${hash.server.series.loopDelayMaxMs}`)
    assert.ok(hash.server.loopBlocks.spans.length > 0, `the metrics recorded when the loop was held: ${JSON.stringify(hash.server.loopBlocks)}`)
    assert.ok(hash.profile.blocking.ms > 0, `a sample inside a blocking span (startOffsetMs lines them up): ${JSON.stringify(hash.server.loopBlocks)}`)
    assert.equal(hash.profile.blocking.self[0].caller?.name, 'hashPasswordSlowly')
    // Every hash held the loop past the threshold, so (nearly) all of its samples are inside the spans; the
    // series' estimate, which placed each block at its 100 ms sample's end, had lost up to half of them.
    const hashSelf = hash.profile.self[0].ms
    assert.ok(hash.profile.blocking.self[0].ms >= 0.9 * hashSelf, `${hash.profile.blocking.self[0].ms} of the hash's ${hashSelf} ms counted as blocking: ${JSON.stringify(hash.server.loopBlocks)}`)
    assert.ok(hash.profile.inclusive.some((e) => e.name === 'pbkdf2Sync' && e.location.startsWith('node:')))
    // The async route never runs the hash on the main thread.
    assert.equal(hashAsync.profile.self.find((e) => e.caller?.name === 'hashPasswordSlowly'), undefined)
    const lines = stdout.split('\n')
    const at = lines.indexOf('Where the event loop went (self time by call, your line first; share of the measured window):')
    assert.ok(at >= 0, stdout)
    // the terminal's line fits 100 columns: a long path loses its middle ("test/…/apps/x.js:9"), never its file and line
    const fitted = `pbkdf2Sync \\(node:crypto\\) from hashPasswordSlowly at \\S*${path.basename(file).replace(/\./g, '\\.')}:${Number(line) + 1}`
    assert.match(lines[at + 1], new RegExp(`^  /hash +\\d+\\.\\d%  ${fitted}$`))
    assert.ok(lines[at + 1].length <= 100, lines[at + 1])
    const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
    assert.match(summary, /### Where the event loop went/)
    const late = lateShares(summary)
    assert.ok(Math.abs(late.verdict - late.section) <= (late.verdict < 10 ? 0.1 : 0.55), `one figure: ${JSON.stringify(late)}`)
    assert.match(summary, new RegExp(`\\*\\*/hash: main thread [\\d.]+% busy[^\\n]*\\n\\n\\| call[^\\n]*\\n\\|[^\\n]*\\n\\| ${call.replace(/[.()]/g, '\\$&')} \\|`))
    if (!noReport) {
      const html = await readFile(path.join(out, 'report.html'), 'utf8')
      assert.match(html, /<h3 id="app-event-loop">Where the event loop went<\/h3>/)
      assert.match(html, /<td>pbkdf2Sync \(node:crypto\) from hashPasswordSlowly at test\/fixtures\/apps\/express-app\.js:9<\/td>/)
    }
    const log = await readFile(path.join(out, 'apps', `${path.basename(command.split(' ')[1]).replace(/\.[^.]+$/, '')}.log`), 'utf8')
    assert.equal(log.match(/^# syncbench: .* starting /gm)?.length, 2, 'one start line per run in the app log')
  })
}

// The share of the window the loop was late, as the verdict gives it ("late 24% of the window") and as
// summary.md's "where the event loop went" does ("... for 24.3% of it"): one figure, each rounded its way.
/** @param {string} summary */
function lateShares (summary) {
  const verdict = /late (\d+(?:\.\d)?)% of the window/.exec(summary)
  const section = /the loop was late by more than \d+ ms for (\d+\.\d)% of it/.exec(summary)
  assert.ok(verdict && section, summary)
  return { verdict: Number(verdict[1]), section: Number(section[1]) }
}

test('--profile stalls no measured window: an idle app with a large heap shows no blocking span, and the verdict and summary.md agree', async () => {
  // Starting V8's profiler holds this app's loop about 100 ms (it walks the heap); started inside the window,
  // that was a blocking span at the window's start, "late 24% of the window" for an app that blocks nothing.
  // An idle loop is late too while a machine whose cores are all busy does not run it: up to three tries,
  // each a fresh app, with a short window (the stall, when there was one, came at every window's start).
  const tries = []
  for (let i = 1; i <= 3; i++) {
    const out = path.join(dir, `idle-heap-${i}`)
    const { code, stderr } = await runCli(['run', '--app', 'node --expose-gc test/fixtures/apps/heap-app.js', '-n', '40', '-c', '1', '--profile', '--no-report', '--out', out],
      { cwd: root, timeoutMs: 60_000 })
    assert.equal(code, 0, stderr)
    const [run] = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')).runs
    assert.equal(run.server.requests, 40)
    // the app's heap is large: its profiler start is the slow one
    assert.ok(run.server.memory.heapUsedBytes > 100 * 2 ** 20, `heap ${run.server.memory.heapUsedBytes}`)
    assert.ok(run.profile.samples > 0)
    // whatever the machine did, the verdict and summary.md give one figure
    const late = lateShares(await readFile(path.join(out, 'summary.md'), 'utf8'))
    assert.ok(Math.abs(late.verdict - late.section) <= (late.verdict < 10 ? 0.1 : 0.55), `one figure: ${JSON.stringify(late)}`)
    tries.push({ run, late })
    if (run.server.loopBlocks.spans.length === 0) break
  }
  const { run, late } = tries[tries.length - 1]
  assert.deepEqual(run.server.loopBlocks.spans, [], `a blocking span in each of ${tries.length} tries: ${tries.map((t) => JSON.stringify(t.run.server.loopBlocks.spans)).join(', ')}`)
  assert.ok(run.server.eventLoopDelay.max <= BLOCKING_DELAY_MS, `loop max ${run.server.eventLoopDelay.max} ms`)
  assert.deepEqual(run.profile.blocking, { thresholdMs: BLOCKING_DELAY_MS, ms: 0, self: [] })
  assert.deepEqual(late, { verdict: 0, section: 0 })
  // The profile ran from before the warm-up: its file keeps the window's samples, those counted.
  const profile = JSON.parse(await readFile(path.join(dir, `idle-heap-${tries.length}`, run.profile.file), 'utf8'))
  assert.equal(profile.samples.length, run.profile.samples)
  assert.ok((profile.endTime - profile.startTime) / 1000 <= run.server.windowMs + 0.001, `${profile.startTime} to ${profile.endTime} in a window of ${run.server.windowMs} ms`)
})

test('--app before=... --app after=...: each path of after is compared with before, interleaved; a shell command and npm start work', async () => {
  const work = path.join(dir, 'npm-app')
  await mkdir(work, { recursive: true })
  await writeFile(path.join(work, 'package.json'), JSON.stringify({ name: 'npm-app', private: true, type: 'module', scripts: { start: `node ${JSON.stringify(path.join(apps, 'http-app.js'))}` } }))
  const out = path.join(dir, 'before-after')
  const { code, stdout, stderr } = await runCli(['run', '--app', `before=HASH_ITERATIONS=2000 node ${path.join(apps, 'http-app.js')}`, '--app', 'after=npm start --silent',
    '--path', '/hash', '-n', '20', '-c', '1', '--runs', '2', '--no-report', '--out', out], { cwd: work, env: { HASH_ITERATIONS: '30000' }, timeoutMs: 110_000 })
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.deepEqual(results.runs.map((r) => r.id), ['app/before /hash#1', 'app/after /hash#1', 'app/before /hash#2', 'app/after /hash#2'])
  assert.deepEqual(results.experiments[0].comparisons, { 'after /hash': 'before /hash' })
  for (const run of results.runs) assert.equal(run.load.completeRequests, 20, run.id)
  assert.match(stdout, /after \/hash is [\d.]+x before \/hash/)
  // No --profile: no profile, no section.
  assert.ok(results.runs.every((r) => r.profile === undefined))
  assert.doesNotMatch(stdout, /Where the event loop went/)
})

test('an app that crashes on start: one line with its last stderr lines, the run failed, exit 1', async () => {
  const out = path.join(dir, 'crash')
  const { code, stderr } = await runCli(['run', '--app', 'node test/fixtures/apps/crash-app.js', '-n', '10', '--no-report', '--out', out], { cwd: root })
  assert.equal(code, 1, stderr)
  assert.match(stderr, /^syncbench run: app\/\/#1: app "crash-app" exited \(code 1\) before it listened; its last stderr lines: loading configuration from \.\/config\.json \| throw new Error\('config\.json: no such file'\) \| Error: config\.json: no such file$/m)
  assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace')
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs[0].error.code, 'SB_ERR_SERVER_START')
  assert.match(await readFile(path.join(out, 'apps', 'crash-app.log'), 'utf8'), /Error: config\.json: no such file/)
})

test('a command that does not exist: one line naming it', async () => {
  const out = path.join(dir, 'enoent')
  const { code, stderr } = await runCli(['run', '--app', 'no-such-command-for-syncbench --port 1', '--no-report', '--out', out], { cwd: root })
  assert.equal(code, 1, stderr)
  assert.match(stderr, /^syncbench run: app\/\/#1: app "no-such-command-for-syncbench" could not run "no-such-command-for-syncbench": no such command \(ENOENT\)$/m)
  assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace')
})

test('an app that never listens: ended after --start-timeout, one line, no process left', async () => {
  const out = path.join(dir, 'silent')
  const pidFile = path.join(dir, 'silent.pid')
  const { code, stderr } = await runCli(['run', '--app', 'node test/fixtures/apps/silent-app.js', '--start-timeout', '1', '-n', '10', '--no-report', '--out', out],
    { cwd: root, env: { APP_PID_FILE: pidFile } })
  assert.equal(code, 1, stderr)
  assert.match(stderr, /^syncbench run: app\/\/#1: app "silent-app" did not listen with an HTTP server within 1 s \(--start-timeout\); its last stderr lines: waiting for the database\.\.\.$/m)
  assert.equal(alive(readFileSync(pidFile, 'utf8')), false, 'the app was ended')
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs[0].error.code, 'SB_ERR_SERVER_START')
})

test('an app that exits mid-run: one line with its last stderr lines, the run failed with its partial load', async () => {
  const out = path.join(dir, 'exit')
  const { code, stderr } = await runCli(['run', '--app', 'node test/fixtures/apps/exit-app.js', '-n', '50', '-c', '1', '--no-report', '--out', out],
    { cwd: root, env: { EXIT_AFTER: '12' } })
  assert.equal(code, 1, stderr)
  assert.match(stderr, /^syncbench run: app\/\/#1: app "exit-app" exited \(code 3\) while it was measured; its last stderr lines: out of memory after 12 requests \(simulated\)$/m)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs[0].error.code, 'SB_ERR_SERVER_EXITED')
  // 4 warm-up requests, then 8 of the measured ones before the exit.
  assert.equal(results.runs[0].load.completeRequests, 8)
})

/**
 * Live processes whose command line names `marker` (zombies excluded).
 * @param {string} marker
 */
function processesNaming (marker) {
  const found = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) continue
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name))
    } catch {}
  }
  return found
}

test('SIGKILL to syncbench run while the app blocks in a handler: the app (and the shell that started it) end within 5 s',
  { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const work = path.join(dir, 'sigkill')
    await mkdir(work, { recursive: true })
    const pidFile = path.join(work, 'app.pid')
    await writeFile(path.join(work, 'blocking-app.mjs'), `import http from 'node:http'
import { writeFileSync } from 'node:fs'
function spinForever () { for (;;) {} }
http.createServer(() => { writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); spinForever() }).listen(Number(process.env.PORT), '127.0.0.1')
`)
    // "&& true": a shell stays between the server child and node, in the app's process group.
    const runner = spawn(process.execPath, [binPath, 'run', '--app', `node ${path.join(work, 'blocking-app.mjs')} && true`, '-n', '5', '-c', '1', '--no-report', '--out', path.join(work, 'out')],
      { stdio: 'ignore' })
    const exited = once(runner, 'exit')
    const started = await waitUntil(() => { try { return readFileSync(pidFile, 'utf8') !== '' } catch { return false } }, 30_000)
    if (!started) runner.kill('SIGKILL')
    assert.ok(started, 'the handler ran')
    assert.ok(processesNaming(work).length >= 3, 'server child, shell and app run before the signal')
    runner.kill('SIGKILL')
    await exited
    const gone = await waitUntil(() => processesNaming(work).length === 0, 5000)
    const left = processesNaming(work)
    for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
    assert.ok(gone, `left: ${left.join(', ')}`)
  })

test('two runs of one --app name (two versions of an app) go through compare --fail-if-slower: exit 3 when the second is slower', async () => {
  const run = async (name, iterations) => {
    const out = path.join(dir, `gate-${name}`)
    const { code, stderr } = await runCli(['run', '--app', 'app=node test/fixtures/apps/http-app.js', '--path', '/hash', '-n', '10', '-c', '1', '--runs', '3', '--no-report', '-q', '--out', out],
      { cwd: root, env: { HASH_ITERATIONS: iterations }, timeoutMs: 110_000 })
    assert.equal(code, 0, stderr)
    return out
  }
  const base = await run('base', '1000')
  const slow = await run('slow', '100000')
  const { code, stdout, stderr } = await runCli(['compare', base, slow, '--fail-if-slower', '5%'])
  assert.equal(code, 3, stdout + stderr)
  assert.match(stdout, /^app +\/hash .*slower: [\d.]+%\.\.[\d.]+% slower, beyond 5%$/m)
})

test('one interleaved run of --app before=... --app after=... goes through compare of its one file: exit 3 when after is slower', async () => {
  // docs/ci.md's recipe: the base and the pull request in one run, then the gate on its results
  const out = path.join(dir, 'gate-one-run')
  const app = 'node test/fixtures/apps/http-app.js'
  const { code, stderr } = await runCli(['run', '--app', `before=HASH_ITERATIONS=1000 ${app}`, '--app', `after=HASH_ITERATIONS=100000 ${app}`,
    '--path', '/hash', '-n', '10', '-c', '1', '--runs', '3', '--no-report', '-q', '--out', out], { cwd: root, timeoutMs: 110_000 })
  assert.equal(code, 0, stderr)
  const gate = await runCli(['compare', out, '--fail-if-slower', '5%'])
  assert.equal(gate.code, 3, gate.stdout + gate.stderr)
  assert.match(gate.stdout, /^app +\/hash \(after vs before\) .*slower: [\d.]+%\.\.[\d.]+% slower, beyond 5%$/m)
})

test('--port: an app the preload cannot see (NODE_OPTIONS cleared, as a non-Node server) is loaded at that port, without metrics or profile', async () => {
  const port = await closedPort()
  const out = path.join(dir, 'port')
  const { code, stdout, stderr } = await runCli(['run', '--app', 'NODE_OPTIONS= node test/fixtures/apps/http-app.js', '--port', String(port), '--path', '/hash', '-n', '10', '-c', '1', '--profile', '--no-report', '--out', out],
    { cwd: root, env: { HASH_ITERATIONS: '1000' } })
  assert.equal(code, 0, stderr)
  const [run] = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')).runs
  assert.equal(run.load.completeRequests, 10)
  assert.equal(run.load.server.port, port)
  assert.equal(run.server, null)
  assert.equal(run.profile, null)
  assert.doesNotMatch(stdout, /Where the event loop went/)
})

test('Ctrl-C while an app the preload cannot see ignores SIGTERM (as a non-Node server may): the runner still ends its process group', async () => {
  const work = path.join(dir, 'sigint-term')
  await mkdir(work, { recursive: true })
  const pidFile = path.join(work, 'app.pid')
  await writeFile(path.join(work, 'stubborn-app.mjs'), `import http from 'node:http'
import { writeFileSync } from 'node:fs'
process.on('SIGTERM', () => {})
http.createServer((req, res) => { setTimeout(() => res.end('late'), 60000) }).listen(Number(process.env.PORT), '127.0.0.1', () => writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)))
`)
  const port = await closedPort()
  const runner = spawn(process.execPath, [binPath, 'run', '--app', `NODE_OPTIONS= node ${path.join(work, 'stubborn-app.mjs')}`, '--port', String(port), '-n', '5', '-c', '1', '--no-report', '--out', path.join(work, 'out')],
    { stdio: 'ignore' })
  const exited = once(runner, 'exit')
  const started = await waitUntil(() => { try { return readFileSync(pidFile, 'utf8') !== '' } catch { return false } }, 30_000)
  if (!started) runner.kill('SIGKILL')
  assert.ok(started, 'the app listened')
  const pid = readFileSync(pidFile, 'utf8')
  // The warm-up's first request waits 60 s: the run is under way.
  await delay(500)
  runner.kill('SIGINT')
  const [code] = await exited
  assert.equal(code, 130)
  const gone = await waitUntil(() => !alive(pid), 5000)
  if (!gone) process.kill(Number(pid), 'SIGKILL')
  assert.ok(gone, 'the app that ignored SIGTERM was ended')
})
