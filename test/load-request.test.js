// The request bytes: what loadtest() sends, compared byte for byte with what the real ab sends.
import { test, after, before } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadtest, normalizeOptions } from '../lib/load/loadtest.js'
import { parseTarget, requestHead } from '../lib/load/request.js'
import { startRawServer, runCommand } from './helper.js'

const abMissing = spawnSync('ab', ['-V']).error !== undefined
const skipAb = abMissing && 'ab (apache2-utils) is not installed: request bytes not cross-checked against the real ab'
if (abMissing) process.stderr.write(`SKIP: ${skipAb}\n`)

/** A raw server that records each whole request (head and Content-length body) and answers it. */
let capture
before(async () => {
  const requests = []
  const raw = await startRawServer((socket) => {
    let pending = Buffer.alloc(0)
    socket.on('data', (d) => {
      pending = Buffer.concat([pending, d])
      const end = pending.indexOf('\r\n\r\n')
      if (end === -1) return
      const m = /\r\ncontent-length: *(\d+)/i.exec(pending.subarray(0, end).toString('latin1'))
      const total = end + 4 + (m ? Number(m[1]) : 0)
      if (pending.length < total) return
      requests.push(pending.subarray(0, total))
      pending = pending.subarray(total)
      socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
  })
  capture = { ...raw, requests }
})
after(() => capture.close())

const dir = mkdtempSync(join(tmpdir(), 'syncbench-request-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const bodyFile = join(dir, 'body.json')
const body = Buffer.from('{"user":"ab","pass":"x y\\u00e9"}\n')
writeFileSync(bodyFile, body)

/** [ab arguments, LoadOptions] pairs that must produce the same bytes. */
const cases = [
  ['plain GET with a query', ['-n', '1'], {}, '/a/b?c=d&e'],
  ['keep-alive', ['-n', '1', '-k'], { keepAlive: true }],
  ['HEAD', ['-n', '1', '-i'], { method: 'HEAD' }],
  ['custom method', ['-n', '1', '-m', 'DELETE'], { method: 'DELETE' }],
  ['cookie, auth, proxy auth, extra headers', ['-n', '1', '-C', 'session=abc', '-A', ' user:pa ss', '-P', 'proxy:secret', '-H', 'X-Trace: 1', '-H', 'Accept-Encoding: gzip'],
    { cookies: ['session=abc'], auth: ' user:pa ss', proxyAuth: 'proxy:secret', headers: ['X-Trace: 1', 'Accept-Encoding: gzip'] }],
  ['-H replacing Host, User-Agent and Accept', ['-n', '1', '-H', 'Host: example.test', '-H', 'user-agent: me/1', '-H', 'ACCEPT: text/html'],
    { headers: ['Host: example.test', 'user-agent: me/1', 'ACCEPT: text/html'] }],
  ['POST body with -T', ['-n', '1', '-p', bodyFile, '-T', 'application/json'], { body, contentType: 'application/json' }],
  ['PUT body, default type, keep-alive', ['-n', '1', '-k', '-u', bodyFile], { body, method: 'PUT', keepAlive: true }]
]

for (const [name, abArgs, options, path = '/'] of cases) {
  test(`request bytes equal ab's: ${name}`, { skip: skipAb }, async () => {
    const url = `http://127.0.0.1:${capture.port}${path}`
    capture.requests.length = 0
    const ab = await runCommand('ab', [...abArgs, url], { timeoutMs: 20_000 })
    assert.equal(ab.code, 0, ab.stderr)
    assert.equal(capture.requests.length, 1)
    const fromAb = capture.requests[0]
    capture.requests.length = 0
    const r = await loadtest({ url, requests: 1, ...options })
    assert.equal(r.completeRequests, 1)
    assert.equal(capture.requests.length, 1)
    assert.equal(capture.requests[0].toString('latin1'), fromAb.toString('latin1'))
    assert.ok(capture.requests[0].equals(fromAb))
  })
}

test('request head without ab: order, spelling, port 80 omitted from Host', () => {
  const o = normalizeOptions({ url: 'http://example.test/x', keepAlive: true, cookies: ['a=1'], headers: ['X: y'] })
  assert.equal(requestHead(o, parseTarget(o.url)),
    'GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\nCookie: a=1\r\nX: y\r\nHost: example.test\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n')
  const six = parseTarget('http://[::1]:8080/p?q')
  assert.deepEqual(six, { hostname: '::1', hostField: '[::1]', port: 8080, path: '/p?q', tls: false })
})

test('http11: HTTP/1.1 request line, Connection: close only without keep-alive', () => {
  const close = normalizeOptions({ url: 'http://127.0.0.1:81/', http11: true })
  assert.equal(requestHead(close, parseTarget(close.url)),
    'GET / HTTP/1.1\r\nConnection: close\r\nHost: 127.0.0.1:81\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n')
  const ka = normalizeOptions({ url: 'http://127.0.0.1:81/', http11: true, keepAlive: true })
  assert.equal(requestHead(ka, parseTarget(ka.url)),
    'GET / HTTP/1.1\r\nHost: 127.0.0.1:81\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n')
})

test('several cookies are joined into one Cookie header (the LoadOptions contract)', () => {
  const o = normalizeOptions({ url: 'http://h/', cookies: ['a=1', 'b=2'] })
  assert.match(requestHead(o, parseTarget(o.url)), /\r\nCookie: a=1; b=2\r\n/)
})

test('bad options and URLs are refused with a code and the value', async () => {
  await assert.rejects(loadtest({ url: 'ftp://127.0.0.1/' }), { code: 'SB_ERR_INVALID_URL', message: /ftp:\/\/127\.0\.0\.1\// })
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', requests: 0 }), { code: 'SB_ERR_INVALID_OPTION', message: /^-n .*"0"/ })
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', requests: 2, concurrency: 3 }), { code: 'SB_ERR_INVALID_OPTION', message: /^-c / })
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', timeout: 0 }), { code: 'SB_ERR_INVALID_OPTION', message: /^-s / })
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', headers: ['X: a\r\nY: b'] }), { code: 'SB_ERR_INVALID_OPTION', message: /^-H / })
  // a CR or LF in the content type or the URL would put header lines of its own into every request
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', body: Buffer.from('x'), contentType: 'a\r\nY: b' }), { code: 'SB_ERR_INVALID_OPTION', message: /^-T \(contentType\) must be a content type on one line/ })
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/x\r\nY: b' }), { code: 'SB_ERR_INVALID_URL', message: /^url must be on one line, got "http:\/\/127\.0\.0\.1:1\/x\\r\\nY: b"$/ })
})

test('the LoadResult records the options without functions and with bodyBytes', async () => {
  capture.requests.length = 0
  const r = await loadtest({ url: `http://127.0.0.1:${capture.port}/`, body, onRequest: () => {} })
  assert.equal(r.options.bodyBytes, body.length)
  assert.equal(r.options.body, undefined)
  assert.equal(r.options.onRequest, undefined)
  assert.equal(r.options.method, 'POST')
  // ab's "Total body sent" counts every request byte written, headers included.
  assert.equal(r.totalBodySentBytes, capture.requests[0].length)
  assert.deepEqual(JSON.parse(JSON.stringify(r)), r, 'the result survives JSON as it is: plain data, no functions, no Buffers')
})
