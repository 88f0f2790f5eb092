// Server metrics over time and context switches: the series' bounded length (merging in pairs), a
// blocked loop seen as one spike the length of the block, in-process and through a real server child
// over IPC, and a real run's results.json keeping the series per run.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, readFile } from 'node:fs/promises'
import { createSeries } from '../lib/lab/metrics-series.js'
import { createServerMetrics } from '../lib/lab/metrics.js'
import { blockingWait } from '../lib/lab/workloads.js'
import { spawnServer } from '../lib/lab/spawn.js'
import { runExperiments } from '../lib/run/runner.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'
import { httpGet } from './helper.js'

/** @param {any} s */
function assertSeriesShape (s) {
  assert.deepEqual(Object.keys(s).sort(), ['cpuPercent', 'intervalMs', 'loopDelayMaxMs', 'rssBytes', 't'])
  const n = s.t.length
  for (const key of ['loopDelayMaxMs', 'cpuPercent', 'rssBytes']) assert.equal(s[key].length, n, key)
  for (let i = 1; i < n; i++) assert.ok(s.t[i] >= s.t[i - 1], 't ascends')
}

test('the series stays within maxSamples: neighbours merge in pairs, the interval doubles, a spike survives', () => {
  const series = createSeries({ intervalMs: 100, maxSamples: 8 })
  for (let i = 1; i <= 100; i++) {
    // 50% CPU throughout, RSS rising, one 1 s block at sample 37
    series.add({ t: i * 100, durationMs: 100, loopDelayMs: i === 37 ? 1000 : 1, cpuMs: 50, rssBytes: i * 1000 })
  }
  const s = series.snapshot()
  assertSeriesShape(s)
  assert.ok(s.t.length <= 8 + 1, `length ${s.t.length}`)
  assert.equal(s.intervalMs, 1600)
  assert.equal(s.t[s.t.length - 1], 10_000, 'the whole window is still covered')
  assert.ok(s.cpuPercent.every((c) => c === 50), `cpu ${s.cpuPercent}`)
  assert.equal(Math.max(...s.loopDelayMaxMs), 1000)
  assert.equal(s.rssBytes[s.rssBytes.length - 1], 100_000)
  series.reset()
  assert.deepEqual(series.snapshot(), { intervalMs: 100, t: [], loopDelayMaxMs: [], cpuPercent: [], rssBytes: [] })
})

test('a 1 s block of the loop is one sample of about 1000 ms delay, not a missing point', () => {
  const metrics = createServerMetrics()
  try {
    metrics.reset()
    blockingWait(1000)
    const m = metrics.read()
    assert.ok(m.series)
    assertSeriesShape(m.series)
    const spike = Math.max(...m.series.loopDelayMaxMs)
    // Atomics.wait sleeps at least 1000 ms and no sample can run inside it.
    assert.ok(spike >= 890, `spike ${spike}`)
    assert.ok(m.series.t[m.series.t.length - 1] >= 1000)
    assert.ok(m.contextSwitches)
    for (const key of ['voluntary', 'involuntary']) assert.ok(Number.isInteger(m.contextSwitches[key]) && m.contextSwitches[key] >= 0, key)
    assert.equal(m.contextSwitches.voluntaryPerRequest, null, 'no request in the window')
  } finally {
    metrics.close()
  }
})

describe('a server child', () => {
  let server
  let dir
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-series-'))
    server = await spawnServer({ app: 'lab', args: ['--framework', 'http', '--file-size', '4k', '--cache-dir', dir] })
  })
  after(async () => {
    await server?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('its metrics window over IPC has the series, the block in it, and context switches per request', async () => {
    await server.metrics({ reset: true })
    const url = server.servers[0].url
    assert.equal((await httpGet(url + '/wait/sync?ms=600')).body, 'waited 600 ms')
    await httpGet(url + '/wait/async?ms=1')
    const m = await server.metrics()
    assertSeriesShape(m.series)
    assert.equal(m.series.intervalMs, 100)
    assert.ok(Math.max(...m.series.loopDelayMaxMs) >= 500, `series ${m.series.loopDelayMaxMs}`)
    assert.equal(m.requests, 2)
    const cs = m.contextSwitches
    assert.equal(cs.voluntaryPerRequest, Math.round(cs.voluntary / 2 * 1000) / 1000)
    assert.equal(cs.involuntaryPerRequest, Math.round(cs.involuntary / 2 * 1000) / 1000)
  })
})

test('a run keeps its measured window\'s series and context switches in results.json', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-series-run-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const experiment = validateExperiment({
    name: 'series',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { requests: 4, concurrency: 1 },
    variants: [{ label: 'sync', path: '/wait/sync?ms=150', config: { strategy: 'sync', workload: 'wait' } }]
  }, 'test')
  const { file, error } = await runExperiments({ experiments: [experiment], outDir: dir, calibrate: false })
  assert.equal(error, null)
  const results = JSON.parse(await readFile(file, 'utf8'))
  const server = results.runs[0].server
  assertSeriesShape(server.series)
  assert.ok(server.series.t.length >= 4, `${server.series.t.length} samples over 4 x 150 ms`)
  assert.ok(Math.max(...server.series.loopDelayMaxMs) >= 100)
  assert.equal(typeof server.contextSwitches.voluntaryPerRequest, 'number')
})
