// The analysis layer at the edges of its rules, on fixtures where the alternatives differ, so that a
// wrong branch cannot pass: corrected latency that is not the uncorrected one, late requests that are
// not 0, values just either side of a threshold, and the CI gate's case where the point and the
// interval fall on different sides of the allowed slowdown.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { readResultsFile } from '../lib/run/results-writer.js'
import { summarizeResults } from '../lib/report/model.js'
import { experimentTables } from '../lib/report/tables.js'
import { summarizeLatency } from '../lib/analysis/latency.js'
import { summarizeProfile } from '../lib/analysis/profile.js'
import { compareResults } from '../lib/analysis/summarize.js'
import { evaluateGate } from '../lib/analysis/gate.js'
import { HISTOGRAM_LAYOUT } from '../lib/load/histogram.js'
import { formatNumber } from '../lib/format.js'
import { resultsFile } from './fixtures/results-builder.js'
import { runCli } from './helper.js'

const require = createRequire(import.meta.url)
const hdrEncoding = require('hdr-histogram-js/dist/encoding.js')
const Int32Histogram = require('hdr-histogram-js/dist/Int32Histogram.js').default

const fixture = (/** @type {string} */ name) => readResultsFile(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)))

/**
 * A table's column, by its header, keyed by the rows' first cell.
 * @param {import('../lib/report/tables.js').Table} table @param {string} column
 */
function column (table, column) {
  const i = table.columns.indexOf(column)
  assert.ok(i > 0, `${table.title}: column ${column} in ${table.columns.join(', ')}`)
  return Object.fromEntries(table.rows.map((r) => [r[0], r[i]]))
}

/**
 * The runs as a closed-loop tool would have measured them: each load's uncorrected twin in place of its
 * latency (what reading the wrong figure anywhere after the engine would give).
 * @param {import('../lib/analysis/summarize.js').MeasuredRun[]} runs
 */
function uncorrected (runs) {
  return runs.map((r) => ({ ...r, load: { ...r.load, latency: /** @type {any} */ (r.load.latencyUncorrected), latencyHistogram: r.load.latencyHistogramUncorrected ?? null } }))
}

test('open loop: every cross-run latency is the corrected one (from the intended send time), never its uncorrected twin', async () => {
  const [s] = summarizeResults(await fixture('results-open-loop.json'))
  const table = experimentTables(s).find((t) => /latency per request/.test(t.title))
  assert.ok(table, 'the latency table')
  for (const row of s.rows) {
    const corrected = /** @type {import('../lib/analysis/latency.js').LatencySummary} */ (summarizeLatency(row.runs))
    const wrong = /** @type {import('../lib/analysis/latency.js').LatencySummary} */ (summarizeLatency(uncorrected(row.runs)))
    const p = (/** @type {import('../lib/analysis/latency.js').LatencySummary} */ l, /** @type {string} */ key) => l.percentiles.find((q) => q.key === key)?.ms
    // the fixture is one where they differ: a stalled server, late sends
    assert.notEqual(p(corrected, 'p50'), p(wrong, 'p50'), `${row.label}: corrected and uncorrected p50 differ`)
    assert.deepEqual(row.latency, corrected, `${row.label}: the model's latency is the corrected one`)
    // and read without syncbench's code: the runs' corrected histograms added up by hdr-histogram-js
    const sum = new Int32Histogram(HISTOGRAM_LAYOUT.lowestDiscernibleValue, HISTOGRAM_LAYOUT.highestTrackableValue, HISTOGRAM_LAYOUT.numberOfSignificantValueDigits)
    for (const r of row.runs) sum.add(hdrEncoding.decodeFromCompressedBase64(r.load.latencyHistogram))
    assert.equal(p(corrected, 'p50'), sum.getValueAtPercentile(50) / 1000)
    assert.equal(column(table, 'p50 ms')[row.label], formatNumber(/** @type {number} */ (p(corrected, 'p50'))))
    assert.equal(column(table, 'p99 ms')[row.label], formatNumber(/** @type {number} */ (p(corrected, 'p99'))))
    // the probe's too
    const probes = row.runs.flatMap((r) => r.probe?.load ? [{ ...r, load: r.probe.load }] : [])
    assert.equal(probes.length, 3)
    assert.notDeepEqual(summarizeLatency(probes), summarizeLatency(uncorrected(probes)), `${row.label}: the probe's corrected and uncorrected latency differ`)
    assert.deepEqual(row.probe?.latency, summarizeLatency(probes), `${row.label}: the probe's latency is the corrected one`)
  }
})

test('late requests: the probe\'s over a configuration\'s runs, and each rate-sweep step\'s, are the sum of its runs\'', async () => {
  const [s] = summarizeResults(await fixture('results-open-loop.json'))
  const probeTable = experimentTables(s).find((t) => /probe/.test(t.title))
  assert.ok(probeTable, 'the probe table')
  for (const row of s.rows) {
    const late = row.runs.reduce((n, r) => n + (r.probe?.load?.openLoop?.lateRequests ?? 0), 0)
    assert.ok(late > 0 && row.runs.filter((r) => (r.probe?.load?.openLoop?.lateRequests ?? 0) > 0).length > 1, `${row.label}: late probe requests in more than one run`)
    assert.equal(row.probe?.late, late)
    assert.equal(column(probeTable, 'late')[row.label], String(late))
  }
  const sweep = summarizeResults(await fixture('results-run-all.json')).find((x) => x.table === 'rate-sweep')
  assert.ok(sweep)
  const steps = column(experimentTables(sweep)[0], 'late')
  let runsWithLate = 0
  for (const row of sweep.rows) {
    const late = row.runs.map((r) => r.load.openLoop?.lateRequests ?? 0)
    if (late.filter((n) => n > 0).length > 1) runsWithLate++
    assert.equal(steps[row.label], String(late.reduce((a, b) => a + b, 0)), row.label)
  }
  assert.ok(runsWithLate > 0, 'a step whose runs were both late')
})

/** A LoadResult of these latencies (ms), its histogram encoded as the engine encodes one. @param {import('../lib/types.js').LoadResult} base @param {number[]} ms */
function withLatencies (base, ms) {
  const { lowestDiscernibleValue: lo, highestTrackableValue: hi, numberOfSignificantValueDigits: digits } = HISTOGRAM_LAYOUT
  const h = new Int32Histogram(lo, hi, digits)
  for (const v of ms) h.recordValue(Math.round(v * 1000))
  const max = Math.max(...ms)
  return { ...structuredClone(base), completeRequests: ms.length, latency: { ...base.latency, max }, latencyHistogram: hdrEncoding.encodeIntoCompressedBase64(h) }
}

test('p99 needs 100 requests: 99 over two runs give their maximum, flagged; 100 give the 99th percentile', async () => {
  const results = await fixture('results-16-cores-seed-bcrypt.json')
  const base = /** @type {import('../lib/types.js').LoadResult} */ (results.runs[0].load)
  // 1..n ms, the slowest far out: the 99th percentile and the maximum differ
  const ms = (/** @type {number} */ from, /** @type {number} */ n) => Array.from({ length: n }, (_, i) => i + from === 100 ? 5000 : i + from)
  const runs = (/** @type {number} */ second) => [{ ...results.runs[0], load: withLatencies(base, ms(1, 50)) }, { ...results.runs[1], load: withLatencies(base, ms(51, second)) }]
  const p99 = (/** @type {any[]} */ rs) => /** @type {import('../lib/analysis/latency.js').LatencySummary} */ (summarizeLatency(rs)).percentiles.find((q) => q.key === 'p99')
  const ninetyNine = p99(runs(49))
  assert.equal(ninetyNine?.isMax, true)
  assert.equal(ninetyNine?.ms, 99)
  const hundred = p99(runs(50))
  assert.equal(hundred?.isMax, false)
  assert.ok(Math.abs(/** @type {number} */ (hundred?.ms) - 99) < 0.1, `p99 of 1..99 and a 5 s outlier: ${hundred?.ms}`)
})

test('repeats that disagree: flagged above a 10% coefficient of variation, not at 10% or below', () => {
  // sd = d, mean 100: the coefficient of variation is d / 100
  const [s] = summarizeResults(resultsFile('20.20.2', { below: [90.01, 100, 109.99], at: [90, 100, 110], above: [89.99, 100, 110.01] }))
  const flagged = Object.fromEntries(s.rows.map((r) => [r.label, r.flags.some((f) => f.kind === 'spread')]))
  assert.deepEqual(flagged, { below: false, at: false, above: true })
})

test('the 20 ms blocking threshold, estimated from the series: a 20 ms delay is not blocking, 20.5 ms is', () => {
  // one sample a millisecond, at 0.5, 1.5 ... 199.5 ms, all in one function of the app
  const frame = (/** @type {string} */ functionName, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' })
  const profile = {
    nodes: [{ id: 1, callFrame: frame('(root)'), children: [2] }, { id: 2, callFrame: frame('work', 'file:///srv/app/server.js'), children: [] }],
    startTime: 0,
    endTime: 200_000,
    samples: Array.from({ length: 200 }, () => 2),
    timeDeltas: Array.from({ length: 200 }, (_, i) => i === 0 ? 500 : 1000)
  }
  // at 100 ms the loop was 20 ms late (no block: not more than the threshold); at 200 ms, 20.5 ms:
  // the block is taken as [200 - 20.5 - 10, 200], the samples at 169.5 ... 199.5 ms
  const series = { intervalMs: 100, t: [100, 200], loopDelayMaxMs: [20, 20.5], cpuPercent: [100, 100], rssBytes: [1, 1] }
  const s = summarizeProfile(/** @type {any} */ (profile), { file: 'x.cpuprofile', intervalUs: 1000, root: '/srv/app', series })
  assert.equal(s.blocking?.thresholdMs, 20)
  assert.equal(s.blocking?.ms, 31)
})

describe('the CI gate: only an interval wholly below 1 - X fails, whatever its point', () => {
  let dir = ''
  before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-gate-edge-')) })
  after(() => rm(dir, { recursive: true, force: true }))
  const a = { sync: [100, 101, 99] }
  // b / a: 0.930 (below 0.95), 95% CI 0.889..0.973: reaching above 0.95, below 1
  const within = { sync: [91, 93, 95] }
  // 0.928, 95% CI 0.75..1.14: reaching above 1
  const wide = { sync: [85, 93, 101] }

  test('the decision', () => {
    for (const [b, verdict] of /** @type {const} */ ([[within, 'slower-within'], [wide, 'no-change']])) {
      const rows = compareResults(resultsFile('20.20.2', a), resultsFile('20.20.2', b))
      assert.ok(rows[0].ratio.ratio < 0.95 && rows[0].ratio.high > 0.95, `point ${rows[0].ratio.ratio}, CI up to ${rows[0].ratio.high}`)
      const gate = evaluateGate(rows, 0.05)
      assert.equal(gate.decisions[0].verdict, verdict)
      assert.equal(gate.failed, false)
    }
  })

  test('syncbench compare --fail-if-slower 5% exits 0 and says so', async () => {
    const fa = path.join(dir, 'a.json')
    const fb = path.join(dir, 'b.json')
    await writeFile(fa, JSON.stringify(resultsFile('20.20.2', a)))
    await writeFile(fb, JSON.stringify(resultsFile('20.20.2', within)))
    const { code, stdout, stderr } = await runCli(['compare', fa, fb, '--fail-if-slower', '5%'])
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^seed-bcrypt +sync +.* slower by 2\.7%\.\.11\.1%, not surely beyond 5%$/m)
    assert.match(stdout, /^gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(1 compared\)$/m)
  })
})
