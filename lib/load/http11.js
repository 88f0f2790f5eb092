// Response framing for the --http1.1 mode, where syncbench behaves as an HTTP/1.1 client instead of
// ab: the body ends by Content-Length, by the last chunk, or (only then) when the server closes, and
// the connection is reused unless the server says otherwise. Header lines are read on the Buffer.
// Loaded by loadtest() only under --http1.1 (a plain ab run skips this module and the decoder).
import {
  CONTENT_LENGTH, TRANSFER_ENCODING, CONNECTION, CHUNKED, CLOSE, KEEP_ALIVE,
  atoi, headerValue, valueContains
} from './response-parser.js'
import { ChunkedDecoder } from './chunked-decoder.js'
import { MORE, COMPLETE, INVALID } from './framing.js'

// How the body of the current response ends (Connection.bodyMode).
export const BODY_NONE = 0
export const BODY_LENGTH = 1
export const BODY_CHUNKED = 2
export const BODY_EOF = 3

/** @typedef {import('./connection.js').Connection} Connection */
/** @typedef {import('./framing.js').Framing} Framing */

/** @implements {Framing} */
export class Http11Framing {
  /** @param {{ keepAlive: boolean, head: boolean }} options the run asked for keep-alive; the request is HEAD */
  constructor ({ keepAlive, head }) {
    /** @type {boolean} */
    this.keepAlive = keepAlive
    /** @type {boolean} */
    this.head = head
    this.knownCode = 0
  }

  /**
   * Every header is read: none is recognised from an earlier one.
   * @param {Connection} c @param {Buffer} buf @param {number} r
   */
  knownHeader (c, buf, r) {
    return -1
  }

  /**
   * Read the framing of the response whose header ends at `s` into the connection: bodyMode, length,
   * and keepalive (will the connection carry the next request?).
   * @param {Connection} c @param {Buffer} buf @param {number} s @param {number} bodyStart
   * @param {number} code status code (-1: not digits) @param {boolean} cacheable
   */
  header (c, buf, s, bodyStart, code, cacheable) {
    const conn = headerValue(buf, s, CONNECTION)
    const close = conn !== -1 && valueContains(buf, conn, s, CLOSE)
    const minor = buf[7] === 0x31 ? 1 : 0
    let persistent = this.keepAlive && !close && (minor === 1 || (conn !== -1 && valueContains(buf, conn, s, KEEP_ALIVE)))
    c.length = 0
    if (this.head || (code >= 100 && code < 200) || code === 204 || code === 304) {
      c.bodyMode = BODY_NONE
    } else {
      const te = headerValue(buf, s, TRANSFER_ENCODING)
      const cl = headerValue(buf, s, CONTENT_LENGTH)
      if (te !== -1 && valueContains(buf, te, s, CHUNKED)) {
        c.bodyMode = BODY_CHUNKED
        if (c.decoder === null) c.decoder = new ChunkedDecoder()
        else c.decoder.reset()
      } else if (cl !== -1) {
        c.bodyMode = BODY_LENGTH
        c.length = atoi(buf, cl, s)
      } else {
        c.bodyMode = BODY_EOF
        persistent = false
      }
    }
    c.keepalive = persistent
  }

  /**
   * Count the body bytes in chunk[from, to) into c.bread (payload only, for chunked bodies).
   * @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} to
   * @returns {number} MORE, COMPLETE or INVALID
   */
  body (c, chunk, from, to) {
    const mode = c.bodyMode
    if (mode === BODY_NONE) return COMPLETE
    if (mode === BODY_LENGTH) {
      c.bread += Math.min(to - from, c.length - c.bread)
      return c.bread >= c.length ? COMPLETE : MORE
    }
    if (mode === BODY_CHUNKED) {
      const d = /** @type {ChunkedDecoder} */ (c.decoder) // created by header() for a chunked body
      const before = d.payload
      const endAt = d.feed(chunk, from, to)
      c.bread += d.payload - before
      if (endAt !== -1) return COMPLETE
      return d.invalid ? INVALID : MORE
    }
    c.bread += to - from
    return MORE
  }
}
