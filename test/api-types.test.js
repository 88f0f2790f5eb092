// The published types: the declarations of types/*.d.ts, written by hand, are held to the implementation's
// JSDoc by `npm run types`, and a TypeScript program importing 'syncbench' by name (test/fixtures/consumer)
// type-checks against them, including lines that must be errors (a declaration that fell back to `any`
// would let them pass). The package ships those few files, nothing generated.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

test('npm run types holds the declarations to the code, and a TypeScript consumer of "syncbench" type-checks against them', { timeout: 120_000 }, async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(pkg.scripts.types, 'tsc -p tsconfig.types.json')
  await run(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root })
  const index = await readFile(new URL('../types/index.d.ts', import.meta.url), 'utf8')
  assert.match(index, /export declare function loadtest \(options: LoadOptions\): Promise<LoadResult>/)
  assert.match(index, /export type \* from '\.\/load\.js'/)
  const { stdout } = await run(process.execPath, [tsc, '-p', 'test/fixtures/consumer/tsconfig.json'], { cwd: root })
    .catch((err) => assert.fail(`tsc on the consumer failed:\n${err.stdout}${err.stderr}`))
  assert.equal(stdout, '')
  // The checker really reads the declarations: a consumer using a field that does not exist fails.
  const bad = await run(process.execPath, [tsc, '-p', 'test/fixtures/consumer/tsconfig.bad.json'], { cwd: root }).then(() => null, (err) => err)
  assert.ok(bad, 'tsc accepted a consumer reading a field LoadResult does not have')
  assert.match(bad.stdout, /Property 'requestsPerHour' does not exist on type 'LoadResult'/)
})

test('a declaration that drifts from the implementation fails npm run types', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-types-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  for (const name of await readdir(path.join(root, 'types'))) await copyFile(path.join(root, 'types', name), path.join(dir, name))
  const load = path.join(dir, 'load.d.ts')
  const text = await readFile(load, 'utf8')
  assert.match(text, /^ {2}requestsPerSecond: number$/m)
  await writeFile(load, text.replace(/^ {2}requestsPerSecond: number$/m, '  requestsPerSecond: string'))
  // the same check, with 'syncbench' resolved to the drifted copy
  const config = path.join(dir, 'tsconfig.json')
  await writeFile(config, JSON.stringify({
    extends: path.join(root, 'tsconfig.types.json'),
    compilerOptions: { paths: { syncbench: [path.join(dir, 'index.d.ts')] }, typeRoots: [path.join(root, 'node_modules/@types')] },
    include: [path.join(root, 'scripts/api-conformance.ts')]
  }))
  const failed = await run(process.execPath, [tsc, '-p', config], { cwd: root }).then(() => null, (err) => err)
  assert.ok(failed, 'tsc accepted a LoadResult whose requestsPerSecond is a string')
  assert.match(failed.stdout, /requestsPerSecond/)
})

test('npm pack ships the hand-written declarations only', { timeout: 120_000 }, async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
  const files = JSON.parse(stdout)[0].files.map((/** @type {{ path: string }} */ f) => f.path)
  const declarations = (await readdir(path.join(root, 'types'))).filter((name) => name.endsWith('.d.ts')).map((name) => `types/${name}`)
  assert.deepEqual(files.filter((f) => f.endsWith('.ts')).sort(), declarations.sort())
  assert.ok(declarations.length <= 8, `${declarations.length} declaration files`)
})
