// Runs with failed requests or non-2xx responses are invalid: marked so in results.json, the tables, the
// verdicts, summary.md and report.html, left out of every ratio and comparison, and `syncbench run` exits 1
// naming them, unless --allow-errors says the errors are the point (a lab that answers 404 on purpose).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { runCli, startHttpServer } from './helper.js'
import { loadtest } from '../lib/load/loadtest.js'
import { loadInvalidity } from '../lib/analysis/validity.js'
import { isMeasured, invalidReason, compareResults } from '../lib/analysis/summarize.js'
import { summarizeResults } from '../lib/report/model.js'
import { experimentTables, renderText } from '../lib/report/tables.js'
import { loadFixture } from './fixtures/report-helpers.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-validity-')) })
after(() => rm(dir, { recursive: true, force: true }))

const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'))

/** @param {string} name @param {string} source */
async function workload (name, source) {
  const file = path.join(dir, name)
  await writeFile(file, source)
  return file
}

test('a workload whose handlers throw: every run invalid, no ratio, exit 1 naming the runs', async () => {
  const file = await workload('bad.mjs', `
    export function sync () { throw new Error('boom') }
    export async function async () { throw new Error('boom') }
  `)
  const out = path.join(dir, 'bad')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '-q', '-n', '20', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 1, stderr)
  // The tables say what happened instead of a req/s.
  assert.match(stdout, /^sync +invalid: 20 of 20 non-2xx$/m)
  assert.match(stdout, /^async +invalid: 20 of 20 non-2xx$/m)
  assert.doesNotMatch(stdout, /\dx sync/, 'no ratio of two error pages')
  assert.doesNotMatch(stdout, /^sync +[\d.]+ /m, 'no req/s for an invalid run')
  assert.match(stdout, /^workload: nothing measured validly; invalid: sync \(20 of 20 non-2xx\), async \(20 of 20 non-2xx\)/m)
  // the line wraps at 100 columns, its continuation indented: joined back
  const lines = stderr.trim().replace(/\n {2}/g, ' ').split('\n')
  const invalidLines = lines.filter((l) => /invalid/.test(l))
  assert.equal(invalidLines.length, 1, stderr)
  assert.match(invalidLines[0], /^syncbench run: 2 invalid runs \(failed requests or non-2xx responses\), left out of every figure: workload\/sync#1 \(20 of 20 non-2xx\), workload\/async#1 \(20 of 20 non-2xx\); --allow-errors counts them$/)

  const results = await readJson(path.join(out, 'results.json'))
  assert.deepEqual(results.runs.map((r) => r.invalid), [{ reason: '20 of 20 non-2xx' }, { reason: '20 of 20 non-2xx' }])
  assert.equal(results.options.allowErrors, false)
  const summary = await readFile(path.join(out, 'summary.md'), 'utf8')
  assert.match(summary, /^\| sync \| invalid: 20 of 20 non-2xx \|/m)
  assert.match(summary, /^> workload: nothing measured validly; invalid: sync/m)
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<td>workload\/sync#1 \(invalid: 20 of 20 non-2xx\)<\/td>/)
  assert.match(html, /<td class="r">invalid: 20 of 20 non-2xx<\/td>/)

  // syncbench report and compare read the same verdict from results.json.
  const again = await runCli(['report', path.join(out, 'results.json'), '--out', path.join(dir, 'bad-report'), '--no-png', '-q'])
  assert.equal(again.code, 0, again.stderr)
  assert.match(await readFile(path.join(dir, 'bad-report', 'summary.md'), 'utf8'), /^\| async \| invalid: 20 of 20 non-2xx \|/m)
  const compared = await runCli(['compare', path.join(out, 'results.json'), path.join(out, 'results.json')])
  assert.equal(compared.code, 1)
  assert.match(compared.stderr, /^syncbench compare: .* have no successful configuration in common \(4 invalid runs left out\)\n$/)
})

test('one invalid configuration: the valid one keeps its figures, the invalid one gets no ratio', async () => {
  const file = await workload('half.mjs', `
    export function sync () { return 'ok' }
    export async function async () { throw new Error('boom') }
  `)
  const out = path.join(dir, 'half')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '-q', '-n', '10', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 1, stderr)
  assert.match(stdout, /^sync +[\d.]+$/m)
  assert.match(stdout, /^async +invalid: 10 of 10 non-2xx$/m)
  // the verdict's subjects on lines of their own: the figure, then the invalid runs
  assert.match(stdout, /^workload: sync: [\d.]+ req\/s\ninvalid: async \(10 of 10 non-2xx\)/m)
  assert.match(stderr.replace(/\n {2}/g, ' '), /^syncbench run: 1 invalid run \(failed requests or non-2xx responses\), left out of every figure: workload\/async#1 \(10 of 10 non-2xx\); --allow-errors counts them$/m)
})

test('--allow-errors: the same runs count, the run exits 0', async () => {
  const file = await workload('notfound.mjs', `
    export function sync () { throw new Error('boom') }
    export async function async () { throw new Error('boom') }
  `)
  const out = path.join(dir, 'allowed')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '-q', '-n', '10', '--no-report', '--allow-errors', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  assert.match(stdout, /^workload: async is [\d.]+x sync/m)
  assert.doesNotMatch(stderr, /invalid/)
  const results = await readJson(path.join(out, 'results.json'))
  assert.deepEqual(results.runs.map((r) => r.invalid), [null, null])
  assert.equal(results.options.allowErrors, true)
  assert.deepEqual(results.runs.map((r) => r.load.non2xxResponses), [10, 10])
})

test('--help documents --allow-errors', async () => {
  const { code, stdout } = await runCli(['run', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /^ {2}--allow-errors +count runs with failed requests or non-2xx responses/m)
})

test('invalidReason: failed requests by kind, non-2xx, of the requests made', () => {
  const load = { completeRequests: 20, failedRequests: 0, non2xxResponses: 0, failures: { connect: 0, receive: 0, length: 0, exceptions: 0 }, options: { requests: 20 }, aborted: false }
  assert.equal(invalidReason({ error: null, load }), null)
  assert.equal(invalidReason({ error: null, load: { ...load, non2xxResponses: 20 } }), '20 of 20 non-2xx')
  assert.equal(invalidReason({ error: null, load: { ...load, failedRequests: 3, failures: { connect: 0, receive: 0, length: 3, exceptions: 0 } } }), '3 of 20 failed (length 3)')
  // the cause the engine counted is named beside ab's kind: a response timeout is not a length failure
  assert.equal(invalidReason({ error: null, load: { ...load, failedRequests: 4, failures: { connect: 0, receive: 0, length: 0, exceptions: 4 }, errors: { RESPONSE_TIMEOUT: 4 } } }), '4 of 20 failed (exceptions 4; RESPONSE_TIMEOUT 4)')
  // What the runner decided wins over the counts: --allow-errors wrote null.
  assert.equal(invalidReason({ error: null, invalid: null, load: { ...load, non2xxResponses: 20 } }), null)
  assert.equal(invalidReason({ error: null, invalid: { reason: 'x' }, load }), 'x')
})

test('invalidReason under -t: of the requests done, not of the up-to-50000 asked; under -n of those asked', async () => {
  const server = await startHttpServer((req, res) => { res.writeHead(404, { 'Content-Length': 4 }); res.end('gone') })
  try {
    // a real time-limited load: ab's -t asks for up to 50000 requests and does what the time allows
    const timed = await loadtest({ url: server.url, timelimit: 0.3, concurrency: 2, keepAlive: true })
    assert.equal(timed.options.requests, 50000)
    const n = timed.completeRequests
    assert.ok(n > 0 && n < 50000, String(n))
    assert.equal(loadInvalidity(timed), `${n} of ${n} non-2xx`)
  } finally {
    await server.close()
  }
  const load = { completeRequests: 80, failedRequests: 2, non2xxResponses: 20, options: { requests: 100 } }
  // -n 100 stopped at 80 (interrupted): of the 100 asked
  assert.equal(loadInvalidity(load), '2 of 100 failed, 20 of 100 non-2xx')
  // the same counts under -t: of the 80 done, whatever it asked for
  assert.equal(loadInvalidity({ ...load, options: { requests: 100, timelimit: 1 } }), '2 of 80 failed, 20 of 80 non-2xx')
  assert.equal(loadInvalidity({ ...load, options: { requests: 50000, timelimit: 0.001 } }), '2 of 80 failed, 20 of 80 non-2xx')
  // -t 0 is no time limit: of those asked
  assert.equal(loadInvalidity({ ...load, options: { requests: 100, timelimit: 0 } }), '2 of 100 failed, 20 of 100 non-2xx')
})

test('a results file with a non-2xx run (no "invalid" field: an older file): left out of tables, verdicts and compare', () => {
  const results = loadFixture()
  const run = results.runs.find((r) => r.id === 'seed-bcrypt/async#1')
  run.load.non2xxResponses = run.load.completeRequests
  delete run.invalid
  assert.equal(isMeasured(run), false)
  const s = summarizeResults(results).find((e) => e.name === 'seed-bcrypt')
  const async = s.rows.find((r) => r.label === 'async')
  assert.equal(async.runs.some((r) => r.id === run.id), false)
  assert.deepEqual(async.invalid, [{ id: run.id, repeat: 1, reason: `${run.load.completeRequests} of ${run.load.options.requests} non-2xx` }])
  assert.match(s.verdict, /; invalid: async #1 \(250 of 250 non-2xx\)/)
  const text = experimentTables(s).map(renderText).join('\n')
  assert.match(text, /^Invalid runs +1 of \d+ left out \(#1: 250 of 250 non-2xx\)$/m)
  const compared = compareResults(loadFixture(), results).find((c) => c.experiment === 'seed-bcrypt' && c.label === 'async')
  assert.equal(compared.b.n, async.runs.length, 'compare leaves it out too')
})
