// The native transport under AddressSanitizer and UndefinedBehaviorSanitizer, as part of `npm test`:
// scripts/sanitize.sh builds native/io.c with both (build-sanitize/) and runs the tests that drive it
// (the native transport's own, the hostile-server matrix, the transport fuzz, the misbehaving-server
// matrix, the engine's) on that build, the sanitizers' runtimes preloaded into every node process.
// Why: a memory error in C can pass every other test (a write past a buffer that nothing reads back,
// a use after free that finds the memory unchanged); the sanitizers make it a failure with its stack.
// It must exit 0 with no report. Skipped, saying so, only where there is no C compiler.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { SANITIZER_REPORT, runCommand } from './helper.js'

const script = fileURLToPath(new URL('../scripts/sanitize.sh', import.meta.url))
const cc = process.env.CC ?? 'gcc'
const noCompiler = spawnSync(cc, ['--version']).error !== undefined

test('the native transport\'s tests pass on its ASan/UBSan build, with no sanitizer report', {
  skip: noCompiler && `no C compiler (${cc}): the sanitizer build needs one (CI installs g++)`,
  timeout: 600_000
}, async () => {
  const r = await runCommand('bash', [script], { timeoutMs: 590_000 })
  const output = r.stdout + r.stderr
  assert.equal(r.signal, null, `scripts/sanitize.sh killed by ${r.signal}: ${output.slice(-4000)}`)
  assert.doesNotMatch(output, SANITIZER_REPORT, output.slice(-8000))
  assert.equal(r.code, 0, output.slice(-8000))
  // the tests did run (a nested node --test in a marked environment silently runs none)
  const summary = /^sanitize: tests (\d+), pass (\d+), fail (\d+)/m.exec(output)
  assert.ok(summary !== null && Number(summary[1]) >= 100 && summary[3] === '0', output.slice(-2000))
})
