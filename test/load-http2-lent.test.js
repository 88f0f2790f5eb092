// LoadOptions.http2Session: a caller's own HTTP/2 session lent to loadtest() carries the run's first
// connection. Two runs share one connection (the server sees one session), neither opens another,
// neither closes it; a run that ends with streams in flight cancels its own and leaves the session
// open; the option is refused where it cannot apply.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { once } from 'node:events'
import { loadtest } from '../lib/load/loadtest.js'
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

/** A session to the server, past its SETTINGS. */
async function lend () {
  const session = http2.connect(origin)
  await once(session, 'remoteSettings')
  return session
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
  assert.equal(session.closed || session.destroyed, false)
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
  assert.equal(session.closed || session.destroyed, false)
  // the session still carries a stream of its owner's
  const stream = session.request({ ':path': '/' })
  const [headers] = await once(stream, 'response')
  stream.resume()
  assert.equal(headers[':status'], 200)
  held = []
  session.close()
})

test('http2Session is refused without http2, over worker threads, and when it is no session', async () => {
  const session = await lend()
  await assert.rejects(loadtest({ url: `${origin}/`, requests: 1, http2Session: session }), (err) => err instanceof InvalidOptionError && /^http2Session applies to --http2 \(http2\) only$/.test(err.message))
  await assert.rejects(loadtest({ url: `${origin}/`, http2: true, concurrency: 2, requests: 2, workers: 2, http2Session: session }), (err) => err instanceof InvalidOptionError && /^http2Session needs the run in this thread, not --workers \(workers\) 2$/.test(err.message))
  await assert.rejects(loadtest({ url: `${origin}/`, http2: true, requests: 1, http2Session: /** @type {any} */ ({}) }), (err) => err instanceof InvalidOptionError && /^http2Session must be a node:http2 ClientHttp2Session past its SETTINGS/.test(err.message))
  session.close()
})
