// Response framing for the --http1.1 mode, where syncbench behaves as an HTTP/1.1 client instead of
// ab and reads responses as RFC 9112 says: the body ends by the last chunk (chunked wins over a
// Content-Length, 6.3), by Content-Length, or (only then) when the server closes; the connection is
// reused unless the server says otherwise; interim 1xx responses are skipped (RFC 9110 15.2).
// A malformed response fails its request: body() or eof() returns INVALID and `invalid` names the
// fault with llhttp's code (what Node's HTTP client reports), and the engine closes the connection.
// Header lines are read on the Buffer. Loaded by loadtest() only under --http1.1 (a plain ab run
// skips this module and the decoder).
import {
  CONNECTION, CLOSE, KEEP_ALIVE, NO_LENGTH, BAD_LENGTH, NO_TRANSFER_ENCODING,
  headerValue, valueContains, contentLength, chunkedFinal, validStatusLine
} from './response-parser.js'
import { ChunkedDecoder } from './chunked-decoder.js'
import { MORE, COMPLETE, INVALID, FINAL, INTERIM } from './framing.js'

// How the body of the current response ends (Connection.bodyMode).
export const BODY_NONE = 0
export const BODY_LENGTH = 1
export const BODY_CHUNKED = 2
export const BODY_EOF = 3
/** After 101 Switching Protocols: what follows is another protocol's, and the connection is not reused. */
export const BODY_SWITCHED = 4
/** The header cannot frame a body (framing.invalid says why): the request fails at its first body() call. */
export const BODY_INVALID = 5

// The faults, as LoadResult.errors counts them: llhttp's codes where it has one.
export const INVALID_STATUS = 'HPE_INVALID_STATUS'
export const INVALID_CONTENT_LENGTH = 'HPE_INVALID_CONTENT_LENGTH'
export const CONFLICTING_CONTENT_LENGTH = 'HPE_UNEXPECTED_CONTENT_LENGTH'
/** The connection closed before the response was complete (a body short of its length, no last chunk). */
export const CUT_SHORT = 'HPE_INVALID_EOF_STATE'
/**
 * Bytes after a complete response on a connection that has no other request in flight (syncbench
 * sends one request at a time): a second response, or a body longer than its Content-Length. The
 * server and the client disagree on where the response ended, so it is not trusted: its request is
 * counted complete and failed, and the connection closed. llhttp has no code for it (undici calls it
 * a parser error; Node's agent drops such bytes), hence our own.
 */
export const DATA_AFTER_RESPONSE = 'DATA_AFTER_RESPONSE'

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
    /** why body() or eof() last returned INVALID */
    this.invalid = ''
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
   * @returns {number} FINAL, or INTERIM for a 1xx other than 101
   */
  header (c, buf, s, bodyStart, code, cacheable) {
    c.length = 0
    c.keepalive = false
    if (!validStatusLine(buf, s)) return this.malformed(c, INVALID_STATUS)
    if (code < 200) {
      if (code !== 101) return INTERIM
      c.bodyMode = BODY_SWITCHED
      return FINAL
    }
    const conn = headerValue(buf, s, CONNECTION)
    const close = conn !== -1 && valueContains(buf, conn, s, CLOSE)
    const minor = buf[7] === 0x31 ? 1 : 0
    let persistent = this.keepAlive && !close && (minor === 1 || (conn !== -1 && valueContains(buf, conn, s, KEEP_ALIVE)))
    if (this.head || code === 204 || code === 304) {
      c.bodyMode = BODY_NONE
    } else {
      const chunked = chunkedFinal(buf, s)
      if (chunked === 1) {
        c.bodyMode = BODY_CHUNKED
        if (c.decoder === null) c.decoder = new ChunkedDecoder()
        else c.decoder.reset()
      } else if (chunked !== NO_TRANSFER_ENCODING) {
        // a response whose final coding is not chunked runs to the close (RFC 9112 6.3, 4)
        c.bodyMode = BODY_EOF
        persistent = false
      } else {
        const length = contentLength(buf, s)
        if (length >= 0) {
          c.bodyMode = BODY_LENGTH
          c.length = length
        } else if (length === NO_LENGTH) {
          c.bodyMode = BODY_EOF
          persistent = false
        } else {
          return this.malformed(c, length === BAD_LENGTH ? INVALID_CONTENT_LENGTH : CONFLICTING_CONTENT_LENGTH)
        }
      }
    }
    c.keepalive = persistent
    return FINAL
  }

  /**
   * A header that frames no body: the engine's next body() call fails the request.
   * @private @param {Connection} c @param {string} fault @returns {number} FINAL
   */
  malformed (c, fault) {
    c.bodyMode = BODY_INVALID
    this.invalid = fault
    return FINAL
  }

  /**
   * Count the body bytes in chunk[from, to) into c.bread (payload only, for chunked bodies).
   * @param {Connection} c @param {Buffer} chunk @param {number} from @param {number} to
   * @returns {number} MORE, COMPLETE or INVALID
   */
  body (c, chunk, from, to) {
    const mode = c.bodyMode
    if (mode === BODY_LENGTH) {
      const want = c.length - c.bread
      const n = to - from
      if (n < want) {
        c.bread += n
        return MORE
      }
      c.bread = c.length
      return n === want ? COMPLETE : this.fail(DATA_AFTER_RESPONSE)
    }
    if (mode === BODY_CHUNKED) {
      const d = /** @type {ChunkedDecoder} */ (c.decoder) // created by header() for a chunked body
      const before = d.payload
      const endAt = d.feed(chunk, from, to)
      c.bread += d.payload - before
      if (endAt === to) return COMPLETE
      if (endAt !== -1) return this.fail(DATA_AFTER_RESPONSE)
      return d.invalid ? this.fail(d.error) : MORE
    }
    if (mode === BODY_NONE) return from === to ? COMPLETE : this.fail(DATA_AFTER_RESPONSE)
    if (mode === BODY_EOF) {
      c.bread += to - from
      return MORE
    }
    if (mode === BODY_SWITCHED) return COMPLETE
    return INVALID // BODY_INVALID: header() named the fault
  }

  /**
   * The server closed the connection of a request in flight. A close-delimited body ends here; a
   * response short of its Content-Length or last chunk, or a header cut short, fails its request
   * (RFC 9112 8: an incomplete message). A close before any byte of the response is left to ab's
   * accounting (the engine's closeConnection()), as in ab mode.
   * @param {Connection} c @returns {number} COMPLETE or INVALID
   */
  eof (c) {
    if (c.gotHeader ? c.bodyMode === BODY_EOF : c.read === 0) return COMPLETE
    return this.fail(CUT_SHORT)
  }

  /** @private @param {string} fault @returns {number} INVALID */
  fail (fault) {
    this.invalid = fault
    return INVALID
  }
}
