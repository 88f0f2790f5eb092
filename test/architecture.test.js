// docs/architecture.md, checked: the layers import only downward, one module is forked as a server
// under test, the engine is a class whose prototype nobody patches, and error codes live in one file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Layer of a file under lib/ (higher may import lower; the same folder may import itself; run and report, on one rank, never each other). */
function layer (rel) {
  const folder = rel.split('/')[1]
  if (!rel.startsWith('lib/') || !rel.slice(4).includes('/')) return { name: 'shared', rank: 0 }
  const ranks = { load: 1, lab: 1, ab: 1.5, analysis: 1.7, run: 2, report: 2, scan: 3, cli: 4 }
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

test('lib/ imports only downward: shared <- load, lab <- ab <- analysis <- run, report <- scan <- cli', async () => {
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
    // Code, not comments: a comment may say that bin/ prints an error; no line of code may name this
    // package's bin/ (a path that starts with it: "bin/", "./bin/", "../bin/"), nor syncbench.js.
    // Another program's bin/ (/opt/node20/bin/node in a message) is not ours.
    const code = (await readFile(path.join(root, rel), 'utf8')).split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
    assert.deepEqual(code.filter((line) => /(^|[^\w/.-])(\.\.?\/)*bin\/|syncbench\.js/.test(line)), [], `${rel} names bin/ in code`)
  }
  const spawn = await readFile(path.join(root, 'lib/lab/spawn.js'), 'utf8')
  assert.match(spawn, /server-child\.js/)
})

/**
 * Writing to a prototype: a property assigned on one, or properties installed on one. Reading one (a new
 * object made over Http2ServerRequest's, lib/lab/express-http2.js) is not patching.
 */
const PATCHES_PROTOTYPE = /\.prototype(\.\w+|\[[^\]]+\])\s*=(?!=)|\b(defineProperty|defineProperties|assign|setPrototypeOf)\(\s*[\w.]+\.prototype\b/

test('Engine.prototype is not patched at load time', async () => {
  for (const sample of ['Engine.prototype.run = run', 'Engine.prototype[name] = fn', 'Object.assign(Engine.prototype, methods)', 'Object.defineProperty(Connection.prototype, \'x\', d)']) {
    assert.match(sample, PATCHES_PROTOTYPE, sample)
  }
  assert.doesNotMatch('const copy = Object.create(http2.Http2ServerRequest.prototype)', PATCHES_PROTOTYPE)
  assert.doesNotMatch('if (p === http.IncomingMessage.prototype) break', PATCHES_PROTOTYPE)
  for (const rel of await sources('lib')) {
    const text = await readFile(path.join(root, rel), 'utf8')
    assert.doesNotMatch(text, PATCHES_PROTOTYPE, `${rel} patches a prototype`)
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

/**
 * The modules a file imports at run time: static imports and re-exports, and import() of a literal
 * path; the type imports of JSDoc comments are not imports at run time and are left out.
 * @param {string} rel a file of the repository
 * @returns {Promise<string[]>} the relative paths it imports
 */
async function runtimeImports (rel) {
  const code = (await readFile(path.join(root, rel), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const out = []
  for (const [, spec] of code.matchAll(/(?:^import [^'"]*|^export [^'"]* from |\bimport\()\s*['"](\.[^'"]+)['"]/gm)) {
    out.push(path.relative(root, path.resolve(path.dirname(path.join(root, rel)), spec)))
  }
  return out
}

test('no runtime import cycle in lib/, bin/ and index.js (JSDoc type imports aside)', async () => {
  const files = [...await sources('lib'), ...await sources('bin'), 'index.js']
  /** @type {Map<string, string[]>} */
  const graph = new Map()
  for (const rel of files) graph.set(rel, await runtimeImports(rel))
  const cycles = []
  /** @type {Map<string, 'open'|'done'>} */
  const state = new Map()
  /** @param {string} file @param {string[]} trail */
  const visit = (file, trail) => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') { cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> ')); return }
    state.set(file, 'open')
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file])
    state.set(file, 'done')
  }
  for (const file of graph.keys()) visit(file, [])
  assert.deepEqual(cycles, [])
  // the check sees what it must: a type import only in a comment is not an edge, a real import is
  assert.ok((graph.get('lib/report/kinds.js') ?? []).includes('lib/report/kinds/generic.js'))
  assert.ok(!(graph.get('lib/report/kinds/generic.js') ?? []).includes('lib/report/kinds.js'), 'generic.js names kinds.js in JSDoc only')
})

test('no two files of lib/ share a name: a name says which module it is', async () => {
  /** @type {Map<string, string[]>} */
  const byName = new Map()
  for (const rel of await sources('lib')) byName.set(path.basename(rel), [...byName.get(path.basename(rel)) ?? [], rel])
  assert.deepEqual([...byName.values()].filter((files) => files.length > 1), [])
})

test('every error code used is in the registry (lib/errors.js): errorCodes.X, the native addon\'s throws, the README\'s table', async () => {
  const { errorCodes } = await import('../lib/errors.js')
  const codes = new Set(Object.values(errorCodes))
  const problems = []
  for (const rel of [...await sources('lib'), ...await sources('bin'), 'index.js']) {
    const text = await readFile(path.join(root, rel), 'utf8')
    for (const [, key] of text.matchAll(/\berrorCodes\.([A-Za-z_]+)/g)) if (!Object.hasOwn(errorCodes, key)) problems.push(`${rel}: errorCodes.${key}`)
  }
  const native = (await readdir(path.join(root, 'native'))).filter((name) => name.endsWith('.c') || name.endsWith('.h'))
  let thrown = 0
  for (const name of native) {
    const text = await readFile(path.join(root, 'native', name), 'utf8')
    for (const [, code] of text.matchAll(/napi_throw_\w*error\s*\(\s*\w+\s*,\s*"([^"]*)"/g)) {
      thrown++
      if (!codes.has(code)) problems.push(`native/${name}: throws "${code}"`)
    }
    for (const [code] of text.matchAll(/SB_ERR_\w+/g)) if (!codes.has(code)) problems.push(`native/${name}: ${code}`)
  }
  assert.ok(thrown > 0, 'the addon\'s throws were found')
  const reference = await readFile(path.join(root, 'docs', 'reference.md'), 'utf8')
  for (const code of codes) if (!reference.includes(`\`${code}\``)) problems.push(`docs/reference.md does not name ${code}`)
  assert.deepEqual(problems, [])
})

test('experiment kinds: one module of lib/report/kinds/ each, found through the registry, named by both schemas; nothing else branches on a kind', async () => {
  const { KINDS } = await import('../lib/report/kinds.js')
  const names = KINDS.map((k) => k.name)
  const modules = (await readdir(path.join(root, 'lib/report/kinds'))).map((name) => name.replace(/\.js$/, ''))
  assert.deepEqual([...names].sort(), [...modules].sort(), 'a module per kind, named after it, and every module listed')
  for (const schema of ['schemas/results.schema.json', 'schemas/experiment.schema.json']) {
    const text = await readFile(path.join(root, schema), 'utf8')
    const found = [...text.matchAll(/"table":\s*\{[^}]*?"enum":\s*\[([^\]]*)\]/g)].map(([, list]) => JSON.parse(`[${list}]`))
    assert.equal(found.length, 1, `${schema}: one table enum`)
    assert.deepEqual([...found[0]].sort(), [...names].sort(), `${schema}: the registry's kinds`)
  }
  const problems = []
  for (const rel of await sources('lib')) {
    if (rel.startsWith('lib/report/kinds')) continue
    const code = (await readFile(path.join(root, rel), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
    for (const m of code.matchAll(/\btable\s*[!=]==|[!=]==\s*\w*\.?table\b|\.rateSweep\b[^\n]*\btable\b/g)) problems.push(`${rel}: ${m[0]}`)
  }
  assert.deepEqual(problems, [])
})
