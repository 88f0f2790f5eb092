// The last response header AbFraming (ab-framing.js) read, and what it found in it, so that the next
// response whose header is byte for byte the same is recognised by one comparison instead of four
// searches. A benchmarked server answers the same header thousands of times a second (only its Date
// changes, once a second): parsing it (header end, status, "Keep-Alive", "Content-Length:") costs
// ~190 ns per response, comparing it as 32-bit words ~50 ns (node 20, node:http's 147-byte header,
// measured; in the engine under perf, our JS per request went from ~0.5 to ~0.3 us).
// The answer is exactly ab's: the same bytes up to and including the first "\r\n\r\n" give the same
// header end, the same status, the same keep-alive decision and the same Content-Length.

/** Bytes kept: ab's header buffer (8192) rounded to whole words. */
const CAPACITY = 8192

export class HeaderCache {
  constructor () {
    /** Header length (body start) of the kept header, 0 when none. */
    this.length = 0
    this.code = 0
    this.keepalive = false
    /** Content-Length of a keep-alive response (0 when absent or HEAD), as the engine sets c.length. */
    this.contentLength = 0
    this.words = new Int32Array(CAPACITY / 4)
    this.bytes = new Uint8Array(this.words.buffer)
    /** @type {ArrayBufferLike|null} the memory reads land in (the read buffer, or the native arena) */
    this.memory = null
    /** @type {Int32Array|null} a word view of all of it */
    this.view = null
    this.hits = 0
    this.stores = 0
  }

  /**
   * The header length when buf[0, r) starts with the kept header, else -1.
   * @param {Uint8Array} buf a read: the read buffer, or a view of the native transport's arena
   * @param {number} r bytes read into it
   */
  match (buf, r) {
    const length = this.length
    const at = buf.byteOffset
    if (length === 0 || r < length || buf.buffer !== this.memory || (at & 3) !== 0) return -1
    const view = /** @type {Int32Array} */ (this.view) // set with this.memory
    const words = this.words
    const n = length >>> 2
    for (let i = 0, w = at >>> 2; i < n; i++, w++) if (view[w] !== words[i]) return -1
    const bytes = this.bytes
    for (let i = n << 2; i < length; i++) if (buf[i] !== bytes[i]) return -1
    this.hits++
    return length
  }

  /**
   * Keep buf[0, length) (a header ending with "\r\n\r\n", its first) and what the engine read in it.
   * @param {Uint8Array} buf @param {number} length @param {number} code @param {boolean} keepalive @param {number} contentLength
   */
  store (buf, length, code, keepalive, contentLength) {
    // The word view needs a read that starts 4-byte aligned: the engine's read buffer is its own
    // ArrayBuffer; the native transport starts every read on an 8-byte boundary of its arena.
    if ((buf.byteOffset & 3) !== 0) return
    if (buf.buffer !== this.memory) {
      this.memory = buf.buffer
      this.view = new Int32Array(buf.buffer, 0, buf.buffer.byteLength >>> 2)
    }
    this.length = 0
    // A server whose every header differs (a request id, a timer) would pay a copy per response for
    // nothing: when misses outnumber hits, keep only one header in 64, and none between.
    if (length > CAPACITY || (++this.stores > this.hits + 64 && (this.stores & 63) !== 0)) return
    this.bytes.set(buf.subarray(0, length))
    this.length = length
    this.code = code
    this.keepalive = keepalive
    this.contentLength = contentLength
  }
}
