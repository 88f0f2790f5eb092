// Progress on stderr: only on a terminal, never with --quiet; run count, runs left and ETA.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createProgress, formatDuration } from '../lib/cli/progress.js'

function stream (isTTY) {
  const s = { isTTY, text: '', write (chunk) { s.text += chunk; return true } }
  return s
}

test('a terminal gets the run, the runs left and the ETA, cleared before the report', () => {
  const s = stream(true)
  const p = createProgress(s)
  p.event({ type: 'run-start', index: 1, total: 4, experiment: 'seed-bcrypt', label: 'sync', repeat: 1, etaMs: null })
  assert.match(s.text, /run 1\/4 seed-bcrypt sync #1, 3 left$/)
  p.event({ type: 'run-end', index: 1, total: 4, record: {} })
  p.event({ type: 'run-start', index: 2, total: 4, experiment: 'seed-bcrypt', label: 'async', repeat: 1, etaMs: 83_000 })
  assert.match(s.text, /run 2\/4 seed-bcrypt async #1, 2 left, ETA 1:23$/)
  p.done()
  assert.ok(s.text.endsWith('\r\x1b[K'))
})

test('no progress when stderr is not a terminal, or with --quiet', () => {
  for (const [isTTY, quiet] of [[false, false], [true, true]]) {
    const s = stream(isTTY)
    const p = createProgress(s, { quiet })
    p.event({ type: 'run-start', index: 1, total: 2, experiment: 'x', label: 'a', repeat: 1, etaMs: 5000 })
    p.done()
    assert.equal(s.text, '')
  }
})

test('durations read as m:ss or h:mm:ss', () => {
  assert.equal(formatDuration(0), '0:00')
  assert.equal(formatDuration(59_600), '1:00')
  assert.equal(formatDuration(3_725_000), '1:02:05')
})
