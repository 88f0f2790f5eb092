// LoadOptions.http2Session: a caller's own HTTP/2 connection (openSharedConnection) lent to loadtest()
// carries the run's first connection. Two runs share one connection (the server sees one session),
// each on seats of its own, neither opens another, neither closes it; a run that ends with streams in
// flight cancels its own and leaves the connection open; the option is refused where it cannot apply.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { once } from 'node:events'
import { loadtest } from '../lib/load/loadtest.js'
import { openSharedConnection } from '../lib/load/h2-shared.js'
import { InvalidOptionError } from '../lib/errors.js'

/** What the server saw: sessions, streams answered, streams the client cancelled. */
const seen = { sessions: 0, answered: 0, cancelled: 0 }
/** Paths answered only when the test says (a stream held in flight). */
let held = /** @type {(() => void)[]} */ ([])
const server = http2.createServer()
server.on('session', () => { seen.sessions++ })
server.on('stream', (stream, headers) => {
  stream.on('error', () => {})
  stream.on('close', () => { if (stream.rstCode === http2.constants.NGHTTP2_CANCEL) seen.cancelled++ })
  const answer = () => {
    if (stream.destroyed) return
    stream.respond({ ':status': 200 })
    stream.end('ok')
    seen.answered++
  }
  if (headers[':path'] === '/hold') held.push(answer)
  else setTimeout(answer, 2)
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
const origin = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
after(() => server.close())

/** A connection to the server, past its SETTINGS, with seats for 110 streams. */
function lend () {
  return openSharedConnection(`${origin}/`, { seats: 110 })
}

test('two runs on one lent session: one connection for both, none opened, the session still open after', async () => {
  const before = { ...seen }
  const session = await lend()
  const [closed, open] = await Promise.all([
    loadtest({ url: `${origin}/`, http2: true, streams: 10, concurrency: 1, requests: 100, http2Session: session }),
    loadtest({ url: `${origin}/`, http2: true, streams: 100, concurrency: 1, requests: 20, rate: 40, http2Session: session })
  ])
  for (const result of [closed, open]) {
    assert.equal(result.failedRequests, 0)
    assert.equal(result.http2?.connections, 1)
    // the owner's connection: no connect time of the run's
    assert.deepEqual(result.http2?.connectMs, { min: 0, mean: 0, max: 0 })
    // not recorded: a session is no option a results file can hold
    assert.equal(Object.hasOwn(result.options, 'http2Session'), false)
  }
  assert.equal(closed.completeRequests, 100)
  assert.equal(open.completeRequests, 20)
  assert.equal(seen.sessions - before.sessions, 1)
  assert.equal(seen.answered - before.answered, 120)
  assert.equal(session.closed, false)
  // its seats given back: a run taking them all again starts
  const again = await loadtest({ url: `${origin}/`, http2: true, streams: 110, concurrency: 1, requests: 5, http2Session: session })
  assert.equal(again.http2?.connections, 1)
  assert.equal(seen.sessions - before.sessions, 1)
  session.close()
})

test('a run asking more seats than the lent connection has left opens a connection of its own instead', async () => {
  const session = await lend()
  const before = { ...seen }
  const result = await loadtest({ url: `${origin}/`, http2: true, streams: 111, concurrency: 1, requests: 10, http2Session: session })
  assert.equal(result.completeRequests, 10)
  assert.equal(result.failedRequests, 0)
  assert.equal(seen.sessions - before.sessions, 1)
  // the run's own connection, with its connect time
  assert.ok(result.http2 !== undefined && result.http2.connectMs.max > 0)
  session.close()
})

test('a run aborted with streams in flight on a lent session cancels them and leaves the session open', async () => {
  const session = await lend()
  const controller = new AbortController()
  const before = { ...seen }
  const run = loadtest({ url: `${origin}/hold`, http2: true, streams: 3, concurrency: 1, requests: 3, http2Session: session, signal: controller.signal })
  while (held.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))
  controller.abort()
  const result = await run
  assert.equal(result.aborted, true)
  while (seen.cancelled - before.cancelled < 3) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.equal(session.closed, false)
  // the connection still carries another run's streams
  const next = await loadtest({ url: `${origin}/`, http2: true, streams: 2, concurrency: 1, requests: 4, http2Session: session })
  assert.deepEqual(next.statusCodes, { 200: 4 })
  assert.equal(seen.sessions - before.sessions, 0)
  held = []
  session.close()
})

test('http2Session is refused without http2, over worker threads, and when it is no session', async () => {
  const session = await lend()
  await assert.rejects(loadtest({ url: `${origin}/`, requests: 1, http2Session: session }), (err) => err instanceof InvalidOptionError && /^http2Session applies to --http2 \(http2\) only$/.test(err.message))
  await assert.rejects(loadtest({ url: `${origin}/`, http2: true, concurrency: 2, requests: 2, workers: 2, http2Session: session }), (err) => err instanceof InvalidOptionError && /^http2Session needs the run in this thread, not --workers \(workers\) 2$/.test(err.message))
  await assert.rejects(loadtest({ url: `${origin}/`, http2: true, requests: 1, http2Session: /** @type {any} */ ({}) }), (err) => err instanceof InvalidOptionError && /^http2Session must be a shared HTTP\/2 connection \(openSharedConnection\) past its SETTINGS/.test(err.message))
  session.close()
})
