// Incremental decoder of chunked bodies (RFC 9112 section 7.1) for the --http1.1 mode: counts the
// payload bytes and finds the end of the message in any split of the input, without allocating.
// Strict where the framing depends on it (a size line of hex digits, CRLF after each chunk's data),
// lenient where RFC 9112 2.2 allows (a bare LF ends a line); a fault is named by llhttp's code for it,
// the one Node's own HTTP client reports.

// Decoder states.
const SIZE = 0
const SIZE_LF = 1
const EXT = 2
const DATA = 3
const DATA_CR = 4
const DATA_LF = 5
const TRAILER_START = 6
const TRAILER_LF = 7
const TRAILER_LINE = 8
const FAILED = 9

/** A chunk-size line that is not 1*HEXDIG (empty, another byte, a CR without LF, too big). */
export const INVALID_CHUNK_SIZE = 'HPE_INVALID_CHUNK_SIZE'
/** A chunk's data not followed by CRLF (llhttp: "Expected LF after chunk data"). */
export const NO_CRLF_AFTER_DATA = 'HPE_STRICT'
/** A CR in the trailer section not followed by LF. */
export const INVALID_TRAILER = 'HPE_LF_EXPECTED'

/** Above this a size line's next hex digit would pass 2^53, where numbers lose units. */
const MAX_SIZE_BEFORE_DIGIT = (Number.MAX_SAFE_INTEGER - 15) / 16

/** One per connection, reset per response. `feed` counts payload bytes and reports where the message ended. */
export class ChunkedDecoder {
  constructor () {
    this.state = SIZE
    this.size = 0
    this.remaining = 0
    this.payload = 0
    this.sawDigit = false
    this.invalid = false
    /** why the body is invalid: one of the codes above, '' while it is not */
    this.error = ''
  }

  reset () {
    this.state = SIZE
    this.size = 0
    this.remaining = 0
    this.payload = 0
    this.sawDigit = false
    this.invalid = false
    this.error = ''
  }

  /**
   * @param {Buffer} buf @param {number} start @param {number} end
   * @returns {number} index just past the end of the message, or -1 when more is needed or the body
   *   is invalid (then `invalid` is set, `error` says why, and every later feed returns -1)
   */
  feed (buf, start, end) {
    let i = start
    while (i < end) {
      const b = buf[i]
      switch (this.state) {
        case SIZE: {
          const lower = b | 0x20
          if (b >= 48 && b <= 57) {
            if (this.size > MAX_SIZE_BEFORE_DIGIT) return this.fail(INVALID_CHUNK_SIZE)
            this.size = this.size * 16 + (b - 48)
            this.sawDigit = true
          } else if (lower >= 97 && lower <= 102) {
            if (this.size > MAX_SIZE_BEFORE_DIGIT) return this.fail(INVALID_CHUNK_SIZE)
            this.size = this.size * 16 + (lower - 87)
            this.sawDigit = true
          } else if (b === 13) {
            this.state = SIZE_LF
          } else if (b === 10) {
            if (!this.endSizeLine()) return -1
          } else if (b === 59 || b === 32 || b === 9) {
            // chunk-ext (with the BWS before it): read to the end of the line, after at least one digit
            if (!this.sawDigit) return this.fail(INVALID_CHUNK_SIZE)
            this.state = EXT
          } else {
            return this.fail(INVALID_CHUNK_SIZE)
          }
          i++
          break
        }
        case SIZE_LF:
          if (b !== 10) return this.fail(INVALID_CHUNK_SIZE)
          if (!this.endSizeLine()) return -1
          i++
          break
        case EXT:
          if (b === 10 && !this.endSizeLine()) return -1
          i++
          break
        case DATA: {
          const n = Math.min(this.remaining, end - i)
          this.remaining -= n
          this.payload += n
          i += n
          if (this.remaining === 0) this.state = DATA_CR
          break
        }
        case DATA_CR:
          if (b === 13) this.state = DATA_LF
          else if (b === 10) this.nextChunk()
          else return this.fail(NO_CRLF_AFTER_DATA)
          i++
          break
        case DATA_LF:
          if (b !== 10) return this.fail(NO_CRLF_AFTER_DATA)
          this.nextChunk()
          i++
          break
        case TRAILER_START:
          i++
          if (b === 10) return i
          this.state = b === 13 ? TRAILER_LF : TRAILER_LINE
          break
        case TRAILER_LF:
          i++
          if (b === 10) return i
          return this.fail(INVALID_TRAILER)
        case TRAILER_LINE:
          i++
          if (b === 10) this.state = TRAILER_START
          break
        default: // FAILED
          return -1
      }
    }
    return -1
  }

  /** @private */
  nextChunk () {
    this.state = SIZE
    this.size = 0
    this.sawDigit = false
  }

  /**
   * The end of a size line: the chunk's data follows, or the trailer section after the last chunk.
   * @private @returns {boolean} false when the line had no digit
   */
  endSizeLine () {
    if (!this.sawDigit) {
      this.fail(INVALID_CHUNK_SIZE)
      return false
    }
    if (this.size === 0) {
      this.state = TRAILER_START
    } else {
      this.remaining = this.size
      this.state = DATA
    }
    return true
  }

  /**
   * @private @param {string} error @returns {-1}
   */
  fail (error) {
    this.invalid = true
    this.error = error
    this.state = FAILED
    return -1
  }
}
