// --dashboard in a real browser: Debian's chromium (playwright-core) opens the URL the real CLI prints
// while a run goes. The page changes as the run progresses and draws its charts, every request it makes
// goes to the dashboard on 127.0.0.1; without the token the server refuses; after the run nothing
// listens on the port and the exit code is the run's. Ctrl-C with the page open ends syncbench run as
// it does without it: exit 130, the runs so far kept.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { binPath, httpGet, runCli, startHttpServer } from './helper.js'
import { tempDir } from './fixtures/report-helpers.js'
import { startDashboard } from '../lib/cli/dashboard.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']
const WAIT_MS = 60_000

/** @type {import('playwright-core').Browser|null} */
let browser = null

before(async () => {
  if (!existsSync(CHROMIUM)) return
  const { chromium } = await import('playwright-core')
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
})
after(async () => { await browser?.close() })

/**
 * The real CLI, its stderr read until it prints the dashboard's URL.
 * @param {string[]} args
 */
async function startCli (args) {
  const child = spawn(process.execPath, [binPath, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  const exited = once(child, 'close')
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d
      const m = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(stderr)
      if (m) resolve(m[1])
    })
    exited.then(() => reject(new Error(`exited before printing the dashboard's URL: ${stderr}`)))
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS)
  return {
    child,
    url: new URL(/** @type {string} */ (url)),
    /** @returns {Promise<{ code: number|null, stdout: string, stderr: string }>} */
    ended: async () => {
      const [code] = await exited
      clearTimeout(killer)
      return { code, stdout, stderr }
    }
  }
}

/**
 * A page on the dashboard, every request it makes recorded.
 * @param {URL} url
 * @param {{ width: number, height: number }} viewport
 */
async function openPage (url, viewport) {
  const context = await /** @type {import('playwright-core').Browser} */ (browser).newContext({ viewport })
  const page = await context.newPage()
  /** @type {string[]} */
  const requests = []
  /** @type {string[]} */
  const errors = []
  page.on('request', (req) => requests.push(req.url()))
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()) })
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(url.href)
  return { page, context, requests, errors }
}

/** Nothing accepts a connection on the port any more. @param {number} port */
async function refused (port) {
  const socket = net.connect(port, '127.0.0.1')
  const outcome = await new Promise((resolve) => {
    socket.on('connect', () => resolve('connected'))
    socket.on('error', (err) => resolve(/** @type {NodeJS.ErrnoException} */ (err).code))
  })
  socket.destroy()
  return outcome === 'ECONNREFUSED'
}

/** Runs in the page: the figure of the running run named `name` (as its dt says), or null. */
function figure (name) {
  const dt = [...document.querySelectorAll('#now-figures dt')].find((d) => d.textContent === name)
  return dt ? Number(dt.nextElementSibling?.textContent?.replace(/,/g, '')) : null
}

test('the dashboard\'s token and methods, near misses: empty, a prefix, one character changed anywhere, one more; PUT, PATCH, DELETE', async (t) => {
  const d = await startDashboard({ title: 'near misses' })
  t.after(() => d.close())
  const url = new URL(d.url)
  const token = /** @type {string} */ (url.searchParams.get('token'))
  const origin = url.origin
  assert.equal((await httpGet(`${origin}/?token=${token}`)).status, 200)
  assert.equal((await httpGet(`${origin}/?token=${token}`, { method: 'HEAD' })).status, 200)
  assert.equal((await httpGet(`${origin}/`)).status, 401)
  /** @param {string} given */
  const status = async (given) => (await httpGet(`${origin}/?token=${encodeURIComponent(given)}`)).status
  // an empty token is refused, as none (401) or as another (403)
  assert.ok([401, 403].includes(await status('')), 'an empty token')
  assert.equal(await status(token.slice(0, 1)), 403, 'its first character')
  assert.equal(await status(token.slice(0, -1)), 403, 'all but its last character')
  assert.equal(await status(`${token}x`), 403, 'one character more')
  assert.equal(await status(token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()), 403, 'another case')
  // one character changed, at each position in turn (base64url: "A" and "B" are both in its alphabet)
  for (let i = 0; i < token.length; i++) {
    const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1)
    assert.equal(await status(changed), 403, `character ${i} changed`)
  }
  // the token right, a method that would change something: refused, and what is allowed said
  for (const method of ['PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS']) {
    for (const path of ['/', '/events', '/dashboard.js']) {
      const r = await httpGet(`${origin}${path}?token=${token}`, { method })
      assert.equal(r.status, 405, `${method} ${path}`)
      assert.equal(r.headers.allow, 'GET, HEAD', `${method} ${path}`)
    }
    // without the token the token is what is refused first
    assert.equal((await httpGet(`${origin}/?token=nope`, { method })).status, 403, method)
  }
})

test('ab --dashboard: the page follows the run live and draws it, asks only the dashboard, needs the token; after the run the port is closed and the exit code is ab\'s', { timeout: 120_000 }, async (t) => {
  if (browser === null) return t.skip(`${CHROMIUM} is absent: the browser test needs Debian's chromium`)
  // The server answers nothing until the page has seen the run start, then at most 400 requests a
  // second (5 ms each, 2 at a time): the run's 1500 requests take over 3.7 s whatever the machine.
  let open = () => {}
  const gate = new Promise((resolve) => { open = () => resolve(undefined) })
  const server = await startHttpServer((req, res) => { gate.then(() => setTimeout(() => res.end('ok'), 5)) })
  t.after(() => server.close())
  const cli = await startCli(['ab', '--dashboard', '-n', '1500', '-c', '2', '-k', server.url])
  const base = `${cli.url.origin}/`
  // the token is required: none 401, another 403; and the dashboard only shows
  assert.equal((await httpGet(base)).status, 401)
  assert.equal((await httpGet(`${base}?token=nope`)).status, 403)
  assert.equal((await httpGet(`${cli.url.origin}/events`)).status, 401)
  assert.equal((await httpGet(`${cli.url.origin}/plot.js`)).status, 401)
  assert.equal((await httpGet(cli.url.href, { method: 'POST' })).status, 405)
  const { page, context, requests, errors } = await openPage(cli.url, { width: 1100, height: 1400 })
  t.after(() => context.close())
  await page.waitForFunction(() => /Run 1 of 1/.test(document.getElementById('status')?.textContent ?? ''), null, { timeout: WAIT_MS })
  open()
  // it changes as the run goes: a second with requests (the first ones waited for the gate), then a
  // later one, and the chart of the running run
  await page.waitForFunction((name) => {
    const dt = [...document.querySelectorAll('#now-figures dt')].find((d) => d.textContent === name)
    return Number(dt?.nextElementSibling?.textContent?.replace(/,/g, '')) > 0
  }, 'req/s', { timeout: WAIT_MS, polling: 100 })
  const first = await page.evaluate(figure, 'seconds')
  await page.waitForFunction((seen) => {
    const dt = [...document.querySelectorAll('#now-figures dt')].find((d) => d.textContent === 'seconds')
    return Number(dt?.nextElementSibling?.textContent) > seen
  }, first, { timeout: WAIT_MS, polling: 100 })
  const live = await page.evaluate(() => ({
    paths: document.querySelectorAll('#now-chart svg path').length,
    panels: [...document.querySelectorAll('#now-chart svg text')].map((x) => x.textContent),
    rps: Number(document.querySelector('#now-figures dd')?.textContent?.replace(/,/g, ''))
  }))
  assert.ok(live.paths > 0, 'the running run\'s chart has lines')
  assert.ok(live.panels.includes('throughput') && live.panels.includes('p99 latency'), live.panels.join(' '))
  assert.ok(live.rps > 0)
  // the end: said on the page, the port closed, ab's exit code and report as without --dashboard
  await page.waitForFunction(() => /^Finished: 1 of 1 runs/.test(document.getElementById('status')?.textContent ?? ''), null, { timeout: WAIT_MS })
  const ended = await cli.ended()
  assert.equal(ended.code, 0, ended.stderr)
  assert.match(ended.stdout, /Complete requests:\s+1500/)
  assert.ok(await refused(Number(cli.url.port)), 'nothing listens on the dashboard\'s port after the run')
  const endText = await page.evaluate(() => document.getElementById('end')?.textContent ?? '')
  assert.match(endText, /The run has ended/)
  assert.match(endText, /req\/s/)
  assert.ok(await page.evaluate(() => document.querySelectorAll('#last-chart svg path').length > 0), 'the finished run is drawn')
  assert.deepEqual(requests.filter((u) => !u.startsWith(base)), [], 'every request goes to the dashboard')
  assert.ok(requests.every((u) => new URL(u).searchParams.get('token') === cli.url.searchParams.get('token')))
  assert.deepEqual(errors, [])
})

test('run --dashboard, Ctrl-C with the page open (390 px wide): exit 130, the runs so far kept, the page says so, the port closed', { timeout: 120_000 }, async (t) => {
  if (browser === null) return t.skip(`${CHROMIUM} is absent: the browser test needs Debian's chromium`)
  const dir = await tempDir(t)
  const experiment = path.join(dir, 'tiny.json')
  // a long run: the interrupt, not its end, stops it
  await writeFile(experiment, JSON.stringify({
    name: 'tiny',
    title: 'Tiny',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { requests: 1000000, timelimit: 60, concurrency: 2, keepAlive: true },
    variants: [{ label: 'async', path: '/wait/async?ms=1', config: { strategy: 'async', workload: 'wait' } }]
  }))
  const out = path.join(dir, 'out')
  const cli = await startCli(['run', '--experiment', experiment, '--no-calibrate', '--probe', '--dashboard', '--out', out])
  const { page, context, requests, errors } = await openPage(cli.url, { width: 390, height: 844 })
  t.after(() => context.close())
  // the load, the probe and the server all report seconds before the interrupt
  await page.waitForFunction(figure, 'probe wait p99 ms', { timeout: WAIT_MS, polling: 100 })
  await page.waitForFunction(points, 'now-server', { timeout: WAIT_MS, polling: 100 })
  const layout = await page.evaluate(() => ({
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    chartWidth: document.querySelector('#now-chart svg')?.getBoundingClientRect().width ?? 0,
    serverWidth: document.querySelector('#now-server svg')?.getBoundingClientRect().width ?? 0,
    panels: [...document.querySelectorAll('#now-chart svg text')].map((x) => x.textContent)
  }))
  assert.equal(layout.overflow, 0, 'no sideways scrolling at 390 px')
  assert.ok(layout.chartWidth > 200 && layout.chartWidth <= 390, `chart width ${layout.chartWidth}`)
  assert.ok(layout.serverWidth > 200 && layout.serverWidth <= 390, `server chart width ${layout.serverWidth}`)
  assert.ok(layout.panels.includes('probe wait p99'), layout.panels.join(' '))
  cli.child.kill('SIGINT')
  const ended = await cli.ended()
  assert.equal(ended.code, 130, ended.stderr)
  assert.match(ended.stderr, /\(interrupted: partial\)/)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs.length, 1)
  assert.equal(results.runs[0].load.aborted, true)
  assert.ok(results.runs[0].load.series.t.length >= 1, 'the load over time is kept')
  assert.ok(await refused(Number(cli.url.port)), 'nothing listens on the dashboard\'s port after the run')
  await page.waitForFunction(() => /^Interrupted/.test(document.getElementById('status')?.textContent ?? ''), null, { timeout: WAIT_MS })
  const link = await page.evaluate(() => document.getElementById('report-link')?.getAttribute('href'))
  assert.equal(link, new URL(`file://${path.join(out, 'report.html')}`).href)
  assert.deepEqual(requests.filter((u) => !u.startsWith(`${cli.url.origin}/`)), [])
  assert.deepEqual(errors.filter((e) => !/ERR_CONNECTION_REFUSED|EventSource/.test(e)), [])
})

/**
 * A workload for the live tests: every message the runner sends its server child is logged (its type,
 * a line each) to IPC_LOG, and its handler answers only once the file GATE exists, so a run lasts until
 * the test lets it end.
 */
const GATED_WORKLOAD = `import { appendFileSync, existsSync } from 'node:fs'
process.on('message', (m) => appendFileSync(process.env.IPC_LOG, String(m?.type) + '\\n'))
export async function gated () {
  while (!existsSync(process.env.GATE)) await new Promise((resolve) => setTimeout(resolve, 20))
  return 'ok'
}
`

/**
 * An experiment file serving GATED_WORKLOAD, with its gate and log in `dir`.
 * @param {string} dir @param {string} name
 */
async function gatedExperiment (dir, name) {
  const gate = path.join(dir, `${name}.gate`)
  const log = path.join(dir, `${name}.ipc`)
  const file = path.join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify({
    name,
    title: `Gated ${name}`,
    server: { workload: './gated.mjs', env: { GATE: gate, IPC_LOG: log } },
    warmup: { requests: 0 },
    load: { requests: 4, concurrency: 1, keepAlive: true },
    variants: [{ label: 'gated', path: '/gated', config: { strategy: 'gated' } }]
  }))
  return { file, open: () => writeFile(gate, ''), messages: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean) }
}

/** Runs in the page: how many points the figure's chart draws (0 without a chart). */
function points (id) {
  const figure = document.getElementById(id)
  return figure?.querySelector('svg') ? Number(figure.dataset.points ?? 0) : 0
}

test('run --dashboard: the server\'s series drawn live during a run, the first experiment\'s verdict while the second runs; without --dashboard the server is asked nothing more', { timeout: 120_000 }, async (t) => {
  if (browser === null) return t.skip(`${CHROMIUM} is absent: the browser test needs Debian's chromium`)
  const dir = await tempDir(t)
  await writeFile(path.join(dir, 'gated.mjs'), GATED_WORKLOAD)
  const one = await gatedExperiment(dir, 'live-one')
  const two = await gatedExperiment(dir, 'live-two')
  const cli = await startCli(['run', '--experiment', one.file, '--experiment', two.file, '--no-calibrate', '--no-report', '--dashboard', '--out', path.join(dir, 'out')])
  const { page, context, requests, errors } = await openPage(cli.url, { width: 1100, height: 1400 })
  t.after(() => context.close())
  // the first run's requests wait for its gate: whatever the machine, the run is going while the
  // server's reads arrive, one chart point per panel each
  await page.waitForFunction(points, 'now-server', { timeout: WAIT_MS, polling: 100 })
  const before = await page.evaluate(points, 'now-server')
  await page.waitForFunction(([id, seen]) => {
    const figure = document.getElementById(id)
    return Number(figure?.dataset.points ?? 0) > seen
  }, ['now-server', before], { timeout: WAIT_MS, polling: 100 })
  const live = await page.evaluate(() => ({
    status: document.getElementById('status')?.textContent ?? '',
    panels: [...document.querySelectorAll('#now-server svg text')].map((x) => x.textContent),
    lines: document.querySelectorAll('#now-server svg path').length,
    figures: [...document.querySelectorAll('#now-figures dt')].map((d) => d.textContent)
  }))
  assert.match(live.status, /^Run 1 of 2: live-one gated/, 'the run is still going')
  for (const panel of ['event-loop delay', 'ELU', 'CPU', 'RSS']) assert.ok(live.panels.includes(panel), `${panel} in ${live.panels.join(' ')}`)
  assert.ok(live.lines > 0, 'the server\'s chart has lines')
  for (const name of ['loop delay max ms', 'ELU %', 'server CPU %', 'RSS MiB']) assert.ok(live.figures.includes(name), live.figures.join(', '))
  // the first experiment ends: its verdict is shown under it while the second one runs (its gate shut)
  await one.open()
  await page.waitForFunction(() => document.querySelector('#experiment-list [data-experiment="live-one"] .verdict') !== null, null, { timeout: WAIT_MS, polling: 100 })
  const midway = await page.evaluate(() => ({
    verdict: [...document.querySelectorAll('#experiment-list [data-experiment="live-one"] .verdict p')].map((p) => p.textContent ?? ''),
    second: document.querySelector('#experiment-list [data-experiment="live-two"] .verdict') !== null,
    running: [...document.querySelectorAll('#runs tbody tr.running td')].map((td) => td.textContent)
  }))
  assert.equal(midway.second, false, 'no verdict yet for the experiment still running')
  assert.deepEqual(midway.running.slice(0, 3), ['2', 'live-two', 'gated #1'])
  await two.open()
  const ended = await cli.ended()
  assert.equal(ended.code, 0, ended.stderr)
  // the verdict the page showed is the one the end of the run prints (there wrapped to the terminal's width)
  assert.ok(midway.verdict.length > 0)
  const printed = ended.stdout.replace(/\s+/g, ' ')
  for (const line of midway.verdict) assert.ok(printed.includes(line.replace(/\s+/g, ' ')), `${line} in ${ended.stdout}`)
  const messages = await one.messages()
  assert.equal(messages[0], 'syncbench:metrics', 'the window\'s reset first')
  assert.equal(messages.at(-1), 'syncbench:metrics', 'the window\'s read last')
  assert.ok(messages.filter((m) => m === 'syncbench:live').length >= 2, messages.join(' '))
  assert.deepEqual(requests.filter((u) => !u.startsWith(`${cli.url.origin}/`)), [])
  assert.deepEqual(errors.filter((e) => !/ERR_CONNECTION_REFUSED|EventSource/.test(e)), [])

  // without --dashboard: the same run asks its server for its window and nothing else, however long it lasts
  const alone = await gatedExperiment(dir, 'live-alone')
  const run = runCli(['run', '--experiment', alone.file, '--no-calibrate', '--no-report', '--out', path.join(dir, 'alone')])
  while (!(await alone.messages()).includes('syncbench:metrics')) await delay(50)
  // the window open for over two of the dashboard's read intervals
  await delay(2500)
  await alone.open()
  const quiet = await run
  assert.equal(quiet.code, 0, quiet.stderr)
  assert.deepEqual(await alone.messages(), ['syncbench:metrics', 'syncbench:metrics'])
})

test('--dashboard-port in use, a port without --dashboard: one line naming the flag, exit 2; --dashboard-host: a warning first', async (t) => {
  const busy = await startHttpServer((req, res) => res.end('ok'))
  t.after(() => busy.close())
  const inUse = await runCli(['ab', '--dashboard', '--dashboard-port', String(busy.port), '-n', '1', busy.url])
  assert.equal(inUse.code, 2)
  assert.equal(inUse.stderr, `syncbench ab: --dashboard-port is in use (give another, or 0 for a free one), got "${busy.port}"\n`)
  assert.equal(inUse.stdout, '')
  const alone = await runCli(['run', '--dashboard-port', '8080', '--list'])
  assert.equal(alone.code, 2)
  assert.match(alone.stderr, /^syncbench run: --dashboard-port applies to --dashboard only, got "8080"\n$/)
  // another loopback address: the warning is for any address but 127.0.0.1, and tests stay on loopback
  const wide = await runCli(['ab', '--dashboard', '--dashboard-host', '127.0.0.2', '-n', '1', busy.url])
  assert.equal(wide.code, 0, wide.stderr)
  const lines = wide.stderr.split('\n')
  assert.match(lines[0], /^syncbench ab: warning: the dashboard listens on 127\.0\.0\.2 instead of 127\.0\.0\.1: anyone who can reach/)
  assert.match(lines[1], /^dashboard: http:\/\/127\.0\.0\.2:\d+\/\?token=[\w-]{24}$/)
})
