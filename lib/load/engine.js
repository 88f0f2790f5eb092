// The connection engine: `concurrency` sockets driven by their events, counting exactly as ab 2.3's
// start_connect(), write_request(), read_connection() and close_connection() do (support/ab.c), so
// every figure of the report means what it means in ab.
//
// One class, the connections' lifecycle, in the order of ab.c: connect, write, read the header, read
// the body, close, and the error paths that end a run. It talks to three parts, each handed in:
//   - counts  (AbCounts, ab-counts.js): what is counted, under ab's names; it makes the LoadResult;
//   - framing (AbFraming or Http11Framing, framing.js): when a response ends, and whether its
//     connection carries the next request;
//   - Connection (connection.js): ab's struct connection, whose socket the run's Transport
//     (transport.js: node:net, node:tls or the native transport) opens, writes and closes; the
//     transport's socket events call connected(), data(), eof() and error() below.
// The hot path (data -> header -> body -> responseDone -> writeRequest) allocates nothing per request
// (the native transport hands each read over as a Buffer view of its arena: one small object per read).
//
// Open loop (-R, `rate`: wrk2's semantics). Request j of the run (0-based) is due at start + j / rate
// (on a ramp, -R FROM..TO --ramp: when the rate's integral reaches j; schedule.js) and goes to
// connection j % concurrency, so under a constant rate each connection follows its own evenly spaced
// schedule at rate / concurrency, connection i starting at i / rate. A connection that is free before
// its next request is due is parked; the scheduler (tick()) sends every parked connection's request
// that is due, all of them in one timer turn (Node's timers have 1 ms granularity: at 10000 req/s a
// turn sends ~10), and arms its one timer for the next intended time. Intended times come from the
// schedule (start + schedule.dueMs(j)), never from the last send, so a late turn does not shift the
// ones after it. A connection still busy when its request comes due sends it the moment it is free
// (freed()), and that request's latency counts from its intended time: wrk2's correction for
// coordinated omission.
// No pipelining: a connection carries one request at a time.
import { performance } from 'node:perf_hooks'
import { ConnectError } from '../errors.js'
import {
  Connection, describeError, describeFdExhaustion, openFilesLimit, SYNC_CONNECT_ERRORS, CONNECTING, CONNECTED, READING
} from './connection.js'
import { HEADER_LIMIT, findHeaderEnd, statusCode } from './response-parser.js'
import { COMPLETE, INVALID, INTERIM } from './framing.js'
import { assignRoutes } from './routes.js'
import { LOAD_SERIES_INTERVAL_MS } from './load-series.js'
import { MAX_TIMER_MS, checkBounds } from './run-bounds.js'

/**
 * Open loop: a request sent more than this many ms after its intended time counts as late. Node's
 * timers fire up to ~1 ms after the time asked (and the scheduler's turn shares the loop with the
 * responses), so on-time sends lag their schedule by up to ~1-2 ms on an idle machine; 5 ms leaves
 * that jitter out and counts what matters: a request whose connection was still busy, or a
 * generator that fell behind. (wrk2 reports no such count; its correction is in the latencies.)
 */
export const LATE_THRESHOLD_MS = 5

/**
 * @typedef {object} EngineOptions
 * @property {string[]} addresses IP addresses of the host, in resolver order (resolved once, as ab does)
 * @property {string} hostname     for messages
 * @property {number} port
 * @property {Buffer} request      the bytes written for each request
 * @property {{ request: Buffer, counts: import('./routes.js').RouteCounts }[]|null} [routes] a mix: each route's request
 *           bytes and counts; each connection carries one route (assignRoutes), `request` is then unused
 * @property {number} requests     -n (open loop: intended requests)
 * @property {import('./schedule.js').Schedule|null} schedule -R: when each request is due (null: ab's closed loop)
 * @property {number} concurrency  -c
 * @property {boolean} continueOnReceiveError -r
 * @property {number} timeoutMs    -s
 * @property {number} timelimitMs  -t (0: none)
 * @property {number} responseTimeoutMs --response-timeout (0: none): the longest one response may take
 * @property {number} heartbeat    completed requests between onProgress calls (0: none)
 * @property {((done: number) => void)|null} onProgress
 * @property {((record: import('../types.js').RequestTiming) => void)|null} onRequest
 * @property {import('./load-series.js').LoadSeries|null} [series] read once a second (load-series.js), and at the end
 * @property {((point: import('./load-series.js').LoadSecond) => void)|null} [onSecond] each second's point as it is read
 * @property {AbortSignal|null} signal
 * @property {import('./ab-counts.js').AbCounts} counts where the run counts
 * @property {import('./framing.js').Framing} framing  ab's (AbFraming) or HTTP/1.1's (Http11Framing)
 * @property {import('./transport.js').Transport} transport  the run's sockets (transport.js: createTransport)
 * @property {string|null} [socketPath] --unix: the unix socket connected to instead of address:port (for messages)
 */

/**
 * How a run ended, as Engine.run() resolves.
 * @typedef {object} RunEnd
 * @property {number} timeTakenSeconds from the first connect to the last response, whole microseconds
 * @property {number} [startTime]  the run's start and end, performance.now() of the engine's thread (the
 * @property {number} [endTime]    same clock in every thread of a process: workers.js merges the windows)
 * @property {boolean} aborted  ended early: a signal, ab's exit, a callback that threw
 * @property {ConnectError|import('../errors.js').TimeoutError|null} failure where ab would exit
 * @property {{ thrown: unknown }|null} callbackError what a caller's callback threw (boxed: a callback
 *           may throw any value, undefined included)
 */

/** @typedef {NodeJS.ErrnoException} ErrnoException */

export class Engine {
  /** @param {EngineOptions} o */
  constructor (o) {
    /** @type {string[]} */
    this.addresses = o.addresses
    /** @type {string} */
    this.hostname = o.hostname
    /** @type {number} */
    this.port = o.port
    /** @type {Buffer} */
    this.request = o.request
    /** @type {number} */
    this.requests = o.requests
    /** @type {boolean} */
    this.continueOnReceiveError = o.continueOnReceiveError
    /** @type {number} */
    this.timeoutMs = o.timeoutMs
    /** @type {number} */
    this.timelimitMs = o.timelimitMs
    /** @type {number} */
    this.responseTimeoutMs = o.responseTimeoutMs
    /** @type {number} */
    this.heartbeat = o.onProgress ? o.heartbeat : 0
    /** @type {(done: number) => void} only called when heartbeat > 0 */
    this.onProgress = o.onProgress ?? noop
    this.onRequest = o.onRequest
    this.series = o.series ?? null
    this.onSecond = o.onSecond ?? null
    /** @type {NodeJS.Timeout|null} the series' one-second timer */
    this.secondTimer = null
    this.signal = o.signal
    this.counts = o.counts
    this.framing = o.framing

    /** @type {string|null} */
    this.socketPath = o.socketPath ?? null
    /** @type {import('./transport.js').Transport} */
    this.transport = o.transport
    this.addressIndex = 0
    // Nagle's algorithm holds back a short segment only while data is unacknowledged: a request that
    // fits one segment (the least MSS, 536 bytes) never waits, as each one is written after the
    // response to the previous one, which acknowledged it. ab sets no TCP_NODELAY; we set it only for
    // a request that spans segments, and save a system call per connection otherwise.
    this.nodelay = this.request.length > 536
    /** ab's requests_initialized: the other connections are open */
    this.requestsInitialized = false
    this.startTime = 0
    /** ab's lasttime: the end of the test, as the report measures it */
    this.lastTime = 0
    this.stopAt = Infinity
    /** the last socket event, for the -s watchdog */
    this.lastActivity = 0
    this.finished = false
    this.aborted = false
    /** @type {ConnectError|import('../errors.js').TimeoutError|null} */
    this.failure = null
    /** @type {{ thrown: unknown }|null} */
    this.callbackError = null
    /** @type {NodeJS.Timeout|null} */
    this.timer = null
    /** findHeaderEnd()'s and statusCode()'s second results, reused per response */
    this.found = { length: 0 }
    this.where = { at: 0 }
    /** @type {(end: RunEnd) => void} */
    this.resolve = noop
    this.onWatchdog = this.watchdog.bind(this)
    this.onAbort = this.abort.bind(this)
    /** @type {Connection[]} */
    this.conns = Array.from({ length: o.concurrency }, () => new Connection(this))
    const routes = o.routes ?? null
    if (routes !== null) {
      // a mix: each connection carries one route's requests for the whole run
      const assigned = assignRoutes(o.concurrency, routes.map((r) => r.counts.weight))
      this.conns.forEach((c, i) => {
        const route = routes[assigned[i]]
        c.request = route.request
        c.route = route.counts
        route.counts.connections++
      })
      this.nodelay = routes.some((r) => r.request.length > 536)
    }
    /** for the message when connect runs out of descriptors (-1: unknown, or one connection) */
    this.openFilesLimit = o.concurrency > 1 ? openFilesLimit() : -1

    // Open loop (-R): no schedule means ab's closed loop.
    /** @type {import('./schedule.js').Schedule|null} */
    this.schedule = o.schedule
    this.openLoop = o.schedule !== null
    /** the next request of the schedule the scheduler has not reached */
    this.nextDue = 0
    /** @type {NodeJS.Timeout|null} the scheduler's timer */
    this.tickTimer = null
    this.onTick = this.tick.bind(this)
    if (this.openLoop) this.conns.forEach((c, i) => { c.seq = i })
  }

  /**
   * Run to the end (done, time limit, abort). The counts hold what was measured even when the run
   * failed; `failure` says where ab would have exited, `callbackError` what a callback threw.
   * @returns {Promise<RunEnd>}
   */
  run () {
    return new Promise((resolve) => {
      this.resolve = resolve
      this.startTime = this.lastTime = this.lastActivity = performance.now()
      if (this.timelimitMs > 0) this.stopAt = this.startTime + this.timelimitMs
      const signal = this.signal
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
        // open loop: every connection waits for its schedule
        this.requestsInitialized = true
        for (const c of this.conns) c.parked = true
        this.tick()
        return
      }
      // ab connects one socket first and opens the others once a response header has arrived.
      this.startConnect(this.conns[0])
    })
  }

  // Connecting and writing (ab's start_connect() and write_request()).

  /** @param {Connection} c */
  startConnect (c) {
    if (this.finished || this.counts.started >= this.requests) return
    c.read = 0
    c.bread = 0
    c.keepalive = false
    c.cbx = 0
    c.gotHeader = false
    c.start = this.lastTime = performance.now()
    c.open()
  }

  /**
   * The socket's 'connect'.
   * @param {Connection} c @param {number} [now] when it happened (the native transport stamps its events)
   */
  connected (c, now = performance.now()) {
    this.lastActivity = now
    c.state = CONNECTED
    c.skipException = false
    this.writeRequest(c, now)
    this.checkEnd()
  }

  /** @param {Connection} c @param {number} now */
  writeRequest (c, now) {
    const counts = this.counts
    if (counts.started >= this.requests) return
    c.connect = this.lastTime = now
    // A request the kernel cannot take at once (a big -p body) is written when 'drain' says so.
    const request = c.request
    c.write(request) // open: connected or kept alive
    c.endwrite = this.lastTime = performance.now()
    counts.started++
    counts.totalPosted += request.length
    c.state = READING
  }

  // The open loop's schedule (-R).

  /**
   * The scheduler's turn: send every parked connection's request that is due by now, then arm the
   * timer for the next intended time. A due request whose connection is busy is left to freed().
   */
  tick () {
    this.tickTimer = null
    if (this.finished) return
    const now = performance.now()
    const conns = this.conns
    const requests = this.requests
    const schedule = /** @type {import('./schedule.js').Schedule} */ (this.schedule)
    let j = this.nextDue
    let due = 0
    for (; j < requests; j++) {
      due = this.startTime + schedule.dueMs(j)
      if (due > now) break
      const c = conns[j % conns.length]
      if (c.parked && c.seq === j) this.send(c, now, due)
    }
    this.nextDue = j
    if (this.finished || j >= requests) return
    // at least 1 ms, as the watchdog's: a timer may fire a fraction of a millisecond early
    this.tickTimer = setTimeout(this.onTick, Math.max(1, Math.min(due - now, MAX_TIMER_MS)))
  }

  /**
   * Open loop: connection c is free (its last request ended; its socket kept alive, or none). Send its
   * next request now if that is due (late if it came due while c was busy), else park c until the
   * scheduler reaches it.
   * @param {Connection} c @param {number} now
   */
  freed (c, now) {
    if (c.seq >= this.requests) {
      // its schedule is done: nothing keeps its socket open
      c.parked = false
      c.drop()
      return
    }
    const due = this.startTime + /** @type {import('./schedule.js').Schedule} */ (this.schedule).dueMs(c.seq)
    if (due <= now) this.send(c, now, due)
    else c.parked = true
  }

  /**
   * Open loop: start connection c's next request, due at its intended time, now.
   * @param {Connection} c @param {number} now
   * @param {number} intended when it was due (performance.now() ms): start + the schedule's time of c.seq
   */
  send (c, now, intended) {
    c.parked = false
    c.intended = intended
    c.seq += this.conns.length
    this.counts.sent++
    if (now - intended > LATE_THRESHOLD_MS) this.counts.late++
    // a send is activity for -s: a slow schedule (-R 0.01) is not an idle server
    this.lastActivity = now
    if (c.state === CONNECTED) {
      // a kept-alive socket: ab's zero connect time
      c.start = now
      this.writeRequest(c, now)
    } else {
      this.startConnect(c)
    }
  }

  /**
   * Open loop: a parked connection's kept-alive socket ended, failed or spoke unasked (a server closes
   * idle connections after its keep-alive timeout). No request was in flight: nothing counts; the
   * next request opens a new connection at its time.
   * @param {Connection} c
   */
  idleSocketEnded (c) {
    c.drop()
  }

  /** ab connects one socket first and opens the others once a response header has arrived. */
  startOthers () {
    if (!this.requestsInitialized) {
      this.requestsInitialized = true
      for (let i = 1; i < this.conns.length; i++) this.startConnect(this.conns[i])
    }
  }

  /**
   * ab's fallback while nothing has succeeded yet: a connection to one address of the host fails, so
   * the run moves to its next address (localhost as ::1, then 127.0.0.1). A failure connect() reports
   * at once also clears the connect failures; one reported through recv() counts as usual under -r.
   * @param {Connection} c @param {string} code
   */
  nextAddress (c, code) {
    const counts = this.counts
    if (SYNC_CONNECT_ERRORS.has(code)) {
      counts.errConn = 0
    } else if (this.continueOnReceiveError) {
      counts.errRecv++
      counts.bad++
      this.closeConnection(c, this.lastActivity, true)
      if (this.finished) return
    }
    c.drop()
    this.useAddress(this.addressIndex + 1)
    this.startConnect(c)
  }

  /** Connect from now on to the host's address i. @param {number} i */
  useAddress (i) {
    this.addressIndex = i
    this.transport.useAddress(this.addresses[i])
  }

  // Reading a response (ab's read_connection()).

  /**
   * The socket's read: `chunk` is the read buffer shared by every socket, `r` the bytes read into it.
   * @param {Connection} c @param {Buffer} chunk @param {number} r @param {number} [now] when it was read
   */
  data (c, chunk, r, now = performance.now()) {
    if (c.parked) return this.idleSocketEnded(c)
    const counts = this.counts
    this.lastActivity = now
    counts.totalRead += r
    if (c.read === 0) c.beginread = now
    c.read += r
    let from = 0
    if (!c.gotHeader) {
      from = this.header(c, chunk, r)
      if (from < 0) return
    }
    this.body(c, chunk, from, r, now)
  }

  /**
   * The body bytes chunk[from, r) of the connection's response, read at `now`.
   * @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} r @param {number} now
   */
  body (c, chunk, from, r, now) {
    const before = c.bread
    const status = this.framing.body(c, chunk, from, r)
    this.counts.totalBread += c.bread - before
    if (status === COMPLETE) this.responseDone(c, c.keepalive, now)
    else if (status === INVALID) this.malformed(c, now)
  }

  /**
   * Find and read the response header as ab does: its end ("\r\n\r\n", else "\n\n"), its status,
   * the Server name; the framing reads the rest. Returns where the body starts in `chunk`, or -1.
   * @param {Connection} c @param {Buffer} chunk @param {number} r
   */
  header (c, chunk, r) {
    const counts = this.counts
    const framing = this.framing
    let buf = chunk
    let end = r < HEADER_LIMIT ? r : HEADER_LIMIT
    let s
    let bodyStart
    if (c.cbx === 0) {
      const known = framing.knownHeader(c, chunk, r)
      if (known !== -1) return this.knownHeader(c, chunk, end, known)
      s = findHeaderEnd(chunk, end, this.found)
      if (s === -1) {
        if (r >= HEADER_LIMIT) return this.headerTooBig(c)
        if (c.hbuf === null) c.hbuf = Buffer.allocUnsafe(HEADER_LIMIT + 1)
        chunk.copy(c.hbuf, 0, 0, r)
        c.cbx = r
        return -1
      }
      bodyStart = s + this.found.length
    } else {
      // A header split across reads: rare, so copying is fine here.
      const old = c.cbx
      const tocopy = Math.min(HEADER_LIMIT - old, r)
      const hbuf = /** @type {Buffer} */ (c.hbuf) // allocated when cbx became > 0
      chunk.copy(hbuf, old, 0, tocopy)
      c.cbx = end = old + tocopy
      buf = hbuf
      s = findHeaderEnd(buf, end, this.found)
      if (s === -1) return end < HEADER_LIMIT ? -1 : this.headerTooBig(c)
      bodyStart = s + this.found.length - old
      c.cbx = 0
    }
    c.gotHeader = true
    const code = statusCode(buf, end, this.where)
    const at = this.where.at
    // Only what the header's bytes alone decide may be recognised later: a header read whole, ended
    // by "\r\n\r\n" ("\n\n" is ab's fallback when the whole read has no "\r\n\r\n", body included),
    // with its status digits inside it (ab takes them after the first "HTTP" of the read, body included).
    const cacheable = buf === chunk && this.found.length === 4 && code >= 0 && at !== -1 && at + 3 <= bodyStart
    if (framing.header(c, buf, s, bodyStart, code, cacheable) === INTERIM) return this.interim(c, chunk, r, bodyStart)
    counts.header(buf, end, code, at)
    c.status = code
    this.startOthers()
    return bodyStart
  }

  /**
   * --http1.1: an interim (1xx) response ended at chunk[bodyStart]; it is not counted, and the final
   * response's header follows, in this read or a later one. Rare, so the rest of the read is moved to
   * the front of the read buffer (shared by every socket, consumed before the next read) and read as
   * a read of its own. Always returns -1: the rest of the read has been handled here.
   * @param {Connection} c @param {Buffer} chunk @param {number} r @param {number} bodyStart
   */
  interim (c, chunk, r, bodyStart) {
    c.gotHeader = false
    const rest = r - bodyStart
    if (rest > 0) {
      chunk.copyWithin(0, bodyStart, r)
      const from = this.header(c, chunk, rest)
      if (from >= 0) this.body(c, chunk, from, rest, this.lastActivity)
    }
    return -1
  }

  /**
   * header() for a response whose header the framing recognised from an earlier one (its status
   * is the framing's knownCode, always three digits).
   * @param {Connection} c @param {Buffer} chunk @param {number} end @param {number} bodyStart
   */
  knownHeader (c, chunk, end, bodyStart) {
    c.gotHeader = true
    const code = this.framing.knownCode
    this.counts.header(chunk, end, code, -1)
    c.status = code
    this.startOthers()
    return bodyStart
  }

  /**
   * A header bigger than ab's 8 KB buffer: ab drops the connection and counts a non-2xx failure.
   * @param {Connection} c @returns {-1}
   */
  headerTooBig (c) {
    const counts = this.counts
    c.drop()
    counts.errResponse++
    if (counts.bad++ > 10) {
      this.fail(ConnectError, `${this.target()}: test aborted after 10 failures: response header over ${HEADER_LIMIT} bytes`)
      return -1
    }
    this.next(c, this.lastActivity)
    return -1
  }

  // A response ends (ab's close_connection() and its keep-alive branch of read_connection()).

  /**
   * A response complete by its framing (ab: a keep-alive response that reached its Content-Length).
   * @param {Connection} c @param {boolean} reuse @param {number} now when its last byte was read
   */
  responseDone (c, reuse, now) {
    const counts = this.counts
    counts.good++
    counts.checkLength(c.bread)
    if (counts.done < this.requests) this.record(c, now, reuse, false)
    // record() runs the caller's callbacks, which may have aborted the run.
    if (this.finished) return
    c.keepalive = false
    c.length = 0
    c.gotHeader = false
    c.cbx = 0
    c.read = c.bread = 0
    if (reuse) {
      // ab: zero connect time with keep-alive.
      c.start = c.connect = this.lastTime = now
      c.state = CONNECTED
      if (this.openLoop) this.freed(c, now)
      else this.writeRequest(c, now)
    } else {
      this.lastTime = now
      c.drop()
      this.next(c, now)
    }
    this.checkEnd()
  }

  /**
   * The socket's 'end': the server closed, which ends the response.
   * @param {Connection} c @param {number} [now] when it happened (the native transport stamps its events)
   */
  eof (c, now = performance.now()) {
    if (c.parked) return this.idleSocketEnded(c)
    this.lastActivity = now
    if (this.framing.eof(c) === INVALID) return this.malformed(c, now)
    this.counts.good++
    this.closeConnection(c, now)
    this.checkEnd()
  }

  /**
   * --http1.1: a malformed response (the framing's INVALID; its `invalid` names the fault). Its
   * request is complete and failed, counted under ab's Exceptions (ab's other counters mean something
   * else: Length compares good bodies, Receive is a socket error), never good, so never the Length
   * reference; the connection is closed, since nothing after a framing error can be trusted.
   * @param {Connection} c @param {number} now
   */
  malformed (c, now) {
    this.failResponse(c, now, this.framing.invalid)
  }

  /**
   * A response that cannot count (malformed, or past --response-timeout): a failed request under
   * Exceptions with `code` in `errors`, its connection dropped and the next request on a fresh one.
   * @param {Connection} c @param {number} now @param {string} code
   */
  failResponse (c, now, code) {
    const counts = this.counts
    counts.malformed(code)
    if (counts.done < this.requests) this.record(c, now, false, true)
    if (this.finished) return
    this.lastTime = now
    c.drop()
    this.next(c, now)
    this.checkEnd()
  }

  /**
   * ab's close_connection(): the response ends with its connection and counts as complete, with the
   * length check, whatever came before (EOF, a receive error under -r, a failed write). ab's branch
   * for "an idle keep-alive connection the server legitimately closed" cannot trigger (it clears its
   * keep-alive flag after each response), so a server closing a reused connection before answering
   * costs a completed request and a Length failure, as in ab; we keep that on purpose.
   * @param {Connection} c @param {number} now
   * @param {boolean} [failed] it ended by an error (a mix's route counts it as a request without a response)
   */
  closeConnection (c, now, failed = false) {
    this.counts.checkLength(c.bread)
    if (this.counts.done < this.requests) this.record(c, now, false, failed)
    if (this.finished) return
    this.lastTime = now
    c.drop()
    this.next(c, now)
  }

  /**
   * A connection's request has ended and its socket is dropped: ab connects for the next request at
   * once; the open loop waits for its schedule.
   * @param {Connection} c @param {number} now
   */
  next (c, now) {
    if (this.openLoop) this.freed(c, now)
    else this.startConnect(c)
  }

  /**
   * Count a completed request, then run the caller's callbacks.
   * @param {Connection} c @param {number} now @param {boolean} keptAlive
   * @param {boolean} failed it ended without a usable response (for a mix's route)
   */
  record (c, now, keptAlive, failed) {
    const counts = this.counts
    const ctime = c.connect > c.start ? c.connect - c.start : 0
    const time = now > c.start ? now - c.start : 0
    const wait = c.beginread > c.endwrite ? c.beginread - c.endwrite : 0
    counts.complete(ctime, time, wait, keptAlive)
    // open loop: the latency from the intended send time, connect and waiting for the connection included
    const latency = counts.corrected !== null ? (now > c.intended ? now - c.intended : 0) : time
    if (counts.corrected !== null) counts.corrected.record(latency)
    if (c.route !== null) c.route.record(latency, failed || !c.gotHeader ? -1 : c.status)
    if (this.onRequest !== null) {
      try {
        this.onRequest({ start: performance.timeOrigin + c.start, connect: ctime, waiting: wait, total: time, latency })
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

  // Errors and the end of a run (ab's error paths, its -s timeout, apr_err()).

  /** The socket's 'error'. @param {Connection} c @param {ErrnoException} err */
  error (c, err) {
    if (c.parked) return this.idleSocketEnded(c)
    const counts = this.counts
    this.lastActivity = performance.now()
    const code = err.code ?? 'ERROR'
    if (c.state === CONNECTING && this.continueOnReceiveError && code.startsWith('ERR_SSL_')) {
      // -r: a failed TLS handshake is one failed request (Exceptions, OpenSSL's code in errors), as a
      // malformed response is; ab counts it as a complete, good request, which it was not
      this.failResponse(c, this.lastActivity, code)
      return
    }
    counts.error(code)
    if (c.state === CONNECTING && counts.good === 0 && this.addressIndex + 1 < this.addresses.length) {
      this.nextAddress(c, code)
    } else if (c.state === CONNECTING && SYNC_CONNECT_ERRORS.has(code)) {
      c.drop()
      if (counts.bad++ > 10) {
        const why = code === 'EMFILE' || code === 'ENFILE'
          ? describeFdExhaustion(err, this.conns.length, this.conns.filter((o) => o.opened && this.transport.holdsDescriptor(o)).length, this.openFilesLimit)
          : `connect ${describeError(err)}`
        this.fail(ConnectError, `${this.target()}: test aborted after 10 failures: ${why}`)
        return
      }
      counts.errConn++
      this.startConnect(c)
    } else if (c.state !== CONNECTING && err.syscall === 'write') {
      counts.epipe++
      this.closeConnection(c, this.lastActivity, true)
    } else {
      this.receiveError(c, err)
    }
    this.checkEnd()
  }

  /**
   * ab's receive-error path. Without -r it exits. With -r the response counts as complete and failed
   * (Receive), and poll's POLLERR adds an Exception; after a refused connect ab reads the next,
   * already refused socket in the same turn, which adds a Receive without an Exception.
   * @param {Connection} c @param {ErrnoException} err
   */
  receiveError (c, err) {
    const counts = this.counts
    if (!this.continueOnReceiveError) {
      counts.errRecv++
      const connecting = c.state === CONNECTING
      c.drop()
      if (connecting) this.fail(ConnectError, `${this.target()}: ${describeError(err)}`)
      else this.fail(ConnectError, `${this.target()}: receive failed: ${describeError(err)}; -r continues past receive errors`)
      return
    }
    counts.errRecv++
    counts.bad++
    const refused = c.state === CONNECTING
    const skip = c.skipException
    this.closeConnection(c, this.lastActivity, true)
    if (skip) {
      c.skipException = false
    } else {
      counts.errExcept++
      counts.bad++
      c.skipException = refused
      // The refused partner ab reads in the same turn still counts when this one ended the run.
      if (refused && counts.done >= this.requests) {
        counts.errRecv++
        counts.bad++
      }
    }
  }

  /** The run's one timer, for every time bound (run-bounds.js): -t, -s, --response-timeout. */
  watchdog () {
    this.timer = null
    const next = checkBounds(this, this.conns, inFlight)
    if (next >= 0) this.timer = setTimeout(this.onWatchdog, next)
  }

  /**
   * --response-timeout: a response not complete within its deadline. Its request is complete and
   * failed, counted under ab's Exceptions (as a malformed response is: ab has no such bound, and its
   * other counters mean something else), with RESPONSE_TIMEOUT in `errors`; its connection is closed
   * and the next request starts on a fresh one.
   * @param {Connection} c @param {number} now
   */
  responseTimedOut (c, now) {
    this.failResponse(c, now, 'RESPONSE_TIMEOUT')
  }

  /** The signal's 'abort': end now, keeping what was measured. */
  abort () {
    if (this.finished) return
    this.lastTime = performance.now()
    this.aborted = true
    this.finish()
  }

  /**
   * What ab does with apr_err(): stop everything; loadtest() throws with the partial result.
   * @param {typeof ConnectError|typeof import('../errors.js').TimeoutError} Failure @param {string} message
   */
  fail (Failure, message) {
    if (this.finished) return
    this.failure = new Failure(message)
    this.aborted = true
    this.finish()
  }

  /**
   * A caller's callback threw inside a socket event: end the run and hand its error to loadtest().
   * @param {unknown} err
   */
  callbackFailed (err) {
    if (this.finished) return
    this.callbackError = { thrown: err }
    this.aborted = true
    this.finish()
  }

  /** The series' timer: read the second that ended and hand it to onSecond. */
  second () {
    const point = /** @type {import('./load-series.js').LoadSeries} */ (this.series).sample(performance.now())
    if (point === null || this.onSecond === null) return
    try {
      this.onSecond(point)
    } catch (err) {
      this.callbackFailed(err)
    }
  }

  checkEnd () {
    if (!this.finished && (this.counts.done >= this.requests || this.lastTime >= this.stopAt)) this.finish()
  }

  finish () {
    this.finished = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    if (this.tickTimer !== null) clearTimeout(this.tickTimer)
    this.tickTimer = null
    if (this.secondTimer !== null) clearInterval(this.secondTimer)
    this.secondTimer = null
    // the last, shorter interval, up to the run's end as the report measures it
    if (this.series !== null) this.series.sample(this.lastTime)
    if (this.signal) this.signal.removeEventListener('abort', this.onAbort)
    for (const c of this.conns) c.release()
    // ab measures in whole microseconds; digits beyond that are float noise in the JSON.
    const timeTakenSeconds = Math.round((this.lastTime - this.startTime) * 1000) / 1e6
    this.resolve({ timeTakenSeconds, startTime: this.startTime, endTime: this.lastTime, aborted: this.aborted, failure: this.failure, callbackError: this.callbackError })
  }

  /** host:port (or the unix socket) for messages. */
  target () {
    if (this.socketPath !== null) return `unix:${this.socketPath}`
    const h = this.hostname
    return `${h.includes(':') ? `[${h}]` : h}:${this.port}`
  }
}

function noop () {}

/** A request is on its way: connecting or written. @param {Connection} c */
function inFlight (c) {
  return c.state === CONNECTING || c.state === READING
}
