// The client side of one HTTP/2 connection (RFC 9113) as a state machine over bytes: what the
// transport read goes into data(), what must be written comes out through the handler's write(),
// and each stream's outcome is one call of the handler. It frames, flow-controls and HPACK-decodes
// (hpack.js); it keeps nothing of a response but its :status, content-length and the count of its
// DATA bytes. A load engine drives it with seats: a seat (0 .. seats-1) carries one stream at a
// time, its figures live in the session's typed arrays under the seat's number, and the handler's
// streamEnd(seat, outcome) frees it. No object is made per stream or per frame.
//
// What it does for the engine: the preface and SETTINGS (push disabled, our window sizes), the ACK
// of the server's SETTINGS and PINGs, SETTINGS_MAX_CONCURRENT_STREAMS (capacity()), the server's
// MAX_FRAME_SIZE (a request block split into CONTINUATIONs, a body into DATA frames), request bodies
// held to the server's windows (its SETTINGS_INITIAL_WINDOW_SIZE and WINDOW_UPDATEs), WINDOW_UPDATEs
// for the connection and the streams as DATA is read (when half a window is used up), HEADERS and
// CONTINUATION with 1xx responses skipped and trailers accepted, END_STREAM, RST_STREAM, GOAWAY (and
// a response complete before its request's body is sent: the body stopped with RST_STREAM CANCEL).
// Every protocol violation of the server is a connection error (RFC 9113 section 5.4.1): GOAWAY with
// its code is written, open streams end LOST, and the handler's sessionError() gets the code and a
// reason; nothing throws.
// (Malformed responses, stream errors in the RFC's terms, end the connection too: a load generator
// gains nothing from keeping a connection whose server breaks the protocol.)
//
// Writes are batched: frames queue in an output buffer that data() flushes once when it returns, so
// the next requests issued from streamEnd() callbacks and the window updates of one read leave in
// one write. Outside data() (the first requests, requests of a timer), the caller calls flush().
// A written region of the output buffer is never reused (the transport may still hold it).
import { HpackDecoder } from './hpack.js'

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')

const DATA = 0x0
const HEADERS = 0x1
const PRIORITY = 0x2
const RST_STREAM = 0x3
const SETTINGS = 0x4
const PUSH_PROMISE = 0x5
const PING = 0x6
const GOAWAY = 0x7
const WINDOW_UPDATE = 0x8
const CONTINUATION = 0x9

const FLAG_END_STREAM = 0x1
const FLAG_ACK = 0x1
const FLAG_END_HEADERS = 0x4
const FLAG_PADDED = 0x8
const FLAG_PRIORITY = 0x20

const SETTINGS_HEADER_TABLE_SIZE = 0x1
const SETTINGS_ENABLE_PUSH = 0x2
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4
const SETTINGS_MAX_FRAME_SIZE = 0x5

/** RFC 9113 section 7's error codes. */
export const NO_ERROR = 0x0
export const PROTOCOL_ERROR = 0x1
export const FLOW_CONTROL_ERROR = 0x3
export const STREAM_CLOSED = 0x5
export const FRAME_SIZE_ERROR = 0x6
export const CANCEL = 0x8
export const COMPRESSION_ERROR = 0x9
export const ENHANCE_YOUR_CALM = 0xb

const ERROR_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED',
  'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED']

/** An HTTP/2 error code's name (RFC 9113 section 7), or its number in hex when it has none. @param {number} code */
export function h2ErrorName (code) {
  return ERROR_NAMES[code] ?? `0x${code.toString(16)}`
}

/** How a stream ended (streamEnd's outcome). */
/** its response's END_STREAM: status, contentLength and dataBytes are the response's */
export const ENDED = 0
/** the server reset it (RST_STREAM): resetCode says why */
export const RESET = 1
/** the server's GOAWAY said it was not processed: safe to send again on another connection */
export const REFUSED = 2
/** lost with the connection (a connection error, the transport closed): it may have been processed */
export const LOST = 3

/** The largest flow-control window (section 6.9.1) and frame size (section 4.2). */
const MAX_WINDOW = 2 ** 31 - 1
const MAX_FRAME = 2 ** 24 - 1
/** What a frame may carry until a SETTINGS says otherwise, both ways (we never raise ours). */
const DEFAULT_FRAME = 16384
const DEFAULT_WINDOW = 65535
/**
 * The most CONTINUATION frames a header block may take (nghttp2's default): a block that never ends
 * (CVE-2024-27983's flood of empty ones) is a connection error rather than a stall.
 */
const MAX_CONTINUATIONS = 8
/** The output buffer's size: many frames of one batch, few allocations. */
const OUT_SIZE = 65536

const AWAITING_SETTINGS = 0
const OPEN = 1
/** the server's GOAWAY came: no new streams, the open ones may finish */
const DRAINING = 2
const CLOSED = 3

const SEAT_FREE = 0
const SEAT_HEADERS = 1
const SEAT_BODY = 2

/**
 * What the session calls. One object per connection, whose methods are called with the seat's
 * number; the figures are read from the session's arrays during the call.
 * @typedef {object} H2Handler
 * @property {(data: Buffer) => void} write  bytes for the socket, unchanged until written
 * @property {() => void} ready  the server's first SETTINGS came: streams may open (capacity())
 * @property {(seat: number) => void} streamHeaders  the response's final HEADERS (status[seat], contentLength[seat])
 * @property {(seat: number, outcome: number) => void} streamEnd  ENDED, RESET, REFUSED or LOST; the seat is free
 * @property {(lastStreamId: number, code: number) => void} goaway  the server is closing the connection:
 *           streams above lastStreamId have ended REFUSED, no new ones open
 * @property {(code: number, reason: string) => void} sessionError  a connection error (the open streams have
 *           ended LOST and GOAWAY is written): the connection must be closed
 */

/**
 * @typedef {object} H2SessionOptions
 * @property {number} seats  the most streams open at once (h2load's -m); the server's limit may lower it
 * @property {number} [window]  our SETTINGS_INITIAL_WINDOW_SIZE, each stream's receive window (default 2^30 - 1)
 * @property {number} [connectionWindow]  the connection's receive window (default 2^30 - 1, at least 65535)
 */

export class H2Session {
  /** @param {H2Handler} handler @param {H2SessionOptions} options */
  constructor (handler, options) {
    this.handler = handler
    const seats = options.seats
    this.seats = seats
    this.window = options.window ?? 2 ** 30 - 1
    this.connectionWindow = Math.max(DEFAULT_WINDOW, options.connectionWindow ?? 2 ** 30 - 1)
    this.state = AWAITING_SETTINGS
    // Per seat: the stream it carries (0: none), where the response is, and the figures reported.
    this.streamId = new Int32Array(seats)
    this.phase = new Uint8Array(seats)
    /** the response's :status (valid from streamHeaders) */
    this.status = new Int32Array(seats)
    /** the response's content-length, -1 when it had none */
    this.contentLength = new Float64Array(seats)
    /** DATA payload bytes received, padding not counted */
    this.dataBytes = new Float64Array(seats)
    /** the RST_STREAM's error code of a stream that ended RESET */
    this.resetCode = new Int32Array(seats)
    /** what the server may still send on the stream before our next WINDOW_UPDATE */
    this.recvWindow = new Float64Array(seats)
    // A request body still to send: its Buffer (null: none), how much of it is written, and what the
    // server lets the stream send before its next WINDOW_UPDATE.
    /** @type {(Buffer|null)[]} */
    this.body = new Array(seats).fill(null)
    this.bodySent = new Float64Array(seats)
    this.sendWindow = new Float64Array(seats)
    /** request body bytes written (DATA payloads) */
    this.bodyBytesSent = 0
    // Stream id -> seat, open addressing with linear probing (ids are consecutive odd numbers: their
    // halves spread over the table without collisions while fewer than its size are open).
    let size = 8
    while (size < seats * 4) size *= 2
    this.mapIds = new Int32Array(size)
    this.mapSeats = new Int32Array(size)
    this.mapMask = size - 1
    this.open = 0
    this.nextStreamId = 1
    /** the server's SETTINGS */
    this.peerMaxStreams = MAX_WINDOW
    this.peerMaxFrame = DEFAULT_FRAME
    this.peerInitialWindow = DEFAULT_WINDOW
    /** what the server may still send on the connection before our next WINDOW_UPDATE */
    this.connRecvWindow = DEFAULT_WINDOW
    /** what the connection may send of request bodies before the server's next WINDOW_UPDATE */
    this.connSendWindow = DEFAULT_WINDOW
    this.goawayLastStreamId = -1
    /** streams given up by cancel() whose frames may still come (until their END_STREAM or RST_STREAM) */
    this.cancelled = new Set()
    /** the connection error, once there was one */
    this.errorCode = -1
    this.errorReason = ''
    this.hpack = new HpackDecoder()
    // A frame split across reads: the bytes so far (header and payload), except DATA, whose payload
    // is skipped as it comes (dataLeft bytes still to come, dataPad its padding once known).
    this.carry = Buffer.allocUnsafe(9 + DEFAULT_FRAME)
    this.carryLength = 0
    this.dataStream = 0
    this.dataFlags = 0
    this.dataLength = 0
    this.dataLeft = 0
    this.dataPad = -1
    // A header block continued in CONTINUATION frames: its fragments so far.
    this.blockStream = 0
    this.blockEndStream = false
    this.block = Buffer.allocUnsafe(DEFAULT_FRAME)
    this.blockLength = 0
    this.blockFrames = 0
    this.out = Buffer.allocUnsafe(OUT_SIZE)
    this.outStart = 0
    this.outPos = 0
  }

  /** Queue the preface, our SETTINGS and the connection window's first update, and flush them. */
  start () {
    this.reserve(PREFACE.length + 9 + 12 + 13)
    PREFACE.copy(this.out, this.outPos)
    this.outPos += PREFACE.length
    const settings = this.window === DEFAULT_WINDOW ? 1 : 2
    this.frameHeader(settings * 6, SETTINGS, 0, 0)
    this.setting(SETTINGS_ENABLE_PUSH, 0)
    if (settings === 2) this.setting(SETTINGS_INITIAL_WINDOW_SIZE, this.window)
    if (this.connectionWindow > DEFAULT_WINDOW) this.windowUpdate(0, this.connectionWindow - DEFAULT_WINDOW)
    this.connRecvWindow = this.connectionWindow
    this.flush()
  }

  /** How many more streams may open now: 0 before the server's SETTINGS, after GOAWAY or an error. */
  capacity () {
    if (this.state !== OPEN) return 0
    const room = Math.min(this.seats, this.peerMaxStreams) - this.open
    return Math.max(0, Math.min(room, (MAX_WINDOW - this.nextStreamId) / 2 + 1))
  }

  /**
   * Open a stream on a free seat: a HEADERS frame (with CONTINUATIONs when the block exceeds the
   * server's MAX_FRAME_SIZE), then the body's DATA frames as far as the server's windows allow (the
   * rest as its WINDOW_UPDATEs come), the last one ending the stream; queued until the next flush.
   * The caller has checked capacity().
   * @param {number} seat @param {Buffer} block the request's header block (hpack.js encodeRequestBlock)
   * @param {Buffer|null} [body] unchanged until the stream ends; null or empty: none
   * @returns {number} the stream id
   */
  request (seat, block, body = null) {
    const id = this.nextStreamId
    this.nextStreamId += 2
    this.streamId[seat] = id
    this.phase[seat] = SEAT_HEADERS
    this.status[seat] = 0
    this.contentLength[seat] = -1
    this.dataBytes[seat] = 0
    this.resetCode[seat] = 0
    this.recvWindow[seat] = this.window
    this.sendWindow[seat] = this.peerInitialWindow
    this.mapAdd(id, seat)
    this.open++
    const endStream = body === null || body.length === 0 ? FLAG_END_STREAM : 0
    this.headers(id, block, endStream)
    if (endStream === 0) {
      this.body[seat] = body
      this.bodySent[seat] = 0
      this.sendBody(seat)
    }
    return id
  }

  /**
   * The HEADERS frame of a request, with CONTINUATIONs when the block exceeds the server's MAX_FRAME_SIZE.
   * @param {number} id @param {Buffer} block @param {number} endStream FLAG_END_STREAM or 0
   */
  headers (id, block, endStream) {
    const max = this.peerMaxFrame
    if (block.length <= max) {
      this.reserve(9 + block.length)
      this.frameHeader(block.length, HEADERS, endStream | FLAG_END_HEADERS, id)
      const out = this.out
      let p = this.outPos
      // short blocks byte by byte: cheaper than a native copy's call
      if (block.length <= 64) for (let i = 0; i < block.length; i++) out[p++] = block[i]
      else p += block.copy(out, p)
      this.outPos = p
      return
    }
    for (let at = 0; at < block.length; at += max) {
      const n = Math.min(max, block.length - at)
      const last = at + n === block.length ? FLAG_END_HEADERS : 0
      this.reserve(9 + n)
      this.frameHeader(n, at === 0 ? HEADERS : CONTINUATION, (at === 0 ? endStream : 0) | last, id)
      this.outPos += block.copy(this.out, this.outPos, at, at + n)
    }
  }

  /**
   * Queue as much of a seat's body as the stream's and the connection's send windows allow, in
   * frames of at most the server's MAX_FRAME_SIZE; the last ends the stream.
   * @param {number} seat
   */
  sendBody (seat) {
    const body = /** @type {Buffer} */ (this.body[seat])
    const id = this.streamId[seat]
    let sent = this.bodySent[seat]
    while (sent < body.length) {
      const n = Math.min(body.length - sent, this.peerMaxFrame, this.connSendWindow, this.sendWindow[seat])
      if (n <= 0) break
      this.reserve(9 + n)
      this.frameHeader(n, DATA, sent + n === body.length ? FLAG_END_STREAM : 0, id)
      this.outPos += body.copy(this.out, this.outPos, sent, sent + n)
      sent += n
      this.connSendWindow -= n
      this.sendWindow[seat] -= n
      this.bodyBytesSent += n
    }
    this.bodySent[seat] = sent
    if (sent === body.length) this.body[seat] = null
  }

  /** After a window grew: send what the bodies waiting for it may. */
  resumeBodies () {
    for (let seat = 0; seat < this.seats; seat++) {
      if (this.body[seat] !== null) this.sendBody(seat)
    }
  }

  /**
   * Give a seat's stream up (a response past its deadline): RST_STREAM CANCEL queued, the seat free
   * at once, no streamEnd(). What the server still sends on the stream is read and dropped: its
   * header blocks decoded (the HPACK table is the connection's), its DATA counted against the
   * connection's window only.
   * @param {number} seat
   */
  cancel (seat) {
    const id = this.streamId[seat]
    if (id === 0) return
    if (this.state !== CLOSED) this.rstStream(id, CANCEL)
    this.body[seat] = null
    this.mapDelete(id)
    this.streamId[seat] = 0
    this.phase[seat] = SEAT_FREE
    this.open--
    this.cancelled.add(id)
  }

  /** Write what is queued. */
  flush () {
    if (this.outPos === this.outStart) return
    const data = this.out.subarray(this.outStart, this.outPos)
    this.outStart = this.outPos
    this.handler.write(data)
  }

  /**
   * Bytes read from the socket: every complete frame is handled (its callbacks called), a partial
   * one kept for the next read; then what was queued is written.
   * @param {Buffer} buf only valid during the call @param {number} length bytes read, from buf[0]
   */
  data (buf, length) {
    if (this.state === CLOSED) return
    let i = 0
    if (this.dataLeft > 0) i = this.skipData(buf, 0, length)
    else if (this.carryLength > 0) i = this.fillCarry(buf, length)
    while (i < length && this.state !== CLOSED) {
      const left = length - i
      if (left < 9) {
        buf.copy(this.carry, 0, i, length)
        this.carryLength = left
        break
      }
      const frameLength = (buf[i] << 16) | (buf[i + 1] << 8) | buf[i + 2]
      if (frameLength > DEFAULT_FRAME) {
        this.fail(FRAME_SIZE_ERROR, `a frame of ${frameLength} bytes over SETTINGS_MAX_FRAME_SIZE ${DEFAULT_FRAME}`)
        break
      }
      if (left - 9 >= frameLength) {
        this.frame(buf, i)
        i += 9 + frameLength
        continue
      }
      if (buf[i + 3] === DATA && this.blockStream === 0) {
        // a DATA frame's payload is counted as it comes, never kept
        const sid = buf.readUInt32BE(i + 5) & MAX_WINDOW
        if (!this.dataStart(sid, buf[i + 4], frameLength)) break
        this.dataStream = sid
        this.dataFlags = buf[i + 4]
        this.dataLength = frameLength
        this.dataLeft = frameLength
        this.dataPad = -1
        i = this.skipData(buf, i + 9, length)
        break
      }
      buf.copy(this.carry, 0, i, length)
      this.carryLength = left
      break
    }
    if (this.state !== CLOSED) this.flush()
  }

  /**
   * The transport closed (or the caller gives the connection up): open streams end LOST; nothing is
   * written any more.
   */
  close () {
    if (this.state === CLOSED) return
    this.state = CLOSED
    this.loseStreams(0)
  }

  // ---- reading ----

  /**
   * Complete the frame kept in `carry` with the bytes of this read; where the read's own frames start.
   * @param {Buffer} buf @param {number} length
   */
  fillCarry (buf, length) {
    const carry = this.carry
    let i = 0
    if (this.carryLength < 9) {
      i = Math.min(9 - this.carryLength, length)
      buf.copy(carry, this.carryLength, 0, i)
      this.carryLength += i
      if (this.carryLength < 9) return length
      const frameLength = (carry[0] << 16) | (carry[1] << 8) | carry[2]
      if (frameLength > DEFAULT_FRAME) {
        this.fail(FRAME_SIZE_ERROR, `a frame of ${frameLength} bytes over SETTINGS_MAX_FRAME_SIZE ${DEFAULT_FRAME}`)
        return length
      }
      if (carry[3] === DATA && this.blockStream === 0) {
        const sid = carry.readUInt32BE(5) & MAX_WINDOW
        this.carryLength = 0
        if (!this.dataStart(sid, carry[4], frameLength)) return length
        this.dataStream = sid
        this.dataFlags = carry[4]
        this.dataLength = frameLength
        this.dataLeft = frameLength
        this.dataPad = -1
        if (frameLength === 0) {
          this.dataEnd()
          return i
        }
        return this.skipData(buf, i, length)
      }
    }
    const frameLength = (carry[0] << 16) | (carry[1] << 8) | carry[2]
    const n = Math.min(9 + frameLength - this.carryLength, length - i)
    buf.copy(carry, this.carryLength, i, i + n)
    this.carryLength += n
    i += n
    if (this.carryLength < 9 + frameLength) return length
    this.carryLength = 0
    this.frame(carry, 0)
    return i
  }

  /**
   * Skip the payload of the DATA frame in progress; where the bytes after it start.
   * @param {Buffer} buf @param {number} i @param {number} length
   */
  skipData (buf, i, length) {
    if (this.dataPad < 0 && (this.dataFlags & FLAG_PADDED) !== 0) {
      if (i >= length) return length
      this.dataPad = buf[i]
      if (this.dataPad >= this.dataLength) {
        this.fail(PROTOCOL_ERROR, `DATA padding of ${this.dataPad} bytes in a frame of ${this.dataLength}`)
        return length
      }
    }
    const n = Math.min(this.dataLeft, length - i)
    this.dataLeft -= n
    if (this.dataLeft === 0) this.dataEnd()
    return i + n
  }

  /** The DATA frame in progress is read. */
  dataEnd () {
    const pad = (this.dataFlags & FLAG_PADDED) !== 0 ? this.dataPad + 1 : 0
    this.dataDone(this.dataStream, this.dataFlags, this.dataLength, this.dataLength - pad)
  }

  /**
   * A whole frame at buf[at].
   * @param {Buffer} buf @param {number} at
   */
  frame (buf, at) {
    const length = (buf[at] << 16) | (buf[at + 1] << 8) | buf[at + 2]
    const type = buf[at + 3]
    const flags = buf[at + 4]
    const sid = ((buf[at + 5] & 0x7f) << 24 | (buf[at + 6] << 16) | (buf[at + 7] << 8) | buf[at + 8]) >>> 0
    const p = at + 9
    if (this.blockStream !== 0 && type !== CONTINUATION) {
      this.fail(PROTOCOL_ERROR, `a frame of type ${type} inside a header block (CONTINUATION expected)`)
      return
    }
    if (this.state === AWAITING_SETTINGS && (type !== SETTINGS || (flags & FLAG_ACK) !== 0)) {
      this.fail(PROTOCOL_ERROR, `a frame of type ${type} before the server's SETTINGS`)
      return
    }
    switch (type) {
      case DATA: {
        if (!this.dataStart(sid, flags, length)) return
        let pad = 0
        if ((flags & FLAG_PADDED) !== 0) {
          pad = buf[p] + 1
          if (pad > length) {
            this.fail(PROTOCOL_ERROR, `DATA padding of ${pad - 1} bytes in a frame of ${length}`)
            return
          }
        }
        this.dataDone(sid, flags, length, length - pad)
        return
      }
      case HEADERS: this.headersFrame(buf, p, length, flags, sid); return
      case CONTINUATION: this.continuationFrame(buf, p, length, flags, sid); return
      case SETTINGS: this.settingsFrame(buf, p, length, flags, sid); return
      case PING:
        if (sid !== 0) return this.fail(PROTOCOL_ERROR, `PING on stream ${sid}`)
        if (length !== 8) return this.fail(FRAME_SIZE_ERROR, `PING of ${length} bytes`)
        if ((flags & FLAG_ACK) === 0) {
          this.reserve(17)
          this.frameHeader(8, PING, FLAG_ACK, 0)
          this.outPos += buf.copy(this.out, this.outPos, p, p + 8)
        }
        return
      case WINDOW_UPDATE: {
        if (length !== 4) return this.fail(FRAME_SIZE_ERROR, `WINDOW_UPDATE of ${length} bytes`)
        const increment = buf.readUInt32BE(p) & MAX_WINDOW
        if (increment === 0) return this.fail(PROTOCOL_ERROR, `WINDOW_UPDATE of 0 on stream ${sid}`)
        if (sid === 0) {
          this.connSendWindow += increment
          if (this.connSendWindow > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, 'the connection\'s send window over 2^31-1')
          this.resumeBodies()
          return
        }
        if (sid >= this.nextStreamId || (sid & 1) === 0) return this.fail(PROTOCOL_ERROR, `WINDOW_UPDATE on stream ${sid}, never opened`)
        const seat = this.mapGet(sid)
        // (a stream that has ended: harmless)
        if (seat < 0) return
        this.sendWindow[seat] += increment
        if (this.sendWindow[seat] > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, `stream ${sid}'s send window over 2^31-1`)
        if (this.body[seat] !== null) this.sendBody(seat)
        return
      }
      case RST_STREAM: {
        if (length !== 4) return this.fail(FRAME_SIZE_ERROR, `RST_STREAM of ${length} bytes`)
        if (sid === 0 || sid >= this.nextStreamId || (sid & 1) === 0) return this.fail(PROTOCOL_ERROR, `RST_STREAM on stream ${sid}, never opened`)
        const seat = this.mapGet(sid)
        // a stream that has ended already: the server's reset crossed our END_STREAM's end, harmless
        if (seat < 0) {
          this.cancelled.delete(sid)
          return
        }
        const code = buf.readUInt32BE(p)
        this.resetCode[seat] = code
        // NO_ERROR once the response is whole (its final HEADERS read, and its content-length's bytes
        // when it gave one): the server is done with the stream without an END_STREAM, as node:http2's
        // server on Node.js 22 and 24 ends a body that waited for flow control (RFC 9113 8.1 allows
        // NO_ERROR after a complete response). h2load counts such a stream as a success too.
        const declared = this.contentLength[seat]
        const whole = code === NO_ERROR && this.phase[seat] === SEAT_BODY && (declared < 0 || this.dataBytes[seat] === declared)
        this.endStream(seat, whole ? ENDED : RESET)
        return
      }
      case GOAWAY: {
        if (sid !== 0) return this.fail(PROTOCOL_ERROR, `GOAWAY on stream ${sid}`)
        if (length < 8) return this.fail(FRAME_SIZE_ERROR, `GOAWAY of ${length} bytes`)
        const last = buf.readUInt32BE(p) & MAX_WINDOW
        const code = buf.readUInt32BE(p + 4)
        if (this.state !== CLOSED) this.state = DRAINING
        this.goawayLastStreamId = last
        this.loseStreams(last)
        this.handler.goaway(last, code)
        return
      }
      case PRIORITY:
        if (sid === 0) return this.fail(PROTOCOL_ERROR, 'PRIORITY on stream 0')
        if (length !== 5) return this.fail(FRAME_SIZE_ERROR, `PRIORITY of ${length} bytes`)
        return
      case PUSH_PROMISE: return this.fail(PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled')
      // unknown types are ignored (section 4.1)
    }
  }

  /**
   * Check a DATA frame's header: its stream is open and awaiting its body, the windows hold it.
   * @param {number} sid @param {number} flags @param {number} length
   * @returns {boolean} false after a connection error
   */
  dataStart (sid, flags, length) {
    if (this.state === AWAITING_SETTINGS) {
      this.fail(PROTOCOL_ERROR, 'a DATA frame before the server\'s SETTINGS')
      return false
    }
    if ((flags & FLAG_PADDED) !== 0 && length === 0) {
      this.fail(FRAME_SIZE_ERROR, 'a padded DATA frame of 0 bytes')
      return false
    }
    if (this.cancelled.has(sid)) {
      if (length <= this.connRecvWindow) return true
      this.fail(FLOW_CONTROL_ERROR, `DATA of ${length} bytes over the connection's window of ${this.connRecvWindow}`)
      return false
    }
    const seat = this.streamSeat(sid, 'DATA')
    if (seat < 0) return false
    if (this.phase[seat] !== SEAT_BODY) {
      this.fail(PROTOCOL_ERROR, `DATA on stream ${sid} before its response's HEADERS`)
      return false
    }
    if (length > this.connRecvWindow) {
      this.fail(FLOW_CONTROL_ERROR, `DATA of ${length} bytes over the connection's window of ${this.connRecvWindow}`)
      return false
    }
    if (length > this.recvWindow[seat]) {
      this.fail(FLOW_CONTROL_ERROR, `DATA of ${length} bytes over stream ${sid}'s window of ${this.recvWindow[seat]}`)
      return false
    }
    return true
  }

  /**
   * A DATA frame is read: count it, replenish the windows, end the stream on END_STREAM.
   * @param {number} sid @param {number} flags @param {number} length @param {number} bytes its payload less padding
   */
  dataDone (sid, flags, length, bytes) {
    this.connRecvWindow -= length
    if (this.connRecvWindow <= this.connectionWindow / 2) {
      this.windowUpdate(0, this.connectionWindow - this.connRecvWindow)
      this.connRecvWindow = this.connectionWindow
    }
    const seat = this.mapGet(sid)
    if (seat < 0) {
      if ((flags & FLAG_END_STREAM) !== 0) this.cancelled.delete(sid)
      return
    }
    this.dataBytes[seat] += bytes
    this.recvWindow[seat] -= length
    if ((flags & FLAG_END_STREAM) !== 0) {
      this.endStream(seat, ENDED)
    } else if (this.recvWindow[seat] <= this.window / 2) {
      this.windowUpdate(sid, this.window - this.recvWindow[seat])
      this.recvWindow[seat] = this.window
    }
  }

  /**
   * @param {Buffer} buf @param {number} p @param {number} length @param {number} flags @param {number} sid
   */
  headersFrame (buf, p, length, flags, sid) {
    let start = p
    let end = p + length
    if ((flags & FLAG_PADDED) !== 0) {
      if (length < 1) return this.fail(FRAME_SIZE_ERROR, 'a padded HEADERS frame of 0 bytes')
      end -= buf[p]
      start++
    }
    if ((flags & FLAG_PRIORITY) !== 0) start += 5
    if (start > end) return this.fail(PROTOCOL_ERROR, `HEADERS padding and priority over its ${length} bytes`)
    const seat = this.cancelled.has(sid) ? -1 : this.streamSeat(sid, 'HEADERS')
    if (seat < 0 && this.state === CLOSED) return
    const endStream = (flags & FLAG_END_STREAM) !== 0
    if ((flags & FLAG_END_HEADERS) !== 0) {
      if (seat >= 0) this.headerBlock(seat, endStream, buf, start, end)
      else this.droppedBlock(sid, endStream, buf, start, end)
      return
    }
    this.blockStream = sid
    this.blockEndStream = endStream
    this.blockLength = 0
    this.blockFrames = 0
    this.appendBlock(buf, start, end)
  }

  /**
   * @param {Buffer} buf @param {number} p @param {number} length @param {number} flags @param {number} sid
   */
  continuationFrame (buf, p, length, flags, sid) {
    if (this.blockStream === 0) return this.fail(PROTOCOL_ERROR, `CONTINUATION on stream ${sid} after a complete header block`)
    if (sid !== this.blockStream) return this.fail(PROTOCOL_ERROR, `CONTINUATION on stream ${sid} inside stream ${this.blockStream}'s header block`)
    if (++this.blockFrames > MAX_CONTINUATIONS) return this.fail(ENHANCE_YOUR_CALM, `a header block of more than ${MAX_CONTINUATIONS} CONTINUATION frames`)
    this.appendBlock(buf, p, p + length)
    if ((flags & FLAG_END_HEADERS) === 0) return
    this.blockStream = 0
    const seat = this.mapGet(sid)
    if (seat >= 0) this.headerBlock(seat, this.blockEndStream, this.block, 0, this.blockLength)
    else this.droppedBlock(sid, this.blockEndStream, this.block, 0, this.blockLength)
  }

  /**
   * A header block of a cancelled stream: decoded for the table's sake, then dropped.
   * @param {number} sid @param {boolean} endStream @param {Buffer} buf @param {number} start @param {number} end
   */
  droppedBlock (sid, endStream, buf, start, end) {
    const hpack = this.hpack
    if (!hpack.decode(buf, start, end)) return this.fail(COMPRESSION_ERROR, `HPACK: ${hpack.error}`)
    if (endStream) this.cancelled.delete(sid)
  }

  /** @param {Buffer} buf @param {number} start @param {number} end */
  appendBlock (buf, start, end) {
    const need = this.blockLength + end - start
    if (need > this.block.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.block.length * 2))
      this.block.copy(grown, 0, 0, this.blockLength)
      this.block = grown
    }
    this.blockLength += buf.copy(this.block, this.blockLength, start, end)
  }

  /**
   * A complete header block of an open stream: the response's HEADERS (after any 1xx), or trailers.
   * @param {number} seat @param {boolean} endStream @param {Buffer} buf @param {number} start @param {number} end
   */
  headerBlock (seat, endStream, buf, start, end) {
    const hpack = this.hpack
    if (!hpack.decode(buf, start, end)) return this.fail(COMPRESSION_ERROR, `HPACK: ${hpack.error}`)
    if (this.phase[seat] === SEAT_HEADERS) {
      const status = hpack.status
      if (status === 0) return this.fail(PROTOCOL_ERROR, `a response without a valid :status on stream ${this.streamId[seat]}`)
      if (status < 200) {
        if (endStream) return this.fail(PROTOCOL_ERROR, `an interim ${status} response ending stream ${this.streamId[seat]}`)
        return
      }
      this.status[seat] = status
      this.contentLength[seat] = hpack.contentLength
      this.phase[seat] = SEAT_BODY
      this.handler.streamHeaders(seat)
      // the handler may have closed the session
      if (this.streamId[seat] === 0 || this.state === CLOSED) return
    } else if (!endStream) {
      return this.fail(PROTOCOL_ERROR, `trailers without END_STREAM on stream ${this.streamId[seat]}`)
    }
    if (endStream) this.endStream(seat, ENDED)
  }

  /**
   * @param {Buffer} buf @param {number} p @param {number} length @param {number} flags @param {number} sid
   */
  settingsFrame (buf, p, length, flags, sid) {
    if (sid !== 0) return this.fail(PROTOCOL_ERROR, `SETTINGS on stream ${sid}`)
    if ((flags & FLAG_ACK) !== 0) {
      if (length !== 0) this.fail(FRAME_SIZE_ERROR, `a SETTINGS ACK of ${length} bytes`)
      return
    }
    if (length % 6 !== 0) return this.fail(FRAME_SIZE_ERROR, `SETTINGS of ${length} bytes, not a multiple of 6`)
    for (let at = p; at < p + length; at += 6) {
      const id = buf.readUInt16BE(at)
      const value = buf.readUInt32BE(at + 2)
      switch (id) {
        case SETTINGS_ENABLE_PUSH:
          if (value > 1) return this.fail(PROTOCOL_ERROR, `SETTINGS_ENABLE_PUSH of ${value}`)
          break
        case SETTINGS_MAX_CONCURRENT_STREAMS: this.peerMaxStreams = value; break
        case SETTINGS_INITIAL_WINDOW_SIZE:
          if (value > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE of ${value}`)
          // the open streams' windows move by the difference (section 6.9.2), below 0 too
          for (let seat = 0; seat < this.seats; seat++) {
            if (this.streamId[seat] === 0) continue
            this.sendWindow[seat] += value - this.peerInitialWindow
            if (this.sendWindow[seat] > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, `stream ${this.streamId[seat]}'s send window over 2^31-1`)
          }
          this.peerInitialWindow = value
          break
        case SETTINGS_MAX_FRAME_SIZE:
          if (value < DEFAULT_FRAME || value > MAX_FRAME) return this.fail(PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE of ${value}`)
          this.peerMaxFrame = value
          break
        // SETTINGS_HEADER_TABLE_SIZE sizes the server's decoder, which our blocks never index into
        case SETTINGS_HEADER_TABLE_SIZE: break
      }
    }
    this.reserve(9)
    this.frameHeader(0, SETTINGS, FLAG_ACK, 0)
    this.resumeBodies()
    if (this.state === AWAITING_SETTINGS) {
      this.state = OPEN
      this.handler.ready()
    }
  }

  /**
   * The seat of an open stream a DATA or HEADERS frame names; -1 after a connection error (stream 0,
   * one of the server's, one never opened, one that has ended).
   * @param {number} sid @param {string} type
   */
  streamSeat (sid, type) {
    const seat = sid === 0 ? -1 : this.mapGet(sid)
    if (seat >= 0) return seat
    if (sid === 0 || (sid & 1) === 0 || sid >= this.nextStreamId) this.fail(PROTOCOL_ERROR, `${type} on stream ${sid}, never opened`)
    else this.fail(STREAM_CLOSED, `${type} on stream ${sid}, which has ended`)
    return -1
  }

  // ---- streams ----

  /** @param {number} seat @param {number} outcome */
  endStream (seat, outcome) {
    if (this.body[seat] !== null) {
      // the response is complete before its request: the rest of the body is not wanted (RFC 9113
      // section 8.1); a stream reset or lost has no body to stop
      if (outcome === ENDED) this.rstStream(this.streamId[seat], CANCEL)
      this.body[seat] = null
    }
    this.mapDelete(this.streamId[seat])
    this.streamId[seat] = 0
    this.phase[seat] = SEAT_FREE
    this.open--
    this.handler.streamEnd(seat, outcome)
  }

  /**
   * End every open stream above `last` (GOAWAY's last stream id; 0: all): REFUSED after a GOAWAY,
   * LOST when the connection is gone.
   * @param {number} last
   */
  loseStreams (last) {
    const outcome = this.state === CLOSED ? LOST : REFUSED
    for (let seat = 0; seat < this.seats; seat++) {
      if (this.streamId[seat] > last) this.endStream(seat, outcome)
    }
  }

  /**
   * A connection error: GOAWAY written, open streams LOST, the handler told. Once only.
   * @param {number} code @param {string} reason
   * @returns {undefined}
   */
  fail (code, reason) {
    if (this.state === CLOSED) return
    this.state = CLOSED
    this.errorCode = code
    this.errorReason = reason
    this.reserve(17)
    this.frameHeader(8, GOAWAY, 0, 0)
    this.out.writeUInt32BE(0, this.outPos)
    this.out.writeUInt32BE(code, this.outPos + 4)
    this.outPos += 8
    this.flush()
    this.blockStream = 0
    this.dataLeft = 0
    this.carryLength = 0
    this.loseStreams(0)
    this.handler.sessionError(code, `${h2ErrorName(code)}: ${reason}`)
  }

  // stream id -> seat

  /** @param {number} id @param {number} seat */
  mapAdd (id, seat) {
    const mask = this.mapMask
    let h = (id >>> 1) & mask
    while (this.mapIds[h] !== 0) h = (h + 1) & mask
    this.mapIds[h] = id
    this.mapSeats[h] = seat
  }

  /** @param {number} id @returns {number} the seat, -1 when the stream is not open */
  mapGet (id) {
    const mask = this.mapMask
    const ids = this.mapIds
    let h = (id >>> 1) & mask
    for (;;) {
      const k = ids[h]
      if (k === id) return this.mapSeats[h]
      if (k === 0) return -1
      h = (h + 1) & mask
    }
  }

  /** Remove, shifting back the entries probed past it (linear probing's deletion). @param {number} id */
  mapDelete (id) {
    const mask = this.mapMask
    const ids = this.mapIds
    let i = (id >>> 1) & mask
    while (ids[i] !== id) {
      if (ids[i] === 0) return
      i = (i + 1) & mask
    }
    ids[i] = 0
    let j = i
    for (;;) {
      j = (j + 1) & mask
      const k = ids[j]
      if (k === 0) return
      const home = (k >>> 1) & mask
      // k may move to the hole at i unless its home lies cyclically in (i, j]
      const stays = i <= j ? home > i && home <= j : home > i || home <= j
      if (!stays) {
        ids[i] = k
        this.mapSeats[i] = this.mapSeats[j]
        ids[j] = 0
        i = j
      }
    }
  }

  // ---- writing ----

  /** Room for n more bytes in the output buffer (flushing it, or a new one). @param {number} n */
  reserve (n) {
    if (this.outPos + n <= this.out.length) return
    this.flush()
    this.out = Buffer.allocUnsafe(Math.max(OUT_SIZE, n))
    this.outStart = 0
    this.outPos = 0
  }

  /** @param {number} length @param {number} type @param {number} flags @param {number} sid */
  frameHeader (length, type, flags, sid) {
    const out = this.out
    const p = this.outPos
    out[p] = length >>> 16
    out[p + 1] = (length >>> 8) & 0xff
    out[p + 2] = length & 0xff
    out[p + 3] = type
    out[p + 4] = flags
    out[p + 5] = sid >>> 24
    out[p + 6] = (sid >>> 16) & 0xff
    out[p + 7] = (sid >>> 8) & 0xff
    out[p + 8] = sid & 0xff
    this.outPos = p + 9
  }

  /** One SETTINGS parameter (room reserved). @param {number} id @param {number} value */
  setting (id, value) {
    this.out.writeUInt16BE(id, this.outPos)
    this.out.writeUInt32BE(value, this.outPos + 2)
    this.outPos += 6
  }

  /** @param {number} sid @param {number} code */
  rstStream (sid, code) {
    this.reserve(13)
    this.frameHeader(4, RST_STREAM, 0, sid)
    this.out.writeUInt32BE(code, this.outPos)
    this.outPos += 4
  }

  /** @param {number} sid @param {number} increment */
  windowUpdate (sid, increment) {
    this.reserve(13)
    this.frameHeader(4, WINDOW_UPDATE, 0, sid)
    this.out.writeUInt32BE(increment, this.outPos)
    this.outPos += 4
  }
}
