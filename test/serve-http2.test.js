// syncbench serve --http2 through the real CLI: every app (the seed's Express app, the three
// seed-readfile servers, the lab on Express and on node:http) answered by node:http2's client in
// cleartext (h2c) and over TLS (ALPN h2, HTTP/1.1 as fallback), syncbench's own /__syncbench/* routes
// over HTTP/2, --cert/--key served as given, syncbench ab --http2 against it, a stop with a session
// still open, and the refused combinations of options.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, abJson, serveInTerminal, tempCacheDir } from './helper.js'
import { selfSignedCertificate } from '../lib/lab/self-signed.js'
import { http2Listener, isExpressApp } from '../lib/lab/express-http2.js'

let cacheDir = ''
tempCacheDir('syncbench-serve-h2-', (dir) => { cacheDir = dir })

/** @type {(() => Promise<void>)[]} */
const stops = []
after(async () => { for (const stop of stops) await stop() })

/**
 * `syncbench serve ...args --port 0`, stopped after the tests.
 * @param {string[]} args
 * @param {number} [listening]
 */
async function serve (args, listening = 1) {
  const served = await serveInTerminal([...args, '--port', '0'], listening)
  stops.push(served.stop)
  return served
}

/**
 * GET `paths` one after the other on one HTTP/2 session to `url`.
 * @param {string} url
 * @param {string[]} paths
 * @returns {Promise<{ results: { status: number, type: string, body: string }[], alpn: string|false|undefined, peer: import('node:tls').PeerCertificate|null }>}
 */
async function h2Get (url, paths) {
  const session = http2.connect(url, { rejectUnauthorized: false })
  await once(session, 'connect')
  const results = []
  for (const path of paths) {
    const stream = session.request({ ':path': path })
    const [headers] = await once(stream, 'response')
    let body = ''
    stream.setEncoding('utf8').on('data', (d) => { body += d })
    await once(stream, 'end')
    results.push({ status: Number(headers[':status']), type: String(headers['content-type']), body })
  }
  const socket = /** @type {import('node:tls').TLSSocket} */ (/** @type {unknown} */ (session.socket))
  const peer = url.startsWith('https') ? socket.getPeerCertificate() : null
  const alpn = session.alpnProtocol
  session.close()
  return { results, alpn, peer }
}

test('serve seed-bcrypt --http2: the seed\'s Express routes, its 404 and /__syncbench/* answer over h2c', async () => {
  const served = await serve(['seed-bcrypt', '--http2'])
  assert.match(served.urls[0], /^http:\/\/127\.0\.0\.1:\d+$/)
  assert.match(served.stdout(), /^HTTP\/2 in cleartext \(h2c\) by prior knowledge/m)
  const { results, alpn } = await h2Get(served.urls[0], ['/sync', '/async', '/nope', '/__syncbench/health', '/__syncbench/env', '/__syncbench/metrics'])
  assert.equal(alpn, 'h2c')
  const [sync, async, missing, health, env, metrics] = results
  for (const r of [sync, async]) {
    assert.equal(r.status, 200)
    // what the article's res.send(hashed) sends: the hash, as text/html
    assert.match(r.body, /^\$2b\$10\$.{53}$/)
    assert.match(r.type, /^text\/html/)
  }
  // Express's own 404 (finalhandler), not a crash of its prototypes
  assert.equal(missing.status, 404)
  assert.match(missing.body, /Cannot GET \/nope/)
  assert.deepEqual([health.status, health.body], [200, 'ok\n'])
  assert.equal(JSON.parse(env.body).node, process.versions.node.replace(/^v/, ''))
  // the app's three requests counted, syncbench's own not
  assert.equal(JSON.parse(metrics.body).requests, 3)
})

test('serve seed-bcrypt --http2 refuses an HTTP/1.1 client: h2c is by prior knowledge', async () => {
  const served = await serve(['seed-bcrypt', '--http2'])
  const failed = await new Promise((resolve) => {
    http.get(`${served.urls[0]}/sync`, (res) => { res.resume(); resolve(false) }).on('error', () => resolve(true))
  })
  assert.equal(failed, true)
})

for (const framework of ['express', 'http']) {
  test(`serve lab --framework ${framework} --http2: the listing, a route, a JSON 404 over h2c`, async () => {
    const served = await serve(['lab', '--http2', '--framework', framework])
    const { results } = await h2Get(served.urls[0], ['/', '/wait/async?ms=1', '/wait/sync?ms=1', '/nope/route'])
    const [listing, waited, blocked, missing] = results
    assert.equal(JSON.parse(listing.body).framework, framework)
    assert.deepEqual([waited.status, waited.body], [200, 'waited 1 ms'])
    assert.deepEqual([blocked.status, blocked.body], [200, 'waited 1 ms'])
    assert.equal(missing.status, 404)
    assert.equal(JSON.parse(missing.body).error.code, 'SB_ERR_NOT_FOUND')
  })
}

test('serve seed-readfile --http2: each of the three server children answers the article\'s body over h2c', async () => {
  const served = await serve(['seed-readfile', '--http2', '--file-size', '1k'], 3)
  assert.equal(served.urls.length, 3)
  for (const url of served.urls) {
    const { results } = await h2Get(url, ['/', '/__syncbench/health'])
    assert.deepEqual(results.map((r) => [r.status, r.body]), [[200, 'Coucou gamin'], [200, 'ok\n']])
  }
})

test('serve seed-bcrypt --http2 --tls: h2 by ALPN with a self-signed certificate naming 127.0.0.1, HTTP/1.1 as fallback', async () => {
  const served = await serve(['seed-bcrypt', '--http2', '--tls'])
  assert.match(served.urls[0], /^https:\/\/127\.0\.0\.1:\d+$/)
  assert.match(served.stdout(), /^HTTP\/2 over TLS \(ALPN h2, HTTP\/1\.1 as fallback\) with a self-signed certificate made at start$/m)
  const { results, alpn, peer } = await h2Get(served.urls[0], ['/sync', '/__syncbench/health'])
  assert.equal(alpn, 'h2')
  assert.equal(results[0].status, 200)
  assert.match(results[0].body, /^\$2b\$10\$/)
  assert.deepEqual([results[1].status, results[1].body], [200, 'ok\n'])
  assert.match(String(peer?.subjectaltname), /IP Address:127\.0\.0\.1/)
  // a client offering no h2 gets HTTP/1.1 from the same port, the same Express app
  const h1 = await new Promise((resolve, reject) => {
    https.get(`${served.urls[0]}/sync`, { rejectUnauthorized: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d }).on('end', () => resolve({ version: res.httpVersion, status: res.statusCode, body }))
    }).on('error', reject)
  })
  assert.equal(h1.version, '1.1')
  assert.equal(h1.status, 200)
  assert.match(h1.body, /^\$2b\$10\$/)
})

test('serve lab --http2 --tls --cert --key serves that certificate', async () => {
  const pair = selfSignedCertificate(['cert-file.test'])
  await writeFile(join(cacheDir, 'cert.pem'), pair.cert)
  await writeFile(join(cacheDir, 'key.pem'), pair.key)
  // --h2: ab's and run's alias
  const served = await serve(['lab', '--h2', '--tls', '--cert', join(cacheDir, 'cert.pem'), '--key', join(cacheDir, 'key.pem')])
  assert.match(served.stdout(), /with the certificate of .*cert\.pem$/m)
  const { results, peer } = await h2Get(served.urls[0], ['/__syncbench/health'])
  assert.equal(results[0].body, 'ok\n')
  assert.equal(peer?.fingerprint256, new crypto.X509Certificate(pair.cert).fingerprint256)
})

test('syncbench ab --http2 -n 20 --streams 4 against serve lab --http2: every request complete over h2', async () => {
  const served = await serve(['lab', '--http2', '--framework', 'http'])
  const result = await abJson(['--http2', '--streams', '4', '-n', '20', '-c', '1', `${served.urls[0]}/wait/async?ms=1`])
  assert.equal(result.protocol, 'h2')
  assert.equal(result.completeRequests, 20)
  assert.equal(result.failedRequests, 0)
})

test('serve --http2 stops at SIGTERM with a client session still open (exit 0, servers closed)', async () => {
  const served = await serveInTerminal(['seed-bcrypt', '--http2', '--port', '0'])
  const session = http2.connect(served.urls[0])
  session.on('error', () => {})
  await once(session, 'connect')
  served.child.kill('SIGTERM')
  const [code] = await served.closed
  session.destroy()
  assert.equal(code, 0)
  assert.match(served.stderr(), /servers closed/)
})

const refused = [
  [['serve', 'lab', '--tls'], /^syncbench serve: --tls applies with --http2 /],
  [['serve', 'lab', '--http2', '--cert', 'c.pem', '--key', 'k.pem'], /^syncbench serve: --cert applies with --tls, got "c\.pem"/],
  [['serve', 'lab', '--http2', '--tls', '--cert', 'c.pem'], /^syncbench serve: --cert needs --key too, got "c\.pem"/],
  [['serve', 'lab', '--http2', '--tls', '--key', 'k.pem'], /^syncbench serve: --key needs --cert too, got "k\.pem"/],
  [['serve', 'lab', '--http2', '--tls', '--cert', '', '--key', 'k.pem'], /^syncbench serve: --cert must be a PEM file, got ""/],
  [['serve', 'seed-bcrypt', '--http2', '--tls', '--cert', '/nonexistent/c.pem', '--key', '/nonexistent/k.pem', '--port', '0'], /^syncbench serve: --cert \/nonexistent\/c\.pem: cannot be read \(ENOENT\)/]
]
for (const [args, message] of refused) {
  test(`syncbench ${args.join(' ')}: one line, exit 2`, async () => {
    const { code, stdout, stderr } = await runCli(args)
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '')
    assert.match(stderr, message)
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
  })
}

test('serve --http2 --tls --cert --key refuses files that are not a certificate and its key, in one line, exit 2', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'syncbench-badpem-'))
  try {
    const other = selfSignedCertificate()
    await writeFile(join(dir, 'cert.pem'), selfSignedCertificate().cert)
    // a key that is not the certificate's
    await writeFile(join(dir, 'key.pem'), other.key)
    const { code, stdout, stderr } = await runCli(['serve', 'seed-bcrypt', '--http2', '--tls', '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem'), '--port', '0'])
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '')
    assert.match(stderr, /^syncbench serve: --cert \S+cert\.pem --key \S+key\.pem: not a PEM certificate and its key/)
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('selfSignedCertificate: a valid self-signed P-256 certificate naming localhost, 127.0.0.1, ::1 and the hosts given', () => {
  const { key, cert } = selfSignedCertificate(['::ffff:10.0.0.1', 'box.example'])
  const x509 = new crypto.X509Certificate(cert)
  assert.equal(x509.subject, 'CN=syncbench')
  assert.equal(x509.verify(x509.publicKey), true)
  assert.equal(x509.checkPrivateKey(crypto.createPrivateKey(key)), true)
  assert.equal(x509.checkIP('127.0.0.1'), '127.0.0.1')
  assert.equal(x509.checkIP('::1'), '::1')
  assert.equal(x509.checkIP('::ffff:10.0.0.1'), '::ffff:10.0.0.1')
  assert.equal(x509.checkIP('10.0.0.2'), undefined)
  assert.equal(x509.checkHost('localhost'), 'localhost')
  assert.equal(x509.checkHost('box.example'), 'box.example')
  assert.ok(new Date(x509.validFrom) <= new Date() && new Date() < new Date(x509.validTo))
})

test('http2Listener leaves a node:http handler as it is and recognises an Express app by shape', async () => {
  const { default: express } = await import('express')
  /** @type {import('node:http').RequestListener} */
  const plain = (req, res) => res.end('plain')
  assert.equal(http2Listener(plain), plain)
  assert.equal(isExpressApp(plain), false)
  const app = express()
  assert.equal(isExpressApp(app), true)
  assert.notEqual(http2Listener(app), app)
})
