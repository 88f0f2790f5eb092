// The published types: `npm run types` generates declarations from the JSDoc, and a TypeScript program
// importing 'syncbench' by name (test/fixtures/consumer) type-checks against them, including lines
// that must be errors (a declaration that fell back to `any` would let them pass).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

test('npm run types writes declarations a TypeScript consumer of "syncbench" type-checks against', { timeout: 120_000 }, async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(pkg.scripts.types, 'tsc -p tsconfig.types.json')
  await run(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root })
  const index = await readFile(new URL('../types/index.d.ts', import.meta.url), 'utf8')
  assert.match(index, /export \{ loadtest \} from "\.\/lib\/load\/loadtest\.js"/)
  assert.match(index, /export type LoadResult = import\("\.\/lib\/types\.js"\)\.LoadResult/)
  const { stdout } = await run(process.execPath, [tsc, '-p', 'test/fixtures/consumer/tsconfig.json'], { cwd: root })
    .catch((err) => assert.fail(`tsc on the consumer failed:\n${err.stdout}${err.stderr}`))
  assert.equal(stdout, '')
  // The checker really reads the declarations: a consumer using a field that does not exist fails.
  const bad = await run(process.execPath, [tsc, '-p', 'test/fixtures/consumer/tsconfig.bad.json'], { cwd: root }).then(() => null, (err) => err)
  assert.ok(bad, 'tsc accepted a consumer reading a field LoadResult does not have')
  assert.match(bad.stdout, /Property 'requestsPerHour' does not exist on type 'LoadResult'/)
})
