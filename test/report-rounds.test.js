// --runs auto in a run's report: the results file's experiments[].sequential becomes one line per
// experiment in summary.md and report.html, through the real `syncbench report`: rounds that stopped
// decided, rounds that reached --max-runs undecided (naming the comparisons left open and their
// intervals), rounds interrupted before the first look, and nothing for an experiment with fixed runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'
import { roundsSentence } from '../lib/report/phrases.js'

/** @typedef {import('../lib/types.js').SequentialRecord} SequentialRecord */

/** seed-bcrypt: decided in 5 of up to 10 rounds; its one comparison slower beyond 5%. @type {SequentialRecord} */
const decided = {
  rule: 'bonferroni',
  alpha: 0.05,
  threshold: 0.05,
  maxRuns: 10,
  level: 1 - 0.025 / 7,
  rounds: 5,
  decided: true,
  decisions: [{ label: 'async', baseline: 'sync', verdict: 'faster', decided: true, ratio: 2.01, low: 1.95, high: 2.08 }]
}

/** seed-readfile: 10 rounds, at most 10: readFile undecided, fake async decided. @type {SequentialRecord} */
const undecided = {
  rule: 'bonferroni',
  alpha: 0.05,
  threshold: 0.05,
  maxRuns: 10,
  level: 0.975,
  rounds: 10,
  decided: false,
  decisions: [
    { label: 'readFile', baseline: 'readFileSync', verdict: 'no-change', decided: false, ratio: 0.97, low: 0.93, high: 1.01 },
    { label: 'fake async', baseline: 'readFileSync', verdict: 'equivalent', decided: true, ratio: 1, low: 0.98, high: 1.02 }
  ]
}

const DECIDED_LINE = 'Runs: auto, stopped after 5 of up to 10 rounds: every comparison decided at the 99.6% level (Bonferroni over the looks, threshold 5%)'
const UNDECIDED_LINE = 'Runs: auto, reached --max-runs 10 undecided at the 97.5% level (Bonferroni over the looks, threshold 5%): readFile vs readFileSync (interval 0.930x..1.01x)'

test('syncbench report: summary.md and report.html say how each --runs auto experiment\'s rounds ended', async (t) => {
  const dir = await tempDir(t)
  const results = loadFixture()
  const experiment = (/** @type {string} */ name) => /** @type {typeof results.experiments[number]} */ (results.experiments.find((e) => e.name === name))
  experiment('seed-bcrypt').sequential = decided
  experiment('seed-readfile').sequential = undecided
  const file = path.join(dir, 'results.json')
  await writeFile(file, JSON.stringify(results))
  const r = await runCli(['report', file, '--no-png', '-q'])
  assert.equal(r.code, 0, r.stderr)

  const md = await readFile(path.join(dir, 'summary.md'), 'utf8')
  /** The lines of an experiment's section in summary.md. @param {string} name */
  const section = (name) => {
    const start = md.indexOf(`\`${name}\``)
    assert.ok(start >= 0, `no section of ${name}`)
    const end = md.indexOf('\n## ', start)
    return md.slice(start, end < 0 ? undefined : end).split('\n')
  }
  assert.ok(section('seed-bcrypt').includes(`${DECIDED_LINE}.`))
  assert.ok(section('seed-readfile').includes(`${UNDECIDED_LINE}.`))
  // the decided comparison is not named among the open ones
  assert.doesNotMatch(md, /fake async vs/)
  // an experiment with fixed runs says nothing of rounds
  assert.equal(section('delay-sweep').some((l) => l.startsWith('Runs: auto')), false)
  assert.equal(md.match(/^Runs: auto/gm)?.length, 2)

  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  assert.ok(html.includes(`<p class="rule">${DECIDED_LINE}.</p>`))
  assert.ok(html.includes(`<p class="rule">${UNDECIDED_LINE}.</p>`))
  // in its experiment's section, after the verdict and before the tables
  const bcrypt = html.slice(html.indexOf('<section id="seed-bcrypt">'), html.indexOf('<section id="seed-readfile">'))
  assert.ok(bcrypt.indexOf(DECIDED_LINE) > bcrypt.indexOf('class="verdict"') && bcrypt.indexOf(DECIDED_LINE) < bcrypt.indexOf('<table'))
  assert.equal(html.match(/Runs: auto/g)?.length, 2)
})

test('roundsSentence: interrupted before the first look, interrupted undecided, nothing compared, no interval', () => {
  assert.equal(roundsSentence(undefined), null)
  assert.equal(roundsSentence({ ...undecided, rounds: 2, decisions: [] }),
    'Runs: auto, interrupted after 2 of up to 10 rounds, before the first look (round 3)')
  // round 3 is the first look: an interrupted run that had it names what was still open
  assert.equal(roundsSentence({ ...undecided, rounds: 3, level: 0.99643 }),
    'Runs: auto, interrupted after 3 of up to 10 rounds, undecided at the 99.6% level (Bonferroni over the looks, threshold 5%): readFile vs readFileSync (interval 0.930x..1.01x)')
  // one round short of the most: still interrupted; at the most: reached
  assert.match(/** @type {string} */ (roundsSentence({ ...undecided, rounds: 9 })), /^Runs: auto, interrupted after 9 of up to 10 rounds, undecided/)
  assert.match(/** @type {string} */ (roundsSentence({ ...undecided, rounds: 10 })), /^Runs: auto, reached --max-runs 10 undecided/)
  assert.equal(roundsSentence({ ...decided, rounds: 3, decisions: [] }),
    'Runs: auto, stopped after 3 of up to 10 rounds: nothing to compare (Bonferroni over the looks, threshold 5%)')
  assert.match(/** @type {string} */ (roundsSentence({ ...undecided, threshold: 0.005, decisions: [{ ...undecided.decisions[0], low: null, high: null }] })),
    /threshold 0\.5%\): readFile vs readFileSync \(no interval\)$/)
})
