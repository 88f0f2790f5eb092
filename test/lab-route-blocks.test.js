// lib/lab/route-blocks.js on a clock the test sets: a route is charged the part of a blocking span its
// requests were in progress for, once however many were; a request that began and ended in a moment is
// charged nothing; one whose socket closed first is dropped; distinct routes are bounded. Then on a real
// node:http server in this process: Node's diagnostics_channel delivers the requests to it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { once } from 'node:events'
import { createRouteBlocks, followRoutes, routeLabel, OTHER_ROUTES } from '../lib/lab/route-blocks.js'

function clocked () {
  let t = 0
  const routes = createRouteBlocks({ now: () => t, maxRoutes: 3 })
  return { routes, at: (/** @type {number} */ ms) => { t = ms } }
}

test('a route label is the method and the path, without the query string', () => {
  assert.equal(routeLabel({ method: 'POST', url: '/login?next=/home' }), 'POST /login')
  assert.equal(routeLabel({ method: 'GET', url: '/' }), 'GET /')
  assert.equal(routeLabel({ method: 'GET', url: '/' + 'a'.repeat(300) }).length, 123)
})

test('the handler that held the loop is charged its block; a request served in a moment is not', () => {
  const { routes, at } = clocked()
  const spin = {}
  const cheap = {}
  at(100); routes.started({ method: 'GET', url: '/cheap' }, cheap)
  at(100.2); routes.finished(cheap)
  at(100.3); routes.started({ method: 'POST', url: '/login' }, spin)
  at(160); routes.finished(spin)
  // the ticker ran at 95, then not until 161: the span [95, 161]
  at(161); routes.tick({ from: 95, to: 161 })
  assert.deepEqual(routes.snapshot(), [{ route: 'POST /login', ms: 59.7, blocks: 1 }], 'the cheap request lasted 0.2 ms: under the 1 ms kept')
  // A tick without a block forgets the finished requests: a later span cannot cover them.
  const late = {}
  at(170); routes.started({ method: 'GET', url: '/report' }, late)
  at(175); routes.finished(late)
  routes.tick()
  at(200); routes.tick({ from: 176, to: 200 })
  assert.deepEqual(routes.snapshot().map((r) => r.route), ['POST /login'])
})

test('requests of one route in progress together are counted once; a waiting request of another route is counted too', () => {
  const { routes, at } = clocked()
  const a = {}
  const b = {}
  const waiting = {}
  at(0); routes.started({ method: 'GET', url: '/slow' }, waiting)
  at(10); routes.started({ method: 'GET', url: '/hash' }, a)
  at(40); routes.finished(a)
  at(40); routes.started({ method: 'GET', url: '/hash' }, b)
  at(70); routes.finished(b)
  at(71); routes.tick({ from: 5, to: 71 })
  // /hash: 10..70 once (60 ms), /slow: in progress over the whole span (66 ms, it waited through it)
  assert.deepEqual(routes.snapshot(), [{ route: 'GET /slow', ms: 66, blocks: 1 }, { route: 'GET /hash', ms: 60, blocks: 1 }])
  // A block still in progress at the read counts; reset starts a new window and keeps what is in progress.
  at(100); assert.deepEqual(routes.snapshot({ from: 80, to: 100 })[0], { route: 'GET /slow', ms: 86, blocks: 2 })
  routes.reset()
  assert.deepEqual(routes.snapshot(), [])
  at(130); routes.tick({ from: 110, to: 130 })
  assert.deepEqual(routes.snapshot(), [{ route: 'GET /slow', ms: 20, blocks: 1 }])
})

test('two separate requests of one route inside one span: the sum of their parts, not the stretch from the first to the last; one block', () => {
  const { routes, at } = clocked()
  const first = {}
  const second = {}
  const third = {}
  at(10); routes.started({ method: 'POST', url: '/login' }, first)
  at(20); routes.finished(first)
  at(50); routes.started({ method: 'POST', url: '/login' }, second)
  at(60); routes.finished(second)
  // a third overlapping the second: its 5 ms past the second counted, its overlap not again
  at(55); routes.started({ method: 'POST', url: '/login' }, third)
  at(65); routes.finished(third)
  at(71); routes.tick({ from: 5, to: 71 })
  // 10..20 and 50..65: 25 ms (the stretch 10..65 would be 55; the three requests summed, 30)
  assert.deepEqual(routes.snapshot(), [{ route: 'POST /login', ms: 25, blocks: 1 }])
  // a second span covering a request of the route: a second block
  const fourth = {}
  at(100); routes.started({ method: 'POST', url: '/login' }, fourth)
  at(130); routes.finished(fourth)
  at(131); routes.tick({ from: 120, to: 131 })
  assert.deepEqual(routes.snapshot(), [{ route: 'POST /login', ms: 35, blocks: 2 }])
})

test('a response whose socket closed before it finished is dropped; routes past the bound are one', () => {
  const { routes, at } = clocked()
  const gone = { destroyed: false }
  at(0); routes.started({ method: 'GET', url: '/stream' }, gone)
  gone.destroyed = true
  at(50); routes.tick({ from: 10, to: 50 })
  assert.deepEqual(routes.snapshot(), [])
  for (const [i, url] of ['/a', '/b', '/c', '/d', '/e'].entries()) {
    const res = {}
    at(100 + i); routes.started({ method: 'GET', url }, res)
  }
  at(200); routes.tick({ from: 150, to: 200 })
  // '/stream' was the first of the 3 distinct routes allowed, /a and /b the others
  assert.deepEqual(routes.snapshot().map((r) => r.route).sort(), ['GET /a', 'GET /b', OTHER_ROUTES])
})

test('diagnostics_channel delivers a real server\'s requests, start to finish, and no other server\'s', async () => {
  const routes = createRouteBlocks()
  const server = http.createServer((req, res) => {
    if (req.url === '/block') {
      const end = Date.now() + 30
      while (Date.now() < end);
    }
    res.end('ok')
  })
  const other = http.createServer((req, res) => res.end('other'))
  const stop = followRoutes(server, routes)
  assert.equal(routes.followed, true)
  server.listen(0, '127.0.0.1')
  other.listen(0, '127.0.0.1')
  await Promise.all([once(server, 'listening'), once(other, 'listening')])
  try {
    const get = (/** @type {http.Server} */ s, /** @type {string} */ url) => new Promise((resolve, reject) => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address())
      http.get({ host: '127.0.0.1', port, path: url, agent: false }, (res) => res.resume().on('end', resolve)).on('error', reject)
    })
    await get(server, '/block?x=1')
    await get(other, '/elsewhere')
    // The test plays the ticker: a block over the whole exchange.
    routes.tick({ from: 0, to: performance.now() })
    const [charged, ...rest] = routes.snapshot()
    assert.equal(charged.route, 'GET /block')
    assert.ok(charged.ms >= 1, `the 30 ms handler was in progress: ${charged.ms} ms`)
    assert.deepEqual(rest, [], 'the other server\'s request is not followed')
  } finally {
    stop()
    for (const s of [server, other]) {
      s.close()
      s.closeAllConnections()
    }
  }
})
