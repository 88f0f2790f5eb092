// The shared formatters (lib/format.js, formatPValue in lib/report/phrases.js): one way to print bytes, a
// rounded figure and a p-value, so the verdict, the tables, the charts and compare never disagree.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatBytes, formatNumber, MIB } from '../lib/format.js'
import { formatP, formatPValue } from '../lib/report/phrases.js'
import { summarizeResults } from '../lib/report/model.js'
import { compareResults } from '../lib/analysis/summarize.js'
import { compareTable } from '../lib/report/tables.js'
import { loadFixture } from './fixtures/report-helpers.js'

test('formatBytes: binary units, at most one decimal', () => {
  assert.equal(formatBytes(0), '0 B')
  assert.equal(formatBytes(1000), '1000 B')
  assert.equal(formatBytes(1536), '1.5 KiB')
  assert.equal(formatBytes(65536), '64 KiB')
  assert.equal(formatBytes(4 * MIB), '4 MiB')
  assert.equal(formatBytes(64.02 * MIB), '64 MiB')
  assert.equal(formatBytes(8_326_176_768), '7.8 GiB')
  assert.equal(formatBytes(NaN), '–')
  assert.equal(formatBytes(1000), '1000 B')
})

test('formatNumber: three significant figures, no exponent', () => {
  assert.equal(formatNumber(2250.4), '2250')
  assert.equal(formatNumber(30.769), '30.8')
  assert.equal(formatNumber(14), '14.0')
  assert.equal(formatNumber(2.5), '2.50')
  assert.equal(formatNumber(0.5234), '0.523')
  assert.equal(formatNumber(-12.34), '-12.3')
  assert.equal(formatNumber(0), '0')
  assert.equal(formatNumber(1.234e-8), '0.0000000123')
  assert.equal(formatNumber(Infinity), '–')
})

test('formatPValue: 3 significant digits as compare.R, exponent below 0.0001', () => {
  assert.equal(formatPValue(0.07939), '0.0794')
  assert.equal(formatPValue(0.0031), '0.0031')
  assert.equal(formatPValue(0.5), '0.5')
  assert.equal(formatPValue(1), '1')
  assert.equal(formatPValue(2.4271195435415403e-7), '2.43e-7')
  assert.equal(formatPValue(0), '< 2.2e-16')
  assert.equal(formatPValue(NaN), 'n/a')
  assert.equal(formatP({ p: 0, stars: '***' }), 'p < 2.2e-16 ***')
  assert.equal(formatP({ p: 0.07939, stars: '' }), 'p = 0.0794')
})

test('the verdict line and the compare table print the same p the same way', () => {
  const a = loadFixture()
  // b: the async runs of a, so compare tests async (b) against sync (a) as the verdict does
  const b = loadFixture()
  b.runs = b.runs.filter((r) => r.experiment === 'seed-bcrypt' && r.label === 'async').map((r) => ({ ...r, label: 'sync' }))
  const [c] = compareResults(a, b).filter((x) => x.experiment === 'seed-bcrypt')
  const table = compareTable([c], { a: 'a', b: 'b' })
  const p = table.rows[0][table.columns.indexOf('p-value')]
  const verdict = summarizeResults(a).find((s) => s.name === 'seed-bcrypt').verdict
  assert.equal(p, formatPValue(c.test.p))
  assert.ok(verdict.includes(`, p = ${p} ${c.test.stars})`), `${verdict} / ${p}`)
})
