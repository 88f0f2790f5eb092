// syncbench scan on an app nobody here wrote: json-server 0.17.4 (a devDependency, its own Express 4
// under node_modules/json-server/node_modules), which builds its routes at run time from its data
// file: every plural resource a router with / and /:id, every singular one a route of its own. With
// a large data file (20,000 posts, 20,000 comments), listing a whole collection serialises megabytes
// on the event loop: those routes must rank above the cheap ones (one record, a small collection),
// each with json-server's own line, no write sent (the data file unchanged: json-server writes it
// back on any change), within its budget.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'

const bin = fileURLToPath(new URL('../node_modules/json-server/lib/cli/bin.js', import.meta.url))
const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-json-server-'))
after(() => rm(dir, { recursive: true, force: true }))

/** @param {string} file */
const digest = async (file) => createHash('sha256').update(await readFile(file)).digest('hex')

test('json-server 0.17.4 with a large data file: the whole collections ranked first, at json-server\'s lines; no write sent; within the budget', async () => {
  const db = path.join(dir, 'db.json')
  const posts = Array.from({ length: 20_000 }, (_, i) => ({ id: i + 1, title: `post ${i}`, body: 'lorem ipsum dolor sit amet '.repeat(8), author: `user${i % 100}` }))
  const comments = Array.from({ length: 20_000 }, (_, i) => ({ id: i + 1, postId: (i % 20_000) + 1, body: 'a comment '.repeat(5) }))
  const users = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `user${i}` }))
  await writeFile(db, JSON.stringify({ posts, comments, users, profile: { name: 'typicode' } }))
  const before = await digest(db)
  const out = path.join(dir, 'out')
  const started = Date.now()
  // a budget above the default's (about 30 s here): CI runs two test files at once on 2 cores, and
  // json-server takes 1 to 2.5 s to start with this file
  const r = await runCli(['scan', '--app', `node ${bin} db.json`, '--cwd', dir, '--param', 'id=1', '--budget', '45s', '--json', '--out', out], { timeoutMs: 180_000 })
  const tookSeconds = (Date.now() - started) / 1000
  assert.equal(r.code, 0, r.stderr)
  const ranking = JSON.parse(r.stdout)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  const { scan } = results.experiments[0]
  assert.deepEqual(scan.frameworks, [{ name: 'express', version: '4.22.3' }])
  // GETs only: every plural resource's GET / and GET /:id, the singular one's, /db
  const sent = scan.routes.filter((route) => route.skipped === null).map((route) => route.key).sort()
  assert.deepEqual(sent, ['GET /comments', 'GET /comments/:id', 'GET /db', 'GET /posts', 'GET /posts/:id', 'GET /profile', 'GET /users', 'GET /users/:id'])
  for (const route of scan.routes.filter((x) => x.method !== 'GET')) assert.ok(route.skipped, `${route.key} was not sent`)
  // the whole collections first (the order among them is the machine's), each at json-server's line
  const ranked = ranking.routes.map((x) => x.route)
  assert.deepEqual(ranked.slice(0, 3).sort(), ['GET /comments', 'GET /db', 'GET /posts'], `${ranked.join(', ')}\n${JSON.stringify(ranking.routes.filter((/** @type {any} */ x) => x.reason))}`)
  for (const route of ranking.routes.slice(0, 3)) {
    assert.equal(route.blocks, true, route.route)
    assert.match(route.line, /node_modules\/json-server\/lib\/server\/router\/\w+\.js:\d+$/, route.route)
  }
  for (const route of ranking.routes) assert.equal(route.errors, 0, route.route)
  assert.equal(await digest(db), before, 'the data file is unchanged: no write reached json-server')
  assert.ok(tookSeconds <= scan.budgetMs / 1000 + 5, `${tookSeconds} s for a budget of ${scan.budgetMs / 1000} s`)
})
