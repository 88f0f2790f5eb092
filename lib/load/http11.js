// Response framing for the --http1.1 mode, where syncbench behaves as an HTTP/1.1 client instead of
// ab: the body ends by Content-Length, by the last chunk, or (only then) when the server closes, and
// the connection is reused unless the server says otherwise. Header lines are read on the Buffer.
import {
  CONTENT_LENGTH, TRANSFER_ENCODING, CONNECTION, CHUNKED, CLOSE, KEEP_ALIVE,
  atoi, headerValue, valueContains
} from './response-parser.js'
import { ChunkedDecoder } from './chunked-decoder.js'

export const BODY_NONE = 0
export const BODY_LENGTH = 1
export const BODY_CHUNKED = 2
export const BODY_EOF = 3

// What feedBody reports.
export const MORE = 0
export const COMPLETE = 1
export const INVALID = 2

/**
 * Read the framing of the response whose header ends at `s` into the connection: bodyMode, length,
 * and keepalive (will the connection carry the next request?).
 * @param {import('./connection.js').Connection} c
 * @param {Uint8Array} buf @param {number} s header end @param {number} code status code (-1: not digits)
 * @param {boolean} keepAlive the run asked for keep-alive @param {boolean} head the request was HEAD
 */
export function frameResponse (c, buf, s, code, keepAlive, head) {
  const conn = headerValue(buf, s, CONNECTION)
  const close = conn !== -1 && valueContains(buf, conn, s, CLOSE)
  const minor = buf[7] === 0x31 ? 1 : 0
  let persistent = keepAlive && !close && (minor === 1 || (conn !== -1 && valueContains(buf, conn, s, KEEP_ALIVE)))
  c.length = 0
  if (head || (code >= 100 && code < 200) || code === 204 || code === 304) {
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
 * @param {import('./connection.js').Connection} c @param {Uint8Array} chunk @param {number} from @param {number} to
 * @returns {number} MORE, COMPLETE or INVALID
 */
export function feedBody (c, chunk, from, to) {
  const mode = c.bodyMode
  if (mode === BODY_NONE) return COMPLETE
  if (mode === BODY_LENGTH) {
    c.bread += Math.min(to - from, c.length - c.bread)
    return c.bread >= c.length ? COMPLETE : MORE
  }
  if (mode === BODY_CHUNKED) {
    const d = c.decoder
    const before = d.payload
    const endAt = d.feed(chunk, from, to)
    c.bread += d.payload - before
    if (endAt !== -1) return COMPLETE
    return d.invalid ? INVALID : MORE
  }
  c.bread += to - from
  return MORE
}
