// The parent side: fork `bin/syncbench.js serve <app> ...` with an IPC channel and hand the runner a
// ServerHandle (lib/types.js) once the child says it is ready.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { SyncbenchError } from '../errors.js'
import { READY, METRICS, ERROR } from './ipc.js'

const binPath = fileURLToPath(new URL('../../bin/syncbench.js', import.meta.url))
const STDERR_KEEP = 8192

/**
 * @param {object} options
 * @param {string} options.app                  seed-bcrypt, seed-readfile or lab
 * @param {string[]} [options.args=[]]          more `syncbench serve` options (--port 0 is added unless given)
 * @param {NodeJS.ProcessEnv} [options.env]     merged over process.env (UV_THREADPOOL_SIZE, ...)
 * @param {string} [options.cwd]
 * @param {number} [options.startTimeoutMs=20000]   the child must be ready within this
 * @param {number} [options.stopGraceMs=5000]       SIGTERM, then SIGKILL after this
 * @param {number} [options.metricsTimeoutMs=60000] a metrics request fails after this (a server blocked longer is broken)
 * @returns {Promise<import('../types.js').ServerHandle>}
 */
export async function spawnServer ({ app, args = [], env, cwd, startTimeoutMs = 20_000, stopGraceMs = 5000, metricsTimeoutMs = 60_000 }) {
  const argv = ['serve', app, ...args]
  if (!args.some((a) => a === '--port' || a.startsWith('--port='))) argv.push('--port', '0')
  const child = fork(binPath, argv, {
    cwd,
    env: { ...process.env, ...env },
    // The parent's flags (--test, --inspect, loaders) must not leak into the server under test.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc']
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-STDERR_KEEP) })
  const exited = once(child, 'exit')

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
    else entry.reject(new SyncbenchError(message.code || 'SB_ERR_SERVER_METRICS', `${app}: ${message.message}`))
  })
  exited.then(([code, signal]) => {
    for (const entry of waiting.values()) entry.reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `${app} (pid ${child.pid}) exited (${signal || `code ${code}`}) before answering: ${lastLine(stderr) || 'no stderr'}`))
    waiting.clear()
  })

  let stopping
  return {
    pid: child.pid,
    servers: ready.servers,
    env: ready.env,
    metrics ({ reset = false, server } = {}) {
      if (!child.connected) return Promise.reject(new SyncbenchError('SB_ERR_SERVER_EXITED', `${app} (pid ${child.pid}) is not running: ${lastLine(stderr) || 'no stderr'}`))
      const id = nextId++
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new SyncbenchError('SB_ERR_SERVER_METRICS', `${app} (pid ${child.pid}) did not answer a metrics request within ${metricsTimeoutMs} ms`))
        }, metricsTimeoutMs)
        const done = (fn) => (value) => { clearTimeout(timer); fn(value) }
        waiting.set(id, { resolve: done(resolve), reject: done(reject) })
        const message = { type: METRICS, id, reset }
        if (server !== undefined) message.server = server
        child.send(message)
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
    const fail = (message) => { cleanup(); reject(new SyncbenchError('SB_ERR_SERVER_START', message)) }
    const onMessage = (message) => {
      if (message?.type === READY) { cleanup(); resolve(message) }
      if (message?.type === ERROR) fail(`${message.message}`)
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

function lastLine (text) {
  const lines = text.trim().split('\n')
  return lines[lines.length - 1].replace(/^syncbench: /, '')
}
