// Each run keeps its latency histogram (LoadResult.latencyHistogram), in HdrHistogram's own compressed
// base64 format: decoded here with hdr-histogram-js's public API, it holds every request's total time in
// microseconds, and the run's own percentiles are read from it.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { loadtest } from '../lib/load/loadtest.js'
import { emptyResult } from '../lib/run/tools/shape.js'
import { startHttpServer, runCli } from './helper.js'

const hdr = createRequire(import.meta.url)('hdr-histogram-js')

const closers = []
after(() => Promise.all(closers.map((close) => close())))

/** Answers every 5th request 3 ms late, so the times spread over several buckets. */
async function unevenServer () {
  let n = 0
  const s = await startHttpServer((req, res) => {
    const send = () => res.writeHead(200, { 'Content-Length': 2 }).end('ok')
    if (++n % 5 === 0) setTimeout(send, 3)
    else send()
  })
  closers.push(s.close)
  return s
}

test('a run keeps its latency histogram: HdrHistogram compressed base64 of every total time, in microseconds', async () => {
  const s = await unevenServer()
  const totals = []
  const r = await loadtest({ url: s.url, requests: 300, concurrency: 3, keepAlive: true, onRequest: (rec) => totals.push(rec.total) })
  assert.equal(typeof r.latencyHistogram, 'string')
  assert.match(r.latencyHistogram, /^HISTFAA[A-Za-z0-9+/]+=*$/, 'V2 compressed cookie, base64')
  const decoded = hdr.decodeFromCompressedBase64(r.latencyHistogram)
  assert.equal(decoded.totalCount, 300)
  assert.equal(decoded.totalCount, r.completeRequests)
  // the same times recorded straight into the package's histogram, in microseconds
  const expected = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 })
  for (const ms of totals) expected.recordValue(Math.round(ms * 1000))
  for (const us of new Set(totals.map((ms) => Math.round(ms * 1000)))) {
    assert.equal(decoded.getCountAtValue(us), expected.getCountAtValue(us), `count at ${us} us`)
  }
  for (const p of [1, 10, 50, 75, 90, 95, 99, 99.5, 99.9, 100]) {
    assert.equal(decoded.getValueAtPercentile(p), expected.getValueAtPercentile(p), `p${p}`)
  }
  // the run's own HDR figures are read from that histogram (clamped to the exact extremes)
  const ms = (p) => Math.min(r.latency.max, decoded.getValueAtPercentile(p) / 1000)
  assert.equal(r.latency.p50, Math.round(Math.max(r.connectionTimes.total.min, ms(50)) * 1000) / 1000)
  assert.equal(r.latency.p99, Math.round(Math.max(r.connectionTimes.total.min, ms(99)) * 1000) / 1000)
  assert.equal(JSON.parse(JSON.stringify(r)).latencyHistogram, r.latencyHistogram, 'written to JSON like any field')
  assert.equal({ ...r }.latencyHistogram, r.latencyHistogram, 'and kept by a spread')
})

test('syncbench ab --json prints the histogram; an external engine\'s result has none (null)', async () => {
  const s = await unevenServer()
  const { code, stdout, stderr } = await runCli(['ab', '--json', '-n', '20', '-c', '2', s.url])
  assert.equal(code, 0, stderr)
  const json = JSON.parse(stdout)
  assert.equal(hdr.decodeFromCompressedBase64(json.latencyHistogram).totalCount, 20)
  assert.equal(emptyResult({ url: s.url }).latencyHistogram, null)
})
