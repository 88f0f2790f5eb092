// The live dashboard of `syncbench run --dashboard` and `syncbench ab --dashboard`: a page on
// 127.0.0.1 that watches the progress stream (lib/run/progress.js's RunEvents) as the terminal line
// does, pushed to the browser over Server-Sent Events. Read-only: it answers GET and HEAD with what it
// was told, never starts or changes anything. Every request needs the random token of the URL printed
// on stderr (401 without one, 403 with another). The page is self-contained: its script, Observable
// Plot's and d3's bundles and the time-series chart's marks (lib/report/chart-timeseries-plot.js, the
// report's own) are served from here, and its Content-Security-Policy allows no other origin.
import http from 'node:http'
import { once } from 'node:events'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { invalidOption, systemCode } from '../errors.js'
import { DASHBOARD_HOST } from './dashboard-options.js'
import { runOutcome } from './progress-line.js'
import { dashboardPage, dashboardScript } from './dashboard-page.js'

/** @typedef {import('../types.js').RunEvent} RunEvent */
/** @typedef {import('../types.js').LoadSecond} LoadSecond */
/** @typedef {import('../types.js').ServerSecond} ServerSecond */

export { DASHBOARD_HOST }
/** A push at most this often while a load runs (a run's start and end are pushed at once). */
const PUSH_MS = 1000
/** Seconds of the running run the page keeps: an hour's, then the oldest go. */
export const MAX_SECONDS = 3600

/**
 * One run of the plan as the page shows it.
 * @typedef {object} RunRow
 * @property {number} index
 * @property {string} experiment
 * @property {string} label
 * @property {'planned'|'running'|'done'|'invalid'|'failed'|'interrupted'} state
 * @property {number} [repeat]
 * @property {string} [outcome]          runOutcome's words
 * @property {number|null} [rps]
 * @property {number|null} [p99Ms]
 * @property {number} [errors]
 */

/**
 * What the page is sent: all of it on connect and after each change of the plan, the runs, the verdicts
 * or the end; while a load runs, ticks (DashboardTick) with only what it added.
 * @typedef {object} DashboardState
 * @property {string} title
 * @property {'running'|'ended'} status
 * @property {{ total: number, experiments: { name: string, title: string, configurations: number, runs: number }[] }|null} plan
 * @property {RunRow[]} runs
 * @property {string|null} activity   calibrating, measuring a capacity
 * @property {{ index: number, experiment: string, label: string, repeat: number, etaMs: number|null, done: number, requests: number,
 *              load: LoadSecond[], probe: LoadSecond[], server: ServerSecond[] }|null} current
 *           server: the server's live reads (about one a second), its event-loop delay, ELU, CPU and RSS
 * @property {{ index: number, experiment: string, label: string, repeat: number, load: import('../types.js').LoadSeries|null,
 *              server: import('../types.js').ServerMetricsSeries|null, probe: import('../types.js').LoadSeries|null }|null} last
 * @property {{ experiment: string, lines: string[] }[]} verdicts  each experiment's verdict, as its last run ended
 * @property {{ interrupted: boolean, runs: number, total: number, verdicts: string[], report: string|null, reportUrl: string|null, lines: string[] }|null} end
 */

/**
 * What a page is sent between full states while a run's load goes: the running run's progress and the
 * seconds added since the last push, which the page appends (skipping any it already has: a page that
 * connected between two pushes got them in its state). Its size does not grow with the run's length.
 * @typedef {object} DashboardTick
 * @property {number} index     the running run's
 * @property {number} done
 * @property {number} requests
 * @property {LoadSecond[]} load
 * @property {LoadSecond[]} probe
 * @property {ServerSecond[]} server
 * @property {number} keep      how many seconds of each list the page keeps (MAX_SECONDS)
 */

/** The running run's lists of seconds. @typedef {'load'|'probe'|'server'} SecondsList */

/**
 * Start the dashboard's server. Resolves once it listens; refuses a port in use (or an address that
 * is not this machine's) as a usage error naming the flag.
 * @param {{ title: string, host?: string, port?: number, pushMs?: number }} options
 *   pushMs: the throttle of the pushes while a load runs (PUSH_MS; a test or a bench makes it shorter)
 */
export async function startDashboard ({ title, host = DASHBOARD_HOST, port = 0, pushMs = PUSH_MS }) {
  const token = randomBytes(18).toString('base64url')
  const assets = loadAssets(token)
  /** @type {DashboardState} */
  const state = { title, status: 'running', plan: null, runs: [], activity: null, current: null, last: null, verdicts: [], end: null }
  /** @type {Set<http.ServerResponse>} */
  const streams = new Set()
  /** @type {NodeJS.Timeout|null} */
  let pending = null
  /** seconds appended to the running run's lists, ever, and how many of them the pages were sent */
  const added = { load: 0, probe: 0, server: 0 }
  const sent = { load: 0, probe: 0, server: 0 }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard')
    const given = url.searchParams.get('token')
    res.setHeader('Cache-Control', 'no-store')
    res.setHeader('Referrer-Policy', 'no-referrer')
    res.setHeader('X-Content-Type-Options', 'nosniff')
    if (given === null) return refuse(res, 401, 'this dashboard needs the token of the URL syncbench printed')
    if (!sameToken(given, token)) return refuse(res, 403, 'wrong token')
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return refuse(res, 405, 'the dashboard only shows: GET')
    }
    if (url.pathname === '/events') return openStream(res)
    const asset = assets.get(url.pathname)
    if (asset === undefined) return refuse(res, 404, 'not found')
    res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length, ...asset.headers })
    res.end(req.method === 'HEAD' ? undefined : asset.body)
  })
  // A browser tab left open must not keep syncbench alive, nor hold the port after close().
  server.keepAliveTimeout = 1000
  server.listen(port, host)
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => { throw err })])
  } catch (err) {
    const code = systemCode(err)
    if (code === 'EADDRINUSE') throw invalidOption('--dashboard-port', port, 'is in use (give another, or 0 for a free one)')
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw invalidOption('--dashboard-host', host, 'must be an address of this machine')
    if (code === 'EACCES') throw invalidOption('--dashboard-port', port, 'needs privileges to listen on (give one above 1023, or 0)')
    throw err
  }
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address

  /** @param {http.ServerResponse} res */
  function openStream (res) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' })
    res.write(`retry: 1000\n\n${message('state', state)}`)
    if (state.status === 'ended') return res.end()
    // the first page since none: its state holds every second, the next tick only what comes after
    // (with pages open, the seconds not pushed yet stay due: the next tick brings them to all)
    if (streams.size === 0) Object.assign(sent, added)
    streams.add(res)
    res.on('close', () => streams.delete(res))
  }

  /** The whole state, at once: the plan, a run's start or end, the verdicts, the end. */
  function push () {
    if (pending !== null) clearTimeout(pending)
    pending = null
    Object.assign(sent, added)
    if (streams.size === 0) return
    send(message('state', state))
  }

  /** The running run's progress and new seconds (throttled to pushMs). */
  function pushTick () {
    pending = null
    const c = state.current
    if (c === null || streams.size === 0) return
    /** @template T @param {SecondsList} name @param {T[]} list @returns {T[]} the seconds added since the last push */
    const fresh = (name, list) => {
      const n = Math.min(added[name] - sent[name], list.length)
      sent[name] = added[name]
      return n > 0 ? list.slice(-n) : []
    }
    /** @type {DashboardTick} */
    const tick = { index: c.index, done: c.done, requests: c.requests, load: fresh('load', c.load), probe: fresh('probe', c.probe), server: fresh('server', c.server), keep: MAX_SECONDS }
    send(message('tick', tick))
  }

  /** @param {string} text */
  function send (text) {
    for (const res of streams) res.write(text)
  }

  function pushSoon () {
    if (pending === null && streams.size > 0) pending = setTimeout(pushTick, pushMs)
  }

  /**
   * A second of the running run, kept (the oldest goes beyond MAX_SECONDS) and pushed soon.
   * @template {LoadSecond|ServerSecond} T
   * @param {SecondsList} name @param {T[]|undefined} list @param {T} second
   */
  function addSecond (name, list, second) {
    if (list === undefined) return
    list.push(second)
    added[name]++
    if (list.length > MAX_SECONDS) list.shift()
    pushSoon()
  }

  return {
    url: `http://${shownHost}:${address.port}/?token=${token}`,
    port: address.port,
    /**
     * A RunEvent of the progress stream.
     * @param {RunEvent} e
     */
    event (e) {
      if (e.type === 'plan') {
        state.plan = { total: e.total, experiments: e.experiments }
        state.runs = (e.runs ?? []).map((r, i) => ({ index: i + 1, experiment: r.experiment, label: r.label, state: 'planned' }))
        return push()
      }
      if (e.type === 'calibrate') {
        state.activity = `timing one ${e.op} operation alone for ${e.experiment}`
        return push()
      }
      if (e.type === 'capacity') {
        state.activity = `measuring the capacity of ${e.label} for ${e.experiment} (closed loop)`
        return push()
      }
      if (e.type === 'capacity-step') {
        state.activity = `searching the capacity of ${e.label} for ${e.experiment}: ${e.step.rate} req/s ${e.step.verdict}`
        return push()
      }
      if (e.type === 'run-start') {
        state.activity = null
        state.current = { index: e.index, experiment: e.experiment, label: e.label, repeat: e.repeat, etaMs: e.etaMs, done: 0, requests: 0, load: [], probe: [], server: [] }
        Object.assign(added, { load: 0, probe: 0, server: 0 })
        const row = rowOf(state, e.index, e.experiment, e.label)
        row.state = 'running'
        row.repeat = e.repeat
        return push()
      }
      if (e.type === 'heartbeat') {
        if (state.current) {
          state.current.done = e.done
          state.current.requests = e.requests
        }
        return pushSoon()
      }
      if (e.type === 'second') return addSecond(e.source, state.current?.[e.source], e.second)
      if (e.type === 'server-second') return addSecond('server', state.current?.server, e.second)
      if (e.type === 'rounds-end') {
        // --runs auto: the experiment's rounds not needed leave the list, and the runs after them move up
        // (the progress numbers them so)
        state.runs = state.runs.filter((r) => !(r.experiment === e.experiment && r.state === 'planned'))
        for (const [i, row] of state.runs.entries()) row.index = i + 1
        if (state.plan) {
          const kept = state.runs.filter((r) => r.experiment === e.experiment).length
          state.plan = { total: state.runs.length, experiments: state.plan.experiments.map((x) => x.name === e.experiment ? { ...x, runs: kept } : x) }
        }
        return push()
      }
      if (e.type === 'experiment-end') {
        state.verdicts.push({ experiment: e.experiment, lines: e.verdicts })
        return push()
      }
      if (e.type === 'run-end') {
        const record = e.record
        const row = rowOf(state, e.index, record.experiment, record.label)
        Object.assign(row, {
          state: runState(record),
          repeat: record.repeat,
          outcome: runOutcome(record),
          rps: record.load ? record.load.requestsPerSecond : null,
          p99Ms: record.load ? record.load.latency.p99 : null,
          errors: record.load ? record.load.failedRequests + record.load.non2xxResponses : 0
        })
        state.last = {
          index: e.index,
          experiment: record.experiment,
          label: record.label,
          repeat: record.repeat,
          load: record.load?.series ?? seriesOf(state.current?.load ?? []),
          server: record.server?.series ?? null,
          // the probe keeps no series in results.json: its seconds as they were pushed
          probe: record.probe?.load?.series ?? seriesOf(state.current?.probe ?? [])
        }
        state.current = null
        return push()
      }
      if (e.type === 'end') {
        state.activity = null
        state.current = null
        for (const row of state.runs) if (row.state === 'running') row.state = 'interrupted'
        state.end = { interrupted: e.interrupted, runs: e.runs, total: e.total, verdicts: [], report: null, reportUrl: null, lines: [] }
        return push()
      }
    },
    /**
     * The run is over and its files written: the page says so, with the verdicts and the report.
     * @param {{ verdicts?: string[], report?: string|null, lines?: string[], interrupted?: boolean }} end
     *        report: report.html's absolute path; lines: what else to say (where results.json is)
     */
    finish ({ verdicts = [], report = null, lines = [], interrupted = false }) {
      state.status = 'ended'
      state.current = null
      state.end = {
        interrupted: state.end?.interrupted ?? interrupted,
        runs: state.end?.runs ?? state.runs.filter((r) => r.state !== 'planned').length,
        total: state.end?.total ?? state.runs.length,
        verdicts,
        report,
        reportUrl: report === null ? null : new URL(`file://${report}`).href,
        lines
      }
      push()
    },
    /** Close the server and every stream: nothing listens afterwards. */
    async close () {
      if (pending !== null) clearTimeout(pending)
      pending = null
      for (const res of streams) res.end()
      streams.clear()
      const closed = new Promise((resolve) => server.close(() => resolve(undefined)))
      server.closeAllConnections()
      await closed
    }
  }
}

/** @typedef {Awaited<ReturnType<typeof startDashboard>>} Dashboard */

/**
 * The row of a run, made when the plan did not list it (a rate-sweep's capacity runs are not runs).
 * @param {DashboardState} state @param {number} index @param {string} experiment @param {string} label
 */
function rowOf (state, index, experiment, label) {
  let row = state.runs.find((r) => r.index === index)
  if (row === undefined) {
    row = { index, experiment, label, state: 'planned' }
    state.runs.push(row)
  }
  return row
}

/** @param {import('../types.js').RunRecord} record @returns {RunRow['state']} */
function runState (record) {
  if (record.error) return 'failed'
  if (record.load?.aborted) return 'interrupted'
  if (record.invalid) return 'invalid'
  return 'done'
}

/**
 * Seconds as they were pushed, as a LoadSeries (null: none).
 * @param {LoadSecond[]} seconds
 * @returns {import('../types.js').LoadSeries|null}
 */
function seriesOf (seconds) {
  if (seconds.length === 0) return null
  /** @template {keyof LoadSecond} K @param {K} key */
  const pick = (key) => seconds.map((s) => s[key])
  return { intervalMs: 1000, t: pick('t'), requests: pick('requests'), errors: pick('errors'), p50Ms: pick('p50Ms'), p90Ms: pick('p90Ms'), p99Ms: pick('p99Ms'), maxMs: pick('maxMs') }
}

/** One SSE message: the whole state, or a tick. @param {'state'|'tick'} event @param {DashboardState|DashboardTick} data */
function message (event, data) {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/** @param {http.ServerResponse} res @param {number} status @param {string} text */
function refuse (res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' })
  res.end(`${text}\n`)
}

/** A comparison that takes as long whatever the guess. @param {string} given @param {string} token */
function sameToken (given, token) {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * What the dashboard serves, by path: the page, its script, Plot's and d3's browser bundles (as the
 * packages ship them) and the time-series chart's marks. Read once, when the dashboard starts.
 * @param {string} token
 * @returns {Map<string, { type: string, body: Buffer, headers?: Record<string, string> }>}
 */
function loadAssets (token) {
  // The packages export no subpath: their bundles are found beside their entry points. d3 is Plot's
  // dependency, found from Plot's folder (the version Plot was built against).
  const plotEntry = createRequire(import.meta.url).resolve('@observablehq/plot')
  const d3Entry = createRequire(plotEntry).resolve('d3')
  const js = 'text/javascript; charset=utf-8'
  const file = (/** @type {string} */ p) => readFileSync(p)
  // The page's only sources: this server (scripts, the event stream) and inline styles (Plot's SVG
  // sets style attributes); a mistake that named another origin is blocked by the browser too.
  const csp = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
  return new Map([
    ['/', { type: 'text/html; charset=utf-8', body: Buffer.from(dashboardPage(token)), headers: { 'Content-Security-Policy': csp } }],
    ['/dashboard.js', { type: js, body: Buffer.from(dashboardScript(token)) }],
    ['/d3.js', { type: js, body: file(path.join(path.dirname(d3Entry), 'd3.min.js')) }],
    ['/plot.js', { type: js, body: file(path.join(path.dirname(plotEntry), '..', 'dist', 'plot.umd.min.js')) }],
    ['/chart-timeseries-plot.js', { type: js, body: file(fileURLToPath(new URL('../report/chart-timeseries-plot.js', import.meta.url))) }]
  ])
}

/**
 * Start the dashboard for a command and say where it is on stderr: its URL on one line
 * (`dashboard: http://127.0.0.1:PORT/?token=...`), and a warning first when it listens elsewhere.
 * @param {string} title  what the page is headed with
 * @param {{ dashboardPort: number, dashboardHost: string }} options
 * @param {{ stderr: NodeJS.WritableStream }} io
 * @param {string} prefix  the command's name in its warning lines ("syncbench run")
 */
export async function openDashboard (title, options, io, prefix) {
  const host = options.dashboardHost
  if (host !== DASHBOARD_HOST) {
    io.stderr.write(`${prefix}: warning: the dashboard listens on ${host} instead of ${DASHBOARD_HOST}: anyone who can reach that address and has its URL (the token) can watch this run\n`)
  }
  const dashboard = await startDashboard({ title, host, port: options.dashboardPort })
  io.stderr.write(`dashboard: ${dashboard.url}\n`)
  return dashboard
}
