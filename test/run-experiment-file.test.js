// Experiment files are validated completely before anything runs (issue 12): a bad field is one line
// naming it and its value, exit 1, and the --out folder is never created; the shape is
// schemas/experiment.schema.json, the rest the loader's semantic checks.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { access, readFile, writeFile } from 'node:fs/promises'
import { runCli, tempCacheDir } from './helper.js'
import { experiments as builtins } from '../lib/run/experiments.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'
import { experimentSchemaProblem, fieldPath } from '../lib/run/experiment-schema.js'
import { DEFAULT_RESPONSE_TIMEOUT } from '../lib/run/run-deadline.js'

/** @type {string} */
let dir
tempCacheDir('syncbench-experiment-file-', (d) => { dir = d })

/** A valid experiment that each case below breaks in one place. */
const good = () => ({
  name: 'ok',
  server: { app: 'lab' },
  load: { requests: 5, concurrency: 1 },
  variants: [{ label: 'a', path: '/wait/async?ms=1' }, { label: 'b', path: '/wait/sync?ms=1' }]
})

/** @type {[string, (e: any) => unknown, RegExp][]} case, how it breaks the experiment, what stderr says after "--experiment <file>: " */
const cases = [
  ['an unknown app', (e) => { e.server.app = 'nope' }, /^server\.app must be one of "seed-bcrypt", "seed-readfile", "lab", got string "nope"$/],
  ['neither app nor workload', (e) => { e.server = {} }, /^server must have one of app .*, workload .* and command .*, got none$/],
  ['both app and workload', (e) => { e.server.workload = './h.mjs' }, /^server must have one of app .*, workload .* and command .*, got app and workload$/],
  ['a missing workload module', (e) => { e.server = { workload: './missing.mjs' } }, /^server\.workload "\.\/missing\.mjs": no such file \(looked for .*missing\.mjs\)$/],
  ['an unknown top-level key', (e) => { e.warmUp = { requests: 2 } }, /^the experiment has an unexpected key "warmUp"$/],
  ['an unknown load key', (e) => { e.load.keepalive = true }, /^load has an unexpected key "keepalive" \(load options: requests, concurrency, .*keepAlive/],
  ['load.url', (e) => { e.load.url = 'http://127.0.0.1:1/' }, /^load\.url cannot be set/],
  ['load.keepAlive "yes"', (e) => { e.load.keepAlive = 'yes' }, /^load\.keepAlive must be true or false, got "yes"$/],
  ['load.concurrency 0', (e) => { e.load.concurrency = 0 }, /^load\.concurrency must be a positive integer, got "0"$/],
  ['load.streams without load.http2', (e) => { e.load.streams = 4 }, /^load\.streams applies to load\.http2 only \(concurrent streams per connection\), got "4"$/],
  ['server.args a string', (e) => { e.server.args = '--framework http' }, /^server\.args must be array, got string "--framework http"$/],
  ['server.args syncbench serve refuses', (e) => { e.server.args = ['--framework', 'koa'] }, /^configuration "a": server\.args: --framework must be express or http, got "koa"$/],
  ['server.env a number', (e) => { e.server.env = { UV_THREADPOOL_SIZE: 8 } }, /^server\.env\.UV_THREADPOOL_SIZE must be string, got number 8$/],
  ['a variant server\'s args', (e) => { e.variants[1].server = { args: ['--pool-size', '0'] } }, /^configuration "b": server\.args: --pool-size must be an integer from 1 to 256, got "0"$/],
  ['a variant server with a command server\'s key', (e) => { e.variants[1].server = { port: 80 } }, /^variants\[1\]\.server\.port applies to a server started by its command \(run --app\), not to app "lab"$/],
  ['a variant server with an unknown key', (e) => { e.variants[1].server = { host: '::1' } }, /^variants\[1\]\.server has an unexpected key "host"$/],
  ['a variant with an unknown key', (e) => { e.variants[0].strategy = 'sync' }, /^variants\[0\] has an unexpected key "strategy"$/],
  ['a variant without a path', (e) => { delete e.variants[0].path }, /^variants\[0\] must have one of path, request and mix, got none$/],
  ['a relative path', (e) => { e.variants[0].path = 'wait/async' }, /^variants\[0\]\.path must match pattern "\^\/\(\?!\/\)\\S\*\$", got string "wait\/async"$/],
  ['a label twice', (e) => { e.variants[1].label = 'a' }, /^variants\[1\]\.label "a" appears twice$/],
  ['no variant', (e) => { e.variants = [] }, /^variants must not be empty$/],
  ['axes.concurrency [0]', (e) => { e.axes = { concurrency: [0] } }, /^axes\.concurrency must be a positive integer, got "0"$/],
  ['axes.keepAlive "yes"', (e) => { e.axes = { keepAlive: ['yes'] } }, /^axes\.keepAlive must be true or false, got "yes"$/],
  ['axes.threadpoolSize 0', (e) => { e.axes = { threadpoolSize: [0] } }, /^axes\.threadpoolSize\[0\] must be >= 1, got number 0$/],
  ['an empty axis', (e) => { e.axes = { ms: [] } }, /^axes\.ms must not be empty$/],
  ['an axis value twice', (e) => { e.axes = { ms: [1, 1] } }, /^axes\.ms has the same value twice/],
  ['too many configurations', (e) => { e.axes = { a: range(100), b: range(100), c: range(2) } }, /^variants x axes make 40000 configurations, at most 10000$/],
  ['a serverAxes value syncbench serve refuses', (e) => { e.axes = { delay: [1, 99999] }; e.serverAxes = { delay: '--delay' }; e.server = { app: 'seed-readfile', args: ['--only', 'fake-async'] } },
    /^configuration "a delay=99999": server\.args: --delay must be an integer from 0 to 10000, got "99999"$/],
  ['serverAxes naming no axis', (e) => { e.serverAxes = { delay: '--delay' } }, /^serverAxes\.delay names no axis \(axes: none\)$/],
  ['calibration.op unknown', (e) => { e.calibration = { op: 'scrypt' } }, /^calibration\.op must be one of "bcrypt", "bcryptjs", "readfile", got string "scrypt"$/],
  ['calibration.cost too high', (e) => { e.calibration = { op: 'bcrypt', cost: 31 } }, /^calibration\.cost must be <= 17, got number 31$/],
  ['calibration.cost for readfile', (e) => { e.calibration = { op: 'readfile', cost: 8 } }, /^calibration\.cost applies to bcrypt and bcryptjs, not readfile/],
  ['warmup.requests a string', (e) => { e.warmup = { requests: '4' } }, /^warmup\.requests must be a positive integer, got "4"$/],
  ['warmup with an unknown key', (e) => { e.warmup = { requests: 4, keepAlive: true } }, /^warmup has an unexpected key "keepAlive"$/],
  ['a baseline naming no variant', (e) => { e.baseline = 'sync' }, /^baseline "sync" names no variant \(labels: a, b\)$/],
  ['a reference naming no variant', (e) => { e.reference = 'c' }, /^reference "c" names no variant \(labels: a, b\)$/],
  ['table unknown', (e) => { e.table = 'fancy' }, /^table must be one of "seed-001", "seed-002", "generic", "thread-cost", "rate-sweep", "h2-head-of-line", "app", "scan", got string "fancy"$/],
  ['runs 0', (e) => { e.runs = 0 }, /^runs must be >= 1, got number 0$/],
  ['a 300-character name', (e) => { e.name = 'n'.repeat(300) }, /^name must be 1 to 64 letters, digits, "-", "_" or "\.", got "n{77}\.\.\."$/],
  ['a name with a slash', (e) => { e.name = 'a/b' }, /^name must be 1 to 64 letters/]
]

/** @param {number} n */
function range (n) { return Array.from({ length: n }, (_, i) => i) }

test('bad experiment files: one line naming the field and the value, exit 1, no --out folder', async () => {
  const failures = []
  // a few at a time: each case is a real CLI process
  for (let i = 0; i < cases.length; i += 4) {
    await Promise.all(cases.slice(i, i + 4).map(async ([name, breakIt, expected], j) => {
      const experiment = good()
      breakIt(experiment)
      const file = `bad-${i + j}.json`
      await writeFile(path.join(dir, file), JSON.stringify(experiment))
      const out = path.join(dir, `out-${i + j}`)
      const { code, stdout, stderr } = await runCli(['run', '--experiment', file, '--out', out, '-q', '--no-report'], { cwd: dir })
      const prefix = `syncbench run: --experiment ${file}: `
      const line = stderr.startsWith(prefix) ? stderr.slice(prefix.length).replace(/\n$/, '') : stderr
      const created = await access(out).then(() => true, () => false)
      if (code !== 1 || stdout !== '' || !stderr.startsWith(prefix) || stderr.trim().includes('\n') || !expected.test(line) || created) {
        failures.push(`${name}: exit ${code}, out folder ${created ? 'created' : 'absent'}, stderr ${JSON.stringify(stderr)}`)
      }
    }))
  }
  assert.deepEqual(failures, [])
})

test('the valid experiment the cases break runs (the cases fail for their one change)', async () => {
  await writeFile(path.join(dir, 'good.json'), JSON.stringify(good()))
  const out = path.join(dir, 'good-out')
  const { code, stderr } = await runCli(['run', '--experiment', 'good.json', '--out', out, '-q', '--no-report', '--no-calibrate'], { cwd: dir })
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.deepEqual(results.runs.map((/** @type {{ label: string }} */ r) => r.label), ['a', 'b'])
  // syncbench run's default per-response deadline reached the engine (lib/run/run-deadline.js)
  assert.equal(results.runs[0].load.options.responseTimeout, DEFAULT_RESPONSE_TIMEOUT)
})

test('a .json experiment file with a UTF-8 byte order mark is read (issue 12)', async () => {
  await writeFile(path.join(dir, 'bom.json'), '\uFEFF' + JSON.stringify(good()))
  const out = path.join(dir, 'bom-out')
  const { code, stderr } = await runCli(['run', '--experiment', 'bom.json', '--out', out, '-q', '--no-report', '--no-calibrate', '-n', '2'], { cwd: dir })
  assert.equal(code, 0, stderr)
  assert.equal(JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')).runs.length, 2)
})

test('two experiments of one run with the same name: refused before anything runs', async () => {
  await writeFile(path.join(dir, 'twice.json'), JSON.stringify([good(), good()]))
  const out = path.join(dir, 'twice-out')
  const { code, stderr } = await runCli(['run', '--experiment', 'twice.json', '--out', out, '-q'], { cwd: dir })
  assert.equal(code, 1)
  assert.equal(stderr, 'syncbench run: two experiments are named "ok": each experiment of a run needs its own name\n')
  await assert.rejects(access(out))
})

test('every built-in experiment matches schemas/experiment.schema.json and the loader\'s checks', () => {
  for (const e of builtins) {
    assert.equal(experimentSchemaProblem(e), null, e.name)
    assert.doesNotThrow(() => validateExperiment(e, e.name))
  }
})

test('field paths read as an author writes them', () => {
  assert.equal(fieldPath(''), 'the experiment')
  assert.equal(fieldPath('/variants/0/server/args/1'), 'variants[0].server.args[1]')
  assert.equal(fieldPath('/axes/a~1b'), 'axes.a/b')
})
