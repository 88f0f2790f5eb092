// Shards on separate hosts, for real, on one machine: three network namespaces (a server host and two
// generator hosts) joined by veth pairs on a bridge in the server's namespace. The server runs in one,
// a shard of `syncbench ab --segment i/2 --start-at` (the real CLI, `ip netns exec`) in each of the
// others; `syncbench merge` adds them up, and its totals and percentiles are checked against the
// shards' own and the server's count. Needs root (CI runs as root); skipped, saying why, elsewhere.
// The namespaces' names are unique per run and removed in `after`, whatever happened.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHistogram, decodeHistogram } from '../lib/load/histogram.js'
import { binPath, runCli, runCommand } from './helper.js'

const id = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`
const ns = { server: `sb-srv-${id}`, shards: [`sb-g0-${id}`, `sb-g1-${id}`] }
const SERVER_IP = '10.77.0.1'

/** @param {string[]} args */
function ip (args) {
  const r = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 })
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.error?.message ?? r.stderr.trim()}`)
}

/** Whether this machine lets us make a namespace: the reason to skip, or false. */
function netnsSkip () {
  const probe = `sb-probe-${id}`
  const r = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8', timeout: 10_000 })
  if (r.error) return `ip netns is not available (${r.error.message}): install iproute2 and run as root`
  if (r.status !== 0) return `ip netns is not permitted here (${r.stderr.trim()}): run as root, as CI does`
  spawnSync('ip', ['netns', 'del', probe], { timeout: 10_000 })
  return false
}

const skip = netnsSkip()
const dir = mkdtempSync(path.join(os.tmpdir(), 'syncbench-netns-'))
/** @type {import('node:child_process').ChildProcess|null} */
let serverProcess = null

after(() => {
  if (serverProcess && serverProcess.exitCode === null) serverProcess.kill('SIGKILL')
  for (const name of [ns.server, ...ns.shards]) spawnSync('ip', ['netns', 'del', name], { timeout: 10_000 })
  rmSync(dir, { recursive: true, force: true })
})

/** The hosts: a bridge in the server's namespace, one veth pair per generator host. */
function makeHosts () {
  ip(['netns', 'add', ns.server])
  ip(['-n', ns.server, 'link', 'set', 'lo', 'up'])
  ip(['-n', ns.server, 'link', 'add', 'br0', 'type', 'bridge'])
  ip(['-n', ns.server, 'addr', 'add', `${SERVER_IP}/24`, 'dev', 'br0'])
  ip(['-n', ns.server, 'link', 'set', 'br0', 'up'])
  for (const [i, name] of ns.shards.entries()) {
    ip(['netns', 'add', name])
    ip(['-n', name, 'link', 'set', 'lo', 'up'])
    ip(['link', 'add', `v${i}`, 'netns', ns.server, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name])
    ip(['-n', ns.server, 'link', 'set', `v${i}`, 'master', 'br0'])
    ip(['-n', ns.server, 'link', 'set', `v${i}`, 'up'])
    ip(['-n', name, 'addr', 'add', `10.77.0.${2 + i}/24`, 'dev', 'eth0'])
    ip(['-n', name, 'link', 'set', 'eth0', 'up'])
  }
}

/**
 * A server on SERVER_IP in the server's namespace (its own host: nothing outside the namespaces
 * reaches it). Prints its port, then the requests it answered when its stdin closes.
 */
async function startServer () {
  const script = `
    const http = require('node:http')
    let requests = 0
    const server = http.createServer((req, res) => { requests++; res.end('hello from another host') })
    server.listen(0, ${JSON.stringify(SERVER_IP)}, () => console.log(server.address().port))
    process.stdin.resume()
    process.stdin.on('end', () => { console.log('requests ' + requests); process.exit(0) })`
  const child = spawn('ip', ['netns', 'exec', ns.server, process.execPath, '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] })
  serverProcess = child
  let out = ''
  child.stdout.setEncoding('utf8')
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 10 s')), 10_000)
    child.stdout.on('data', (d) => { out += d; const m = /^(\d+)\n/.exec(out); if (m) { clearTimeout(timer); resolve(Number(m[1])) } })
    child.on('exit', () => reject(new Error(`the server exited: ${out}`)))
  })
  return {
    url: `http://${SERVER_IP}:${port}/`,
    /** stop it and return how many requests it answered */
    stop: async () => {
      child.stdin.end()
      await once(child, 'exit')
      return Number(/requests (\d+)/.exec(out)?.[1])
    }
  }
}

/**
 * Shard i of 2, from its own host.
 * @param {number} i @param {string[]} args
 */
async function shard (i, args) {
  const { code, stdout, stderr } = await runCommand('ip', ['netns', 'exec', ns.shards[i], process.execPath, binPath, 'ab', '--json', '-q', '--segment', `${i}/2`, ...args], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const file = path.join(dir, `${args.includes('-R') ? 'ol' : 'cl'}-shard-${i}.json`)
  writeFileSync(file, stdout)
  return { file, result: JSON.parse(stdout) }
}

test('two shards on two hosts, the server on a third: the merge has their totals and the percentiles of their summed histograms', { skip, timeout: 120_000 }, async () => {
  makeHosts()
  const server = await startServer()
  for (const extra of [[], ['-R', '400']]) {
    // 4 s ahead: node starting on a busy machine must not make it more than 1 s past when it is read
    const startAt = new Date(Date.now() + 4000).toISOString()
    const shards = await Promise.all([0, 1].map((i) => shard(i, ['-n', '401', '-c', '4', '-k', '--start-at', startAt, ...extra, server.url])))
    const [a, b] = shards.map((s) => s.result)
    // each shard ran its share of -n
    assert.deepEqual([a.completeRequests, b.completeRequests], [201, 200])
    const r = await runCli(['merge', '--json', ...shards.map((s) => s.file)])
    assert.equal(r.code, 0, r.stderr)
    const merged = JSON.parse(r.stdout)
    assert.equal(merged.completeRequests, 401)
    assert.equal(merged.failedRequests, 0)
    assert.equal(merged.concurrency, 4)
    assert.equal(merged.totalTransferredBytes, a.totalTransferredBytes + b.totalTransferredBytes)
    assert.equal(merged.keepAliveRequests, a.keepAliveRequests + b.keepAliveRequests)
    assert.deepEqual(merged.statusCodes, { 200: 401 })
    // the window: the first start to the last end
    const starts = [a, b].map((x) => Date.parse(x.startedAt))
    const ends = [a, b].map((x) => Date.parse(x.startedAt) + x.timeTakenSeconds * 1000)
    assert.equal(merged.timeTakenSeconds, Math.round((Math.max(...ends) - Math.min(...starts)) * 1000) / 1e6)
    // percentiles: between the shards' own, and exactly those of their histograms added up
    const sum = createHistogram()
    for (const x of [a, b]) sum.add(decodeHistogram(x.latencyHistogram))
    assert.equal(sum.totalCount, 401)
    assert.equal(merged.latency.max, Math.max(a.latency.max, b.latency.max))
    for (const [key, p] of [['p50', 50], ['p90', 90], ['p99', 99]]) {
      assert.ok(merged.latency[key] >= Math.min(a.latency[key], b.latency[key]) && merged.latency[key] <= Math.max(a.latency[key], b.latency[key]), `${extra} ${key}`)
      assert.equal(merged.latency[key], Math.min(merged.latency.max, Math.round(sum.getValueAtPercentile(p)) / 1000), `${extra} ${key}`)
    }
    if (extra.length > 0) {
      assert.equal(a.options.rate, 200)
      assert.equal(merged.openLoop.targetRate, 400)
      assert.equal(merged.openLoop.achievedRate, Math.round((a.openLoop.achievedRate + b.openLoop.achievedRate) * 1e6) / 1e6)
      assert.equal(merged.openLoop.lateRequests, a.openLoop.lateRequests + b.openLoop.lateRequests)
    }
  }
  // the server, on its own host, answered every request of both runs
  assert.equal(await server.stop(), 802)
})
