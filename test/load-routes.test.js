// A mix of routes in one run (LoadOptions.routes, lib/load/routes.js): connections shared out by
// weight, each route's own request bytes and counts, the totals unchanged, merged exactly across
// worker threads and shards, and refused in one line when malformed; a route's own figures over runs
// (lib/analysis/routes-summary.js).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { assignRoutes, RouteCounts } from '../lib/load/routes.js'
import { summarizeRoutes, routeRuns } from '../lib/analysis/routes-summary.js'
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
    // 2xx answers other than 200 are good answers; 404 is not
    if (req.url === '/empty') {
      res.writeHead(204)
      res.end()
      return
    }
    const status = req.url === '/missing' ? 404 : req.url === '/created' ? 201 : 200
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
  // largest remainders, not rounding nor the first routes: 9 at 5:3:2 are 4.5, 2.7 and 1.8, so 4, 2 and 1,
  // then one each to the remainders .8 and .7 (rounding gives 5, 3, 2: 10 connections; the first routes, 5, 3, 1)
  assert.deepEqual(assignRoutes(9, [5, 3, 2]), [0, 0, 0, 0, 1, 1, 1, 2, 2])
  // 7 at 1:1:1:2 are 1.4 each and 2.8: the .8, then the tie of .4 to the earliest (rounding: 6 connections)
  assert.deepEqual(assignRoutes(7, [1, 1, 1, 2]), [0, 0, 1, 2, 3, 3, 3])
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

test('2xx answers other than 200 (201, 204) are good in a route\'s counts; 199 and 300 are not', async () => {
  const r = await loadtest({ url: server.url, requests: 60, concurrency: 3, keepAlive: true, routes: [{ path: '/created', method: 'POST' }, { path: '/empty' }, { path: '/missing' }] })
  assert.equal(r.completeRequests, 60)
  assert.equal(r.failedRequests, 0)
  const [created, empty, missing] = /** @type {import('../lib/types.js').RouteResult[]} */ (r.routes)
  assert.deepEqual(created.statusCodes, { 201: created.completeRequests })
  assert.deepEqual(empty.statusCodes, { 204: empty.completeRequests })
  assert.ok(created.completeRequests > 0 && empty.completeRequests > 0)
  assert.equal(created.non2xxResponses, 0)
  assert.equal(empty.non2xxResponses, 0)
  assert.equal(missing.non2xxResponses, missing.completeRequests)
  assert.equal(r.non2xxResponses, missing.completeRequests)
  // either side of 2xx
  const counts = new RouteCounts({ name: 'x', method: 'GET', path: '/x', weight: 1 })
  for (const status of [199, 200, 201, 204, 299, 300, -1]) counts.record(1, status)
  assert.deepEqual([counts.done, counts.non2xx, counts.failed], [7, 2, 1])
  assert.deepEqual(counts.statusCodes, { 199: 1, 200: 1, 201: 1, 204: 1, 299: 1, 300: 1 })
})

test('a mix over worker threads: each route\'s statuses and non-2xx added up over the threads', async () => {
  const routes = [{ path: '/missing' }, { path: '/created' }]
  const w = await loadtest({ url: server.url, requests: 200, concurrency: 4, keepAlive: true, workers: 2, routes })
  const [missing, created] = /** @type {import('../lib/types.js').RouteResult[]} */ (w.routes)
  assert.equal(w.completeRequests, 200)
  assert.equal(missing.completeRequests + created.completeRequests, 200)
  // both threads carried both routes (a connection of each route in each): the sums are over both
  assert.deepEqual([missing.connections, created.connections], [2, 2])
  assert.equal(missing.non2xxResponses, missing.completeRequests)
  assert.deepEqual(missing.statusCodes, { 404: missing.completeRequests })
  assert.deepEqual(created.statusCodes, { 201: created.completeRequests })
  assert.equal(created.non2xxResponses, 0)
  assert.equal(w.non2xxResponses, missing.completeRequests)
  // merging two threads' counts of one route (RouteCounts.add), field by field
  const a = new RouteCounts({ name: 'x', method: 'GET', path: '/x', weight: 1 })
  const b = new RouteCounts({ name: 'x', method: 'GET', path: '/x', weight: 1 })
  a.connections = 1
  b.connections = 2
  for (const s of [200, 404, 404]) a.record(2, s)
  for (const s of [404, 500, -1]) b.record(8, s)
  a.add(b)
  assert.deepEqual([a.connections, a.done, a.failed, a.non2xx], [3, 6, 1, 4])
  assert.deepEqual(a.statusCodes, { 200: 1, 404: 3, 500: 1 })
})

test('a route\'s req/s is its own requests over the run\'s time, not the run\'s', async () => {
  const routes = [{ path: '/health', weight: 3 }, { path: '/login' }]
  const runs = []
  for (const repeat of [1, 2]) {
    const load = json(await loadtest({ url: server.url, requests: 80, concurrency: 4, keepAlive: true, routes }))
    runs.push({ id: `mix#${repeat}`, load })
  }
  const summary = /** @type {import('../lib/analysis/routes-summary.js').RouteSummary[]} */ (summarizeRoutes(/** @type {any} */ (runs)))
  for (const [i, route] of summary.entries()) {
    const own = runs.map((r) => r.load.routes[i].completeRequests / r.load.timeTakenSeconds)
    assert.ok(Math.abs(route.requestsPerSecond - (own[0] + own[1]) / 2) < 1e-9, `${route.name}: ${route.requestsPerSecond}`)
    assert.equal(route.requests, runs[0].load.routes[i].completeRequests + runs[1].load.routes[i].completeRequests)
  }
  // the routes share the run's rate: each below it, together the run's
  const run = (runs[0].load.requestsPerSecond + runs[1].load.requestsPerSecond) / 2
  assert.ok(summary.every((r) => r.requestsPerSecond < run))
  assert.ok(Math.abs(summary[0].requestsPerSecond + summary[1].requestsPerSecond - run) < run * 0.01)
})

test('a route\'s counts over runs: its statuses, non-2xx and failures added up; no mix, no routes', async () => {
  const routes = [{ path: '/health', weight: 3 }, { path: '/missing' }]
  const runs = []
  for (const repeat of [1, 2]) {
    const load = json(await loadtest({ url: server.url, requests: 40, concurrency: 4, keepAlive: true, routes }))
    // failures as a run with a flaky route would count them (2, then 3), so that a sum differs from each
    load.routes[1].failedRequests = repeat + 1
    runs.push({ id: `mix#${repeat}`, load })
  }
  const [health, missing] = /** @type {import('../lib/analysis/routes-summary.js').RouteSummary[]} */ (summarizeRoutes(/** @type {any} */ (runs)))
  const both = runs[0].load.routes[1].completeRequests + runs[1].load.routes[1].completeRequests
  assert.deepEqual(missing.statusCodes, { 404: both })
  assert.equal(missing.non2xx, both)
  assert.equal(missing.failed, 5)
  assert.deepEqual([health.non2xx, health.failed], [0, 0])
  assert.deepEqual(health.statusCodes, { 200: runs[0].load.routes[0].completeRequests + runs[1].load.routes[0].completeRequests })
  // a run that took no time has no rate, not an infinite one
  const instant = structuredClone(runs[0])
  instant.load.timeTakenSeconds = 0
  assert.deepEqual(routeRuns(/** @type {any} */ ([instant]), 'GET /health').map((r) => r.load.requestsPerSecond), [0])
  assert.equal(summarizeRoutes(/** @type {any} */ ([{ id: 'plain', load: { ...runs[0].load, routes: [] } }])), null)
})

test('a malformed mix is refused in one line naming the option', async () => {
  const bad = /** @type {[unknown, RegExp][]} */ ([
    [[], /^routes must name at least one route, got "none"$/],
    [[{ method: 'GET' }], /^routes must be a route whose path starts with one \/ and has no white space, got "object"$/],
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
