// The safety net of every change to the report's code: from fixed results files, report.html,
// summary.md, the PNGs and the terminal output of `syncbench report` and of `syncbench run`'s answer
// are byte for byte what test/fixtures/golden/ recorded (test/fixtures/golden.js says what and how).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { GOLDEN_FIXTURES, goldenDir, goldenOutputs } from './fixtures/golden.js'

/**
 * The first line where two texts part, with its neighbours: a 700 kB report.html is not printed whole.
 * @param {string} actual @param {string} expected
 */
function firstDifference (actual, expected) {
  const a = actual.split('\n')
  const e = expected.split('\n')
  let i = 0
  while (i < a.length && i < e.length && a[i] === e[i]) i++
  const cut = (/** @type {string|undefined} */ line) => line === undefined ? '(no line)' : line.length > 400 ? `${line.slice(0, 400)}...` : line
  let at = 0
  while (at < (a[i] ?? '').length && a[i][at] === e[i]?.[at]) at++
  return `line ${i + 1}, column ${at + 1}\n  now:      ${cut(a[i]?.slice(Math.max(0, at - 120)))}\n  recorded: ${cut(e[i]?.slice(Math.max(0, at - 120)))}`
}

// all rendered at once: each is mostly a child process drawing PNGs, and the machine may have cores to spare
const rendered = new Map(GOLDEN_FIXTURES.map((fixture) => {
  const outputs = goldenOutputs(fixture)
  outputs.catch(() => {}) // reported by its test
  return [fixture, outputs]
}))

for (const fixture of GOLDEN_FIXTURES) {
  test(`${fixture}: the report's files and the terminal output are the recorded ones`, { timeout: 300_000 }, async () => {
    const dir = goldenDir(fixture)
    const outputs = await /** @type {ReturnType<typeof goldenOutputs>} */ (rendered.get(fixture))
    assert.deepEqual([...outputs.keys()].sort(), (await readdir(dir)).sort(), 'the outputs recorded')
    for (const [name, text] of outputs) {
      const recorded = await readFile(path.join(dir, name), 'utf8')
      if (text !== recorded) assert.fail(`${fixture}: ${name} differs from test/fixtures/golden/${path.basename(dir)}/${name} at ${firstDifference(text, recorded)}`)
    }
  })
}
