// report.html in a real browser: Debian's chromium driven by playwright-core opens the file from disk,
// and the page must make no request but itself, log no console error, draw every chart with marks,
// and fit a phone's width. Screenshots go to the test's temp folder (kept when SYNCBENCH_KEEP_SHOTS
// names a folder to copy them to).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderReport } from '../lib/report/report.js'
import { chartsFor } from '../lib/report/charts.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'

const CHROMIUM = '/usr/bin/chromium'
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
  const results = loadFixture()
  const { html } = await renderReport(results, dir)
  const ids = chartsFor(results).map((s) => s.id)
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
  const shot = path.join(dir, 'report-desktop.png')
  await desktop.page.screenshot({ path: shot })
  await desktop.context.close()

  const phone = await open({ width: 375, height: 812 })
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  assert.equal(overflow, 0, 'no horizontal scrolling of the page on a phone')
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
