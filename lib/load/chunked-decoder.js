// Incremental decoder of chunked bodies (RFC 9112 section 7.1) for the --http1.1 mode: counts the
// payload bytes and finds the end of the message in any split of the input, without allocating.

// Decoder states.
const SIZE = 0
const EXT = 1
const DATA = 2
const DATA_END = 3
const TRAILER_START = 4
const TRAILER_LINE = 5

/** One per connection, reset per response. `feed` counts payload bytes and reports where the message ended. */
export class ChunkedDecoder {
  constructor () {
    this.state = SIZE
    this.size = 0
    this.remaining = 0
    this.payload = 0
    this.sawDigit = false
    this.invalid = false
  }

  reset () {
    this.state = SIZE
    this.size = 0
    this.remaining = 0
    this.payload = 0
    this.sawDigit = false
    this.invalid = false
  }

  /**
   * @param {Buffer} buf @param {number} start @param {number} end
   * @returns {number} index just past the end of the message, or -1 when more is needed
   */
  feed (buf, start, end) {
    let i = start
    while (i < end) {
      const b = buf[i]
      switch (this.state) {
        case SIZE:
          if (b >= 48 && b <= 57) {
            this.size = this.size * 16 + (b - 48)
            this.sawDigit = true
          } else if ((b | 0x20) >= 97 && (b | 0x20) <= 102) {
            this.size = this.size * 16 + ((b | 0x20) - 87)
            this.sawDigit = true
          } else if (b === 10) {
            this.endSizeLine()
          } else if (b === 59 || b === 32 || b === 9) {
            this.state = EXT
          } else if (b !== 13) {
            this.invalid = true
            return end
          }
          i++
          break
        case EXT:
          if (b === 10) this.endSizeLine()
          i++
          break
        case DATA: {
          const n = Math.min(this.remaining, end - i)
          this.remaining -= n
          this.payload += n
          i += n
          if (this.remaining === 0) this.state = DATA_END
          break
        }
        case DATA_END:
          if (b === 10) {
            this.state = SIZE
            this.size = 0
            this.sawDigit = false
          } else if (b !== 13) {
            this.invalid = true
            return end
          }
          i++
          break
        case TRAILER_START:
          i++
          if (b === 10) return i
          if (b !== 13) this.state = TRAILER_LINE
          break
        case TRAILER_LINE:
          i++
          if (b === 10) this.state = TRAILER_START
          break
      }
    }
    return -1
  }

  /** @private */
  endSizeLine () {
    if (!this.sawDigit) {
      this.invalid = true
      this.state = TRAILER_LINE
      return
    }
    if (this.size === 0) {
      this.state = TRAILER_START
    } else {
      this.remaining = this.size
      this.state = DATA
    }
  }
}
