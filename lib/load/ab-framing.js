// ab's framing of a response (ab 2.3's read_connection()): with -k, a response is complete when its
// body reaches the Content-Length of a header that contains "Keep-Alive" anywhere; every other
// response ends when the server closes the connection. A header the same as the last one is
// recognised by the HeaderCache instead of searched again. Nothing is malformed to ab: a 1xx is a final
// response, a chunked body is bytes, bytes after a response are the body's; --http1.1 (http11.js) is
// where RFC 9112's rules apply.
import { KEEP_ALIVE, CONTENT_LENGTH, indexOfCI, atoi } from './response-parser.js'
import { HeaderCache } from './header-cache.js'
import { MORE, COMPLETE, FINAL } from './framing.js'

/** @typedef {import('./connection.js').Connection} Connection */
/** @typedef {import('./framing.js').Framing} Framing */

/** @implements {Framing} */
export class AbFraming {
  /** @param {{ keepAlive: boolean, head: boolean }} options -k, and whether the request is HEAD */
  constructor ({ keepAlive, head }) {
    /** @type {boolean} */
    this.keepAlive = keepAlive
    /** @type {boolean} */
    this.head = head
    this.cache = new HeaderCache()
    this.knownCode = 0
    /** ab's framing finds nothing malformed: whatever comes is counted as it comes */
    this.invalid = ''
  }

  /** @param {Connection} c @param {Buffer} buf @param {number} r */
  knownHeader (c, buf, r) {
    const cache = this.cache
    const bodyStart = cache.match(buf, r)
    if (bodyStart === -1) return -1
    this.knownCode = cache.code
    if (cache.keepalive) {
      c.keepalive = true
      c.length = cache.contentLength
    }
    return bodyStart
  }

  /**
   * @param {Connection} c @param {Buffer} buf @param {number} s @param {number} bodyStart
   * @param {number} code @param {boolean} cacheable
   * @returns {number} FINAL: ab takes every header for the final response's, 1xx included
   */
  header (c, buf, s, bodyStart, code, cacheable) {
    if (this.keepAlive && indexOfCI(buf, 0, s, KEEP_ALIVE) !== -1) {
      // ab decides keep-alive by a case-insensitive search for "Keep-Alive" anywhere in the header.
      c.keepalive = true
      const cl = indexOfCI(buf, 0, s, CONTENT_LENGTH)
      const length = cl !== -1 && !this.head ? atoi(buf, cl + 16, s) : 0
      // ab keeps atoi()'s int in an unsigned apr_size_t: a negative length is one no body reaches,
      // so the response runs to the close (or to -s), as in ab.
      c.length = length < 0 ? length + 2 ** 64 : length
    }
    if (cacheable) this.cache.store(buf, bodyStart, code, c.keepalive, c.length)
    return FINAL
  }

  /** @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} to */
  body (c, chunk, from, to) {
    c.bread += to - from
    return c.keepalive && c.bread >= c.length ? COMPLETE : MORE
  }

  /**
   * ab's close_connection(): the response ends with its connection, whatever came before.
   * @param {Connection} c @returns {number} COMPLETE
   */
  eof (c) {
    return COMPLETE
  }
}
