// Signals to the real `syncbench run` while the server child's handler blocks its event loop forever:
// nothing of the run outlives the runner by more than 5 s (issue 12), whatever ended it, and the
// results.json it leaves parses.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { readFileSync, readdirSync } from 'node:fs'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { binPath, startRawServer, tempCacheDir } from './helper.js'

/** The issue's bound: every child is gone within 5 s of the runner's end. */
const CHILDREN_GONE_MS = 5000
/** Generous: after an interrupt the runner waits 2 s for metrics and 1 s for the server to stop. */
const RUNNER_ENDS_MS = 20_000

let dir
tempCacheDir('syncbench-signals-', (d) => { dir = d })

/**
 * A live (not zombie) process whose command line names `marker`, by pid.
 * @param {string} marker
 * @returns {number[]}
 */
function processesNaming (marker) {
  const found = []
  for (const name of safeReaddir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8')
      if (!cmdline.includes(marker)) continue
      // "pid (comm) state ...": a zombie has ended, it only waits for its parent to reap it.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name))
    } catch {
      // gone in between
    }
  }
  return found
}

/** @param {string} p */
function safeReaddir (p) {
  try { return readdirSync(p) } catch { return [] }
}

/**
 * Poll until `check` is true or `ms` passed; false if it never was.
 * @param {() => boolean | Promise<boolean>} check
 * @param {number} ms
 */
async function waitUntil (check, ms) {
  const end = Date.now() + ms
  for (;;) {
    if (await check()) return true
    if (Date.now() > end) return false
    await delay(50)
  }
}

/**
 * `syncbench run --workload` on a handler that blocks forever; resolves once the handler runs in the
 * server child (it writes its pid first).
 * @param {string} name
 */
async function startBlockedRun (name) {
  const work = path.join(dir, name)
  await mkdir(work, { recursive: true })
  const pidFile = path.join(work, 'server.pid')
  const workload = path.join(work, 'blocking-workload.mjs')
  await writeFile(workload, `import { writeFileSync } from 'node:fs'
export function sync () {
  writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))
  for (;;) {}
}
`)
  const out = path.join(work, 'out')
  const runner = spawn(process.execPath, [binPath, 'run', '--workload', workload, '-n', '20', '-c', '1', '--no-report', '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  runner.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  runner.stdout.resume()
  const exited = once(runner, 'exit')
  const started = await waitUntil(() => {
    try { return readFileSync(pidFile, 'utf8') !== '' } catch { return false }
  }, 20_000)
  if (!started) {
    runner.kill('SIGKILL')
    assert.fail(`the handler never ran: ${stderr}`)
  }
  const serverPid = Number(readFileSync(pidFile, 'utf8'))
  return { runner, exited, serverPid, work, out, stderr: () => stderr }
}

/**
 * Send `signal` to the runner; returns its exit and whether every process of the run was gone within 5 s.
 * @param {NodeJS.Signals} signal
 */
async function interrupt (signal) {
  const run = await startBlockedRun(signal.toLowerCase())
  assert.ok(processesNaming(run.work).includes(run.serverPid), 'the server child runs before the signal')
  run.runner.kill(signal)
  const timer = setTimeout(() => run.runner.kill('SIGKILL'), RUNNER_ENDS_MS)
  const [code, endedBy] = await run.exited
  clearTimeout(timer)
  const gone = await waitUntil(() => processesNaming(run.work).length === 0, CHILDREN_GONE_MS)
  const left = processesNaming(run.work)
  // Never leave a busy loop behind, whatever the assertions say.
  for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
  assert.ok(gone, `processes of the run left ${CHILDREN_GONE_MS} ms after the runner ended (${signal}): ${left.join(', ')}`)
  if (signal !== 'SIGKILL') assert.notEqual(endedBy, 'SIGKILL', `the runner did not end within ${RUNNER_ENDS_MS} ms of ${signal}: ${run.stderr()}`)
  const results = JSON.parse(await readFile(path.join(run.out, 'results.json'), 'utf8'))
  return { code, endedBy, results, stderr: run.stderr(), out: run.out }
}

for (const [signal, exitCode] of /** @type {const} */ ([['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]])) {
  test(`${signal} to syncbench run with a blocked handler: the summary, exit ${exitCode}, the server child gone`, async () => {
    const { code, endedBy, results, stderr, out } = await interrupt(signal)
    assert.equal(endedBy, null, stderr)
    assert.equal(code, exitCode, stderr)
    assert.match(stderr, /interrupted/)
    assert.match(stderr, /\(interrupted: partial\)/)
    assert.equal(results.finishedAt, null)
    // The interrupted run is kept; the blocked server never answered its metrics request: missing, no error.
    assert.equal(results.runs.length, 1)
    assert.equal(results.runs[0].server, null)
    assert.equal(results.runs[0].error, null)
    assert.ok((await readdir(out)).includes('summary.md'))
  })
}

test('SIGKILL to syncbench run with a blocked handler: the server child ends itself', async () => {
  const { endedBy, results } = await interrupt('SIGKILL')
  assert.equal(endedBy, 'SIGKILL')
  // Written before the first run (atomically): it parses, with no run finished.
  assert.equal(results.runs.length, 0)
})

test('a calibration child blocked in its operation ends itself when its parent is SIGKILLed', async () => {
  const calibrateChild = fileURLToPath(new URL('../lib/run/calibrate-child.js', import.meta.url))
  // bcryptjs at cost 20 blocks the child's main thread for far longer than the bound.
  const starter = `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(calibrateChild)}, 'bcryptjs', '20', String(process.pid)], { detached: true, stdio: 'ignore' })
process.stdout.write(String(c.pid), () => process.kill(process.pid, 'SIGKILL'))`
  const parent = spawn(process.execPath, ['-e', starter], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  parent.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  const [, endedBy] = await once(parent, 'exit')
  assert.equal(endedBy, 'SIGKILL')
  const pid = Number(out)
  assert.ok(pid > 0, out)
  const gone = await waitUntil(() => !isRunning(pid), CHILDREN_GONE_MS)
  if (!gone) process.kill(pid, 'SIGKILL')
  assert.ok(gone, `calibration child ${pid} still running ${CHILDREN_GONE_MS} ms after its parent died`)
})

/**
 * @param {number} pid
 * @returns {boolean} alive and not a zombie
 */
function isRunning (pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/**
 * The processes below `root` (children, grandchildren...), live or not, from /proc: pid and command name.
 * @param {number} root
 * @returns {{ pid: number, comm: string }[]}
 */
function descendants (root) {
  /** @type {Map<number, { pid: number, comm: string }[]>} */
  const children = new Map()
  for (const name of safeReaddir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    let stat
    try { stat = readFileSync(`/proc/${name}/stat`, 'utf8') } catch { continue }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    children.set(ppid, [...(children.get(ppid) ?? []), { pid: Number(name), comm }])
  }
  const found = []
  const queue = [root]
  while (queue.length) {
    for (const child of children.get(/** @type {number} */ (queue.shift())) ?? []) {
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

for (const [tool, probe] of /** @type {const} */ ([['ab', '-V'], ['wrk', '-v']])) {
  test(`SIGKILL to syncbench run --engine ${tool} while the server holds its request: ${tool} ends within 5 s too`, async (t) => {
    if (spawnSync(tool, [probe], { stdio: 'ignore' }).error) return t.skip(`${tool} is not installed`)
    // A server the run does not own (--target), so only the tool's own bounds would end it: ab's -s
    // (30 s), wrk's -d (an hour). It answers the warm-up and holds every later request unanswered.
    let answered = 0
    let held = 0
    /** @type {Set<import('node:net').Socket>} */
    const sockets = new Set()
    const server = await startRawServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {})
      socket.once('data', (head) => {
        const line = head.toString('latin1')
        if (line.startsWith('GET /__syncbench')) return socket.end('HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
        if (answered++ < 4) return socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
        held++
      })
    })
    t.after(() => { for (const s of sockets) s.destroy(); return server.close() })
    const out = path.join(dir, `engine-${tool}`)
    const runner = spawn(process.execPath, [binPath, 'run', 'seed-bcrypt', '--no-calibrate', '--target', server.url, '--engine', tool,
      '-n', '10', '-c', '1', '--runs', '1', '-q', '--no-report', '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    runner.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
    const exited = once(runner, 'exit')
    /** @type {{ pid: number, comm: string }[]} */
    let run = []
    const measuring = await waitUntil(() => {
      run = descendants(/** @type {number} */ (runner.pid))
      return held > 0 && run.some((p) => p.comm === tool)
    }, 30_000)
    if (!measuring) runner.kill('SIGKILL')
    assert.ok(measuring, `${tool} never sent its request: ${stderr}`)
    runner.kill('SIGKILL')
    await exited
    const gone = await waitUntil(() => run.every((p) => !isRunning(p.pid)), CHILDREN_GONE_MS)
    const left = run.filter((p) => isRunning(p.pid))
    for (const p of left) { try { process.kill(p.pid, 'SIGKILL') } catch {} }
    assert.ok(gone, `left ${CHILDREN_GONE_MS} ms after the runner was SIGKILLed: ${left.map((p) => `${p.comm} ${p.pid}`).join(', ')}`)
  })
}
