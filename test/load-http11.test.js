// --http1.1 reads responses as RFC 9112 says: a malformed message is a failed request (counted under
// ab's Exceptions, its code in `errors`) and its connection is closed; interim 1xx responses are
// skipped before the final one; bytes no request asked for are an error, never dropped in silence.
// ab mode on the same servers is checked against the real ab in test/load-parity.test.js.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import { startMisbehavingServer, startScriptedServer, oddResponses, runCli } from './helper.js'

const closers = []
after(() => Promise.all(closers.map((close) => close())))

const N = 10

/** @param {(keepAlive: boolean) => string|string[]} respond */
async function misbehaving (respond) {
  const s = await startMisbehavingServer(respond)
  closers.push(s.close)
  return s
}

/**
 * The figures of N good 200 responses of `length` body bytes, all on kept-alive connections.
 * @param {number} length
 */
function allGood (length) {
  return {
    complete: N,
    failed: 0,
    failures: { connect: 0, receive: 0, length: 0, exceptions: 0 },
    keepAlive: N,
    documentLength: length,
    html: length * N,
    statusCodes: { 200: N },
    non2xx: 0,
    errors: {}
  }
}

/** The run's figures that say whether its answers were right. @param {import('../lib/types.js').LoadResult} r */
function figures (r) {
  return {
    complete: r.completeRequests,
    failed: r.failedRequests,
    failures: r.failures,
    keepAlive: r.keepAliveRequests,
    documentLength: r.document.length,
    html: r.htmlTransferredBytes,
    statusCodes: r.statusCodes,
    non2xx: r.non2xxResponses,
    errors: r.errors
  }
}

/**
 * Every request failed under Exceptions with `code`, on a connection of its own (each closed after its
 * malformed response).
 * @param {import('../lib/types.js').LoadResult} r @param {string} code @param {number} html payload bytes read before the fault
 */
function allMalformed (r, code, html = 0, statusCodes = { 200: N }) {
  assert.deepEqual(figures(r), {
    complete: N,
    failed: N,
    failures: { connect: 0, receive: 0, length: 0, exceptions: N },
    keepAlive: 0,
    documentLength: 0,
    html,
    statusCodes,
    non2xx: 0,
    errors: { [code]: N }
  })
}

const run = (/** @type {string} */ url) => loadtest({ url, requests: N, concurrency: 1, keepAlive: true, http11: true, timeout: 10 })

for (const [name, text, code, html] of /** @type {const} */ ([
  ['badChunkSize', 'a chunk-size line "zz"', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['emptyChunkSize', 'an empty chunk-size line', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['chunkWithoutCrlf', 'a chunk whose data is not followed by CRLF', 'HPE_STRICT', 5 * N],
  ['negativeLength', '"Content-Length: -5"', 'HPE_INVALID_CONTENT_LENGTH', 0],
  ['conflictingLengths', 'two Content-Length fields that disagree', 'HPE_UNEXPECTED_CONTENT_LENGTH', 0]
])) {
  test(`--http1.1, keep-alive: ${text} is a failed request (Exceptions, ${code}) and closes its connection`, async () => {
    const s = await misbehaving(oddResponses[name])
    const r = await run(s.url)
    allMalformed(r, code, html)
    assert.deepEqual(s.served, { connections: N, requests: N })
  })
}

test('--http1.1: a status code that is not three digits is a failed request (HPE_INVALID_STATUS)', async () => {
  const s = await misbehaving(oddResponses.badStatus)
  allMalformed(await run(s.url), 'HPE_INVALID_STATUS', 0, { '2x0': N })
})

test('--http1.1: two responses in one packet for one request: the bytes no request asked for fail it (Exceptions, DATA_AFTER_RESPONSE)', async () => {
  const s = await misbehaving(oddResponses.twoResponses)
  // The first response is read whole (5 bytes each), then the second, unasked for, fails the request.
  allMalformed(await run(s.url), 'DATA_AFTER_RESPONSE', 5 * N)
  assert.deepEqual(s.served, { connections: N, requests: N })
})

for (const [name, text] of [
  ['continueOnePacket', 'a 100 Continue and the final response in one packet'],
  ['continueTwoPackets', 'a 100 Continue, then the final response in a later packet'],
  ['twoInterim', '103 Early Hints and 100 Continue before the final response, in one packet']
]) {
  test(`--http1.1, keep-alive: ${text}: interim responses skipped, every 200 given to its own request`, async () => {
    const s = await misbehaving(oddResponses[name])
    const r = await run(s.url)
    assert.deepEqual(figures(r), allGood(5))
    assert.deepEqual(s.served, { connections: 1, requests: N })
  })
}

test('--http1.1: Content-Length and Transfer-Encoding: chunked wins (RFC 9112 6.3), the connection is reused', async () => {
  const s = await misbehaving(oddResponses.lengthAndChunked)
  const r = await run(s.url)
  assert.deepEqual(figures(r), allGood('hello world'.length))
  assert.deepEqual(s.served, { connections: 1, requests: N })
})

test('--http1.1: the same Content-Length twice, or as a list of one value, is that length', async () => {
  const s = await misbehaving(() => 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5, 5\r\n\r\nhello')
  const r = await run(s.url)
  assert.deepEqual([r.completeRequests, r.failedRequests, r.keepAliveRequests, r.document.length], [N, 0, N, 5])
})

test('--http1.1: a body cut short by the server closing is a failed request (HPE_INVALID_EOF_STATE)', async () => {
  const short = await startScriptedServer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort', { close: () => true })
  closers.push(short.close)
  const r = await run(short.url)
  allMalformed(r, 'HPE_INVALID_EOF_STATE', 5 * N)
  const chunked = await startScriptedServer(() => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n', { close: () => true })
  closers.push(chunked.close)
  allMalformed(await run(chunked.url), 'HPE_INVALID_EOF_STATE', 5 * N)
  // Close-delimited (no Content-Length, no chunked) is complete at EOF, as RFC 9112 6.3 says.
  const eof = await startScriptedServer(() => 'HTTP/1.1 200 OK\r\n\r\nuntil close', { close: () => true })
  closers.push(eof.close)
  const e = await run(eof.url)
  assert.deepEqual([e.completeRequests, e.failedRequests, e.document.length, e.keepAliveRequests], [N, 0, 11, 0])
})

test('--http1.1: 101 Switching Protocols is a final (non-2xx) response; its connection is not reused', async () => {
  const s = await misbehaving(() => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: other\r\nConnection: Upgrade\r\n\r\nbytes of another protocol')
  const r = await run(s.url)
  assert.deepEqual([r.completeRequests, r.failedRequests, r.non2xxResponses, r.keepAliveRequests], [N, 0, N, 0])
  assert.deepEqual(r.statusCodes, { 101: N })
  assert.deepEqual(s.served, { connections: N, requests: N })
})

test('syncbench ab --http1.1 on a bad chunk: the report says Failed requests under Exceptions, --json names the fault', async () => {
  const s = await misbehaving(oddResponses.badChunkSize)
  const text = await runCli(['ab', '--http1.1', '-k', '-n', String(N), s.url])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stdout, /^Complete requests: +10$/m)
  assert.match(text.stdout, /^Failed requests: +10$/m)
  assert.match(text.stdout, /^ {3}\(Connect: 0, Receive: 0, Length: 0, Exceptions: 10\)$/m)
  const json = await runCli(['ab', '--http1.1', '-k', '-n', String(N), '--json', s.url])
  assert.equal(json.code, 0, json.stderr)
  assert.deepEqual(JSON.parse(json.stdout).errors, { HPE_INVALID_CHUNK_SIZE: N })
})
