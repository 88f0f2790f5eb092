// Route discovery (lib/scan/discover.js): real apps started as `run --app` starts them, asked for
// their routes in their own process (lib/lab/route-reader.js, the adapters of lib/lab/frameworks/),
// then ended. Each app's exact route list (method and full pattern) and the line of each handler in
// its fixture are asserted: a mount path lost, a prefix not joined, a HEAD listed twice, a handler
// located at the framework's line instead of the app's would each fail here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync, realpathSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { tempCacheDir } from './helper.js'
import { createRequire } from 'node:module'
import { discoverRoutes } from '../lib/scan/discover.js'
import { hostApp } from '../lib/lab/app-host.js'
import { pathFromRegExp } from '../lib/lab/frameworks/express.js'
import { hapiPattern } from '../lib/lab/frameworks/hapi.js'
import { ServerStartError } from '../lib/errors.js'

const scanApps = fileURLToPath(new URL('./fixtures/apps/scan/', import.meta.url))
const apps = fileURLToPath(new URL('./fixtures/apps/', import.meta.url))
const root = fileURLToPath(new URL('..', import.meta.url))
let dir = ''
tempCacheDir('syncbench-discover-', (d) => { dir = d })

/**
 * @param {string} command
 * @param {string} [cwd]
 */
function discover (command, cwd = root) {
  return discoverRoutes({ command, name: 'app', cwd, log: path.join(dir, 'app.log'), startTimeoutMs: 30_000 })
}

/**
 * The 1-based line of the first line of `file` that contains `text`.
 * @param {string} file
 * @param {string} text
 */
function lineOf (file, text) {
  const index = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(text))
  assert.ok(index >= 0, `${text} in ${file}`)
  return index + 1
}

/**
 * Routes as 'METHOD /path @line' in the order found, for the fixture `file`.
 * @param {import('../lib/types.js').FoundRoute[]} routes
 * @param {string} file
 */
function described (routes, file) {
  return routes.map((r) => `${r.method} ${r.path}${r.file === file ? ` @${r.line}` : ` in ${r.file}`}`)
}

const expressFile = path.join(scanApps, 'express-nested.cjs')
/** @param {string} fn a handler's name in the fixture */
const at = (fn) => `@${lineOf(expressFile, `function ${fn} `)}`
const expressRoutes = [
  `GET /api/users/:userId/posts/:postId ${at('readPost')}`,
  // the handler, not the middleware before it
  `DELETE /api/users/:userId/posts/:postId ${at('deletePost')}`,
  `GET /api/users ${at('listUsers')}`,
  `GET /items ${at('listItems')}`,
  `POST /items ${at('addItem')}`,
  `GET /admin/stats ${at('stats')}`,
  `ALL /anything ${at('anything')}`,
  `GET /files/* ${at('readFile')}`,
  // declared after listen: discovery runs when asked
  `GET /late ${at('late')}`
]

for (const [module, version] of [['express', '5.3.0'], ['express-4', '4.22.3']]) {
  test(`${module} ${version}: routers nested three deep, app.route(), a sub-app, app.all() and a route added after listen`, async () => {
    const found = await discover(`node ${JSON.stringify(expressFile)} ${module}`)
    assert.deepEqual(described(found.routes, expressFile), expressRoutes)
    assert.deepEqual(found.frameworks, [{ name: 'express', version }])
    // the router mounted at a regexp: said, not guessed
    assert.equal(found.notes.length, 1)
    assert.deepEqual(found.notes, ['express: a router mounted under / at a path that cannot be read back (/^\\/old(?:er)?/): its routes are not listed'])
    assert.ok(found.routes.every((r) => r.framework === 'express'))
    assert.ok(found.startMs > 0)
  })
}

test('Express 4 called from a node:http server\'s own listener is found through the listener\'s closure', async () => {
  const found = await discover(`node ${JSON.stringify(expressFile)} express-4 wrapped`)
  assert.deepEqual(described(found.routes, expressFile), expressRoutes)
  assert.deepEqual(found.frameworks, [{ name: 'express', version: '4.22.3' }])
})

test('Express 5 on router 2.0 to 2.2 (layers with no rawPath): mount paths read back from the matchers', async () => {
  const found = await discover(`node ${JSON.stringify(expressFile)} express no-raw-path`)
  assert.deepEqual(described(found.routes, expressFile), expressRoutes)
  assert.deepEqual(found.notes, ['express: a router mounted under / at a path that cannot be read back (/^\\/old(?:er)?/): its routes are not listed'])
})

test('Express loaded twice (5 and 4, one listener calling either app): both apps, each with its own version', async () => {
  const file = path.join(scanApps, 'two-expresses.cjs')
  const found = await discover(`node ${JSON.stringify(file)}`)
  assert.deepEqual(described(found.routes, file), [
    `GET /new @${lineOf(file, 'function newRoute ')}`,
    `GET /old/page @${lineOf(file, 'function oldRoute ')}`
  ])
  assert.deepEqual(found.frameworks, [{ name: 'express', version: '5.3.0' }, { name: 'express', version: '4.22.3' }])
})

test('a sub-app the walk also reaches on its own (an ES module\'s constant): its routes listed once, at their mounted paths', async () => {
  const file = path.join(scanApps, 'express-module-scope.mjs')
  const found = await discover(`node ${JSON.stringify(file)}`)
  assert.deepEqual(described(found.routes, file), [
    `GET /admin/stats @${lineOf(file, 'function stats ')}`,
    `GET /users/:id @${lineOf(file, 'function readUser ')}`
  ])
})

test('asked twice, the app answers the same routes, and serves them as before', async () => {
  const app = await hostApp({ command: `node ${JSON.stringify(expressFile)}`, name: 'app', cwd: root, log: path.join(dir, 'twice.log') })
  try {
    const first = await app.routes()
    assert.deepEqual(await app.routes(), first)
    assert.equal(first?.routes.length, expressRoutes.length)
    const url = app.servers[0].url
    for (const [route, body] of [['/api/users/1/posts/2', 'post'], ['/admin/stats', 'stats'], ['/late', 'late']]) {
      const res = await fetch(url + route)
      assert.equal(res.status, 200, route)
      assert.equal(await res.text(), body)
    }
  } finally {
    await app.close()
  }
})

test('the walk reads data only: no getter of the app\'s objects runs, no Proxy trap', async () => {
  const file = path.join(scanApps, 'express-getters.cjs')
  const app = await hostApp({ command: `node ${JSON.stringify(file)}`, name: 'app', cwd: root, log: path.join(dir, 'getters.log') })
  try {
    const found = await app.routes()
    assert.deepEqual(found?.routes.map((r) => `${r.method} ${r.path}`), ['GET /touched'])
    const res = await fetch(app.servers[0].url + '/touched')
    assert.equal(await res.text(), '0')
  } finally {
    await app.close()
  }
})

const fastifyFile = path.join(scanApps, 'fastify-prefix.cjs')
for (const [module, version] of [['fastify', '5.12.8'], ['fastify-4', '4.29.1']]) {
  test(`${module} ${version}: plugin prefixes joined, nested; the HEAD Fastify adds for each GET not listed`, async () => {
    const found = await discover(`node ${JSON.stringify(fastifyFile)} ${module}`)
    /** @param {string} fn */
    const line = (fn) => `@${lineOf(fastifyFile, `function ${fn} `)}`
    assert.deepEqual(described(found.routes, fastifyFile), [
      `GET /health ${line('health')}`,
      `GET /settings ${line('settings')}`,
      `PUT /settings ${line('settings')}`,
      `GET /v1 ${line('index')}`,
      `POST /v1/orders/:orderId ${line('placeOrder')}`,
      `GET /v1/reports/daily ${line('daily')}`
    ])
    assert.deepEqual(found.frameworks, [{ name: 'fastify', version }])
    assert.deepEqual(found.notes, [])
  })
}

test('Koa with @koa/router: nested routers under a prefixed one', async () => {
  const file = path.join(scanApps, 'koa-router.mjs')
  const found = await discover(`node ${JSON.stringify(file)}`)
  /** @param {string} fn */
  const line = (fn) => `@${lineOf(file, `function ${fn} `)}`
  assert.deepEqual(described(found.routes, file), [
    `GET /api/users ${line('listUsers')}`,
    `GET /api/users/:id ${line('readUser')}`,
    `POST /api/users/reports/run ${line('runReport')}`
  ])
  assert.deepEqual(found.frameworks, [{ name: 'koa', version: '3.3.0' }])
})

test('Hapi: server.table(), {id} written :id, {path*} written *, method * written ALL, a plugin\'s prefix', async () => {
  const file = path.join(scanApps, 'hapi.cjs')
  const found = await discover(`node ${JSON.stringify(file)}`)
  /** @param {string} fn */
  const line = (fn) => `@${lineOf(file, `function ${fn} `)}`
  assert.deepEqual(described(found.routes, file).sort(), [
    `ALL /anything ${line('anything')}`,
    `GET /files/* ${line('readFile')}`,
    `GET /users/:id ${line('readUser')}`,
    `POST /reports/run ${line('runReport')}`
  ])
  assert.deepEqual(found.frameworks, [{ name: 'hapi', version: '21.4.10' }])
})

test('a plain node:http server: no routes, and a note saying to give --openapi or --har', async () => {
  const found = await discover(`node ${JSON.stringify(path.join(apps, 'http-app.js'))}`)
  assert.deepEqual(found.routes, [])
  assert.deepEqual(found.frameworks, [])
  assert.equal(found.notes.length, 1)
  assert.match(found.notes[0], /node:http.*--openapi or --har/)
})

test('Koa with no router: Koa is named, its routes unreadable', async () => {
  const found = await discover(`node ${JSON.stringify(path.join(apps, 'koa-app.js'))}`)
  assert.deepEqual(found.routes, [])
  assert.deepEqual(found.notes, ['koa 3.3.0 serves this app, but its routes are not where syncbench reads them: give --openapi or --har'])
})

test('json-server 0.17.4, an app nobody here wrote, on the Express 4 of its own node_modules: routes built from its data file', async () => {
  const db = path.join(dir, 'db.json')
  await writeFile(db, JSON.stringify({ posts: [{ id: 1, title: 'a' }], profile: { name: 'x' } }))
  const bin = path.join(root, 'node_modules/json-server/lib/cli/bin.js')
  const found = await discover(`node ${JSON.stringify(bin)} db.json --port 0`, dir)
  // node_modules may be a link: files are named by their real path
  const own = realpathSync(path.join(root, 'node_modules/json-server')) + path.sep
  assert.deepEqual(found.routes.map((r) => `${r.method} ${r.path}`), [
    'GET /db',
    'GET /:resource/:id/:nested',
    'POST /:resource/:id/:nested',
    // a plural resource: a router mounted at /posts with / and /:id
    'GET /posts',
    'POST /posts',
    'GET /posts/:id',
    'PUT /posts/:id',
    'PATCH /posts/:id',
    'DELETE /posts/:id',
    'GET /profile',
    'POST /profile',
    'PUT /profile',
    'PATCH /profile'
  ])
  assert.ok(found.routes.every((r) => r.file?.startsWith(own)), 'every handler is in json-server\'s files')
  // every function of these routes is json-server's: the first of each names the route's own code,
  // not the write to its database that follows (lib/server/router/write.js)
  for (const key of ['GET /posts/:id', 'POST /posts', 'DELETE /posts/:id']) {
    assert.equal(found.routes.find((r) => `${r.method} ${r.path}` === key)?.file, path.join(own, 'lib/server/router/plural.js'), key)
  }
  // the version of the Express json-server loads, not syncbench's own Express 5
  assert.deepEqual(found.frameworks, [{ name: 'express', version: '4.22.3' }])
})

test('an app that crashes before it listens: discovery rejects as hostApp does, naming its stderr', async () => {
  await assert.rejects(discover(`node ${JSON.stringify(path.join(apps, 'crash-app.js'))}`), (err) => {
    assert.ok(err instanceof ServerStartError)
    assert.match(err.message, /app "app" exited \(code 1\) before it listened.*config\.json: no such file/)
    return true
  })
})

test('a mount path read back from the regexp path-to-regexp compiled: literal segments and named parameters only', () => {
  const require = createRequire(import.meta.url)
  const express4 = require('../node_modules/express-4/node_modules/path-to-regexp')
  const { pathToRegexp } = require('path-to-regexp')
  /** @param {string} p */
  const four = (p) => {
    const keys = /** @type {{ name: string }[]} */ ([])
    return pathFromRegExp(express4(p, keys, { end: false }), keys)
  }
  /** @param {string} p */
  const eight = (p) => {
    const { regexp, keys } = pathToRegexp(p, { end: false })
    return pathFromRegExp(regexp, keys)
  }
  for (const read of [four, eight]) {
    assert.equal(read('/prefix'), '/prefix')
    assert.equal(read('/:userId/posts'), '/:userId/posts')
    assert.equal(read('/v1.2/a-b'), '/v1.2/a-b')
    assert.equal(read('/'), '')
  }
  assert.equal(four('/:id?'), '/:id?')
  // a wildcard, an optional group: not a pattern the shared shape writes
  assert.equal(four('/files/*'), null)
  assert.equal(eight('/a{/:b}'), null)
  // the app's own regexp, and a group with no name
  assert.equal(pathFromRegExp(/^\/x+\/?(?=\/|$)/i, []), null)
  assert.equal(pathFromRegExp(/^\/(?:([^/]+?))\/?(?=\/|$)/i, [{ name: 0 }]), null)
})

test('Hapi paths in the shared shape: {id} :id, {id?} :id?, {p*} and {p*2} *', () => {
  assert.equal(hapiPattern('/users/{id}/files/{name?}'), '/users/:id/files/:name?')
  assert.equal(hapiPattern('/static/{path*}'), '/static/*')
  assert.equal(hapiPattern('/pairs/{pair*2}'), '/pairs/*')
  assert.equal(hapiPattern('/plain'), '/plain')
})
