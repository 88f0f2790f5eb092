// syncbench run's open loop, end to end through the real CLI with real server children: the probe beside
// a short seed run (on by default, --no-probe), a rate in an experiment file and -R, a rate-sweep on a tiny
// configuration (its chart and SLO verdict), and bad values refused in one line with exit 2.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile, access } from 'node:fs/promises'
import { runCli, tempCacheDir } from './helper.js'

let dir = ''
tempCacheDir('syncbench-open-loop-', (d) => { dir = d })

/** @param {string} out @returns {Promise<import('../lib/types.js').ResultsFile>} */
async function results (out) {
  return JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
}

/**
 * An experiment file in the test's folder.
 * @param {string} name @param {object} experiment
 */
async function experimentFile (name, experiment) {
  const file = path.join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify(experiment))
  return file
}

test('seed-bcrypt runs the probe by default: its corrected figures beside each run, /sync stalls it far more than /async', async () => {
  const out = path.join(dir, 'seed-probe')
  const r = await runCli(['run', 'seed-bcrypt', '--runs', '1', '-n', '40', '-c', '10', '--no-calibrate', '--out', out, '-q'], { timeoutMs: 120_000 })
  assert.equal(r.code, 0, r.stderr)
  const file = await results(out)
  assert.equal(file.runs.length, 2)
  /** @type {Record<string, import('../lib/types.js').ProbeRecord>} */
  const probes = {}
  for (const run of file.runs) {
    const probe = /** @type {import('../lib/types.js').ProbeRecord} */ (run.probe)
    assert.ok(probe, `${run.id}: a probe record`)
    assert.equal(probe.path, '/__syncbench/health')
    assert.equal(probe.rate, 10)
    assert.equal(probe.error, null)
    const load = /** @type {import('../lib/types.js').LoadResult} */ (probe.load)
    assert.ok(load.completeRequests >= 5, `${run.id}: ${load.completeRequests} probe requests over a run of seconds`)
    assert.equal(load.failedRequests + load.non2xxResponses, 0)
    assert.equal(load.openLoop?.targetRate, 10)
    // corrected from the intended send time: never below what the request took from its actual send
    assert.ok(load.latency.max >= /** @type {NonNullable<typeof load.latencyUncorrected>} */ (load.latencyUncorrected).max)
    assert.equal(typeof load.latencyHistogram, 'string')
    probes[run.label] = probe
  }
  const p90 = (/** @type {string} */ label) => /** @type {import('../lib/types.js').LoadResult} */ (probes[label].load).latency.p90
  // hashSync holds the loop ~60 ms a request with 10 in line; hash leaves it free (p90: one hiccup of a
  // busy machine under async does not decide it)
  assert.ok(p90('sync') > 2 * p90('async'), `probe p90 under /sync ${p90('sync')} ms, under /async ${p90('async')} ms`)
  // (prose wraps at 100 columns: the words may fall on two lines)
  const words = r.stdout.replace(/\s+/g, ' ')
  assert.match(words, /seed-bcrypt: probe, 10 req\/s to \/__syncbench\/health during each run \(latency corrected for coordinated omission, ms\)/)
  assert.match(words, /probe: while \/sync was loaded, \/__syncbench\/health waited (p99|max) [\d.]+ m?s; under \/async, [\d.]+ m?s \(10 req\/s, corrected for coordinated omission\)/)
  const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.match(summary, /\*\*seed-bcrypt: probe, 10 req\/s/)
  assert.match(summary, /probe: while \/sync was loaded/)
  await access(path.join(out, 'charts', 'seed-bcrypt-probe.png'))
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<figure id="chart-seed-bcrypt-probe">/)
  assert.match(html, /Coordinated omission\.<\/strong>.*<a href="https:\/\/github\.com\/giltene\/wrk2">/)
})

test('--no-probe: no probe beside the runs, no probe table or sentence', async () => {
  const out = path.join(dir, 'seed-no-probe')
  const r = await runCli(['run', 'seed-bcrypt', '--runs', '1', '-n', '10', '-c', '5', '--no-calibrate', '--no-probe', '--no-report', '--out', out, '-q'], { timeoutMs: 120_000 })
  assert.equal(r.code, 0, r.stderr)
  const file = await results(out)
  assert.equal(file.options.probe, false)
  for (const run of file.runs) assert.equal(run.probe, null, run.id)
  assert.doesNotMatch(r.stdout, /probe/)
})

test('rate in an experiment file runs an open loop: target and achieved rate, corrected and uncorrected latency in results.json; -R overrides it', async () => {
  const file = await experimentFile('rated', {
    name: 'rated',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { rate: 40, requests: 20, concurrency: 2, keepAlive: true },
    variants: [{ label: 'async', path: '/wait/async?ms=1', config: { strategy: 'async', workload: 'wait' } }]
  })
  const out = path.join(dir, 'rated')
  const r = await runCli(['run', '--experiment', file, '--out', out, '--no-report', '-q'], { timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  const [run] = (await results(out)).runs
  assert.equal(run.config.rate, 40)
  const load = /** @type {import('../lib/types.js').LoadResult} */ (run.load)
  assert.equal(load.options.rate, 40)
  assert.equal(load.completeRequests, 20)
  assert.equal(load.openLoop?.targetRate, 40)
  assert.ok(/** @type {NonNullable<typeof load.openLoop>} */ (load.openLoop).achievedRate > 0)
  assert.ok(load.latencyUncorrected, 'the uncorrected figures beside the corrected ones')
  assert.equal(run.probe, null, 'no probe unless the experiment or --probe asks')
  assert.match(r.stdout.replace(/\s+/g, ' '), /latency per request \(total time, ms; open loop: from each request's intended send time, corrected for coordinated omission\)/)

  const out2 = path.join(dir, 'rated-R')
  const r2 = await runCli(['run', '--experiment', file, '-R', '25.5', '--probe', '--out', out2, '--no-report', '-q'], { timeoutMs: 60_000 })
  assert.equal(r2.code, 0, r2.stderr)
  const [run2] = (await results(out2)).runs
  assert.equal(run2.config.rate, 25.5)
  assert.equal(run2.load?.openLoop?.targetRate, 25.5)
  assert.ok(run2.probe?.load, '--probe turns the probe on for any experiment')
})

test('a tiny rate-sweep: capacities measured first, the offered steps at their fractions, the hockey-stick chart and the SLO verdict', async () => {
  const file = await experimentFile('tiny-sweep', {
    name: 'tiny-sweep',
    title: 'tiny rate sweep',
    table: 'rate-sweep',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { concurrency: 4, keepAlive: true },
    variants: [
      { label: 'sync', path: '/wait/sync?ms=5', config: { strategy: 'sync', workload: 'wait' } },
      { label: 'async', path: '/wait/async?ms=5', config: { strategy: 'async', workload: 'wait' } }
    ],
    axes: { offered: [0.2, 1.5] },
    rateSweep: { stepSeconds: 0.5, capacitySeconds: 0.5, capacityConcurrency: 4, sloP99Ms: 1000 }
  })
  const out = path.join(dir, 'sweep')
  const r = await runCli(['run', '--experiment', file, '--slo-p99', '2000', '--out', out], { timeoutMs: 120_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stderr, /measuring the capacity of sync for tiny-sweep \(closed loop, 0\.5 s\)/)
  const res = await results(out)
  const [experiment] = res.experiments
  assert.equal(experiment.sloP99Ms, 2000, '--slo-p99 over the experiment\'s own')
  const capacity = /** @type {Record<string, import('../lib/types.js').Capacity>} */ (experiment.capacity)
  assert.deepEqual(Object.keys(capacity), ['sync', 'async'])
  for (const c of Object.values(capacity)) {
    assert.ok(c.rps > 0)
    assert.equal(c.error, null)
  }
  assert.deepEqual(res.runs.map((x) => x.label), ['sync 20%', 'async 20%', 'sync 150%', 'async 150%'])
  for (const run of res.runs) {
    const variant = run.label.split(' ')[0]
    const expected = Number((Number(run.config.offered) * capacity[variant].rps).toPrecision(4))
    assert.equal(run.config.rate, expected, `${run.id}: its fraction of ${variant}'s capacity`)
    assert.equal(run.load?.openLoop?.targetRate, expected)
    assert.equal(run.load?.options.requests, Math.ceil(expected * 0.5), 'stepSeconds of intended requests')
  }
  assert.match(r.stdout, /tiny-sweep: tiny rate sweep \(latency from each request's intended send time, ms\)/)
  assert.match(r.stdout.replace(/\s+/g, ' '), /tiny-sweep: capacity at p99 under 2 s: sync [\d.]+ req\/s \(\d+% of its closed-loop [\d.]+ req\/s\), async /)
  await access(path.join(out, 'charts', 'tiny-sweep-rate-sweep.png'))
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<figure id="chart-tiny-sweep-rate-sweep">/)
})

test('bad values: one line naming the option and the value, exit 2 (an unusable experiment file: 1, as every SB_ERR_EXPERIMENT), nothing written', async () => {
  const sweepless = await experimentFile('offered-alone', {
    name: 'offered-alone',
    server: { app: 'lab' },
    variants: [{ label: 'a', path: '/wait/async' }],
    axes: { offered: [0.5] }
  })
  const badSweep = await experimentFile('bad-sweep', {
    name: 'bad-sweep',
    server: { app: 'lab' },
    variants: [{ label: 'a', path: '/wait/async' }],
    axes: { offered: [0.5] },
    rateSweep: { stepSeconds: 0, capacitySeconds: 1, capacityConcurrency: 2, sloP99Ms: 100 }
  })
  const badRate = await experimentFile('bad-rate', { name: 'bad-rate', server: { app: 'lab' }, load: { rate: -3 }, variants: [{ label: 'a', path: '/wait/async' }] })
  const cases = [
    [['-R', '0'], /^syncbench run: -R must be a positive number of requests per second, got "0"$/],
    [['--rate', 'fast'], /^syncbench run: -R must be a positive number of requests per second, got "fast"$/],
    [['--slo-p99', '0', 'rate-sweep'], /^syncbench run: --slo-p99 must be a positive number of milliseconds up to 3600000, got "0"$/],
    [['--slo-p99', '200'], /^syncbench run: --slo-p99 applies to the rate-sweep only \(an experiment with rateSweep\), got "200"$/],
    [['-R', '10', '--engine', 'ab'], /^syncbench run: --engine must be builtin for an open loop \(seed-bcrypt at 10 req\/s\): .*, got "ab"$/],
    [['rate-sweep', '--engine', 'wrk'], /^syncbench run: --engine must be builtin for an open loop \(rate-sweep's offered rates\): .*, got "wrk"$/],
    [['--probe', '--no-probe'], /^syncbench run: --probe and --no-probe contradict each other: give one of them$/],
    [['--experiment', sweepless], /^syncbench run: --experiment .*offered-alone\.json: axes\.offered are fractions of a measured capacity: they need a rateSweep section$/, 1],
    [['--experiment', badSweep], /^syncbench run: --experiment .*bad-sweep\.json: rateSweep\.stepSeconds must be > 0, got number 0$/, 1],
    [['--experiment', badRate], /^syncbench run: --experiment .*bad-rate\.json: load\.rate must be a positive number of requests per second, got "-3"$/, 1]
  ]
  for (const [args, message, code = 2] of cases) {
    const out = path.join(dir, 'never')
    const r = await runCli(['run', ...args, '--out', out])
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stdout, '')
    const lines = r.stderr.trimEnd().split('\n')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0], message)
    await assert.rejects(access(out), { code: 'ENOENT' }, `${args.join(' ')}: nothing written`)
  }
})
