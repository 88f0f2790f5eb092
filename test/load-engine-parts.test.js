// The engine's parts through their own interfaces, without sockets: the two framings (when does a
// response end, is its connection reused) and AbCounts (ab's counting rules and the LoadResult).
// The engine drives them the same way: framing.header() once per response, framing.body() per read.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Connection } from '../lib/load/connection.js'
import { AbFraming } from '../lib/load/ab-framing.js'
import { Http11Framing } from '../lib/load/http11.js'
import { MORE, COMPLETE, INVALID, FINAL, INTERIM } from '../lib/load/framing.js'
import { AbCounts } from '../lib/load/ab-counts.js'
import { findHeaderEnd } from '../lib/load/response-parser.js'

/** A response in a read buffer, as the engine sees it: the buffer, its length, the header end. */
function response (text) {
  const buf = Buffer.alloc(65536)
  const r = buf.write(text, 'latin1')
  const s = findHeaderEnd(buf, r, { length: 0 })
  return { buf, r, s, bodyStart: s + 4 }
}

/** A fresh connection as startConnect() leaves it; the framings touch only its fields. */
function connection () {
  return new Connection(/** @type {any} */ (null))
}

test('AbFraming: a keep-alive response ends at its Content-Length, any other at EOF', () => {
  const framing = new AbFraming({ keepAlive: true, head: false })
  const { buf, r, s, bodyStart } = response('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhel')
  const c = connection()
  framing.header(c, buf, s, bodyStart, 200, true)
  assert.deepEqual([c.keepalive, c.length], [true, 5])
  assert.equal(framing.body(c, buf, bodyStart, r), MORE)
  assert.equal(framing.body(c, Buffer.from('lo'), 0, 2), COMPLETE)
  assert.equal(c.bread, 5)

  // The same header bytes again are recognised, with what was read in them.
  const again = connection()
  assert.equal(framing.knownHeader(again, buf, r), bodyStart)
  assert.deepEqual([framing.knownCode, again.keepalive, again.length], [200, true, 5])

  // Without -k, ab reads every body to EOF.
  const noKeepAlive = new AbFraming({ keepAlive: false, head: false })
  const d = connection()
  noKeepAlive.header(d, buf, s, bodyStart, 200, false)
  assert.equal(d.keepalive, false)
  assert.equal(noKeepAlive.body(d, buf, bodyStart, r), MORE)
  assert.equal(noKeepAlive.knownHeader(connection(), buf, r), -1, 'nothing kept when not cacheable')

  // HEAD: no body whatever the Content-Length says.
  const head = new AbFraming({ keepAlive: true, head: true })
  const h = connection()
  head.header(h, buf, s, bodyStart, 200, false)
  assert.equal(head.body(h, buf, r, r), COMPLETE)
})

test('Http11Framing: Content-Length, chunked, no body, close and a bad chunk', () => {
  const framing = new Http11Framing({ keepAlive: true, head: false })
  assert.equal(framing.knownHeader(connection(), Buffer.alloc(8), 8), -1, 'every header is read')

  const chunked = response('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n')
  const c = connection()
  framing.header(c, chunked.buf, chunked.s, chunked.bodyStart, 200, true)
  assert.equal(c.keepalive, true)
  assert.equal(framing.body(c, chunked.buf, chunked.bodyStart, chunked.bodyStart + 4), MORE)
  assert.equal(framing.body(c, chunked.buf, chunked.bodyStart + 4, chunked.r), COMPLETE)
  assert.equal(c.bread, 5, 'payload bytes only')

  const close = response('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok')
  const d = connection()
  framing.header(d, close.buf, close.s, close.bodyStart, 200, true)
  assert.deepEqual([d.keepalive, framing.body(d, close.buf, close.bodyStart, close.r)], [false, COMPLETE])

  const noContent = response('HTTP/1.1 204 No Content\r\n\r\n')
  const e = connection()
  framing.header(e, noContent.buf, noContent.s, noContent.bodyStart, 204, true)
  assert.equal(framing.body(e, noContent.buf, noContent.bodyStart, noContent.r), COMPLETE)

  // A size line without a digit cannot be framed: the engine closes the connection.
  const bad = response('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;x\r\n')
  const f = connection()
  framing.header(f, bad.buf, bad.s, bad.bodyStart, 200, true)
  assert.equal(framing.body(f, bad.buf, bad.bodyStart, bad.r), INVALID)
  assert.equal(framing.invalid, 'HPE_INVALID_CHUNK_SIZE')
})

test('Http11Framing: 1xx are interim, a malformed header fails at its body, bytes after a response fail it, a cut-short body fails at EOF', () => {
  const framing = new Http11Framing({ keepAlive: true, head: false })
  const interim = response('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')
  assert.equal(framing.header(connection(), interim.buf, interim.s, interim.bodyStart, 100, true), INTERIM)
  const hints = response('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n')
  assert.equal(framing.header(connection(), hints.buf, hints.s, hints.bodyStart, 103, true), INTERIM)

  // 101 is final: no body, the rest is another protocol's, the connection is not reused.
  const switching = response('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nbytes')
  const sw = connection()
  assert.equal(framing.header(sw, switching.buf, switching.s, switching.bodyStart, 101, true), FINAL)
  assert.deepEqual([sw.keepalive, framing.body(sw, switching.buf, switching.bodyStart, switching.r)], [false, COMPLETE])

  for (const [text, fault] of [
    ['HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello', 'HPE_INVALID_CONTENT_LENGTH'],
    ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello', 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    ['HTTP/1.1 2x0 OK\r\nContent-Length: 5\r\n\r\nhello', 'HPE_INVALID_STATUS'],
    ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello!', 'DATA_AFTER_RESPONSE'],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nHTTP/1.1', 'DATA_AFTER_RESPONSE'],
    ['HTTP/1.1 204 No Content\r\n\r\nbody', 'DATA_AFTER_RESPONSE']
  ]) {
    const m = response(text)
    const c = connection()
    const code = /^\d{3}$/.test(text.slice(9, 12)) ? Number(text.slice(9, 12)) : -1
    framing.invalid = ''
    assert.equal(framing.header(c, m.buf, m.s, m.bodyStart, code, true), FINAL)
    assert.equal(framing.body(c, m.buf, m.bodyStart, m.r), INVALID, text)
    assert.equal(framing.invalid, fault, text)
    assert.ok(c.bread >= 0)
  }

  // Transfer-Encoding without chunked last: the body runs to the close, whatever Content-Length says.
  const gzip = response('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nabc')
  const g = connection()
  framing.header(g, gzip.buf, gzip.s, gzip.bodyStart, 200, true)
  assert.deepEqual([g.keepalive, framing.body(g, gzip.buf, gzip.bodyStart, gzip.r), framing.eof(g)], [false, MORE, COMPLETE])

  // EOF: complete for a close-delimited body, or before any byte; a cut-short response fails.
  const short = response('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello')
  const h = connection()
  framing.header(h, short.buf, short.s, short.bodyStart, 200, true)
  h.gotHeader = true
  assert.equal(framing.body(h, short.buf, short.bodyStart, short.r), MORE)
  framing.invalid = ''
  assert.deepEqual([framing.eof(h), framing.invalid], [INVALID, 'HPE_INVALID_EOF_STATE'])
  const partialHeader = connection()
  partialHeader.read = 7
  assert.equal(framing.eof(partialHeader), INVALID)
  assert.equal(framing.eof(connection()), COMPLETE)

  // ab's framing has none of this: every header is final, EOF always completes.
  const ab = new AbFraming({ keepAlive: true, head: false })
  assert.equal(ab.header(connection(), interim.buf, interim.s, interim.bodyStart, 100, true), FINAL)
  assert.equal(ab.eof(h), COMPLETE)
})

test('AbCounts: status, Server and Length as ab counts them, and the LoadResult they make', () => {
  const counts = new AbCounts({ variableLength: false })
  const ok = response('HTTP/1.1 200 OK\r\nServer: demo/1.0 (x)\r\n\r\n')
  counts.header(ok.buf, ok.r, 200, 9)
  assert.equal(counts.servername, 'demo/1.0')
  // ab reads the Server header again until a response is good: then it stays.
  counts.good = 1
  counts.checkLength(5)
  const odd = response('HTTP/1.1 2xx OK\r\n\r\n')
  counts.header(odd.buf, odd.r, -1, 9)
  const notFound = response('HTTP/1.1 404 Not Found\r\n\r\n')
  counts.header(notFound.buf, notFound.r, 404, 9)
  assert.deepEqual(counts.statusCodes(), { 200: 1, 404: 1, '2xx': 1 })
  assert.equal(counts.errResponse, 1, 'a non-digit status starting with 2 is not a non-2xx')

  counts.good = 2
  counts.checkLength(6)
  assert.deepEqual([counts.doclen, counts.bad, counts.errLength], [5, 1, 1])
  counts.complete(0, 2, 1, true)
  counts.error('ECONNRESET')

  const result = counts.toResult({
    options: {},
    target: { hostname: '127.0.0.1', port: 80, path: '/', hostField: '127.0.0.1', tls: false },
    startedAt: '2024-01-01T00:00:00.000Z',
    concurrency: 1,
    bodySent: false,
    end: { timeTakenSeconds: 0.5, aborted: false, failure: null }
  })
  assert.equal(result.schema, 'syncbench/load-result@1')
  assert.deepEqual(result.server, { software: 'demo/1.0', hostname: '127.0.0.1', port: 80 })
  assert.deepEqual(result.document, { path: '/', length: 5, variable: false })
  assert.equal(result.completeRequests, 1)
  assert.equal(result.keepAliveRequests, 1)
  assert.equal(result.failedRequests, 1)
  assert.deepEqual(result.failures, { connect: 0, receive: 0, length: 1, exceptions: 0 })
  assert.equal(result.requestsPerSecond, 2)
  assert.deepEqual(result.errors, { ECONNRESET: 1 })
  assert.equal(result.aborted, false)
})
