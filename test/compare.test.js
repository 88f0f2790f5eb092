// syncbench compare through the real CLI, on results files whose req/s have known Welch t-test values.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { resultsFile } from './fixtures/results-builder.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-')) })
after(() => rm(dir, { recursive: true, force: true }))

test('compare prints change, Welch p-value and stars per configuration', async () => {
  const a = path.join(dir, 'a.json')
  const b = path.join(dir, 'b.json')
  // sync: scipy.stats.ttest_ind([24.65,25.1,24.0,24.9], [10.75,11.2,10.9], equal_var=False).pvalue = 2.4271195435415403e-07
  // async: R's sleep data, t.test(extra ~ group, data = sleep): p-value = 0.07939
  await writeFile(a, JSON.stringify(resultsFile('20.20.2', {
    sync: [10.75, 11.2, 10.9],
    async: [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0].map((x) => x + 20)
  })))
  await writeFile(b, JSON.stringify(resultsFile('22.0.0', {
    sync: [24.65, 25.1, 24.0, 24.9],
    async: [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4].map((x) => x + 20)
  })))
  const { code, stdout, stderr } = await runCli(['compare', a, b])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /Node 20\.20\.2/)
  assert.match(stdout, /Node 22\.0\.0/)
  // mean a = 10.95, mean b = 24.6625: +125.23%; b/a 95% CI: np.exp(scipy.stats.ttest_ind(np.log(b), np.log(a),
  // equal_var=False).confidence_interval(0.95)) = 2.1596326..2.3489228
  assert.match(stdout, /^seed-bcrypt +sync +10\.95 +24\.66 +\+125\.23% +2\.160x\.\.2\.349x +2\.43e-7 +\*\*\*$/m)
  // means 20.75 and 22.33: +7.61%, CI 0.99147045..1.16736342 (scipy, as above), p = 0.0794, no star
  assert.match(stdout, /^seed-bcrypt +async +20\.75 +22\.33 +\+7\.61% +0\.991x\.\.1\.167x +0\.0794$/m)

  const md = await runCli(['compare', a, b, '--markdown'])
  assert.equal(md.code, 0)
  // the markdown summary (test/compare-markdown.test.js): a row per configuration, the ratio with its CI
  assert.match(md.stdout, /^\| seed-bcrypt sync \| 10\.95 \| 24\.66 \| \d\.\d{3}x \(2\.160x\.\.2\.349x\) \| 2\.43e-7 \*\*\* \| faster \(p < 0\.05\) \| [^|]* \|$/m)
})

test('compare with one run per side says why there is no p-value', async () => {
  const a = path.join(dir, 'one-a.json')
  const b = path.join(dir, 'one-b.json')
  await writeFile(a, JSON.stringify(resultsFile('20.20.2', { sync: [10] })))
  await writeFile(b, JSON.stringify(resultsFile('20.20.2', { sync: [12] })))
  const { code, stdout } = await runCli(['compare', a, b])
  assert.equal(code, 0)
  assert.match(stdout, /^seed-bcrypt +sync +10\.00 +12\.00 +\+20\.00% +n\/a$/m)
  assert.match(stdout, /needs 2 or more runs/)
})

test('compare errors: one line, non-zero exit', async () => {
  const missing = await runCli(['compare', path.join(dir, 'nope.json'), path.join(dir, 'nope2.json')])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^syncbench compare: .*nope\.json: no such file\n$/)
  const notResults = path.join(dir, 'other.json')
  await writeFile(notResults, '{"schema":"something-else"}')
  const wrong = await runCli(['compare', notResults, notResults])
  assert.equal(wrong.code, 1)
  assert.match(wrong.stderr, /not a syncbench results file/)
  const one = await runCli(['compare', notResults])
  assert.equal(one.code, 2, 'a bad command line is a usage error')
  assert.match(one.stderr, /^syncbench compare: two results files expected, got 1/)
})

test('compare prints p99 and p50 latency of each side from its runs\' merged histograms', async () => {
  const fixture = new URL('./fixtures/results.json', import.meta.url).pathname
  const { code, stdout, stderr } = await runCli(['compare', fixture, fixture])
  assert.equal(code, 0, stderr)
  // the title wraps at 100 columns
  assert.match(stdout.replace(/\n(?!-)/g, ' '), /latency per request \(total time, ms\): b \(.+\) against a \(.+\) Experiment/)
  // 750 requests of seed-bcrypt sync support p99 (not p99.9): the same merged value on both sides, +0.00%
  assert.match(stdout, /^seed-bcrypt +sync +(\d+) +\1 +\+0\.00% +\d+ +\d+$/m)
  // how the runs merged differs between the experiments: left to --markdown on a terminal
  assert.match(stdout, /^Also in syncbench compare --markdown: runs combined\.$/m)
  const md = await runCli(['compare', fixture, fixture, '--markdown'])
  // the markdown summary says how each configuration's runs were combined, under its quantiles
  assert.match(md.stdout, /^\*\*seed-bcrypt sync\*\* \(a: merged histograms of 3 runs; b: merged histograms of 3 runs\)$/m)
})
