// syncbench run --app --profile on a real app (test/fixtures/apps/routes-app.js), in real processes: the
// route whose handler held the event loop is the first row of "Where the event loop went" while another
// route is served beside it; a handler blocked in execSync is labelled as native code, outside
// JavaScript; report.html's flame graph names the blocking function, and a real Chromium searches it
// without any request leaving the file. One `syncbench run` (two routes, a fresh app process each), its
// report.html rendered without the PNGs (renderReport, as the run does), and one page load serve every
// test here.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import http from 'node:http'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import { existsSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { runCli } from './helper.js'
import { renderReport } from '../lib/report/write-report.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const CHROMIUM = '/usr/bin/chromium'
let dir = ''

/** @type {{ code: number, stdout: string, stderr: string, results: any, summary: string, html: string, out: string, cheap: number }} */
let run

/**
 * GET /cheap on the app, over and over, until `done`: another route served while syncbench loads /spin.
 * The app writes its port to `portFile` when it listens (a new process, a new port, each run).
 * @param {string} portFile
 * @param {{ done: boolean }} state
 */
async function cheapTraffic (portFile, state) {
  let answered = 0
  while (!state.done) {
    const port = await readFile(portFile, 'utf8').catch(() => '')
    if (port) {
      await new Promise((resolve) => {
        const req = http.get({ host: '127.0.0.1', port: Number(port), path: '/cheap', agent: false, timeout: 1000 }, (res) => {
          res.resume().on('end', () => { if (res.statusCode === 200) answered++; resolve(undefined) })
        })
        req.on('error', () => resolve(undefined))
        req.on('timeout', () => req.destroy())
      })
    }
    await delay(5)
  }
  return answered
}

after(() => rm(dir, { recursive: true, force: true }))

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-routes-'))
  const out = path.join(dir, 'routes')
  const portFile = path.join(dir, 'port')
  const state = { done: false }
  const traffic = cheapTraffic(portFile, state)
  const { code, stdout, stderr } = await runCli(['run', '--app', 'node test/fixtures/apps/routes-app.js', '--path', '/spin', '--path', '/exec', '-n', '10', '-c', '1', '--profile', '--no-report', '--out', out],
    { cwd: root, env: { PORT_FILE: portFile, SPIN_MS: '40', SYNCBENCH_CACHE_DIR: path.join(dir, 'cache') }, timeoutMs: 60_000 }).finally(() => { state.done = true })
  const cheap = await traffic
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  await renderReport(results, out, { png: false })
  run = { code, stdout, stderr, results, out, cheap, summary: await readFile(path.join(out, 'summary.md'), 'utf8'), html: await readFile(path.join(out, 'report.html'), 'utf8') }
})

test('the route whose handler held the loop is first, beside a cheap route served at the same time', () => {
  assert.equal(run.code, 0, run.stderr)
  assert.ok(run.cheap > 0, 'GET /cheap was answered during the runs')
  const spin = run.results.runs.find((r) => r.label === '/spin')
  const routes = spin.server.loopBlocks.routes
  assert.equal(routes[0].route, 'GET /spin', JSON.stringify(routes))
  assert.equal(routes[0].blocks > 0, true)
  // /cheap's requests begin and end within a loop turn: a block covers little or none of them
  const cheap = routes.find((r) => r.route === 'GET /cheap')
  assert.ok(!cheap || cheap.ms < routes[0].ms / 4, JSON.stringify(routes))
  // the same in summary.md and report.html: the route table comes first under "Where the event loop went"
  assert.match(run.summary, /\*\*\/spin: routes whose requests were in progress while the loop was held\*\*\n\n\| route \| of the window \| of the time the loop was held \| blocks \|\n\|[^\n]*\n\| GET \/spin \| [\d.]+% \|/)
  assert.match(run.html, /<caption>\/spin: routes whose requests were in progress while the loop was held<\/caption>.*?<td>GET \/spin<\/td>/s)
  assert.match(run.stdout, /^ +[\d.]+% {2}loop held while GET \/spin was in progress$/m)
})

test('a handler blocked in execSync: its time is labelled native code, outside JavaScript', () => {
  const exec = run.results.runs.find((r) => r.label === '/exec')
  const [first] = exec.profile.blocking.self
  assert.deepEqual([first.entry.name, first.caller.name, first.caller.line], ['execSync', 'runShellCommand', 20])
  assert.ok(first.nativeMs > first.ms / 2, `most of it outside JavaScript: ${JSON.stringify(first)}`)
  assert.equal(exec.server.loopBlocks.routes[0].route, 'GET /exec')
  assert.match(run.summary, /\| execSync \(node:child_process\) from runShellCommand at test\/fixtures\/apps\/routes-app\.js:20 \| [^\n]*\| [\d.]+% native code \/ GC \(outside JavaScript\) \|/)
})

test('report.html draws a flame graph per route that names the blocking function, marked as such', () => {
  const figures = run.html.match(/<figure class="flame" id="[^"]+">/g) ?? []
  assert.equal(figures.length, 2)
  assert.match(run.html, /<svg [^>]*class="hot" data-s="spinformilliseconds \(test\/fixtures\/apps\/routes-app\.js:\d+\)">/)
  assert.match(run.html, /<svg [^>]*class="hot" data-s="runshellcommand \(test\/fixtures\/apps\/routes-app\.js:\d+\)">/)
  assert.match(run.html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/=]+'">/)
  assert.ok(run.html.length < 600_000, `report.html is ${run.html.length} bytes`)
})

test('in Chromium the flame graph is searchable and the page requests nothing but itself', { skip: !existsSync(CHROMIUM) && 'no Chromium here' }, async () => {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'] })
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const requests = []
    const errors = []
    page.on('request', (r) => requests.push(r.url()))
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()) })
    page.on('pageerror', (e) => errors.push(e.message))
    const file = pathToFileURL(path.join(run.out, 'report.html')).href
    await page.goto(file)
    const input = page.locator('input[data-flame]').first()
    await input.fill('spinformill')
    const found = await page.evaluate(() => {
      const figure = document.querySelector('figure.flame')
      return {
        output: figure?.querySelector('output')?.textContent,
        matched: [...(figure?.querySelectorAll('svg.match') ?? [])].map((f) => f.querySelector('title')?.textContent ?? ''),
        drawn: [...(figure?.querySelectorAll('svg.hot rect') ?? [])].map((r) => r.getBoundingClientRect().width)
      }
    })
    assert.equal(found.output, '1 frame match')
    assert.match(found.matched[0], /^spinForMilliseconds \(test\/fixtures\/apps\/routes-app\.js:\d+\): [\d.]+ ms/)
    assert.ok(found.drawn.length > 0 && found.drawn.every((w) => w > 0), `the blocking frame is drawn: ${found.drawn}`)
    await input.fill('')
    assert.equal(await page.locator('figure.flame').first().locator('svg.match').count(), 0, 'clearing the search clears the marks')
    // on a phone the graph narrows with the page: nothing scrolls sideways
    await page.setViewportSize({ width: 375, height: 800 })
    const overflow = await page.evaluate(() => [document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ...[...document.querySelectorAll('figure.flame')].map((f) => f.scrollWidth - f.clientWidth)])
    assert.deepEqual(overflow, [0, 0, 0], 'no horizontal scrolling at 375 px')
    assert.deepEqual(requests.filter((u) => u !== file), [], 'no request but the page itself')
    assert.deepEqual(errors, [], 'no console error (the CSP allows the search script)')
  } finally {
    await browser.close()
  }
})
