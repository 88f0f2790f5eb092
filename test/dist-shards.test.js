// Many machines, on one: --segment's shares, --start-at, syncbench merge (exact: the merged figures
// equal those of one run's counts over all the samples), --hdr-log read back by hdr-histogram-js's log
// reader and by HdrHistogram's own Java HistogramLogProcessor. Real servers on 127.0.0.1 port 0, the
// real CLI; every load bounded in count and time.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { segmentShare, segmentShares, argvSpelling } from '../lib/load/options.js'
import { AbCounts } from '../lib/load/ab-counts.js'
import { loadtest } from '../lib/load/loadtest.js'
import { mergeLoadResults } from '../lib/load/merge-results.js'
import { createHistogram, decodeHistogram } from '../lib/load/histogram.js'
import { loadResultProblem } from '../lib/run/results-schema.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'
import { binPath, runCli, startHttpServer, abJson } from './helper.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'syncbench-dist-'))
/** @type {Array<() => Promise<unknown>>} */
const closers = []
after(async () => {
  for (const close of closers) await close()
  rmSync(dir, { recursive: true, force: true })
})

async function server () {
  const s = await startHttpServer((req, res) => res.end('hello shards'))
  closers.push(s.close)
  return s
}

test('--segment shares: they differ by at most 1, add up to the totals, and shard i takes every N-th request of the schedule', () => {
  for (const total of [1, 2, 7, 100, 101, 50000, 2 ** 31 - 1]) {
    for (const count of [1, 2, 3, 7]) {
      const shares = Array.from({ length: count }, (_, i) => segmentShare(total, i, count))
      assert.equal(shares.reduce((a, b) => a + b, 0), total, `${total} over ${count}`)
      assert.ok(Math.max(...shares) - Math.min(...shares) <= 1, `${total} over ${count}: ${shares}`)
      // request j of the whole schedule goes to shard j % N: shard i's count is the number of such j
      if (total >= 1000) continue
      for (let i = 0; i < count; i++) {
        assert.equal(shares[i], Array.from({ length: total }, (_, j) => j).filter((j) => j % count === i).length)
      }
    }
  }
  const a = segmentShares({ requests: 1001, concurrency: 5, rate: 300 }, { index: 0, count: 2 }, argvSpelling)
  const b = segmentShares({ requests: 1001, concurrency: 5, rate: 300 }, { index: 1, count: 2 }, argvSpelling)
  assert.deepEqual(a, { requests: 501, concurrency: 3, rate: 150, offsetMs: 0 })
  assert.deepEqual(b, { requests: 500, concurrency: 2, rate: 150, offsetMs: 1000 / 300 })
  assert.throws(() => segmentShares({ requests: 10, concurrency: 2 }, { index: 0, count: 3 }, argvSpelling),
    /^SyncbenchError: --segment needs at least one connection per shard: -c 2 cannot be split over 3 shards, got "0\/3"$/)
})

test('--segment and --start-at: bad values are one line, exit 2, before anything is sent', async () => {
  let requests = 0
  const s = await startHttpServer((req, res) => { requests++; res.end('x') })
  closers.push(s.close)
  const cases = [
    [['--segment', '2/2'], /^syncbench ab: --segment must have 0 <= i < N \(counted from 0: the last of 2 shards is 1\/2\), got "2\/2"\n$/],
    [['--segment', '1/0'], /^syncbench ab: --segment must have 1 <= N <= 20000 shards/],
    [['--segment', '1of2'], /^syncbench ab: --segment must be i\/N, shard i of N counted from 0/],
    [['-c', '1', '--segment', '0/2'], /^syncbench ab: --segment needs at least one connection per shard: -c 1 cannot be split over 2 shards/],
    [['--start-at', '2001-01-01T00:00:00Z'], /^syncbench ab: --start-at must not be more than 1 s in the past \(it is \d+\.\d s past\), got "2001-01-01T00:00:00Z"\n$/],
    [['--start-at', new Date(Date.now() + 7200_000).toISOString()], /^syncbench ab: --start-at must be at most 3600 s ahead/],
    [['--start-at', '2026-11-23 18:00'], /^syncbench ab: --start-at must be an ISO 8601 time with a time zone/],
    [['--start-at', '2026-11-23T18:00:00'], /^syncbench ab: --start-at must be an ISO 8601 time with a time zone/],
    [['--hdr-log', ''], /^syncbench ab: --hdr-log needs a file name/],
    [['--hdr-log', dir], /^syncbench ab: --hdr-log cannot write ".*": a folder, not a file \(EISDIR\)\n$/]
  ]
  for (const [args, message] of cases) {
    const r = await runCli(['ab', '-n', '4', '-c', '2', ...args, s.url])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, message)
    assert.equal(r.stdout, '')
  }
  assert.equal(requests, 0)
})

test('loadtest(): segment and startAt as the API takes them, refused in its spelling, the wait ended by the signal', async () => {
  let requests = 0
  const s = await startHttpServer((req, res) => { requests++; res.end('x') })
  closers.push(s.close)
  const r = await loadtest({ url: s.url, requests: 10, concurrency: 3, rate: 300, segment: { index: 2, count: 3 } })
  assert.equal(r.completeRequests, 3)
  assert.equal(r.concurrency, 1)
  assert.deepEqual(r.options.segment, { index: 2, count: 3, requests: 10, concurrency: 3, rate: 300 })
  assert.equal(r.options.requests, 3)
  assert.equal(r.options.rate, 100)
  assert.equal(r.openLoop?.targetRate, 100)
  await assert.rejects(loadtest({ url: s.url, segment: /** @type {any} */ ('0/2') }), /^SyncbenchError: --segment \(segment\) must be i\/N, shard i of N counted from 0/)
  await assert.rejects(loadtest({ url: s.url, requests: 4, concurrency: 2, segment: { index: 0, count: 4 } }), /^SyncbenchError: --segment \(segment\) needs at least one connection per shard: -c \(concurrency\) 2 cannot be split over 4 shards/)
  await assert.rejects(loadtest({ url: s.url, startAt: 'tomorrow' }), /^SyncbenchError: --start-at \(startAt\) must be an ISO 8601 time with a time zone/)
  const controller = new AbortController()
  const waiting = loadtest({ url: s.url, requests: 5, startAt: new Date(Date.now() + 30_000).toISOString(), signal: controller.signal })
  setImmediate(() => controller.abort())
  const aborted = await waiting
  assert.equal(aborted.aborted, true)
  assert.equal(aborted.completeRequests, 0)
  assert.equal(requests, 3)
})

test('an experiment cannot set segment or startAt: syncbench run loads its own server from one place', () => {
  for (const [section, key] of [['load', 'segment'], ['warmup', 'startAt']]) {
    const e = { name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }], [section]: { [key]: key === 'segment' ? { index: 0, count: 2 } : new Date().toISOString() } }
    assert.throws(() => validateExperiment(e, 'f.json'), (err) => {
      assert.equal(err.code, 'SB_ERR_EXPERIMENT')
      // warmup takes requests and concurrency only: its schema refuses any other key first
      assert.equal(err.message, section === 'load'
        ? `f.json: ${section}.${key} is for syncbench ab shards on several machines; syncbench run starts a server per run and loads it from here`
        : `f.json: ${section} has an unexpected key "${key}"`)
      return true
    })
  }
})

test('two shards of one run make its totals; --start-at starts them no sooner than asked', async () => {
  const s = await server()
  // 4 s ahead: node starting on a busy machine must not make it more than 1 s past when it is read
  const startAt = new Date(Date.now() + 4000).toISOString()
  const shards = await Promise.all([0, 1].map((i) => abJson(['-n', '101', '-c', '3', '-k', '--segment', `${i}/2`, '--start-at', startAt, s.url])))
  assert.deepEqual(shards.map((r) => r.completeRequests), [51, 50])
  assert.deepEqual(shards.map((r) => r.concurrency), [2, 1])
  for (const [i, r] of shards.entries()) {
    assert.equal(loadResultProblem(r), null)
    assert.deepEqual(r.options.segment, { index: i, count: 2, requests: 101, concurrency: 3 })
    assert.equal(r.options.startAt, startAt)
    assert.ok(Date.parse(r.startedAt) >= Date.parse(startAt), `${r.startedAt} before ${startAt}`)
    // endedAt is startedAt + the time taken, to the millisecond of ISO times
    assert.ok(Math.abs(Date.parse(r.endedAt) - Date.parse(r.startedAt) - r.timeTakenSeconds * 1000) <= 1, `${r.startedAt} ${r.endedAt} ${r.timeTakenSeconds}`)
  }
  writeFileSync(path.join(dir, 's0.json'), JSON.stringify(shards[0]))
  writeFileSync(path.join(dir, 's1.json'), JSON.stringify(shards[1]))
  const m = await runCli(['merge', '--json', path.join(dir, 's0.json'), path.join(dir, 's1.json')])
  assert.equal(m.code, 0, m.stderr)
  const merged = JSON.parse(m.stdout)
  assert.equal(loadResultProblem(merged), null)
  assert.equal(merged.completeRequests, 101)
  assert.equal(merged.concurrency, 3)
  assert.equal(merged.options.requests, 101)
  assert.equal(merged.options.segment, undefined)
  assert.equal(merged.keepAliveRequests, shards[0].keepAliveRequests + shards[1].keepAliveRequests)
  assert.equal(merged.totalTransferredBytes, shards[0].totalTransferredBytes + shards[1].totalTransferredBytes)
  assert.deepEqual(merged.statusCodes, { 200: 101 })
  assert.deepEqual(merged.merged.parts.map((p) => p.segment), ['0/2', '1/2'])
  // the union of the windows: from the first start to the last end
  const start = Math.min(...shards.map((r) => Date.parse(r.startedAt)))
  const end = Math.max(...shards.map((r) => Date.parse(r.startedAt) + r.timeTakenSeconds * 1000))
  assert.equal(merged.timeTakenSeconds, Math.round((end - start) * 1000) / 1e6)
  assert.equal(merged.requestsPerSecond, Math.round(101 / merged.timeTakenSeconds * 1e6) / 1e6)
  // the report: ab's, with the merged figures
  const text = await runCli(['merge', path.join(dir, 's0.json'), path.join(dir, 's1.json')])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stdout, /^Merged 2 results \(shards 0\/2, 1\/2\): /)
  assert.match(text.stdout, /\nConcurrency Level: {6}3\nTime taken for tests: {3}\d+\.\d{3} seconds\nComplete requests: {6}101\n/)
  assert.match(text.stdout, /\n 100% +\d+ \(longest request\)\n$/)
})

/**
 * One run's counts over the given samples: [connect, total, wait] ms each, corrected latency too
 * under a rate. toResult as loadtest() calls it.
 * @param {number[][]} samples @param {{ rate?: number, start?: number, seconds?: number, segment?: object }} [o]
 */
function resultOf (samples, o = {}) {
  const counts = new AbCounts({ variableLength: false, rate: o.rate ?? 0 })
  for (const [ctime, time, wait, corrected] of samples) {
    counts.good++
    counts.complete(ctime, time, wait, false)
    counts.statusCounts[200]++
    counts.totalRead += 100
    counts.totalBread += 10
    if (counts.corrected) counts.corrected.record(corrected)
  }
  const start = o.start ?? Date.parse('2026-11-23T18:00:00.000Z')
  const seconds = o.seconds ?? 2
  const options = { url: 'http://10.0.0.1:8080/', requests: samples.length, concurrency: 2, keepAlive: false, method: 'GET', headers: [], cookies: [], ...(o.rate ? { rate: o.rate } : {}), ...(o.segment ? { segment: o.segment } : {}) }
  return JSON.parse(JSON.stringify(counts.toResult({
    options,
    target: { hostname: '10.0.0.1', port: 8080, path: '/' },
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + seconds * 1000).toISOString(),
    concurrency: 2,
    bodySent: false,
    end: { timeTakenSeconds: seconds, aborted: false, failure: null, callbackError: null }
  })))
}

/** A fixed pseudo-random sequence (a linear congruential generator), so the samples are known. */
function samplesOf (n, seed) {
  let x = seed
  const next = () => { x = (x * 1103515245 + 12345) % 2 ** 31; return x / 2 ** 31 }
  return Array.from({ length: n }, () => {
    const ctime = Math.round(next() * 3000) / 1000
    const wait = Math.round(next() * 50000) / 1000
    const total = Math.round((ctime + wait + next() * 20 + (next() < 0.02 ? 900 : 0)) * 1000) / 1000
    return [ctime, total, wait, Math.round((total + next() * 100) * 1000) / 1000]
  })
}

test('merge of shards with known samples: every percentile and median equals one run over all the samples', () => {
  for (const rate of [0, 400]) {
    const a = samplesOf(700, 1)
    const b = samplesOf(333, 2)
    const c = samplesOf(1, 3)
    const start = Date.parse('2026-11-23T18:00:00.000Z')
    const parts = [
      resultOf(a, { rate, start, seconds: 2 }),
      resultOf(b, { rate, start: start + 500, seconds: 2.25 }),
      resultOf(c, { rate, start: start + 100, seconds: 0.001 })
    ]
    const merged = mergeLoadResults(parts, ['a', 'b', 'c'])
    const all = resultOf([...a, ...b, ...c], { rate, start, seconds: 2.75 })
    assert.equal(loadResultProblem(JSON.parse(JSON.stringify(merged))), null)
    assert.equal(merged.completeRequests, 1034)
    assert.equal(merged.timeTakenSeconds, 2.75)
    assert.equal(merged.concurrency, 6)
    assert.deepEqual(merged.percentiles, all.percentiles, `rate ${rate}: ab's percentile table`)
    for (const key of ['p50', 'p75', 'p90', 'p99', 'p999', 'p9999', 'max']) assert.equal(merged.latency[key], all.latency[key], `rate ${rate}: latency.${key}`)
    for (const key of ['mean', 'stddev']) assert.ok(Math.abs(merged.latency[key] - all.latency[key]) <= 0.002, `rate ${rate}: latency.${key}`)
    for (const key of ['connect', 'processing', 'waiting', 'total']) {
      const m = merged.connectionTimes[key]
      const one = all.connectionTimes[key]
      for (const k of ['min', 'median', 'max']) assert.equal(m[k], one[k], `rate ${rate}: ${key}.${k}`)
      // mean and sd from the parts' rounded means and sds: equal to the microsecond
      assert.ok(Math.abs(m.mean - one.mean) <= 0.002, `${key}.mean ${m.mean} vs ${one.mean}`)
      assert.ok(Math.abs(m.sd - one.sd) <= 0.002, `${key}.sd ${m.sd} vs ${one.sd}`)
    }
    // the histograms themselves: the merged one holds exactly every sample's bucket
    assert.equal(decodeHistogram(merged.latencyHistogram).totalCount, 1034)
    assert.equal(decodeHistogram(merged.latencyHistogram).getValueAtPercentile(99), decodeHistogram(all.latencyHistogram).getValueAtPercentile(99))
    if (rate) {
      for (const key of ['p50', 'p90', 'p99', 'p999', 'max']) assert.equal(merged.latencyUncorrected[key], all.latencyUncorrected[key], `latencyUncorrected.${key}`)
      assert.equal(merged.openLoop.targetRate, 3 * rate)
      assert.equal(merged.openLoop.achievedRate, Math.round(parts.reduce((n, p) => n + p.openLoop.achievedRate, 0) * 1e6) / 1e6)
    }
    // a merge merges further: (a + b) + c is a + b + c
    const twice = mergeLoadResults([mergeLoadResults(parts.slice(0, 2)), parts[2]])
    assert.deepEqual(twice.percentiles, merged.percentiles)
    for (const key of ['connect', 'processing', 'waiting', 'total']) {
      for (const k of ['min', 'median', 'max']) assert.equal(twice.connectionTimes[key][k], merged.connectionTimes[key][k])
    }
    assert.equal(twice.merged.results, 3)
  }
})

test('merge refuses parts of different runs in one line (exit 2) and unreadable ones (exit 1)', async () => {
  const base = resultOf(samplesOf(10, 5))
  const files = {
    base,
    other: { ...base, options: { ...base.options, url: 'http://10.0.0.2:8080/' } },
    method: { ...base, options: { ...base.options, method: 'POST' } },
    shardA: { ...base, options: { ...base.options, segment: { index: 0, count: 2, requests: 20, concurrency: 4 } } },
    shardA2: { ...base, options: { ...base.options, segment: { index: 0, count: 2, requests: 20, concurrency: 4 } } },
    shardOf3: { ...base, options: { ...base.options, segment: { index: 1, count: 3, requests: 20, concurrency: 4 } } },
    external: { ...base, latencyHistogram: null },
    badHistogram: { ...base, latencyHistogram: 'not base64 at all' },
    notLoad: { hello: 'world' }
  }
  const file = (/** @type {string} */ name) => path.join(dir, `${name}.json`)
  for (const [name, data] of Object.entries(files)) writeFileSync(file(name), JSON.stringify(data))
  writeFileSync(file('broken'), '{"schema":')
  const cases = [
    [['base', 'other'], 2, /^syncbench merge: .*other\.json differs from .*base\.json in the URL: "http:\/\/10\.0\.0\.2:8080\/" vs "http:\/\/10\.0\.0\.1:8080\/"; merge the parts of one run\n$/],
    [['base', 'method'], 2, /^syncbench merge: .*method\.json differs from .*base\.json in -m \(method\): "POST" vs "GET"/],
    [['shardA', 'shardA2'], 2, /^syncbench merge: .*shardA2\.json and .*shardA\.json are both shard 0\/2: each shard is merged once\n$/],
    [['shardA', 'shardOf3'], 2, /in --segment's whole run \(number of shards\): 3 vs 2/],
    [['base', 'shardA'], 2, /in --segment \(segment\): shard 0\/2 vs no shard; merge the parts of one run\n$/],
    [['base', 'external'], 1, /^syncbench merge: .*external\.json: has no latencyHistogram \(an external engine/],
    [['base', 'badHistogram'], 1, /^syncbench merge: .*badHistogram\.json: latencyHistogram is not an HdrHistogram/],
    [['base', 'notLoad'], 1, /^syncbench merge: .*notLoad\.json: not a syncbench ab --json result: \/schema is missing\n$/],
    [['base', 'broken'], 1, /^syncbench merge: .*broken\.json: not JSON/],
    [['base', 'absent'], 1, /^syncbench merge: .*absent\.json: no such file\n$/]
  ]
  for (const [names, code, message] of cases) {
    const r = await runCli(['merge', ...names.map(file)])
    assert.equal(r.code, code, `${names}: ${r.stderr}`)
    assert.match(r.stderr, message)
    assert.equal(r.stdout, '')
  }
  const none = await runCli(['merge'])
  assert.equal(none.code, 2)
  assert.match(none.stderr, /^syncbench merge: missing the files to merge/)
  const unknown = await runCli(['merge', '--csv', file('base')])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /^syncbench merge: unknown option "--csv"/)
})

test('Ctrl-C while waiting for --start-at: nothing sent, no report, exit 130', async () => {
  let requests = 0
  const s = await startHttpServer((req, res) => { requests++; res.end('x') })
  closers.push(s.close)
  const startAt = new Date(Date.now() + 60_000).toISOString()
  const child = spawn(process.execPath, [binPath, 'ab', '-n', '5', '--start-at', startAt, s.url], { stdio: ['ignore', 'pipe', 'pipe'] })
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  // the waiting line comes once Ctrl-C is handled
  await new Promise((resolve) => child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; if (stderr.includes('waiting until')) resolve(undefined) }))
  child.kill('SIGINT')
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  assert.equal(code, 130, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr, `syncbench ab: waiting until ${startAt} (--start-at)\nsyncbench ab: interrupted while waiting for --start-at ${startAt}: nothing was sent\n`)
  assert.equal(requests, 0)
})

const require = createRequire(import.meta.url)
const HistogramLogReader = require('hdr-histogram-js/dist/HistogramLogReader.js').default

/** @param {string} text */
function readLog (text) {
  const reader = new HistogramLogReader(text, 32)
  const intervals = []
  for (let h = reader.nextIntervalHistogram(); h !== null; h = reader.nextIntervalHistogram()) intervals.push(h)
  return intervals
}

test('--hdr-log round trip: the intervals read back (hdr-histogram-js) add up to the run\'s histogram; -R logs the corrected latency', async () => {
  const s = await server()
  // --workers 2: the workers forward each request's corrected latency to the main thread's log
  for (const extra of [[], ['-R', '400'], ['-R', '400', '--workers', '2']]) {
    const file = path.join(dir, `run${extra.length}.hlog`)
    const r = await abJson(['-n', '600', '-c', '4', '-k', '--hdr-log', file, ...extra, s.url])
    const text = readFileSync(file, 'utf8')
    assert.match(text, /^#\[Logged with syncbench .*\]\n#\[Histogram log format version 1\.3\]\n#\[StartTime: \d+\.\d{3} \(seconds since epoch\)/)
    const intervals = readLog(text)
    assert.ok(intervals.length >= 1)
    // one-second intervals, back to back from the StartTime; only the last one may be shorter
    for (const [i, h] of intervals.entries()) {
      assert.equal(Math.round(h.startTimeStampMsec - intervals[0].startTimeStampMsec), i * 1000)
      if (i < intervals.length - 1) assert.equal(Math.round(h.endTimeStampMsec - h.startTimeStampMsec), 1000)
    }
    const sum = createHistogram()
    for (const h of intervals) sum.add(h)
    const whole = decodeHistogram(r.latencyHistogram)
    assert.equal(sum.totalCount, r.completeRequests)
    for (const p of [50, 90, 99, 100]) assert.equal(sum.getValueAtPercentile(p), whole.getValueAtPercentile(p), `${extra} p${p}`)
  }
})

const JAR = '/usr/share/java/hdrhistogram.jar'
const java = spawnSync('java', ['-version'], { encoding: 'utf8' })
const javaSkip = java.error || java.status !== 0 ? 'java is not installed' : !existsSync(JAR) ? `${JAR} is missing (apt install libhdrhistogram-java)` : false

test('--hdr-log is read by HdrHistogram\'s own Java HistogramLogProcessor: same count, same max', { skip: javaSkip }, async () => {
  const s = await server()
  const file = path.join(dir, 'java.hlog')
  const r = await abJson(['-n', '500', '-c', '2', '--hdr-log', file, s.url])
  const out = spawnSync('java', ['-cp', JAR, 'org.HdrHistogram.HistogramLogProcessor', '-i', file, '-outputValueUnitRatio', '1000'], { encoding: 'utf8', timeout: 60_000 })
  assert.equal(out.status, 0, out.stderr)
  const m = /#\[Max\s+=\s+([\d.]+), Total count\s+=\s+(\d+)\]/.exec(out.stdout)
  assert.ok(m, out.stdout)
  assert.equal(Number(m[2]), r.completeRequests)
  // the max in ms (microseconds / 1000), HDR's highest equivalent value of the max's bucket
  assert.equal(Number(m[1]), Math.round(decodeHistogram(r.latencyHistogram).maxValue) / 1000)
})

test('merge counts a run once: the same result twice, or inside a merged file given again, is refused naming the files', async () => {
  const server = await startHttpServer((req, res) => { res.writeHead(200, { 'Content-Length': 2 }); res.end('ok') })
  try {
    const run = async (/** @type {string} */ name) => {
      const r = await runCli(['ab', '--json', '-n', '100', '-c', '4', server.url])
      assert.equal(r.code, 0, r.stderr)
      writeFileSync(path.join(dir, name), r.stdout)
      return JSON.parse(r.stdout)
    }
    const a = await run('run-a.json')
    const b = await run('run-b.json')
    assert.match(a.runId, /^[0-9a-z]+-[0-9a-z]+-[0-9a-z]+-[0-9a-z]+$/)
    assert.notEqual(a.runId, b.runId)
    const twice = await runCli(['merge', '--json', path.join(dir, 'run-a.json'), path.join(dir, 'run-a.json')])
    assert.equal(twice.code, 2)
    assert.equal(twice.stderr, `syncbench merge: ${path.join(dir, 'run-a.json')} and ${path.join(dir, 'run-a.json')} hold the same run (runId ${a.runId}): each run may be merged once\n`)
    assert.equal(twice.stdout, '')
    const ab = await runCli(['merge', '--json', path.join(dir, 'run-a.json'), path.join(dir, 'run-b.json')])
    assert.equal(ab.code, 0, ab.stderr)
    const merged = JSON.parse(ab.stdout)
    assert.equal(merged.completeRequests, 200)
    assert.deepEqual(merged.merged.parts.map((/** @type {{ runId: string }} */ p) => p.runId), [a.runId, b.runId])
    writeFileSync(path.join(dir, 'run-ab.json'), ab.stdout)
    const again = await runCli(['merge', path.join(dir, 'run-ab.json'), path.join(dir, 'run-b.json')])
    assert.equal(again.code, 2)
    assert.match(again.stderr, /run-b\.json and .*run-ab\.json hold the same run/)
  } finally {
    await server.close()
  }
})
