// Shared test helpers: real servers on 127.0.0.1 port 0 and the real CLI in a child process.
import http from 'node:http'
import net from 'node:net'
import { once } from 'node:events'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
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
 * @param {{ path?: string }} [options] listen on this unix socket instead (the URL then only names a host)
 */
export async function startRawServer (onConnection, options = {}) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    onConnection(socket)
  })
  if (options.path === undefined) server.listen(0, '127.0.0.1')
  else server.listen(options.path)
  await once(server, 'listening')
  const port = options.path === undefined ? /** @type {net.AddressInfo} */ (server.address()).port : 0
  return {
    server,
    port,
    url: options.path === undefined ? `http://127.0.0.1:${port}/` : 'http://app.local/',
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
 * `syncbench ab --json ...args`: its LoadResult, asserting that it exited 0.
 * @param {string[]} args
 * @param {{ timeoutMs?: number }} [options]
 */
export async function abJson (args, options = {}) {
  const r = await runCli(['ab', '--json', ...args], { timeoutMs: options.timeoutMs ?? 30_000 })
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout)
}

/**
 * Run an external command (ab, wrk) and collect its output.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ timeoutMs?: number, env?: Record<string, string>, exactEnv?: boolean, cwd?: string }} [options]
 *   env: added to this process's, or, with exactEnv, the child's whole environment
 */
export async function runCommand (cmd, args, options = {}) {
  // not NODE_TEST_CONTEXT: the test runner marks its children with it, and a `node --test` run in a
  // marked environment runs no file at all (and exits 0)
  const { NODE_TEST_CONTEXT, ...inherited } = process.env
  const env = options.exactEnv ? { ...options.env } : { ...inherited, ...options.env }
  const child = spawn(cmd, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env })
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
  const urls = [...stdout.matchAll(/listening on (https?:\/\/\S+)/g)].map((m) => m[1])
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

// --- Hostile servers for the transports' tests (load-hostile, load-transport-fuzz) ---

/**
 * What a hostile server does with one request (startHostileServer). The defaults make a polite
 * server: it reads the whole request, answers 200 "ok" with a Content-Length, and keeps the
 * connection as the request asks.
 * @typedef {object} Behaviour
 * @property {'head'|'body'|number} [answerAt] when to answer: once the request's head is read, before
 *           any of its body ('head'); once this many bytes of its body are read (a number); once all
 *           of it is ('body', the default). The body's rest is read (and dropped) either way.
 * @property {string[]} [interim] 1xx status lines ("100 Continue") written once the head is read
 * @property {number} [status] of the final response (200)
 * @property {'length'|'chunked'|'close'} [framing] how the body's end is marked: Content-Length, chunked
 *           (three chunks), or the connection's close (no length: the server closes after it)
 * @property {string} [body] the final response's body ('ok')
 * @property {boolean} [keepAlive] say keep-alive and keep the connection (default: as the request asks)
 * @property {string} [surplus] bytes written right behind the response, in the same write
 * @property {number} [dripBytes] write the response in pieces of this many bytes, dripMs apart
 * @property {number} [dripMs] (1 by default)
 * @property {number} [stallMs] once the head is read, stop reading for this long: the client's writes
 *           of a body wait meanwhile (the server's buffers fill)
 * @property {'keep'|'end'|'destroy'|'reset'} [after] once the response is written: keep the connection
 *           when it is kept alive, else end it (the default); 'end': send FIN and keep reading (a body
 *           still coming is read and dropped); 'destroy': close with the rest of the request unread
 *           (the kernel answers it with a reset); 'reset': RST at once
 * @property {number} [resetAtRequest] instead of answering, reset (RST) once this many bytes of the
 *           request (head and body) have arrived; 0 resets the connection at its accept
 * @property {number} [resetAtResponse] write this many bytes of the response, then reset (RST)
 * @property {boolean} [silent] never answer (keep reading)
 * @property {boolean} [deaf] (for a connection's first request) never read the connection at all: the
 *           client's writes fill the socket buffers and block
 */

/**
 * A raw server that misbehaves as `pick(connection, request)` says for each request: the numbers of
 * the connection (in the order accepted, from 0) and of the request on it (from 0). It is called once
 * per request, when its connection is accepted (for the first) or its first byte arrives, so a pick
 * that counts its calls numbers the requests in the order they came. Requests are parsed as a client
 * sends them (head, then a body of its Content-Length), pipelined bytes included.
 * `served` counts what it saw: connections, request heads, body bytes read, responses begun.
 * @param {(connection: number, request: number) => Behaviour} pick
 * @param {{ path?: string }} [options] listen on this unix socket (where nothing can be reset)
 */
export async function startHostileServer (pick, options = {}) {
  const served = { connections: 0, requests: 0, bodyBytes: 0, answered: 0 }
  const raw = await startRawServer((socket) => {
    const connection = served.connections++
    let index = 0
    // the behaviour of the request being read; the next one's is picked when its first byte comes
    /** @type {Behaviour|null} */
    let b = pick(connection, index)
    if (b.deaf) {
      socket.pause()
      return
    }
    if (b.resetAtRequest === 0) {
      socket.resetAndDestroy()
      return
    }
    let head = Buffer.alloc(0)
    let inHead = true
    let bodyLength = 0
    let bodyRead = 0
    let requestBytes = 0 // of the request being read, head and body
    let answered = false
    let done = false // ended, destroyed or reset: whatever still comes is dropped
    const reset = () => {
      done = true
      socket.resetAndDestroy()
    }
    socket.on('data', (/** @type {Buffer} */ data) => {
      let at = 0
      while (!done && at < data.length) {
        b ??= pick(connection, ++index)
        if (inHead) {
          const before = head.length
          head = Buffer.concat([head, data.subarray(at)])
          const end = head.indexOf('\r\n\r\n')
          const used = end === -1 ? data.length - at : end + 4 - before
          requestBytes += used
          at += used
          if (b.resetAtRequest !== undefined && requestBytes >= b.resetAtRequest) return reset()
          if (end === -1) {
            if (head.length > 65536) reset()
            continue
          }
          const text = head.subarray(0, end + 4)
          head = Buffer.alloc(0)
          inHead = false
          bodyLength = Number(/^content-length:\s*(\d+)/im.exec(text.toString('latin1'))?.[1] ?? 0)
          served.requests++
          b = { ...b, keepAlive: b.keepAlive ?? (wantsKeepAlive(text) && b.framing !== 'close') }
          for (const line of b.interim ?? []) socket.write(`HTTP/1.1 ${line}\r\n\r\n`)
          if (b.stallMs) {
            socket.pause()
            setTimeout(() => socket.resume(), b.stallMs)
          }
        } else {
          const take = Math.min(bodyLength - bodyRead, data.length - at)
          bodyRead += take
          requestBytes += take
          served.bodyBytes += take
          at += take
          if (b.resetAtRequest !== undefined && requestBytes >= b.resetAtRequest) return reset()
        }
        const answerAt = b.answerAt ?? 'body'
        if (!answered && !b.silent && b.resetAtRequest === undefined &&
          (answerAt === 'head' || bodyRead >= (answerAt === 'body' ? bodyLength : Math.min(answerAt, bodyLength)))) {
          answered = true
          served.answered++
          done = respond(socket, b)
        }
        if (!done && bodyRead === bodyLength) {
          // read whole: a reset due past its end comes now; else the next request's head follows
          if (b.resetAtRequest !== undefined) return reset()
          inHead = true
          requestBytes = bodyRead = bodyLength = 0
          answered = false
          b = null
        }
      }
    })
  }, options)
  return { ...raw, served }
}

/**
 * Write `b`'s response; true when the connection is done with (ended, destroyed or reset).
 * @param {net.Socket} socket @param {Behaviour} b
 */
function respond (socket, b) {
  const body = b.body ?? 'ok'
  const framing = b.framing ?? 'length'
  let fields = `Connection: ${b.keepAlive ? 'keep-alive' : 'close'}\r\n`
  let payload = body
  if (framing === 'length') fields += `Content-Length: ${Buffer.byteLength(body)}\r\n`
  if (framing === 'chunked') {
    fields += 'Transfer-Encoding: chunked\r\n'
    const third = Math.ceil(body.length / 3)
    const parts = [body.slice(0, third), body.slice(third, 2 * third), body.slice(2 * third)].filter((p) => p !== '')
    payload = parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n'
  }
  const bytes = Buffer.from(`HTTP/1.1 ${b.status ?? 200} X\r\n${fields}\r\n${payload}${b.surplus ?? ''}`, 'latin1')
  const after = b.after ?? (b.keepAlive && framing !== 'close' ? 'keep' : 'end')
  if (b.resetAtResponse !== undefined) {
    socket.write(bytes.subarray(0, b.resetAtResponse))
    socket.resetAndDestroy()
    return true
  }
  const finish = () => {
    if (socket.destroyed) return
    if (after === 'end') socket.end()
    else if (after === 'destroy') socket.destroy()
    else if (after === 'reset') socket.resetAndDestroy()
  }
  if (b.dripBytes === undefined) {
    socket.write(bytes)
    finish()
  } else {
    const step = b.dripBytes
    const drip = (/** @type {number} */ from) => {
      if (socket.destroyed) return
      socket.write(bytes.subarray(from, from + step))
      if (from + step < bytes.length) setTimeout(drip, b.dripMs ?? 1, from + step)
      else finish()
    }
    drip(0)
  }
  return after !== 'keep'
}

// --- Raw HTTP/2 servers for the HTTP/2 engine's hostile tests (load-hostile, load-transport-fuzz) ---

/** RFC 9113's frame types, by name. */
export const H2 = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 }
/** The flags this file's servers set: END_STREAM (DATA, HEADERS), ACK (SETTINGS, PING), END_HEADERS. */
export const H2_FLAG = { END_STREAM: 1, ACK: 1, END_HEADERS: 4 }
/** A response's header block: `:status: 200` as HPACK's static table entry 8, indexed. */
export const H2_STATUS_200 = Buffer.from([0x88])
const CLIENT_MAGIC = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'

/**
 * One HTTP/2 frame as it goes on the wire: the 9-byte header (24-bit length, type, flags, 31-bit
 * stream id) and the payload. `length` overrides the payload's own (a frame that lies about it).
 * @param {number} type @param {number} flags @param {number} streamId @param {Buffer|string} [payload]
 * @param {number} [length]
 */
export function h2Frame (type, flags, streamId, payload = Buffer.alloc(0), length) {
  const body = Buffer.from(payload)
  const head = Buffer.alloc(9)
  head.writeUIntBE(length ?? body.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(streamId & 0x7fffffff, 5)
  return Buffer.concat([head, body])
}

/** A SETTINGS frame of `[identifier, value]` pairs (RFC 9113 6.5.2: 3 is MAX_CONCURRENT_STREAMS, 4 INITIAL_WINDOW_SIZE). @param {[number, number][]} [pairs] */
export function h2Settings (pairs = []) {
  const payload = Buffer.alloc(6 * pairs.length)
  pairs.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i)
    payload.writeUInt32BE(value, 6 * i + 2)
  })
  return h2Frame(H2.SETTINGS, 0, 0, payload)
}

/** A frame whose payload is one 32-bit number (RST_STREAM's code, WINDOW_UPDATE's increment). @param {number} type @param {number} streamId @param {number} value */
export function h2Word (type, streamId, value) {
  const payload = Buffer.alloc(4)
  payload.writeUInt32BE(value >>> 0)
  return h2Frame(type, 0, streamId, payload)
}

/** GOAWAY: the last stream the server processed and its error code. @param {number} lastStreamId @param {number} code */
export function h2Goaway (lastStreamId, code) {
  const payload = Buffer.alloc(8)
  payload.writeUInt32BE(lastStreamId & 0x7fffffff)
  payload.writeUInt32BE(code, 4)
  return h2Frame(H2.GOAWAY, 0, 0, payload)
}

/** A whole response on a stream: HEADERS (:status 200), then `body` in DATA with END_STREAM. @param {number} streamId @param {string} [body] */
export function h2Response (streamId, body = 'ok') {
  return Buffer.concat([h2Frame(H2.HEADERS, H2_FLAG.END_HEADERS, streamId, H2_STATUS_200), h2Frame(H2.DATA, H2_FLAG.END_STREAM, streamId, body)])
}

/**
 * A connection of startH2RawServer's, as its hooks see it.
 * @typedef {object} H2Conn
 * @property {net.Socket} socket
 * @property {number} index   the connection's number, in the order accepted, from 0
 * @property {number} requests the requests read whole on it so far
 * @property {Set<number>} open its streams with a request and no response's end yet
 * @property {(bytes: Buffer) => void} write  (nothing once the socket is gone)
 * @property {(streamId: number, body?: string) => void} answer  h2Response() on the stream, counted answered
 */

/**
 * What a raw HTTP/2 server does; each hook replaces the polite default.
 * @typedef {object} H2Serve
 * @property {(c: H2Conn) => void} [open] at the accept: the server's preface (default: an empty SETTINGS)
 * @property {(c: H2Conn, streamId: number, n: number) => void} [request] a request read whole (its
 *           END_STREAM), the n-th of its connection from 0: default h2Response()
 * @property {(c: H2Conn, frame: { type: number, flags: number, streamId: number, payload: Buffer }) => boolean|void} [frame]
 *           each frame read; return true to skip the defaults (SETTINGS and PING acknowledged, a
 *           request's DATA credited back with WINDOW_UPDATE, requests counted and passed on)
 * @property {boolean} [credit] credit each DATA frame back with WINDOW_UPDATE (default true)
 * @property {boolean} [deaf] read nothing at all: the client's preface and requests are never parsed
 */

/**
 * A raw h2c (prior knowledge) server on 127.0.0.1:0 that speaks HTTP/2 frame by frame as `serve` says:
 * for servers node:http2 would never be (bad frames, floods, HTTP/1.1 text for a preface). It parses
 * the client's preface and its frames (never HPACK: a request is its stream's END_STREAM) and counts
 * in `served`: connections, streams (request HEADERS), requests read whole, responses sent whole
 * (H2Conn.answer), the DATA bytes read, the most streams open at once on a connection.
 * @param {H2Serve} serve
 */
export async function startH2RawServer (serve) {
  const served = { connections: 0, streams: 0, requests: 0, answered: 0, bodyBytes: 0, maxOpen: 0 }
  const raw = await startRawServer((socket) => {
    /** @type {H2Conn} */
    const c = {
      socket,
      index: served.connections++,
      requests: 0,
      open: new Set(),
      write: (bytes) => { if (!socket.destroyed && socket.writable) socket.write(bytes) },
      answer: (streamId, body) => {
        c.open.delete(streamId)
        served.answered++
        c.write(h2Response(streamId, body))
      }
    }
    ;(serve.open ?? ((/** @type {H2Conn} */ c) => c.write(h2Settings())))(c)
    if (serve.deaf) return
    let buffered = Buffer.alloc(0)
    let magic = false
    socket.on('data', (/** @type {Buffer} */ data) => {
      buffered = Buffer.concat([buffered, data])
      if (!magic) {
        if (buffered.length < CLIENT_MAGIC.length) return
        magic = true
        buffered = buffered.subarray(CLIENT_MAGIC.length)
      }
      while (buffered.length >= 9 && !socket.destroyed) {
        const length = buffered.readUIntBE(0, 3)
        if (buffered.length < 9 + length) break
        const frame = { type: buffered[3], flags: buffered[4], streamId: buffered.readUInt32BE(5) & 0x7fffffff, payload: buffered.subarray(9, 9 + length) }
        buffered = buffered.subarray(9 + length)
        if (serve.frame?.(c, frame) === true) continue
        h2Default(c, frame, serve, served)
      }
    })
  })
  return { ...raw, served }
}

/**
 * A polite server's part for one frame: acknowledge SETTINGS and PING, credit a request's DATA
 * back, count requests and hand each to the `request` hook once read whole.
 * @param {H2Conn} c @param {{ type: number, flags: number, streamId: number, payload: Buffer }} frame
 * @param {H2Serve} serve @param {{ streams: number, requests: number, answered: number, bodyBytes: number, maxOpen: number }} served
 */
function h2Default (c, frame, serve, served) {
  const { type, flags, streamId, payload } = frame
  if (type === H2.SETTINGS && (flags & H2_FLAG.ACK) === 0) return c.write(h2Frame(H2.SETTINGS, H2_FLAG.ACK, 0))
  if (type === H2.PING && (flags & H2_FLAG.ACK) === 0) return c.write(h2Frame(H2.PING, H2_FLAG.ACK, 0, payload))
  if (type === H2.HEADERS) {
    served.streams++
    c.open.add(streamId)
    if (c.open.size > served.maxOpen) served.maxOpen = c.open.size
  }
  if (type === H2.DATA && payload.length > 0) {
    served.bodyBytes += payload.length
    if (serve.credit !== false) c.write(Buffer.concat([h2Word(H2.WINDOW_UPDATE, 0, payload.length), h2Word(H2.WINDOW_UPDATE, streamId, payload.length)]))
  }
  if ((type === H2.HEADERS || type === H2.DATA) && (flags & H2_FLAG.END_STREAM) !== 0) {
    served.requests++
    const n = c.requests++
    if (serve.request) serve.request(c, streamId, n)
    else c.answer(streamId)
  }
  // a stream the client cancels is no longer open
  if (type === H2.RST_STREAM) c.open.delete(streamId)
}

/** What a sanitizer prints when it finds a bug (AddressSanitizer, UndefinedBehaviorSanitizer). */
export const SANITIZER_REPORT = /ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer/

/**
 * `syncbench ab --json ...args` on one transport (SYNCBENCH_IO=native or net), killed after
 * `timeoutMs`; under a limit of open files when `openFiles` is given (sh's ulimit -n, then exec).
 * Returns how it ended and, for an exit 0, what it counted (the fields that do not depend on time)
 * and the transport the LoadResult names; for another exit, its stderr with the server's port (or
 * socket) and the times in it blanked.
 * @param {'native'|'net'} io @param {string[]} args
 * @param {{ timeoutMs?: number, openFiles?: number }} [options]
 */
export async function abOn (io, args, options = {}) {
  const argv = [binPath, 'ab', '--json', ...args]
  const env = { SYNCBENCH_IO: io, NO_COLOR: '1' }
  const started = performance.now()
  const r = options.openFiles === undefined
    ? await runCommand(process.execPath, argv, { env, timeoutMs: options.timeoutMs ?? 30_000 })
    : await runCommand('sh', ['-c', 'ulimit -n "$0" && exec "$@"', String(options.openFiles), process.execPath, ...argv], { env, timeoutMs: options.timeoutMs ?? 30_000 })
  const ms = performance.now() - started
  /** @type {Record<string, unknown>} */
  let counts = { code: r.code, stderr: r.stderr.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT').replace(/unix:[^:\s]+/g, 'unix:SOCKET').replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T') }
  if (r.code === 0) {
    const j = JSON.parse(r.stdout)
    counts = {
      complete: j.completeRequests,
      failed: j.failedRequests,
      failures: j.failures,
      writeErrors: j.writeErrors,
      keepAlive: j.keepAliveRequests,
      total: j.totalTransferredBytes,
      html: j.htmlTransferredBytes,
      posted: j.totalBodySentBytes,
      errors: j.errors,
      non2xx: j.non2xxResponses
    }
  }
  const transport = r.code === 0 ? JSON.parse(r.stdout).transport : null
  return { io, ...r, ms, counts, transport }
}

/**
 * The run ended by itself: no signal (a crash is SIGSEGV, a sanitizer's abort SIGABRT), within its
 * bound (a run killed at its bound has a signal), no sanitizer report.
 * Also that a run that reports its transport ran on the one asked for.
 * @param {{ io: string, code: number|null, signal: string|null, stderr: string, transport?: string|null }} r @param {string} what
 */
export function assertEndedCleanly (r, what) {
  if (r.transport != null) assert.equal(r.transport.replace(/-unix$/, ''), r.io === 'native' ? 'native' : 'node:net', `${what}: the run's transport`)
  assert.equal(r.signal, null, `${what} (${r.io}): killed by ${r.signal} (SIGKILL: still running at its bound); stderr: ${r.stderr.slice(-2000)}`)
  assert.doesNotMatch(r.stderr, SANITIZER_REPORT, `${what} (${r.io}): a sanitizer report`)
  assert.notEqual(r.code, null, `${what} (${r.io}): no exit code`)
}

/**
 * One test that runs scripts/sanitize.sh over `files` (test/ names): the native transport's ASan and
 * UBSan build (its own folder under build-sanitize/, so files running at once do not share one),
 * those tests on it, at least `atLeast` of them, none failing and no sanitizer report. Skipped, saying
 * so, where there is no C compiler. npm test bounds a test file to 120 s: callers keep under it.
 * @param {string} name @param {string[]} files @param {number} atLeast
 * @param {Record<string, string>} [env] for the tests (SYNCBENCH_HOSTILE_SHARD)
 */
export function sanitizedTests (name, files, atLeast, env = {}) {
  const cc = process.env.CC ?? 'gcc'
  const noCompiler = spawnSync(cc, ['--version']).error !== undefined
  const script = fileURLToPath(new URL('../scripts/sanitize.sh', import.meta.url))
  const out = fileURLToPath(new URL(`../build-sanitize/${name}`, import.meta.url))
  const part = env.SYNCBENCH_HOSTILE_SHARD ? ` (SYNCBENCH_HOSTILE_SHARD=${env.SYNCBENCH_HOSTILE_SHARD})` : ''
  test(`${files.join(', ')}${part} pass on the native transport's ASan/UBSan build, with no sanitizer report`, {
    skip: noCompiler && `no C compiler (${cc}): the sanitizer build needs one (CI installs g++)`,
    timeout: 118_000
  }, async () => {
    const r = await runCommand('bash', [script, '--out', out, ...files.map((f) => `test/${f}`)], { env, timeoutMs: 115_000 })
    const output = r.stdout + r.stderr
    assert.equal(r.signal, null, `scripts/sanitize.sh killed by ${r.signal} (SIGKILL: still running after 115 s): ${output.slice(-4000)}`)
    assert.doesNotMatch(output, SANITIZER_REPORT, output.slice(-8000))
    assert.equal(r.code, 0, output.slice(-8000))
    // the tests did run (a nested node --test in a marked environment runs none)
    const summary = /^sanitize: tests (\d+), pass \d+, fail (\d+)/m.exec(output)
    assert.ok(summary !== null && Number(summary[1]) >= atLeast && summary[2] === '0', output.slice(-2000))
  })
}
