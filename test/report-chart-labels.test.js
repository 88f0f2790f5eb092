// Reference lines read without the legend: the ceiling and the one-core line carry their label on the
// line; a ceiling far above the data (the readfile seed's) is named at the edge instead of squeezing the
// bars; and each run is a dot beside the mean and its CI in the throughput charts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'
import { isMeasured } from '../lib/analysis/summarize.js'

const results = loadFixture()
const byId = new Map(chartsFor(results).map((s) => [s.id, s]))
const spec = (/** @type {string} */ id) => {
  const s = byId.get(id)
  assert.ok(s, `no chart ${id}`)
  return s
}
const dom = (/** @type {string} */ id) => svgDom(renderChartSvg(spec(id)))

test('the seed bcrypt bars: the ceiling and the one-core line are labelled on the line, the legend kept', () => {
  const d = dom('seed-bcrypt-throughput')
  assert.deepEqual(d.texts('reference label'), ['ceiling 30.8 req/s', 'one core 15.4 req/s'])
  assert.deepEqual(d.legend(), ['ceiling: 2 cores × 15.4 hash/s = 30.8 req/s', 'one core (work on the event loop): 15.4 req/s'])
})

test('sweeps: a bent ceiling is labelled at its end, a flat one and the CPU chart\'s cores on their line', () => {
  assert.deepEqual(dom('concurrency-sweep-throughput').texts('reference label'), ['ceiling min(c, 2 cores) × 15.4 hash/s', 'one core 15.4 req/s'])
  assert.deepEqual(dom('threadpool-sweep-throughput').texts('reference label'), ['ceiling min(threads, 2 cores) × 15.4 hash/s'])
  assert.deepEqual(dom('seed-bcrypt-cpu').texts('reference label'), ['one core (100%)', 'all 2 cores (200%)'])
})

test('the readfile seed\'s ceiling, 4.9x its fastest bar, is named at the edge instead of squeezing the bars', () => {
  const s = spec('seed-readfile-throughput')
  const rules = s.plot.marks.filter((m) => m.constructor.name === 'RuleX').flatMap((m) => m.data)
  assert.deepEqual(rules.filter((v) => v !== 0), [], 'no line at 1,053 or 526 req/s')
  const [, max] = /** @type {number[]} */ (s.plot.x?.domain)
  assert.ok(max < 2 * 224.05, `the axis ends at ${max}, near the data (readFile's CI ends at 224.05)`)
  const d = dom('seed-readfile-throughput')
  assert.deepEqual(d.texts('off-chart reference'), ['ceiling 1053 req/s, 4.9× the fastest: off the chart →', 'one core 526 req/s, 2.5× the fastest: off the chart →'])
  assert.deepEqual(d.legend(), ['ceiling: 2 cores × 526 read/s = 1053 req/s (off the chart)', 'one core (work on the event loop): 526 req/s (off the chart)'])
  // the delay sweep's data are as far below the same ceiling
  const sweep = dom('delay-sweep-throughput')
  assert.deepEqual(sweep.texts('reference label'), [])
  assert.deepEqual(sweep.texts('off-chart reference'), ['ceiling 1053 req/s, 10.9× the fastest: off the chart ↑', 'one core 526 req/s, 5.5× the fastest: off the chart ↑'])
})

test('each run is a dot beside its mean and CI in the throughput charts, only where runs repeat', () => {
  const bars = dom('seed-bcrypt-throughput')
  assert.equal(bars.marks('run').length, 6, '3 runs x 2 configurations')
  const plotted = spec('seed-bcrypt-throughput').plot.marks.find((m) => m.ariaLabel === 'run').data.map((r) => r.value).sort((a, b) => a - b)
  const rps = results.runs.filter((r) => r.experiment === 'seed-bcrypt' && isMeasured(r)).map((r) => r.load.requestsPerSecond).sort((a, b) => a - b)
  assert.deepEqual(plotted, rps, 'the runs\' own req/s')
  assert.equal(dom('threadpool-sweep-throughput').marks('run').length, 15, '3 runs x 5 pool sizes')
  assert.equal(dom('concurrency-sweep-throughput').marks('run').length, 0, 'one run each: the dot is the mean')
  assert.equal(dom('seed-bcrypt-cpu').marks('run').length, 0, 'throughput charts only')
})
