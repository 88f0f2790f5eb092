// syncbench scan's documents: routes from OpenAPI 3.0 / 3.1 (JSON, YAML, $refs) and from a browser's
// HAR export, and the one line a document that cannot be used is refused with (file, line, reason).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import http from 'node:http'
import { once } from 'node:events'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { readOpenapi } from '../lib/scan/openapi.js'
import { readHar, routePattern } from '../lib/scan/har.js'
import { errorCodes, USAGE_CODES } from '../lib/errors.js'

const fixture = (/** @type {string} */ name) => fileURLToPath(new URL(`fixtures/scan/${name}`, import.meta.url))

/**
 * A file of the given text in a temporary folder, removed after the test.
 * @param {import('node:test').TestContext} t
 * @param {string} name
 * @param {string} text
 */
async function tempFile (t, name, text) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-scan-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, name)
  await writeFile(file, text)
  return file
}

/**
 * The message of the usage error `promise` rejects with.
 * @param {Promise<unknown>} promise
 */
async function refusal (promise) {
  const err = await promise.then(() => assert.fail('the document was accepted'), (e) => e)
  assert.equal(err.code, errorCodes.INVALID_OPTION)
  assert.ok(USAGE_CODES.has(err.code), 'a usage error: exit 2')
  assert.doesNotMatch(err.message, /\n/)
  return err.message
}

test('OpenAPI 3.0 JSON: every operation, the first server\'s path before each, path and required query parameters from examples, the JSON body', async () => {
  const file = fixture('openapi-30.json')
  const { routes, notes } = await readOpenapi(file)
  assert.deepEqual(routes, [
    // the optional "sort" is left out although it has an example; the required "limit" is sent
    { method: 'GET', path: '/api/v1/users', from: 'openapi', query: 'limit=10' },
    { method: 'POST', path: '/api/v1/users', from: 'openapi', query: '', body: { contentType: 'application/json', text: '{"name":"Ada","email":"ada@example.com"}' } },
    // the path item's parameter applies to both of its operations
    { method: 'GET', path: '/api/v1/users/:userId', from: 'openapi', query: '', params: { userId: '42' } },
    { method: 'DELETE', path: '/api/v1/users/:userId', from: 'openapi', query: '', params: { userId: '42' } },
    // a schema's default is an example; postId has none, so none is made up
    { method: 'GET', path: '/api/v1/users/:userId/posts/:postId', from: 'openapi', query: '', params: { userId: '7' } },
    { method: 'GET', path: '/api/v1/health', from: 'openapi', query: '' }
  ])
  assert.deepEqual(notes, [`${file}: every path under /api/v1, the path of its first server`])
})

test('OpenAPI 3.1 YAML: the first of `examples`, the first enum value, an array query parameter repeated, a text body from a schema\'s examples', async () => {
  const { routes, notes } = await readOpenapi(fixture('openapi-31.yaml'))
  assert.deepEqual(routes, [
    { method: 'GET', path: '/items', from: 'openapi', query: 'page=1&tag=red&tag=blue' },
    { method: 'GET', path: '/items/:id', from: 'openapi', query: '', params: { id: 'a b' } },
    { method: 'PATCH', path: '/items/:id', from: 'openapi', query: '', body: { contentType: 'text/plain', text: 'renamed' } }
  ])
  assert.deepEqual(notes, [])
})

test('OpenAPI $refs are followed: a parameter, a request body and its schema, a form body; a server variable takes its default', async () => {
  const { routes } = await readOpenapi(fixture('openapi-refs.yaml'))
  assert.deepEqual(routes, [
    { method: 'GET', path: '/shop/customers/:customerId', from: 'openapi', query: '', params: { customerId: 'c-17' } },
    { method: 'PUT', path: '/shop/customers/:customerId', from: 'openapi', query: '', params: { customerId: 'c-17' }, body: { contentType: 'application/json', text: '{"name":"Grace"}' } },
    { method: 'POST', path: '/shop/signup', from: 'openapi', query: '', body: { contentType: 'application/x-www-form-urlencoded', text: 'user=grace&plan=free' } }
  ])
})

test('a circular schema is read; a $ref to a URL is not fetched: the document is read alone', async (t) => {
  let requests = 0
  const server = http.createServer((req, res) => { requests++; res.end('Id: {name: id, in: path, required: true, example: 9}') })
  t.after(() => server.close())
  await once(server.listen(0, '127.0.0.1'), 'listening')
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  const file = await tempFile(t, 'circular.yaml', [
    'openapi: 3.0.3', 'info: {title: t, version: "1"}', 'paths:',
    '  /tree:', '    post:', '      requestBody:', '        content:', '          application/json:',
    '            schema: {$ref: "#/components/schemas/Node"}', '            example: {name: root, children: []}',
    '      responses: {"200": {description: ok}}',
    '  /remote/{id}:', '    get:', '      parameters:', `        - $ref: "http://127.0.0.1:${port}/params.yaml#/Id"`,
    '      responses: {"200": {description: ok}}',
    'components:', '  schemas:', '    Node:', '      type: object', '      properties:',
    '        children: {type: array, items: {$ref: "#/components/schemas/Node"}}', ''
  ].join('\n'))
  const { routes } = await readOpenapi(file)
  assert.deepEqual(routes, [
    { method: 'POST', path: '/tree', from: 'openapi', query: '', body: { contentType: 'application/json', text: '{"name":"root","children":[]}' } },
    { method: 'GET', path: '/remote/:id', from: 'openapi', query: '' }
  ])
  assert.equal(requests, 0)
})

test('the server prefix: a path, a root, a host alone, no server', async (t) => {
  /** @param {unknown} servers */
  const doc = (servers) => JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, ...(servers === undefined ? {} : { servers }), paths: { '/a': { get: { responses: { 200: { description: 'ok' } } } } } })
  const cases = [
    [[{ url: 'https://api.example.com/v2' }], '/v2/a'],
    [[{ url: '/v2/' }, { url: '/v3' }], '/v2/a'],
    [[{ url: '/' }], '/a'],
    [[{ url: 'https://api.example.com' }], '/a'],
    [undefined, '/a']
  ]
  for (const [servers, expected] of cases) {
    const { routes } = await readOpenapi(await tempFile(t, 'api.json', doc(servers)))
    assert.equal(routes[0].path, expected, JSON.stringify(servers))
  }
})

test('a required query parameter without an example: the route is kept, sent without it, and a note says so', async (t) => {
  const file = await tempFile(t, 'q.yaml', [
    'openapi: 3.0.3', 'info: {title: t, version: "1"}', 'paths:', '  /search:', '    get:', '      parameters:',
    '        - {name: q, in: query, required: true, schema: {type: string}}',
    '        - {name: page, in: query, required: true, schema: {type: integer, default: 1}}',
    '        - {name: lang, in: query, required: true, schema: {type: string}}',
    '        - {name: debug, in: query, required: false, schema: {type: boolean}}',
    '      responses: {"200": {description: ok}}', ''
  ].join('\n'))
  const { routes, notes } = await readOpenapi(file)
  assert.deepEqual(routes, [{ method: 'GET', path: '/search', from: 'openapi', query: 'page=1' }])
  assert.deepEqual(notes, [`${file}: GET /search is sent without its required query parameters q, lang: no example`])
})

test('a document that cannot be used is one line: file, line, reason', async (t) => {
  const cases = [
    // YAML: the yaml package's first error and its line
    ['broken.yaml', '8: not YAML: Flow map in block collection must be sufficiently indented and end with a }'],
    // JSON without a position in V8's message: the line found by the shortest failing start
    ['broken.json', "5: not JSON: Unexpected token '}'"],
    // JSON with a position: its line
    ['broken-comma.json', "4: not JSON: Expected ',' or '}' after property value"],
    // valid YAML, not valid OpenAPI: the schema's first error with its JSON pointer, at its line
    ['invalid-openapi.yaml', '17: not a valid OpenAPI 3.0 document: at /paths/~1users/got: must NOT have additional properties'],
    // a $ref to nowhere: the line of the $ref
    ['invalid-ref.yaml', '9: not a valid OpenAPI 3.1 document: Missing $ref pointer "#/components/parameters/Id". Token "components" does not exist.'],
    // the parser's own rule naming an operation: the operation's line
    ['invalid-path-param.json', '7: not a valid OpenAPI 3.0 document: `/paths/users/get` has a path parameter named `id`, but there is no corresponding `{id}` in the path string.'],
    ['swagger.json', '2: Swagger 2.0: scan reads OpenAPI 3.0 and 3.1 only (convert it to OpenAPI 3 first)']
  ]
  for (const [name, expected] of cases) {
    const file = fixture(name)
    assert.equal(await refusal(readOpenapi(file)), `--openapi ${file}:${expected}`)
  }
  const missing = fixture('no-such.yaml')
  assert.equal(await refusal(readOpenapi(missing)), `--openapi ${missing}: no such file`)
  const list = await tempFile(t, 'list.yaml', '- a\n- b\n')
  assert.equal(await refusal(readOpenapi(list)), `--openapi ${list}:1: not an OpenAPI document: it holds no object`)
  const none = await tempFile(t, 'none.yaml', 'info:\n  title: x\n')
  assert.equal(await refusal(readOpenapi(none)), `--openapi ${none}:1: not an OpenAPI document: no "openapi" field`)
  // the versions either side of the ones read: 2.x and 3.2
  for (const version of ['2.0.0', '3.2.0']) {
    const file = await tempFile(t, 'v.yaml', `info:\n  title: x\n  version: "1"\nopenapi: ${version}\npaths: {}\n`)
    assert.equal(await refusal(readOpenapi(file)), `--openapi ${file}:4: OpenAPI ${version}: scan reads OpenAPI 3.0 and 3.1 only`)
  }
})

test('a YAML document whose aliases expand past the limit is refused, not expanded', async (t) => {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
  for (let i = 0; i < 8; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill('*' + String.fromCharCode(97 + i)).join(', ')}]`)
  const file = await tempFile(t, 'laughs.yaml', lines.join('\n') + '\n')
  assert.match(await refusal(readOpenapi(file)), new RegExp(`^--openapi ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not YAML: .*alias`, 'i'))
})

test('a JSON error\'s line at the edges: the first character, the last line, the end of the text', async (t) => {
  const cases = [
    ['}', "1: not JSON: Unexpected token '}'"],
    ['{\n"a":\n}', "3: not JSON: Unexpected token '}'"],
    ['{\n"a": 1\n', "3: not JSON: Expected ',' or '}' after property value"],
    ['{\n"a": "x', '2: not JSON: Unterminated string'],
    ['{"a": 1}\n\nx', '3: not JSON: Unexpected non-whitespace character after JSON']
  ]
  for (const [text, expected] of cases) {
    const file = await tempFile(t, 'doc.json', text)
    assert.equal(await refusal(readOpenapi(file)), `--openapi ${file}:${expected}`, JSON.stringify(text))
  }
  // a file named otherwise is read as JSON when it starts as JSON does, and as YAML when not
  const sniffed = await tempFile(t, 'doc.txt', '\n [1,')
  assert.equal(await refusal(readOpenapi(sniffed)), `--openapi ${sniffed}:2: not JSON: Unexpected end of JSON input`)
})

test('HAR: requests grouped by route, the first one\'s values kept, connection headers dropped, other origins noted', async () => {
  const file = fixture('app.har')
  const { routes, notes } = await readHar(file)
  assert.deepEqual(routes, [
    // /users/42 and /users/43 are one route: the first request's id, query and headers
    {
      method: 'GET',
      path: '/users/:id',
      from: 'har',
      query: 'limit=10',
      params: { id: '42' },
      // Host and Connection dropped; the cookie kept as the browser sent it
      headers: ['Accept: application/json', 'Accept-Encoding: gzip, deflate, br', 'Cookie: sid=s3cr3t-session-value']
    },
    // a UUID and a 24-digit hex id: :id then :id2
    {
      method: 'GET',
      path: '/orders/:id/items/:id2',
      from: 'har',
      query: '',
      params: { id: '3f2a6c1e-9a8d-4e3f-8b1c-0d9e8f7a6b5c', id2: '5f2b6c1e9a8d4e3f2b1c0d9e' },
      headers: ['Accept: application/json']
    },
    // the body's own type replaces the Content-Type line; Content-Length is the generator's to write
    { method: 'POST', path: '/users', from: 'har', query: '', headers: ['Authorization: Bearer abcdefghijklmnop'], body: { contentType: 'application/json', text: '{"name":"Ada"}' } },
    // "cafe" is a word; 16 hex digits are an id, 15 are not
    { method: 'GET', path: '/tags/cafe/:id/abcdef012345678', from: 'har', query: '', params: { id: 'abcdef0123456789' } }
  ])
  // the data: URL is no request to anyone; the CDN is named
  assert.deepEqual(notes, [`${file}: left out 1 request to https://cdn.example.com (the app's origin is taken as http://localhost:3000, where most went)`])
})

test('HAR route patterns: which segments become parameters, either side of each rule', () => {
  assert.deepEqual(routePattern('/v1/users/0'), { pattern: '/v1/users/:id', params: { id: '0' } })
  assert.deepEqual(routePattern('/a/ABCDEF0123456789'), { pattern: '/a/:id', params: { id: 'ABCDEF0123456789' } })
  assert.deepEqual(routePattern('/a/ABCDEF012345678'), { pattern: '/a/ABCDEF012345678', params: {} })
  assert.deepEqual(routePattern('/a/abcdef012345678g'), { pattern: '/a/abcdef012345678g', params: {} })
  // a UUID's groups are 8-4-4-4-12: one digit short is a word
  assert.deepEqual(routePattern('/a/3f2a6c1e-9a8d-4e3f-8b1c-0d9e8f7a6b5'), { pattern: '/a/3f2a6c1e-9a8d-4e3f-8b1c-0d9e8f7a6b5', params: {} })
  assert.deepEqual(routePattern('/a/12.5/x1'), { pattern: '/a/12.5/x1', params: {} })
  assert.deepEqual(routePattern('/a/1/b/2/c/3'), { pattern: '/a/:id/b/:id2/c/:id3', params: { id: '1', id2: '2', id3: '3' } })
  assert.deepEqual(routePattern('/'), { pattern: '/', params: {} })
})

test('HAR: the most requested origin is the app\'s, a tie goes to the first one met; pseudo-headers and form params', async (t) => {
  /** @param {string} method @param {string} url @param {object} [extra] */
  const entry = (method, url, extra = {}) => ({ request: { method, url, headers: [], ...extra } })
  const har = (/** @type {object[]} */ entries) => JSON.stringify({ log: { version: '1.2', entries } })
  const tie = await tempFile(t, 'tie.har', har([entry('GET', 'http://b.test/x'), entry('GET', 'http://a.test/y')]))
  const tied = await readHar(tie)
  assert.deepEqual(tied.routes.map((r) => r.path), ['/x'])
  assert.deepEqual(tied.notes, [`${tie}: left out 1 request to http://a.test (the app's origin is taken as http://b.test, where most went)`])
  const more = await tempFile(t, 'more.har', har([entry('GET', 'http://b.test/x'), entry('GET', 'http://a.test/y'), entry('get', 'http://a.test/z')]))
  const most = await readHar(more)
  assert.deepEqual(most.routes.map((r) => `${r.method} ${r.path}`), ['GET /y', 'GET /z'])
  const form = await tempFile(t, 'form.har', har([entry('POST', 'https://a.test/login', {
    headers: [{ name: ':method', value: 'POST' }, { name: 'content-type', value: 'application/x-www-form-urlencoded' }, { name: 'X-Split', value: 'a\r\nb' }, { name: 'te', value: 'trailers' }],
    postData: { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'user', value: 'ada' }, { name: 'pass', value: 'p w' }] }
  })]))
  assert.deepEqual((await readHar(form)).routes, [{ method: 'POST', path: '/login', from: 'har', query: '', body: { contentType: 'application/x-www-form-urlencoded', text: 'user=ada&pass=p+w' } }])
})

test('HAR files that cannot be used: one line each', async (t) => {
  const notHar = await tempFile(t, 'x.har', '{\n  "log": {\n    "version": "1.2"\n  }\n}\n')
  assert.equal(await refusal(readHar(notHar)), `--har ${notHar}:2: not a HAR file: no log.entries list`)
  const badEntry = await tempFile(t, 'y.har', '{"log": {"entries": [\n{"request": {"method": "GET", "url": "http://a.test/"}},\n{"response": {}}\n]}}')
  assert.equal(await refusal(readHar(badEntry)), `--har ${badEntry}:3: not a HAR file: entry 1 has no request with a method and a url`)
  const badUrl = await tempFile(t, 'z.har', '{"log": {"entries": [\n{"request": {"method": "GET",\n"url": "/relative"}}\n]}}')
  assert.equal(await refusal(readHar(badUrl)), `--har ${badUrl}:3: entry 0's url "/relative" is not a URL`)
  const broken = await tempFile(t, 'b.har', '{"log": {"entries": [\n{"request": }\n]}}')
  assert.equal(await refusal(readHar(broken)), `--har ${broken}:2: not JSON: Unexpected token '}'`)
  // a HAR file is JSON whatever it looks like
  const yamlish = await tempFile(t, 'c.har', 'log:\n  entries: []\n')
  assert.equal(await refusal(readHar(yamlish)), `--har ${yamlish}:1: not JSON: Unexpected token 'l'`)
})
