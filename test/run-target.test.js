// --target: one server already running stands for the servers an experiment would start. It can stand for
// one only: configurations that need different servers (seed-readfile's three, a sweep of
// UV_THREADPOOL_SIZE) are refused; what is measured is labelled with the target, and a target without
// syncbench's metrics route says so instead of printing an empty server-metrics table.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { runCli, startHttpServer } from './helper.js'
import { checkTarget } from '../lib/run/target.js'
import { builtinExperiment } from '../lib/run/experiment-loader.js'

let dir
let server
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-target-'))
  server = await startHttpServer((req, res) => {
    res.setHeader('Server', 'plain-test/1.0')
    res.end('hi')
  })
})
after(async () => {
  await server.close()
  await rm(dir, { recursive: true, force: true })
})

test('the default experiments against one --target: refused in one line, nothing run or written', async () => {
  const { code, stdout, stderr } = await runCli(['run', '--target', server.url, '-n', '5'], { cwd: dir })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr.trim().split('\n').length, 1, stderr)
  assert.match(stderr, /^syncbench run: --target stands for one server, but these configurations need 4 different ones: /)
  assert.match(stderr, /seed-readfile\/readFile \(seed-readfile --only readfile\)/)
  assert.match(stderr, /seed-readfile\/readFileSync \(seed-readfile --only readfilesync\)/)
  assert.match(stderr, /seed-bcrypt\/sync, seed-bcrypt\/async \(seed-bcrypt\)/)
  assert.deepEqual(await readdir(dir), [], 'no results folder')
})

test('seed-readfile, threadpool-sweep and delay-sweep need several servers each; seed-bcrypt and the lab sweeps one', () => {
  assert.throws(() => checkTarget([builtinExperiment('seed-readfile')]), { code: 'SB_ERR_INVALID_OPTION', message: /need 3 different ones/ })
  assert.throws(() => checkTarget([builtinExperiment('threadpool-sweep')]), { message: /need 5 different ones: threadpool-sweep\/async pool=1 \(lab, UV_THREADPOOL_SIZE=1\)/ })
  // delay-sweep runs the article's server once per delay (--delay is a server option)
  assert.throws(() => checkTarget([builtinExperiment('delay-sweep')]), { message: /need 6 different ones: delay-sweep\/fake-async delay=0 \(seed-readfile --only fake-async --delay 0\)/ })
  for (const name of ['seed-bcrypt', 'concurrency-sweep', 'strategies']) checkTarget([builtinExperiment(name)])
  assert.throws(() => checkTarget([builtinExperiment('seed-bcrypt'), builtinExperiment('strategies')]), /need 2 different ones/)
})

test('seed-bcrypt against a --target: labelled with the target, no empty server-metrics table', async () => {
  const out = path.join(dir, 'bcrypt')
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '--target', server.url, '-n', '5', '-c', '1', '--runs', '1', '-q', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const at = `at --target ${server.url} (Server: plain-test/1.0), not a server syncbench started`
  // (the title wraps at 100 columns: its words, then the table's header)
  assert.ok(stdout.replace(/\s+/g, ' ').includes(`seed-bcrypt: Seed 001: bcrypt hashSync vs hash in Express, ${at} Metrics `), stdout)
  assert.match(stdout, /^Metrics +sync +async$/m)
  assert.doesNotMatch(stdout, /server metrics \(measured window\)/, 'no table of empty columns')
  assert.ok(stdout.includes('seed-bcrypt: no server metrics: the --target server does not answer /__syncbench/metrics\n'), stdout)
  assert.ok(stdout.includes(`seed-bcrypt (at --target ${server.url}): async is `), 'the verdict names what was measured')

  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.experiments[0].target, server.url)
  assert.equal(results.experiments[0].calibration, undefined, 'no ceiling: the target is not the calibrated operation')
  const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.ok(summary.includes(at), summary)
  assert.ok(summary.includes('no server metrics: the --target server does not answer /__syncbench/metrics'), summary)
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.ok(html.includes(`at --target ${server.url}`), 'report.html labels it too')
  assert.doesNotMatch(html, /server metrics \(measured window\)/)
})

test('a --target with credentials: refused in one line, nothing run or written (issue 12)', async () => {
  const cwd = await mkdtemp(path.join(dir, 'creds-'))
  const target = `http://user:pw@127.0.0.1:${server.port}/`
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '--target', target, '-n', '5'], { cwd })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  // the credentials starred (issue 32)
  assert.equal(stderr, `syncbench run: --target cannot carry credentials (set an Authorization header in the experiment's load.headers), got "http://***@127.0.0.1:${server.port}/"\n`)
  assert.deepEqual(await readdir(cwd), [], 'no results folder')
})

test('a variant path starting with "//" (a host, were it resolved as a URL) is refused before anything is sent', async () => {
  /** @type {string[]} */
  const onTarget = []
  let elsewhere = 0
  const target = await startHttpServer((req, res) => { onTarget.push(/** @type {string} */ (req.url)); res.end('ok') })
  const other = await startHttpServer((req, res) => { elsewhere++; res.end('other') })
  try {
    const cwd = await mkdtemp(path.join(dir, 'slashes-'))
    const experiment = { name: 'slashes', server: { app: 'lab' }, variants: [{ label: 'a', path: `//127.0.0.1:${other.port}/x` }], load: { requests: 3, concurrency: 1 }, warmup: { requests: 1, concurrency: 1 } }
    await writeFile(path.join(cwd, 'slashes.json'), JSON.stringify(experiment))
    const { code, stderr } = await runCli(['run', '--experiment', 'slashes.json', '--target', target.url, '--runs', '1', '-q', '--no-report', '--out', path.join(cwd, 'out')], { cwd, timeoutMs: 60_000 })
    assert.equal(code, 1, stderr)
    assert.match(stderr, /^syncbench run: --experiment slashes\.json: variants\[0\]\.path must match pattern .*, got string "\/\/127\.0\.0\.1:\d+\/x"\n$/)
    assert.equal(elsewhere, 0, 'no request reached the other server')
    assert.deepEqual(onTarget, [], 'nothing sent to the target either')
  } finally {
    await target.close()
    await other.close()
  }
})
