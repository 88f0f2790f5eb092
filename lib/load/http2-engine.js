// The HTTP/2 engine (--http2): requests as streams over `concurrency` sessions of node:http2's client,
// each carrying up to `streams` of them at once (h2load's -c and -m), counted by the same AbCounts
// (ab-counts.js), timed by the same Rows (request-times.js), scheduled by the same Schedule (-R) and
// resolving the same RunEnd as the HTTP/1 Engine (engine.js), so loadtest() builds one LoadResult.
//
// Why an engine of its own rather than a transport behind transport.js: that seam moves bytes. The
// HTTP/1 Engine reads them itself (ab's header scan, its framing) and its unit of concurrency is a
// socket carrying one request at a time. HTTP/2's unit is a stream: node:http2 (nghttp2 inside Node)
// does the framing, HPACK and flow control, and hands over a response as events (headers, data, end,
// close with an RST_STREAM code), never as bytes to parse. The common seam above both is "a slot
// that carries one request at a time and reports its response complete (status, body bytes, times)";
// here a slot is one of a session's `streams` seats, there a Connection. Both engines count through
// AbCounts' methods and record() the same way; what is not shared yet is the engine loop itself
// (the closed and open loop's scheduling, the watchdog, the end), which this file repeats in slot
// terms. Unifying them means the HTTP/1 Engine calling its Connection a slot through an interface
// whose hot path (data -> header -> body -> responseDone) stays monomorphic: measured with
// bench/ before it is done, so this first increment leaves the HTTP/1 path untouched.
//
// Sessions. http:// speaks h2c by prior knowledge (the connection preface at once, no Upgrade);
// https:// negotiates h2 by ALPN (loadtest() probes it once before the run: a server refusing h2 is
// run over HTTP/1.1 instead, and LoadResult.protocol says which). Every socket is made here
// (createConnection), so the time to connect (TCP, and TLS's handshake) is measured, and the bytes
// read and written are the socket's own. A session carries no stream before the server's first
// SETTINGS: its SETTINGS_MAX_CONCURRENT_STREAMS, when below `streams`, caps the seats in use (the
// lowest cap is in LoadResult.http2.serverStreamsLimit). A session the server ends (GOAWAY, close,
// error) is replaced by a new connection for the seats that still have requests to carry.
//
// A lent session (LoadOptions.http2Session): the caller's own connection, already past the server's
// SETTINGS, carries the first session's streams instead of a new connection. Two runs can so share
// one connection (syncbench run's probe on the measured load's connection: what a sync handler does
// to every stream of it). The session stays the caller's: at its end the run cancels its own streams
// and stops listening, but neither closes it nor counts its connect time; its bytes are those read
// and written while the run held it, the other user's frames included.
//
// Counting, in ab's terms. A stream that ends with its response's END_STREAM is a good response
// (status counted, ab's Length check on its DATA bytes); one reset by the server (RST_STREAM), or
// lost with its session (GOAWAY past its id, a closed socket), is a failed request: a reset or a
// protocol fault under Exceptions (`errors`: RST_STREAM_<code>, or node's error code), a socket
// error under Receive. Unlike ab without -r, a lost connection does not end the run: its streams
// fail and its seats reconnect; a session that ends before its first SETTINGS counts as a connect
// failure, and more than 10 of them end the run as ab's connect failures do.
//
// Times per request (stream): start when its seat issued it (waiting for its session's SETTINGS
// included: that wait is its Connect time, 0 on a session already open), Waiting from the request's
// last frame handed to nghttp2 to its response's HEADERS, Total to END_STREAM. Bytes: Total
// transferred is every byte read from the connections' sockets (frames of every type, HPACK-
// compressed headers; for https, the TLS records' payloads), HTML transferred the DATA payloads of
// the responses; Total body sent every byte written when a body is sent.
import http2 from 'node:http2'
import net from 'node:net'
import { performance } from 'node:perf_hooks'
import { ConnectError } from '../errors.js'
import { describeError } from './connection.js'
import { LATE_THRESHOLD_MS } from './engine.js'
import { LOAD_SERIES_INTERVAL_MS } from './load-series.js'
import { MAX_TIMER_MS, checkBounds } from './run-bounds.js'
import { Row } from './request-times.js'
import { errorName } from './h2-engine.js'

/** ab's limit: more than this many connect failures end the run. */
const CONNECT_FAILURES = 10

const IDLE = 0
/** issued, waiting for its session's SETTINGS or a free stream */
const WAITING = 1
/** its stream is open */
const FLIGHT = 2

const { NGHTTP2_CANCEL } = http2.constants
/**
 * Socket errors, and a connection the server closed (CONNECTION_CLOSED): a request lost with its
 * connection counts under ab's Receive, as on HTTP/1.
 */
const SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ENETUNREACH', 'EHOSTUNREACH', 'CONNECTION_CLOSED'])

/**
 * @typedef {object} Http2EngineOptions
 * @property {string[]} addresses the host's addresses, in resolver order (resolved once, as ab does)
 * @property {string|null} socketPath  --unix: the server's unix socket, connected instead of address:port
 * @property {string} hostname    for messages
 * @property {number} port
 * @property {string} authority   the :authority and the origin node:http2 is given ("host:port")
 * @property {import('node:http2').OutgoingHttpHeaders} headers  every request's headers, pseudo-headers included
 * @property {Buffer|null} body   sent with each request
 * @property {import('./h2-engine.js').Http2Tls|null} tls  https: how its sockets are made (node:tls is loaded for https runs only)
 * @property {number} requests
 * @property {number} concurrency sessions (connections)
 * @property {number} streams     concurrent streams per session (-m of h2load)
 * @property {import('./schedule.js').Schedule|null} schedule
 * @property {number} timeoutMs
 * @property {number} timelimitMs
 * @property {number} responseTimeoutMs
 * @property {number} heartbeat
 * @property {((done: number) => void)|null} onProgress
 * @property {((record: import('../types.js').RequestTiming) => void)|null} onRequest
 * @property {import('./load-series.js').LoadSeries|null} series
 * @property {((point: import('./load-series.js').LoadSecond) => void)|null} onSecond
 * @property {AbortSignal|null} signal
 * @property {import('node:http2').ClientHttp2Session|null} [lent]  the caller's session, carrying the first session's streams
 * @property {import('./ab-counts.js').AbCounts} counts
 */

/** One seat of a session: carries one request (stream) at a time. */
class Slot {
  /** @param {number} index */
  constructor (index) {
    this.index = index
    this.state = IDLE
    /** @type {Session|null} */
    this.session = null
    /** @type {import('node:http2').ClientHttp2Stream|null} */
    this.stream = null
    this.start = 0
    this.connect = 0
    this.endwrite = 0
    this.beginread = 0
    this.status = 0
    this.bread = 0
    this.ended = false
    /** a socket error or node's error code that ended the stream, '' when none */
    this.fault = ''
    /** open loop: parked, the next request it carries (seq), and when that was due */
    this.parked = false
    this.seq = 0
    this.intended = 0
  }
}

/** One connection and its node:http2 session. */
class Session {
  /** @param {number} index which of the -c sessions (a replacement keeps its index) */
  constructor (index) {
    this.index = index
    /** @type {import('node:http2').ClientHttp2Session|null} */
    this.h2 = null
    /** @type {import('node:net').Socket|null} */
    this.socket = null
    this.opened = 0
    this.connectedAt = 0
    this.firstByteAt = 0
    /** the server's SETTINGS arrived: streams may open */
    this.ready = false
    /** a GOAWAY arrived */
    this.goaway = false
    /** the connection ended on a protocol error before SETTINGS: its first frame was something else */
    this.notSettings = false
    /** GOAWAY, close or error: no new stream */
    this.dead = false
    this.limit = 0
    this.active = 0
    this.completed = 0
    /** @type {Slot[]} seats waiting for a stream, in order */
    this.waiting = []
    /** its figures are counted and its connection dropped (release()) */
    this.released = false
    /** bytes counted already from this session's socket */
    this.countedRead = 0
    this.countedWritten = 0
    /** which of the host's addresses its connection went to */
    this.addressIndex = 0
    /** the caller's session (Http2EngineOptions.lent): never closed here */
    this.lent = false
    /** @type {(() => void)|null} a lent session: stops this run's listening to it */
    this.unlisten = null
  }
}

export class Http2Engine {
  /** @param {Http2EngineOptions} o */
  constructor (o) {
    this.o = o
    this.counts = o.counts
    this.requests = o.requests
    this.timeoutMs = o.timeoutMs
    this.responseTimeoutMs = o.responseTimeoutMs
    this.heartbeat = o.onProgress ? o.heartbeat : 0
    this.onProgress = o.onProgress ?? noop
    this.onRequest = o.onRequest
    this.series = o.series
    /** @type {NodeJS.Timeout|null} */
    this.secondTimer = null
    this.schedule = o.schedule
    this.openLoop = o.schedule !== null
    this.nextDue = 0
    /** @type {NodeJS.Timeout|null} */
    this.tickTimer = null
    this.onTick = this.tick.bind(this)
    /** @type {Session[]} */
    this.sessions = Array.from({ length: o.concurrency }, (_, i) => new Session(i))
    /** slot k is seat k / concurrency of session k % concurrency: request j of the open loop goes to slot j % slots */
    this.slots = Array.from({ length: o.concurrency * o.streams }, (_, k) => new Slot(k))
    if (this.openLoop) this.slots.forEach((s, k) => { s.seq = k })
    this.startTime = 0
    this.lastTime = 0
    this.lastActivity = 0
    this.stopAt = Infinity
    this.finished = false
    this.aborted = false
    /** @type {ConnectError|import('../errors.js').TimeoutError|null} */
    this.failure = null
    /** @type {{ thrown: unknown }|null} */
    this.callbackError = null
    /** @type {NodeJS.Timeout|null} */
    this.timer = null
    /** @type {(end: import('./engine.js').RunEnd) => void} */
    this.resolve = noop
    this.onWatchdog = this.watchdog.bind(this)
    this.onAbort = this.abort.bind(this)
    this.connectFailures = 0
    /** which of o.addresses connections go to: ab's fallback moves on while nothing has succeeded */
    this.addressIndex = 0
    /** a connection has been made: the fallback is over */
    this.connectedOnce = false
    /** @type {Session[]} every session of the run, to count and close at its end */
    this.opened = []
    // per connection, for LoadResult.http2
    this.connections = 0
    this.connectTimes = new Row()
    this.firstByteTimes = new Row()
    /** streams completed by each session that ended */
    this.streamsPerConnection = new Row()
    /** @type {Record<string, number>} */
    this.goaways = {}
    /** @type {Record<string, number>} */
    this.resets = {}
    /** the lowest SETTINGS_MAX_CONCURRENT_STREAMS a session was given below `streams`, 0: none lower */
    this.serverStreamsLimit = 0
    /** @type {import('./transport.js').TransportName} what the LoadResult calls the transport */
    /** @type {import('./transport.js').TransportName} */
    this.transportName = o.tls === null
      ? (o.socketPath === null ? 'node:http2' : 'node:http2-unix')
      : (o.socketPath === null ? 'node:http2-tls' : 'node:http2-tls-unix')
    /** @type {import('../types.js').TlsInfo|null} */
    this.tls = null
    /** the lent session has been taken by a Session (it carries one session's streams, once) */
    this.lentTaken = false
  }

  /** @returns {Promise<import('./engine.js').RunEnd>} */
  run () {
    return new Promise((resolve) => {
      this.resolve = resolve
      this.startTime = this.lastTime = this.lastActivity = performance.now()
      if (this.o.timelimitMs > 0) this.stopAt = this.startTime + this.o.timelimitMs
      const signal = this.o.signal
      if (signal) {
        if (signal.aborted) return this.abort()
        signal.addEventListener('abort', this.onAbort, { once: true })
      }
      this.timer = setTimeout(this.onWatchdog, Math.min(this.timeoutMs, this.stopAt - this.startTime, this.responseTimeoutMs || Infinity, MAX_TIMER_MS))
      if (this.series !== null) {
        this.series.start(this.startTime)
        this.secondTimer = setInterval(() => this.second(), LOAD_SERIES_INTERVAL_MS)
      }
      if (this.openLoop) {
        for (const s of this.slots) s.parked = true
        this.tick()
        return
      }
      for (const s of this.slots) {
        if (this.finished) break
        this.issue(s, this.startTime)
      }
    })
  }

  // Sessions.

  /** @param {Slot} slot */
  sessionOf (slot) {
    return this.sessions[slot.index % this.sessions.length]
  }

  /** Open a connection and its session. @param {Session} s */
  open (s) {
    this.connections++
    this.opened.push(s)
    s.opened = performance.now()
    const o = this.o
    const lent = o.lent ?? null
    if (lent !== null && !this.lentTaken && !lent.closed && !lent.destroyed) {
      this.lentTaken = true
      return this.borrow(s, lent)
    }
    const origin = `${o.tls === null ? 'http' : 'https'}://${o.authority}`
    const host = o.addresses[this.addressIndex]
    s.addressIndex = this.addressIndex
    const createConnection = () => {
      const socket = o.tls === null
        ? net.connect(o.socketPath === null ? { host, port: o.port, noDelay: true } : { path: o.socketPath })
        : o.tls.connect(o.socketPath === null ? { ...o.tls.options, host } : o.tls.options)
      socket.once(o.tls === null ? 'connect' : 'secureConnect', () => this.socketConnected(s))
      s.socket = socket
      return socket
    }
    const h2 = http2.connect(origin, { createConnection, settings: { enablePush: false } })
    s.h2 = h2
    h2.on('remoteSettings', (settings) => this.settings(s, settings))
    h2.on('goaway', (code) => this.goaway(s, code))
    h2.on('error', (err) => this.sessionError(s, /** @type {NodeJS.ErrnoException} */ (err)))
    h2.on('close', () => this.sessionClosed(s))
  }

  /**
   * The caller's session as `s`: connected and past its SETTINGS already, so its seats start at once.
   * @param {Session} s @param {import('node:http2').ClientHttp2Session} h2
   */
  borrow (s, h2) {
    s.lent = true
    s.h2 = h2
    // node's proxy of the socket: its byte counts, from now
    s.socket = /** @type {import('node:net').Socket} */ (h2.socket)
    s.countedRead = s.socket.bytesRead
    s.countedWritten = s.socket.bytesWritten
    s.connectedAt = s.opened
    const onSettings = (/** @type {import('node:http2').Settings} */ settings) => this.settings(s, settings)
    const onGoaway = (/** @type {number} */ code) => this.goaway(s, code)
    const onError = (/** @type {Error} */ err) => this.sessionError(s, /** @type {NodeJS.ErrnoException} */ (err))
    const onClose = () => this.sessionClosed(s)
    h2.on('remoteSettings', onSettings)
    h2.on('goaway', onGoaway)
    h2.on('error', onError)
    h2.on('close', onClose)
    s.unlisten = () => {
      h2.off('remoteSettings', onSettings)
      h2.off('goaway', onGoaway)
      h2.off('error', onError)
      h2.off('close', onClose)
    }
    this.settings(s, h2.remoteSettings)
  }

  /** @param {Session} s */
  socketConnected (s) {
    const now = performance.now()
    this.lastActivity = now
    s.connectedAt = now
    this.connectedOnce = true
    this.connectTimes.record(now - s.opened)
    const tls = this.o.tls
    if (this.tls === null && tls !== null) this.tls = { ...tls.handshakeInfo(/** @type {import('node:tls').TLSSocket} */ (s.socket)), serverName: tls.servername }
  }

  /**
   * The server's SETTINGS: the first makes the session ready, each may lower its streams.
   * @param {Session} s @param {import('node:http2').Settings} settings
   */
  settings (s, settings) {
    if (this.finished || s.dead) return
    this.lastActivity = performance.now()
    const asked = this.o.streams
    const max = settings.maxConcurrentStreams ?? asked
    if (max < asked && (this.serverStreamsLimit === 0 || max < this.serverStreamsLimit)) this.serverStreamsLimit = max
    s.limit = Math.min(asked, max)
    s.ready = true
    this.pump(s)
  }

  /** Start the waiting seats' streams, as many as the session allows. @param {Session} s */
  pump (s) {
    const now = performance.now()
    while (s.ready && !s.dead && s.active < s.limit && s.waiting.length > 0 && !this.finished) {
      const slot = /** @type {Slot} */ (s.waiting.shift())
      if (slot.session !== s || slot.state !== WAITING) continue
      this.startStream(s, slot, now)
    }
  }

  /**
   * GOAWAY: no new stream on this session; those past its last stream id fail as node closes them.
   * @param {Session} s @param {number} code
   */
  goaway (s, code) {
    const name = errorName(code)
    this.goaways[name] = (this.goaways[name] ?? 0) + 1
    s.goaway = true
    this.lastActivity = performance.now()
    this.retire(s)
  }

  /** @param {Session} s @param {NodeJS.ErrnoException} err */
  sessionError (s, err) {
    this.lastActivity = performance.now()
    const code = err.code ?? 'ERROR'
    if (s.connectedAt === 0 && !this.finished) {
      this.counts.error(code)
      if (!this.connectedOnce && this.o.socketPath === null && s.addressIndex + 1 < this.o.addresses.length) {
        // ab's fallback while nothing has connected yet: the host's next address (localhost as ::1, then
        // 127.0.0.1); the sessions that failed on the same address move on together
        if (this.addressIndex === s.addressIndex) this.addressIndex++
        this.retire(s)
        return
      }
      // ab's way with a refused or failed connect: the run cannot go on
      this.counts.errConn++
      this.counts.bad++
      this.fail(ConnectError, `${this.target()}: ${describeError(err)}`)
      return
    }
    // before SETTINGS, nghttp2's protocol error is a first frame that was not SETTINGS: bytes of
    // another protocol (an HTTP/1 server's answer to the preface) or garbage
    if (!s.ready) s.notSettings = true
    for (const slot of this.slots) if (slot.session === s && slot.state === FLIGHT && slot.fault === '') slot.fault = code
    this.retire(s)
  }

  /**
   * The session's 'close' (node emits it once the server has closed its side too, which a server
   * that sent GOAWAY may put off: nothing waits for it but this count).
   * @param {Session} s
   */
  sessionClosed (s) {
    if (this.finished) return this.release(s)
    // a connection that never became a session (no SETTINGS) is a connect failure, as in ab
    if (!s.ready && s.connectedAt > 0) {
      this.counts.errConn++
      this.counts.bad++
      this.counts.error('NO_SETTINGS')
      if (++this.connectFailures > CONNECT_FAILURES) {
        const why = !s.notSettings
          ? "connections closed before the server's SETTINGS"
          : `the server's first bytes were not an HTTP/2 SETTINGS frame${this.o.tls === null ? ' (an HTTP/1 server? http:// speaks h2c by prior knowledge)' : ''}`
        this.fail(ConnectError, `${this.target()}: test aborted after ${CONNECT_FAILURES} failures: ${why}`)
        return
      }
    }
    this.lastActivity = performance.now()
    this.retire(s)
    this.release(s)
  }

  /**
   * The session takes no new stream (GOAWAY, an error, its close): node closes it once its open
   * streams end, and its waiting seats move to a new connection at once.
   * @param {Session} s
   */
  retire (s) {
    if (s.dead) return
    s.dead = true
    if (s.h2 !== null && !s.lent && !s.h2.closed && !s.h2.destroyed) s.h2.close()
    if (s.active === 0) this.release(s)
    if (!this.finished) this.reopen(s)
  }

  /**
   * A retired session's last stream ended (or the session closed): count its figures once and drop
   * its connection, rather than wait for the server to close it.
   * @param {Session} s
   */
  release (s) {
    if (s.released) return
    s.released = true
    this.countBytes(s)
    if (s.connectedAt > 0) this.streamsPerConnection.record(s.completed)
    if (s.lent) {
      // the caller's: this run's streams still open on it are cancelled, the session kept
      s.unlisten?.()
      for (const slot of this.slots) {
        if (slot.session === s && slot.stream !== null && !slot.stream.closed) slot.stream.close(NGHTTP2_CANCEL)
      }
      return
    }
    if (s.h2 !== null && !s.h2.destroyed) s.h2.destroy()
    // node's graceful close half-closes the socket and waits for the server's side: ours to end
    if (s.socket !== null && !s.socket.destroyed) s.socket.destroy()
  }

  /**
   * A session is retired: if some of its seats still wait, a new connection carries them.
   * @param {Session} s
   */
  reopen (s) {
    const waiting = s.waiting.filter((slot) => slot.session === s && slot.state === WAITING)
    s.waiting.length = 0
    if (waiting.length === 0 || this.sessions[s.index] !== s) return
    const next = new Session(s.index)
    this.sessions[s.index] = next
    for (const slot of waiting) {
      slot.session = next
      next.waiting.push(slot)
    }
    this.open(next)
  }

  /** Add a session's socket bytes to the counts (once, at its close or the run's end). @param {Session} s */
  countBytes (s) {
    const socket = s.socket
    if (socket === null) return
    const read = socket.bytesRead
    const written = socket.bytesWritten
    this.counts.totalRead += read - s.countedRead
    this.counts.totalPosted += written - s.countedWritten
    s.countedRead = read
    s.countedWritten = written
  }

  // Requests.

  /**
   * Issue the seat's next request: on its session's next free stream, or once its session is ready.
   * @param {Slot} slot @param {number} now
   */
  issue (slot, now) {
    if (this.finished || this.counts.started >= this.requests) return
    let s = this.sessionOf(slot)
    // node destroys a session (the server's FIN, a protocol error nghttp2 found) before its 'error'
    // and 'close' reach us, and its streams' 'close' come first: no stream goes onto it
    if (!s.dead && destroyed(s)) this.retire(s)
    s = this.sessionOf(slot)
    if (s.dead) {
      // its session is going (GOAWAY, an error): a new connection
      s = new Session(s.index)
      this.sessions[s.index] = s
    }
    this.counts.started++
    slot.state = WAITING
    slot.session = s
    slot.start = now
    slot.connect = 0
    if (s.h2 === null) this.open(s)
    if (s.ready && s.active < s.limit) this.startStream(s, slot, now)
    else s.waiting.push(slot)
  }

  /**
   * Open the seat's stream and send its request.
   * @param {Session} s @param {Slot} slot @param {number} now
   */
  startStream (s, slot, now) {
    const h2 = /** @type {import('node:http2').ClientHttp2Session} */ (s.h2)
    // the first streams of a session waited for its connection and SETTINGS: their Connect time
    slot.connect = now
    slot.state = FLIGHT
    slot.status = 0
    slot.bread = 0
    slot.ended = false
    slot.fault = ''
    slot.beginread = 0
    s.active++
    const body = this.o.body
    let stream
    try {
      stream = h2.request(this.o.headers, { endStream: body === null })
    } catch (err) {
      // node refuses a stream on a session that is closing (ERR_HTTP2_GOAWAY_SESSION and the like):
      // the session is retired first, so that the seat's next request goes to a new connection
      // rather than back here (a loop as deep as the requests left)
      s.active--
      this.retire(s)
      slot.fault = /** @type {NodeJS.ErrnoException} */ (err).code ?? 'ERROR'
      this.streamFailed(slot, now)
      return
    }
    slot.stream = stream
    if (body !== null) stream.end(body)
    slot.endwrite = performance.now()
    // each handler checks that the seat still carries this stream (a cancelled one may still report)
    stream.on('response', (headers) => { if (slot.stream === stream) this.response(s, slot, headers) })
    stream.on('data', (chunk) => {
      if (slot.stream !== stream) return
      slot.bread += chunk.length
      this.lastActivity = performance.now()
    })
    stream.on('end', () => { if (slot.stream === stream) slot.ended = true })
    stream.on('error', (err) => { if (slot.stream === stream && slot.fault === '') slot.fault = /** @type {NodeJS.ErrnoException} */ (err).code ?? 'ERROR' })
    stream.on('close', () => this.streamClosed(s, slot, stream))
  }

  /**
   * A response's HEADERS (a 1xx is interim: node reports it as 'headers', never here).
   * @param {Session} s @param {Slot} slot @param {import('node:http2').IncomingHttpHeaders} headers
   */
  response (s, slot, headers) {
    const now = performance.now()
    this.lastActivity = now
    slot.beginread = now
    slot.status = Number(headers[':status'])
    if (s.firstByteAt === 0) {
      s.firstByteAt = now
      // a lent session's connection was opened by its owner, before this run
      if (!s.lent) this.firstByteTimes.record(now - s.opened)
    }
    const server = headers.server
    if (this.counts.good === 0) this.counts.servername = typeof server === 'string' ? serverToken(server) : ''
  }

  /**
   * The stream ended: a response complete to END_STREAM, or a failure.
   * @param {Session} s @param {Slot} slot @param {import('node:http2').ClientHttp2Stream} stream
   */
  streamClosed (s, slot, stream) {
    s.active--
    if (this.finished) return
    if (s.dead && s.active === 0) this.release(s)
    if (slot.stream !== stream || slot.state !== FLIGHT) {
      // cancelled by --response-timeout (already counted), or the run is over
      this.pump(s)
      return
    }
    slot.stream = null
    const now = performance.now()
    this.lastActivity = now
    const rst = stream.rstCode ?? 0
    if (slot.ended && slot.status > 0 && rst === 0) {
      s.completed++
      this.responseDone(slot, now)
    } else {
      // a session node destroyed closes its streams with a CANCEL of its own, not one received: the
      // stream is lost with its connection (the server's FIN), unless an error says more
      const lost = destroyed(s)
      if (lost && slot.fault === '') slot.fault = 'CONNECTION_CLOSED'
      // node reports a received RST_STREAM as ERR_HTTP2_STREAM_ERROR first: the frame's code says more
      if (rst !== 0 && (slot.fault === '' || slot.fault === 'ERR_HTTP2_STREAM_ERROR') && !s.dead && !lost) {
        const name = errorName(rst)
        this.resets[name] = (this.resets[name] ?? 0) + 1
        slot.fault = `RST_STREAM_${name}`
      }
      // node closes the streams a GOAWAY left unprocessed with REFUSED_STREAM of its own
      if (s.goaway && (slot.fault === '' || slot.fault === 'ERR_HTTP2_STREAM_ERROR')) slot.fault = 'GOAWAY'
      if (slot.fault === '') slot.fault = 'STREAM_CLOSED'
      this.streamFailed(slot, now)
    }
    this.pump(s)
  }

  /** @param {Slot} slot @param {number} now */
  responseDone (slot, now) {
    const counts = this.counts
    const code = slot.status
    counts.good++
    if (code >= 0 && code < 1000) counts.statusCounts[code]++
    if (code < 200 || code > 299) counts.errResponse++
    counts.totalBread += slot.bread
    counts.checkLength(slot.bread)
    if (counts.done < this.requests) this.record(slot, now)
    this.next(slot, now)
  }

  /**
   * A stream that ended without its response: a failed request, under Receive for a socket error,
   * else under Exceptions, its fault in `errors`.
   * @param {Slot} slot @param {number} now
   */
  streamFailed (slot, now) {
    const counts = this.counts
    const fault = slot.fault
    if (SOCKET_ERRORS.has(fault)) {
      counts.errRecv++
      counts.bad++
      counts.error(fault)
    } else {
      counts.malformed(fault)
    }
    counts.totalBread += slot.bread
    if (counts.done < this.requests) this.record(slot, now)
    this.next(slot, now)
  }

  /**
   * The seat is free: its next request now (closed loop) or when due (open loop).
   * @param {Slot} slot @param {number} now
   */
  next (slot, now) {
    slot.state = IDLE
    slot.stream = null
    if (this.finished) return
    this.lastTime = now
    if (this.openLoop) this.freed(slot, now)
    else this.issue(slot, now)
    this.checkEnd()
  }

  /**
   * Count a completed request, then run the caller's callbacks (engine.js record()'s rules).
   * @param {Slot} slot @param {number} now
   */
  record (slot, now) {
    const counts = this.counts
    const ctime = slot.connect > slot.start ? slot.connect - slot.start : 0
    const time = now > slot.start ? now - slot.start : 0
    const wait = slot.beginread > slot.endwrite ? slot.beginread - slot.endwrite : 0
    counts.complete(ctime, time, wait, false)
    const latency = counts.corrected !== null ? (now > slot.intended ? now - slot.intended : 0) : time
    if (counts.corrected !== null) counts.corrected.record(latency)
    if (this.onRequest !== null) {
      try {
        this.onRequest({ start: performance.timeOrigin + slot.start, connect: ctime, waiting: wait, total: time, latency })
      } catch (err) {
        this.callbackFailed(err)
      }
    }
    if (this.heartbeat > 0 && counts.done % this.heartbeat === 0) {
      try {
        this.onProgress(counts.done)
      } catch (err) {
        this.callbackFailed(err)
      }
    }
  }

  // The open loop (-R): engine.js's schedule, over seats instead of connections.

  tick () {
    this.tickTimer = null
    if (this.finished) return
    const now = performance.now()
    const slots = this.slots
    const requests = this.requests
    const schedule = /** @type {import('./schedule.js').Schedule} */ (this.schedule)
    let j = this.nextDue
    let due = 0
    for (; j < requests; j++) {
      due = this.startTime + schedule.dueMs(j)
      if (due > now) break
      const slot = slots[j % slots.length]
      if (slot.parked && slot.seq === j) this.send(slot, now, due)
      if (this.finished) return
    }
    this.nextDue = j
    if (j >= requests) return
    this.tickTimer = setTimeout(this.onTick, Math.max(1, Math.min(due - now, MAX_TIMER_MS)))
  }

  /** @param {Slot} slot @param {number} now */
  freed (slot, now) {
    if (slot.seq >= this.requests) {
      slot.parked = false
      return
    }
    const due = this.startTime + /** @type {import('./schedule.js').Schedule} */ (this.schedule).dueMs(slot.seq)
    if (due <= now) this.send(slot, now, due)
    else slot.parked = true
  }

  /** @param {Slot} slot @param {number} now @param {number} intended */
  send (slot, now, intended) {
    slot.parked = false
    slot.intended = intended
    slot.seq += this.slots.length
    this.counts.sent++
    if (now - intended > LATE_THRESHOLD_MS) this.counts.late++
    this.lastActivity = now
    this.issue(slot, now)
  }

  // Bounds and the end.

  /** The run's one timer, for every time bound (run-bounds.js): -t, -s, --response-timeout. */
  watchdog () {
    this.timer = null
    const next = checkBounds(this, this.slots, inFlight)
    if (next >= 0) this.timer = setTimeout(this.onWatchdog, next)
  }

  /**
   * --response-timeout: the request fails (Exceptions, RESPONSE_TIMEOUT), its stream is cancelled
   * (RST_STREAM CANCEL); the session carries on.
   * @param {Slot} slot @param {number} now
   */
  responseTimedOut (slot, now) {
    const stream = slot.stream
    slot.stream = null
    if (stream !== null) stream.close(NGHTTP2_CANCEL)
    slot.fault = 'RESPONSE_TIMEOUT'
    this.counts.malformed('RESPONSE_TIMEOUT')
    if (this.counts.done < this.requests) this.record(slot, now)
    this.next(slot, now)
  }

  /** The series' timer (engine.js second()). */
  second () {
    const point = /** @type {import('./load-series.js').LoadSeries} */ (this.series).sample(performance.now())
    if (point === null || this.o.onSecond === null) return
    try {
      this.o.onSecond(point)
    } catch (err) {
      this.callbackFailed(err)
    }
  }

  abort () {
    if (this.finished) return
    this.lastTime = performance.now()
    this.aborted = true
    this.finish()
  }

  /** @param {typeof ConnectError|typeof import('../errors.js').TimeoutError} Failure @param {string} message */
  fail (Failure, message) {
    if (this.finished) return
    this.failure = new Failure(message)
    this.aborted = true
    this.finish()
  }

  /** @param {unknown} err */
  callbackFailed (err) {
    if (this.finished) return
    this.callbackError = { thrown: err }
    this.aborted = true
    this.finish()
  }

  checkEnd () {
    if (!this.finished && (this.counts.done >= this.requests || this.lastTime >= this.stopAt)) this.finish()
  }

  finish () {
    this.finished = true
    if (this.timer !== null) clearTimeout(this.timer)
    if (this.tickTimer !== null) clearTimeout(this.tickTimer)
    if (this.secondTimer !== null) clearInterval(this.secondTimer)
    this.timer = this.tickTimer = this.secondTimer = null
    if (this.series !== null) this.series.sample(this.lastTime)
    if (this.o.signal) this.o.signal.removeEventListener('abort', this.onAbort)
    for (const s of this.opened) {
      s.dead = true
      this.release(s)
    }
    const timeTakenSeconds = Math.round((this.lastTime - this.startTime) * 1000) / 1e6
    this.resolve({ timeTakenSeconds, startTime: this.startTime, endTime: this.lastTime, aborted: this.aborted, failure: this.failure, callbackError: this.callbackError })
  }

  /**
   * LoadResult.http2: the run's connections (sessions) and what they were told.
   * @returns {import('../types.js').Http2Info}
   */
  info () {
    const summary = (/** @type {Row} */ row) => row.count === 0
      ? { min: 0, mean: 0, max: 0 }
      : { min: round3(row.min), mean: round3(row.sum / row.count), max: round3(row.max) }
    return {
      streams: this.o.streams,
      serverStreamsLimit: this.serverStreamsLimit,
      connections: this.connections,
      connectMs: summary(this.connectTimes),
      firstByteMs: summary(this.firstByteTimes),
      streamsPerConnection: summary(this.streamsPerConnection),
      goaways: { ...this.goaways },
      resets: { ...this.resets }
    }
  }

  /** host:port for messages. */
  target () {
    if (this.o.socketPath !== null) return `unix:${this.o.socketPath}`
    const h = this.o.hostname
    return `${h.includes(':') ? `[${h}]` : h}:${this.o.port}`
  }
}

/**
 * ab's Server name: the header's value up to its first space or control byte (ab-counts.js serverName).
 * @param {string} value
 */
function serverToken (value) {
  let end = 0
  while (end < value.length && value.charCodeAt(end) > 32) end++
  return value.slice(0, end)
}

/** @param {number} ms */
function round3 (ms) {
  return Math.round(ms * 1000) / 1000
}

/** node:http2 has destroyed the session (it takes no stream), whether or not it has said so yet. @param {Session} s */
function destroyed (s) {
  return s.h2 !== null && s.h2.destroyed
}

/** A request is on its way (issued, waiting for its stream, or in flight). @param {Slot} slot */
function inFlight (slot) {
  return slot.state !== IDLE
}

function noop () {}
