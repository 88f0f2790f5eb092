// syncbench compare of one results file of run --app with two or more apps: each app after the first
// against the first, route by route, through the real CLI (the gate of docs/ci.md's recipe: a pull
// request and its base in one interleaved run). test/run-app.test.js runs the same on real apps.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { runCli } from './helper.js'
import { resultsFile } from './fixtures/results-builder.js'
import { compareApps, resultsApps } from '../lib/report/kinds/app.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-apps-')) })
after(() => rm(dir, { recursive: true, force: true }))

/**
 * A results file as run --app writes it for several apps: one experiment `app`, a configuration per
 * app and route labelled "<app> <route>", the first app the baseline of the others at each route.
 * @param {Record<string, Record<string, number[]>>} apps  app -> route -> req/s of each run
 */
function appResults (apps) {
  const names = Object.keys(apps)
  const several = names.length > 1
  /** @type {Record<string, number[]>} */
  const series = {}
  for (const [app, routes] of Object.entries(apps)) {
    for (const [route, values] of Object.entries(routes)) series[several ? `${app} ${route}` : route] = values
  }
  const results = resultsFile('22.12.0', series)
  const [base] = names
  const routeOf = (/** @type {string} */ label) => several ? label.slice(label.indexOf(' ') + 1) : label
  const appOf = (/** @type {string} */ label) => several ? label.slice(0, label.indexOf(' ')) : base
  results.experiments = [{
    ...results.experiments[0],
    name: 'app',
    table: 'app',
    baseline: base,
    comparisons: Object.fromEntries(Object.keys(series).filter((l) => appOf(l) !== base).map((l) => [l, `${base} ${routeOf(l)}`]))
  }]
  for (const run of results.runs) {
    run.experiment = 'app'
    run.id = `app/${run.id.slice(run.id.indexOf('/') + 1)}`
    run.config = { strategy: appOf(run.label), workload: routeOf(run.label) }
  }
  return results
}

/** @param {string} name @param {object} results */
async function write (name, results) {
  const file = path.join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify(results))
  return file
}

const steady = [100, 101, 99, 100.5]

test('one file of two apps: after against before at each route; a slower route fails the gate with exit 3', async () => {
  const file = await write('two', appResults({
    before: { '/report': steady, '/health': steady },
    after: { '/report': [80, 81, 79, 80.5], '/health': [100.2, 100.8, 99.3, 100.1] }
  }))
  const { code, stdout, stderr } = await runCli(['compare', file, '--fail-if-slower', '5%'])
  assert.equal(code, 3, stderr)
  assert.equal(stderr, '')
  // the table says which app is the baseline, and each row which apps it compares
  assert.match(stdout.replace(/\n(?!-)/g, ' '), /req\/s: b \(app after\) against a \(.+two\.json: app before, the baseline\)/)
  assert.match(stdout, /^app +\/report \(after vs before\) +.*slower: [\d.]+%\.\.[\d.]+% slower, beyond 5%$/m)
  assert.match(stdout, /^app +\/health \(after vs before\) +.*equivalent within 5%$/m)
  assert.match(stdout, /gate --fail-if-slower 5%: failed \(exit 3\)/)

  // the same file with the same routes equal in both apps passes
  const equal = await write('equal', appResults({ before: { '/report': steady }, after: { '/report': [100.2, 100.8, 99.3, 100.1] } }))
  const passed = await runCli(['compare', equal, '--fail-if-slower', '5%'])
  assert.equal(passed.code, 0, passed.stdout + passed.stderr)
})

test('one file of two apps, --json: the rows and both sides are the apps\'', async () => {
  const file = await write('json', appResults({ before: { '/report': steady }, after: { '/report': [80, 81, 79, 80.5] } }))
  const { code, stdout, stderr } = await runCli(['compare', file, '--fail-if-slower', '5%', '--json'])
  assert.equal(code, 3, stderr)
  const json = JSON.parse(stdout)
  assert.deepEqual(json.rows.map((/** @type {any} */ r) => [r.experiment, r.label, r.gate.verdict]), [['app', '/report (after vs before)', 'slower']])
  assert.equal(json.gate.exitCode, 3)
  assert.equal(json.a.file, file)
  assert.equal(json.b.file, file)
})

test('one file of three apps: each app after the first against the first, never against each other', () => {
  const results = appResults({ main: { '/x': steady }, a: { '/x': [50, 51, 49, 50] }, b: { '/x': [200, 201, 199, 200] } })
  assert.deepEqual(resultsApps(/** @type {any} */ (results)).apps, ['main', 'a', 'b'])
  const rows = compareApps(/** @type {any} */ (results))
  assert.deepEqual(rows.map((r) => r.label), ['/x (a vs main)', '/x (b vs main)'])
  assert.deepEqual(rows.map((r) => Math.round(r.change * 100)), [-50, 100])
})

test('the baseline is the experiment\'s, whatever order its labels are in', () => {
  const results = appResults({ before: { '/x': steady }, after: { '/x': [80, 81, 79, 80.5] } })
  results.experiments[0].labels.reverse()
  assert.deepEqual(resultsApps(/** @type {any} */ (results)).apps, ['before', 'after'])
  assert.deepEqual(compareApps(/** @type {any} */ (results)).map((r) => r.label), ['/x (after vs before)'])
})

test('one file of one app, or of no app: two files expected, one line, exit 2', async () => {
  // an experiment file whose server is a command is of the app kind too, its variants labelled its own way
  const experimentFile = resultsFile('22.12.0', { sync: steady, async: [80, 81, 79, 80.5] })
  Object.assign(experimentFile.experiments[0], { table: 'app', baseline: 'sync', comparisons: { async: 'sync' } })
  for (const [name, results] of [['one-app', appResults({ only: { '/x': steady } })], ['seeds', resultsFile('22.12.0', { sync: steady })], ['experiment-file', experimentFile]]) {
    const file = await write(name, results)
    const { code, stdout, stderr } = await runCli(['compare', file])
    assert.equal(code, 2, name)
    assert.equal(stdout, '')
    assert.equal(stderr, `syncbench compare: two results files expected, got 1 (one file compares its Node.js versions when syncbench run --node ran two or more binaries, or its apps when syncbench run --app ran two or more; ${file} holds neither)\n`, name)
  }
})
