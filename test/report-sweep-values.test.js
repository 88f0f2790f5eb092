// Every value a chart plots is the figure its label names, read back from the fixture's runs: in each
// sweep chart (req/s, p99 event-loop delay, CPU, peak RSS), each point lies within the values of the
// runs it stands for (exactly their value for a single run) and the rendered dot says so; the latency
// curves and the per-strategy event-loop chart likewise, percentile by percentile. A chart drawing the
// mean under a p99 label, or one run's figure for another's, fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { formatNumber } from '../lib/format.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

const results = loadFixture()
const specs = new Map(chartsFor(results).map((s) => [s.id, s]))
const MIB = 1024 * 1024
const measured = (r) => r.error === null && r.load !== null && r.load.aborted !== true
const sweeps = results.experiments.filter((e) => e.axes.length === 1)

/** What each sweep chart's label promises, as a function of one run. */
const metrics = {
  throughput: { label: /requests \/ s/, of: (r) => r.load.requestsPerSecond },
  'event-loop': { label: /p99 event-loop delay/, of: (r) => r.server?.eventLoopDelay.p99 },
  cpu: { label: /CPU \(% of one core\)/, of: (r) => r.server?.cpu.percent },
  memory: { label: /peak RSS \(MiB\)/, of: (r) => r.server ? r.server.memory.peakRssBytes / MIB : undefined }
}

/** The series a run belongs to in a sweep: its label without the swept value's token ("async c=20" -> "async"). */
function seriesOf (run, axis) {
  return run.label.split(' ').filter((t) => !(t.includes('=') && t.slice(t.indexOf('=') + 1) === String(run.config[axis]))).join(' ')
}

const eps = 1e-9
function assertWithin (value, values, what, tolerance = 0) {
  assert.ok(values.length > 0, `${what}: no run in the fixture`)
  const lo = Math.min(...values) * (1 - tolerance) - eps
  const hi = Math.max(...values) * (1 + tolerance) + eps
  assert.ok(value >= lo && value <= hi, `${what}: plotted ${value}, the runs have ${values.join(', ')}`)
}

const dataOf = (spec, kind) => spec.plot.marks.filter((m) => m.ariaLabel === kind).flatMap((m) => m.data ?? [])

test('sweep charts plot, at each point, the figure their axis names, from the runs of that point', () => {
  let checked = 0
  for (const experiment of sweeps) {
    const axis = experiment.axes[0]
    const runs = results.runs.filter((r) => r.experiment === experiment.name && measured(r))
    for (const [kind, metric] of Object.entries(metrics)) {
      const id = `${experiment.name}-${kind}`
      const spec = specs.get(id)
      assert.ok(spec, `no chart ${id}`)
      const dom = svgDom(renderChartSvg(spec))
      assert.match(dom.texts('y-axis label')[0], metric.label, id)
      const points = dataOf(spec, 'dot')
      assert.equal(dom.marks('dot').length, points.length, `${id}: one dot drawn per point`)
      const titles = dom.marks('dot').map((c) => c.querySelector('title')?.textContent ?? '')
      const withValue = runs.filter((r) => Number.isFinite(metric.of(r)))
      assert.equal(points.reduce((n, p) => n + p.n, 0), withValue.length, `${id}: every run drawn once`)
      for (const p of points) {
        const mine = withValue.filter((r) => Number(r.config[axis]) === p.x && seriesOf(r, axis) === p.series)
        const values = mine.map(metric.of)
        const what = `${id}: ${p.series} at ${axis} = ${p.x}`
        assert.equal(p.n, mine.length, `${what}: number of runs`)
        assertWithin(p.mean, values, what)
        if (mine.length === 1) {
          assert.equal(p.mean, values[0], what)
          assert.ok(titles.some((t) => t.startsWith(`${p.series}, `) && t.endsWith(`: ${formatNumber(values[0])}`)),
            `${what}: no dot titled "… ${formatNumber(values[0])}" among ${titles.join(' | ')}`)
        }
        checked++
      }
    }
  }
  assert.ok(checked >= 100, `${checked} points checked`)
})

test('latency curves plot each percentile from the runs of their series (and, in a sweep, the axis value named)', () => {
  // p99.9 and beyond are left out: where the samples do not support them they may be drawn as "max".
  const keys = { 0.5: 'p50', 0.75: 'p75', 0.9: 'p90', 0.99: 'p99' }
  let checked = 0
  for (const experiment of results.experiments) {
    const spec = [...specs.values()].filter((s) => s.experiment === experiment.name && s.kind === 'latency')
    const runs = results.runs.filter((r) => r.experiment === experiment.name && measured(r))
    for (const s of spec) {
      for (const d of dataOf(s, 'dot')) {
        const key = keys[d.q]
        if (!key) continue
        let mine = runs.filter((r) => r.label === d.series)
        if (mine.length === 0 && experiment.axes.length === 1) {
          // several series in a sweep: the curve is taken at the largest axis value they all reached
          const axis = experiment.axes[0]
          const xs = (name) => new Set(runs.filter((r) => seriesOf(r, axis) === name).map((r) => Number(r.config[axis])))
          const names = [...new Set(runs.map((r) => seriesOf(r, axis)))]
          const top = Math.max(...names.map(xs).reduce((a, b) => new Set([...a].filter((x) => b.has(x)))))
          mine = runs.filter((r) => seriesOf(r, axis) === d.series && Number(r.config[axis]) === top)
          assert.match(s.subtitle, / At .+ = .+\./, `${s.id}: the subtitle names the axis value`)
        }
        // 1%: room for percentiles of the runs' merged histograms, which lie within the runs' own
        assertWithin(d.ms, mine.map((r) => r.load.latency[key]), `${s.id}: ${d.series} ${key}`, 0.01)
        checked++
      }
    }
  }
  assert.ok(checked >= 50, `${checked} points checked`)
})

test('the per-strategy event-loop chart plots each run group\'s p50, p99 and max where it says', () => {
  let checked = 0
  for (const spec of specs.values()) {
    if (spec.kind !== 'event-loop') continue
    const rows = dataOf(spec, 'dot').filter((d) => 'p99' in d)
    if (rows.length === 0) continue
    const dom = svgDom(renderChartSvg(spec))
    assert.deepEqual(dom.legend(), ['p50', 'p99', 'max'], spec.id)
    const titles = dom.marks('dot').map((c) => c.querySelector('title')?.textContent ?? '')
    for (const d of rows) {
      const mine = results.runs.filter((r) => r.experiment === spec.experiment && measured(r) && r.label === d.series && r.server)
      for (const stat of ['p50', 'p99', 'max']) assertWithin(d[stat], mine.map((r) => r.server.eventLoopDelay[stat]), `${spec.id}: ${d.series} ${stat}`)
      if (mine.length === 1) assert.equal(d.p99, mine[0].server.eventLoopDelay.p99, `${spec.id}: ${d.series} p99`)
      assert.ok(titles.some((t) => t.startsWith(`${d.series}: p99 `)), `${spec.id}: a p99 dot for ${d.series}`)
      checked++
    }
  }
  assert.ok(checked >= 8, `${checked} rows checked`)
})
