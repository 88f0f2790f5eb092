// The docs cannot go stale: every generated block of README.md, CONTRIBUTING.md and docs/*.md holds
// what the current code prints (scripts/docs.js writes them: npm run docs), and every syncbench
// command line they show parses with the command's own parser (no load is run). The commands run
// in this process, as bin/syncbench.js runs them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { docFiles, findBlocks, keepSections, renderBlock, root } from '../scripts/docs.js'
import { markdownCommandLines, checkCommandLine } from './fixtures/command-lines.js'

const files = await docFiles()
/** @type {Map<string, string>} */
const texts = new Map()
for (const file of files) {
  try { texts.set(file, await readFile(path.join(root, file), 'utf8')) } catch {}
}

test('every generated block holds what the code prints now (npm run docs rewrites them)', async () => {
  let count = 0
  for (const [file, text] of texts) {
    for (const block of findBlocks(text, file)) {
      count++
      const now = await renderBlock(block.attrs, file)
      assert.equal(block.body, now, `${file}: the block ${JSON.stringify(block.attrs)} differs from what the code prints: npm run docs`)
    }
  }
  assert.ok(count >= 5, `only ${count} generated blocks`)
})

test('a block keeps the paragraphs it names by how they start, wherever they are in the output', () => {
  const text = '\na: one\n1\n\na: two\n\nb: three\n3\n\nc: four\n\nd: five\n'
  assert.equal(keepSections(text, 'a:'), 'a: one\n1\n\na: two\n...\n', 'a run of paragraphs that start alike')
  assert.equal(keepSections(text, 'a: two'), '...\na: two\n...\n')
  assert.equal(keepSections(text, 'b:..c:'), '...\nb: three\n3\n\nc: four\n...\n', 'from one through another')
  assert.equal(keepSections(text, 'a: one|c:'), 'a: one\n1\n...\nc: four\n...\n', '"..." where paragraphs are left out')
  assert.equal(keepSections(text, 'c:|d:'), '...\nc: four\n\nd: five\n', 'neighbours keep their blank line')
  // a section that is gone, or named out of order, is an error rather than a stale block
  assert.throws(() => keepSections(text, 'e:'), /no paragraph of the output starts with "e:"/)
  assert.throws(() => keepSections(text, 'c:|a:'), /no paragraph of the output starts with "a:" after the one before/)
})

test('the README is a front page: at most 300 lines of at most 100 characters, outside its blocks', () => {
  const readme = /** @type {string} */ (texts.get('README.md'))
  const lines = readme.split('\n')
  assert.ok(lines.length <= 300, `README.md has ${lines.length} lines`)
  let inBlock = false
  for (const line of lines) {
    if (line.startsWith('<!-- syncbench-docs:')) inBlock = true
    if (line.startsWith('<!-- /syncbench-docs')) inBlock = false
    // a table row or a link may run longer; prose wraps
    if (!inBlock && !line.startsWith('|') && !/\]\(/.test(line)) assert.ok(line.length <= 100, `README.md: a line of ${line.length} characters: ${line}`)
  }
})

test('no development diary in the docs: no issue numbers, no "this session"', () => {
  for (const [file, text] of texts) {
    assert.doesNotMatch(text, /\bissues? #?\d+|\bthis session\b|\bthe session before\b|\bthe final code\b/i, file)
  }
})

test('every syncbench command in the docs names a command and options that exist, and parses', async () => {
  const problems = []
  let checked = 0
  for (const [file, text] of texts) {
    for (const { line, inline, refused } of markdownCommandLines(text)) {
      const result = await checkCommandLine(line, { inline, refused })
      if (result.checked) checked++
      if (result.problem !== null) problems.push(`${file}: ${result.problem}`)
    }
  }
  assert.deepEqual(problems, [])
  assert.ok(checked >= 20, `only ${checked} commands found`)
})

test('docs/formats.md names every field of the schemas, and no field they lack', async () => {
  const text = /** @type {string} */ (texts.get('docs/formats.md'))
  const sections = [
    ['load-result.schema.json', text.slice(text.indexOf('## `--json`'), text.indexOf('## results.json'))],
    ['results.schema.json', text.slice(text.indexOf('## results.json'), text.indexOf('## `syncbench compare'))]
  ]
  for (const [schemaFile, section] of sections) {
    const schema = JSON.parse(await readFile(path.join(root, 'schemas', schemaFile), 'utf8'))
    const named = new Set([...section.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1].split(/[.[]/)[0]))
    const fields = Object.keys(schema.properties)
    assert.deepEqual(fields.filter((f) => !named.has(f)), [], `docs/formats.md does not describe these fields of ${schemaFile}`)
    assert.deepEqual([...named].filter((f) => !fields.includes(f)), [], `docs/formats.md describes fields ${schemaFile} does not have`)
  }
})

test('docs/run.md describes every field of an experiment file, and no field the schema lacks', async () => {
  const text = /** @type {string} */ (texts.get('docs/run.md'))
  const section = text.slice(text.indexOf('## Your own experiment'), text.indexOf('## Bring your own workload'))
  const named = new Set([...section.matchAll(/^\| ((?:`[\w.[\]]+`(?:, )?)+) \|/gm)].flatMap((m) => [...m[1].matchAll(/`([\w]+)/g)].map((n) => n[1])))
  const schema = JSON.parse(await readFile(path.join(root, 'schemas', 'experiment.schema.json'), 'utf8'))
  const fields = Object.keys(schema.properties)
  assert.deepEqual(fields.filter((f) => !named.has(f)), [], 'docs/run.md does not describe these fields of an experiment')
  assert.deepEqual([...named].filter((f) => !fields.includes(f)), [], 'docs/run.md describes fields an experiment does not have')
})
