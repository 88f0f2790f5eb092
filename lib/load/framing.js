// How a response's end is found: the interface between the engine and its two framings, ab's
// (ab-framing.js: ab 2.3's rules, with their quirks) and HTTP/1.1's (http11.js, under --http1.1).
// The engine reads a response's header the way ab does in both modes (its end, its status) and asks
// the framing the rest. One framing object per run, so each call site sees one class.

/**
 * @typedef {object} Framing
 * @property {number} knownCode status of the header knownHeader() last recognised
 * @property {(c: Connection, buf: Buffer, r: number) => number} knownHeader
 *   when buf[0, r) starts with a header recognised from an earlier response, sets the connection's
 *   framing (c.keepalive, c.length) and `knownCode` and returns where the body starts; else -1
 * @property {(c: Connection, buf: Buffer, s: number, bodyStart: number, code: number, cacheable: boolean) => number} header
 *   sets the connection's framing from the header ending at buf[s] (its terminator excluded):
 *   c.keepalive (will the connection carry the next request?), c.length, c.bodyMode. `code` is ab's
 *   status (-1: not digits); `cacheable`: buf is the read buffer, the header was read whole and its
 *   bytes alone decide the answer, so the framing may keep it for knownHeader(). Returns FINAL, or
 *   INTERIM for a 1xx response to skip: the final response's header starts at bodyStart
 * @property {(c: Connection, chunk: Buffer, from: number, to: number) => number} body
 *   counts the body bytes of chunk[from, to) into c.bread; returns MORE, COMPLETE or INVALID
 * @property {(c: Connection) => number} eof
 *   the server closed the connection of a request in flight: COMPLETE (the response ends here) or
 *   INVALID (it was cut short)
 * @property {string} invalid why body() or eof() last returned INVALID: a code for LoadResult.errors
 */

/** @typedef {import('./connection.js').Connection} Connection */

// What Framing.body() reports.
/** The response goes on. */
export const MORE = 0
/** The response is complete: the engine counts it and reuses the connection when c.keepalive. */
export const COMPLETE = 1
/**
 * The response is malformed (a bad chunk, a bad Content-Length, bytes no request asked for, cut short):
 * the engine counts a failed request and closes the connection. Only the HTTP/1.1 framing says so.
 */
export const INVALID = 2

// What Framing.header() reports.
/** A final response: its body follows. */
export const FINAL = 0
/** An interim (1xx) response, skipped: the final response's header follows it. Only HTTP/1.1's says so. */
export const INTERIM = 1
