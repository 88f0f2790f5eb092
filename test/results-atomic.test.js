// results.json (and summary.md) are replaced, never rewritten in place: a new file is renamed over the
// old one, so whoever holds the old one (a hard link, an open descriptor, a reader mid-file) keeps the
// old content whole, and a crash mid-write leaves the last complete file. "No temporary file left"
// cannot tell that apart from a plain writeFile; these tests can.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile, link, stat, open } from 'node:fs/promises'
import { writeAtomic } from '../lib/run/results-writer.js'
import { runCli } from './helper.js'

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-atomic-')) })
after(() => rm(dir, { recursive: true, force: true }))

test('writeAtomic replaces the file: a hard link and an open descriptor keep the old content', async () => {
  const folder = path.join(dir, 'unit')
  await mkdir(folder)
  const file = path.join(folder, 'results.json')
  const old = JSON.stringify({ old: true, pad: 'x'.repeat(100_000) }) + '\n'
  await writeFile(file, old)
  const keep = path.join(folder, 'kept.json')
  await link(file, keep)
  const reader = await open(file, 'r')
  try {
    await writeAtomic(file, '{"new":true}\n')
    assert.equal(await readFile(file, 'utf8'), '{"new":true}\n')
    assert.equal(await readFile(keep, 'utf8'), old, 'the old file was written over in place')
    assert.notEqual((await stat(file)).ino, (await stat(keep)).ino, 'results.json is a new file')
    const { buffer, bytesRead } = await reader.read({ buffer: Buffer.alloc(old.length + 10), position: 0 })
    assert.equal(buffer.subarray(0, bytesRead).toString('utf8'), old, 'a reader that opened the old file reads it whole')
  } finally {
    await reader.close()
  }
  assert.deepEqual((await readdir(folder)).sort(), ['kept.json', 'results.json'], 'no temporary file left')
})

test('syncbench run replaces results.json and summary.md in --out, never writes into the old files', async () => {
  const handlers = path.join(dir, 'handlers.mjs')
  await writeFile(handlers, `
    export function sync () { return 'sync' }
    export async function async () { return 'async' }
  `)
  const out = path.join(dir, 'out')
  const kept = path.join(dir, 'kept')
  await mkdir(out)
  await mkdir(kept)
  const before = { 'results.json': '{"schema":"an older run"}\n', 'summary.md': '# an older summary\n' }
  for (const [name, text] of Object.entries(before)) {
    await writeFile(path.join(out, name), text)
    await link(path.join(out, name), path.join(kept, name))
  }
  const { code, stderr } = await runCli(['run', '--workload', handlers, '-n', '4', '-c', '1', '--quiet', '--no-report', '--out', out], { timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.schema, 'syncbench/results@1')
  assert.deepEqual(results.runs.map((r) => r.load.completeRequests), [4, 4])
  assert.notEqual(await readFile(path.join(out, 'summary.md'), 'utf8'), before['summary.md'])
  for (const [name, text] of Object.entries(before)) {
    assert.equal(await readFile(path.join(kept, name), 'utf8'), text, `${name} was written over in place`)
    assert.notEqual((await stat(path.join(out, name))).ino, (await stat(path.join(kept, name))).ino, `${name} is a new file`)
  }
  assert.deepEqual((await readdir(out)).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left')
})
