// syncbench ab's time bounds against servers that keep a response going: -t ends the run at its
// limit whatever the server does (unlike ab), -s stays ab's inactivity timeout, and
// --response-timeout fails one response that takes too long. The real CLI, raw sockets on 127.0.0.1.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { parseAbArgs } from '../lib/ab/ab-args.js'
import { runCli, startRawServer } from './helper.js'

/** @type {Array<() => Promise<unknown>>} */
const closers = []
after(async () => { for (const close of closers) await close() })

/**
 * A server that writes `first` once the request arrives, then `next` every `everyMs`, forever.
 * @param {string} first @param {string} next @param {number} everyMs
 */
async function startDripServer (first, next, everyMs) {
  const s = await startRawServer((socket) => {
    /** @type {NodeJS.Timeout|null} */
    let timer = null
    socket.once('data', () => {
      socket.write(first)
      timer = setInterval(() => socket.write(next), everyMs)
    })
    socket.on('close', () => { if (timer !== null) clearInterval(timer) })
  })
  closers.push(s.close)
  return s
}

/** @param {string[]} args */
async function timedCli (args) {
  const t0 = Date.now()
  const r = await runCli(['ab', ...args], { timeoutMs: 30_000 })
  return { ...r, seconds: (Date.now() - t0) / 1000 }
}

test('-t ends the run at its limit while a header is dripped one byte a second (ab would keep reading)', async () => {
  const s = await startDripServer('H', 'X', 1000)
  const r = await timedCli(['-t', '2', '-s', '3', '--json', s.url])
  assert.equal(r.signal, null, r.stderr)
  assert.equal(r.code, 0, r.stderr)
  assert.ok(r.seconds < 2 + 3, `ended after ${r.seconds} s`)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 0)
  assert.ok(result.timeTakenSeconds >= 1.9 && result.timeTakenSeconds < 5, String(result.timeTakenSeconds))
})

test('-t ends the run at its limit during an endless chunked body', async () => {
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n'
  for (const mode of [[], ['-k'], ['--http1.1']]) {
    const s = await startDripServer(head, '5\r\nhello\r\n', 50)
    const r = await timedCli(['-t', '2', '-s', '3', ...mode, '--json', s.url])
    assert.equal(r.signal, null, `${mode}: ${r.stderr}`)
    assert.equal(r.code, 0, `${mode}: ${r.stderr}`)
    assert.ok(r.seconds < 2 + 3, `${mode}: ended after ${r.seconds} s`)
    assert.equal(JSON.parse(r.stdout).completeRequests, 0)
  }
})

test('-s keeps ab\'s meaning: a dripped header keeps the run alive past -s', async () => {
  const s = await startDripServer('H', 'X', 500)
  const r = await timedCli(['-t', '3', '-s', '1', '--json', s.url])
  assert.equal(r.code, 0, r.stderr)
  assert.ok(r.seconds >= 2.5, `ended after ${r.seconds} s: -s tripped while bytes kept coming`)
})

test('--response-timeout fails a response that takes longer in total, counted under Exceptions, and the run goes on', async () => {
  const s = await startDripServer('HTTP/1.0 200 OK\r\n', 'X-Drip: 1\r\n', 200)
  const r = await timedCli(['-n', '3', '-s', '30', '--response-timeout', '1', '--json', s.url])
  assert.equal(r.signal, null, r.stderr)
  assert.equal(r.code, 0, r.stderr)
  assert.ok(r.seconds < 3 + 5, `ended after ${r.seconds} s`)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 3)
  assert.equal(result.failedRequests, 3)
  assert.equal(result.failures.exceptions, 3)
  assert.equal(result.errors.RESPONSE_TIMEOUT, 3)
  assert.equal(result.options.responseTimeout, 1)
})

test('--response-timeout leaves fast responses alone', async () => {
  const s = await startRawServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'))
  })
  closers.push(s.close)
  const r = await timedCli(['-n', '5', '--response-timeout=2', '--json', s.url])
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.completeRequests, 5)
  assert.equal(result.failedRequests, 0)
})

test('--response-timeout: its bounds, one line naming the option and the value', async () => {
  assert.equal(parseAbArgs(['--response-timeout', '2.5', 'http://127.0.0.1:1/']).options.responseTimeout, 2.5)
  assert.equal(parseAbArgs(['http://127.0.0.1:1/']).options.responseTimeout, 0)
  for (const bad of ['abc', '-1', '86401']) {
    const r = await runCli(['ab', '--response-timeout', bad, 'http://127.0.0.1:1/'])
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, new RegExp(`--response-timeout .*"${bad}"`))
    assert.doesNotMatch(r.stderr, /\n\s+at /)
  }
  const missing = await runCli(['ab', 'http://127.0.0.1:1/', '--response-timeout'])
  assert.match(missing.stderr, /--response-timeout needs a value/)
})
