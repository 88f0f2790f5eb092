// https:// targets (TLS on the same engine, ab's -Z / -f, ab's TLS report lines, the handshake in the
// Connect time) and --unix sockets, against real servers: a node:https server with a self-signed
// certificate made here by the openssl CLI (skipped with a visible message where openssl is missing),
// the real ab on the same server, and node:http / node:https servers listening on a unix socket.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import https from 'node:https'
import http from 'node:http'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadtest } from '../lib/load/loadtest.js'
import { loadResultProblem } from '../lib/run/results-schema.js'
import { runCli, runCommand } from './helper.js'

const opensslMissing = spawnSync('openssl', ['version']).error ? 'openssl is not installed (apt-get install openssl): no certificate to serve' : null
const abMissing = (() => {
  const probe = spawnSync('ab', ['-V'], { encoding: 'utf8' })
  if (probe.error) return `ab is not installed: ${probe.error.code} (apt-get install apache2-utils)`
  return /ApacheBench, Version 2\.3/.test(probe.stdout) ? null : `ab is not ApacheBench 2.3: ${probe.stdout.split('\n')[0]}`
})()

const BODY = 'hello over tls\n'
let dir = ''
/** @type {{ key: Buffer, cert: Buffer }} */
let pem = { key: Buffer.alloc(0), cert: Buffer.alloc(0) }
/** @type {(() => Promise<void>)[]} */
const closers = []

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncbench-tls-'))
  if (opensslMissing) return
  // a 2048-bit RSA key and a self-signed certificate for localhost and 127.0.0.1, made for this run
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' })
  assert.equal(made.status, 0, made.stderr)
  pem = { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) }
})
after(async () => {
  await Promise.all(closers.map((close) => close()))
  await rm(dir, { recursive: true, force: true })
})

/**
 * A fixed-length answer that says what it was asked (so keep-alive works under HTTP/1.0 as with ab).
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res
 */
function answer (req, res) {
  res.writeHead(200, { 'Content-Length': Buffer.byteLength(BODY), 'Content-Type': 'text/plain' })
  res.end(BODY)
}

/**
 * A node:https server on 127.0.0.1:0 (or a unix socket), closed after the tests.
 * @param {https.ServerOptions} [options]
 * @param {string} [socketPath]
 */
async function startHttpsServer (options = {}, socketPath) {
  /** @type {string[]} */
  const seen = []
  const server = https.createServer({ ...pem, ...options }, (req, res) => { seen.push(`${req.headers.host} ${req.url}`); answer(req, res) })
  if (socketPath) server.listen(socketPath)
  else server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) })
  closers.push(close)
  return { server, port, seen, close }
}

/** "Label:   value" lines of an ab-format report. @param {string} text */
function values (text) {
  /** @type {Record<string, string>} */
  const v = {}
  for (const line of text.split('\n')) {
    const m = /^([A-Z][\w /-]*[\w)]):(?: +(.*))?$/.exec(line)
    if (m && !(m[1] in v)) v[m[1]] = m[2] ?? ''
  }
  return v
}

const SAME = ['Server Hostname', 'Server Port', 'SSL/TLS Protocol', 'Server Temp Key', 'TLS Server Name', 'Document Path', 'Document Length',
  'Complete requests', 'Failed requests', 'Keep-Alive requests', 'Total transferred', 'HTML transferred']

test('https: the same counts, byte totals and TLS lines as the real ab, with and without keep-alive', { skip: opensslMissing ?? abMissing ?? false }, async (t) => {
  const s = await startHttpsServer()
  const url = `https://localhost:${s.port}/tls?x=1`
  for (const flags of [['-n', '40', '-c', '4'], ['-k', '-n', '40', '-c', '4'], ['-k', '-n', '20', '-c', '2', '-f', 'TLS1.2', '-Z', 'ECDHE-RSA-AES128-GCM-SHA256']]) {
    const ab = await runCommand('ab', [...flags, url], { timeoutMs: 30_000 })
    assert.equal(ab.code, 0, ab.stderr)
    const sb = await runCli(['ab', ...flags, url], { timeoutMs: 30_000 })
    assert.equal(sb.code, 0, sb.stderr)
    const a = values(ab.stdout)
    const b = values(sb.stdout)
    // the lines ab prints for an https run, in its order, right under Server Port
    // a key-encapsulation group (X25519MLKEM768: Node 24's OpenSSL 3.5 offers it) has a name and no size
    assert.match(sb.stdout, /^Server Port: +\d+\nSSL\/TLS Protocol: +TLSv1\.[23],[\w-]+,2048,(128|256)\n(Server Temp Key: +(.+ bits|[\w-]+)\n)?TLS Server Name: +localhost\n\nDocument Path:/m)
    // ab's key exchange is its OpenSSL's: where Node's offers a group ab's does not (a post-quantum hybrid),
    // the two negotiate different groups with the same server, and the line can only name each one's (or,
    // where Node cannot describe its group, Node 22, be left out, as ab leaves it out when OpenSSL has no key)
    const same = b['Server Temp Key']?.endsWith(' bits') ? SAME : SAME.filter((l) => l !== 'Server Temp Key')
    for (const label of same) assert.equal(b[label], a[label], `${flags.join(' ')}: ${label}: ab says "${a[label]}", syncbench says "${b[label]}"`)
    t.diagnostic(`${flags.join(' ')}: ${SAME.filter((l) => l in a).map((l) => `${l}: ${a[l]}`).join('; ')}`)
  }
})

test('https: the TLS handshake is part of the Connect time, as ab counts it', { skip: opensslMissing ?? false }, async () => {
  // the server holds every handshake 150 ms (its SNI callback answers late): only the connect can take it
  const s = await startHttpsServer({ SNICallback: (name, cb) => { setTimeout(() => cb(null, null), 150) } })
  const r = await loadtest({ url: `https://localhost:${s.port}/`, requests: 4, concurrency: 2 })
  assert.equal(r.completeRequests, 4)
  assert.ok(r.connectionTimes.connect.min >= 140, `connect min ${r.connectionTimes.connect.min} ms holds the 150 ms handshake`)
  assert.ok(r.connectionTimes.waiting.max < 140, `waiting max ${r.connectionTimes.waiting.max} ms does not`)
  // keep-alive: only each connection's first request pays it; the others have ab's zero connect time
  const k = await loadtest({ url: `https://localhost:${s.port}/`, requests: 6, concurrency: 2, keepAlive: true })
  assert.equal(k.keepAliveRequests, 6)
  assert.equal(k.connectionTimes.connect.min, 0)
  assert.ok(k.connectionTimes.connect.max >= 140)
})

test('loadtest({ url: "https://..." }): LoadResult.tls, --http1.1 and the open loop over TLS, certificate not verified', { skip: opensslMissing ?? false }, async () => {
  const s = await startHttpsServer()
  const r = await loadtest({ url: `https://127.0.0.1:${s.port}/a`, requests: 10, concurrency: 2, keepAlive: true, http11: true })
  assert.equal(r.completeRequests, 10)
  assert.equal(r.failedRequests, 0)
  assert.equal(r.keepAliveRequests, 10)
  assert.equal(r.htmlTransferredBytes, 10 * Buffer.byteLength(BODY))
  // self-signed, and not verified (as ab); no SNI for an IP address (as ab)
  assert.equal(r.tls?.protocol, 'TLSv1.3')
  assert.equal(r.tls?.certificateBits, 2048)
  assert.equal(r.tls?.serverName, null)
  assert.match(r.tls?.cipher ?? '', /^TLS_/)
  assert.equal(r.transport, 'node:tls')
  assert.equal(loadResultProblem(JSON.parse(JSON.stringify(r))), null, 'the LoadResult with tls matches its schema')
  // open loop: 20 requests at 200/s, bounded to 0.1 s of schedule
  const o = await loadtest({ url: `https://localhost:${s.port}/b`, requests: 20, concurrency: 2, rate: 200, keepAlive: true })
  assert.equal(o.completeRequests, 20)
  assert.equal(o.openLoop?.targetRate, 200)
  assert.equal(o.tls?.serverName, 'localhost')
  // worker threads: each makes its own handshakes; the result keeps the TLS as one thread's would
  const w = await loadtest({ url: `https://localhost:${s.port}/w`, requests: 20, concurrency: 2, keepAlive: true, workers: 2 })
  assert.equal(w.completeRequests, 20)
  assert.equal(w.tls?.protocol, 'TLSv1.3')
  assert.equal(w.tls?.serverName, 'localhost')
  assert.equal(w.transport, 'node:tls')
  // the Host header as ab writes it (port unless 443), and -H Host sets the SNI as in ab
  const h = await loadtest({ url: `https://127.0.0.1:${s.port}/c`, requests: 1, headers: ['Host: example.test:9'] })
  assert.equal(h.tls?.serverName, 'example.test')
  assert.deepEqual(s.seen.slice(-1), ['example.test:9 /c'])
  assert.ok(s.seen.includes(`127.0.0.1:${s.port} /a`))
})

test('-f and -Z: ab\'s protocol names and cipher lists, refused in one line when unusable', { skip: opensslMissing ?? false }, async () => {
  const s = await startHttpsServer()
  const url = `https://127.0.0.1:${s.port}/`
  const tls12 = await runCli(['ab', '-n', '2', '-f', 'tls1.2', '-Z', 'ECDHE-RSA-AES128-GCM-SHA256', url])
  assert.equal(tls12.code, 0, tls12.stderr)
  assert.match(tls12.stdout, /^SSL\/TLS Protocol: +TLSv1\.2,ECDHE-RSA-AES128-GCM-SHA256,2048,128$/m)
  const tls13 = await runCli(['ab', '-n', '2', '-f', 'TLS1.3', '-Z', 'TLS_AES_128_GCM_SHA256', url])
  assert.equal(tls13.code, 0, tls13.stderr)
  assert.match(tls13.stdout, /^SSL\/TLS Protocol: +TLSv1\.3,TLS_AES_128_GCM_SHA256,2048,128$/m)
  // -Z for TLS 1.2 leaves TLS 1.3's suites as they are (ab's SSL_CTX_set_cipher_list): 1.3 is still chosen
  const all = await runCli(['ab', '-n', '1', '-Z', 'ECDHE-RSA-AES128-GCM-SHA256', url])
  assert.match(all.stdout, /^SSL\/TLS Protocol: +TLSv1\.3,/m)

  const refused = [
    [['-f', 'SSL3', url], 2, /^syncbench ab: -f must be one of ALL, TLS1, TLS1\.1, TLS1\.2, TLS1\.3 \(SSL2 and SSL3 are not supported: Node's OpenSSL has neither\), got "SSL3"\n$/],
    [['-f', 'TLS9', url], 2, /^syncbench ab: -f must be one of .*, got "TLS9"\n$/],
    [['-Z', 'NO-SUCH-CIPHER', url], 2, /^syncbench ab: -Z \(ciphers\) must be an OpenSSL cipher list this Node\.js knows \(no cipher match; see openssl ciphers\), got "NO-SUCH-CIPHER"\n$/],
    [['-f', 'TLS1.3', '-Z', 'ECDHE-RSA-AES128-GCM-SHA256', url], 2, /^syncbench ab: -Z \(ciphers\) with -f \(tlsProtocol\) TLS1\.3 must list TLS 1\.3 suites/],
    [['-f', 'TLS1.2', `http://127.0.0.1:${s.port}/`], 2, /^syncbench ab: -f applies to https:\/\/ URLs only, got "TLS1\.2"\n$/],
    [['-Z', 'AES128-SHA', `http://127.0.0.1:${s.port}/`], 2, /^syncbench ab: -Z applies to https:\/\/ URLs only, got "AES128-SHA"\n$/],
    // the server speaks TLS 1.2 and 1.3 only (Node's default minimum): ab's run would end the same way
    [['-f', 'TLS1.1', url], 1, /^syncbench ab: 127\.0\.0\.1:\d+: TLS handshake failed: .+ \(ERR_SSL_[A-Z0-9_]+\)\n$/]
  ]
  for (const [argv, code, line] of refused) {
    const r = await runCli(['ab', '-n', '1', ...(argv)])
    assert.equal(r.code, code, `${argv.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /** @type {RegExp} */ (line))
    assert.equal(r.stdout, '', 'nothing half-written')
  }
  // -r: each failed handshake is a failed request (Exceptions) and the run goes on
  const going = await runCli(['ab', '-r', '-n', '5', '-c', '2', '-f', 'TLS1.1', '--json', url])
  assert.equal(going.code, 0, going.stderr)
  const g = JSON.parse(going.stdout)
  assert.equal(g.completeRequests, 5)
  assert.equal(g.failedRequests, 5)
  assert.deepEqual(g.failures, { connect: 0, receive: 0, length: 0, exceptions: 5 })
  assert.deepEqual(Object.values(g.errors), [5])
  assert.match(Object.keys(g.errors)[0], /^ERR_SSL_/)
  // a plain http server behind an https:// URL: the handshake fails, one line, exit 1
  const plain = http.createServer(answer).listen(0, '127.0.0.1')
  await once(plain, 'listening')
  closers.push(() => new Promise((resolve) => { plain.closeAllConnections(); plain.close(() => resolve(undefined)) }))
  const port = /** @type {import('node:net').AddressInfo} */ (plain.address()).port
  const wrong = await runCli(['ab', '-n', '1', `https://127.0.0.1:${port}/`])
  assert.equal(wrong.code, 1)
  assert.match(wrong.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: TLS handshake failed: .+\n$/)
})

/**
 * A node:http server on a unix socket in the test's folder, recording the Host header and path it got.
 * @param {string} name
 */
async function startUnixServer (name) {
  const socketPath = join(dir, name)
  /** @type {string[]} */
  const seen = []
  const server = http.createServer((req, res) => { seen.push(`${req.headers.host} ${req.url}`); answer(req, res) })
  server.listen(socketPath)
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  return { socketPath, seen }
}

test('--unix: loads a server on a unix socket, with and without keep-alive; the URL gives Host and path', async () => {
  const u = await startUnixServer('http.sock')
  const plain = await runCli(['ab', '-n', '30', '-c', '3', '--unix', u.socketPath, 'http://app.local/u?q=1'])
  assert.equal(plain.code, 0, plain.stderr)
  const p = values(plain.stdout)
  assert.equal(p['Complete requests'], '30')
  assert.equal(p['Failed requests'], '0')
  assert.equal(p['HTML transferred'], `${30 * Buffer.byteLength(BODY)} bytes`)
  assert.equal(p['Server Hostname'], 'app.local')
  assert.equal(u.seen.length, 30)
  assert.ok(u.seen.every((line) => line === 'app.local /u?q=1'), u.seen[0])

  const ka = await runCli(['ab', '-k', '-n', '30', '-c', '3', '--unix=' + u.socketPath, '--json', 'http://app.local:8080/k'])
  assert.equal(ka.code, 0, ka.stderr)
  const r = JSON.parse(ka.stdout)
  assert.equal(r.completeRequests, 30)
  assert.equal(r.keepAliveRequests, 30)
  assert.equal(r.htmlTransferredBytes, 30 * Buffer.byteLength(BODY))
  assert.equal(r.failedRequests, 0)
  assert.equal(r.options.socketPath, u.socketPath)
  assert.equal(loadResultProblem(r), null)
  assert.equal(u.seen.at(-1), 'app.local:8080 /k')
})

test('--unix with https://: TLS over a unix socket', { skip: opensslMissing ?? false }, async () => {
  const socketPath = join(dir, 'https.sock')
  const s = await startHttpsServer({}, socketPath)
  const r = await loadtest({ url: 'https://localhost/s', socketPath, requests: 6, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 6)
  assert.equal(r.keepAliveRequests, 6)
  assert.equal(r.tls?.serverName, 'localhost')
  assert.deepEqual(s.seen, Array(6).fill('localhost /s'))
})

test('--unix errors: no socket there is exit 1 like a refused connection; a file that is not a socket is exit 2', async () => {
  const missing = join(dir, 'nope.sock')
  const gone = await runCli(['ab', '-n', '1', '--unix', missing, 'http://x/'])
  assert.equal(gone.code, 1)
  assert.equal(gone.stderr, `syncbench ab: unix:${missing}: no such socket (ENOENT)\n`)
  assert.equal(gone.stdout, '')
  const file = join(dir, 'plain.txt')
  await writeFile(file, 'not a socket')
  const notSocket = await runCli(['ab', '-n', '1', '--unix', file, 'http://x/'])
  assert.equal(notSocket.code, 2)
  assert.equal(notSocket.stderr, `syncbench ab: --unix must be the path of a unix socket, got "${file}" (a regular file)\n`)
  const noValue = await runCli(['ab', '--unix'])
  assert.equal(noValue.code, 2)
  assert.equal(noValue.stderr, 'syncbench ab: --unix needs a value\n')
  // a socket file its server left behind (killed: no close() to remove it): refused, exit 1, one line
  const stale = join(dir, 'stale.sock')
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] })
  await once(child.stdout, 'data')
  child.kill('SIGKILL')
  await once(child, 'exit')
  const refused = await runCli(['ab', '-n', '1', '--unix', stale, 'http://x/'])
  assert.equal(refused.code, 1)
  assert.equal(refused.stderr, `syncbench ab: unix:${stale}: connection refused (ECONNREFUSED)\n`)
  assert.equal(refused.stdout, '')
  // the API names the option as a program sets it
  await assert.rejects(loadtest({ url: 'http://x/', socketPath: file }), { code: 'SB_ERR_INVALID_OPTION', message: /^--unix \(socketPath\) must be the path of a unix socket/ })
  await assert.rejects(loadtest({ url: 'http://x/', socketPath: '' }), { code: 'SB_ERR_INVALID_OPTION', message: /^--unix \(socketPath\) must be the path of a unix socket, got ""$/ })
})

test('syncbench run --target https://: the runs load the https server; results.json keeps each run\'s TLS', { skip: opensslMissing ?? false, timeout: 120_000 }, async () => {
  const s = await startHttpsServer()
  const out = join(dir, 'run-out')
  const r = await runCli(['run', 'seed-bcrypt', '--target', `https://127.0.0.1:${s.port}/`, '-n', '6', '-c', '2', '--runs', '1', '--no-report', '--out', out], { timeoutMs: 110_000 })
  assert.equal(r.code, 0, r.stderr)
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs.length, 2)
  for (const run of results.runs) {
    assert.equal(run.load.completeRequests, 6)
    assert.equal(run.load.tls.protocol, 'TLSv1.3')
  }
  // the seed's two paths, over TLS (warm-up requests included)
  assert.ok(s.seen.some((line) => line.endsWith(' /sync')) && s.seen.some((line) => line.endsWith(' /async')), s.seen.join(', '))
})

test("ab's Server Temp Key line for every shape Node gives: a key-encapsulation group has a name and no size, never 'undefined bits'", async () => {
  const { tempKeyText } = await import('../lib/load/tls.js')
  // as Node 20 (OpenSSL 3.0), Node 24 and 26 (OpenSSL 3.5, the hybrid post-quantum group), Node 22 (OpenSSL 3.5: nothing)
  assert.equal(tempKeyText({ type: 'ECDH', name: 'X25519', size: 253 }), 'X25519 253 bits')
  assert.equal(tempKeyText({ type: 'ECDH', name: 'prime256v1', size: 256 }), 'ECDH prime256v1 256 bits')
  assert.equal(tempKeyText({ type: 'DH', size: 2048 }), 'DH 2048 bits')
  assert.equal(tempKeyText(/** @type {any} */ ({ type: 'TLSGroup', name: 'X25519MLKEM768' })), 'X25519MLKEM768')
  assert.equal(tempKeyText({}), '')
  assert.equal(tempKeyText(null), '')
})
