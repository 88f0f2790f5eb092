// The property that makes "async is 1.9x sync" mean something: under an asynchronous strategy a slow
// request in flight does not hold up a quick one sent after it; under a blocking one it does. Checked
// for every route of the lab and for both seed apps, as real `syncbench serve` children, by the ORDER in
// which responses end (test/fixtures/completion-order.js), never by a duration, so a loaded machine
// cannot flip the outcome. Each slow request is a fraction of a second of work.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { httpGet } from './helper.js'
import { completionOrder, serve } from './fixtures/completion-order.js'

// One file for the lab and the seeds: generated once (256 MiB: a read of some 100 ms or more, which
// the asynchronous strategies spread over many turns of the event loop), removed after.
const SIZE = '256m'
let cacheDir
before(async () => { cacheDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-async-property-')) })
after(() => rm(cacheDir, { recursive: true, force: true }))

// A slow parameter (a few hundred ms of work on this kind of machine) and a tiny one, per workload.
const slow = { bcrypt: 'cost=12', bcryptjs: 'cost=12', readfile: `size=${SIZE}`, pbkdf2: 'iterations=1000000', wait: 'ms=400' }
const tiny = { bcrypt: 'cost=4', bcryptjs: 'cost=4', readfile: 'size=1k', pbkdf2: 'iterations=1', wait: 'ms=0' }

// Where each strategy runs its work: off the event loop or in slices (the quick request overtakes the
// slow one), or on the event loop in one piece (it waits behind it).
const overtakes = { async: true, promises: true, stream: true, worker: true, sync: false, 'fake-async': false, immediate: false }

/**
 * The quick request. For a strategy that does not block, GET / (the route listing: no work at all)
 * must not wait for the slow request. For a blocking one, the same route with a tiny parameter: its work
 * is queued behind the slow one's in the same place (fake-async: the same timer list, whose timers run
 * in the order they were set; immediate: the check queue), so "after" holds even when the quick request
 * reaches the server before the slow one's timer or immediate has run.
 */
function quickPath (route) {
  if (overtakes[route.strategy]) return '/'
  return `${route.path}?${tiny[route.workload]}${route.strategy === 'fake-async' ? '&delay=0' : ''}`
}

describe('lab: every route keeps (or blocks) the event loop as its strategy says', () => {
  let server
  let routes
  before(async () => {
    server = await serve(['lab', '--file-size', SIZE, '--pool-size', '2', '--cache-dir', cacheDir])
    routes = JSON.parse((await httpGet(server.urls[0] + '/')).body).routes
    // the tiny readfile size is generated on its first request: not during a measured one
    assert.equal((await httpGet(`${server.urls[0]}/readfile/sync?${tiny.readfile}`)).status, 200)
  })
  after(() => server?.stop())

  test('every workload has a slow and a tiny parameter, every strategy an expected side', () => {
    assert.ok(routes.length >= 27, `${routes.length} routes`)
    for (const route of routes) {
      assert.ok(slow[route.workload] && tiny[route.workload], `no slow/tiny parameter for the workload of ${route.path}`)
      assert.ok(route.strategy in overtakes, `no expectation for the strategy of ${route.path}`)
    }
  })

  test('a quick request sent while a slow one is in flight ends first under async, promises, stream and worker; after it under sync, fake-async and immediate', async (t) => {
    for (const route of routes) {
      await t.test(route.path, async () => {
        const query = `${slow[route.workload]}${route.strategy === 'fake-async' ? '&delay=0' : ''}`
        const quick = quickPath(route)
        const order = await completionOrder(server.urls[0], [`${route.path}?${query}`], quick)
        const expected = overtakes[route.strategy] ? ['quick', 'slow0'] : ['slow0', 'quick']
        assert.deepEqual(order, expected,
          `${route.path}?${query} then ${quick}: the quick request ended ${order[0] === 'quick' ? 'first' : 'last'}, ` +
          `so ${route.strategy} ${overtakes[route.strategy] ? 'blocked the event loop' : 'did not block the event loop'}`)
      })
    }
  })
})

describe('seed-bcrypt: /async leaves the event loop free, /sync blocks it', () => {
  let server
  before(async () => { server = await serve(['seed-bcrypt']) })
  after(() => server?.stop())

  // The seed's cost is fixed (10: some 65 ms a hash), so eight at once make the slow part: the thread
  // pool (4 threads) hashes them in two waves. The quick request is GET /__syncbench/env (no work, the same event loop).
  const eight = Array(8).fill(null)
  test('GET /async x 8 in flight: a quick request ends before the last of them', async () => {
    const order = await completionOrder(server.urls[0], eight.map(() => '/async'), '/__syncbench/env')
    assert.notEqual(order.at(-1), 'quick', `/async x 8 then a quick request: it ended last (${order.join(', ')}): /async blocked the event loop`)
  })

  test('GET /sync x 8 in flight: a quick request ends after all of them', async () => {
    const order = await completionOrder(server.urls[0], eight.map(() => '/sync'), '/__syncbench/env')
    assert.equal(order.at(-1), 'quick', `/sync x 8 then a quick request: it did not end last (${order.join(', ')}): /sync did not block the event loop`)
  })
})

describe('seed-readfile: readfile leaves the event loop free, readfilesync and fake-async block it', () => {
  let server
  before(async () => { server = await serve(['seed-readfile', '--file-size', SIZE, '--cache-dir', cacheDir], 3) })
  after(() => server?.stop())
  const url = (name) => server.urls[['readfile', 'readfilesync', 'fake-async'].indexOf(name)]

  test('readfile (fs.readFile): a quick request ends before the slow reads in flight', async () => {
    const order = await completionOrder(url('readfile'), ['/', '/'], '/__syncbench/env')
    assert.notEqual(order.at(-1), 'quick', `two reads then a quick request: it ended last (${order.join(', ')}): fs.readFile blocked the event loop`)
  })

  test('readfilesync (fs.readFileSync): a quick request ends after the reads in flight', async () => {
    const order = await completionOrder(url('readfilesync'), ['/', '/'], '/__syncbench/env')
    assert.equal(order.at(-1), 'quick', `two reads then a quick request: it did not end last (${order.join(', ')})`)
  })

  test('fake-async (setTimeout(readFileSync, 0)): a request sent while reads are in flight ends after them', async () => {
    // Every path of this server does the same work; its timer is set after theirs and runs after them,
    // however soon it reaches the server (GET /__syncbench/env could slip in before their 1 ms timers fire).
    const order = await completionOrder(url('fake-async'), ['/', '/'], '/')
    assert.equal(order.at(-1), 'quick', `two reads then one more: it did not end last (${order.join(', ')})`)
  })
})
