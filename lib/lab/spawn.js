// The parent side of a server under test: fork lib/lab/server-child.js (the one module syncbench ever
// forks as a server) with an IPC channel and hand the caller a ServerHandle (lib/types.js) once the
// child says it is ready. The protocol is documented in lib/lab/ipc.js.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { ServerExitedError, ServerMetricsError, errorCodes, errorFromCode } from '../errors.js'
import { READY, HANDLERS, METRICS, PROFILE, LIVE, ERROR } from './ipc.js'

const childPath = fileURLToPath(new URL('./server-child.js', import.meta.url))
const STDERR_KEEP = 8192
/** How long a metrics request waits once its `signal` aborted (a Ctrl-C): the metrics are then missing. */
export const METRICS_AFTER_ABORT_MS = 2000
/** How many of the child's last stderr lines an error carries. */
const STDERR_LINES = 20

/**
 * @typedef {object} ForkOptions
 * @property {string} name                      how messages name the server ("lab", "--workload server")
 * @property {NodeJS.ProcessEnv} [env]          merged over process.env (UV_THREADPOOL_SIZE, ...)
 * @property {string} [cwd]
 * @property {string} [execPath]                the Node.js binary the child runs under (syncbench run --node); default this one's
 * @property {number} [startTimeoutMs=20000]    the child must be ready within this
 * @property {number} [stopGraceMs=5000]        SIGTERM, then SIGKILL after this
 * @property {number} [metricsTimeoutMs=60000]  a metrics request fails after this (a server blocked longer is broken)
 * @property {(child: import('node:child_process').ChildProcess) => void} [onChild]  called with the forked
 *   process (the runner keeps a list, to end a server stuck in a loop on a second Ctrl-C)
 */

/**
 * @typedef {Omit<ForkOptions, 'name'>} SpawnOptions
 */

/**
 * @typedef {import('../types.js').ServerHandle & {
 *   ready: import('./ipc.js').ReadyMessage,
 *   profile: (request: { action: 'start'|'stop', file?: string, signal?: AbortSignal }) => Promise<import('./ipc.js').ProfileInfo|null>,
 *   live: (request?: { server?: string, signal?: AbortSignal }) => Promise<import('../types.js').ServerSecond|null>,
 *   exited: Promise<void>
 * }} ChildHandle
 *   `ready` is the child's whole ready message (extra fields included); `profile` the server's CPU
 *   profile (lib/lab/ipc.js; null where nothing profiles it); `live` the server's figures since the
 *   previous live read, its metrics window untouched (null where nothing measures it); `exited` resolves
 *   once the child is gone
 */

/**
 * Start one of syncbench's apps in a fresh server child.
 * @param {{ app: string, args?: string[] } & SpawnOptions} options
 *   app: seed-bcrypt, seed-readfile or lab; args: more `syncbench serve` options (--port 0 is added unless given)
 * @returns {Promise<ChildHandle>}
 */
export function spawnServer ({ app, args = [], ...rest }) {
  const argv = [...args]
  if (!args.some((a) => a === '--port' || a.startsWith('--port='))) argv.push('--port', '0')
  return startChild({ app, args: argv }, { name: app, ...rest })
}

/**
 * Serve a user's workload module (its exported handlers at GET /<name>) in a fresh server child.
 * Throws ExperimentError when the module cannot be loaded or exports no handler, ServerStartError
 * for other start failures.
 * @param {{ workload: string, label?: string, http2?: boolean } & SpawnOptions} options
 *   workload: absolute path; label: the module as the user named it, for messages; http2: served over h2c
 * @returns {Promise<ChildHandle & { handlers: string[] }>}
 */
export async function spawnWorkloadServer ({ workload, label = workload, http2, ...rest }) {
  const handle = await startChild({ workload, label, ...http2 && { http2 } }, { name: '--workload server', ...rest })
  // A workload child's ready message always names its handlers (lib/lab/server-child.js).
  return { ...handle, handlers: /** @type {string[]} */ (handle.ready.handlers) }
}

/**
 * Start a user's own server command in a fresh server child (lib/lab/app-host.js): the child runs the
 * command with lib/lab/instrument.js preloaded, waits until it listens (or, with `port`, until that port
 * accepts connections) and relays the protocol. Throws ServerStartError naming how the app failed and
 * its last stderr lines. `profile()` starts and stops a CPU profile of the app's main thread.
 * @param {import('./ipc.js').AppSpec & SpawnOptions} options
 * @returns {Promise<ChildHandle>}
 */
export function spawnAppServer ({ command, name, cwd, log, port, startTimeoutMs = 20_000, ...rest }) {
  /** @type {import('./ipc.js').AppSpec} */
  const spec = { command, name, log, startTimeoutMs }
  if (cwd !== undefined) spec.cwd = cwd
  if (port !== undefined) spec.port = port
  // The child's own bound is the app's; this one only catches a child that never answers at all.
  return startChild(spec, { name: `app "${name}"`, ...rest, startTimeoutMs: startTimeoutMs + 10_000 })
}

/**
 * A workload module's handler names, as a server child finds them: the child imports the module,
 * answers, and exits without starting a server, so the caller's process never runs the module's
 * top-level code (timers, CPU, open sockets). Resolves once the child is gone.
 * @param {{ workload: string, label?: string } & SpawnOptions} options
 * @returns {Promise<string[]>}
 */
export async function queryWorkloadHandlers ({ workload, label = workload, ...rest }) {
  const child = forkChild({ workload, label, query: 'handlers' }, { name: '--workload server', ...rest })
  try {
    const message = /** @type {import('./ipc.js').HandlersMessage} */ (await child.wait(HANDLERS))
    return message.handlers
  } finally {
    await child.stop()
  }
}

/**
 * @param {import('./ipc.js').ChildSpec} spec
 * @param {ForkOptions} options
 * @returns {Promise<ChildHandle>}
 */
async function startChild (spec, options) {
  const { name, metricsTimeoutMs = 60_000 } = options
  const forked = forkChild(spec, options)
  const { child, exited, last, lines } = forked
  const ready = /** @type {import('./ipc.js').ReadyMessage} */ (await forked.wait(READY).catch(async (err) => {
    await forked.stop(0)
    throw err
  }))

  let nextId = 1
  /** @type {Map<number, { resolve: (answer: any) => void, reject: (err: Error) => void }>} */
  const waiting = new Map()
  // `any`: a message from another process, checked field by field here.
  child.on('message', (/** @type {any} */ message) => {
    const entry = message && waiting.get(message.id)
    if (!entry) return
    waiting.delete(message.id)
    if (message.type === METRICS) entry.resolve(message.metrics)
    else if (message.type === PROFILE) entry.resolve(message.profile ?? null)
    else if (message.type === LIVE) entry.resolve(message.live ?? null)
    else entry.reject(errorFromCode(message.code, `${name}: ${message.message}`, errorCodes.SERVER_METRICS))
  })
  exited.then(([code, signal]) => {
    for (const entry of waiting.values()) entry.reject(new ServerExitedError(`${name} (pid ${child.pid}) exited (${signal || `code ${code}`}) before answering: ${last()}`, { stderr: lines() }))
    waiting.clear()
  })

  return {
    pid: /** @type {number} */ (child.pid),
    address: ready.address,
    servers: ready.servers,
    env: ready.env,
    ready,
    metrics ({ reset = false, server, signal } = {}) {
      /** @type {{ type: string, reset: boolean, server?: string }} */
      const message = { type: METRICS, reset }
      if (server !== undefined) message.server = server
      return request(message, signal)
    },
    profile ({ action, file, signal }) {
      return request(file === undefined ? { type: PROFILE, action } : { type: PROFILE, action, file }, signal)
    },
    live ({ server, signal } = {}) {
      return request(server === undefined ? { type: LIVE } : { type: LIVE, server }, signal)
    },
    exited: exited.then(() => undefined),
    stop: (graceMs) => forked.stop(graceMs)
  }

  /**
   * One request to the child, answered by id.
   * @param {{ type: string, [field: string]: unknown }} fields
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>}
   */
  function request (fields, signal) {
    if (!child.connected) return Promise.reject(new ServerExitedError(`${name} (pid ${child.pid}) is not running: ${last()}`, { stderr: lines() }))
    const id = nextId++
    return new Promise((resolve, reject) => {
      /** @param {string} message */
      const fail = (message) => {
        waiting.delete(id)
        reject(new ServerMetricsError(`${name} (pid ${child.pid}) did not answer a metrics request ${message}`))
      }
      let timer = setTimeout(() => fail(`within ${metricsTimeoutMs} ms`), metricsTimeoutMs)
      // After an interrupt nobody waits long for a server whose handler may block its loop.
      const onAbort = () => {
        clearTimeout(timer)
        timer = setTimeout(() => fail(`within ${METRICS_AFTER_ABORT_MS} ms of the interrupt`), METRICS_AFTER_ABORT_MS)
      }
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
      /** @type {<T>(fn: (value: T) => void) => (value: T) => void} */
      const done = (fn) => (value) => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); fn(value) }
      waiting.set(id, { resolve: done(resolve), reject: done(reject) })
      child.send({ ...fields, id }, (err) => {
        if (!err || !waiting.has(id)) return
        waiting.get(id)?.reject(new ServerExitedError(`${name} (pid ${child.pid}) is not running: ${err.message}`, { stderr: lines() }))
        waiting.delete(id)
      })
    })
  }
}

/**
 * Fork the server child and keep what the parent needs of it: its last stderr, its exit, a way to
 * wait for one start message, and an idempotent stop.
 * @param {import('./ipc.js').ChildSpec} spec
 * @param {ForkOptions} options
 */
function forkChild (spec, { env, cwd, execPath, startTimeoutMs = 20_000, stopGraceMs = 5000, onChild }) {
  const child = fork(childPath, [JSON.stringify(spec), String(process.pid)], {
    cwd,
    ...execPath !== undefined && { execPath },
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
  child.stderr?.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-STDERR_KEEP) })
  const exited = /** @type {Promise<[number|null, NodeJS.Signals|null]>} */ (once(child, 'exit'))
  // A send on a channel that closed in between emits 'error' on the ChildProcess: without a
  // listener that would crash the parent. The metrics promise reports it instead (exit or timeout).
  /** @type {Error|null} */
  let sendFailure = null
  child.on('error', (err) => { sendFailure = err })
  const last = () => lastLine(stderr) || (sendFailure ? sendFailure.message : 'no stderr')
  const lines = () => lastLines(stderr)
  /** @type {Promise<void>|undefined} */
  let stopping
  return {
    child,
    exited,
    last,
    lines,
    /**
     * Resolve with the child's first message of `type`; reject with the child's error message, or
     * when it exits or is not ready within startTimeoutMs (naming its last stderr line).
     * @param {string} type
     * @returns {Promise<Record<string, any>>} as the child sent it (another process's JSON): the caller knows its type
     */
    wait: (type) => waitFor(child, exited, type, startTimeoutMs, () => stderr),
    /**
     * SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent.
     * @param {number} [graceMs]
     * @returns {Promise<void>}
     */
    stop (graceMs = stopGraceMs) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL')
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    }
  }
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {Promise<[number|null, NodeJS.Signals|null]>} exited
 * @param {string} type
 * @param {number} timeoutMs
 * @param {() => string} stderr
 * @returns {Promise<Record<string, any>>}
 */
function waitFor (child, exited, type, timeoutMs, stderr) {
  return new Promise((resolve, reject) => {
    /** @type {boolean|'reporting'} */
    let settled = false
    let closed = false
    child.once('close', () => { closed = true })
    // The child names what went wrong (its own code, e.g. errorCodes.EXPERIMENT for a bad workload).
    /** @type {(message: string, code?: string, lines?: string[]) => void} */
    const fail = (message, code = errorCodes.SERVER_START, lines = lastLines(stderr())) => {
      cleanup()
      if (settled !== true) reject(errorFromCode(code, message, errorCodes.SERVER_START, { stderr: lines }))
      settled = true
    }
    /** @param {any} message from another process, checked field by field */
    const onMessage = (message) => {
      if (message?.type === type) {
        cleanup()
        settled = true
        resolve(message)
      }
      if (message?.type === ERROR && message.id === undefined) {
        settled = 'reporting'
        cleanup()
        // The child exits right after its error: its last stderr lines are worth the wait for 'close'.
        afterClose(() => fail(`${message.message}`, message.code === errorCodes.EXPERIMENT ? message.code : undefined, message.stderr ?? lastLines(stderr())))
      }
    }
    /** @param {NodeJS.ErrnoException} err */
    const onError = (err) => fail(`cannot start the server (${err.code || err.message})`)
    const timer = setTimeout(() => fail(`the server was not ready within ${timeoutMs} ms: ${lastLine(stderr()) || 'no stderr'}`), timeoutMs)
    exited.then(([code, signal]) => {
      // Settled, or the child's own error is being reported.
      if (settled) return
      // The last stderr chunk may arrive after 'exit': wait for 'close' before naming it.
      afterClose(() => fail(`the server exited (${signal || `code ${code}`}) before it was ready: ${lastLine(stderr()) || 'no stderr'}`))
    })
    /**
     * Run `fn` once the child's stdio has closed, or after a second at most (a child may linger).
     * @param {() => void} fn
     */
    function afterClose (fn) {
      if (closed) return fn()
      const run = () => { clearTimeout(late); child.off('close', run); fn() }
      const late = setTimeout(run, 1000).unref()
      child.once('close', run)
    }
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

/**
 * The last lines of a child's stderr (at most STDERR_LINES, oldest first), for an error to carry.
 * @param {string} text
 * @returns {string[]}
 */
export function lastLines (text) {
  const trimmed = text.trimEnd()
  return trimmed === '' ? [] : trimmed.split('\n').slice(-STDERR_LINES)
}
