// What watching costs the generator: CPU per request of `syncbench ab -k -c 50` with --dashboard, with
// and without a browser page open on it (chromium, as a user would have), beside the same run without,
// alternated against the same server (nginx when installed, else bench/hello-server.js), whole process (GNU time's
// user + system), several rounds; the medians and their ratio.
//
// On a shared machine whole-process CPU varies by more than the effect, so the work the dashboard adds
// to the generator is also timed directly, in this process: starting and closing it (once per run), and
// what each second costs (the series' reading of the counts, lib/load/load-series.js, and the push of
// the state to a page over Server-Sent Events); per request it is that second's cost divided by the
// requests of a second (nothing runs per request).
//
// With taskset and two cores or more, the generator runs alone on core 0, and nginx and chromium (a
// wrapper execs it under taskset) share core 1: what is measured is the generator's own cost, not a
// browser and a generator competing for one core, which no user with a spare core sees.
//
// Usage: node bench/dashboard-overhead.js [--requests 300000] [--rounds 5] [--chromium /usr/bin/chromium] [--direct-only]
import { spawn, fork, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { findNginx, startNginx } from './nginx.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    'direct-only': { type: 'boolean', default: false }
  }
})

/** Pin the generator to core 0, the server and the browser to core 1, when taskset is there and 2 cores. */
const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** CPU time of this process, ms. */
function cpuMs () {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * The dashboard's own work, timed in this process: start + close, and one second's reading and push
 * with a page (an SSE client) connected and an hour of seconds already shown.
 */
async function direct () {
  const { startDashboard } = await import('../lib/cli/dashboard.js')
  const { countsFor } = await import('../lib/load/ab-counts.js')
  const { LoadSeries } = await import('../lib/load/load-series.js')
  const http = await import('node:http')
  const starts = []
  for (let i = 0; i < 5; i++) {
    const c0 = cpuMs()
    const d = await startDashboard({ title: 'bench' })
    await d.close()
    starts.push(cpuMs() - c0)
  }
  // a second of requests: latencies spread over 0.2..40 ms, as a loaded server gives
  const counts = countsFor({})
  const series = new LoadSeries(counts)
  series.start(0)
  const perSecond = 20000
  const d = await startDashboard({ title: 'bench' })
  d.event({ type: 'plan', total: 1, runs: [{ experiment: 'x', label: 'y' }], experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 1 }] })
  d.event({ type: 'run-start', index: 1, total: 1, experiment: 'x', label: 'y', repeat: 1, etaMs: null })
  // a page: an SSE client reading every push
  const url = new URL(d.url)
  let received = 0
  await new Promise((resolve) => http.get(`${url.origin}/events${url.search}`, (res) => { res.on('data', (b) => { received += b.length }); resolve(undefined) }))
  const samples = []
  const pushes = []
  for (let s = 1; s <= 600; s++) {
    for (let i = 0; i < perSecond; i++) counts.complete(0, 0.2 + ((i * 7919) % 400) / 10, 0, true)
    const c0 = cpuMs()
    const point = /** @type {import('../lib/types.js').LoadSecond} */ (series.sample(s * 1000))
    samples.push(cpuMs() - c0)
    const c1 = cpuMs()
    d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: point })
    // the push itself (at most one a second in a run): forced here by an event that pushes at once
    d.event({ type: 'calibrate', experiment: 'x', op: 'bench' })
    await new Promise((resolve) => setTimeout(resolve, 0))
    pushes.push(cpuMs() - c1)
  }
  await d.close()
  const mean = (/** @type {number[]} */ xs) => xs.reduce((a, b) => a + b, 0) / xs.length
  const last = (/** @type {number[]} */ xs) => mean(xs.slice(-100))
  console.log('the dashboard\'s own work in the generator\'s process (timed directly):')
  console.log(`  start + close, once a run            ${median(starts).toFixed(1)} ms CPU (median of 5)`)
  console.log(`  a second's reading of the counts      ${(last(samples) * 1000).toFixed(0)} us CPU (mean of the last 100 of 600 s)`)
  console.log(`  a second's push to one page           ${(last(pushes) * 1000).toFixed(0)} us CPU with ${600} s shown (${received} bytes pushed in all)`)
  return { startMs: median(starts), secondMs: last(samples) + last(pushes) }
}

/** The server: nginx if installed (a generator is then the limit), else node:http in its own process. */
async function startServer () {
  const nginx = findNginx()
  if (nginx) {
    const server = await startNginx(nginx, pinned ? { cpu: 1 } : {})
    return { name: 'nginx', url: server.url, stop: server.stop }
  }
  const child = fork(fileURLToPath(new URL('./hello-server.js', import.meta.url)), { stdio: 'ignore' })
  const [{ port }] = await once(child, 'message')
  return { name: 'node:http', url: `http://127.0.0.1:${port}/`, stop: async () => { child.kill('SIGTERM') } }
}

/**
 * One run of syncbench ab under GNU time; with `dashboard`, --dashboard, and with `browser` a chromium
 * page on its URL.
 * @param {string} url
 * @param {import('playwright-core').Browser|null} browser
 * @param {boolean} [dashboard]
 * @returns {Promise<{ cpuS: number, requests: number, pushes: number }>}
 */
async function run (url, browser, dashboard = browser !== null) {
  const argv = ['-f', '%U %S', ...(pinned ? ['taskset', '-c', '0'] : []), process.execPath, `${root}bin/syncbench.js`, 'ab', '-k', '-c', values.concurrency, '-n', values.requests, ...(dashboard ? ['--dashboard'] : []), url]
  const child = spawn('/usr/bin/time', argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  let page = null
  let pushes = 0
  const opened = new Promise((resolve) => {
    child.stderr.setEncoding('utf8').on('data', async (d) => {
      stderr += d
      const m = /^dashboard: (\S+)$/m.exec(stderr)
      if (m && browser && page === null) {
        page = await browser.newPage()
        page.on('console', () => {})
        await page.goto(m[1])
        pushes = 1
        resolve(undefined)
      }
    })
  })
  const [code] = await once(child, 'close')
  if (browser) {
    await opened
    pushes = await /** @type {import('playwright-core').Page} */ (/** @type {unknown} */ (page)).evaluate(() => document.querySelectorAll('#runs tbody tr').length)
    await /** @type {import('playwright-core').Page} */ (/** @type {unknown} */ (page)).close()
  }
  if (code !== 0) throw new Error(`syncbench ab exited ${code}: ${stderr}`)
  const [user, system] = stderr.trim().split('\n').at(-1).split(' ').map(Number)
  const requests = Number(/Complete requests:\s+(\d+)/.exec(stdout)?.[1])
  return { cpuS: user + system, requests, pushes }
}

const own = await direct()
if (values['direct-only']) process.exit(0)
const server = await startServer()
const { chromium } = await import('playwright-core')
// chromium's processes inherit the core of the one taskset starts
const wrapperDir = mkdtempSync(join(tmpdir(), 'syncbench-chromium-'))
const wrapper = join(wrapperDir, 'chromium')
writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c 1 ${JSON.stringify(values.chromium)} "$@"\n`)
chmodSync(wrapper, 0o755)
const browser = await chromium.launch({ executablePath: pinned ? wrapper : values.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
try {
  const without = []
  const served = []
  const withPage = []
  const perRequest = (/** @type {{ cpuS: number, requests: number }} */ r) => r.cpuS * 1e6 / r.requests
  for (let i = 0; i < Number(values.rounds); i++) {
    // alternated, so a change in the machine's load falls on all three
    without.push(perRequest(await run(server.url, null)))
    served.push(perRequest(await run(server.url, null, true)))
    withPage.push(perRequest(await run(server.url, browser)))
    console.log(`round ${i + 1}: without ${without.at(-1).toFixed(3)}, --dashboard ${served.at(-1).toFixed(3)}, with a page open ${withPage.at(-1).toFixed(3)} us/request`)
  }
  const m0 = median(without)
  const m1 = median(served)
  const m2 = median(withPage)
  const vs = (/** @type {number} */ m) => `${m.toFixed(3)} us  (${((m / m0 - 1) * 100).toFixed(1)}%)`
  console.log(`syncbench ab -k -c ${values.concurrency} -n ${values.requests} against ${server.name}, ${values.rounds} rounds (median CPU per request, whole process):`)
  console.log(`  without --dashboard           ${m0.toFixed(3)} us`)
  console.log(`  --dashboard, no page          ${vs(m1)}`)
  console.log(`  --dashboard, a page open      ${vs(m2)}  (${pinned ? 'the generator on core 0; nginx and chromium on core 1' : 'chromium on the same cores'})`)
  // what the directly timed work adds per request at this run's rate (requests per CPU-second of the generator)
  const rate = 1e6 / m0
  const seconds = Number(values.requests) / rate
  const added = (own.startMs + own.secondMs * seconds) * 1000 / Number(values.requests)
  console.log(`  the dashboard's own work: ${added.toFixed(4)} us a request (${(added / m0 * 100).toFixed(2)}%), of which per second ${(own.secondMs * 1000 / rate).toFixed(5)} us`)
} finally {
  await browser.close()
  await server.stop()
  rmSync(wrapperDir, { recursive: true, force: true })
}
