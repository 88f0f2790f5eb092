// syncbench run thread-cost through the real CLI: the table of threads, RSS per thread and context
// switches per request, the verdict that says what this machine shows, and the chart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, readFile, readdir } from 'node:fs/promises'
import { runCli } from './helper.js'

test('syncbench run thread-cost prints the thread-cost table and a verdict from the numbers', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-thread-cost-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const { code, stdout, stderr } = await runCli(['run', 'thread-cost', '--runs', '1', '-n', '40', '-q', '--out', dir], { timeoutMs: 110_000 })
  assert.equal(code, 0, stderr)
  const lines = stdout.split('\n')
  // the table fits 100 columns: its figures, then the ratios in a part of their own under it
  const header = lines.findIndex((l) => /^Configuration +Req\/s +threads +peak RSS MiB +MiB\/thread +vol\. cs\/req +invol\. cs\/req$/.test(l))
  assert.ok(header > 0, stdout)
  assert.match(lines[header - 1], /^thread-cost: Seed 002's readers: what does a blocked thread cost\?$/)
  const rows = lines.slice(header + 2, header + 8)
  assert.deepEqual(rows.map((l) => l.split(/ {2,}/)[0]), ['worker pool=1', 'worker pool=2', 'worker pool=5', 'worker pool=10', 'worker pool=20', 'async'])
  for (const row of rows.slice(0, 5)) assert.match(row, /\d+\.\d{2} +\d+\.\d{2} +\d+\.\d{2}$/, row)
  assert.match(rows[5], /^async +[\d.]+ +\d+ +[\d.]+ +\d+\.\d{2} +\d+\.\d{2}$/, 'the event loop: no per-thread cost')
  const ratioHeader = lines.findIndex((l, i) => i > header && /^Configuration +vs async$/.test(l))
  assert.ok(ratioHeader > header, stdout)
  const ratios = lines.slice(ratioHeader + 2, ratioHeader + 8)
  assert.deepEqual(ratios.map((l) => l.split(/ {2,}/)[0]), ['worker pool=1', 'worker pool=2', 'worker pool=5', 'worker pool=10', 'worker pool=20', 'async'])
  for (const row of ratios.slice(0, 5)) assert.match(row, / +[\d.]+x async, p n\/a$/, row)
  assert.equal(ratios[5], 'async', 'the event loop: no comparison')
  // The verdict names the figures it measured and what they show, whichever way they go (its
  // continuation lines, indented two spaces, joined back).
  assert.match(stdout.replace(/\n {2}(?=\S)/g, ' '), /^thread-cost: one event loop \(async\) [\d,.]+ req\/s, [\d.]+ MiB, [\d.]+ context switches a request; 20 threads \(worker pool=20, \d+ OS threads\) [\d,.]+ req\/s \([\d.]+x\), -?[\d.]+ MiB of RSS per extra thread, [\d.]+ context switches a request \([\d.]+x\)\. On this machine a blocked thread costs -?[\d.]+ MiB resident, (less than|at least) the 8 MB .*; threads cost (more|no more) context switches a request than the event loop; the threads serve ((about as many|fewer|more) requests a second|[\d.]+x the event loop's requests a second)/m)

  const results = JSON.parse(await readFile(path.join(dir, 'results.json'), 'utf8'))
  assert.equal(results.experiments[0].table, 'thread-cost')
  const pool20 = results.runs.find((r) => r.label === 'worker pool=20')
  assert.equal(pool20.config.poolSize, 20)
  assert.ok(pool20.server.threads >= 20, `threads ${pool20.server.threads}`)
  for (const key of ['voluntaryPerRequest', 'involuntaryPerRequest']) assert.equal(typeof pool20.server.contextSwitches[key], 'number', key)
  const charts = await readdir(path.join(dir, 'charts'))
  assert.ok(charts.includes('thread-cost-context-switches.png'), charts.join(', '))
  assert.ok(charts.includes('thread-cost-timeseries.png'))
  assert.match(await readFile(path.join(dir, 'summary.md'), 'utf8'), /\| Configuration \| Req\/s \| threads \| peak RSS MiB \| MiB\/thread \| vol\. cs\/req \| invol\. cs\/req \| vs async \|/)
})
