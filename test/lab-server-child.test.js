// lib/lab/server-child.js, the one module forked as a server under test: each kind of app it starts,
// the protocol of lib/lab/ipc.js spoken to it directly, the handler-names query, and start failures
// that carry the child's last stderr lines.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { spawnServer, spawnWorkloadServer, queryWorkloadHandlers } from '../lib/lab/spawn.js'
import { READY, METRICS, ERROR } from '../lib/lab/ipc.js'
import { ServerStartError, SyncbenchError } from '../lib/errors.js'
import { httpGet } from './helper.js'

const childPath = fileURLToPath(new URL('../lib/lab/server-child.js', import.meta.url))
const gone = (child) => child.exitCode !== null || child.signalCode !== null
const linuxOnly = process.platform !== 'linux' && 'reads /proc'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-child-')) })
after(() => rm(dir, { recursive: true, force: true }))

/**
 * Fork the server child by hand, as a parent speaking the protocol would, collecting its messages.
 * @param {object} spec
 */
function forkByHand (spec) {
  const child = fork(childPath, [JSON.stringify(spec)], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const messages = []
  const waiting = []
  child.on('message', (m) => {
    messages.push(m)
    for (const w of waiting.splice(0)) w()
  })
  const next = async (type) => {
    for (;;) {
      const found = messages.find((m) => m.type === type)
      if (found) return found
      await new Promise((resolve) => waiting.push(resolve))
    }
  }
  return { child, next, stderr: () => stderr, exited: once(child, 'exit') }
}

const kinds = [
  ['seed-bcrypt', () => spawnServer({ app: 'seed-bcrypt' }), '/async', 200],
  ['lab', () => spawnServer({ app: 'lab', args: ['--framework', 'http', '--pool-size', '1', '--file-size', '1k', '--cache-dir', dir] }), '/wait/async?ms=0', 200],
  ['seed-readfile --only', () => spawnServer({ app: 'seed-readfile', args: ['--only', 'readfile', '--file-size', '1k', '--cache-dir', dir] }), '/', 200],
  ['a workload module', async () => {
    const file = path.join(dir, 'kind.mjs')
    await writeFile(file, 'export const hello = () => "hi"\n')
    return spawnWorkloadServer({ workload: file })
  }, '/hello', 200]
]
for (const [kind, start, route, status] of kinds) {
  test(`${kind}: the forked process is lib/lab/server-child.js; ready gives the address; metrics count the requests; SIGTERM ends it`, async () => {
    const server = await start()
    try {
      assert.equal(server.ready.type, READY)
      assert.deepEqual(server.address, { host: '127.0.0.1', port: server.servers[0].port })
      assert.equal(server.servers[0].url, `http://127.0.0.1:${server.address.port}`)
      assert.equal(typeof server.env.node, 'string')
      if (process.platform === 'linux') {
        const argv = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0')
        assert.equal(argv[1], childPath, 'the server child, not bin/syncbench.js')
      }
      await server.metrics({ reset: true })
      assert.equal((await httpGet(`${server.servers[0].url}${route}`)).status, status)
      assert.equal((await server.metrics()).requests, 1)
    } finally {
      await server.stop()
    }
    assert.throws(() => process.kill(server.pid, 0), { code: 'ESRCH' })
  })
}

test('the protocol by hand: ready with address and servers, a metrics request answered by id, SIGTERM exits 0', async () => {
  const c = forkByHand({ app: 'seed-bcrypt', args: ['--port', '0'] })
  try {
    const ready = await c.next(READY)
    assert.deepEqual(Object.keys(ready).sort(), ['address', 'env', 'servers', 'type'])
    assert.deepEqual(ready.address, { host: '127.0.0.1', port: ready.servers[0].port })
    assert.deepEqual(ready.servers, [{ name: 'seed-bcrypt', url: `http://127.0.0.1:${ready.address.port}`, port: ready.address.port }])
    c.child.send({ type: METRICS, id: 7, reset: true })
    const answer = await c.next(METRICS)
    assert.equal(answer.id, 7)
    assert.equal(typeof answer.metrics.windowMs, 'number')
    assert.equal(answer.metrics.requests, 0)
    c.child.kill('SIGTERM')
    const [code, signal] = await c.exited
    assert.equal(signal, null)
    assert.equal(code, 0)
  } finally {
    if (!gone(c.child)) c.child.kill('SIGKILL')
  }
})

test('the protocol by hand: the child stops when its parent\'s channel closes', async () => {
  const c = forkByHand({ app: 'lab', args: ['--port', '0', '--framework', 'http', '--pool-size', '1', '--cache-dir', dir] })
  try {
    const ready = await c.next(READY)
    c.child.disconnect()
    const [code] = await c.exited
    assert.equal(code, 0)
    await assert.rejects(httpGet(ready.servers[0].url + '/'), { code: 'ECONNREFUSED' })
  } finally {
    if (!gone(c.child)) c.child.kill('SIGKILL')
  }
})

test('the protocol by hand: a spec that names nothing, or bad serve options, is an error message without id, then exit 1', async () => {
  for (const [spec, code, message] of [
    [{}, 'SB_ERR_SERVER_START', /needs an app or a workload/],
    [{ app: 'lab', args: ['--pool-size', 'many'] }, 'SB_ERR_INVALID_OPTION', /^--pool-size must be an integer from 1 to 256, got "many"$/]
  ]) {
    const c = forkByHand(spec)
    const error = await c.next(ERROR)
    assert.equal(error.id, undefined)
    assert.equal(error.code, code)
    assert.match(error.message, message)
    const [exitCode] = await c.exited
    assert.equal(exitCode, 1)
  }
})

test('a child that dies before ready: SB_ERR_SERVER_START naming its last stderr line, and its last lines on the error', async () => {
  const file = path.join(dir, 'dies.mjs')
  await writeFile(file, 'console.error("first line")\nconsole.error("second line")\nconsole.error("listen EACCES: no way")\nprocess.exit(5)\n')
  let child
  const err = await spawnWorkloadServer({ workload: file, onChild: (c) => { child = c } }).then(() => null, (e) => e)
  assert.ok(err instanceof ServerStartError)
  assert.ok(err instanceof SyncbenchError)
  assert.equal(err.name, 'SyncbenchError')
  assert.equal(err.code, 'SB_ERR_SERVER_START')
  assert.equal(err.message, 'the server exited (code 5) before it was ready: listen EACCES: no way')
  assert.deepEqual(err.stderr, ['first line', 'second line', 'listen EACCES: no way'])
  assert.ok(gone(child))
})

test('a start failure the child reports itself keeps its one-line message; the stderr lines ride along', async () => {
  const file = path.join(dir, 'noisy-throws.mjs')
  await writeFile(file, 'console.error("loading noisy")\nthrow new Error("boom at load")\n')
  await assert.rejects(spawnWorkloadServer({ workload: file, label: 'noisy-throws.mjs' }), (err) => {
    assert.equal(err.code, 'SB_ERR_EXPERIMENT')
    assert.equal(err.message, '--workload noisy-throws.mjs threw while loading: boom at load')
    assert.deepEqual(err.stderr, ['loading noisy'])
    return true
  })
})

test('the handler-names query: the names, the module run in the child only, and the child gone when it resolves', async () => {
  const file = path.join(dir, 'names.mjs')
  const record = path.join(dir, 'names-pid')
  await writeFile(file, `import { writeFileSync } from 'node:fs'
    writeFileSync(${JSON.stringify(record)}, String(process.pid))
    setInterval(() => {}, 1000)
    export function sync () { return 's' }
    export default { viaDefault () { return 'd' } }
  `)
  let child
  const names = await queryWorkloadHandlers({ workload: file, onChild: (c) => { child = c } })
  assert.deepEqual(names.sort(), ['sync', 'viaDefault'])
  assert.equal(Number(await readFile(record, 'utf8')), child.pid, 'the module ran in the child only')
  assert.ok(gone(child), 'the child ended despite the module\'s timer')
  assert.equal(child.signalCode, 'SIGTERM')
})

test('the handler-names query fails as a server start would: SB_ERR_EXPERIMENT for an unusable module', async () => {
  const file = path.join(dir, 'names-none.mjs')
  await writeFile(file, 'export const x = 1\n')
  let child
  await assert.rejects(queryWorkloadHandlers({ workload: file, label: 'names-none.mjs', onChild: (c) => { child = c } }), {
    code: 'SB_ERR_EXPERIMENT',
    message: /^--workload names-none\.mjs exports no handler functions/
  })
  assert.ok(gone(child))
})

test('seed-readfile without --only: the child supervises three server children of its own', { skip: linuxOnly }, async () => {
  const server = await spawnServer({ app: 'seed-readfile', args: ['--file-size', '1k', '--cache-dir', dir] })
  try {
    assert.deepEqual(server.address, { host: '127.0.0.1', port: server.servers[0].port })
    const { execFileSync } = await import('node:child_process')
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number)
    for (const pid of children) {
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
      assert.equal(argv[1], childPath)
      assert.equal(JSON.parse(argv[2]).app, 'seed-readfile')
    }
  } finally {
    await server.stop()
  }
})
