// The built-in h2-head-of-line experiment end to end through the real CLI (a short -n): sync and async
// bcrypt over one HTTP/2 connection of 10 streams, the probe on that connection (its streams lent the
// load's session: no connection of its own) and on its own; the kind's table and verdict. Then the
// verdict's two sides, at its edge, on made-up rows, and the refusals of probeConnection "load".
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import { runCli, tempCacheDir } from './helper.js'
import { validateResults } from '../lib/run/results-schema.js'
import { headOfLineVerdict } from '../lib/report/kinds/h2-head-of-line.js'

let dir = ''
tempCacheDir('syncbench-h2-hol-', (d) => { dir = d })

test('run --list names h2-head-of-line', async () => {
  const r = await runCli(['run', '--list'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /^h2-head-of-line +tests head-of-line blocking at the application level over HTTP\/2/m)
})

test('run h2-head-of-line -n 20: four runs over one connection of 10 streams, the probe on the load\'s session and on its own, the table and the verdict', async () => {
  const out = path.join(dir, 'hol')
  const r = await runCli(['run', 'h2-head-of-line', '-n', '20', '--no-calibrate', '--no-report', '--out', out], { timeoutMs: 180_000 })
  assert.equal(r.code, 0, r.stderr)
  const file = path.join(out, 'results.json')
  const results = JSON.parse(await readFile(file, 'utf8'))
  validateResults(results, file)
  assert.equal(results.experiments[0].table, 'h2-head-of-line')
  assert.deepEqual(results.runs.map((/** @type {any} */ run) => run.label), ['sync probe=load', 'async probe=load', 'sync probe=own', 'async probe=own'])
  for (const run of results.runs) {
    assert.equal(run.error, null, run.id)
    assert.equal(run.load.protocol, 'h2')
    assert.equal(run.load.concurrency, 1)
    assert.equal(run.load.http2.streams, 10)
    assert.equal(run.load.http2.connections, 1)
    assert.equal(run.load.completeRequests, 20)
    assert.equal(run.load.failedRequests, 0)
    const probe = run.probe
    assert.equal(probe.error, null, run.id)
    assert.equal(probe.load.protocol, 'h2')
    assert.equal(probe.load.failedRequests, 0, run.id)
    if (run.config.probeConnection === 'load') {
      // the load's session, lent: the probe opened no connection and timed no connect of its own
      assert.equal(probe.sameConnection, true)
      assert.deepEqual([probe.connections, probe.streams], [1, 100])
      assert.equal(probe.load.http2.connections, 1)
      assert.deepEqual(probe.load.http2.connectMs, { min: 0, mean: 0, max: 0 })
    } else {
      assert.equal(run.config.probeConnection, 'own')
      assert.equal(probe.sameConnection, undefined)
      assert.deepEqual([probe.connections, probe.streams], [10, 10])
      assert.ok(probe.load.http2.connectMs.max > 0)
    }
  }
  assert.match(r.stdout, /^h2-head-of-line: the probe \(\/__syncbench\/health\) on the load's HTTP\/2 connection and on its own/m)
  assert.match(r.stdout, /^sync probe=load +sync +the load's +[\d.]+ +\d+ /m)
  assert.match(r.stdout, /^async probe=own +async +its own +[\d.]+ +\d+ /m)
  // the terminal folds the line at 100 columns: its first words
  assert.match(r.stdout, /^h2-head-of-line: (on HTTP\/2 a sync handler delays every stream of its|here the sync route did not delay the other streams of its)/m)
  assert.match(await readFile(path.join(out, 'summary.md'), 'utf8'), /h2-head-of-line: (on HTTP\/2 a sync handler delays|here the sync route did not delay)/)
})

/**
 * A made-up configuration: its route, where its probe went, and its probe's p99 (ms).
 * @param {string} strategy @param {'load'|'own'} on @param {number} p99
 * @returns {any}
 */
function row (strategy, on, p99) {
  return {
    label: `${strategy} probe=${on}`,
    runs: [{ config: { strategy, probeConnection: on }, probe: on === 'load' ? { sameConnection: true } : {} }],
    probe: { path: '/__syncbench/health', rate: 10, requests: 300, errors: 0, late: 0, runs: 1, latency: { combine: 'merged', runs: 1, count: 300, max: p99 + 1, percentiles: [{ key: 'p99', p: 99, q: 0.99, label: 'p99', ms: p99, isMax: false }] } }
  }
}

/** @param {number} sync @param {number} async */
const summary = (sync, async) => /** @type {any} */ ({ name: 'hol', rows: [row('sync', 'load', sync), row('async', 'load', async), row('sync', 'own', 40), row('async', 'own', 3)] })

test('the verdict: a sync route that delayed the probe on its connection more than the async one, just either side of equal', () => {
  assert.equal(headOfLineVerdict(summary(10.1, 10)),
    'hol: on HTTP/2 a sync handler delays every stream of its connection: the probe on the load\'s own connection waited 10.1 ms at p99 under sync against 10 ms under async (on connections of its own: 40 ms against 3 ms)')
  assert.match(headOfLineVerdict(summary(10, 10)), /^hol: here the sync route did not delay the other streams of its connection more than the async one: .* 10 ms at p99 under sync against 10 ms under async/)
  assert.match(headOfLineVerdict(summary(9.9, 10)), /^hol: here the sync route did not delay/)
})

test('the verdict without both routes measured on the load\'s connection says so', () => {
  const s = summary(50, 3)
  s.rows = s.rows.filter((/** @type {any} */ r) => r.label !== 'async probe=load')
  assert.equal(headOfLineVerdict(s), 'hol: no verdict: the probe on the load\'s connection was not measured under both the sync and the async route')
})

test('probeConnection "load" without HTTP/2, or over worker threads: one line, exit 2', async () => {
  const file = path.join(dir, 'no-h2.json')
  await writeFile(file, JSON.stringify({
    name: 'no-h2',
    server: { app: 'lab' },
    load: { requests: 4, concurrency: 1 },
    probe: true,
    variants: [{ label: 'sync', path: '/wait/sync?ms=1' }],
    axes: { probeConnection: ['load'] }
  }))
  const plain = await runCli(['run', '--experiment', file, '--no-report', '--out', path.join(dir, 'no-h2-out')])
  assert.equal(plain.code, 2, plain.stderr)
  assert.equal(plain.stderr.trim(), 'syncbench run: no-h2/sync probe=load: the probe on the load\'s connection (axes.probeConnection "load") needs HTTP/2: load.http2, or --http2')
  const workers = await runCli(['run', 'h2-head-of-line', '-c', '2', '--workers', '2', '--no-report', '--out', path.join(dir, 'workers-out')])
  assert.equal(workers.code, 2, workers.stderr)
  assert.match(workers.stderr.trim(), /^syncbench run: --workers cannot go with h2-head-of-line's probe on the load's connection \(one HTTP\/2 session of this thread\), got "2"$/)
  const bad = JSON.parse(JSON.stringify({ name: 'bad', server: { app: 'lab' }, load: { http2: true }, variants: [{ label: 'a', path: '/' }], axes: { probeConnection: ['shared'] } }))
  await writeFile(file, JSON.stringify(bad))
  const refused = await runCli(['run', '--experiment', file, '--no-report', '--out', path.join(dir, 'bad-out')])
  assert.notEqual(refused.code, 0)
  assert.match(refused.stderr, /axes\.probeConnection\[0\] must be one of "load", "own", got string "shared"/)
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr)
})
