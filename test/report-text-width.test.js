// What syncbench prints on a terminal reads in 100 columns: every line of syncbench report --text (the
// run's answer: its tables, verdicts and "where the event loop went"), of predict and of compare, over
// every results file the tests and the docs hold, and of a real short run of npm start's experiments,
// fits TEXT_WIDTH; a verdict shows a line per subject; summary.md keeps every column and header the
// terminal leaves out or shortens. The real CLI prints the text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { tempDir } from './fixtures/report-helpers.js'
import { summarizeResults } from '../lib/report/model.js'
import { renderSummaryMarkdown } from '../lib/report/markdown.js'
import { TEXT_WIDTH, wrap } from '../lib/report/wrap.js'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The results files of test/fixtures/ and docs/recorded/, each content once, with their parsed data. */
async function resultsFiles () {
  /** @type {Map<string, { file: string, results: import('../lib/types.js').ResultsFile }>} */
  const byText = new Map()
  for (const dir of ['test/fixtures', 'docs/recorded']) {
    for (const name of (await readdir(path.join(root, dir))).filter((n) => n.endsWith('.json')).sort()) {
      const file = path.join(dir, name)
      const text = await readFile(path.join(root, file), 'utf8')
      const data = JSON.parse(text)
      if (data.schema === 'syncbench/results@1' && !byText.has(text)) byText.set(text, { file, results: data })
    }
  }
  return [...byText.values()]
}

/**
 * The lines of a command's output wider than TEXT_WIDTH (counted in characters: "█" and "…" are one column).
 * @param {string} text
 */
function wideLines (text) {
  return text.split(/\r?\n/).filter((line) => [...line].length > TEXT_WIDTH).map((line) => `${[...line].length}: ${line}`)
}

const files = await resultsFiles()
// every report at once: each is a child process, and the machine may have a core to spare
const printed = new Map(files.map(({ file }) => {
  const run = runCli(['report', path.join(root, file), '--text'])
  run.catch(() => {}) // reported by its test
  return [file, run]
}))

test('the results files are found', () => {
  assert.ok(files.length >= 5, files.map((f) => f.file).join(', '))
  for (const name of ['test/fixtures/results-run-all.json', 'docs/recorded/npm-start.json']) assert.ok(files.some((f) => f.file === name), name)
})

for (const { file, results } of files) {
  test(`${file}: report --text has no line over ${TEXT_WIDTH} columns, and a line per subject of each verdict`, async () => {
    const r = await /** @type {ReturnType<typeof runCli>} */ (printed.get(file))
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(wideLines(r.stdout), [], `${file}: lines over ${TEXT_WIDTH} columns`)
    const summaries = summarizeResults(results)
    assert.ok(summaries.length > 0)
    for (const s of summaries) {
      assert.equal(s.verdict, s.verdictParts.join('; '), 'the verdict is its parts')
      // each part starts a line of its own, its continuation lines indented under it
      for (const part of s.verdictParts) assert.ok(r.stdout.includes(`\n${wrap(part, TEXT_WIDTH, '  ')}\n`), `${file}: ${part}`)
    }
  })

  test(`${file}: predict and compare have no line over ${TEXT_WIDTH} columns`, async () => {
    const abs = path.join(root, file)
    const predicted = await runCli(['predict', abs, '--cores', '8', '--workers', '4'])
    assert.equal(predicted.code, 0, predicted.stderr)
    assert.deepEqual(wideLines(predicted.stdout), [], `${file}: predict`)
    // the file against itself: every configuration in common, the gate's column too
    const compared = await runCli(['compare', abs, abs, '--fail-if-slower', '5%'])
    assert.equal(compared.code, 0, compared.stderr)
    assert.match(compared.stdout, /gate \(5%\)/)
    assert.deepEqual(wideLines(compared.stdout), [], `${file}: compare`)
  })
}

test('the server metrics over several runs and seed 001\'s ab text: short on a terminal (the rules said under the table), whole in summary.md', async () => {
  const file = path.join(root, 'test/fixtures/results-16-cores-seed-bcrypt.json')
  const results = JSON.parse(await readFile(file, 'utf8'))
  const text = /** @type {Awaited<ReturnType<typeof runCli>>} */ (await printed.get('test/fixtures/results-16-cores-seed-bcrypt.json')).stdout
  const markdown = renderSummaryMarkdown(results, summarizeResults(results))
  assert.match(markdown, /\| Strategy \| loop p99 ms \(mean of runs\) \| loop max ms \(max of runs\) \| ELU \(mean of runs\) \| CPU % \(mean of runs\) \| peak RSS MiB \(max of runs\) \| threads \(max of runs\) \| bound \| predicted req\/s \| of bound \| of machine \|/)
  assert.match(markdown, /\| sync \| 1657\.2 \| 1674\.0 \| 1\.00 \| 101 \| 71\.5 \|/)
  assert.doesNotMatch(text, /mean of runs\)/)
  assert.match(text, /^Strategy +loop p99 +loop max +ELU +CPU % +RSS MiB +threads$/m)
  assert.match(text, /^sync +1657\.2 +1674\.0 +1\.00 +101 +71\.5 +\d+$/m)
  assert.match(text, /^Strategy +bound +predicted req\/s +of bound +of machine$/m)
  assert.match(text.replace(/\n/g, ' '), /loop p99, ELU, CPU %: mean of runs; loop max, RSS, threads: max of runs\./)
  // seed 001's ab text: shortened on a terminal, whole in summary.md
  assert.match(markdown, /\| Time per request: \| [\d.]+ \[ms\] \(mean, across all concurrent requests\) \| [\d.]+ \[ms\] \(mean, across all concurrent requests\) \|/)
  assert.match(text, /^Time per request: +[\d.]+ \[ms\] \(mean, across all\) +[\d.]+ \[ms\] \(mean, across all\)$/m)
})

test('where the event loop went: a function in a long path keeps its file and line within the width', async (t) => {
  const dir = await tempDir(t)
  const results = JSON.parse(await readFile(path.join(root, 'test/fixtures/results-run-all.json'), 'utf8'))
  const deep = '/home/someone/projects/registry/node_modules/@scope/auth-plugin/node_modules/bcryptjs/dist/bcrypt.js:959'
  let planted = 0
  for (const run of results.runs) {
    if (!run.profile) continue
    run.profile.self[0] = { ...run.profile.self[0], name: '_encipher', location: deep, via: undefined }
    planted++
  }
  assert.ok(planted > 0, 'the fixture has profiles')
  const file = path.join(dir, 'results.json')
  await writeFile(file, JSON.stringify(results))
  const r = await runCli(['report', file, '--text'])
  assert.equal(r.code, 0, r.stderr)
  const line = r.stdout.split('\n').find((l) => l.includes('_encipher'))
  assert.ok(line, r.stdout)
  assert.match(line, /_encipher \(\/home\/.*….*\/bcrypt\.js:959\)$/)
  assert.deepEqual(wideLines(r.stdout), [])
})

test('a real run of npm start\'s experiments prints no line over 100 columns, and its summary.md keeps every column', { timeout: 300_000 }, async (t) => {
  const dir = await tempDir(t)
  // two runs each: the server table's headers then carry how the runs combine ("mean of runs"), its widest form
  const r = await runCli(['run', '-n', '20', '-c', '4', '--runs', '2', '--no-report', '--out', 'out'], { cwd: dir, timeoutMs: 280_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /seed-bcrypt: server metrics/)
  assert.match(r.stdout, /seed-readfile: server metrics/)
  assert.deepEqual(wideLines(r.stdout), [], 'stdout')
  assert.deepEqual(wideLines(r.stderr), [], 'stderr')
  const summary = await readFile(path.join(dir, 'out', 'summary.md'), 'utf8')
  assert.equal(summary.match(/\| loop p99 ms \(mean of runs\) \|/g)?.length, 2, 'both server tables whole in summary.md')
  assert.match(summary, /\| Mode \| Req\/s \| % of readFileSync \| Time\/req ms \| across ms \|/)
  assert.match(r.stdout, /Also in summary\.md and report\.html: Time\/req ms, across ms\./)
})

test('wrap: words at the width, a longer word on a line of its own, line breaks kept, continuation lines hung', () => {
  assert.equal(wrap('aa bb cc', 5), 'aa bb\ncc')
  assert.equal(wrap('aa bbbbbbbb cc', 5), 'aa\nbbbbbbbb\ncc')
  assert.equal(wrap('aa bb cc dd', 5, '  '), 'aa bb\n  cc\n  dd')
  assert.equal(wrap('aa\nbb cc', 5, '  '), 'aa\n  bb\n  cc')
  assert.equal(wrap('short', 100), 'short')
  const text = 'the quick brown fox jumps over the lazy dog '.repeat(10).trim()
  const lines = wrap(text, 30, '  ').split('\n')
  assert.ok(lines.every((line) => line.length <= 30), lines.join('\n'))
  assert.equal(lines.map((line) => line.trim()).join(' '), text, 'no word lost or split')
})
