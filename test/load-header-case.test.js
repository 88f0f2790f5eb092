// Header names are case-insensitive (RFC 9110 5.1) and many frameworks send them in lower case. Under
// keep-alive the engine frames a response by its Content-Length, found whatever its case, as ab does
// (its xstrcasestr); the body arrives in a later read than the header here, so a length that was
// missed would end the response at its header and read the body as the next one's.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { loadtest } from '../lib/load/loadtest.js'
import { startRawServer, eachRequest, runCommand } from './helper.js'

const abMissing = spawnSync('ab', ['-V']).error !== undefined
const skipAb = abMissing && 'ab (apache2-utils) is not installed: no parity check against the real ab'

const closers = []
after(() => Promise.all(closers.map((close) => close())))

const BODY = '0123456789'
const N = 50

/**
 * A keep-alive server spelling Content-Length as `name`, writing each response's body a little after
 * its header (a separate TCP segment, so the client reads it separately).
 * @param {string} name
 */
async function caseServer (name) {
  const head = `HTTP/1.1 200 OK\r\nServer: casefold/1.0\r\n${name}: ${BODY.length}\r\nConnection: keep-alive\r\n\r\n`
  const s = await startRawServer((socket) => {
    eachRequest(socket, () => {
      socket.write(head)
      setTimeout(() => { if (!socket.destroyed) socket.write(BODY) }, 2)
    })
  })
  closers.push(s.close)
  return { ...s, responseBytes: Buffer.byteLength(head) + BODY.length }
}

const spellings = ['content-length', 'CONTENT-LENGTH', 'Content-length', 'cOnTeNt-LeNgTh']

for (const name of spellings) {
  for (const http11 of [false, true]) {
    test(`"${name}: 10" with its body in a later read, keep-alive${http11 ? ', --http1.1' : ''}: ${N} complete, 0 failed, every body counted`, async () => {
      const s = await caseServer(name)
      const r = await loadtest({ url: s.url, requests: N, concurrency: 5, keepAlive: true, http11, timeout: 10 })
      assert.equal(r.completeRequests, N)
      assert.equal(r.failedRequests, 0)
      assert.deepEqual(r.failures, { connect: 0, receive: 0, length: 0, exceptions: 0 })
      assert.equal(r.keepAliveRequests, N)
      assert.equal(r.document.length, BODY.length)
      assert.equal(r.htmlTransferredBytes, N * BODY.length)
      assert.equal(r.totalTransferredBytes, N * s.responseBytes)
      assert.deepEqual(r.statusCodes, { 200: N })
    })
  }
}

test('parity with ab -k on lower-, upper- and mixed-case Content-Length servers', { skip: skipAb }, async () => {
  const figure = (out, label) => {
    const m = new RegExp(`^${label}:\\s+(\\d+)`, 'm').exec(out)
    assert.ok(m, `no "${label}" in ab's report:\n${out}`)
    return Number(m[1])
  }
  for (const name of spellings) {
    const s = await caseServer(name)
    const ab = await runCommand('ab', ['-k', '-n', String(N), '-c', '5', s.url], { timeoutMs: 20_000 })
    assert.equal(ab.code, 0, `ab failed on "${name}": ${ab.stderr}`)
    const mine = await loadtest({ url: s.url, requests: N, concurrency: 5, keepAlive: true })
    const labels = ['Complete requests', 'Failed requests', 'Keep-Alive requests', 'Document Length', 'Total transferred', 'HTML transferred']
    assert.deepEqual(
      [mine.completeRequests, mine.failedRequests, mine.keepAliveRequests, mine.document.length, mine.totalTransferredBytes, mine.htmlTransferredBytes],
      labels.map((l) => figure(ab.stdout, l)),
      `"${name}": ${labels.join(', ')}`)
    assert.equal(figure(ab.stdout, 'Complete requests'), N, 'real ab counts every response')
  }
})
