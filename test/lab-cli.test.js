// `syncbench serve` from a terminal's point of view: help, bad options, the listening lines,
// SIGINT / SIGTERM, a busy port; and spawnServer's start failures.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { runCli, startHttpServer, httpGet, serveInTerminal, binPath } from './helper.js'
import { spawnServer } from '../lib/lab/spawn.js'

// The lab and seed-readfile create data files: in a temp dir every server of this file inherits, not /tmp/syncbench-cache.
const savedCacheDir = process.env.SYNCBENCH_CACHE_DIR
let cacheDir
before(async () => {
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-cli-cache-'))
  process.env.SYNCBENCH_CACHE_DIR = cacheDir
})
after(async () => {
  if (savedCacheDir === undefined) delete process.env.SYNCBENCH_CACHE_DIR
  else process.env.SYNCBENCH_CACHE_DIR = savedCacheDir
  await rm(cacheDir, { recursive: true, force: true })
})

test('serve --help prints the usage on stdout and exits 0', async () => {
  const { code, stdout, stderr } = await runCli(['serve', '--help'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  assert.match(stdout, /^Usage: syncbench serve <app>/)
  for (const word of ['seed-bcrypt', 'seed-readfile', 'lab', '--only', '--file-size', '--pool-size', '--framework', '/__syncbench/metrics']) assert.ok(stdout.includes(word), word)
})

const badInvocations = [
  [['serve'], /^syncbench serve: an app is needed: seed-bcrypt, seed-readfile, lab/],
  [['serve', 'nope'], /app must be one of seed-bcrypt, seed-readfile, lab, got "nope"/],
  [['serve', 'lab', '--port', '70000'], /--port must be an integer from 0 to 65535, got "70000"/],
  [['serve', 'lab', '--port', 'abc'], /--port .*got "abc"/],
  [['serve', 'lab', '--framework', 'koa'], /--framework must be express or http, got "koa"/],
  [['serve', 'lab', '--pool-size', '0'], /--pool-size must be an integer from 1 to 256, got "0"/],
  [['serve', 'seed-readfile', '--file-size', '2g'], /--file-size must be a size from 0 to 1GiB .*got "2g"/],
  [['serve', 'seed-readfile', '--only', 'fibers'], /--only must be one of readfile, readfilesync, fake-async, got "fibers"/],
  [['serve', 'seed-bcrypt', '--only', 'readfile'], /--only applies to seed-readfile only/],
  [['serve', 'lab', '--frobnicate'], /unknown option "--frobnicate"/],
  [['serve', 'lab', '--port'], /option "--port" needs a value/],
  // a negative number reaches the option's bounds, not parseArgs' "takes no value" (issue 12)
  [['serve', 'lab', '--port', '-1'], /^syncbench serve: --port must be an integer from 0 to 65535, got "-1"\n$/],
  [['serve', 'lab', '--port', '--host', '::1'], /^syncbench serve: option "--port" needs a value/],
  [['serve', 'lab', '--host', '[nope]'], /^syncbench serve: --host must be an address such as 127\.0\.0\.1 or \[::1\], got "\[nope\]"\n$/]
]
for (const [args, message] of badInvocations) {
  test(`syncbench ${args.join(' ')}: one line on stderr, exit 2 (usage)`, async () => {
    const { code, stdout, stderr } = await runCli(args)
    assert.equal(code, 2)
    assert.match(stderr, /^syncbench serve: /)
    assert.equal(stdout, '')
    assert.match(stderr, message)
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
    assert.doesNotMatch(stderr, /\bat .*\.js:\d+/)
  })
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  test(`seed-bcrypt in a terminal: one listening line, serves, exits 0 on ${signal}`, async () => {
    const server = await serveInTerminal(['seed-bcrypt', '--port', '0'], 1)
    assert.match(server.stdout(), /^seed-bcrypt listening on http:\/\/127\.0\.0\.1:\d+ \(GET \/sync, GET \/async\)\n$/)
    const res = await httpGet(server.urls[0] + '/async')
    assert.equal(res.status, 200)
    server.child.kill(signal)
    const [code] = await server.closed
    assert.equal(code, 0)
    assert.match(server.stderr(), new RegExp(`${signal}, servers closed`))
    await assert.rejects(httpGet(server.urls[0] + '/async'), { code: 'ECONNREFUSED' })
  })
}

test('seed-readfile in a terminal: three lines, three processes, none left after SIGTERM', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-cli-'))
  try {
    const server = await serveInTerminal(['seed-readfile', '--port', '0', '--file-size', '1k', '--cache-dir', dir], 3)
    const lines = server.stdout().trim().split('\n')
    assert.match(lines[0], /^seed-readfile readfile listening on http:\/\/127\.0\.0\.1:\d+ \(GET \/ \(fs\.readFile, pid \d+\)\)$/)
    assert.match(lines[1], /^seed-readfile readfilesync listening on /)
    assert.match(lines[2], /^seed-readfile fake-async listening on /)
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number)
    assert.equal(children.length, 3)
    for (const url of server.urls) assert.equal((await httpGet(url)).body, 'Coucou gamin')
    server.child.kill('SIGTERM')
    const [code] = await server.closed
    assert.equal(code, 0)
    for (const pid of children) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

// 127.0.0.2 answers on Linux's loopback only; elsewhere it is not an address of the machine.
test('lab --host binds the address given', { skip: process.platform !== 'linux' && 'needs 127.0.0.2 on loopback' }, async () => {
  const server = await serveInTerminal(['lab', '--port', '0', '--host', '127.0.0.2', '--framework', 'http'], 1)
  try {
    assert.match(server.urls[0], /^http:\/\/127\.0\.0\.2:\d+$/)
    assert.equal((await httpGet(server.urls[0] + '/wait/async?ms=0')).body, 'waited 0 ms')
  } finally {
    server.child.kill('SIGTERM')
    await server.closed
  }
})

test('lab --host [::1] binds IPv6 loopback, written as a URL writes it (issue 12)', async (t) => {
  const probe = net.createServer()
  const v6 = await new Promise((resolve) => probe.once('error', () => resolve(false)).listen(0, '::1', () => probe.close(() => resolve(true))))
  if (!v6) { t.skip('no IPv6 loopback'); return }
  const server = await serveInTerminal(['lab', '--port', '0', '--host', '[::1]', '--framework', 'http'], 1)
  try {
    assert.match(server.urls[0], /^http:\/\/\[::1\]:\d+$/)
    assert.equal((await httpGet(server.urls[0] + '/wait/async?ms=0')).body, 'waited 0 ms')
  } finally {
    server.child.kill('SIGTERM')
    await server.closed
  }
})

test('serve --cache-dir under /proc: refused in one line, not a hang (issue 12)', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const { code, stdout, stderr } = await runCli(['serve', 'seed-readfile', '--port', '0', '--cache-dir', '/proc/nope'], { timeoutMs: 30_000 })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr, 'syncbench serve: --cache-dir /proc/nope cannot be created: /proc is on proc, a kernel file system\n')
})

test('a port already in use: one clear line, exit 1; spawnServer rejects with SB_ERR_SERVER_START', async () => {
  const busy = await startHttpServer((req, res) => res.end())
  try {
    const { code, stdout, stderr } = await runCli(['serve', 'seed-bcrypt', '--port', String(busy.port)])
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.equal(stderr, `syncbench serve: seed-bcrypt: --port ${busy.port} is already in use on 127.0.0.1 (EADDRINUSE)\n`)
    await assert.rejects(spawnServer({ app: 'seed-readfile', args: ['--only', 'readfile', '--port', String(busy.port)] }), {
      name: 'SyncbenchError',
      code: 'SB_ERR_SERVER_START',
      message: `readfile: --port ${busy.port} is already in use on 127.0.0.1 (EADDRINUSE)`
    })
  } finally {
    await busy.close()
  }
})

test('spawnServer rejects with the child\'s last stderr line when it exits first, and on a start timeout', async () => {
  await assert.rejects(spawnServer({ app: 'lab', args: ['--pool-size', 'many'] }), {
    code: 'SB_ERR_SERVER_START',
    message: /--pool-size must be an integer from 1 to 256, got "many"/
  })
  await assert.rejects(spawnServer({ app: 'lab', startTimeoutMs: 1 }), { code: 'SB_ERR_SERVER_START', message: /not ready within 1 ms/ })
})

test('a stopped handle refuses metrics and stop() is idempotent', async () => {
  const server = await spawnServer({ app: 'seed-bcrypt' })
  await Promise.all([server.stop(), server.stop()])
  assert.throws(() => process.kill(server.pid, 0), { code: 'ESRCH' })
  await assert.rejects(server.metrics(), { code: 'SB_ERR_SERVER_EXITED' })
})

test('a forked server leads its own process group, so a terminal\'s Ctrl-C reaches only its parent', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const server = await spawnServer({ app: 'seed-bcrypt' })
  try {
    // /proc/<pid>/stat: pid (comm) state ppid pgrp ...
    const fields = (await readFile(`/proc/${server.pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ')
    assert.equal(Number(fields[1]), process.pid, 'parent')
    assert.equal(Number(fields[2]), server.pid, 'process group')
    assert.notEqual(Number(fields[2]), Number((await readFile('/proc/self/stat', 'utf8')).replace(/^.*\) /, '').split(' ')[2]))
  } finally {
    await server.stop()
  }
})

/**
 * Live (not zombie) processes, by pid, whose process group is `pgid` or whose command line names `marker`.
 * @param {number} pgid
 * @param {string} marker
 * @returns {Promise<number[]>}
 */
async function processesOf (pgid, marker) {
  const found = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    // "pid (comm) state ppid pgrp ...": the fields after the command name
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (state !== undefined && state !== 'Z' && (Number(pgrp) === pgid || cmdline.includes(marker))) found.push(Number(entry))
  }
  return found
}

test('serve: SIGTERM while it writes a large data file stops it at once: exit 143, no process, no cache file left (issue 12)', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-serve-startup-'))
  try {
    // 1 GiB of random bytes takes seconds to write: the signal comes while the file is half written.
    const child = spawn(process.execPath, [binPath, 'serve', 'seed-readfile', '--port', '0', '--file-size', '1g', '--cache-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
    child.stdout.resume()
    const exited = once(child, 'exit')
    const safety = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL') } catch {} }, 20_000)
    while (!(await readdir(dir)).some((name) => name.endsWith('.tmp'))) {
      if (child.exitCode !== null) assert.fail(`serve exited first: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    child.kill('SIGTERM')
    // Before the fix serve finished writing the file and starting its three servers first.
    const bound = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL') } catch {} }, 5000)
    const [code, signal] = await exited
    clearTimeout(bound)
    clearTimeout(safety)
    assert.equal(signal, null, `serve did not end within 5 s of SIGTERM: ${stderr}`)
    assert.equal(code, 143, stderr)
    assert.equal(stderr, 'syncbench serve: SIGTERM while starting, stopped (nothing served)\n')
    assert.deepEqual(await readdir(dir), [], 'neither the half-written temporary file nor a data file is left')
    assert.deepEqual(await processesOf(child.pid, dir), [], 'no process of serve is left')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
