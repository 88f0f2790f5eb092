// The connection engine: `concurrency` sockets driven by their events, counting exactly as ab 2.3's
// read_connection() / close_connection() / start_connect() do (support/ab.c), so every figure of the
// report means what it means in ab. The HTTP/1.1 mode (--http1.1) frames responses properly instead.
import { performance } from 'node:perf_hooks'
import { SyncbenchError } from '../errors.js'
import { HEADER_LIMIT, KEEP_ALIVE, CONTENT_LENGTH, SERVER, findHeaderEnd, indexOfCI, statusCode, atoi } from './response-parser.js'
import { Connection, connectOptions, CONNECTING, CONNECTED, READING, SYNC_CONNECT_ERRORS, describeError } from './connection.js'
import { RequestTimes } from './stats.js'
import { HeaderCache } from './header-cache.js'

/** setTimeout's longest delay; a longer -s is waited for in several turns. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * @typedef {object} EngineOptions
 * @property {string[]} addresses IP addresses of the host, in resolver order (resolved once, as ab does)
 * @property {string} hostname     for messages
 * @property {number} port
 * @property {Buffer} request
 * @property {number} requests
 * @property {number} concurrency
 * @property {boolean} keepAlive
 * @property {typeof import('./http11.js')|null} http11 the HTTP/1.1 framing module under --http1.1 (loaded
 *   by loadtest() only then: a plain ab run skips two modules), else null
 * @property {boolean} head
 * @property {boolean} variableLength
 * @property {boolean} continueOnReceiveError
 * @property {number} timeoutMs
 * @property {number} timelimitMs  0: none
 * @property {number} heartbeat
 * @property {((done: number) => void)|null} onProgress
 * @property {((record: import('../types.js').RequestRecord) => void)|null} onRequest
 * @property {AbortSignal|null} signal
 */

export class Engine {
  /** @param {EngineOptions} o */
  constructor (o) {
    this.o = o
    this.request = o.request
    this.requests = o.requests
    this.keepAlive = o.keepAlive
    this.http11 = o.http11 !== null
    this.framing = o.http11
    this.head = o.head
    this.variableLength = o.variableLength
    this.heartbeat = o.onProgress ? o.heartbeat : 0
    this.onProgress = o.onProgress
    this.onRequest = o.onRequest
    this.addressIndex = 0
    this.connectOptions = connectOptions(o.addresses[0], o.port)

    // ab's counters, named as in ab.c.
    this.started = 0
    this.done = 0
    this.good = 0
    this.bad = 0
    this.doneka = 0
    this.doclen = 0
    this.errConn = 0
    this.errRecv = 0
    this.errLength = 0
    this.errExcept = 0
    this.errResponse = 0
    this.epipe = 0
    this.totalRead = 0
    this.totalBread = 0
    this.totalPosted = 0
    this.servername = ''
    this.statusCounts = new Float64Array(1000)
    /** @type {Record<string, number>} status "codes" that are not three digits */
    this.oddStatus = {}
    /** @type {Record<string, number>} */
    this.errors = {}
    this.times = new RequestTimes()

    this.requestsInitialized = false
    this.startTime = 0
    this.lastTime = 0
    this.stopAt = Infinity
    this.lastActivity = 0
    this.finished = false
    this.aborted = false
    /** @type {Error|null} SyncbenchError where ab would exit, or what a callback threw */
    this.failure = null
    /** @type {NodeJS.Timeout|null} */
    this.timer = null
    this.found = { length: 0 }
    this.where = { at: 0 }
    this.headerCache = new HeaderCache()
    this.resolve = () => {}
    this.onWatchdog = this.watchdog.bind(this)
    this.onAbort = this.abort.bind(this)
    this.conns = Array.from({ length: o.concurrency }, () => new Connection(this))
  }

  /** Resolves when the run ends (done, time limit, abort); `failure` is set when ab would have exited. */
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
      this.timer = setTimeout(this.onWatchdog, Math.min(this.o.timeoutMs, MAX_TIMER_MS))
      // ab connects one socket first and opens the others once a response header has arrived.
      this.startConnect(this.conns[0])
    })
  }

  /** @param {Connection} c */
  startConnect (c) {
    if (this.finished || this.started >= this.requests) return
    c.read = 0
    c.bread = 0
    c.keepalive = false
    c.cbx = 0
    c.gotHeader = false
    c.start = this.lastTime = performance.now()
    c.open(this.connectOptions)
  }

  /** @param {Connection} c */
  connected (c) {
    const now = this.lastActivity = performance.now()
    c.state = CONNECTED
    c.skipException = false
    this.writeRequest(c, now)
    this.checkEnd()
  }

  /** @param {Connection} c @param {number} now */
  writeRequest (c, now) {
    if (this.started >= this.requests) return
    c.connect = this.lastTime = now
    // A request the kernel cannot take at once (a big -p body) is written when 'drain' says so.
    if (!c.socket.write(this.request)) c.awaitDrain()
    c.endwrite = this.lastTime = performance.now()
    this.started++
    this.totalPosted += this.request.length
    c.state = READING
  }

  /** @param {Connection} c @param {Buffer} chunk the shared read buffer @param {number} r bytes read into it */
  data (c, chunk, r) {
    const now = performance.now()
    this.lastActivity = now
    this.totalRead += r
    if (c.read === 0) c.beginread = now
    c.read += r
    if (!c.gotHeader) {
      const bodyStart = this.header(c, chunk, r)
      if (bodyStart < 0) return
      if (this.http11) return this.body11(c, chunk, bodyStart, r, now)
      c.bread += r - bodyStart
      this.totalBread += r - bodyStart
    } else if (this.http11) {
      return this.body11(c, chunk, 0, r, now)
    } else {
      c.bread += r
      this.totalBread += r
    }
    if (c.keepalive && c.bread >= c.length) this.responseDone(c, true, now)
  }

  /**
   * Find and read the response header; returns where the body starts in `chunk`, or -1.
   * @param {Connection} c @param {Buffer} chunk @param {number} r
   */
  header (c, chunk, r) {
    let buf = chunk
    let end = r < HEADER_LIMIT ? r : HEADER_LIMIT
    let s
    let bodyStart
    if (c.cbx === 0) {
      const cached = this.headerCache.match(chunk, r)
      if (cached !== -1) return this.cachedHeader(c, chunk, end, cached)
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
      chunk.copy(c.hbuf, old, 0, tocopy)
      c.cbx = end = old + tocopy
      buf = c.hbuf
      s = findHeaderEnd(buf, end, this.found)
      if (s === -1) return end < HEADER_LIMIT ? -1 : this.headerTooBig(c)
      bodyStart = s + this.found.length - old
      c.cbx = 0
    }
    c.gotHeader = true

    if (this.good === 0) this.serverName(buf, end)
    const code = statusCode(buf, end, this.where)
    if (code >= 0) {
      this.statusCounts[code]++
      if (code < 200 || code > 299) this.errResponse++
    } else {
      const key = buf.latin1Slice(this.where.at, this.where.at + 3)
      this.oddStatus[key] = (this.oddStatus[key] ?? 0) + 1
      if (buf[this.where.at] !== 0x32) this.errResponse++
    }

    if (this.http11) {
      this.framing.frameResponse(c, buf, s, code, this.keepAlive, this.head)
    } else {
      if (this.keepAlive && indexOfCI(buf, 0, s, KEEP_ALIVE) !== -1) {
        // ab decides keep-alive by a case-insensitive search for "Keep-Alive" anywhere in the header.
        c.keepalive = true
        const cl = indexOfCI(buf, 0, s, CONTENT_LENGTH)
        c.length = cl !== -1 && !this.head ? atoi(buf, cl + 16, s) : 0
      }
      // Only what the header's bytes alone decide: a header read whole, ended by "\r\n\r\n" ("\n\n"
      // is ab's fallback when the whole read has no "\r\n\r\n", body included), with its status
      // digits inside it (ab takes them after the first "HTTP" of the read, body included).
      const at = this.where.at
      if (buf === chunk && this.found.length === 4 && code >= 0 && at !== -1 && at + 3 <= bodyStart) {
        this.headerCache.store(chunk, bodyStart, code, c.keepalive, c.length)
      }
    }
    this.startOthers()
    return bodyStart
  }

  /**
   * header() for a response that starts with the same bytes as the last header parsed (HeaderCache).
   * @param {Connection} c @param {Buffer} chunk @param {number} end @param {number} bodyStart
   */
  cachedHeader (c, chunk, end, bodyStart) {
    const cache = this.headerCache
    c.gotHeader = true
    if (this.good === 0) this.serverName(chunk, end)
    const code = cache.code
    this.statusCounts[code]++
    if (code < 200 || code > 299) this.errResponse++
    if (cache.keepalive) {
      c.keepalive = true
      c.length = cache.contentLength
    }
    this.startOthers()
    return bodyStart
  }

  /** ab connects one socket first and opens the others once a response header has arrived. */
  startOthers () {
    if (!this.requestsInitialized) {
      this.requestsInitialized = true
      for (let i = 1; i < this.conns.length; i++) this.startConnect(this.conns[i])
    }
  }

  /** ab keeps the Server header's value up to the first space or control byte. */
  serverName (buf, end) {
    const p = indexOfCI(buf, 0, end, SERVER)
    if (p === -1) {
      this.servername = ''
      return
    }
    let q = p + 8
    while (q < end && buf[q] > 32) q++
    this.servername = buf.latin1Slice(Math.min(p + 8, q), q)
  }

  /** A header bigger than ab's 8 KB buffer: ab drops the connection and counts a non-2xx failure. */
  headerTooBig (c) {
    c.drop()
    this.errResponse++
    if (this.bad++ > 10) {
      this.fail('SB_ERR_CONNECT', `${this.target()}: test aborted after 10 failures: response header over ${HEADER_LIMIT} bytes`)
      return -1
    }
    this.startConnect(c)
    return -1
  }

  /** @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} to @param {number} now */
  body11 (c, chunk, from, to, now) {
    const before = c.bread
    const framing = this.framing
    const status = framing.feedBody(c, chunk, from, to)
    this.totalBread += c.bread - before
    if (status === framing.COMPLETE) this.responseDone(c, c.keepalive, now)
    else if (status === framing.INVALID) this.closeConnection(c, now)
  }

  /**
   * A response complete by its framing (ab: a keep-alive response that reached its Content-Length).
   * @param {Connection} c @param {boolean} reuse @param {number} now when its last byte was read
   */
  responseDone (c, reuse, now) {
    this.good++
    this.checkLength(c)
    if (this.done < this.requests) this.record(c, now, reuse)
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
      this.writeRequest(c, now)
    } else {
      this.lastTime = now
      c.drop()
      this.startConnect(c)
    }
    this.checkEnd()
  }

  /** ab's "Length" failure: a body length other than the first good response's. */
  checkLength (c) {
    if (this.good === 1) this.doclen = c.bread
    else if (c.bread !== this.doclen && !this.variableLength) {
      this.bad++
      this.errLength++
    }
  }

  /** @param {Connection} c */
  eof (c) {
    this.lastActivity = performance.now()
    this.good++
    this.closeConnection(c, this.lastActivity)
    this.checkEnd()
  }

  /**
   * ab's close_connection(): the response ends with its connection and counts as complete, with the
   * length check, whatever came before (EOF, a receive error under -r, a failed write). ab's branch
   * for "an idle keep-alive connection the server legitimately closed" cannot trigger (it clears its
   * keep-alive flag after each response), so a server closing a reused connection before answering
   * costs a completed request and a Length failure, as in ab; we keep that on purpose.
   * @param {Connection} c @param {number} now
   */
  closeConnection (c, now) {
    this.checkLength(c)
    if (this.done < this.requests) this.record(c, now, false)
    if (this.finished) return
    this.lastTime = now
    c.drop()
    this.startConnect(c)
  }

  /** @param {Connection} c @param {number} now @param {boolean} keptAlive */
  record (c, now, keptAlive) {
    this.done++
    if (keptAlive) this.doneka++
    const ctime = c.connect > c.start ? c.connect - c.start : 0
    const time = now > c.start ? now - c.start : 0
    const wait = c.beginread > c.endwrite ? c.beginread - c.endwrite : 0
    this.times.record(ctime, time, wait)
    if (this.onRequest !== null) {
      try {
        this.onRequest({ start: performance.timeOrigin + c.start, connect: ctime, waiting: wait, total: time })
      } catch (err) {
        this.callbackFailed(err)
      }
    }
    if (this.heartbeat > 0 && this.done % this.heartbeat === 0) {
      try {
        this.onProgress(this.done)
      } catch (err) {
        this.callbackFailed(err)
      }
    }
  }

  /** A caller's callback threw inside a socket event: end the run and hand its error to loadtest(). */
  callbackFailed (err) {
    if (this.finished) return
    this.failure = err
    this.aborted = true
    this.finish()
  }

  /** @param {Connection} c @param {NodeJS.ErrnoException} err */
  error (c, err) {
    this.lastActivity = performance.now()
    const code = err.code ?? 'ERROR'
    this.errors[code] = (this.errors[code] ?? 0) + 1
    if (c.state === CONNECTING && this.good === 0 && this.addressIndex + 1 < this.o.addresses.length) {
      this.nextAddress(c, code)
    } else if (c.state === CONNECTING && SYNC_CONNECT_ERRORS.has(code)) {
      c.drop()
      if (this.bad++ > 10) {
        return this.fail('SB_ERR_CONNECT', `${this.target()}: test aborted after 10 failures: connect ${describeError(err)}`)
      }
      this.errConn++
      this.startConnect(c)
    } else if (c.state !== CONNECTING && err.syscall === 'write') {
      this.epipe++
      this.closeConnection(c, this.lastActivity)
    } else {
      this.receiveError(c, err)
    }
    this.checkEnd()
  }

  /**
   * ab's fallback while nothing has succeeded yet: a connection to one address of the host fails, so
   * the run moves to its next address (localhost as ::1, then 127.0.0.1). A failure connect() reports
   * at once also clears the connect failures; one reported through recv() counts as usual under -r.
   * @param {Connection} c @param {string} code
   */
  nextAddress (c, code) {
    if (SYNC_CONNECT_ERRORS.has(code)) {
      this.errConn = 0
    } else if (this.o.continueOnReceiveError) {
      this.errRecv++
      this.bad++
      this.closeConnection(c, this.lastActivity)
      if (this.finished) return
    }
    c.drop()
    this.addressIndex++
    this.connectOptions = connectOptions(this.o.addresses[this.addressIndex], this.o.port)
    this.startConnect(c)
  }

  /**
   * ab's receive-error path. Without -r it exits. With -r the response counts as complete and failed
   * (Receive), and poll's POLLERR adds an Exception; after a refused connect ab reads the next,
   * already refused socket in the same turn, which adds a Receive without an Exception.
   * @param {Connection} c @param {NodeJS.ErrnoException} err
   */
  receiveError (c, err) {
    if (!this.o.continueOnReceiveError) {
      this.errRecv++
      const connecting = c.state === CONNECTING
      c.drop()
      if (connecting) return this.fail('SB_ERR_CONNECT', `${this.target()}: ${describeError(err)}`)
      return this.fail('SB_ERR_CONNECT', `${this.target()}: receive failed: ${describeError(err)}; -r continues past receive errors`)
    }
    this.errRecv++
    this.bad++
    const refused = c.state === CONNECTING
    const skip = c.skipException
    this.closeConnection(c, this.lastActivity)
    if (skip) {
      c.skipException = false
    } else {
      this.errExcept++
      this.bad++
      c.skipException = refused
      // The refused partner ab reads in the same turn still counts when this one ended the run.
      if (refused && this.done >= this.requests) {
        this.errRecv++
        this.bad++
      }
    }
  }

  checkEnd () {
    if (!this.finished && (this.done >= this.requests || this.lastTime >= this.stopAt)) this.finish()
  }

  watchdog () {
    this.timer = null
    if (this.finished) return
    const idle = performance.now() - this.lastActivity
    const timeoutMs = this.o.timeoutMs
    if (idle >= timeoutMs - 1) {
      this.errors.ETIMEDOUT = (this.errors.ETIMEDOUT ?? 0) + 1
      this.fail('SB_ERR_TIMEOUT', `${this.target()}: no response within ${timeoutMs / 1000} s (-s ${timeoutMs / 1000}): the timeout specified has expired`)
      return
    }
    this.timer = setTimeout(this.onWatchdog, Math.min(timeoutMs - idle, MAX_TIMER_MS))
  }

  abort () {
    if (this.finished) return
    this.lastTime = performance.now()
    this.aborted = true
    this.finish()
  }

  /** What ab does with apr_err(): stop everything; the caller throws with the partial result. */
  fail (code, message) {
    if (this.finished) return -1
    this.failure = new SyncbenchError(code, message)
    this.aborted = true
    this.finish()
    return -1
  }

  finish () {
    this.finished = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    if (this.o.signal) this.o.signal.removeEventListener('abort', this.onAbort)
    for (const c of this.conns) c.drop()
    this.resolve()
  }

  target () {
    const h = this.o.hostname
    return `${h.includes(':') ? `[${h}]` : h}:${this.o.port}`
  }

  /** status code -> count, for LoadResult.statusCodes */
  statusCodes () {
    /** @type {Record<string, number>} */
    const out = {}
    for (let i = 0; i < 1000; i++) if (this.statusCounts[i] > 0) out[String(i).padStart(3, '0')] = this.statusCounts[i]
    for (const [k, v] of Object.entries(this.oddStatus)) out[k] = v
    return out
  }
}
