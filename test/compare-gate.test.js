// syncbench compare --fail-if-slower: the CI gate, through the real CLI. The expected intervals are
// scipy 1.17.1's: np.exp(scipy.stats.ttest_ind(np.log(b), np.log(a), equal_var=False).confidence_interval(0.95)).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { resultsFile } from './fixtures/results-builder.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-gate-')) })
after(() => rm(dir, { recursive: true, force: true }))

/**
 * Two results files with req/s per label.
 * @param {string} name
 * @param {Record<string, number[]>} a
 * @param {Record<string, number[]>} b
 */
async function pair (name, a, b) {
  const fa = path.join(dir, `${name}-a.json`)
  const fb = path.join(dir, `${name}-b.json`)
  await writeFile(fa, JSON.stringify(resultsFile('20.20.2', a)))
  await writeFile(fb, JSON.stringify(resultsFile('20.20.2', b)))
  return [fa, fb]
}

const base = [100, 101, 99, 100.5]

test('--fail-if-slower 5%: a clearly slower configuration fails the gate with exit 3 and says "slower"', async () => {
  // slower: b/a 95% CI 0.78680419..0.81389993; equal: 0.9866488..1.01305233
  const [a, b] = await pair('slower', { sync: base, async: base }, { sync: [80, 81, 79, 80.5], async: [100.2, 100.8, 99.3, 100.1] })
  const { code, stdout, stderr } = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(code, 3, stderr)
  assert.equal(stderr, '')
  // on a terminal the gate's verdicts are a part of their own under the figures (100 columns), each
  // row named again; --markdown keeps one table
  // and the stars follow the p-value in its cell
  assert.match(stdout, /^Experiment +Configuration +a req\/s +b req\/s +change +b\/a 95% CI +p-value$/m)
  assert.match(stdout, /^Experiment +Configuration +gate \(5%\)$/m)
  assert.match(stdout, /^seed-bcrypt +sync +100\.13 +80\.13 +-19\.98% +0\.787x\.\.0\.814x +\S+ +\*\*\*$/m)
  assert.match(stdout, /^seed-bcrypt +sync +slower: 18\.6%\.\.21\.3% slower, beyond 5%$/m)
  assert.match(stdout, /^seed-bcrypt +async +.* equivalent within 5%$/m)
  assert.match(stdout, /^gate --fail-if-slower 5%: failed \(exit 3\): 1 of 2 configurations slower beyond 5%: seed-bcrypt sync$/m)

  const json = await runCli(['compare', a, b, '--fail-if-slower', '5', '--json'])
  assert.equal(json.code, 3, json.stderr)
  const out = JSON.parse(json.stdout)
  assert.deepEqual(out.gate, { threshold: 0.05, failed: true, exitCode: 3, slower: 1, undecided: 0 })
  const [sync, async] = out.rows
  assert.deepEqual(Object.keys(sync.ratio), ['value', 'ciLow', 'ciHigh'])
  assert.ok(Math.abs(sync.ratio.ciLow - 0.78680419) < 1e-6, String(sync.ratio.ciLow))
  assert.ok(Math.abs(sync.ratio.ciHigh - 0.81389993) < 1e-6, String(sync.ratio.ciHigh))
  assert.ok(Math.abs(sync.ratio.value - 0.8002373854192576) < 1e-9)
  assert.deepEqual(sync.gate, { verdict: 'slower', fails: true, text: 'slower: 18.6%..21.3% slower, beyond 5%' })
  assert.deepEqual(async.gate, { verdict: 'equivalent', fails: false, text: 'equivalent within 5%' })
  assert.ok(Math.abs(async.ratio.ciLow - 0.9866488) < 1e-6 && Math.abs(async.ratio.ciHigh - 1.01305233) < 1e-6)

  const md = await runCli(['compare', a, b, '--fail-if-slower', '5%', '--markdown'])
  assert.equal(md.code, 3)
  // the markdown summary (test/compare-markdown.test.js): the gate's decision first, then a row per configuration
  assert.match(md.stdout, /^\*\*Failed\*\*: gate --fail-if-slower 5%: failed \(exit 3\): 1 of 2 configurations slower beyond 5%: seed-bcrypt sync\n/)
  assert.match(md.stdout, /^\| seed-bcrypt sync \| 100\.13 \| 80\.13 \| 0\.800x \(0\.787x\.\.0\.814x\) \| \S+ \*\*\* \| slower: 18\.6%\.\.21\.3% slower, beyond 5% \| [^|]* \|$/m)
  // GitHub's markdown (a job summary) continues a table into the next line unless a blank line ends it
  assert.match(md.stdout, /\|\n\n<details>/)
})

test('--fail-if-slower: an equal pair passes with exit 0, "equivalent within" or "no significant change"', async () => {
  // equal: 0.9866488..1.01305233; noisy: 0.79249659..1.25794912; mild: 0.94500077..0.97784475
  const [a, b] = await pair('equal',
    { sync: base, async: [100, 120, 85, 110], 'fake async': base },
    { sync: [100.2, 100.8, 99.3, 100.1], async: [105, 90, 118, 100], 'fake async': [96, 97.5, 95, 96.5] })
  const { code, stdout, stderr } = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /^seed-bcrypt +sync +.* 0\.987x\.\.1\.013x /m)
  assert.match(stdout, /^seed-bcrypt +sync +equivalent within 5%$/m)
  assert.match(stdout, /^seed-bcrypt +async +.* 0\.792x\.\.1\.258x /m)
  assert.match(stdout, /^seed-bcrypt +async +no significant change$/m)
  // significantly slower, but the interval reaches above 1 - 5%: not a failure, and said so
  assert.match(stdout, /^seed-bcrypt +fake async +.* 0\.945x\.\.0\.978x /m)
  assert.match(stdout, /^seed-bcrypt +fake async +slower by 2\.2%\.\.5\.5%, not surely beyond 5%$/m)
  assert.match(stdout, /^gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(3 compared\)$/m)
  // 1.5%: the equal pair's interval (-1.3%..+1.3%) lies inside it, and fake async (2.2% to 5.5% slower) fails
  const tight = await runCli(['compare', a, b, '--fail-if-slower', '1.5%'])
  assert.equal(tight.code, 3, tight.stderr)
  assert.match(tight.stdout, /^seed-bcrypt +sync +.* equivalent within 1\.5%$/m)
  assert.match(tight.stdout.replace(/\n {2}/g, ' '), /^gate --fail-if-slower 1\.5%: failed \(exit 3\): 1 of 3 configurations slower beyond 1\.5%: seed-bcrypt fake async$/m)
  // 0.5%: the equal pair's interval is wider than that, and holds 1
  const tighter = await runCli(['compare', a, b, '--fail-if-slower', '0.5%', '--json'])
  assert.equal(tighter.code, 3)
  const rows = JSON.parse(tighter.stdout).rows
  assert.equal(rows[0].gate.verdict, 'no-change')
  assert.equal(rows[0].gate.text, 'no significant change')
  assert.equal(rows[2].gate.verdict, 'slower')
})

test('--fail-if-slower with fewer than 3 runs a side: "too few runs to decide", exit 0', async () => {
  // async: 1.18325984..1.21900174
  const [a, b] = await pair('few', { sync: [100, 101], async: base }, { sync: [50, 51], async: [120, 121.5, 119, 120.5] })
  const { code, stdout, stderr } = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /^seed-bcrypt +sync +100\.50 +50\.50 +-49\.75% +\S+/m)
  assert.match(stdout, /^seed-bcrypt +sync +too few runs to decide \(2 and 2 runs; 3 a side needed\)$/m)
  assert.match(stdout, /^seed-bcrypt +async +.* faster: 18\.3%\.\.21\.9% faster$/m)
  // the line wraps at 100 columns, its continuation indented
  assert.match(stdout.replace(/\n {2}/g, ' '), /^gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(2 compared; 1 undecided: too few runs, syncbench run --runs 3 or more\)$/m)
  const json = await runCli(['compare', a, b, '--fail-if-slower', '5%', '--json'])
  assert.equal(json.code, 0)
  const out = JSON.parse(json.stdout)
  assert.deepEqual(out.gate, { threshold: 0.05, failed: false, exitCode: 0, slower: 0, undecided: 1 })
  assert.deepEqual(out.rows[0].ratio.ciLow, null)
  assert.deepEqual(out.rows[0].gate, { verdict: 'too-few-runs', fails: false, text: 'too few runs to decide (2 and 2 runs; 3 a side needed)' })
})

test('--fail-if-slower: an interval wholly above 1 inside the threshold is "equivalent"; past it, "faster"', async () => {
  // b/a 95% CI 1.00641375..1.03324122: faster than 1, and inside 1 +- 5% but not 1 +- 3%
  const [a, b] = await pair('above', { sync: base }, { sync: [102.2, 102.8, 101.3, 102.1] })
  const five = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(five.code, 0, five.stderr)
  // the verdict ends the figures' row, or a part of its own where the row would pass 100 columns
  assert.match(five.stdout, /^seed-bcrypt +sync +.* 1\.006x\.\.1\.033x /m)
  assert.match(five.stdout, /^seed-bcrypt +sync +(?:.* )?equivalent within 5%$/m)
  const three = await runCli(['compare', a, b, '--fail-if-slower', '3%'])
  assert.equal(three.code, 0, three.stderr)
  assert.match(three.stdout, /^seed-bcrypt +sync +.* 1\.006x\.\.1\.033x /m)
  assert.match(three.stdout, /^seed-bcrypt +sync +(?:.* )?faster: 0\.6%\.\.3\.3% faster$/m)
})

test('--fail-if-slower: one side with too few runs is undecided, whichever side; 3 a side decide', async () => {
  // a clear slowdown (b at half of a) that the gate must not fail on: a side has 2 runs
  for (const [runsA, runsB] of [[2, 4], [4, 2]]) {
    const [a, b] = await pair(`one-side-${runsA}-${runsB}`, { sync: base.slice(0, runsA) }, { sync: [50, 51, 49, 50.5].slice(0, runsB) })
    const r = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
    assert.equal(r.code, 0, r.stderr)
    // the verdict is cut to fit the terminal (whole in --json and --markdown)
    assert.match(r.stdout, /too few runs to decide \(/)
    const json = JSON.parse((await runCli(['compare', a, b, '--fail-if-slower', '5%', '--json'])).stdout)
    assert.equal(json.rows[0].gate.text, `too few runs to decide (${runsA} and ${runsB} runs; 3 a side needed)`)
    assert.match(r.stdout.replace(/\n {2}/g, ' '), /^gate --fail-if-slower 5%: passed: .*1 undecided: too few runs/m)
  }
  const [a, b] = await pair('one-side-3-3', { sync: base.slice(0, 3) }, { sync: [50, 51, 49] })
  const three = await runCli(['compare', a, b, '--fail-if-slower', '5%'])
  assert.equal(three.code, 3, three.stderr)
  assert.match(three.stdout, /^seed-bcrypt +sync +.* slower: .* beyond 5%$/m)
})

test('--fail-if-slower: bad values are one line naming the option and the value, exit 2', async () => {
  const [a, b] = await pair('bad', { sync: base }, { sync: base })
  for (const raw of ['abc', '0', '0%', '100%', '150', '5%%', '-5%', '5 %', '', '1e1', '.%']) {
    const { code, stdout, stderr } = await runCli(['compare', a, b, `--fail-if-slower=${raw}`])
    assert.equal(code, 2, `${raw}: ${stderr}`)
    assert.equal(stdout, '')
    assert.equal(stderr, `syncbench compare: --fail-if-slower must be a percentage above 0 and below 100 (5%, 5 or 0.5%), got "${raw}"\n`)
  }
  const missing = await runCli(['compare', a, b, '--fail-if-slower'])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /^syncbench compare: option "--fail-if-slower" needs a value/)
  for (const raw of ['5%', '5', '0.5%', '.5', '99.9%']) {
    const ok = await runCli(['compare', a, b, '--fail-if-slower', raw])
    assert.equal(ok.code, 0, `${raw}: ${ok.stderr}`)
  }
})

test('compare --help documents --fail-if-slower and every exit code', async () => {
  const { code, stdout } = await runCli(['compare', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /--fail-if-slower <pct>/)
  assert.match(stdout, /^Exit codes:$/m)
  assert.match(stdout, /^ {2}0 +/m)
  assert.match(stdout, /^ {2}1 +/m)
  assert.match(stdout, /^ {2}2 +/m)
  assert.match(stdout, /^ {2}3 +.*--fail-if-slower/m)
})
