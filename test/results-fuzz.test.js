// Fuzz: every field path of a real results.json (test/fixtures/real-results.json, written by
// `syncbench run seed-bcrypt -n 20 --runs 1`) deleted, set to null and given a value of the wrong type,
// one at a time. `syncbench report` and `syncbench compare` on each exit 1 with exactly one line on
// stderr and no stack trace, or, where the field is optional, succeed. The commands run in this process
// (the CLI's own main() and error printer, as bin/syncbench.js calls them) to keep ~2000 cases fast; a
// sample also goes through the real CLI.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { commands } from '../lib/cli/commands.js'
import { describeError } from '../lib/cli/output.js'
import { runCli } from './helper.js'

const realPath = new URL('fixtures/real-results.json', import.meta.url).pathname
const original = readFileSync(realPath, 'utf8')

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-fuzz-')) })
after(() => rm(dir, { recursive: true, force: true }))

/**
 * Every path to a value, objects and arrays alike, depth first.
 * @param {unknown} value
 * @param {(string|number)[]} [at]
 * @returns {(string|number)[][]}
 */
function paths (value, at = []) {
  if (value === null || typeof value !== 'object') return []
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)
  return keys.flatMap((k) => [[...at, k], ...paths(/** @type {any} */ (value)[k], [...at, k])])
}

/** A value of another JSON type than `v`. @param {unknown} v */
function wrongType (v) {
  if (typeof v === 'number') return 'a string'
  if (typeof v === 'string') return 42
  if (typeof v === 'boolean') return 'true'
  if (Array.isArray(v)) return { not: 'an array' }
  if (v === null) return 42
  return [1, 2]
}

/**
 * @param {string} kind
 * @param {(string|number)[]} at
 * @returns {string} the mutated file's text
 */
function mutate (kind, at) {
  const data = JSON.parse(original)
  const parent = at.slice(0, -1).reduce((o, k) => o[k], data)
  const key = at[at.length - 1]
  if (kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1)
    else delete parent[key]
  } else if (kind === 'null') {
    parent[key] = null
  } else {
    parent[key] = wrongType(parent[key])
  }
  return JSON.stringify(data, null, 2)
}

/** A stream that keeps what is written to it. */
function sink () {
  const chunks = []
  const stream = new Writable({ write (chunk, _enc, done) { chunks.push(String(chunk)); done() } })
  return { stream, text: () => chunks.join('') }
}

/**
 * One command as bin/syncbench.js runs it: its main(), or the one error printer and its exit code.
 * @param {string[]} argv
 */
async function cli (argv) {
  const [name, ...rest] = argv
  const out = sink()
  const err = sink()
  const io = { stdout: out.stream, stderr: err.stream, env: { NO_COLOR: '1' } }
  let code
  try {
    code = await (await commands[name].load()).main(rest, io)
  } catch (error) {
    const { line, exitCode } = describeError(error, name)
    err.stream.write(line + '\n')
    code = exitCode
  }
  return { code, stdout: out.text(), stderr: err.text() }
}

/** @param {{ code: number, stderr: string }} r @param {string} what */
function assertOneLineOrSuccess (r, what) {
  if (r.code === 0) return
  assert.equal(r.code, 1, `${what}: exit ${r.code}: ${r.stderr}`)
  const lines = r.stderr.split('\n').filter((l) => l !== '')
  assert.equal(lines.length, 1, `${what}: one line: ${r.stderr}`)
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at |TypeError|Cannot read/, what)
}

test('every field path deleted, nulled or mistyped: report and compare exit 1 with one line, or succeed', async () => {
  const all = paths(JSON.parse(original))
  assert.ok(all.length > 300, `a real file has many fields (${all.length})`)
  const file = path.join(dir, 'mutated.json')
  const out = path.join(dir, 'out')
  /** @type {Map<string, number>} */
  const outcomes = new Map()
  const failedAt = new Set()
  for (const at of all) {
    for (const kind of ['delete', 'null', 'type']) {
      const what = `${kind} /${at.join('/')}`
      await writeFile(file, mutate(kind, at))
      const report = await cli(['report', file, '--out', out, '--no-png', '-q'])
      assertOneLineOrSuccess(report, `report: ${what}`)
      const compare = await cli(['compare', realPath, file])
      assertOneLineOrSuccess(compare, `compare: ${what}`)
      outcomes.set(`${report.code}`, (outcomes.get(`${report.code}`) ?? 0) + 1)
      if (report.code === 1) failedAt.add(`${kind} /${at.join('/')}`)
    }
  }
  // What the tables, charts and report read is required: each of these fails, in both commands.
  for (const required of ['delete /environment', 'null /runs/0', 'delete /runs/0/load/timePerRequestMs', 'null /runs/0/load/timePerRequestMs',
    'type /runs/0/load/latency/p99', 'null /runs/1/server/eventLoopDelay', 'delete /experiments/0/labels', 'type /experiments/0/calibration/ceilingRps',
    'null /runs/0/load/percentiles/99', 'delete /runs/0/serverEnv', 'type /runs/1/repeat', 'null /environment/cpuCount',
    // the fields added since the schemas were first written: the histogram, the series, the calibration's repeats
    'type /runs/0/load/latencyHistogram', 'null /runs/1/server/series', 'delete /runs/0/server/series/t/0', 'type /runs/1/server/series/cpuPercent/2',
    'null /runs/0/server/contextSwitches/voluntary', 'type /experiments/0/calibration/timings/0/opMs', 'null /experiments/0/calibration/ceilingLowRps']) {
    assert.ok(failedAt.has(required), `${required} is refused`)
  }
  // Optional fields may go: the calibration, an experiment's baseline, a run's invalid mark, a config key.
  for (const optional of ['delete /experiments/0/calibration', 'delete /experiments/0/baseline', 'delete /runs/0/invalid', 'delete /runs/0/config/workload',
    // absent from files written before they were kept
    'delete /runs/0/load/latencyHistogram', 'null /runs/1/load/latencyHistogram', 'delete /runs/0/server/series', 'delete /runs/1/server/contextSwitches',
    'delete /experiments/0/calibration/timings', 'delete /experiments/0/calibration/opCpuMsMin', 'delete /options/allowErrors']) {
    assert.ok(!failedAt.has(optional), `${optional} is accepted`)
  }
  assert.ok((outcomes.get('1') ?? 0) > 900, `most mutations are refused: ${JSON.stringify(Object.fromEntries(outcomes))}`)
})

test('a sample through the real CLI: exit 1, one line, no stack', async () => {
  const file = path.join(dir, 'sample.json')
  for (const [kind, at] of [['null', ['runs', 0, 'load', 'timePerRequestMs']], ['delete', ['environment']], ['type', ['runs']], ['null', ['runs', 1, 'server']]]) {
    const text = mutate(kind, at)
    await writeFile(file, text)
    for (const args of [['report', file, '--out', path.join(dir, 'cli-out'), '--no-png', '-q'], ['compare', file, realPath]]) {
      const r = await runCli(args)
      const what = `${args[0]}: ${kind} /${at.join('/')}`
      if (kind === 'null' && at[2] === 'server') {
        // a run without server metrics (a --target without /__syncbench/metrics) is valid
        assert.equal(r.code, 0, `${what}: ${r.stderr}`)
        continue
      }
      assert.equal(r.code, 1, `${what}: ${r.stderr}`)
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: ${r.stderr}`)
      assert.match(r.stderr, new RegExp(`^syncbench ${args[0]}: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `))
    }
  }
})
