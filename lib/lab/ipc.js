// The protocol between a server under test and the process that started it (the runner, a test,
// spawnServer's caller). The server side runs in lib/lab/server-child.js, the only module syncbench
// forks as a server; the parent side is lib/lab/spawn.js. Messages travel over Node's IPC channel
// (child_process.fork, 'json' serialization: one JSON object per line on the NODE_CHANNEL_FD pipe).
//
// Start. The parent forks server-child.js with one argument, the ChildSpec as JSON:
//   { app: 'seed-bcrypt'|'seed-readfile'|'lab', args: string[] }    args: `syncbench serve` options
//   { workload: '/abs/handlers.js', label: 'handlers.js' }         a user's module of handlers
//   { workload: '/abs/handlers.js', label, query: 'handlers' }      list the handlers only, then exit
// (The next kind, a user's own server command, is one more ChildSpec: the child starts the command,
// waits for its address, and speaks the same messages on its behalf, relaying its stderr.)
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
//                    one of `servers` where each has its own process.
//   child -> parent  { type: 'syncbench:error', id, code, message }   that metrics request failed
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
// The shapes are ServerHandle's, ServerMetrics' and Environment's in lib/types.js.
import { SyncbenchError, errorCodes } from '../errors.js'

export const READY = 'syncbench:ready'
export const HANDLERS = 'syncbench:handlers'
export const METRICS = 'syncbench:metrics'
export const ERROR = 'syncbench:error'

/**
 * What the server child starts (see the protocol above).
 * @typedef {{ app: string, args?: string[] } | { workload: string, label?: string, query?: 'handlers' }} ChildSpec
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
 * @returns {{ stop: () => void }}
 */
export function serveIpc (channel, { servers, env, read, onDisconnect, info }) {
  /** @param {any} message what the parent sent: checked here, field by field */
  const onMessage = async (message) => {
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
