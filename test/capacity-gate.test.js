// syncbench compare --fail-if-slower on capacities (run --capacity), and syncbench predict's projection of
// them, through the real CLI on files written by the fixture builder. The gate's rule is the req/s one
// (lib/analysis/gate.js): the 95% CI of b / a of the capacities found, entirely below 1 - X, fails.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { capacityResultsFile, resultsFile } from './fixtures/results-builder.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-capacity-gate-')) })
after(() => rm(dir, { recursive: true, force: true }))

/** The same closed loops on both sides: the req/s gate passes ("equivalent"), the capacities decide. */
const closed = { sync: [18, 19, 18.5], async: [40, 41, 40.5] }
/** Capacities whose ratio to themselves has the 95% CI 0.95567..1.04639 (3 a side, df 4). */
const base = [100, 102, 98]

/**
 * A capacity results file whose searches found exactly these capacities (null: the builder's search
 * that met the goal at no rate).
 * @param {Record<string, (number|null)[]>} capacities  label -> each repeat's
 * @param {{ goal?: string, below?: number }} [options]  the goal's text and its p99 bound in ms
 */
function capacityFile (capacities, { goal, below = 1000 } = {}) {
  const series = Object.fromEntries(Object.entries(capacities).map(([label, caps]) => [label, { closedLoop: closed[label], capacities: caps.map((c) => c === null ? null : 10) }]))
  const results = capacityResultsFile('20.20.2', series, goal === undefined ? {} : { goal })
  results.capacity.slo = { terms: [{ measure: 'p99', below }] }
  for (const s of results.capacity.searches) {
    const c = capacities[s.label][s.repeat - 1]
    if (c !== null) s.search.capacity = c
  }
  return results
}

/**
 * @param {string} name
 * @param {object} a
 * @param {object} b
 */
async function pair (name, a, b) {
  const fa = path.join(dir, `${name}-a.json`)
  const fb = path.join(dir, `${name}-b.json`)
  await writeFile(fa, JSON.stringify(a))
  await writeFile(fb, JSON.stringify(b))
  return [fa, fb]
}

/** @param {number} k */
const scaled = (k) => base.map((x) => x * k)

test('compare --fail-if-slower 5: a capacity whose CI ends just below 0.95 fails with exit 3; just above, passes', async () => {
  // b / a = 0.90779: CI 0.86754..0.94990, entirely below 0.95; 0.90798: 0.86773..0.95010, reaches above it
  const [a, b] = await pair('edge-fail', capacityFile({ sync: base, async: base }), capacityFile({ sync: scaled(0.90779), async: base }))
  const failed = await runCli(['compare', a, b, '--fail-if-slower', '5'])
  assert.equal(failed.code, 3, failed.stderr)
  assert.equal(failed.stderr, '')
  assert.match(failed.stdout, /^capacity at p99 < 1 s \(req\/s\): b \(/m)
  assert.match(failed.stdout, /^Experiment +Configuration +a capacity +b capacity +change +b\/a 95% CI +p-value$/m)
  assert.match(failed.stdout, /^seed-bcrypt +sync +99\.99 +90\.77 +-9\.22% +0\.868x\.\.0\.950x +\S+ \*\*$/m)
  assert.match(failed.stdout, /^seed-bcrypt +sync +slower: 5\.0%\.\.13\.2% slower, beyond 5%$/m)
  // the closed loops did not change: the req/s gate passed, the capacities' failed
  assert.match(failed.stdout, /^gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(2 compared\)$/m)
  assert.match(failed.stdout.replace(/\n {2}/g, ' '), /^gate --fail-if-slower 5% on capacity at p99 < 1 s: failed \(exit 3\): 1 of 2 configurations: seed-bcrypt sync \(slower beyond 5%\)$/m)

  const json = await runCli(['compare', a, b, '--fail-if-slower', '5', '--json'])
  assert.equal(json.code, 3, json.stderr)
  const out = JSON.parse(json.stdout)
  assert.equal(out.gate.failed, false)
  assert.deepEqual(Object.keys(out.capacity), ['goal', 'compared', 'note', 'rows', 'gate'])
  assert.deepEqual(out.capacity.goal, { a: 'p99 < 1 s', b: 'p99 < 1 s' })
  assert.equal(out.capacity.compared, true)
  assert.equal(out.capacity.note, null)
  assert.deepEqual(out.capacity.gate, { threshold: 0.05, failed: true, exitCode: 3, slower: 1, undecided: 0 })
  const [sync, async] = out.capacity.rows
  assert.equal(sync.label, 'sync')
  assert.ok(Math.abs(sync.ratio.ciHigh - 0.94990220) < 1e-6, String(sync.ratio.ciHigh))
  assert.ok(Math.abs(sync.ratio.value - 0.90779) < 1e-9, String(sync.ratio.value))
  assert.deepEqual(sync.gate, { verdict: 'slower', fails: true, text: 'slower: 5.0%..13.2% slower, beyond 5%' })
  assert.deepEqual(sync.a, { searches: 3, found: 3, capacities: base, reasons: ['found', 'found', 'found'], geometricMean: sync.a.geometricMean, ciLow: sync.a.ciLow, ciHigh: sync.a.ciHigh })
  assert.equal(sync.noneFound, false)
  assert.deepEqual(async.gate, { verdict: 'equivalent', fails: false, text: 'equivalent within 5%' })

  const [a2, b2] = await pair('edge-pass', capacityFile({ sync: base, async: base }), capacityFile({ sync: scaled(0.90798), async: base }))
  const passed = await runCli(['compare', a2, b2, '--fail-if-slower', '5'])
  assert.equal(passed.code, 0, passed.stderr)
  assert.match(passed.stdout, /^seed-bcrypt +sync +slower by 5\.0%\.\.13\.2%, not surely beyond 5%$/m)
  assert.match(passed.stdout.replace(/\n {2}/g, ' '), /^gate --fail-if-slower 5% on capacity at p99 < 1 s: passed: no configuration slower beyond 5% \(2 compared\)$/m)
  const passedJson = JSON.parse((await runCli(['compare', a2, b2, '--fail-if-slower', '5', '--json'])).stdout)
  assert.ok(Math.abs(passedJson.capacity.rows[0].ratio.ciHigh - 0.95010102) < 1e-6)
  assert.equal(passedJson.capacity.rows[0].gate.verdict, 'slower-within')

  // without the gate: the capacities compared, exit 0, no gate column
  const plain = await runCli(['compare', a, b])
  assert.equal(plain.code, 0, plain.stderr)
  assert.match(plain.stdout, /^seed-bcrypt +sync +99\.99 +90\.77 +-9\.22% +0\.868x\.\.0\.950x +\S+ \*\*$/m)
  assert.doesNotMatch(plain.stdout, /gate \(|^gate --/m)
})

test('compare --fail-if-slower: a search of b that met the goal at no rate, where a found one, fails', async () => {
  // b's two other searches alone show no slowdown: the search that found none fails the configuration
  const [a, b] = await pair('none', capacityFile({ sync: base, async: base }), capacityFile({ sync: [101, null, 100], async: base }))
  const r = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(r.code, 3, r.stderr)
  assert.match(r.stdout, /^seed-bcrypt +sync +99\.99 +100\.50 \(1 none\) +\+0\.51% +\S+$/m)
  assert.match(r.stdout, /^seed-bcrypt +sync +no rate met the goal in a search of b$/m)
  assert.match(r.stdout.replace(/\n {2}/g, ' '), /failed \(exit 3\): 1 of 2 configurations: seed-bcrypt sync \(no rate met the goal in b\)$/m)
  const out = JSON.parse((await runCli(['compare', a, b, '--fail-if-slower', '5%', '--json'])).stdout)
  const [sync] = out.capacity.rows
  assert.equal(sync.noneFound, true)
  assert.deepEqual(sync.b.capacities, [101, null, 100])
  assert.deepEqual(sync.b.reasons, ['found', 'no-rate-meets', 'found'])
  assert.deepEqual(sync.gate, { verdict: 'none-found', fails: true, text: 'no rate met the goal in a search of b' })

  // the other way round (a found none where b finds some) is not a slowdown: 2 found in a, undecided
  const back = await runCli(['compare', b, a, '--fail-if-slower', '5%'])
  assert.equal(back.code, 0, back.stderr)
  assert.match(back.stdout, /^seed-bcrypt +sync +too few capacities to decide \(2 and 3 capacities; 3 a side needed\)$/m)
  assert.match(back.stdout.replace(/\n {2}/g, ' '), /passed: no configuration slower beyond 5% \(2 compared; 1 undecided: too few capacities found, syncbench run --capacity --runs 3 or more\)$/m)
})

test('compare: capacities at different goals are not compared: one line naming both, req/s compared', async () => {
  const [a, b] = await pair('goals', capacityFile({ sync: base, async: base }), capacityFile({ sync: scaled(0.5), async: base }, { goal: 'p99 < 500 ms', below: 500 }))
  const r = await runCli(['compare', a, b, '--fail-if-slower', '5'])
  // half the capacity at another goal is not a slowdown: exit 0, the req/s gate alone
  assert.equal(r.code, 0, r.stderr)
  assert.doesNotMatch(r.stdout, /^capacity at/m)
  assert.match(r.stdout, /^gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(2 compared\)$/m)
  const note = 'capacity not compared: a searched at the goal p99 < 1 s, b at p99 < 500 ms; a capacity holds for its goal alone; req/s compared alone'
  assert.ok(r.stdout.replace(/\n {2}/g, ' ').includes(note + '\n'), r.stdout)
  const out = JSON.parse((await runCli(['compare', a, b, '--fail-if-slower', '5', '--json'])).stdout)
  assert.deepEqual(out.capacity, { goal: { a: 'p99 < 1 s', b: 'p99 < 500 ms' }, compared: false, note, rows: [], gate: null })
  assert.equal(out.rows.length, 2)
})

test('compare: one file without capacity searches says so in one line and compares req/s', async () => {
  const plain = resultsFile('20.20.2', closed)
  const [a, b] = await pair('one-side', plain, capacityFile({ sync: scaled(0.5), async: base }))
  const r = await runCli(['compare', a, b, '--fail-if-slower', '5'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /^seed-bcrypt +sync +18\.50 +18\.50 +\+0\.00% /m)
  const line = `capacity not compared: only b (${b}) holds capacity searches (syncbench run --capacity); req/s compared alone`
  assert.ok(r.stdout.replace(/\n {2}/g, ' ').includes(line + '\n'), r.stdout)
  const back = await runCli(['compare', b, a, '--json'])
  assert.equal(back.code, 0, back.stderr)
  const out = JSON.parse(back.stdout)
  assert.equal(out.capacity.note, `capacity not compared: only a (${b}) holds capacity searches (syncbench run --capacity); req/s compared alone`)
  assert.deepEqual(out.capacity.goal, { a: 'p99 < 1 s', b: null })
  // neither file: no capacity key at all, as before
  const [c, d] = await pair('neither', plain, plain)
  assert.equal(Object.hasOwn(JSON.parse((await runCli(['compare', c, d, '--json'])).stdout), 'capacity'), false)
})

test('compare one file of two --node binaries: each binary\'s capacities against the baseline binary\'s', async () => {
  const results = capacityFile({ sync: base, async: base })
  /** @param {string} name @param {string} node */
  const binary = (name, node) => ({ name, node, v8: '1', uv: '1', openssl: '1' })
  const binaries = [binary('20', '20.0.0'), binary('22', '22.0.0')]
  results.nodes = binaries.map((b) => ({ name: b.name, path: `/opt/node-${b.name}`, versions: { node: b.node, v8: '1', uv: '1', openssl: '1' } }))
  results.runs = binaries.flatMap((b) => results.runs.map((/** @type {any} */ run) => ({ ...structuredClone(run), id: `${run.id}@${b.name}`, node: b })))
  // 22 holds 20% less of sync's capacity, the same of async's
  results.capacity.searches = binaries.flatMap((b) => results.capacity.searches.map((/** @type {any} */ s) => {
    const k = b.name === '22' && s.label === 'sync' ? 0.8 : 1
    return { ...structuredClone(s), node: b, search: { ...s.search, capacity: s.search.capacity * k } }
  }))
  const file = path.join(dir, 'nodes.json')
  await writeFile(file, JSON.stringify(results))
  const r = await runCli(['compare', file, '--fail-if-slower', '5'])
  assert.equal(r.code, 3, r.stderr)
  assert.match(r.stdout, /^seed-bcrypt +sync \(22 vs 20\) +99\.99 +79\.99 +-20\.00% /m)
  assert.match(r.stdout, /^seed-bcrypt +async \(22 vs 20\) +equivalent within 5%$/m)
  assert.match(r.stdout.replace(/\n {2}/g, ' '), /failed \(exit 3\): 1 of 2 configurations: seed-bcrypt sync \(22 vs 20\) \(slower beyond 5%\)$/m)
  const out = JSON.parse((await runCli(['compare', file, '--json'])).stdout)
  assert.deepEqual(out.capacity.rows.map((/** @type {any} */ row) => [row.label, row.nodes]), [['sync (22 vs 20)', { a: '20', b: '22' }], ['async (22 vs 20)', { a: '20', b: '22' }]])
})

const sixteen = fileURLToPath(new URL('./fixtures/results-16-cores-seed-bcrypt.json', import.meta.url))

/**
 * The 16-core fixture (sync bound by its main thread at 12.4 req/s, async by its 4 pool threads at 50.4)
 * with capacity searches of both, at the goal given.
 * @param {string} name
 * @param {import('../lib/types.js').SloTerm[]} [terms]
 */
async function sixteenWithCapacity (name, terms) {
  const results = JSON.parse(await readFile(sixteen, 'utf8'))
  const capacity = capacityResultsFile('20.20.2', { sync: { closedLoop: [12, 12, 12], capacities: [10, 10, 10] }, async: { closedLoop: [48, 48, 48], capacities: [40, 40, 40] } }).capacity
  capacity.searches.forEach((s) => { s.search.capacity = s.label === 'sync' ? 10 : 40 })
  if (terms) {
    capacity.slo = { terms }
    capacity.goal = 'p99 < 1 s, loop p99 < 50 ms'
  }
  const file = path.join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify({ ...results, capacity }))
  return file
}

test('predict on a capacity file: scaled where the bound keeps its kind, one reason where it moves', async () => {
  const file = await sixteenWithCapacity('predict')
  // 8 pool threads: async's bound stays the pool's and doubles; sync's stays its main thread's
  const eight = await runCli(['predict', file, '--threadpool', '8'])
  assert.equal(eight.code, 0, eight.stderr)
  assert.match(eight.stdout, /^predicted req\/s with UV_THREADPOOL_SIZE=8 \(the rest as measured\)$/m)
  assert.match(eight.stdout, /^predicted capacity at p99 < 1 s \(req\/s\) with UV_THREADPOOL_SIZE=8$/m)
  assert.match(eight.stdout, /^seed-bcrypt +async +40\.0 +4 pool threads +80\.0 +8 pool threads \(x2\.00\)$/m)
  assert.match(eight.stdout, /^seed-bcrypt +sync +10\.0 +main thread +10\.0 +main thread \(x1\.00\)$/m)
  assert.match(eight.stdout, /^a capacity is a rate below its bound: projected by the bound's rate there over here/m)

  // 16 pool threads on 16 cores: async's bound moves from its pool to the cores: no number, one reason
  const sixteenPool = await runCli(['predict', file, '--threadpool', '16'])
  assert.equal(sixteenPool.code, 0, sixteenPool.stderr)
  assert.match(sixteenPool.stdout, /^seed-bcrypt +async +40\.0 +4 pool threads +— +none \(1\)$/m)
  const reason = '(1) its bound moves from the 4 pool threads to the 16 cores: a capacity scales only under the same kind of bound'
  assert.ok(sixteenPool.stdout.replace(/\n(?=kind of bound)/g, ' ').includes(reason), sixteenPool.stdout)
  // the req/s table is as before: async projected to the cores
  assert.match(sixteenPool.stdout, /^seed-bcrypt +async +48\.1 +50\.4 +198 +16 cores$/m)

  const json = JSON.parse((await runCli(['predict', file, '--threadpool', '16', '--json'])).stdout)
  assert.equal(json.capacity.goal, 'p99 < 1 s')
  const async = json.capacity.configurations.find((/** @type {any} */ c) => c.label === 'async')
  assert.ok(Math.abs(async.capacity - 40) < 1e-9, String(async.capacity))
  assert.deepEqual({ ...async, capacity: 40 }, { experiment: 'seed-bcrypt', label: 'async', node: null, capacity: 40, predictedCapacity: null, scale: null, boundHere: '4 pool threads', boundThere: '16 cores', why: reason.slice(4) })
  const sync = json.capacity.configurations.find((/** @type {any} */ c) => c.label === 'sync')
  assert.ok(Math.abs(sync.predictedCapacity - 10) < 1e-9, String(sync.predictedCapacity))
  assert.equal(sync.scale, 1)
  assert.equal(sync.why, null)
})

test('predict: a goal with a loop p99 term projects no capacity, and says why; a file without capacity keeps its output', async () => {
  const file = await sixteenWithCapacity('predict-loop', [{ measure: 'p99', below: 1000 }, { measure: 'loop p99', below: 50 }])
  const r = await runCli(['predict', file, '--threadpool', '8', '--json'])
  assert.equal(r.code, 0, r.stderr)
  for (const c of JSON.parse(r.stdout).capacity.configurations) {
    assert.equal(c.predictedCapacity, null)
    assert.equal(c.why, 'its goal has a loop p99 term: the event loop\'s delay is not a rate the bounds scale')
  }
  const plain = await runCli(['predict', sixteen, '--threadpool', '8'])
  assert.doesNotMatch(plain.stdout, /capacity/)
  assert.equal(Object.hasOwn(JSON.parse((await runCli(['predict', sixteen, '--json'])).stdout), 'capacity'), false)
})
