// What watching costs the generator (npm run bench -- --only dashboard): CPU per request of
// `syncbench ab -k -c 50` with --dashboard and a Chromium page open on it, beside the same run without,
// alternated against the same nginx, each a whole process (GNU time's user + system).
//
// The generator runs alone on core 0; nginx and Chromium (a wrapper execs it under taskset) share core
// 1, so a browser does not compete with the generator for its core, as it would not on a machine with a
// core to spare. Every run waits the same --start-at delay, in which the page (a new one each run, as a
// user opens the printed URL) loads and shows the run: what is measured is watching a run, not a browser
// starting a renderer and parsing d3 and Plot on the server's core, a one-off that an hour-long sweep
// does not see. A run whose page had not shown the run when its load began is not counted: it is
// redone, and from then on every run waits longer.
//
// Whole-process CPU per request varies from one run to the next by about 8% (sd of ln, 600,000-request
// runs on a 2-core VM) whatever is measured, more than the effect sought. So many rounds, and the
// result is the ratio of the geometric means with its 95% confidence interval (lib/analysis/stats.js
// ratioInterval, Welch's t on the logs): a page costs at most 3% when the interval's upper end is below
// +3%. The dashboard only adds work to the generator's process; an interval below 1 (runs with a page
// cheaper) says that something else differed between the two kinds of run (a browser is running on the
// machine in one), not that watching saved work.
//
// The work the dashboard adds to the generator is also timed directly, in this process: starting and
// closing it (once per run), and what each second costs (the series' reading of the counts,
// lib/load/load-series.js, and the push of that second to a page over Server-Sent Events); per request
// it is that second's cost divided by the requests of a second (nothing runs per request).
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, writeFileSync, chmodSync, rmSync, existsSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mean, ratioInterval } from '../lib/analysis/stats.js'
import { startNginx } from './nginx.js'

const root = fileURLToPath(new URL('..', import.meta.url))

/** CPU time of this process, ms. */
function cpuMs () {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * The dashboard's own work, timed in this process: start + close, and one second's reading and push
 * (a tick: that second and the progress) with a page (an SSE client) connected, over `shown` seconds,
 * the last 100 averaged (a push's cost does not grow with the seconds shown).
 * @param {number} [shown]
 * @returns {Promise<{ startMs: number, readUs: number, pushUs: number, shown: number }>}
 */
export async function dashboardOwnWork (shown = 600) {
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
  // pushes at once (the run's throttle is a second): each second below is one push
  const d = await startDashboard({ title: 'bench', pushMs: 0 })
  d.event({ type: 'plan', total: 1, runs: [{ experiment: 'x', label: 'y' }], experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 1 }] })
  d.event({ type: 'run-start', index: 1, total: 1, experiment: 'x', label: 'y', repeat: 1, etaMs: null })
  // a page: an SSE client reading every push
  const url = new URL(d.url)
  await new Promise((resolve) => http.get(`${url.origin}/events${url.search}`, (res) => { res.resume(); resolve(undefined) }))
  const reads = []
  const pushes = []
  for (let s = 1; s <= shown; s++) {
    for (let i = 0; i < perSecond; i++) counts.complete(0, 0.2 + ((i * 7919) % 400) / 10, 0, true)
    const c0 = cpuMs()
    const point = /** @type {import('../lib/types.js').LoadSecond} */ (series.sample(s * 1000))
    reads.push(cpuMs() - c0)
    const c1 = cpuMs()
    d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: point })
    d.event({ type: 'heartbeat', index: 1, total: 1, experiment: 'x', label: 'y', done: s * perSecond, requests: shown * perSecond })
    // the push's timer, set first, fires before this one
    await new Promise((resolve) => setTimeout(resolve, 0))
    pushes.push(cpuMs() - c1)
  }
  await d.close()
  return { startMs: median(starts), readUs: mean(reads.slice(-100)) * 1000, pushUs: mean(pushes.slice(-100)) * 1000, shown }
}

/**
 * One run of syncbench ab under GNU time; with `browser`, --dashboard and a page of that browser on its
 * URL. Every run waits `startDelayS` (--start-at) before its load, the page loading meanwhile.
 * @param {{ url: string, browser: import('playwright-core').Browser|null, requests: number, concurrency: number, startDelayS: number, pinned: boolean }} o
 * @returns {Promise<{ usPerRequest: number, pageMs: number|null, shownAfterMs: number|null, shownBeforeLoad: boolean }>}
 *   pageMs: from the URL printed to the page showing the run, null when it never did (the run ended
 *   first and its dashboard with it); shownAfterMs: the same from the process's start, which the
 *   start delay counts from; shownBeforeLoad: whether it did so before the load began
 */
async function run ({ url, browser, requests, concurrency, startDelayS, pinned }) {
  const startedAt = Date.now()
  const loadAt = startedAt + startDelayS * 1000
  const argv = ['-f', '%U %S', ...(pinned ? ['taskset', '-c', '0'] : []), process.execPath, join(root, 'bin/syncbench.js'),
    // no delay: the load starts at once (a --start-at of the spawn's instant is refused by a process
    // that takes over a second to read it, as on a busy machine)
    'ab', '-k', '-c', String(concurrency), '-n', String(requests), ...(startDelayS > 0 ? ['--start-at', new Date(loadAt).toISOString()] : []), ...(browser ? ['--dashboard'] : []), url]
  const child = spawn('/usr/bin/time', argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  const closed = once(child, 'close')
  /** @type {Promise<{ ms: number, at: number }|null>|null} */
  let shown = null
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
    const m = /^dashboard: (\S+)$/m.exec(stderr)
    if (m && browser && shown === null) {
      const t0 = Date.now()
      shown = (async () => {
        // a browser that cannot open a page is an error; a page that cannot reach a dashboard already
        // closed, or never shows the run, is a page that did not show it
        const page = await browser.newPage()
        try {
          const showing = (async () => {
            await page.goto(m[1])
            await page.waitForSelector('#runs tbody tr', { timeout: 15_000 })
          })()
          showing.catch(() => {})
          // once the run has ended its dashboard is closed: a page that has not shown the run by then
          // never will (without this, it waited out the 15 s)
          if (await Promise.race([showing.then(() => false), closed.then(() => true)])) return null
          const at = Date.now()
          return { ms: at - t0, at }
        } catch {
          return null
        } finally {
          await page.close()
        }
      })()
      // awaited once the run has ended: handled from now, so that a failure is not an unhandled rejection
      shown.catch(() => {})
    }
  })
  const [code] = await closed
  /** @type {{ ms: number, at: number }|null} */
  let page = null
  if (browser) {
    // set by the stderr listener, which the type check does not follow
    const pending = /** @type {Promise<{ ms: number, at: number }|null>|null} */ (shown)
    if (pending === null) throw new Error(`syncbench ab --dashboard printed no URL: ${stderr}`)
    page = await pending
  }
  if (code !== 0) throw new Error(`syncbench ab exited ${code}: ${stderr}`)
  const [user, system] = (stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number)
  const done = Number(/Complete requests:\s+(\d+)/.exec(stdout)?.[1])
  return {
    usPerRequest: (user + system) * 1e6 / done,
    pageMs: page?.ms ?? null,
    shownAfterMs: page === null ? null : page.at - startedAt,
    shownBeforeLoad: page !== null && page.at <= loadAt
  }
}

/** The longest start delay tried before the bench says the machine is too busy: s. */
export const MAX_START_DELAY_S = 30

/**
 * The start delay for the runs after one whose page showed the run too late: twice this one, or 1.5
 * times what the page took from the process's start (Node's start, then the page's load, both count
 * against the delay), whichever is longer; null past MAX_START_DELAY_S.
 * @param {number} delayS  the delay the late run waited
 * @param {number|null} shownAfterMs  from the process's start to the page showing the run, null when it never did
 * @returns {number|null}
 */
export function nextStartDelay (delayS, shownAfterMs) {
  const next = Math.max(1, delayS * 2, Math.ceil((shownAfterMs ?? 0) * 1.5 / 1000))
  return next > MAX_START_DELAY_S ? null : next
}

/**
 * CPU per request without the dashboard and with a page open on it, `rounds` of each alternated,
 * against nginx.
 * @param {{ nginx: string, requests: number, concurrency: number, rounds: number, startDelayS: number, ownSeconds: number, chromium: string, log: (line: string) => void }} o
 *   ownSeconds: how many seconds of a run the direct timing of the dashboard's own work goes through
 */
export async function dashboardCost ({ nginx, requests, concurrency, rounds, startDelayS, ownSeconds, chromium, log }) {
  const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0
  const own = await dashboardOwnWork(ownSeconds)
  log(`  the dashboard's own work: start + close ${own.startMs.toFixed(1)} ms CPU; each second ${own.readUs.toFixed(0)} us reading the counts, ${own.pushUs.toFixed(0)} us pushing it to a page (second ${own.shown} of a run)`)
  const server = await startNginx(nginx, pinned ? { cpu: 1 } : {})
  const { chromium: launcher } = await import('playwright-core')
  // Chromium's processes inherit the core of the one taskset starts
  const wrapperDir = mkdtempSync(join(tmpdir(), 'syncbench-chromium-'))
  const wrapper = join(wrapperDir, 'chromium')
  writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c 1 ${JSON.stringify(chromium)} "$@"\n`)
  chmodSync(wrapper, 0o755)
  const browser = await launcher.launch({ executablePath: pinned ? wrapper : chromium, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
  try {
    const without = []
    const page = []
    const pageMs = []
    let delayS = startDelayS
    let redone = 0
    /**
     * One run of a kind, counted only where its page showed the run before its load began (what is
     * measured is watching a run, not a page loading during it): otherwise it is redone, and this run and
     * every later one wait longer.
     * @param {import('playwright-core').Browser|null} b
     */
    const measured = async (b) => {
      for (;;) {
        const r = await run({ url: server.url, requests, concurrency, startDelayS: delayS, pinned, browser: b })
        if (b === null || r.shownBeforeLoad) return r
        const shown = r.pageMs === null ? 'did not show the run before it ended' : `took ${r.pageMs} ms to show the run`
        const next = nextStartDelay(delayS, r.shownAfterMs)
        if (next === null) throw new Error(`the page ${shown}, with a start delay of ${delayS} s: is the machine too busy?`)
        log(`  the page ${shown}, longer than the ${delayS} s start delay: the run is redone, and every run from now on waits ${next} s`)
        delayS = next
        redone++
      }
    }
    for (let i = 0; i < rounds; i++) {
      // alternated, each round starting with the other kind, so that a drift of the machine falls on both
      const order = i % 2 === 0 ? [null, browser] : [browser, null]
      for (const b of order) {
        const r = await measured(b)
        if (b === null) without.push(r.usPerRequest)
        else {
          page.push(r.usPerRequest)
          pageMs.push(/** @type {number} */ (r.pageMs))
        }
      }
      log(`  round ${i + 1}: without ${without.at(-1)?.toFixed(2)}, a page open ${page.at(-1)?.toFixed(2)} us/request`)
    }
    const { ratio, low, high } = ratioInterval(page, without)
    const rate = 1e6 / median(without)
    // the dashboard's own work per request: its start once per run and its seconds, at this run's rate
    const ownUs = (own.startMs * 1000 + (own.readUs + own.pushUs) * requests / rate) / requests
    return {
      requests,
      concurrency,
      rounds,
      startDelayS: delayS,
      redone,
      pinned,
      withoutUs: without,
      pageOpenUs: page,
      pageShownMs: median(pageMs),
      ratio,
      low,
      high,
      ownWork: { ...own, usPerRequest: ownUs, share: ownUs / median(without) }
    }
  } finally {
    await browser.close()
    await server.stop()
    rmSync(wrapperDir, { recursive: true, force: true })
  }
}

/** A ratio as a change: "+1.4%", "-3.3%". @param {number} x */
const change = (x) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)}%`

/**
 * A page's cost as bench/run.js prints it and docs/benchmarks.md shows it: "-1.4% (95% CI -3.8%..+1.0%)".
 * @param {{ ratio: number, low: number, high: number }} r  from ratioInterval
 */
export function costText (r) {
  return `${change(r.ratio)} (${Number.isFinite(r.low) ? `95% CI ${change(r.low)}..${change(r.high)}` : 'no interval: fewer than 3 rounds'})`
}

/** Whether the part can run here: nginx, taskset, GNU time, Chromium and playwright-core. @param {string} chromium */
export function dashboardCostMissing (chromium) {
  const missing = []
  if (!existsSync('/usr/bin/time')) missing.push('GNU time')
  if (!existsSync(chromium)) missing.push(chromium)
  if (!existsSync(join(root, 'node_modules/playwright-core'))) missing.push('playwright-core')
  return missing
}
