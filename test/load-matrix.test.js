// The misbehaving servers x the modes (-k, no -k, --http1.1), one table: what each run counts
// (complete, failed by kind, keep-alive, body bytes, fault codes) and that it ends within its bound.
// The servers are test/helper.js's; the cases are those of load-parity.test.js (ab mode, checked there
// against the real ab) and load-http11.test.js (--http1.1), collected here so that every server meets
// every mode. Those files keep their own assertions.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { loadtest } from '../lib/load/loadtest.js'
import {
  startHttpServer, startMisbehavingServer, startScriptedServer, startHttp10CloseServer, startWrongLengthServer,
  startChunkedServer, startSlowServer, startResetServer, startSilentServer, oddResponses
} from './helper.js'

/** @typedef {{ url: string, close: () => Promise<void> }} Server */
/** @typedef {'-k'|'no -k'|'--http1.1'} Mode */
/**
 * What a run counts: complete, failed, [connect, receive, length, exceptions], keep-alive requests,
 * HTML (body) bytes, LoadResult.errors; or the code of the error the run ends with.
 * @typedef {[number, number, number[], number, number, Record<string, number>] | { throws: string }} Expected
 */

const N = 6
/** Every case ends within this, whatever the server does (-s 1 bounds a silent one). */
const BOUND_MS = 10_000

/** @type {Record<Mode, { keepAlive: boolean, http11: boolean }>} */
const modes = {
  '-k': { keepAlive: true, http11: false },
  'no -k': { keepAlive: false, http11: false },
  '--http1.1': { keepAlive: true, http11: true }
}

// Reading the ab columns: ab 2.3's quirks, kept on purpose (ab-framing.js): with -k a header without
// Content-Length but saying keep-alive completes at its first body read (the chunked rows' -k bytes);
// a negative Content-Length, or a 1xx taken as the final response, is one no body reaches, so the run
// waits on a connection the server keeps open until -s ends it (SB_ERR_TIMEOUT, as ab's "timeout");
// bytes after a response are its body's. Without -r a reset ends the run (SB_ERR_CONNECT, as ab exits).
// A server closing a reused connection before answering costs a complete request and a Length failure.
/** @type {{ name: string, start: () => Promise<Server>, expected: Record<Mode, Expected> }[]} */
const cases = [
  { name: 'badChunkSize', start: () => startMisbehavingServer(oddResponses.badChunkSize), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 96, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 96, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 0, { HPE_INVALID_CHUNK_SIZE: 6 }] } },
  { name: 'emptyChunkSize', start: () => startMisbehavingServer(oddResponses.emptyChunkSize), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 84, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 84, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 0, { HPE_INVALID_CHUNK_SIZE: 6 }] } },
  { name: 'chunkWithoutCrlf', start: () => startMisbehavingServer(oddResponses.chunkWithoutCrlf), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 90, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 90, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 30, { HPE_STRICT: 6 }] } },
  { name: 'negativeLength', start: () => startMisbehavingServer(oddResponses.negativeLength), expected: { '-k': { throws: 'SB_ERR_TIMEOUT' }, 'no -k': [6, 0, [0, 0, 0, 0], 0, 30, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 0, { HPE_INVALID_CONTENT_LENGTH: 6 }] } },
  { name: 'conflictingLengths', start: () => startMisbehavingServer(oddResponses.conflictingLengths), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 30, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 30, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 0, { HPE_UNEXPECTED_CONTENT_LENGTH: 6 }] } },
  { name: 'lengthAndChunked', start: () => startMisbehavingServer(oddResponses.lengthAndChunked), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 156, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 156, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 66, {}] } },
  { name: 'continueOnePacket', start: () => startMisbehavingServer(oddResponses.continueOnePacket), expected: { '-k': { throws: 'SB_ERR_TIMEOUT' }, 'no -k': [6, 0, [0, 0, 0, 0], 0, 372, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 30, {}] } },
  { name: 'continueTwoPackets', start: () => startMisbehavingServer(oddResponses.continueTwoPackets), expected: { '-k': { throws: 'SB_ERR_TIMEOUT' }, 'no -k': [6, 0, [0, 0, 0, 0], 0, 372, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 30, {}] } },
  { name: 'twoInterim', start: () => startMisbehavingServer(oddResponses.twoInterim), expected: { '-k': { throws: 'SB_ERR_TIMEOUT' }, 'no -k': [6, 0, [0, 0, 0, 0], 0, 522, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 30, {}] } },
  { name: 'twoResponses', start: () => startMisbehavingServer(oddResponses.twoResponses), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 432, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 402, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 30, { DATA_AFTER_RESPONSE: 6 }] } },
  { name: 'badStatus', start: () => startMisbehavingServer(oddResponses.badStatus), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 30, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 30, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 0, { HPE_INVALID_STATUS: 6 }] } },
  { name: 'fixed length (node:http)', start: () => startHttpServer((req, res) => { res.setHeader('Content-Length', 5); res.end('hello') }), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 30, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 30, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 30, {}] } },
  { name: 'HTTP/1.0 close-delimited', start: () => startHttp10CloseServer(), expected: { '-k': [6, 0, [0, 0, 0, 0], 0, 120, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 120, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 0, 120, {}] } },
  { name: 'Content-Length 100, 5 bytes, close', start: () => startWrongLengthServer(), expected: { '-k': [6, 0, [0, 0, 0, 0], 0, 30, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 30, {}], '--http1.1': [6, 6, [0, 0, 0, 6], 0, 30, { HPE_INVALID_EOF_STATE: 6 }] } },
  { name: 'chunked (node:http)', start: () => startChunkedServer(), expected: { '-k': [6, 0, [0, 0, 0, 0], 0, 114, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 114, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 114, {}] } },
  { name: 'slow (50 ms)', start: () => startSlowServer(50), expected: { '-k': [6, 0, [0, 0, 0, 0], 6, 24, {}], 'no -k': [6, 0, [0, 0, 0, 0], 0, 24, {}], '--http1.1': [6, 0, [0, 0, 0, 0], 6, 24, {}] } },
  { name: 'keep-alive, closes after 3 responses', start: () => startScriptedServer(() => 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok', { close: (i) => i === 2 }), expected: { '-k': [6, 1, [0, 0, 1, 0], 5, 10, {}], 'no -k': { throws: 'SB_ERR_TIMEOUT' }, '--http1.1': [6, 1, [0, 0, 1, 0], 5, 10, {}] } },
  { name: 'resets every 3rd request', start: () => startResetServer(3), expected: { '-k': { throws: 'SB_ERR_CONNECT' }, 'no -k': { throws: 'SB_ERR_CONNECT' }, '--http1.1': { throws: 'SB_ERR_CONNECT' } } },
  { name: 'never answers', start: () => startSilentServer(), expected: { '-k': { throws: 'SB_ERR_TIMEOUT' }, 'no -k': { throws: 'SB_ERR_TIMEOUT' }, '--http1.1': { throws: 'SB_ERR_TIMEOUT' } } }
]

const closers = /** @type {(() => Promise<void>)[]} */ ([])
after(() => Promise.all(closers.map((close) => close())))

/** @param {import('../lib/types.js').LoadResult} r @returns {Expected} */
function counted (r) {
  const f = r.failures
  return [r.completeRequests, r.failedRequests, [f.connect, f.receive, f.length, f.exceptions], r.keepAliveRequests, r.htmlTransferredBytes, r.errors]
}

for (const c of cases) {
  for (const mode of /** @type {Mode[]} */ (Object.keys(modes))) {
    test(`${c.name} x ${mode}`, { timeout: 2 * BOUND_MS }, async () => {
      const server = await c.start()
      closers.push(server.close)
      const started = performance.now()
      /** @type {Expected} */
      let got
      try {
        got = counted(await loadtest({ url: server.url, requests: N, concurrency: 1, timeout: 1, ...modes[mode] }))
      } catch (err) {
        got = { throws: String(/** @type {any} */ (err).code) }
      }
      const took = performance.now() - started
      assert.ok(took < BOUND_MS, `ended within ${BOUND_MS} ms (took ${Math.round(took)})`)
      if (process.env.MATRIX_PRINT) process.stdout.write(`MATRIX ${JSON.stringify([c.name, mode, got])}\n`)
      assert.deepEqual(got, c.expected[mode])
    })
  }
}
