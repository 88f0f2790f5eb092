// loadtest() against real servers on 127.0.0.1: ab's counting, byte totals and framing cases.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { once } from 'node:events'
import express from 'express'
import { loadtest } from '../lib/load/loadtest.js'
import { parseTarget, buildRequest } from '../lib/load/request.js'
import { normalizeOptions, runEngine } from '../lib/load/loadtest.js'
import {
  startHttpServer, startRawServer, closedPort, startScriptedServer, startHttp10CloseServer,
  startWrongLengthServer, startChunkedServer, startSlowServer, startResetServer, startSilentServer
} from './helper.js'

const closers = []
after(() => Promise.all(closers.map((close) => close())))
/** @template T @param {Promise<T & { close: () => Promise<void> }>} p @returns {Promise<T & { close: () => Promise<void> }>} */
async function server (p) {
  const s = await p
  closers.push(s.close)
  return s
}

/** Sum of the bytes a node:http server wrote on every connection it accepted. */
function countWritten (httpServer) {
  const sockets = []
  httpServer.on('connection', (s) => sockets.push(s))
  return () => sockets.reduce((sum, s) => sum + s.bytesWritten, 0)
}

/**
 * Send the exact request loadtest() would send, on one raw connection, and return the response bytes
 * (to EOF, or through Content-Length when the server keeps the connection open).
 */
async function captureResponse (options) {
  const o = normalizeOptions(options)
  const target = parseTarget(o.url)
  const socket = net.connect(target.port, target.hostname)
  await once(socket, 'connect')
  socket.write(buildRequest(o, target))
  const chunks = []
  await new Promise((resolve, reject) => {
    socket.on('data', (d) => {
      chunks.push(d)
      const all = Buffer.concat(chunks)
      const end = all.indexOf('\r\n\r\n')
      if (end === -1) return
      const m = /content-length: *(\d+)/i.exec(all.subarray(0, end).toString('latin1'))
      if (m && all.length >= end + 4 + Number(m[1])) resolve()
    })
    socket.on('end', resolve)
    socket.on('error', reject)
  })
  socket.destroy()
  const all = Buffer.concat(chunks)
  const end = all.indexOf('\r\n\r\n')
  return { total: all.length, body: all.length - end - 4 }
}

test('fixed-length node:http server, without keep-alive: ab counts and exact byte totals', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 11); res.end('hello world') }))
  const options = { url: s.url, requests: 120, concurrency: 4 }
  const one = await captureResponse(options)
  const r = await loadtest(options)
  assert.equal(r.schema, 'syncbench/load-result@1')
  assert.equal(r.completeRequests, 120)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.keepAliveRequests, 0)
  assert.equal(r.non2xxResponses, 0)
  assert.equal(r.document.length, 11)
  assert.equal(r.document.path, '/')
  assert.equal(r.totalTransferredBytes, 120 * one.total)
  assert.equal(r.htmlTransferredBytes, 120 * one.body)
  assert.deepEqual(r.statusCodes, { 200: 120 })
  assert.equal(r.aborted, false)
  assert.equal(r.concurrency, 4)
  assert.equal(r.server.hostname, '127.0.0.1')
  assert.equal(r.server.port, s.port)
})

test('fixed-length node:http server, keep-alive: every response reused the connection', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 11); res.end('hello world') }))
  const written = countWritten(s.server)
  const options = { url: s.url, requests: 150, concurrency: 3, keepAlive: true }
  const one = await captureResponse(options)
  const before = written()
  const r = await loadtest(options)
  assert.equal(r.completeRequests, 150)
  assert.equal(r.keepAliveRequests, 150)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.totalTransferredBytes, 150 * one.total)
  assert.equal(r.totalTransferredBytes, written() - before)
  assert.equal(r.htmlTransferredBytes, 150 * 11)
})

test('Express res.send with keep-alive: keepAliveRequests === n (Content-Length is set)', async () => {
  const app = express()
  const hash = '$2b$10$abcdefghijklmnopqrstuv'
  app.get('/', (req, res) => res.send(hash))
  const s = await server(startHttpServer(app))
  const r = await loadtest({ url: s.url, requests: 60, concurrency: 5, keepAlive: true })
  assert.equal(r.completeRequests, 60)
  assert.equal(r.keepAliveRequests, 60)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.document.length, hash.length)
  assert.match(r.server.software, /^$/) // Express sends X-Powered-By, not Server
})

test('writeHead + end without Content-Length, keep-alive asked: no keep-alive, still completes', async () => {
  const s = await server(startHttpServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('no length') }))
  const r = await loadtest({ url: s.url, requests: 40, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 40)
  assert.equal(r.keepAliveRequests, 0)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.document.length, 9)
})

test('chunked HTTP/1.1 server with http11: bodies decoded, keep-alive and close', async () => {
  const s = await server(startChunkedServer(['hello ', 'chunked ', 'world']))
  const written = countWritten(s.server)
  const ka = await loadtest({ url: s.url, requests: 30, concurrency: 3, keepAlive: true, http11: true })
  assert.equal(ka.completeRequests, 30)
  assert.equal(ka.keepAliveRequests, 30)
  assert.equal(ka.failedRequests, 0)
  assert.equal(ka.document.length, 'hello chunked world'.length)
  assert.equal(ka.htmlTransferredBytes, 30 * 19)
  assert.equal(ka.totalTransferredBytes, written())
  const closed = await loadtest({ url: s.url, requests: 20, concurrency: 2, http11: true })
  assert.equal(closed.completeRequests, 20)
  assert.equal(closed.keepAliveRequests, 0)
  assert.equal(closed.failedRequests, 0)
  assert.equal(closed.document.length, 19)
})

test('HTTP/1.0 close-delimited raw server: body read to EOF, Server header as ab keeps it', async () => {
  const body = 'x'.repeat(20_000)
  const s = await server(startHttp10CloseServer(body))
  const response = `HTTP/1.0 200 OK\r\nServer: raw10/1.0 (test)\r\n\r\n${body}`
  const r = await loadtest({ url: s.url, requests: 25, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 25)
  assert.equal(r.keepAliveRequests, 0)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.document.length, body.length)
  assert.equal(r.totalTransferredBytes, 25 * Buffer.byteLength(response))
  assert.equal(r.htmlTransferredBytes, 25 * body.length)
  assert.equal(r.server.software, 'raw10/1.0') // up to the first space, as ab copies it
})

test('server answering Connection: close on a keep-alive run: counted, reconnected', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Connection', 'close'); res.setHeader('Content-Length', 3); res.end('abc') }))
  const r = await loadtest({ url: s.url, requests: 30, concurrency: 3, keepAlive: true })
  assert.equal(r.completeRequests, 30)
  assert.equal(r.keepAliveRequests, 0)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.document.length, 3)
})

test('HEAD: no body even with a Content-Length, with and without keep-alive', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 5); res.end(req.method === 'HEAD' ? undefined : 'hello') }))
  for (const keepAlive of [false, true]) {
    const r = await loadtest({ url: s.url, requests: 20, concurrency: 2, keepAlive, method: 'HEAD' })
    assert.equal(r.completeRequests, 20)
    assert.equal(r.keepAliveRequests, keepAlive ? 20 : 0)
    assert.equal(r.htmlTransferredBytes, 0)
    assert.equal(r.document.length, 0)
    assert.equal(r.failedRequests, 0)
  }
})

test('varying body length: Length failures against the first response, none with variableLength', async () => {
  let i = 0
  const s = await server(startHttpServer((req, res) => { const b = 'y'.repeat(1 + (i++ % 3)); res.setHeader('Content-Length', b.length); res.end(b) }))
  const r = await loadtest({ url: s.url, requests: 30 })
  assert.equal(r.completeRequests, 30)
  assert.equal(r.document.length, 1)
  assert.equal(r.failures.length, 20)
  assert.equal(r.failedRequests, 20)
  assert.equal(r.htmlTransferredBytes, 60)
  i = 0
  const v = await loadtest({ url: s.url, requests: 30, variableLength: true })
  assert.equal(v.failedRequests, 0)
  assert.equal(v.document.variable, true)
})

test('non-2xx responses are counted apart and are not failures', async () => {
  const s = await server(startHttpServer((req, res) => { res.statusCode = 404; res.end('nope') }))
  const r = await loadtest({ url: s.url, requests: 20, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 20)
  assert.equal(r.non2xxResponses, 20)
  assert.equal(r.failedRequests, 0)
  assert.deepEqual(r.statusCodes, { 404: 20 })
})

test('refused port: the run ends and throws SB_ERR_CONNECT with the partial result', async () => {
  const port = await closedPort()
  const err = await loadtest({ url: `http://127.0.0.1:${port}/`, requests: 50, concurrency: 5 }).then(() => null, (e) => e)
  assert.ok(err, 'loadtest should reject')
  assert.equal(err.code, 'SB_ERR_CONNECT')
  assert.match(err.message, new RegExp(`^127\\.0\\.0\\.1:${port}: connection refused`))
  assert.ok(!err.message.includes('\n'))
  assert.equal(err.result.completeRequests, 0)
  assert.equal(err.result.aborted, true)
  assert.equal(err.result.errors.ECONNREFUSED, 1)
})

test('refused port with -r: ab counts each refusal as a complete, failed request', async () => {
  const port = await closedPort()
  const r = await loadtest({ url: `http://127.0.0.1:${port}/`, requests: 20, continueOnReceiveError: true })
  // What ab 2.3 prints on Linux for the same run: Complete 20, Failed 30 (Receive 20, Exceptions 10).
  assert.equal(r.completeRequests, 20)
  assert.equal(r.failures.receive, 20)
  assert.equal(r.failures.exceptions, 10)
  assert.equal(r.failedRequests, 30)
})

test('connection reset: fatal without -r, counted with -r', async () => {
  const s = await server(startResetServer(3))
  const err = await loadtest({ url: s.url, requests: 12 }).then(() => null, (e) => e)
  assert.equal(err?.code, 'SB_ERR_CONNECT')
  assert.match(err.message, /reset/)
  assert.equal(err.result.completeRequests, 2)
  const r = await loadtest({ url: s.url, requests: 12, continueOnReceiveError: true })
  assert.equal(r.completeRequests, 12)
  assert.equal(r.failures.receive, 4)
  assert.equal(r.failures.exceptions, 4)
  assert.equal(r.failures.length, 4) // a reset response has no body: 0 != 2
})

test('silent server with a small timeout: the run ends with SB_ERR_TIMEOUT', async () => {
  const s = await server(startSilentServer())
  const err = await loadtest({ url: s.url, requests: 5, timeout: 0.3 }).then(() => null, (e) => e)
  assert.equal(err?.code, 'SB_ERR_TIMEOUT')
  assert.match(err.message, new RegExp(`^127\\.0\\.0\\.1:${s.port}: `))
  assert.equal(err.result.completeRequests, 0)
  assert.equal(err.result.aborted, true)
})

test('a server closing a reused keep-alive connection: ab counts a Length failure per close', async () => {
  const s = await server(startScriptedServer(
    () => 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok',
    { close: (index) => index === 2 }))
  const r = await loadtest({ url: s.url, requests: 20, keepAlive: true })
  // ab 2.3 on the same server: Complete 20, Failed 5 (Length 5), Keep-Alive requests 15.
  assert.equal(r.completeRequests, 20)
  assert.equal(r.keepAliveRequests, 15)
  assert.equal(r.failures.length, 5)
  assert.equal(r.failedRequests, 5)
})

test('wrong Content-Length: without keep-alive the body is read to EOF, as ab does', async () => {
  const s = await server(startWrongLengthServer(100, 'short'))
  const r = await loadtest({ url: s.url, requests: 10, concurrency: 2 })
  assert.equal(r.completeRequests, 10)
  assert.equal(r.document.length, 5)
  assert.equal(r.failedRequests, 0)
  const h = await loadtest({ url: s.url, requests: 10, http11: true, keepAlive: true })
  assert.equal(h.completeRequests, 10)
  assert.equal(h.keepAliveRequests, 0)
})

test('timelimit ends the run early; it never goes past -n', async () => {
  const s = await server(startSlowServer(40))
  const r = await loadtest({ url: s.url, timelimit: 0.25, concurrency: 2 })
  assert.ok(r.completeRequests > 0 && r.completeRequests < 50000)
  assert.ok(r.timeTakenSeconds >= 0.25)
  assert.equal(r.options.requests, 50000)
  assert.equal(r.aborted, false)
  // A -n that ends the run long before the time limit: exactly -n requests are sent, none beyond.
  let seen = 0
  const counted = await server(startHttpServer((req, res) => {
    seen++
    setTimeout(() => { res.setHeader('Content-Length', 2); res.end('ok') }, 10)
  }))
  const bounded = await loadtest({ url: counted.url, timelimit: 60, requests: 7, concurrency: 4 })
  assert.equal(bounded.completeRequests, 7)
  assert.equal(bounded.options.requests, 7)
  assert.equal(bounded.aborted, false)
  // every connection the run opened has ended: no request of it can still be on its way
  await new Promise((resolve) => counted.server.close(resolve))
  assert.equal(seen, 7, 'requests the server received')
})

test('an AbortSignal ends the run and keeps the results', async () => {
  const s = await server(startSlowServer(5))
  const controller = new AbortController()
  const records = []
  const r = await loadtest({
    url: s.url,
    requests: 1000,
    keepAlive: true,
    signal: controller.signal,
    onRequest: (record) => { records.push(record); if (records.length === 3) controller.abort() }
  })
  assert.equal(r.aborted, true)
  assert.equal(r.completeRequests, 3)
  assert.equal(records.length, 3)
  for (const rec of records) {
    assert.ok(rec.total >= rec.waiting && rec.total >= rec.connect && rec.connect >= 0)
    assert.ok(Math.abs(rec.start - Date.now()) < 60_000)
  }
})

test('keep-alive with c > 1 never sends or counts more than -n requests', async () => {
  let seen = 0
  const s = await server(startHttpServer((req, res) => { seen++; res.setHeader('Content-Length', 2); res.end('ok') }))
  const r = await loadtest({ url: s.url, requests: 101, concurrency: 7, keepAlive: true })
  assert.equal(r.completeRequests, 101)
  assert.equal(seen, 101)
})

test('onProgress every heartbeat, percentiles and connection-times rows sane', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') }))
  const progress = []
  const r = await loadtest({ url: s.url, requests: 251, concurrency: 3, heartbeat: 50, onProgress: (d) => progress.push(d) })
  assert.deepEqual(progress, [50, 100, 150, 200, 250])
  for (const [name, row] of Object.entries(r.connectionTimes)) {
    assert.ok(row.min <= row.median && row.median <= row.max, `${name}: min <= median <= max`)
    assert.ok(row.min <= row.mean && row.mean <= row.max, `${name}: min <= mean <= max`)
    assert.ok(row.sd >= 0, `${name}: sd >= 0`)
  }
  const p = Object.keys(r.percentiles).map(Number).sort((a, b) => a - b).map((k) => r.percentiles[k])
  assert.deepEqual(Object.keys(r.percentiles).map(Number).sort((a, b) => a - b), [50, 66, 75, 80, 90, 95, 98, 99, 100])
  for (let i = 1; i < p.length; i++) assert.ok(p[i - 1] <= p[i], 'percentiles non-decreasing')
  assert.equal(r.percentiles[100], r.connectionTimes.total.max)
  assert.equal(r.latency.max, r.connectionTimes.total.max)
  assert.ok(r.latency.p50 <= r.latency.p99 && r.latency.p99 <= r.latency.max)
  assert.ok(r.requestsPerSecond > 0)
  assert.ok(Math.abs(r.timePerRequestMs - r.timePerRequestAcrossMs * 3) < 1e-5, 'both rates come from the same time taken (rounded to 1e-6)')
})

test('a header split across reads and a header over 8 KB', async () => {
  const split = await server(startRawServer((socket) => {
    socket.once('data', () => {
      socket.write('HTTP/1.0 200 OK\r\nServer: split\r\nContent-', () => socket.end('Length: 4\r\n\r\nbody'))
    })
  }))
  const r = await loadtest({ url: split.url, requests: 5 })
  assert.equal(r.completeRequests, 5)
  assert.equal(r.document.length, 4)
  assert.equal(r.server.software, 'split')
  const big = await server(startRawServer((socket) => {
    socket.once('data', () => socket.end(`HTTP/1.0 200 OK\r\nX-Big: ${'b'.repeat(9000)}\r\n\r\nbody`))
  }))
  // ab drops such a response as a non-2xx failure (not complete) and gives up after more than 10.
  const err = await loadtest({ url: big.url, requests: 20 }).then(() => null, (e) => e)
  assert.equal(err?.code, 'SB_ERR_CONNECT')
  assert.equal(err.result.completeRequests, 0)
  assert.equal(err.result.non2xxResponses, 12)
})

test('a large POST body (written past the socket buffer) on keep-alive connections', async () => {
  const body = Buffer.alloc(1024 * 1024, 0x61)
  const s = await server(startHttpServer(async (req, res) => {
    let n = 0
    for await (const chunk of req) n += chunk.length
    const answer = String(n)
    res.setHeader('Content-Length', answer.length)
    res.end(answer)
  }))
  const options = { url: s.url, requests: 6, concurrency: 2, keepAlive: true, body, contentType: 'application/octet-stream' }
  const r = await loadtest(options)
  assert.equal(r.completeRequests, 6)
  assert.equal(r.keepAliveRequests, 6)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.document.length, String(body.length).length)
  const head = buildRequest(normalizeOptions(options), parseTarget(s.url)).length - body.length
  assert.equal(r.totalBodySentBytes, 6 * (head + body.length))
})

test('a throwing onRequest callback ends the run with its error and the partial result', async () => {
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') }))
  const boom = new Error('callback failed')
  const err = await loadtest({ url: s.url, requests: 50, keepAlive: true, onRequest: () => { throw boom } }).then(() => null, (e) => e)
  assert.equal(err, boom)
  assert.equal(err.result.completeRequests, 1)
  assert.equal(err.result.aborted, true)
})

test('a callback that throws a falsy value still rejects loadtest() with that value', async () => {
  // The engine once kept what a callback threw in its `failure` and loadtest() tested it for truth:
  // a thrown 0 ended the run and loadtest() resolved as if nothing had been thrown.
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') }))
  const thrown = 0
  const outcome = await loadtest({ url: s.url, requests: 50, keepAlive: true, onRequest: () => { throw thrown } })
    .then(() => 'resolved', (e) => ({ rejected: e }))
  assert.deepEqual(outcome, { rejected: 0 })
})

test('connect() failing at once: ab gives up after more than 10 failures', async () => {
  // The kernel refuses TCP to the broadcast address itself (ENETUNREACH): no packet leaves the machine.
  const err = await loadtest({ url: 'http://255.255.255.255:9/', requests: 50 }).then(() => null, (e) => e)
  assert.equal(err?.code, 'SB_ERR_CONNECT')
  assert.match(err.message, /^255\.255\.255\.255:9: test aborted after 10 failures: .*ENETUNREACH/)
  assert.equal(err.result.failures.connect, 11)
  assert.equal(err.result.failedRequests, 12)
  assert.equal(err.result.completeRequests, 0)
})

test('a host with several addresses: the run moves on from a refusing one while nothing succeeded', async () => {
  // 127.0.0.2 is loopback too, but the server listens on 127.0.0.1 only: ab's ::1-then-127.0.0.1 case.
  const s = await server(startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') }))
  const o = normalizeOptions({ url: s.url, requests: 10, concurrency: 2 })
  const r = await runEngine(o, parseTarget(s.url), ['127.0.0.2', '127.0.0.1'])
  assert.equal(r.completeRequests, 10)
  assert.equal(r.failedRequests, 0)
  assert.deepEqual(r.errors, { ECONNREFUSED: 1 })
  const refusedBoth = await runEngine(o, parseTarget(s.url), ['127.0.0.2', '127.0.0.3']).then(() => null, (e) => e)
  assert.equal(refusedBoth?.code, 'SB_ERR_CONNECT')
  assert.deepEqual(refusedBoth.result.errors, { ECONNREFUSED: 2 })
})
