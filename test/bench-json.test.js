// bench/run.js --json writes each part's figures as one document, and the docs render the median and
// range of such documents (scripts/docs-bench.js, docs/benchmarks.md's "Measured here"). The real
// bench runs, in its quick form (two rates, one second each; 5000 requests a generator over HTTP/2);
// what it measured is never asserted, only that the record holds it and the docs show it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnSync } from 'node:child_process'
import { runCommand } from './helper.js'
import { benchBlock } from '../scripts/docs-bench.js'
import { findNginx } from '../bench/nginx.js'

const root = fileURLToPath(new URL('..', import.meta.url))

test('bench/run.js --json: the open loop\'s rates and highest rate held, the machine and the command; the docs show their median and range', { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-bench-json-'))
  try {
    const file = path.join(dir, 'bench-open-loop-1.json')
    const r = await runCommand(process.execPath, [path.join(root, 'bench/run.js'), '--quick', '--only', 'open-loop', '--json', file], { timeoutMs: 100_000 })
    assert.equal(r.code, 0, r.stderr)
    const record = JSON.parse(await readFile(file, 'utf8'))
    assert.equal(record.schema, 'syncbench/bench@1')
    assert.deepEqual(record.argv, ['--quick', '--only', 'open-loop'], 'the command, less where its record went')
    assert.equal(record.environment.node, process.versions.node)
    assert.ok(Date.parse(record.finishedAt) >= Date.parse(record.createdAt))
    assert.deepEqual(Object.keys(record.parts), ['openLoop'], 'only the part asked for')
    const part = record.parts.openLoop
    assert.deepEqual(part.rates.map((/** @type {{ target: number }} */ x) => x.target), [100, 1000])
    for (const rate of part.rates) {
      assert.ok(rate.achieved > 0 && Number.isFinite(rate.cpuPercent) && Number.isInteger(rate.late) && rate.p99Ms > 0, JSON.stringify(rate))
      assert.equal(typeof rate.withinOnePercent, 'boolean')
    }
    assert.equal(typeof part.held, 'number')

    // a second invocation, made up: the block shows each cell's median and range over the two
    const second = structuredClone(record)
    second.createdAt = new Date(Date.parse(record.createdAt) + 1000).toISOString()
    second.parts.openLoop.held = part.held + 1000
    second.parts.openLoop.rates[1].late = part.rates[1].late + 10
    await writeFile(path.join(dir, 'bench-open-loop-2.json'), JSON.stringify(second))
    const block = await benchBlock('open-loop', dir, dir)
    // (its prose wraps at 100 columns)
    const words = block.replace(/\s+/g, ' ')
    assert.match(words, /2 invocations of `node bench\/run\.js --quick --only open-loop` \(\[bench-open-loop-1\.json\]\(bench-open-loop-1\.json\), \[bench-open-loop-2\.json\]\(bench-open-loop-2\.json\)\)/)
    assert.match(words, /a property of that machine at that time/)
    const late = part.rates[1].late
    assert.ok(block.includes('| 1000 | '), block)
    assert.ok(block.includes(` | ${late + 5} (${late}..${late + 10}) | `), `the late requests' median and range:\n${block}`)
    assert.ok(words.includes(`each invocation's: ${part.missed === null ? `at least ${part.held}` : `${part.held} (${part.missed} missed)`}`), block)
    await assert.rejects(benchBlock('nginx', dir, dir), /no .*bench-\*\.json holds it: record some with node bench\/run\.js --only nginx --json/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('bench/run.js --only http2 --json: syncbench ab --http2 and h2load on node:http2 and nghttpd, each round\'s CPU per request and ratio to h2load', {
  timeout: 120_000,
  skip: spawnSync('h2load', ['--version']).error !== undefined && 'h2load is not installed (apt-get install nghttp2-client)'
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-bench-json-'))
  try {
    const file = path.join(dir, 'bench-http2-1.json')
    const r = await runCommand(process.execPath, [path.join(root, 'bench/run.js'), '--quick', '--only', 'http2', '--json', file], { timeoutMs: 100_000 })
    assert.equal(r.code, 0, r.stderr)
    const record = JSON.parse(await readFile(file, 'utf8'))
    assert.deepEqual(Object.keys(record.parts), ['http2'], 'only the part asked for')
    const part = record.parts.http2
    assert.equal(part.rounds, 1)
    assert.equal(part.requests, 5000)
    const servers = spawnSync('nghttpd', ['--version']).error === undefined ? 2 : 1
    assert.equal(part.rows.length, 2 * servers)
    for (const row of part.rows) {
      assert.equal(row.reference, 'h2load -c 10 -m 10')
      assert.ok(row.cpuUsPerRequest.length === 1 && row.cpuUsPerRequest[0] > 0 && row.requestsPerSecond[0] > 0, JSON.stringify(row))
      // h2load's own row has no ratio; syncbench's is its CPU over h2load's in the same round
      if (row.generator === row.reference) assert.equal(row.xReference, null)
      else assert.equal(row.xReference[0], row.cpuUsPerRequest[0] / part.rows.find((/** @type {any} */ x) => x.server === row.server && x.generator === row.reference).cpuUsPerRequest[0])
    }
    assert.match(r.stdout, /^\| node:http2 \(a 12-byte answer\) +\| syncbench ab --http2 -c 10 --streams 10 \|/m)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

/**
 * Whether the bench's dashboard part cannot run here (nginx, GNU time, Chromium, playwright-core): the
 * test is then skipped, naming what is missing.
 * @param {import('node:test').TestContext} t
 */
async function dashboardPartMissing (t) {
  const { dashboardCostMissing } = await import('../bench/dashboard-overhead.js')
  const missing = [...(findNginx() === null ? ['nginx'] : []), ...dashboardCostMissing('/usr/bin/chromium')]
  if (missing.length > 0) t.skip(`${missing.join(', ')} not installed`)
  return missing.length > 0
}

test('bench/run.js --only dashboard --json: CPU per request without and with a page open, their ratio and interval, the dashboard\'s own work; the docs show them', { timeout: 180_000 }, async (t) => {
  if (await dashboardPartMissing(t)) return
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-bench-json-'))
  try {
    const file = path.join(dir, 'bench-dashboard-1.json')
    const r = await runCommand(process.execPath, [path.join(root, 'bench/run.js'), '--quick', '--only', 'dashboard', '--json', file], { timeoutMs: 170_000 })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /with a page open: [+-]\d+\.\d% \(no interval: fewer than 3 rounds\)/)
    const record = JSON.parse(await readFile(file, 'utf8'))
    assert.deepEqual(Object.keys(record.parts), ['dashboard'], 'only the part asked for')
    const part = record.parts.dashboard
    assert.equal(part.rounds, 1)
    for (const key of ['withoutUs', 'pageOpenUs']) {
      assert.equal(part[key].length, 1, key)
      assert.ok(part[key].every((/** @type {number} */ us) => us > 0 && Number.isFinite(us)), `${key}: ${part[key]}`)
    }
    assert.ok(part.ratio > 0 && part.low === null && part.high === null, 'a ratio; no interval from one round (NaN, written as null)')
    assert.ok(part.pageShownMs > 0, 'the page showed the run')
    assert.ok(part.ownWork.startMs > 0 && part.ownWork.readUs > 0 && part.ownWork.pushUs > 0 && part.ownWork.share > 0, JSON.stringify(part.ownWork))

    // three rounds make an interval: the block shows the ratio with it
    part.withoutUs.push(part.withoutUs[0] * 1.01, part.withoutUs[0] * 0.98)
    part.pageOpenUs.push(part.pageOpenUs[0] * 0.99, part.pageOpenUs[0] * 1.03)
    const { ratioInterval } = await import('../lib/analysis/stats.js')
    Object.assign(part, ratioInterval(part.pageOpenUs, part.withoutUs))
    await writeFile(file, JSON.stringify(record))
    const words = (await benchBlock('dashboard', dir, dir)).replace(/\s+/g, ' ')
    const pct = (/** @type {number} */ x) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)}%`
    assert.ok(words.includes(`With a page open, CPU per request changed by ${pct(part.ratio)} (95% CI ${pct(part.low)}..${pct(part.high)})`), words)
    assert.match(words, /\| --dashboard, a page open \| [\d.]+ \| [\d.]+\.\.[\d.]+ \| 3 \|/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('the dashboard part raises a late page\'s start delay until it fits, measured from the process\'s start, up to 30 s', async () => {
  const { nextStartDelay, MAX_START_DELAY_S } = await import('../bench/dashboard-overhead.js')
  assert.equal(nextStartDelay(0, null), 1, 'no delay and no page: one second')
  assert.equal(nextStartDelay(1, 900), 2, 'twice the delay')
  // a loaded CI machine: the page took 3462 ms from the URL, Node's start before it ~1 s more, 4 s
  // waited; the bench once gave up here after its third raise
  assert.equal(nextStartDelay(4, 4500), 8)
  assert.equal(nextStartDelay(2, 4500), 7, 'what the page took from the start, half as much again')
  assert.equal(nextStartDelay(16, null), null, `past ${MAX_START_DELAY_S} s the machine is too busy`)
  assert.equal(MAX_START_DELAY_S, 30)
})

test('the dashboard part: a page that has not shown the run when its load begins does not count; the run is redone with a longer delay, and the bench does not crash', { timeout: 180_000 }, async (t) => {
  if (await dashboardPartMissing(t)) return
  const nginx = /** @type {string} the check above found it */ (findNginx())
  const { dashboardCost } = await import('../bench/dashboard-overhead.js')
  /** @type {string[]} */
  const lines = []
  // no delay: the load begins (and 2,000 requests end) before any page can have loaded
  const r = await dashboardCost({ nginx, requests: 2000, concurrency: 50, rounds: 1, startDelayS: 0, ownSeconds: 2, chromium: '/usr/bin/chromium', log: (line) => lines.push(line) })
  assert.ok(r.redone >= 1, lines.join('\n'))
  assert.ok(r.startDelayS >= 1, `the delay was raised: ${r.startDelayS}`)
  assert.ok(r.pageShownMs <= r.startDelayS * 1000, `the counted page showed the run before its load: ${r.pageShownMs} ms, delay ${r.startDelayS} s`)
  assert.match(lines.join('\n'), /redone, and every run from now on waits \d+ s/)
  assert.equal(r.pageOpenUs.length, 1)
  assert.equal(r.withoutUs.length, 1)
})
