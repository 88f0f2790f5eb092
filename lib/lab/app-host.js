// A user's own server, started by a command (`syncbench run --app "node server.js"`), hosted by the
// server child (lib/lab/server-child.js) as its other apps are: the child speaks the protocol of
// lib/lab/ipc.js to the runner and relays it to lib/lab/instrument.js, which runs inside the user's
// process (NODE_OPTIONS=--import) and answers over a control socket. The command runs in its own
// process group, its stdout and stderr appended to the app's log; it is ended with its whole group.
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { ServerStartError, ServerMetricsError, ServerExitedError, errorFromCode, errorCodes } from '../errors.js'
import { READY, METRICS, PROFILE, LIVE, ROUTES, ERROR, socketChannel } from './ipc.js'
import { parseCommand } from './command.js'
import { collectEnvironment } from './metrics.js'

const instrumentPath = fileURLToPath(new URL('./instrument.js', import.meta.url))
/** How many of the app's last stderr lines a message quotes (on one line, joined by " | "). */
const QUOTED_LINES = 3
const STDERR_KEEP = 8192
/** How often --port is tried while the app starts. */
const PORT_POLL_MS = 100
/** SIGTERM to the app's group, then SIGKILL after this. */
const STOP_GRACE_MS = 3000
/** A relayed request the app does not answer in this long fails (a handler blocking longer is broken). */
const REQUEST_TIMEOUT_MS = 60_000

/**
 * @typedef {import('./serve-app.js').ServedApp & {
 *   profile: (request: { action: string, file?: string }) => Promise<import('./ipc.js').ProfileInfo|null>,
 *   routes: () => Promise<import('./ipc.js').FoundRoutes|null>,
 *   exited: Promise<(when: string) => string>,
 *   info: Record<string, unknown>
 * }} HostedApp  exited: resolves once the app has ended, with the one line saying how (it never rejects):
 *   `when` ("before it listened", "while it was measured") follows its exit status. routes: the app's
 *   routes, read in its process (null: no instrumented process, an app found by --port)
 */

/**
 * Start the command and wait until it listens.
 * @param {import('./ipc.js').AppSpec} spec
 * @param {{ watchdog?: { killGroupToo: (pgid: number) => void } }} [options]
 * @returns {Promise<HostedApp>}
 */
export async function hostApp (spec, { watchdog } = {}) {
  const { file, args, shell } = parseCommand(spec.command)
  const name = spec.name
  const controlDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-app-'))
  const controlPath = process.platform === 'win32'
    ? `\\\\.\\pipe\\syncbench-${process.pid}-${path.basename(controlDir)}`
    : path.join(controlDir, 'control.sock')
  /** @type {ReturnType<typeof socketChannel>|null} */
  let channel = null
  /** @type {(channel: ReturnType<typeof socketChannel>, ready: any) => void} */
  let onReady = () => {}
  const readyMessage = /** @type {Promise<{ channel: ReturnType<typeof socketChannel>, ready: any }>} */ (new Promise((resolve) => { onReady = (c, ready) => resolve({ channel: c, ready }) }))
  const control = net.createServer((socket) => {
    const c = socketChannel(socket)
    /** @param {any} message */
    const first = (message) => {
      if (message?.type !== READY) return
      c.off('message', first)
      // The first instrumented process that listens is the app; another one (a cluster worker) is not measured.
      if (channel) return socket.destroy()
      channel = c
      onReady(c, message)
    }
    c.on('message', first)
  })
  control.listen(controlPath)
  await once(control, 'listening')

  const log = createWriteStream(spec.log, { flags: 'a' })
  await once(log, 'open')
  log.write(`# syncbench: ${new Date().toISOString()} starting ${spec.command}\n`)
  const preload = `--import ${JSON.stringify(instrumentPath)}`
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: {
      ...process.env,
      ...spec.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
      SYNCBENCH_CONTROL: controlPath,
      SYNCBENCH_PARENT_PID: String(process.pid),
      // The convention of most apps (Express's generator, Heroku): PORT=0 picks a free port, so two
      // runs never race for one. --port gives the port instead.
      PORT: String(spec.port ?? 0)
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    shell,
    detached: true
  })
  let stderr = ''
  child.stdout?.pipe(log, { end: false })
  child.stderr?.on('data', (d) => {
    log.write(d)
    stderr = (stderr + d.toString('utf8')).slice(-STDERR_KEEP)
  })
  const spawnError = /** @type {Promise<NodeJS.ErrnoException>} */ (once(child, 'error').then(([err]) => err))
  // Not events.once: it would reject on the 'error' of a command that cannot start, which spawnError reports.
  /** @type {Promise<[number|null, NodeJS.Signals|null]>} */
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve([code, signal])))
  if (child.pid) watchdog?.killGroupToo(child.pid)
  const lastLines = () => quote(stderr)
  /** @type {Promise<(when: string) => string>} */
  const exited = Promise.race([
    closed.then(([code, signal]) => (/** @type {string} */ when) => `app "${name}" exited (${signal || `code ${code}`}) ${when}${lastLines()}`),
    spawnError.then((err) => () => `app "${name}" could not run ${JSON.stringify(file)}: ${err.code === 'ENOENT' ? 'no such command (ENOENT)' : err.code ?? err.message}`)
  ])
  const cleanup = async () => {
    control.close()
    await rm(controlDir, { recursive: true, force: true })
  }
  const stopGroup = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      killGroup(child.pid, 'SIGTERM')
      const timer = setTimeout(() => killGroup(/** @type {number} */ (child.pid), 'SIGKILL'), STOP_GRACE_MS)
      await Promise.race([closed, spawnError])
      clearTimeout(timer)
    }
    // Whatever the app's processes left behind in its group (a grandchild that ignored SIGTERM).
    if (child.pid) killGroup(child.pid, 'SIGKILL')
    log.end()
    await cleanup()
  }

  const timeoutMs = spec.startTimeoutMs ?? 20_000
  /** @type {NodeJS.Timeout|undefined} */
  let timer
  const timedOut = new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs) })
  const found = spec.port === undefined ? readyMessage : portOpen(spec.port, child)
  const outcome = await Promise.race([
    found.then((value) => ({ value })),
    exited.then((line) => ({ failed: line('before it listened') })),
    timedOut.then(() => ({ failed: `app "${name}" did not ${spec.port === undefined ? 'listen with an HTTP server' : `accept connections on port ${spec.port}`} within ${timeoutMs / 1000} s (--start-timeout)${lastLines()}` }))
  ])
  clearTimeout(timer)
  if ('failed' in outcome) {
    await stopGroup()
    throw new ServerStartError(String(outcome.failed), { stderr: stderr.trimEnd().split('\n').slice(-20) })
  }

  /** @type {any} the instrument's ready message, once it connects (with --port: whenever, if ever) */
  let ready = spec.port === undefined ? /** @type {any} */ (outcome.value).ready : null
  if (spec.port !== undefined) readyMessage.then((r) => { ready = r.ready }, () => {})
  const requests = createRequester(() => channel, name)
  const address = spec.port === undefined
    ? { host: ready.address.host, port: ready.address.port, url: ready.servers[0].url }
    : { host: '127.0.0.1', port: spec.port, url: `http://127.0.0.1:${spec.port}` }
  if (spec.port === undefined && ready.secure) {
    await stopGroup()
    throw new ServerStartError(`app "${name}" listens with HTTPS on port ${address.port}; syncbench loads http:// only (give --port for an HTTP port)`)
  }
  return {
    servers: [{ name, url: address.url, host: address.host, port: address.port, routes: [] }],
    env: ready?.env ?? collectEnvironment(),
    info: { app: name, appPid: child.pid },
    read: async (request) => {
      if (!channel) return /** @type {any} */ (null)
      const answer = await requests.send({ type: METRICS, reset: request.reset })
      return answer.metrics
    },
    // --port with no instrumented process: nothing measures the app, nothing to read live
    live: async () => {
      if (!channel) return null
      const answer = await requests.send({ type: LIVE })
      return answer.live ?? null
    },
    profile: async (request) => {
      if (!channel) return null
      const answer = await requests.send({ type: PROFILE, ...request })
      return answer.profile ?? null
    },
    routes: async () => {
      if (!channel) return null
      const answer = await requests.send({ type: ROUTES })
      return answer.routes ?? null
    },
    exited,
    close: stopGroup
  }
}

/**
 * Requests to the instrument, matched to its answers by id.
 * @param {() => ReturnType<typeof socketChannel>|null} current
 * @param {string} name
 */
function createRequester (current, name) {
  let nextId = 1
  /** @type {Map<number, { resolve: (message: any) => void, reject: (err: Error) => void }>} */
  const waiting = new Map()
  /** @type {ReturnType<typeof socketChannel>|null} */
  let listening = null
  return {
    /**
     * @param {Record<string, unknown>} message
     * @returns {Promise<any>}
     */
    send (message) {
      const channel = current()
      if (!channel) return Promise.reject(new ServerMetricsError(`app "${name}" has no instrumented process`))
      if (listening !== channel) {
        listening = channel
        channel.on('message', (/** @type {any} */ answer) => {
          const entry = answer && waiting.get(answer.id)
          if (!entry) return
          waiting.delete(answer.id)
          if (answer.type === ERROR) entry.reject(errorFromCode(answer.code, `app "${name}": ${answer.message}`, errorCodes.SERVER_METRICS))
          else entry.resolve(answer)
        })
        channel.on('disconnect', () => {
          for (const entry of waiting.values()) entry.reject(new ServerExitedError(`app "${name}" closed its channel before answering`))
          waiting.clear()
        })
      }
      const id = nextId++
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new ServerMetricsError(`app "${name}" did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`))
        }, REQUEST_TIMEOUT_MS)
        /** @type {<T>(fn: (value: T) => void) => (value: T) => void} */
        const done = (fn) => (value) => { clearTimeout(timer); fn(value) }
        waiting.set(id, { resolve: done(resolve), reject: done(reject) })
        channel.send({ ...message, id })
      })
    }
  }
}

/**
 * Resolves once 127.0.0.1:port accepts a connection (tried every PORT_POLL_MS) or the app has exited.
 * @param {number} port
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<void>}
 */
async function portOpen (port, child) {
  while (child.exitCode === null && child.signalCode === null) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, PORT_POLL_MS))
  }
  // The exit is reported by the caller's race.
  return new Promise(() => {})
}

/**
 * @param {number} pgid
 * @param {NodeJS.Signals} signal
 */
function killGroup (pgid, signal) {
  try {
    process.kill(-pgid, signal)
  } catch {
    // The group is gone already.
  }
}

/**
 * The app's last stderr lines on one line, for a message: ': a | b | c', or '' without stderr.
 * @param {string} stderr
 */
function quote (stderr) {
  // A Node crash ends with its stack: the lines that say something are above the frames.
  const lines = stderr.trimEnd().split('\n').map((l) => l.trim())
    .filter((l) => l !== '' && !/^at |^Node\.js v\d|^\^+$|^file:\/\/\S+:\d+$|^\S+\.[cm]?js:\d+$/.test(l)).slice(-QUOTED_LINES)
  return lines.length ? `; its last stderr lines: ${lines.join(' | ')}` : '; no stderr'
}
