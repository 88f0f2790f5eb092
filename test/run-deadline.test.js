// Every run has a deadline: a handler that never returns does not stall syncbench run; the server
// child is killed, the run recorded invalid with the reason, and the next configuration runs.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import { runCli, startRawServer, tempCacheDir } from './helper.js'
import { runDeadlineMs, DEFAULT_RESPONSE_TIMEOUT } from '../lib/run/run-deadline.js'
import { expandExperiment } from '../lib/run/plan.js'
import { builtinExperiment } from '../lib/run/experiment-loader.js'

/** @type {string} */
let dir
tempCacheDir('syncbench-deadline-', (d) => { dir = d })

test('run --run-timeout: a handler that never returns ends its run, recorded invalid, and the next configuration runs', async () => {
  const file = path.join(dir, 'stuck.mjs')
  await writeFile(file, `
    export async function stuck () { await new Promise(() => {}) }
    export function fast () { return 'ok' }
  `)
  const out = path.join(dir, 'out')
  const t0 = Date.now()
  const { code, stderr } = await runCli(['run', '--workload', file, '-n', '10', '-c', '2', '--run-timeout', '3', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  const seconds = (Date.now() - t0) / 1000
  assert.equal(code, 1, stderr)
  assert.ok(seconds < 3 + 20, `ended after ${seconds} s`)
  assert.doesNotMatch(stderr, /\n\s+at /)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  const stuck = results.runs.find((/** @type {{ label: string }} */ r) => r.label === 'stuck')
  const fast = results.runs.find((/** @type {{ label: string }} */ r) => r.label === 'fast')
  assert.ok(stuck && fast, JSON.stringify(results.runs.map((/** @type {{ label: string }} */ r) => r.label)))
  assert.equal(stuck.error, null)
  assert.match(stuck.invalid.reason, /deadline of 3 s \(--run-timeout\)/)
  assert.equal(fast.invalid, null)
  assert.equal(fast.load.completeRequests, 10)
  assert.equal(fast.load.failedRequests, 0)
})

test('run --run-timeout: bounds, one line naming the option and the value', async () => {
  for (const bad of ['0', 'abc', '86401']) {
    const r = await runCli(['run', '--run-timeout', bad, '--list'])
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, new RegExp(`--run-timeout .*"${bad}"`))
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  }
})

test('the derived deadline: -t or the requests of one connection, capped, plus the response timeout', () => {
  assert.equal(runDeadlineMs({ requests: 100, concurrency: 10 }), 30_000 + 10_000)
  assert.equal(runDeadlineMs({ requests: 1e9, concurrency: 1 }), 30_000 + 3600_000)
  assert.equal(runDeadlineMs({ timelimit: 5, responseTimeout: 2 }), 30_000 + 5000 + 2000)
  assert.equal(runDeadlineMs({ requests: 100 }, 7), 7000)
})

test('run --engine wrk: a run whose connections all fail ends at the run deadline, not a 600 s safety timeout', async (t) => {
  if (spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error) return t.skip('wrk is not installed')
  // Each run's warm-up (4 requests, after the run's env request) is answered, the metrics routes refused,
  // and every other connection reset.
  let answered = 0
  const server = await startRawServer((socket) => {
    socket.once('data', (head) => {
      if (head.toString('latin1').startsWith('GET /__syncbench/env')) answered = 0
      if (head.toString('latin1').startsWith('GET /__syncbench')) return socket.end('HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
      if (answered++ < 4) return socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.resetAndDestroy()
    })
  })
  after(() => server.close())
  const out = path.join(dir, 'wrk')
  const t0 = Date.now()
  const { code, stderr } = await runCli(['run', 'seed-bcrypt', '--no-calibrate', '--target', server.url, '--engine', 'wrk', '--run-timeout', '3',
    '-n', '10', '-c', '1', '--runs', '1', '-q', '--no-report', '--out', out], { timeoutMs: 90_000 })
  const seconds = (Date.now() - t0) / 1000
  assert.equal(code, 1, stderr)
  assert.ok(seconds < 2 * 3 + 20, `ended after ${seconds} s`)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs.length, 2, 'the second configuration ran after the first one\'s deadline')
  for (const run of results.runs) {
    assert.equal(run.error, null)
    assert.match(run.invalid.reason, /deadline of 3 s/)
  }
})

test('run: a response that dribbles and never ends is a failed request with its reason, not a run held to its deadline', async () => {
  // Each run's warm-up (4 requests, after the run's env request) is answered; every later response
  // sends its head and then one body byte every 100 ms, never reaching its Content-Length.
  let answered = 0
  /** @type {Set<NodeJS.Timeout>} */
  const dribbles = new Set()
  const server = await startRawServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', (head) => {
      if (head.toString('latin1').startsWith('GET /__syncbench/env')) answered = 0
      if (head.toString('latin1').startsWith('GET /__syncbench')) return socket.end('HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
      if (answered++ < 4) return socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n')
      const timer = setInterval(() => socket.write('x'), 100)
      dribbles.add(timer)
      socket.once('close', () => { clearInterval(timer); dribbles.delete(timer) })
    })
  })
  after(() => { for (const t of dribbles) clearInterval(t); return server.close() })
  const out = path.join(dir, 'dribble')
  const { code, stderr } = await runCli(['run', 'seed-bcrypt', '--no-calibrate', '--target', server.url, '--response-timeout', '1',
    '-n', '4', '-c', '2', '--runs', '1', '-q', '--no-report', '--out', out], { timeoutMs: 90_000 })
  assert.equal(code, 1, stderr)
  // the line wraps at 100 columns, its continuation indented: joined back
  assert.match(stderr.replace(/\n {2}/g, ' '), /2 invalid runs .*seed-bcrypt\/sync#1 \(4 of 4 failed \(exceptions 4; RESPONSE_TIMEOUT 4\)\)/)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs.length, 2)
  for (const run of results.runs) {
    assert.equal(run.error, null)
    assert.equal(run.load.options.responseTimeout, 1)
    assert.equal(run.load.failedRequests, 4)
    assert.deepEqual(run.load.errors, { RESPONSE_TIMEOUT: 4 })
    // failed by the response timeout, not ended by the run's deadline
    assert.equal(run.invalid.reason, '4 of 4 failed (exceptions 4; RESPONSE_TIMEOUT 4)')
  }
})

test('run\'s per-response deadline: the default, the experiment\'s load.responseTimeout over it, --response-timeout over both', () => {
  const seed = builtinExperiment('seed-bcrypt')
  for (const c of expandExperiment(seed)) assert.equal(c.load.responseTimeout, DEFAULT_RESPONSE_TIMEOUT)
  // far above seed-bcrypt's slowest legitimate sync response at -c 20 (13.8 s measured), and it counts in the run's deadline
  assert.ok(DEFAULT_RESPONSE_TIMEOUT >= 60)
  assert.equal(runDeadlineMs(expandExperiment(seed)[0].load), 30_000 + 13_000 + DEFAULT_RESPONSE_TIMEOUT * 1000)
  const own = { ...seed, load: { ...seed.load, responseTimeout: 5 } }
  assert.equal(expandExperiment(own)[0].load.responseTimeout, 5)
  assert.equal(expandExperiment(own, { responseTimeout: 2 })[0].load.responseTimeout, 2)
  assert.equal(expandExperiment(own, { responseTimeout: 0 })[0].load.responseTimeout, 0)
})

test('run --response-timeout: one line naming the option and the value, exit 2', async () => {
  for (const bad of ['-1', 'abc', '86401']) {
    const r = await runCli(['run', '--response-timeout', bad, '--list'])
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, new RegExp(`^syncbench run: --response-timeout .*"${bad}"\n$`))
  }
})
