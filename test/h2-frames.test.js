// The HTTP/2 client framer (lib/load/h2-frames.js) over node:net: against a real node:http2 server
// (statuses, content-lengths and body byte counts, flow control down to a 1-byte window, RST_STREAM,
// GOAWAY, SETTINGS_MAX_CONCURRENT_STREAMS, header blocks split over CONTINUATION both ways, 1xx and
// trailers), the same conversation replayed split at every byte, and a raw socket server that
// speaks malformed HTTP/2: each violation must become a named connection error, never an exception.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import net from 'node:net'
import { once } from 'node:events'
import { H2Session, ENDED, RESET, REFUSED, LOST, h2ErrorName } from '../lib/load/h2-frames.js'
import { encodeRequestBlock } from '../lib/load/hpack.js'

/** @type {(() => Promise<void>|void)[]} */
const closers = []
after(() => Promise.all(closers.map((close) => close())))

const DATA = 0x0
const HEADERS = 0x1
const RST_STREAM = 0x3
const SETTINGS = 0x4
const PUSH_PROMISE = 0x5
const PING = 0x6
const GOAWAY = 0x7
const WINDOW_UPDATE = 0x8
const CONTINUATION = 0x9
const END_STREAM = 0x1
const ACK = 0x1
const END_HEADERS = 0x4
const PADDED = 0x8
const PRIORITY_FLAG = 0x20

/**
 * A node:http2 server (h2c) on 127.0.0.1 port 0, closed with its sessions after the file's tests.
 * @param {(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void} handler
 * @param {http2.Settings} [settings]
 */
async function h2Server (handler, settings) {
  const server = http2.createServer({ settings }, handler)
  /** @type {Set<http2.ServerHttp2Session>} */
  const sessions = new Set()
  server.on('session', (s) => { sessions.add(s); s.on('close', () => sessions.delete(s)) })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => { for (const s of sessions) s.destroy(); server.close(() => resolve()) }))
  return /** @type {net.AddressInfo} */ (server.address()).port
}

/**
 * @typedef {{ request: number, seat: number, outcome: number, status: number, contentLength: number, dataBytes: number, resetCode: number }} End
 * @typedef {{ ends: End[], headers: number, errors: { code: number, reason: string }[], goaways: number[][], maxOpen: number, firstCapacity: number, session: H2Session, received: Buffer[], stalled: boolean }} Drive
 * @typedef {{ requests?: number, seats?: number, window?: number, connectionWindow?: number, block?: (i: number) => Buffer, body?: (i: number) => Buffer|null }} DriveOptions
 */

/** A GET of `path`. @param {string} path @param {[string, string][]} [headers] */
const get = (path, headers) => encodeRequestBlock({ method: 'GET', scheme: 'http', authority: '127.0.0.1', path, headers })
const ROOT = get('/')

/**
 * A handler that issues `requests` requests, one per free seat as capacity allows and the next
 * from each stream's end, and records what the session reports.
 * @param {DriveOptions} o @param {(data: Buffer) => void} write @param {() => void} done
 */
function recorder (o, write, done) {
  const requests = o.requests ?? 1
  const block = o.block ?? (() => ROOT)
  let issued = 0
  /** @type {Drive} */
  const rec = { ends: [], headers: 0, errors: [], goaways: [], maxOpen: 0, firstCapacity: -1, session: /** @type {any} */ (null), received: [], stalled: false }
  const seatRequest = new Int32Array(o.seats ?? 10)
  const issue = (/** @type {number} */ seat) => {
    seatRequest[seat] = issued
    rec.session.request(seat, block(issued), o.body?.(issued) ?? null)
    issued++
    rec.maxOpen = Math.max(rec.maxOpen, rec.session.open)
  }
  const handler = {
    write,
    ready () {
      const s = rec.session
      rec.firstCapacity = s.capacity()
      for (let seat = 0; seat < s.seats; seat++) {
        if (issued === requests || s.capacity() === 0) break
        issue(seat)
      }
      s.flush()
    },
    streamHeaders () { rec.headers++ },
    /** @param {number} seat @param {number} outcome */
    streamEnd (seat, outcome) {
      const s = rec.session
      rec.ends.push({ request: seatRequest[seat], seat, outcome, status: s.status[seat], contentLength: s.contentLength[seat], dataBytes: s.dataBytes[seat], resetCode: s.resetCode[seat] })
      if (issued < requests && s.capacity() > 0) issue(seat)
      if (rec.ends.length === requests || (rec.goaways.length > 0 && s.open === 0)) done()
    },
    /** @param {number} last @param {number} code */
    goaway (last, code) {
      rec.goaways.push([last, code])
      if (rec.session.open === 0) done()
    },
    /** @param {number} code @param {string} reason */
    sessionError (code, reason) {
      rec.errors.push({ code, reason })
      done()
    }
  }
  rec.session = new H2Session(handler, { seats: o.seats ?? 10, window: o.window, connectionWindow: o.connectionWindow })
  return rec
}

/**
 * Run requests over one node:net connection to the port until all have ended, the session failed
 * or the socket closed (or, as a guard against a hang, 30 s passed: `stalled`).
 * @param {number} port @param {DriveOptions} [o]
 * @returns {Promise<Drive>}
 */
async function drive (port, o = {}) {
  const socket = net.connect(port, '127.0.0.1')
  socket.setNoDelay(true)
  /** @type {() => void} */
  let finish = () => {}
  const finished = new Promise((resolve) => { finish = () => resolve(undefined) })
  const rec = recorder(o, (data) => { if (!socket.destroyed) socket.write(data) }, () => finish())
  socket.on('data', (buf) => { rec.received.push(buf); rec.session.data(buf, buf.length) })
  socket.on('close', () => { rec.session.close(); finish() })
  socket.on('error', () => {})
  await once(socket, 'connect')
  rec.session.start()
  const guard = setTimeout(() => { rec.stalled = true; finish() }, 30_000)
  await finished
  clearTimeout(guard)
  socket.end()
  return rec
}

/** @param {Drive} r */
function outcomes (r) {
  return r.ends.map((e) => e.outcome)
}

test('100 requests over 10 seats: each stream ends with its status, content-length and body bytes', async () => {
  const port = await h2Server((req, res) => {
    const url = req.url ?? '/'
    if (url.startsWith('/ok/')) {
      const n = Number(url.slice(4))
      res.writeHead(200, { 'content-length': n })
      res.end(Buffer.alloc(n, 'x'))
    } else if (url === '/empty') {
      res.writeHead(204)
      res.end()
    } else {
      res.writeHead(404)
      res.end('nope')
    }
  })
  const paths = (/** @type {number} */ i) => i % 10 === 9 ? '/missing' : i % 10 === 8 ? '/empty' : `/ok/${i * 37}`
  const blocks = new Map()
  const r = await drive(port, { requests: 100, seats: 10, block: (i) => blocks.get(paths(i)) ?? blocks.set(paths(i), get(paths(i))).get(paths(i)) })
  assert.deepEqual(r.errors, [])
  assert.equal(r.ends.length, 100)
  assert.equal(r.headers, 100)
  assert.equal(r.maxOpen, 10)
  for (const e of r.ends) {
    const path = paths(e.request)
    assert.equal(e.outcome, ENDED, path)
    if (path === '/missing') assert.deepEqual([e.status, e.contentLength, e.dataBytes], [404, -1, 4])
    else if (path === '/empty') assert.deepEqual([e.status, e.dataBytes], [204, 0])
    else assert.deepEqual([e.status, e.contentLength, e.dataBytes], [200, e.request * 37, e.request * 37], path)
  }
  assert.deepEqual(new Set(r.ends.map((e) => e.request)).size, 100)
  assert.equal(r.session.nextStreamId, 201)
  assert.equal(r.session.open, 0)
})

test('bodies larger than the windows: WINDOW_UPDATEs for the streams and the connection keep them coming', async () => {
  const body = Buffer.alloc(300_000, 'y')
  const port = await h2Server((req, res) => res.end(body))
  const r = await drive(port, { requests: 6, seats: 3, window: 65535, connectionWindow: 65535 })
  assert.equal(r.stalled, false)
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status, e.dataBytes]), Array(6).fill([ENDED, 200, 300_000]))
})

test('a 1-byte stream window: the body comes a byte at a time, each byte granted by a WINDOW_UPDATE', async () => {
  const port = await h2Server((req, res) => res.end('hello world\n'))
  const r = await drive(port, { requests: 3, seats: 3, window: 1 })
  assert.equal(r.stalled, false)
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.dataBytes]), Array(3).fill([ENDED, 12]))
  // 12 DATA frames of one byte per stream (9 + 1 bytes each) were read
  const read = Buffer.concat(r.received)
  assert.equal(countFrames(read, DATA, 1), 36)
})

/**
 * Frames of a type (and payload length, any when -1) in a server's byte stream (servers send no preface).
 * @param {Buffer} bytes @param {number} type @param {number} length
 */
function countFrames (bytes, type, length) {
  let n = 0
  for (let i = 0; i + 9 <= bytes.length;) {
    const len = bytes.readUIntBE(i, 3)
    if (bytes[i + 3] === type && (length < 0 || len === length)) n++
    i += 9 + len
  }
  return n
}

test('RST_STREAM: a stream the server resets ends RESET with the code; the others end well', async () => {
  const port = await h2Server((req, res) => {
    if (req.url === '/reset') req.stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)
    else res.end('ok')
  })
  const r = await drive(port, { requests: 10, seats: 5, block: (i) => get(i % 3 === 0 ? '/reset' : '/') })
  assert.deepEqual(r.errors, [])
  for (const e of r.ends) {
    if (e.request % 3 === 0) assert.deepEqual([e.outcome, e.resetCode, h2ErrorName(e.resetCode)], [RESET, 11, 'ENHANCE_YOUR_CALM'])
    else assert.deepEqual([e.outcome, e.status, e.dataBytes], [ENDED, 200, 2])
  }
  assert.equal(r.ends.length, 10)
})

test('GOAWAY from the server: goaway() with its last stream id and code, and no stream opens after it', async () => {
  const port = await h2Server((req, res) => {
    res.end('bye')
    req.stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, 1)
  })
  const r = await drive(port, { requests: 2, seats: 1 })
  // the second request could not be issued: the session refused to open a stream after GOAWAY
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status, e.dataBytes]), [[ENDED, 200, 3]])
  assert.deepEqual(r.goaways, [[1, 0]])
  assert.equal(r.session.capacity(), 0)
})

test('SETTINGS_MAX_CONCURRENT_STREAMS 2 caps the seats in use at 2 of 10', async () => {
  let open = 0
  let peak = 0
  const port = await h2Server((req, res) => {
    open++
    peak = Math.max(peak, open)
    setImmediate(() => { open--; res.end('x') })
  }, { maxConcurrentStreams: 2 })
  const r = await drive(port, { requests: 20, seats: 10 })
  assert.deepEqual(r.errors, [])
  assert.equal(r.firstCapacity, 2)
  assert.equal(r.maxOpen, 2)
  assert.equal(peak, 2)
  assert.equal(r.ends.filter((e) => e.outcome === ENDED).length, 20)
})

test('header blocks over MAX_FRAME_SIZE: the response\'s CONTINUATIONs are joined, our request is split', async () => {
  const big = 'b'.repeat(40_000)
  const port = await h2Server((req, res) => {
    res.writeHead(200, { 'x-big': big, 'x-got': String(req.headers['x-req']?.length ?? 0) })
    res.end()
  }, { maxHeaderListSize: 100_000 })
  const r = await drive(port, { requests: 2, seats: 1, block: () => get('/', [['x-req', 'r'.repeat(20_000)]]) })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status]), [[ENDED, 200], [ENDED, 200]])
  // the server's frames: HEADERS without END_HEADERS, then CONTINUATION (a block of some 30000 bytes
  // Huffman-coded: one at least per response)
  const read = Buffer.concat(r.received)
  assert.ok(countFrames(read, CONTINUATION, -1) >= 2)
  // the same bytes again, this time collecting the fields decoded
  /** @type {[string, string][]} */
  const fields = []
  const again = recorder({ requests: 2, seats: 1 }, () => {}, () => {})
  again.session.hpack.fields = fields
  again.session.start()
  again.session.data(read, read.length)
  assert.equal(again.ends.length, 2)
  const xbig = fields.find(([name]) => name === 'x-big')
  assert.equal(xbig?.[1].length, 40_000)
  assert.deepEqual(fields.find(([name]) => name === 'x-got'), ['x-got', '20000'])
})

test('an interim 103 before the response, trailers after its body: one streamHeaders, ENDED after the trailers', async () => {
  const port = await h2Server((req, res) => {
    res.writeEarlyHints({ link: '</style.css>; rel=preload' })
    res.addTrailers({ 'x-trailer': 'done' })
    res.end('body')
  })
  const r = await drive(port, { requests: 3, seats: 3 })
  assert.deepEqual(r.errors, [])
  assert.equal(r.headers, 3)
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status, e.dataBytes]), Array(3).fill([ENDED, 200, 4]))
})

/**
 * Replay a server's bytes into a fresh session in the given chunks; what it reports.
 * @param {Buffer} bytes @param {number[]} cuts where the chunks end (ascending, the last = bytes.length)
 * @param {DriveOptions} o
 */
function replay (bytes, cuts, o) {
  const rec = recorder(o, () => {}, () => {})
  rec.session.start()
  let from = 0
  for (const cut of cuts) {
    // a fresh copy per chunk: the session may keep nothing of a buffer after the call
    const chunk = Buffer.from(bytes.subarray(from, cut))
    rec.session.data(chunk, chunk.length)
    chunk.fill(0xee)
    from = cut
  }
  return rec
}

test('the same conversation replayed in reads split anywhere reports the same outcomes', async () => {
  const port = await h2Server((req, res) => {
    if (req.url === '/reset') return req.stream.close(http2.constants.NGHTTP2_CANCEL)
    res.writeHead(200, { 'content-length': 1000 })
    res.end(Buffer.alloc(1000, 'z'))
  })
  const o = { requests: 12, seats: 3, window: 300, connectionWindow: 65535, block: (/** @type {number} */ i) => get(i === 5 ? '/reset' : '/') }
  const live = await drive(port, o)
  assert.deepEqual(live.errors, [])
  const bytes = Buffer.concat(live.received)
  const expected = live.ends.map((e) => [e.request, e.outcome, e.status, e.dataBytes, e.resetCode])
  assert.deepEqual(expected.filter((e) => e[1] === RESET), [[5, RESET, 0, 0, 8]])
  for (const size of [1, 2, 3, 7, 9, 10, 100, 1000]) {
    const cuts = []
    for (let at = size; at < bytes.length; at += size) cuts.push(at)
    cuts.push(bytes.length)
    const r = replay(bytes, cuts, o)
    assert.deepEqual(r.ends.map((e) => [e.request, e.outcome, e.status, e.dataBytes, e.resetCode]), expected, `reads of ${size} bytes`)
  }
  for (let at = 1; at < bytes.length; at++) {
    const r = replay(bytes, [at, bytes.length], o)
    assert.equal(r.errors.length, 0, `split at ${at}`)
    assert.deepEqual(r.ends.map((e) => [e.request, e.outcome, e.status, e.dataBytes, e.resetCode]), expected, `split at ${at}`)
  }
})

test('request bodies: empty, small, and larger than the server\'s windows (sent as its WINDOW_UPDATEs come)', async () => {
  /** @type {number[]} */
  const received = []
  const port = await h2Server((req, res) => {
    let n = 0
    req.on('data', (chunk) => { n += chunk.length })
    req.on('end', () => { received.push(n); res.end(String(n)) })
  })
  const sizes = [0, 10, 200_000, 1]
  const post = encodeRequestBlock({ method: 'POST', scheme: 'http', authority: '127.0.0.1', path: '/' })
  const r = await drive(port, { requests: 4, seats: 1, block: () => post, body: (i) => Buffer.alloc(sizes[i], 'q') })
  assert.equal(r.stalled, false)
  assert.deepEqual(r.errors, [])
  assert.deepEqual(received, sizes)
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status, e.dataBytes]), sizes.map((n) => [ENDED, 200, String(n).length]))
  assert.equal(r.session.bodyBytesSent, 200_011)
})

// ---- a raw socket server speaking malformed HTTP/2 ----

/** One frame's bytes. @param {number} type @param {number} flags @param {number} sid @param {Buffer|string} [payload] */
function frame (type, flags, sid, payload = Buffer.alloc(0)) {
  const p = typeof payload === 'string' ? Buffer.from(payload.replace(/\s+/g, ''), 'hex') : payload
  const h = Buffer.alloc(9)
  h.writeUIntBE(p.length, 0, 3)
  h[3] = type
  h[4] = flags
  h.writeUInt32BE(sid, 5)
  return Buffer.concat([h, p])
}

/** SETTINGS parameters as a payload. @param {[number, number][]} params */
function settings (params) {
  const b = Buffer.alloc(6 * params.length)
  params.forEach(([id, value], i) => { b.writeUInt16BE(id, 6 * i); b.writeUInt32BE(value, 6 * i + 2) })
  return b
}

/** A response's header block: :status (literal) and, when given, content-length. @param {number} status @param {number} [length] */
function responseBlock (status, length) {
  const lit = (/** @type {string} */ s) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)])
  return Buffer.concat([Buffer.from([0x08]), lit(String(status)), ...(length === undefined ? [] : [Buffer.from([0x0f, 0x0d]), lit(String(length))])])
}

/** The client's side of the conversation as the raw server reads it: its frames, after the preface. */
class RawPeer {
  /** @param {net.Socket} socket */
  constructor (socket) {
    this.socket = socket
    this.bytes = Buffer.alloc(0)
    /** @type {{ type: number, flags: number, sid: number, payload: Buffer }[]} */
    this.frames = []
    this.preface = ''
    this.clientSettings = Buffer.alloc(0)
    /** @type {(() => void)[]} */
    this.waiting = []
    socket.on('data', (buf) => {
      this.bytes = Buffer.concat([this.bytes, buf])
      if (this.preface === '' && this.bytes.length >= 24) {
        this.preface = this.bytes.subarray(0, 24).toString('latin1')
        this.bytes = this.bytes.subarray(24)
      }
      while (this.preface !== '' && this.bytes.length >= 9 && this.bytes.length >= 9 + this.bytes.readUIntBE(0, 3)) {
        const len = this.bytes.readUIntBE(0, 3)
        this.frames.push({ type: this.bytes[3], flags: this.bytes[4], sid: this.bytes.readUInt32BE(5), payload: this.bytes.subarray(9, 9 + len) })
        this.bytes = this.bytes.subarray(9 + len)
      }
      for (const wake of this.waiting.splice(0)) wake()
    })
    socket.on('error', () => {})
  }

  /**
   * The first frame of the client's matching `type` (and flags, when given) not taken yet.
   * @param {number} type @param {number} [flags]
   */
  async next (type, flags) {
    for (;;) {
      const i = this.frames.findIndex((f) => f.type === type && (flags === undefined || f.flags === flags))
      if (i >= 0) return this.frames.splice(i, 1)[0]
      await new Promise((resolve) => this.waiting.push(() => resolve(undefined)))
    }
  }

  /** @param {...Buffer} frames */
  send (...frames) {
    this.socket.write(Buffer.concat(frames))
  }
}

/**
 * A raw server: each connection's peer is handed to the script once the client's SETTINGS came;
 * the server's own SETTINGS are sent first unless `serverSettings` is null.
 * @param {(peer: RawPeer) => Promise<void>|void} script @param {Buffer|null} [serverSettings]
 */
async function rawServer (script, serverSettings = Buffer.alloc(0)) {
  /** @type {RawPeer[]} */
  const peers = []
  const server = net.createServer(async (socket) => {
    const peer = new RawPeer(socket)
    peers.push(peer)
    peer.clientSettings = (await peer.next(SETTINGS, 0)).payload
    if (serverSettings !== null) peer.send(frame(SETTINGS, 0, 0, serverSettings))
    await script(peer)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => { for (const p of peers) p.socket.destroy(); server.close(() => resolve()) }))
  return { port: /** @type {net.AddressInfo} */ (server.address()).port, peers }
}

test('the preface, our SETTINGS and window; the server\'s SETTINGS and PINGs are ACKed', async () => {
  /** @type {Buffer[]} */
  const seen = []
  const { port, peers } = await rawServer(async (peer) => {
    peer.send(frame(PING, 0, 0, '0102030405060708'), frame(PING, ACK, 0, '1111111111111111'))
    seen.push((await peer.next(SETTINGS, ACK)).payload)
    seen.push((await peer.next(PING, ACK)).payload)
    const h = await peer.next(HEADERS)
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, h.sid, responseBlock(200)))
  })
  const r = await drive(port, { requests: 1, window: 1000, connectionWindow: 1_000_000 })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status]), [[ENDED, 200]])
  const peer = peers[0]
  assert.equal(peer.preface, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')
  assert.deepEqual(seen, [Buffer.alloc(0), Buffer.from('0102030405060708', 'hex')])
  // our SETTINGS: ENABLE_PUSH 0 and INITIAL_WINDOW_SIZE 1000; the window update raises the
  // connection's window from 65535 to 1000000
  assert.deepEqual(peer.clientSettings, settings([[0x2, 0], [0x4, 1000]]))
  const update = await peer.next(WINDOW_UPDATE)
  assert.deepEqual([update.sid, update.payload.readUInt32BE(0)], [0, 1_000_000 - 65535])
  // the PING that was an ACK itself got none
  assert.equal(peer.frames.filter((f) => f.type === PING).length, 0)
})

test('a request block over the server\'s MAX_FRAME_SIZE goes as HEADERS and CONTINUATION; one that fits, whole', async () => {
  /** @type {{ type: number, flags: number, length: number }[][]} */
  const got = []
  const { port } = await rawServer(async (peer) => {
    for (let i = 0; i < 2; i++) {
      const h = await peer.next(HEADERS)
      const parts = [{ type: h.type, flags: h.flags, length: h.payload.length }]
      while ((parts[parts.length - 1].flags & END_HEADERS) === 0) {
        const c = await peer.next(CONTINUATION)
        parts.push({ type: c.type, flags: c.flags, length: c.payload.length })
      }
      got.push(parts)
      peer.send(frame(HEADERS, END_HEADERS | END_STREAM, h.sid, responseBlock(200)))
    }
  }, settings([[0x5, 16384]]))
  let path = '/'
  while (get(path).length < 16384) path += 'p'
  const exact = get(path)
  assert.equal(exact.length, 16384)
  const over = get(path + 'p')
  const r = await drive(port, { requests: 2, seats: 1, block: (i) => i === 0 ? exact : over })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(got, [
    [{ type: HEADERS, flags: END_STREAM | END_HEADERS, length: 16384 }],
    [{ type: HEADERS, flags: END_STREAM, length: 16384 }, { type: CONTINUATION, flags: END_HEADERS, length: over.length - 16384 }]
  ])
})

test('GOAWAY naming stream 1 of streams 1, 3 and 5: 3 and 5 end REFUSED at once, 1 still ends', async () => {
  const { port } = await rawServer(async (peer) => {
    await peer.next(HEADERS)
    await peer.next(HEADERS)
    await peer.next(HEADERS)
    peer.send(frame(GOAWAY, 0, 0, '00000001 00000000'))
    peer.send(frame(HEADERS, END_HEADERS, 1, responseBlock(200, 2)), frame(DATA, END_STREAM, 1, '6869'))
  })
  const r = await drive(port, { requests: 3, seats: 3 })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.goaways, [[1, 0]])
  assert.deepEqual(r.ends.map((e) => [e.request, e.outcome]), [[1, REFUSED], [2, REFUSED], [0, ENDED]])
  assert.deepEqual([r.ends[2].status, r.ends[2].contentLength, r.ends[2].dataBytes], [200, 2, 2])
})

test('RST_STREAM with a code RFC 9113 does not name: the seat gets it, its name is the number', async () => {
  const { port } = await rawServer(async (peer) => {
    const h = await peer.next(HEADERS)
    peer.send(frame(RST_STREAM, 0, h.sid, '00001234'))
  })
  const r = await drive(port, { requests: 1 })
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.resetCode, h2ErrorName(e.resetCode)]), [[RESET, 0x1234, '0x1234']])
})

test('RST_STREAM NO_ERROR after a whole response (Node.js 22 and 24 servers end large bodies so): ENDED; before its body is whole, or with another code: RESET', async () => {
  // each case: the response's content-length (undefined: none), the DATA bytes sent, the reset's code
  const cases = [
    { length: undefined, data: 5, code: 0, outcome: ENDED },
    { length: 5, data: 5, code: 0, outcome: ENDED },
    { length: 5, data: 4, code: 0, outcome: RESET },
    { length: 5, data: 5, code: 8, outcome: RESET },
    { length: null, data: 0, code: 0, outcome: RESET }
  ]
  for (const c of cases) {
    const { port } = await rawServer(async (peer) => {
      const h = await peer.next(HEADERS)
      // null: no response HEADERS at all, the reset comes first
      if (c.length !== null) peer.send(frame(HEADERS, END_HEADERS, h.sid, responseBlock(200, c.length)))
      if (c.data > 0) peer.send(frame(DATA, 0, h.sid, Buffer.alloc(c.data, 'x')))
      peer.send(frame(RST_STREAM, 0, h.sid, Buffer.from([0, 0, 0, c.code])))
    })
    const r = await drive(port, { requests: 1 })
    assert.deepEqual(r.errors, [], JSON.stringify(c))
    assert.deepEqual(r.ends.map((e) => [e.outcome, e.dataBytes]), [[c.outcome, c.data]], JSON.stringify(c))
  }
})

test('padding and priority: a padded HEADERS with priority and a padded DATA count only the data', async () => {
  const { port } = await rawServer(async (peer) => {
    const h = await peer.next(HEADERS)
    const block = responseBlock(200, 5)
    // HEADERS: pad length 3, priority (5 bytes), block, 3 bytes of padding
    peer.send(frame(HEADERS, END_HEADERS | PADDED | PRIORITY_FLAG, h.sid, Buffer.concat([Buffer.from([3]), Buffer.alloc(5), block, Buffer.alloc(3)])))
    // DATA: pad length 4, "hello", 4 bytes of padding; then one padded with all but its pad length byte
    peer.send(frame(DATA, PADDED, h.sid, Buffer.concat([Buffer.from([4]), Buffer.from('hello'), Buffer.alloc(4)])))
    peer.send(frame(DATA, PADDED | END_STREAM, h.sid, Buffer.concat([Buffer.from([2]), Buffer.alloc(2)])))
  })
  const r = await drive(port, { requests: 1 })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(r.ends.map((e) => [e.outcome, e.status, e.contentLength, e.dataBytes]), [[ENDED, 200, 5, 5]])
})

/**
 * Connection errors: what the server sends once the client's first HEADERS came (or at once), and
 * the error it must cause. Where an edge is tested, the case just inside it is a separate row with
 * no error.
 * @type {{ name: string, send: (sid: number) => Buffer[], code: string|null, reason?: RegExp, settings?: Buffer|null, window?: number, early?: boolean, ends?: boolean, endedFirst?: boolean }[]}
 */
const violations = [
  { name: 'a frame of 16385 bytes', send: () => [frame(0xfa, 0, 0, Buffer.alloc(16385))], code: 'FRAME_SIZE_ERROR', reason: /a frame of 16385 bytes over SETTINGS_MAX_FRAME_SIZE 16384/ },
  { name: 'a frame of 16384 bytes (of an unknown type: ignored)', send: () => [frame(0xfa, 0, 0, Buffer.alloc(16384))], code: null },
  { name: 'SETTINGS of 7 bytes', send: () => [frame(SETTINGS, 0, 0, Buffer.alloc(7))], code: 'FRAME_SIZE_ERROR', reason: /SETTINGS of 7 bytes/ },
  { name: 'a SETTINGS ACK with a payload', send: () => [frame(SETTINGS, ACK, 0, Buffer.alloc(6))], code: 'FRAME_SIZE_ERROR' },
  { name: 'SETTINGS on a stream', send: () => [frame(SETTINGS, 0, 1)], code: 'PROTOCOL_ERROR', reason: /SETTINGS on stream 1/ },
  { name: 'a PING first, no SETTINGS', settings: null, early: true, send: () => [frame(PING, 0, 0, Buffer.alloc(8))], code: 'PROTOCOL_ERROR', reason: /before the server's SETTINGS/ },
  { name: 'SETTINGS_MAX_FRAME_SIZE 16383', settings: settings([[0x5, 16383]]), early: true, send: () => [], code: 'PROTOCOL_ERROR', reason: /SETTINGS_MAX_FRAME_SIZE of 16383/ },
  { name: 'SETTINGS_MAX_FRAME_SIZE 16384', settings: settings([[0x5, 16384]]), send: () => [], code: null },
  { name: 'SETTINGS_INITIAL_WINDOW_SIZE 2^31', settings: settings([[0x4, 2 ** 31]]), early: true, send: () => [], code: 'FLOW_CONTROL_ERROR' },
  { name: 'SETTINGS_INITIAL_WINDOW_SIZE 2^31-1', settings: settings([[0x4, 2 ** 31 - 1]]), send: () => [], code: null },
  { name: 'SETTINGS_ENABLE_PUSH 2', settings: settings([[0x2, 2]]), early: true, send: () => [], code: 'PROTOCOL_ERROR' },
  { name: 'a PING of 7 bytes', send: () => [frame(PING, 0, 0, Buffer.alloc(7))], code: 'FRAME_SIZE_ERROR', reason: /PING of 7 bytes/ },
  { name: 'a header block that is not HPACK', send: (sid) => [frame(HEADERS, END_HEADERS, sid, '80')], code: 'COMPRESSION_ERROR', reason: /HPACK: index 0/ },
  { name: 'a response without :status', send: (sid) => [frame(HEADERS, END_HEADERS | END_STREAM, sid, '0f0d 0130')], code: 'PROTOCOL_ERROR', reason: /without a valid :status/ },
  { name: 'CONTINUATION on another stream', send: (sid) => [frame(HEADERS, 0, sid, '88'), frame(CONTINUATION, END_HEADERS, sid + 2, '')], code: 'PROTOCOL_ERROR', reason: /CONTINUATION on stream 3 inside stream 1's header block/ },
  { name: 'CONTINUATION after a complete block', send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(CONTINUATION, END_HEADERS, sid, '')], code: 'PROTOCOL_ERROR', reason: /after a complete header block/ },
  { name: 'a header block of 9 CONTINUATIONs (a flood)', send: (sid) => [frame(HEADERS, 0, sid, '88'), ...Array.from({ length: 9 }, (_, i) => frame(CONTINUATION, i === 8 ? END_HEADERS | END_STREAM : 0, sid, ''))], code: 'ENHANCE_YOUR_CALM', reason: /more than 8 CONTINUATION frames/ },
  { name: 'a header block of 8 CONTINUATIONs', send: (sid) => [frame(HEADERS, END_STREAM, sid, '88'), ...Array.from({ length: 8 }, (_, i) => frame(CONTINUATION, i === 7 ? END_HEADERS : 0, sid, ''))], code: null, ends: true },
  { name: 'a PING inside a header block', send: (sid) => [frame(HEADERS, 0, sid, '88'), frame(PING, 0, 0, Buffer.alloc(8))], code: 'PROTOCOL_ERROR', reason: /inside a header block/ },
  { name: 'HEADERS on stream 0', send: () => [frame(HEADERS, END_HEADERS, 0, '88')], code: 'PROTOCOL_ERROR', reason: /HEADERS on stream 0, never opened/ },
  { name: 'DATA on a stream never opened', send: (sid) => [frame(DATA, 0, sid + 2, 'aa')], code: 'PROTOCOL_ERROR', reason: /DATA on stream 3, never opened/ },
  { name: 'DATA on a stream that has ended', send: (sid) => [frame(HEADERS, END_HEADERS | END_STREAM, sid, '88'), frame(DATA, 0, sid, 'aa')], code: 'STREAM_CLOSED', reason: /DATA on stream 1, which has ended/, endedFirst: true },
  { name: 'DATA before its HEADERS', send: (sid) => [frame(DATA, 0, sid, 'aa')], code: 'PROTOCOL_ERROR', reason: /before its response's HEADERS/ },
  { name: 'DATA of 11 bytes in a window of 10', window: 10, send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(DATA, 0, sid, Buffer.alloc(11))], code: 'FLOW_CONTROL_ERROR', reason: /DATA of 11 bytes over stream 1's window of 10/ },
  { name: 'DATA of 10 bytes in a window of 10', window: 10, send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(DATA, 0, sid, Buffer.alloc(10)), frame(DATA, END_STREAM, sid, Buffer.alloc(5))], code: null, ends: true },
  { name: 'DATA padding as long as the frame', send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(DATA, PADDED, sid, '04 000000')], code: 'PROTOCOL_ERROR', reason: /DATA padding of 4 bytes in a frame of 4/ },
  { name: 'DATA padding all but the frame\'s pad length byte', send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(DATA, PADDED | END_STREAM, sid, '03 000000')], code: null, ends: true },
  { name: 'HEADERS padding past the frame', send: (sid) => [frame(HEADERS, END_HEADERS | PADDED, sid, '05 88')], code: 'PROTOCOL_ERROR' },
  { name: 'PUSH_PROMISE', send: (sid) => [frame(PUSH_PROMISE, END_HEADERS, sid, '00000002 88')], code: 'PROTOCOL_ERROR', reason: /PUSH_PROMISE with push disabled/ },
  { name: 'a WINDOW_UPDATE of 0', send: () => [frame(WINDOW_UPDATE, 0, 0, '00000000')], code: 'PROTOCOL_ERROR' },
  { name: 'the connection\'s send window past 2^31-1', send: () => [frame(WINDOW_UPDATE, 0, 0, '7fffffff')], code: 'FLOW_CONTROL_ERROR' },
  { name: 'the connection\'s send window up to 2^31-1', send: () => [frame(WINDOW_UPDATE, 0, 0, (2 ** 31 - 1 - 65535).toString(16).padStart(8, '0'))], code: null },
  { name: 'RST_STREAM of 3 bytes', send: (sid) => [frame(RST_STREAM, 0, sid, '000000')], code: 'FRAME_SIZE_ERROR' },
  { name: 'an interim response with END_STREAM', send: (sid) => [frame(HEADERS, END_HEADERS | END_STREAM, sid, '08 03 313033')], code: 'PROTOCOL_ERROR', reason: /an interim 103 response ending stream 1/ },
  { name: 'trailers without END_STREAM', send: (sid) => [frame(HEADERS, END_HEADERS, sid, '88'), frame(HEADERS, END_HEADERS, sid, '88')], code: 'PROTOCOL_ERROR', reason: /trailers without END_STREAM/ }
]

for (const v of violations) {
  test(`${v.code === null ? 'accepted' : v.code}: ${v.name}`, async () => {
    /** @type {Promise<{ type: number, flags: number, sid: number, payload: Buffer }>|null} */
    let goaway = null
    const { port } = await rawServer(async (peer) => {
      goaway = peer.next(GOAWAY)
      const sid = v.early ? 1 : (await peer.next(HEADERS)).sid
      peer.send(...v.send(sid))
      // a case that must pass ends its stream well, whatever it sent
      if (v.code === null && !v.ends) peer.send(frame(HEADERS, END_HEADERS | END_STREAM, sid, '88'))
    }, v.settings === undefined ? Buffer.alloc(0) : v.settings)
    const r = await drive(port, { requests: 1, window: v.window })
    assert.equal(r.stalled, false)
    if (v.code === null) {
      assert.deepEqual(r.errors, [])
      assert.deepEqual(r.ends.map((e) => [e.outcome, e.status]), [[ENDED, 200]])
      return
    }
    assert.equal(r.errors.length, 1, JSON.stringify(r.errors))
    assert.equal(h2ErrorName(r.errors[0].code), v.code)
    assert.match(r.errors[0].reason, new RegExp(`^${v.code}: `))
    if (v.reason) assert.match(r.errors[0].reason, v.reason)
    // the open stream (if one was opened) is lost with the connection, and the server got our GOAWAY
    assert.deepEqual(outcomes(r), v.endedFirst ? [ENDED] : v.early ? [] : [LOST])
    const g = await /** @type {Promise<{ payload: Buffer }>} */ (goaway)
    assert.equal(g.payload.readUInt32BE(4), r.errors[0].code)
    assert.equal(r.session.capacity(), 0)
  })
}

test('stream ids to seats: ids sharing a home in the table, the first one ending while the other probed past it', () => {
  // 2 seats: an 8-entry table, where ids 1, 17, 33, ... share a home
  const rec = recorder({ requests: 1000, seats: 2 }, () => {}, () => {})
  const s = rec.session
  s.start()
  s.data(frame(SETTINGS, 0, 0), 9)
  /** @param {number} id @param {string} block */
  const end = (id, block = '88') => {
    const f = frame(HEADERS, END_HEADERS | END_STREAM, id, block)
    s.data(f, f.length)
    assert.deepEqual(rec.errors, [], `stream ${id}`)
  }
  // seat 0 holds stream 1 while seat 1 carries 3, 5, ... 15, then 17, which probes past stream 1
  for (let id = 3; id <= 15; id += 2) end(id)
  assert.deepEqual([s.streamId[0], s.streamId[1]], [1, 17])
  // stream 1 ends first: 17 must be found still (moved back into the hole), then the rest in order
  end(1, '8d')
  assert.deepEqual(rec.ends.slice(-1).map((e) => [e.request, e.seat, e.status]), [[0, 0, 404]])
  for (let id = 17; id < 200; id += 2) end(id)
  assert.equal(rec.ends.length, 100)
  // every id that ended is gone from the table: a frame on one is STREAM_CLOSED
  const late = frame(DATA, 0, 33, 'aa')
  s.data(late, late.length)
  assert.match(rec.errors[0].reason, /STREAM_CLOSED: DATA on stream 33, which has ended/)
})

test('a body held to the stream\'s window: as many bytes as granted, never more, the last frame ending the stream', async () => {
  /** @type {number[][]} */
  const frames = []
  const { port } = await rawServer(async (peer) => {
    const h = await peer.next(HEADERS)
    frames.push([h.type, h.flags])
    // SETTINGS_INITIAL_WINDOW_SIZE 5: the first 5 bytes only
    const first = await peer.next(DATA)
    frames.push([first.payload.length, first.flags])
    peer.send(frame(WINDOW_UPDATE, 0, h.sid, '00000004'))
    const second = await peer.next(DATA)
    frames.push([second.payload.length, second.flags])
    peer.send(frame(WINDOW_UPDATE, 0, h.sid, '00000064'))
    const third = await peer.next(DATA)
    frames.push([third.payload.length, third.flags])
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, h.sid, '88'))
  }, settings([[0x4, 5]]))
  const r = await drive(port, { requests: 1, body: () => Buffer.from('hello world!') })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(frames, [[HEADERS, END_HEADERS], [5, 0], [4, 0], [3, END_STREAM]])
  assert.deepEqual(outcomes(r), [ENDED])
})

test('a body held to the connection\'s window; the server lowering SETTINGS_INITIAL_WINDOW_SIZE below 0 holds it', async () => {
  /** @type {number[]} */
  const sizes = []
  const { port } = await rawServer(async (peer) => {
    const h = await peer.next(HEADERS)
    // the connection's 65535 bytes come, in frames of at most 16384
    let got = 0
    while (got < 65535) {
      const d = await peer.next(DATA)
      got += d.payload.length
      sizes.push(d.payload.length)
    }
    // the stream's window drops to 100000 - 65535 - 40000 < 0: a connection update alone sends nothing;
    // then the stream's update brings it back to 1000 and 1000 bytes come; then the last 3465
    peer.send(frame(SETTINGS, 0, 0, settings([[0x4, 60_000]])), frame(WINDOW_UPDATE, 0, 0, '00100000'))
    await peer.next(SETTINGS, ACK)
    peer.send(frame(WINDOW_UPDATE, 0, h.sid, (5535 + 1000).toString(16).padStart(8, '0')))
    const next = await peer.next(DATA)
    sizes.push(next.payload.length, next.flags)
    peer.send(frame(WINDOW_UPDATE, 0, h.sid, (3465).toString(16).padStart(8, '0')))
    const last = await peer.next(DATA)
    sizes.push(last.payload.length, last.flags)
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, h.sid, '88'))
  }, settings([[0x4, 100_000]]))
  const r = await drive(port, { requests: 1, body: () => Buffer.alloc(70_000) })
  assert.deepEqual(r.errors, [])
  assert.deepEqual(sizes, [16384, 16384, 16384, 16383, 1000, 0, 3465, END_STREAM])
  assert.deepEqual(outcomes(r), [ENDED])
})

test('a response complete before its request\'s body: the stream ends, the body is stopped with RST_STREAM CANCEL', async () => {
  /** @type {number[]} */
  const reset = []
  const { port } = await rawServer(async (peer) => {
    const h = await peer.next(HEADERS)
    await peer.next(DATA)
    // the response, then a WINDOW_UPDATE for the stream that has ended (harmless: it sends nothing),
    // and a PING whose ACK comes after whatever the client wrote before it (all in the client's one read)
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, h.sid, '88'), frame(WINDOW_UPDATE, 0, h.sid, '00000100'), frame(PING, 0, 0, Buffer.alloc(8)))
    const rst = await peer.next(RST_STREAM)
    reset.push(rst.sid, rst.payload.readUInt32BE(0))
    await peer.next(PING, ACK)
    reset.push(peer.frames.filter((f) => f.type === DATA).length)
    resolveChecks()
  }, settings([[0x4, 5]]))
  /** @type {() => void} */
  let resolveChecks = () => {}
  const checked = new Promise((resolve) => { resolveChecks = () => resolve(undefined) })
  const r = await drive(port, { requests: 1, body: () => Buffer.alloc(50) })
  assert.deepEqual(outcomes(r), [ENDED])
  await checked
  assert.deepEqual(reset, [1, 8, 0])
  assert.deepEqual(r.errors, [])
})

test('bench/h2-frames-client.js: the closed loop over node:net and the native transport ends every request good', async () => {
  const { spawn } = await import('node:child_process')
  const { nativeIo } = await import('../lib/load/native-io.js')
  const port = await h2Server((req, res) => res.end('hello world\n'))
  for (const kind of nativeIo() === null ? ['net'] : ['net', 'native']) {
    const child = spawn(process.execPath, ['bench/h2-frames-client.js', kind, String(port), '/', '500', '3', '4'], { cwd: new URL('..', import.meta.url) })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
    const [code] = await once(child, 'close')
    assert.equal(code, 0)
    const result = JSON.parse(out)
    assert.deepEqual([result.ended, result.good, result.failures], [500, 500, {}], kind)
    assert.equal(result.transport, kind === 'net' ? 'node:net' : 'native')
  }
})

test('cancel(): RST_STREAM CANCEL, the seat free at once; what still comes on the stream is read and dropped', async () => {
  /** @type {number[]} */
  const seen = []
  /** @type {() => void} */
  let cancelled = () => {}
  const gone = new Promise((resolve) => { cancelled = () => resolve(undefined) })
  const { port } = await rawServer(async (peer) => {
    const first = await peer.next(HEADERS)
    const rst = await peer.next(RST_STREAM)
    seen.push(rst.sid, rst.payload.readUInt32BE(0))
    // the cancelled stream's answer after all: an indexed header block (it must still be decoded: it
    // adds to the table the next answer refers to), DATA, and its end; then the next stream's answer
    const indexed = Buffer.concat([Buffer.from([0x48, 0x03]), Buffer.from('204')])
    peer.send(frame(HEADERS, END_HEADERS, first.sid, indexed), frame(DATA, END_STREAM, first.sid, Buffer.alloc(100)))
    const second = await peer.next(HEADERS)
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, second.sid, 'be'))
  })
  const socket = net.connect(port, '127.0.0.1')
  /** @type {number[][]} */
  const ends = []
  /** @type {string[]} */
  const errors = []
  const session = new H2Session({
    write: (data) => { socket.write(data) },
    ready () {
      session.request(0, ROOT)
      session.flush()
      // given up at once: the seat carries the next request
      session.cancel(0)
      assert.equal(session.open, 0)
      session.request(0, ROOT)
      session.flush()
      cancelled()
    },
    streamHeaders () {},
    streamEnd: (seat, outcome) => { ends.push([seat, outcome, session.status[seat]]) },
    goaway () {},
    sessionError: (code, reason) => { errors.push(reason) }
  }, { seats: 1 })
  socket.on('data', (buf) => session.data(buf, buf.length))
  socket.on('error', () => {})
  await once(socket, 'connect')
  session.start()
  await gone
  while (ends.length === 0 && errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
  socket.destroy()
  assert.deepEqual(errors, [])
  assert.deepEqual(seen, [1, 8])
  // the second stream's status is the table's entry the cancelled stream's block added
  assert.deepEqual(ends, [[0, ENDED, 204]])
})
