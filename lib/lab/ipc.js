// The protocol between a server under test and the process that started it (the runner, a test,
// spawnServer's caller). The server side runs in lib/lab/server-child.js, the only module syncbench
// forks as a server; the parent side is lib/lab/spawn.js. Messages travel over Node's IPC channel
// (child_process.fork, 'json' serialization: one JSON object per line on the NODE_CHANNEL_FD pipe).
//
// Start. The parent forks server-child.js with one argument, the ChildSpec as JSON:
//   { app: 'seed-bcrypt'|'seed-readfile'|'lab', args: string[] }    args: `syncbench serve` options
//   { workload: '/abs/handlers.js', label: 'handlers.js' }         a user's module of handlers
//   { workload: '/abs/handlers.js', label, query: 'handlers' }      list the handlers only, then exit
//   { workload: '/abs/handlers.js', label, http2: true }            its handlers over HTTP/2 (h2c)
//   { command: 'node app.js', name: 'app', cwd, log: '/abs/apps/app.log', port?: number, instrument: '/abs/instrument.js' }
//                                                                  a user's own server (lib/lab/app-host.js)
// A user's command runs in its own process group, its stdout and stderr appended to `log`. Port
// discovery: NODE_OPTIONS preloads lib/lab/instrument.js into every Node process the command starts
// (`npm start`, a shell script), and the first one that listens with an HTTP server connects to the
// control socket named by SYNCBENCH_CONTROL (a Unix socket, a named pipe on Windows: npm would take an
// IPC fd for itself) and speaks this same protocol over it, one JSON message per line. The child
// relays the parent's requests to it and its answers back. With `port` the child waits for that port
// to accept connections instead, and relays metrics only if an instrumented process connected.
//
// Messages:
//   child -> parent  { type: 'syncbench:ready', address: { host, port }, servers: [{ name, url, port }],
//                      env: Environment, handlers?: string[] }
//                    once every server listens. address is where the load goes (the first server);
//                    servers lists them all (seed-readfile without --only has three). handlers: a
//                    workload's handler names.
//   child -> parent  { type: 'syncbench:handlers', handlers: string[] }
//                    the answer to a `query: 'handlers'` spec, instead of ready: no server is started,
//                    and the child exits right after.
//   parent -> child  { type: 'syncbench:metrics', id, reset: boolean, server?: string }
//   child -> parent  { type: 'syncbench:metrics', id, metrics: ServerMetrics }
//                    the window since the last reset (read first, then reset if asked); `server` picks
//                    one of `servers` where each has its own process. Its `loopBlocks` are the spans,
//                    in ms since the window's start, when the loop was held past 20 ms (the ticker of
//                    lib/lab/metrics.js, at most 500 spans: lib/lab/loop-blocks.js); a profile's
//                    `startOffsetMs` puts its samples on the same clock.
//   parent -> child  { type: 'syncbench:live', id, server?: string }
//   child -> parent  { type: 'syncbench:live', id, live: ServerSecond|null }
//                    read-only: the figures since the previous live request (the first: since the
//                    window's start), loop delay max and p99, ELU, CPU %, requests, and RSS now; the
//                    window is not reset nor changed. Sent about once a second, and only while a live
//                    view asked for the server's figures (lib/run/runner.js). null: nothing measures this
//                    server (a user's app found by --port with no instrumented process).
//   child -> parent  { type: 'syncbench:error', id, code, message }   that metrics or live request failed
//   parent -> child  { type: 'syncbench:profile', id, action: 'start' }
//   parent -> child  { type: 'syncbench:profile', id, action: 'stop', file }
//   child -> parent  { type: 'syncbench:profile', id, profile: ProfileInfo|null }
//                    a CPU profile of the main thread (node:inspector, PROFILE_INTERVAL_US): `start`
//                    before the warm-up and the metrics reset (starting V8's profiler holds the loop,
//                    which the window must not count), `stop` after the window's metrics were read; the
//                    profile is written to `file` (a .cpuprofile) by the server itself, and
//                    `startOffsetMs` (negative) says which of its samples are the window's. null:
//                    nothing profiles this server (a user's non-Node app found by --port).
//   parent -> child  { type: 'syncbench:routes', id }
//   child -> parent  { type: 'syncbench:routes', id, routes: { frameworks, routes, notes } | null }
//                    the routes of the measured server, read in its own process when asked (so a route
//                    added after listen is seen) by lib/lab/route-reader.js: frameworks [{ name, version }],
//                    routes FoundRoute[] (lib/types.js), notes (what could not be read, one line each).
//                    null: nothing reads this server's routes (a user's app found by --port with no
//                    instrumented process).
//   child -> parent  { type: 'syncbench:error', code, message, stderr?: string[] }
//                    the server could not start (no id); the child exits 1. stderr: the last lines of a
//                    process the child started on the parent's behalf; for the child itself the parent
//                    keeps its stderr. The parent rejects with `code` (errorCodes.EXPERIMENT for an
//                    unusable workload, else errorCodes.SERVER_START), `message`, and the last stderr lines.
//
// Stop. SIGTERM (then SIGKILL after a grace period): any process understands it, and a server whose
// loop is blocked can answer no message. The child closes its servers and exits; it does the same when
// the channel closes (the parent is gone, nobody else would stop it).
//
// Failure without a message (a crash, process.exit, no ready in time): the parent's error names the
// child's last stderr line and carries its last lines (lib/lab/spawn.js).
// The shapes are ServerHandle's, ServerMetrics', ServerSecond's and Environment's in lib/types.js.
import { EventEmitter } from 'node:events'
import { SyncbenchError, errorCodes } from '../errors.js'

export const READY = 'syncbench:ready'
export const HANDLERS = 'syncbench:handlers'
export const METRICS = 'syncbench:metrics'
export const ERROR = 'syncbench:error'
export const PROFILE = 'syncbench:profile'
export const LIVE = 'syncbench:live'
export const ROUTES = 'syncbench:routes'

/**
 * What the server child starts (see the protocol above).
 * @typedef {{ app: string, args?: string[] } | { workload: string, label?: string, query?: 'handlers', http2?: boolean } | AppSpec} ChildSpec
 */

/**
 * A user's own server command (lib/lab/app-host.js).
 * @typedef {object} AppSpec
 * @property {string} command     as the user wrote it (split as lib/lab/command.js says)
 * @property {string} name        how messages name it
 * @property {string} [cwd]
 * @property {Record<string, string>} [env]  environment variables of its own, over this process's
 * @property {string} log         absolute path; stdout and stderr are appended to it
 * @property {number} [port]      --port: load this port, found when it accepts connections
 * @property {number} [startTimeoutMs]  how long the app may take to listen
 */

/**
 * What a profile stop answers: where the profile went and how it lines up with the metrics window.
 * @typedef {object} ProfileInfo
 * @property {string} file
 * @property {number} intervalUs      the sampling interval asked of V8
 * @property {number} startOffsetMs   the profile's start minus the metrics window's start (ms; the series' t count from the window's start)
 */

/**
 * What a routes request answers (the protocol above).
 * @typedef {Omit<import('../types.js').RouteDiscovery, 'startMs'>} FoundRoutes
 */

/**
 * @typedef {Pick<NodeJS.Process, 'send' | 'on' | 'off' | 'connected'>} Channel  `process` in a forked child
 */

/**
 * The child's ready message (see the protocol above).
 * @typedef {object} ReadyMessage
 * @property {typeof READY} type
 * @property {{ host: string, port: number }} address
 * @property {{ name: string, url: string, port: number }[]} servers
 * @property {import('../types.js').Environment} env
 * @property {string[]} [handlers]  a workload's handler names
 * @property {string} [app]         a user's app (lib/lab/app-host.js): its name
 * @property {number} [appPid]      its command's pid, the id of the process group it runs in
 */

/**
 * The child's answer to a `query: 'handlers'` spec.
 * @typedef {{ type: typeof HANDLERS, handlers: string[] }} HandlersMessage
 */

/**
 * Announce the servers and answer metrics requests until `stop()`.
 * @param {Channel} channel
 * @param {object} options
 * @param {{ name: string, url: string, port: number, host?: string }[]} options.servers
 * @param {import('../types.js').Environment} options.env
 * @param {(request: { reset: boolean, server?: string }) => import('../types.js').ServerMetrics | Promise<import('../types.js').ServerMetrics>} options.read
 * @param {() => void} [options.onDisconnect] the parent is gone: nobody will stop this server, so stop it
 * @param {Record<string, unknown>} [options.info] more fields for the ready message (a workload's handler names)
 * @param {(request: { action: string, file?: string }) => Promise<ProfileInfo|null>} [options.profile] answers profile requests
 * @param {(request: { server?: string }) => import('../types.js').ServerSecond | null | Promise<import('../types.js').ServerSecond|null>} [options.live]
 *   answers live requests (none: they are answered null)
 * @param {() => Promise<FoundRoutes>} [options.routes] answers routes requests (none: they are answered null)
 * @returns {{ stop: () => void }}
 */
export function serveIpc (channel, { servers, env, read, onDisconnect, info, profile, live, routes }) {
  /** @param {any} message what the parent sent: checked here, field by field */
  const onMessage = async (message) => {
    if (message?.type === PROFILE) return answerProfile(message)
    if (message?.type === LIVE) return answerLive(message)
    if (message?.type === ROUTES) return send(channel, { type: ROUTES, id: message.id, routes: routes ? await routes() : null })
    if (!message || message.type !== METRICS) return
    let metrics
    try {
      metrics = await read({ reset: message.reset === true, server: message.server })
    } catch (err) {
      // The parent's request failed (no such server, a supervised child gone): it is told why. Anything
      // else is a bug of this process: it surfaces as an unhandled rejection, with its stack on stderr.
      if (!(err instanceof SyncbenchError)) throw err
      send(channel, { type: ERROR, id: message.id, code: err.code, message: err.message })
      return
    }
    send(channel, { type: METRICS, id: message.id, metrics })
  }
  /** @param {any} message */
  const answerProfile = async (message) => {
    let answer = null
    try {
      if (profile) answer = await profile({ action: String(message.action), file: typeof message.file === 'string' ? message.file : undefined })
    } catch (err) {
      if (!(err instanceof SyncbenchError)) throw err
      send(channel, { type: ERROR, id: message.id, code: err.code, message: err.message })
      return
    }
    send(channel, { type: PROFILE, id: message.id, profile: answer })
  }
  /** @param {any} message */
  const answerLive = async (message) => {
    let answer = null
    try {
      if (live) answer = await live({ server: typeof message.server === 'string' ? message.server : undefined })
    } catch (err) {
      if (!(err instanceof SyncbenchError)) throw err
      send(channel, { type: ERROR, id: message.id, code: err.code, message: err.message })
      return
    }
    send(channel, { type: LIVE, id: message.id, live: answer })
  }
  const disconnected = () => onDisconnect?.()
  channel.on('message', onMessage)
  channel.on('disconnect', disconnected)
  const [first] = servers
  send(channel, {
    ...info,
    type: READY,
    address: { host: first.host ?? new URL(first.url).hostname, port: first.port },
    servers: servers.map(({ name, url, port }) => ({ name, url, port })),
    env
  })
  return {
    stop () {
      channel.off('message', onMessage)
      channel.off('disconnect', disconnected)
    }
  }
}

/**
 * Answer a `query: 'handlers'` spec.
 * @param {Channel} channel
 * @param {string[]} handlers
 * @returns {Promise<void>} once the message is handed to the channel, so the child can exit after it
 */
export function sendHandlers (channel, handlers) {
  return sendLast(channel, { type: HANDLERS, handlers })
}

/**
 * Tell the parent why the server could not start.
 * @param {Channel} channel
 * @param {unknown} err what the start threw: a SyncbenchError names its code, anything else is a start failure
 * @param {string[]} [stderr] the last stderr lines of a process the child started, if any
 * @returns {Promise<void>} once the message is handed to the channel, so the child can exit after it
 */
export function sendError (channel, err, stderr) {
  const code = err instanceof SyncbenchError ? err.code : errorCodes.SERVER_START
  const text = err !== null && typeof err === 'object' && 'message' in err ? err.message : undefined
  const message = { type: ERROR, code, message: String(text || err) }
  return sendLast(channel, stderr ? { ...message, stderr } : message)
}

/**
 * @param {Channel} channel
 * @param {object} message
 * @returns {Promise<void>}
 */
function sendLast (channel, message) {
  return new Promise((resolve) => {
    if (!channel.connected || !channel.send) return resolve()
    channel.send(message, () => resolve())
  })
}

/**
 * @param {Channel} channel
 * @param {object} message
 */
function send (channel, message) {
  // The parent may have gone between a request and its answer; nothing is left to tell.
  if (channel.connected && channel.send) channel.send(message, () => {})
}

/**
 * A Channel over a stream socket: one JSON message per line, as Node's own IPC channel frames them.
 * lib/lab/instrument.js speaks the protocol over it to lib/lab/app-host.js.
 * @param {import('node:net').Socket} socket
 * @returns {Channel & { send: (message: object, callback?: (err: Error|null) => void) => boolean }}
 */
export function socketChannel (socket) {
  const events = new EventEmitter()
  let connected = true
  let buffered = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk) => {
    buffered += chunk
    let newline
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      let message
      try { message = JSON.parse(line) } catch { continue }
      events.emit('message', message)
    }
  })
  const closed = () => {
    if (!connected) return
    connected = false
    events.emit('disconnect')
  }
  socket.on('close', closed)
  socket.on('error', closed)
  const channel = {
    get connected () { return connected },
    /** @param {object} message @param {(err: Error|null) => void} [callback] */
    send (message, callback) {
      if (!connected) { callback?.(new Error('channel closed')); return false }
      return socket.write(JSON.stringify(message) + '\n', (err) => callback?.(err ?? null))
    },
    /** @param {string} event @param {(...args: any[]) => void} listener */
    on (event, listener) { events.on(event, listener); return channel },
    /** @param {string} event @param {(...args: any[]) => void} listener */
    off (event, listener) { events.off(event, listener); return channel },
    disconnect () { socket.end() }
  }
  return /** @type {any} */ (channel)
}
