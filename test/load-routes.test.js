// A mix of routes in one run (LoadOptions.routes, lib/load/routes.js): connections shared out by
// weight, each route's own request bytes and counts, the totals unchanged, merged exactly across
// worker threads and shards, and refused in one line when malformed.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { assignRoutes } from '../lib/load/routes.js'
import { loadtest } from '../lib/load/loadtest.js'
import { mergeLoadResults } from '../lib/load/merge-results.js'
import { loadResultProblem } from '../lib/run/results-schema.js'
import { startHttpServer } from './helper.js'

/** @type {{ method: string, url: string, body: string, type: string|undefined, token: string|undefined }[]} */
const seen = []
const server = await startHttpServer((req, res) => {
  let body = ''
  req.setEncoding('latin1')
  req.on('data', (d) => { body += d })
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', body, type: req.headers['content-type'], token: req.headers.authorization })
    const status = req.url === '/missing' ? 404 : 200
    const text = req.url === '/health' ? 'up' : 'answer'
    res.writeHead(status, { 'Content-Length': Buffer.byteLength(text) })
    res.end(text)
  })
})
after(() => server.close())

const json = (/** @type {unknown} */ x) => JSON.parse(JSON.stringify(x))

test('connections are shared out by weight, each route at least one, in order', () => {
  assert.deepEqual(assignRoutes(10, [1, 9]), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1])
  assert.deepEqual(assignRoutes(2, [1, 9]), [0, 1])
  assert.deepEqual(assignRoutes(3, [1, 1, 1]), [0, 1, 2])
  // 10 connections at 1:9:1 are 0.91, 8.18 and 0.91: 0, 8 and 0, then the largest remainders
  assert.deepEqual(assignRoutes(10, [1, 9, 1]), [0, 1, 1, 1, 1, 1, 1, 1, 1, 2])
  // a route whose share rounds to nothing still gets one, from the route with the most
  assert.deepEqual(assignRoutes(4, [1, 100]), [0, 1, 1, 1])
  for (const [c, weights] of /** @type {[number, number[]][]} */ ([[5, [1, 2]], [17, [0.5, 3, 1]], [4, [1, 1, 1, 1]], [100, [1, 99]]])) {
    const assigned = assignRoutes(c, weights)
    assert.equal(assigned.length, c)
    for (let i = 0; i < weights.length; i++) assert.ok(assigned.includes(i), `${c} ${weights}: route ${i} has no connection`)
  }
})

test('a mix: each route its own method, body, headers and counts; the totals are the run\'s', async () => {
  seen.length = 0
  const r = await loadtest({
    url: server.url,
    requests: 120,
    concurrency: 6,
    keepAlive: true,
    headers: ['Authorization: Bearer t0ken'],
    body: Buffer.from('{"user":"a"}'),
    contentType: 'application/json',
    routes: [
      { path: '/login', method: 'POST', weight: 1 },
      { path: '/health', weight: 4 },
      { path: '/missing', name: 'gone', headers: ['X-Route: gone'] }
    ]
  })
  assert.equal(r.completeRequests, 120)
  assert.equal(r.failedRequests, 0, 'the routes\' documents differ in length: no Length failures in a mix')
  const routes = /** @type {import('../lib/types.js').RouteResult[]} */ (r.routes)
  assert.deepEqual(routes.map((x) => [x.name, x.method, x.path, x.connections]), [['POST /login', 'POST', '/login', 1], ['GET /health', 'GET', '/health', 4], ['gone', 'GET', '/missing', 1]])
  assert.equal(routes.reduce((n, x) => n + x.completeRequests, 0), 120)
  assert.equal(routes[2].non2xxResponses, routes[2].completeRequests)
  assert.deepEqual(routes[2].statusCodes, { 404: routes[2].completeRequests })
  assert.equal(r.non2xxResponses, routes[2].completeRequests)
  for (const x of routes) {
    assert.ok(x.completeRequests > 0, x.name)
    assert.ok(x.latency.p50 > 0 && x.latency.max >= x.latency.p50, x.name)
    assert.equal(typeof x.latencyHistogram, 'string')
  }
  // the body only with the POST route; the run's headers on every route, a route's own on its own
  const posts = seen.filter((s) => s.url === '/login')
  assert.ok(posts.length > 0 && posts.every((s) => s.method === 'POST' && s.body === '{"user":"a"}' && s.type === 'application/json'))
  assert.ok(seen.filter((s) => s.url !== '/login').every((s) => s.method === 'GET' && s.body === ''))
  assert.ok(seen.every((s) => s.token === 'Bearer t0ken'))
  assert.equal(loadResultProblem(json(r)), null)
  // what the result records: each route, its body as a byte count
  assert.deepEqual(r.options.routes, [{ path: '/login', method: 'POST', weight: 1 }, { path: '/health', weight: 4 }, { path: '/missing', name: 'gone', headers: ['X-Route: gone'] }])
})

test('a mix over worker threads and over shards adds up each route exactly', async () => {
  const routes = [{ path: '/login', method: 'PUT', body: Buffer.from('pw'), weight: 1 }, { path: '/health', weight: 1 }]
  const w = await loadtest({ url: server.url, requests: 200, concurrency: 4, keepAlive: true, workers: 2, routes })
  const rs = /** @type {import('../lib/types.js').RouteResult[]} */ (w.routes)
  assert.equal(w.completeRequests, 200)
  assert.deepEqual(rs.map((x) => x.connections), [2, 2])
  assert.equal(rs[0].completeRequests + rs[1].completeRequests, 200)
  const a = json(await loadtest({ url: server.url, requests: 100, concurrency: 4, routes, segment: { index: 0, count: 2 } }))
  const b = json(await loadtest({ url: server.url, requests: 100, concurrency: 4, routes, segment: { index: 1, count: 2 } }))
  const m = mergeLoadResults([a, b])
  const mr = /** @type {import('../lib/types.js').RouteResult[]} */ (m.routes)
  assert.equal(m.completeRequests, 100)
  for (const i of [0, 1]) {
    assert.equal(mr[i].completeRequests, a.routes[i].completeRequests + b.routes[i].completeRequests)
    assert.equal(mr[i].latency.max, Math.max(a.routes[i].latency.max, b.routes[i].latency.max))
  }
  assert.equal(loadResultProblem(json(m)), null)
  // parts of different mixes measured different things
  const other = json(await loadtest({ url: server.url, requests: 50, concurrency: 4, routes: [{ path: '/health' }, { path: '/login' }], segment: { index: 1, count: 2 } }))
  assert.throws(() => mergeLoadResults([a, other]), /differs from result 1 in routes/)
})

test('a malformed mix is refused in one line naming the option', async () => {
  const bad = /** @type {[unknown, RegExp][]} */ ([
    [[], /^routes must name at least one route, got "none"$/],
    [[{ method: 'GET' }], /^routes must be a route whose path starts with \/ and has no white space, got "object"$/],
    [[{ path: '/a', verb: 'GET' }], /"verb" is not one of path, method/],
    [[{ path: '/a', weight: 0 }], /weight is a positive number/],
    [[{ path: '/a' }, { path: '/a' }], /^routes must name each route once \(give one a name\), got "GET \/a"$/],
    [[{ path: '/a' }, { path: '/b' }, { path: '/c' }], /^-c \(concurrency\) must give each of the 3 routes a connection \(at least 3\), got "2"$/],
    ['/a', /must be a non-empty array of routes/]
  ])
  for (const [routes, message] of bad) {
    await assert.rejects(loadtest({ url: server.url, requests: 4, concurrency: 2, routes: /** @type {any} */ (routes) }), (err) => {
      assert.equal(/** @type {any} */ (err).code, 'SB_ERR_INVALID_OPTION')
      assert.match(/** @type {Error} */ (err).message, message)
      return true
    })
  }
  await assert.rejects(loadtest({ url: server.url, requests: 8, concurrency: 4, workers: 2, routes: [{ path: '/a' }, { path: '/b' }, { path: '/c' }] }), /must give each of the 3 routes a connection in each of --workers \(workers\) 2 workers \(at least 6\)/)
})
