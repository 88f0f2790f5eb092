// syncbench ab --http2 beside nghttp2's own tools: its counts against h2load's on the same node:http2
// server with the same -n, -c and streams, and a run against nghttpd (nghttp2's server). Each skips,
// saying why, where the tool is not installed (Debian: nghttp2-client, nghttp2-server; .ci/run
// installs both).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { spawn, spawnSync } from 'node:child_process'
import http2 from 'node:http2'
import net from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { abJson, closedPort, runCommand } from './helper.js'

/** @param {string} exe @param {string} pkg */
function missing (exe, pkg) {
  const probe = spawnSync(exe, ['--version'], { encoding: 'utf8' })
  return probe.error ? `${exe} is not installed: ${/** @type {NodeJS.ErrnoException} */ (probe.error).code} (apt-get install ${pkg})` : null
}
const h2loadMissing = missing('h2load', 'nghttp2-client')
const nghttpdMissing = missing('nghttpd', 'nghttp2-server')

/** @type {(() => void)[]} */
const closers = []
after(() => { for (const close of closers) close() })

/**
 * A node:http2 server whose k-th stream (counted from 1 over the whole server) is reset when k is a
 * multiple of 10 (INTERNAL_ERROR), else answered 404 when k is a multiple of 4, else 200: every 20
 * streams the same mix, so a run of a multiple of 20 requests meets 10% resets and 20% 404s whoever
 * sends them. `reset()` restarts the count between runs.
 */
async function startMixedServer () {
  let k = 0
  const server = http2.createServer()
  server.on('stream', (stream) => {
    stream.on('error', () => {})
    k++
    if (k % 10 === 0) return stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR)
    stream.respond({ ':status': k % 4 === 0 ? 404 : 200 })
    stream.end(k % 4 === 0 ? 'not here' : 'hello h2load')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(() => server.close())
  return { url: `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}/`, streams: () => k, reset: () => { k = 0 } }
}

/**
 * h2load's counts from its output: "requests: N total, N started, N done, N succeeded, N failed,
 * N errored, N timeout" and "status codes: N 2xx, N 3xx, N 4xx, N 5xx".
 * @param {string} out
 */
function parseH2load (out) {
  const requests = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out)
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out)
  assert.ok(requests && codes, `h2load's output: ${out}`)
  const [done, succeeded, failed, errored] = [3, 4, 5, 6].map((i) => Number(requests[i]))
  const [ok, redirect, client, server] = [1, 2, 3, 4].map((i) => Number(codes[i]))
  return { done, succeeded, failed, errored, ok, redirect, client, server }
}

test("--http2's counts equal h2load's on the same server, -n 2000 -c 10 and 10 streams: complete, failed (reset), non-2xx", { skip: h2loadMissing ?? false }, async () => {
  const server = await startMixedServer()
  const h2 = await runCommand('h2load', ['-n', '2000', '-c', '10', '-m', '10', server.url], { timeoutMs: 60_000 })
  assert.equal(h2.code, 0, h2.stderr)
  const peer = parseH2load(h2.stdout)
  assert.equal(server.streams(), 2000)
  server.reset()
  // -l: the 404s' bodies are shorter, which ab's Length check would count as failures; h2load has none
  const r = await abJson(['--http2', '-l', '-n', '2000', '-c', '10', '--streams', '10', server.url], { timeoutMs: 60_000 })
  assert.equal(server.streams(), 2000)
  assert.equal(r.completeRequests, peer.done)
  // h2load's "errored" are the streams without a response (reset), syncbench's failed requests
  assert.equal(r.failedRequests, peer.errored)
  assert.equal(r.http2.resets.INTERNAL_ERROR, peer.errored)
  // h2load's "failed" adds the responses of 4xx and 5xx to them
  assert.equal(r.failedRequests + r.non2xxResponses, peer.failed)
  assert.equal(r.non2xxResponses, peer.redirect + peer.client + peer.server)
  assert.equal(r.statusCodes['200'], peer.ok)
  assert.deepEqual([peer.done, peer.errored, peer.client], [2000, 200, 400])
})

test('--http2 against nghttpd (h2c) serving a folder: every request answered, its document and Server counted', { skip: nghttpdMissing ?? false }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'syncbench-nghttpd-'))
  closers.push(() => { rm(dir, { recursive: true, force: true }) })
  const doc = 'hello from nghttpd\n'
  await writeFile(join(dir, 'index.html'), doc)
  // nghttpd prints no port it chose: a free one is taken, released and handed to it
  const port = await closedPort()
  const child = spawn('nghttpd', ['--no-tls', '-a', '127.0.0.1', '-d', dir, String(port)], { stdio: 'ignore' })
  closers.push(() => child.kill())
  await listening(port)
  const url = `http://127.0.0.1:${port}/index.html`
  const r = await abJson(['--http2', '-n', '2000', '-c', '10', '--streams', '10', url], { timeoutMs: 60_000 })
  assert.equal(r.protocol, 'h2')
  assert.equal(r.completeRequests, 2000)
  assert.equal(r.failedRequests, 0)
  assert.deepEqual(r.statusCodes, { 200: 2000 })
  assert.equal(r.server.software, 'nghttpd')
  assert.equal(r.document.length, Buffer.byteLength(doc))
  assert.equal(r.htmlTransferredBytes, 2000 * Buffer.byteLength(doc))
  assert.equal(r.http2.connections, 10)
  assert.equal(r.http2.serverStreamsLimit, 0)
  if (h2loadMissing) return
  // the same bytes as h2load reads from the same server, within the few control frames (SETTINGS
  // acknowledgements, WINDOW_UPDATEs) whose number depends on timing
  const h2 = await runCommand('h2load', ['-n', '2000', '-c', '10', '-m', '10', url], { timeoutMs: 60_000 })
  const traffic = /traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers .*?\((\d+)\) data/.exec(h2.stdout)
  assert.ok(traffic, h2.stdout)
  assert.equal(r.htmlTransferredBytes, Number(traffic[3]))
  assert.ok(Math.abs(r.totalTransferredBytes - Number(traffic[1])) < 0.01 * Number(traffic[1]), `${r.totalTransferredBytes} vs h2load's ${traffic[1]}`)
})

/**
 * Resolve once something accepts connections on 127.0.0.1:port (a child server starting up).
 * @param {number} port
 */
async function listening (port) {
  for (let i = 0; i < 200; i++) {
    const socket = net.connect(port, '127.0.0.1')
    const ok = await new Promise((resolve) => {
      socket.once('connect', () => resolve(true))
      socket.once('error', () => resolve(false))
    })
    socket.destroy()
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`)
}
