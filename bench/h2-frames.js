// Can an HTTP/2 client framing layer in JavaScript (lib/load/h2-frames.js over syncbench's byte
// transports) match h2load's CPU per request? Each generator runs -n requests over -c 10 connections
// of -m 10 streams against the same server, in rounds whose order rotates, and its CPU time (user +
// system) is divided by the requests it completed; the median and range over the rounds are printed,
// with each round's ratio to h2load's run of the same round.
//
// Generators: the framer over the native transport and over node:net (bench/h2-frames-client.js;
// CPU from the first connect to the last response, by process.cpuUsage, and its whole process by
// GNU time), h2load (whole process), and syncbench ab --http2 (the framer inside the CLI, whole
// process: "syncbench ab --http2" in the table).
// Servers: a node:http2 hello server (bench/h2-hello-server.js) and nghttpd --no-tls serving a
// 12-byte file; each is skipped with a note when it cannot start.
//
// The machine is shared, so each run also records how busy it was: the share of both cores used
// while it ran, and what of that was neither the generator nor the server ("others").
//
// Usage: node bench/h2-frames.js [--requests 100000] [--rounds 5] [--only native,net,h2load,node-http2]
//                                [--servers node,nghttpd]
import { spawn, fork, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir, cpus } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string', default: 'native,net,h2load,node-http2' },
    servers: { type: 'string', default: 'node,nghttpd' }
  }
})
const N = Number(values.requests)
const rounds = Number(values.rounds)
const only = new Set(values.only.split(','))
const TICK = 100 // clock ticks per second of /proc's times (USER_HZ)

/**
 * @typedef {{ name: string, run: (url: string, dir: string) => Promise<Sample> }} Generator
 * @typedef {{ cpu: number, steadyCpu: number|null, wall: number, good: number }} Sample
 */

/** A child's whole-process CPU seconds by GNU time, its output, and its wall time. @param {string[]} argv @param {string} dir */
async function timed (argv, dir) {
  const timeFile = join(dir, 'time')
  const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%U %S', ...argv], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d })
  const t0 = performance.now()
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
  await once(child, 'close')
  clearTimeout(timer)
  const wall = (performance.now() - t0) / 1000
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number)
  return { cpu: user + sys, out, wall }
}

/** @param {'native'|'net'} kind @returns {Generator} */
function framer (kind) {
  return {
    name: `h2-frames ${kind}`,
    async run (url, dir) {
      const u = new URL(url)
      const r = await timed([process.execPath, 'bench/h2-frames-client.js', kind, u.port, u.pathname, String(N), '10', '10'], dir)
      const line = r.out.split('\n').find((l) => l.startsWith('{'))
      if (!line) throw new Error(`h2-frames ${kind}: ${r.out.trim().slice(0, 300)}`)
      const o = JSON.parse(line)
      if (Object.keys(o.failures).length > 0) console.error(`  h2-frames ${kind}: ${JSON.stringify(o.failures)}`)
      return { cpu: r.cpu, steadyCpu: o.cpuUs / 1e6, wall: r.wall, good: o.good }
    }
  }
}

/** @type {Generator} */
const h2load = {
  name: 'h2load',
  async run (url, dir) {
    const r = await timed(['h2load', '-c', '10', '-m', '10', '-n', String(N), url], dir)
    const m = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded/.exec(r.out)
    return { cpu: r.cpu, steadyCpu: null, wall: r.wall, good: m ? Number(m[1]) : 0 }
  }
}

/** @type {Generator} */
const nodeHttp2 = {
  name: 'syncbench ab --http2',
  async run (url, dir) {
    const r = await timed([process.execPath, 'bin/syncbench.js', 'ab', '--http2', '-c', '10', '--streams', '10', '-n', String(N), url], dir)
    const complete = /Complete requests:\s+(\d+)/.exec(r.out)
    const failed = /Failed requests:\s+(\d+)/.exec(r.out)
    return { cpu: r.cpu, steadyCpu: null, wall: r.wall, good: complete ? Number(complete[1]) - Number(failed?.[1] ?? 0) : 0 }
  }
}

/** All cores' busy and total ticks, from /proc/stat. */
function machineTicks () {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const total = f.reduce((a, b) => a + b, 0)
  return { busy: total - f[3] - f[4], total }
}

/** A process's CPU ticks (utime + stime), 0 when it is gone. @param {number} pid */
function processTicks (pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return Number(f[11]) + Number(f[12])
  } catch {
    return 0
  }
}

/** A free TCP port on 127.0.0.1 (for nghttpd, which takes a number). */
async function freePort () {
  const s = net.createServer().listen(0, '127.0.0.1')
  await once(s, 'listening')
  const port = /** @type {net.AddressInfo} */ (s.address()).port
  s.close()
  return port
}

/** @param {string} dir @returns {Promise<{ name: string, url: string, pid: number, stop: () => void }|null>} */
async function startServer (name, dir) {
  if (name === 'node') {
    const child = fork(join(root, 'bench/h2-hello-server.js'))
    const [{ port }] = await once(child, 'message')
    return { name: 'node:http2', url: `http://127.0.0.1:${port}/`, pid: child.pid ?? 0, stop: () => child.kill() }
  }
  if (spawnSync('nghttpd', ['--version']).error) {
    console.error('nghttpd is not installed: its server is skipped')
    return null
  }
  writeFileSync(join(dir, 'hello'), 'hello world\n')
  const port = await freePort()
  const child = spawn('nghttpd', ['--no-tls', '-d', dir, String(port)], { stdio: 'ignore' })
  for (let i = 0; i < 50; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true) }).on('error', () => resolve(false))
    })
    if (ok) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { name: 'nghttpd', url: `http://127.0.0.1:${port}/hello`, pid: child.pid ?? 0, stop: () => child.kill() }
}

/** @param {number[]} xs */
function median (xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** "median (min–max)" to three significant digits @param {number[]} xs */
function spread (xs) {
  const digits = (/** @type {number} */ x) => x.toFixed(Math.max(0, 2 - Math.floor(Math.log10(Math.max(x, 1)))))
  return `${digits(median(xs))} (${digits(Math.min(...xs))}–${digits(Math.max(...xs))})`
}

/** @type {Generator[]} */
const generators = [
  ...(only.has('native') ? [framer('native')] : []),
  ...(only.has('net') ? [framer('net')] : []),
  ...(only.has('h2load') ? [h2load] : []),
  ...(only.has('node-http2') ? [nodeHttp2] : [])
]
const cores = cpus().length
console.log(`h2-frames bench: -n ${N} -c 10 -m 10, ${rounds} rounds, ${cores} cores, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
for (const serverName of values.servers.split(',')) {
  const dir = mkdtempSync(join(tmpdir(), 'h2-frames-bench-'))
  const server = await startServer(serverName, dir)
  if (server === null) continue
  /** @type {Map<string, { perReq: number[], steady: number[], ratio: number[], steadyRatio: number[], rps: number[], busy: number[], others: number[] }>} */
  const results = new Map(generators.map((g) => [g.name, { perReq: [], steady: [], ratio: [], steadyRatio: [], rps: [], busy: [], others: [] }]))
  for (let round = 0; round < rounds; round++) {
    /** @type {Map<string, number>} */
    const roundCpu = new Map()
    /** @type {Map<string, number>} */
    const roundSteady = new Map()
    for (let k = 0; k < generators.length; k++) {
      const g = generators[(k + round) % generators.length]
      const m0 = machineTicks()
      const s0 = processTicks(server.pid)
      const sample = await g.run(server.url, dir)
      const m1 = machineTicks()
      const serverCpu = (processTicks(server.pid) - s0) / TICK
      const r = /** @type {NonNullable<ReturnType<typeof results.get>>} */ (results.get(g.name))
      if (sample.good < N) console.error(`  ${g.name} round ${round + 1}: ${sample.good} of ${N} good`)
      const busy = (m1.busy - m0.busy) / (m1.total - m0.total)
      const others = Math.max(0, (m1.busy - m0.busy) / TICK - sample.cpu - serverCpu) / (sample.wall * cores)
      r.perReq.push(sample.cpu / N * 1e6)
      if (sample.steadyCpu !== null) r.steady.push(sample.steadyCpu / N * 1e6)
      r.rps.push(N / sample.wall)
      r.busy.push(busy * 100)
      r.others.push(others * 100)
      roundCpu.set(g.name, sample.cpu)
      if (sample.steadyCpu !== null) roundSteady.set(g.name, sample.steadyCpu)
    }
    const base = roundCpu.get('h2load')
    if (base !== undefined) {
      for (const [name, cpu] of roundCpu) results.get(name)?.ratio.push(cpu / base)
      for (const [name, cpu] of roundSteady) results.get(name)?.steadyRatio.push(cpu / base)
    }
  }
  server.stop()
  rmSync(dir, { recursive: true, force: true })
  const all = [...results.values()]
  const busy = median(all.flatMap((r) => r.busy))
  const others = median(all.flatMap((r) => r.others))
  console.log(`\n${server.name} (${server.url}): both cores ${busy.toFixed(0)}% busy, ${others.toFixed(0)}% by others`)
  console.log(`CPU µs per request, median (min–max) of ${rounds} rounds`)
  console.log('generator         whole process     ×h2load           steady            ×h2load             req/s')
  for (const [name, r] of results) {
    const cells = [spread(r.perReq), r.ratio.length ? spread(r.ratio) : '', r.steady.length ? spread(r.steady) : '', r.steadyRatio.length ? spread(r.steadyRatio) : '']
    console.log(`${name.padEnd(18)}${cells.map((c) => c.padEnd(18)).join('')}${median(r.rps).toFixed(0).padStart(7)}`)
  }
}
console.log('\nwhole process: GNU time of the generator process (start-up included); steady: the framer\'s own')
console.log('process.cpuUsage() from its first connect to its last response. ×h2load: over h2load\'s whole')
console.log('process in the same round. busy: both cores\' use during the runs (medians); by others: the share')
console.log('of both cores used by neither the generator nor the server (other work on the machine).')
