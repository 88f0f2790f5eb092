// The --workload server through its parent-side API (lib/lab/spawn.js forking lib/lab/server-child.js
// with lib/lab/workload-host.js): handler names, bad paths, blocked handlers, start failures.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { spawnWorkloadServer } from '../lib/lab/spawn.js'
import { loadWorkload } from '../lib/run/experiment-loader.js'
import { httpGet } from './helper.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-workload-')) })
after(() => rm(dir, { recursive: true, force: true }))

const gone = (child) => child.exitCode !== null || child.signalCode !== null

test('loadWorkload lists the handlers without importing the module into this process', async () => {
  const loads = path.join(dir, 'loads.txt')
  const file = path.join(dir, 'side-effects.mjs')
  // Top-level side effects: a record of which process ran them, and a timer that would keep a process alive.
  await writeFile(file, `import { appendFileSync } from 'node:fs'
    appendFileSync(${JSON.stringify(loads)}, process.pid + '\\n')
    setInterval(() => {}, 1000)
    export function async () { return 'a' }
    export function sync () { return 's' }
  `)
  const experiment = await loadWorkload(file, dir)
  assert.deepEqual(experiment.variants.map((v) => v.label), ['sync', 'async'], 'sync first, as the baseline')
  assert.equal(experiment.baseline, 'sync')
  const pids = (await readFile(loads, 'utf8')).trim().split('\n').map(Number)
  assert.equal(pids.length, 1)
  assert.notEqual(pids[0], process.pid)
  assert.throws(() => process.kill(pids[0], 0), { code: 'ESRCH' }, 'the child ended despite the module\'s timer')
})

test('the ready message names the handlers; a malformed path is a 400 and the server keeps serving', async () => {
  const file = path.join(dir, 'ok.mjs')
  await writeFile(file, 'export const hello = () => "hi"\nexport default { json: () => ({ ok: true }) }\n')
  const server = await spawnWorkloadServer({ workload: file })
  try {
    assert.deepEqual(server.handlers.sort(), ['hello', 'json'])
    const url = server.servers[0].url
    const bad = await httpGet(`${url}/%E0%A4%A`)
    assert.equal(bad.status, 400)
    assert.match(bad.body, /bad request path/)
    assert.equal((await httpGet(`${url}/hello`)).body, 'hi')
    assert.equal((await httpGet(`${url}/json`)).body, '{"ok":true}')
    assert.equal((await httpGet(`${url}/nope`)).status, 404)
    const metrics = await server.metrics()
    assert.equal(metrics.requests, 4)
  } finally {
    await server.stop()
  }
})

test('a handler that blocks forever: metrics() times out, stop() kills it, later metrics() fail at once', async () => {
  const file = path.join(dir, 'block.mjs')
  const blocking = path.join(dir, 'blocking')
  await writeFile(file, `import { writeFileSync } from 'node:fs'
    export function block () { writeFileSync(${JSON.stringify(blocking)}, ''); for (;;); }
  `)
  let child
  const server = await spawnWorkloadServer({ workload: file, metricsTimeoutMs: 300, stopGraceMs: 300, onChild: (c) => { child = c } })
  try {
    httpGet(`${server.servers[0].url}/block`, { timeoutMs: 60_000 }).catch(() => {})
    // The metrics request must come after the handler started blocking, or it would be answered first.
    while (!(await access(blocking).then(() => true, () => false))) await new Promise((resolve) => setTimeout(resolve, 10))
    await assert.rejects(server.metrics(), { code: 'SB_ERR_SERVER_METRICS', message: /did not answer a metrics request within 300 ms/ })
  } finally {
    // A blocked server never sees its IPC channel close: only a kill ends it.
    await server.stop()
  }
  assert.equal(child.signalCode, 'SIGKILL', 'SIGTERM cannot run in a blocked loop: the grace period ends in SIGKILL')
  await assert.rejects(server.metrics(), { code: 'SB_ERR_SERVER_EXITED', message: /is not running/ })
})

test('start failures: one message each, and the child has exited when the promise rejects', async (t) => {
  const cases = [
    ['throws.mjs', 'throw new Error("boom at load")\n', /^--workload throws\.mjs threw while loading: boom at load$/],
    ['none.mjs', 'export const x = 1\n', /^--workload none\.mjs exports no handler functions/],
    ['exits.mjs', 'process.exit(3)\n', /exited \(code 3\) before it was ready/]
  ]
  for (const [name, source, message] of cases) {
    await t.test(name, async () => {
      const file = path.join(dir, name)
      await writeFile(file, source)
      let child
      await assert.rejects(spawnWorkloadServer({ workload: file, label: name, onChild: (c) => { child = c } }), { message })
      assert.ok(gone(child), 'no child left running')
    })
  }
})
