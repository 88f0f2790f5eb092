// npm test's failure list (scripts/test-failures.js, a node:test reporter): the end of a CI log names
// each failed test with its file and the first and last lines of its error, under this binary's test runner
// (the shape of its events changed between Node.js 20 and 24).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const reporter = fileURLToPath(new URL('../scripts/test-failures.js', import.meta.url))

test('each failed test once, with its file and its error; suites and passing tests not listed', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'syncbench-failures-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(path.join(dir, 'a.test.js'), [
    "import { test, describe } from 'node:test'",
    "import assert from 'node:assert/strict'",
    "test('passes', () => {})",
    "describe('a suite', () => { test('inner', () => { assert.equal(1, 2) }) })",
    "test('long', () => { throw new Error(Array.from({ length: 10 }, (_, i) => 'line ' + i).join('\\n')) })"
  ].join('\n'))
  writeFileSync(path.join(dir, 'b.test.js'), "throw new Error('at import')\n")
  writeFileSync(path.join(dir, 'c.test.js'), "import { test } from 'node:test'\ntest('passes', () => {})\n")
  // without the variable by which node --test tells its own children that they run under it
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const r = spawnSync(process.execPath, ['--test', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
    'a.test.js', 'b.test.js', 'c.test.js'], { cwd: dir, encoding: 'utf8', env })
  assert.equal(r.status, 1, r.stderr)
  const blocks = r.stdout.split(/^(?=✖ )/m)
  assert.deepEqual(blocks.map((b) => b.split('\n')[0]).sort(), ['✖ a.test.js: inner', '✖ a.test.js: long', '✖ b.test.js'])
  const inner = blocks.find((b) => b.startsWith('✖ a.test.js: inner')) ?? ''
  assert.match(inner, /^ {4}.*1.*2/m, 'the assertion is shown')
  const long = blocks.find((b) => b.startsWith('✖ a.test.js: long')) ?? ''
  // the first lines and the last (where a child's stderr, quoted whole, says what went wrong)
  assert.match(long, /^ {4}line 3\n {4}… 2 lines left out\n {4}line 6$/m)
  assert.match(long, /^ {4}line 9$/m)
  assert.doesNotMatch(long, /line [45]/)
  assert.doesNotMatch(r.stdout, /passes|a suite/)
})
