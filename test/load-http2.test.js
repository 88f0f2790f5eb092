// syncbench ab --http2 through the real CLI against real node:http2 servers on 127.0.0.1: h2c by prior
// knowledge, TLS with ALPN h2 (and the fallback to HTTP/1.1 when a server refuses h2), the streams
// per connection and the server's SETTINGS_MAX_CONCURRENT_STREAMS, the refused combinations of
// options, merge, and servers that misbehave (GOAWAY mid-run, RST_STREAM, no SETTINGS ever, a closed
// connection before SETTINGS, streams never answered). Every server counts what it saw, so each
// count of syncbench's is checked against the server's own.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { spawnSync } from 'node:child_process'
import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import net from 'node:net'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadResultProblem } from '../lib/run/results-schema.js'
import { normalizeOptions, runEngine } from '../lib/load/loadtest.js'
import { parseTarget } from '../lib/load/request.js'
import { nativeIo } from '../lib/load/native-io.js'
import { runCli, abJson, closedPort } from './helper.js'

const BODY = 'hello over h2\n'
/** The transport a plain run takes: the native one when its addon is built, else node:net. */
const NATIVE = nativeIo() !== null
const opensslMissing = spawnSync('openssl', ['version']).error ? 'openssl is not installed (apt-get install openssl): no certificate to serve' : null

let dir = ''
/** @type {{ key: Buffer, cert: Buffer }} */
let pem = { key: Buffer.alloc(0), cert: Buffer.alloc(0) }
/** @type {(() => void)[]} */
const closers = []

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncbench-h2-'))
  if (opensslMissing) return
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' })
  assert.equal(made.status, 0, made.stderr)
  pem = { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) }
})
after(async () => {
  for (const close of closers) close()
  await rm(dir, { recursive: true, force: true })
})

/**
 * What a test server saw: streams opened, answered, reset, sessions, the most streams open at once on
 * one session, the request bodies' bytes and the last request's headers.
 */
function newTally () {
  return { streams: 0, answered: 0, reset: 0, sessions: 0, maxOpen: 0, bodyBytes: 0, /** @type {http2.IncomingHttpHeaders|null} */ headers: null }
}

/**
 * A node:http2 server (h2c, or TLS with ALPN when `secure`) on 127.0.0.1:0, closed after the tests.
 * `onStream` decides each stream's fate (default: answer BODY); it is given the stream's 1-based
 * number on its session.
 * @param {{ secure?: boolean, settings?: http2.Settings, onStream?: (stream: http2.ServerHttp2Stream, n: number, session: http2.ServerHttp2Session) => void }} [o]
 */
async function startH2 (o = {}) {
  const tally = newTally()
  /** @type {WeakSet<http2.ServerHttp2Stream>} HEAD requests' streams: answered without a body */
  const heads = new WeakSet()
  const options = { settings: o.settings ?? {} }
  const server = o.secure ? http2.createSecureServer({ ...options, key: pem.key, cert: pem.cert }) : http2.createServer(options)
  server.on('session', (session) => {
    tally.sessions++
    let open = 0
    let n = 0
    session.on('stream', (stream, headers) => {
      tally.streams++
      tally.headers = headers
      if (headers[':method'] === 'HEAD') heads.add(stream)
      open++
      if (open > tally.maxOpen) tally.maxOpen = open
      stream.on('close', () => { open-- })
      stream.on('data', (chunk) => { tally.bodyBytes += chunk.length })
      // a stream the server resets, or the client cancels, reports an error here: expected
      stream.on('error', () => {})
      const fate = o.onStream ?? answer
      fate(stream, ++n, session)
    })
  })
  /** @param {http2.ServerHttp2Stream} stream */
  function answer (stream) {
    // the whole request first (a POST's body), then the answer
    const reply = () => {
      if (stream.destroyed) return
      tally.answered++
      stream.respond({ ':status': 200, 'content-type': 'text/plain', server: 'h2-test/1.0 (test)' }, { endStream: isHead(stream) })
      if (!isHead(stream)) stream.end(BODY)
    }
    if (stream.readableEnded) reply()
    else stream.on('end', reply).resume()
  }
  /** @param {http2.ServerHttp2Stream} stream */
  function isHead (stream) {
    return heads.has(stream)
  }
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => server.close())
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  return { url: `${o.secure ? 'https' : 'http'}://127.0.0.1:${port}/`, port, tally, answer, server }
}

test('--http2 -c 10 --streams 10 -n 2000: every request a stream, counted as the server saw them, percentiles, protocol h2 in --json', async () => {
  const { url, tally } = await startH2()
  const r = await abJson(['--http2', '-c', '10', '--streams', '10', '-n', '2000', url])
  assert.equal(loadResultProblem(r), null)
  assert.equal(r.protocol, 'h2')
  assert.equal(r.transport, NATIVE ? 'native' : 'node:net')
  assert.equal(r.completeRequests, 2000)
  assert.equal(r.failedRequests, 0)
  assert.deepEqual(r.statusCodes, { 200: 2000 })
  assert.equal(tally.streams, 2000)
  assert.equal(tally.answered, 2000)
  // -c sessions, never more streams open on one than --streams
  assert.equal(tally.sessions, 10)
  assert.ok(tally.maxOpen <= 10, `at most 10 streams open on a session, saw ${tally.maxOpen}`)
  assert.equal(r.server.software, 'h2-test/1.0')
  assert.equal(r.document.length, Buffer.byteLength(BODY))
  assert.equal(r.htmlTransferredBytes, 2000 * Buffer.byteLength(BODY))
  // every byte read: the DATA payloads and more (frame headers, HEADERS, SETTINGS)
  assert.ok(r.totalTransferredBytes > r.htmlTransferredBytes + 2000 * 9)
  assert.deepEqual(Object.keys(r.percentiles), ['50', '66', '75', '80', '90', '95', '98', '99', '100'])
  assert.ok(r.latency.p50 > 0 && r.latency.p50 <= r.latency.p99 && r.latency.p99 <= r.latency.max)
  assert.equal(r.latencyHistogram.length > 0, true)
  assert.equal(r.http2.streams, 10)
  assert.equal(r.http2.serverStreamsLimit, 0)
  assert.equal(r.http2.connections, 10)
  assert.ok(r.http2.connectMs.min > 0 && r.http2.connectMs.min <= r.http2.connectMs.max)
  assert.ok(r.http2.firstByteMs.min >= r.http2.connectMs.min)
  assert.equal(r.http2.streamsPerConnection.mean, 200)
  assert.deepEqual(r.http2.goaways, {})
  assert.deepEqual(r.http2.resets, {})
  assert.equal(r.options.http2, true)
  assert.equal(r.options.streams, 10)
  // the same streams over node:net, the transport a run takes without the native one
  const net = await runCli(['ab', '--json', '--http2', '-c', '10', '--streams', '10', '-n', '2000', url], { env: { SYNCBENCH_IO: 'net' } })
  assert.equal(net.code, 0, net.stderr)
  const overNet = JSON.parse(net.stdout)
  assert.equal(overNet.transport, 'node:net')
  assert.equal(overNet.protocol, 'h2')
  assert.deepEqual(overNet.statusCodes, { 200: 2000 })
  assert.equal(overNet.htmlTransferredBytes, r.htmlTransferredBytes)
  assert.equal(tally.answered, 4000)
})

test("--h2's report: ab's lines, then the connections' figures and the HDR percentiles per stream", async () => {
  const { url } = await startH2()
  const r = await runCli(['ab', '--h2', '-c', '2', '--streams', '3', '-n', '30', url])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, '')
  assert.match(r.stdout, /^Complete requests: {6}30$/m)
  assert.match(r.stdout, /^HTTP\/2: {17}h2c \(prior knowledge\), 2 x 3 streams$/m)
  assert.match(r.stdout, /^Connections opened: {5}2$/m)
  // which connection carries each of the 30 is the server's timing; their mean is not
  assert.match(r.stdout, /^Streams per connection: min \d+\.0, mean 15\.0, max \d+\.0$/m)
  assert.match(r.stdout, /^GOAWAY received: {8}0$/m)
  assert.match(r.stdout, /^RST_STREAM received: {4}0$/m)
  assert.match(r.stdout, /^Latency per request \(stream\), HDR \(ms\)$/m)
  assert.match(r.stdout, /^ {2}99\.9% +\d+\.\d{3}$/m)
  for (const line of r.stdout.split('\n')) assert.ok(line.length <= 100, line)
})

test("a server's SETTINGS_MAX_CONCURRENT_STREAMS below --streams is honoured and said in one line; at --streams, nothing is said", async () => {
  const { url, tally } = await startH2({ settings: { maxConcurrentStreams: 3 } })
  const r = await runCli(['ab', '--json', '--http2', '-c', '2', '--streams', '4', '-n', '200', url])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, 'syncbench ab: the server allows 3 concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS), fewer than --streams 4: 3 used\n')
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 200)
  assert.equal(result.failedRequests, 0)
  assert.equal(result.http2.serverStreamsLimit, 3)
  assert.ok(tally.maxOpen <= 3, `at most 3 streams open on a session, saw ${tally.maxOpen}`)
  // the edge: --streams equal to the server's limit is no limit to tell
  const at = await runCli(['ab', '--json', '--http2', '-c', '2', '--streams', '3', '-n', '50', url])
  assert.equal(at.code, 0, at.stderr)
  assert.equal(at.stderr, '')
  assert.equal(JSON.parse(at.stdout).http2.serverStreamsLimit, 0)
})

test('-p, -T, -H, -C and -A go into each stream as HTTP/2 headers; Host becomes :authority and connection headers are left out', async () => {
  const { url, tally } = await startH2()
  const body = join(dir, 'body.json')
  await writeFile(body, '{"a":1}')
  const r = await abJson(['--http2', '-n', '4', '-p', body, '-T', 'application/json', '-H', 'X-Test: yes', '-H', 'Host: example.test', '-H', 'Connection: keep-alive', '-C', 'a=1', '-A', 'u:p', url])
  assert.equal(r.completeRequests, 4)
  assert.equal(r.failedRequests, 0)
  assert.equal(tally.bodyBytes, 4 * 7)
  const h = /** @type {http2.IncomingHttpHeaders} */ (tally.headers)
  assert.equal(h[':method'], 'POST')
  assert.equal(h[':authority'], 'example.test')
  assert.equal(h['content-type'], 'application/json')
  assert.equal(h['x-test'], 'yes')
  assert.equal(h.cookie, 'a=1')
  assert.equal(h.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`)
  assert.equal(h['user-agent'], 'ApacheBench/2.3')
  assert.equal(h.connection, undefined)
  assert.ok(r.totalBodySentBytes >= 4 * 7)
})

test('--http2 -i sends HEAD; -R runs the open loop over streams with its corrected latency', async () => {
  const { url, tally } = await startH2()
  const head = await abJson(['--http2', '-i', '-n', '3', url])
  assert.equal(head.completeRequests, 3)
  assert.equal(/** @type {http2.IncomingHttpHeaders} */ (tally.headers)[':method'], 'HEAD')
  const open = await abJson(['--http2', '-c', '2', '--streams', '2', '-R', '400', '-n', '100', url])
  assert.equal(open.completeRequests, 100)
  assert.equal(open.openLoop.targetRate, 400)
  assert.ok(open.latencyUncorrected !== undefined)
  assert.equal(open.http2.connections, 2)
})

test('https: ALPN h2 is negotiated (protocol h2, TLS figures); a server offering only http/1.1 gets HTTP/1.1, said in one line', { skip: opensslMissing ?? false }, async () => {
  const { url, tally } = await startH2({ secure: true })
  const r = await abJson(['--http2', '-c', '2', '--streams', '5', '-n', '100', url])
  assert.equal(r.protocol, 'h2')
  assert.equal(r.transport, 'node:tls')
  assert.equal(r.completeRequests, 100)
  assert.equal(tally.answered, 100)
  assert.match(r.tls.protocol, /^TLSv1\.[23]$/)

  const h1 = https.createServer({ key: pem.key, cert: pem.cert, ALPNProtocols: ['http/1.1'] }, (req, res) => {
    res.writeHead(200, { 'Content-Length': Buffer.byteLength(BODY) })
    res.end(BODY)
  })
  h1.listen(0, '127.0.0.1')
  await once(h1, 'listening')
  closers.push(() => h1.close())
  const h1Url = `https://127.0.0.1:${/** @type {net.AddressInfo} */ (h1.address()).port}/`
  const fell = await runCli(['ab', '--json', '--http2', '-c', '2', '-n', '20', h1Url])
  assert.equal(fell.code, 0, fell.stderr)
  assert.equal(fell.stderr, 'syncbench ab: the server refused h2 in TLS ALPN: the run used HTTP/1.1\n')
  const result = JSON.parse(fell.stdout)
  assert.equal(result.protocol, 'http/1.1')
  assert.equal(result.transport, 'node:tls')
  assert.equal(result.completeRequests, 20)
  assert.equal(result.failedRequests, 0)
  assert.equal(result.http2, undefined)
})

test('bad combinations: one line naming the option and its value, exit 2, nothing sent', async () => {
  const { url, tally } = await startH2()
  const cases = [
    [['--streams', '4'], /^syncbench ab: --streams applies to --http2 only \(concurrent streams per connection\), got "4"$/],
    [['--http2', '--streams', '0'], /^syncbench ab: --streams must be a positive integer, got "0"$/],
    [['--http2', '--streams', '10001'], /^syncbench ab: --streams must be at most 10000, got "10001"$/],
    [['--http2', '-m', '10', '--streams', '4'], /^syncbench ab: -m sets the streams per connection as --streams does: give one of them \(--streams 4\), got "10"$/],
    [['--http2', '-m', '0'], /^syncbench ab: -m must be a positive integer, got "0"$/],
    [['--http2', '-m', '10001'], /^syncbench ab: -m must be at most 10000, got "10001"$/],
    [['--http2', '--http1.1'], /^syncbench ab: --http2 cannot be combined with --http1\.1: it speaks HTTP\/2, not HTTP\/1\.1$/]
  ]
  for (const [args, message] of cases) {
    const r = await runCli(['ab', ...args, '-n', '2', url])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr)
    assert.match(r.stderr.trimEnd(), message)
    assert.equal(r.stdout, '')
  }
  assert.equal(tally.streams, 0)
  // the edges that pass: --streams 1 and 10000, ab's -m as a method
  const ok = await abJson(['--http2', '--streams', '10000', '-m', 'PUT', '-n', '2', url])
  assert.equal(ok.completeRequests, 2)
  assert.equal(/** @type {http2.IncomingHttpHeaders} */ (tally.headers)[':method'], 'PUT')
})

test("h2load's -m under --http2: a number is the streams per connection (-p's POST kept), a word the method; -k changes nothing", async () => {
  const { url, tally } = await startH2()
  const streams = await abJson(['--http2', '-k', '-c', '2', '-m', '10', '-n', '200', url])
  assert.equal(streams.completeRequests, 200)
  assert.equal(streams.http2?.streams, 10)
  assert.equal(/** @type {http2.IncomingHttpHeaders} */ (tally.headers)[':method'], 'GET')
  assert.ok(tally.maxOpen > 1 && tally.maxOpen <= 10, `up to 10 streams open on a session, saw ${tally.maxOpen}`)
  const report = await runCli(['ab', '--h2', '-k', '-n', '4', url])
  assert.equal(report.code, 0, report.stderr)
  assert.doesNotMatch(report.stdout, /Keep-Alive requests/)
  // the edge: -m 1 is one stream, and a -p body before -m 3 is still POSTed
  await writeFile(join(dir, 'body.txt'), 'posted')
  const posted = await abJson(['--h2', '-p', join(dir, 'body.txt'), '-m', '1', '-n', '3', url])
  assert.equal(posted.http2?.streams, 1)
  assert.equal(/** @type {http2.IncomingHttpHeaders} */ (tally.headers)[':method'], 'POST')
  assert.equal(tally.bodyBytes, 3 * 'posted'.length)
  // without --http2, ab's -m is the method whatever it says
  const plain = await runCli(['ab', '-m', '10', '-n', '1', url])
  assert.doesNotMatch(plain.stderr, /streams/)
})

test('-v 2 under --http2 shows the header list every stream carries, pseudo-headers first, credentials and the query starred', async () => {
  const { url, tally } = await startH2()
  const r = await runCli(['ab', '--h2', '-v', '2', '-A', 'user:pw', '-H', 'X-Token: abc', '--secret-header', 'X-Token', '-n', '1', `${url}a?token=zz`])
  assert.equal(r.code, 0, r.stderr)
  const shown = r.stdout.split('\n---\n')[1]
  assert.equal(shown, [':method: GET', ':scheme: http', ':path: /a?token=***', `:authority: ${new URL(url).host}`,
    'authorization: Basic ***', 'x-token: ***', 'user-agent: ApacheBench/2.3', 'accept: */*'].join('\n'))
  assert.match(r.stdout, /INFO: GET headers \(HTTP\/2\) == \n/)
  assert.doesNotMatch(r.stdout, /user:pw|dXNlcjpwdw|abc|zz/)
  // and the stream itself carried them unstarred
  assert.equal(/** @type {http2.IncomingHttpHeaders} */ (tally.headers)['x-token'], 'abc')
})

test("a host with several addresses: the sessions move on from a refusing one while none has connected, as ab's connections do", async () => {
  // 127.0.0.2 is loopback too, but the server listens on 127.0.0.1 only: ab's ::1-then-127.0.0.1 case
  const { url, tally } = await startH2()
  const o = normalizeOptions({ url, requests: 20, concurrency: 2, http2: true, streams: 2 })
  const r = await runEngine(o, parseTarget(url), ['127.0.0.2', '127.0.0.1'])
  assert.equal(r.completeRequests, 20)
  assert.equal(r.failedRequests, 0)
  assert.equal(tally.streams, 20)
  assert.ok((r.errors?.ECONNREFUSED ?? 0) >= 1 && (r.errors?.ECONNREFUSED ?? 0) <= 2, JSON.stringify(r.errors))
  // every address refusing: ab's connect failure, the last address named
  const refused = await runEngine(o, parseTarget(url), ['127.0.0.2', '127.0.0.3']).then(() => null, (e) => e)
  assert.equal(refused?.code, 'SB_ERR_CONNECT')
  assert.match(refused.message, /ECONNREFUSED/)
  assert.equal(refused.result.completeRequests, 0)
})

test('--unix over h2c and over TLS (ALPN h2): the socket at the path carries every stream, named native-unix (or node:net-unix) and node:tls-unix', { skip: opensslMissing ?? false }, async () => {
  for (const secure of [false, true]) {
    const tally = newTally()
    const path = join(dir, `h2-${secure ? 'tls' : 'clear'}.sock`)
    const server = secure ? http2.createSecureServer({ key: pem.key, cert: pem.cert }) : http2.createServer()
    server.on('stream', (stream) => {
      tally.streams++
      stream.respond({ ':status': 200 })
      stream.end(BODY)
    })
    server.on('session', () => { tally.sessions++ })
    server.listen(path)
    await once(server, 'listening')
    try {
      // the URL's host is never dialled: a closed port there would refuse a TCP connection
      const r = await abJson(['--http2', '--unix', path, '-c', '2', '--streams', '5', '-n', '100', `${secure ? 'https' : 'http'}://127.0.0.1:${await closedPort()}/`])
      assert.equal(loadResultProblem(r), null)
      assert.equal(r.completeRequests, 100)
      assert.equal(r.protocol, 'h2')
      assert.equal(r.transport, secure ? 'node:tls-unix' : NATIVE ? 'native-unix' : 'node:net-unix')
      assert.equal(tally.streams, 100)
      // -c sessions (the https run's ALPN question, asked first on a connection of its own, opens none)
      assert.equal(tally.sessions, 2)
    } finally {
      server.close()
    }
  }
})

test('merge: two h2 shards add up (connections summed); an h1 result and an h2 one are refused in one line, exit 2', async () => {
  const { url } = await startH2()
  const files = []
  for (const i of [0, 1]) {
    const r = await runCli(['ab', '--json', '--http2', '--segment', `${i}/2`, '-c', '4', '--streams', '2', '-n', '100', url])
    assert.equal(r.code, 0, r.stderr)
    files.push(join(dir, `h2-${i}.json`))
    await writeFile(files[i], r.stdout)
  }
  const merged = await runCli(['merge', '--json', ...files])
  assert.equal(merged.code, 0, merged.stderr)
  const m = JSON.parse(merged.stdout)
  assert.equal(m.protocol, 'h2')
  assert.equal(m.completeRequests, 100)
  assert.equal(m.http2.connections, 4)

  const h1 = http.createServer((req, res) => res.end(BODY))
  h1.listen(0, '127.0.0.1')
  await once(h1, 'listening')
  closers.push(() => h1.close())
  const one = await runCli(['ab', '--json', '--segment', '1/2', '-c', '4', '-n', '100', `http://127.0.0.1:${/** @type {net.AddressInfo} */ (h1.address()).port}/`])
  assert.equal(one.code, 0, one.stderr)
  const h1File = join(dir, 'h1.json')
  // the same URL, so that only the protocol differs
  await writeFile(h1File, JSON.stringify({ ...JSON.parse(one.stdout), options: { ...JSON.parse(one.stdout).options, url } }))
  const refused = await runCli(['merge', files[0], h1File])
  assert.equal(refused.code, 2, refused.stderr)
  assert.equal(refused.stderr.trimEnd().split('\n').length, 1)
  assert.match(refused.stderr, /was sent over http\/1\.0, .* over h2: merge adds results of one protocol/)
})

// Servers that misbehave: each run ends, counted, within its bounds.

test('GOAWAY mid-run: the session is replaced, its lost streams fail, the run completes -n and counts the GOAWAYs', async () => {
  const { url, tally, answer } = await startH2({
    onStream (stream, n, session) {
      answer(stream)
      // every session says goodbye at its 20th stream, leaving the streams after it unprocessed
      if (n === 20) session.goaway(http2.constants.NGHTTP2_NO_ERROR, stream.id)
    }
  })
  const r = await runCli(['ab', '--json', '--http2', '-c', '2', '--streams', '4', '-n', '200', '-s', '10', url], { timeoutMs: 60_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 200)
  assert.ok(result.http2.goaways.NO_ERROR >= 1, JSON.stringify(result.http2))
  assert.ok(result.http2.connections >= 3, JSON.stringify(result.http2))
  // what succeeded is what the server answered, less what it answered past the end of the run
  assert.equal(result.completeRequests - result.failedRequests, result.statusCodes['200'])
  assert.ok(result.statusCodes['200'] <= tally.answered)
  // a stream the GOAWAY left unprocessed fails as such, and nothing else fails
  assert.equal(result.failedRequests, result.errors.GOAWAY ?? 0)
  assert.deepEqual(Object.keys(result.errors).filter((code) => code !== 'GOAWAY'), [])
  assert.deepEqual(result.http2.resets, {})
})

test('RST_STREAM: each stream the server resets is one failed request, counted by its code', async () => {
  let resets = 0
  const { url, answer } = await startH2({
    onStream (stream, n) {
      if (n % 3 === 0) {
        resets++
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM)
      } else {
        answer(stream)
      }
    }
  })
  const r = await runCli(['ab', '--json', '--http2', '-c', '3', '--streams', '5', '-n', '300', url])
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 300)
  // every third stream of each session: about 100, exactly as many as the server reset
  assert.ok(resets >= 97 && resets <= 100, `the server reset ${resets}`)
  assert.equal(result.failedRequests, resets)
  assert.equal(result.failures.exceptions, resets)
  assert.deepEqual(result.http2.resets, { REFUSED_STREAM: resets })
  assert.deepEqual(result.errors, { RST_STREAM_REFUSED_STREAM: resets })
  assert.deepEqual(result.statusCodes, { 200: 300 - resets })
})

test('a server that never sends SETTINGS: -s ends the run (exit 1, one line), no hang', async () => {
  /** @type {net.Socket[]} */
  const sockets = []
  const silent = net.createServer((socket) => { sockets.push(socket); socket.resume() })
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  closers.push(() => { for (const s of sockets) s.destroy(); silent.close() })
  const url = `http://127.0.0.1:${/** @type {net.AddressInfo} */ (silent.address()).port}/`
  const r = await runCli(['ab', '--http2', '-c', '2', '--streams', '2', '-n', '10', '-s', '1', url], { timeoutMs: 30_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 1, r.stderr)
  assert.equal(r.stderr, `syncbench ab: 127.0.0.1:${/** @type {net.AddressInfo} */ (silent.address()).port}: no response within 1 s (-s 1): the timeout specified has expired\n`)
  assert.equal(sockets.length, 2)
})

test('connections closed before SETTINGS are connect failures: the 11th ends the run as ab ends it (exit 1)', async () => {
  let accepted = 0
  const closing = net.createServer((socket) => { accepted++; socket.destroy() })
  closing.listen(0, '127.0.0.1')
  await once(closing, 'listening')
  closers.push(() => closing.close())
  const r = await runCli(['ab', '--http2', '-n', '50', `http://127.0.0.1:${/** @type {net.AddressInfo} */ (closing.address()).port}/`], { timeoutMs: 30_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: test aborted after 10 failures: connections closed before the server's SETTINGS\n$/)
  assert.equal(accepted, 11)
})

test('an HTTP/1 server (node:http) on http://: its answer to the preface is not SETTINGS; the 11th connection ends the run, saying so (exit 1)', async () => {
  let accepted = 0
  const h1 = http.createServer((req, res) => res.end(BODY))
  h1.on('connection', () => { accepted++ })
  h1.listen(0, '127.0.0.1')
  await once(h1, 'listening')
  closers.push(() => h1.close())
  const r = await runCli(['ab', '--http2', '-n', '50', `http://127.0.0.1:${/** @type {net.AddressInfo} */ (h1.address()).port}/`], { timeoutMs: 30_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: test aborted after 10 failures: the server's first bytes were not an HTTP\/2 SETTINGS frame \(an HTTP\/1 server\? http:\/\/ speaks h2c by prior knowledge\)\n$/)
  assert.equal(accepted, 11)
})

test('streams never answered: --response-timeout fails each (RESPONSE_TIMEOUT) and cancels it; -t ends the run at its limit', async () => {
  const { url } = await startH2({ onStream () {} })
  const r = await runCli(['ab', '--json', '--http2', '-c', '1', '--streams', '2', '-n', '4', '--response-timeout', '200ms', url], { timeoutMs: 30_000 })
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 4)
  assert.equal(result.failedRequests, 4)
  assert.deepEqual(result.errors, { RESPONSE_TIMEOUT: 4 })
  const limited = await runCli(['ab', '--json', '--http2', '-c', '1', '--streams', '2', '-n', '4', '-t', '1', url], { timeoutMs: 30_000 })
  assert.equal(limited.signal, null)
  assert.equal(limited.code, 0, limited.stderr)
  assert.equal(JSON.parse(limited.stdout).completeRequests, 0)
})

test("a flow-control window of 1 byte for the request bodies: the run ends within --response-timeout's bound, each request counted", async () => {
  const { url, tally } = await startH2({ settings: { initialWindowSize: 1 } })
  const body = join(dir, 'big.bin')
  await writeFile(body, Buffer.alloc(64 * 1024, 0x61))
  const r = await runCli(['ab', '--json', '--http2', '-c', '1', '--streams', '2', '-n', '4', '-p', body, '--response-timeout', '300ms', '-s', '5', url], { timeoutMs: 60_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 4)
  // a body that got through in time is answered; the others fail as past their deadline, nothing else
  assert.equal((result.statusCodes['200'] ?? 0) + (result.errors.RESPONSE_TIMEOUT ?? 0), 4)
  assert.equal(result.failedRequests, result.errors.RESPONSE_TIMEOUT ?? 0)
  assert.ok(tally.streams >= 2)
})

test('a server that drops its connections mid-run: their streams fail, new connections carry the rest, the run completes -n', async () => {
  const { url, answer } = await startH2({
    onStream (stream, n, session) {
      // each connection's 5th stream ends it, with the streams still open on it
      if (n === 5) session.destroy()
      else answer(stream)
    }
  })
  const r = await runCli(['ab', '--json', '--http2', '-c', '2', '--streams', '2', '-n', '100', '-s', '10', url], { timeoutMs: 60_000 })
  assert.equal(r.signal, null)
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 100)
  assert.ok(result.failedRequests >= 1)
  assert.equal(result.failedRequests, Object.values(result.errors).reduce((a, b) => a + b, 0))
  assert.equal(result.completeRequests - result.failedRequests, result.statusCodes['200'])
  assert.ok(result.http2.connections > 2)
})

test('--http2 --workers 2: each thread its share of the connections, the counts and the connections\' figures merged', async () => {
  const { url, tally } = await startH2({ settings: { maxConcurrentStreams: 4 } })
  const r = await runCli(['ab', '--json', '--http2', '--workers', '2', '-c', '4', '--streams', '5', '-n', '1000', url])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr, /allows 4 concurrent streams per connection .* fewer than --streams 5: 4 used/)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 1000)
  assert.equal(result.failedRequests, 0)
  assert.equal(tally.answered, 1000)
  assert.equal(tally.sessions, 4)
  assert.equal(result.http2.connections, 4)
  assert.equal(result.http2.serverStreamsLimit, 4)
  assert.equal(result.http2.streamsPerConnection.mean, 250)
  assert.equal(result.protocol, 'h2')
})

test("an experiment's load.http2 needs the builtin engine: --engine wrk is refused in one line, exit 2", async () => {
  const file = join(dir, 'h2-experiment.json')
  await writeFile(file, JSON.stringify({ name: 'h2', server: { app: 'lab' }, load: { requests: 5, concurrency: 1, http2: true, streams: 2 }, variants: [{ label: 'a', path: '/wait/async?ms=1' }] }))
  const r = await runCli(['run', '--experiment', file, '--engine', 'wrk', '--out', join(dir, 'never'), '-q', '--no-report', '--no-calibrate'])
  assert.equal(r.code, 2, r.stderr)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, /^syncbench run: --engine must be builtin to send h2\/a's http2 \(the external engines send a GET of the URL only\), got "wrk"\n$/)
})

test('a refused connection ends the run as ab ends it: one line, exit 1', async () => {
  const port = await closedPort()
  const r = await runCli(['ab', '--http2', '-c', '2', '--streams', '2', '-n', '10', `http://127.0.0.1:${port}/`])
  assert.equal(r.code, 1, r.stderr)
  assert.equal(r.stderr, `syncbench ab: 127.0.0.1:${port}: connection refused (ECONNREFUSED)\n`)
})
