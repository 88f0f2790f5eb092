// Experiment definitions into configurations and run order; validation of user definitions.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, writeFile, rm } from 'node:fs/promises'
import { expandExperiment, baselines, schedule } from '../lib/run/plan.js'
import { validateExperiment, listExperiments, builtinExperiment, loadExperimentFile } from '../lib/run/experiment-loader.js'
import { SyncbenchError } from '../lib/errors.js'

test('every built-in experiment is valid and expands', () => {
  for (const e of listExperiments()) {
    const v = validateExperiment(e, e.name)
    assert.ok(expandExperiment(v).length >= v.variants.length, e.name)
  }
  assert.equal(expandExperiment(builtinExperiment('concurrency-sweep')).length, 3 * 7)
})

test('axes go where they belong: load, UV_THREADPOOL_SIZE at spawn, or the query string', () => {
  const e = validateExperiment({
    name: 'x',
    server: { app: 'lab', env: { FOO: '1' } },
    load: { requests: 10, concurrency: 5 },
    variants: [{ label: 'a', path: '/bcrypt/async?cost=4', config: { strategy: 'async', workload: 'bcrypt' } }, { label: 'b', path: '/wait/sync', config: { strategy: 'sync', workload: 'bcrypt' } }],
    axes: { threadpoolSize: [1, 8], concurrency: [2], delay: [5] },
    baseline: 'b'
  }, 'test')
  const configs = expandExperiment(e, { requests: 3 })
  assert.deepEqual(configs.map((c) => c.label), ['a pool=1 c=2 delay=5', 'b pool=1 c=2 delay=5', 'a pool=8 c=2 delay=5', 'b pool=8 c=2 delay=5'])
  const [first] = configs
  assert.equal(first.path, '/bcrypt/async?cost=4&delay=5')
  assert.deepEqual(first.server.env, { FOO: '1', UV_THREADPOOL_SIZE: '1' })
  assert.equal(first.load.concurrency, 2)
  assert.equal(first.load.requests, 3, '-n overrides the definition')
  assert.deepEqual(first.config, { strategy: 'async', workload: 'bcrypt', threadpoolSize: 1, concurrency: 2, delay: 5, requests: 3, keepAlive: false })
  assert.deepEqual(Object.fromEntries(baselines(e, configs)), { 'a pool=1 c=2 delay=5': 'b pool=1 c=2 delay=5', 'a pool=8 c=2 delay=5': 'b pool=8 c=2 delay=5' })
})

test('delay-sweep: the article\'s fake-async server at each --delay, compared with delay 0, readFileSync once beside it', () => {
  const e = validateExperiment(builtinExperiment('delay-sweep'), 'delay-sweep')
  const configs = expandExperiment(e)
  assert.deepEqual(configs.map((c) => c.label), [...[0, 1, 2, 5, 10].map((d) => `fake-async delay=${d}`), 'readFileSync'])
  assert.ok(configs.every((c) => c.path === '/' && c.server.app === 'seed-readfile'))
  assert.deepEqual(configs.map((c) => c.server.args), [...[0, 1, 2, 5, 10].map((d) => ['--only', 'fake-async', '--delay', String(d)]), ['--only', 'readfilesync']])
  assert.deepEqual(configs.map((c) => [c.load.requests, c.load.concurrency]), configs.map(() => [1000, 100]))
  assert.equal(configs[5].config.delay, undefined, 'the reference runs outside the sweep')
  const map = baselines(e, configs)
  assert.equal(map.get('fake-async delay=10'), 'fake-async delay=0')
  assert.equal(map.has('readFileSync'), false)
})

test('thread-cost: the pool size is a server option; one event loop, run once, is every pool\'s baseline', () => {
  const e = validateExperiment(builtinExperiment('thread-cost'), 'thread-cost')
  const configs = expandExperiment(e)
  assert.deepEqual(configs.map((c) => c.label), ['worker pool=1', 'worker pool=2', 'worker pool=5', 'worker pool=10', 'worker pool=20', 'async'])
  assert.deepEqual(configs[4].server.args, ['--framework', 'http', '--pool-size', '20'])
  assert.equal(configs[4].path, '/wait/worker?ms=10')
  assert.equal(configs[4].load.concurrency, 20, 'thread per request at the top')
  assert.deepEqual(configs[5].server.args, ['--framework', 'http'])
  const map = baselines(e, configs)
  for (const c of configs.slice(0, 5)) assert.equal(map.get(c.label), 'async')
})

test('serverAxes must name an axis and a serve option', () => {
  const base = { name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }], axes: { delay: [1] } }
  assert.throws(() => validateExperiment({ ...base, serverAxes: { poolSize: '--pool-size' } }, 'f.json'), { code: 'SB_ERR_EXPERIMENT', message: /serverAxes.poolSize names no axis/ })
  assert.throws(() => validateExperiment({ ...base, serverAxes: { delay: 'delay' } }, 'f.json'), { code: 'SB_ERR_EXPERIMENT', message: /serverAxes\.delay must match pattern "\^--\[a-z\]\[a-z0-9-\]\*\$", got string "delay"/ })
  assert.throws(() => validateExperiment({ ...base, variants: [{ label: 'a', path: '/', sweep: 'no' }] }, 'f.json'), { code: 'SB_ERR_EXPERIMENT', message: /variants\[0\]\.sweep must be boolean, got string "no"/ })
})

test('the strategies experiment compares within each workload', () => {
  const e = validateExperiment(builtinExperiment('strategies'), 'strategies')
  const map = baselines(e, expandExperiment(e))
  assert.equal(map.get('readfile stream'), 'readfile sync')
  assert.equal(map.get('bcryptjs async'), 'bcrypt sync')
  assert.equal(map.get('wait worker'), 'wait sync')
})

test('runs are interleaved: every configuration once, then again', () => {
  const order = schedule([{ label: 'a' }, { label: 'b' }], 3).map((r) => `${r.configuration.label}${r.repeat}`)
  assert.deepEqual(order, ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'])
})

test('bad definitions are named in one line', () => {
  const bad = (e, pattern) => assert.throws(() => validateExperiment(e, 'file.json'), (err) => err instanceof SyncbenchError && err.code === 'SB_ERR_EXPERIMENT' && pattern.test(err.message))
  bad(null, /^file\.json: an experiment must be an object$/)
  bad({ name: 'a b' }, /name must be/)
  bad({ name: 'x', server: {}, variants: [{ label: 'a', path: '/' }] }, /server must have one of app .*, workload .* and command .*, got none/)
  bad({ name: 'x', server: { app: 'lab' }, variants: [] }, /variants must not be empty/)
  bad({ name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: 'nope' }] }, /variants\[0\]\.path must match pattern "\^\/\(\?!\/\)\\S\*\$", got string "nope"/)
  bad({ name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }, { label: 'a', path: '/' }] }, /"a" appears twice/)
  bad({ name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }], load: { requests: 0 } }, /load\.requests must be a positive integer, got "0"/)
  bad({ name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }], axes: { c: 3 } }, /axes\.c must be array, got number 3/)
  assert.throws(() => builtinExperiment('nope'), /unknown experiment "nope"/)
})

test('an experiment module: default export, one or an array; a workload path is relative to the file', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-exp-'))
  try {
    await writeFile(path.join(dir, 'two.mjs'), `export default [
      { name: 'a', server: { app: 'lab' }, variants: [{ label: 'x', path: '/wait/sync' }] },
      { name: 'b', server: { workload: './h.mjs' }, variants: [{ label: 'sync', path: '/sync' }] }
    ]`)
    await writeFile(path.join(dir, 'h.mjs'), 'export function sync () { return "ok" }\n')
    const list = await loadExperimentFile('two.mjs', dir)
    assert.deepEqual(list.map((e) => e.name), ['a', 'b'])
    assert.equal(list[0].table, 'generic')
    assert.deepEqual(list[0].warmup, { requests: 4, concurrency: 2 })
    assert.equal(list[1].server.workload, path.join(dir, 'h.mjs'))
    await writeFile(path.join(dir, 'throws.mjs'), 'throw new Error("bad file")')
    await assert.rejects(loadExperimentFile('throws.mjs', dir), /^SyncbenchError: --experiment throws\.mjs cannot be loaded: bad file$/)
    await writeFile(path.join(dir, 'bad.json'), '{ nope')
    await assert.rejects(loadExperimentFile('bad.json', dir), /--experiment bad\.json cannot be loaded/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
