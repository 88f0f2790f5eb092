// "Where the event loop went" names the user's line first: the function where control entered the leaf's
// package and the app's line that called it, the leaf beneath (lib/analysis/profile.js, event-loop.js).
// Unit tests on real CPU profiles of test/fixtures/apps/login-app.cjs and of a packaged server whose code
// all lives under node_modules (test/fixtures/profiles, taken under the real preload): bcryptjs's
// compareSync and its chunked async compare, the native bcrypt, JSON.stringify, zlib.gzipSync and
// crypto.pbkdf2Sync. Then one real `syncbench run --app ... --profile` of each app, read in the terminal,
// results.json, summary.md and report.html.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import os from 'node:os'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { summarizeProfile, combineProfiles } from '../lib/analysis/profile.js'
import { callText, leafText, loopTable, loopLines } from '../lib/report/event-loop.js'
import { renderReport } from '../lib/report/write-report.js'
import { PROFILES, readProfile, root } from './fixtures/profiles/profiles.js'
import { runCli } from './helper.js'

const APP = 'test/fixtures/apps/login-app.cjs'
const PLUGIN = 'test/fixtures/apps/packaged/node_modules/auth-plugin/index.js'

/**
 * The 1-based line of a file of the repository holding `text`, and the line of the function around it
 * (the nearest line before it that opens one).
 * @param {string} file
 * @param {string} text
 */
function lineOf (file, text) {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n')
  const at = lines.findIndex((l) => l.includes(text))
  assert.ok(at >= 0, `${text} in ${file}`)
  let fn = at - 1
  while (fn >= 0 && !/function|=>/.test(lines[fn])) fn--
  return { line: at + 1, functionLine: fn + 1 }
}

/**
 * The summary of a stored profile, as the runner makes it for an app run from the repository's folder.
 * @param {string} name
 * @param {(p: any) => any} [edit]
 */
function summary (name, edit = (p) => p) {
  return summarizeProfile(edit(readProfile(name)), { file: name, intervalUs: 1000, root })
}

test('bcryptjs\'s compareSync: the row is compareSync (bcryptjs) at the app\'s line of the call, _encipher beneath', () => {
  const s = summary(PROFILES.login)
  const { line, functionLine } = lineOf(APP, 'bcryptjs.compareSync(')
  const [first] = s.self
  assert.deepEqual(first.entry, { name: 'compareSync', package: 'bcryptjs' })
  // the line of the call, not the handler's first line (V8's profile gives only the latter for a frame
  // that is not the leaf)
  assert.deepEqual(first.caller, { name: '(anonymous)', location: `${APP}:${functionLine}`, line })
  assert.notEqual(line, functionLine)
  assert.equal(first.name, '_encipher')
  assert.match(first.location, /^bcryptjs\//)
  assert.ok(first.leafMs !== undefined && first.leafMs < first.ms && first.leafMs > first.ms / 2, JSON.stringify(first))
  assert.ok(first.ms > 0.5 * s.totalMs, 'the compare holds most of the window')
  assert.equal(callText(first), `compareSync (bcryptjs) from ${APP}:${line}`)
  assert.match(leafText(first) ?? '', /^leaf: _encipher \(bcryptjs\/[^)]+:\d+\)$/)
  // the blocking time is the same call's
  assert.deepEqual(s.blocking, null, 'no spans given: no blocking list')
})

test('the native bcrypt: its compareSync entered from the app\'s line, the leaf native code under it', () => {
  const [first] = summary(PROFILES.native).self
  const { line } = lineOf(APP, 'bcrypt.compareSync(')
  assert.deepEqual(first.entry, { name: 'compareSync', package: 'bcrypt' })
  assert.equal(first.caller?.line, line)
  assert.deepEqual([first.name, first.via], ['compareSync', 'native code'])
  assert.ok((first.nativeMs ?? 0) > 0.9 * first.ms, JSON.stringify(first))
})

test('Node built-ins: gzipSync and pbkdf2Sync by the names the app called, at its line; the Node function beneath', () => {
  const [gzip] = summary(PROFILES.gzip).self
  assert.deepEqual(gzip.entry, { name: 'gzipSync', package: 'node:zlib' }, 'zlib\'s function is named syncBufferWrapper; the app called it gzipSync')
  assert.equal(gzip.caller?.line, lineOf(APP, 'zlib.gzipSync(').line)
  assert.equal(gzip.via, 'writeSync')
  const [derive] = summary(PROFILES.pbkdf2).self
  assert.deepEqual(derive.entry, { name: 'pbkdf2Sync', package: 'node:crypto' })
  assert.equal(derive.caller?.line, lineOf(APP, 'crypto.pbkdf2Sync(').line)
  assert.deepEqual([derive.name, derive.location, derive.via], ['pbkdf2Sync', 'node:internal/crypto/pbkdf2', 'run'])
})

test('JSON.stringify, which has no frame of its own: the handler at the line of the call, from its samples\' lines', () => {
  const s = summary(PROFILES.shop)
  const { line, functionLine } = lineOf(APP, 'JSON.stringify(')
  const row = s.self.find((e) => e.caller?.name === 'listProducts' && !e.entry)
  assert.ok(row, JSON.stringify(s.self))
  assert.deepEqual(row.caller, { name: 'listProducts', location: `${APP}:${functionLine}`, line })
  assert.equal(callText(row), `listProducts at ${APP}:${line}`)
  assert.equal(leafText(row), null, 'its leaf is itself')
  // writing the response is another call of the same handler, on the next line
  const end = s.self.find((e) => e.entry?.name === 'end')
  assert.equal(end?.caller?.line, lineOf(APP, '.end(body)').line)
})

test('bcryptjs\'s async compare runs in slices from setImmediate: chunked, named by the call its first slice shows', () => {
  const s = summary(PROFILES.async)
  const [first] = s.self
  assert.deepEqual(first.entry, { name: 'compare', package: 'bcryptjs' })
  assert.equal(first.caller?.line, lineOf(APP, 'bcryptjs.compare(').line)
  assert.equal(first.chunked, true)
  assert.match(callText(first), /^compare \(bcryptjs\) from test\/fixtures\/apps\/login-app\.cjs:\d+, chunked$/)
  // Without the first slices (the nodes under the app's call of compare), no stack shows the caller: the
  // package is named, by the function its slices start in, and the row says so.
  const sliced = summary(PROFILES.async, (p) => withoutCallsOf(p, 'compare'))
  const [chunk] = sliced.self
  assert.equal(chunk.entry?.package, 'bcryptjs')
  assert.notEqual(chunk.entry?.name, 'compare')
  assert.equal(chunk.caller, undefined)
  assert.equal(chunk.chunked, true)
  assert.match(callText(chunk), /^\w+ \(bcryptjs\), chunked; no sample shows its caller$/)
})

test('a packaged server whose code is all under node_modules: the calling package\'s frame, verifyPassword', () => {
  const [first] = summary(PROFILES.packaged).self
  const { line, functionLine } = lineOf(PLUGIN, 'bcryptjs.compareSync(')
  assert.deepEqual(first.entry, { name: 'compareSync', package: 'bcryptjs' })
  assert.deepEqual(first.caller, { name: 'verifyPassword', location: `auth-plugin/index.js:${functionLine}`, line })
  assert.equal(callText(first), `compareSync (bcryptjs) from verifyPassword at auth-plugin/index.js:${line}`)
})

test('the runs of a configuration add up by call, the leaf and its time kept', () => {
  const one = summary(PROFILES.login)
  const both = combineProfiles([one, { ...one, file: 'b' }])
  const [first] = both?.self ?? []
  assert.deepEqual({ ...first, ms: 0, leafMs: 0, nativeMs: 0 }, { ...one.self[0], ms: 0, leafMs: 0, nativeMs: 0 })
  assert.equal(first.ms, Math.round(2 * one.self[0].ms * 1000) / 1000)
  assert.equal(first.leafMs, Math.round(2 * (one.self[0].leafMs ?? 0) * 1000) / 1000)
})

test('the table of calls: the leaf beneath each call, no inclusive column; a file from before calls keeps it', () => {
  const one = summary(PROFILES.login)
  const profile = { ...combineProfiles([one]), runs: 1 }
  const table = loopTable({ experiment: 'app', label: 'POST /login', profile: /** @type {any} */ (profile) })
  assert.deepEqual(table.columns.slice(0, 3), ['call (its hottest leaf beneath)', 'of the window', 'of blocking time'])
  assert.ok(!table.columns.includes('inclusive'))
  assert.match(table.rows[0][0], /^compareSync \(bcryptjs\) from test\/fixtures\/apps\/login-app\.cjs:\d+$/)
  assert.match(table.rows[1][0], /^ {2}leaf: _encipher \(bcryptjs\//)
  assert.equal(table.rows.every((r) => r.length === table.columns.length), true)
  // a results file from before calls: a function per row, its inclusive time beside it
  const old = { ...profile, self: [{ name: 'hashPasswordSlowly', location: 'app.js:12', via: 'pbkdf2Sync', ms: 6 }], inclusive: [{ name: 'hashPasswordSlowly', location: 'app.js:12', ms: 7 }] }
  const oldTable = loopTable({ experiment: 'app', label: 'x', profile: /** @type {any} */ (old) })
  assert.equal(oldTable.columns[3], 'inclusive')
  assert.equal(oldTable.rows[0][0], 'hashPasswordSlowly (app.js:12) -> pbkdf2Sync')
  assert.notEqual(oldTable.rows[0][3], '')
  const lines = loopLines([{ experiment: 'app', label: 'x', profile: /** @type {any} */ (old) }])
  assert.equal(lines[0], 'Where the event loop went (self time, share of the measured window):')
  assert.equal(lines.length, 2)
})

let dir = ''
/** @type {Record<string, { code: number, stdout: string, stderr: string, results: any, summary: string, html: string }>} */
const runs = {}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-your-line-'))
  const apps = {
    login: ['node test/fixtures/apps/login-app.cjs', '--request', 'POST /login', '--path', '/shop'],
    packaged: ['node test/fixtures/apps/packaged/node_modules/registry-server/index.js', '--request', 'POST /-/login']
  }
  for (const [name, [command, ...routes]] of Object.entries(apps)) {
    const out = path.join(dir, name)
    const { code, stdout, stderr } = await runCli(['run', '--app', command, ...routes, '-n', '6', '-c', '1', '--profile', '--no-report', '--out', out],
      { cwd: root, env: { SYNCBENCH_CACHE_DIR: path.join(dir, 'cache') }, timeoutMs: 120_000 })
    const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
    await renderReport(results, out, { png: false })
    runs[name] = { code, stdout, stderr, results, summary: await readFile(path.join(out, 'summary.md'), 'utf8'), html: await readFile(path.join(out, 'report.html'), 'utf8') }
  }
})
after(() => rm(dir, { recursive: true, force: true }))

test('run --app --profile on the login example: the verdict, the terminal, summary.md and report.html lead with the line', () => {
  const run = runs.login
  assert.equal(run.code, 0, run.stderr)
  const { line } = lineOf(APP, 'bcryptjs.compareSync(')
  const call = `compareSync (bcryptjs) from ${APP}:${line}`
  const lines = run.stdout.split('\n')
  const at = lines.indexOf('Where the event loop went (self time by call, your line first; share of the measured window):')
  assert.ok(at >= 0, run.stdout)
  assert.match(lines[at + 1], new RegExp(`^  POST /login +\\d+\\.\\d%  ${escape(call)}$`))
  assert.match(lines[at + 2], /^ +\d+\.\d% {4}leaf: _encipher \(bcryptjs\/[^)]+\)$/)
  // the verdict (wrapped in the terminal) and summary.md's: it names the route whose loop was late the
  // longest, POST /login or /shop (each holds the loop through nearly all of its window at -c 1, so a
  // busy machine decides), and leads with that route's call
  const verdict = /> app: (POST \/login|\/shop) holds the event loop most: .*/.exec(run.summary)
  assert.ok(verdict, run.summary)
  if (verdict[1] === 'POST /login') {
    assert.match(verdict[0], new RegExp(`first in where the event loop went: ${escape(call)}, \\d+% of the window \\(leaf: _encipher \\(bcryptjs/[^)]+\\), \\d+%\\)`))
  } else {
    assert.match(verdict[0], new RegExp(`first in where the event loop went: [^;]*listProducts at ${escape(APP)}:\\d+, \\d+% of the window`))
  }
  assert.match(run.summary, new RegExp(`\\| call \\(its hottest leaf beneath\\) \\| of the window \\| of blocking time \\|[^\\n]*\\n\\|[^\\n]*\\n\\| ${escape(call)} \\| [\\d.]+% \\| [\\d.]+% \\|`))
  assert.match(run.html, new RegExp(`<td>${escape(call)}</td>`))
  // /shop: the JSON.stringify row names the line of the call, not the handler's first line
  const shop = run.results.runs.find((r) => r.label === '/shop')
  const stringify = shop.profile.self.find((e) => e.caller?.name === 'listProducts' && !e.entry)
  assert.equal(stringify?.caller.line, lineOf(APP, 'JSON.stringify(').line)
  // its row is /shop's first or a later one (the res.end beside it can weigh as much on a busy machine)
  assert.match(run.stdout, new RegExp(`^ +(/shop +)?\\d+\\.\\d%  listProducts at ${escape(APP)}:${stringify.caller.line}$`, 'm'))
  assert.doesNotMatch(run.stdout, / leaf: listProducts/)
})

test('run --app --profile on a packaged server under node_modules: the auth plugin\'s call of bcryptjs first', () => {
  const run = runs.packaged
  assert.equal(run.code, 0, run.stderr)
  const { line } = lineOf(PLUGIN, 'bcryptjs.compareSync(')
  const call = `compareSync (bcryptjs) from verifyPassword at auth-plugin/index.js:${line}`
  assert.match(run.stdout, new RegExp(`^  POST /-/login +\\d+\\.\\d%  ${escape(call)}$`, 'm'))
  assert.match(run.summary, new RegExp(`first in where the event loop went: ${escape(call)}, `))
})

test('results.json with calls is valid against the shipped schema, which names every field of a row', () => {
  const ajv = new Ajv2020({ allowUnionTypes: true })
  const schema = (name) => JSON.parse(readFileSync(path.join(root, 'schemas', name), 'utf8'))
  ajv.addSchema(schema('load-result.schema.json'))
  const results = schema('results.schema.json')
  ajv.addSchema(results)
  const validate = ajv.getSchema('syncbench/results@1')
  for (const run of Object.values(runs)) assert.ok(validate?.(run.results), JSON.stringify(validate?.errors))
  const named = results.$defs.profileEntry.properties
  for (const e of runs.login.results.runs.flatMap((r) => r.profile.self)) {
    for (const key of Object.keys(e)) assert.ok(named[key], `profileEntry.${key} is in the schema`)
    for (const key of Object.keys(e.caller ?? {})) assert.ok(named.caller.properties[key], `caller.${key}`)
  }
})

/** @param {string} text */
function escape (text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * A profile without the nodes of calls of `name` (and everything under them), nor their samples.
 * @param {any} profile
 * @param {string} name
 */
function withoutCallsOf (profile, name) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const gone = new Set()
  const drop = (id) => {
    gone.add(id)
    for (const child of byId.get(id).children ?? []) drop(child)
  }
  for (const n of profile.nodes) if (n.callFrame.functionName === name && n.callFrame.url.includes('bcryptjs')) drop(n.id)
  const kept = profile.samples.map((id, i) => [id, profile.timeDeltas[i]]).filter(([id]) => !gone.has(id))
  return {
    ...profile,
    nodes: profile.nodes.filter((n) => !gone.has(n.id)).map((n) => ({ ...n, children: (n.children ?? []).filter((c) => !gone.has(c)) })),
    samples: kept.map(([id]) => id),
    timeDeltas: kept.map(([, d]) => d)
  }
}
