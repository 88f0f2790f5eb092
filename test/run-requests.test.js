// syncbench run --app with the app's real requests: methods, bodies and headers as syncbench ab takes
// them (-m -p -u -T -H -C -A), --request "METHOD /path", --mix of routes by weight, --probe-path, --cwd
// and --env for the app, the same in experiment files (request, mix). Real processes: the Express
// login app of examples/ (a bcrypt compare on the event loop, a bearer-token route), the real CLI.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { runCli, startHttpServer, tempCacheDir } from './helper.js'
import { parseRunArgs } from '../lib/cli/run.js'
import { ExperimentError, InvalidOptionError } from '../lib/errors.js'
import { parseAppRequests, parseRequestOption, parseEnvOption, pathProblem } from '../lib/run/app-requests.js'
import { routeProblem } from '../lib/load/routes.js'
import { loadtest } from '../lib/load/loadtest.js'
import { appExperiment, validateExperiment } from '../lib/run/experiment-loader.js'
import { expandExperiment } from '../lib/run/plan.js'
import { loadInvalidity } from '../lib/analysis/validity.js'
import { summarizeResults } from '../lib/report/model.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const examples = path.join(root, 'examples')
let dir
tempCacheDir('syncbench-requests-', (d) => { dir = d })

/** parseArgs-like tokens of options given as [name, rawName, value]. @param {[string, string, string][]} list */
const tokens = (list) => list.map(([name, rawName, value], index) => ({ kind: 'option', index, name, rawName, value }))
const LOGIN_BODY = path.join(examples, 'login.json')
// A cheap hash keeps the runs short; it still holds the loop for milliseconds per request.
const APP_ENV = ['--env', 'BCRYPT_ROUNDS=8', '--env', 'DEMO_TOKEN=t0k']

test('--path routes are GET unless -m; with -p and no --request they are POST as in ab; the body goes with POST, PUT, PATCH only', () => {
  const get = parseAppRequests(tokens([['path', '--path', '/a'], ['path', '--path', 'b=/b?x=1']]), { mix: false })
  assert.deepEqual(get.routes, [{ method: 'GET', path: '/a' }, { method: 'GET', path: '/b?x=1', name: 'b' }])
  const abLike = parseAppRequests(tokens([['body-file', '-p', LOGIN_BODY], ['path', '--path', '/a']]), { mix: false })
  assert.deepEqual(abLike.routes, [{ method: 'POST', path: '/a' }])
  assert.equal(abLike.shared.contentType, 'text/plain')
  assert.ok(Buffer.isBuffer(abLike.shared.body))
  // given before any route: every route's (after a route, its own: test/run-route-options.test.js)
  const mixed = parseAppRequests(tokens([['body-file', '-p', LOGIN_BODY], ['content-type', '-T', 'application/json'], ['header', '-H', 'X-A: 1'], ['cookie', '-C', 'sid=2'], ['auth', '-A', ' u:p'],
    ['request', '--request', 'login=POST /login'], ['weight', '--weight', '1'], ['path', '--path', '/health'], ['weight', '--weight', '9']]), { mix: true })
  assert.deepEqual(mixed.routes, [{ method: 'POST', path: '/login', name: 'login', weight: 1 }, { method: 'GET', path: '/health', weight: 9 }])
  assert.deepEqual({ ...mixed.shared, body: undefined }, { headers: ['X-A: 1'], cookies: ['sid=2'], auth: 'u:p', body: undefined, contentType: 'application/json' })
  assert.deepEqual(parseAppRequests(tokens([['method', '-m', 'DELETE'], ['path', '--path', '/x'], ['request', '--request', 'PUT /y']]), { mix: false }).routes,
    [{ method: 'DELETE', path: '/x' }, { method: 'PUT', path: '/y' }])
  assert.deepEqual(parseRequestOption('patch /items/1'), { method: 'PATCH', path: '/items/1' })

  // as an experiment: the run's body goes with the POST only, headers with every route
  const e = appExperiment({ apps: [{ name: 'app', command: 'node app.js' }], routes: mixed.routes, shared: mixed.shared, cwd: root })
  const [login, health] = expandExperiment(e)
  assert.deepEqual([login.label, login.load.method, login.path, Buffer.isBuffer(login.load.body), login.load.contentType], ['login', 'POST', '/login', true, 'application/json'])
  assert.deepEqual([health.label, health.load.method, health.path, health.load.body, health.load.contentType, health.load.headers], ['/health', 'GET', '/health', undefined, undefined, ['X-A: 1']])
  const [mix] = expandExperiment(appExperiment({ apps: [{ name: 'app', command: 'node app.js' }], routes: mixed.routes, mix: true, shared: mixed.shared, cwd: root }))
  assert.deepEqual(mix.load.routes, [{ path: '/login', method: 'POST', name: 'login', weight: 1 }, { path: '/health', method: 'GET', weight: 9 }])
  assert.equal(mix.label, 'mix')
})

test('an invalid mix run names each route\'s answers; a user\'s app\'s run names its status codes', () => {
  const routes = [
    { name: 'POST /login', statusCodes: { 401: 20 }, failedRequests: 0 },
    { name: 'GET /health', statusCodes: { 200: 80 }, failedRequests: 0 }
  ]
  const load = { failedRequests: 0, non2xxResponses: 20, completeRequests: 100, statusCodes: { 200: 80, 401: 20 } }
  assert.equal(loadInvalidity(/** @type {any} */ ({ ...load, routes })), '20 of 100 non-2xx: POST /login 401 x20')
  assert.equal(loadInvalidity(load, { statuses: true }), '20 of 100 non-2xx: 401 x20')
  assert.equal(loadInvalidity(load), '20 of 100 non-2xx')
})

test('experiment files: request and mix are checked by the schema and the loader', () => {
  const base = { name: 'x', server: { command: 'node app.js' } }
  const bad = (/** @type {any} */ variants) => assert.throws(() => validateExperiment({ ...base, variants }, 'file'), ExperimentError)
  bad([{ label: 'a', path: '/a', request: { path: '/a' } }])
  bad([{ label: 'a' }])
  bad([{ label: 'a', request: { path: 'a' } }])
  bad([{ label: 'a', request: { path: '/a', body: 'x', bodyFile: 'b.json' } }])
  bad([{ label: 'a', mix: [{ request: { path: '/a' } }] }])
  bad([{ label: 'a', mix: [{ request: { path: '/a' } }, { request: { path: '/a' } }] }])
  assert.throws(() => validateExperiment({ ...base, variants: [{ label: 'a', mix: [{ request: { path: '/a' } }, { request: { path: '/b' } }] }], load: { concurrency: 1, requests: 10 } }, 'file'),
    /file: configuration "a": -c|load\.concurrency must give each of the 2 routes a connection/)
  const ok = validateExperiment({ ...base, variants: [{ label: 'a', request: { method: 'POST', path: '/a', body: '{}', contentType: 'application/json', headers: ['X-B: 2'] } }], load: { headers: ['X-A: 1'] } }, 'file')
  assert.equal(ok.table, 'app')
  const [c] = expandExperiment(ok)
  assert.deepEqual([c.load.method, c.load.body.toString(), c.load.contentType, c.load.headers], ['POST', '{}', 'application/json', ['X-A: 1', 'X-B: 2']])
})

test('a request path is one "/" first and no white space, wherever a path is given: --path, an API route, an experiment file', async () => {
  for (const good of ['/', '/x', '/x//y', '/login?next=//home']) {
    assert.equal(pathProblem(good), null, good)
    assert.equal(routeProblem({ path: good }), null, good)
  }
  for (const bad of ['//', '//x', '//127.0.0.1:1/x', 'x', '', '/a b', '/a\tb']) {
    assert.match(String(pathProblem(bad)), /^must be a path such as \/report/, JSON.stringify(bad))
    assert.equal(routeProblem({ path: bad }), 'must be a route whose path starts with one / and has no white space', JSON.stringify(bad))
  }
  await assert.rejects(loadtest({ url: 'http://127.0.0.1:1/', requests: 2, concurrency: 2, routes: [{ path: '/a' }, { path: '//b' }] }),
    /routes must be a route whose path starts with one \/ and has no white space/)
  // an experiment file's variant path, request path and mix routes alike
  const base = { name: 'x', server: { command: 'node app.js' } }
  for (const variant of [{ label: 'a', path: '//x' }, { label: 'a', path: '/a b' }, { label: 'a', request: { path: '//x' } }, { label: 'a', mix: [{ request: { path: '/a' } }, { request: { path: '//b' } }] }]) {
    assert.throws(() => validateExperiment({ ...base, variants: [variant] }, 'file'), (err) => err instanceof ExperimentError && /path must match pattern/.test(err.message), JSON.stringify(variant))
  }
  assert.doesNotThrow(() => validateExperiment({ ...base, variants: [{ label: 'a', path: '/x//y?next=//z' }] }, 'file'))
})

test('syncbench ab keeps ab\'s rule: a URL whose path starts "//" is sent as given, as ab sends it', async () => {
  /** @type {string[]} */
  const seen = []
  const server = await startHttpServer((req, res) => { seen.push(String(req.url)); res.end('ok') })
  try {
    const r = await runCli(['ab', '-n', '2', `${server.url}/x`])
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(seen, ['//x', '//x'])
  } finally {
    await server.close()
  }
})

// Every refusal of a request flag, in-process (parseRunArgs is what the CLI calls first)
for (const [args, message] of [
  [['--request', 'POST login'], /^--request has a path that must be a path such as \/report.*got "POST login"$/],
  [['--path', '/a', '--weight', '2'], /^--weight applies to --mix only .*got "2"$/],
  [['-p', 'examples/login.json', '--request', 'GET /a'], /^-p examples\/login\.json: a body goes with a POST, PUT or PATCH route, and no route given is one/],
  [['-p', 'examples/login.json', '-u', 'examples/login.json'], /^-u cannot be combined with -p: one method \(POST already chosen\)$/],
  [['-H', 'no colon'], /^-H must be a header line "Name: value", got "no \*\*\*"$/],
  [['--env', 'PORT=1'], /^--env cannot set PORT: syncbench sets it for the app/],
  [['--cwd', 'no-such-dir'], /^--cwd must be a folder that exists, got "no-such-dir"$/],
  [['--probe-path', 'health'], /^--probe-path must be a path such as \/report/],
  [['--path', '//x'], /^--path must be a path such as \/report \(starting with one "\/", no spaces\), got "\/\/x"$/],
  [['--path', '//'], /^--path must be a path such as \/report/],
  [['--request', 'GET //x'], /^--request has a path that must be a path such as \/report.*got "GET \/\/x"$/],
  [['--probe-path', '//health'], /^--probe-path must be a path such as \/report/],
  [['--probe-path', '/health', '--no-probe'], /^--probe-path cannot go with --no-probe/]
]) {
  test(`bad request input is refused: ${args.join(' ')}`, () => {
    assert.throws(() => parseRunArgs(['--app', 'node examples/login-app.js', ...args]), (err) => {
      assert.ok(err instanceof InvalidOptionError, String(err))
      assert.match(err.message, message)
      return true
    })
  })
}

test('bad request input through the CLI: one line each, exit 2', async () => {
  const cases = [
    [['--app', 'node examples/login-app.js', '-p', 'no-such-body.json'], /^syncbench run: -p cannot read "no-such-body\.json": no such file \(ENOENT\)$/],
    [['--app', 'node examples/login-app.js', '-p', 'examples'], /^syncbench run: -p cannot read "examples": a folder, not a file \(EISDIR\)$/],
    [['--app', 'node examples/login-app.js', '--request', 'POST/login'], /^syncbench run: --request must be "METHOD \/path", as in --request "POST \/login".*got "POST\/login"$/],
    [['--app', 'node examples/login-app.js', '--weight', '2', '--path', '/a'], /^syncbench run: --weight must follow the route it weighs \(--path or --request\), got "2"$/],
    [['--app', 'node examples/login-app.js', '--path', '/a', '--mix'], /^syncbench run: --mix needs two routes or more .*got "GET \/a alone"$/],
    [['--app', 'node examples/login-app.js', '--path', '//x'], /^syncbench run: --path must be a path such as \/report \(starting with one "\/", no spaces\), got "\/\/x"$/],
    [['-H', 'X-A: 1'], /^syncbench run: -H applies to --app only, got "X-A: 1"$/],
    [['--app', 'node examples/login-app.js', '--request', 'POST /login', '--path', '/a', '--mix', '-c', '1'], /^syncbench run: -c must give each of the 2 routes a connection \(at least 2\), got "1"$/],
    [['--app', 'node examples/login-app.js', '--request', 'POST /login', '-p', 'examples/login.json', '--engine', 'ab'], /^syncbench run: --engine must be builtin to send app\/POST \/login's method, body, contentType \(the external engines send a GET of the URL only\), got "ab"$/]
  ]
  // at once: each is a CLI start and nothing else
  const outcomes = await Promise.all(cases.map(([args]) => runCli(['run', ...args, '--out', path.join(dir, 'never')], { cwd: root })))
  for (const [i, { code, stdout, stderr }] of outcomes.entries()) {
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '')
    assert.equal(stderr.trim().split('\n').length, 1, stderr)
    assert.match(stderr.trim(), cases[i][1])
  }
})

test('POST /login with the right body answers 2xx and the sync compare is named first; a bearer header reaches GET /me; --cwd, --env, --probe-path', async () => {
  const out = path.join(dir, 'login')
  // run from the examples folder: the command and the profile's locations are the app's own
  // bcrypt's default cost (about 55 ms a compare here), not the tests' cheap one: which route holds the
  // loop most is read from how late the loop was, and with 8 rounds (~14 ms) a machine whose cores are
  // both busy made the cheap GET /me's loop later (43% of its window) than the compare's (34%)
  const env = ['--env', 'BCRYPT_ROUNDS=10', '--env', 'DEMO_TOKEN=t0k']
  const { code, stdout, stderr } = await runCli(['run', '--app', 'node login-app.js', '--cwd', 'examples', ...env,
    '--request', 'POST /login', '-p', 'examples/login.json', '-T', 'application/json', '--request', 'GET /me', '-H', 'Authorization: Bearer t0k',
    '--probe-path', '/health', '-n', '30', '-c', '2', '--profile', '--no-report', '--out', out], { cwd: root, timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.deepEqual(results.runs.map((r) => r.label), ['POST /login', '/me'])
  for (const run of results.runs) {
    assert.equal(run.invalid, null, run.id)
    assert.equal(run.load.statusCodes['200'], 30, run.id)
    assert.equal(run.probe.path, '/health')
    assert.ok(run.probe.load.completeRequests > 0 && run.probe.load.non2xxResponses === 0, JSON.stringify(run.probe.load.statusCodes))
  }
  const [login, me] = results.runs
  assert.equal(login.load.options.method, 'POST')
  assert.equal(me.load.options.method, 'GET')
  assert.equal(me.load.options.body, undefined, 'the body goes with the POST only')
  // the compare holds the loop: bcrypt's compareSync, from the app's line that calls it, first
  const first = login.profile.self[0]
  assert.deepEqual([first.entry, first.caller?.name, first.caller?.line], [{ name: 'compareSync', package: 'bcrypt' }, 'checkPasswordSync', 19], JSON.stringify(login.profile.self.slice(0, 3)))
  // a verdict's part wraps at 100 columns, its continuation lines indented two spaces: joined back here
  assert.match(stdout.replace(/\n {2}(?=\S)/g, ' '), /^app: POST \/login holds the event loop most: loop p99 [\d.]+ m?s, late [\d.]+% of the window; first in where the event loop went: compareSync \(bcrypt\) from checkPasswordSync at login-app\.js:19, /m)
})

test('--mix of a blocking POST and a cheap GET: both routes\' rows, the GET waiting behind the POST\'s compare', async () => {
  const out = path.join(dir, 'mix')
  const { code, stdout, stderr } = await runCli(['run', '--app', 'node examples/login-app.js', ...APP_ENV,
    '--request', 'POST /login', '--weight', '1', '-p', 'examples/login.json', '-T', 'application/json', '--path', 'health=/health', '--weight', '3', '--mix',
    '-n', '60', '-c', '4', '--profile', '--no-report', '--out', out], { cwd: root, timeoutMs: 60_000 })
  assert.equal(code, 0, stderr)
  const results = JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.runs.length, 1)
  const [run] = results.runs
  assert.equal(run.label, 'mix')
  const [login, health] = run.load.routes
  assert.deepEqual([login.name, login.connections, login.non2xxResponses, health.name, health.connections, health.non2xxResponses], ['POST /login', 1, 0, 'health', 3, 0])
  assert.equal(login.completeRequests + health.completeRequests, 60)
  // a request to /health that arrives during a compare waits for it: the slowest one waited at least
  // half of a typical compare (alone, /health answers in about a millisecond)
  assert.ok(health.latency.max >= login.latency.p50 / 2, `health max ${health.latency.max} ms, login p50 ${login.latency.p50} ms`)
  assert.match(stdout, /each route of the mix, loaded together/)
  assert.match(stdout, /^mix +POST \/login +1 +1 +\d+ /m)
  assert.match(stdout, /^ +health +3 +3 +\d+ /m)
  // the mix as a whole, or, when the server charged the blocks to routes (diagnostics_channel), the route
  assert.match(stdout.replace(/\n {2}(?=\S)/g, ' '), /^app: (mix \(POST \/login, health\) held the event loop|in mix, POST \/login holds the event loop most \(in progress through [\d.]+ m?s of the blocking\)): loop p99 .*first in where the event loop went \(the profile covers all the routes of the mix\): /m)
  // where the server followed its requests by route through the blocks (LoopBlocks.routes), the verdict
  // names the route the loop was held by
  run.server.loopBlocks.routes = [{ route: 'POST /login', ms: 900, blocks: 9 }, { route: 'GET /health', ms: 40, blocks: 9 }]
  const [held] = summarizeResults(results)
  assert.match(held.verdict, /^app: in mix, POST \/login holds the event loop most \(in progress through 900 ms of the blocking\): loop p99 .*; beside it health (p99|max) [\d.]+ m?s \(POST \/login (p99|max) [\d.]+ m?s\)/)
  // compare: each route is a row of its own
  const compared = await runCli(['compare', path.join(out, 'results.json'), path.join(out, 'results.json')], { cwd: root })
  assert.equal(compared.code, 0, compared.stderr)
  assert.match(compared.stdout, /^app +mix health +[\d.]+ +[\d.]+ +\+0\.00%/m)
})

test('an experiment file: a body the app rejects makes its run invalid with the status codes (exit 1); a mix with a bodyFile and a header for every route', async () => {
  const out = path.join(dir, 'file')
  await mkdir(out, { recursive: true })
  const file = path.join(out, 'login.experiment.json')
  await writeFile(path.join(out, 'body.json'), await readFile(LOGIN_BODY))
  await writeFile(file, JSON.stringify({
    name: 'login',
    server: { command: 'node examples/login-app.js', env: { BCRYPT_ROUNDS: '8', DEMO_TOKEN: 't0k' } },
    load: { requests: 16, concurrency: 2, keepAlive: true, headers: ['Authorization: Bearer t0k'] },
    variants: [
      { label: 'wrong', request: { method: 'POST', path: '/login', body: JSON.stringify({ user: 'ada', password: 'wrong' }), contentType: 'application/json' } },
      { label: 'both', mix: [{ request: { method: 'POST', path: '/login-async', bodyFile: 'body.json', contentType: 'application/json' } }, { request: { path: '/me' }, name: 'me' }] }
    ]
  }))
  const { code, stdout, stderr } = await runCli(['run', '--experiment', file, '--no-report', '--out', path.join(out, 'results')], { cwd: root, timeoutMs: 60_000 })
  assert.equal(code, 1, stderr)
  assert.match(stdout, /^wrong +invalid: 16 of 16 non-2xx: 401 x16$/m)
  assert.match(stderr, /login\/wrong#1 \(16 of 16 non-2xx: 401 x16\)/)
  const results = JSON.parse(await readFile(path.join(out, 'results', 'results.json'), 'utf8'))
  assert.equal(results.experiments[0].table, 'app')
  const [wrong, both] = results.runs
  assert.deepEqual(wrong.invalid, { reason: '16 of 16 non-2xx: 401 x16' })
  assert.equal(both.invalid, null)
  // the header reached /me (it answers 401 without it), the body /login-async
  assert.deepEqual(both.load.routes.map((r) => [r.name, r.statusCodes['200']]), [['POST /login-async', both.load.routes[0].completeRequests], ['me', both.load.routes[1].completeRequests]])
})

test('--env values are NAME=value', () => {
  assert.deepEqual(parseEnvOption(['A=1', 'B_2=x=y', 'C=']), { A: '1', B_2: 'x=y', C: '' })
  assert.throws(() => parseEnvOption(['1A=x']), /--env must be NAME=value/)
})
