// The preload that measures a user's own server: `node --import <syncbench>/lib/lab/instrument.js app.js`
// (`syncbench run --app` puts it in NODE_OPTIONS, so it also rides along `npm start` and shell scripts;
// by hand: `node --import syncbench/instrument app.js`). It finds the first HTTP server the process
// listens on through diagnostics_channel ('tracing:net.server.listen:asyncEnd', published by Node's
// net.Server#listen; no prototype is patched, so any framework works: node:http, Express, Fastify,
// Koa), then, for that server:
// - counts its requests ('http.server.request.start') and measures this process (lib/lab/metrics.js),
//   following each request by route to its 'http.server.response.finish' (lib/lab/route-blocks.js);
// - started by syncbench (SYNCBENCH_CONTROL names a Unix socket or named pipe): connects to it and
//   speaks the protocol of lib/lab/ipc.js: ready with the server's address, metrics windows, live reads, a CPU
//   profile of the main thread from before the warm-up to after the measured window (node:inspector, one
//   sample every PROFILE_INTERVAL_US), written where the runner asks; the server's routes, read when
//   asked (lib/lab/route-reader.js: nothing is walked before; Fastify's adapter alone watches from the
//   start, as its routes can only be seen being declared: lib/lab/frameworks/fastify.js);
// - by hand (SYNCBENCH_METRICS_PORT=<port>): serves GET /__syncbench/metrics (?reset=1 starts a new
//   window) and GET /__syncbench/env on 127.0.0.1:<port>, a server of its own beside the app's.
// SYNCBENCH_PARENT_PID: a watchdog thread (lib/lab/parent-watch.js) ends this process once that
// process is gone, even while a handler blocks the main thread. A Node process that never listens
// (npm itself, a build step) does nothing else.
import dc from 'node:diagnostics_channel'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { createServerMetrics, collectEnvironment } from './metrics.js'
import { serveIpc, socketChannel } from './ipc.js'
import { watchParent } from './parent-watch.js'
import { followRoutes } from './route-blocks.js'

/** 1 ms between samples: Node's own --cpu-prof-interval default; a 65 ms hash is ~65 samples. */
export const PROFILE_INTERVAL_US = 1000
const LISTEN = 'tracing:net.server.listen:asyncEnd'
const REQUEST = 'http.server.request.start'

const control = process.env.SYNCBENCH_CONTROL
const metricsPort = process.env.SYNCBENCH_METRICS_PORT
if (process.env.SYNCBENCH_PARENT_PID) watchParent({ parent: process.env.SYNCBENCH_PARENT_PID, ancestor: true })

/** @type {import('node:net').Server|null} the metrics server of the by-hand mode: never the one measured */
let own = null

/** @param {unknown} message */
function onListen (message) {
  const server = /** @type {{ server?: import('node:net').Server }} */ (message).server
  if (!server || server === own || !(server instanceof http.Server || server instanceof https.Server)) return
  const address = server.address()
  // A listen that failed (EADDRINUSE) or a Unix socket: not a port to load.
  if (!address || typeof address === 'string') return
  dc.unsubscribe(LISTEN, onListen)
  measure(server, address)
}
if (control || metricsPort) dc.subscribe(LISTEN, onListen)
// Only syncbench's parent asks for routes, and only over the control socket: the readers are loaded
// for it alone (the preload rides along every Node process of the command: npm, a build step).
if (control) for (const framework of (await import('./frameworks.js')).frameworks) framework.watch?.()

/**
 * @param {import('node:net').Server} server
 * @param {import('node:net').AddressInfo} address
 */
function measure (server, address) {
  const metrics = createServerMetrics()
  dc.subscribe(REQUEST, (message) => {
    if (/** @type {{ server?: unknown }} */ (message).server === server) metrics.requests++
  })
  followRoutes(server, metrics.routes)
  const host = loopbackFor(address.address)
  const secure = server instanceof https.Server
  const url = `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`
  const env = collectEnvironment()
  const profiler = createProfiler()
  /** @param {{ reset: boolean }} request */
  const read = ({ reset }) => {
    const window = metrics.read({ reset })
    if (reset) profiler.windowStarted()
    return window
  }
  if (control) {
    const socket = net.connect(control)
    // The app decides when it ends: syncbench's channel never keeps it alive.
    socket.unref()
    socket.on('error', () => {})
    const channel = socketChannel(socket)
    serveIpc(channel, { servers: [{ name: 'app', url, port: address.port, host }], env, read, live: () => metrics.live(), info: { pid: process.pid, secure }, profile: profiler.request, routes: () => routesOf(server) })
  }
  if (metricsPort) serveMetrics(Number(metricsPort), read, env)
}

/**
 * The server's routes; a reader that fails says why in a note, and the app goes on as it was.
 * @param {import('node:net').Server} server
 * @returns {Promise<import('./ipc.js').FoundRoutes>}
 */
async function routesOf (server) {
  try {
    const { readRoutes } = await import('./route-reader.js')
    return await readRoutes(server)
  } catch (err) {
    return { frameworks: [], routes: [], notes: [`reading the routes failed: ${err instanceof Error ? err.message : String(err)}`] }
  }
}

/**
 * Where a client reaches a server bound to `address`: the unspecified addresses (a server started
 * with `listen(port)`) are reached on loopback.
 * @param {string} address
 */
function loopbackFor (address) {
  if (address === '::' || address === '0.0.0.0' || address === '') return '127.0.0.1'
  if (address.startsWith('::ffff:')) return address.slice(7)
  return address
}

/**
 * The by-hand mode's own server on 127.0.0.1:<port>.
 * @param {number} port
 * @param {(request: { reset: boolean }) => import('../types.js').ServerMetrics} read
 * @param {import('../types.js').Environment} env
 */
function serveMetrics (port, read, env) {
  own = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    /** @type {unknown} */
    let body
    if (url.pathname === '/__syncbench/metrics') body = read({ reset: url.searchParams.get('reset') === '1' })
    else if (url.pathname === '/__syncbench/env') body = env
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body ?? { error: 'GET /__syncbench/metrics or /__syncbench/env' }) + '\n')
  })
  own.on('error', (err) => process.stderr.write(`syncbench instrument: SYNCBENCH_METRICS_PORT=${port}: ${err.message}\n`))
  own.listen(port, '127.0.0.1')
  own.unref()
}

/**
 * The main thread's CPU profile, started and stopped on request; its stop says where the profile starts
 * on the clock of the last metrics window (the window opens after the start: the offset is negative).
 */
function createProfiler () {
  /** @type {Session|null} */
  let session = null
  let windowStartUs = 0
  return {
    windowStarted () { windowStartUs = Number(process.hrtime.bigint() / 1000n) },
    /**
     * @param {{ action: string, file?: string }} request
     * @returns {Promise<import('./ipc.js').ProfileInfo|null>}
     */
    async request ({ action, file }) {
      if (action === 'start') {
        session?.disconnect()
        session = new Session()
        session.connect()
        await session.post('Profiler.enable')
        await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US })
        await session.post('Profiler.start')
        return null
      }
      if (action !== 'stop' || !session || !file) return null
      const { profile } = await session.post('Profiler.stop')
      session.disconnect()
      session = null
      await writeFile(file, JSON.stringify(profile))
      // profile.startTime is on the monotonic clock of process.hrtime, in microseconds.
      return { file, intervalUs: PROFILE_INTERVAL_US, startOffsetMs: (profile.startTime - windowStartUs) / 1000 }
    }
  }
}
