// Issue 11, "the answer first": what `syncbench run` prints by default (short: the tables, the
// verdicts, the articles beside this machine), runs/<run>.txt, progress off a terminal, --out as
// given, `all` in --list, --baseline for --workload, and the help texts' wrapping. Real CLI, real servers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { runCli, tempCacheDir } from './helper.js'
import { runFileName, runReportText } from '../lib/run/run-reports.js'
import { createProgress } from '../lib/cli/progress-line.js'

let dir
tempCacheDir('syncbench-run-output-', (d) => { dir = d })

test('by default: no per-run report on stdout, a short answer with the article beside it, runs/*.txt hold the reports', async () => {
  const out = path.join(dir, 'default')
  const { code, stdout, stderr } = await runCli(['run', 'seed-bcrypt', '-n', '6', '-c', '2', '--runs', '2', '--no-report', '--out', out], { timeoutMs: 120_000 })
  assert.equal(code, 0, stderr)
  assert.doesNotMatch(stdout, /^=== /m, 'no per-run header')
  assert.doesNotMatch(stdout, /^Percentage of the requests served/m, 'no per-run ab report')
  const lines = stdout.split('\n').length
  // 50 lines before the probe's table (6 lines a seed) joined the seeds' output; the verdict's
  // subjects on lines of their own and prose wrapped at 100 columns add about 8; tables fitted to 100
  // columns (the server table in two parts, the notes under the tables) about 8 more, where their
  // 120 to 250-column lines took two or three rows each of a 100-column terminal
  assert.ok(lines <= 80, `about one screen, got ${lines} lines:\n${stdout}`)
  assert.match(stdout, /^seed-bcrypt: probe, 10 req\/s to \/__syncbench\/health during each run/m)
  // the seed table and verdict are still there
  assert.match(stdout, /^Metrics +sync +async$/m)
  assert.match(stdout, /^seed-bcrypt: async is [\d.]+x sync/m)
  // the article's own figures beside this machine's, and whether its conclusion reproduces here
  assert.match(stdout, /^seed-bcrypt: seed 001 \(Jino Antony, 2020\) beside this machine, requests per second$/m)
  // 2 runs: no interval, in the articles' table as in the seed table, and the same figures in both
  const sync = /^sync +10\.75 +([\d.]+) +2 runs: no interval$/m.exec(stdout)
  const async = /^async +24\.65 +([\d.]+) +2 runs: no interval$/m.exec(stdout)
  const claim = /^async \/ sync +2\.29x +([\d.]+x) +(2 runs: no interval, p = .+)$/m.exec(stdout)
  assert.ok(sync && async && claim, stdout)
  assert.match(stdout, new RegExp(`^Requests per second: +${escape(sync[1])} \\[#/sec\\] \\(mean\\) +${escape(async[1])} \\[#/sec\\] \\(mean\\)$`, 'm'))
  assert.match(stdout, /^Req\/s 95% CI +2 runs: no interval +2 runs: no interval$/m)
  assert.ok(stdout.includes(`seed-bcrypt: async is ${claim[1]} sync (${claim[2].trimEnd()})`), `the verdict's ratio and p: ${claim[0]}\n${stdout}`)
  assert.match(stdout, /^seed 001 \(Jino Antony, 2020\) (reproduces|does not reproduce): /m)
  // (the sentence is wrapped at the screen's width: the words may fall on two lines)
  assert.match(stdout, /not\s+like\s+for\s+like/, '-n 6 -c 2 is not the article\'s command')
  assert.match(stdout, /^How "reproduces" is decided: /m)

  // one file per run, named after experiment, label and repeat, holding the ab report
  const names = (await readdir(path.join(out, 'runs'))).sort()
  assert.deepEqual(names, ['seed-bcrypt-async-1.txt', 'seed-bcrypt-async-2.txt', 'seed-bcrypt-sync-1.txt', 'seed-bcrypt-sync-2.txt'])
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  for (const run of results.runs) {
    const text = await readFile(path.join(out, 'runs', `${run.id.replace(/[/#]/g, '-')}.txt`), 'utf8')
    assert.ok(text.startsWith(`=== ${run.id}: /${run.label} -c 2 -n 6 -k (builtin) ===\n`), text)
    assert.match(text, /^Complete requests: +6$/m)
    assert.match(text, new RegExp(`^Requests per second: +${run.load.requestsPerSecond.toFixed(2)} \\[#/sec\\] \\(mean\\)$`, 'm'))
    assert.match(text, /^Percentage of the requests served within a certain time \(ms\)$/m)
  }
  // stderr is not a terminal here: one progress line per run, then where the results are, --out as given
  const progress = stderr.split('\n').filter((l) => / run \d\/4 /.test(l))
  assert.deepEqual(progress.map((l) => l.replace(/: [\d.]+ req\/s$/, '')), [1, 2, 3, 4].map((i) => `syncbench run: run ${i}/4 ${results.runs[i - 1].id}`))
  assert.match(stderr, new RegExp(`^syncbench run: results in ${escape(out)}/: results\\.json, summary\\.md, runs/$`, 'm'))
})

test('--verbose prints each run\'s ab report on stdout, the same text as its runs/ file; -q prints no progress', async () => {
  const out = path.join(dir, 'verbose')
  const { code, stdout, stderr } = await runCli(['run', '--workload', await handlers(), '-n', '8', '-c', '2', '--verbose', '--no-report', '--out', out])
  assert.equal(code, 0, stderr)
  const headers = [...stdout.matchAll(/^=== (\S+): /gm)].map((m) => m[1])
  assert.deepEqual(headers, ['workload/sync#1', 'workload/async#1'])
  for (const name of ['workload-sync-1.txt', 'workload-async-1.txt']) {
    assert.ok(stdout.includes(await readFile(path.join(out, 'runs', name), 'utf8')), name)
  }
  const quiet = await runCli(['run', '--workload', await handlers(), '-n', '8', '-c', '2', '-q', '--no-report', '--out', path.join(dir, 'quiet')])
  assert.equal(quiet.code, 0, quiet.stderr)
  assert.doesNotMatch(quiet.stderr, / run \d\/\d /, '-q: no progress')
  assert.doesNotMatch(quiet.stdout, /^=== /m)
})

test('a relative --out is echoed as given', async () => {
  const { code, stderr } = await runCli(['run', '--workload', await handlers(), '-n', '4', '-q', '--no-report', '--out', './rel/out'], { cwd: dir })
  assert.equal(code, 0, stderr)
  assert.match(stderr, /^syncbench run: results in rel\/out\/: results\.json, summary\.md, runs\/$/m)
})

test('--baseline picks the handler the others are compared with; it must be one of them', async () => {
  const file = await handlers()
  const out = path.join(dir, 'baseline')
  const { code, stdout, stderr } = await runCli(['run', '--workload', file, '--baseline', 'async', '-n', '6', '-c', '2', '-q', '--no-report', '--out', out])
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.experiments[0].baseline, 'async')
  assert.deepEqual(results.experiments[0].comparisons, { sync: 'async' })
  assert.deepEqual(results.runs.map((r) => r.label), ['async', 'sync'])
  assert.match(stdout, /^workload: sync is [\d.]+x async/m)

  const bad = await runCli(['run', '--workload', file, '--baseline', 'nope', '--no-report', '--out', path.join(dir, 'bad')])
  assert.equal(bad.code, 2)
  assert.equal(bad.stderr, `syncbench run: --baseline must be one of the handlers ${file} exports: async, sync, got "nope"\n`)
  const alone = await runCli(['run', 'seed-bcrypt', '--baseline', 'sync'])
  assert.equal(alone.code, 2)
  assert.match(alone.stderr, /^syncbench run: --baseline applies to --workload only .*, got "sync"\n$/)
})

test('--list and the unknown-experiment hint name "all"', async () => {
  const list = await runCli(['run', '--list'])
  assert.equal(list.code, 0)
  assert.match(list.stdout, /^all +every experiment above/m)
  const unknown = await runCli(['run', 'nope'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /\(try: seed-bcrypt, .*strategies, .*all; see syncbench run --list\)/)
})

test('help texts wrap at the end of a line, never mid-clause', async () => {
  for (const command of ['run', 'serve', 'compare', 'report']) {
    const { stdout } = await runCli([command, '--help'])
    for (const paragraph of stdout.split('\n\n')) {
      const lines = paragraph.split('\n')
      for (let i = 0; i + 1 < lines.length; i++) {
        // a prose line followed by more prose: filled to the width, not broken early
        if (/^\S/.test(lines[i]) && /^\S/.test(lines[i + 1]) && !/:$/.test(lines[i])) {
          assert.ok(lines[i].length >= 70, `${command} --help: "${lines[i]}" is broken early`)
        }
      }
    }
  }
})

test('run file names: experiment, label and repeat, made safe and unique', () => {
  const taken = new Set()
  const name = (experiment, label, repeat = 1) => runFileName({ experiment, label, repeat }, taken)
  assert.equal(name('seed-readfile', 'fake async', 2), 'seed-readfile-fake-async-2.txt')
  assert.equal(name('x', '../../etc/passwd'), 'x-..-..-etc-passwd-1.txt', 'no separator survives')
  assert.equal(name('x', 'a b'), 'x-a-b-1.txt')
  assert.equal(name('x', 'a/b'), 'x-a-b-1-2.txt', 'the same safe name twice gets -2')
  assert.equal(name('x', 'A B'), 'x-A-B-1-3.txt', 'names differing by case only are one file on some systems')
  assert.equal(name('x', 'async pool=3'), 'x-async-pool-3-1.txt')
  assert.equal(runReportText({ id: 'x/a#1', engine: 'builtin', load: null, error: { code: 'SB_ERR_SERVER_START', message: 'boom' } }),
    '=== x/a#1 (builtin) ===\nerror: SB_ERR_SERVER_START: boom\n')
})

test('progress off a terminal: one line per finished run', () => {
  const s = { isTTY: false, text: '', write (chunk) { s.text += chunk; return true } }
  const p = createProgress(s)
  p.event({ type: 'run-start', index: 1, total: 2, experiment: 'x', label: 'a', repeat: 1, etaMs: null })
  p.event({ type: 'run-end', index: 1, total: 2, record: { id: 'x/a#1', error: null, load: { requestsPerSecond: 29.934, failedRequests: 0, aborted: false } } })
  p.event({ type: 'run-end', index: 2, total: 2, record: { id: 'x/b#1', error: { code: 'SB_ERR_SERVER_START', message: 'no' }, load: null } })
  p.done()
  assert.equal(s.text, 'syncbench run: run 1/2 x/a#1: 29.9 req/s\nsyncbench run: run 2/2 x/b#1: failed: SB_ERR_SERVER_START\n')
})

let handlersFile
async function handlers () {
  if (handlersFile) return handlersFile
  handlersFile = path.join(dir, 'handlers.mjs')
  await writeFile(handlersFile, `
    export function sync () { const end = Date.now() + 2; while (Date.now() < end); return 'done' }
    export async function async () { await new Promise((resolve) => setTimeout(resolve, 2)); return 'done' }
  `)
  return handlersFile
}

/** @param {string} s */
function escape (s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
