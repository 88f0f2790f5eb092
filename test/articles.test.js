// The seed articles' figures beside this machine's, and the reproduce rule (lib/report/articles.js),
// on results files built by hand: one where each conclusion reproduces, one where it does not.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareWithArticles, articleTable, ARTICLES } from '../lib/report/articles.js'
import { summarizeResults } from '../lib/report/model.js'
import { renderText, experimentTables } from '../lib/report/tables.js'

const MIB = 1024 * 1024

/**
 * A results file with the seed experiments' shape: req/s per label, the article's load unless `load` says otherwise.
 * @param {{ bcrypt?: Record<string, number[]>, readfile?: Record<string, number[]>, cores?: number, load?: object }} o
 */
function results ({ bcrypt, readfile, cores = 2, load }) {
  const experiments = []
  const runs = []
  const add = (name, table, labels, comparisons, series, articleLoad, calibration, rss) => {
    experiments.push({ name, title: name, description: '', axes: [], runs: 3, table, labels, comparisons, calibration })
    for (const [label, values] of Object.entries(series)) {
      values.forEach((rps, i) => runs.push({
        id: `${name}/${label}#${i + 1}`,
        experiment: name,
        label,
        config: { strategy: label },
        repeat: i + 1,
        engine: 'builtin',
        load: { requestsPerSecond: rps, aborted: false, concurrency: articleLoad.concurrency, options: articleLoad, completeRequests: articleLoad.requests },
        server: { eventLoopDelay: { p99: 1, max: 2 }, elu: 0.5, cpu: { percent: 100 }, memory: { peakRssBytes: (rss[label] ?? 100) * MIB }, threads: 11 },
        serverEnv: { uvThreadpoolSize: null },
        startedAt: '2026-01-01T00:00:00.000Z',
        error: null
      }))
    }
  }
  if (bcrypt) {
    add('seed-bcrypt', 'seed-001', ['sync', 'async'], { async: 'sync' }, bcrypt, load ?? { requests: 250, concurrency: 20, keepAlive: true },
      { op: 'bcrypt', opMs: 64.5, usableCores: cores, ceilingRps: cores * 1000 / 64.5, unit: 'hash/s', samples: 10 }, {})
  }
  if (readfile) {
    add('seed-readfile', 'seed-002', ['readFile', 'readFileSync', 'fake async'], { readFile: 'readFileSync', 'fake async': 'readFileSync' }, readfile,
      load ?? { requests: 1000, concurrency: 100, keepAlive: false },
      { op: 'readfile', opMs: 0.43, usableCores: cores, ceilingRps: cores * 1000 / 0.43, unit: 'read/s', samples: 100 }, { readFile: 562, readFileSync: 127 })
  }
  return { schema: 'syncbench/results@1', environment: { cpuCount: cores, uvThreadpoolSize: null }, experiments, runs }
}

const compare = (r) => compareWithArticles(r, summarizeResults(r))

test('the articles\' published figures, as in the seed files', () => {
  assert.deepEqual(ARTICLES.map((a) => a.figures), [{ sync: 10.75, async: 24.65 }, { readFile: 71.15, readFileSync: 26.50, 'fake async': 27.10 }])
})

test('seed 001 reproduces on 2 cores: async significantly faster, the size explained by the cores', () => {
  const [c] = compare(results({ bcrypt: { sync: [15.1, 15.2, 15.0], async: [29.9, 30.0, 29.8] } }))
  assert.equal(c.experiment, 'seed-bcrypt')
  assert.equal(c.outcome, 'reproduces')
  assert.deepEqual(c.rows.map((r) => [r.label, r.article, Number(r.here.mean.toFixed(2))]), [['sync', 10.75, 15.1], ['async', 24.65, 29.9]])
  const [claim] = c.claims
  assert.equal(claim.status, 'reproduces')
  assert.equal(claim.reproduces, true)
  assert.equal(claim.articleRatio.toFixed(2), '2.29')
  assert.equal(claim.ratio.toFixed(2), '1.98')
  assert.ok(claim.p < 0.001)
  assert.equal(c.loadNote, null, 'the article\'s own command')
  assert.match(c.line, /^seed 001 \(Jino Antony, 2020\) reproduces: "async mode performs better than sync mode" holds \(1\.98x here, p = [\d.e-]+ \*\*\*; 2\.29x in the article\): the gain is the cores/)
  assert.match(c.line, /min\(4 pool threads, 2 cores\) = 2 at once, so at most 2x here; the article's 2\.29x fits a machine with 3 or more cores/)
  const text = renderText(articleTable(c))
  assert.match(text, /^sync +10\.75 +15\.10 +14\.85\.\.15\.35$/m)
  assert.match(text, /^async \/ sync +2\.29x +1\.98x +95% CI 1\.9\dx\.\.[12]\.\d\dx, p = .+\*\*\*$/m)
})

test('seed 001 does not reproduce on one core, and says why', () => {
  const [c] = compare(results({ bcrypt: { sync: [15.1, 15.2, 15.0], async: [15.0, 15.3, 15.1] }, cores: 1 }))
  assert.equal(c.outcome, 'does not reproduce')
  assert.equal(c.claims[0].status, 'no-difference')
  assert.match(c.line, /does not hold \(1\.00x here, p = [\d.]+; 2\.29x in the article\)/)
  assert.match(c.line, /= 1 at once: with one lane async keeps the event loop responsive but adds no throughput/)
})

test('seed 002 on a page-cached file: readFile\'s 2.68x does not reproduce (and why), fake async\'s no-gain does', () => {
  const [c] = compare(results({ readfile: { readFile: [810, 790, 800, 820, 805], readFileSync: [880, 870, 890, 875, 885], 'fake async': [900, 860, 930, 850, 890] } }))
  assert.equal(c.experiment, 'seed-readfile')
  assert.equal(c.outcome, 'partly')
  const [readFile, fake] = c.claims
  assert.equal(readFile.status, 'opposite', 'readFileSync is significantly faster here')
  assert.equal(readFile.articleRatio.toFixed(2), '2.68')
  assert.equal(fake.status, 'reproduces')
  assert.equal(fake.articleRatio.toFixed(2), '1.02')
  assert.match(c.line, /^seed 002 \(naholyr, 2012\) partly reproduces: "readFile serves about 3 times what readFileSync does" does not hold \(0\.91x here/)
  assert.match(c.line, /in 2012 a disk was the bottleneck .* a read is a 0\.43 ms memory copy \(timed alone\), the CPU is the bottleneck, .*\(peak RSS 562 MiB against 127 MiB\)/)
  assert.match(c.line, /"setTimeout\(readFileSync\) gains nothing over readFileSync" holds \(1\.01x here, p = [\d.]+; 1\.02x in the article\): setTimeout\(fn, 0\) runs the same readFileSync on the same main thread/)
  const text = renderText(articleTable(c))
  assert.match(text, /^readFile +71\.15 +805\.00 /m)
  assert.match(text, /^fake async \/ readFileSync +1\.02x +1\.01x +95% CI [\d.]+x\.\.[\d.]+x, p = /m)
})

test('seed 002 where readFile wins and fake async gains 50%: the first reproduces, the second does not', () => {
  const [c] = compare(results({ readfile: { readFile: [300, 310, 305], readFileSync: [100, 102, 98], 'fake async': [150, 152, 148] } }))
  assert.deepEqual(c.claims.map((x) => x.status), ['reproduces', 'gain'])
  assert.equal(c.outcome, 'partly')
  assert.match(c.line, /"setTimeout\(readFileSync\) gains nothing over readFileSync" does not hold \(1\.50x here/)
})

test('a gain of 10% or more that the noise explains is no gain; one run each shows nothing', () => {
  const [noisy] = compare(results({ readfile: { readFile: [300, 310], readFileSync: [100, 200], 'fake async': [170, 160] } }))
  assert.equal(noisy.claims[1].status, 'reproduces')
  assert.match(noisy.line, /within the noise/)
  const [one] = compare(results({ bcrypt: { sync: [15], async: [30] } }))
  assert.equal(one.claims[0].status, 'no-p-value')
  assert.equal(one.outcome, 'does not reproduce')
  assert.match(one.line, /is not shown \(2\.00x here, p n\/a; 2\.29x in the article\): one run each gives no p-value/)
  assert.deepEqual(articleTable(one).columns, ['Configuration', 'article', 'here'], 'no CI column without one')
})

test('another load than the article\'s is said; experiments that are not a seed are left out', () => {
  const [c] = compare(results({ bcrypt: { sync: [15.1, 15.2], async: [29.9, 30] }, load: { requests: 6, concurrency: 2, keepAlive: true } }))
  assert.equal(c.loadNote, '(Measured with ab -k -c 2 -n 6, the article with ab -k -c 20 -n 250: the req/s are not like for like.)')
  const other = results({ bcrypt: { sync: [1, 2], async: [3, 4] } })
  other.experiments[0].table = 'generic'
  assert.deepEqual(compare(other), [])
})

/**
 * The cells of the experiment's own table and verdict for what the articles' table shows: each
 * configuration's mean req/s and "Req/s 95% CI", and each claim's ratio with what it rests on.
 * @param {import('../lib/report/model.js').ReportSummary} s
 */
function mainTableCells (s) {
  const [table] = experimentTables(s)
  const cells = new Map()
  if (s.table === 'seed-001') {
    const rowOf = (name) => table.rows.find((r) => r[0] === name)
    table.columns.slice(1).forEach((label, i) => {
      const ci = rowOf('Req/s 95% CI')
      cells.set(label, [rowOf('Requests per second:')[i + 1].replace(/ \[.*$/, ''), ci ? ci[i + 1] : undefined])
    })
    // seed 001's table has no comparison column: its verdict line words the ratio
    for (const m of s.verdict.matchAll(/(\w+) is ([\d.]+x) (\w+) \(([^)]*)\)/g)) cells.set(`${m[1]} / ${m[3]}`, [m[2], m[4]])
  } else {
    const col = (name) => table.columns.indexOf(name)
    for (const r of table.rows) {
      cells.set(r[0], [r[col('Req/s')], col('Req/s 95% CI') >= 0 ? r[col('Req/s 95% CI')] : undefined])
      const vs = r[table.columns.findIndex((c) => c.startsWith('vs '))]
      const m = /^([\d.]+x) (\S+), (.*)$/.exec(vs ?? '')
      if (m) cells.set(`${r[0]} / ${m[2]}`, [m[1], m[3]])
    }
  }
  return cells
}

test('the articles\' table and the experiment\'s own table agree cell for cell: one figure, one rule', () => {
  const cases = [
    { bcrypt: { sync: [16.75, 18.54], async: [30.1, 26.0] } },
    { bcrypt: { sync: [15.1, 15.2, 15.0, 15.6], async: [29.9, 30.0, 29.8] } },
    { readfile: { readFile: [810, 790], readFileSync: [880, 870], 'fake async': [900, 860] } },
    { readfile: { readFile: [810, 790, 800, 820, 805], readFileSync: [880, 870, 890, 875, 885], 'fake async': [900, 860, 930, 850, 890] } }
  ]
  for (const o of cases) {
    const r = results(o)
    const summaries = summarizeResults(r)
    const [c] = compareWithArticles(r, summaries)
    const main = mainTableCells(summaries[0])
    const article = articleTable(c)
    assert.equal(article.columns[3], 'here 95% CI / p')
    for (const row of article.rows) {
      assert.ok(main.has(row[0]), `${row[0]} in ${[...main.keys()]}`)
      assert.deepEqual([row[2], row[3]], main.get(row[0]), `${JSON.stringify(o)}: ${row[0]}`)
    }
    const runs = Object.values(Object.values(o)[0])[0].length
    if (runs === 2) assert.ok(article.rows.every((row) => /^2 runs: no interval/.test(row[3])), 'no interval from 2 runs, in words')
    else assert.ok(article.rows.every((row) => /^(95% CI )?[\d.]+x?\.\.[\d.]+x?/.test(row[3])), article.rows.join('\n'))
  }
})
