// Progress on stderr: only on a terminal, never with --quiet; run count, runs left and ETA. The one
// stream they come from (lib/run/progress.js): its events in order, its ETA, the engine's heartbeats.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { createProgress, formatDuration } from '../lib/cli/progress-line.js'
import { RunProgress } from '../lib/run/progress.js'
import { runExperiments } from '../lib/run/runner.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'

function stream (isTTY) {
  const s = { isTTY, text: '', write (chunk) { s.text += chunk; return true } }
  return s
}

test('a terminal gets the run, the runs left and the ETA, cleared before the report', () => {
  const s = stream(true)
  const p = createProgress(s)
  p.event({ type: 'run-start', index: 1, total: 4, experiment: 'seed-bcrypt', label: 'sync', repeat: 1, etaMs: null })
  assert.match(s.text, /run 1\/4 seed-bcrypt sync #1, 3 left$/)
  p.event({ type: 'run-end', index: 1, total: 4, record: {} })
  p.event({ type: 'run-start', index: 2, total: 4, experiment: 'seed-bcrypt', label: 'async', repeat: 1, etaMs: 83_000 })
  assert.match(s.text, /run 2\/4 seed-bcrypt async #1, 2 left, ETA 1:23$/)
  p.done()
  assert.ok(s.text.endsWith('\r\x1b[K'))
})

test('no progress when stderr is not a terminal, or with --quiet', () => {
  for (const [isTTY, quiet] of [[false, false], [true, true]]) {
    const s = stream(isTTY)
    const p = createProgress(s, { quiet })
    p.event({ type: 'run-start', index: 1, total: 2, experiment: 'x', label: 'a', repeat: 1, etaMs: 5000 })
    p.done()
    assert.equal(s.text, '')
  }
})

test('durations read as m:ss or h:mm:ss', () => {
  assert.equal(formatDuration(0), '0:00')
  assert.equal(formatDuration(59_600), '1:00')
  assert.equal(formatDuration(3_725_000), '1:02:05')
})

test('the stream: the plan, each run\'s start with the ETA of what is left, its end, the end; to every subscriber', () => {
  let clock = 0
  const progress = new RunProgress({ now: () => clock })
  const seen = []
  const other = []
  progress.subscribe((e) => seen.push(e))
  const unsubscribe = progress.subscribe((e) => other.push(e.type))
  // two configurations, twice each, interleaved: a b a b
  const configurations = [{ label: 'a' }, { label: 'b' }]
  progress.planned([{ experiment: { name: 'x', title: 'X' }, configurations, order: [0, 1, 0, 1].map((i) => ({ configuration: configurations[i] })) }])
  const run = (label, repeat, ms) => {
    progress.runStarted({ experiment: 'x', label, repeat, requests: 300 })
    progress.heartbeat(100)
    clock += ms
    progress.runEnded(/** @type {any} */ ({ id: `x/${label}#${repeat}` }))
  }
  run('a', 1, 10_000)
  run('b', 1, 30_000)
  unsubscribe()
  run('a', 2, 12_000)
  progress.finished({ interrupted: false })
  assert.deepEqual(seen[0], { type: 'plan', total: 4, runs: ['a', 'b', 'a', 'b'].map((label) => ({ experiment: 'x', label })), experiments: [{ name: 'x', title: 'X', configurations: 2, runs: 4 }] })
  const starts = seen.filter((e) => e.type === 'run-start')
  // nothing ended before the first: no ETA; then the mean so far for b; then each at its own last time
  assert.deepEqual(starts.map((e) => [e.index, e.total, e.label, e.repeat, e.etaMs]), [[1, 4, 'a', 1, null], [2, 4, 'b', 1, 30_000], [3, 4, 'a', 2, 40_000]])
  assert.deepEqual(seen.filter((e) => e.type === 'heartbeat')[0], { type: 'heartbeat', index: 1, total: 4, experiment: 'x', label: 'a', done: 100, requests: 300 })
  assert.deepEqual(seen.filter((e) => e.type === 'run-end').map((e) => [e.index, e.record.id]), [[1, 'x/a#1'], [2, 'x/b#1'], [3, 'x/a#2']])
  assert.deepEqual(seen.at(-1), { type: 'end', runs: 3, total: 4, interrupted: false })
  assert.deepEqual(other, ['plan', 'run-start', 'heartbeat', 'run-end', 'run-start', 'heartbeat', 'run-end'], 'unsubscribed after the second run')
})

test('the runner reports through the stream: the plan, the run, the built-in engine\'s heartbeats with its counts, the end', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-progress-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const experiment = validateExperiment({
    name: 'beats',
    server: { app: 'lab', args: ['--framework', 'http'] },
    // more than 150 requests: a heartbeat every 10% of them, as syncbench ab prints its "Completed" lines
    load: { requests: 400, concurrency: 2, keepAlive: true },
    variants: [{ label: 'async', path: '/wait/async?ms=0', config: { strategy: 'async', workload: 'wait' } }]
  }, 'test')
  const progress = new RunProgress()
  const events = []
  progress.subscribe((e) => events.push(e))
  const { error } = await runExperiments({ experiments: [experiment], outDir: dir, calibrate: false, progress })
  assert.equal(error, null)
  // the load's seconds come as the clock says: a slow machine has some, a fast one none
  assert.deepEqual(events.map((e) => e.type).filter((type) => type !== 'second').filter((type, i, all) => type !== all[i - 1]), ['plan', 'run-start', 'heartbeat', 'run-end', 'end'])
  for (const e of events.filter((e) => e.type === 'second')) assert.deepEqual([e.index, e.label, e.source], [1, 'async', 'load'])
  assert.deepEqual(events.filter((e) => e.type === 'heartbeat').map((e) => [e.index, e.label, e.done, e.requests]),
    [100, 200, 300, 400].map((done) => [1, 'async', done, 400]))
  const end = events.find((e) => e.type === 'run-end')
  assert.equal(end.record.load.completeRequests, 400)
  assert.equal(end.record.load.series.requests.reduce((a, b) => a + b, 0), 400)
})

test('the server\'s seconds and the experiments\' verdicts: only for a subscriber that asked, only where verdicts were handed in', () => {
  const plain = new RunProgress()
  const seenPlain = []
  plain.subscribe((e) => seenPlain.push(e.type))
  assert.equal(plain.wantsServerSeconds, false, 'nobody asked: the runner asks the server nothing more')
  plain.experimentEnded('x', /** @type {any} */ ({ runs: [] }))
  assert.deepEqual(seenPlain, [], 'no verdicts handed in: no experiment-end')

  const asked = []
  const progress = new RunProgress({ verdicts: (results, experiment) => [`${experiment}: ${results.runs.length} runs`] })
  const seen = []
  progress.subscribe((e) => seen.push(e))
  const unsubscribe = progress.subscribe((e) => asked.push(e.type), { serverSeconds: true })
  assert.equal(progress.wantsServerSeconds, true)
  const second = { t: 1000, intervalMs: 1000, requests: 5, loopDelayMaxMs: 2, loopDelayP99Ms: 1, elu: 0.5, cpuPercent: 40, rssBytes: 1 }
  progress.serverSecond(second)
  assert.deepEqual(seen, [], 'no run running: no second')
  progress.planned([{ experiment: { name: 'x' }, configurations: [{ label: 'a' }], order: [{ configuration: { label: 'a' } }] }])
  progress.runStarted({ experiment: 'x', label: 'a', repeat: 1, requests: 10 })
  progress.serverSecond(second)
  progress.runEnded(/** @type {any} */ ({ id: 'x/a#1' }))
  progress.experimentEnded('x', /** @type {any} */ ({ runs: [{}] }))
  assert.deepEqual(seen.find((e) => e.type === 'server-second'), { type: 'server-second', index: 1, experiment: 'x', label: 'a', second })
  assert.deepEqual(seen.at(-1), { type: 'experiment-end', experiment: 'x', verdicts: ['x: 1 runs'] })
  assert.deepEqual(asked, ['plan', 'run-start', 'server-second', 'run-end', 'experiment-end'])
  unsubscribe()
  unsubscribe()
  assert.equal(progress.wantsServerSeconds, false, 'the one who asked left')
})

test('under --capacity the ETA counts each search\'s steps as its configuration\'s time', () => {
  let clock = 0
  const progress = new RunProgress({ now: () => clock })
  const seen = []
  progress.subscribe((e) => seen.push(e))
  const configurations = [{ label: 'a' }]
  progress.planned([{ experiment: { name: 'x', title: 'X' }, configurations, order: [0, 0].map((i) => ({ configuration: configurations[i] })) }])
  progress.runStarted({ experiment: 'x', label: 'a', repeat: 1, requests: 10 })
  clock += 3_000
  progress.runEnded(/** @type {any} */ ({ id: 'x/a#1' }))
  const step = /** @type {any} */ ({ rate: 10, phase: 'grow', verdict: 'pass', why: [], figures: {} })
  for (const ms of [5_000, 6_000]) {
    clock += ms
    progress.capacityStep({ experiment: 'x', label: 'a', repeat: 1, step })
  }
  progress.runStarted({ experiment: 'x', label: 'a', repeat: 2, requests: 10 })
  // the run's 3 s and its two steps' 11 s
  assert.equal(seen.filter((e) => e.type === 'run-start').at(-1).etaMs, 14_000)
  assert.deepEqual(seen.filter((e) => e.type === 'capacity-step').map((e) => [e.label, e.repeat, e.step.rate]), [['a', 1, 10], ['a', 1, 10]])
})
