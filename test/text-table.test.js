// A table on a terminal (lib/report/text-table.js): at most the width, one part up to it and split past
// it (first where the table groups its columns), the row's name repeated in every part and no cell lost;
// one column cut instead when at least CUT_MIN (24) of it still fits; a name past 40 characters cut in its
// middle; the columns a terminal leaves out and the cut text named under the table. Each rule is tried
// just either side of its edge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { renderTerminal, fitLine, cutMiddle, cutEnd } from '../lib/report/text-table.js'

/**
 * A table of one row named "x" under the header "name", a column per width given, each cell that
 * many times its column's letter.
 * @param {number[]} widths
 * @returns {import('../lib/report/tables.js').Table}
 */
function table (widths) {
  const letters = widths.map((_, i) => String.fromCharCode(97 + i))
  return {
    title: 'a table',
    columns: ['name', ...letters],
    align: ['left', ...widths.map(() => /** @type {const} */ ('right'))],
    rows: [['x', ...widths.map((w, i) => letters[i].repeat(w))]]
  }
}

/** @param {string} text */
const lines = (text) => text.replace(/\n$/, '').split('\n')

/** The header lines of a rendered table's parts. @param {string} text */
const headers = (text) => lines(text).filter((l) => l.startsWith('name'))

test('a table exactly as wide as the terminal is one part; a column more wide splits it, the name in every part', () => {
  // 4 (name) + 4 x (2 + 20) + 2 + 6 = 100
  const fits = renderTerminal(table([20, 20, 20, 20, 6]), { width: 100 })
  assert.deepEqual(headers(fits).length, 1, fits)
  assert.equal(Math.max(...lines(fits).map((l) => l.length)), 100)
  const over = renderTerminal(table([20, 20, 20, 20, 7]), { width: 100 })
  assert.equal(headers(over).length, 2, over)
  assert.ok(lines(over).every((l) => l.length <= 100), over)
  const rows = lines(over).filter((l) => l.startsWith('x '))
  assert.equal(rows.length, 2, 'the row in each part')
  // no cell lost or cut
  for (const [i, w] of [20, 20, 20, 20, 7].entries()) assert.ok(over.includes(String.fromCharCode(97 + i).repeat(w)), over)
  assert.doesNotMatch(over, /…/)
})

test('a too wide table splits where it groups its columns, then joins the groups that fit side by side', () => {
  const plain = renderTerminal(table([25, 25, 25, 25]), { width: 100 })
  assert.deepEqual(headers(plain).map((h) => h.split(/ +/).length), [4, 2], 'column by column: three, then one')
  const grouped = renderTerminal({ ...table([25, 25, 25, 25]), parts: [false, false, true, false, false] }, { width: 100 })
  assert.deepEqual(headers(grouped).map((h) => h.split(/ +/).slice(1)), [['a'], ['b', 'c', 'd']])
})

test('the widest column is cut rather than the table split when 24 characters of it still fit, and the cut is named', () => {
  // 4 + 2 + 68 + 2 + 70 = 146: 46 over, the widest keeps 70 - 46 = 24
  const cut = renderTerminal(table([68, 70]), { width: 100 })
  assert.equal(headers(cut).length, 1, cut)
  assert.ok(cut.includes('b'.repeat(23) + '…'), cut)
  assert.ok(!cut.includes('b'.repeat(24)), cut)
  assert.ok(lines(cut).every((l) => l.length <= 100), cut)
  assert.match(cut, /"…" marks text cut to fit, whole in summary\.md and report\.html\.$/m)
  assert.match(renderTerminal(table([68, 70]), { width: 100, whole: 'syncbench predict --json' }), /whole in syncbench predict --json\.$/m)
  // one more of the other column: 23 would be left, so the table splits and nothing is cut
  const split = renderTerminal(table([69, 70]), { width: 100 })
  assert.equal(headers(split).length, 2, split)
  assert.ok(split.includes('b'.repeat(70)), split)
  assert.doesNotMatch(split, /…/)
})

test('a row name of 40 characters is kept, of 41 cut in its middle, keeping its start and its end', () => {
  const name = (n) => ({ title: 't', columns: ['route', 'p99'], align: /** @type {('left'|'right')[]} */ (['left', 'right']), rows: [[`/${'a'.repeat(n - 6)}/last`, '1']] })
  const kept = renderTerminal(name(40))
  assert.ok(kept.includes(`/${'a'.repeat(34)}/last`), kept)
  const cut = renderTerminal(name(41))
  const row = lines(cut).find((l) => l.startsWith('/'))
  assert.match(row ?? '', /^\/a+…a*\/last +1$/)
  assert.equal(row?.split(/ +/)[0].length, 40)
})

test('short headers, shorter cells and the note on a terminal; the columns it leaves out named under the table', () => {
  const text = renderTerminal({
    title: 'server',
    columns: ['Strategy', 'loop p99 ms (mean of runs)', 'Time/req ms', 'ELU (mean of runs)'],
    align: ['left', 'right', 'right', 'right'],
    rows: [['sync', '12.5', '1377.196', '1.00']],
    textRows: [['sync', '12.5', '1377.2', '1.0']],
    short: ['Strategy', 'loop p99', 'Time/req ms', 'ELU'],
    hidden: [false, false, true, false],
    note: 'loop p99: ms; mean of runs.'
  })
  assert.deepEqual(lines(text), [
    'server',
    'Strategy  loop p99  ELU',
    '--------  --------  ---',
    'sync          12.5  1.0',
    'loop p99: ms; mean of runs.',
    'Also in summary.md and report.html: Time/req ms.'
  ])
})

test('fitLine: a line of the width unchanged; one over loses the middle of its longest path, keeping file and line', () => {
  const head = '  POST /login  87.0%  _encipher ('
  const path = '/home/someone/registry/node_modules/bcryptjs/dist/bcrypt.js:959'
  const tail = ') -> pbkdf2Sync'
  const exact = head + path + tail
  const width = exact.length
  assert.equal(fitLine(exact, width), exact)
  const longer = head + '/x' + path + tail
  const fitted = fitLine(longer, width)
  assert.equal(fitted.length, width)
  assert.ok(fitted.startsWith(head + '/x/home'), fitted)
  assert.ok(fitted.endsWith('/bcrypt.js:959' + tail), fitted)
  assert.match(fitted, /…/)
  // a line without a path to cut is cut at its end
  assert.equal(fitLine('y'.repeat(101)), 'y'.repeat(99) + '…')
  assert.equal(fitLine('y'.repeat(100)), 'y'.repeat(100))
})

test('cutMiddle and cutEnd: the text whole up to the width, one character over cut to it with "…"', () => {
  assert.equal(cutMiddle('abcdef', 6), 'abcdef')
  assert.equal(cutMiddle('abcdefg', 6), 'abc…fg')
  assert.equal(cutEnd('abcdef', 6), 'abcdef')
  assert.equal(cutEnd('abcdefg', 6), 'abcde…')
})

test('a text column the same in every row is said once under the table from 12 characters on, kept below', () => {
  /** @param {string} value @returns {import('../lib/report/tables.js').Table} */
  const same = (value) => ({
    title: 't',
    columns: ['name', 'p99', 'runs combined'],
    align: ['left', 'right', 'left'],
    rows: [['sync', '1', value], ['async', '2', value]]
  })
  const noted = renderTerminal(same('a'.repeat(12)))
  assert.doesNotMatch(noted, /^name +p99 +runs combined$/m)
  assert.match(noted, /^runs combined, every row: a{12}\.$/m)
  const kept = renderTerminal(same('a'.repeat(11)))
  assert.match(kept, /^name +p99 +runs combined$/m)
  assert.match(kept, /^async +2 +a{11}$/m)
  assert.doesNotMatch(kept, /every row/)
})

test('a column whose terminal cells are all empty (folded into another\'s) is left out without a note; two key columns repeat in every part', () => {
  const text = renderTerminal({
    title: 't',
    columns: ['Experiment', 'Configuration', 'p-value', 'signif.', 'gate'],
    align: ['left', 'left', 'right', 'left', 'left'],
    rows: [['e', 'sync', '0.001', '***', 'slower']],
    textRows: [['e', 'sync', '0.001 ***', '', 'slower']],
    parts: [false, false, false, false, true]
  }, { width: 40, keys: 2 })
  assert.doesNotMatch(text, /signif|Also in/)
  assert.match(text, /^e +sync +0\.001 \*\*\*$/m)
  assert.match(text, /^e +sync +slower$/m)
  assert.equal(lines(text).filter((l) => l.startsWith('Experiment  Configuration')).length, 2)
})
