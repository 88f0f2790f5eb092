// syncbench report end to end (the real CLI in a child process), and the sweeps' text charts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { runCli } from './helper.js'
import { textChart, textCharts } from '../lib/report/text-chart.js'
import { experimentsOf } from '../lib/report/chart-data.js'
import { fixturePath, loadFixture, tempDir } from './fixtures/report-helpers.js'

test('syncbench report <results.json> writes report.html, charts and summary.md beside it', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'results.json')
  await copyFile(fixturePath, file)
  const { code, stdout, stderr } = await runCli(['report', file], { cwd: dir })
  assert.equal(stderr, '')
  assert.equal(code, 0)
  assert.match(stdout, /^Async bcrypt with 1 to 16 libuv threads — requests\/s vs UV_THREADPOOL_SIZE$/m, 'a text chart per sweep')
  assert.match(stdout, /^ {3}1 {2}█+[▏▎▍▌▋▊▉]? *┊ +14\.\d \(1\d\.\d\.\.1\d\.\d\)$/m, 'mean to 3 figures, its CI to the same decimal')
  assert.match(stdout, /^report {3}report\.html\nsummary {2}summary\.md\ncharts {3}40 PNG in charts\/\n$/m)
  assert.deepEqual((await readdir(dir)).sort(), ['charts', 'report.html', 'results.json', 'summary.md'])
  assert.equal((await readdir(path.join(dir, 'charts'))).length, 40)
  assert.match(await readFile(path.join(dir, 'summary.md'), 'utf8'), /^# syncbench results/)
})

test('--out, --no-png and --quiet', async (t) => {
  const dir = await tempDir(t)
  const { code, stdout, stderr } = await runCli(['report', fixturePath, '--out', dir, '--no-png', '-q'])
  assert.equal(code, 0, stderr)
  assert.equal(stdout, `report   ${path.join(dir, 'report.html')}\nsummary  ${path.join(dir, 'summary.md')}\n`)
  assert.deepEqual((await readdir(dir)).sort(), ['report.html', 'summary.md'])
})

test('a results file saved with a UTF-8 BOM is read as JSON (issue 12)', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'results.json')
  await writeFile(file, '\uFEFF' + await readFile(fixturePath, 'utf8'))
  const { code, stdout, stderr } = await runCli(['report', file, '--out', path.join(dir, 'out'), '--no-png', '-q'])
  assert.equal(stderr, '')
  assert.equal(code, 0)
  assert.match(stdout, /^report {3}.*report\.html\nsummary {2}.*summary\.md\n$/)
  assert.match(await readFile(path.join(dir, 'out', 'summary.md'), 'utf8'), /^# syncbench results/)
})

test('experiments named "a.b" and "a-b": their PNGs and HTML ids stay apart (issue 12)', async (t) => {
  const dir = await tempDir(t)
  const r = loadFixture()
  const rename = new Map([['seed-bcrypt', 'a.b'], ['seed-readfile', 'a-b']])
  for (const e of r.experiments) e.name = rename.get(e.name) ?? e.name
  for (const run of r.runs) run.experiment = rename.get(run.experiment) ?? run.experiment
  if (Array.isArray(r.options?.experiments)) r.options.experiments = r.options.experiments.map((n) => rename.get(n) ?? n)
  const file = path.join(dir, 'results.json')
  await writeFile(file, JSON.stringify(r))
  const { code, stderr } = await runCli(['report', file, '-q'], { cwd: dir })
  assert.equal(code, 0, stderr)
  const pngs = await readdir(path.join(dir, 'charts'))
  assert.ok(pngs.includes('a_2e_b-throughput.png') && pngs.includes('a-b-throughput.png'), pngs.join(' '))
  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  const ids = [...html.matchAll(/<(?:section|figure) id="([^"]+)"/g)].map((m) => m[1])
  assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids.filter((id, i) => ids.indexOf(id) !== i)}`)
  assert.equal(ids.filter((id) => id.startsWith('chart-')).length, pngs.length, 'one PNG per chart')
})

test('summary.md shows HTML from the results\' strings as text, as report.html does (issue 12)', async (t) => {
  const dir = await tempDir(t)
  const r = loadFixture()
  const bcrypt = r.experiments.find((e) => e.name === 'seed-bcrypt')
  bcrypt.title = '<img src=x onerror=alert(1)> title'
  bcrypt.description = 'a <script>alert(2)</script> &amp; p < 0.05'
  r.environment.cpuModel = '<b>cpu</b>'
  const file = path.join(dir, 'results.json')
  await writeFile(file, JSON.stringify(r))
  const { code, stderr } = await runCli(['report', file, '--no-png', '-q'], { cwd: dir })
  assert.equal(code, 0, stderr)
  const md = await readFile(path.join(dir, 'summary.md'), 'utf8')
  assert.doesNotMatch(md, /<(img|script|b)\b/)
  assert.ok(md.includes('## &lt;img src=x onerror=alert(1)> title\n'), md.slice(0, 400))
  assert.ok(md.includes(': a &lt;script>alert(2)&lt;/script> &amp;amp; p < 0.05\n'))
  assert.ok(md.includes(' on &lt;b>cpu&lt;/b>, '))
})

test('report --out under /proc: refused in one line instead of a mkdir that never returns (issue 12)', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const { code, stdout, stderr } = await runCli(['report', fixturePath, '--out', '/proc/x/y', '--no-png', '-q'], { timeoutMs: 30_000 })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr, 'syncbench report: --out /proc/x/y cannot be created: /proc is on proc, a kernel file system\n')
})

test('--help prints the usage on stdout and exits 0', async () => {
  const { code, stdout, stderr } = await runCli(['report', '--help'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  assert.match(stdout, /^Usage: syncbench report <results\.json> \[options\]/)
  assert.match(stdout, /--out <dir>/)
})

test('bad input: one line on stderr, a non-zero exit, nothing written', async (t) => {
  const dir = await tempDir(t)
  const notJson = path.join(dir, 'broken.json')
  await writeFile(notJson, '{"schema": "syncbench/res')
  const wrongSchema = path.join(dir, 'other.json')
  await writeFile(wrongSchema, JSON.stringify({ schema: 'something/else', runs: [] }))
  const badRun = path.join(dir, 'bad-run.json')
  const r = loadFixture()
  r.runs[0].server.cpu = null
  await writeFile(badRun, JSON.stringify(r))
  const cases = [
    [['report'], /^syncbench report: a results file is needed: syncbench report <results\.json>/],
    [['report', path.join(dir, 'missing.json')], /^syncbench report: .*missing\.json: no such file\n$/],
    [['report', notJson], /^syncbench report: .*broken\.json: not JSON\n$/],
    [['report', wrongSchema], /^syncbench report: .*other\.json: not a syncbench results file \(schema "something\/else"/],
    [['report', badRun], /^syncbench report: .*bad-run\.json: \/runs\/0\/server\/cpu must be object, got null\n$/],
    [['report', fixturePath, '--frobnicate'], /^syncbench report: unknown option "--frobnicate" \(see syncbench report --help\)\n$/],
    [['report', fixturePath, 'second.json'], /^syncbench report: one results file expected, got 2/]
  ]
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await runCli([...args, '--out', path.join(dir, 'out')])
    // A bad command line exits 2, a bad results file 1.
    assert.equal(code, /unknown option|needed|expected/.test(message.source) ? 2 : 1, args.join(' '))
    assert.equal(stdout, '', args.join(' '))
    assert.match(stderr, message)
    assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`)
  }
  assert.deepEqual((await readdir(dir)).sort(), ['bad-run.json', 'broken.json', 'other.json'], 'no output folder was created')
})

test('text chart: one row per series and axis value, the ceiling marked, ASCII on request', () => {
  const results = loadFixture()
  const groups = new Map(experimentsOf(results).map((g) => [g.experiment.name, g]))
  const pool = groups.get('threadpool-sweep')
  const lines = textChart(pool.experiment, pool.runs, { width: 30 }).trimEnd().split('\n')
  assert.equal(lines.length, 7, 'title, 5 rows, legend')
  assert.deepEqual(lines.slice(1, 6).map((l) => l.trim().split(/\s+/)[0]), ['1', '2', '4', '8', '16'])
  // 1 thread reaches half the bar length of 2 threads, and its ceiling mark sits past its bar
  const bar = (l) => l.replace(/^\s*\d+\s+/, '').split(/[ ┊]/)[0]
  assert.ok(Math.abs(bar(lines[1]).length * 2 - bar(lines[2]).length) <= 2)
  assert.match(lines[1], /█ *┊ +14\.\d \(/)
  assert.match(lines[6], /mean of repeated runs \(95% CI\); ┊ physical ceiling/)
  const ascii = textChart(pool.experiment, pool.runs, { ascii: true })
  assert.match(ascii, /^[\x20-\x7e\n—]*$/, 'only ASCII besides the title dash')
  const sweep = groups.get('concurrency-sweep')
  const rows = textChart(sweep.experiment, sweep.runs).split('\n').filter((l) => / (sync|async|fake-async) /.test(l))
  assert.equal(rows.length, 21)
  const seed = groups.get('seed-bcrypt')
  assert.equal(textChart(seed.experiment, seed.runs), '', 'nothing swept, no text chart')
  const files = textCharts(results)
  assert.equal(files.match(/ — requests\/s vs /g).length, 4, 'delay, concurrency, threadpool, file size')
  assert.match(files, /\(no run\)/, 'the failed run shows as a gap')
})

test('Ctrl-C while rendering: exit 130 (or 0 if it had finished), never a temp file left', async (t) => {
  const { spawn } = await import('node:child_process')
  const { once } = await import('node:events')
  const { binPath } = await import('./helper.js')
  const dir = await tempDir(t)
  const file = path.join(dir, 'results.json')
  await copyFile(fixturePath, file)
  const child = spawn(process.execPath, [binPath, 'report', file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  // The text charts come first; the 40 PNGs take a few seconds after them.
  child.stdout.once('data', () => child.kill('SIGINT'))
  const [code] = await once(child, 'close')
  if (code === 130) assert.equal(stderr, 'syncbench report: interrupted; the files written so far are complete\n')
  else assert.equal(code, 0, stderr)
  const leftovers = [...await readdir(dir), ...await readdir(path.join(dir, 'charts')).catch(() => [])].filter((f) => f.includes('.tmp') || f.startsWith('.'))
  assert.deepEqual(leftovers, [])
})
