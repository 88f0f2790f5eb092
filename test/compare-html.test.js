// syncbench compare --out DIR through the real CLI: the folder holds report.html and the --format output
// (the same bytes --out FILE writes), the page draws each configuration's latency b - a quantile by
// quantile with one 95% band per quantile and the zero line, a tail that moved stands out while the
// median does not, --out FILE keeps its old behaviour, and a folder that cannot be written is one line
// and exit 1 with nothing left behind. In chromium when it is installed: no request, no console error.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { runCli } from './helper.js'
import { compareCases, goldenCompareDir } from './fixtures/compare-cases.js'
import { compareResults } from '../lib/analysis/summarize.js'
import { LATENCY_PERCENTILES } from '../lib/analysis/latency.js'
import { quantileCells } from '../lib/report/compare-markdown.js'
import { BAND_LABEL, ZERO_LABEL } from '../lib/report/chart-quantile-difference.js'

let dir
/** @type {string[]} the p99-only case's files */
let files
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-html-'))
  const kase = compareCases()['p99-only']
  // named as the golden files name them: compare runs in their folder
  files = ['a.json', 'b.json']
  await writeFile(path.join(dir, files[0]), JSON.stringify(kase.a))
  await writeFile(path.join(dir, files[1]), JSON.stringify(kase.b))
})
after(() => rm(dir, { recursive: true, force: true }))

/** compare of the p99-only case, with its 5% gate, in the test's folder. @param {string[]} args */
const compare = (args) => runCli(['compare', ...files, '--fail-if-slower', '5%', ...args], { cwd: dir, env: { GITHUB_STEP_SUMMARY: '' } })

/**
 * The first (wide) chart's mark group of a name: its elements' tags and attributes, in order.
 * @param {string} html @param {string} label
 */
function markGroup (html, label) {
  const start = html.search(new RegExp(`<g [^>]*aria-label="${label}"`))
  assert.ok(start >= 0, `no group "${label}" in the page`)
  const group = html.slice(html.indexOf('>', start) + 1, html.indexOf('</g>', start))
  return [...group.matchAll(/<(line|circle|path|rect)\b([^>]*)>/g)].map((m) => ({ tag: m[1], attrs: m[2] }))
}

test('--out DIR/ creates the folder with report.html and compare.md, the markdown the same bytes as on stdout', async () => {
  const out = path.join(dir, 'new', 'report') + '/'
  const r = await compare(['--format', 'markdown', '--out', out])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stdout, '')
  assert.equal(r.stderr, `syncbench compare: wrote report.html and compare.md in ${out}\n`)
  // no temporary file left beside them
  assert.deepEqual((await readdir(out)).sort(), ['compare.md', 'report.html'])
  assert.equal(await readFile(path.join(out, 'compare.md'), 'utf8'), await readFile(path.join(goldenCompareDir, 'p99-only.md'), 'utf8'))
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /^<!doctype html>\n<html lang="en">/)
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/, 'the run report\'s shell and its policy')
  assert.match(html, /<strong>Passed<\/strong>: gate --fail-if-slower 5%: passed/)
  // the text format's tables, and the link to the file beside the page
  assert.match(html, /<caption>req\/s: b \(/)
  assert.match(html, /<caption>seed-bcrypt sync: latency quantiles \(ms\)<\/caption>/)
  // the markdown's server costs, as a table of the page
  assert.match(html, /<caption>the server&#39;s own costs: event-loop delay p99, CPU per request, peak RSS<\/caption>.*<td>seed-bcrypt sync<\/td><td class="r">12.06 ms<\/td><td class="r">45.23 ms<\/td><td class="r">\+275.00%<\/td>/)
  assert.match(html, /<a href="compare.md">compare.md<\/a>/)
})

test('report.html: one 95% band per quantile compared, the zero line, and the tail red where the median is not', async () => {
  const out = path.join(dir, 'bands') + '/'
  const r = await compare(['--out', out])
  assert.equal(r.code, 0, r.stderr)
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.equal([...html.matchAll(/<svg [^>]*data-chart="compare-1-seed-bcrypt-sync-quantiles"/g)].length, 2, 'the chart, wide and narrow')
  // the quantiles the chart compares: every one both sides measured that is no side's slowest request
  const kase = compareCases()['p99-only']
  const [row] = compareResults(kase.a, kase.b)
  const cells = /** @type {NonNullable<ReturnType<typeof quantileCells>>} */ (quantileCells(row, { percents: LATENCY_PERCENTILES.map((q) => q.p) }))
  const drawn = cells.filter((c) => !c.a.isMax && !c.b.isMax)
  assert.deepEqual(drawn.map((c) => c.label), ['p50', 'p75', 'p90', 'p99', 'p99.9'])
  assert.ok(drawn.every((c) => c.low !== null), 'four runs a side: every quantile has an interval')
  const bands = markGroup(html, BAND_LABEL)
  assert.equal(bands.length, drawn.length, 'one band per quantile')
  assert.ok(bands.every((b) => b.tag === 'line'))
  const stroke = (/** @type {{ attrs: string }} */ b) => /stroke="([^"]+)"/.exec(b.attrs)?.[1]
  assert.deepEqual(bands.map(stroke), ['#1f77b4', '#1f77b4', '#1f77b4', '#d62728', '#d62728'], 'p99 and p99.9 worse beyond their interval, the median within it')
  const zero = markGroup(html, ZERO_LABEL)
  assert.equal(zero.length, 1)
  assert.equal(zero[0].tag, 'line')
  // the x axis names the quantiles
  for (const label of ['p50', 'p90', 'p99', 'p99.9']) assert.match(html, new RegExp(`>${label.replace('.', '\\.')}</text>`))
})

for (const [format, name] of [['text', 'compare.txt'], ['json', 'compare.json'], ['junit', 'compare.xml']]) {
  test(`--format ${format} --out DIR (an existing folder): ${name} holds what --out FILE writes`, async () => {
    const out = path.join(dir, `existing-${format}`)
    await mkdir(out)
    const r = await compare(['--format', format, '--out', out])
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual((await readdir(out)).sort(), [name, 'report.html'])
    const file = path.join(dir, `plain-${format}`)
    const plain = await compare(['--format', format, '--out', file])
    assert.equal(plain.code, 0, plain.stderr)
    assert.equal(await readFile(path.join(out, name), 'utf8'), await readFile(file, 'utf8'))
  })
}

test('--out FILE is unchanged: the file alone, nothing on stdout or stderr', async () => {
  const sub = path.join(dir, 'file-only')
  await mkdir(sub)
  const r = await compare(['--format', 'markdown', '--out', path.join(sub, 'comment.md')])
  assert.deepEqual({ code: r.code, stdout: r.stdout, stderr: r.stderr }, { code: 0, stdout: '', stderr: '' })
  assert.deepEqual(await readdir(sub), ['comment.md'])
  assert.equal(await readFile(path.join(sub, 'comment.md'), 'utf8'), await readFile(path.join(goldenCompareDir, 'p99-only.md'), 'utf8'))
})

test('a folder that cannot be made: one line naming --out and the path, exit 1', async () => {
  const plain = path.join(dir, 'a-file')
  await writeFile(plain, 'not a folder')
  const out = path.join(plain, 'report') + '/'
  const r = await compare(['--out', out])
  assert.equal(r.code, 1)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, /^syncbench compare: --out cannot write in the folder ".*a-file\/report\/": a part of the path is not a folder \(ENOTDIR\)\n$/)
})

test('report.html taken by a folder: one line naming it, exit 1, and compare.md not written either', async () => {
  const out = path.join(dir, 'taken')
  await mkdir(path.join(out, 'report.html'), { recursive: true })
  const r = await compare(['--format', 'markdown', '--out', out])
  assert.equal(r.code, 1)
  assert.match(r.stderr, /^syncbench compare: --out cannot write ".*taken\/report\.html": a folder, not a file \(EISDIR\)\n$/)
  assert.deepEqual(await readdir(out), ['report.html'])
})

test('report.html of a comparison in chromium: no request, no console error, the chart drawn', { timeout: 120_000 }, async (t) => {
  const CHROMIUM = '/usr/bin/chromium'
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} is absent: the browser test needs Debian's chromium`)
    return
  }
  const out = path.join(dir, 'browser') + '/'
  assert.equal((await compare(['--out', out])).code, 0)
  const url = pathToFileURL(path.join(out, 'report.html')).href
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
  t.after(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const requests = []
  const errors = []
  page.on('request', (req) => { if (req.url() !== url) requests.push(req.url()) })
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()) })
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(url, { waitUntil: 'load' })
  assert.deepEqual(requests, [])
  assert.deepEqual(errors, [])
  const box = await page.evaluate(() => document.querySelector('svg.chart-wide')?.getBoundingClientRect().height ?? 0)
  assert.ok(box > 100, `the chart is drawn (${box} px high)`)
})
