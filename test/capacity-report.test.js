// Reading a capacity run (`syncbench run --capacity`, results.json `capacity`) in every output of
// `syncbench report`: the table, the verdict's wording of each way a search can end, the chart in
// report.html and charts/, the section in summary.md; and nothing of it for a file without searches.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { runCli } from './helper.js'
import { svgDom, tempDir, loadFixture } from './fixtures/report-helpers.js'
import { capacityResultsFile, resultsFile } from './fixtures/results-builder.js'
import { rateInterval } from '../lib/analysis/stats.js'
import { formatNumber } from '../lib/format.js'
import { goalMeasure } from '../lib/report/capacity-report.js'
import { parseSlo } from '../lib/analysis/slo.js'
import { chartDrawings } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { summarizeResults } from '../lib/report/model.js'

/** @typedef {import('../lib/types.js').ResultsFile} ResultsFile */

/**
 * The search of one label and repeat in a built file.
 * @param {ResultsFile} results @param {string} label @param {number} [repeat]
 */
function searchOf (results, label, repeat = 1) {
  const found = results.capacity?.searches.find((s) => s.label === label && s.repeat === repeat)
  assert.ok(found, `a search of ${label} #${repeat}`)
  return found
}

/**
 * Each search's capacity set to the figure given (the builder's searches bisect to within 5% below
 * it), so that the figures a test expects are the ones it wrote.
 * @param {ResultsFile} results @param {Record<string, (number|null)[]>} capacities
 */
function exactly (results, capacities) {
  for (const [label, list] of Object.entries(capacities)) {
    list.forEach((c, i) => { /** @type {NonNullable<import('../lib/types.js').CapacityRecord['search']>} */ (searchOf(results, label, i + 1).search).capacity = c })
  }
  return results
}

/**
 * Write the results into a fresh folder and run `syncbench report` on it (--text: the terminal's
 * answer, nothing written).
 * @param {import('node:test').TestContext} t @param {ResultsFile} results @param {string[]} [args]
 */
async function report (t, results, args = []) {
  const dir = await tempDir(t)
  await writeFile(path.join(dir, 'results.json'), JSON.stringify(results))
  const r = await runCli(['report', dir, ...args], { cwd: dir })
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, '')
  return { dir, stdout: r.stdout }
}

/**
 * The cells of a terminal table's row: the text after the row's name, split at two spaces or more.
 * @param {string} text @param {string} title  the start of the table's title @param {string} label
 */
function terminalRow (text, title, label) {
  const table = text.slice(text.indexOf(title))
  const line = table.split('\n').find((l) => l.startsWith(`${label} `))
  assert.ok(line, `a row ${label} under ${title}:\n${table}`)
  return line.slice(label.length).trim().split(/ {2,}/)
}

/**
 * The cells of a markdown table's row.
 * @param {string} md @param {string} caption @param {string} label
 */
function markdownRow (md, caption, label) {
  const table = md.slice(md.indexOf(caption))
  const line = table.split('\n').find((l) => l.startsWith(`| ${label} |`))
  assert.ok(line, `a row ${label} under ${caption}`)
  return line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim())
}

/** The verdict line of summary.md (the experiment's one paragraph). @param {string} md */
function mdVerdict (md) {
  const line = md.split('\n').find((l) => l.startsWith('> seed-bcrypt'))
  assert.ok(line, 'a verdict')
  return line
}

test('three searches a configuration: the geometric mean and its interval, the ratio, the chart, summary.md', { timeout: 120_000 }, async (t) => {
  const results = exactly(capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18, 19, 18.5], capacities: [12, 13, 12.5] },
    async: { closedLoop: [30, 31, 29], capacities: [24, 26, 25] }
  }), { sync: [12, 13, 12.5], async: [24, 26, 25] })
  const { dir, stdout } = await report(t, results)
  assert.match(stdout, /charts {3}\d+ PNG/)
  const charts = await readdir(path.join(dir, 'charts'))
  assert.ok(charts.includes('seed-bcrypt-capacity.png'), charts.join(' '))

  const md = await readFile(path.join(dir, 'summary.md'), 'utf8')
  const caption = '**seed-bcrypt: capacity at p99 < 1 s (open loop, 4 s steps, 3 searches per configuration)**'
  assert.ok(md.includes(caption), 'the capacity table in summary.md')
  assert.ok(md.includes('| Configuration | capacity req/s | capacity 95% CI | closed-loop req/s | closed-loop p99 ms | capacity vs baseline |'),
    'no bound column: the experiment has no calibration')
  const sync = rateInterval([12, 13, 12.5])
  const async = rateInterval([24, 26, 25])
  /** @param {number} v */
  const f3 = (v) => v >= 100 ? String(Math.round(v)) : v.toPrecision(3)
  const syncRow = markdownRow(md, caption, 'sync')
  assert.deepEqual(syncRow.slice(1, 4), ['12.5', `${f3(sync.low)}..${f3(sync.high)}`, '18.5'])
  assert.match(syncRow[4], /^\d+( \(max\))?$/, 'the closed loop\'s p99, ms')
  assert.equal(syncRow[5], '', 'the baseline has no ratio')
  const asyncRow = markdownRow(md, caption, 'async')
  assert.deepEqual(asyncRow.slice(1, 4), ['25.0', `${f3(async.low)}..${f3(async.high)}`, '30.0'])
  assert.match(asyncRow[5], /^2\.00x sync, 95% CI \d\.\d\dx\.\.\d\.\d\dx, p = [\d.e-]+ \*+$/)

  const verdict = mdVerdict(md)
  assert.ok(verdict.includes(`capacity at p99 < 1 s: sync holds 12.5 req/s (95% CI ${f3(sync.low)}..${f3(sync.high)}), async 25.0 (95% CI ${f3(async.low)}..${f3(async.high)}): 2.00x sync (95% CI `), verdict)
  // the fixture's closed-loop runs answered in 2.36 s at their p99: past the goal of 1 s
  assert.match(verdict, /the closed loop's req\/s hide that its p99 is already past the goal there: sync 2\.36 s \(its max\) at 18\.5 req\/s, async 2\.36 s \(its max\) at 30\.0 req\/s/)

  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  assert.ok(html.includes('<caption>seed-bcrypt: capacity at p99 &lt; 1 s'), 'the table in report.html')
  const svg = /<figure id="chart-seed-bcrypt-capacity">(<svg[\s\S]*?<\/svg>)/.exec(html)?.[1]
  assert.ok(svg, 'the capacity chart in report.html')
  const dom = svgDom(svg)
  assert.equal(dom.marks('goal').length, 1, 'one goal line')
  assert.deepEqual(dom.texts('goal label'), ['goal: p99 < 1 s'])
  assert.deepEqual(dom.texts('capacity label').sort(), ['12.5', '25.0'], 'each configuration\'s capacity marked')
  const steps = results.capacity?.searches.flatMap((s) => s.search?.steps ?? []) ?? []
  const pass = steps.filter((s) => s.verdict === 'pass').length
  assert.ok(pass > 0 && pass < steps.length, 'the fixture has steps of both verdicts')
  assert.equal(dom.marks('step pass').length, pass, 'a filled dot per passing step')
  assert.equal(dom.marks('step fail').length, steps.length - pass, 'a ring per failing step')
  assert.ok(dom.legend().includes('met the goal') && dom.legend().includes('missed it'), dom.legend().join(', '))
})

test('one search a configuration: its value, no interval; the ratio without one', async (t) => {
  const results = exactly(capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18], capacities: [12] },
    async: { closedLoop: [30], capacities: [24] }
  }), { sync: [12], async: [24] })
  const { stdout } = await report(t, results, ['--text'])
  const title = 'seed-bcrypt: capacity at p99 < 1 s (open loop, 4 s steps, 1 search per configuration)'
  assert.ok(stdout.includes(title), stdout)
  // no interval column: the search's bracket instead, its capacity and the lowest failure above it
  const sync = terminalRow(stdout, title, 'sync')
  const syncSearch = results.capacity?.searches.find((s) => s.label === 'sync')?.search
  assert.deepEqual(sync.slice(0, 3), ['12.0', `12.0..${formatNumber(/** @type {number} */ (syncSearch?.lastFail))}`, '18.0'])
  const async = terminalRow(stdout, title, 'async')
  assert.deepEqual([async[0], async[2], async.at(-1)], ['24.0', '30.0', '2.00x'], 'no interval and no p with one search a side')
  assert.match(stdout.replace(/\n/g, ' '), /its resolution, not a 95% interval: --runs 3 for one/)
  const asyncFail = results.capacity?.searches.find((s) => s.label === 'async')?.search?.lastFail
  assert.match(stdout, new RegExp(`^capacity at p99 < 1 s: sync holds 12\\.0 req/s \\(fails at ${formatNumber(/** @type {number} */ (syncSearch?.lastFail))}\\), async 24\\.0 \\(fails at ${formatNumber(/** @type {number} */ (asyncFail))}\\): 2\\.00x sync$`, 'm'))
  for (const line of stdout.split('\n')) assert.ok(line.length <= 100, `over 100 columns: ${line}`)
})

test('two searches a configuration: each value, no mean without an interval (3 searches make one)', async (t) => {
  const results = exactly(capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18, 19], capacities: [12, 13] },
    async: { closedLoop: [30, 31], capacities: [24, 26] }
  }), { sync: [12, 13], async: [24, 26] })
  const { stdout } = await report(t, results, ['--text'])
  const title = 'seed-bcrypt: capacity at p99 < 1 s (open loop, 4 s steps, 2 searches per configuration)'
  assert.deepEqual(terminalRow(stdout, title, 'sync').slice(0, 2), ['12.0, 13.0', '18.5'])
  assert.match(terminalRow(stdout, title, 'async').at(-1), /^2\.00x, p = [\d.e-]+$/, 'a p from 2 searches a side, no interval')
  assert.match(stdout.replace(/\n {2}/g, ' '), /capacity at p99 < 1 s: sync holds 12\.0, 13\.0 req\/s, async 24\.0, 26\.0: 2\.00x sync \(p = [\d.e-]+ \*+\)/)
})

test('each way a search ends short: none, the generator, the budget, the max rate, a step that could not run', async (t) => {
  const results = capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18], capacities: [null] },
    async: { closedLoop: [30], capacities: [24] },
    worker: { closedLoop: [28], capacities: [20] },
    cluster: { closedLoop: [40], capacities: [30] },
    fork: { closedLoop: [25], capacities: [16] }
  })
  Object.assign(/** @type {object} */ (searchOf(results, 'async').search), { capacity: 40, reason: 'generator-bound' })
  Object.assign(/** @type {object} */ (searchOf(results, 'worker').search), { capacity: 10, reason: 'budget' })
  Object.assign(/** @type {object} */ (searchOf(results, 'cluster').search), { capacity: 64, reason: 'max-rate' })
  const failed = searchOf(results, 'fork')
  failed.error = { code: 'SB_ERR_SERVER_EXITED', message: 'the server exited with code 1 during a step' }
  Object.assign(/** @type {object} */ (failed.search), { capacity: null })

  const { stdout } = await report(t, results, ['--text'])
  const title = 'seed-bcrypt: capacity at p99 < 1 s'
  assert.equal(terminalRow(stdout, title, 'sync')[0], 'none')
  assert.equal(terminalRow(stdout, title, 'async')[0], '≥ 40.0 (generator)')
  assert.equal(terminalRow(stdout, title, 'worker')[0], '≥ 10.0 (budget)')
  assert.equal(terminalRow(stdout, title, 'cluster')[0], '≥ 64.0 (max rate)')
  assert.equal(terminalRow(stdout, title, 'fork')[0], 'error')

  const verdict = stdout.replace(/\n {2}/g, ' ')
  const sync = searchOf(results, 'sync').search?.steps ?? []
  const lowest = sync.reduce((low, s) => s.rate < low.rate ? s : low)
  assert.equal(lowest.verdict, 'fail')
  assert.ok(verdict.includes(`no rate meets p99 < 1 s for sync: the lowest tried, ${formatNumber(lowest.rate)} req/s, had p99 ${Number((/** @type {number} */ (lowest.figures.p99Ms) / 1000).toPrecision(3))} s, ` +
    `${formatNumber(lowest.figures.achievedRate)} req/s answered (${lowest.why.join('; ')})`), verdict)
  assert.ok(verdict.includes('the generator, not the server, was the bound for async: at least 40.0 req/s'), verdict)
  assert.ok(verdict.includes('the budget ran out for worker: at least 10.0 req/s, the best so far, not bisected to 5%'), verdict)
  assert.ok(verdict.includes('cluster held the highest rate a search may offer: at least 64.0 req/s'), verdict)
  assert.ok(verdict.includes('a step of fork could not run (SB_ERR_SERVER_EXITED: the server exited with code 1 during a step)'), verdict)
  assert.ok(!/capacity at p99 < 1 s: \w+ holds/.test(verdict), 'no configuration was bisected to a capacity')
})

test('a configuration whose searches ended differently: the mean marked a lower bound, what stopped each counted', async (t) => {
  const results = exactly(capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18, 19, 18.5, 18], capacities: [12, 13, 12.5, null] },
    async: { closedLoop: [30, 31, 29], capacities: [24, 26, 25] }
  }), { sync: [12, 13, 12.5, null], async: [24, 26, 25] })
  Object.assign(/** @type {object} */ (searchOf(results, 'sync', 2).search), { reason: 'budget' })
  const { stdout } = await report(t, results, ['--text'])
  assert.equal(terminalRow(stdout, 'seed-bcrypt: capacity at', 'sync')[0], `≥ ${rateInterval([12, 13, 12.5]).geometricMean.toPrecision(3)} (1 budget, 1 none)`)
  const verdict = stdout.replace(/\n {2}/g, ' ')
  assert.ok(verdict.includes('capacity at p99 < 1 s: sync holds 12.0, 12.5 req/s, async 25.0'), verdict)
  assert.ok(verdict.includes('the budget ran out for sync (1 of 4 searches): at least 13.0 req/s'), verdict)
  assert.ok(verdict.includes('no rate meets p99 < 1 s for sync (1 of 4 searches)'), verdict)
})

test('the closed loop hides a latency past the goal only from the goal\'s bound up', async (t) => {
  const base = capacityResultsFile('v22.0.0', { sync: { closedLoop: [18], capacities: [12] } })
  // the closed loop's p99 as the model has it (the fixture's runs: about 2.36 s, their max): a goal at
  // it is missed there, a goal just above it met
  const p99 = summarizeResults(base)[0].rows[0].latency?.percentiles.find((q) => q.key === 'p99')?.ms
  assert.ok(typeof p99 === 'number' && p99 > 2000 && p99 < 3000, String(p99))
  for (const [below, hides] of [[p99, true], [p99 + 0.001, false]]) {
    const results = structuredClone(base)
    const capacity = /** @type {NonNullable<ResultsFile['capacity']>} */ (results.capacity)
    capacity.slo = { terms: [{ measure: 'p99', below }] }
    capacity.goal = `p99 < ${below} ms`
    const { stdout } = await report(t, results, ['--text'])
    assert.equal(/the closed loop's 18\.0 req\/s hides that sync's p99 is already 2\.36 s \(its max\) there/.test(stdout.replace(/\n {2}/g, ' ')), hides, `p99 < ${below} ms:\n${stdout}`)
  }
})

test('the bound of predict\'s model beside a capacity, "—" where the model has none', async (t) => {
  const results = /** @type {ResultsFile} */ (loadFixture())
  const built = capacityResultsFile('v22.0.0', { 'bcrypt sync': { closedLoop: [10], capacities: [9] }, 'readfile sync': { closedLoop: [300], capacities: [200] } })
  const capacity = /** @type {NonNullable<ResultsFile['capacity']>} */ (built.capacity)
  for (const s of capacity.searches) Object.assign(s, { experiment: 'strategies', id: `strategies/${s.label}#1` })
  results.capacity = capacity
  const { stdout } = await report(t, results, ['--text'])
  const title = 'strategies: capacity at p99 < 1 s'
  const bcrypt = terminalRow(stdout, title, 'bcrypt sync')
  const readfile = terminalRow(stdout, title, 'readfile sync')
  // one search each: capacity, bracket, closed req/s, closed p99, bound
  assert.match(bcrypt[4], /^1\d\.\d$/, `bcrypt sync's bound (about 11 req/s): ${bcrypt.join(' | ')}`)
  assert.equal(readfile[4], '—')
  assert.ok(!stdout.includes('seed-bcrypt: capacity at'), 'only the experiment searched has the section')
})

test('under --node: a row per configuration and binary, each beside its own binary\'s closed loop', async (t) => {
  const results = exactly(capacityResultsFile('v22.0.0', {
    sync: { closedLoop: [18, 19, 18.5], capacities: [12, 13, 12.5] },
    async: { closedLoop: [30, 31, 29], capacities: [24, 26, 25] }
  }), { sync: [12, 13, 12.5], async: [24, 26, 25] })
  const versions = { node: '20.0.0', v8: '1', uv: '1', openssl: '3', modules: '1' }
  /** @param {string} name */
  const node = (name) => ({ name, node: `${name}.0.0`, v8: '1', uv: '1', openssl: '3' })
  results.nodes = [{ name: '20', path: '/a', versions }, { name: '24', path: '/b', versions: { ...versions, node: '24.0.0' } }]
  // on "24" every closed loop answered twice the requests a second, and every search found twice the capacity
  results.runs = results.runs.flatMap((r) => [
    { ...r, id: `${r.id}@20`, node: node('20') },
    { ...r, id: `${r.id}@24`, node: node('24'), load: { ...r.load, requestsPerSecond: r.load.requestsPerSecond * 2 } }
  ])
  const capacity = /** @type {NonNullable<ResultsFile['capacity']>} */ (results.capacity)
  /** @param {import('../lib/types.js').CapacityRecord['search']} search */
  const doubled = (search) => search && { ...search, capacity: search.capacity === null ? null : search.capacity * 2 }
  capacity.searches = capacity.searches.flatMap((s) => [
    { ...s, node: node('20') },
    { ...structuredClone(s), node: node('24'), search: doubled(s.search) }
  ])
  const { stdout } = await report(t, results, ['--text'])
  const title = 'seed-bcrypt: capacity at p99 < 1 s'
  assert.deepEqual(['sync (20)', 'sync (24)', 'async (20)', 'async (24)'].map((label) => terminalRow(stdout, title, label).slice(0, 1).concat(terminalRow(stdout, title, label)[2])),
    [['12.5', '18.5'], ['25.0', '37.0'], ['25.0', '30.0'], ['50.0', '60.0']])
  assert.match(stdout.replace(/\n {2}/g, ' '), /capacity at p99 < 1 s: sync \(20\) holds 12\.5 req\/s \(95% CI [^)]+\), sync \(24\) 25\.0 \(95% CI [^)]+\), async \(20\) 25\.0 \(95% CI [^)]+\): 2\.00x sync \(95% CI/)
})

test('the chart: a triangle per generator-bound step, no point for a step without the latency', () => {
  const results = capacityResultsFile('v22.0.0', { sync: { closedLoop: [18], capacities: [12] } })
  const steps = searchOf(results, 'sync').search?.steps ?? []
  const last = steps[steps.length - 1]
  Object.assign(last, { verdict: 'generator-bound', why: ['achieved 5 of the 12 req/s offered with the goal met'] })
  Object.assign(steps[0].figures, { p99Ms: null })
  const spec = chartDrawings(results, summarizeResults(results)).map((draw) => draw()).find((c) => c.kind === 'capacity')
  assert.ok(spec, 'a capacity chart')
  assert.equal(spec.id, 'seed-bcrypt-capacity')
  const dom = svgDom(renderChartSvg(spec))
  assert.equal(dom.marks('step generator-bound').length, 1)
  assert.equal(dom.marks('step pass').length + dom.marks('step fail').length, steps.length - 2, 'the step without a p99 is not drawn')
  assert.ok(dom.legend().includes('generator-bound'), dom.legend().join(', '))
  assert.match(dom.frameText(), /triangle: the generator could not send the rate/)
})

test('a results file without capacity has no capacity section, table, verdict or chart', async (t) => {
  const { dir, stdout } = await report(t, resultsFile('v22.0.0', { sync: [18, 19, 18.5], async: [30, 31, 29] }))
  assert.match(stdout, /charts {3}\d+ PNG/)
  assert.ok(!(await readdir(path.join(dir, 'charts'))).some((f) => f.includes('capacity')))
  for (const file of ['summary.md', 'report.html']) assert.ok(!/capacity/i.test(await readFile(path.join(dir, file), 'utf8')), file)
})

test('the latency a goal is read by: its first latency term, p99 without one', () => {
  assert.deepEqual(goalMeasure(parseSlo('errors<1%, p90<300ms, p99<1s')), { name: 'p90', figure: 'p90Ms', percentile: 'p90', below: 300 })
  assert.deepEqual(goalMeasure(parseSlo('p99.9 < 2s')), { name: 'p99.9', figure: 'p999Ms', percentile: 'p999', below: 2000 })
  assert.deepEqual(goalMeasure(parseSlo('loop p99<50ms')), { name: 'loop p99', figure: 'loopP99Ms', percentile: null, below: 50 })
  assert.deepEqual(goalMeasure(parseSlo('errors<1%')), { name: 'p99', figure: 'p99Ms', percentile: 'p99', below: null })
})
