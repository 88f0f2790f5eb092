// syncbench run --app's request options per route: -H, -A, -C, -p, -u, -T, -m given before any
// --request / --path go with every route, given after one with that route alone. The rule on parsed
// command lines (parseRunArgs, appExperiment, the configurations the runner gets), then end to end: the
// real CLI loads a real node:http app (test/fixtures/apps/record-app.js) that writes which
// Authorization, Cookie and body each route received, under --mix and one run per route.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli, tempCacheDir } from './helper.js'
import { parseRunArgs } from '../lib/cli/run.js'
import { InvalidOptionError } from '../lib/errors.js'
import { appExperiment } from '../lib/run/experiment-loader.js'
import { expandExperiment } from '../lib/run/plan.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const LOGIN_BODY = path.join(root, 'examples', 'login.json')
const APP = 'node test/fixtures/apps/record-app.js'
let dir = ''
tempCacheDir('syncbench-route-options-', (d) => { dir = d })

/** ab's Authorization value of -A credentials. @param {string} credentials */
const basic = (credentials) => `Basic ${Buffer.from(credentials, 'latin1').toString('base64')}`

/**
 * The routes and shared options of `run --app ... args`, as the CLI parses them.
 * @param {string[]} args
 */
function parsed (args) {
  const o = parseRunArgs(['--app', APP, ...args])
  return { routes: o.routes, shared: o.shared, options: o }
}

/**
 * The configurations the runner gets for `run --app ... args`: one per route, or one mix.
 * @param {string[]} args
 */
function configurations (args) {
  const { options } = parsed(args)
  return expandExperiment(appExperiment({ apps: options.apps, routes: options.routes, mix: options.mix, shared: options.shared, cwd: root }))
}

test('a request flag before any route goes with every route; after a route, with that route alone', () => {
  const { routes, shared } = parsed(['-H', 'X-Shared: 1', '--request', 'POST /login', '-H', 'X-Login: 2', '--path', '/health'])
  assert.deepEqual(shared, { headers: ['X-Shared: 1'] })
  assert.deepEqual(routes, [{ method: 'POST', path: '/login', headers: ['X-Login: 2'] }, { method: 'GET', path: '/health' }])
  // the same flags in another order: the place decides, not the flag
  const moved = parsed(['--request', 'POST /login', '--path', '/health', '-H', 'X-Shared: 1', '-H', 'X-Login: 2'])
  assert.deepEqual(moved.shared, {})
  assert.deepEqual(moved.routes, [{ method: 'POST', path: '/login' }, { method: 'GET', path: '/health', headers: ['X-Shared: 1', 'X-Login: 2'] }])
  // everything before the routes: shared, as before routes had options of their own
  const before = parsed(['-H', 'X-A: 1', '-C', 'sid=1', '-A', 'u:p', '--request', 'POST /login', '--path', '/health'])
  assert.deepEqual(before.shared, { headers: ['X-A: 1'], cookies: ['sid=1'], auth: 'u:p' })
  assert.deepEqual(before.routes, [{ method: 'POST', path: '/login' }, { method: 'GET', path: '/health' }])
})

test('two routes with their own -A: each its own Authorization, a third route none', () => {
  const { routes, shared } = parsed(['--request', 'login=POST /login', '-A', 'alice:s3cret', '--request', 'GET /admin', '-A', ' root:r00t', '--path', '/-/ping'])
  assert.deepEqual(shared, {})
  // ab skips the credentials' leading blanks
  assert.deepEqual(routes.map((r) => r.headers), [[`Authorization: ${basic('alice:s3cret')}`], [`Authorization: ${basic('root:r00t')}`], undefined])
  // a shared -A stays with the routes that give none of their own, as their header
  const mixed = parsed(['-A', 'all:x', '--request', 'POST /login', '-A', 'alice:s3cret', '--path', '/-/ping'])
  assert.deepEqual(mixed.shared, {})
  assert.deepEqual(mixed.routes.map((r) => r.headers), [[`Authorization: ${basic('alice:s3cret')}`], [`Authorization: ${basic('all:x')}`]])
  // the same route twice, told apart by labels
  assert.deepEqual(parsed(['--request', 'alice=GET /me', '-A', 'alice:a', '--request', 'bob=GET /me', '-A', 'bob:b', '--mix']).routes.map((r) => [r.name, r.headers]),
    [['alice', [`Authorization: ${basic('alice:a')}`]], ['bob', [`Authorization: ${basic('bob:b')}`]]])
  // a route's -A equal to the shared one changes nothing
  assert.deepEqual(parsed(['-A', 'u:p', '--request', 'POST /login', '-A', 'u:p', '--path', '/b']).shared, { auth: 'u:p' })
})

test('a route\'s header replaces a shared one of the same name (any case); its cookies join the shared ones, replacing by name', () => {
  const headers = parsed(['-H', 'X-Token: shared', '-H', 'Accept: text/html', '--request', 'GET /a', '-H', 'x-token: own', '--path', '/b'])
  assert.deepEqual(headers.shared, { headers: ['Accept: text/html'] })
  assert.deepEqual(headers.routes.map((r) => r.headers), [['x-token: own'], ['X-Token: shared']])
  const cookies = parsed(['-C', 'sid=1', '-C', 'theme=dark', '--request', 'GET /a', '-C', 'sid=2', '--path', '/b'])
  assert.deepEqual(cookies.shared, {})
  assert.deepEqual(cookies.routes.map((r) => r.headers), [['Cookie: theme=dark; sid=2'], ['Cookie: sid=1; theme=dark']])
  // an Authorization header of a route's own replaces the shared -A; its -A, a shared Authorization header
  const bearer = parsed(['-A', 'u:p', '--request', 'GET /a', '-H', 'Authorization: Bearer t0k', '--path', '/b'])
  assert.deepEqual(bearer.routes.map((r) => r.headers), [['Authorization: Bearer t0k'], [`Authorization: ${basic('u:p')}`]])
  const basicOwn = parsed(['-H', 'Authorization: Bearer t0k', '--request', 'GET /a', '-A', 'u:p', '--path', '/b'])
  assert.deepEqual(basicOwn.routes.map((r) => r.headers), [[`Authorization: ${basic('u:p')}`], ['Authorization: Bearer t0k']])
  // a Cookie header of its own replaces the shared cookies
  const cookieHeader = parsed(['-C', 'sid=1', '--request', 'GET /a', '-H', 'Cookie: a=b', '--path', '/b'])
  assert.deepEqual(cookieHeader.routes.map((r) => r.headers), [['Cookie: a=b'], ['Cookie: sid=1']])
})

test('a route\'s -p / -u: its body, POST / PUT for a --path route as in ab, the --request\'s own method kept', async () => {
  const body = await readFile(LOGIN_BODY)
  const { routes, shared } = parsed(['--path', '/a', '-p', LOGIN_BODY, '--path', '/b', '-u', LOGIN_BODY, '-T', 'application/json', '--request', 'PUT /c', '-p', LOGIN_BODY, '--path', '/d'])
  assert.deepEqual(shared, {})
  assert.deepEqual(routes.map((r) => [r.method, r.path, r.body?.equals(body), r.contentType]),
    [['POST', '/a', true, 'text/plain'], ['PUT', '/b', true, 'application/json'], ['PUT', '/c', true, 'text/plain'], ['GET', '/d', undefined, undefined]])
  // a shared -T types the routes' own bodies too; a route's -T alone retypes the shared body it carries
  const typed = parsed(['-T', 'application/json', '-p', LOGIN_BODY, '--request', 'POST /a', '--request', 'POST /b', '-T', 'text/x-b', '--request', 'PUT /c', '-u', LOGIN_BODY])
  assert.deepEqual(typed.routes.map((r) => [r.method, r.body?.equals(body), r.contentType]), [['POST', undefined, undefined], ['POST', true, 'text/x-b'], ['PUT', true, 'application/json']])
  assert.equal(typed.shared.contentType, 'application/json')
  // a --path route's own -m
  assert.deepEqual(parsed(['--path', '/x', '-m', 'DELETE', '--path', '/y']).routes, [{ method: 'DELETE', path: '/x' }, { method: 'GET', path: '/y' }])
})

// Each refusal names the route it is about
for (const [args, message] of [
  [['--request', 'GET /health', '-p', LOGIN_BODY], `-p ${LOGIN_BODY}: a body goes with a POST, PUT or PATCH route, and GET /health is not one (--request "POST /login")`],
  [['--request', 'POST /login', '--request', 'health=GET /health', '-u', LOGIN_BODY], `-u ${LOGIN_BODY}: a body goes with a POST, PUT or PATCH route, and health (GET /health) is not one (--request "POST /login")`],
  [['--request', 'POST /login', '-m', 'PUT'], '-m cannot follow --request "POST /login", which names its method (-m before any route sets the --path routes\'), got "PUT"'],
  [['--path', '/a', '-p', LOGIN_BODY, '-u', LOGIN_BODY], '-u cannot be combined with -p: one method (POST already chosen for GET /a)'],
  [['--request', 'GET /a', '-T', 'application/json'], '-T application/json: a content type goes with a body, and GET /a sends none (-p after the route gives it one)'],
  [['-p', LOGIN_BODY, '--request', 'POST /a', '-p', LOGIN_BODY], `-p ${LOGIN_BODY}: given before any route, it goes with the POST, PUT and PATCH routes without a body of their own, and there is none`],
  // one route twice, with other credentials: a label each tells them apart
  [['--request', 'GET /me', '-A', 'alice:a', '--request', 'GET /me', '-A', 'bob:b'], '--request names GET /me a second time: give each its own label (--request "NAME=GET /me"), got "GET /me"'],
  [['--path', '/me', '-A', 'alice:a', '--path', '/me', '-A', 'bob:b', '--mix'], '--path names GET /me a second time: give each its own label (--path "NAME=/me"), got "/me"']
]) {
  test(`a route's request flag is refused with the route named: ${args.join(' ')}`, () => {
    assert.throws(() => parsed(args), (err) => {
      assert.ok(err instanceof InvalidOptionError, String(err))
      assert.equal(err.message, message)
      return true
    })
  })
}

test('the runner gets each route\'s own options: in a mix, on its route; one run per route, in its run\'s load', async () => {
  const body = await readFile(LOGIN_BODY)
  const args = ['-H', 'X-Shared: s', '--request', 'login=POST /login', '-A', 'alice:s3cret', '-p', LOGIN_BODY, '-T', 'application/json', '-C', 'sid=1', '--path', '/-/ping']
  const [mix] = configurations([...args, '--mix'])
  assert.deepEqual(mix.load.headers, ['X-Shared: s'])
  assert.deepEqual([mix.load.auth, mix.load.cookies, mix.load.body], [undefined, undefined, undefined])
  const [login, ping] = mix.load.routes
  assert.deepEqual({ ...login, body: login.body?.equals(body) },
    { path: '/login', method: 'POST', name: 'login', headers: ['Cookie: sid=1', `Authorization: ${basic('alice:s3cret')}`], contentType: 'application/json', body: true })
  assert.deepEqual(ping, { path: '/-/ping', method: 'GET' })
  const [one, two] = configurations(args)
  assert.deepEqual([one.label, one.load.method, one.load.headers, one.load.body?.equals(body), one.load.contentType],
    ['login', 'POST', ['X-Shared: s', 'Cookie: sid=1', `Authorization: ${basic('alice:s3cret')}`], true, 'application/json'])
  assert.deepEqual([two.label, two.load.method, two.load.headers, two.load.body, two.load.contentType, two.load.auth], ['/-/ping', 'GET', ['X-Shared: s'], undefined, undefined, undefined])
  // two apps (before/after): each app's runs of each route with that route's own options
  const { options } = parsed(['--app', 'other=node other.js', ...args])
  const runs = expandExperiment(appExperiment({ apps: options.apps, routes: options.routes, shared: options.shared, cwd: root }))
  assert.deepEqual(runs.map((c) => [c.label, c.load.body?.equals(body) ?? false, c.load.headers.length]),
    [['record-app login', true, 3], ['record-app /-/ping', false, 1], ['other login', true, 3], ['other /-/ping', false, 1]])
})

/**
 * The requests the record app wrote, by path, warm-up and measured alike.
 * @param {string} file
 * @returns {Promise<Map<string, any[]>>}
 */
async function recorded (file) {
  const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
  /** @type {Map<string, any[]>} */
  const byPath = new Map()
  for (const r of lines) byPath.set(r.path, [...byPath.get(r.path) ?? [], r])
  return byPath
}

/**
 * Every request of `list` received the same things, `expected`.
 * @param {any[]|undefined} list
 * @param {Record<string, unknown>} expected
 */
function allGot (list, expected) {
  assert.ok(list !== undefined && list.length > 0, 'the route was requested')
  const seen = new Set(list.map((r) => JSON.stringify(Object.fromEntries(Object.keys(expected).map((k) => [k, r[k]])))))
  assert.deepEqual([...seen].map((s) => JSON.parse(s)), [expected])
}

for (const mix of [true, false]) {
  test(`end to end${mix ? ' under --mix' : ', one run per route'}: the login got -A, -C and the body, the ping none of them; both the shared header`, async () => {
    const out = path.join(dir, mix ? 'mix' : 'each')
    const file = path.join(dir, mix ? 'mix.jsonl' : 'each.jsonl')
    const bodyFile = path.join(dir, 'login-body.json')
    await writeFile(bodyFile, '{"user":"alice"}')
    const { code, stderr } = await runCli(['run', '--app', APP, '--env', `RECORD_FILE=${file}`, '-H', 'X-Shared: s',
      '--request', 'login=POST /login', '-A', 'alice:s3cret', '-C', 'sid=1', '-p', bodyFile, '-T', 'application/json',
      '--request', 'GET /admin', '-A', 'root:r00t',
      '--path', '/-/ping', ...(mix ? ['--mix'] : []), '-n', '12', '-c', '3', '--no-report', '--out', out], { cwd: root, timeoutMs: 60_000 })
    assert.equal(code, 0, stderr)
    const byPath = await recorded(file)
    assert.deepEqual([...byPath.keys()].sort(), ['/-/ping', '/admin', '/login'])
    allGot(byPath.get('/login'), { method: 'POST', authorization: basic('alice:s3cret'), cookie: 'sid=1', contentType: 'application/json', shared: 's', body: '{"user":"alice"}' })
    allGot(byPath.get('/admin'), { method: 'GET', authorization: basic('root:r00t'), cookie: null, contentType: null, shared: 's', body: '' })
    allGot(byPath.get('/-/ping'), { method: 'GET', authorization: null, cookie: null, contentType: null, shared: 's', body: '' })
    const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
    if (mix) {
      const [run] = results.runs
      assert.deepEqual([results.runs.length, run.label, run.invalid], [1, 'mix', null])
      assert.deepEqual(run.load.routes.map((r) => [r.name, r.statusCodes['200'] === r.completeRequests]), [['login', true], ['GET /admin', true], ['GET /-/ping', true]])
    } else {
      assert.deepEqual(results.runs.map((r) => [r.label, r.invalid, r.load.options.method]), [['login', null, 'POST'], ['/admin', null, 'GET'], ['/-/ping', null, 'GET']])
    }
  })
}

test('through the CLI: a body after a GET route is one line naming the route, exit 2', async () => {
  const { code, stdout, stderr } = await runCli(['run', '--app', APP, '--request', 'POST /login', '--request', 'GET /health', '-p', 'examples/login.json', '--out', path.join(dir, 'never')], { cwd: root })
  assert.equal(code, 2, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr, 'syncbench run: -p examples/login.json: a body goes with a POST, PUT or PATCH route, and GET /health is not one (--request "POST /login")\n')
})
