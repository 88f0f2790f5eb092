// The open-loop figures in the report, from fixture data (test/fixtures/results-builder.js): the probe's
// table, verdict sentence and chart; the rate-sweep's table, capacity-at-SLO verdict and hockey-stick
// chart; report.html's coordinated-omission paragraph; and the schema accepting both.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { resultsFile } from './fixtures/results-builder.js'
import { validateResults } from '../lib/run/results-schema.js'
import { summarizeResults } from '../lib/report/model.js'
import { experimentTables, renderText } from '../lib/report/tables.js'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { renderHtml } from '../lib/report/html.js'
import { renderSummaryMarkdown } from '../lib/report/markdown.js'
import { HISTOGRAM_LAYOUT } from '../lib/load/histogram.js'
import { svgDom } from './fixtures/report-helpers.js'

const require = createRequire(import.meta.url)
const hdrEncoding = require('hdr-histogram-js/dist/encoding.js')
const Int32Histogram = require('hdr-histogram-js/dist/Int32Histogram.js').default

/**
 * An open-loop LoadResult of these latencies (ms), its histogram encoded as the engine encodes one.
 * @param {import('../lib/types.js').LoadResult} base a real LoadResult, for its shape
 * @param {number[]} ms
 * @param {number} rate
 */
function openLoopResult (base, ms, rate) {
  const { lowestDiscernibleValue: lo, highestTrackableValue: hi, numberOfSignificantValueDigits: digits } = HISTOGRAM_LAYOUT
  const h = new Int32Histogram(lo, hi, digits)
  for (const v of ms) h.recordValue(Math.round(v * 1000))
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (/** @type {number} */ q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
  const latency = { p50: at(0.5), p75: at(0.75), p90: at(0.9), p99: at(0.99), p999: at(0.999), p9999: at(0.9999), max: sorted[sorted.length - 1], mean: 0, stddev: 0 }
  return {
    ...structuredClone(base),
    options: { ...base.options, rate },
    completeRequests: ms.length,
    failedRequests: 0,
    non2xxResponses: 0,
    requestsPerSecond: rate,
    aborted: false,
    latency,
    latencyUncorrected: latency,
    openLoop: { targetRate: rate, achievedRate: rate, lateRequests: 0, lateThresholdMs: 5 },
    latencyHistogram: hdrEncoding.encodeIntoCompressedBase64(h)
  }
}

/** n values spread evenly from lo to hi, ms. @param {number} n @param {number} lo @param {number} hi */
const spread = (n, lo, hi) => Array.from({ length: n }, (_, i) => lo + (hi - lo) * i / (n - 1))

/** seed-bcrypt with a probe beside each run (sync: stalled up to 1.3 s; async: 3 ms), and a rate-sweep. */
function fixture () {
  const results = resultsFile('20.0.0', { sync: [17, 18], async: [34, 35] })
  const base = results.runs[0].load
  results.experiments[0].labels = ['sync', 'async']
  results.experiments[0].comparisons = { async: 'sync' }
  for (const run of results.runs) {
    const stalled = run.label === 'sync'
    run.probe = { path: '/__syncbench/health', rate: 10, connections: 100, error: null, load: { ...openLoopResult(base, stalled ? spread(120, 5, 1300) : spread(120, 0.5, 3), 10), aborted: true } }
  }
  /** @type {import('../lib/types.js').RunRecord[]} */
  const sweep = []
  const capacity = { sync: 18, async: 35 }
  for (const [variant, rps] of Object.entries(capacity)) {
    for (const offered of [0.5, 1.2]) {
      const rate = Number((offered * rps).toPrecision(4))
      const p99 = offered < 1 ? 40 : 2500
      sweep.push({
        ...structuredClone(results.runs[0]),
        id: `rate-sweep/${variant} ${offered * 100}%#1`,
        experiment: 'rate-sweep',
        label: `${variant} ${offered * 100}%`,
        config: { strategy: variant, workload: 'bcrypt', offered, rate },
        load: openLoopResult(base, spread(200, p99 / 10, p99), rate),
        probe: null
      })
    }
  }
  results.experiments.push({
    name: 'rate-sweep',
    title: 'Latency against offered load',
    description: '',
    axes: ['offered'],
    runs: 1,
    table: 'rate-sweep',
    labels: sweep.map((r) => r.label),
    comparisons: {},
    capacity: Object.fromEntries(Object.entries(capacity).map(([k, rps]) => [k, { rps, seconds: 3, concurrency: 8, requests: rps * 3, error: null }])),
    sloP99Ms: 500
  })
  results.runs.push(...sweep)
  return results
}

test('results with probes and a rate-sweep pass the schema and its content checks', () => {
  assert.doesNotThrow(() => validateResults(fixture(), 'fixture'))
  const bad = fixture()
  bad.runs[0].probe = { ...bad.runs[0].probe, rate: 0 }
  assert.throws(() => validateResults(bad, 'fixture'), /probe\/rate/)
  const undecodable = fixture()
  const probe = /** @type {any} */ (undecodable.runs[1].probe)
  probe.load.latencyHistogram = 'not base64!'
  assert.throws(() => validateResults(undecodable, 'fixture'), /\/runs\/1\/probe\/load\/latencyHistogram/)
})

test('the probe: its table, and the verdict sentence computed from the merged histograms', () => {
  const [seed] = summarizeResults(fixture())
  assert.match(seed.verdict, /; probe: while sync was loaded, \/__syncbench\/health waited p99 1\.29 s; under async, 3 ms \(10 req\/s, corrected for coordinated omission\)$/)
  const table = experimentTables(seed).find((t) => t.title.includes('probe'))
  assert.ok(table)
  assert.equal(table.title, 'seed-bcrypt: probe, 10 req/s to /__syncbench/health during each run (latency corrected for coordinated omission, ms)')
  assert.deepEqual(table.columns, ['Configuration', 'probe requests', 'errors', 'late', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'runs combined'])
  assert.deepEqual(table.rows.map((r) => [r[0], r[1], r[2], r[3], r[8]]), [['sync', '240', '0', '0', 'merged histograms of 2 runs'], ['async', '240', '0', '0', 'merged histograms of 2 runs']])
  assert.ok(Number(table.rows[0][6]) > 1000 && Number(table.rows[1][6]) < 5, renderText(table))
})

test('the rate-sweep: step table, capacity at the SLO beside the closed-loop capacity', () => {
  const sweep = summarizeResults(fixture())[1]
  assert.equal(sweep.verdict, 'rate-sweep: capacity at p99 under 500 ms: sync 9.00 req/s (50% of its closed-loop 18.0 req/s), async 17.5 req/s (50% of its closed-loop 35.0 req/s); ' +
    'past it, p99 reached 2.48 s (sync 120%, 21.6 req/s offered) [open loop, latency corrected for coordinated omission]')
  const [table] = experimentTables(sweep)
  assert.deepEqual(table.columns, ['Configuration', 'offered', 'target req/s', 'achieved req/s', 'late', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'p99 < 500 ms'])
  assert.deepEqual(table.rows.map((r) => [r[0], r[1], r[2], r[9]]), [['sync 50%', '50%', '9.00', 'yes'], ['sync 120%', '120%', '21.6', 'no'], ['async 50%', '50%', '17.5', 'yes'], ['async 120%', '120%', '42.0', 'no']])
  assert.ok(!experimentTables(sweep).some((t) => t.title.includes('latency per request')), 'its percentiles are in its own table')
})

test('charts: the probe per configuration on a log axis, the hockey stick with the SLO', () => {
  const specs = chartsFor(fixture())
  const probe = specs.find((s) => s.id === 'seed-bcrypt-probe')
  const stick = specs.find((s) => s.id === 'rate-sweep-rate-sweep')
  assert.ok(probe && stick, specs.map((s) => s.id).join(', '))
  assert.equal(specs.filter((s) => s.experiment === 'rate-sweep').length, 1, 'the rate-sweep draws its own chart, not the throughput sweep')
  const probeSvg = svgDom(renderChartSvg(probe))
  assert.deepEqual(probeSvg.texts('text').filter((t) => t.startsWith('p99')), ['p99 1.29 s', 'p99 3 ms'])
  assert.equal(/** @type {any} */ (probe.plot).x.type, 'log')
  const stickSvg = svgDom(renderChartSvg(stick))
  assert.equal(/** @type {any} */ (stick.plot).y.type, 'log')
  assert.ok(stickSvg.legend().includes('SLO: p99 under 500 ms'))
  assert.equal(stickSvg.marks('line').length, 4, 'p99 and p50, one line each per strategy')
})

test('report.html explains coordinated omission and links wrk2\'s README; summary.md carries the probe', () => {
  const results = fixture()
  const summaries = summarizeResults(results)
  const html = renderHtml(results, [], summaries)
  const paragraph = /<p><strong>Coordinated omission\.<\/strong>([^]*?)<\/p>/.exec(html)
  assert.ok(paragraph)
  assert.equal(paragraph[1].replace(/<[^>]+>/g, '').split(/(?<=\.) /).filter((s) => s.trim()).length, 2, 'two sentences')
  assert.match(paragraph[1], /<a href="https:\/\/github\.com\/giltene\/wrk2">/)
  assert.match(html, /seed-bcrypt: probe, 10 req\/s to \/__syncbench\/health/)
  const plain = resultsFile('20.0.0', { sync: [17] })
  assert.doesNotMatch(renderHtml(plain, []), /Coordinated omission/, 'only where open-loop figures are shown')
  const md = renderSummaryMarkdown(results, summaries)
  assert.match(md, /\*\*seed-bcrypt: probe, 10 req\/s/)
  assert.match(md, /\| rate-sweep 120%|\| sync 120% \| 120% \|/)
})
