// The HTTP/2 engine (--http2): requests as streams over `concurrency` connections, each carrying up to
// `streams` of them at once (h2load's -c and -m), counted by the same AbCounts (ab-counts.js), timed by
// the same Rows (request-times.js), scheduled by the same Schedule (-R) and resolving the same RunEnd
// as the HTTP/1 Engine (engine.js), so loadtest() builds one LoadResult.
//
// The bytes go over the run's transport (transport.js: native, node:net, node:tls, over TCP or a unix
// socket), as the HTTP/1 Engine's do: this engine is its handlers (connected, data, eof, error) and
// never asks which transport it has. Each connection's HTTP/2 is an H2Session (h2-frames.js): the
// framing, HPACK and flow control as a state machine over the bytes read, its streams on numbered
// seats. A seat of the engine (Slot) is seat floor(k / concurrency) of session k % concurrency, so
// the session's callbacks name the engine's slot without a lookup table.
//
// Sessions. http:// speaks h2c by prior knowledge (the connection preface at once, no Upgrade);
// https:// negotiates h2 by ALPN (loadtest() probes it once before the run: a server refusing h2 is
// run over HTTP/1.1 instead, and LoadResult.protocol says which; a connection of the run on which
// the server chose otherwise fails as one that never sent SETTINGS). A session carries no stream
// before the server's first SETTINGS: its SETTINGS_MAX_CONCURRENT_STREAMS, when below `streams`, caps
// the seats in use (the lowest cap is in LoadResult.http2.serverStreamsLimit). A session the server
// ends (GOAWAY, its close, a protocol error) is replaced by a new connection for the seats that still
// have requests to carry; one whose server broke the protocol is closed here at once (after our
// GOAWAY), rather than waiting for the server to close it.
//
// Counting, in ab's terms. A stream that ends with its response's END_STREAM is a good response
// (status counted, ab's Length check on its DATA bytes); one reset by the server (RST_STREAM), or
// lost with its connection (GOAWAY past its id, a closed socket, a protocol error), is a failed
// request: a reset (RST_STREAM_<code>), a stream a GOAWAY left unprocessed (GOAWAY) or the protocol
// error the client found (its RFC 9113 code's name) under Exceptions, a socket error or the server's
// close (CONNECTION_CLOSED) under Receive. Unlike ab without -r, a lost connection does not end the
// run: its streams fail and its seats reconnect; a connection that ends before the server's first
// SETTINGS counts as a connect failure, and more than 10 of them end the run as ab's connect
// failures do.
//
// Times per request (stream): start when its seat issued it (waiting for its session's SETTINGS
// included: that wait is its Connect time, 0 on a session already open), Waiting from its request's
// frames being queued to its response's HEADERS, Total to END_STREAM. Bytes: Total transferred is
// every byte read from the connections (frames of every type, HPACK-compressed headers; for https,
// the TLS records' payloads), HTML transferred the DATA payloads of the responses; Total body sent
// every byte written when a body is sent.
import { performance } from 'node:perf_hooks'
import { ConnectError } from '../errors.js'
import { Connection, describeError } from './connection.js'
import { LATE_THRESHOLD_MS } from './engine.js'
import { H2Session, ENDED, RESET, REFUSED, h2ErrorName } from './h2-frames.js'
import { encodeRequestBlock } from './hpack.js'
import { LOAD_SERIES_INTERVAL_MS } from './load-series.js'
import { MAX_TIMER_MS, checkBounds } from './run-bounds.js'
import { Row } from './request-times.js'

/** ab's limit: more than this many connect failures end the run. */
const CONNECT_FAILURES = 10

const IDLE = 0
/** issued, waiting for its session's SETTINGS or a free stream */
const WAITING = 1
/** its stream is open */
const FLIGHT = 2

/** @param {number} code an HTTP/2 error code */
export function errorName (code) {
  return h2ErrorName(code)
}

/**
 * Socket errors, and a connection the server closed (CONNECTION_CLOSED): a request lost with its
 * connection counts under ab's Receive, as on HTTP/1.
 */
const SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ENETUNREACH', 'EHOSTUNREACH', 'CONNECTION_CLOSED'])

/**
 * @typedef {object} H2EngineOptions
 * @property {string[]} addresses the host's addresses, in resolver order (resolved once, as ab does)
 * @property {string|null} socketPath  --unix: the server's unix socket, connected instead of address:port
 * @property {string} hostname    for messages
 * @property {number} port
 * @property {import('./transport.js').Transport} transport  the run's (https: node:tls offering ALPN h2)
 * @property {Buffer} block       every request's header block (requestBlock())
 * @property {Buffer|null} body   sent with each request
 * @property {boolean} tls        https: each connection must have negotiated h2
 * @property {number} requests
 * @property {number} concurrency connections
 * @property {number} streams     concurrent streams per connection (-m of h2load)
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
 * @property {import('./h2-shared.js').H2SharedConnection|null} lent  the caller's connection, carrying the first session's streams
 * @property {import('./ab-counts.js').AbCounts} counts
 */

/**
 * An https run's TLS: tls.connect, its options (context, SNI, ALPN h2) and tls.js's handshakeInfo.
 * @typedef {object} Http2Tls
 * @property {(options: import('node:tls').ConnectionOptions) => import('node:tls').TLSSocket} connect
 * @property {import('node:tls').ConnectionOptions} options
 * @property {(socket: import('node:tls').TLSSocket) => Omit<import('../types.js').TlsInfo, 'serverName'>} handshakeInfo
 * @property {string|null} servername
 */

/** One seat of a session: carries one request (stream) at a time. */
class Slot {
  /** @param {number} index @param {number} seat its number in its session */
  constructor (index, seat) {
    this.index = index
    this.seat = seat
    this.state = IDLE
    /** @type {Session|null} */
    this.session = null
    this.start = 0
    this.connect = 0
    this.endwrite = 0
    this.beginread = 0
    this.status = 0
    this.bread = 0
    /** what ended its stream without a response, '' when none */
    this.fault = ''
    /** open loop: parked, the next request it carries (seq), and when that was due */
    this.parked = false
    this.seq = 0
    this.intended = 0
  }
}

/** A connection of the run: the transport's Connection, pointing back at its Session. */
class H2Connection extends Connection {
  /** @param {H2Engine} engine @param {Session} session */
  constructor (engine, session) {
    super(/** @type {import('./engine.js').Engine} */ (/** @type {unknown} */ (engine)))
    this.session = session
  }
}

/** One connection and its H2Session: the session's handler (h2-frames.js H2Handler). */
class Session {
  /** @param {H2Engine} engine @param {number} index which of the -c sessions (a replacement keeps its index) */
  constructor (engine, index) {
    this.engine = engine
    this.index = index
    this.c = new H2Connection(engine, this)
    this.h2 = new H2Session(this, { seats: engine.o.streams })
    // ab's Server name is the first good response's: the decoded fields are kept until then
    if (engine.counts.good === 0) this.h2.hpack.fields = []
    /** the first slot of its seats (seat n is slot first + n * concurrency) */
    this.opened = 0
    this.connectedAt = 0
    this.firstByteAt = 0
    /** the server's SETTINGS arrived: streams may open */
    this.settled = false
    /** the connection ended on a protocol error before SETTINGS: its first frame was something else */
    this.notSettings = false
    /** GOAWAY, its close or an error: no new stream */
    this.dead = false
    /** its connection is gone (closed by either side) */
    this.closed = false
    /** what its streams are lost to when the connection goes: a socket error's code, CONNECTION_CLOSED */
    this.fault = ''
    this.completed = 0
    /** @type {Slot[]} seats waiting for a stream, in order */
    this.waiting = []
    /** its figures are counted and its connection dropped (release()) */
    this.released = false
    /** requests were queued outside a read of its connection: flush() owed */
    this.unflushed = false
    /** which of the host's addresses its connection went to */
    this.addressIndex = 0
    /** its streams on the connection: the seats of h2 it uses are base .. base + streams - 1 */
    this.inFlight = 0
    this.base = 0
    /** @type {import('./h2-shared.js').H2SharedConnection|null} a lent connection (H2EngineOptions.lent), never closed here */
    this.shared = null
    /** a lent connection's byte counts when this run took its seats */
    this.readFrom = 0
    this.writtenFrom = 0
  }

  /** A lent connection is gone. @param {string} fault */
  connectionLost (fault) { this.engine.lost(this, fault) }

  /** @param {Buffer} data */
  write (data) {
    const engine = this.engine
    if (this.closed) return
    engine.counts.totalPosted += data.length
    this.c.write(data)
  }

  ready () { this.engine.settings(this) }

  /** @param {number} seat */
  streamHeaders (seat) { this.engine.response(this, seat) }

  /** @param {number} seat @param {number} outcome */
  streamEnd (seat, outcome) { this.engine.streamEnded(this, seat, outcome) }

  /** @param {number} _last @param {number} code */
  goaway (_last, code) { this.engine.goaway(this, code) }

  /** @param {number} _code @param {string} _reason */
  sessionError (_code, _reason) { this.engine.protocolError(this) }
}

export class H2Engine {
  /** @param {H2EngineOptions} o */
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
    // What a Connection and the transports read of their engine (connection.js, native-io.js).
    this.transport = o.transport
    this.request = null
    this.nodelay = true
    this.socketPath = o.socketPath
    this.addresses = o.addresses
    this.port = o.port
    /** @type {Session[]} */
    this.sessions = Array.from({ length: o.concurrency }, (_, i) => new Session(this, i))
    /** slot k is seat k / concurrency of session k % concurrency: request j of the open loop goes to slot j % slots */
    this.slots = Array.from({ length: o.concurrency * o.streams }, (_, k) => new Slot(k, Math.floor(k / o.concurrency)))
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
    /** @type {Session[]} sessions owing a flush of requests queued outside their reads */
    this.unflushed = []
    this.onFlush = this.flushAll.bind(this)
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
    /** the lent connection has been taken by a Session (it carries one session's streams, once) */
    this.lentTaken = false
  }

  /** What the LoadResult calls the transport. @returns {import('./transport.js').TransportName} */
  get transportName () {
    return this.transport.name
  }

  /** https: what the run's first handshake said. @returns {import('../types.js').TlsInfo|null} */
  get tls () {
    return this.o.tls ? this.transport.tlsInfo() : null
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

  /** Open a session's connection. @param {Session} s */
  open (s) {
    this.connections++
    this.opened.push(s)
    s.opened = performance.now()
    s.addressIndex = this.addressIndex
    const lent = this.o.lent
    if (lent !== null && !this.lentTaken) {
      this.lentTaken = true
      const base = lent.lease(this.o.streams, s)
      if (base >= 0) return this.borrow(s, lent, base)
    }
    s.c.open()
  }

  /**
   * The caller's connection as `s`'s: connected and past its SETTINGS already, so its seats start at once.
   * @param {Session} s @param {import('./h2-shared.js').H2SharedConnection} lent @param {number} base its first seat there
   */
  borrow (s, lent, base) {
    s.shared = lent
    s.h2 = lent.h2
    s.base = base
    s.readFrom = lent.bytesRead
    s.writtenFrom = lent.bytesWritten
    s.connectedAt = s.opened
    this.connectedOnce = true
    if (s.h2.hpack.fields === null && this.counts.good === 0) s.h2.hpack.fields = []
    this.settings(s)
  }

  // The transport's handlers (transport.js).

  /** @param {H2Connection} c @param {number} [at] */
  connected (c, at) {
    const s = c.session
    const now = at ?? performance.now()
    this.lastActivity = now
    s.connectedAt = now
    this.connectedOnce = true
    this.connectTimes.record(now - s.opened)
    if (this.o.tls && /** @type {import('node:tls').TLSSocket|null} */ (/** @type {unknown} */ (c.socket))?.alpnProtocol !== 'h2') {
      // the server chose another protocol for this connection: it never becomes a session
      s.notSettings = true
      this.lost(s, 'CONNECTION_CLOSED')
      return
    }
    s.h2.start()
  }

  /** @param {H2Connection} c @param {Buffer} buf @param {number} r @param {number} [at] the read's time (the native transport's) */
  data (c, buf, r, at) {
    const s = c.session
    this.counts.totalRead += r
    this.lastActivity = at ?? performance.now()
    s.h2.data(buf, r)
  }

  /** The server closed its side: the connection is over. @param {H2Connection} c */
  eof (c) {
    this.lost(c.session, 'CONNECTION_CLOSED')
  }

  /** @param {H2Connection} c @param {NodeJS.ErrnoException} err */
  error (c, err) {
    const s = c.session
    this.lastActivity = performance.now()
    const code = err.code ?? 'ERROR'
    if (s.connectedAt === 0 && !this.finished) {
      s.closed = s.dead = true
      s.c.drop()
      this.counts.error(code)
      if (!this.connectedOnce && this.o.socketPath === null && s.addressIndex + 1 < this.o.addresses.length) {
        // ab's fallback while nothing has connected yet: the host's next address (localhost as ::1, then
        // 127.0.0.1); the sessions that failed on the same address move on together
        if (this.addressIndex === s.addressIndex) {
          this.addressIndex++
          this.transport.useAddress(this.o.addresses[this.addressIndex])
        }
        this.reopen(s)
        this.release(s)
        return
      }
      // ab's way with a refused or failed connect: the run cannot go on
      this.counts.errConn++
      this.counts.bad++
      this.fail(ConnectError, `${this.target()}: ${describeError(err)}`)
      return
    }
    this.lost(s, code)
  }

  /**
   * The session's connection is gone (the server closed it, a socket error, a protocol error, h2 not
   * negotiated): its open streams fail with `fault` (a protocol error's name when it was one), its
   * waiting seats move to a new connection.
   * @param {Session} s @param {string} fault
   */
  lost (s, fault) {
    if (s.closed) return
    s.closed = true
    // dead first: the streams' ends issue their seats' next requests, which must not come back here
    s.dead = true
    s.fault = fault
    this.lastActivity = performance.now()
    s.c.drop()
    s.h2.close()
    if (this.finished) return this.release(s)
    // a connection that never became a session (no SETTINGS) is a connect failure, as in ab
    if (!s.settled && s.connectedAt > 0) {
      this.counts.errConn++
      this.counts.bad++
      this.counts.error('NO_SETTINGS')
      if (++this.connectFailures > CONNECT_FAILURES) {
        const why = !s.notSettings
          ? "connections closed before the server's SETTINGS"
          : `the server's first bytes were not an HTTP/2 SETTINGS frame${this.o.tls ? '' : ' (an HTTP/1 server? http:// speaks h2c by prior knowledge)'}`
        this.fail(ConnectError, `${this.target()}: test aborted after ${CONNECT_FAILURES} failures: ${why}`)
        return
      }
    }
    this.reopen(s)
    this.release(s)
  }

  // The session's handler (h2-frames.js H2Handler), through Session.

  /** The server's first SETTINGS: the session is ready, its SETTINGS_MAX_CONCURRENT_STREAMS said. @param {Session} s */
  settings (s) {
    if (this.finished || s.dead) return
    this.lastActivity = performance.now()
    const max = s.h2.peerMaxStreams
    if (max < this.o.streams && (this.serverStreamsLimit === 0 || max < this.serverStreamsLimit)) this.serverStreamsLimit = max
    s.settled = true
    this.pump(s)
  }

  /** Start the waiting seats' streams, as many as the session allows. @param {Session} s */
  pump (s) {
    const now = performance.now()
    while (s.settled && !s.dead && s.waiting.length > 0 && !this.finished && s.h2.capacity() > 0) {
      const slot = /** @type {Slot} */ (s.waiting.shift())
      if (slot.session !== s || slot.state !== WAITING) continue
      this.startStream(s, slot, now)
    }
  }

  /**
   * GOAWAY: no new stream on this session; those past its last stream id have failed (REFUSED).
   * @param {Session} s @param {number} code
   */
  goaway (s, code) {
    const name = errorName(code)
    this.goaways[name] = (this.goaways[name] ?? 0) + 1
    this.lastActivity = performance.now()
    this.retire(s)
  }

  /**
   * A protocol error the session found (its GOAWAY written, its streams lost): the connection is
   * closed. Before SETTINGS, it was a first frame that was not SETTINGS: bytes of another protocol
   * (an HTTP/1 server's answer to the preface) or garbage.
   * @param {Session} s
   */
  protocolError (s) {
    if (!s.settled) s.notSettings = true
    this.lost(s, errorName(s.h2.errorCode))
  }

  /**
   * The session takes no new stream (GOAWAY): its connection is dropped once its open streams end,
   * and its waiting seats move to a new connection at once.
   * @param {Session} s
   */
  retire (s) {
    if (s.dead) return
    s.dead = true
    if (s.inFlight === 0) this.release(s)
    if (!this.finished) this.reopen(s)
  }

  /**
   * A retired session's last stream ended (or its connection is gone): count its figures once and
   * drop its connection, rather than wait for the server to close it.
   * @param {Session} s
   */
  release (s) {
    if (s.released) return
    s.released = true
    s.closed = true
    if (s.connectedAt > 0) this.streamsPerConnection.record(s.completed)
    const lent = s.shared
    if (lent === null) return s.c.release()
    // the caller's: this run's streams still open on it are cancelled, its seats given back
    for (const slot of this.slots) {
      if (slot.session === s && slot.state === FLIGHT) s.h2.cancel(s.base + slot.seat)
    }
    s.inFlight = 0
    if (!lent.closed) s.h2.flush()
    lent.giveBack(s)
    this.counts.totalRead += lent.bytesRead - s.readFrom
    this.counts.totalPosted += lent.bytesWritten - s.writtenFrom
  }

  /**
   * A session is retired: if some of its seats still wait, a new connection carries them.
   * @param {Session} s
   */
  reopen (s) {
    const waiting = s.waiting.filter((slot) => slot.session === s && slot.state === WAITING)
    s.waiting.length = 0
    if (waiting.length === 0) return
    // its replacement, when a stream's end has made one already
    let next = this.sessions[s.index]
    if (next === s) {
      next = new Session(this, s.index)
      this.sessions[s.index] = next
    }
    for (const slot of waiting) {
      slot.session = next
      next.waiting.push(slot)
    }
    if (next.opened === 0) this.open(next)
    else this.pump(next)
  }

  /** Write the requests queued outside the sessions' reads (h2-frames.js flushes those of a read). */
  flushAll () {
    for (const s of this.unflushed) {
      s.unflushed = false
      if (!s.closed) s.h2.flush()
    }
    this.unflushed.length = 0
  }

  // Requests.

  /**
   * Issue the seat's next request: on its session's next free stream, or once its session is ready.
   * @param {Slot} slot @param {number} now
   */
  issue (slot, now) {
    if (this.finished || this.counts.started >= this.requests) return
    let s = this.sessionOf(slot)
    if (s.dead) {
      // its session is going (GOAWAY, an error): a new connection
      s = new Session(this, s.index)
      this.sessions[s.index] = s
    }
    this.counts.started++
    slot.state = WAITING
    slot.session = s
    slot.start = now
    slot.connect = 0
    if (s.opened === 0) this.open(s)
    if (s.settled && s.h2.capacity() > 0) this.startStream(s, slot, now)
    else s.waiting.push(slot)
  }

  /**
   * Open the seat's stream and queue its request (written at the end of the current read, or soon).
   * @param {Session} s @param {Slot} slot @param {number} now
   */
  startStream (s, slot, now) {
    // the first streams of a session waited for its connection and SETTINGS: their Connect time
    slot.connect = now
    slot.state = FLIGHT
    slot.status = 0
    slot.bread = 0
    slot.fault = ''
    slot.beginread = 0
    s.inFlight++
    s.h2.request(s.base + slot.seat, this.o.block, this.o.body)
    slot.endwrite = now
    if (!s.unflushed) {
      s.unflushed = true
      if (this.unflushed.push(s) === 1) queueMicrotask(this.onFlush)
    }
  }

  /**
   * A response's final HEADERS.
   * @param {Session} s @param {number} seat
   */
  response (s, seat) {
    const slot = this.slots[(seat - s.base) * this.sessions.length + s.index]
    const now = performance.now()
    this.lastActivity = now
    slot.beginread = now
    slot.status = s.h2.status[seat]
    if (s.firstByteAt === 0) {
      s.firstByteAt = now
      // a lent connection was opened by its owner, before this run
      if (s.shared === null) this.firstByteTimes.record(now - s.opened)
    }
    const fields = s.h2.hpack.fields
    if (fields !== null) {
      if (this.counts.good === 0) {
        const server = fields.find(([name]) => name === 'server')
        this.counts.servername = server === undefined ? '' : serverToken(server[1])
        fields.length = 0
      } else {
        s.h2.hpack.fields = null
      }
    }
  }

  /**
   * The seat's stream ended: a response complete to END_STREAM, or a failure.
   * @param {Session} s @param {number} seat @param {number} outcome
   */
  streamEnded (s, seat, outcome) {
    const slot = this.slots[(seat - s.base) * this.sessions.length + s.index]
    s.inFlight--
    if (s.dead && s.inFlight === 0) this.release(s)
    if (this.finished) return
    if (slot.state !== FLIGHT || slot.session !== s) return this.pump(s)
    const now = performance.now()
    this.lastActivity = now
    slot.bread = s.h2.dataBytes[seat]
    if (outcome === ENDED) {
      s.completed++
      this.responseDone(slot, now)
    } else {
      if (outcome === RESET) {
        const name = errorName(s.h2.resetCode[seat])
        this.resets[name] = (this.resets[name] ?? 0) + 1
        slot.fault = `RST_STREAM_${name}`
      } else if (outcome === REFUSED) {
        slot.fault = 'GOAWAY'
      } else {
        slot.fault = s.h2.errorCode >= 0 ? errorName(s.h2.errorCode) : s.fault || s.shared?.fault || 'CONNECTION_CLOSED'
      }
      this.streamFailed(slot, now)
    }
    // its stream is free: a seat waiting for one (the server's limit below --streams) takes it
    if (s.waiting.length > 0) this.pump(s)
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
   * (RST_STREAM CANCEL) or its wait for one ended; the session carries on.
   * @param {Slot} slot @param {number} now
   */
  responseTimedOut (slot, now) {
    const s = /** @type {Session} */ (slot.session)
    if (slot.state === FLIGHT) {
      s.h2.cancel(s.base + slot.seat)
      s.inFlight--
      if (!s.unflushed) {
        s.unflushed = true
        if (this.unflushed.push(s) === 1) queueMicrotask(this.onFlush)
      }
      if (s.dead && s.inFlight === 0) this.release(s)
    } else {
      const at = s.waiting.indexOf(slot)
      if (at >= 0) s.waiting.splice(at, 1)
    }
    slot.fault = 'RESPONSE_TIMEOUT'
    this.counts.malformed('RESPONSE_TIMEOUT')
    if (this.counts.done < this.requests) this.record(slot, now)
    this.next(slot, now)
    if (s.waiting.length > 0) this.pump(s)
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

/** A request is on its way (issued, waiting for its stream, or in flight). @param {Slot} slot */
function inFlight (slot) {
  return slot.state !== IDLE
}

function noop () {}

/** Request headers HTTP/2 forbids (RFC 9113 8.2.2) or carries as a pseudo-header (Host). */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'])

/**
 * Every request's headers: ab's request head (request.js requestHead: -H, -C, -A, -P, -p / -T, ab's
 * defaults), its Host as :authority, without the headers HTTP/2 forbids; names in lower case.
 * @param {import('./options.js').NormalizedLoadOptions} o
 * @param {import('./request.js').Target} target
 * @param {string} head requestHead(o, target)
 * @returns {import('node:http2').OutgoingHttpHeaders}
 */
export function http2Headers (o, target, head) {
  /** @type {Record<string, string|string[]>} */
  const headers = { ':method': o.method, ':scheme': target.tls ? 'https' : 'http', ':path': target.path }
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (name === 'host') headers[':authority'] = value
    if (CONNECTION_HEADERS.has(name)) continue
    const had = headers[name]
    headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
  }
  return headers
}

/**
 * The header block every stream carries (hpack.js encodeRequestBlock), from http2Headers()'s list.
 * @param {import('node:http2').OutgoingHttpHeaders} headers
 * @returns {Buffer}
 */
export function requestBlock (headers) {
  /** @type {[string, string][]} */
  const fields = []
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) fields.push([name, String(one)])
  }
  return encodeRequestBlock({
    method: String(headers[':method']),
    scheme: String(headers[':scheme']),
    authority: String(headers[':authority']),
    path: String(headers[':path']),
    headers: fields
  })
}

/**
 * https: what the server says to ALPN h2, asked once on a connection of its own before the run.
 * 'h2' also when the probe cannot connect: the run then fails as its first connection does.
 * @param {Http2Tls} tls @param {number} timeoutMs -s
 * @returns {Promise<string>} the protocol chosen: 'h2', 'http/1.1', or '' when the server chose none
 */
export function negotiate (tls, timeoutMs) {
  return new Promise((resolve) => {
    const socket = tls.connect(tls.options)
    const done = (/** @type {string} */ protocol) => { socket.destroy(); resolve(protocol) }
    socket.setTimeout(timeoutMs, () => done('h2'))
    socket.once('secureConnect', () => done(socket.alpnProtocol || ''))
    socket.once('error', () => done('h2'))
  })
}
