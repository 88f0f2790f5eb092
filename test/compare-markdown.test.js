// syncbench compare --format markdown, junit and --step-summary through the real CLI: the markdown of
// each kind of change byte for byte against its golden file, the JUnit XML parsed back, the job summary
// appended to a real file, and the command lines that are refused.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import { runCli } from './helper.js'
import { compareCases, goldenCompareDir, runCase, setTimes, usualTimes } from './fixtures/compare-cases.js'
import { resultsFile } from './fixtures/results-builder.js'
import { compareResults } from '../lib/analysis/summarize.js'
import { evaluateGate } from '../lib/analysis/gate.js'
import { bootstrapQuantileDifferences } from '../lib/analysis/quantile-bootstrap.js'
import { compareMarkdown, COMMENT_LIMIT } from '../lib/report/compare-markdown.js'
import { escapeXml } from '../lib/report/compare-junit.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-compare-md-')) })
after(() => rm(dir, { recursive: true, force: true }))

const cases = compareCases()

/**
 * A case's two files in the test's folder.
 * @param {string} name
 * @param {{ a: any, b: any }} [kase]
 */
async function files (name, kase = cases[name]) {
  const a = path.join(dir, `${name}-a.json`)
  const b = path.join(dir, `${name}-b.json`)
  await writeFile(a, JSON.stringify(kase.a))
  await writeFile(b, JSON.stringify(kase.b))
  return [a, b]
}

/** Each case's exit: only the req/s regression fails the 5% gate. */
const exits = { 'p99-only': 0, 'rps-only': 3, improvement: 0, 'mixed-routes': 0, 'different-machines': 0 }

for (const [name, exit] of Object.entries(exits)) {
  test(`compare --format markdown of "${name}" is its golden file, byte for byte`, async () => {
    const golden = await readFile(path.join(goldenCompareDir, `${name}.md`), 'utf8')
    const r = runCase(cases[name], ['--format', 'markdown'])
    assert.equal(r.stderr, '')
    assert.equal(r.code, exit)
    assert.equal(r.stdout, golden, `test/fixtures/golden-compare/${name}.md differs: node test/fixtures/make-golden-compare.js rewrites it`)
    // --markdown is the same format
    assert.equal(runCase(cases[name], ['--markdown']).stdout, golden)
  })
}

/** The golden text of a case. @param {string} name */
const golden = (name) => readFile(path.join(goldenCompareDir, `${name}.md`), 'utf8')

/** The main table's row of a configuration, its cells. @param {string} text @param {string} configuration */
function mainRow (text, configuration) {
  const line = text.split('\n').find((l) => l.startsWith(`| ${configuration} |`))
  assert.ok(line, `no row for ${configuration}`)
  return line.slice(2, -2).split(' | ')
}

/** A configuration's quantile rows under <details>: label -> its cells. @param {string} text @param {string} configuration */
function quantileRows (text, configuration) {
  const start = text.indexOf(`**${configuration}** (a:`)
  assert.ok(start >= 0, `no quantiles for ${configuration}`)
  const table = text.slice(start).split('\n\n')[1]
  return new Map(table.split('\n').slice(2).map((l) => {
    const cells = l.slice(2, -2).split(' | ')
    return [cells[0], cells]
  }))
}

test('a worse tail at the same req/s: the gate passes, the row names p99 and p99.9 as worse, p50 and p90 within noise', async () => {
  const text = await golden('p99-only')
  assert.match(text, /^\*\*Passed\*\*: gate --fail-if-slower 5%: passed: no configuration slower beyond 5% \(1 compared\)\n/)
  const [, , , , , verdict, latency] = mainRow(text, 'seed-bcrypt sync')
  assert.equal(verdict, 'equivalent within 5%')
  assert.match(latency, /^p99 \+\d+\.\d{3} ms, p99\.9 \+\d+\.\d{3} ms$/)
  const q = quantileRows(text, 'seed-bcrypt sync')
  assert.equal(q.get('p50')?.[5], 'within noise')
  assert.equal(q.get('p90')?.[5], 'within noise')
  assert.equal(q.get('p99')?.[5], 'worse')
  // the slowest 1% four times slower: 50 ms -> 200 ms (times stretched 0.98..1.02 over the runs)
  const [low, high] = /** @type {string} */ (q.get('p99')?.[4]).split('..').map(Number)
  assert.ok(low > 100 && high < 220, `${low}..${high}`)
  // the server's costs, collapsed: loop p99 12 -> 45 ms
  assert.match(text, /^\| seed-bcrypt sync \| 12\.\d\d ms \| 45\.\d\d ms \| \+2\d\d\.\d\d% \| 0\.50\d ms \| 0\.52\d ms \| \+4\.\d\d% \| 82 MiB \| 83 MiB \| \+1\.22% \|$/m)
  assert.match(text, /<details><summary>Latency quantiles[^\n]*<\/summary>\n\n/)
  assert.doesNotMatch(text, /Warning/)
})

test('req/s 20% lower with the same latencies: the gate fails first thing, the latency within noise', async () => {
  const text = await golden('rps-only')
  assert.match(text, /^\*\*Failed\*\*: gate --fail-if-slower 5%: failed \(exit 3\): 1 of 2 configurations slower beyond 5%: seed-bcrypt sync\n/)
  const sync = mainRow(text, 'seed-bcrypt sync')
  assert.deepEqual(sync.slice(1, 3), ['100.13', '80.13'])
  assert.equal(sync[3], '0.800x (0.787x..0.814x)')
  assert.equal(sync[5], 'slower: 18.6%..21.3% slower, beyond 5%')
  assert.equal(sync[6], 'within noise')
  assert.equal(mainRow(text, 'seed-bcrypt async')[5], 'equivalent within 5%')
  // no server metrics in these runs: no costs' section
  assert.doesNotMatch(text, /server's own costs/)
})

test('an improvement: faster, every quantile better', async () => {
  const text = await golden('improvement')
  const [, , , , , verdict, latency] = mainRow(text, 'seed-bcrypt sync')
  assert.match(verdict, /^faster: /)
  assert.match(latency, /^p50 -\d+\.\d{3} ms, p90 -\d+\.\d{3} ms, p99 -\d+\.\d{3} ms, p99\.9 -\d+\.\d{3} ms$/)
  for (const [, cells] of quantileRows(text, 'seed-bcrypt sync')) assert.equal(cells[5], 'better')
})

test('a mix whose routes moved apart: each route its own row, without a gate the first line counts what changed', async () => {
  const text = await golden('mixed-routes')
  assert.match(text, /^\*\*No gate\*\* \(no --fail-if-slower\): 3 configurations compared: 0 slower and 0 faster at p < 0\.05; 1 with a latency quantile worse beyond its interval\n/)
  assert.match(mainRow(text, 'seed-bcrypt mix GET /fast')[6], /^p50 -/)
  assert.match(mainRow(text, 'seed-bcrypt mix GET /report')[6], /^p99 \+\d+\.\d{3} ms, p99\.9 \+/)
  assert.equal(mainRow(text, 'seed-bcrypt mix')[6], 'within noise')
  assert.equal(mainRow(text, 'seed-bcrypt mix')[5], 'no significant change')
})

test('two machines and two Node.js versions: a warning line for each', async () => {
  const text = await golden('different-machines')
  assert.match(text, /^> \*\*Warning\*\*: different machines: a ran on Intel\(R\) Xeon\(R\) Processor, 2 CPUs, b on AMD EPYC 7763 64-Core Processor, 4 CPUs; the machines alone can explain a difference\.$/m)
  assert.match(text, /^> \*\*Warning\*\*: different Node\.js versions: a ran on 22\.12\.0, b on 24\.11\.1; /m)
  // the same machine: no warning (p99-only above), asserted here on the same files made alike
  const alike = { ...cases['different-machines'], b: { ...cases['different-machines'].b, environment: cases['different-machines'].a.environment } }
  assert.doesNotMatch(runCase(alike, ['--format', 'markdown']).stdout, /Warning/)
  // the same machine, the load through another transport
  const transport = structuredClone(alike)
  for (const [side, name] of [['a', 'native'], ['b', 'node:net']]) for (const run of transport[side].runs) run.load.transport = name
  assert.match(runCase(transport, ['--format', 'markdown']).stdout,
    /^> \*\*Warning\*\*: different transports: a's load went through native, b's through node:net; their CPU per request differs\.$/m)
})

/**
 * A CompareReport of many configurations, as lib/cli/compare.js builds it.
 * @param {number} n configurations
 */
function bigReport (n) {
  const labels = Array.from({ length: n }, (_, i) => `configuration-${String(i).padStart(3, '0')}`)
  const a = resultsFile('22.12.0', Object.fromEntries(labels.map((l) => [l, [100, 101, 99]])))
  const b = resultsFile('22.12.0', Object.fromEntries(labels.map((l) => [l, [100.2, 100.8, 99.3]])))
  for (const l of labels) {
    setTimes(a, l, [usualTimes(1), usualTimes(1.02), usualTimes(0.98)])
    setTimes(b, l, [usualTimes(1), usualTimes(1.02), usualTimes(0.98, 3)])
  }
  const rows = compareResults(a, b)
  return {
    a: { file: 'a.json', results: a },
    b: { file: 'b.json', results: b },
    names: { a: 'a.json: Node 22.12.0, 3 run(s)', b: 'b.json: Node 22.12.0, 3 run(s)' },
    versions: false,
    rows,
    gate: evaluateGate(rows, 0.05),
    capacity: { rows: [], goal: '', gate: undefined },
    changes: [],
    failIfBlocking: false,
    notes: [],
    exitCode: 0,
    failExit: 3
  }
}

test('the summary stays within GitHub\'s 65,536 characters: past it the collapsed details are cut, with a line saying so', () => {
  const report = bigReport(120)
  const whole = compareMarkdown(report, { limit: Infinity, resamples: 50 })
  assert.ok(whole.length > COMMENT_LIMIT, `the input must pass the limit: ${whole.length}`)
  const cut = compareMarkdown(report, { resamples: 50 })
  assert.ok(cut.length <= COMMENT_LIMIT, String(cut.length))
  assert.match(cut, /^\(\d+ of 120 configurations left out: GitHub's comment limit is 65536 characters\)$/m)
  // every configuration keeps its row in the visible table, and the <details> are closed
  for (let i = 0; i < 120; i++) assert.match(cut, new RegExp(`^\\| seed-bcrypt configuration-${String(i).padStart(3, '0')} \\|`, 'm'))
  assert.equal(cut.match(/<details>/g)?.length, cut.match(/<\/details>/g)?.length)

  // at the edge: a limit of exactly the whole's length keeps it whole, one less cuts it
  const small = bigReport(3)
  const all = compareMarkdown(small, { limit: Infinity, resamples: 50 })
  assert.equal(compareMarkdown(small, { limit: all.length, resamples: 50 }), all)
  const less = compareMarkdown(small, { limit: all.length - 1, resamples: 50 })
  assert.ok(less.length <= all.length - 1)
  assert.match(less, /left out/)
})

test('the bootstrap: seeded (the same intervals every time), null below 3 runs a side, 0 inside the interval of identical sides', () => {
  const a = resultsFile('22.12.0', { sync: [100, 101, 99, 100.5] })
  setTimes(a, 'sync', [1, 1.02, 0.98, 1.01].map((s) => usualTimes(s)))
  const [row] = compareResults(a, a)
  const first = bootstrapQuantileDifferences(row.runs.a, row.runs.b, [50, 99], { resamples: 300 })
  assert.deepEqual(bootstrapQuantileDifferences(row.runs.a, row.runs.b, [50, 99], { resamples: 300 }), first)
  for (const d of /** @type {NonNullable<typeof first>} */ (first)) assert.ok(d.low < 0 && d.high > 0, JSON.stringify(d))
  // other seeds draw other resamples: with 20 of them the interval's ends differ from seed to seed
  const seeds = [1, 2, 3, 4, 5].map((seed) => JSON.stringify(bootstrapQuantileDifferences(row.runs.a, row.runs.b, [99], { resamples: 20, seed })))
  assert.ok(new Set(seeds).size > 1, seeds.join(' '))
  assert.equal(bootstrapQuantileDifferences(row.runs.a.slice(0, 2), row.runs.b, [50], { resamples: 10 }), null)
  assert.notEqual(bootstrapQuantileDifferences(row.runs.a.slice(0, 3), row.runs.b.slice(0, 3), [50], { resamples: 10 }), null)
})

/**
 * A JUnit file read back by a strict XML parser: Python's xml.dom.minidom (expat), which refuses a
 * document that is not well-formed and decodes every entity. Null when python3 is not installed.
 * @param {string} file
 */
function readJunit (file) {
  const script = `
import json, sys
from xml.dom import minidom
root = minidom.parse(sys.argv[1]).documentElement
def attrs(e): return dict(e.attributes.items())
def text(e): return ''.join(n.data for n in e.childNodes if n.nodeType == n.TEXT_NODE)
def case(c):
    f = c.getElementsByTagName('failure')
    return {'attrs': attrs(c),
            'properties': {p.getAttribute('name'): p.getAttribute('value') for p in c.getElementsByTagName('property')},
            'failure': {'attrs': attrs(f[0]), 'text': text(f[0])} if f else None}
print(json.dumps({'tag': root.tagName, 'attrs': attrs(root),
                  'suites': [{'attrs': attrs(s), 'cases': [case(c) for c in s.getElementsByTagName('testcase')]}
                             for s in root.getElementsByTagName('testsuite')]}))
`
  const r = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' })
  if (r.error) return null
  assert.equal(r.status, 0, `not well-formed XML: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

test('--format junit --out FILE: JUnit XML, a testsuite per experiment, a failure where the gate fails', async (t) => {
  const [a, b] = await files('rps-only')
  const out = path.join(dir, 'junit.xml')
  const r = await runCli(['compare', a, b, '--fail-if-slower', '5%', '--format', 'junit', '--out', out])
  assert.equal(r.code, 3, r.stderr)
  assert.equal(r.stdout, '')
  assert.match(await readFile(out, 'utf8'), /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /)
  const doc = readJunit(out)
  if (doc === null) return t.skip('python3 not found: its XML parser reads the JUnit back')
  assert.equal(doc.tag, 'testsuites')
  assert.deepEqual(doc.attrs, { name: 'syncbench compare', tests: '2', failures: '1' })
  assert.equal(doc.suites.length, 1)
  assert.deepEqual(doc.suites[0].attrs, { name: 'seed-bcrypt', tests: '2', failures: '1', errors: '0', skipped: '0' })
  const [sync, async] = doc.suites[0].cases
  assert.deepEqual(sync.attrs, { classname: 'seed-bcrypt', name: 'sync' })
  assert.deepEqual(async.attrs, { classname: 'seed-bcrypt', name: 'async' })
  assert.deepEqual(sync.failure, {
    attrs: { message: 'slower: 18.6%..21.3% slower, beyond 5%', type: 'syncbench-gate' },
    text: 'gate --fail-if-slower 5%: failed (exit 3): 1 of 2 configurations slower beyond 5%: seed-bcrypt sync'
  })
  assert.equal(async.failure, null)
  assert.equal(sync.properties['a req/s'], '100.13')
  assert.equal(sync.properties['b req/s'], '80.13')
  assert.equal(sync.properties['b / a 95% CI'], '0.7868..0.8139')
  assert.equal(async.properties.gate, 'equivalent within 5%')

  // --out with another format: that format in the file, nothing on stdout
  const jsonOut = path.join(dir, 'compare.json')
  const j = await runCli(['compare', a, b, '--format', 'json', '--out', jsonOut])
  assert.equal(j.code, 0, j.stderr)
  assert.equal(j.stdout, '')
  assert.equal(JSON.parse(await readFile(jsonOut, 'utf8')).schema, 'syncbench/compare@1')
})

test('JUnit names with XML\'s special characters come back as they were', async (t) => {
  const label = 'a<b> & "c" \'d\' \u0007'
  const a = resultsFile('22.12.0', { [label]: [100, 101, 99] })
  const b = resultsFile('22.12.0', { [label]: [80, 81, 79] })
  const [fa, fb] = await files('special', { a, b })
  const out = path.join(dir, 'special.xml')
  const r = await runCli(['compare', fa, fb, '--fail-if-slower', '5%', '--format', 'junit', '--out', out])
  assert.equal(r.code, 3, r.stderr)
  const doc = readJunit(out)
  if (doc === null) return t.skip('python3 not found: its XML parser reads the JUnit back')
  // the bell, which XML cannot hold, as U+FFFD
  assert.equal(doc.suites[0].cases[0].attrs.name, 'a<b> & "c" \'d\' \ufffd')
  assert.match(doc.suites[0].cases[0].failure.text, /: seed-bcrypt a<b> & "c" 'd' /)
})

test('escapeXml: the five special characters as entities, characters XML cannot hold as U+FFFD', () => {
  assert.equal(escapeXml('<a href="x">&\'</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;')
  assert.equal(escapeXml('tab\tnew\nline\r ok'), 'tab\tnew\nline\r ok')
  assert.equal(escapeXml('bell\u0007 nul\u0000 esc\u001b'), 'bell\ufffd nul\ufffd esc\ufffd')
  assert.equal(escapeXml('lone \ud800 pair \ud83d\ude00'), 'lone \ufffd pair \ud83d\ude00')
})

test('--step-summary appends the markdown to $GITHUB_STEP_SUMMARY, whatever --format prints', async () => {
  const [a, b] = await files('rps-only')
  const summary = path.join(dir, 'step-summary.md')
  await writeFile(summary, 'earlier step\n')
  const r = await runCli(['compare', a, b, '--fail-if-slower', '5%', '--format', 'json', '--step-summary'], { env: { GITHUB_STEP_SUMMARY: summary } })
  assert.equal(r.code, 3)
  assert.equal(JSON.parse(r.stdout).gate.failed, true)
  assert.equal(r.stderr, `syncbench compare: --step-summary: appended the markdown summary to $GITHUB_STEP_SUMMARY (${summary})\n`)
  const md = (await runCli(['compare', a, b, '--fail-if-slower', '5%', '--format', 'markdown'])).stdout
  assert.equal(await readFile(summary, 'utf8'), 'earlier step\n\n' + md)

  // unset: said in a line, the exit is the gate's
  const unset = await runCli(['compare', a, b, '--fail-if-slower', '5%', '--step-summary'], { env: { GITHUB_STEP_SUMMARY: '' } })
  assert.equal(unset.code, 3)
  assert.equal(unset.stderr, 'syncbench compare: --step-summary: $GITHUB_STEP_SUMMARY is not set (outside GitHub Actions); nothing appended\n')
  assert.match(unset.stdout, /^gate --fail-if-slower 5%: failed/m)

  // a summary file that cannot be written: a line, and still the gate's exit
  const folder = path.join(dir, 'a-folder')
  await mkdir(folder, { recursive: true })
  const bad = await runCli(['compare', a, b, '--step-summary'], { env: { GITHUB_STEP_SUMMARY: folder } })
  assert.equal(bad.code, 0)
  assert.equal(bad.stderr, `syncbench compare: --step-summary: cannot append to $GITHUB_STEP_SUMMARY (${folder}): a folder, not a file (EISDIR)\n`)
})

test('bad --format, junit without --out, an unwritable --out: one line each, exit 2, 2 and 1', async () => {
  const [a, b] = await files('rps-only')
  const xml = await runCli(['compare', a, b, '--format', 'xml'])
  assert.equal(xml.code, 2)
  assert.equal(xml.stderr, 'syncbench compare: --format must be one of text, markdown, json, junit, got "xml"\n')
  const noOut = await runCli(['compare', a, b, '--format', 'junit'])
  assert.equal(noOut.code, 2)
  assert.equal(noOut.stderr, 'syncbench compare: --format junit writes to a file: give --out FILE\n')
  const both = await runCli(['compare', a, b, '--markdown', '--format', 'json'])
  assert.equal(both.code, 2)
  assert.equal(both.stderr, 'syncbench compare: --markdown and --format json exclude each other: give one of them\n')
  // the alias and the same format agree
  assert.equal((await runCli(['compare', a, b, '--json', '--format', 'json'])).code, 0)
  const nowhere = path.join(dir, 'no-such-folder', 'out.xml')
  const unwritable = await runCli(['compare', a, b, '--format', 'junit', '--out', nowhere])
  assert.equal(unwritable.code, 1)
  assert.equal(unwritable.stderr, `syncbench compare: --out cannot write "${nowhere}": no such folder (ENOENT)\n`)
})
