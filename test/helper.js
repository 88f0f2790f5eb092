// Shared test helpers: real servers on 127.0.0.1 port 0 and the real CLI in a child process.
import http from 'node:http'
import net from 'node:net'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { before, after } from 'node:test'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import path from 'node:path'

export const binPath = fileURLToPath(new URL('../bin/syncbench.js', import.meta.url))

/**
 * Start a node:http server on 127.0.0.1:0.
 * @param {http.RequestListener} handler
 * @returns {Promise<{ server: http.Server, port: number, url: string, close: () => Promise<void> }>}
 */
export async function startHttpServer (handler) {
  const server = http.createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

/**
 * Start a raw TCP server that answers with whatever `onConnection` writes: for responses node:http
 * would never produce (wrong Content-Length, HTTP/1.0 close-delimited, resets, silence).
 * @param {(socket: net.Socket) => void} onConnection
 */
export async function startRawServer (onConnection) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    onConnection(socket)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()) })
  }
}

/** A port on 127.0.0.1 that nothing listens on (bound, read, then released). */
export async function closedPort () {
  const server = net.createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Run the real CLI: `node bin/syncbench.js ...args`.
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, cwd?: string, input?: string }} [options]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string }>}
 */
export async function runCli (args, options = {}) {
  const child = spawn(process.execPath, [binPath, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  child.stdin.end(options.input ?? '')
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  const [code, signal] = await once(child, 'close')
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}

/**
 * Run an external command (ab, wrk) and collect its output.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ timeoutMs?: number }} [options]
 */
export async function runCommand (cmd, args, options = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  const [code, signal] = await once(child, 'close')
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}

/**
 * One HTTP request on its own connection (no agent, so no pooled socket outlives the test).
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, timeoutMs?: number }} [options]
 * @returns {Promise<{ status: number, headers: import('node:http').IncomingHttpHeaders, body: string }>}
 */
export function httpGet (url, options = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`no answer from ${url}`)))
    req.on('error', reject)
    req.end()
  })
}

// --- Misbehaving servers for the load engine's tests (raw TCP, so nothing is tidied up for us) ---

/**
 * Call `onRequest(head, index)` for every request head (up to its blank line) a raw socket receives;
 * `index` counts the requests of that connection from 0. Request bodies are not expected.
 * @param {net.Socket} socket
 * @param {(head: Buffer, index: number) => void} onRequest
 */
export function eachRequest (socket, onRequest) {
  let pending = Buffer.alloc(0)
  let index = 0
  socket.on('data', (data) => {
    pending = Buffer.concat([pending, data])
    let end
    while ((end = pending.indexOf('\r\n\r\n')) !== -1) {
      const head = pending.subarray(0, end + 4)
      pending = pending.subarray(end + 4)
      onRequest(head, index++)
    }
  })
}

/**
 * A raw server answering each request with `respond(head, index)`'s bytes (a Buffer or string), then
 * closing the connection when `close(index)` says so. Collects every request head in `requests`.
 * @param {(head: Buffer, index: number) => string|Buffer} respond
 * @param {{ close?: (index: number) => boolean }} [options]
 */
export async function startScriptedServer (respond, options = {}) {
  /** @type {Buffer[]} */
  const requests = []
  const raw = await startRawServer((socket) => {
    eachRequest(socket, (head, index) => {
      requests.push(head)
      const answer = respond(head, index)
      if (options.close?.(index)) socket.end(answer)
      else socket.write(answer)
    })
  })
  return { ...raw, requests }
}

/** HTTP/1.0 without Content-Length: the body ends when the server closes the connection. */
export function startHttp10CloseServer (body = 'close-delimited body') {
  return startScriptedServer(() => `HTTP/1.0 200 OK\r\nServer: raw10/1.0 (test)\r\n\r\n${body}`, { close: () => true })
}

/** Says "Content-Length: <claimed>" but sends `body` and closes: a short (or long) body. */
export function startWrongLengthServer (claimed = 100, body = 'short') {
  return startScriptedServer(() => `HTTP/1.1 200 OK\r\nContent-Length: ${claimed}\r\n\r\n${body}`, { close: () => true })
}

/** HTTP/1.1 chunked responses (node:http chooses chunked when there is no Content-Length). */
export function startChunkedServer (parts = ['hello ', 'chunked ', 'world']) {
  return startHttpServer((req, res) => {
    for (const p of parts.slice(0, -1)) res.write(p)
    res.end(parts.at(-1))
  })
}

/** Answers after `delayMs` (a timer, not a busy loop). */
export function startSlowServer (delayMs, body = 'slow') {
  return startHttpServer((req, res) => {
    setTimeout(() => {
      res.setHeader('Content-Length', Buffer.byteLength(body))
      res.end(body)
    }, delayMs)
  })
}

/**
 * A node:http server that blocks its event loop with a synchronous busy-wait of `stallMs` when its
 * `atRequest`-th request (counting from 1) arrives, exactly as a seed's sync handler does, then answers
 * it; every other request is answered at once. Run the load in another process (the CLI): the stall
 * blocks this one. `arrivals` holds each request's arrival (performance.now() ms), `connections` counts them.
 * @param {{ atRequest: number, stallMs: number }} options
 */
export async function startStallingServer ({ atRequest, stallMs }) {
  /** @type {number[]} */
  const arrivals = []
  const s = await startHttpServer((req, res) => {
    arrivals.push(performance.now())
    if (arrivals.length === atRequest) {
      const end = performance.now() + stallMs
      while (performance.now() < end);
    }
    res.setHeader('Content-Length', 2)
    res.end('ok')
  })
  const stats = { arrivals, connections: 0 }
  s.server.on('connection', () => { stats.connections++ })
  return Object.assign(s, { stats })
}

/** Resets (RST) the connection instead of answering every `every`-th request it reads (counting from 1). */
export async function startResetServer (every = 1) {
  let seen = 0
  return startRawServer((socket) => {
    eachRequest(socket, () => {
      if (++seen % every === 0) socket.resetAndDestroy()
      else socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
  })
}

/** Accepts connections and reads requests but never answers. */
export function startSilentServer () {
  return startRawServer((socket) => { socket.resume() })
}

/**
 * Start `syncbench serve ...` as a user would in a terminal (no IPC) and wait until it printed
 * `listening` "listening on" lines (seed-readfile prints three).
 * @param {string[]} args
 * @param {number} [listening=1]
 */
export async function serveInTerminal (args, listening = 1) {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  let stdout = ''
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const closed = once(child, 'close')
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d
      if ([...stdout.matchAll(/ listening on /g)].length >= listening) resolve(undefined)
    })
    closed.then(() => reject(new Error(`syncbench serve ${args.join(' ')} exited early: ${stderr}`)))
  })
  const urls = [...stdout.matchAll(/listening on (http:\/\/\S+)/g)].map((m) => m[1])
  return {
    child,
    urls,
    closed,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await closed
    }
  }
}

/**
 * Does this request head ask to keep its connection, as a real server reads it? HTTP/1.1 unless it
 * says "Connection: close"; HTTP/1.0 only when it says "Connection: keep-alive" (ab -k does).
 * @param {Buffer} head
 */
export function wantsKeepAlive (head) {
  const text = head.toString('latin1')
  const connection = /^connection:([^\r\n]*)/im.exec(text)?.[1] ?? ''
  return /^[^\r\n]* HTTP\/1\.1\r?\n/.test(text) ? !/close/i.test(connection) : /keep-alive/i.test(connection)
}

/**
 * A raw server answering every request with `respond(keepAlive)`'s bytes, misbehaving as it likes,
 * and keeping each connection as a real server would (see wantsKeepAlive): a request that does not
 * ask for keep-alive is answered, then its connection closed. `respond` may return several parts:
 * each is written on its own, a few ms after the one before, so that it usually arrives in a read of
 * its own (what is asserted must not depend on it). Counts the connections and requests it served.
 * @param {(keepAlive: boolean) => string|string[]} respond
 */
export async function startMisbehavingServer (respond) {
  const served = { connections: 0, requests: 0 }
  const raw = await startRawServer((socket) => {
    served.connections++
    eachRequest(socket, (head) => {
      served.requests++
      const keepAlive = wantsKeepAlive(head)
      const parts = [respond(keepAlive)].flat()
      const writeFrom = (/** @type {number} */ i) => {
        if (socket.destroyed) return
        if (i === parts.length - 1 && !keepAlive) return socket.end(parts[i])
        socket.write(parts[i])
        if (i < parts.length - 1) setTimeout(writeFrom, 5, i + 1)
      }
      writeFrom(0)
    })
  })
  return { ...raw, served }
}

/**
 * Responses that break HTTP/1.1's framing (RFC 9112), or bend it legally, for --http1.1 and for ab
 * parity: each a function of whether the request asked for keep-alive (its Connection header).
 * @type {Record<string, (keepAlive: boolean) => string|string[]>}
 */
export const oddResponses = {
  /** a chunk-size line that is not hex */
  badChunkSize: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
  /** an empty chunk-size line */
  emptyChunkSize: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Transfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n`,
  /** a chunk's data not followed by CRLF */
  chunkWithoutCrlf: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n`,
  /** a negative Content-Length */
  negativeLength: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: -5\r\n\r\nhello`,
  /** two Content-Length fields that disagree */
  conflictingLengths: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello`,
  /** Content-Length and Transfer-Encoding: chunked (RFC 9112 6.3: chunked wins), 11 bytes of payload */
  lengthAndChunked: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n`,
  /** an interim 100 Continue before the real response, in one packet */
  continueOnePacket: (ka) => `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhello`,
  /** an interim 100 Continue, then the real response in a later packet */
  continueTwoPackets: (ka) => ['HTTP/1.1 100 Continue\r\n\r\n', `HTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhello`],
  /** two interim responses (103 Early Hints with a field, 100) and the real one, in one packet */
  twoInterim: (ka) => `HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhello`,
  /** two responses in one packet for one request */
  twoResponses: (ka) => `HTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhello`,
  /** a status code that is not three digits */
  badStatus: (ka) => `HTTP/1.1 2x0 OK\r\n${conn(ka)}Content-Length: 5\r\n\r\nhello`
}

/** @param {boolean} keepAlive */
function conn (keepAlive) {
  return keepAlive ? 'Connection: keep-alive\r\n' : 'Connection: close\r\n'
}

/**
 * A temp folder for the file's tests, made before them and removed after, whose cache/ every CLI and
 * server they start inherits (SYNCBENCH_CACHE_DIR): data files and the readfile calibration's go there,
 * never into /tmp/syncbench-cache. `onReady` gets the folder.
 * @param {string} prefix
 * @param {(dir: string) => void} onReady
 */
export function tempCacheDir (prefix, onReady) {
  const saved = process.env.SYNCBENCH_CACHE_DIR
  let dir = ''
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix))
    process.env.SYNCBENCH_CACHE_DIR = path.join(dir, 'cache')
    onReady(dir)
  })
  after(async () => {
    if (saved === undefined) delete process.env.SYNCBENCH_CACHE_DIR
    else process.env.SYNCBENCH_CACHE_DIR = saved
    await rm(dir, { recursive: true, force: true })
  })
}
