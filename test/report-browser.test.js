// report.html in a real browser: Debian's chromium driven by playwright-core opens the file from disk,
// and the page must make no request but itself, log no console error, draw every chart with marks (the
// server-over-time charts too), open with the answer before any table, label its reference lines on the
// line, need no horizontal scrolling of the page or of any table at 1280 px, break no table header inside a
// word, and fit a phone's width. Screenshots go to the test's temp folder (kept when SYNCBENCH_KEEP_SHOTS
// names a folder to copy them to).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderReport } from '../lib/report/write-report.js'
import { chartsFor } from '../lib/report/charts.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'

const CHROMIUM = '/usr/bin/chromium'
const MIB = 1024 * 1024

/** The fixture, with a server series on seed-bcrypt's runs: sync's loop stops for 1 s, async's never does. */
function fixtureWithSeries () {
  const results = loadFixture()
  for (const run of results.runs) {
    if (run.experiment !== 'seed-bcrypt' || !run.server) continue
    run.server.series = {
      intervalMs: 100,
      t: [100, 200, 300, 1300, 1400, 1500],
      loopDelayMaxMs: [1, 3, 2, run.label === 'sync' ? 1000 : 2, 4, 1],
      cpuPercent: [20, 98, 99, 100, 60, 10],
      rssBytes: [60, 61, 62, 64, 64, 63].map((v) => v * MIB)
    }
  }
  return results
}

/** Runs in the page: each table header's word laid out over more than one line ("inclusiv" / "e"). */
function brokenHeaderWords () {
  const broken = []
  for (const th of document.querySelectorAll('th')) {
    for (const node of th.childNodes) {
      if (node.nodeType !== 3) continue // a text node
      for (const word of node.textContent.matchAll(/\S+/g)) {
        const range = document.createRange()
        range.setStart(node, word.index)
        range.setEnd(node, word.index + word[0].length)
        const lines = new Set([...range.getClientRects()].map((box) => Math.round(box.top)))
        if (lines.size > 1) broken.push(`${th.closest('table').querySelector('caption')?.textContent}: ${word[0]}`)
      }
    }
  }
  return broken
}

/** Runs in the page: the answer's place, the reference lines' words, and what would scroll sideways. */
function inspectPage () {
  const top = (el) => el ? el.getBoundingClientRect().top + window.scrollY : NaN
  const answer = document.querySelector('#answer')
  return {
    answerTop: top(answer),
    answerText: answer?.innerText ?? '',
    firstTableTop: top(document.querySelector('table')),
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    // a table's box scrolls when its table is wider than the box
    scrolling: [...document.querySelectorAll('.scroll')].filter((box) => box.scrollWidth > box.clientWidth)
      .map((box) => `${box.querySelector('caption')?.textContent}: ${box.scrollWidth} > ${box.clientWidth}`),
    tables: document.querySelectorAll('.scroll table').length,
    referenceLabels: [...document.querySelectorAll('figure svg.chart-wide g[aria-label="reference label"] text')].map((t) => {
      const box = t.getBBox()
      return { chart: t.closest('svg[data-chart]').dataset.chart, text: t.textContent, drawn: box.width > 0 && box.height > 0 }
    })
  }
}
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Runs in the page: every chart's SVG with its marks that have real geometry. */
function inspectCharts () {
  const hasGeometry = (el) => {
    const tag = el.tagName.toLowerCase()
    if (tag === 'path') return /[ML]\s*-?[\d.]+/.test(el.getAttribute('d') ?? '') && el.getTotalLength() > 0
    if (tag === 'circle') return Number(el.getAttribute('r')) > 0
    if (tag === 'rect') return el.getBBox().width > 0 && el.getBBox().height > 0
    if (tag === 'line') return el.getTotalLength() > 0
    return false
  }
  return [...document.querySelectorAll('figure svg[data-chart]')].map((svg) => {
    const plot = svg.querySelector('svg') // Plot's own svg, nested in the chart frame
    const marks = [...plot.querySelectorAll('g[aria-label="line"] path, g[aria-label="dot"] circle, g[aria-label="bar"] rect, g[aria-label="link"] path, g[aria-label="tick"] line')]
    const box = svg.getBoundingClientRect()
    return {
      id: svg.dataset.chart,
      layout: svg.getAttribute('class'),
      visible: box.width > 0 && box.height > 0,
      width: box.width,
      marks: marks.filter(hasGeometry).length,
      texts: svg.querySelectorAll('text').length
    }
  })
}

test('report.html in chromium: no request, no console error, every chart drawn, fits a phone', { timeout: 120_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} is absent: the browser test needs Debian's chromium (apt-get install chromium; .ci/run installs it)`)
    return
  }
  const { chromium } = await import('playwright-core')
  const dir = await tempDir(t)
  const results = fixtureWithSeries()
  const { html } = await renderReport(results, dir)
  const ids = chartsFor(results).map((s) => s.id)
  assert.ok(ids.includes('seed-bcrypt-timeseries'), 'the server over time is among the charts')
  const url = pathToFileURL(html).href

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.after(() => browser.close())
  const open = async (viewport) => {
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    const requests = []
    const errors = []
    page.on('request', (req) => { if (req.url() !== url) requests.push(req.url()) })
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()) })
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(url, { waitUntil: 'load' })
    return { page, requests, errors, context }
  }

  const desktop = await open({ width: 1280, height: 900 })
  const charts = await desktop.page.evaluate(inspectCharts)
  assert.deepEqual(desktop.requests, [], 'no request besides the file itself')
  assert.deepEqual(desktop.errors, [], 'no console error')
  assert.deepEqual(charts.filter((c) => c.layout === 'chart-wide').map((c) => c.id), ids)
  assert.deepEqual(charts.filter((c) => c.layout === 'chart-narrow').map((c) => c.id), ids)
  for (const c of charts) {
    assert.equal(c.visible, c.layout === 'chart-wide', `${c.id}: on a desktop only the wide layout shows`)
    assert.ok(c.texts > 5, `${c.id} (${c.layout}) has its title, axes and labels`)
    // geometry is measured on what is laid out: the wide charts here, the narrow ones on the phone
    if (c.visible) assert.ok(c.marks > 0, `${c.id} (${c.layout}) has no drawn marks`)
  }
  const timeSeries = charts.find((c) => c.id === 'seed-bcrypt-timeseries' && c.layout === 'chart-wide')
  assert.ok(timeSeries.marks >= 6, `the time series: 2 configurations x 3 panels, drawn (${timeSeries.marks} marks)`)

  const page = await desktop.page.evaluate(inspectPage)
  assert.ok(page.answerTop < page.firstTableTop, 'the answer comes before any table')
  assert.match(page.answerText, /Seed 001 \(Jino Antony, 2020, .*\) reproduces here/)
  assert.match(page.answerText, /Seed 002 \(naholyr, 2012, .*\) reproduces here/)
  assert.equal(page.pageOverflow, 0, 'no horizontal scrolling of the page at 1280 px')
  assert.ok(page.tables > 20, `${page.tables} tables checked`)
  assert.deepEqual(page.scrolling, [], 'no table scrolls sideways at 1280 px')
  assert.deepEqual(await desktop.page.evaluate(brokenHeaderWords), [], 'no header word broken over two lines at 1280 px')
  const labels = page.referenceLabels.filter((l) => l.chart === 'seed-bcrypt-throughput')
  assert.deepEqual(labels.map((l) => l.text), ['ceiling 30.8 req/s', 'one core 15.4 req/s'])
  assert.ok(page.referenceLabels.every((l) => l.drawn), 'every reference label is laid out')
  assert.ok(page.referenceLabels.some((l) => l.chart === 'concurrency-sweep-throughput' && l.text.startsWith('ceiling min(c, 2 cores)')), 'the bent ceiling too')

  const shot = path.join(dir, 'report-desktop.png')
  await desktop.page.screenshot({ path: shot })
  await desktop.context.close()

  const phone = await open({ width: 375, height: 812 })
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  assert.equal(overflow, 0, 'no horizontal scrolling of the page on a phone')
  assert.deepEqual(await phone.page.evaluate(brokenHeaderWords), [], 'no header word broken over two lines on a phone')
  const phoneCharts = await phone.page.evaluate(inspectCharts)
  for (const c of phoneCharts) {
    assert.equal(c.visible, c.layout === 'chart-narrow', `${c.id}: on a phone only the narrow layout shows`)
    if (!c.visible) continue
    assert.ok(c.marks > 0, `${c.id} (${c.layout}) has no drawn marks`)
    assert.ok(c.width <= 375, `${c.id} is ${c.width}px wide`)
  }
  assert.equal(phoneCharts.filter((c) => c.visible).length, ids.length)
  assert.deepEqual(phone.requests, [])
  assert.deepEqual(phone.errors, [])
  await phone.page.locator('#chart-concurrency-sweep-throughput').scrollIntoViewIfNeeded()
  const phoneShot = path.join(dir, 'report-phone.png')
  await phone.page.screenshot({ path: phoneShot })
  await phone.context.close()

  assert.ok((await stat(shot)).size > 10_000)
  assert.ok((await stat(phoneShot)).size > 10_000)
  t.diagnostic(`screenshots: ${shot}, ${phoneShot}`)
  if (process.env.SYNCBENCH_KEEP_SHOTS) {
    await mkdir(process.env.SYNCBENCH_KEEP_SHOTS, { recursive: true })
    for (const f of [shot, phoneShot]) await copyFile(f, path.join(process.env.SYNCBENCH_KEEP_SHOTS, path.basename(f)))
  }
})
