// The engine's header cache: a response is taken for the last one parsed only when its header bytes
// are the same, so a change of status, length or keep-alive in a same-sized header still counts as ab counts it.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { HeaderCache } from '../lib/load/header-cache.js'
import { loadtest } from '../lib/load/loadtest.js'
import { startScriptedServer } from './helper.js'

const closers = []
after(() => Promise.all(closers.map((close) => close())))

test('HeaderCache matches the same header bytes only, in the buffer it was given', () => {
  const head = 'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\n'
  const buf = Buffer.alloc(65536)
  buf.write(head + 'hello', 'latin1')
  const cache = new HeaderCache()
  assert.equal(cache.match(buf, head.length + 5), -1, 'empty cache')
  cache.store(buf, head.length, 200, true, 5)
  assert.equal(cache.match(buf, head.length + 5), head.length)
  assert.equal(cache.match(buf, head.length), head.length, 'a read ending with the header')
  assert.equal(cache.match(buf, head.length - 1), -1, 'a read shorter than the header')
  assert.equal(cache.match(Buffer.from(buf), head.length + 5), -1, 'another buffer')
  // A last byte outside the whole words, then a byte inside them.
  buf[head.length - 1] = 0x20
  assert.equal(cache.match(buf, head.length + 5), -1)
  buf[head.length - 1] = 0x0a
  buf.write('503', 9, 'latin1')
  assert.equal(cache.match(buf, head.length + 5), -1)
  assert.deepEqual([cache.code, cache.keepalive, cache.contentLength], [200, true, 5])
})

test('same-sized headers with another status or Content-Length are parsed, not taken from the cache', async () => {
  const answers = [
    'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello',
    'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello',
    'HTTP/1.1 503 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello',
    'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello',
    'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 7\r\n\r\nhello!!',
    'HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello'
  ]
  const s = await startScriptedServer((head, index) => answers[index])
  closers.push(s.close)
  const r = await loadtest({ url: s.url, requests: 6, concurrency: 1, keepAlive: true })
  assert.equal(r.completeRequests, 6)
  assert.equal(r.keepAliveRequests, 6)
  assert.deepEqual(r.statusCodes, { 200: 5, 503: 1 })
  assert.equal(r.non2xxResponses, 1)
  assert.equal(r.htmlTransferredBytes, 5 * 5 + 7)
  assert.equal(r.failures.length, 1, 'the 7-byte body is a Length failure, as in ab')
  assert.equal(r.failedRequests, 1)
  assert.equal(s.requests.length, 6, 'one connection carried every request')
})

test('HeaderCache stops keeping headers that never come back, and keeps one in 64 to notice a change', () => {
  const buf = Buffer.alloc(65536)
  const cache = new HeaderCache()
  let kept = 0
  for (let i = 0; i < 640; i++) {
    const head = `HTTP/1.1 200 OK\r\nX-Id: ${String(i).padStart(6, '0')}\r\n\r\n`
    buf.write(head, 'latin1')
    assert.equal(cache.match(buf, head.length), -1, `response ${i} differs from the last`)
    cache.store(buf, head.length, 200, false, 0)
    if (cache.length > 0) kept++
  }
  assert.ok(kept >= 64 && kept < 64 + 640 / 64 + 1, `kept ${kept}`)
  // The server settles on one header: within 64 responses it is kept and recognised again.
  const head = 'HTTP/1.1 200 OK\r\nX-Id: stable\r\n\r\n'
  buf.write(head, 'latin1')
  let hits = 0
  for (let i = 0; i < 128; i++) {
    if (cache.match(buf, head.length) === head.length) hits++
    else cache.store(buf, head.length, 200, false, 0)
  }
  assert.ok(hits >= 64, `hits ${hits}`)
})

test('a status ab finds in the body (no "HTTP" in the header) is read again for each response', async () => {
  const head = 'XTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 17\r\n\r\n'
  const bodies = ['HTTP/1.1 404 body', 'HTTP/1.1 201 body', 'HTTP/1.1 201 body']
  const s = await startScriptedServer((h, index) => head + bodies[index])
  closers.push(s.close)
  const r = await loadtest({ url: s.url, requests: 3, concurrency: 1, keepAlive: true })
  assert.equal(r.completeRequests, 3)
  assert.deepEqual(r.statusCodes, { 404: 1, 201: 2 })
  assert.equal(r.non2xxResponses, 1)
})
