// syncbench run over HTTP/2 through the real CLI: an experiment file's load.http2 and load.streams, the
// command line's --http2 and --streams over a seed (whose keepAlive gives way), a --workload module's
// server child, the probe speaking HTTP/2 to servers that speak h2c only, and the refused combinations.
// Every run's count is checked against the server's: a server left on HTTP/1.1 would fail every stream.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import { runCli, tempCacheDir } from './helper.js'
import { validateResults } from '../lib/run/results-schema.js'

let dir = ''
tempCacheDir('syncbench-run-h2-', (d) => { dir = d })

/** @param {string} file */
async function results (file) {
  const data = JSON.parse(await readFile(file, 'utf8'))
  validateResults(data, file)
  return data
}

/**
 * Each run loaded over h2 with `streams`, every request answered, and its probe over h2 too.
 * @param {import('../lib/types.js').RunRecord} run
 * @param {number} streams
 * @param {number} requests
 */
function assertHttp2Run (run, streams, requests) {
  assert.equal(run.error, null, run.id)
  const load = /** @type {import('../lib/types.js').LoadResult} */ (run.load)
  assert.equal(load.protocol, 'h2', run.id)
  assert.equal(load.http2?.streams, streams, run.id)
  assert.equal(load.completeRequests, requests, run.id)
  assert.equal(load.failedRequests, 0, run.id)
  assert.equal(load.non2xxResponses, 0, run.id)
  assert.equal(run.server?.requests, requests, run.id)
  assert.equal(run.config.http2, true, run.id)
  assert.equal(run.config.streams, streams, run.id)
  assert.equal(run.config.keepAlive, false, run.id)
}

/**
 * The probe's record over HTTP/2: 10 connections of 10 streams, its requests answered over h2.
 * @param {import('../lib/types.js').RunRecord} run
 */
function assertHttp2Probe (run) {
  const probe = /** @type {import('../lib/types.js').ProbeRecord} */ (run.probe)
  assert.equal(probe.error, null, run.id)
  assert.equal(probe.connections, 10)
  assert.equal(probe.streams, 10)
  assert.equal(probe.load?.protocol, 'h2')
  assert.equal(probe.load?.failedRequests, 0)
}

test('an experiment file\'s load { http2: true, streams: 3 }: the lab started with --http2, loaded and probed over h2', async () => {
  const file = path.join(dir, 'h2.json')
  await writeFile(file, JSON.stringify({
    name: 'h2-file',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { requests: 12, concurrency: 2, http2: true, streams: 3 },
    probe: true,
    variants: [
      { label: 'sync', path: '/wait/sync?ms=2', config: { strategy: 'sync', workload: 'wait' } },
      { label: 'async', path: '/wait/async?ms=2', config: { strategy: 'async', workload: 'wait' } }
    ]
  }))
  const out = path.join(dir, 'file-out')
  const r = await runCli(['run', '--experiment', file, '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  const data = await results(path.join(out, 'results.json'))
  assert.deepEqual(data.runs.map((/** @type {any} */ run) => run.label), ['sync', 'async'])
  for (const run of data.runs) {
    assertHttp2Run(run, 3, 12)
    assertHttp2Probe(run)
  }
  // the probe's table, as over HTTP/1
  assert.match(r.stdout, /^h2-file: probe, 10 req\/s to \/__syncbench\/health during each run/m)
})

test('run seed-bcrypt --http2 --streams 2: the seed\'s Express app over h2, its keepAlive dropped, the options recorded', async () => {
  const out = path.join(dir, 'seed-out')
  const r = await runCli(['run', 'seed-bcrypt', '--http2', '--streams', '2', '-n', '4', '-c', '1', '--runs', '1', '--no-calibrate', '--quiet', '--no-report', '--out', out], { timeoutMs: 120_000 })
  assert.equal(r.code, 0, r.stderr)
  const data = await results(path.join(out, 'results.json'))
  assert.equal(data.options.http2, true)
  assert.equal(data.options.streams, 2)
  assert.equal(data.runs.length, 2)
  for (const run of data.runs) {
    assertHttp2Run(run, 2, 4)
    // what the seed's res.send(hashed) answers
    assert.equal(run.load.document.length, 60)
    assertHttp2Probe(run)
  }
})

test('run --workload --h2: the module\'s server child serves its handlers over h2c', async () => {
  const file = path.join(dir, 'handlers.mjs')
  await writeFile(file, `
    export function sync () { const end = Date.now() + 2; while (Date.now() < end); return 'done' }
    export async function async () { await new Promise((resolve) => setTimeout(resolve, 2)); return { done: true } }
  `)
  const out = path.join(dir, 'workload-out')
  const r = await runCli(['run', '--workload', file, '--h2', '-n', '8', '-c', '2', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  const data = await results(path.join(out, 'results.json'))
  assert.deepEqual(data.runs.map((/** @type {any} */ run) => run.label), ['sync', 'async'])
  for (const run of data.runs) assertHttp2Run(run, 1, 8)
})

const refused = [
  [['run', 'seed-bcrypt', '--streams', '4'], /^syncbench run: --streams applies to --http2 only \(concurrent streams per connection\), got "4"$/],
  [['run', 'seed-bcrypt', '--http2', '--streams', '0'], /^syncbench run: --streams must be an integer from 1 to \d+, got "0"$|^syncbench run: --streams .*got "0"$/]
]
for (const [args, message] of refused) {
  test(`syncbench ${args.join(' ')}: one line, exit 2, nothing run`, async () => {
    const out = path.join(dir, `refused-${args.length}`)
    const r = await runCli([...args, '--out', out])
    assert.equal(r.code, 2, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(r.stderr.trim(), message)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  })
}
