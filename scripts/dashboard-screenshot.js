// A screenshot of the live dashboard in the middle of a real run, for the docs:
//   node scripts/dashboard-screenshot.js [--png docs/images/dashboard.png] [--width 1100] [-- run arguments]
// starts `syncbench run --dashboard` (with no run arguments: what `npm start` runs) into a temporary
// folder, opens the printed URL in Debian's chromium (playwright-core), waits until one run has finished
// and the next has run a few seconds, takes the PNG, then lets the run finish (Ctrl-C with --stop).
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
    seconds: { type: 'string', default: '4' },
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
  await page.goto(url)
  // mid-run: a finished run on the page (its server series drawn) and the running one a few seconds in
  await page.waitForFunction((seconds) => {
    // runs in the page
    const document = /** @type {any} */ (globalThis).document
    const dt = [...(document.querySelectorAll('#now-figures dt'))].find((d) => d.textContent === 'seconds')
    return !document.getElementById('last')?.hidden && Number(dt?.nextElementSibling?.textContent) >= seconds
  }, Number(values.seconds), { timeout: 15 * 60_000, polling: 200 })
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
