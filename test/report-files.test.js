// Files on disk: lib/fs-atomic.js's writes (no half-written file, no temporary file left after a
// failure), the run's output folder (two runs never share one), and a report rewrite that removes what
// killed renders left behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic, removeStaleTemps } from '../lib/fs-atomic.js'
import { createOutDir, timestampName, writeAtomic } from '../lib/run/results-writer.js'
import { writeAbFile } from '../lib/ab/ab-files.js'
import { renderReport, writeReport } from '../lib/report/write-report.js'
import { summarizeResults } from '../lib/report/model.js'
import { renderSummaryMarkdown } from '../lib/report/markdown.js'
import { chartsFor } from '../lib/report/charts.js'
import { loadFixture, tempDir } from './fixtures/report-helpers.js'

/** The pid of a process that has exited (the kernel hands pids out in order: not reused at once). */
async function deadPid () {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid
}

/** seed-bcrypt only: 5 charts, quick to render as PNG; includes the fixture's interrupted run. */
function bcryptOnly () {
  const results = loadFixture()
  results.experiments = results.experiments.filter((e) => e.name === 'seed-bcrypt')
  results.runs = results.runs.filter((r) => r.experiment === 'seed-bcrypt')
  return results
}

test('writeFileAtomic writes strings, buffers and async iterables, and leaves only the file', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'out.bin')
  await writeFileAtomic(file, 'text')
  assert.equal(await readFile(file, 'utf8'), 'text')
  await writeFileAtomic(file, Buffer.from([1, 2, 3]))
  assert.deepEqual([...await readFile(file)], [1, 2, 3])
  async function * chunks () { yield Buffer.from('ab'); yield Buffer.from('cd') }
  await writeFileAtomic(file, chunks())
  assert.equal(await readFile(file, 'utf8'), 'abcd')
  // concurrent writers of one file each get their own temporary name: all succeed, one wins whole
  await Promise.all(Array.from({ length: 8 }, (_, i) => writeFileAtomic(file, String(i).repeat(10000))))
  assert.match(await readFile(file, 'utf8'), /^(\d)\1{9999}$/)
  assert.deepEqual(await readdir(dir), ['out.bin'])
})

test('a failed write throws the file system error and removes its temporary file', async (t) => {
  const dir = await tempDir(t)
  // a non-empty folder where the file should go: the data is written, the rename fails
  await mkdir(path.join(dir, 'taken', 'inside'), { recursive: true })
  await assert.rejects(writeFileAtomic(path.join(dir, 'taken'), 'data'), (err) => {
    assert.ok(['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(err.code), err.code)
    return true
  })
  async function * failing () { yield Buffer.from('half'); throw new Error('generator broke') }
  await assert.rejects(writeFileAtomic(path.join(dir, 'gen.bin'), failing()), /generator broke/)
  assert.deepEqual(await readdir(dir), ['taken'], 'no temporary file left')

  // the callers' wrappers name what they were writing
  await assert.rejects(writeAtomic(path.join(dir, 'taken'), 'x'), { code: 'SB_ERR_RESULTS', message: /^cannot write .*taken: .*\((EISDIR|ENOTEMPTY|EEXIST)\)$/ })
  await assert.rejects(writeAbFile('-g', path.join(dir, 'nope', 'g.tsv'), 'x'), { code: 'SB_ERR_INVALID_OPTION', message: /^-g cannot write ".*g\.tsv": no such folder \(ENOENT\)$/ })
  assert.deepEqual(await readdir(dir), ['taken'])
})

test('removeStaleTemps removes the temporary files of dead processes only', async (t) => {
  const dir = await tempDir(t)
  const dead = `.results.json.${await deadPid()}.a1b2c3.tmp`
  const mine = `.results.json.${process.pid}.d4e5f6.tmp`
  await Promise.all([dead, mine, 'results.json', 'notes.tmp'].map((name) => writeFile(path.join(dir, name), '')))
  assert.deepEqual(await removeStaleTemps(dir), [dead])
  assert.deepEqual((await readdir(dir)).sort(), [mine, 'notes.tmp', 'results.json'].sort())
  assert.deepEqual(await removeStaleTemps(path.join(dir, 'missing')), [])
})

test('createOutDir never hands one folder to two runs started in the same second', async (t) => {
  const cwd = await tempDir(t)
  const now = new Date('2026-11-22T19:30:05.123Z')
  const base = path.join(cwd, 'results', timestampName(now))
  // another run made the folder first (even an empty one is someone else's)
  await mkdir(base, { recursive: true })
  assert.equal(await createOutDir({ cwd, now }), `${base}-2`)
  // concurrent runs: every one gets its own
  const dirs = await Promise.all(Array.from({ length: 5 }, () => createOutDir({ cwd, now })))
  assert.deepEqual([...dirs].sort(), [3, 4, 5, 6, 7].map((i) => `${base}-${i}`))
  // --out is the user's folder: reused as it is
  assert.equal(await createOutDir({ cwd, out: 'mine', now }), path.join(cwd, 'mine'))
  assert.equal(await createOutDir({ cwd, out: 'mine', now }), path.join(cwd, 'mine'))
  await writeFile(path.join(cwd, 'file'), '')
  await assert.rejects(createOutDir({ cwd: path.join(cwd, 'file'), now }), { code: 'SB_ERR_INVALID_OPTION', message: /^--out results cannot be created: .*\(ENOTDIR\)$/ })
})

test('a report rewrite removes stale PNGs and what killed renders left', async (t) => {
  const dir = await tempDir(t)
  const charts = path.join(dir, 'charts')
  const dead = await deadPid()
  await mkdir(charts)
  await Promise.all([
    writeFile(path.join(dir, `.report.html.${dead}.0a0b.tmp`), 'killed render'),
    writeFile(path.join(dir, 'results.json'), '{}'),
    writeFile(path.join(charts, 'gone-experiment-throughput.png'), 'stale'),
    writeFile(path.join(charts, `.seed-bcrypt-cpu.png.${dead}.ff00.tmp`), 'killed render'),
    writeFile(path.join(charts, 'notes.txt'), 'not ours to delete')
  ])
  const results = bcryptOnly()
  const out = await renderReport(results, dir)
  const ids = chartsFor(results).map((s) => `${s.id}.png`)
  assert.deepEqual((await readdir(dir)).sort(), ['charts', 'report.html', 'results.json'])
  assert.deepEqual((await readdir(charts)).sort(), [...ids, 'notes.txt'].sort())
  assert.deepEqual(out.charts, ids.map((name) => path.join(charts, name)))
})

test('a report write that fails leaves no temporary file, in the folder or in charts/', async (t) => {
  const results = bcryptOnly()
  const [first] = chartsFor(results)

  const htmlBlocked = await tempDir(t)
  await mkdir(path.join(htmlBlocked, 'report.html', 'inside'), { recursive: true })
  await assert.rejects(renderReport(results, htmlBlocked), { code: 'SB_ERR_RESULTS', message: /^cannot write .*report\.html: .*\((EISDIR|ENOTEMPTY|EEXIST)\)$/ })
  assert.deepEqual((await readdir(htmlBlocked)).sort(), ['charts', 'report.html'])
  assert.ok((await readdir(path.join(htmlBlocked, 'charts'))).every((name) => /^[\w-]+\.png$/.test(name)), 'only whole PNGs')

  const pngBlocked = await tempDir(t)
  await mkdir(path.join(pngBlocked, 'charts', `${first.id}.png`, 'inside'), { recursive: true })
  await assert.rejects(renderReport(results, pngBlocked), { code: 'SB_ERR_RESULTS', message: /^cannot write .*charts: .*\((EISDIR|ENOTEMPTY|EEXIST)\)$/ })
  assert.deepEqual(await readdir(pngBlocked), ['charts'], 'no report.html after a failed chart')
  assert.ok((await readdir(path.join(pngBlocked, 'charts'))).every((name) => !name.endsWith('.tmp')), 'no temporary PNG')

  // an interrupt (the CLI's AbortSignal) stops before the next file: nothing half-written
  const interrupted = await tempDir(t)
  const controller = new AbortController()
  controller.abort(new Error('interrupted'))
  await assert.rejects(renderReport(results, interrupted, { signal: controller.signal }), /interrupted/)
  assert.deepEqual(await readdir(interrupted), ['charts'])
  assert.deepEqual(await readdir(path.join(interrupted, 'charts')), [])
})

test('writeReport: summary.md, report.html and charts/ in one call; a failed HTML is returned, summary.md kept', async (t) => {
  const results = bcryptOnly()
  const dir = path.join(await tempDir(t), 'new-folder')
  const out = await writeReport(results, dir)
  assert.deepEqual((await readdir(dir)).sort(), ['charts', 'report.html', 'summary.md'])
  assert.equal(out.summary, path.join(dir, 'summary.md'))
  assert.equal(out.html, path.join(dir, 'report.html'))
  assert.equal(out.charts.length, chartsFor(results).length)
  assert.equal(out.error, null)
  assert.equal(await readFile(out.summary, 'utf8'), renderSummaryMarkdown(results, summarizeResults(results)))

  const summaryOnly = await tempDir(t)
  const short = await writeReport(results, summaryOnly, { html: false })
  assert.deepEqual(await readdir(summaryOnly), ['summary.md'])
  assert.equal(short.html, null)

  const htmlBlocked = await tempDir(t)
  await mkdir(path.join(htmlBlocked, 'report.html', 'inside'), { recursive: true })
  const failed = await writeReport(results, htmlBlocked, { png: false })
  assert.equal(failed.error?.code, 'SB_ERR_RESULTS')
  assert.equal(failed.html, null)
  assert.match(await readFile(failed.summary, 'utf8'), /^# syncbench results/)
})
