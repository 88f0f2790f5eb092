// `syncbench scan` end to end through the real CLI: bad command lines refused before anything starts,
// the plan of --dry-run (no request sent), writes refused without --allow-writes (the app records
// every request it gets), an app's faults (a route that crashes it, one that hangs, one that answers
// 404), no route found, an app that never listens, Ctrl-C mid-scan, --json, the budget's edge, and
// the examples' blocking routes ranked above their cheap ones. The apps are
// test/fixtures/apps/scan-cli/*.js and examples/shop-*.js; each app's command line carries a marker
// after its script, looked for in /proc once the scan has ended: no process of the app outlives it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { binPath, runCli } from './helper.js'
import { shareBudget, routeDeadlines, scanJson, MIN_LOAD_SECONDS, REPORT_SECONDS, RUN_OVERHEAD_SECONDS, PLANNED_SHARE } from '../lib/cli/scan-command.js'
import { fittedLoad } from '../lib/run/run-deadline.js'
import { validateResults } from '../lib/run/results-schema.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const fixtures = fileURLToPath(new URL('./fixtures/apps/scan-cli/', import.meta.url))
const writesApp = path.join(fixtures, 'writes-app.js')
const faultsApp = path.join(fixtures, 'faults-app.js')
const plainApp = path.join(fixtures, 'plain-app.js')
const slowWarmApp = path.join(fixtures, 'slow-warm-app.js')
const writesOpenapi = path.join(fixtures, 'writes-openapi.yaml')
/** How long a process of the app may outlive the scan (the runner ends its group within about 250 ms). */
const GONE_MS = 5000

let dir = ''
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-scan-cli-')) })
after(() => rm(dir, { recursive: true, force: true }))

let markers = 0
/** A word unique to this test's app, put after its script on its command line. */
const marker = () => `scan-cli-mark-${process.pid}-${++markers}`

/**
 * `syncbench scan ...args` from the repository's root, so the handlers' files are shown as
 * test/fixtures/... and examples/...
 * @param {string[]} args
 * @param {number} [timeoutMs]
 */
function scan (args, timeoutMs = 120_000) {
  return runCli(['scan', ...args], { cwd: root, timeoutMs })
}

/**
 * The live (not zombie) processes whose command line names `word`.
 * @param {string} word
 * @returns {number[]}
 */
function processesNaming (word) {
  const found = []
  for (const name of existsSync('/proc') ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(word)) continue
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name))
    } catch {
      // ended in between
    }
  }
  return found
}

/**
 * Asserts that no process naming `word` is left once the grace has passed (each found is killed).
 * @param {string} word
 */
async function assertNoOrphan (word) {
  const until = Date.now() + GONE_MS
  let left = processesNaming(word)
  while (left.length > 0 && Date.now() < until) {
    await delay(100)
    left = processesNaming(word)
  }
  for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
  assert.deepEqual(left, [], `processes of the app left behind: ${left.join(', ')}`)
}

/** The lines of the record file writes-app.js keeps ("METHOD /path"), none when it was never written. @param {string} file */
function recorded (file) {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}

/** @param {string} folder */
const readResults = async (folder) => JSON.parse(await readFile(path.join(folder, 'results.json'), 'utf8'))

test('bad command lines: one line naming the option or file, exit 2, no results folder, no app started', async () => {
  // the app, were it started, would leave this file
  const started = path.join(dir, 'started')
  const app = `node -e "require('fs').writeFileSync('${started}', '')"`
  const out = path.join(dir, 'usage-out')
  const cases = [
    [[], /^syncbench scan: an app is needed: --app "COMMAND"/],
    [['--app', app, '--app', app], /^syncbench scan: --app is given twice/],
    [['--app', app, 'extra'], /^syncbench scan: no argument expected, got "extra"/],
    [['--app', app, '--budget', '0'], /^syncbench scan: --budget must be .*got "0"/],
    [['--app', app, '--budget', 'soon'], /^syncbench scan: --budget must be .*got "soon"/],
    [['--app', app, '--param', 'id'], /^syncbench scan: --param must be NAME=VALUE.*got "id"/],
    [['--app', app, '--openapi', path.join(root, 'test/fixtures/scan/broken.yaml')], /^syncbench scan: --openapi \S*broken\.yaml:\d+: not YAML/],
    [['--app', app, '--har', path.join(root, 'test/fixtures/scan/broken-comma.json')], /^syncbench scan: --har \S*broken-comma\.json:\d+: not JSON/],
    [['--app', app, '--openapi', path.join(dir, 'nope.yaml')], /^syncbench scan: --openapi \S*nope\.yaml: no such file/]
  ]
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await scan([...args, '--out', out])
    const shown = JSON.stringify(args)
    assert.equal(code, 2, `${shown}: ${stderr}`)
    assert.equal(stdout, '', shown)
    assert.equal(stderr.split('\n').length, 2, `${shown}: one line: ${stderr}`)
    assert.match(stderr, message, shown)
    // the command named once: "syncbench scan: syncbench scan needs ..." says it twice
    assert.doesNotMatch(stderr, /syncbench scan: syncbench scan/, shown)
    assert.equal(existsSync(out), false, `${shown}: no results folder`)
    assert.equal(existsSync(started), false, `${shown}: the app was started`)
  }
  // a results folder that cannot be created: refused before the app starts, as the other bad options
  const file = path.join(dir, 'a-file')
  await writeFile(file, '')
  for (const [bad, message] of [['/proc/x', /^syncbench scan: --out \/proc\/x cannot be created: \/proc is on proc/], [path.join(file, 'x'), /^syncbench scan: --out \S+ cannot be created: .*ENOTDIR/]]) {
    const { code, stdout, stderr } = await scan(['--app', app, '--out', bad])
    assert.equal(code, 2, stderr)
    assert.equal(stdout, '', bad)
    assert.equal(stderr.split('\n').length, 2, `${bad}: one line: ${stderr}`)
    assert.match(stderr, message)
    assert.equal(existsSync(started), false, `--out ${bad}: the app was started`)
  }
})

test('--dry-run: the plan on stdout, each route and what is sent or why not; no request sent, nothing written', async () => {
  const record = path.join(dir, 'dry-run.txt')
  const out = path.join(dir, 'dry-run-out')
  const mark = marker()
  const { code, stdout, stderr } = await scan(['--app', `node ${writesApp} ${mark}`, '--env', `RECORD_FILE=${record}`, '--dry-run', '--out', out])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /writes-app: express \S+, 6 routes found in the app/)
  assert.match(stdout, /The plan: 6 routes, 2 to send one at a time, 4 skipped\./)
  assert.match(stdout, /^ {2}GET \/items +GET \/items$/m)
  assert.match(stdout, /^ {2}GET \/hash +GET \/hash$/m)
  assert.match(stdout, /^ {2}GET \/items\/:id +skipped: needs :id \(--param id=VALUE\)$/m)
  assert.match(stdout, /^ {2}POST \/items +skipped: a write \(POST\) \(--allow-writes\)$/m)
  assert.match(stdout, /^ {2}PUT \/items\/:id +skipped: a write \(PUT\) \(--allow-writes\)$/m)
  assert.match(stdout, /^ {2}DELETE \/items\/:id +skipped: DELETE runs only when named by --request\s+\(--request "DELETE \/items\/:id" --allow-writes\)$/m)
  // discovery reads the app's routes in its process: no request reaches it
  assert.deepEqual(recorded(record), [])
  assert.equal(existsSync(out), false)
  await assertNoOrphan(mark)
})

test('writes: with --allow-writes a POST with a document\'s example body is planned, a PUT with none skipped with its flag, DELETE only when named', async () => {
  const base = ['--app', `node ${writesApp}`, '--param', 'id=1', '--dry-run']
  const allowed = await scan([...base, '--allow-writes', '--openapi', writesOpenapi])
  assert.equal(allowed.code, 0, allowed.stderr)
  assert.match(allowed.stdout, /6 routes found in the app, 2 from documents/)
  assert.match(allowed.stdout, /^ {2}POST \/items +POST \/items, a 21-byte application\/json body$/m)
  assert.match(allowed.stdout, /^ {2}PUT \/items\/:id +skipped: a write with no body \(--request "PUT \/items\/:id" -p FILE\)$/m)
  assert.match(allowed.stdout, /^ {2}DELETE \/items\/:id +skipped: DELETE runs only when named by --request\s+\(--request "DELETE \/items\/:id"\)$/m)
  assert.match(allowed.stdout, /^ {2}GET \/items\/:id +GET \/items\/1$/m)

  const named = await scan([...base, '--allow-writes', '--request', 'DELETE /items/1'])
  assert.equal(named.code, 0, named.stderr)
  assert.match(named.stdout, /^ {2}DELETE \/items\/:id +DELETE \/items\/1$/m)
  // named without --allow-writes: still refused
  const unallowed = await scan([...base, '--request', 'DELETE /items/1'])
  assert.equal(unallowed.code, 0, unallowed.stderr)
  assert.match(unallowed.stdout, /^ {2}DELETE \/items\/:id +skipped: a write \(DELETE\) \(--allow-writes\)$/m)
})

test('a scan without --allow-writes sends GETs only; --json is one document ranking GET /hash first, the plan on stderr; within its budget', async () => {
  const record = path.join(dir, 'writes.txt')
  const out = path.join(dir, 'writes-out')
  const mark = marker()
  const budget = 16
  const started = Date.now()
  const { code, stdout, stderr } = await scan(['--app', `node ${writesApp} ${mark}`, '--env', `RECORD_FILE=${record}`, '--param', 'id=1',
    '--openapi', writesOpenapi, '--budget', String(budget), '--json', '--out', out])
  const seconds = (Date.now() - started) / 1000
  assert.equal(code, 0, stderr)
  // the promise: the scan ends within its budget (a margin for node's own start and exit)
  assert.ok(seconds <= budget + 5, `the scan took ${seconds} s on a budget of ${budget} s`)
  const methods = new Set(recorded(record).map((l) => l.split(' ')[0]))
  assert.deepEqual([...methods].sort(), ['GET'])
  assert.ok(recorded(record).includes('GET /items/1'), 'the --param filled the route')

  const json = JSON.parse(stdout)
  assert.equal(json.schema, 'syncbench/scan@1')
  assert.deepEqual(json.routes.map((/** @type {any} */ r) => r.route).sort(), ['GET /hash', 'GET /items', 'GET /items/:id'])
  assert.equal(json.routes[0].route, 'GET /hash')
  assert.equal(json.routes[0].blocks, true)
  assert.match(json.routes[0].line, /^test\/fixtures\/apps\/scan-cli\/writes-app\.js:\d+$/)
  assert.deepEqual(json.skipped.map((/** @type {any} */ s) => [s.route, s.flag]), [
    ['POST /items', '--allow-writes'], ['PUT /items/:id', '--allow-writes'], ['DELETE /items/:id', '--request "DELETE /items/:id" --allow-writes']
  ])
  assert.match(stderr, /The plan: 6 routes, 3 to send one at a time, 3 skipped\./)
  assert.doesNotMatch(stdout, /The plan/)
  // results.json ranks the same
  const results = await readResults(out)
  validateResults(results, 'results.json')
  assert.deepEqual(scanJson(results).routes.map((r) => r.route), json.routes.map((/** @type {any} */ r) => r.route))
  await assertNoOrphan(mark)
})

test('faults: a route that crashes the app is named and the scan goes on; a hanging one is cut at its deadline; a 404 is not ranked', async () => {
  const out = path.join(dir, 'faults-out')
  const mark = marker()
  const { code, stdout, stderr } = await scan(['--app', `node ${faultsApp} ${mark}`, '--budget', '18', '--out', out, '-q'])
  assert.equal(code, 0, stderr)
  const results = await readResults(out)
  validateResults(results, 'results.json')
  const ranking = scanJson(results)
  const byRoute = Object.fromEntries(ranking.routes.map((r) => [r.route, r]))
  assert.deepEqual(ranking.routes.map((r) => r.route)[0], 'GET /ok')
  assert.equal(byRoute['GET /ok'].measured, true)
  // the crash: named with the app's exit; the route after it was measured by a fresh process
  assert.equal(byRoute['GET /crash'].measured, false)
  assert.match(byRoute['GET /crash'].reason ?? '', /app "faults-app" exited \(code 1\) while it was measured/)
  const order = results.runs.map((/** @type {any} */ r) => r.label)
  assert.ok(order.indexOf('GET /missing') > order.indexOf('GET /crash'), 'the scan went on after the crash')
  // the hang: cut at the route's deadline (its share of --budget, and a share at most borrowed)
  assert.equal(byRoute['GET /hang'].measured, false)
  assert.match(byRoute['GET /hang'].reason ?? '', /deadline of [\d.]+ s \(--budget\)/)
  // the 404: below the measured routes, never ranked as fast
  assert.equal(byRoute['GET /missing'].measured, false)
  assert.match(byRoute['GET /missing'].reason ?? '', /non-2xx: 404/)
  assert.match(stdout, /GET \/crash \(app "faults-app" exited/)
  assert.match(stdout, /GET \/missing \(\d+ of \d+ non-2xx: 404/)
  await assertNoOrphan(mark)
})

test('a plain node:http app: no routes found is one line saying what was tried and the flag, exit 1; with --request it scans that route', async () => {
  const out = path.join(dir, 'plain-out')
  const none = await scan(['--app', `node ${plainApp}`, '--out', out, '-q'])
  assert.equal(none.code, 1, none.stderr)
  const line = none.stderr.replace(/\n {2}/g, ' ').trimEnd()
  assert.equal(line.split('\n').length, 1, none.stderr)
  assert.match(line, /^syncbench scan: no routes found: the app's process was asked for its routes/)
  assert.match(line, /node:http server/)
  assert.match(line, /give --openapi, --har or --request "GET \/path"$/)
  // the advice once
  assert.equal(line.match(/give --openapi/g)?.length, 1, line)
  assert.equal(existsSync(out), false)

  const mark = marker()
  // with credentials: a header, basic auth, a token in a second route's query, a body; none written or printed
  const body = path.join(dir, 'body.json')
  await writeFile(body, '{"password":"b0dy-s3cret"}')
  const secrets = ['h3ader-s3cret', 'us3r:pw-s3cret', 'qu3ry-s3cret', 'b0dy-s3cret']
  const one = await scan(['--app', `node ${plainApp} ${mark}`, '--request', 'GET /health', '-H', 'Authorization: Bearer h3ader-s3cret', '-A', 'us3r:pw-s3cret',
    '--request', 'GET /health?token=qu3ry-s3cret', '--request', 'POST /health', '-p', body, '-T', 'application/json', '--allow-writes', '--budget', '14', '--json', '--out', out])
  assert.equal(one.code, 0, one.stderr)
  const json = JSON.parse(one.stdout)
  assert.deepEqual(json.routes.map((/** @type {any} */ r) => r.measured), [true, true, true])
  assert.ok(json.routes.some((/** @type {any} */ r) => r.route === 'GET /health'), one.stdout)
  const written = (await readdir(out, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name))
  for (const [where, text] of [['stdout', one.stdout], ['stderr', one.stderr], ...written.map((f) => [f, readFileSync(f, 'latin1')])]) {
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} in ${where}`)
  }
  await assertNoOrphan(mark)
})

test('no route measured (each answers non-2xx): one line saying so after the results, exit 1; the results kept', async () => {
  const out = path.join(dir, 'unmeasured-out')
  const mark = marker()
  const app = `node -e "require('http').createServer((q, s) => { s.statusCode = 500; s.end() }).listen(+process.env.PORT, '127.0.0.1')" ${mark}`
  const { code, stdout, stderr } = await scan(['--app', app, '--request', 'GET /report', '--budget', '8', '--out', out, '-q'])
  assert.equal(code, 1, stderr)
  assert.match(stdout, /GET \/report \(\d+ of \d+ non-2xx: 500/)
  assert.match(stderr, /^syncbench scan: no route was measured \(its reason is in the ranking\)$/m)
  validateResults(await readResults(out), 'results.json')
  await assertNoOrphan(mark)
})

test('an app that never listens: one line naming --start-timeout, exit 1, no results folder, no process left', async () => {
  const out = path.join(dir, 'never-out')
  const mark = marker()
  const { code, stdout, stderr } = await scan(['--app', `node -e "setInterval(() => {}, 1000)" ${mark}`, '--start-timeout', '1', '--out', out])
  assert.equal(code, 1, stderr)
  assert.equal(stdout, '')
  assert.equal(stderr.split('\n').length, 2, stderr)
  assert.match(stderr, /^syncbench scan: app "node" did not listen .* within 1 s \(--start-timeout\)/)
  assert.equal(existsSync(out), false)
  await assertNoOrphan(mark)
  const { stdout: help } = await scan(['--help'])
  assert.match(help.replace(/\s+/g, ' '), /; 1 [^;]*or an app that does not start \(it never listens or exits first\);/)
})

test('Ctrl-C after the first route: exit 130, a valid results.json with the routes measured so far, no process left', async () => {
  const out = path.join(dir, 'interrupted-out')
  const mark = marker()
  const child = spawn(process.execPath, [binPath, 'scan', '--app', `node ${writesApp} ${mark}`, '--param', 'id=1', '--budget', '20', '--out', out], {
    cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  let sent = false
  child.stdout.resume()
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
    if (!sent && /run 1\/3 /.test(stderr)) {
      sent = true
      child.kill('SIGINT')
    }
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  assert.ok(sent, stderr)
  assert.equal(code, 130, stderr)
  assert.match(stderr, /\(interrupted: partial\)/)
  const results = await readResults(out)
  validateResults(results, 'results.json')
  const measured = scanJson(results).routes.filter((r) => r.measured).map((r) => r.route)
  assert.ok(measured.includes('GET /items'), `the first route kept: ${measured}`)
  assert.ok(!results.runs.some((/** @type {any} */ r) => r.label === 'GET /hash'), 'no route started after the Ctrl-C')
  await assertNoOrphan(mark)
})

test('the budget\'s edge: exactly enough gives each route the least load; 1 ms less is refused with the least that would do', () => {
  for (const [routes, startSeconds, spentSeconds] of [[1, 0.1, 1], [2, 0.5, 1.3], [4, 1.4, 1.5], [20, 0.7, 3.3], [3, 2.9, 4.1]]) {
    // each route: its start, the overhead and the least load on the planned share of its time
    const routeMs = Math.ceil(Math.round((startSeconds + RUN_OVERHEAD_SECONDS + MIN_LOAD_SECONDS) * 1000) / PLANNED_SHARE)
    const least = (Math.round((spentSeconds + REPORT_SECONDS) * 1000) + routes * routeMs) / 1000
    const exact = shareBudget({ budget: least, routes, startSeconds, spentSeconds })
    assert.equal(exact.loadSeconds, MIN_LOAD_SECONDS, `${routes} routes, start ${startSeconds} s, spent ${spentSeconds} s, budget ${least} s`)
    const short = Math.round((least - 0.001) * 1000) / 1000
    assert.throws(() => shareBudget({ budget: short, routes, startSeconds, spentSeconds }), (err) => {
      const message = /** @type {Error} */ (err).message
      assert.ok(message.startsWith(`--budget is too short for ${routes} route${routes === 1 ? '' : 's'}: `), message)
      assert.ok(message.endsWith(`give at least ${Math.ceil(least)}s, got "${short}s"`), message)
      return true
    })
    // no --budget: the default is never too short, however slow the app starts
    assert.ok(shareBudget({ routes, startSeconds, spentSeconds }).loadSeconds >= MIN_LOAD_SECONDS)
  }
})

for (const example of ['shop-express', 'shop-fastify']) {
  test(`examples/${example}.js: every blocking route ranked above every cheap one, each at its line; the write and the DELETE skipped`, async () => {
    const out = path.join(dir, `${example}-out`)
    const mark = marker()
    const { code, stdout, stderr } = await scan(['--app', `node examples/${example}.js ${mark}`, '--param', 'id=7', '--json', '--out', out])
    assert.equal(code, 0, stderr)
    const json = JSON.parse(stdout)
    const ranked = json.routes.map((/** @type {any} */ r) => r.route)
    const blocking = ['GET /api/reports/catalogue', 'GET /api/reports/export.gz', 'GET /api/keys/derive']
    const cheap = ['GET /health', 'GET /api/products', 'GET /api/products/:id']
    assert.deepEqual([...ranked].sort(), [...blocking, ...cheap].sort())
    const lastBlocking = Math.max(...blocking.map((r) => ranked.indexOf(r)))
    const firstCheap = Math.min(...cheap.map((r) => ranked.indexOf(r)))
    assert.ok(lastBlocking < firstCheap, `ranked: ${ranked.join(', ')}`)
    for (const r of json.routes.filter((/** @type {any} */ r) => blocking.includes(r.route))) {
      assert.equal(r.blocks, true, r.route)
      assert.match(r.line, new RegExp(`^examples/${example}\\.js:\\d+$`), r.route)
    }
    assert.deepEqual(json.skipped.map((/** @type {any} */ s) => s.route).sort(), ['DELETE /api/products/:id', 'POST /api/login'])
    for (const s of json.skipped) assert.ok(s.reason && s.flag, JSON.stringify(s))
    assert.ok((await readdir(path.join(out, 'profiles'))).length >= 6, 'a profile per route')
    await assertNoOrphan(mark)
  })
}

test('each route\'s deadline: its share, what the routes before it left, and up to a share more borrowed from the routes after it, each keeping the least', () => {
  const budget = shareBudget({ budget: 20, routes: 3, startSeconds: 1, spentSeconds: 1 })
  assert.equal(budget.shareSeconds, 5.666)
  // the app's start, the run's overhead and the least load, over the planned share, in whole ms
  assert.equal(budget.leastShareSeconds, Math.ceil((1000 + RUN_OVERHEAD_SECONDS * 1000 + MIN_LOAD_SECONDS * 1000) / PLANNED_SHARE) / 1000)
  let now = 1_000_000
  const startedAt = now - 1000
  const endsAt = startedAt + (20 - REPORT_SECONDS) * 1000
  const deadlineOf = routeDeadlines({ startedAt, budget, routes: 3 }, () => now)
  // the first: all but the least share of each route after it (less than its share and one more)
  const first = deadlineOf()
  assert.equal(first, Math.round(endsAt - now - 2 * budget.leastShareSeconds * 1000) / 1000)
  assert.ok(first < 2 * budget.shareSeconds)
  // it ended 2 s before its share: the second may take all but the last's least share
  now += (budget.shareSeconds - 2) * 1000
  const second = deadlineOf()
  assert.equal(second, Math.round(endsAt - now - budget.leastShareSeconds * 1000) / 1000)
  // it hung and was cut at its deadline: the last has the least share, and the scan ends at the budget
  now += second * 1000
  assert.equal(deadlineOf(), budget.leastShareSeconds)
  // many routes after it: a route borrows one share at most
  const many = shareBudget({ budget: 60, routes: 10, startSeconds: 1, spentSeconds: 1 })
  const manyDeadlines = routeDeadlines({ startedAt, budget: many, routes: 10 }, () => startedAt + 1000)
  assert.equal(manyDeadlines(), Math.round(2 * many.shareSeconds * 1000) / 1000)
  // a deadline is never below the least load, whatever came before
  const late = routeDeadlines({ startedAt, budget, routes: 1 }, () => endsAt + 60_000)
  assert.equal(late(), MIN_LOAD_SECONDS)
})

test('a time-limited load ends the reads\' reserve before its deadline, never below the least load; one that fits, or has no -t, as it is', () => {
  const fit = { readsSeconds: 1, minSeconds: MIN_LOAD_SECONDS }
  const load = { timelimit: 2, concurrency: 4 }
  assert.equal(fittedLoad(load, 3000, fit), load)
  assert.deepEqual(fittedLoad(load, 2999, fit), { timelimit: 1.999, concurrency: 4 })
  assert.deepEqual(fittedLoad(load, 1000 + MIN_LOAD_SECONDS * 1000 + 1, fit), { timelimit: MIN_LOAD_SECONDS + 0.001, concurrency: 4 })
  assert.deepEqual(fittedLoad(load, 1000 + MIN_LOAD_SECONDS * 1000 - 1, fit), { timelimit: MIN_LOAD_SECONDS, concurrency: 4 })
  assert.deepEqual(fittedLoad(load, -5000, fit), { timelimit: MIN_LOAD_SECONDS, concurrency: 4 })
  const requests = { requests: 100, concurrency: 4 }
  assert.equal(fittedLoad(requests, 0, fit), requests)
})

test('a route whose warm-up takes most of its share is measured on a shorter load, not cut; the scan within its budget', async () => {
  const out = path.join(dir, 'slow-warm-out')
  const mark = marker()
  // /warm's warm-up takes 3 s, 1.8 s more than a scan plans for a run's overhead, and its share (7 s
  // or so) keeps 15% of it as margin: cut at its share, it would be the route left unmeasured
  const budget = 18
  const started = Date.now()
  const r = await scan(['--app', `node ${slowWarmApp} ${mark}`, '--request', 'GET /warm', '--request', 'GET /fast', '--budget', String(budget), '--json', '--out', out])
  const seconds = (Date.now() - started) / 1000
  assert.equal(r.code, 0, r.stderr)
  const ranking = JSON.parse(r.stdout)
  const byRoute = Object.fromEntries(ranking.routes.map((/** @type {any} */ x) => [x.route, x]))
  assert.equal(byRoute['GET /warm'].measured, true, JSON.stringify(byRoute['GET /warm']))
  assert.equal(byRoute['GET /fast'].measured, true, JSON.stringify(byRoute['GET /fast']))
  const results = await readResults(out)
  // /fast, after the share /warm borrowed, kept at least the least load
  const fast = results.runs.find((/** @type {any} */ run) => run.label === 'GET /fast')
  assert.ok(fast.load.options.timelimit >= MIN_LOAD_SECONDS, String(fast.load.options.timelimit))
  assert.ok(seconds <= budget + 5, `the scan took ${seconds} s on a budget of ${budget} s`)
  await assertNoOrphan(mark)
})
