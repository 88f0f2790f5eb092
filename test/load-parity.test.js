// The engine's counters against the real ab's on the same servers: ab 2.3 is the specification.
// Each case runs ab, then loadtest(), against a server whose behaviour restarts for each run.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadtest } from '../lib/load/loadtest.js'
import {
  startHttpServer, startRawServer, startScriptedServer, startMisbehavingServer, oddResponses, closedPort, eachRequest, runCommand
} from './helper.js'

const abMissing = spawnSync('ab', ['-V']).error !== undefined
const skip = abMissing && 'ab (apache2-utils) is not installed: no parity check against the real ab'
if (abMissing) process.stderr.write(`SKIP: ${skip}\n`)

const closers = []
after(() => Promise.all(closers.map((close) => close())))
const dir = mkdtempSync(join(tmpdir(), 'syncbench-parity-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const bodyFile = join(dir, 'post.txt')
writeFileSync(bodyFile, 'posted body\n')

/** ab's report -> the same figures from a LoadResult. */
function fromAb (out) {
  const n = (re) => { const m = re.exec(out); return m ? Number(m[1]) : 0 }
  const f = /\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/.exec(out)
  return {
    complete: n(/^Complete requests:\s+(\d+)/m),
    failed: n(/^Failed requests:\s+(\d+)/m),
    failures: f ? f.slice(1).map(Number) : [0, 0, 0, 0],
    writeErrors: n(/^Write errors:\s+(\d+)/m),
    non2xx: n(/^Non-2xx responses:\s+(\d+)/m),
    keepAlive: n(/^Keep-Alive requests:\s+(\d+)/m),
    total: n(/^Total transferred:\s+(\d+)/m),
    html: n(/^HTML transferred:\s+(\d+)/m),
    bodySent: n(/^Total body sent:\s+(\d+)/m),
    docLength: n(/^Document Length:\s+(\d+)/m)
  }
}

/** @param {import('../lib/types.js').LoadResult} r */
function fromResult (r) {
  return {
    complete: r.completeRequests,
    failed: r.failedRequests,
    failures: [r.failures.connect, r.failures.receive, r.failures.length, r.failures.exceptions],
    writeErrors: r.writeErrors,
    non2xx: r.non2xxResponses,
    keepAlive: r.keepAliveRequests,
    total: r.totalTransferredBytes,
    html: r.htmlTransferredBytes,
    bodySent: r.totalBodySentBytes,
    docLength: r.document.variable ? 0 : r.document.length
  }
}

/**
 * @param {{ url: string, close: () => Promise<void> }} s
 * @param {string[]} abArgs
 * @param {object} options LoadOptions without url
 * @param {() => void} [reset] restarts the server's behaviour before each run
 */
async function parity (s, abArgs, options, reset = () => {}) {
  reset()
  const ab = await runCommand('ab', [...abArgs, s.url], { timeoutMs: 20_000 })
  assert.equal(ab.code, 0, `ab failed: ${ab.stderr}`)
  reset()
  const mine = await loadtest({ url: s.url, ...options })
  assert.deepEqual(fromResult(mine), fromAb(ab.stdout))
}

async function serve (p) {
  const s = await p
  closers.push(s.close)
  return s
}

test('parity: fixed length, with and without keep-alive, HEAD, POST', { skip }, async () => {
  const s = await serve(startHttpServer((req, res) => { res.setHeader('Content-Length', 5); res.end(req.method === 'HEAD' ? undefined : 'hello') }))
  await parity(s, ['-n', '200', '-c', '4'], { requests: 200, concurrency: 4 })
  await parity(s, ['-n', '200', '-c', '4', '-k'], { requests: 200, concurrency: 4, keepAlive: true })
  await parity(s, ['-n', '30', '-c', '2', '-k', '-i'], { requests: 30, concurrency: 2, keepAlive: true, method: 'HEAD' })
  await parity(s, ['-n', '30', '-c', '2', '-i'], { requests: 30, concurrency: 2, method: 'HEAD' })
  await parity(s, ['-n', '20', '-p', bodyFile], { requests: 20, body: Buffer.from('posted body\n') })
})

test('parity: no Content-Length with -k, Connection: close, HTTP/1.0 close-delimited', { skip }, async () => {
  const nocl = await serve(startHttpServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('no length here') }))
  await parity(nocl, ['-n', '50', '-c', '2', '-k'], { requests: 50, concurrency: 2, keepAlive: true })
  const close = await serve(startHttpServer((req, res) => { res.setHeader('Connection', 'close'); res.setHeader('Content-Length', 3); res.end('abc') }))
  await parity(close, ['-n', '50', '-c', '2', '-k'], { requests: 50, concurrency: 2, keepAlive: true })
  const raw = await serve(startScriptedServer(() => `HTTP/1.0 200 OK\r\nServer: raw\r\n\r\n${'z'.repeat(30_000)}`, { close: () => true }))
  await parity(raw, ['-n', '40', '-c', '3', '-k'], { requests: 40, concurrency: 3, keepAlive: true })
})

test('parity: Length failures, -l, non-2xx', { skip }, async () => {
  let i = 0
  const vary = await serve(startHttpServer((req, res) => { const b = 'v'.repeat(1 + (i++ % 4)); res.setHeader('Content-Length', b.length); res.end(b) }))
  await parity(vary, ['-n', '40'], { requests: 40 }, () => { i = 0 })
  await parity(vary, ['-n', '40', '-k'], { requests: 40, keepAlive: true }, () => { i = 0 })
  await parity(vary, ['-n', '40', '-l'], { requests: 40, variableLength: true }, () => { i = 0 })
  const missing = await serve(startHttpServer((req, res) => { res.statusCode = 404; res.setHeader('Content-Length', 9); res.end('not found') }))
  await parity(missing, ['-n', '30', '-c', '3', '-k'], { requests: 30, concurrency: 3, keepAlive: true })
})

test('parity: a keep-alive server closing after 3 responses per connection', { skip }, async () => {
  const s = await serve(startScriptedServer(
    () => 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok',
    { close: (index) => index === 2 }))
  await parity(s, ['-n', '40', '-k'], { requests: 40, keepAlive: true })
})

test('parity: resets with -r, refused connections with -r', { skip }, async () => {
  let seen = 0
  const reset = await serve(startRawServer((socket) => {
    eachRequest(socket, () => {
      if (++seen % 3 === 0) socket.resetAndDestroy()
      else socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
  }))
  await parity(reset, ['-n', '30', '-r'], { requests: 30, continueOnReceiveError: true }, () => { seen = 0 })
  const port = await closedPort()
  const refused = { url: `http://127.0.0.1:${port}/`, close: async () => {} }
  await parity(refused, ['-n', '20', '-r'], { requests: 20, continueOnReceiveError: true })
  await parity(refused, ['-n', '5', '-c', '2', '-r'], { requests: 5, concurrency: 2, continueOnReceiveError: true })
})

test('parity: where ab exits, loadtest throws', { skip }, async () => {
  const port = await closedPort()
  const url = `http://127.0.0.1:${port}/`
  const ab = await runCommand('ab', ['-n', '10', url])
  assert.notEqual(ab.code, 0)
  assert.match(ab.stderr, /Connection refused/)
  await assert.rejects(loadtest({ url, requests: 10 }), { code: 'SB_ERR_CONNECT', message: /connection refused/ })
})

// The servers that break HTTP/1.1's framing (test/load-http11.test.js fails their requests under
// --http1.1): ab mode counts them as ab 2.3 does, for which they are bytes like any others. With -k
// only where ab's keep-alive search finds "Keep-Alive" in the first header: after a 100 Continue it
// would read to a close that a keep-alive server never makes. With -k, ab waits for a negative
// Content-Length (an unsigned length no body reaches) until -s: both exit there.
const readToClose = new Set(['continueOnePacket', 'continueTwoPackets', 'twoInterim'])
const waitsForever = new Set(['negativeLength'])
for (const name of Object.keys(oddResponses)) {
  test(`parity: ${name}, without keep-alive${readToClose.has(name) ? '' : ' and with -k'}`, { skip }, async () => {
    const s = await serve(startMisbehavingServer(oddResponses[name]))
    await parity(s, ['-n', '20', '-c', '2'], { requests: 20, concurrency: 2 })
    if (waitsForever.has(name)) {
      const ab = await runCommand('ab', ['-n', '20', '-c', '2', '-k', '-s', '1', s.url], { timeoutMs: 20_000 })
      assert.notEqual(ab.code, 0)
      assert.match(ab.stderr, /The timeout specified has expired/)
      await assert.rejects(loadtest({ url: s.url, requests: 20, concurrency: 2, keepAlive: true, timeout: 1 }), { code: 'SB_ERR_TIMEOUT' })
    } else if (!readToClose.has(name)) {
      await parity(s, ['-n', '20', '-c', '2', '-k'], { requests: 20, concurrency: 2, keepAlive: true })
    }
  })
}

test('parity: a Content-Length past 2^31 (ab reads it as a C int: 2^32 + 5 is 5), with -k', { skip }, async () => {
  const s = await serve(startMisbehavingServer(() => 'HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4294967301\r\n\r\nhello'))
  await parity(s, ['-n', '20', '-c', '2', '-k'], { requests: 20, concurrency: 2, keepAlive: true })
})

test('parity: a body cut short of its Content-Length or last chunk, 101 Switching Protocols', { skip }, async () => {
  for (const text of ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n']) {
    const s = await serve(startScriptedServer(() => text, { close: () => true }))
    await parity(s, ['-n', '20', '-c', '2'], { requests: 20, concurrency: 2 })
    await parity(s, ['-n', '20', '-c', '2', '-k'], { requests: 20, concurrency: 2, keepAlive: true })
  }
  const switching = await serve(startMisbehavingServer(() => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: other\r\nConnection: Upgrade\r\n\r\nbytes'))
  await parity(switching, ['-n', '20', '-c', '2'], { requests: 20, concurrency: 2 })
})
