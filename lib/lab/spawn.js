// The parent side of a forked server: fork a module with an IPC channel and hand the runner a
// ServerHandle (lib/types.js) once the child says it is ready. spawnServer forks
// `bin/syncbench.js serve <app> ...`; lib/run/workload-server.js forks itself through forkServer.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { SyncbenchError } from '../errors.js'
import { READY, METRICS, ERROR } from './ipc.js'

const binPath = fileURLToPath(new URL('../../bin/syncbench.js', import.meta.url))
const STDERR_KEEP = 8192

/**
 * @typedef {object} ForkOptions
 * @property {string} name                      how messages name the server ("lab", "--workload server")
 * @property {NodeJS.ProcessEnv} [env]          merged over process.env (UV_THREADPOOL_SIZE, ...)
 * @property {string} [cwd]
 * @property {number} [startTimeoutMs=20000]    the child must be ready within this
 * @property {number} [stopGraceMs=5000]        SIGTERM, then SIGKILL after this
 * @property {number} [metricsTimeoutMs=60000]  a metrics request fails after this (a server blocked longer is broken)
 * @property {(child: import('node:child_process').ChildProcess) => void} [onChild]  called with the forked
 *   process (the runner keeps a list, to end a server stuck in a loop on a second Ctrl-C)
 */

/**
 * @param {object} options
 * @param {string} options.app                  seed-bcrypt, seed-readfile or lab
 * @param {string[]} [options.args=[]]          more `syncbench serve` options (--port 0 is added unless given)
 * @param {NodeJS.ProcessEnv} [options.env]
 * @param {string} [options.cwd]
 * @param {number} [options.startTimeoutMs]
 * @param {number} [options.stopGraceMs]
 * @param {number} [options.metricsTimeoutMs]
 * @param {ForkOptions['onChild']} [options.onChild]
 * @returns {Promise<import('../types.js').ServerHandle>}
 */
export function spawnServer ({ app, args = [], ...rest }) {
  const argv = ['serve', app, ...args]
  if (!args.some((a) => a === '--port' || a.startsWith('--port='))) argv.push('--port', '0')
  return forkServer(binPath, argv, { name: app, ...rest })
}

/**
 * Fork `modulePath` (a child speaking lib/lab/ipc.js) and resolve to its ServerHandle once ready.
 * The handle also carries `ready`, the child's whole ready message (extra fields included).
 * @param {string} modulePath
 * @param {string[]} argv
 * @param {ForkOptions} options
 * @returns {Promise<import('../types.js').ServerHandle & { ready: object }>}
 */
export async function forkServer (modulePath, argv, { name, env, cwd, startTimeoutMs = 20_000, stopGraceMs = 5000, metricsTimeoutMs = 60_000, onChild }) {
  const child = fork(modulePath, argv, {
    cwd,
    env: { ...process.env, ...env },
    // The parent's flags (--test, --inspect, loaders) must not leak into the server under test.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Its own process group: a terminal's Ctrl-C reaches only the runner, which ends the run and
    // then stops the server; the server still stops by itself when the IPC channel goes away.
    detached: true
  })
  onChild?.(child)
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-STDERR_KEEP) })
  const exited = once(child, 'exit')
  // A send on a channel that closed in between emits 'error' on the ChildProcess: without a
  // listener that would crash the runner. The metrics promise reports it instead (exit or timeout).
  let sendError = null
  child.on('error', (err) => { sendError = err })
  const last = () => lastLine(stderr) || (sendError ? sendError.message : 'no stderr')

  let ready
  try {
    ready = await waitReady(child, exited, startTimeoutMs, () => stderr)
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
    throw err
  }

  let nextId = 1
  const waiting = new Map()
  child.on('message', (message) => {
    const entry = message && waiting.get(message.id)
    if (!entry) return
    waiting.delete(message.id)
    if (message.type === METRICS) entry.resolve(message.metrics)
    else entry.reject(new SyncbenchError(message.code || 'SB_ERR_SERVER_METRICS', `${name}: ${message.message}`))
  })
  exited.then(([code, signal]) => {
    for (const entry of waiting.values()) entry.reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `${name} (pid ${child.pid}) exited (${signal || `code ${code}`}) before answering: ${last()}`))
    waiting.clear()
  })

  let stopping
  return {
    pid: child.pid,
    servers: ready.servers,
    env: ready.env,
    ready,
    metrics ({ reset = false, server } = {}) {
      if (!child.connected) return Promise.reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `${name} (pid ${child.pid}) is not running: ${last()}`))
      const id = nextId++
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new SyncbenchError('SB_ERR_SERVER_METRICS', `${name} (pid ${child.pid}) did not answer a metrics request within ${metricsTimeoutMs} ms`))
        }, metricsTimeoutMs)
        const done = (fn) => (value) => { clearTimeout(timer); fn(value) }
        waiting.set(id, { resolve: done(resolve), reject: done(reject) })
        const message = { type: METRICS, id, reset }
        if (server !== undefined) message.server = server
        child.send(message, (err) => {
          if (!err || !waiting.has(id)) return
          waiting.get(id).reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `${name} (pid ${child.pid}) is not running: ${err.message}`))
          waiting.delete(id)
        })
      })
    },
    stop () {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    }
  }
}

function waitReady (child, exited, timeoutMs, stderr) {
  return new Promise((resolve, reject) => {
    // The child names what went wrong (its own code, e.g. SB_ERR_EXPERIMENT for a bad workload).
    const fail = (message, code = 'SB_ERR_SERVER_START') => { cleanup(); reject(new SyncbenchError(code, message)) }
    const onMessage = (message) => {
      if (message?.type === READY) { cleanup(); resolve(message) }
      if (message?.type === ERROR && message.id === undefined) fail(`${message.message}`, message.code === 'SB_ERR_EXPERIMENT' ? message.code : undefined)
    }
    const onError = (err) => fail(`cannot start the server (${err.code || err.message})`)
    const timer = setTimeout(() => fail(`the server was not ready within ${timeoutMs} ms: ${lastLine(stderr()) || 'no stderr'}`), timeoutMs)
    exited.then(([code, signal]) => {
      // The last stderr chunk may arrive after 'exit': wait for 'close' (bounded) before naming it.
      const late = setTimeout(report, 1000).unref()
      child.once('close', report)
      function report () {
        clearTimeout(late)
        fail(`the server exited (${signal || `code ${code}`}) before it was ready: ${lastLine(stderr()) || 'no stderr'}`)
      }
    })
    function cleanup () {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('error', onError)
    }
    child.on('message', onMessage)
    child.on('error', onError)
  })
}

/**
 * The last line of a child's stderr, without the CLI's "syncbench serve: " prefix.
 * @param {string} text
 */
export function lastLine (text) {
  const lines = text.trim().split('\n')
  return lines[lines.length - 1].replace(/^syncbench(?: [a-z]+)?: /, '')
}
