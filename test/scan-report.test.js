// The scan report kind (lib/report/kinds/scan.js): routes ranked by what each did to the event loop,
// the verdict, the skipped and the all-invalid routes, summary.md and report.html, and compare of two
// scans with --fail-if-blocking. The results are real: `syncbench run --app ... --profile` of
// test/fixtures/apps/scan-app.js (a route deriving a key with pbkdf2Sync, a cheap one, one answering
// 404), turned into the scan the lead's `syncbench scan` writes (table 'scan', experiments[].scan, each
// configuration labelled with its route's key). The 20 ms rule's edge is tested on those files with the
// loop's p99 set either side of it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, writeFile, cp, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { summarizeResults } from '../lib/report/model.js'
import { rankRoutes, holdsLoop, compareScans, scanVerdict } from '../lib/report/kinds/scan.js'
import { experimentTables } from '../lib/report/tables.js'
import { BLOCKING_DELAY_MS } from '../lib/lab/loop-blocks.js'
import { validateResults } from '../lib/run/results-schema.js'
import { TEXT_WIDTH } from '../lib/report/wrap.js'

const apps = fileURLToPath(new URL('./fixtures/apps/', import.meta.url))
const ROUTES = ['/hash', '/cheap', '/missing']
/** The line of GET /hash's handler in scan-app.js, as discovery would declare it. */
const HASH_DECLARED = 20

let dir = ''
/** @type {string} */
let blocking
/** @type {string} */
let cheap

/**
 * `syncbench run --app` of scan-app.js over its three routes with the profile on, turned into a scan's
 * results folder (its profiles kept beside it).
 * @param {string} name
 * @param {Record<string, string>} env  the app's
 * @param {number} requests  of each route
 */
async function scanOf (name, env, requests) {
  const out = path.join(dir, `${name}-run`)
  const args = ['run', '--app', 'node scan-app.js', '--cwd', apps, ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ...ROUTES.flatMap((r) => ['--request', `GET ${r}`]), '--profile', '-n', String(requests), '-c', '4', '--out', out, '-q']
  const { code, stderr } = await runCli(args, { timeoutMs: 240_000 })
  // the 404 route's run is invalid: run exits 1 for it
  assert.equal(code, 1, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  const folder = path.join(dir, name)
  await cp(out, folder, { recursive: true })
  await writeFile(path.join(folder, 'results.json'), JSON.stringify(toScan(results)))
  return folder
}

/**
 * A run --app results file as syncbench scan writes it.
 * @param {any} results
 */
function toScan (results) {
  const e = results.experiments[0]
  const key = (/** @type {string} */ label) => `GET ${label}`
  e.name = 'scan'
  e.table = 'scan'
  e.labels = e.labels.map(key)
  e.scan = {
    budgetMs: 60_000,
    frameworks: [],
    tried: ['express', 'fastify', 'koa', 'hapi'],
    notes: ['a node:http server: no routes to read'],
    routes: [
      ...ROUTES.map((r) => ({ key: key(r), method: 'GET', pattern: r, path: r, from: ['openapi'], declared: r === '/hash' ? { file: 'scan-app.js', line: HASH_DECLARED } : null, skipped: null })),
      { key: 'GET /users/:id', method: 'GET', pattern: '/users/:id', path: null, from: ['openapi'], declared: null, skipped: { reason: 'needs :id', flag: '--param id=VALUE' } }
    ]
  }
  for (const run of results.runs) {
    run.experiment = 'scan'
    run.label = key(run.label)
    run.id = `scan/${run.label}#${run.repeat}`
  }
  return results
}

/** @param {string} folder */
const readScan = async (folder) => JSON.parse(await readFile(path.join(folder, 'results.json'), 'utf8'))

/**
 * A copy of a scan whose route's runs had this loop p99 (ms).
 * @param {any} results
 * @param {string} label
 * @param {number} p99
 */
function withLoopP99 (results, label, p99) {
  const copy = structuredClone(results)
  for (const run of copy.runs) {
    if (run.label !== label || !run.server) continue
    run.server.eventLoopDelay.p99 = p99
    run.server.eventLoopDelay.max = Math.max(run.server.eventLoopDelay.max, p99)
  }
  return copy
}

/**
 * A copy of a scan with the runs of these routes only: compare then says nothing of the others, whose
 * loop a busy machine may hold past 20 ms once in a short window.
 * @param {any} results
 * @param {string[]} labels
 */
function onlyRoutes (results, labels) {
  const copy = structuredClone(results)
  copy.runs = copy.runs.filter((/** @type {any} */ r) => labels.includes(r.label))
  return copy
}

/** @param {any} results @param {string} folder */
async function writeScan (results, folder) {
  await rm(folder, { recursive: true, force: true })
  await cp(blocking, folder, { recursive: true })
  await writeFile(path.join(folder, 'results.json'), JSON.stringify(results))
  return folder
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-scan-'))
  // one after the other: each loads the machine's two cores
  // 40 requests of 40 ms; the cheap scan's windows long enough (some 2 s) that one late tick of a busy
  // machine is not their loop's p99
  blocking = await scanOf('blocking', {}, 40)
  cheap = await scanOf('cheap', { HOLD_MS: '0' }, 1000)
}, { timeout: 600_000 })

after(() => rm(dir, { recursive: true, force: true }))

test('a scan file validates against the results schema, its plan included', async () => {
  const results = await readScan(blocking)
  validateResults(results, 'scan.json')
  const bad = structuredClone(results)
  bad.experiments[0].scan.routes[0].declared.line = 0
  assert.throws(() => validateResults(bad, 'scan.json'), /\/experiments\/0\/scan\/routes\/0\/declared\/line must be >= 1/)
})

test('the routes ranked, most blocking first: the key derivation above the cheap route, the 404 route below the measured ones, never ranked', async () => {
  const [s] = summarizeResults(await readScan(blocking))
  const ranked = rankRoutes(s)
  assert.deepEqual(ranked.map((f) => f.row.label), ['GET /hash', 'GET /cheap', 'GET /missing'])
  const [hash, cheapRoute, missing] = ranked
  assert.ok(hash.blocks && hash.loopP99 !== null && hash.loopP99 > BLOCKING_DELAY_MS, JSON.stringify(hash.loopP99))
  assert.equal(hash.line, `scan-app.js:${HASH_DECLARED}`, 'the declared line first')
  // the key derivation costs the main thread far more a request than answering "ok"
  assert.ok(hash.cpuMsPerRequest !== null && cheapRoute.cpuMsPerRequest !== null && hash.cpuMsPerRequest > 5 * cheapRoute.cpuMsPerRequest)
  assert.equal(hash.call?.entry?.name, 'pbkdf2Sync')
  // a route without a declaration: the profile's first call from the app's code
  assert.match(cheapRoute.line, /^(scan-app\.js:\d+)?$/)
  // the memory at the window's start is in these runs: a growth, not '-'
  assert.equal(typeof hash.heapGrowthBytes, 'number')
  assert.equal(typeof hash.rssGrowthBytes, 'number')
  assert.equal(missing.measured, false)
  assert.equal(missing.blocks, false)
})

test('the terminal: the ranked table within 100 columns, the all-invalid route below the measured ones, the skipped route with its flag, the verdict', async () => {
  const { code, stdout, stderr } = await runCli(['report', blocking, '--text'])
  assert.equal(code, 0, stderr)
  const wide = stdout.split('\n').filter((l) => [...l].length > TEXT_WIDTH)
  assert.deepEqual(wide, [])
  assert.match(stdout, /scan: routes, most blocking first \(each loaded alone\)/)
  const rows = stdout.split('\n').filter((l) => /^[-\d] +GET \//.test(l))
  assert.match(rows[0], /^1 +GET \/hash +yes /)
  assert.match(rows[1], /^2 +GET \/cheap /)
  assert.match(rows[2], /^- +GET \/missing +not measured/)
  assert.match(stdout, /invalid: \d+ of \d+ non-2xx: 404/)
  // the terminal names the flag to copy whole; why is in the verdict (below) and in summary.md
  assert.match(stdout, /scan: routes not sent\n.*\n.*\nGET \/users\/:id +--param id=VALUE\n/)
  // the verdict: the blocking route at its declared line, its call; the skipped one with its flag
  // (joined back: the terminal wraps it)
  const joined = stdout.replace(/\n {2}/g, ' ')
  assert.match(joined, /^scan: \d of 4 routes holds? the event loop \(loop p99 past 20 ms\): GET \/hash at scan-app\.js:20 \(pbkdf2Sync \(node:crypto\) from deriveKey at scan-app\.js:13\): loop p99 /m)
  assert.match(stdout, /^1 not measured, no valid run: GET \/missing \(\d+ of \d+ non-2xx: 404 x\d+\)$/m)
  // what discovery found, under the tables
  assert.ok(stdout.replace(/\s+/g, ' ').includes(" scan: no framework's routes read in the app's process (tried express, fastify, koa, hapi); budget 60 s; a node:http server: no routes to read "))
  assert.match(stdout, /^1 skipped: GET \/users\/:id \(needs :id: --param id=VALUE\)$/m)
  // where the event loop went: the blocking routes only
  const loops = stdout.slice(stdout.indexOf('Where the event loop went'))
  assert.match(loops, /GET \/hash +\d+\.\d% +pbkdf2Sync \(node:crypto\) from deriveKey at scan-app\.js:13/)
})

test('the 20 ms rule: a route holds the event loop when its loop p99 passes 20 ms, 19.9 does not, 20.1 does', async () => {
  assert.equal(BLOCKING_DELAY_MS, 20)
  assert.equal(holdsLoop(19.9), false)
  assert.equal(holdsLoop(20), false)
  assert.equal(holdsLoop(20.1), true)
  assert.equal(holdsLoop(null), false)
  const results = await readScan(blocking)
  const verdict = (/** @type {number} */ p99) => {
    const [s] = summarizeResults(withLoopP99(results, 'GET /cheap', p99))
    return { figures: rankRoutes(s).find((f) => f.row.label === 'GET /cheap'), parts: scanVerdict(s) }
  }
  const under = verdict(19.9)
  assert.equal(under.figures?.blocks, false)
  assert.match(under.parts[0], /^scan: 1 of 4 routes holds the event loop \(loop p99 past 20 ms\): GET \/hash /)
  assert.equal(under.parts[1], '1 does not hold it (loop p99 at most 19.9 ms)')
  const over = verdict(20.1)
  assert.equal(over.figures?.blocks, true)
  assert.match(over.parts[0], /^scan: 2 of 4 routes hold the event loop \(loop p99 past 20 ms\): GET \/hash .*; GET \/cheap[^;]*: loop p99 20\.1 ms/)
  assert.ok(!over.parts.some((p) => /does not hold it|do not hold it/.test(p)))
  // the route's table cell says it
  const [s] = summarizeResults(withLoopP99(results, 'GET /cheap', 20.1))
  const [table] = experimentTables(s)
  assert.deepEqual(table.rows.map((r) => [r[1], r[2]]), [['GET /hash', 'yes'], ['GET /cheap', 'yes'], ['GET /missing', 'not measured']])
})

test('a route whose run crashed is shown below the measured ones, never ranked, and named in the verdict', async () => {
  const results = await readScan(blocking)
  for (const run of results.runs) {
    if (run.label !== 'GET /cheap') continue
    run.error = { code: 'SB_ERR_SERVER_EXIT', message: 'the server exited (code 1) during the run' }
    run.load = null
    run.server = null
    run.profile = null
  }
  const [s] = summarizeResults(results)
  assert.deepEqual(rankRoutes(s).map((f) => [f.row.label, f.measured]), [['GET /hash', true], ['GET /cheap', false], ['GET /missing', false]])
  const [table] = experimentTables(s)
  assert.deepEqual(table.rows[1].slice(0, 3), ['-', 'GET /cheap', 'not measured'])
  assert.ok(table.rows[1].includes('1 run failed (crashed, cut or interrupted)'), JSON.stringify(table.rows[1]))
  assert.ok(s.verdict.includes('2 not measured, no valid run: GET /cheap (1 run failed (crashed, cut or interrupted)), GET /missing ('), s.verdict)
  assert.ok(!/does not hold it|do not hold it/.test(s.verdict), 'a crashed route is not counted as one that does not block')
})

test('a file from before the memory at the window\'s start shows no growth (-)', async () => {
  const results = await readScan(blocking)
  for (const run of results.runs) {
    if (!run.server) continue
    delete run.server.memory.startRssBytes
    delete run.server.memory.startHeapUsedBytes
  }
  const [s] = summarizeResults(results)
  const [table] = experimentTables(s)
  const heap = table.columns.indexOf('heap growth MiB')
  const rss = table.columns.indexOf('RSS growth MiB')
  assert.deepEqual(table.rows.slice(0, 2).map((r) => [r[heap], r[rss]]), [['-', '-'], ['-', '-']])
  const [fresh] = experimentTables(summarizeResults(await readScan(blocking))[0])
  assert.match(fresh.rows[0][heap], /^[+-]\d+\.\d$/)
})

test('summary.md and report.html: the ranked table, the verdict, the skipped routes, the ranked chart and a flame graph per blocking route', async () => {
  const out = path.join(dir, 'report-out')
  const { code, stderr } = await runCli(['report', blocking, '--out', out, '--no-png'])
  assert.equal(code, 0, stderr)
  const md = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.match(md, /\| # \| Route \| holds the loop \| loop p99 ms \| loop max ms \| late \| CPU ms\/req \| req\/s \| p99 ms \| heap growth MiB \| RSS growth MiB \| errors \| line \|/)
  assert.match(md, /\| 1 \| GET \/hash \| yes \|/)
  assert.match(md, /\| - \| GET \/missing \| not measured \|/)
  assert.match(md, /\*\*scan: routes not sent\*\*/)
  assert.match(md, /\| GET \/users\/:id \| needs :id \| --param id=VALUE \|/)
  assert.match(md, /> scan: \d of 4 routes holds? the event loop/)
  // the calls of the blocking routes, not of the others
  assert.match(md, /\*\*GET \/hash: main thread/)
  const [s] = summarizeResults(await readScan(blocking))
  const blockingRoutes = rankRoutes(s).filter((f) => f.blocks).map((f) => f.row.label)
  for (const label of ['GET /cheap', 'GET /missing']) {
    assert.equal(md.includes(`**${label}: main thread`), blockingRoutes.includes(label), label)
  }
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<caption>scan: routes, most blocking first \(each loaded alone\)<\/caption>/)
  // the ranked chart: a bar per measured route in rank order (the wide layout, then the phone's), the blocking ones red
  const measured = rankRoutes(s).filter((f) => f.measured).map((f) => f.row.label)
  const figure = html.slice(html.indexOf('<figure id="chart-scan-routes">'))
  const chart = figure.slice(0, figure.indexOf('</figure>'))
  assert.deepEqual([...chart.matchAll(/<title>(GET [^:<]+): /g)].map((m) => m[1]), [...measured, ...measured])
  assert.equal((chart.match(/<rect fill="#d62728"/g) ?? []).length, 2 * blockingRoutes.length)
  assert.equal((html.match(/<figure class="flame"/g) ?? []).length, blockingRoutes.length)
  assert.match(html, /GET \/hash: flame graph of the main thread/)
})

test('compare of a scan where GET /hash was cheap against one where it blocks: named, and --fail-if-blocking exits 3', async (t) => {
  const base = await readScan(cheap)
  const baseHash = rankRoutes(summarizeResults(base)[0]).find((f) => f.row.label === 'GET /hash')
  // one iteration of pbkdf2 is as cheap as "ok": a loop held past 20 ms even so is the machine's, not the route's
  if (!(baseHash && !baseHash.blocks)) return t.skip(`the cheap GET /hash held the loop here (p99 ${baseHash?.loopP99} ms): the machine is too busy`)
  const changes = compareScans(base, await readScan(blocking))
  assert.equal(changes.find((c) => c.label === 'GET /hash')?.change, 'started')
  const [a, b] = [await writeScan(onlyRoutes(base, ['GET /hash']), path.join(dir, 'only-a')), await writeScan(onlyRoutes(await readScan(blocking), ['GET /hash']), path.join(dir, 'only-b'))]
  const failed = await runCli(['compare', a, b, '--fail-if-blocking'])
  assert.equal(failed.code, 3, failed.stderr)
  assert.match(failed.stdout, /^GET \/hash started blocking: loop p99 [\d.]+ ms -> [\d.]+ ms \(past 20 ms\)$/m)
  assert.match(failed.stdout, /^gate --fail-if-blocking: failed \(exit 3\): 1 of 1 route started blocking: scan GET \/hash$/m)
  // the other way round: it stopped, and the gate passes
  const passed = await runCli(['compare', b, a, '--fail-if-blocking'])
  assert.equal(passed.code, 0, passed.stderr)
  assert.match(passed.stdout, /^GET \/hash stopped blocking: loop p99 [\d.]+ ms -> [\d.]+ ms$/m)
  assert.match(passed.stdout, /^gate --fail-if-blocking: passed: no route started blocking \(1 route compared\)$/m)
  // without the flag: named, never failing
  const plain = await runCli(['compare', a, b])
  assert.equal(plain.code, 0, plain.stderr)
  assert.match(plain.stdout, /GET \/hash started blocking/)
  const json = JSON.parse((await runCli(['compare', a, b, '--json', '--fail-if-blocking'])).stdout)
  assert.deepEqual(json.scan.gate, { failed: true, exitCode: 3, started: 1 })
  assert.equal(json.scan.changes.find((c) => c.label === 'GET /hash').change, 'started')
})

test('compare at the edge: 19.9 ms in a and 20.1 ms in b is a route that started blocking; routes of one side only are listed', async () => {
  const results = await readScan(blocking)
  const a = withLoopP99(results, 'GET /cheap', 19.9)
  const b = withLoopP99(results, 'GET /cheap', 20.1)
  const same = withLoopP99(results, 'GET /cheap', 19.9)
  assert.equal(compareScans(a, b).find((c) => c.label === 'GET /cheap')?.change, 'started')
  assert.equal(compareScans(a, same).find((c) => c.label === 'GET /cheap')?.change, 'clear')
  // a route measured in b only (dropped from a)
  a.runs = a.runs.filter((/** @type {any} */ r) => r.label !== 'GET /cheap')
  const [fa, fb] = [await writeScan(a, path.join(dir, 'edge-a')), await writeScan(b, path.join(dir, 'edge-b'))]
  const { code, stdout, stderr } = await runCli(['compare', fa, fb, '--fail-if-blocking'])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /^measured in b only: GET \/cheap$/m)
  // not scans: --fail-if-blocking has nothing to compare
  const real = fileURLToPath(new URL('./fixtures/real-results.json', import.meta.url))
  const none = await runCli(['compare', real, real, '--fail-if-blocking'])
  assert.equal(none.code, 1)
  assert.match(none.stderr, /hold no scan in common: --fail-if-blocking compares the routes of two syncbench scan results\n$/)
})
