// The time-series chart: runs whose server metrics carry a series (ServerMetrics.series) get one chart
// per experiment, one line per configuration (its first run) in each of three panels, and the values it
// plots are the series' own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { timeSeriesRows } from '../lib/report/chart-timeseries.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

const MIB = 1024 * 1024

/** A fixed series: sync's loop stops for 1 s in the middle, async's never does. */
function seriesFor (label, repeat) {
  const t = [100, 200, 300, 1300, 1400, 1500]
  const block = label === 'sync' ? 1000 : 2
  return {
    intervalMs: 100,
    t,
    loopDelayMaxMs: [1, 3, 2, block, 4, 1].map((v) => v + repeat - 1),
    cpuPercent: [20, 98, 99, 100, 60, 10],
    rssBytes: [60, 61, 62, 64, 64, 63].map((v) => v * MIB)
  }
}

function fixtureWithSeries () {
  const results = loadFixture()
  for (const run of results.runs) {
    if (run.experiment === 'seed-bcrypt' && run.server) run.server.series = seriesFor(run.label, run.repeat)
  }
  return results
}

test('a results file without series draws no time-series chart (older files read as before)', () => {
  assert.ok(!chartsFor(loadFixture()).some((s) => s.kind === 'timeseries'))
})

test('the time-series chart plots each configuration\'s first-run series, value for value', () => {
  const results = fixtureWithSeries()
  const specs = chartsFor(results)
  const spec = specs.find((s) => s.id === 'seed-bcrypt-timeseries')
  assert.ok(spec, `charts: ${specs.map((s) => s.id).join(', ')}`)
  assert.equal(spec.kind, 'timeseries')
  assert.equal(specs.filter((s) => s.kind === 'timeseries').length, 1, 'only seed-bcrypt has series')
  assert.deepEqual(spec.legend.map((l) => l.label), ['sync', 'async'])
  const line = spec.plot.marks.find((m) => m.constructor.name === 'Line')
  const plotted = (series, metric) => line.data.filter((d) => d.series === series && d.metric === metric)
  for (const label of ['sync', 'async']) {
    const first = results.runs.find((r) => r.experiment === 'seed-bcrypt' && r.label === label && r.repeat === 1).server.series
    assert.deepEqual(plotted(label, 'event-loop delay').map((d) => d.value), first.loopDelayMaxMs)
    assert.deepEqual(plotted(label, 'CPU').map((d) => d.value), first.cpuPercent)
    assert.deepEqual(plotted(label, 'RSS').map((d) => d.value), first.rssBytes.map((b) => b / MIB))
    assert.deepEqual(plotted(label, 'event-loop delay').map((d) => d.t), first.t.map((t) => t / 1000))
  }
  // the 1 s block is the top of its panel
  assert.equal(plotted('sync', 'event-loop delay')[3].y, 1)
  assert.deepEqual(timeSeriesRows(results.runs.filter((r) => r.experiment === 'seed-bcrypt')), line.data)
})

test('rendered: three panels with one line per configuration, each panel labelled in its own unit', () => {
  const spec = chartsFor(fixtureWithSeries()).find((s) => s.id === 'seed-bcrypt-timeseries')
  const d = svgDom(renderChartSvg(spec))
  const paths = d.root.querySelectorAll('g[aria-label="line"] path')
  assert.equal(paths.length, 6, '2 configurations x 3 panels')
  assert.ok([...paths].every((p) => /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/.test(p.getAttribute('d'))), 'every line has a drawn path')
  assert.deepEqual(d.texts('fy-axis tick label'), ['event-loop delay', 'CPU', 'RSS'])
  const labels = d.texts('text')
  assert.ok(labels.includes('1,000 ms'), labels.join(' | '))
  assert.ok(labels.includes('100 %'))
  assert.ok(labels.includes('64 MiB'), labels.join(' | '))
  assert.match(d.frameText(), /spike as wide as the pause/)
})
