// renderReport: report.html self-contained (inline CSS and SVG, nothing to fetch), the seeds' tables,
// every run's details, one PNG per chart, and a rewrite that never leaves stale or half-written files.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { renderReport, checkResults } from '../lib/report/write-report.js'
import { chartsFor } from '../lib/report/charts.js'
import { renderHtml } from '../lib/report/html.js'
import { escapeXml as esc } from '../lib/report/svg.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'

test('report.html and charts/*.png from the fixed results file', async (t) => {
  const dir = await tempDir(t)
  const results = loadFixture()
  const out = await renderReport(results, dir)
  const ids = chartsFor(results).map((s) => s.id)
  assert.equal(out.html, path.join(dir, 'report.html'))
  assert.deepEqual(out.charts, ids.map((id) => path.join(dir, 'charts', `${id}.png`)))
  assert.deepEqual(out.warnings, [])
  assert.deepEqual((await readdir(dir)).sort(), ['charts', 'report.html'], 'no temporary file left behind')
  assert.deepEqual((await readdir(path.join(dir, 'charts'))).sort(), ids.map((id) => `${id}.png`).sort())
  for (const file of out.charts) {
    const head = (await readFile(file)).subarray(0, 8)
    assert.equal(head.toString('latin1', 1, 4), 'PNG', file)
  }

  const html = await readFile(out.html, 'utf8')
  assert.match(html, /^<!doctype html>/)
  assert.match(html, /Command: syncbench run all --runs 3</, 'the command as the user typed it')
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/)
  assert.match(html, /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"/)
  // self-contained: nothing the browser would fetch
  assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(http|src=/i)
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])
  assert.ok(hrefs.every((h) => h.startsWith('#') || /^charts\/[\w-]+\.png$/.test(h)), `only in-page anchors and PNG links: ${hrefs.filter((h) => !h.startsWith('#'))}`)
  const urls = [...html.matchAll(/https?:\/\/[^\s"'<)]+/g)].map((m) => m[0])
  assert.ok(urls.every((u) => u === 'http://www.w3.org/2000/svg'), `only the SVG namespace, got ${[...new Set(urls)]}`)

  // every chart inline, in both layouts
  for (const id of ids) {
    assert.match(html, new RegExp(`<figure id="chart-${id}"><svg [^>]*class="chart-wide" [^>]*data-chart="${id}"`))
    assert.match(html, new RegExp(`class="chart-narrow" [^>]*data-chart="${id}"`))
  }
  assert.equal(new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])).size, [...html.matchAll(/ id="([^"]+)"/g)].length, 'ids are unique in the page')

  // the environment, the seeds' tables (lib/report/tables.js), the verdicts, every run
  assert.match(html, /<dt>CPU<\/dt><dd>Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz, 2 usable cores<\/dd>/)
  assert.match(html, /<td>Requests per second:<\/td>/, 'seed 001 table, ab labels')
  assert.match(html, /<th>Mode<\/th>/, 'seed 002 table')
  assert.match(html, /seed-bcrypt: async is 2\.\d\dx sync/)
  for (const run of results.runs) assert.ok(html.includes(`<summary>${run.id.replace(/&/g, '&amp;')}`), run.id)
  assert.match(html, /SB_ERR_SERVER_START: server under test exited with code 1 before it was ready/)
  assert.match(html, /Percentage of the requests served within a certain time \(ms\)/, 'each run keeps its ab report')
  assert.match(html, /did not finish \(partial results\)/)
})

test('rendering again replaces the charts whole: no stale PNG from an older report', async (t) => {
  const dir = await tempDir(t)
  await mkdir(path.join(dir, 'charts'))
  await writeFile(path.join(dir, 'charts', 'stale.png'), 'old')
  const results = loadFixture()
  results.experiments = results.experiments.filter((e) => e.name === 'seed-bcrypt')
  results.runs = results.runs.filter((r) => r.experiment === 'seed-bcrypt')
  const out = await renderReport(results, dir)
  assert.equal(out.charts.length, 5)
  assert.deepEqual((await readdir(path.join(dir, 'charts'))).sort(), out.charts.map((f) => path.basename(f)).sort())
  const again = await renderReport(results, dir, { png: false })
  assert.deepEqual(again.charts, [])
  const html = await readFile(again.html, 'utf8')
  assert.doesNotMatch(html, /charts\/[\w-]+\.png/, 'no link to PNGs that were not written')
})

test('an output folder that cannot be created is one SB_ERR_RESULTS error', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'a-file')
  await writeFile(file, '')
  await assert.rejects(renderReport(loadFixture(), path.join(file, 'sub')), (err) => {
    assert.equal(err.code, 'SB_ERR_RESULTS')
    assert.match(err.message, /^cannot write .*a-file\/sub: .*\(ENOTDIR\)$/)
    return true
  })
})

test('checkResults names the first entry a report cannot use', () => {
  const r = loadFixture()
  checkResults(r)
  const broken = loadFixture()
  delete broken.runs[3].load.latency
  assert.throws(() => checkResults(broken, 'x.json'), { code: 'SB_ERR_RESULTS', message: 'x.json: runs[3] (seed-bcrypt/async#2) has an incomplete "load"' })
  assert.throws(() => checkResults({ ...r, experiments: undefined }, 'x.json'), { message: 'x.json: no "experiments" list' })
  assert.throws(() => checkResults({ ...r, runs: [null] }, 'x.json'), { message: 'x.json: runs[0] is not a run record (it needs experiment, label and config)' })
})

test('report.html from a hand-edited file: no tables without labels, a run without ab\'s parts as JSON', () => {
  const r = loadFixture()
  const whole = renderHtml(r, [])
  assert.match(whole, /<td>Requests per second:<\/td>/)
  const odd = loadFixture()
  for (const e of odd.experiments) delete e.labels
  delete odd.runs[0].load.document
  const html = renderHtml(odd, [])
  assert.doesNotMatch(html, /<td>Requests per second:<\/td>/, 'no tables')
  assert.match(html, /<h3>Runs<\/h3>/, 'the runs are still listed')
  assert.ok(html.includes(esc(JSON.stringify(odd.runs[0].load, null, 2))), 'that run\'s load result as JSON')
  assert.ok(html.includes('Server Software:'), 'the other runs keep their ab report')
})
