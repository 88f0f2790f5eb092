// A screenshot of the live dashboard in the middle of a real run, for the docs:
//   node scripts/dashboard-screenshot.js [--png docs/images/dashboard.png] [--width 1100] [-- run arguments]
// starts `syncbench run --dashboard` (with no run arguments: what `npm start` runs) into a temporary
// folder, opens the printed URL in Debian's chromium (playwright-core), waits until a run has finished,
// the first experiment's verdict is in (when the plan has several) and the running run has a few
// seconds of the load and of the server's live series drawn, takes the PNG, then lets the run finish
// (Ctrl-C with --stop).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    png: { type: 'string', default: path.join(root, 'docs/images/dashboard.png') },
    width: { type: 'string', default: '1100' },
    // npm start's seed-readfile runs last about 3 s on 2 cores
    seconds: { type: 'string', default: '2' },
    stop: { type: 'boolean', default: false },
    chromium: { type: 'string', default: '/usr/bin/chromium' }
  }
})

const out = await mkdtemp(path.join(os.tmpdir(), 'syncbench-dashboard-'))
const child = spawn(process.execPath, [path.join(root, 'bin/syncbench.js'), 'run', ...positionals, '--dashboard', '--out', out], { stdio: ['ignore', 'inherit', 'pipe'] })
let stderr = ''
const exited = once(child, 'close')
const url = await new Promise((resolve, reject) => {
  child.stderr.setEncoding('utf8').on('data', (d) => {
    process.stderr.write(d)
    stderr += d
    const m = /^dashboard: (\S+)$/m.exec(stderr)
    if (m) resolve(m[1])
  })
  exited.then(() => reject(new Error('syncbench run ended before printing the dashboard\'s URL')))
})

const { chromium } = await import('playwright-core')
const browser = await chromium.launch({ executablePath: values.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
try {
  const page = await browser.newPage({ viewport: { width: Number(values.width), height: 900 }, deviceScaleFactor: 1 })
  // The picture must show the state the wait below saw, not the next run's start a push later (a
  // seed-readfile run lasts about 3 s): once the wait holds it sets __hold, and the page's event
  // listeners then receive nothing more.
  await page.addInitScript(() => {
    const g = /** @type {any} */ (globalThis)
    const Native = g.EventSource
    g.EventSource = class extends Native {
      /** @param {string} type @param {(event: unknown) => void} listener @param {unknown} [options] */
      addEventListener (type, listener, options) {
        super.addEventListener(type, (/** @type {unknown} */ event) => { if (!g.__hold) listener(event) }, options)
      }
    }
  })
  await page.goto(url)
  // mid-run: a finished run on the page (its server series drawn), the first experiment's verdict, and
  // the running one a few seconds in, its load and its server drawn live
  const picture = page.waitForFunction((seconds) => {
    // runs in the page
    const document = /** @type {any} */ (globalThis).document
    const dt = [...(document.querySelectorAll('#now-figures dt'))].find((d) => d.textContent === 'seconds')
    const server = document.getElementById('now-server')
    // a live read adds a point to each of the server's four panels, which start with one more (the first read's start)
    const serverSeconds = server?.querySelector('svg') ? Number(server.dataset.points ?? 0) / 4 - 1 : 0
    const verdictDue = document.querySelectorAll('#experiment-list .experiment').length > 1
    const verdictShown = document.querySelector('#experiment-list .verdict') !== null
    const ready = !document.getElementById('last')?.hidden && Number(dt?.nextElementSibling?.textContent) >= seconds &&
      serverSeconds >= seconds && (!verdictDue || verdictShown)
    if (ready) /** @type {any} */ (globalThis).__hold = true
    return ready
  }, Number(values.seconds), { timeout: 15 * 60_000, polling: 200 })
  // a run that ends first leaves nothing to take: said at once rather than after the timeout
  picture.catch(() => {})
  await Promise.race([picture, exited.then(() => { throw new Error(`syncbench run ended before the page showed what the picture needs (--seconds ${values.seconds})`) })])
  await mkdir(path.dirname(values.png), { recursive: true })
  await page.screenshot({ path: values.png, fullPage: true })
  process.stderr.write(`dashboard-screenshot: ${path.relative(process.cwd(), values.png)}\n`)
} finally {
  await browser.close()
  if (values.stop) child.kill('SIGINT')
  const [code] = await exited
  await rm(out, { recursive: true, force: true })
  process.exitCode = values.stop ? 0 : code ?? 1
}
