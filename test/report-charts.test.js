// Every chart of the fixed results file, rendered to SVG and read back: which charts exist, their
// marks (one line per strategy, one bar per configuration, CI whiskers only where runs repeat),
// their axis labels and the physical ceilings.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

const results = loadFixture()
const specs = chartsFor(results)
const byId = new Map(specs.map((s) => [s.id, s]))
const dom = (id) => {
  assert.ok(byId.has(id), `no chart ${id}; have ${[...byId.keys()].join(', ')}`)
  return svgDom(renderChartSvg(byId.get(id)))
}

test('each experiment gets throughput, latency, event-loop, CPU and memory charts; mixed workloads are split', () => {
  const parts = ['seed-bcrypt', 'seed-readfile', 'delay-sweep', 'concurrency-sweep', 'threadpool-sweep', 'file-size', 'strategies-bcrypt', 'strategies-readfile']
  const kinds = ['throughput', 'latency', 'event-loop', 'cpu', 'memory']
  assert.deepEqual(specs.map((s) => s.id), parts.flatMap((p) => kinds.map((k) => `${p}-${k}`)))
  assert.equal(new Set(specs.map((s) => s.experiment)).size, 7)
})

test('a seed chart: one bar per strategy, 95% CI whiskers from 3 runs, the ceiling and the one-core line', () => {
  const d = dom('seed-bcrypt-throughput')
  assert.equal(d.marks('bar').length, 2)
  assert.equal(d.marks('link').length, 2, 'one CI whisker per bar')
  assert.deepEqual(d.texts('y-axis tick label'), ['sync', 'async'])
  assert.match(d.texts('x-axis label')[0], /requests \/ s/)
  const values = d.texts('text')
  assert.equal(values.length, 2)
  assert.match(values[0], /^13\.\d req\/s$/)
  assert.match(values[1], /^28\.\d req\/s$/)
  assert.deepEqual(d.legend(), ['ceiling: 2 cores × 15.4 hash/s = 30.8 req/s', 'one core (work on the event loop): 15.4 req/s'])
  assert.match(d.frameText(), /mean of 3 runs, whiskers show the 95% confidence interval/)
  const rules = d.marks('rule').map((l) => Number(l.getAttribute('x1') ?? l.getAttribute('x')))
  assert.ok(rules.length >= 3, 'zero line and two reference lines')
})

test('the concurrency sweep: one line per strategy on a log x axis, a bent ceiling, no whiskers for single runs', () => {
  const d = dom('concurrency-sweep-throughput')
  const lines = d.marks('line')
  assert.equal(lines.length, 4, '3 strategies + the min(c, cores) ceiling curve')
  assert.ok(lines.every((p) => /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/.test(p.getAttribute('d'))), 'every line has a drawn path')
  assert.equal(d.marks('dot').length, 21)
  assert.equal(d.marks('link').length, 0)
  assert.deepEqual(d.texts('x-axis tick label'), ['1', '2', '5', '10', '20', '50', '100'])
  assert.equal(d.texts('x-axis label')[0], 'concurrency, log scale →')
  assert.equal(d.texts('y-axis label')[0], '↑ requests / s')
  assert.deepEqual(d.legend().slice(0, 3), ['sync', 'async', 'fake-async'])
  assert.ok(d.legend().includes('ceiling: min(c, 2 cores) × 15.4 hash/s'))
  // log axis: 1 -> 10 and 10 -> 100 take the same width
  const ticks = d.marks('x-axis tick').map((p) => Number(/translate\(([\d.]+)/.exec(p.getAttribute('transform'))[1]))
  assert.ok(Math.abs((ticks[3] - ticks[0]) - (ticks[6] - ticks[3])) < 0.5)
})

test('the threadpool sweep: ceiling min(pool, cores) x single-op rate, whiskers from 3 runs', () => {
  const d = dom('threadpool-sweep-throughput')
  assert.equal(d.marks('link').length, 5)
  assert.deepEqual(d.texts('x-axis tick label'), ['1', '2', '4', '8', '16'])
  assert.equal(d.texts('x-axis label')[0], 'UV_THREADPOOL_SIZE, log scale →')
  assert.ok(d.legend().includes('ceiling: min(threads, 2 cores) × 15.4 hash/s'))
  const spec = byId.get('threadpool-sweep-throughput')
  const curve = spec.plot.marks.find((m) => m.ariaLabel === 'line' && m.data?.[0]?.y !== undefined)
  assert.ok(curve, 'the ceiling is drawn as a curve')
  assert.ok(Math.abs(curve.data[0].y - 1000 / 65) < 1e-9, 'one thread: one op at a time')
  assert.ok(Math.abs(curve.data.at(-1).y - 2000 / 65) < 1e-9, 'sixteen threads: still two cores')
})

test('sweeps over delay and file size: linear axis with 0, and every file size labelled', () => {
  const delay = dom('delay-sweep-throughput')
  assert.deepEqual(delay.texts('x-axis tick label'), ['0', '1', '2', '5', '10'])
  assert.equal(delay.texts('x-axis label')[0], 'setTimeout delay (ms) →')
  assert.equal(delay.marks('link').length, 5)
  const size = dom('file-size-throughput')
  // d3's log scale drops "crowded" labels such as 64 KiB next to 1 MiB: every swept value must keep its label
  assert.deepEqual(size.texts('x-axis tick label'), ['64 KiB', '1 MiB', '4 MiB', '16 MiB'])
  assert.equal(size.marks('dot').length, 7, 'the failed run is not drawn')
  assert.ok(size.texts('y-axis tick label').includes('1,000'), 'req/s over two decades: log y axis')
})

test('latency percentile curves: log axes, the sync tail in seconds beside async', () => {
  const d = dom('seed-readfile-latency')
  assert.equal(d.marks('line').length, 3)
  assert.equal(d.marks('dot').length, 18, '6 percentiles x 3 strategies')
  assert.deepEqual(d.texts('x-axis tick label'), ['50%', '90%', '99%', '99.9%', '99.99%'])
  const y = d.texts('y-axis tick label')
  assert.ok(y.some((t) => t.endsWith(' s')), `seconds on the y axis: ${y}`)
  assert.ok(y.some((t) => t.endsWith(' ms')), `milliseconds too: ${y}`)
  assert.deepEqual(d.legend(), ['readFile', 'readFileSync', 'fake async'])
  const sweep = dom('concurrency-sweep-latency')
  assert.match(sweep.frameText(), /At concurrency = 100\./)
  const sizes = dom('file-size-latency')
  assert.deepEqual(sizes.legend(), ['sync', 'async'], 'taken at the largest size both strategies reached')
})

test('event-loop delay per strategy: p50, p99 and max; in a sweep, p99 against the axis', () => {
  const d = dom('seed-bcrypt-event-loop')
  assert.equal(d.marks('dot').length, 4, 'p50 ring and p99 dot per strategy')
  assert.equal(d.marks('tick').length, 2, 'one max tick per strategy')
  assert.deepEqual(d.legend(), ['p50', 'p99', 'max'])
  const max = d.texts('text')
  assert.match(max[0], /^max 1\d\d ms$/)
  assert.match(max[1], /^max \d+(\.\d)? ms$/)
  const sweep = dom('concurrency-sweep-event-loop')
  assert.equal(sweep.marks('line').length, 3)
  assert.equal(sweep.texts('y-axis label')[0], '↑ p99 event-loop delay (ms)')
})

test('CPU and memory: reference lines at one core and all cores, RSS with thread counts', () => {
  const cpu = dom('seed-bcrypt-cpu')
  assert.equal(cpu.marks('bar').length, 2)
  assert.deepEqual(cpu.legend(), ['one core (100%)', 'all 2 cores (200%)'])
  const mem = dom('seed-readfile-memory')
  assert.deepEqual(mem.texts('text').map((t) => t.replace(/^\d+/, 'N')), ['N MiB · 11 threads', 'N MiB · 11 threads', 'N MiB · 11 threads'])
  const pool = dom('threadpool-sweep-memory')
  assert.deepEqual(pool.texts('text'), ['8 threads', '9 threads', '11 threads', '15 threads', '23 threads'])
  assert.deepEqual(pool.legend(), ['async · 8–23 threads'])
})

test('colours follow the strategy in every chart', () => {
  const fill = (id, i) => dom(id).marks('bar')[i].getAttribute('fill')
  assert.equal(fill('seed-bcrypt-throughput', 0), '#d62728', 'sync is red')
  assert.equal(fill('seed-readfile-throughput', 1), '#d62728', 'readFileSync (sync) is red too')
  assert.equal(fill('seed-readfile-throughput', 0), '#1f77b4', 'readFile (async) is blue')
})

test('the narrow layout for phones keeps every mark', () => {
  const narrow = new Map(chartsFor(results, { width: 420 }).map((s) => [s.id, s]))
  assert.deepEqual([...narrow.keys()], [...byId.keys()])
  const d = svgDom(renderChartSvg(narrow.get('concurrency-sweep-throughput')))
  assert.equal(d.root.getAttribute('viewBox').split(' ')[2], '420')
  assert.equal(d.root.getAttribute('class'), 'chart-narrow')
  assert.equal(d.marks('dot').length, 21)
})

test('a standalone SVG: namespace, title, white background, every text inside the frame width', () => {
  for (const spec of specs) {
    const svg = renderChartSvg(spec)
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 720 \d+"/)
    const d = svgDom(svg)
    assert.equal(d.root.querySelector('title').textContent, spec.title)
    assert.equal(d.root.getAttribute('data-chart'), spec.id)
    assert.equal(d.root.querySelector('rect').getAttribute('fill'), 'white')
    for (const t of d.root.querySelectorAll(':scope > text')) {
      // 0.58 em a character is what wrap() assumes for DejaVu Sans, the widest likely font
      assert.ok(16 + t.textContent.length * Number(t.getAttribute('font-size')) * 0.58 <= 720 + 1e-9, `${spec.id}: "${t.textContent}" overflows`)
    }
  }
})

test('an experiment measured by nobody draws nothing; unknown experiments of runs still get charts', () => {
  const r = loadFixture()
  r.runs = r.runs.filter((run) => run.experiment === 'seed-bcrypt').map((run) => ({ ...run, experiment: 'renamed' }))
  const ids = chartsFor(r).map((s) => s.id)
  assert.deepEqual(ids, ['renamed-throughput', 'renamed-latency', 'renamed-event-loop', 'renamed-cpu', 'renamed-memory'])
  r.runs = r.runs.map((run) => ({ ...run, load: null, server: null, error: { code: 'SB_ERR_CONNECT', message: 'x' } }))
  assert.deepEqual(chartsFor(r), [])
})
