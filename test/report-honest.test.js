// Every figure right or flagged (issue 10, items 5, 7, 8, 10): intervals that respect a rate, verdicts
// that say when they rest on one run, ratios with their 95% CI, flags beside figures whose repeats
// disagree or whose server metrics contradict them, efficiencies over 100% explained by the calibration's
// spread, and the seed 002 table with one baseline and ab's derived figures. Results files are built
// from the report fixture's first run; the report is the real CLI's (syncbench report).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { runCli } from './helper.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'
import { summarizeResults } from '../lib/report/model.js'
import { experimentTables, renderText } from '../lib/report/tables.js'

/**
 * A results file of one experiment, its runs made from the fixture's first run.
 * @param {object} experiment  fields of the experiment entry (name, labels, comparisons...)
 * @param {{ label: string, rps: number, strategy?: string, workload?: string, concurrency?: number, cpu?: number, elu?: number, bytes?: number }[]} runs
 */
function resultsOf (experiment, runs) {
  const fixture = loadFixture()
  const template = fixture.runs[0]
  const repeats = new Map()
  return {
    ...fixture,
    experiments: [{ title: experiment.name, description: '', axes: [], runs: 1, table: 'generic', comparisons: {}, ...experiment }],
    runs: runs.map((r) => {
      const repeat = (repeats.get(r.label) ?? 0) + 1
      repeats.set(r.label, repeat)
      const run = structuredClone(template)
      const c = r.concurrency ?? 10
      Object.assign(run, { id: `${experiment.name}/${r.label}#${repeat}`, experiment: experiment.name, label: r.label, repeat, config: { strategy: r.strategy ?? r.label, workload: r.workload ?? 'bcrypt', concurrency: c } })
      // each run's own ab figures, as ab computes them from that run
      Object.assign(run.load, { concurrency: c, completeRequests: 100, requestsPerSecond: r.rps, timePerRequestMs: c * 1000 / r.rps, timePerRequestAcrossMs: 1000 / r.rps, timeTakenSeconds: 100 / r.rps })
      if (r.bytes) Object.assign(run.load, { totalTransferredBytes: r.bytes * 100, transferRateKBps: r.bytes * r.rps / 1024 })
      // the server's window: the load's time, its CPU time and event-loop busy time from cpu% and ELU
      const windowMs = 100 / r.rps * 1000
      Object.assign(run.server, { requests: 100, windowMs, elu: r.elu ?? 0.5 })
      run.server.cpu = { percent: r.cpu ?? 100, userMs: windowMs * (r.cpu ?? 100) / 100, systemMs: 0 }
      return run
    })
  }
}

/** @param {ReturnType<typeof resultsOf>} results */
const tableText = (results) => summarizeResults(results).flatMap(experimentTables).map(renderText).join('\n')

/** @param {string} text @param {string} label */
const line = (text, label) => text.split('\n').find((l) => l.startsWith(label + ' ')) ?? ''

test('item 10: two runs that disagree give "2 runs: no interval", never a negative req/s', () => {
  // The case: two runs whose t-interval (1 df, t = 12.71) was -26568.18..41322.91 req/s.
  const results = resultsOf({ name: 'two', labels: ['sync'] }, [{ label: 'sync', rps: 4706 }, { label: 'sync', rps: 10048.7 }])
  const text = tableText(results)
  assert.doesNotMatch(text, /-\d+\.\d+\.\./, 'no negative lower bound')
  assert.match(line(text, 'sync'), /2 runs: no interval/)
  // three runs of the same spread: a log-scale interval, above zero, around the geometric mean
  const three = resultsOf({ name: 'three', labels: ['sync'] }, [4706, 10048.7, 7377].map((rps) => ({ label: 'sync', rps })))
  const [low, high] = line(tableText(three), 'sync').match(/(\d+\.\d+)\.\.(\d+\.\d+)/).slice(1).map(Number)
  assert.ok(low > 0 && low < 7000 && high > 7000, `${low}..${high}`)
})

test('item 7: a verdict from one run says it is one run and not a result', () => {
  const results = resultsOf({ name: 'delay', labels: ['d0', 'd2'], comparisons: { d2: 'd0' }, baseline: 'd0' },
    [{ label: 'd0', rps: 500, strategy: 'fake-async', workload: 'readfile' }, { label: 'd2', rps: 755, strategy: 'fake-async', workload: 'readfile' }])
  const [s] = summarizeResults(results)
  assert.match(s.verdict, /^delay: d2 is 1\.51x d0 \(one run: not a result\)/)
  assert.doesNotMatch(s.verdict, /p n\/a/)
  assert.match(s.verdict, /\[one run each: not a result; --runs 3 or more for 95% intervals\]$/)
  assert.match(line(tableText(results), 'd2'), /1\.51x d0, one run: not a result/)
})

test('item 7: with repeats a ratio gets the 95% CI of the ratio (Welch on ln req/s, checked against scipy)', () => {
  // scipy 1.17.1: r = scipy.stats.ttest_ind(np.log(b), np.log(a), equal_var=False);
  // np.exp(r.confidence_interval(0.95)) = (2.1596326347422843, 2.3489228109733924), df 4.263102351443348
  const a = [10.75, 11.2, 10.9]
  const b = [24.65, 25.1, 24.0, 24.9]
  const results = resultsOf({ name: 'seed', labels: ['sync', 'async'], comparisons: { async: 'sync' }, baseline: 'sync' },
    [...a.map((rps) => ({ label: 'sync', rps, cpu: 60, elu: 1 })), ...b.map((rps) => ({ label: 'async', rps, cpu: 190, elu: 0.1 }))])
  const [s] = summarizeResults(results)
  const { interval } = s.rows[1].comparison
  assert.ok(Math.abs(interval.low - 2.1596326347422843) < 1e-6, String(interval.low))
  assert.ok(Math.abs(interval.high - 2.3489228109733924) < 1e-6, String(interval.high))
  assert.match(s.verdict, /^seed: async is 2\.25x sync \(95% CI 2\.16x\.\.2\.35x, p = 2\.43e-7 \*\*\*\)/)
  assert.match(line(tableText(results), 'async'), /2\.25x sync, 95% CI 2\.16x\.\.2\.35x, p = 2\.43e-7 \*\*\*/)
})

test('item 7: flags beside the figure for disagreeing repeats and contradicting server metrics, in the tables, summary.md and report.html', async (t) => {
  const calibration = { opMs: 50, usableCores: 2, ceilingRps: 40, op: 'bcrypt', unit: 'hash/s', samples: 10 }
  const results = resultsOf({ name: 'flags', labels: ['sync', 'async', 'noisy'], comparisons: { async: 'sync', noisy: 'sync' }, baseline: 'sync', calibration }, [
    // sync: 3 x 100 requests of 50 ms work on the loop = 15 s; its loop was busy 10% of ~5.3 s windows
    ...[19, 19.2, 18.8].map((rps) => ({ label: 'sync', rps, strategy: 'sync', cpu: 95, elu: 0.1 })),
    // async: 38 req/s of 50 ms = 190% of a core needed; its server used one core's CPU (7.9 s of 15 s)
    ...[38, 37.5, 38.4].map((rps) => ({ label: 'async', rps, strategy: 'async', cpu: 100, elu: 0.05 })),
    // repeats 20% apart: CV > 10%
    ...[15, 20, 25].map((rps) => ({ label: 'noisy', rps, strategy: 'async', cpu: 200, elu: 0.05 }))
  ])
  const text = tableText(results)
  assert.match(line(text, 'sync'), /sync with an idle loop \(busy 1\.58 s < the 15\.0 s its 300 requests need\)/)
  assert.match(line(text, 'async'), /CPU time 7\.90 s < the 15\.0 s its 300 requests need/)
  assert.match(line(text, 'noisy'), /runs disagree \(CV 25% over 3 runs\)/)
  const [s] = summarizeResults(results)
  assert.match(s.verdict, /flagged: sync: sync with an idle loop .*; async: CPU time 7\.90 s < the 15\.0 s .*; noisy: runs disagree \(CV 25% over 3 runs\)/)
  assert.deepEqual(s.rows.map((r) => r.flags.map((f) => f.kind)), [['idle-loop'], ['cpu'], ['spread']])

  const dir = await tempDir(t)
  const file = path.join(dir, 'results.json')
  await writeFile(file, JSON.stringify(results))
  const { code, stderr } = await runCli(['report', file, '--no-png', '-q'])
  assert.equal(code, 0, stderr)
  const summary = await readFile(path.join(dir, 'summary.md'), 'utf8')
  assert.match(summary, /^\| Configuration \|.*\| Flags \|$/m)
  assert.match(summary, /^\| noisy \|.*\| runs disagree \(CV 25% over 3 runs\) \|$/m)
  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  assert.match(html, /<td>CPU time 7\.90 s &lt; the 15\.0 s its 300 requests need<\/td>/)
  assert.match(html, /<th>Flags<\/th>/)
})

test('consistent runs and metrics raise no flag', () => {
  const calibration = { opMs: 50, usableCores: 2, ceilingRps: 40, op: 'bcrypt', unit: 'hash/s', samples: 10 }
  const results = resultsOf({ name: 'ok', labels: ['sync', 'async'], comparisons: { async: 'sync' }, baseline: 'sync', calibration }, [
    ...[19, 19.2, 18.8].map((rps) => ({ label: 'sync', rps, strategy: 'sync', cpu: 96, elu: 1 })),
    ...[38, 37.5, 38.4].map((rps) => ({ label: 'async', rps, strategy: 'async', cpu: 195, elu: 0.05 }))
  ])
  const [s] = summarizeResults(results)
  assert.deepEqual(s.rows.map((r) => r.flags), [[], []])
  assert.doesNotMatch(s.verdict, /flagged/)
  assert.doesNotMatch(tableText(results), /Flags/)
})

test('item 5: an efficiency above 100% says whether the calibration\'s spread explains it', () => {
  // seed-bcrypt's calibration: one timing (a file from before the repeats), then five
  const one = { opMs: 50, usableCores: 2, ceilingRps: 40, op: 'bcrypt', unit: 'hash/s', samples: 10 }
  const five = { ...one, timings: [48, 49, 50, 51, 52].map((opMs) => ({ opMs, samples: 4 })), opMsMin: 48, opMsMax: 52, ceilingLowRps: 2000 / 52, ceilingHighRps: 2000 / 48 }
  const runs = [40.4, 40.3, 40.5].map((rps) => ({ label: 'async c=5', rps, strategy: 'async', cpu: 200, elu: 0.05 }))
  const single = summarizeResults(resultsOf({ name: 'c', labels: ['async c=5'], calibration: one }, runs))[0]
  assert.match(single.verdict, /ceiling 2 cores x 20\.0 hash\/s = 40\.0 req\/s \(1 timing: no spread\): async c=5 101% \(above the ceiling, 1 timing!\)/)
  const spread = summarizeResults(resultsOf({ name: 'c', labels: ['async c=5'], calibration: five }, runs))[0]
  assert.match(spread.verdict, /ceiling 2 cores x 20\.0 hash\/s = 40\.0 req\/s \(5 timings: 38\.5\.\.41\.7\): async c=5 101% \(within the calibration's spread\)/)
  assert.match(tableText(resultsOf({ name: 'c', labels: ['async c=5'], calibration: five }, runs)), /101% \(within the calibration's spread\)/)
  const beyond = summarizeResults(resultsOf({ name: 'c', labels: ['async c=5'], calibration: five }, runs.map((r) => ({ ...r, rps: r.rps + 5 }))))[0]
  assert.match(beyond.verdict, /async c=5 114% \(above the ceiling's spread!\)/)
})

test('item 8: the seed 002 table has one baseline, units, and ab\'s time per request from the mean req/s', () => {
  // Runs of 190 and 210 req/s: the mean of the runs' time per request (c = 100: 526.3 and 476.2 ms) is
  // 501.253 ms, which does not invert the 200 req/s the table prints; 100 x 1000 / 200 = 500 ms does.
  const results = resultsOf({ name: 'seed-readfile', table: 'seed-002', labels: ['readFile', 'readFileSync'], comparisons: { readFile: 'readFileSync' }, baseline: 'readFileSync', reference: 'readFile' }, [
    ...[190, 210].map((rps) => ({ label: 'readFile', rps, strategy: 'async', workload: 'readfile', concurrency: 100, bytes: 1024 })),
    ...[400, 400].map((rps) => ({ label: 'readFileSync', rps, strategy: 'sync', workload: 'readfile', concurrency: 100, bytes: 1024 }))
  ])
  const [table] = experimentTables(summarizeResults(results)[0])
  assert.deepEqual(table.columns, ['Mode', 'Req/s', '% of readFileSync', 'Time/req ms', 'across ms', 'Req/s 95% CI', 'vs readFileSync'])
  const [readFile, readFileSync] = table.rows
  assert.deepEqual(readFile.slice(0, 5), ['readFile', '200.00', '50%', '500.000', '5.000'])
  assert.deepEqual(readFileSync.slice(0, 5), ['readFileSync', '400.00', '100%', '250.000', '2.500'])
  assert.match(readFile[6], /^0\.50x readFileSync, 2 runs: no interval, p = /)
})

test('item 8: the seed 001 table derives time per request and transfer rate from the mean req/s', () => {
  const results = resultsOf({ name: 'seed-bcrypt', table: 'seed-001', labels: ['sync'] },
    [100, 300].map((rps) => ({ label: 'sync', rps, concurrency: 20, bytes: 1024 })))
  const text = tableText(results)
  assert.match(text, /^Requests per second: +200\.00 \[#\/sec\] \(mean\)$/m)
  assert.match(text, /^Time per request: +100\.000 \[ms\] \(mean\)$/m)
  assert.match(text, /^Time per request: +5\.000 \[ms\] \(mean, across all concurrent requests\)$/m)
  assert.match(text, /^Transfer rate: +200\.00 \[Kbytes\/sec\] received$/m)
})

test('a calibration slowed by a busy machine does not flag a server: the check uses the calibrated CPU time', () => {
  // Seen in npm start on a loaded 2-core machine: bcrypt's fastest wall time 114 ms, its CPU time 55 ms;
  // the servers used 57 ms of CPU per hash, which is all the work there is.
  const timings = [114, 130, 140, 150, 167].map((opMs) => ({ opMs, cpuMs: 55, samples: 4 }))
  const calibration = { opMs: 140, usableCores: 2, ceilingRps: 2000 / 140, op: 'bcrypt', unit: 'hash/s', samples: 20, timings }
  Object.assign(calibration, { opMsMin: 114, opMsMax: 167, ceilingLowRps: 2000 / 167, ceilingHighRps: 2000 / 114, opCpuMsMin: 55 })
  const results = resultsOf({ name: 'busy', labels: ['sync'], calibration },
    [6.5, 6.6, 6.55].map((rps) => ({ label: 'sync', rps, strategy: 'sync', cpu: 6.55 * 57 / 10, elu: 6.55 * 57 / 1000 })))
  const [s] = summarizeResults(results)
  assert.deepEqual(s.rows[0].flags, [])
  // without the CPU time (a file from before it), the wall time's 114 ms would flag both checks
  delete calibration.opCpuMsMin
  const [old] = summarizeResults(results)
  assert.deepEqual(old.rows[0].flags.map((f) => f.kind), ['cpu', 'idle-loop'])
})
