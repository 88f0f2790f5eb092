// The files a user names as input (results.json, ab --json results, experiment files, workload
// modules) are checked before they are read (lib/fs-input.js): a device, a named pipe, a folder or a
// file over INPUT_FILE_LIMIT is one line naming it, exit 1, never a read of 600 MB or a wait on a FIFO.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, open, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ResultsError } from '../lib/errors.js'
import { INPUT_FILE_LIMIT, readInputFile } from '../lib/fs-input.js'
import { abJson, binPath, runCli, runCommand, startHttpServer } from './helper.js'
import { fixturePath } from './fixtures/report-helpers.js'

/** A temporary folder removed after the test. @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(tmpdir(), 'syncbench-input-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A file of `size` bytes that takes no disk: ftruncate leaves a hole.
 * @param {string} file
 * @param {number} size
 */
async function sparseFile (file, size) {
  const handle = await open(file, 'w')
  await handle.truncate(size)
  await handle.close()
  const info = await stat(file)
  assert.equal(info.size, size)
  assert.ok(info.blocks * 512 < 1024 * 1024, `${file} is sparse (${info.blocks} blocks)`)
}

/** @param {string} file */
function mkfifo (file) {
  return spawnSync('mkfifo', [file]).status === 0
}

test('report, compare, merge and run --experiment / --workload refuse /dev/zero, a named pipe, a folder and a sparse file over 256 MiB before reading them: one line, exit 1, nothing written', async (t) => {
  const dir = await tempDir(t)
  if (!mkfifo(path.join(dir, 'pipe.json')) || !mkfifo(path.join(dir, 'pipe.js'))) return t.skip('mkfifo is not available')
  assert.equal(INPUT_FILE_LIMIT, 256 * 1024 * 1024, 'the limit docs/reference.md documents')
  await mkdir(path.join(dir, 'folder.json'))
  await sparseFile(path.join(dir, 'big.json'), INPUT_FILE_LIMIT + 1)
  await sparseFile(path.join(dir, 'big.js'), INPUT_FILE_LIMIT + 1)
  const inputs = [
    ['/dev/zero', 'a character device, not a regular file'],
    ['pipe.json', 'a named pipe, not a regular file'],
    ['folder.json', 'a folder, not a regular file'],
    ['big.json', '256 MiB (268435457 bytes), over the 256 MiB limit of an input file']
  ]
  const out = path.join(dir, 'out')
  /** @type {[string[], string, string][]} */
  const cases = []
  for (const [file, problem] of inputs) {
    // report and compare take a folder as the one holding results.json: a folder is checked through merge and run
    if (file !== 'folder.json') {
      cases.push([['report', file, '--out', out], 'report', `${file}: ${problem}`])
      cases.push([['compare', fixturePath, file], 'compare', `${file}: ${problem}`])
    }
    cases.push([['merge', file], 'merge', `${file}: ${problem}`])
    cases.push([['run', '--experiment', file, '--out', out], 'run', `--experiment ${file}: ${problem}`])
  }
  cases.push([['run', '--workload', 'pipe.js', '--out', out], 'run', '--workload pipe.js: a named pipe, not a regular file'])
  cases.push([['run', '--workload', 'big.js', '--out', out], 'run', '--workload big.js: 256 MiB (268435457 bytes), over the 256 MiB limit of an input file'])
  for (const [args, command, message] of cases) {
    // bounded: a reader that opened the FIFO for reading would wait for a writer until killed here
    const r = await runCli(args, { cwd: dir, timeoutMs: 20_000 })
    const what = args.join(' ')
    assert.equal(r.signal, null, `${what}: ended by itself`)
    assert.equal(r.stderr, `syncbench ${command}: ${message}\n`, what)
    assert.equal(r.code, 1, what)
    assert.equal(r.stdout, '', what)
  }
  assert.deepEqual((await readdir(dir)).sort(), ['big.js', 'big.json', 'folder.json', 'pipe.js', 'pipe.json'], 'nothing written: no out/, no results/')
})

test('a results folder whose results.json is a named pipe is refused naming it, without waiting for a writer', async (t) => {
  const dir = await tempDir(t)
  if (!mkfifo(path.join(dir, 'results.json'))) return t.skip('mkfifo is not available')
  const r = await runCli(['report', dir, '--out', path.join(dir, 'out')], { timeoutMs: 20_000 })
  assert.equal(r.signal, null)
  assert.equal(r.stderr, `syncbench report: ${path.join(dir, 'results.json')}: a named pipe, not a regular file\n`)
  assert.equal(r.code, 1)
})

test('merge - reads standard input from a pipe; the limit holds for a file (exactly the limit is read) and for a stream as it is read', async (t) => {
  const s = await startHttpServer((req, res) => res.end('hello'))
  t.after(() => s.close())
  const json = JSON.stringify(await abJson(['-q', '-n', '4', '-c', '2', s.url]))
  const dir = await tempDir(t)
  const file = path.join(dir, 'part.json')
  await writeFile(file, json)
  // a shell's pipe, as people use it (a child's stdio 'pipe' from Node is a socket, which /dev/stdin cannot open)
  const r = await runCommand('sh', ['-c', 'cat "$1" | "$2" "$3" merge --json -', 'sh', file, process.execPath, binPath], { timeoutMs: 20_000 })
  assert.equal(r.stderr, '')
  assert.equal(r.code, 0)
  assert.equal(JSON.parse(r.stdout).completeRequests, 4)
  // the limit, on a file and on a stream as it is read: the API with small ones
  const text = 'x'.repeat(1000)
  await writeFile(file, text)
  const fail = (/** @type {string} */ message) => new ResultsError(`part.json: ${message}`)
  assert.equal(await readInputFile(file, { fail, limit: 1000 }), text, 'a file of exactly the limit is read')
  await assert.rejects(readInputFile(file, { fail, limit: 999 }), { code: 'SB_ERR_RESULTS', message: 'part.json: 1000 B, over the 999 B limit of an input file' })
  assert.equal(await readInputFile(file, { fail, limit: 1000, stream: true }), text)
  await assert.rejects(readInputFile(file, { fail, limit: 999, stream: true }), { message: 'part.json: more than 999 B, the limit of an input file' })
  // a size that rounds to the limit is given exactly
  await writeFile(file, 'x'.repeat(1025))
  await assert.rejects(readInputFile(file, { fail, limit: 1024 }), { message: 'part.json: 1 KiB (1025 bytes), over the 1 KiB limit of an input file' })
})

test('--unix names what the path is when it is not a socket: a named pipe', async (t) => {
  const dir = await tempDir(t)
  const fifo = path.join(dir, 'server.sock')
  if (!mkfifo(fifo)) return t.skip('mkfifo is not available')
  const r = await runCli(['ab', '-n', '1', '--unix', fifo, 'http://localhost/'], { timeoutMs: 20_000 })
  assert.equal(r.stderr, `syncbench ab: --unix must be the path of a unix socket, got "${fifo}" (a named pipe)\n`)
  assert.equal(r.code, 2)
})
