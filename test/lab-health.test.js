// GET /__syncbench/health on every app syncbench serves (the seeds, the lab under both frameworks, a
// --workload module), each a real server child: "ok", not counted as the app's request, and served by
// the app's own event loop, so it waits while a sync handler blocks that loop (what the probe measures).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { spawnServer, spawnWorkloadServer } from '../lib/lab/spawn.js'
import { HEALTH_PATH } from '../lib/lab/http-host.js'
import { httpGet } from './helper.js'
import { completionOrder } from './fixtures/completion-order.js'

/** @type {{ stop: () => Promise<void> }[]} */
const started = []
after(() => Promise.all(started.map((s) => s.stop())))

/**
 * Every server of a child answers the health route, and it does not count in the app's requests.
 * @param {Awaited<ReturnType<typeof spawnServer>>} child
 */
async function assertHealthy (child) {
  started.push(child)
  assert.ok(child.servers.length > 0)
  for (const server of child.servers) {
    const res = await httpGet(server.url + HEALTH_PATH)
    assert.equal(res.status, 200, `${server.name}: status`)
    assert.equal(res.body, 'ok\n', `${server.name}: body`)
    assert.match(String(res.headers['content-type']), /^text\/plain/)
    const head = await httpGet(server.url + HEALTH_PATH + '?from=probe', { method: 'HEAD' })
    assert.equal(head.status, 200, `${server.name}: HEAD with a query`)
    const window = await child.metrics({ server: server.name })
    assert.equal(window.requests, 0, `${server.name}: the health route is not the app's request`)
  }
}

test('seed-bcrypt answers /__syncbench/health beside /sync and /async', async () => {
  await assertHealthy(await spawnServer({ app: 'seed-bcrypt' }))
})

test('seed-readfile: each of its three servers answers /__syncbench/health', async () => {
  const child = await spawnServer({ app: 'seed-readfile', args: ['--file-size', '1024'] })
  assert.equal(child.servers.length, 3)
  await assertHealthy(child)
})

test('the lab answers /__syncbench/health under express and node:http, and lists it', async () => {
  for (const framework of ['express', 'http']) {
    const child = await spawnServer({ app: 'lab', args: ['--framework', framework] })
    await assertHealthy(child)
    const listing = JSON.parse((await httpGet(child.servers[0].url + '/')).body)
    assert.equal(listing.health, HEALTH_PATH)
  }
})

test('a --workload module is served with /__syncbench/health too', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-health-'))
  after(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'handlers.mjs')
  await writeFile(file, 'export const hello = () => "hi"\n')
  await assertHealthy(await spawnWorkloadServer({ workload: file }))
})

test('the health route waits while a sync handler blocks the loop, not while an async one waits: the same event loop serves it', async () => {
  const child = await spawnServer({ app: 'lab', args: ['--framework', 'http'] })
  started.push(child)
  const base = child.servers[0].url
  // only the order of completion is asserted (test/fixtures/completion-order.js), never a duration
  assert.deepEqual(await completionOrder(base, ['/wait/sync?ms=300'], HEALTH_PATH), ['slow0', 'quick'])
  assert.deepEqual(await completionOrder(base, ['/wait/async?ms=300'], HEALTH_PATH), ['quick', 'slow0'])
})
