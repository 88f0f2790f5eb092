// One of the engine's `concurrency` connections: ab's struct connection, and the socket its run's
// transport (transport.js) opens for it. The engine drives it through open(), write(), drop() and
// release(), and never asks which transport carries it; the transport's socket events call the
// engine's connected(), data(), eof() and error().
import fs from 'node:fs'
import { ConnectError, InvalidOptionError, systemCode } from '../errors.js'
import { fileKind } from '../fs-input.js'

export const UNCONNECTED = 0
export const CONNECTING = 1
export const CONNECTED = 2
export const READING = 3

/** The engine a connection belongs to, as much of it as a Connection needs. */
const NO_ENGINE = /** @type {import('./engine.js').Engine} */ (/** @type {unknown} */ ({ transport: null, request: null }))
const EMPTY = Buffer.alloc(0)

export class Connection {
  /** @param {import('./engine.js').Engine} engine */
  constructor (engine) {
    // (the framing tests make connections without an engine)
    this.engine = engine ?? NO_ENGINE
    /** @type {import('./transport.js').Transport} the engine's */
    this.transport = this.engine.transport
    // What the transports keep per connection: node:net's socket (transport-net.js); the native
    // transport's slot, socket serial (0: none; events of an older socket are dropped), whether the
    // socket got a descriptor, and what it still has to write (transport-native.js).
    /** @type {import('./transport-net.js').ConnSocket|null} */
    this.socket = null
    this.slot = -1
    this.serial = 0
    this.descriptor = false
    /** @type {Buffer[]} */
    this.unwritten = []
    this.state = UNCONNECTED
    /** the bytes of its requests: the run's, or its route's in a mix */
    this.request = this.engine.request ?? EMPTY
    /** @type {import('./routes.js').RouteCounts|null} a mix: the route it carries */
    this.route = null
    /** the status of the response being read (valid once gotHeader) */
    this.status = 0
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
    /** it has a socket, open or opening */
    this.opened = false
  }

  /** Open a new socket for the next request. */
  open () {
    this.transport.open(this)
    this.opened = true
    this.state = CONNECTING
  }

  /**
   * Write the request on the open socket. False when the kernel could not take it all at once: its
   * end is stamped when the rest is written (ab's end of write).
   * @param {Buffer} data unchanged until written
   */
  write (data) {
    return this.transport.write(this, data)
  }

  /** Close the socket; whatever it still emits goes nowhere. */
  drop () {
    if (this.opened) {
      this.transport.close(this)
      this.opened = false
    }
    this.state = UNCONNECTED
  }

  /** The run is over: close the socket and give back what the transport holds for the connection. */
  release () {
    this.drop()
    this.transport.release(this)
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
