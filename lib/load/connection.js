// One of the engine's `concurrency` connections: ab's struct connection, its socket, and the socket
// listeners, shared by every socket (`this` is the socket, which points at its connection), so that
// no closure is created per socket or per request. Each listener calls one Engine method:
// 'connect' -> connected(), a read -> data(), 'end' -> eof(), 'error' -> error().
// With the native transport (native-io.js, plain TCP) there is no net.Socket: the connection holds a
// slot of the thread's NativeIo, which calls the same Engine methods.
import fs from 'node:fs'
import net from 'node:net'
import { performance } from 'node:perf_hooks'
import { ConnectError, InvalidOptionError, systemCode } from '../errors.js'
import { fileKind } from '../fs-input.js'

export const kConn = Symbol('syncbench.connection')

/** What `socket` holds while a native connection is open (it has no net.Socket). */
const NATIVE_SOCKET = /** @type {ConnSocket} */ (/** @type {unknown} */ (Object.freeze({ native: true })))

export const UNCONNECTED = 0
export const CONNECTING = 1
export const CONNECTED = 2
export const READING = 3

/**
 * A socket of the engine, pointing at its connection until the connection drops it.
 * @typedef {net.Socket & { [kConn]?: Connection|null }} ConnSocket
 */

/** @this {ConnSocket} */
function onSocketConnect () { const c = this[kConn]; if (c) c.engine.connected(c) }
// https: the handshake is part of ab's connect (its c->connect is stamped at the first write, after it)
/** @this {ConnSocket} */
function onSocketSecureConnect () {
  const c = this[kConn]
  if (c) {
    const tls = /** @type {import('./tls.js').TlsTransport} */ (c.engine.tls)
    tls.secured(/** @type {import('node:tls').TLSSocket} */ (/** @type {unknown} */ (this)))
    c.engine.connected(c)
  }
}
/** @this {ConnSocket} @param {number} nread @param {Buffer} buf the shared read buffer */
function onSocketRead (nread, buf) { const c = this[kConn]; if (c) c.engine.data(c, buf, nread) }
/** @this {ConnSocket} */
function onSocketEnd () { const c = this[kConn]; if (c) c.engine.eof(c) }
/** @this {ConnSocket} @param {NodeJS.ErrnoException} err */
function onSocketError (err) { const c = this[kConn]; if (c) c.engine.error(c, err) }
// ab's end of write is when the last request byte is written, as here for a request that had to wait.
/** @this {ConnSocket} */
function onSocketDrain () { const c = this[kConn]; if (c) c.endwrite = performance.now() }

/**
 * net.connect (or tls.connect) options for every socket of a run. `onread` (public net API, honoured
 * by TLS sockets too) reads every socket into one shared buffer: no Buffer and no stream machinery
 * per read; each read is consumed synchronously.
 * @param {string} address @param {number} port
 * @param {{ tls?: import('./tls.js').TlsTransport|null, socketPath?: string|null }} [transport]
 *        https: the run's TLS options; --unix: the socket to connect to instead of address:port
 * @returns {net.NetConnectOpts & import('node:tls').ConnectionOptions}
 */
export function connectOptions (address, port, transport = {}) {
  // The callback returns nothing: only `false` would pause the socket.
  const callback = /** @type {(nread: number, buf: Uint8Array) => boolean} */ (/** @type {unknown} */ (onSocketRead))
  const onread = { buffer: Buffer.allocUnsafe(65536), callback }
  const where = transport.socketPath ? { path: transport.socketPath } : { host: address, port, noDelay: true }
  return transport.tls ? { ...where, ...transport.tls.options, onread } : { ...where, onread }
}

export class Connection {
  /** @param {import('./engine.js').Engine} engine */
  constructor (engine) {
    this.engine = engine
    /** @type {ConnSocket|null} */
    this.socket = null
    /** the native transport, or null for node:net */
    this.io = engine?.io ?? null // (the framing tests make connections without an engine)
    /** its slot in the native transport (-1: none) */
    this.slot = this.io === null ? -1 : this.io.slot(this)
    /** the serial of its open native socket (0: none): events of an older socket are dropped */
    this.serial = 0
    this.state = UNCONNECTED
    this.read = 0 // bytes of this response, headers included
    this.bread = 0 // body bytes of this response
    this.length = 0 // Content-Length of a keep-alive response
    this.keepalive = false
    this.gotHeader = false
    this.cbx = 0 // bytes of a split header kept in hbuf
    /** @type {Buffer|null} */
    this.hbuf = null
    // ab leaves these stale between requests of a connection; so do we (they feed max(0, ...)).
    this.start = 0
    this.connect = 0
    this.endwrite = 0
    this.beginread = 0
    /** how the body of an HTTP/1.1 response ends (http11.js BODY_*) */
    this.bodyMode = 0
    /** @type {import('./chunked-decoder.js').ChunkedDecoder|null} */
    this.decoder = null
    /** ab's -r bookkeeping: the next receive error on this connection adds no Exception */
    this.skipException = false
    // Open loop (-R) only (engine.js): the connection's schedule.
    /** the run's index of this connection's next request (due at start + seq / rate) */
    this.seq = 0
    /** when its request in flight was due to be sent (performance.now() ms) */
    this.intended = 0
    /** free and waiting for its next request's time (its kept-alive socket idle, or none) */
    this.parked = false
  }

  /** Open a new socket for the next request. @param {net.NetConnectOpts & import('node:tls').ConnectionOptions} options */
  open (options) {
    if (this.io !== null) {
      this.serial = this.io.connect(this.slot, this.engine.ioTarget, this.engine.nodelay)
      this.socket = NATIVE_SOCKET
      this.state = CONNECTING
      return
    }
    const tls = this.engine.tls
    const socket = /** @type {ConnSocket} */ (tls === null ? net.connect(options) : tls.connect(options))
    socket[kConn] = this
    if (tls === null) socket.on('connect', onSocketConnect)
    else socket.on('secureConnect', onSocketSecureConnect)
    socket.on('end', onSocketEnd)
    socket.on('error', onSocketError)
    this.socket = socket
    this.state = CONNECTING
  }

  /**
   * Write the request on the open socket. False when the kernel could not take it all at once: its
   * end is stamped when the rest is written (ab's end of write).
   * @param {Buffer} data unchanged until written
   */
  write (data) {
    if (this.io !== null) return this.io.write(this.slot, data)
    const socket = /** @type {ConnSocket} */ (this.socket)
    if (socket.write(data)) return true
    socket.once('drain', onSocketDrain)
    return false
  }

  /** Close the socket; whatever it still emits goes nowhere. */
  drop () {
    const socket = this.socket
    if (socket !== null) {
      if (this.io !== null) {
        this.io.close(this.slot)
        this.serial = 0
      } else {
        socket[kConn] = null
        socket.destroy()
      }
      this.socket = null
    }
    this.state = UNCONNECTED
  }

  /** The run is over: give the native slot back. */
  release () {
    this.drop()
    if (this.io !== null) {
      this.io.release(this.slot)
      this.io = null
      this.slot = -1
    }
  }
}

// Connect errors Linux reports from connect() itself: ab counts these as connect failures and gives
// up after more than 10. The others (refused, reset, unreachable) reach ab through poll() and recv(),
// which makes them receive errors: fatal without -r.
export const SYNC_CONNECT_ERRORS = new Set(['EADDRNOTAVAIL', 'ENETUNREACH', 'EACCES', 'EPERM', 'EADDRINUSE', 'ENOBUFS', 'EAFNOSUPPORT', 'EMFILE', 'ENFILE'])

/** @type {Record<string, string>} */
const ERROR_TEXT = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by peer',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  EADDRNOTAVAIL: 'cannot assign requested address',
  EPIPE: 'broken pipe'
}

/**
 * The soft limit of open files of this process (Linux /proc/self/limits), or -1 when unknown. Read
 * when a run starts: once descriptors have run out, reading it needs one more.
 * @returns {number}
 */
export function openFilesLimit () {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))
    return line ? Number(line[1]) : -1
  } catch {
    return -1
  }
}

/**
 * Why connect() ran out of file descriptors, in one line the user can act on: how many sockets were
 * open, the limit and how to raise it. Node's own message ("connect EMFILE 127.0.0.1:80 - Local
 * (undefined:undefined)") says neither.
 * @param {NodeJS.ErrnoException} err  an EMFILE or ENFILE from connect
 * @param {number} concurrency  -c
 * @param {number} opened  the run's sockets that were connected at that moment
 * @param {number} limit  openFilesLimit() at the start of the run
 * @returns {string}
 */
export function describeFdExhaustion (err, concurrency, opened, limit) {
  const open = `only ${opened} sockets could be opened for -c ${concurrency}`
  if (err.code === 'ENFILE') return `too many open files in the system (ENFILE): ${open}; close other programs or raise fs.file-max, or lower -c`
  const now = limit >= 0 ? ` (now ${limit})` : ''
  return `too many open files (EMFILE): ${open}; raise the limit of open files per process${now} with ulimit -n ${concurrency + 100} in this shell, or lower -c`
}

/** A socket error in a few words, with its code. @param {NodeJS.ErrnoException & { reason?: string }} err */
export function describeError (err) {
  // OpenSSL's message is a multi-line dump; its reason is the few words ("wrong version number")
  if (err.code !== undefined && err.code.startsWith('ERR_SSL_')) return `TLS handshake failed: ${err.reason ?? err.message.split('\n')[0]} (${err.code})`
  const text = err.code === undefined ? undefined : ERROR_TEXT[err.code]
  return text ? `${text} (${err.code})` : (err.code ? `${err.message} (${err.code})` : err.message)
}

/**
 * --unix: the path must name a socket. None there is the server's absence, as a refused connection
 * is (ConnectError, exit 1); a file of another kind is a mistyped option (InvalidOptionError).
 * @param {string} path
 * @param {string} spelled the option as the caller names it ("--unix")
 */
export function checkUnixSocket (path, spelled) {
  let info
  try {
    info = fs.statSync(path)
  } catch (err) {
    const code = systemCode(err)
    if (code === undefined) throw err
    throw new ConnectError(`unix:${path}: ${code === 'ENOENT' ? 'no such socket' : 'cannot reach the socket'} (${code})`, { cause: err })
  }
  if (info.isSocket()) return
  throw new InvalidOptionError(`${spelled} must be the path of a unix socket, got "${path}" (${fileKind(info)})`)
}
