// docs/architecture.md, checked: the layers import only downward, one module is forked as a server
// under test, the engine is a class whose prototype nobody patches, and error codes live in one file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Layer of a file under lib/ (higher may import lower; the same folder may import itself). */
function layer (rel) {
  const folder = rel.split('/')[1]
  if (!rel.startsWith('lib/') || !rel.slice(4).includes('/')) return { name: 'shared', rank: 0 }
  const ranks = { load: 1, lab: 1, ab: 1.5, analysis: 1.7, run: 2, report: 3, cli: 4 }
  assert.ok(folder in ranks, `${rel}: a folder of lib/ that docs/architecture.md does not place`)
  return { name: folder, rank: ranks[folder] }
}

async function sources (dir) {
  const out = []
  for (const entry of await readdir(path.join(root, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.js')) out.push(path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)))
  }
  return out
}

test('lib/ imports only downward: shared <- load, lab <- ab <- run <- report <- cli', async () => {
  const problems = []
  for (const rel of await sources('lib')) {
    const text = await readFile(path.join(root, rel), 'utf8')
    const from = layer(rel)
    for (const [, spec] of text.matchAll(/(?:^import [^'"]*|^export [^'"]* from |import\()\s*['"](\.[^'"]+)['"]/gm)) {
      const target = path.relative(root, path.resolve(path.dirname(path.join(root, rel)), spec))
      const to = layer(target)
      if (to.name !== from.name && to.rank >= from.rank) problems.push(`${rel} imports ${target} (${from.name} -> ${to.name})`)
    }
  }
  assert.deepEqual(problems, [])
})

test('nothing in lib/ forks or spawns bin/syncbench.js; lib/lab/server-child.js is what spawn.js forks', async () => {
  for (const rel of await sources('lib')) {
    // Code, not comments: a comment may say that bin/ prints an error; no line of code may name bin/.
    const code = (await readFile(path.join(root, rel), 'utf8')).split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
    assert.deepEqual(code.filter((line) => /bin\/|syncbench\.js/.test(line)), [], `${rel} names bin/ in code`)
  }
  const spawn = await readFile(path.join(root, 'lib/lab/spawn.js'), 'utf8')
  assert.match(spawn, /server-child\.js/)
})

test('Engine.prototype is not patched at load time', async () => {
  for (const rel of await sources('lib')) {
    const text = await readFile(path.join(root, rel), 'utf8')
    assert.doesNotMatch(text, /\.prototype\b/, `${rel} touches a prototype`)
  }
})

test("no 'SB_ERR_ string literal outside lib/errors.js", async () => {
  const problems = []
  for (const rel of [...await sources('lib'), ...await sources('bin'), 'index.js']) {
    if (rel === 'lib/errors.js') continue
    const text = await readFile(path.join(root, rel), 'utf8')
    for (const m of text.matchAll(/SB_ERR_\w*/g)) problems.push(`${rel}: ${m[0]}`)
  }
  assert.deepEqual(problems, [])
})
