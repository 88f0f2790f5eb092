// syncbench scan's plan: discovered, documented and named routes merged by method and pattern shape,
// --param, what is safe to send, and the lines printed before anything is sent.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { parseParamOption, planScan, planText, patternSegments } from '../lib/scan/scan-plan.js'
import { parseAppRequests } from '../lib/run/app-requests.js'
import { readOpenapi } from '../lib/scan/openapi.js'
import { readHar } from '../lib/scan/har.js'
import { errorCodes } from '../lib/errors.js'

const fixture = (/** @type {string} */ name) => fileURLToPath(new URL(`fixtures/scan/${name}`, import.meta.url))

/**
 * The routes a command line names, as run --app's parser gives them.
 * @param {string[]} args
 */
function named (args) {
  const { tokens } = parseArgs({
    args,
    options: {
      request: { type: 'string', multiple: true },
      path: { type: 'string', multiple: true },
      'body-file': { type: 'string', short: 'p' },
      'content-type': { type: 'string', short: 'T' },
      header: { type: 'string', short: 'H', multiple: true }
    },
    tokens: true,
    strict: true
  })
  return parseAppRequests(tokens, { mix: false }).routes
}

/** @param {Partial<{ method: string, path: string, framework: string, file: string, line: number }>} r */
const found = (r) => ({ method: 'GET', path: '/', framework: 'express', ...r })

/** A plan's routes as "key -> path" or "key -> skipped: reason (flag)". @param {import('../lib/types.js').PlannedRoute[]} plan */
const brief = (plan) => plan.map((r) => `${r.key} -> ${r.skipped === null ? r.path : `skipped: ${r.skipped.reason}${r.skipped.flag ? ` (${r.skipped.flag})` : ''}`}`)

test('--param NAME=VALUE: parsed, and refused in one line when malformed', () => {
  assert.deepEqual(parseParamOption([]), {})
  assert.deepEqual(parseParamOption(['id=42', 'user-id=a=b', '$x=1', 'file.ext=a b']), { id: '42', 'user-id': 'a=b', $x: '1', 'file.ext': 'a b' })
  const cases = [
    ['id', '--param must be NAME=VALUE, as in --param id=42, got "id"'],
    ['=42', '--param must be NAME=VALUE, as in --param id=42, got "=42"'],
    ['id=', '--param must be NAME=VALUE, as in --param id=42, got "id="'],
    ['1d=42', '--param must be NAME=VALUE, as in --param id=42, got "1d=42"'],
    ['id=4\n2', '--param must hold its value on one line, got "id=4\\n2"']
  ]
  for (const [value, message] of cases) {
    assert.throws(() => parseParamOption([value]), (err) => err.code === errorCodes.INVALID_OPTION && err.message === message, value)
  }
  assert.throws(() => parseParamOption(['id=1', 'id=2']), { code: errorCodes.INVALID_OPTION, message: '--param gives id a second time (id=1 first), got "id=2"' })
})

test('--param fills a pattern\'s parameters, encoded; a route it cannot fill is skipped with the flag that would', () => {
  const routes = [found({ path: '/users/:id' }), found({ path: '/users/:userId/posts/:postId' }), found({ path: '/health' })]
  assert.deepEqual(brief(planScan({ found: routes })), [
    'GET /users/:id -> skipped: needs :id (--param id=VALUE)',
    'GET /users/:userId/posts/:postId -> skipped: needs :userId and :postId (--param userId=VALUE --param postId=VALUE)',
    'GET /health -> /health'
  ])
  assert.deepEqual(brief(planScan({ found: routes, params: { id: 'a b/c', userId: '7' } })), [
    'GET /users/:id -> /users/a%20b%2Fc',
    'GET /users/:userId/posts/:postId -> skipped: needs :postId (--param postId=VALUE)',
    'GET /health -> /health'
  ])
  // Hapi's and OpenAPI's {name}, a parameter with its own pattern
  assert.deepEqual(brief(planScan({ found: [found({ path: '/a/{id}' }), found({ path: '/b/:id(\\d+)' })], params: { id: '3' } })), ['GET /a/{id} -> /a/3', 'GET /b/:id(\\d+) -> /b/3'])
})

test('routes merge by method and by the position of their parameters, not their names; every source is listed', () => {
  const plan = planScan({
    found: [found({ path: '/users/:id', file: '/app/users.js', line: 12 }), found({ path: '/users/:id/posts' })],
    documents: [
      { method: 'GET', path: '/users/:userId', from: 'openapi', query: 'fields=name', params: { userId: '42' } },
      { method: 'DELETE', path: '/users/:userId', from: 'openapi', query: '', params: { userId: '42' } }
    ]
  })
  assert.deepEqual(plan[0], {
    key: 'GET /users/:id',
    method: 'GET',
    pattern: '/users/:id',
    path: '/users/42?fields=name',
    from: ['express', 'openapi'],
    declared: { file: '/app/users.js', line: 12 },
    skipped: null
  })
  assert.deepEqual(brief(plan).slice(1), [
    'GET /users/:id/posts -> skipped: needs :id (--param id=VALUE)',
    'DELETE /users/:userId -> skipped: DELETE runs only when named by --request (--request "DELETE /users/:userId" --allow-writes)'
  ])
  // --param by either name; the user's value before the document's example
  assert.equal(planScan({ found: [found({ path: '/users/:id' })], documents: [{ method: 'GET', path: '/users/:userId', from: 'openapi', query: '', params: { userId: '42' } }], params: { userId: '9' } })[0].path, '/users/9')
  assert.equal(planScan({ found: [found({ path: '/users/:id' })], documents: [{ method: 'GET', path: '/users/:userId', from: 'openapi', query: '', params: { userId: '42' } }], params: { id: '8' } })[0].path, '/users/8')
})

test('a concrete path joins the pattern it fits best: the most literal segments', () => {
  const plan = planScan({
    found: [found({ path: '/users/:id' }), found({ path: '/users/me' }), found({ path: '/files/*' })],
    documents: [
      { method: 'GET', path: '/users/me', from: 'har', query: '' },
      { method: 'GET', path: '/users/ada', from: 'har', query: 'x=1' },
      { method: 'GET', path: '/files/a/b.txt', from: 'har', query: '' }
    ]
  })
  assert.deepEqual(plan.map((r) => [r.key, r.path, r.from.join(',')]), [
    ['GET /users/:id', '/users/ada?x=1', 'express,har'],
    ['GET /users/me', '/users/me', 'express,har'],
    ['GET /files/*', '/files/a/b.txt', 'express,har']
  ])
  // a catch-all takes the first concrete path it fits; the next ones are routes of their own
  const catchAll = planScan({
    found: [found({ path: '/*' })],
    documents: [{ method: 'GET', path: '/a', from: 'har', query: '' }, { method: 'GET', path: '/b', from: 'har', query: '' }]
  })
  assert.deepEqual(brief(catchAll), ['GET /* -> /a', 'GET /b -> /b'])
})

test('GET and HEAD are sent; writes only with --allow-writes and a body; DELETE only when named; other methods only when named', (t) => {
  const routes = [
    found({ method: 'HEAD', path: '/h' }),
    found({ method: 'POST', path: '/users' }),
    found({ method: 'PUT', path: '/users/:id' }),
    found({ method: 'PATCH', path: '/users/:id' }),
    found({ method: 'DELETE', path: '/users/:id' }),
    found({ method: 'OPTIONS', path: '/users' })
  ]
  const documents = /** @type {import('../lib/types.js').DocumentRoute[]} */ ([{ method: 'POST', path: '/users', from: 'har', query: '', body: { contentType: 'application/json', text: '{"a":1}' } }])
  assert.deepEqual(brief(planScan({ found: routes, documents, params: { id: '1' } })), [
    'HEAD /h -> /h',
    'POST /users -> skipped: a write (POST) (--allow-writes)',
    'PUT /users/:id -> skipped: a write (PUT) (--allow-writes)',
    'PATCH /users/:id -> skipped: a write (PATCH) (--allow-writes)',
    'DELETE /users/:id -> skipped: DELETE runs only when named by --request (--request "DELETE /users/:id" --allow-writes)',
    'OPTIONS /users -> skipped: OPTIONS is sent only when named by --request (--request "OPTIONS /users")'
  ])
  const allowed = planScan({ found: routes, documents, params: { id: '1' }, allowWrites: true })
  assert.deepEqual(brief(allowed), [
    'HEAD /h -> /h',
    'POST /users -> /users',
    'PUT /users/:id -> skipped: a write with no body (--request "PUT /users/:id" -p FILE)',
    'PATCH /users/:id -> skipped: a write with no body (--request "PATCH /users/:id" -p FILE)',
    'DELETE /users/:id -> skipped: DELETE runs only when named by --request (--request "DELETE /users/:id")',
    'OPTIONS /users -> skipped: OPTIONS is sent only when named by --request (--request "OPTIONS /users")'
  ])
  assert.deepEqual(allowed[1].body, { contentType: 'application/json', text: '{"a":1}' })
})

test('named routes win: their own body and headers, DELETE and OPTIONS sent when named, routes nobody found added last', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-plan-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const body = path.join(dir, 'user.json')
  await writeFile(body, '{"name":"Grace"}')
  const routes = named([
    '--request', 'PUT /users/7', '-p', body, '-T', 'application/json', '-H', 'X-Trace: 1',
    '--request', 'DELETE /users/:id',
    '--request', 'OPTIONS /users',
    '--path', '/not/found'
  ])
  const discovered = [found({ method: 'DELETE', path: '/users/:id' }), found({ method: 'PUT', path: '/users/:id' }), found({ method: 'GET', path: '/users' })]
  const documents = /** @type {import('../lib/types.js').DocumentRoute[]} */ ([{ method: 'GET', path: '/docs-only', from: 'openapi', query: '' }])
  const without = planScan({ found: discovered, documents, named: routes, params: { id: '3' } })
  assert.deepEqual(brief(without), [
    'DELETE /users/:id -> skipped: a write (DELETE) (--allow-writes)',
    'PUT /users/:id -> skipped: a write (PUT) (--allow-writes)',
    'GET /users -> /users',
    'GET /docs-only -> /docs-only',
    'OPTIONS /users -> /users',
    'GET /not/found -> /not/found'
  ])
  const plan = planScan({ found: discovered, documents, named: routes, params: { id: '3' }, allowWrites: true })
  assert.deepEqual(brief(plan).slice(0, 2), ['DELETE /users/:id -> /users/3', 'PUT /users/:id -> /users/7'])
  assert.deepEqual(plan[1].from, ['express', 'request'])
  assert.deepEqual(plan[1].body, { contentType: 'application/json', text: '{"name":"Grace"}' })
  assert.deepEqual(plan[1].headers, ['X-Trace: 1'])
  assert.deepEqual(plan.at(-1)?.from, ['request'])
  // a named write with no body of its own is still a write with no body
  assert.deepEqual(brief(planScan({ named: named(['--request', 'POST /login']), allowWrites: true })), ['POST /login -> skipped: a write with no body (--request "POST /login" -p FILE)'])
})

test('an example of a path\'s parameter serves every method of that path; two named routes of one pattern are planned apart', async (t) => {
  const { routes } = await readOpenapi(fixture('openapi-31.yaml'))
  // PATCH /items/{id} has no example of its own: GET /items/{id}'s is the same resource's
  assert.deepEqual(brief(planScan({ documents: routes, allowWrites: true })), [
    'GET /items -> /items?page=1&tag=red&tag=blue',
    'GET /items/:id -> /items/a%20b',
    'PATCH /items/:id -> /items/a%20b'
  ])
  const plan = planScan({
    found: [found({ path: '/users/:id', file: '/app/u.js', line: 2 })],
    named: named(['--request', 'one=GET /users/1', '--request', 'two=GET /users/2', '--request', 'GET /users/3'])
  })
  assert.deepEqual(plan.map((r) => [r.key, r.pattern, r.path, r.from.join(','), r.declared?.line]), [
    ['GET /users/:id', '/users/:id', '/users/1', 'express,request', 2],
    ['two', '/users/:id', '/users/2', 'express,request', 2],
    ['GET /users/3', '/users/:id', '/users/3', 'express,request', 2]
  ])
})

test('app.all is planned as GET, merged with a GET of the same path; wildcards skipped unless a concrete path is given; optional parameters left out', () => {
  const plan = planScan({
    found: [
      found({ method: 'ALL', path: '/ping' }),
      found({ method: 'GET', path: '/ping', file: '/app/a.js', line: 3 }),
      found({ path: '/files/*' }),
      found({ path: '/assets/*splat' }),
      found({ path: '/koa/:rest*' }),
      found({ path: '/koa-plus/:rest+' }),
      found({ path: '/old/(.*)' }),
      found({ path: '/posts/:id?' }),
      found({ path: '/docs{/:page}' }),
      found({ path: '/file{.:ext}' })
    ],
    named: named(['--path', '/assets/logo.svg'])
  })
  assert.deepEqual(brief(plan), [
    'GET /ping -> /ping',
    'GET /files/* -> skipped: a wildcard path (--request "GET /files/...")',
    'GET /assets/*splat -> /assets/logo.svg',
    'GET /koa/:rest* -> skipped: a wildcard path (--request "GET /koa/...")',
    'GET /koa-plus/:rest+ -> skipped: a wildcard path (--request "GET /koa-plus/...")',
    'GET /old/(.*) -> skipped: a wildcard path (--request "GET /old/...")',
    'GET /posts/:id? -> /posts',
    'GET /docs{/:page} -> /docs',
    'GET /file{.:ext} -> /file'
  ])
  assert.deepEqual(plan[0].from, ['express'])
  assert.deepEqual(plan[0].declared, { file: '/app/a.js', line: 3 })
})

test('pattern segments: each kind either side of its rule', () => {
  assert.deepEqual(patternSegments('/a/:id/:id?/{id}/{id?}/*/:p*/{p*}/x'), [
    { kind: 'literal', text: '' }, { kind: 'literal', text: 'a' }, { kind: 'param', name: 'id' }, { kind: 'optional', name: 'id' },
    { kind: 'param', name: 'id' }, { kind: 'optional', name: 'id' }, { kind: 'wildcard' }, { kind: 'wildcard' }, { kind: 'wildcard' },
    { kind: 'literal', text: 'x' }
  ])
  // a colon inside a segment is text; the same for an opening brace without a closing one
  assert.deepEqual(patternSegments('/a:b/{c'), [{ kind: 'literal', text: '' }, { kind: 'literal', text: 'a:b' }, { kind: 'literal', text: '{c' }])
})

test('the plan\'s lines: the key, then what is sent or why not; no credential printed; 100 columns', () => {
  const plan = planScan({
    found: [found({ path: '/users/:id' }), found({ method: 'POST', path: '/users' })],
    documents: [{ method: 'GET', path: '/users/:id', from: 'har', query: 'token=abc123secret&limit=10', params: { id: '42' }, headers: ['Cookie: sid=s3cr3t', 'Accept: */*'] }]
  })
  assert.deepEqual(planText(plan), [
    'The plan: 2 routes, 1 to send one at a time, 1 skipped.',
    '  GET /users/:id  GET /users/42?token=***&limit=10, headers Cookie, Accept',
    '  POST /users     skipped: a write (POST) (--allow-writes)'
  ])
  assert.deepEqual(planText(planScan({ found: [found({ path: '/x' })], documents: [{ method: 'GET', path: '/x', from: 'har', query: '', body: { contentType: 'text/plain', text: 'é' } }] })).slice(1), [
    '  GET /x  GET /x, a 2-byte text/plain body'
  ])
  assert.deepEqual(planText([]), ['The plan: 0 routes, 0 to send one at a time, 0 skipped.'])
})

test('the plan\'s lines fit 100 columns: a key of 32 characters whole, of 33 cut in its middle; long reasons wrap under themselves', () => {
  const key32 = `/${'a'.repeat(27)}` // "GET " + 28 = 32
  const key33 = `/${'b'.repeat(28)}`
  const long = `/${'c'.repeat(150)}`
  const plan = planScan({ found: [found({ path: key32 }), found({ path: key33 }), found({ path: long }), found({ method: 'PATCH', path: `/${'d'.repeat(60)}/:id` })], allowWrites: true })
  const lines = planText(plan)
  for (const line of lines) assert.ok(line.length <= 100, `${line.length}: ${line}`)
  assert.equal(lines[1], `  GET ${key32}  GET ${key32}`)
  assert.equal(lines[2], `  GET /${'b'.repeat(11)}…${'b'.repeat(15)}  GET ${key33}`)
  assert.match(lines[3], /^ {2}GET \/c+…c+ {2}GET \/c+…c+$/)
  // a flag too long for the column beside the key has a line of its own, whole
  assert.deepEqual(lines.slice(4), [
    '  PATCH /ddddddddd…ddddddddddd/:id  skipped: a write with no body',
    `    (--request "PATCH /${'d'.repeat(60)}/:id" -p FILE)`
  ])
  // the edge: a flag of 62 characters (the column's 64 less the wrapped line's two) stays in the column, 63 do not
  /** @param {number} n */
  const patch = (n) => planText(planScan({ found: [found({ method: 'PATCH', path: `/${'e'.repeat(n)}` })], allowWrites: true })).slice(1)
  assert.deepEqual(patch(33), [
    '  PATCH /eeeeeeeee…eeeeeeeeeeeeeee  skipped: a write with no body',
    `                                      (--request "PATCH /${'e'.repeat(33)}" -p FILE)`
  ])
  assert.deepEqual(patch(34), [
    '  PATCH /eeeeeeeee…eeeeeeeeeeeeeee  skipped: a write with no body',
    `    (--request "PATCH /${'e'.repeat(34)}" -p FILE)`
  ])
  // at a narrower width, the same rules
  for (const line of planText(plan, { width: 60 })) assert.ok(line.length <= 60, `${line.length}: ${line}`)
})

test('the documents\' routes through the plan: OpenAPI and HAR merged with discovery, the HAR\'s other origin not planned', async () => {
  const openapi = await readOpenapi(fixture('openapi-30.json'))
  const har = await readHar(fixture('app.har'))
  const plan = planScan({
    found: [found({ path: '/api/v1/users/:id', file: '/app/routes.js', line: 4 }), found({ method: 'POST', path: '/api/v1/users' })],
    documents: [...openapi.routes, ...har.routes],
    params: { postId: '5' },
    allowWrites: true
  })
  assert.deepEqual(brief(plan), [
    'GET /api/v1/users/:id -> /api/v1/users/42',
    'POST /api/v1/users -> /api/v1/users',
    'GET /api/v1/users -> /api/v1/users?limit=10',
    'DELETE /api/v1/users/:userId -> skipped: DELETE runs only when named by --request (--request "DELETE /api/v1/users/:userId")',
    'GET /api/v1/users/:userId/posts/:postId -> /api/v1/users/7/posts/5',
    'GET /api/v1/health -> /api/v1/health',
    'GET /users/:id -> /users/42?limit=10',
    'GET /orders/:id/items/:id2 -> /orders/3f2a6c1e-9a8d-4e3f-8b1c-0d9e8f7a6b5c/items/5f2b6c1e9a8d4e3f2b1c0d9e',
    'POST /users -> /users',
    'GET /tags/cafe/:id/abcdef012345678 -> /tags/cafe/abcdef0123456789/abcdef012345678'
  ])
  assert.deepEqual(plan[1].from, ['express', 'openapi'])
  assert.ok(plan.every((r) => !r.path?.includes('cdn.example.com')))
  // what the plan prints of the HAR's credentials: the names only
  const text = planText(plan).join('\n')
  assert.doesNotMatch(text, /s3cr3t|abcdefghijklmnop/)
  assert.match(text, /headers Accept, Accept-Encoding, Cookie/)
})
