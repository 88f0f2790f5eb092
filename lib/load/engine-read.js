// Engine methods (installed on Engine.prototype by engine.js, `this` is the Engine): reading a
// response as ab's read_connection() does: its header (split or whole, or recognised by the
// HeaderCache), the status and Server counts, ab's keep-alive decision, and the body bytes.
import { performance } from 'node:perf_hooks'
import { HEADER_LIMIT, KEEP_ALIVE, CONTENT_LENGTH, SERVER, findHeaderEnd, indexOfCI, statusCode, atoi } from './response-parser.js'

/** @typedef {import('./connection.js').Connection} Connection */

export const reading = {
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
  },

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
  },

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
  },

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
  },

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
  },

  /** @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} to @param {number} now */
  body11 (c, chunk, from, to, now) {
    const before = c.bread
    const framing = this.framing
    const status = framing.feedBody(c, chunk, from, to)
    this.totalBread += c.bread - before
    if (status === framing.COMPLETE) this.responseDone(c, c.keepalive, now)
    else if (status === framing.INVALID) this.closeConnection(c, now)
  }
}
