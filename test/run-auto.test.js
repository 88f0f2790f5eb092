// `syncbench run --runs auto --max-runs N`: the real CLI on a --workload whose handlers hold the event
// loop 2 ms and 10 ms a request (a fivefold difference no machine's noise hides) stops once decided,
// before its maximum, and records the decision; two identical handlers run to the maximum unless they
// are found equivalent; the options it refuses, each in one line with exit 2.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { runCli } from './helper.js'
import { parseRunArgs } from '../lib/cli/run.js'
import { lookLevel, maxLooks } from '../lib/analysis/sequential.js'
import { RunProgress } from '../lib/run/progress.js'
import { roundsUntil, schedule } from '../lib/run/plan.js'
import { createProgress, roundsLine } from '../lib/cli/progress-line.js'

/** @type {string} */
let dir

/**
 * A handler that holds the event loop `ms` milliseconds a request.
 * @param {string} name
 * @param {number} ms
 */
const busy = (name, ms) => `export function ${name} () {\n  const end = performance.now() + ${ms}\n  while (performance.now() < end);\n  return "done"\n}\n`

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-auto-'))
  await writeFile(path.join(dir, 'apart.mjs'), busy('sync', 2) + busy('slow', 10))
  await writeFile(path.join(dir, 'alike.mjs'), busy('sync', 2) + busy('same', 2))
})
after(() => rm(dir, { recursive: true, force: true }))

/** @param {string} out */
async function readResults (out) {
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  const schema = (/** @type {string} */ name) => JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8'))
  const ajv = new Ajv2020({ allowUnionTypes: true })
  ajv.addSchema(schema('load-result.schema.json'))
  ajv.addSchema(schema('results.schema.json'))
  const validate = /** @type {import('ajv').ValidateFunction} */ (ajv.getSchema('syncbench/results@1'))
  assert.ok(validate(results), JSON.stringify(validate.errors))
  return results
}

/**
 * @param {string} workload
 * @param {string} out
 * @param {number} maxRuns
 */
function runAuto (workload, out, maxRuns) {
  return runCli(['run', '--workload', path.join(dir, workload), '--runs', 'auto', '--max-runs', String(maxRuns), '-n', '100', '--no-calibrate', '--no-report', '--out', out], { timeoutMs: 240_000 })
}

test('a fivefold slowdown is decided before --max-runs, and results.json says so', async () => {
  const out = path.join(dir, 'apart')
  // 8 rounds at most: on a machine busy with other work, a round's runs can be far apart (its req/s
  // spread 30% and more), and the fivefold slowdown then takes a round or two past the third
  const r = await runAuto('apart.mjs', out, 8)
  assert.equal(r.code, 0, r.stderr)
  const results = await readResults(out)
  assert.equal(results.options.runs, 'auto')
  assert.equal(results.options.maxRuns, 8)
  assert.equal(results.options.threshold, 0.05)
  const [experiment] = results.experiments
  const { sequential } = experiment
  assert.equal(sequential.rule, 'bonferroni')
  assert.equal(sequential.maxRuns, 8)
  assert.equal(sequential.decided, true)
  assert.ok(sequential.rounds >= 3 && sequential.rounds < 8, `${sequential.rounds} rounds`)
  assert.equal(experiment.runs, sequential.rounds)
  assert.equal(sequential.level, lookLevel(sequential.rounds - 2, maxLooks(8)))
  assert.equal(sequential.decisions.length, 1)
  const [decision] = sequential.decisions
  assert.deepEqual([decision.label, decision.baseline, decision.verdict, decision.decided], ['slow', 'sync', 'slower', true])
  assert.ok(decision.high < 0.95 && decision.low <= decision.ratio && decision.ratio <= decision.high)
  // every configuration ran once a round, and no round more
  assert.equal(results.runs.length, 2 * sequential.rounds)
  assert.deepEqual(results.runs.map((/** @type {any} */ run) => run.repeat), Array.from({ length: sequential.rounds }, (_, i) => [i + 1, i + 1]).flat())
  // the progress counts up to the most rounds, then says what was decided
  assert.match(r.stderr, /run 1\/up to 16 workload\/sync#1: /)
  // the line folds at 100 columns: an interval of more digits (0.0999x..0.731x) starts the next
  assert.match(r.stderr, new RegExp(`workload: decided in ${sequential.rounds} of up to 8 rounds \\([\\d.]+% CIs\\): slow/sync slower\\s+[\\d.]+x\\.\\.`))
  assert.equal(r.stderr.match(/run \d+\/up to \d+ /g)?.length, results.runs.length)
})

test('identical handlers run to --max-runs, unless found equivalent', async () => {
  const out = path.join(dir, 'alike')
  const r = await runAuto('alike.mjs', out, 5)
  assert.equal(r.code, 0, r.stderr)
  const results = await readResults(out)
  const { sequential } = results.experiments[0]
  const [decision] = sequential.decisions
  // a false "slower" or "faster" happens in at most 5% of such runs (the rule's error rate): either is a failure here
  assert.ok(sequential.rounds === 5 || decision.verdict === 'equivalent', `${decision.verdict} after ${sequential.rounds} rounds`)
  assert.ok(!['slower', 'faster'].includes(decision.verdict), decision.verdict)
  assert.equal(sequential.decided, decision.verdict === 'equivalent')
  assert.equal(results.runs.length, 2 * sequential.rounds)
  if (!sequential.decided) assert.match(r.stderr, /workload: undecided after 5 rounds \([\d.]+% CIs\): same\/sync\s/)
})

test('--runs auto refuses what it cannot decide, one line and exit 2', async () => {
  const workload = path.join(dir, 'apart.mjs')
  const cases = [
    [['--runs', 'auto', '--max-runs', '2'], /^syncbench run: --max-runs must be at least 3 \(the first look needs 3 runs a side\), got "2"\n$/],
    [['--max-runs', '5'], /^syncbench run: --max-runs applies to --runs auto only, got "5"\n$/],
    [['--runs', '3', '--threshold', '5%'], /^syncbench run: --threshold applies to --runs auto only, got "5%"\n$/],
    [['--runs', 'auto', '--capacity', '--slo', 'p99<1s'], /^syncbench run: --runs auto cannot go with --capacity .*\n$/],
    [['--runs', 'auto', '--threshold', '100'], /^syncbench run: --threshold must be a percentage above 0 and below 100 .*, got "100"\n$/],
    [['--runs', 'automatic'], /^syncbench run: --runs must be an integer from 1 to 1000, or auto, got "automatic"\n$/]
  ]
  for (const [args, message] of cases) {
    const r = await runCli(['run', '--workload', workload, '--no-calibrate', '--out', path.join(dir, 'refused'), ...args])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /** @type {RegExp} */ (message))
    assert.equal(r.stdout, '')
  }
})

test('--max-runs and --threshold, each just either side of its bounds', () => {
  assert.equal(parseRunArgs(['--runs', 'auto', '--max-runs', '3']).maxRuns, 3)
  assert.throws(() => parseRunArgs(['--runs', 'auto', '--max-runs', '2']), { code: 'SB_ERR_INVALID_OPTION' })
  assert.equal(parseRunArgs(['--runs', 'auto', '--max-runs', '1000']).maxRuns, 1000)
  assert.throws(() => parseRunArgs(['--runs', 'auto', '--max-runs', '1001']), { code: 'SB_ERR_INVALID_OPTION' })
  const defaults = parseRunArgs(['--runs', 'auto'])
  assert.deepEqual([defaults.autoRuns, defaults.maxRuns, defaults.threshold, defaults.runs], [true, 10, 0.05, undefined])
  assert.equal(parseRunArgs(['--runs', 'auto', '--threshold', '0.5%']).threshold, 0.005)
  assert.throws(() => parseRunArgs(['--runs', 'auto', '--threshold', '0']), { code: 'SB_ERR_INVALID_OPTION' })
  assert.equal(parseRunArgs(['--runs', '1000']).runs, 1000)
  assert.throws(() => parseRunArgs(['--runs', '1001']), { message: '--runs must be an integer from 1 to 1000, or auto, got "1001"' })
  assert.throws(() => parseRunArgs(['--runs', 'auto', '--node', 'a=/bin/node']), { message: /^--runs auto cannot go with --node / })
})

test('rounds come one at a time, and none follows the round after which the rule says stop', () => {
  const order = schedule(/** @type {any} */ ([{ label: 'a' }, { label: 'b' }]), 5)
  /** @type {number[]} */
  const asked = []
  const handed = [...roundsUntil(order, (repeat) => { asked.push(repeat); return repeat === 3 })]
  assert.deepEqual(asked, [1, 2, 3])
  assert.deepEqual(handed.map((r) => `${r.configuration.label}${r.repeat}`), ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'])
  // never told to stop: every round, each asked about, the last one too
  asked.length = 0
  assert.equal([...roundsUntil(order, (repeat) => { asked.push(repeat); return false })].length, 10)
  assert.deepEqual(asked, [1, 2, 3, 4, 5])
})

test('the progress under --runs auto: totals "up to", and the runs an experiment decided early leave the total and the ETA', () => {
  let clock = 0
  const progress = new RunProgress({ now: () => clock })
  /** @type {any[]} */
  const events = []
  progress.subscribe((e) => events.push(e))
  const plan = (/** @type {string} */ name) => ({ experiment: { name }, configurations: [{ label: 'a' }], order: [1, 2, 3, 4].map((repeat) => ({ configuration: { label: 'a' }, repeat })) })
  progress.planned([plan('x'), plan('y')], { upTo: true })
  assert.deepEqual([events[0].total, events[0].upTo], [8, true])
  for (const repeat of [1, 2, 3]) {
    progress.runStarted({ experiment: 'x', label: 'a', repeat, requests: 10 })
    clock += 1000
    progress.runEnded(/** @type {any} */ ({ id: `x/a#${repeat}`, experiment: 'x', label: 'a', repeat }))
  }
  progress.roundsEnded({ experiment: 'x', rounds: 3, maxRuns: 4, level: 0.975, decisions: [] })
  progress.runStarted({ experiment: 'y', label: 'a', repeat: 1, requests: 10 })
  const start = events.at(-1)
  // y's 4 runs are left, at the mean of x's (1 s each: y has not run yet)
  assert.deepEqual([start.type, start.index, start.total, start.upTo, start.etaMs], ['run-start', 4, 7, true, 4000])
  assert.deepEqual(events.find((e) => e.type === 'rounds-end'), { type: 'rounds-end', experiment: 'x', rounds: 3, maxRuns: 4, level: 0.975, decisions: [] })
  // without --runs auto the events carry no upTo
  const plain = new RunProgress()
  /** @type {any[]} */
  const seen = []
  plain.subscribe((e) => seen.push(e))
  plain.planned([plan('x')])
  plain.runStarted({ experiment: 'x', label: 'a', repeat: 1, requests: 10 })
  assert.ok(seen.every((e) => !('upTo' in e)))
})

test('the rounds\' line: decided or not, each comparison with its interval, within 100 columns', () => {
  const decisions = [{ label: 'slow', baseline: 'sync', verdict: 'slower', decided: true, ratio: 0.2, low: 0.195, high: 0.207 }]
  assert.equal(roundsLine({ type: 'rounds-end', experiment: 'workload', rounds: 3, maxRuns: 5, level: 1 - 0.05 / 3, decisions }, 'run'),
    'syncbench run: workload: decided in 3 of up to 5 rounds (98.3% CIs): slow/sync slower 0.195x..0.207x')
  const open = [{ label: 'same', baseline: 'sync', verdict: 'too-few-runs', decided: false, ratio: null, low: null, high: null }]
  assert.equal(roundsLine({ type: 'rounds-end', experiment: 'workload', rounds: 5, maxRuns: 5, level: 1 - 0.05 / 3, decisions: open }, 'run'),
    'syncbench run: workload: undecided after 5 rounds (98.3% CIs): same/sync too-few-runs')
  const many = Array.from({ length: 8 }, (_, i) => ({ ...decisions[0], label: `handler-${i}` }))
  const lines = roundsLine({ type: 'rounds-end', experiment: 'workload', rounds: 4, maxRuns: 10, level: 0.99375, decisions: many }, 'run').split('\n')
  assert.ok(lines.length > 1 && lines.every((line) => line.length <= 100), lines.join('\n'))
  // on a terminal the line stays (the progress line is cleared first); in a pipe it is a line of its own
  let tty = ''
  const terminal = createProgress(/** @type {any} */ ({ isTTY: true, write: (/** @type {string} */ s) => { tty += s } }))
  terminal.event({ type: 'run-start', index: 1, total: 10, upTo: true, experiment: 'workload', label: 'sync', repeat: 1, etaMs: 65_000 })
  assert.match(tty, /run 1\/up to 10 workload sync #1, up to 9 left, ETA up to 1:05/)
  terminal.event({ type: 'rounds-end', experiment: 'workload', rounds: 3, maxRuns: 5, level: 1 - 0.05 / 3, decisions })
  assert.ok(tty.endsWith('\r\x1b[Ksyncbench run: workload: decided in 3 of up to 5 rounds (98.3% CIs): slow/sync slower 0.195x..0.207x\n'))
})
