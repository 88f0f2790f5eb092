// ab's Connection Times, where the rounding shows: ab keeps integer microseconds and prints
// (us + 500) / 1000, so a sub-millisecond median (the common case on localhost) prints as 1 from 0.5 ms
// up and as 0 below, and 2.5004 ms as 3: truncating would print 0, 0 and 2.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { formatAbReport } from '../lib/ab/ab-report.js'

const fixture = JSON.parse(readFileSync(new URL('./fixtures/results-16-cores-seed-bcrypt.json', import.meta.url), 'utf8'))

/**
 * A real LoadResult with its Connection Times rows replaced.
 * @param {Record<'connect'|'processing'|'waiting'|'total', import('../lib/types.js').TimeRow>} rows
 */
function withTimes (rows) {
  return { ...structuredClone(fixture.runs[0].load), connectionTimes: rows }
}

/**
 * The median column of each row of the report's table: min, mean, [+/-sd], median, max.
 * @param {string} report
 */
function medians (report) {
  return Object.fromEntries(['Connect', 'Processing', 'Waiting', 'Total'].map((name) => {
    const line = report.split('\n').find((l) => l.startsWith(`${name}:`))
    assert.ok(line, `${name} row`)
    return [name, Number(line.split(/\s+/)[4])]
  }))
}

test('the Connection Times medians round as ab rounds integer microseconds, sub-millisecond ones included', () => {
  const row = (/** @type {number} */ median) => ({ min: 0, mean: median, sd: 0.1, median, max: 5 })
  const report = formatAbReport(withTimes({ connect: row(0.5), processing: row(0.4994), waiting: row(0.6), total: row(2.5004) }), { confidence: true })
  assert.deepEqual(medians(report), { Connect: 1, Processing: 0, Waiting: 1, Total: 3 })
})

test('a median a microsecond either side of the half rounds to either side', () => {
  const row = (/** @type {number} */ median) => ({ min: 0, mean: 1, sd: 0.1, median, max: 5 })
  const report = formatAbReport(withTimes({ connect: row(1.499), processing: row(1.5), waiting: row(0.999), total: row(0.001) }), { confidence: true })
  assert.deepEqual(medians(report), { Connect: 1, Processing: 2, Waiting: 1, Total: 0 })
})
