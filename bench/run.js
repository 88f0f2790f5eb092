// npm run bench: CPU per request (and peak memory) of syncbench ab against its peers, measured in the
// same invocation against the same server, reported as ratios to syncbench.
//
// On a 2-core machine the node:http server is the throughput ceiling, so requests/s says little about
// a generator; what a generator costs is its own CPU time (user + system) divided by the requests it
// completed. Each generator is timed as a whole process by GNU time when it is installed (it also gives
// peak RSS), else by bash's `times` builtin, and runs about as long as the others (--requests / 25000
// seconds, at least 2; the node:http client, a yardstick, sends --requests). Peers that are not
// installed are skipped with a note.
//
// Then the open loop (syncbench ab -R): target vs achieved rate and the generator's CPU at 100, 1000
// and 10000 req/s (5 s each), against nginx when it is installed (else the node:http hello server),
// then doubling the rate, and bisecting twice, to find the highest rate one generator holds within 1%.
//
// Then the performance targets against nginx (when installed, and taskset): nginx pinned to one core,
// every generator to the other, so a generator's limit is its own core: CPU per request against wrk -t1
// at c=50 and c=1000 (keep-alive) and against ab without keep-alive, peak RSS of -c 1000 -n 1000000,
// and --workers 2 beside one worker on the same core; syncbench with its native TCP transport and
// with node:net (SYNCBENCH_IO=net); whole-process CPU and steady state (start-up and exit taken off).
//
// Then HTTP/2 (--only http2): syncbench ab --http2 -c 10 --streams 10 against h2load -c 10 -m 10, the
// same -n, on the same server: bench/hello-server.js --http2 (node:http2) and nghttpd --no-tls serving
// a small file (when installed); interleaved rounds, CPU per request of each generator's process as a
// ratio to h2load's, median and range.
//
// Then what watching costs (bench/dashboard-overhead.js): CPU per request of syncbench ab -k -c 50 with
// --dashboard and a Chromium page open on it, beside the same run without, many alternated rounds, the
// ratio with its 95% confidence interval (needs nginx, taskset and /usr/bin/chromium or --chromium).
//
// --json <file> also writes each part's figures as one document (schema syncbench/bench@1): the
// invocations recorded in docs/recorded/bench-*.json are what docs/benchmarks.md's "Measured here"
// tables show, median and range (scripts/docs-bench.js).
//
// Usage: npm run bench [-- --requests 100000 --concurrency 50 --repeat 3 --quick --only ab,wrk,nginx,open-loop,http2,dashboard]
//                      [--h2-requests 20000]
//                      [--rates 100,1000,10000 --rate-seconds 5 --max-rate 320000 --big-requests 1000000]
//                      [--dashboard-rounds 60 --dashboard-requests 600000 --chromium /usr/bin/chromium]
//                      [--json <file>]
import { spawn, fork, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { findNginx, startNginx } from './nginx.js'
import { costText, dashboardCost, dashboardCostMissing } from './dashboard-overhead.js'
import { rateInterval } from '../lib/analysis/stats.js'
import { addon } from '../lib/load/native-addon.js'
import { collectEnvironment } from '../lib/lab/metrics.js'
import { writeFileAtomic } from '../lib/fs-atomic.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '50' },
    repeat: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    rates: { type: 'string', default: '100,1000,10000' },
    'rate-seconds': { type: 'string', default: '5' },
    'max-rate': { type: 'string', default: '320000' },
    'big-requests': { type: 'string', default: '1000000' },
    'h2-requests': { type: 'string', default: '20000' },
    'dashboard-rounds': { type: 'string', default: '60' },
    'dashboard-requests': { type: 'string', default: '600000' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    json: { type: 'string' }
  }
})
if (values.json === '') throw new Error('--json needs a file name')
const requests = values.quick ? 5000 : Number(values.requests)
const concurrency = Number(values.concurrency)
const repeat = values.quick ? 1 : Number(values.repeat)
// Duration-based peers (wrk, autocannon) run about as long as the count-based ones.
const seconds = values.quick ? 1 : Math.max(2, Math.round(requests / 25000))

const has = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).error === undefined
const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%U', 'true'], { encoding: 'utf8' }).stderr.trim() !== ''

/**
 * What --json writes: the machine, the command and each part's figures as the tables print them
 * (numbers unrounded; null where a figure is not available).
 */
const record = {
  schema: 'syncbench/bench@1',
  createdAt: new Date().toISOString(),
  finishedAt: /** @type {string|null} */ (null),
  // the command as typed, less where its record goes
  argv: process.argv.slice(2).filter((w, i, all) => w !== '--json' && all[i - 1] !== '--json' && !w.startsWith('--json=')),
  environment: collectEnvironment(),
  transport: addon !== null ? 'native' : 'node:net',
  timedBy: gnuTime ? 'GNU time' : "bash's times",
  parts: {}
}

/** @typedef {{ name: string, argv: (url: string) => string[], count: (out: string) => number, available: boolean, timeoutMs?: number, env?: Record<string, string>, startup?: (url: string) => string[] }} Peer */
/** @type {Peer[]} */
const peers = [
  {
    name: 'syncbench ab -k',
    // as long as wrk and autocannon run (-t, with a -n it does not reach): the same start-up per second
    argv: (url) => [process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', '-k', '-c', String(concurrency), '-t', String(seconds), '-n', '100000000', url],
    count: (out) => Number(/^Complete requests:\s+(\d+)/m.exec(out)?.[1]),
    available: true
  },
  {
    name: 'ab -k',
    argv: (url) => ['ab', '-q', '-k', '-c', String(concurrency), '-t', String(seconds), '-n', '100000000', url],
    count: (out) => Number(/^Complete requests:\s+(\d+)/m.exec(out)?.[1]),
    available: has('ab', ['-V'])
  },
  {
    name: 'wrk -t1',
    argv: (url) => ['wrk', '-t1', `-c${concurrency}`, `-d${seconds}s`, url],
    count: (out) => Number(/^\s*(\d+) requests in/m.exec(out)?.[1]),
    available: has('wrk', ['-v'])
  },
  {
    name: 'autocannon',
    argv: (url) => [process.execPath, join(root, 'node_modules/autocannon/autocannon.js'), '-c', String(concurrency), '-d', String(seconds), url],
    count: (out) => Number(/(\d+)k? requests in/m.exec(out)?.[1]) * (/\dk requests in/.test(out) ? 1000 : 1),
    available: existsSync(join(root, 'node_modules/autocannon/autocannon.js'))
  },
  {
    name: 'node:http client',
    argv: (url) => [process.execPath, join(root, 'bench/http-client-peer.js'), url, String(requests), String(concurrency)],
    count: (out) => Number(/^Complete requests:\s+(\d+)/m.exec(out)?.[1]),
    available: true
  }
]

/**
 * Run one generator as a whole process and return its CPU seconds, peak RSS and requests.
 * @param {Peer} peer
 * @param {string} url
 */
async function measure (peer, url) {
  const dir = mkdtempSync(join(tmpdir(), 'syncbench-bench-'))
  const timeFile = join(dir, 'time')
  const argv = peer.argv(url)
  const env = { ...process.env, ...peer.env }
  const child = gnuTime
    ? spawn('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %M', ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env })
    : spawn('bash', ['-c', `"$@" ; times > ${JSON.stringify(timeFile)}`, 'bench', ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d })
  const started = process.hrtime.bigint()
  // Every load loop is bounded: a peer that hangs is killed after two minutes (or its own bound).
  const timer = setTimeout(() => child.kill('SIGKILL'), peer.timeoutMs ?? 120_000)
  let raw
  try {
    await once(child, 'close')
    raw = readFileSync(timeFile, 'utf8').trim()
  } finally {
    clearTimeout(timer)
    rmSync(dir, { recursive: true, force: true })
  }
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  let cpu
  let rssKiB = NaN
  if (gnuTime) {
    // GNU time's own line (it may be preceded by "Command exited with non-zero status N")
    const line = raw.split('\n').reverse().find((l) => /^[\d.]+ [\d.]+ \d+$/.test(l.trim()))
    if (line === undefined) throw new Error(`${peer.name}: GNU time wrote no figures:\n${raw}\n${out.slice(-2000)}`)
    const [user, sys, rss] = line.trim().split(/\s+/).map(Number)
    cpu = user + sys
    rssKiB = rss
  } else {
    // bash `times`: the second line is the children's "user system", as 0m1.234s.
    const toSec = (s) => { const m = /(\d+)m([\d.]+)s/.exec(s); return Number(m[1]) * 60 + Number(m[2]) }
    const [user, sys] = raw.split('\n')[1].trim().split(/\s+/).map(toSec)
    cpu = user + sys
  }
  const done = peer.count(out)
  if (!Number.isFinite(done) || done <= 0) throw new Error(`${peer.name}: could not read the request count from its output:\n${out}`)
  return { cpu, rssKiB, done, wall, out }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] }

/**
 * The table as markdown, columns padded.
 * @param {string[]} head @param {string[][]} rows
 */
function printTable (head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |'
  console.log(line(head))
  console.log('| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |')
  for (const r of rows) console.log(line(r))
}

/**
 * The open loop: one syncbench ab -R run per rate, a fresh process each, timed as a whole (its CPU
 * over its wall time, start-up included), achieved rate and late requests from its --json.
 * @param {string} url @param {string} serverName
 */
async function openLoop (url, serverName) {
  const runSeconds = values.quick ? 1 : Number(values['rate-seconds'])
  const listed = values.quick ? [100, 1000] : values.rates.split(',').map(Number)
  const maxRate = Number(values['max-rate'])
  console.error(`open loop: syncbench ab -k -R <rate> -c ${concurrency} -t ${runSeconds} against ${serverName}`)
  /** @type {Map<number, { rss: number, achieved: number, cpuPercent: number, late: number, p99: number, uncorrectedP99: number }>} */
  const measured = new Map()
  /** @param {number} rate */
  const run = async (rate) => {
    const peer = {
      name: `syncbench ab -R ${rate}`,
      argv: (u) => [process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', '-k', '-R', String(rate), '-c', String(concurrency), '-t', String(runSeconds), '--json', u],
      count: (out) => JSON.parse(out.slice(out.indexOf('{'))).completeRequests,
      available: true
    }
    const m = await measure(peer, url)
    const r = JSON.parse(m.out.slice(m.out.indexOf('{')))
    const row = { rss: m.rssKiB / 1024, achieved: r.openLoop.achievedRate, cpuPercent: Math.max(0, m.cpu - idle.cpu) / Math.max(0.001, m.wall - idle.wall) * 100, late: r.openLoop.lateRequests, p99: r.latency.p99, uncorrectedP99: r.latencyUncorrected.p99 }
    measured.set(rate, row)
    // (the CPU of the whole process too, start-up included, for the record)
    console.error(`  -R ${rate}: achieved ${row.achieved.toFixed(1)} req/s, generator CPU ${row.cpuPercent.toFixed(1)}% of a core (${(m.cpu / m.wall * 100).toFixed(1)}% with start-up), ${row.late} late`)
    return row
  }
  // the CPU of a run that sends one request: start-up and exit, taken off each rate's CPU below
  const idle = await measure({ name: 'syncbench ab -R (start-up)', argv: (u) => [process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', '-k', '-R', '1000', '-n', '1', '--json', u], count: () => 1, available: true }, url)
  console.error(`  start-up and exit: ${(idle.cpu * 1000).toFixed(0)} ms CPU, ${(idle.wall * 1000).toFixed(0)} ms wall`)
  const holds = (/** @type {number} */ rate, /** @type {{ achieved: number }} */ row) => Math.abs(row.achieved - rate) <= rate / 100
  for (const rate of listed) await run(rate)
  // the highest rate held within 1%: double from the highest listed one, then bisect twice
  let good = Math.max(0, ...listed.filter((rate) => holds(rate, measured.get(rate))))
  let bad = Infinity
  if (!values.quick) {
    for (let rate = Math.max(...listed) * 2; rate <= maxRate && bad === Infinity; rate *= 2) {
      if (holds(rate, await run(rate))) good = rate
      else bad = rate
    }
    for (let i = 0; i < 2 && bad !== Infinity && good > 0; i++) {
      const rate = Math.round((good + bad) / 2 / 1000) * 1000
      if (rate === good || rate === bad) break
      if (holds(rate, await run(rate))) good = rate
      else bad = rate
    }
  }
  const rows = [...measured.keys()].sort((a, b) => a - b).map((rate) => {
    const m = measured.get(rate)
    return [String(rate), m.achieved.toFixed(1), `${((m.achieved / rate - 1) * 100).toFixed(2)}%`, holds(rate, m) ? 'yes' : 'no', m.cpuPercent.toFixed(1), String(m.late), m.p99.toFixed(2), m.uncorrectedP99.toFixed(2), Number.isFinite(m.rss) ? m.rss.toFixed(1) : 'n/a']
  })
  record.parts.openLoop = {
    server: serverName,
    concurrency,
    secondsPerRate: runSeconds,
    startupCpuMs: idle.cpu * 1000,
    rates: [...measured.keys()].sort((a, b) => a - b).map((rate) => {
      const m = measured.get(rate)
      return { target: rate, achieved: m.achieved, withinOnePercent: holds(rate, m), cpuPercent: m.cpuPercent, late: m.late, p99Ms: m.p99, uncorrectedP99Ms: m.uncorrectedP99, peakRssMiB: Number.isFinite(m.rss) ? m.rss : null }
    }),
    held: good,
    // null: every rate tried was held
    missed: bad === Infinity ? null : bad
  }
  console.log(`\nopen loop against ${serverName}, -k -c ${concurrency}, ${runSeconds} s per rate (one run each):`)
  printTable(['target req/s', 'achieved req/s', 'error', 'within 1%', 'generator CPU % of a core', 'late requests', 'corrected p99 ms', 'uncorrected p99 ms', 'peak RSS MiB'], rows)
  const limit = bad === Infinity ? `at least ${good} req/s (the highest rate tried)` : `${good} req/s (${bad} req/s missed by more than 1%)`
  console.log(`\nhighest rate one generator held within 1% here: ${limit}. Generator CPU: the process's user + system time over its wall time, less a one-request run's (start-up and exit: ${(idle.cpu * 1000).toFixed(0)} ms CPU).`)
}

/**
 * The targets against nginx: nginx on core 1, each generator on core 0 (taskset), rounds interleaved;
 * each row's CPU per request as a ratio to its reference peer's (the target: at most 1).
 * @param {string} nginx the executable
 */
async function nginxTargets (nginx) {
  const target = await startNginx(nginx, { cpu: 1 })
  const pin = (/** @type {string[]} */ argv) => ['taskset', '-c', '0', ...argv]
  const sb = (/** @type {string[]} */ args) => (/** @type {string} */ u) => pin([process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', ...args, u])
  const abCount = (/** @type {string} */ out) => Number(/^Complete requests:\s+(\d+)/m.exec(out)?.[1])
  const wrkCount = (/** @type {string} */ out) => Number(/^\s*(\d+) requests in/m.exec(out)?.[1])
  const big = values.quick ? '20000' : values['big-requests']
  const hasWrk = has('wrk', ['-v'])
  const hasAb = has('ab', ['-V'])
  // Every generator runs about as long (wrk's -d, ab's and syncbench's -t with a -n they do not reach),
  // so that each one's start-up (node's is ~0.1 s of CPU, wrk's and ab's next to none) weighs the same.
  const forever = '100000000'
  // Start-up and exit alone (one request; wrk, which cannot send just one, its --version): taken off
  // each run's CPU for the steady-state column.
  const sbStart = (/** @type {string} */ u) => pin([process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', '-n', '1', u])
  const t = String(seconds)
  /** @type {(Peer & { ref: string|null })[]} */
  const rows = [
    { name: 'syncbench ab -k -c 50', argv: sb(['-k', '-c', '50', '-t', t, '-n', forever]), count: abCount, available: true, startup: sbStart, ref: 'wrk -t1 -c 50' },
    { name: 'syncbench ab -k -c 50 (node:net)', argv: sb(['-k', '-c', '50', '-t', t, '-n', forever]), count: abCount, available: true, startup: sbStart, ref: 'wrk -t1 -c 50', env: { SYNCBENCH_IO: 'net' } },
    { name: 'wrk -t1 -c 50', startup: () => pin(['wrk', '--version']), argv: (u) => pin(['wrk', '-t1', '-c50', `-d${t}s`, u]), count: wrkCount, available: hasWrk, ref: null },
    { name: `syncbench ab -k -c 1000 -n ${big}`, argv: sb(['-k', '-c', '1000', '-n', big]), count: abCount, available: true, startup: sbStart, ref: 'wrk -t1 -c 1000', timeoutMs: 600_000 },
    { name: `syncbench ab -k -c 1000 -n ${big} (node:net)`, argv: sb(['-k', '-c', '1000', '-n', big]), count: abCount, available: true, startup: sbStart, ref: 'wrk -t1 -c 1000', timeoutMs: 600_000, env: { SYNCBENCH_IO: 'net' } },
    { name: 'wrk -t1 -c 1000', startup: () => pin(['wrk', '--version']), argv: (u) => pin(['wrk', '-t1', '-c1000', `-d${t}s`, u]), count: wrkCount, available: hasWrk, ref: null },
    { name: 'syncbench ab -c 50 (no -k)', argv: sb(['-c', '50', '-t', t, '-n', forever]), count: abCount, available: true, startup: sbStart, ref: 'ab -c 50 (no -k)' },
    { name: 'syncbench ab -c 50 (no -k, node:net)', argv: sb(['-c', '50', '-t', t, '-n', forever]), count: abCount, available: true, startup: sbStart, ref: 'ab -c 50 (no -k)', env: { SYNCBENCH_IO: 'net' } },
    { name: 'ab -c 50 (no -k)', startup: (u) => pin(['ab', '-q', '-n', '1', u]), argv: (u) => pin(['ab', '-q', '-c', '50', '-t', t, '-n', forever, u]), count: abCount, available: hasAb, ref: null },
    { name: 'syncbench ab -k -c 50 --workers 2', argv: sb(['-k', '-c', '50', '-t', t, '-n', forever, '--workers', '2']), count: abCount, available: true, startup: sbStart, ref: 'syncbench ab -k -c 50' }
  ].filter((p) => p.available)
  console.error(`nginx targets: nginx pinned to core 1, generators to core 0, ${repeat} round(s)`)
  /** @type {Map<string, { cpuPerReq: number[], steadyPerReq: number[], rss: number[], rps: number[] }>} */
  const samples = new Map(rows.map((p) => [p.name, { cpuPerReq: [], steadyPerReq: [], rss: [], rps: [] }]))
  try {
    for (let round = 1; round <= repeat; round++) {
      for (const peer of rows) {
        const m = await measure(peer, target.url)
        const s = samples.get(peer.name)
        s.cpuPerReq.push(m.cpu / m.done * 1e6)
        if (peer.startup) {
          const start = await measure({ ...peer, argv: peer.startup, count: () => 1 }, target.url)
          s.steadyPerReq.push(Math.max(0, m.cpu - start.cpu) / m.done * 1e6)
        }
        s.rss.push(m.rssKiB / 1024)
        s.rps.push(m.done / m.wall)
        console.error(`  round ${round} ${peer.name}: ${m.done} requests, ${(m.cpu / m.done * 1e6).toFixed(2)} us CPU/request, ${(m.rssKiB / 1024).toFixed(1)} MiB`)
      }
    }
  } finally {
    await target.stop()
  }
  const cpuOf = (/** @type {string} */ name) => median(samples.get(name).cpuPerReq)
  const steadyOf = (/** @type {string} */ name) => median(samples.get(name).steadyPerReq)
  const finite = (/** @type {number} */ v) => Number.isFinite(v) ? v : null
  record.parts.nginx = {
    rounds: repeat,
    seconds,
    rows: rows.map((p) => {
      const s = samples.get(p.name)
      const ref = p.ref !== null && samples.has(p.ref) ? p.ref : null
      return {
        generator: p.name,
        reference: ref,
        cpuUsPerRequest: cpuOf(p.name),
        xReference: ref === null ? null : cpuOf(p.name) / cpuOf(ref),
        steadyUsPerRequest: finite(steadyOf(p.name)),
        steadyXReference: ref === null ? null : finite(steadyOf(p.name) / steadyOf(ref)),
        peakRssMiB: finite(median(s.rss)),
        requestsPerSecond: median(s.rps)
      }
    })
  }
  printTable(['generator (core 0; nginx on core 1)', 'CPU us/request', 'x reference', 'steady state us/request', 'x reference', 'reference', 'peak RSS MiB', 'req/s'], rows.map((p) => {
    const s = samples.get(p.name)
    const cpu = cpuOf(p.name)
    const steady = steadyOf(p.name)
    const ref = p.ref !== null && samples.has(p.ref) ? p.ref : null
    const steadyRatio = ref === null || !Number.isFinite(steady) || !Number.isFinite(steadyOf(ref)) ? '' : (steady / steadyOf(ref)).toFixed(2)
    return [p.name, cpu.toFixed(2), ref === null ? '' : (cpu / cpuOf(ref)).toFixed(2), Number.isFinite(steady) ? steady.toFixed(2) : 'n/a', steadyRatio, ref ?? '', Number.isFinite(median(s.rss)) ? median(s.rss).toFixed(1) : 'n/a', median(s.rps).toFixed(0)]
  }))
  console.log(`\nmedian of ${repeat} interleaved round(s), each a fresh process timed whole (start-up included) for about ${seconds} s; "x reference" is CPU per request over the reference's (target: at most 1.00); "steady state" takes off the CPU of the same generator's start-up and exit, measured after each run (a one-request run; wrk's --version). syncbench's TCP transport: ${addon !== null ? 'native (native/io.c)' : 'node:net (the native addon is not built)'}; "(node:net)" rows force node:net (SYNCBENCH_IO=net).`)
  if (gnuTime) {
    // the floor of any Node.js generator's peak RSS: the runtime alone
    const bare = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, '-e', '0'], { encoding: 'utf8' }).stderr.trim().split('\n').pop()
    console.log(`peak RSS of \`node -e 0\` (Node.js ${process.version} alone) on this machine: ${(Number(bare) / 1024).toFixed(1)} MiB.`)
    record.parts.nginx.bareNodePeakRssMiB = Number(bare) / 1024
  }
}

/**
 * A port on 127.0.0.1 that nothing listens on now (bound, read, released): for nghttpd, which takes
 * its port on the command line.
 */
async function freePort () {
  const { createServer } = await import('node:net')
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address())
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/**
 * Wait until something accepts connections on the port (a server started as a command).
 * @param {number} port
 */
async function listening (port) {
  const { connect } = await import('node:net')
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
      socket.on('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after 5 s`)
}

/**
 * HTTP/2: syncbench ab --http2 beside h2load, the same connections, streams and -n, on node:http2's
 * hello server and on nghttpd; rounds interleaved; each generator's CPU per request and its ratio to
 * h2load's on the same server (the issue's goal: at most 1.5).
 */
async function http2Peers () {
  const n = values.quick ? '5000' : values['h2-requests']
  if (!has('h2load', ['--version'])) {
    console.error('http2: skipped (h2load not installed: apt-get install nghttp2-client)')
    return
  }
  const h2Count = (/** @type {string} */ out) => Number(/^requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded/m.exec(out)?.[1])
  const abCount = (/** @type {string} */ out) => Number(/^Complete requests:\s+(\d+)/m.exec(out)?.[1]) - Number(/^Failed requests:\s+(\d+)/m.exec(out)?.[1] ?? 0)
  /** @type {Peer[]} */
  const generators = [
    { name: 'syncbench ab --http2 -c 10 --streams 10', argv: (u) => [process.execPath, join(root, 'bin/syncbench.js'), 'ab', '-q', '--http2', '-c', '10', '--streams', '10', '-n', n, u], count: abCount, available: true },
    { name: 'h2load -c 10 -m 10', argv: (u) => ['h2load', '-c', '10', '-m', '10', '-n', n, u], count: h2Count, available: true }
  ]
  /** @type {{ name: string, url: string, stop: () => void }[]} */
  const servers = []
  const node = fork(join(root, 'bench/hello-server.js'), ['--http2'], { stdio: 'inherit' })
  const [{ port: nodePort }] = await once(node, 'message')
  servers.push({ name: 'node:http2 (a 12-byte answer)', url: `http://127.0.0.1:${nodePort}/`, stop: () => node.kill('SIGTERM') })
  const docroot = mkdtempSync(join(tmpdir(), 'syncbench-bench-h2-'))
  try {
    if (has('nghttpd', ['--version'])) {
      writeFileSync(join(docroot, 'hello.txt'), 'hello world\n')
      const port = await freePort()
      const nghttpd = spawn('nghttpd', ['--no-tls', '-d', docroot, String(port)], { stdio: 'ignore' })
      await listening(port)
      servers.push({ name: 'nghttpd --no-tls (a 12-byte file)', url: `http://127.0.0.1:${port}/hello.txt`, stop: () => nghttpd.kill('SIGTERM') })
    } else {
      console.error('http2: nghttpd not installed: node:http2 only (apt-get install nghttp2-server)')
    }
    console.error(`http2: ${generators.map((g) => g.name).join(' and ')}, -n ${n}, ${repeat} interleaved round(s) on each server`)
    /** @type {Map<string, { cpuPerReq: number[], rps: number[] }>} */
    const samples = new Map()
    for (let round = 1; round <= repeat; round++) {
      for (const server of servers) {
        for (const g of generators) {
          const m = await measure(g, server.url)
          const key = `${server.name}\t${g.name}`
          if (!samples.has(key)) samples.set(key, { cpuPerReq: [], rps: [] })
          const s = /** @type {{ cpuPerReq: number[], rps: number[] }} */ (samples.get(key))
          s.cpuPerReq.push(m.cpu / m.done * 1e6)
          s.rps.push(m.done / m.wall)
          console.error(`  round ${round} ${server.name}, ${g.name}: ${m.done} requests, ${(m.cpu / m.done * 1e6).toFixed(2)} us CPU/request`)
        }
      }
    }
    const of = (/** @type {string} */ server, /** @type {string} */ g) => /** @type {{ cpuPerReq: number[], rps: number[] }} */ (samples.get(`${server}\t${g}`))
    const range = (/** @type {number[]} */ xs, /** @type {number} */ digits) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}..${Math.max(...xs).toFixed(digits)})`
    const reference = generators[1].name
    const rows = []
    record.parts.http2 = { rounds: repeat, requests: Number(n), rows: [] }
    for (const server of servers) {
      const ref = of(server.name, reference).cpuPerReq
      for (const g of generators) {
        const s = of(server.name, g.name)
        // the ratio per round (each round's generator over the same round's h2load), then their median
        const ratios = s.cpuPerReq.map((cpu, i) => cpu / ref[i])
        rows.push([server.name, g.name, range(s.cpuPerReq, 2), g.name === reference ? '' : range(ratios, 2), median(s.rps).toFixed(0)])
        record.parts.http2.rows.push({ server: server.name, generator: g.name, reference, cpuUsPerRequest: s.cpuPerReq, xReference: g.name === reference ? null : ratios, requestsPerSecond: s.rps })
      }
    }
    console.log(`\nHTTP/2: -c 10, 10 streams per connection, -n ${n}, against each server in its own process`)
    printTable(['server', 'generator', 'CPU us/request', 'x h2load', 'req/s'], rows)
    console.log(`\nmedian (lowest..highest) of ${repeat} interleaved round(s), each a fresh process timed whole (start-up included); "x h2load" is each round's CPU per request over the same round's h2load on the same server (the goal: at most 1.50).`)
  } finally {
    for (const server of servers) server.stop()
    rmSync(docroot, { recursive: true, force: true })
  }
}

/**
 * What watching costs the generator: CPU per request with --dashboard and a page open, against without.
 * @param {string} nginx
 */
async function watchingCost (nginx) {
  // --quick: one round of short runs, to see that it works (no interval from it)
  const rounds = values.quick ? 1 : Number(values['dashboard-rounds'])
  const n = values.quick ? 20000 : Number(values['dashboard-requests'])
  console.error(`dashboard: syncbench ab -k -c ${concurrency} -n ${n}, without and with --dashboard and a page open, ${rounds} alternated round${rounds === 1 ? '' : 's'}`)
  const r = await dashboardCost({ nginx, requests: n, concurrency, rounds, startDelayS: 2, ownSeconds: values.quick ? 60 : 600, chromium: values.chromium, log: (line) => console.error(line) })
  const gm = (/** @type {number[]} */ xs) => rateInterval(xs).geometricMean
  console.log(`\nwhat watching costs the generator: syncbench ab -k -c ${concurrency} -n ${n} against nginx${r.pinned ? ' (the generator on core 0; nginx and Chromium on core 1)' : ''}`)
  printTable(['syncbench ab', 'CPU us/request (geometric mean)', 'lowest..highest', 'runs'], [
    ['without --dashboard', gm(r.withoutUs).toFixed(2), `${Math.min(...r.withoutUs).toFixed(2)}..${Math.max(...r.withoutUs).toFixed(2)}`, String(r.rounds)],
    ['--dashboard, a page open', gm(r.pageOpenUs).toFixed(2), `${Math.min(...r.pageOpenUs).toFixed(2)}..${Math.max(...r.pageOpenUs).toFixed(2)}`, String(r.rounds)]
  ])
  console.log(`\nwith a page open: ${costText(r)}; the dashboard's own work ${(r.ownWork.usPerRequest * 1000).toFixed(1)} ns a request (${(r.ownWork.share * 100).toFixed(2)}%). Each run waits ${r.startDelayS} s before its load, the page loading meanwhile (median ${r.pageShownMs} ms to show the run${r.redone > 0 ? `; ${r.redone} run(s) redone, their page late` : ''}).`)
  record.parts.dashboard = r
}

const server = fork(join(root, 'bench/hello-server.js'), { stdio: 'inherit' })
const [{ port }] = await once(server, 'message')
const url = `http://127.0.0.1:${port}/`
try {
  const wanted = values.only ? values.only.split(',') : null
  const active = peers.filter((p) => p.available && (!wanted || wanted.some((w) => p.name.startsWith(w))))
  for (const p of peers.filter((p) => !p.available)) console.error(`skipped ${p.name}: not installed`)
  console.error(`bench: ${requests} requests (or ${seconds} s), c=${concurrency}, ${repeat} round(s), timed by ${gnuTime ? 'GNU time' : 'bash times'}`)
  /** @type {Map<string, { cpuPerReq: number[], rss: number[], rps: number[] }>} */
  const samples = new Map(active.map((p) => [p.name, { cpuPerReq: [], rss: [], rps: [] }]))
  for (let round = 1; round <= repeat; round++) {
    // Interleaved rounds, so a drift of the machine's speed touches every generator alike.
    for (const peer of active) {
      const m = await measure(peer, url)
      const s = samples.get(peer.name)
      s.cpuPerReq.push(m.cpu / m.done * 1e6)
      s.rss.push(m.rssKiB / 1024)
      s.rps.push(m.done / m.wall)
      console.error(`  round ${round} ${peer.name}: ${m.done} requests, ${(m.cpu / m.done * 1e6).toFixed(1)} us CPU/request`)
    }
  }
  if (active.length > 0) {
    const base = median((samples.get('syncbench ab -k') ?? samples.values().next().value).cpuPerReq)
    const rows = active.map((p) => {
      const s = samples.get(p.name)
      const cpu = median(s.cpuPerReq)
      return [p.name, cpu.toFixed(1), (cpu / base).toFixed(2), Number.isFinite(median(s.rss)) ? median(s.rss).toFixed(0) : 'n/a', median(s.rps).toFixed(0)]
    })
    record.parts.peers = {
      rounds: repeat,
      seconds,
      rows: active.map((p) => {
        const s = samples.get(p.name)
        return { generator: p.name, cpuUsPerRequest: median(s.cpuPerReq), xSyncbench: median(s.cpuPerReq) / base, peakRssMiB: Number.isFinite(median(s.rss)) ? median(s.rss) : null, requestsPerSecond: median(s.rps) }
      })
    }
    printTable(['generator', 'CPU us/request', 'x syncbench', 'peak RSS MiB', 'req/s (server-bound)'], rows)
    console.log(`\nmedian of ${repeat} interleaved round(s); "x syncbench" above 1 means the peer spends more CPU per request than syncbench ab.`)
  }
  if (!wanted || wanted.includes('nginx')) {
    const nginx = findNginx()
    if (nginx === null || !has('taskset', ['-V'])) console.error('nginx targets: skipped (nginx or taskset not installed)')
    else await nginxTargets(nginx)
  }
  if (!wanted || wanted.includes('open-loop')) {
    const nginx = findNginx()
    if (nginx === null) {
      console.error('open loop: nginx not installed, against the node:http hello server')
      await openLoop(url, 'the node:http hello server')
    } else {
      const target = await startNginx(nginx)
      try {
        await openLoop(target.url, 'nginx (1 worker)')
      } finally {
        await target.stop()
      }
    }
  }
  if (!wanted || wanted.includes('http2')) await http2Peers()
  if (!wanted || wanted.includes('dashboard')) {
    const nginx = findNginx()
    const missing = [...(nginx === null ? ['nginx'] : []), ...(has('taskset', ['-V']) ? [] : ['taskset']), ...dashboardCostMissing(values.chromium)]
    if (missing.length > 0) console.error(`dashboard: skipped (${missing.join(', ')} not installed)`)
    else await watchingCost(/** @type {string} */ (nginx))
  }
  if (values.json) {
    record.finishedAt = new Date().toISOString()
    await writeFileAtomic(values.json, JSON.stringify(record, null, 2) + '\n')
    console.error(`bench: the figures in ${values.json}`)
  }
} finally {
  server.kill('SIGTERM')
}
