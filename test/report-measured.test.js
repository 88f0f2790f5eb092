// Which runs count: one isMeasured(run) for the tables, the verdicts, compare, the charts and the text
// charts. The fixture's seed-bcrypt/sync#4 was interrupted (aborted, 37 of 250 requests at 6 req/s):
// it must move no figure anywhere, and report.html must show it as partial.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isMeasured, compareResults } from '../lib/analysis/summarize.js'
import { summarizeResults } from '../lib/report/model.js'
import { mean } from '../lib/analysis/stats.js'
import { experimentTables } from '../lib/report/tables.js'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { textChart } from '../lib/report/text-chart.js'
import { renderHtml } from '../lib/report/html.js'
import { formatNumber } from '../lib/format.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

const ABORTED = 'seed-bcrypt/sync#4'

test('isMeasured: no error, a load result, not aborted', () => {
  const load = { requestsPerSecond: 10, aborted: false }
  assert.equal(isMeasured({ error: null, load }), true)
  assert.equal(isMeasured({ error: null, load: { ...load, aborted: true } }), false)
  assert.equal(isMeasured({ error: { code: 'SB_ERR_CONNECT', message: 'x' }, load }), false)
  assert.equal(isMeasured({ error: null, load: null }), false)
  const aborted = loadFixture().runs.find((r) => r.id === ABORTED)
  assert.equal(aborted.error, null, 'the fixture run is interrupted, not failed')
  assert.equal(aborted.load.aborted, true)
  assert.equal(isMeasured(aborted), false)
})

test('tables and verdicts leave the interrupted run out', () => {
  const results = loadFixture()
  const measured = results.runs.filter((r) => r.experiment === 'seed-bcrypt' && r.label === 'sync' && r.id !== ABORTED)
  assert.equal(measured.length, 3)
  const s = summarizeResults(results).find((e) => e.name === 'seed-bcrypt')
  const sync = s.rows.find((r) => r.label === 'sync')
  assert.equal(sync.runs.length, 3)
  assert.equal(sync.failed, 1, 'counted as not measured')
  assert.equal(sync.figures.requestsPerSecond.mean, mean(measured.map((r) => r.load.requestsPerSecond)))
  const [table] = experimentTables(s)
  assert.deepEqual(table.rows.find((r) => r[0] === 'Runs'), ['Runs', '3', '3'])
  assert.equal(table.rows.find((r) => r[0] === 'Complete requests:')[1], '250', 'no 37-request run in the mean')
})

test('compare leaves interrupted runs out on both sides', () => {
  const a = loadFixture()
  const b = loadFixture()
  for (const r of b.runs) if (r.id === ABORTED) r.load.requestsPerSecond = 1e6
  const [withAborted] = compareResults(a, b).filter((c) => c.experiment === 'seed-bcrypt' && c.label === 'sync')
  b.runs = b.runs.filter((r) => r.id !== ABORTED)
  const [without] = compareResults(a, b).filter((c) => c.experiment === 'seed-bcrypt' && c.label === 'sync')
  assert.deepEqual(withAborted, without)
  assert.equal(without.b.n, 3)
})

test('charts and text charts draw only measured runs', () => {
  const results = loadFixture()
  const measured = results.runs.filter((r) => r.experiment === 'seed-bcrypt' && r.label === 'sync' && r.id !== ABORTED)
  const spec = chartsFor(results).find((c) => c.id === 'seed-bcrypt-throughput')
  const values = svgDom(renderChartSvg(spec)).texts('text')
  assert.equal(values[0], `${formatNumber(mean(measured.map((r) => r.load.requestsPerSecond)))} req/s`)
  assert.match(svgDom(renderChartSvg(spec)).frameText(), /mean of 3 runs/)

  // a sweep with one interrupted repeat draws exactly what it draws without it
  const experiment = results.experiments.find((e) => e.name === 'delay-sweep')
  const runs = results.runs.filter((r) => r.experiment === 'delay-sweep')
  const cut = structuredClone(runs[0])
  cut.id = 'delay-sweep/cut#4'
  cut.load.requestsPerSecond = 1
  cut.load.aborted = true
  assert.equal(textChart(experiment, [...runs, cut]), textChart(experiment, runs))
  const sweep = (rs) => renderChartSvg(chartsFor({ ...results, experiments: [experiment], runs: rs }).find((c) => c.id === 'delay-sweep-throughput'))
  assert.equal(sweep([...runs, cut]), sweep(runs))
})

test('report.html shows the interrupted run as partial', () => {
  const results = loadFixture()
  const html = renderHtml(results, [])
  assert.ok(html.includes(`<summary>${ABORTED} <span class="partial">partial</span></summary>`))
  assert.match(html, /<p class="partial">Interrupted after 37 of 250 requests: a partial run, left out of the tables, verdicts and charts\.<\/p>/)
  assert.ok(html.includes(`<td>${ABORTED} (partial)</td>`), 'marked in the runs table too')
  assert.equal(html.match(/class="partial">partial</g).length, 1, 'only the aborted run')
})
