// The live read of a server under test (lib/lab/ipc.js's `syncbench:live`, lib/lab/metrics.js live()):
// the figures since the previous live read, answered without touching the measurement window, by every
// kind of server: in-process, a lab server child, a user's own app relayed through its instrument, and
// null for an app found by --port that nothing measures.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServerMetrics } from '../lib/lab/metrics.js'
import { spawnServer, spawnAppServer } from '../lib/lab/spawn.js'
import { closedPort, httpGet } from './helper.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-live-'))
after(() => rm(dir, { recursive: true, force: true }))

const FIELDS = ['t', 'intervalMs', 'requests', 'loopDelayMaxMs', 'loopDelayP99Ms', 'elu', 'cpuPercent', 'rssBytes']

/** Hold this thread for `ms`. @param {number} ms */
function busy (ms) {
  const end = performance.now() + ms
  while (performance.now() < end);
}

test('live(): the figures since the previous live read; the window keeps its requests, its blocks and its start', () => {
  const metrics = createServerMetrics()
  try {
    metrics.reset()
    metrics.requests += 3
    const first = metrics.live()
    assert.deepEqual(Object.keys(first).sort(), [...FIELDS].sort())
    // the first read covers the window so far
    assert.equal(first.intervalMs, first.t)
    assert.equal(first.requests, 3)
    metrics.requests += 2
    // the loop held 60 ms since the last tick: the read sees at least 50 ms of delay (60 less the tick's 10)
    busy(60)
    const second = metrics.live()
    assert.equal(second.requests, 2)
    assert.ok(second.loopDelayMaxMs >= 50, `loop delay ${second.loopDelayMaxMs}`)
    assert.ok(second.intervalMs >= 60)
    assert.ok(second.elu > 0 && second.elu <= 1, `elu ${second.elu}`)
    assert.ok(second.cpuPercent > 0, `cpu ${second.cpuPercent}`)
    assert.ok(second.rssBytes > 0)
    // the window saw everything the live reads saw: they reset nothing
    const window = metrics.read()
    assert.equal(window.requests, 5)
    assert.ok(window.eventLoopDelay.max >= 50, `window's loop delay ${window.eventLoopDelay.max}`)
    assert.ok(window.windowMs >= first.intervalMs + second.intervalMs)
    assert.ok(window.loopBlocks && window.loopBlocks.spans.length >= 1, 'the block is in the window')
    // a reset between two live reads: the requests before it stay counted
    metrics.requests += 4
    metrics.reset()
    metrics.requests += 1
    assert.equal(metrics.live().requests, 5)
  } finally {
    metrics.close()
  }
})

test('a lab server child answers live reads over IPC, its metrics window untouched', async () => {
  const server = await spawnServer({ app: 'lab', args: ['--framework', 'http'] })
  try {
    const { url } = server.servers[0]
    await server.metrics({ reset: true })
    const first = await server.live()
    assert.ok(first)
    assert.deepEqual(Object.keys(first).sort(), [...FIELDS].sort())
    assert.equal(first.requests, 0)
    for (let i = 0; i < 3; i++) assert.equal((await httpGet(`${url}/wait/async?ms=1`)).status, 200)
    const second = await server.live()
    assert.equal(second?.requests, 3)
    for (let i = 0; i < 2; i++) assert.equal((await httpGet(`${url}/wait/async?ms=1`)).status, 200)
    const window = await server.metrics()
    assert.equal(window.requests, 5, 'the live reads reset nothing')
  } finally {
    await server.stop()
  }
})

test('a user\'s app (--app) answers through its instrument; with --port and nothing instrumented the answer is null', async () => {
  const app = path.join(dir, 'app.mjs')
  await writeFile(app, "import http from 'node:http'\nhttp.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')\n")
  const handle = await spawnAppServer({ command: `${process.execPath} ${app}`, name: 'app', log: path.join(dir, 'app.log') })
  try {
    const { url } = handle.servers[0]
    await handle.metrics({ reset: true })
    await handle.live()
    for (let i = 0; i < 2; i++) assert.equal((await httpGet(url + '/')).body, 'ok')
    const second = await handle.live()
    assert.equal(second?.requests, 2)
    assert.ok((second?.rssBytes ?? 0) > 0)
    assert.equal((await handle.metrics()).requests, 2)
  } finally {
    await handle.stop()
  }
  // a TCP server, not an HTTP one: the instrument measures nothing, and --port finds the port
  const plain = path.join(dir, 'plain.mjs')
  await writeFile(plain, "import net from 'node:net'\nnet.createServer((s) => s.end()).listen(Number(process.env.PORT), '127.0.0.1')\n")
  const port = await closedPort()
  const unmeasured = await spawnAppServer({ command: `${process.execPath} ${plain}`, name: 'plain', log: path.join(dir, 'plain.log'), port })
  try {
    assert.equal(await unmeasured.live(), null)
  } finally {
    await unmeasured.stop()
  }
})
