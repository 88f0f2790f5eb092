// The server for `syncbench run --workload ./handlers.js`: each exported handler `name(req)` is
// served at GET /<name>; what it returns (or resolves to) is the body. It is a forked child speaking
// the same IPC protocol as `syncbench serve` (lib/lab/ipc.js), hosted and measured by lib/lab's own
// http-host.js and metrics.js, so the runner treats it like any other server.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { SyncbenchError } from '../errors.js'
import { READY, METRICS, ERROR } from '../lab/ipc.js'

const selfPath = fileURLToPath(import.meta.url)

/**
 * Fork the workload server and resolve once it listens.
 * @param {{ workload: string, env?: Record<string, string>, startTimeoutMs?: number }} options
 * @returns {Promise<import('../types.js').ServerHandle>}
 */
export async function spawnWorkloadServer ({ workload, env, startTimeoutMs = 20_000 }) {
  const child = fork(selfPath, [workload], { env: { ...process.env, ...env }, execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-4096) })
  const exited = once(child, 'exit')
  const failed = (message) => new SyncbenchError('SB_ERR_SERVER_START', `--workload server: ${message}`)
  let ready
  try {
    ready = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(failed(`not ready within ${startTimeoutMs} ms`)), startTimeoutMs)
      child.on('message', (m) => {
        if (m?.type === READY) { clearTimeout(timer); resolve(m) }
        if (m?.type === ERROR && m.id === undefined) { clearTimeout(timer); reject(failed(m.message)) }
      })
      exited.then(([code, signal]) => { clearTimeout(timer); reject(failed(`exited (${signal || `code ${code}`}) before it was ready: ${stderr.trim().split('\n').pop() || 'no stderr'}`)) })
    })
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    throw err
  }
  let nextId = 1
  const waiting = new Map()
  child.on('message', (m) => {
    const entry = m && waiting.get(m.id)
    if (!entry) return
    waiting.delete(m.id)
    if (m.type === METRICS) entry.resolve(m.metrics)
    else entry.reject(new SyncbenchError('SB_ERR_SERVER_METRICS', m.message))
  })
  exited.then(() => {
    for (const entry of waiting.values()) entry.reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `--workload server exited: ${stderr.trim().split('\n').pop() || 'no stderr'}`))
  })
  let stopping
  return {
    pid: child.pid,
    servers: ready.servers,
    env: ready.env,
    metrics ({ reset = false } = {}) {
      const id = nextId++
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        child.send({ type: METRICS, id, reset })
      })
    },
    stop () {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    }
  }
}

/** The child: serve the handlers on 127.0.0.1:0 until SIGTERM or the parent goes away. */
async function child (workload) {
  const { importWorkload } = await import('./experiment-loader.js')
  const { hostServer } = await import('../lab/http-host.js')
  const { createServerMetrics, collectEnvironment } = await import('../lab/metrics.js')
  const { serveIpc, sendError } = await import('../lab/ipc.js')
  let hosted, metrics, ipc
  try {
    const handlers = await importWorkload(workload, '--workload')
    metrics = createServerMetrics()
    const env = collectEnvironment()
    hosted = await hostServer({ name: 'workload', handler: route(handlers), metrics, env, port: 0, host: '127.0.0.1' })
    ipc = serveIpc(process, { servers: [hosted], env, read: (r) => metrics.read(r), onDisconnect: stop })
  } catch (err) {
    await sendError(process, err)
    process.exitCode = 1
    if (process.connected) process.disconnect()
    return
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  async function stop () {
    ipc.stop()
    await hosted.close()
    metrics.close()
    if (process.connected) process.disconnect()
  }
}

function route (handlers) {
  return async (req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://localhost').pathname.slice(1))
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : null
    let status = 200
    let body
    if (!handler) {
      status = 404
      body = `no handler "${name}" (handlers: ${Object.keys(handlers).join(', ')})\n`
    } else {
      try {
        body = await handler(req)
      } catch (err) {
        status = 500
        body = `${name} threw: ${err && err.message ? err.message : err}\n`
      }
    }
    const isText = typeof body === 'string' || Buffer.isBuffer(body)
    const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(isText ? body : JSON.stringify(body))
    // Content-Length keeps HTTP/1.0 keep-alive (-k) working, as Express's res.send does.
    res.writeHead(status, { 'Content-Type': isText ? 'text/plain' : 'application/json', 'Content-Length': bytes.length })
    res.end(bytes)
  }
}

if (process.argv[1] === selfPath && typeof process.send === 'function') await child(process.argv[2])
