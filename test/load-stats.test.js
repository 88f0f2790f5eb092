// Units of the load engine that need no server: ab's order statistics and the Buffer parsers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { Row, RequestTimes, rates, countsIndex, valueAtIndex } from '../lib/load/stats.js'
import { indexOfCI, KEEP_ALIVE, atoi, findHeaderEnd, statusCode } from '../lib/load/response-parser.js'
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

test("the engine's bucket layout is hdr-histogram-js's own, 1 us to 1 hour", () => {
  const h = hdrHistogram()
  const values = [0, 1, 2047, 2048, 2049, 4095, 4096, 123_456, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 7, 3_600_000_000]
  for (let v = 1; v < 3_600_000_000; v = Math.ceil(v * 1.37) + 1) values.push(v)
  for (const v of values) {
    assert.equal(countsIndex(v), h.countsArrayIndex(v), `index of ${v}`)
    assert.equal(valueAtIndex(countsIndex(v)), h.lowestEquivalentValue(v), `lowest value of ${v}`)
  }
})

/** hdr-histogram-js's histogram of lib/load/stats.js's layout: 1 us to 1 hour, 3 significant digits. */
function hdrHistogram () {
  const Int32Histogram = createRequire(import.meta.url)('hdr-histogram-js/dist/Int32Histogram.js').default
  return new Int32Histogram(1, 3_600_000_000, 3)
}
