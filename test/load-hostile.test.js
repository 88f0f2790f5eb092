// Every path a misbehaving server can drive the load engine's transports down, through the real CLI
// (syncbench ab --json) on both transports, native (native/io.c) and node:net, each against its own
// instance of the same server:
// a response before, during and after the request's body; Connection: close with a body unwritten;
// resets at offsets of the request and of the response, with and without -r; a server that never
// reads (the client's writes block; -s ends the run); 1xx interim responses; surplus and pipelined
// bytes; keep-alive closed after N responses; request bodies from 0 bytes to 64 MiB; many connects
// failing at once (refused at high -c, EMFILE at -c 20000 under ulimit -n 256).
//
// Why: the native transport is C that a server drives. A bug there is a crash (SIGSEGV), a hang or a
// miscount where node:net, the reference, is right. So each run must end by itself within its bound
// with no signal and no sanitizer report (scripts/sanitize.sh runs this file on the ASan/UBSan build),
// and where the outcome does not depend on timing both transports must count exactly the same (and
// as stated here); where it does (a reset racing a write), invariants that hold either way.
//
// Then the same for --http2 (h2-frames.js over the same transports): raw servers that speak bad HTTP/2
// frame by frame (helper.js h2Frame: a 9-byte header and a payload): GOAWAY mid-run, RST_STREAM on
// every stream, SETTINGS_MAX_CONCURRENT_STREAMS below --streams, no SETTINGS, a 1-byte flow-control
// window, garbage for or after SETTINGS, an oversized frame, a header block that is not HPACK, a
// CONTINUATION flood, a PING flood, a half-close, and HTTP/1.1 text for an answer to the preface.
// Each run ends within -s with no stack trace, its requests counted under ab's kinds (or ab's one
// line and exit 1) and its connections as the server saw them, on each transport (the native one
// alone under the sanitizer build).
import { describe, test, after } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { abOn, assertEndedCleanly, closedPort, startHostileServer, runCli, startH2RawServer, H2, H2_FLAG, H2_STATUS_200, h2Frame, h2Goaway, h2Settings, h2Word } from './helper.js'

/** @typedef {import('./helper.js').Behaviour} Behaviour */
/** @typedef {Awaited<ReturnType<typeof abOn>>} Run */
/**
 * One case: the server's behaviour by connection and request, the CLI's arguments (a body by its
 * size: ['-p', 1024] posts a 1024-byte file), and what is asserted of the two runs.
 * `same`: the outcome does not depend on timing: both transports count exactly the same, and as
 * `expect` says (a subset of the counts, or the exit code and a pattern of its one stderr line).
 * Otherwise `check` asserts the invariants of each run.
 * @typedef {object} Case
 * @property {string} name
 * @property {(connection: number, request: number) => Behaviour} pick
 * @property {(string|number)[]} args
 * @property {boolean} same
 * @property {Record<string, unknown>} [expect]
 * @property {RegExp} [line] for a run that exits non-zero: its one stderr line
 * @property {(r: Run) => void} [check]
 * @property {number} [bodyBytes] the body bytes the server must have read in each run
 * @property {boolean} [unix] over a unix socket (--unix) instead of TCP
 */

const MiB = 1024 * 1024
/** The transports each case runs on (see the top). */
const TRANSPORTS = /** @type {('native'|'net')[]} */ (process.env.SYNCBENCH_SANITIZE === '1' ? ['native'] : ['native', 'net'])
/** Each run ends within this (a hang is killed here, and fails as a signal). */
const BOUND_MS = 20_000

const dir = mkdtempSync(join(tmpdir(), 'syncbench-hostile-'))
const closers = /** @type {(() => Promise<void>)[]} */ ([])
after(async () => {
  await Promise.all(closers.map((close) => close()))
  rmSync(dir, { recursive: true, force: true })
})

/** @type {Map<number, string>} */
const bodies = new Map()
/** A file of `size` bytes to post, made once. @param {number} size */
function bodyFile (size) {
  let file = bodies.get(size)
  if (file === undefined) {
    file = join(dir, `body-${size}.bin`)
    writeFileSync(file, Buffer.alloc(size, 120))
    bodies.set(size, file)
  }
  return file
}

/** A polite server's: read the request whole, answer 200 with a length, keep-alive as asked. */
const polite = () => ({})
/** @param {Behaviour} b */
const always = (b) => () => b

/**
 * A run that exits 0 counts every request, its failures the sum of their kinds; or it exits 1 with
 * one line (where ab exits).
 * @param {number} n
 */
const completesOrOneLine = (n) => (/** @type {Run} */ r) => {
  assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`)
  if (r.code !== 0) return assert.match(r.stderr, /^syncbench ab: [^\n]+\n$/)
  const c = /** @type {any} */ (r.counts)
  assert.equal(c.complete, n, JSON.stringify(c))
  assert.equal(c.failed, c.failures.connect + c.failures.receive + c.failures.length + c.failures.exceptions, JSON.stringify(c))
}

/** @type {Case[]} */
const cases = []

// A response before, during and after the request's body: 8 MiB, far more than the socket buffers
// hold, so an early response arrives while most of the body is unwritten; with -k the next request
// is written behind it on the same socket. The server reads the body's rest and drops it.
for (const [when, answerAt] of /** @type {const} */ ([['before', 'head'], ['during', 1 * MiB], ['after', 'body']])) {
  for (const k of [['-k'], []]) {
    cases.push({
      name: `a response ${when} an 8 MiB body, ${k[0] ?? 'no -k'}`,
      pick: always({ answerAt }),
      args: [...k, '-c', '1', '-n', '4', '-p', 8 * MiB],
      same: true,
      expect: { complete: 4, failed: 0, keepAlive: k.length ? 4 : 0 }
    })
  }
}
cases.push({
  name: 'a response before an 8 MiB body, -k, -c 2',
  pick: always({ answerAt: 'head' }),
  args: ['-k', '-c', '2', '-n', '6', '-p', 8 * MiB],
  same: true,
  expect: { complete: 6, failed: 0, keepAlive: 6 }
})
// Connection: close with the body still unwritten: FIN, the server reading on (the response ends at
// the close either way), or a close with the body unread, which the kernel answers with a reset that
// races the response and the client's writes.
for (const k of [['-k'], []]) {
  cases.push({
    name: `Connection: close and FIN before the body is written, ${k[0] ?? 'no -k'}`,
    pick: always({ answerAt: 'head', keepAlive: false, after: 'end' }),
    args: [...k, '-c', '1', '-n', '4', '-p', 8 * MiB],
    same: true,
    expect: { complete: 4, failed: 0, keepAlive: 0 }
  })
  cases.push({
    name: `Connection: close and the body left unread (a reset), ${k.length ? '-k -r' : 'no -k, no -r'}`,
    pick: always({ answerAt: 'head', keepAlive: false, after: 'destroy' }),
    args: [...k, ...(k.length ? ['-r'] : []), '-c', '1', '-n', '4', '-p', 8 * MiB],
    same: false,
    check: completesOrOneLine(4)
  })
}

// Resets. Once a request is read whole (a GET arrives in one segment: any offset inside it resets
// once it is all in, one past it at its end) and before any byte of the response, the client reads
// the reset: the same on both transports. Without -r the run ends at the first (exit 1, one line);
// with -r each is a failed request. A reset after part of the response races libuv's read: the
// bytes and the reset read in one turn end as EOF (the read was short and the socket hung up), in
// two as ECONNRESET; a reset at the accept or in a body being written races the client's write (a
// write error or a read error): invariants only.
const BODY = 'x'.repeat(1000)
const HEAD_BYTES = 'HTTP/1.1 200 X\r\nConnection: keep-alive\r\nContent-Length: 1000\r\n\r\n'.length
const RESET = /receive failed: connection reset by peer \(ECONNRESET\); -r continues past receive errors/
const requestOffsets = [1, 20, 1000]
cases.push({
  name: `a reset at bytes ${requestOffsets.join(', ')} of GET requests, -k -r`,
  pick: (conn, req) => req === 1 ? { resetAtRequest: requestOffsets[conn % 3] } : { body: BODY },
  args: ['-k', '-r', '-c', '1', '-n', '9'],
  same: true,
  expect: { complete: 9 }
})
cases.push({
  name: 'a reset at byte 20 of a GET request, -k, no -r',
  pick: (conn, req) => req === 1 ? { resetAtRequest: 20 } : { body: BODY },
  args: ['-k', '-c', '1', '-n', '6'],
  same: true,
  line: RESET
})
for (const k of [['-k'], []]) {
  cases.push({
    name: `a reset before the response's first byte, ${k[0] ?? 'no -k'} -r`,
    pick: (conn, req) => (conn + req) % 2 === 1 ? { resetAtResponse: 0 } : { body: BODY },
    args: [...k, '-r', '-c', '1', '-n', '8'],
    same: true,
    expect: { complete: 8 }
  })
  cases.push({
    name: `a reset before the response's first byte, ${k[0] ?? 'no -k'}, no -r`,
    pick: (conn, req) => conn + req === 2 ? { resetAtResponse: 0 } : { body: BODY },
    args: [...k, '-c', '1', '-n', '8'],
    same: true,
    line: RESET
  })
}
const responseOffsets = [5, 17, HEAD_BYTES, HEAD_BYTES + 500, HEAD_BYTES + 1000]
for (const r of [['-r'], []]) {
  cases.push({
    name: `a reset at bytes ${responseOffsets.join(', ')} of responses, -k ${r[0] ?? 'no -r'}`,
    pick: (conn, req) => req === 1 ? { body: BODY, resetAtResponse: responseOffsets[conn % responseOffsets.length] } : { body: BODY },
    args: ['-k', ...r, '-c', '1', '-n', '12'],
    same: false,
    check: completesOrOneLine(12)
  })
  cases.push({
    name: `a reset at the accept, ${r[0] ?? 'no -r'}`,
    pick: (conn) => conn % 2 === 1 ? { resetAtRequest: 0 } : {},
    args: [...r, '-c', '1', '-n', '6'],
    same: false,
    check: completesOrOneLine(6)
  })
  cases.push({
    name: `a reset 64 KiB into a 1 MiB body being written, -k ${r[0] ?? 'no -r'}`,
    pick: (conn, req) => req === 1 ? { resetAtRequest: 65536 } : {},
    args: ['-k', ...r, '-c', '1', '-n', '6', '-p', MiB],
    same: false,
    check: completesOrOneLine(6)
  })
}
cases.push({
  name: 'a whole response, then a reset, -k -r -c 2',
  pick: (conn, req) => req === 1 ? { after: 'reset' } : {},
  args: ['-k', '-r', '-c', '2', '-n', '8'],
  same: false,
  check: completesOrOneLine(8)
})

// A server that never reads: the client's writes of an 8 MiB body fill the socket buffers and block;
// -s 1 ends the run, as a silent server's.
for (const k of [['-k'], []]) {
  cases.push({
    name: `never reads an 8 MiB body, -s 1, ${k[0] ?? 'no -k'}`,
    pick: always({ deaf: true }),
    args: [...k, '-s', '1', '-c', '2', '-n', '4', '-p', 8 * MiB],
    same: true,
    line: /no response within 1 s \(-s 1\)/
  })
}

// 1xx interim responses: a 100 Continue once the head is read and the answer after the body (as a
// server that honours Expect does), or two interim ones before the body. --http1.1 skips them; ab's
// mode takes an interim response for the final one (ab 2.3's quirk; see load-matrix.test.js): without
// -k its body runs to the close, with -k the run waits on a body that never comes, until -s.
const CONTINUE = { interim: ['100 Continue'] }
const TWO_INTERIM = { interim: ['103 Early Hints', '100 Continue'], answerAt: /** @type {const} */ ('head') }
cases.push({ name: '100 Continue, then the answer after a 100 KiB body, --http1.1 -k', pick: always(CONTINUE), args: ['--http1.1', '-k', '-c', '2', '-n', '6', '-p', 100 * 1024], same: true, expect: { complete: 6, failed: 0, keepAlive: 6 } })
cases.push({ name: '103 and 100, then the answer before a 100 KiB body, --http1.1 -k', pick: always(TWO_INTERIM), args: ['--http1.1', '-k', '-c', '2', '-n', '6', '-p', 100 * 1024], same: true, expect: { complete: 6, failed: 0, keepAlive: 6 } })
cases.push({ name: '100 Continue, then the answer, no -k', pick: always(CONTINUE), args: ['-c', '2', '-n', '6', '-p', 100 * 1024], same: true, expect: { complete: 6, failed: 0 } })
cases.push({ name: '103 and 100, then the answer, -k -s 1', pick: always(TWO_INTERIM), args: ['-k', '-s', '1', '-c', '1', '-n', '3', '-p', 100 * 1024], same: true, line: /no response within 1 s/ })

// Surplus bytes after a response, in the same write: garbage, or a whole second response.
const SECOND = 'HTTP/1.1 200 X\r\nContent-Length: 2\r\n\r\nok'
for (const [label, surplus, mode] of [['garbage', 'garbage!', ['-k']], ['garbage', 'garbage!', ['--http1.1', '-k']], ['a second response', SECOND, ['-k']], ['a second response', SECOND, []]]) {
  cases.push({
    name: `${label} after each response, ${mode.join(' ') || 'no -k'}`,
    pick: always({ surplus: String(surplus) }),
    args: [...mode, '-c', '2', '-n', '8'],
    same: true,
    expect: { complete: 8 }
  })
}

// Keep-alive closed (FIN) after 1, 2 or 3 responses, by connection: the request written behind the
// last one meets the close (ab counts it complete with a Length failure; --http1.1 likewise).
for (const mode of [['-k'], ['--http1.1', '-k']]) {
  cases.push({
    name: `keep-alive closed after 1, 2, 3 responses, ${mode.join(' ')}`,
    pick: (conn, req) => req === conn % 3 ? { after: 'end' } : {},
    args: [...mode, '-c', '1', '-n', '12'],
    same: true,
    expect: { complete: 12 }
  })
}

// Request bodies from 0 bytes to 64 MiB (around a 64 KiB read's size too), answered once read whole:
// the server must have read every byte.
for (const [size, k] of /** @type {[number, string[]][]} */ ([[0, ['-k']], [1, []], [65535, ['-k']], [65536, []], [65537, ['-k']], [MiB, []], [8 * MiB, ['-k']], [64 * MiB, ['-k']], [64 * MiB, []]])) {
  const n = size === 64 * MiB ? 2 : 3
  cases.push({
    name: `a ${size}-byte body, ${k[0] ?? 'no -k'}`,
    pick: polite,
    args: [...k, '-c', '1', '-n', String(n), '-p', size],
    same: true,
    expect: { complete: n, failed: 0, keepAlive: k.length ? n : 0 },
    bodyBytes: n * size
  })
}

// The same paths over a unix socket (--unix: a libuv pipe on the native side; nothing there resets).
for (const [when, answerAt] of /** @type {const} */ ([['before', 'head'], ['during', 1 * MiB]])) {
  cases.push({
    name: `--unix: a response ${when} an 8 MiB body, -k`,
    pick: always({ answerAt }),
    args: ['-k', '-c', '2', '-n', '6', '-p', 8 * MiB],
    same: true,
    unix: true,
    expect: { complete: 6, failed: 0, keepAlive: 6 }
  })
}
cases.push({
  name: '--unix: Connection: close and FIN before the body is written, -k',
  pick: always({ answerAt: 'head', keepAlive: false, after: 'end' }),
  args: ['-k', '-c', '1', '-n', '4', '-p', 8 * MiB],
  same: true,
  unix: true,
  expect: { complete: 4, failed: 0, keepAlive: 0 }
})
cases.push({
  name: '--unix: never reads an 8 MiB body, -s 1',
  pick: always({ deaf: true }),
  args: ['-k', '-s', '1', '-c', '2', '-n', '4', '-p', 8 * MiB],
  same: true,
  unix: true,
  line: /no response within 1 s \(-s 1\)/
})

// SYNCBENCH_HOSTILE_SHARD=i/n runs every n-th test from the i-th (0-based): the sanitizer run splits
// this file over two of its own, as npm test bounds each file's time.
const [shard, shards] = (process.env.SYNCBENCH_HOSTILE_SHARD ?? '0/1').split('/').map(Number)
let registered = 0
/** A test of this shard. @param {string} name @param {{ timeout: number }} options @param {() => Promise<void>} fn */
function hostileTest (name, options, fn) {
  if (registered++ % shards === shard) test(name, options, fn)
}

// Under the sanitizers, with one run per case, two cases at a time keep both cores busy.
describe(`hostile servers, on ${TRANSPORTS.join(' and ')}`, { concurrency: TRANSPORTS.length === 1 ? 2 : 1 }, () => {
  let sockets = 0
  for (const c of cases) {
    hostileTest(c.name, { timeout: 3 * BOUND_MS }, async () => {
      const args = c.args.map((a) => typeof a === 'number' ? bodyFile(a) : a)
      const runs = await Promise.all(TRANSPORTS.map(async (io) => {
        const path = c.unix ? join(dir, `s${sockets++}.sock`) : undefined
        const server = await startHostileServer(c.pick, { path })
        closers.push(server.close)
        const r = await abOn(io, [...args, ...(path ? ['--unix', path] : []), server.url], { timeoutMs: BOUND_MS })
        return { ...r, served: server.served }
      }))
      for (const r of runs) {
        assertEndedCleanly(r, c.name)
        if (c.check) c.check(r)
        if (c.bodyBytes !== undefined) assert.equal(r.served.bodyBytes, c.bodyBytes, `${r.io}: the body bytes the server read`)
      }
      const [native, net] = runs
      if (!c.same) return
      if (net) assert.deepEqual(native.counts, net.counts, 'native and node:net count the same')
      if (c.line) {
        assert.equal(native.code, 1, native.stderr)
        assert.match(native.stderr, c.line)
        assert.equal(native.stderr.trim().split('\n').length, 1, native.stderr)
      } else {
        assert.equal(native.code, 0, native.stderr)
        for (const [key, value] of Object.entries(c.expect ?? {})) assert.deepEqual(native.counts[key], value, `${key}: ${JSON.stringify(native.counts)}`)
      }
    })
  }

  // Many connects failing at once. ab connects one socket first and the other -c - 1 once a response
  // header has arrived: when the listener has gone by then, they are all refused in the same turn.

  hostileTest('nothing listens, -c 500: the refusal in one line, exit 1, on both transports', { timeout: 3 * BOUND_MS }, async () => {
    const url = `http://127.0.0.1:${await closedPort()}/`
    const [native, net] = await Promise.all(TRANSPORTS.map((io) => abOn(io, ['-c', '500', '-n', '1000', url])))
    for (const r of [native, net]) if (r) assertEndedCleanly(r, 'nothing listens')
    if (net) assert.deepEqual(native.counts, net.counts)
    assert.equal(native.code, 1)
    assert.match(native.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\n$/)
  })

  for (const r of [[], ['-r']]) {
    hostileTest(`the listener gone after the first response: 1999 connects refused at once, -c 2000 ${r[0] ?? 'no -r'}`, { timeout: 3 * BOUND_MS }, async () => {
      const runs = await Promise.all(TRANSPORTS.map(async (io) => {
        /** @type {Awaited<ReturnType<typeof startHostileServer>>|null} */
        let server = null
        server = await startHostileServer((conn) => {
          // the first request's answer goes out, then nothing more is accepted
          if (conn === 0) server?.server.close()
          return {}
        })
        closers.push(server.close)
        return abOn(io, [...r, '-c', '2000', '-n', '6000', server.url])
      }))
      for (const run of runs) assertEndedCleanly(run, 'the listener gone')
      const [native, net] = runs
      if (r.length === 0) {
        if (net) assert.deepEqual(native.counts, net.counts)
        assert.equal(native.code, 1)
        assert.match(native.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\n$/)
        return
      }
      // -r: every refusal is a complete request that failed, under Receive and, for every other one
      // of a connection, Exceptions too (ab's POLLERR); which ones follows the order of the refusals
      // in each turn, so the split is not compared
      for (const run of runs) {
        assert.equal(run.code, 0, run.stderr)
        const c = /** @type {any} */ (run.counts)
        assert.equal(c.complete, 6000)
        assert.equal(c.errors.ECONNREFUSED, 5999, JSON.stringify(c))
        assert.ok(c.failures.receive >= 5999 && c.failures.connect + c.failures.length === 0, JSON.stringify(c))
        assert.equal(c.failed, c.failures.receive + c.failures.exceptions, JSON.stringify(c))
      }
    })
  }

  hostileTest('EMFILE at -c 20000 under ulimit -n 256: one line saying how many sockets the limit allowed, exit 1, on both transports', { timeout: 3 * BOUND_MS }, async () => {
    const server = await startHostileServer(polite)
    closers.push(server.close)
    const args = ['-c', '20000', '-n', '20000', server.url]
    for (const r of await Promise.all(TRANSPORTS.map((io) => abOn(io, args, { openFiles: 256 })))) {
      assertEndedCleanly(r, 'EMFILE')
      assert.equal(r.code, 1, r.stderr)
      assert.match(r.stderr, /^syncbench ab: 127\.0\.0\.1:\d+: test aborted after 10 failures: too many open files \(EMFILE\): only \d+ sockets could be opened for -c 20000; raise the limit of open files per process \(now 256\) with ulimit -n 20100 in this shell, or lower -c\n$/)
      // Node's own descriptors (a few dozen) leave about 200 of the 256 for sockets: the count is of
      // those that got one, not of those whose connect had been reported when connect ran out
      const opened = Number(/only (\d+) sockets could be opened/.exec(r.stderr)?.[1])
      assert.ok(opened >= 128 && opened < 256, `${r.io}: ${r.stderr}`)
    }
  })
})

// ---- HTTP/2 ---------------------------------------------------------------------------------------

/** @typedef {import('./helper.js').H2Serve} H2Serve */
/** @typedef {{ code: number|null, signal: string|null, stderr: string, result: any }} H2Run */
/**
 * One HTTP/2 case: what the raw server does, the CLI's arguments after --http2, and what is asserted:
 * `expect` (a subset of --json's fields, exit 0) or `line` (exit 1 and this one stderr line), then
 * `check` of the run and what the server saw.
 * @typedef {object} H2Case
 * @property {string} name
 * @property {H2Serve} serve
 * @property {(string|number)[]} args
 * @property {Record<string, unknown>} [expect]
 * @property {RegExp} [line]
 * @property {(r: H2Run, served: Awaited<ReturnType<typeof startH2RawServer>>['served']) => void} [check]
 */

/** A header block that is not HPACK: an indexed field whose index runs past any table. */
const NOT_HPACK = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7f])
/** `n` copies of a frame, in one write. @param {Buffer} frame @param {number} n */
const flood = (frame, n) => Buffer.concat(Array(n).fill(frame))
/** A server whose every request gets `bytes(streamId)` instead of an answer. @param {(id: number) => Buffer} bytes @returns {H2Serve} */
const answersWith = (bytes) => ({ request: (c, id) => c.write(bytes(id)) })
const TIMED_OUT = /^syncbench ab: 127\.0\.0\.1:\d+: no response within 1 s \(-s 1\): the timeout specified has expired\n$/
const NOT_SETTINGS = /^syncbench ab: 127\.0\.0\.1:\d+: test aborted after 10 failures: the server's first bytes were not an HTTP\/2 SETTINGS frame \(an HTTP\/1 server\? http:\/\/ speaks h2c by prior knowledge\)\n$/
/**
 * Every request failed under Exceptions with the RFC 9113 code of the protocol error the client found.
 * @param {number} n @param {string} code
 */
const allFailedAsProtocolErrors = (n, code) => (/** @type {H2Run} */ r) => {
  assert.equal(r.result.failedRequests, n, JSON.stringify(r.result.errors))
  assert.equal(r.result.failures.exceptions, n)
  assert.deepEqual(r.result.errors, { [code]: n })
  assert.deepEqual(r.result.http2.resets, {})
}

/** @type {H2Case[]} */
const h2Cases = []

// GOAWAY at each connection's 3rd request, its last stream id the 2nd's: with one stream at a time
// the 3rd is left unprocessed (it fails as GOAWAY, under Exceptions) and a new connection carries on.
h2Cases.push({
  name: 'GOAWAY at every 3rd request: the unprocessed stream fails (GOAWAY), a new connection carries on',
  serve: { request: (c, id, n) => n === 2 ? c.write(h2Goaway(id - 2, 0)) : c.answer(id) },
  args: ['-c', '1', '--streams', '1', '-n', '9'],
  expect: { completeRequests: 9, failedRequests: 3, errors: { GOAWAY: 3 }, statusCodes: { 200: 6 } },
  check: (r, served) => {
    assert.equal(r.result.failures.exceptions, 3)
    assert.deepEqual(r.result.http2.goaways, { NO_ERROR: 3 })
    assert.equal(r.result.http2.connections, 3)
    assert.equal(served.connections, 3)
  }
})
h2Cases.push({
  name: 'RST_STREAM INTERNAL_ERROR on every stream: each a failed request under Exceptions',
  serve: answersWith((id) => h2Word(H2.RST_STREAM, id, 2)),
  args: ['-c', '2', '--streams', '3', '-n', '30'],
  expect: { completeRequests: 30, failedRequests: 30, errors: { RST_STREAM_INTERNAL_ERROR: 30 }, statusCodes: {} },
  check: (r, served) => {
    assert.equal(r.result.failures.exceptions, 30)
    assert.deepEqual(r.result.http2.resets, { INTERNAL_ERROR: 30 })
    assert.equal(served.connections, 2)
  }
})
// SETTINGS_MAX_CONCURRENT_STREAMS 2: --streams 3 is above it (honoured: never more than 2 streams
// open on a connection, and said), --streams 2 at it (nothing to say). The answers wait a turn, so
// that a client opening more streams than allowed would be seen doing so.
for (const streams of [3, 2]) {
  h2Cases.push({
    name: `SETTINGS_MAX_CONCURRENT_STREAMS 2, --streams ${streams}: ${streams > 2 ? 'honoured and said in one line' : 'nothing to say'}`,
    serve: { open: (c) => c.write(h2Settings([[3, 2]])), request: (c, id) => setImmediate(() => c.answer(id)) },
    args: ['-c', '2', '--streams', streams, '-n', '40'],
    expect: { completeRequests: 40, failedRequests: 0 },
    check: (r, served) => {
      assert.equal(r.stderr, streams > 2 ? `syncbench ab: the server allows 2 concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS), fewer than --streams ${streams}: 2 used\n` : '')
      assert.equal(r.result.http2.serverStreamsLimit, streams > 2 ? 2 : 0)
      assert.ok(served.maxOpen <= 2, `at most 2 streams open on a connection, saw ${served.maxOpen}`)
      assert.equal(served.answered, 40)
    }
  })
}
h2Cases.push({
  name: 'never a SETTINGS frame (nor an ACK): nothing sent, -s 1 ends the run',
  serve: { open: () => {}, frame: () => true },
  args: ['-c', '2', '--streams', '2', '-n', '10', '-s', '1'],
  line: TIMED_OUT,
  check: (r, served) => {
    assert.equal(served.connections, 2)
    assert.equal(served.streams, 0)
  }
})
// A stream window of 1 byte (SETTINGS_INITIAL_WINDOW_SIZE) for 100-byte bodies: never credited, the
// first byte of each goes and -s ends the run; credited back a byte at a time, every body gets through.
h2Cases.push({
  name: 'a 1-byte window never credited: one byte of each body, -s 1 ends the run',
  serve: { open: (c) => c.write(h2Settings([[4, 1]])), credit: false },
  args: ['-c', '1', '--streams', '2', '-n', '4', '-s', '1', '-p', 100],
  line: TIMED_OUT,
  check: (r, served) => assert.equal(served.bodyBytes, 2)
})
h2Cases.push({
  name: 'a 1-byte window credited a byte at a time: every 100-byte body gets through',
  serve: { open: (c) => c.write(h2Settings([[4, 1]])) },
  args: ['-c', '1', '--streams', '2', '-n', '4', '-p', 100],
  expect: { completeRequests: 4, failedRequests: 0, statusCodes: { 200: 4 } },
  check: (r, served) => assert.equal(served.bodyBytes, 400)
})
h2Cases.push({
  name: 'garbage for a SETTINGS frame: connect failures, the 11th ends the run, saying so',
  serve: { open: (c) => c.write('garbage!garbage!garbage!') },
  args: ['-c', '1', '--streams', '2', '-n', '10'],
  line: NOT_SETTINGS,
  check: (r, served) => assert.equal(served.connections, 11)
})
h2Cases.push({
  name: 'HTTP/1.1 text for an answer to the preface: connect failures, the 11th ends the run, saying so',
  serve: { open: (c) => c.socket.once('data', () => c.socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')), deaf: true },
  args: ['-c', '1', '--streams', '2', '-n', '10'],
  line: NOT_SETTINGS,
  check: (r, served) => assert.equal(served.connections, 11)
})
// A CONTINUATION flood (CVE-2024-27983's shape: 5000 frames of a header block that never ends): the
// client ends the connection at the 9th CONTINUATION (ENHANCE_YOUR_CALM), and each of the 5 requests
// meets it on a connection of its own. A PING flood (20,000 in one write) is answered: each ACK costs
// the client what the PING cost the server, and every request is answered on the one connection.
h2Cases.push({
  name: 'a CONTINUATION flood: every stream fails (ENHANCE_YOUR_CALM), each connection replaced',
  serve: answersWith((id) => Buffer.concat([h2Frame(H2.HEADERS, 0, id, H2_STATUS_200), flood(h2Frame(H2.CONTINUATION, 0, id), 5000)])),
  args: ['-c', '1', '--streams', '1', '-n', '5'],
  expect: { completeRequests: 5 },
  check: (r, served) => {
    allFailedAsProtocolErrors(5, 'ENHANCE_YOUR_CALM')(r)
    assert.equal(served.connections, 5)
  }
})
h2Cases.push({
  name: 'a PING flood with every answer: each PING acknowledged, every request answered on one connection',
  serve: { request: (c, id) => { c.write(flood(h2Frame(H2.PING, 0, 0, Buffer.alloc(8)), 20_000)); c.answer(id) } },
  args: ['-c', '1', '--streams', '1', '-n', '5'],
  expect: { completeRequests: 5, failedRequests: 0, statusCodes: { 200: 5 } },
  check: (r, served) => assert.equal(served.connections, 1)
})
h2Cases.push({
  name: '100 PINGs before every answer, under the flood limit: each acknowledged, every request answered',
  serve: { request: (c, id) => { c.write(flood(h2Frame(H2.PING, 0, 0, Buffer.alloc(8)), 100)); c.answer(id) } },
  args: ['-c', '1', '--streams', '1', '-n', '5'],
  expect: { completeRequests: 5, failedRequests: 0, statusCodes: { 200: 5 } },
  check: (r, served) => assert.equal(served.connections, 1)
})
// A half-close (FIN) after a connection's 2nd answer: node:http2 ends the session, a stream sent
// on it before the FIN was read is lost with the connection (Receive, CONNECTION_CLOSED, not a reset
// received), and the seat's next request goes to a new connection, never onto the closed one: every
// connection so at -n 9; the first only at -n 20000, the rest going to one polite connection.
for (const n of [9, 20000]) {
  h2Cases.push({
    name: `a half-close after ${n === 9 ? "every connection's" : "the first connection's"} 2nd answer, -n ${n}: a stream lost with it counted under Receive, new connections`,
    serve: { request: (c, id, k) => { if (k < 2 || (n > 9 && c.index > 0)) c.answer(id); if (k === 1 && (n === 9 || c.index === 0)) c.socket.end() } },
    args: ['-c', '1', '--streams', '1', '-n', n],
    expect: { completeRequests: n },
    check: (r, served) => {
      const good = r.result.statusCodes['200']
      assert.equal(good + r.result.failedRequests, n)
      assert.equal(r.result.failures.receive, r.result.failedRequests)
      assert.deepEqual(Object.keys(r.result.errors), r.result.failedRequests ? ['CONNECTION_CLOSED'] : [])
      assert.deepEqual(r.result.http2.resets, {})
      // at most one stream of each closed connection, sent before its FIN was read, is lost
      assert.ok(r.result.failedRequests <= served.connections, JSON.stringify(r.result.errors))
      if (n === 9) assert.ok(good === 2 * served.connections || good === 2 * served.connections - 1, `${good} answered over ${served.connections} connections`)
      else assert.equal(served.connections, 2)
    }
  })
}
// A protocol error the client finds in a frame (garbage after SETTINGS, a DATA frame past the
// 16,384-byte SETTINGS_MAX_FRAME_SIZE, a header block that is not HPACK): the client sends GOAWAY with
// the error's code and closes the connection itself (the server need not); the connection's two
// streams fail under Exceptions, named by that code, and the seats reconnect: 5 connections for -n 10.
const PROTOCOL_ERRORS = [
  ['garbage after the answer', 'FRAME_SIZE_ERROR', answersWith(() => Buffer.from('garbage!garbage!garbage!'))],
  ['an oversized DATA frame (20,000 bytes)', 'FRAME_SIZE_ERROR', answersWith((id) => Buffer.concat([h2Frame(H2.HEADERS, H2_FLAG.END_HEADERS, id, H2_STATUS_200), h2Frame(H2.DATA, H2_FLAG.END_STREAM, id, Buffer.alloc(20_000, 97))]))],
  ['a header block that is not HPACK', 'COMPRESSION_ERROR', answersWith((id) => h2Frame(H2.HEADERS, H2_FLAG.END_HEADERS | H2_FLAG.END_STREAM, id, NOT_HPACK))]
]
for (const [what, code, serve] of /** @type {[string, string, H2Serve][]} */ (PROTOCOL_ERRORS)) {
  h2Cases.push({
    name: `${what}: ${code}, the connection closed by the client, its streams failed`,
    serve,
    args: ['-c', '1', '--streams', '2', '-n', '10', '-s', '5'],
    expect: { completeRequests: 10 },
    check: (r, served) => {
      allFailedAsProtocolErrors(10, code)(r)
      assert.equal(served.connections, 5)
    }
  })
}

for (const io of TRANSPORTS) {
  describe(`hostile HTTP/2 servers, on ${io}`, () => {
    for (const c of h2Cases) {
      hostileTest(c.name, { timeout: 3 * BOUND_MS }, async () => {
        const server = await startH2RawServer(c.serve)
        closers.push(server.close)
        const args = c.args.map((a) => typeof a === 'number' && c.args[c.args.indexOf(a) - 1] === '-p' ? bodyFile(a) : String(a))
        const r = await runCli(['ab', '--json', '--http2', ...args, server.url], { timeoutMs: BOUND_MS, env: { SYNCBENCH_IO: io } })
        assert.equal(r.signal, null, `killed at its bound: ${r.stderr.slice(-2000)}`)
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
        /** @type {H2Run} */
        const run = { code: r.code, signal: r.signal, stderr: r.stderr, result: null }
        if (c.line) {
          assert.equal(r.code, 1, r.stderr)
          assert.match(r.stderr, c.line)
          assert.equal(r.stdout, '')
        } else {
          assert.equal(r.code, 0, r.stderr)
          run.result = JSON.parse(r.stdout)
          const f = run.result.failures
          assert.equal(run.result.failedRequests, f.connect + f.receive + f.length + f.exceptions, JSON.stringify(f))
          for (const [key, value] of Object.entries(c.expect ?? {})) assert.deepEqual(run.result[key], value, `${key}: ${JSON.stringify(run.result[key])}`)
        }
        c.check?.(run, server.served)
      })
    }
  })
}
