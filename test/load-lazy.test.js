// Modules a plain `syncbench ab` run on an IP address does not load (the resolver, the HTTP/1.1
// framing) are loaded on demand by loadtest(): the runs that need them still work.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import { startHttpServer } from './helper.js'

const closers = []
after(() => Promise.all(closers.map((close) => close())))

async function helloServer () {
  const s = await startHttpServer((req, res) => {
    res.writeHead(200, { 'Content-Length': 5 })
    res.end('hello')
  })
  closers.push(s.close)
  return s
}

test('a host name is resolved before the run (localhost, from the hosts file)', async () => {
  const s = await helloServer()
  const r = await loadtest({ url: `http://localhost:${s.port}/`, requests: 4, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 4)
  assert.equal(r.server.hostname, 'localhost')
  assert.deepEqual(r.statusCodes, { 200: 4 })
})

test('--http1.1 frames by Content-Length with its framing module loaded on demand', async () => {
  const s = await helloServer()
  const r = await loadtest({ url: s.url, requests: 6, concurrency: 2, keepAlive: true, http11: true })
  assert.equal(r.completeRequests, 6)
  assert.equal(r.keepAliveRequests, 6)
  assert.equal(r.htmlTransferredBytes, 30)
})
