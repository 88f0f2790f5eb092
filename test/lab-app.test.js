// The lab server on both frameworks, as a real child process: every route, its body, the listing,
// bad parameters, unknown routes and methods.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, readdir } from 'node:fs/promises'
import { spawnServer } from '../lib/lab/spawn.js'
import { labRoutes } from '../lib/lab/lab-app.js'
import { httpGet } from './helper.js'
import { completionOrder } from './fixtures/completion-order.js'

// Small parameters so every route is quick; the bodies still prove which work was done.
const quick = { bcrypt: 'cost=4', bcryptjs: 'cost=4', readfile: '', pbkdf2: 'iterations=1000', wait: 'ms=1' }
const bodies = {
  bcrypt: /^\$2b\$04\$[./A-Za-z0-9]{53}$/,
  bcryptjs: /^\$2b\$04\$[./A-Za-z0-9]{53}$/,
  readfile: /^read 32768 bytes$/,
  pbkdf2: /^[0-9a-f]{64}$/,
  wait: /^waited 1 ms$/
}

test('the route table has every workload with its strategies', () => {
  const paths = labRoutes().map((r) => r.path)
  for (const w of ['bcrypt', 'bcryptjs', 'pbkdf2', 'wait']) {
    for (const s of ['sync', 'async', 'fake-async', 'immediate', 'worker']) assert.ok(paths.includes(`/${w}/${s}`), `/${w}/${s}`)
    assert.ok(!paths.includes(`/${w}/stream`))
  }
  for (const s of ['sync', 'async', 'fake-async', 'immediate', 'promises', 'stream', 'worker']) assert.ok(paths.includes(`/readfile/${s}`))
})

for (const framework of ['express', 'http']) {
  describe(`lab --framework ${framework}`, () => {
    let server
    let url
    let cacheDir
    before(async () => {
      cacheDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-lab-'))
      server = await spawnServer({ app: 'lab', args: ['--framework', framework, '--file-size', '32k', '--pool-size', '1', '--cache-dir', cacheDir] })
      url = server.servers[0].url
    })
    after(async () => {
      await server?.stop()
      await rm(cacheDir, { recursive: true, force: true })
    })

    test('GET / lists every route with its parameters, defaults and bounds', async () => {
      const res = await httpGet(url + '/')
      assert.equal(res.status, 200)
      assert.match(res.headers['content-type'], /^application\/json/)
      const listing = JSON.parse(res.body)
      assert.equal(listing.framework, framework)
      assert.equal(listing.poolSize, 1)
      assert.deepEqual(listing.routes.map((r) => r.path), labRoutes().map((r) => r.path))
      const cost = listing.routes.find((r) => r.path === '/bcrypt/sync').params.find((p) => p.name === 'cost')
      assert.deepEqual([cost.default, cost.min, cost.max], [10, 4, 15])
      const size = listing.routes.find((r) => r.path === '/readfile/sync').params.find((p) => p.name === 'size')
      assert.deepEqual([size.default, size.max], [32 * 1024, 1024 ** 3])
      assert.deepEqual(listing.routes.find((r) => r.path === '/wait/fake-async').params.map((p) => p.name), ['ms', 'delay'])
      assert.equal(listing.routes.find((r) => r.path === '/wait/sync').params[0].max, 10000)
    })

    test('every route answers 200 with its workload\'s body and a Content-Length', async () => {
      for (const route of labRoutes()) {
        const query = [quick[route.workload], route.strategy === 'fake-async' ? 'delay=1' : ''].filter(Boolean).join('&')
        const res = await httpGet(`${url}${route.path}${query ? '?' + query : ''}`)
        assert.equal(res.status, 200, `${route.path}: ${res.body}`)
        assert.match(res.body, bodies[route.workload], route.path)
        assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.body)), route.path)
      }
    })

    test('same body, told apart by the event loop: a quick request overtakes a slow /wait/async or /wait/worker, not /wait/sync, fake-async or immediate', async () => {
      // test/lab-async-property.test.js checks every route; here, each framework's dispatch. Order only, no timing.
      for (const [strategy, overtakes] of [['sync', false], ['async', true], ['fake-async', false], ['immediate', false], ['worker', true]]) {
        const delay = strategy === 'fake-async' ? '&delay=0' : ''
        // a blocking strategy's quick request is its own route, tiny: queued behind the slow one's work
        const quick = overtakes ? '/' : `/wait/${strategy}?ms=0${delay}`
        const order = await completionOrder(url, [`/wait/${strategy}?ms=300${delay}`], quick)
        assert.deepEqual(order, overtakes ? ['quick', 'slow0'] : ['slow0', 'quick'], `/wait/${strategy}`)
      }
    })

    test('pbkdf2 gives the same key whatever the strategy', async () => {
      const keys = new Set()
      for (const s of ['sync', 'async', 'immediate', 'worker']) keys.add((await httpGet(`${url}/pbkdf2/${s}?iterations=10`)).body)
      assert.equal(keys.size, 1)
    })

    test('a smaller size reads a prefix of the one data file; a larger one generates its file once', async () => {
      // was: one file per size, never removed (three sizes near 1 GiB wrote 3.1 GB)
      const smaller = await Promise.all(['sync', 'async', 'promises', 'stream', 'worker'].map((s) => httpGet(`${url}/readfile/${s}?size=3k`)))
      for (const res of smaller) assert.equal(res.body, 'read 3072 bytes')
      assert.deepEqual(await readdir(cacheDir), ['data-32768.bin'])
      const larger = await Promise.all(['sync', 'async', 'stream', 'promises'].map((s) => httpGet(`${url}/readfile/${s}?size=48k`)))
      for (const res of larger) assert.equal(res.body, 'read 49152 bytes')
      const mixed = await Promise.all([httpGet(`${url}/readfile/sync?size=0`), httpGet(`${url}/readfile/stream?size=0`), httpGet(`${url}/readfile/async?size=40k`)])
      assert.deepEqual(mixed.map((res) => res.body), ['read 0 bytes', 'read 0 bytes', 'read 40960 bytes'])
      // the cache's bound (1 GiB) keeps the first file here; no temporary file is left
      assert.deepEqual((await readdir(cacheDir)).sort(), ['data-32768.bin', 'data-49152.bin'])
    })

    const bad = [
      ['/bcrypt/sync?cost=3', 'cost'],
      ['/bcrypt/sync?cost=16', 'cost'],
      ['/bcryptjs/async?cost=ten', 'cost'],
      ['/wait/sync?ms=10001', 'ms'],
      ['/wait/async?ms=-1', 'ms'],
      ['/readfile/sync?size=2g', 'size'],
      ['/readfile/sync?size=1025m', 'size'],
      ['/readfile/stream?size=lots', 'size'],
      ['/pbkdf2/sync?iterations=0', 'iterations'],
      ['/wait/fake-async?delay=10001', 'delay'],
      ['/wait/sync?delay=1', 'delay'],
      ['/bcrypt/sync?cost=4&cost=5', 'cost'],
      ['/bcrypt/sync?file=/etc/passwd', 'file']
    ]
    for (const [path, parameter] of bad) {
      test(`GET ${path} is a 400 naming ${parameter}`, async () => {
        const res = await httpGet(url + path)
        assert.equal(res.status, 400)
        const { error } = JSON.parse(res.body)
        assert.equal(error.code, 'SB_ERR_BAD_PARAMETER')
        assert.equal(error.parameter, parameter)
        assert.match(error.message, new RegExp(parameter))
      })
    }

    for (const path of ['/nope', '/bcrypt', '/bcrypt/stream', '/readfile/fibers', '/bcrypt/sync/extra']) {
      test(`GET ${path} is a JSON 404`, async () => {
        const res = await httpGet(url + path)
        assert.equal(res.status, 404)
        assert.equal(JSON.parse(res.body).error.code, 'SB_ERR_NOT_FOUND')
      })
    }

    test('POST is a JSON 405', async () => {
      const res = await httpGet(url + '/bcrypt/sync', { method: 'POST' })
      assert.equal(res.status, 405)
      assert.equal(JSON.parse(res.body).error.code, 'SB_ERR_METHOD')
    })
  })
}

describe('lab --memory-budget: readfile requests hold at most the budget at once', () => {
  let server
  let url
  let cacheDir
  before(async () => {
    cacheDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-lab-budget-'))
    server = await spawnServer({ app: 'lab', args: ['--framework', 'http', '--file-size', '40k', '--memory-budget', '64k', '--cache-dir', cacheDir] })
    url = server.servers[0].url
  })
  after(async () => {
    await server?.stop()
    await rm(cacheDir, { recursive: true, force: true })
  })

  /** @param {{ status: number, body: string }} res */
  function assertOverBudget (res) {
    assert.equal(res.status, 503, res.body)
    const { error } = JSON.parse(res.body)
    // its own code: the request was well-formed, the server is busy (a 400 code would say the client erred)
    assert.equal(error.code, 'SB_ERR_MEMORY_BUDGET')
    assert.equal(error.parameter, 'size')
    assert.equal(error.budget, 64 * 1024)
    assert.match(error.message, /over the memory budget of 64 ?KiB \(serve --memory-budget\)/)
  }

  test('a size over the budget alone is a 503 naming the budget', async () => {
    // was: admitted (4 concurrent size=1g took the server to 4 GiB RSS)
    assertOverBudget(await httpGet(`${url}/readfile/sync?size=65k`))
    assert.equal((await httpGet(`${url}/readfile/sync?size=64k`)).body, 'read 65536 bytes')
  })

  test('while one request holds 40k, another 40k is refused; once it ends, admitted again', async () => {
    // fake-async holds its 40k for 1.5 s before reading; the request after / is admitted within that
    const slow = httpGet(`${url}/readfile/fake-async?size=40k&delay=1500`)
    await httpGet(`${url}/`)
    assertOverBudget(await httpGet(`${url}/readfile/sync?size=40k`))
    assert.equal((await httpGet(`${url}/readfile/sync?size=24k`)).body, 'read 24576 bytes')
    assert.equal((await slow).body, 'read 40960 bytes')
    const again = await Promise.all([httpGet(`${url}/readfile/async?size=40k`)])
    assert.equal(again[0].body, 'read 40960 bytes')
  })

  test('--memory-budget takes a size: one line naming the option otherwise', async () => {
    const { parseServeArgs } = await import('../lib/lab/serve-args.js')
    assert.equal(parseServeArgs(['lab', '--memory-budget', '2g']).memoryBudget, 2 * 1024 ** 3)
    assert.throws(() => parseServeArgs(['lab', '--memory-budget', 'lots']), { code: 'SB_ERR_INVALID_OPTION', message: '--memory-budget must be a size from 0 to 1024GiB such as 1g or 512m, got "lots"' })
  })
})
