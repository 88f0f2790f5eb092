// `syncbench run --capacity --slo`: the real CLI searching a real server's capacity (a --workload whose
// handler holds the event loop 20 ms, so no rate above 50 req/s can be held), its results.json, the
// exit code when no rate meets the goal, and the step's figures and configuration as the search reads them.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { runCli, binPath } from './helper.js'
import { answerWaitMs, stepConfiguration, stepFigures, capacityFailure, MIN_STEP_SECONDS, MAX_STEP_CONNECTIONS } from '../lib/run/capacity-runner.js'
import { parseSlo } from '../lib/analysis/slo.js'
import { createHistogram } from '../lib/load/histogram.js'
import { capacityResultsFile } from './fixtures/results-builder.js'

/** @type {string} */
let dir
/** @type {string} */
let workload

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-capacity-'))
  workload = path.join(dir, 'busy.mjs')
  // 20 ms of the main thread per request: at most 50 req/s, whatever the machine
  await writeFile(workload, 'export function sync () {\n  const end = performance.now() + 20\n  while (performance.now() < end);\n  return "done"\n}\n')
})
after(() => rm(dir, { recursive: true, force: true }))

/** @param {string} file */
async function readResults (file) {
  return JSON.parse(await readFile(file, 'utf8'))
}

function validator () {
  const schema = (/** @type {string} */ name) => JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8'))
  const ajv = new Ajv2020({ allowUnionTypes: true })
  ajv.addSchema(schema('load-result.schema.json'))
  ajv.addSchema(schema('results.schema.json'))
  return /** @type {import('ajv').ValidateFunction} */ (ajv.getSchema('syncbench/results@1'))
}

test('a search grows from half the closed loop, bisects to 5%, and never claims more than the server can hold', async () => {
  const out = path.join(dir, 'found')
  const r = await runCli(['run', '--workload', workload, '--capacity', '--slo', 'p99<300ms', '--step', '3', '--no-calibrate', '--no-report', '--out', out], { timeoutMs: 240_000 })
  assert.equal(r.code, 0, r.stderr)
  const results = await readResults(path.join(out, 'results.json'))
  const validate = validator()
  assert.ok(validate(results), JSON.stringify(validate.errors))
  const { capacity } = results
  assert.equal(capacity.goal, 'p99 < 300 ms')
  assert.equal(capacity.stepSeconds, 3)
  assert.equal(capacity.searches.length, 1, 'one configuration, --runs 1 by default')
  const [search] = capacity.searches
  // the closed-loop run it started from is in runs, cut at 3 s
  const closed = results.runs.find((/** @type {any} */ run) => run.id === search.id)
  assert.equal(closed.load.options.timelimit, 3)
  assert.equal(search.startRate, Number((closed.load.requestsPerSecond / 2).toPrecision(4)))
  const { steps } = search.search
  assert.equal(steps[0].rate, search.startRate)
  assert.ok(['found', 'budget'].includes(search.search.reason), search.search.reason)
  // every step offered its rate for 3 s: that many requests, answered or counted as slower than the bound
  for (const step of steps) {
    assert.equal(step.figures.scheduled, Math.ceil(step.rate * 3))
    assert.ok(step.figures.completed <= step.figures.scheduled)
    assert.equal(step.verdict === 'pass', step.why.length === 0)
  }
  // a pass is below every failure: the capacity is the highest pass, the last failure the lowest one above it
  const passes = steps.filter((/** @type {any} */ s) => s.verdict === 'pass').map((/** @type {any} */ s) => s.rate)
  const fails = steps.filter((/** @type {any} */ s) => s.verdict === 'fail').map((/** @type {any} */ s) => s.rate)
  if (passes.length > 0) assert.equal(search.search.capacity, Math.max(...passes))
  if (fails.length > 0 && passes.length > 0) assert.ok(Math.max(...passes) < Math.min(...fails))
  // 20 ms a request on one thread: 50 req/s is the most any rate can be held
  assert.ok(search.search.capacity === null || search.search.capacity <= 50, `capacity ${search.search.capacity}`)
  if (search.search.reason === 'found') assert.ok((search.search.lastFail - search.search.capacity) / search.search.capacity <= 0.05)
  // each step is reported as it ends
  assert.equal(r.stderr.match(/capacity of workload sync #1: [\d.]+ req\/s (pass|fail)/g)?.length, steps.length)
})

test('a goal no rate meets: the lowest rate tried and why it failed, exit 1, results kept', async () => {
  const out = path.join(dir, 'none')
  const r = await runCli(['run', '--workload', workload, '--capacity', '--slo', 'p99<5ms', '--step', '3', '--no-calibrate', '--no-report', '-q', '--out', out], { timeoutMs: 240_000 })
  assert.equal(r.code, 1, r.stderr)
  const results = await readResults(path.join(out, 'results.json'))
  const [search] = results.capacity.searches
  assert.equal(search.search.reason, 'no-rate-meets')
  assert.equal(search.search.capacity, null)
  // halved three times from the start, then no lower: an eighth of it
  assert.deepEqual(search.search.steps.map((/** @type {any} */ s) => s.phase), ['grow', 'descend', 'descend', 'descend'])
  const lowest = search.search.steps[3].rate
  // one line, wrapped at 100 columns
  assert.match(r.stderr.replace(/\n {2}/g, ' '), new RegExp(`syncbench run: no rate met p99 < 5 ms for workload sync #1: the lowest tried, ${lowest} req/s, failed with p99 [\\d.]+ m?s >= 5 ms(; [^\n]+)?\n`))
  for (const line of r.stderr.split('\n')) assert.ok(line.length <= 100, line)
})

test('bad input: one line naming the option, exit 2, nothing started', async () => {
  for (const [args, message] of /** @type {[string[], RegExp][]} */ ([
    [['--capacity'], /^syncbench run: --capacity needs --slo, the goal a rate must meet \(--slo "p99<1s"\)\n$/],
    [['--slo', 'p99<1s'], /^syncbench run: --slo applies to --capacity only, got "p99<1s"\n$/],
    [['--capacity', '--slo', 'p99<300'], /^syncbench run: --slo .*300/],
    [['--capacity', '--slo', 'p99<1s', '--step', '2.9'], /^syncbench run: --step must be .*, got "2\.9"/],
    [['--capacity', '--slo', 'p99<1s', '-R', '10'], /^syncbench run: -R cannot go with --capacity .*, got "10"/],
    [['--capacity', '--slo', 'p99<1s', '--engine', 'ab'], /^syncbench run: --engine must be builtin with --capacity .*, got "ab"/],
    [['--capacity', '--slo', 'p99<1s', '--workers', '2'], /^syncbench run: --workers cannot go with --capacity .*, got "2"/],
    [['rate-sweep', '--capacity', '--slo', 'p99<1s'], /^syncbench run: --capacity cannot search rate-sweep/]
  ])) {
    const r = await runCli(['run', ...args, '--out', path.join(dir, 'never')])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, message)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.equal(r.stdout, '')
  }
  // the least step is allowed
  assert.equal(MIN_STEP_SECONDS, 3)
})

test('a step: its rate for its seconds, connections for the goal\'s latency, then the wait for answers', () => {
  const slo = parseSlo('p99<1s, p50<300ms, loop p99<50ms')
  assert.equal(answerWaitMs(slo), 1100, 'the largest latency bound, plus a tenth of a second')
  assert.equal(answerWaitMs(parseSlo('loop p99<50ms')), 1100, 'no latency bound: a second, plus a tenth')
  const configuration = /** @type {any} */ ({ label: 'sync', variant: 'sync', config: { strategy: 'sync' }, server: {}, path: '/', load: { requests: 250, concurrency: 20, keepAlive: true } })
  const step = stepConfiguration(configuration, 40, { stepSeconds: 4, waitMs: 1100 })
  // 40 req/s, each taking up to 1.1 s: 44 in flight
  assert.deepEqual([step.load.rate, step.load.requests, step.load.concurrency, step.load.timelimit, step.load.keepAlive], [40, 160, 44, 5.1, true])
  // -c is the floor; the connections never pass the requests, nor MAX_STEP_CONNECTIONS
  assert.equal(stepConfiguration(configuration, 5, { stepSeconds: 4, waitMs: 1100 }).load.concurrency, 20)
  assert.equal(stepConfiguration(configuration, 2, { stepSeconds: 4, waitMs: 1100 }).load.concurrency, 8)
  assert.equal(stepConfiguration(configuration, 5000, { stepSeconds: 4, waitMs: 1100 }).load.concurrency, MAX_STEP_CONNECTIONS)
})

test('a step\'s figures: requests unanswered rank above every answer, at the wait they waited', () => {
  const histogram = createHistogram()
  // 97 answers: 96 at 10 ms, one at 500 ms
  for (let i = 0; i < 96; i++) histogram.recordValue(10_000)
  histogram.recordValue(500_000)
  const encoded = createRequire(import.meta.url)('hdr-histogram-js').encodeIntoCompressedBase64(histogram)
  const record = (/** @type {number} */ scheduled, /** @type {number} */ completed) => /** @type {any} */ ({
    load: {
      options: { requests: scheduled },
      completeRequests: completed,
      failedRequests: 0,
      non2xxResponses: 0,
      requestsPerSecond: completed / 4,
      latencyHistogram: encoded,
      openLoop: { achievedRate: completed / 4 },
      series: { requests: [25, 25, 25, 22], p50Ms: [10, 10, 10, 10], sent: [25, 25, 25, 25], late: [0, 0, 0, 0, 0] }
    },
    server: { eventLoopDelay: { p99: 12.5 } }
  })
  const step = { stepSeconds: 4, waitMs: 2000 }
  // 100 offered, 97 answered: p99 is the 99th of 100, past the answers: the wait
  const short = stepFigures(record(100, 97), step)
  assert.equal(short.p99Ms, 2000)
  assert.ok(Math.abs(/** @type {number} */ (short.p50Ms) - 10) < 0.1)
  assert.equal(short.loopP99Ms, 12.5)
  assert.deepEqual(short.late, [0, 0, 0, 0], 'the schedule\'s whole seconds only')
  assert.equal(short.sentRate, 25)
  assert.equal(short.latencyRiseMs, 0)
  // 98 offered, 97 answered: p99 is the 98th... of 98 rounds up to the 98th: still past the answers
  assert.equal(stepFigures(record(98, 97), step).p99Ms, 2000)
  // 97 offered, all answered: the 97th answer, 500 ms
  assert.ok(Math.abs(/** @type {number} */ (stepFigures(record(97, 97), step).p99Ms) - 500) < 1)
})

test('capacityFailure names each search that found nothing, and none when all found theirs', () => {
  const ok = capacityResultsFile('v22.0.0', { sync: { closedLoop: [18], capacities: [12] } })
  assert.equal(capacityFailure(ok), null)
  const none = capacityResultsFile('v22.0.0', { sync: { closedLoop: [18], capacities: [12] } })
  // every step failed, down to the lowest
  Object.assign(none.capacity.searches[0].search, { capacity: null, reason: 'no-rate-meets' })
  for (const step of none.capacity.searches[0].search.steps) Object.assign(step, { verdict: 'fail', why: ['p99 1.5 s >= 1 s'] })
  const line = /** @type {string} */ (capacityFailure(none))
  const lowest = Math.min(...none.capacity.searches[0].search.steps.map((/** @type {any} */ s) => s.rate))
  assert.match(line, new RegExp(`^no rate met p99 < 1 s for seed-bcrypt sync #1: the lowest tried, ${lowest} req/s, failed with p99 1\\.5 s >= 1 s$`))
  assert.equal(capacityFailure(/** @type {any} */ ({ ...none, capacity: undefined })), null)
})

test('Ctrl-C during a search: exit 130, the steps so far kept, the search marked interrupted', async () => {
  const out = path.join(dir, 'interrupted')
  const child = spawn(process.execPath, [binPath, 'run', '--workload', workload, '--capacity', '--slo', 'p99<300ms', '--step', '3', '--no-calibrate', '--no-report', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  let stderr = ''
  let sent = false
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
    // the first step has ended: the second is running
    if (!sent && /capacity of workload sync #1: [\d.]+ req\/s/.test(stderr)) sent = child.kill('SIGINT')
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  assert.equal(code, 130, stderr)
  const results = await readResults(path.join(out, 'results.json'))
  assert.equal(results.finishedAt, null)
  const [search] = results.capacity.searches
  assert.ok(search.search.steps.length >= 1, 'the step before the interrupt is kept')
  assert.equal(search.search.reason, 'error')
  assert.deepEqual(search.error, { code: 'ERR_INTERRUPTED', message: 'interrupted' })
  assert.ok(validator()(results))
})
