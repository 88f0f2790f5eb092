// The response parser, property-tested (fast-check), in ab mode and under --http1.1:
// - any split of a valid response stream into reads parses the same: the same counts and byte totals;
// - random bytes never throw out of the parser nor loop, whether fed to the framings directly or sent
//   by a raw server to the real engine.
// The splits go through the real engine: a raw server writes each part on its own, 1 ms apart, so most
// parts arrive in a read of their own (coalesced parts are just another split). Runs are bounded
// (numRuns, -n, -s) to keep the file under ~20 s.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { loadtest } from '../lib/load/loadtest.js'
import { Connection } from '../lib/load/connection.js'
import { AbFraming } from '../lib/load/ab-framing.js'
import { Http11Framing } from '../lib/load/http11.js'
import { ChunkedDecoder } from '../lib/load/chunked-decoder.js'
import { MORE, COMPLETE, INVALID, FINAL, INTERIM } from '../lib/load/framing.js'
import { findHeaderEnd, statusCode, HEADER_LIMIT } from '../lib/load/response-parser.js'
import { startRawServer, eachRequest, wantsKeepAlive } from './helper.js'

const closers = /** @type {(() => Promise<unknown>)[]} */ ([])
after(() => Promise.all(closers.map((close) => close())))

/**
 * @typedef {object} Script what the server answers: per request index, the parts of its response,
 *   and whether it closes the connection after the last one
 * @property {Buffer[][]} responses
 * @property {boolean} close
 */

/** A raw server that answers request k with script.responses[k % length], part by part. */
async function scriptedSplitServer () {
  /** @type {Script} */
  const script = { responses: [[Buffer.from('HTTP/1.0 204 No Content\r\n\r\n')]], close: true }
  let served = 0
  const raw = await startRawServer((socket) => {
    eachRequest(socket, (head) => {
      const parts = script.responses[served++ % script.responses.length]
      const close = script.close || !wantsKeepAlive(head)
      const writeFrom = (/** @type {number} */ i) => {
        if (socket.destroyed) return
        if (i === parts.length - 1 && close) return socket.end(parts[i])
        socket.write(parts[i])
        if (i < parts.length - 1) setTimeout(writeFrom, 1, i + 1)
      }
      writeFrom(0)
    })
  })
  closers.push(raw.close)
  return {
    url: raw.url,
    /** @param {Script} s */
    set (s) {
      script.responses = s.responses
      script.close = s.close
      served = 0
    }
  }
}

/**
 * Cut `bytes` at the given fractions (0..1) into parts, empty parts dropped: half of the cuts fall in
 * the first 120 bytes (the header and its terminator, where a split is hardest to read), half anywhere.
 * @param {Buffer} bytes @param {number[]} cuts @returns {Buffer[]}
 */
function split (bytes, cuts) {
  const position = (/** @type {number} */ f) => f < 0.5 ? Math.floor(f * 2 * Math.min(120, bytes.length)) : Math.floor((f - 0.5) * 2 * bytes.length)
  const at = [...new Set(cuts.map(position))].filter((i) => i > 0 && i < bytes.length).sort((a, b) => a - b)
  const parts = []
  let from = 0
  for (const i of [...at, bytes.length]) {
    parts.push(bytes.subarray(from, i))
    from = i
  }
  return parts
}

/** @param {Buffer} body @param {number} size @returns {Buffer} the body as chunks of at most `size` bytes, with the last chunk */
function chunked (body, size) {
  const out = []
  for (let i = 0; i < body.length; i += size) {
    const piece = body.subarray(i, i + size)
    out.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  }
  out.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(out)
}

/**
 * The modes, each with the response it reads, whole: a body of `body` bytes, framed as the mode
 * understands it (ab -k: Content-Length in a header that says Keep-Alive; ab: to the close;
 * --http1.1: Content-Length or chunked).
 * @type {{ name: string, keepAlive: boolean, http11: boolean, close: boolean, response: (body: Buffer, chunk: number) => Buffer }[]}
 */
const modes = [
  {
    name: 'ab -k',
    keepAlive: true,
    http11: false,
    close: false,
    response: (body) => Buffer.concat([Buffer.from(`HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: ${body.length}\r\n\r\n`), body])
  },
  {
    name: 'ab',
    keepAlive: false,
    http11: false,
    close: true,
    response: (body) => Buffer.concat([Buffer.from('HTTP/1.0 200 OK\r\nServer: split/1\r\n\r\n'), body])
  },
  {
    name: '--http1.1 -k, Content-Length',
    keepAlive: true,
    http11: true,
    close: false,
    response: (body) => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body])
  },
  {
    name: '--http1.1 -k, chunked',
    keepAlive: true,
    http11: true,
    close: false,
    response: (body, size) => Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'), chunked(body, size)])
  },
  {
    name: '--http1.1, Content-Length, Connection: close',
    keepAlive: false,
    http11: true,
    close: true,
    response: (body) => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`), body])
  }
]

/** The figures a split must not change. @param {import('../lib/types.js').LoadResult} r */
function figures (r) {
  return {
    complete: r.completeRequests,
    failed: r.failedRequests,
    failures: r.failures,
    keepAlive: r.keepAliveRequests,
    html: r.htmlTransferredBytes,
    total: r.totalTransferredBytes,
    statusCodes: r.statusCodes,
    errors: r.errors
  }
}

for (const mode of modes) {
  test(`any split of a valid response stream parses the same: ${mode.name}`, async () => {
    const server = await scriptedSplitServer()
    await fc.assert(fc.asyncProperty(
      // one body length per run (ab counts a different length as a Length failure), its bytes anything
      fc.integer({ min: 0, max: 3000 }).chain((length) => fc.record({
        bodies: fc.array(fc.uint8Array({ minLength: length, maxLength: length }), { minLength: 1, maxLength: 3 }),
        chunk: fc.integer({ min: 1, max: 1200 }),
        cuts: fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }), { minLength: 3, maxLength: 3 })
      })),
      async ({ bodies, chunk, cuts }) => {
        const whole = bodies.map((b) => mode.response(Buffer.from(b), chunk))
        const n = whole.length * 2
        const options = { url: server.url, requests: n, concurrency: 1, keepAlive: mode.keepAlive, http11: mode.http11, timeout: 5 }
        server.set({ responses: whole.map((w) => [w]), close: mode.close })
        const unsplit = figures(await loadtest(options))
        server.set({ responses: whole.map((w, i) => split(w, cuts[i])), close: mode.close })
        const parted = figures(await loadtest(options))
        assert.deepEqual(parted, unsplit)
        // and what the unsplit run read is right: every response good, every body byte counted
        assert.deepEqual([unsplit.complete, unsplit.failed, unsplit.keepAlive], [n, 0, mode.close ? 0 : n])
        assert.equal(unsplit.html, 2 * bodies.reduce((sum, b) => sum + b.length, 0))
        assert.equal(unsplit.total, 2 * whole.reduce((sum, w) => sum + w.length, 0))
      }
    ), { numRuns: 30 })
  })
}

/** A fresh connection as startConnect() leaves it; the framings touch only its fields. */
function connection () {
  return new Connection(/** @type {any} */ (null))
}

test('random bytes never throw out of the framings nor loop: header, body and EOF fed directly', () => {
  fc.assert(fc.property(
    fc.uint8Array({ maxLength: 2048 }),
    fc.array(fc.integer({ min: 1, max: 512 }), { maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
    (bytes, sizes, keepAlive, head) => {
      // half the time behind a real status line, so the header and body paths are reached
      for (const prefix of ['', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n', 'HTTP/1.0 200 OK\r\nKeep-Alive: 1\r\nContent-Length: 7\r\n']) {
        const input = Buffer.concat([Buffer.from(prefix), bytes])
        for (const framing of [new AbFraming({ keepAlive, head }), new Http11Framing({ keepAlive, head })]) {
          const buf = Buffer.alloc(HEADER_LIMIT + 1 + input.length)
          input.copy(buf)
          const r = Math.min(input.length, HEADER_LIMIT)
          const c = connection()
          framing.knownHeader(c, buf, r)
          const found = { length: 0 }
          const s = findHeaderEnd(buf, r, found)
          if (s === -1) continue
          c.gotHeader = true
          const bodyStart = s + found.length
          const code = statusCode(buf, r, { at: 0 })
          const kind = framing.header(c, buf, s, bodyStart, code, true)
          assert.ok(kind === FINAL || kind === INTERIM)
          if (kind === INTERIM) continue
          // the rest of the input, in reads of the generated sizes
          let from = bodyStart
          let status = MORE
          let reads = 0
          for (const size of [...sizes, input.length]) {
            if (from >= input.length || status !== MORE) break
            const to = Math.min(input.length, from + size)
            status = framing.body(c, buf, from, to)
            assert.ok(status === MORE || status === COMPLETE || status === INVALID)
            assert.ok(c.bread >= 0 && Number.isFinite(c.bread))
            from = to
            assert.ok(++reads <= sizes.length + 1)
          }
          if (status === MORE) assert.ok([COMPLETE, INVALID].includes(framing.eof(c)))
          if (status === INVALID) assert.equal(typeof framing.invalid, 'string')
        }
      }
    }
  ), { numRuns: 400 })
})

test('random bytes never throw out of the chunked decoder nor loop, in any split', () => {
  fc.assert(fc.property(
    fc.uint8Array({ maxLength: 1024 }),
    fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 10 }),
    (bytes, sizes) => {
      const buf = Buffer.from(bytes)
      const d = new ChunkedDecoder()
      let from = 0
      for (const size of [...sizes, buf.length]) {
        if (from >= buf.length) break
        const to = Math.min(buf.length, from + size)
        const end = d.feed(buf, from, to)
        assert.ok(end === -1 || (end > from && end <= to), `feed(${from}, ${to}) returned ${end}`)
        assert.ok(d.payload >= 0 && d.payload <= buf.length)
        if (end !== -1) return
        from = to
      }
    }
  ), { numRuns: 500 })
})

test('random bytes from a raw server never throw out of the real engine nor hang it, ab and --http1.1', async () => {
  /** @type {Buffer} */
  let answer = Buffer.alloc(0)
  let close = true
  const raw = await startRawServer((socket) => {
    eachRequest(socket, () => {
      if (socket.destroyed) return
      if (close) socket.end(answer)
      else socket.write(answer)
    })
  })
  closers.push(raw.close)
  await fc.assert(fc.asyncProperty(
    fc.oneof(
      fc.uint8Array({ maxLength: 600 }),
      fc.uint8Array({ maxLength: 400 }).map((b) => new Uint8Array(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n'), b])))
    ),
    fc.boolean(),
    fc.constantFrom(
      { keepAlive: true, http11: false },
      { keepAlive: false, http11: false },
      { keepAlive: true, http11: true },
      { keepAlive: false, http11: true }
    ),
    async (bytes, closes, mode) => {
      answer = Buffer.from(bytes)
      close = closes
      const started = performance.now()
      let result = null
      try {
        // -s 1: a server that keeps the connection open without ending a response is the timeout's case
        result = await loadtest({ url: raw.url, requests: 3, concurrency: 1, timeout: 1, ...mode })
      } catch (err) {
        // ab's own ways to give up are SyncbenchErrors with a code, never a TypeError from the parser
        assert.match(String(/** @type {any} */ (err).code), /^SB_ERR_/, String(err))
      }
      if (result !== null) assert.ok(result.completeRequests <= 3)
      assert.ok(performance.now() - started < 8000, 'ended within its bound')
    }
  ), { numRuns: 16 })
})
