// syncbench run's answer and syncbench report --text read in a 100-column terminal: every line that is
// not a table's (a table's header, rule and rows may be wider: they are tables) fits TEXT_WIDTH, over
// every results file the tests and the docs hold, and a verdict shows a line per subject. The real CLI
// prints the text; the model says which lines are a table's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { summarizeResults } from '../lib/report/model.js'
import { experimentTables, renderText } from '../lib/report/tables.js'
import { articleTable } from '../lib/report/articles.js'
import { versionsOf, versionTables } from '../lib/report/version-report.js'
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
 * The lines of the tables the text shows (header, rule, rows; not the titles, which are prose).
 * @param {import('../lib/types.js').ResultsFile} results
 */
function tableLines (results) {
  const tables = summarizeResults(results).flatMap((s) => [...experimentTables(s), ...s.articles.map(articleTable)])
  const versions = versionsOf(results)
  if (versions) tables.push(...versions.summary.experiments.flatMap((e) => versionTables(versions, e.name)))
  return new Set(tables.filter((t) => t.columns.length > 0).flatMap((t) => renderText(t).replace(/\n$/, '').split('\n').slice(1)))
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
  assert.ok(files.some((f) => f.file === path.join('test/fixtures', 'results-run-all.json')))
})

for (const { file, results } of files) {
  test(`${file}: report --text has no prose line over ${TEXT_WIDTH} columns, and a line per subject of each verdict`, async () => {
    const r = await /** @type {ReturnType<typeof runCli>} */ (printed.get(file))
    assert.equal(r.code, 0, r.stderr)
    const tables = tableLines(results)
    const long = r.stdout.split('\n').filter((line) => !tables.has(line) && [...line].length > TEXT_WIDTH)
    assert.deepEqual(long, [], `${file}: lines over ${TEXT_WIDTH} columns outside the tables`)
    const summaries = summarizeResults(results)
    assert.ok(summaries.length > 0)
    for (const s of summaries) {
      assert.equal(s.verdict, s.verdictParts.join('; '), 'the verdict is its parts')
      // each part starts a line of its own, its continuation lines indented under it
      for (const part of s.verdictParts) assert.ok(r.stdout.includes(`\n${wrap(part, TEXT_WIDTH, '  ')}\n`), `${file}: ${part}`)
    }
  })
}

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
