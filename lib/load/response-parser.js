// Response parsing on raw Buffers, for the engine's hot path.
// Hand-written on purpose: node:http's client and undici cost several times more CPU per request
// (they build header objects and strings per response; see bench/ for the measured ratio), and ab's
// own semantics (substring searches for "Keep-Alive" and "Content-Length:", read-to-EOF bodies) are
// not what an HTTP client does anyway. No strings, no regexes, no allocations per response here.

/** ab's header buffer: 8192 bytes, one kept for the terminating NUL. */
export const HEADER_LIMIT = 8191

const HTTP = Buffer.from('HTTP', 'latin1')

/**
 * A case-insensitive needle: letters compare with their 0x20 bit set, other bytes exactly (so "-"
 * never matches "\r", which OR 0x20 would turn into "-"). `shift` is a Horspool table: headers are
 * searched in strides of up to the needle's length instead of byte by byte.
 * @typedef {{ bytes: Uint8Array, mask: Uint8Array, shift: Uint8Array }} Needle
 * @param {string} text lower case
 * @returns {Needle}
 */
export function needle (text) {
  const bytes = Uint8Array.from(Buffer.from(text, 'latin1'))
  const mask = bytes.map((b) => (b >= 0x61 && b <= 0x7a ? 0x20 : 0))
  const m = bytes.length
  const shift = new Uint8Array(256).fill(m)
  for (let k = 0; k < m - 1; k++) {
    shift[bytes[k]] = m - 1 - k
    if (mask[k] !== 0) shift[bytes[k] & ~0x20] = m - 1 - k
  }
  return { bytes, mask, shift }
}

export const KEEP_ALIVE = needle('keep-alive')
export const CONTENT_LENGTH = needle('content-length:')
export const SERVER = needle('server:')
export const TRANSFER_ENCODING = needle('transfer-encoding:')
export const CONNECTION = needle('connection:')
export const CHUNKED = needle('chunked')
export const CLOSE = needle('close')

/**
 * First index of `n` in buf[start, end), ignoring ASCII case, or -1 (ab's xstrcasestr on a Buffer).
 * @param {Uint8Array} buf @param {number} start @param {number} end @param {Needle} n
 */
export function indexOfCI (buf, start, end, n) {
  const bytes = n.bytes
  const mask = n.mask
  const shift = n.shift
  const m1 = bytes.length - 1
  const lastByte = bytes[m1]
  const lastMask = mask[m1]
  for (let i = start + m1; i < end; i += shift[buf[i]]) {
    if ((buf[i] | lastMask) !== lastByte) continue
    const at = i - m1
    let k = 0
    while (k < m1 && (buf[at + k] | mask[k]) === bytes[k]) k++
    if (k === m1) return at
  }
  return -1
}

/**
 * Where the header ends in buf[0, end), as ab finds it: "\r\n\r\n" anywhere, else "\n\n" (for NCSA
 * 1.5). Returns the index of the terminator and sets `found.length` to its length, or -1.
 * Bounded by `end` (the engine reads into one shared buffer whose tail is stale), and striding:
 * a byte that is neither CR nor LF cannot be part of the terminator, so the next 3 bytes are skipped.
 * @param {Uint8Array} buf @param {number} end @param {{ length: number }} found
 */
export function findHeaderEnd (buf, end, found) {
  let i = 3
  while (i < end) {
    const b = buf[i]
    if (b === 10) {
      if (buf[i - 1] === 13 && buf[i - 2] === 10 && buf[i - 3] === 13) {
        found.length = 4
        return i - 3
      }
      i += 2
    } else if (b === 13) {
      i += 1
    } else {
      i += 4
    }
  }
  for (let j = 1; j < end; j++) {
    if (buf[j] === 10 && buf[j - 1] === 10) {
      found.length = 2
      return j - 1
    }
  }
  return -1
}

/**
 * Status code as ab reads it: the 3 bytes 9 after the first "HTTP" (whatever they are), else 500.
 * Returns 0..999 for three digits, or -1 when the 3 bytes are not digits (the caller keeps them).
 * @param {Buffer} buf @param {number} end header end
 * @param {{ at: number }} where index of the 3 bytes, or -1 when ab would use "500"
 */
export function statusCode (buf, end, where) {
  const part = buf[0] === 0x48 && buf[1] === 0x54 && buf[2] === 0x54 && buf[3] === 0x50 ? 0 : indexOfBytes(buf, end, HTTP)
  // ab: strlen(part) > strlen("HTTP/1.x_"), on the NUL-terminated header buffer.
  if (part === -1 || part + 9 >= end) {
    where.at = -1
    return 500
  }
  const at = part + 9
  where.at = at
  const a = buf[at] - 48
  const b = buf[at + 1] - 48
  const c = buf[at + 2] - 48
  if (a < 0 || a > 9 || b < 0 || b > 9 || c < 0 || c > 9 || at + 3 > end) return -1
  return a * 100 + b * 10 + c
}

/** First index of `needle` in buf[0, end), or -1. @param {Uint8Array} buf @param {number} end @param {Uint8Array} needle */
function indexOfBytes (buf, end, needle) {
  const last = end - needle.length
  for (let i = 0; i <= last; i++) {
    let k = 0
    while (k < needle.length && buf[i + k] === needle[k]) k++
    if (k === needle.length) return i
  }
  return -1
}

/**
 * C's atoi from buf[at]: leading white space, an optional sign, digits; 0 when none. As glibc's, an
 * int: strtol's long (saturated at 2^63) cast to 32 bits, so "4294967301" is 5 and "2147483648" is
 * negative, as ab reads a Content-Length (exact up to 2^53 digits' worth, where numbers lose units).
 * @param {Uint8Array} buf @param {number} at @param {number} end
 */
export function atoi (buf, at, end) {
  let i = at
  while (i < end && (buf[i] === 32 || (buf[i] >= 9 && buf[i] <= 13))) i++
  let sign = 1
  if (i < end && (buf[i] === 43 || buf[i] === 45)) {
    if (buf[i] === 45) sign = -1
    i++
  }
  let n = 0
  while (i < end && buf[i] >= 48 && buf[i] <= 57) {
    n = n * 10 + (buf[i] - 48)
    i++
  }
  // strtol's LONG_MAX and LONG_MIN cast to int
  if (n >= 2 ** 63) return sign > 0 ? -1 : 0
  return (sign * n) | 0
}

/**
 * The value of header `name` that starts a line in buf[0, end): index of its first non-blank byte,
 * or -1. Used by the HTTP/1.1 path, which needs real header lines rather than ab's substring search.
 * @param {Uint8Array} buf @param {number} end @param {Needle} name with the colon
 */
export function headerValue (buf, end, name) {
  let i = 0
  while (i < end) {
    const lineStart = i
    if (lineStart > 0 && matchesAt(buf, lineStart, end, name)) {
      let v = lineStart + name.bytes.length
      while (v < end && (buf[v] === 32 || buf[v] === 9)) v++
      return v
    }
    while (i < end && buf[i] !== 10) i++
    i++
  }
  return -1
}

/** Does `n` match at exactly buf[at]? @param {Uint8Array} buf @param {number} at @param {number} end @param {Needle} n */
function matchesAt (buf, at, end, n) {
  const len = n.bytes.length
  if (at + len > end) return false
  for (let k = 0; k < len; k++) {
    if ((buf[at + k] | n.mask[k]) !== n.bytes[k]) return false
  }
  return true
}

/**
 * Does the header value at buf[at] (up to the end of its line) contain `n`?
 * @param {Uint8Array} buf @param {number} at @param {number} end @param {Needle} n
 */
export function valueContains (buf, at, end, n) {
  let lineEnd = at
  while (lineEnd < end && buf[lineEnd] !== 13 && buf[lineEnd] !== 10) lineEnd++
  return indexOfCI(buf, at, lineEnd, n) !== -1
}

// --- The HTTP/1.1 path's stricter reading of a header (RFC 9112), for http11.js. ---

/** contentLength(): the header has no Content-Length field. */
export const NO_LENGTH = -1
/** contentLength(): a Content-Length value that is not 1*DIGIT (a sign, a letter, nothing, too big). */
export const BAD_LENGTH = -2
/** contentLength(): Content-Length fields (or list members) that disagree. */
export const CONFLICTING_LENGTHS = -3

/**
 * The message's Content-Length as RFC 9110 8.6 and RFC 9112 6.3 read it: every Content-Length field
 * line of the header buf[0, end), each a comma-separated list of 1*DIGIT (a repeated field, or a list
 * of the same value, is that value). Returns the length, NO_LENGTH, BAD_LENGTH or CONFLICTING_LENGTHS.
 * @param {Uint8Array} buf @param {number} end
 */
export function contentLength (buf, end) {
  let length = NO_LENGTH
  let i = 0
  while (i < end) {
    if (i > 0 && matchesAt(buf, i, end, CONTENT_LENGTH)) {
      i += CONTENT_LENGTH.bytes.length
      // 1#( OWS 1*DIGIT OWS ), up to the end of the line
      for (;;) {
        while (i < end && (buf[i] === 32 || buf[i] === 9)) i++
        const first = i
        let n = 0
        while (i < end && buf[i] >= 48 && buf[i] <= 57) {
          n = n * 10 + (buf[i] - 48)
          i++
        }
        if (i === first || i - first > 15) return BAD_LENGTH // no digit; or past 2^53, where numbers lose units
        while (i < end && (buf[i] === 32 || buf[i] === 9)) i++
        if (length !== NO_LENGTH && n !== length) return CONFLICTING_LENGTHS
        length = n
        if (i < end && buf[i] === 44) { i++; continue }
        if (i < end && buf[i] !== 13 && buf[i] !== 10) return BAD_LENGTH
        break
      }
    }
    while (i < end && buf[i] !== 10) i++
    i++
  }
  return length
}

/** chunkedFinal(): the header has no Transfer-Encoding field. */
export const NO_TRANSFER_ENCODING = -1

/**
 * Is chunked the final transfer coding of the header buf[0, end) (RFC 9112 6.3: then the body is
 * chunked; with any other final coding a response's body runs to the close)? 1 yes, 0 no,
 * NO_TRANSFER_ENCODING when there is no Transfer-Encoding field. The last coding of the last field
 * line is the final one (several field lines make one list, RFC 9110 5.3).
 * @param {Uint8Array} buf @param {number} end
 */
export function chunkedFinal (buf, end) {
  let found = NO_TRANSFER_ENCODING
  let i = 0
  while (i < end) {
    if (i > 0 && matchesAt(buf, i, end, TRANSFER_ENCODING)) {
      let lineEnd = i + TRANSFER_ENCODING.bytes.length
      while (lineEnd < end && buf[lineEnd] !== 13 && buf[lineEnd] !== 10) lineEnd++
      // the last member of the list: after the last comma, without OWS
      let last = lineEnd
      while (last > i && buf[last - 1] !== 44 && buf[last - 1] !== 58) last--
      let stop = lineEnd
      while (stop > last && (buf[stop - 1] === 32 || buf[stop - 1] === 9)) stop--
      while (last < stop && (buf[last] === 32 || buf[last] === 9)) last++
      found = stop - last === CHUNKED.bytes.length && matchesAt(buf, last, stop, CHUNKED) ? 1 : 0
      i = lineEnd
    }
    while (i < end && buf[i] !== 10) i++
    i++
  }
  return found
}

/**
 * Does buf[0, end) start with a status line RFC 9112 4 accepts: "HTTP/" DIGIT "." DIGIT SP 3DIGIT,
 * then SP and a reason, or the end of the line (a missing reason's SP is tolerated, as llhttp does)?
 * @param {Uint8Array} buf @param {number} end
 */
export function validStatusLine (buf, end) {
  if (end < 12) return false
  if (buf[0] !== 0x48 || buf[1] !== 0x54 || buf[2] !== 0x54 || buf[3] !== 0x50 || buf[4] !== 0x2f) return false
  if (!isDigit(buf[5]) || buf[6] !== 0x2e || !isDigit(buf[7]) || buf[8] !== 32) return false
  if (!isDigit(buf[9]) || !isDigit(buf[10]) || !isDigit(buf[11])) return false
  return end === 12 || buf[12] === 32 || buf[12] === 13 || buf[12] === 10
}

/** @param {number} b */
function isDigit (b) {
  return b >= 48 && b <= 57
}
