// Cross-run latency percentiles: read from the runs' merged histograms (never a mean of the runs'
// percentiles) in the summary, the latency table, the chart and compare; shown only where the sample
// count supports them (else labelled "max"); labelled "not mergeable" where runs have no histogram.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { loadtest } from '../lib/load/loadtest.js'
import { summarizeResults } from '../lib/report/model.js'
import * as tables from '../lib/report/tables.js'
import { compareResults } from '../lib/analysis/summarize.js'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { renderSummaryMarkdown } from '../lib/report/markdown.js'
import { renderHtml } from '../lib/report/html.js'
import { formatNumber } from '../lib/format.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'
import { startHttpServer } from './helper.js'

const hdr = createRequire(import.meta.url)('hdr-histogram-js')
const r3 = (x) => Math.round(x * 1000) / 1000

const closers = []
after(() => Promise.all(closers.map((close) => close())))

/** A server that answers every `every`-th request `delayMs` late (never, with every = 0). */
async function server (every, delayMs) {
  let n = 0
  const s = await startHttpServer((req, res) => {
    const send = () => res.writeHead(200, { 'Content-Length': 2 }).end('ok')
    if (every > 0 && ++n % every === 0) setTimeout(send, delayMs)
    else send()
  })
  closers.push(s.close)
  return s
}

/** A results file of one experiment whose configuration `x` has these runs. */
function resultsOf (loads) {
  return {
    schema: 'syncbench/results@1',
    syncbench: '0.1.0',
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    argv: [],
    options: { runs: loads.length, engine: 'builtin' },
    environment: loadFixture().environment,
    experiments: [{ name: 'merge', title: 'Merged runs', description: '', axes: [], runs: loads.length, labels: ['x'], comparisons: {} }],
    runs: loads.map((load, i) => ({
      id: `merge/x#${i + 1}`,
      experiment: 'merge',
      label: 'x',
      config: { strategy: 'sync' },
      repeat: i + 1,
      engine: 'builtin',
      load: JSON.parse(JSON.stringify(load)),
      server: null,
      serverEnv: null,
      startedAt: load.startedAt,
      error: null
    }))
  }
}

const tableOf = (summary, what) => tables.experimentTables(summary).find((t) => what.test(t.title))
const cell = (table, label, column) => table.rows.find((r) => r[0] === label)?.[table.columns.indexOf(column)]
const dataOf = (spec, kind) => spec.plot.marks.filter((m) => m.ariaLabel === kind).flatMap((m) => m.data ?? [])

test('cross-run percentiles are those of one histogram of every request of every run, in the summary, table, chart and compare', async () => {
  // two runs of one configuration that differ: 200 quick requests, then 300 with every 4th 6 ms late
  const runs = [[await server(0, 0), 200], [await server(4, 6), 300]]
  const all = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 })
  const totals = []
  const loads = []
  for (const [s, n] of runs) {
    loads.push(await loadtest({ url: s.url, requests: n, concurrency: 2, keepAlive: true, onRequest: (rec) => { totals.push(rec.total); all.recordValue(Math.round(rec.total * 1000)) } }))
  }
  assert.equal(all.totalCount, 500)
  const min = Math.min(...totals)
  const max = Math.max(...totals)
  /** hdr's percentile of all 500 requests, ms, within the exact extremes */
  const expected = (p) => r3(Math.min(max, Math.max(min, all.getValueAtPercentile(p) / 1000)))

  const results = resultsOf(loads)
  const chart = chartsFor(results).find((c) => c.kind === 'latency')
  for (const [q, p] of [[0.5, 50], [0.9, 90], [0.99, 99]]) {
    assert.equal(dataOf(chart, 'dot').find((d) => d.q === q).ms, expected(p), `chart at ${p}%`)
  }
  assert.match(chart.subtitle, /merged histograms of 2 runs/)

  const [summary] = summarizeResults(results)
  const latency = summary.rows[0].latency
  assert.equal(latency.count, 500)
  assert.equal(latency.combine, 'merged')
  assert.equal(latency.max, r3(max))
  for (const key of ['p50', 'p75', 'p90', 'p99']) {
    const p = latency.percentiles.find((q) => q.key === key)
    assert.equal(p.isMax, false, key)
    assert.equal(p.ms, expected(p.p), `${key} of the merged histogram`)
  }
  // 500 requests cannot tell p99.9 from the maximum: it is shown as the max
  const p999 = latency.percentiles.find((q) => q.key === 'p999')
  assert.deepEqual([p999.isMax, p999.ms], [true, r3(max)])

  const table = tableOf(summary, /latency/)
  assert.ok(table, 'a latency table')
  assert.equal(cell(table, 'x', 'p99 ms'), formatNumber(expected(99)))
  assert.equal(cell(table, 'x', 'p50 ms'), formatNumber(expected(50)))
  assert.equal(cell(table, 'x', 'p99.9 ms'), `${formatNumber(r3(max))} (max)`)
  assert.equal(cell(table, 'x', 'requests'), '500')
  assert.equal(cell(table, 'x', 'runs combined'), 'merged histograms of 2 runs')

  const [c] = compareResults(results, results)
  assert.equal(c.latency.a.percentiles.find((q) => q.key === 'p99').ms, expected(99))
  const compared = tables.compareLatencyTable([c], { a: 'a', b: 'b' })
  assert.deepEqual(compared.rows[0].slice(0, 4), ['merge', 'x', formatNumber(expected(99)), formatNumber(expected(99))])
})

test('a percentile the samples cannot support is drawn and tabled as "max" (p99.9 from < 1000 requests)', () => {
  const results = loadFixture()
  const measured = (r) => r.error === null && r.load !== null && !r.load.aborted
  const sync = results.runs.filter((r) => r.experiment === 'seed-bcrypt' && r.label === 'sync' && measured(r))
  assert.equal(sync.reduce((n, r) => n + r.load.completeRequests, 0), 750)
  const max = Math.max(...sync.map((r) => r.load.latency.max))
  const spec = chartsFor(results).find((c) => c.id === 'seed-bcrypt-latency')
  const points = dataOf(spec, 'dot').filter((d) => d.series === 'sync')
  const at999 = points.find((d) => d.q === 0.999)
  assert.ok(at999, 'a point where p99.9 would be')
  assert.equal(at999.isMax, true)
  assert.equal(at999.ms, max, 'its value is the maximum of the 750 requests')
  assert.equal(points.find((d) => d.q === 0.9999), undefined, 'nothing drawn beyond the max')
  assert.equal(points.find((d) => d.q === 0.99).isMax, false, '750 requests do support p99')
  const dom = svgDom(renderChartSvg(spec))
  assert.ok(dom.texts('text').includes('max'), 'the point is labelled "max" on the chart')
  assert.ok(dom.marks('dot').some((c) => /^sync: max .+ \(750 requests: too few for p99\.9\)$/.test(c.querySelector('title')?.textContent)))

  const summary = summarizeResults(results).find((s) => s.name === 'seed-bcrypt')
  const table = tableOf(summary, /latency/)
  assert.equal(cell(table, 'sync', 'p99.9 ms'), `${formatNumber(max)} (max)`)
  assert.doesNotMatch(cell(table, 'sync', 'p99 ms'), /max/)
  // 3000 requests support p99.9
  const readfile = tableOf(summarizeResults(results).find((s) => s.name === 'seed-readfile'), /latency/)
  assert.doesNotMatch(cell(readfile, 'readFile', 'p99.9 ms'), /max/)
  // summary.md and report.html print the same table
  const md = renderSummaryMarkdown(results, summarizeResults(results))
  assert.match(md, new RegExp(`\\| sync \\| 750 \\|[^\\n]*\\| ${formatNumber(max)} \\(max\\) \\|`))
  assert.ok(renderHtml(results, []).includes(`<td class="r">${formatNumber(max)} (max)</td>`))
  // report.html's runs table: a run of 37 requests has no p99 but its slowest request
  const short = results.runs.find((r) => r.id === 'seed-bcrypt/sync#4')
  assert.equal(short.load.completeRequests, 37)
  assert.ok(renderHtml(results, []).includes(`<td class="r">${short.load.latency.p99.toFixed(1)} (max)</td>`))
})

test('runs without a histogram (external engines) are labelled: mean of the runs\' percentiles, not mergeable', () => {
  const results = loadFixture()
  for (const r of results.runs) if (r.experiment === 'seed-readfile' && r.load) r.load.latencyHistogram = null
  const summary = summarizeResults(results).find((s) => s.name === 'seed-readfile')
  const table = tableOf(summary, /latency/)
  assert.equal(cell(table, 'readFile', 'runs combined'), 'mean of 3 runs\' percentiles (no histograms: not mergeable)')
  const runs = results.runs.filter((r) => r.experiment === 'seed-readfile' && r.label === 'readFile' && r.load)
  const mean = runs.reduce((s, r) => s + r.load.latency.p99, 0) / runs.length
  assert.equal(cell(table, 'readFile', 'p99 ms'), formatNumber(mean))
  const spec = chartsFor(results).find((c) => c.id === 'seed-readfile-latency')
  assert.match(spec.subtitle, /mean of 3 runs' percentiles \(no histograms: not mergeable\)/)
  // the other experiments keep their merged figures
  const bcrypt = tableOf(summarizeResults(results).find((s) => s.name === 'seed-bcrypt'), /latency/)
  assert.equal(cell(bcrypt, 'sync', 'runs combined'), 'merged histograms of 3 runs')
})

test('table and chart give the same loop max and peak RSS, both the max of the runs, and say so', () => {
  const results = loadFixture()
  const MIB = 1024 * 1024
  const measured = (r) => r.error === null && r.load !== null && !r.load.aborted && r.server
  let checked = 0
  for (const name of ['seed-bcrypt', 'seed-readfile']) {
    const summary = summarizeResults(results).find((s) => s.name === name)
    const table = tableOf(summary, /server metrics/)
    assert.ok(table.columns.includes('loop max ms (max of runs)'), table.columns.join(' | '))
    assert.ok(table.columns.includes('peak RSS MiB (max of runs)'), table.columns.join(' | '))
    const loop = chartsFor(results).find((c) => c.id === `${name}-event-loop`)
    const memory = chartsFor(results).find((c) => c.id === `${name}-memory`)
    assert.match(loop.subtitle, /max: the highest of the runs/)
    assert.match(memory.subtitle, /highest of the runs/)
    for (const row of summary.rows) {
      const runs = results.runs.filter((r) => r.experiment === name && r.label === row.label && measured(r))
      const loopMax = Math.max(...runs.map((r) => r.server.eventLoopDelay.max))
      const peak = Math.max(...runs.map((r) => r.server.memory.peakRssBytes)) / MIB
      assert.equal(cell(table, row.label, 'loop max ms (max of runs)'), loopMax.toFixed(1))
      assert.equal(dataOf(loop, 'tick').find((d) => d.series === row.label).max, loopMax, `${name} ${row.label}: chart loop max`)
      assert.equal(cell(table, row.label, 'peak RSS MiB (max of runs)'), peak.toFixed(1))
      assert.equal(dataOf(memory, 'bar').find((d) => d.series === row.label).mean, peak, `${name} ${row.label}: chart peak RSS`)
      checked++
    }
  }
  assert.equal(checked, 5)
})

test('a results file whose histogram is not HdrHistogram\'s encoding: one line naming the run and the field', async (t) => {
  const { mkdtemp, rm, writeFile } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const path = await import('node:path')
  const { runCli } = await import('./helper.js')
  const dir = await mkdtemp(path.join(tmpdir(), 'syncbench-hist-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const results = loadFixture()
  results.runs[0].load.latencyHistogram = 'not a histogram'
  const file = path.join(dir, 'bad.json')
  await writeFile(file, JSON.stringify(results))
  const { code, stdout, stderr } = await runCli(['compare', file, file])
  assert.equal(code, 1)
  assert.equal(stdout, '')
  assert.equal(stderr.trim().split('\n').length, 1, stderr)
  // checked when the file is read (lib/run/results-schema.js), so the line names the file and the field's path too
  assert.match(stderr, /^syncbench compare: .*bad\.json: \/runs\/0\/load\/latencyHistogram \(run "seed-bcrypt\/sync#1"\) is not an HdrHistogram compressed base64 histogram/)
})
