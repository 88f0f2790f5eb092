// The server for `syncbench run --workload ./handlers.js`: each exported handler `name(req)` is
// served at GET /<name>; what it returns (or resolves to) is the body. It is a forked child speaking
// the same IPC protocol as `syncbench serve` (lib/lab/ipc.js), forked by lib/lab/spawn.js and hosted
// and measured by lib/lab's own http-host.js and metrics.js, so the runner treats it like any other
// server. Only this child ever imports the user's module: its ready message lists the handler names.
import { fileURLToPath, pathToFileURL } from 'node:url'
import { SyncbenchError, firstLine } from '../errors.js'
import { forkServer } from '../lab/spawn.js'

const selfPath = fileURLToPath(import.meta.url)

/**
 * Fork the workload server and resolve once it listens. Throws SB_ERR_EXPERIMENT when the module
 * cannot be loaded or exports no handler, SB_ERR_SERVER_START for other start failures.
 * @param {{ workload: string, label?: string, env?: Record<string, string>, startTimeoutMs?: number, stopGraceMs?: number, metricsTimeoutMs?: number,
 *   onChild?: (child: import('node:child_process').ChildProcess) => void }} options
 *   workload: absolute path; label: the module as the user named it, for messages; onChild: see lib/lab/spawn.js
 * @returns {Promise<import('../types.js').ServerHandle & { handlers: string[] }>}
 */
export async function spawnWorkloadServer ({ workload, label = workload, env, startTimeoutMs, stopGraceMs, metricsTimeoutMs, onChild }) {
  const handle = await forkServer(selfPath, [workload, label], { name: '--workload server', env, startTimeoutMs, stopGraceMs, metricsTimeoutMs, onChild })
  return { ...handle, handlers: handle.ready.handlers }
}

/** The child: serve the handlers on 127.0.0.1:0 until SIGTERM or the parent goes away. */
async function child (workload, label) {
  const { hostServer } = await import('../lab/http-host.js')
  const { createServerMetrics, collectEnvironment } = await import('../lab/metrics.js')
  const { serveIpc, sendError } = await import('../lab/ipc.js')
  let hosted, metrics, ipc
  try {
    const handlers = await importWorkload(workload, `--workload ${label}`)
    metrics = createServerMetrics()
    const env = collectEnvironment()
    hosted = await hostServer({ name: 'workload', handler: route(handlers), metrics, env, port: 0, host: '127.0.0.1' })
    ipc = serveIpc(process, { servers: [hosted], env, read: (r) => metrics.read(r), onDisconnect: stop, info: { handlers: Object.keys(handlers) } })
  } catch (err) {
    await sendError(process, err)
    process.exitCode = 1
    if (process.connected) process.disconnect()
    // The user's module may have left timers or sockets open: they must not keep this child alive.
    process.kill(process.pid, 'SIGTERM')
    return
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  let stopping = false
  async function stop () {
    if (stopping) return
    stopping = true
    ipc.stop()
    await hosted.close()
    metrics.close()
    if (process.connected) process.disconnect()
    // Same reason: whatever the user's module started, the server is done; end with the default SIGTERM action.
    process.removeAllListeners('SIGTERM')
    process.kill(process.pid, 'SIGTERM')
  }
}

/**
 * Import a workload module and return its handler functions (named exports, or the properties of a
 * default-exported object). Called in the workload server child only.
 * @param {string} abs
 * @param {string} what
 * @returns {Promise<Record<string, Function>>}
 */
async function importWorkload (abs, what) {
  let mod
  try {
    mod = await import(pathToFileURL(abs).href)
  } catch (err) {
    throw new SyncbenchError('SB_ERR_EXPERIMENT', `${what} threw while loading: ${firstLine(err)}`, { cause: err })
  }
  const source = mod.default && typeof mod.default === 'object' ? { ...mod.default, ...mod } : mod
  const handlers = {}
  for (const [name, value] of Object.entries(source)) {
    if (name !== 'default' && typeof value === 'function') handlers[name] = value
  }
  if (Object.keys(handlers).length === 0) {
    throw new SyncbenchError('SB_ERR_EXPERIMENT', `${what} exports no handler functions (export e.g. sync(req) and async(req))`)
  }
  return handlers
}

function route (handlers) {
  return async (req, res) => {
    let name
    try {
      name = decodeURIComponent(new URL(req.url, 'http://localhost').pathname.slice(1))
    } catch {
      // A malformed escape (/%E0%A4%A) names no handler; answered here so it never becomes an unhandled rejection.
      send(res, 400, `bad request path ${JSON.stringify(req.url)}\n`)
      return
    }
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : null
    if (!handler) {
      send(res, 404, `no handler "${name}" (handlers: ${Object.keys(handlers).join(', ')})\n`)
      return
    }
    let body
    try {
      body = await handler(req)
    } catch (err) {
      send(res, 500, `${name} threw: ${err && err.message ? err.message : err}\n`)
      return
    }
    send(res, 200, body)
  }
}

function send (res, status, body) {
  const isText = typeof body === 'string' || Buffer.isBuffer(body)
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(isText ? body : JSON.stringify(body))
  // Content-Length keeps HTTP/1.0 keep-alive (-k) working, as Express's res.send does.
  res.writeHead(status, { 'Content-Type': isText ? 'text/plain' : 'application/json', 'Content-Length': bytes.length })
  res.end(bytes)
}

if (process.argv[1] === selfPath && typeof process.send === 'function') await child(process.argv[2], process.argv[3])
