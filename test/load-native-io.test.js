// The native TCP transport (native/io.c, lib/load/native-io.js): built at install and used for plain
// TCP; node:net (SYNCBENCH_IO=net) counts the same on the same servers; the paths only it has (a
// request the kernel takes in parts, two runs sharing one thread's transport) work.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadtest } from '../lib/load/loadtest.js'
import { addonStatus } from '../lib/load/native-addon.js'
import {
  abOn, runCli, runCommand, startHttpServer, startChunkedServer, startHttp10CloseServer, startResetServer, closedPort,
  startScriptedServer, startSlowServer
} from './helper.js'

const forcedNet = process.env.SYNCBENCH_IO === 'net'
const closers = /** @type {(() => Promise<void>)[]} */ ([])
after(() => Promise.all(closers.map((close) => close())))

test('the native transport is built at install and used for plain TCP; the LoadResult names it', { skip: forcedNet && 'SYNCBENCH_IO=net' }, async () => {
  assert.equal(addonStatus.state, 'loaded', `the native addon is not loaded: ${addonStatus.reason}`)
  const server = await startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') })
  closers.push(server.close)
  for (const [io, transport] of [['native', 'native'], ['net', 'node:net']]) {
    const r = await runCli(['ab', '--json', '-n', '4', '-c', '2', server.url], { env: { SYNCBENCH_IO: io }, timeoutMs: 30_000 })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(JSON.parse(r.stdout).transport, transport)
  }
  const workers = await runCli(['ab', '--json', '-n', '4', '-c', '2', '--workers', '2', server.url], { timeoutMs: 30_000 })
  assert.equal(JSON.parse(workers.stdout).transport, 'native')
})

/**
 * `syncbench ab --json` with the given transport: what it counted (helper.js's abOn).
 * @param {'native'|'net'} io @param {string[]} args
 */
async function counted (io, args) {
  return (await abOn(io, args)).counts
}

/** @type {{ name: string, start: () => Promise<{ url: string, close: () => Promise<void> }>, args: string[] }[]} */
const servers = [
  { name: 'node:http, fixed length, -k -c 4', start: () => startHttpServer((req, res) => { res.setHeader('Content-Length', 5); res.end('hello') }), args: ['-k', '-c', '4', '-n', '400'] },
  { name: 'node:http, fixed length, no -k, -c 4', start: () => startHttpServer((req, res) => { res.setHeader('Content-Length', 5); res.end('hello') }), args: ['-c', '4', '-n', '200'] },
  { name: 'a 200 KiB body over several reads, -k', start: () => startHttpServer((req, res) => { res.setHeader('Content-Length', 204800); res.end(Buffer.alloc(204800, 97)) }), args: ['-k', '-c', '3', '-n', '30'] },
  { name: 'chunked, --http1.1', start: () => startChunkedServer(), args: ['--http1.1', '-c', '2', '-n', '40'] },
  { name: 'HTTP/1.0 close-delimited', start: () => startHttp10CloseServer(), args: ['-c', '2', '-n', '40'] },
  { name: 'resets every 2nd request, -r', start: () => startResetServer(2), args: ['-r', '-c', '1', '-n', '20'] },
  { name: 'resets every 2nd request, without -r', start: () => startResetServer(2), args: ['-c', '1', '-n', '20'] },
  { name: '404 with a POST body, -k', start: () => startHttpServer((req, res) => { req.resume(); req.on('end', () => { res.statusCode = 404; res.setHeader('Content-Length', 2); res.end('no') }) }), args: ['-k', '-c', '2', '-n', '20', '-p', '__BODY__'] },
  { name: 'keep-alive, closes after 3 responses', start: () => startScriptedServer(() => 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok', { close: (i) => i === 2 }), args: ['-k', '-c', '1', '-n', '12'] }
]

const dir = mkdtempSync(join(tmpdir(), 'syncbench-native-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const bodyFile = join(dir, 'body.txt')
writeFileSync(bodyFile, 'x'.repeat(3000))

for (const s of servers) {
  test(`native and node:net count the same: ${s.name}`, { skip: forcedNet && 'SYNCBENCH_IO=net' }, async () => {
    const server = await s.start()
    closers.push(server.close)
    const args = [...s.args.map((a) => a === '__BODY__' ? bodyFile : a), server.url]
    const native = await counted('native', args)
    const viaNet = await counted('net', args)
    assert.deepEqual(native, viaNet)
    assert.ok('complete' in native ? native.complete > 0 : native.code !== 0)
  })
}

test('native and node:net say the same when nothing listens', { skip: forcedNet && 'SYNCBENCH_IO=net' }, async () => {
  const url = `http://127.0.0.1:${await closedPort()}/`
  const native = await counted('native', ['-n', '3', url])
  assert.deepEqual(native, await counted('net', ['-n', '3', url]))
  assert.equal(native.code, 1)
  assert.match(String(native.stderr), /connection refused \(ECONNREFUSED\)/)
})

test('events are timed when libuv reported them: no response is faster than the server, no time is negative', async () => {
  const server = await startSlowServer(60)
  closers.push(server.close)
  for (const keepAlive of [[], ['-k']]) {
    const r = await runCli(['ab', '--json', '-n', '6', '-c', '2', ...keepAlive, server.url], { timeoutMs: 30_000 })
    assert.equal(r.code, 0, r.stderr)
    const t = JSON.parse(r.stdout).connectionTimes
    // (the server's setTimeout counts from its loop's cached time, which can be a few ms old: 50)
    assert.ok(t.total.min >= 50 && t.waiting.min >= 50, JSON.stringify(t))
    assert.ok(t.total.max < 60_000, JSON.stringify(t))
    for (const row of ['connect', 'processing', 'waiting', 'total']) assert.ok(t[row].min >= 0, `${row}: ${JSON.stringify(t[row])}`)
  }
})

test('--unix: native and node:net count the same, with and without keep-alive, and a socket no one listens on', { skip: forcedNet && 'SYNCBENCH_IO=net' }, async () => {
  const http = await import('node:http')
  const socketPath = join(dir, 'app.sock')
  const server = http.createServer((req, res) => { res.setHeader('Content-Length', 7); res.end('unix ok') }).listen(socketPath)
  await once(server, 'listening')
  try {
    for (const args of [['-k', '-c', '3', '-n', '300'], ['-c', '2', '-n', '100']]) {
      const all = [...args, '--unix', socketPath, 'http://app.local/']
      const native = await counted('native', all)
      assert.deepEqual(native, await counted('net', all))
      assert.equal(native.complete, Number(args.at(-1)))
    }
    for (const [io, transport] of [['native', 'native-unix'], ['net', 'node:net-unix']]) {
      const r = await runCli(['ab', '--json', '-n', '2', '--unix', socketPath, 'http://app.local/'], { env: { SYNCBENCH_IO: io }, timeoutMs: 30_000 })
      assert.equal(JSON.parse(r.stdout).transport, transport)
    }
  } finally {
    await new Promise((resolve) => server.close(() => resolve(undefined)))
  }
  // a socket file left by a server that is gone: connect is refused, the same line either way
  const stale = join(dir, 'stale.sock')
  const child = await runCommand(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`])
  assert.equal(child.signal, 'SIGKILL')
  const refused = await counted('native', ['-n', '2', '--unix', stale, 'http://app.local/'])
  assert.deepEqual(refused, await counted('net', ['-n', '2', '--unix', stale, 'http://app.local/']))
  assert.equal(refused.code, 1)
  assert.match(String(refused.stderr), /connection refused \(ECONNREFUSED\)/)
})

test('a request the kernel takes in parts is written whole, its end stamped when done', async () => {
  // 8 MiB of body to a server that reads it slowly: far more than a socket's send buffer
  const size = 8 * 1024 * 1024
  const server = net.createServer((socket) => {
    let head = ''
    let want = -1
    let got = 0
    socket.on('error', () => {})
    socket.on('data', (d) => {
      if (want === -1) {
        head += d.subarray(0, 4096).toString('latin1')
        const at = head.indexOf('\r\n\r\n')
        if (at !== -1) want = at + 4 + size
      }
      got += d.length
      if (want !== -1 && got >= want) socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
      // read slowly: the client's writes fill the socket's buffers and wait
      socket.pause()
      setTimeout(() => socket.resume(), 1)
    })
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  const big = join(dir, 'big.bin')
  writeFileSync(big, Buffer.alloc(8 * 1024 * 1024, 1))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  const r = await runCli(['ab', '--json', '-n', '2', '-p', big, `http://127.0.0.1:${port}/`], { timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  const j = JSON.parse(r.stdout)
  assert.equal(j.completeRequests, 2)
  assert.equal(j.failedRequests, 0)
  // ab's "Total body sent" is each request whole, its header's few hundred bytes included
  const headerBytes = (j.totalBodySentBytes - 2 * size) / 2
  assert.ok(Number.isInteger(headerBytes) && headerBytes > 50 && headerBytes < 500, String(j.totalBodySentBytes))
})

test('two runs at once in one thread share its transport, each counting its own', async () => {
  const a = await startHttpServer((req, res) => { res.setHeader('Content-Length', 1); res.end('a') })
  const b = await startHttpServer((req, res) => { res.setHeader('Content-Length', 3); res.end('bbb') })
  closers.push(a.close, b.close)
  const [ra, rb] = await Promise.all([
    loadtest({ url: a.url, requests: 300, concurrency: 5, keepAlive: true }),
    loadtest({ url: b.url, requests: 200, concurrency: 7 })
  ])
  assert.deepEqual([ra.completeRequests, ra.failedRequests, ra.htmlTransferredBytes, ra.keepAliveRequests], [300, 0, 300, 300])
  assert.deepEqual([rb.completeRequests, rb.failedRequests, rb.htmlTransferredBytes, rb.keepAliveRequests], [200, 0, 600, 0])
  // and again, on the slots the first two gave back
  const rc = await loadtest({ url: b.url, requests: 50, concurrency: 12, keepAlive: true })
  assert.deepEqual([rc.completeRequests, rc.failedRequests, rc.htmlTransferredBytes], [50, 0, 150])
})

test('the misbehaving-server matrix and the ab parity cases pass on node:net too', { skip: (forcedNet && 'SYNCBENCH_IO=net') || (process.env.SYNCBENCH_SANITIZE === '1' && 'the sanitizer run: node:net never loads the addon'), timeout: 240_000 }, async () => {
  const files = ['load-matrix.test.js', 'load-parity.test.js'].map((f) => fileURLToPath(new URL(f, import.meta.url)))
  const r = await runCommand(process.execPath, ['--test', '--test-reporter=dot', ...files], { env: { SYNCBENCH_IO: 'net' }, timeoutMs: 230_000 })
  assert.equal(r.code, 0, r.stdout.slice(-3000) + r.stderr.slice(-2000))
})

test('a server that answers a big keep-alive POST before reading it: every request completes on both transports, no crash', { skip: forcedNet && 'SYNCBENCH_IO=net' }, async () => {
  // The response arrives while most of the body is still unwritten; the next request is then
  // written behind it on the same socket, so two writes are in flight at once.
  const http = await import('node:http')
  const server = http.createServer((req, res) => { res.writeHead(200, { 'Content-Length': 2 }); res.end('ok'); req.resume() })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const big = join(dir, 'answered-early.bin')
  writeFileSync(big, Buffer.alloc(8 * 1024 * 1024))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  const args = ['-c', '1', '-n', '5', '-p', big, `http://127.0.0.1:${port}/`]
  const native = await counted('native', ['-k', ...args])
  assert.deepEqual(native, await counted('net', ['-k', ...args]))
  assert.deepEqual([native.complete, native.failed, native.keepAlive], [5, 0, 5])
  // without -k the server closes after answering: how many writes then fail (EPIPE) is a race
  for (const io of /** @type {const} */ (['native', 'net'])) {
    const closed = await counted(io, args)
    assert.equal(closed.complete, 5, `${io}: ${JSON.stringify(closed)}`)
  }
})

test('no event is dropped when JavaScript queues more than the event buffer holds during one batch', async () => {
  // Connecting to the broadcast address fails inside connect() itself, so each connect made while a
  // batch is being handled queues its error at once: 5000 of them overflow the 4096-event buffer.
  const script = `
    import { addon } from ${JSON.stringify(new URL('../lib/load/native-addon.js', import.meta.url).href)}
    let got = 0, batches = 0
    const n = 5000
    addon.init((count) => {
      got += count
      if (++batches === 1) for (let s = 1; s <= n; s++) addon.connect(s, target, false)
    })
    const target = addon.target('255.255.255.255', 80, false)
    addon.connect(0, target, false)
    setTimeout(() => { process.stdout.write(JSON.stringify({ got, expected: n + 1 })) }, 300)
  `
  const r = await runCommand(process.execPath, ['--input-type=module', '-e', script], { env: { SYNCBENCH_IO: 'native' }, timeoutMs: 30_000 })
  assert.equal(r.code, 0, r.stderr)
  const { got, expected } = JSON.parse(r.stdout)
  assert.equal(got, expected)
})

test('SYNCBENCH_IO=native insists: exit 1 with the reason when the native transport cannot be used; a bad value is one line', async () => {
  const server = await startHttpServer((req, res) => { res.setHeader('Content-Length', 2); res.end('ok') })
  closers.push(server.close)
  const missing = await runCli(['ab', '-n', '2', server.url], { env: { SYNCBENCH_IO: 'native', SYNCBENCH_ADDON: join(dir, 'no-such.node') }, timeoutMs: 30_000 })
  assert.equal(missing.code, 1)
  assert.equal(missing.stderr, `syncbench ab: SYNCBENCH_IO=native: the native transport is not available (SYNCBENCH_ADDON=${join(dir, 'no-such.node')}: no such file)\n`)
  // without the insistence, a missing addon is quietly node:net
  const quiet = await runCli(['ab', '--json', '-n', '2', server.url], { env: { SYNCBENCH_IO: '', SYNCBENCH_ADDON: join(dir, 'no-such.node') }, timeoutMs: 30_000 })
  assert.equal(quiet.code, 0, quiet.stderr)
  assert.equal(quiet.stderr, '')
  assert.equal(JSON.parse(quiet.stdout).transport, 'node:net')
})
