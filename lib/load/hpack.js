// HPACK (RFC 7541) for the HTTP/2 framer (h2-frames.js): a full decoder of the server's header blocks
// (static and dynamic table, size updates, Huffman strings) that picks out what a load generator
// counts, :status and content-length, and an encoder of a request's block, made once per request
// shape. The encoder indexes nothing and never uses Huffman (both optional for an encoder), so the
// block of a shape stays the same on every stream and the server's decoder table is never filled
// by us. The decoder makes no string for a field it only has to skip: strings are made for fields
// it keeps in its dynamic table, for :status and content-length, and for `fields` when asked.

// RFC 7541 Appendix A, index 1 to 61.
const STATIC = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', '']
]

/** What the decoder looks for in a field, by its name. */
const OTHER = 0
const STATUS = 1
const LENGTH = 2

/** @param {string} name */
function kindOf (name) {
  return name === ':status' ? STATUS : name === 'content-length' ? LENGTH : OTHER
}

/** Each static entry's kind, and its value as a number when its kind wants one (the :status entries). */
const STATIC_KIND = new Uint8Array(STATIC.length + 1)
const STATIC_NUM = new Float64Array(STATIC.length + 1)
for (let i = 0; i < STATIC.length; i++) {
  STATIC_KIND[i + 1] = kindOf(STATIC[i][0])
  STATIC_NUM[i + 1] = fieldNumber(STATIC_KIND[i + 1], STATIC[i][1])
}

/**
 * The number a kept field stands for: a :status of three digits, a content-length of digits; -1
 * for any other value (a malformed one included, which the framer then treats as absent or bad).
 * @param {number} kind @param {string} value
 */
function fieldNumber (kind, value) {
  if (kind === OTHER) return -1
  if (kind === STATUS ? !/^[1-9][0-9]{2}$/.test(value) : !/^[0-9]{1,15}$/.test(value)) return -1
  return Number(value)
}

// The Huffman code of RFC 7541 Appendix B is canonical (codes of one length are consecutive, in the
// order of their symbols, and each length continues the shorter one's), so the bit length of each
// symbol 0..256 defines it; the lengths are the Appendix's. Symbol 256 is EOS.
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30
]
const EOS = 256

/**
 * Each symbol's code (right-aligned), assigned canonically from HUFFMAN_LENGTHS.
 * @returns {Uint32Array}
 */
export function huffmanCodes () {
  const order = [...HUFFMAN_LENGTHS.keys()].sort((a, b) => HUFFMAN_LENGTHS[a] - HUFFMAN_LENGTHS[b] || a - b)
  const codes = new Uint32Array(HUFFMAN_LENGTHS.length)
  let code = 0
  let length = HUFFMAN_LENGTHS[order[0]]
  for (const sym of order) {
    code *= 2 ** (HUFFMAN_LENGTHS[sym] - length)
    length = HUFFMAN_LENGTHS[sym]
    codes[sym] = code
    code++
  }
  return codes
}

// The decoder reads a string four bits at a time: a state is an inner node of the code's tree (256
// of them, 0 the root), and for each state and nibble the tables say the state after it and the
// symbol it completed, if any (a nibble completes at most one: the shortest code has five bits).
// A state may end a string when the bits since the last symbol are at most seven ones (padding
// with EOS's prefix, section 5.2); a nibble that completes EOS is an error.
const NO_SYMBOL = -1
const BAD_SYMBOL = -2
const HUFF_NEXT = new Uint8Array(256 * 16)
const HUFF_SYM = new Int16Array(256 * 16)
const HUFF_ACCEPT = new Uint8Array(256)
buildHuffmanDecoder()

function buildHuffmanDecoder () {
  // child[2n + bit]: an inner node's number, or -(symbol + 1) for a leaf
  const child = new Int32Array(512)
  const depth = new Uint8Array(256)
  const ones = new Uint8Array(256)
  ones[0] = 1
  let nodes = 1
  const codes = huffmanCodes()
  for (let sym = 0; sym <= EOS; sym++) {
    let node = 0
    for (let b = HUFFMAN_LENGTHS[sym] - 1; b >= 0; b--) {
      const bit = Math.floor(codes[sym] / 2 ** b) & 1
      const at = 2 * node + bit
      if (b === 0) {
        child[at] = -(sym + 1)
      } else {
        if (child[at] === 0) {
          depth[nodes] = depth[node] + 1
          ones[nodes] = ones[node] & bit
          child[at] = nodes++
        }
        node = child[at]
      }
    }
  }
  for (let state = 0; state < 256; state++) {
    HUFF_ACCEPT[state] = ones[state] === 1 && depth[state] <= 7 ? 1 : 0
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state
      let sym = NO_SYMBOL
      for (let b = 3; b >= 0; b--) {
        const next = child[2 * node + ((nibble >> b) & 1)]
        if (next < 0) {
          sym = -next - 1 === EOS ? BAD_SYMBOL : -next - 1
          node = 0
          if (sym === BAD_SYMBOL) break
        } else {
          node = next
        }
      }
      HUFF_NEXT[state * 16 + nibble] = node
      HUFF_SYM[state * 16 + nibble] = sym
    }
  }
}

/** Room for 32 fields of overhead (section 4.1): a dynamic table can hold at most size / 32 entries. */
const ENTRY_OVERHEAD = 32
/** Integers past this are refused (no header block of ours comes near it; it keeps the sums exact). */
const MAX_INTEGER = 2 ** 31 - 1

/**
 * The decoder of one connection's response header blocks. decode() reads a whole block (HEADERS and
 * its CONTINUATIONs, joined) and says whether it was valid; status and contentLength are the last
 * block's. A decoding error is the connection's COMPRESSION_ERROR (RFC 9113 section 4.3): the
 * decoder's state is lost with it.
 */
export class HpackDecoder {
  /** @param {number} [maxTableSize] our SETTINGS_HEADER_TABLE_SIZE: the most a size update may set */
  constructor (maxTableSize = 4096) {
    this.maxTableSize = maxTableSize
    this.tableSize = maxTableSize
    this.used = 0
    // The dynamic table as a ring, newest at head - 1: entry i (1-based, newest first) is at
    // (head - i) mod capacity.
    const capacity = Math.floor(maxTableSize / ENTRY_OVERHEAD) + 1
    this.capacity = capacity
    /** @type {string[]} */
    this.names = new Array(capacity).fill('')
    /** @type {string[]} */
    this.values = new Array(capacity).fill('')
    this.kinds = new Uint8Array(capacity)
    this.nums = new Float64Array(capacity)
    this.sizes = new Uint32Array(capacity)
    this.head = 0
    this.count = 0
    /** the last block's :status, 0 when it had none (or a malformed one, or two) */
    this.status = 0
    /** the last block's content-length, -1 when it had none (or a malformed one) */
    this.contentLength = -1
    /** @type {[string, string][]|null} when an array, every field decoded is appended to it (tests, tracing) */
    this.fields = null
    /** why the last decode() failed */
    this.error = ''
    this.scratch = Buffer.allocUnsafe(256)
    /** the length of the string last read into scratch */
    this.strLength = 0
    this.pos = 0
  }

  /**
   * Decode a header block.
   * @param {Uint8Array} buf @param {number} start @param {number} end
   * @returns {boolean} false on a decoding error (its reason in `error`)
   */
  decode (buf, start, end) {
    this.status = 0
    this.contentLength = -1
    let statuses = 0
    let fieldsSeen = false
    this.pos = start
    while (this.pos < end) {
      const b = buf[this.pos]
      let kind = OTHER
      let num = -1
      if (b >= 0x80) {
        // indexed field
        const index = this.integer(buf, end, 7)
        if (index < 0) return false
        if (index === 0) return this.refuse('index 0')
        if (index <= STATIC.length) {
          kind = STATIC_KIND[index]
          num = STATIC_NUM[index]
          if (this.fields !== null) this.fields.push([STATIC[index - 1][0], STATIC[index - 1][1]])
        } else {
          const at = this.entry(index)
          if (at < 0) return false
          kind = this.kinds[at]
          num = this.nums[at]
          if (this.fields !== null) this.fields.push([this.names[at], this.values[at]])
        }
        fieldsSeen = true
      } else if (b >= 0x20 && b < 0x40) {
        // dynamic table size update: only before the block's first field (section 4.2)
        if (fieldsSeen) return this.refuse('a table size update after a field')
        const size = this.integer(buf, end, 5)
        if (size < 0) return false
        if (size > this.maxTableSize) return this.refuse(`a table size of ${size} over the ${this.maxTableSize} allowed`)
        this.tableSize = size
        this.evict(0)
        continue
      } else {
        // a literal: with incremental indexing (01), without (0000) or never indexed (0001)
        const indexing = b >= 0x40
        const index = this.integer(buf, end, indexing ? 6 : 4)
        if (index < 0) return false
        let name = ''
        if (index === 0) {
          if (!this.string(buf, end)) return false
          name = this.scratch.toString('latin1', 0, this.strLength)
          kind = kindOf(name)
        } else if (index <= STATIC.length) {
          kind = STATIC_KIND[index]
          if (indexing || this.fields !== null) name = STATIC[index - 1][0]
        } else {
          const at = this.entry(index)
          if (at < 0) return false
          kind = this.kinds[at]
          name = this.names[at]
        }
        if (!this.string(buf, end)) return false
        if (kind !== OTHER) num = this.scratchNumber(kind)
        if (indexing || this.fields !== null) {
          const value = this.scratch.toString('latin1', 0, this.strLength)
          if (indexing) this.insert(name, value, kind, num)
          if (this.fields !== null) this.fields.push([name, value])
        }
        fieldsSeen = true
      }
      if (kind === STATUS) {
        statuses++
        this.status = statuses === 1 && num > 0 ? num : 0
      } else if (kind === LENGTH) {
        this.contentLength = num
      }
    }
    return true
  }

  /**
   * An integer with an N-bit prefix at pos (section 5.1), pos moved past it; -1 when it runs past
   * the block or past MAX_INTEGER.
   * @param {Uint8Array} buf @param {number} end @param {number} prefix
   */
  integer (buf, end, prefix) {
    const mask = (1 << prefix) - 1
    let value = buf[this.pos++] & mask
    if (value < mask) return value
    let shift = 0
    for (;;) {
      if (this.pos >= end) return this.fail('an integer runs past the block')
      const b = buf[this.pos++]
      value += (b & 0x7f) * 2 ** shift
      if (value > MAX_INTEGER) return this.fail('an integer too large')
      if (b < 0x80) return value
      shift += 7
    }
  }

  /**
   * A string literal at pos (section 5.2) into `scratch`, its length in strLength; false on an error.
   * @param {Uint8Array} buf @param {number} end
   */
  string (buf, end) {
    if (this.pos >= end) return this.refuse('a string is missing')
    const huffman = buf[this.pos] >= 0x80
    const length = this.integer(buf, end, 7)
    if (length < 0) return false
    if (length > end - this.pos) return this.refuse(`a string of ${length} bytes runs past the block`)
    const from = this.pos
    this.pos += length
    if (!huffman) {
      if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(length * 2)
      this.scratch.set(buf.subarray(from, from + length), 0)
      this.strLength = length
      return true
    }
    // at most 8/5 symbols a byte
    if (this.scratch.length < length * 2) this.scratch = Buffer.allocUnsafe(length * 2)
    const out = this.scratch
    let o = 0
    let state = 0
    for (let i = from; i < from + length; i++) {
      const b = buf[i]
      let k = state * 16 + (b >> 4)
      let sym = HUFF_SYM[k]
      if (sym >= 0) out[o++] = sym
      else if (sym === BAD_SYMBOL) return this.refuse('EOS in a Huffman string')
      state = HUFF_NEXT[k]
      k = state * 16 + (b & 15)
      sym = HUFF_SYM[k]
      if (sym >= 0) out[o++] = sym
      else if (sym === BAD_SYMBOL) return this.refuse('EOS in a Huffman string')
      state = HUFF_NEXT[k]
    }
    if (HUFF_ACCEPT[state] === 0) return this.refuse('a Huffman string padded with other than up to 7 one bits')
    this.strLength = o
    return true
  }

  /**
   * fieldNumber() of the string in scratch, read from its bytes (no string made for a value that
   * is not kept).
   * @param {number} kind STATUS or LENGTH
   */
  scratchNumber (kind) {
    const s = this.scratch
    const n = this.strLength
    if (kind === STATUS ? n !== 3 || s[0] === 0x30 : n < 1 || n > 15) return -1
    let value = 0
    for (let i = 0; i < n; i++) {
      const d = s[i] - 0x30
      if (d < 0 || d > 9) return -1
      value = value * 10 + d
    }
    return value
  }

  /** The ring position of dynamic index `index` (> 61), -1 when there is none. @param {number} index */
  entry (index) {
    const i = index - STATIC.length
    if (i > this.count) return this.fail(`index ${index} past the table's ${STATIC.length + this.count}`)
    return (this.head - i + this.capacity) % this.capacity
  }

  /**
   * Add an entry, evicting the oldest to make room (section 4.4); one larger than the table empties it.
   * @param {string} name @param {string} value @param {number} kind @param {number} num
   */
  insert (name, value, kind, num) {
    // latin1: one character per octet, as the size counts octets
    const size = name.length + value.length + ENTRY_OVERHEAD
    this.evict(size)
    if (size > this.tableSize) return
    const at = this.head
    this.names[at] = name
    this.values[at] = value
    this.kinds[at] = kind
    this.nums[at] = num
    this.sizes[at] = size
    this.head = (at + 1) % this.capacity
    this.count++
    this.used += size
  }

  /** Evict the oldest entries until `room` more octets fit. @param {number} room */
  evict (room) {
    while (this.count > 0 && this.used + room > this.tableSize) {
      const oldest = (this.head - this.count + this.capacity) % this.capacity
      this.used -= this.sizes[oldest]
      this.names[oldest] = ''
      this.values[oldest] = ''
      this.count--
    }
  }

  /** Record why decoding failed. @param {string} reason @returns {-1} */
  fail (reason) {
    this.error = reason
    return -1
  }

  /** Record why decoding failed. @param {string} reason @returns {false} */
  refuse (reason) {
    this.error = reason
    return false
  }
}

/**
 * A request's header block, encoded once and sent on every stream of its shape: every field as a
 * static-table reference (exact match) or a literal without indexing, strings as they are. Names are
 * lowercased (RFC 9113 section 8.2.1); pseudo-header fields come first, as they must.
 * @param {{ method: string, scheme: string, authority: string, path: string, headers?: [string, string][] }} request
 * @returns {Buffer}
 */
export function encodeRequestBlock (request) {
  /** @type {number[]} */
  const out = []
  const fields = [[':method', request.method], [':scheme', request.scheme], [':authority', request.authority],
    [':path', request.path], ...(request.headers ?? []).map(([name, value]) => [name.toLowerCase(), value])]
  for (const [name, value] of fields) {
    const exact = STATIC.findIndex(([n, v]) => n === name && v === value)
    if (exact >= 0) {
      pushInteger(out, 0x80, 7, exact + 1)
      continue
    }
    const named = STATIC.findIndex(([n]) => n === name)
    pushInteger(out, 0x00, 4, named + 1)
    if (named < 0) pushString(out, name)
    pushString(out, value)
  }
  return Buffer.from(out)
}

/** @param {number[]} out @param {number} first the bits above the prefix @param {number} prefix @param {number} value */
function pushInteger (out, first, prefix, value) {
  const mask = (1 << prefix) - 1
  if (value < mask) {
    out.push(first | value)
    return
  }
  out.push(first | mask)
  value -= mask
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80)
    value = Math.floor(value / 0x80)
  }
  out.push(value)
}

/** A string literal without Huffman coding. @param {number[]} out @param {string} s */
function pushString (out, s) {
  const bytes = Buffer.from(s, 'latin1')
  pushInteger(out, 0x00, 7, bytes.length)
  for (const b of bytes) out.push(b)
}
