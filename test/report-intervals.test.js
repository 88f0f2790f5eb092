// One rule for a req/s interval everywhere (issue 10, item 10): the charts, the text charts and the
// articles' comparison take the tables' log-scale interval (lib/analysis/stats.js rateInterval), never
// negative and none from fewer than 3 runs, and say so where a point has too few runs for one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { textChart } from '../lib/report/text-chart.js'
import { experimentsOf, summarizeBy } from '../lib/report/chart-data.js'
import { summarizeResults } from '../lib/report/model.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

/**
 * The fixture's threadpool sweep and seed-bcrypt with 2 runs a point that disagree widely: a symmetric
 * t-interval from them (t = 12.7 with 1 df) reaches far below zero.
 */
function twoDisagreeingRuns () {
  const results = loadFixture()
  const keep = new Set(['threadpool-sweep', 'seed-bcrypt'])
  results.experiments = results.experiments.filter((e) => keep.has(e.name))
  results.runs = results.runs.filter((r) => keep.has(r.experiment) && r.repeat <= 2)
  for (const r of results.runs) if (r.load) r.load.requestsPerSecond *= r.repeat === 1 ? 0.45 : 1.55
  return results
}

test('charts from 2 disagreeing runs: no whisker (none negative), and the subtitle says why', () => {
  const results = twoDisagreeingRuns()
  const pool = experimentsOf(results).find((g) => g.experiment.name === 'threadpool-sweep')
  const points = summarizeBy(pool.runs, 'threadpoolSize', (r) => r.load?.requestsPerSecond, 'rate')
  assert.ok(points.length === 5 && points.every((p) => p.n === 2), 'the fixture: 5 points of 2 runs')
  assert.ok(points.every((p) => Number.isNaN(p.ciLow) && Number.isNaN(p.ciHigh)), 'no interval from 2 runs')
  const specs = new Map(chartsFor(results).map((s) => [s.id, s]))
  for (const id of ['threadpool-sweep-throughput', 'seed-bcrypt-throughput']) {
    const spec = specs.get(id)
    assert.ok(spec, id)
    const d = svgDom(renderChartSvg(spec))
    assert.equal(d.marks('link').length, 0, `${id}: no whisker`)
    assert.match(d.frameText(), /mean of 2 runs; no whiskers: 2 runs are too few for a 95% confidence interval \(3 or more give one\)/, id)
    assert.doesNotMatch(d.frameText(), /whiskers show/, id)
  }
})

test('charts from 3 runs draw the tables\' req/s interval (Row.rate, log scale) as their whiskers', () => {
  const results = loadFixture()
  const seed = experimentsOf(results).find((g) => g.experiment.name === 'seed-bcrypt')
  const points = summarizeBy(seed.runs, null, (r) => r.load?.requestsPerSecond, 'rate')
  const rows = summarizeResults(results).find((s) => s.name === 'seed-bcrypt').rows
  assert.deepEqual(points.map((p) => [p.series, p.n, p.mean, p.ciLow, p.ciHigh]),
    rows.map((r) => [r.label, 3, r.derived.requestsPerSecond, r.rate.low, r.rate.high]), 'the table\'s figure and interval, exactly')
  assert.ok(points.every((p) => p.ciLow > 0 && p.ciLow < p.mean && p.ciHigh > p.mean))
  const d = svgDom(renderChartSvg(chartsFor(results).find((s) => s.id === 'seed-bcrypt-throughput')))
  assert.equal(d.marks('link').length, 2)
  assert.match(d.frameText(), /mean of 3 runs, whiskers show the 95% confidence interval\./)
})

test('text chart from 2 disagreeing runs: the mean alone, never a ± reaching below zero, and says why', () => {
  const results = twoDisagreeingRuns()
  const pool = experimentsOf(results).find((g) => g.experiment.name === 'threadpool-sweep')
  const text = textChart(pool.experiment, pool.runs)
  assert.doesNotMatch(text, /±|-\d/, 'no symmetric or negative interval')
  const rows = text.split('\n').slice(1, 6)
  assert.ok(rows.every((l) => /\d$/.test(l) && !/\(/.test(l)), rows.join('\n'))
  assert.match(text, /mean of repeated runs; no interval: 2 runs are too few for a 95% CI \(3 or more give one\)/)
})

test('text chart from 3 runs: the log-scale interval low..high beside the mean', () => {
  const results = loadFixture()
  const pool = experimentsOf(results).find((g) => g.experiment.name === 'threadpool-sweep')
  const lines = textChart(pool.experiment, pool.runs).trimEnd().split('\n')
  const m = /(\d+\.\d) \((\d+\.\d)\.\.(\d+\.\d)\)$/.exec(lines[1])
  assert.ok(m, lines[1])
  const [mean, low, high] = m.slice(1).map(Number)
  assert.ok(low > 0 && low <= mean && mean <= high)
  assert.match(lines[6], /mean of repeated runs \(95% CI\)/)
})
