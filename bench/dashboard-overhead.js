// What watching costs the generator: CPU per request of `syncbench ab -k -c 50` with --dashboard, with
// and without a browser page open on it (chromium, as a user would have), beside the same run without,
// alternated against the same server (nginx when installed, else bench/hello-server.js), whole process (GNU time's
// user + system), several rounds; the medians and their ratio.
//
// Usage: node bench/dashboard-overhead.js [--requests 300000] [--rounds 5] [--chromium /usr/bin/chromium]
import { spawn, fork } from 'node:child_process'
import { once } from 'node:events'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { findNginx, startNginx } from './nginx.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    chromium: { type: 'string', default: '/usr/bin/chromium' }
  }
})

/** The server: nginx if installed (a generator is then the limit), else node:http in its own process. */
async function startServer () {
  const nginx = findNginx()
  if (nginx) {
    const server = await startNginx(nginx)
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
  const argv = ['-f', '%U %S', process.execPath, `${root}bin/syncbench.js`, 'ab', '-k', '-c', values.concurrency, '-n', values.requests, ...(dashboard ? ['--dashboard'] : []), url]
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const server = await startServer()
const { chromium } = await import('playwright-core')
const browser = await chromium.launch({ executablePath: values.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
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
  console.log(`  --dashboard, a page open      ${vs(m2)}  (chromium on the same cores)`)
} finally {
  await browser.close()
  await server.stop()
}
