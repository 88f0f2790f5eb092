// Server metrics over IPC and over HTTP, their shape, reset, direction; the data file cache.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, stat, readdir, utimes } from 'node:fs/promises'
import { spawnServer } from '../lib/lab/spawn.js'
import { parseSize, ensureDataFile, cacheDir } from '../lib/lab/data-file.js'
import { createServerMetrics, collectEnvironment } from '../lib/lab/metrics.js'
import { httpGet } from './helper.js'

function assertMetricsShape (m) {
  for (const key of ['windowMs', 'requests', 'elu', 'threads', 'activeHandles']) assert.equal(typeof m[key], 'number', key)
  assert.deepEqual(Object.keys(m.eventLoopDelay).sort(), ['max', 'mean', 'min', 'p50', 'p99', 'stddev'])
  for (const v of Object.values(m.eventLoopDelay)) assert.ok(Number.isFinite(v) && v >= 0)
  assert.ok(m.eventLoopDelay.min <= m.eventLoopDelay.p50 && m.eventLoopDelay.p50 <= m.eventLoopDelay.max)
  assert.deepEqual(Object.keys(m.cpu).sort(), ['percent', 'systemMs', 'userMs'])
  assert.deepEqual(Object.keys(m.memory).sort(), ['heapUsedBytes', 'peakRssBytes', 'rssBytes', 'startHeapUsedBytes', 'startRssBytes'])
  assert.ok(m.memory.startRssBytes > 0 && m.memory.startHeapUsedBytes > 0)
  assert.ok(m.memory.peakRssBytes >= m.memory.rssBytes && m.memory.rssBytes > 0)
  assert.ok(m.elu >= 0 && m.elu <= 1)
  assert.ok(m.threads > 1)
  assert.ok(m.activeHandles >= 1)
  // when the loop was held (lib/lab/loop-blocks.js; test/lab-loop-blocks.test.js): spans inside the window, in order
  // and the routes in progress meanwhile (lib/lab/route-blocks.js; test/lab-route-blocks.test.js): a lab server follows its own
  assert.deepEqual(Object.keys(m.loopBlocks).sort(), ['mergedGapMs', 'routes', 'spans', 'thresholdMs'])
  assert.ok(Array.isArray(m.loopBlocks.routes))
  m.loopBlocks.spans.forEach(([from, to], i) => assert.ok(from >= 0 && to >= from && to <= m.windowMs + 0.1 && (i === 0 || from >= m.loopBlocks.spans[i - 1][1]), JSON.stringify(m.loopBlocks)))
}

test('collectEnvironment reads versions, UV_* variables and the CPU', () => {
  const env = collectEnvironment({ UV_THREADPOOL_SIZE: '8' })
  assert.equal(env.node, process.versions.node)
  assert.equal(env.v8, process.versions.v8)
  assert.equal(env.uv, process.versions.uv)
  assert.equal(env.uvThreadpoolSize, '8')
  assert.equal(env.uvUseIoUring, null)
  assert.equal(env.cpuCount, os.availableParallelism())
  assert.equal(typeof env.cpuModel, 'string')
  assert.equal(env.totalMemoryBytes, os.totalmem())
})

test('an in-process window without samples reads as zeros, not NaN', () => {
  const metrics = createServerMetrics()
  try {
    const m = metrics.read()
    // max also counts the time since the last tick beyond 10 ms, which a loaded machine can make
    // nonzero even here; it is never NaN and never more than the window itself.
    const { max, ...rest } = m.eventLoopDelay
    assert.deepEqual(rest, { min: 0, mean: 0, p50: 0, p99: 0, stddev: 0 })
    assert.ok(Number.isFinite(max) && max >= 0 && max <= m.windowMs, String(max))
    assert.equal(m.requests, 0)
  } finally {
    metrics.close()
  }
})

describe('metrics of a lab child process', () => {
  let server
  let url
  let dir
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-metrics-'))
    server = await spawnServer({ app: 'lab', args: ['--framework', 'http', '--file-size', '4k', '--pool-size', '2', '--cache-dir', dir], env: { UV_THREADPOOL_SIZE: '3' } })
    url = server.servers[0].url
  })
  after(async () => {
    await server?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('the ready message carries the child\'s environment', () => {
    assert.equal(server.env.uvThreadpoolSize, '3')
    assert.equal(server.env.node, process.versions.node)
  })

  test('IPC metrics have every field; reset starts a new window', async () => {
    await httpGet(url + '/wait/sync?ms=1')
    const before = await server.metrics({ reset: true })
    assertMetricsShape(before)
    assert.ok(before.requests >= 1)
    const after = await server.metrics()
    assertMetricsShape(after)
    assert.equal(after.requests, 0)
    assert.ok(after.windowMs < before.windowMs + 60_000)
  })

  test('a blocking wait raises event-loop delay max past the wait', async () => {
    await server.metrics({ reset: true })
    assert.equal((await httpGet(url + '/wait/sync?ms=300')).body, 'waited 300 ms')
    const blocked = await server.metrics({ reset: true })
    // Atomics.wait sleeps at least 300 ms and no sample can land inside it; 10 ms is the sampling interval.
    assert.ok(blocked.eventLoopDelay.max >= 290, `max ${blocked.eventLoopDelay.max}`)
    assert.equal((await httpGet(url + '/wait/async?ms=300')).body, 'waited 300 ms')
    const waited = await server.metrics()
    // The timer's run has no upper bound on its delay: a descheduled sampler can see any delay there.
    assert.equal(waited.requests, 1)
  })

  test('CPU work shows in cpu.userMs; worker threads show in threads', async () => {
    const idle = await server.metrics({ reset: true })
    await httpGet(url + '/pbkdf2/sync?iterations=200000')
    const busy = await server.metrics({ reset: true })
    assert.ok(busy.cpu.userMs > 0)
    assert.ok(busy.cpu.percent > 0)
    await httpGet(url + '/wait/worker?ms=1')
    const pooled = await server.metrics()
    assert.ok(pooled.threads >= idle.threads + 2, `threads ${idle.threads} -> ${pooled.threads}`)
  })

  test('GET /__syncbench/metrics answers the window, ?reset=1 resets it, and is not counted', async () => {
    await server.metrics({ reset: true })
    await httpGet(url + '/wait/sync?ms=1')
    await httpGet(url + '/wait/async?ms=1')
    const first = await httpGet(url + '/__syncbench/metrics?reset=1')
    assert.equal(first.status, 200)
    assert.match(first.headers['content-type'], /^application\/json/)
    const m = JSON.parse(first.body)
    assertMetricsShape(m)
    assert.equal(m.requests, 2)
    const second = JSON.parse((await httpGet(url + '/__syncbench/metrics')).body)
    assert.equal(second.requests, 0)
    assert.equal((await httpGet(url + '/__syncbench/metrics?reset=maybe')).status, 400)
    assert.equal((await httpGet(url + '/__syncbench/nope')).status, 404)
    const env = JSON.parse((await httpGet(url + '/__syncbench/env')).body)
    assert.deepEqual(env, server.env)
  })
})

describe('the data file', () => {
  let dir
  before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-data-')) })
  after(() => rm(dir, { recursive: true, force: true }))

  test('parseSize takes bytes and binary units up to 1 GiB', () => {
    assert.equal(parseSize('4194304'), 4194304)
    assert.equal(parseSize('4m'), 4194304)
    assert.equal(parseSize('4MiB'), 4194304)
    assert.equal(parseSize('512k'), 524288)
    assert.equal(parseSize('1g'), 1024 ** 3)
    assert.equal(parseSize('0'), 0)
    for (const bad of ['1025m', '2g', '-1', 'lots', '4 megs', '', '1e3']) assert.equal(parseSize(bad), null, bad)
  })

  test('cacheDir: option, then SYNCBENCH_CACHE_DIR, then the temporary folder', () => {
    assert.equal(cacheDir({ cacheDir: dir, env: {} }), dir)
    assert.equal(cacheDir({ env: { SYNCBENCH_CACHE_DIR: dir } }), dir)
    assert.equal(cacheDir({ env: {} }), path.join(os.tmpdir(), 'syncbench-cache'))
  })

  test('created once with the right size, reused, no temporary file left; concurrent calls share it', async () => {
    const [a, b] = await Promise.all([ensureDataFile(100_000, { cacheDir: dir }), ensureDataFile(100_000, { cacheDir: dir })])
    assert.equal(a, b)
    const first = await stat(a)
    assert.equal(first.size, 100_000)
    assert.equal(await ensureDataFile(100_000, { cacheDir: dir }), a)
    assert.equal((await stat(a)).mtimeMs, first.mtimeMs)
    assert.equal((await ensureDataFile(0, { cacheDir: dir })).endsWith('data-0.bin'), true)
    assert.deepEqual((await readdir(dir)).sort(), ['data-0.bin', 'data-100000.bin'])
  })

  test('a file of another size under the name is replaced', async () => {
    const file = await ensureDataFile(10, { cacheDir: dir })
    const { writeFile } = await import('node:fs/promises')
    await writeFile(file, 'short')
    await ensureDataFile(10, { cacheDir: dir })
    assert.equal((await stat(file)).size, 10)
  })

  test('the folder holds at most maxCacheBytes of data files: the oldest written go first', async () => {
    const small = await mkdtemp(path.join(os.tmpdir(), 'syncbench-cache-lru-'))
    try {
      const limit = { cacheDir: small, maxCacheBytes: 100_000 }
      const a = await ensureDataFile(40_000, limit)
      const b = await ensureDataFile(30_000, limit)
      // b written before a (times set, not raced)
      await utimes(b, new Date(1_000_000), new Date(1_000_000))
      await utimes(a, new Date(2_000_000), new Date(2_000_000))
      assert.equal(await ensureDataFile(40_000, limit), a) // reused, nothing evicted
      assert.deepEqual((await readdir(small)).sort(), ['data-30000.bin', 'data-40000.bin'])
      await ensureDataFile(50_000, limit) // 40k + 30k + 50k > 100k: b goes, a stays
      assert.deepEqual((await readdir(small)).sort(), ['data-40000.bin', 'data-50000.bin'])
      await ensureDataFile(90_000, limit) // both go
      assert.deepEqual(await readdir(small), ['data-90000.bin'])
      // concurrent calls for one new size write it once: one file, no temporary left
      await Promise.all([1, 2, 3].map(() => ensureDataFile(20_000, limit)))
      assert.deepEqual(await readdir(small), ['data-20000.bin'])
      assert.equal((await stat(path.join(small, 'data-20000.bin'))).size, 20_000)
    } finally {
      await rm(small, { recursive: true, force: true })
    }
  })

  test('bad sizes are refused with the option named', async () => {
    await assert.rejects(ensureDataFile(-1, { cacheDir: dir }), { code: 'SB_ERR_INVALID_OPTION', message: /--file-size/ })
  })
})

test('the memory at the window\'s start: what a window\'s allocations leave behind is the end\'s minus it, from the reset on', () => {
  const metrics = createServerMetrics()
  try {
    const before = []
    for (let i = 0; i < 200_000; i++) before.push({ i, text: `before ${i}` })
    metrics.reset()
    // held past the read: a leak of about 20 MB of heap during the window
    const held = []
    for (let i = 0; i < 200_000; i++) held.push({ i, text: `held ${i}` })
    const m = metrics.read()
    assert.ok(m.memory.heapUsedBytes - m.memory.startHeapUsedBytes > 10 * 1024 * 1024, JSON.stringify(m.memory))
    // the allocations before the reset are in the start, not in the growth
    assert.ok(m.memory.startHeapUsedBytes > 10 * 1024 * 1024, JSON.stringify(m.memory))
    assert.equal(before.length + held.length, 400_000)
  } finally {
    metrics.close()
  }
})

test('the main thread\'s own CPU time: part of the process\'s, counted apart on Linux', { skip: process.platform !== 'linux' && 'Linux schedstat only' }, () => {
  const metrics = createServerMetrics()
  try {
    let x = 0
    for (let i = 0; i < 2e7; i++) x += i % 7
    const m = metrics.read()
    assert.ok(x > 0)
    assert.equal(typeof m.mainThreadCpuMs, 'number')
    const main = /** @type {number} */ (m.mainThreadCpuMs)
    // read a moment after the process's CPU time: within a few ms of it at most
    assert.ok(main > 0 && main <= m.cpu.userMs + m.cpu.systemMs + 5, `${main} of ${m.cpu.userMs + m.cpu.systemMs}`)
  } finally {
    metrics.close()
  }
})
