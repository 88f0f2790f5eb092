// A folder on a read-only file system (issue 12): Node's recursive mkdir says ENOENT for the missing
// leaf there, so lib/fs-dir.js checks the nearest existing folder first and the user reads EROFS.
// A real read-only tmpfs is mounted for these tests (root, as CI runs them); where mount is not
// permitted they skip, saying why.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { makeDirectory } from '../lib/fs-dir.js'

const fixture = fileURLToPath(new URL('./fixtures/real-results.json', import.meta.url))

/** @type {string} */
let dir
/** @type {string} the read-only mount point */
let ro
/** @type {string|null} why the tests cannot run here */
let skip = null
let mounted = false

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-readonly-'))
  ro = path.join(dir, 'ro')
  await mkdir(ro)
  if (process.platform !== 'linux') {
    skip = 'needs Linux mount'
    return
  }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro], { stdio: 'pipe' })
    mounted = true
  } catch (err) {
    skip = `cannot mount a read-only tmpfs here (${String(/** @type {{ stderr?: Buffer }} */ (err).stderr ?? err).trim() || 'mount failed'}): run as root`
  }
})

after(async () => {
  try {
    if (mounted) execFileSync('umount', [ro], { stdio: 'pipe' })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

/**
 * One line on stderr naming EROFS (never the ENOENT mkdir says), nothing on stdout, nothing written.
 * @param {{ code: number|null, stdout: string, stderr: string }} r
 * @param {number} code
 * @param {RegExp} line
 */
async function assertReadOnly (r, code, line) {
  assert.equal(r.code, code, r.stderr)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, line)
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  assert.doesNotMatch(r.stderr, /ENOENT/)
  assert.deepEqual(await readdir(ro), [])
}

test('makeDirectory under a read-only file system rejects with EROFS', async (t) => {
  if (skip) return t.skip(skip)
  await assert.rejects(makeDirectory(path.join(ro, 'a', 'b'), '--out x'), { code: 'EROFS' })
})

test('run --out on a read-only file system: one line naming EROFS, before any run', async (t) => {
  if (skip) return t.skip(skip)
  const out = path.join(ro, 'results')
  const r = await runCli(['run', 'seed-bcrypt', '--no-calibrate', '-n', '1', '-q', '--out', out])
  await assertReadOnly(r, 2, new RegExp(`^syncbench run: --out ${out} cannot be created: read-only file system \\(EROFS\\)\\n$`))
})

test('report --out on a read-only file system: one line naming EROFS', async (t) => {
  if (skip) return t.skip(skip)
  const r = await runCli(['report', fixture, '--out', path.join(ro, 'site'), '--no-png', '-q'])
  await assertReadOnly(r, 1, /^syncbench report: .*\(EROFS\)\n$/)
})

test('serve --cache-dir on a read-only file system: one line naming EROFS', async (t) => {
  if (skip) return t.skip(skip)
  const r = await runCli(['serve', 'seed-readfile', '--only', 'readfile', '--port', '0', '--cache-dir', path.join(ro, 'cache')], { timeoutMs: 30_000 })
  await assertReadOnly(r, 1, /^syncbench serve: cannot create the data file in --cache-dir .*\(EROFS\)\n$/)
})
