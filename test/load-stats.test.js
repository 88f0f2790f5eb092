// Units of the load engine that need no server: ab's order statistics and the Buffer parsers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { Row, RequestTimes, rates, countsIndex, valueAtIndex } from '../lib/load/request-times.js'
import {
  indexOfCI, KEEP_ALIVE, atoi, findHeaderEnd, statusCode,
  contentLength, chunkedFinal, validStatusLine, NO_LENGTH, BAD_LENGTH, CONFLICTING_LENGTHS, NO_TRANSFER_ENCODING
} from '../lib/load/response-parser.js'
import { ChunkedDecoder } from '../lib/load/chunked-decoder.js'

test("ab's median index rule: odd counts average index n/2 with the next, even counts take index n/2", () => {
  const odd = new Row()
  for (const v of [5, 1, 4, 2, 3]) odd.record(v)
  assert.equal(odd.median(), 3.5) // ab: (sorted[2] + sorted[3]) / 2
  const even = new Row()
  for (const v of [4, 1, 3, 2]) even.record(v)
  assert.equal(even.median(), 3) // ab: sorted[2]
  const one = new Row()
  one.record(7.25)
  assert.deepEqual(one.toTimeRow(), { min: 7.25, mean: 7.25, sd: 0, median: 7.25, max: 7.25 })
})

test('exact mean and sample sd; histogram order statistics within 3 significant digits', () => {
  const t = new RequestTimes()
  for (let i = 1; i <= 100; i++) t.record(0.5, i, i / 2)
  const total = t.connectionTimes().total
  assert.equal(total.min, 1)
  assert.equal(total.max, 100)
  assert.equal(total.mean, 50.5)
  assert.ok(Math.abs(total.sd - 29.011491975882016) < 1e-9)
  const p = t.percentiles()
  // ab: sorted[floor(n * p / 100)] -> for 1..100 that is p + 1; 100% is the maximum.
  for (const k of [50, 66, 75, 80, 90, 95, 98, 99]) assert.ok(Math.abs(p[k] - (k + 1)) <= (k + 1) * 1e-3, `${k}%: ${p[k]}`)
  assert.equal(p[100], 100)
  const proc = t.connectionTimes().processing
  assert.equal(proc.min, 0.5)
  assert.equal(proc.max, 99.5)
})

test('values from 1 us to 1 hour are kept', () => {
  const r = new Row()
  r.record(0.001)
  r.record(3_600_000)
  assert.equal(r.at(0), 0.001)
  assert.equal(r.at(1), 3_600_000)
  const mid = new Row()
  for (const v of [0.001, 1234.5678, 3_600_000]) mid.record(v)
  assert.ok(Math.abs(mid.at(1) - 1234.5678) / 1234.5678 < 1e-3)
})

test('rates as ab derives them from the time taken, 0 where ab prints nothing', () => {
  assert.deepEqual(rates({ done: 100, timeTakenSeconds: 2, concurrency: 4, totalRead: 2048 }),
    { requestsPerSecond: 50, timePerRequestMs: 80, timePerRequestAcrossMs: 20, transferRateKBps: 1 })
  assert.equal(rates({ done: 0, timeTakenSeconds: 2, concurrency: 1, totalRead: 0 }).requestsPerSecond, 0)
})

test('Buffer helpers: case-insensitive search, atoi, header end, status code', () => {
  const h = Buffer.from('HTTP/1.1 503 Busy\r\nCONNECTION: KEEP-ALIVE\r\n\r\nbody')
  assert.equal(indexOfCI(h, 0, h.length, KEEP_ALIVE), 31)
  assert.equal(indexOfCI(Buffer.from('keep\ralive'), 0, 10, KEEP_ALIVE), -1)
  assert.equal(atoi(Buffer.from('  42abc'), 0, 7), 42)
  assert.equal(atoi(Buffer.from('x'), 0, 1), 0)
  // C's int, as ab's atoi() reads a Content-Length: 2^32 + 5 is 5, 2^31 is negative, saturated is -1
  assert.equal(atoi(Buffer.from('4294967301'), 0, 10), 5)
  assert.equal(atoi(Buffer.from('2147483648'), 0, 10), -2147483648)
  assert.equal(atoi(Buffer.from('-5'), 0, 2), -5)
  assert.equal(atoi(Buffer.from('99999999999999999999'), 0, 20), -1)
  const found = { length: 0 }
  assert.equal(findHeaderEnd(h, h.length, found), 41)
  assert.equal(found.length, 4)
  assert.equal(findHeaderEnd(Buffer.from('HTTP/1.0 200 OK\n\nx'), 18, found), 15)
  assert.equal(found.length, 2)
  const where = { at: 0 }
  assert.equal(statusCode(h, 41, where), 503)
  assert.equal(statusCode(Buffer.from('garbage'), 7, where), 500)
})

test('chunked decoder: payload counted across any split, end of message found', () => {
  const msg = Buffer.from('6;ext=1\r\nhello \r\n8\r\nchunked \r\n5\r\nworld\r\n0\r\nTrailer: x\r\n\r\nNEXT')
  for (let cut = 1; cut < msg.length - 4; cut++) {
    const d = new ChunkedDecoder()
    let end = d.feed(msg, 0, cut)
    if (end === -1) end = d.feed(msg, cut, msg.length)
    assert.equal(end, msg.length - 4, `cut at ${cut}`)
    assert.equal(d.payload, 19)
    assert.equal(d.invalid, false)
  }
  const bad = new ChunkedDecoder()
  bad.feed(Buffer.from('zz\r\n'), 0, 4)
  assert.equal(bad.invalid, true)
})

test('chunked decoder: a malformed body is invalid in any split, with its fault, and stays so', () => {
  for (const [text, error] of [
    ['zz\r\nhello\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['\r\nhello\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    [';ext\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['5\r5\r\nhello\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['fffffffffffffff\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['5\r\nhelloXX0\r\n\r\n', 'HPE_STRICT'],
    ['5\r\nhello\rX0\r\n\r\n', 'HPE_STRICT'],
    ['0\r\n\rX', 'HPE_LF_EXPECTED']
  ]) {
    const msg = Buffer.from(text)
    for (let cut = 0; cut <= msg.length; cut++) {
      const d = new ChunkedDecoder()
      const first = d.feed(msg, 0, cut)
      const second = d.feed(msg, cut, msg.length)
      assert.deepEqual([first, second, d.invalid, d.error], [-1, -1, true, error], `${JSON.stringify(text)} cut at ${cut}`)
    }
  }
  // A bare LF ends a line (RFC 9112 2.2); the largest size that keeps its units is accepted.
  const lf = new ChunkedDecoder()
  assert.equal(lf.feed(Buffer.from('5\nhello\n0\n\nNEXT'), 0, 15), 11)
  assert.equal(lf.payload, 5)
  const big = new ChunkedDecoder()
  assert.equal(big.feed(Buffer.from('1fffffffffffff\r\n'), 0, 16), -1)
  assert.deepEqual([big.invalid, big.remaining], [false, Number.MAX_SAFE_INTEGER])
})

test('HTTP/1.1 header reading: Content-Length lists, the final transfer coding, the status line', () => {
  const head = (/** @type {string} */ fields) => {
    const b = Buffer.from(`HTTP/1.1 200 OK\r\n${fields}\r\n\r\n`)
    return [b, b.length - 4]
  }
  assert.equal(contentLength(...head('Content-Length: 5')), 5)
  assert.equal(contentLength(...head('content-length:5 \r\nX: 1')), 5)
  assert.equal(contentLength(...head('Content-Length: 5, 5\r\nContent-Length: 5')), 5)
  assert.equal(contentLength(...head('X-Content-Length: 5')), NO_LENGTH)
  for (const bad of ['-5', '+5', '5a', '', '0x5', '1234567890123456', '5,']) {
    assert.equal(contentLength(...head(`Content-Length: ${bad}`)), BAD_LENGTH, bad)
  }
  assert.equal(contentLength(...head('Content-Length: 5\r\nContent-Length: 6')), CONFLICTING_LENGTHS)
  assert.equal(contentLength(...head('Content-Length: 5, 6')), CONFLICTING_LENGTHS)
  assert.equal(chunkedFinal(...head('Transfer-Encoding: chunked')), 1)
  assert.equal(chunkedFinal(...head('Transfer-Encoding: gzip, Chunked ')), 1)
  assert.equal(chunkedFinal(...head('Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked')), 1)
  assert.equal(chunkedFinal(...head('Transfer-Encoding: chunked, gzip')), 0)
  assert.equal(chunkedFinal(...head('Transfer-Encoding: xchunked')), 0)
  assert.equal(chunkedFinal(...head('Content-Length: 5')), NO_TRANSFER_ENCODING)
  for (const [line, valid] of [['HTTP/1.1 200 OK', true], ['HTTP/1.0 404', true], ['HTTP/1.1 2x0 OK', false],
    ['HTTP/1.1 2000 OK', false], ['HTTP/11 200 OK', false], ['ICY 200 OK', false], ['HTTP/1.1  200 OK', false]]) {
    const b = Buffer.from(`${line}\r\n\r\n`)
    assert.equal(validStatusLine(b, b.length - 4), valid, line)
  }
})

test("the engine's bucket layout is hdr-histogram-js's own, 1 us to 1 hour", () => {
  const h = hdrHistogram()
  const values = [0, 1, 2047, 2048, 2049, 4095, 4096, 123_456, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 7, 3_600_000_000]
  for (let v = 1; v < 3_600_000_000; v = Math.ceil(v * 1.37) + 1) values.push(v)
  for (const v of values) {
    assert.equal(countsIndex(v), h.countsArrayIndex(v), `index of ${v}`)
    assert.equal(valueAtIndex(countsIndex(v)), h.lowestEquivalentValue(v), `lowest value of ${v}`)
  }
})

/** hdr-histogram-js's histogram of lib/load/request-times.js's layout: 1 us to 1 hour, 3 significant digits. */
function hdrHistogram () {
  const Int32Histogram = createRequire(import.meta.url)('hdr-histogram-js/dist/Int32Histogram.js').default
  return new Int32Histogram(1, 3_600_000_000, 3)
}
