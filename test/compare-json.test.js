// syncbench compare --json (a documented object, asserted field by field), and results folders as
// arguments of compare and report. Real CLI.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { resultsFile } from './fixtures/results-builder.js'
import { fixturePath } from './fixtures/report-helpers.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-json-')) })
after(() => rm(dir, { recursive: true, force: true }))

/** A folder as syncbench run leaves it: results.json inside, with req/s per label (compare reads no more). */
async function resultsFolder (name, node, series) {
  const folder = path.join(dir, name)
  await mkdir(folder, { recursive: true })
  await writeFile(path.join(folder, 'results.json'), JSON.stringify(resultsFile(node, series, { createdAt: `2026-01-0${name === 'a' ? 1 : 2}T00:00:00.000Z` })))
  return folder
}

test('compare accepts results folders and prints --json: one object, documented fields', async () => {
  // sync: scipy.stats.ttest_ind([24.65,25.1,24.0,24.9], [10.75,11.2,10.9], equal_var=False).pvalue = 2.4271195435415403e-07
  const a = await resultsFolder('a', '20.20.2', { sync: [10.75, 11.2, 10.9], async: [20] })
  const b = await resultsFolder('b', '22.0.0', { sync: [24.65, 25.1, 24.0, 24.9], async: [21] })
  const { code, stdout, stderr } = await runCli(['compare', a, b, '--json'])
  assert.equal(code, 0, stderr)
  assert.equal(stderr, '')
  const json = JSON.parse(stdout)
  assert.deepEqual(Object.keys(json), ['schema', 'a', 'b', 'rows', 'gate', 'scan'])
  // not two scans: no route changes
  assert.equal(json.scan, null)
  assert.equal(json.gate, null, 'no --fail-if-slower')
  assert.equal(json.schema, 'syncbench/compare@1')
  assert.deepEqual(json.a, { file: path.join(a, 'results.json'), node: '20.20.2', syncbench: '0.1.0', createdAt: '2026-01-01T00:00:00.000Z', transport: null })
  assert.deepEqual(json.b, { file: path.join(b, 'results.json'), node: '22.0.0', syncbench: '0.1.0', createdAt: '2026-01-02T00:00:00.000Z', transport: null })
  assert.equal(json.rows.length, 2)
  const [sync, async] = json.rows
  assert.deepEqual(Object.keys(sync), ['experiment', 'label', 'a', 'b', 'change', 'p', 'stars', 'significant', 'ratio', 'gate'])
  assert.equal(sync.experiment, 'seed-bcrypt')
  assert.equal(sync.label, 'sync')
  assert.deepEqual(Object.keys(sync.a), ['n', 'mean', 'sd', 'ciLow', 'ciHigh'])
  assert.equal(sync.a.n, 3)
  assert.ok(Math.abs(sync.a.mean - 10.95) < 1e-9)
  assert.ok(sync.a.sd > 0 && sync.a.ciLow < 10.95 && sync.a.ciHigh > 10.95)
  assert.equal(sync.b.n, 4)
  assert.ok(Math.abs(sync.b.mean - 24.6625) < 1e-9)
  assert.ok(Math.abs(sync.change - (24.6625 / 10.95 - 1)) < 1e-12)
  assert.ok(Math.abs(sync.p - 2.4271195435415403e-07) / 2.4271195435415403e-07 < 1e-4)
  assert.equal(sync.stars, '***')
  assert.equal(sync.significant, true)
  // np.exp(scipy.stats.ttest_ind(np.log(b), np.log(a), equal_var=False).confidence_interval(0.95)), as in test/stats.test.js
  assert.ok(Math.abs(sync.ratio.value - 2.252290025522628) < 1e-9)
  assert.ok(Math.abs(sync.ratio.ciLow - 2.1596326347422843) < 1e-6)
  assert.ok(Math.abs(sync.ratio.ciHigh - 2.3489228109733924) < 1e-6)
  assert.equal(sync.gate, null)
  // one run a side: no sd, no CI, no p-value, as null (JSON has no NaN)
  assert.deepEqual(async.a, { n: 1, mean: 20, sd: null, ciLow: null, ciHigh: null })
  assert.equal(async.p, null)
  assert.equal(async.stars, '')
  assert.equal(async.significant, false)
  assert.ok(Math.abs(async.ratio.value - 21 / 20) < 1e-12)
  assert.equal(async.ratio.ciLow, null, 'one run a side: no interval of the ratio')
  assert.equal(async.ratio.ciHigh, null)

  const text = await runCli(['compare', a, path.join(b, 'results.json')])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stdout, /^seed-bcrypt +sync +10\.95 +24\.66 +\+125\.23% +2\.160x\.\.2\.349x +2\.43e-7 +\*\*\*$/m, 'a folder and a file mix')
})

test('compare: a folder without results.json, and --json with --markdown, are one-line errors', async () => {
  const empty = path.join(dir, 'empty')
  await mkdir(empty, { recursive: true })
  const a = await resultsFolder('a2', '20.20.2', { sync: [1, 2] })
  const missing = await runCli(['compare', a, empty, '--json'])
  assert.equal(missing.code, 1)
  assert.equal(missing.stdout, '')
  assert.equal(missing.stderr, `syncbench compare: ${empty}: a folder without results.json (give a results.json or the folder syncbench run wrote)\n`)
  const both = await runCli(['compare', a, a, '--json', '--markdown'])
  assert.equal(both.code, 2)
  assert.equal(both.stderr, 'syncbench compare: --json and --markdown exclude each other: give one of them\n')
})

test('report accepts the results folder and writes beside its results.json', async () => {
  const folder = path.join(dir, 'report-folder')
  await mkdir(folder, { recursive: true })
  await copyFile(fixturePath, path.join(folder, 'results.json'))
  const { code, stdout, stderr } = await runCli(['report', folder, '--no-png', '-q'])
  assert.equal(code, 0, stderr)
  assert.equal(stdout, `report   ${path.join(folder, 'report.html')}\nsummary  ${path.join(folder, 'summary.md')}\n`)
  assert.deepEqual((await readdir(folder)).sort(), ['report.html', 'results.json', 'summary.md'])
})

test('compare --json: a side\'s req/s interval is the tables\' (log scale): none from 2 runs, never negative', async () => {
  const a = await resultsFolder('two-a', '20.20.2', { sync: [10, 30] })
  const b = await resultsFolder('two-b', '20.20.2', { sync: [12, 13, 14] })
  const { code, stdout, stderr } = await runCli(['compare', a, b, '--json'])
  assert.equal(code, 0, stderr)
  const [sync] = JSON.parse(stdout).rows
  // the t-interval of [10, 30] was 20 +- 12.706 * 14.14 / sqrt(2): -107..147 req/s
  assert.equal(sync.a.ciLow, null)
  assert.equal(sync.a.ciHigh, null)
  // [12, 13, 14]: exp(mean(ln x) +- t(0.975, 2) * sd(ln x) / sqrt(3))
  const logs = [12, 13, 14].map(Math.log)
  const m = logs.reduce((s, x) => s + x, 0) / 3
  const sdl = Math.sqrt(logs.reduce((s, x) => s + (x - m) ** 2, 0) / 2)
  assert.ok(Math.abs(sync.b.ciLow - Math.exp(m - 4.302652729911275 * sdl / Math.sqrt(3))) < 1e-9)
  assert.ok(sync.b.ciLow > 0)
})

test('compare says when the two sides were loaded through different transports, and --json names them', async () => {
  const withTransport = async (/** @type {string} */ name, /** @type {string} */ transport) => {
    const folder = path.join(dir, name)
    await mkdir(folder, { recursive: true })
    const results = resultsFile('20.20.2', { sync: [10, 11, 12] })
    for (const run of results.runs) if (run.load) run.load.transport = transport
    await writeFile(path.join(folder, 'results.json'), JSON.stringify(results))
    return folder
  }
  const native = await withTransport('t-native', 'native')
  const net = await withTransport('t-net', 'node:net')
  const text = await runCli(['compare', native, net])
  assert.equal(text.code, 0, text.stderr)
  // the note wraps at 100 columns, its continuation indented
  assert.match(text.stdout.replace(/\n {2}/g, ' '), /^\(the load went through native in the first file and node:net in the second: their CPU per request differs, which alone can move req\/s where the generator shares the server's cores\)$/m)
  const json = JSON.parse((await runCli(['compare', native, net, '--json'])).stdout)
  assert.deepEqual([json.a.transport, json.b.transport], ['native', 'node:net'])
  const same = await runCli(['compare', native, native])
  assert.doesNotMatch(same.stdout, /the load went through/)
})
