// No credential a user passes is kept: one canary value given through every flag that carries one (-A,
// -P, -C, -H Authorization / X-Api-Key / X-Auth-Token / Cookie, a header marked with --secret-header,
// a URL's query token) through ab, run (a --target, an app, a mix), merge, compare, report and the
// live dashboard appears in no byte written (every file under the output folders) or printed (stdout,
// stderr, the dashboard's page and stream), error messages included. The server still gets the
// credentials as given, and merge still tells two credentials apart by their digests.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import { binPath, closedPort, runCli, startHttpServer } from './helper.js'
import { tempDir } from './fixtures/report-helpers.js'

const CANARY = 'CANARY-s3cr3t-7f1e'
/** A second credential: merge must tell it from the first by their digests alone. */
const OTHER = 'CANARY-0th3r-9a2c'
/** Every spelling of a canary that would give it away: as typed, and inside a Basic header's base64. */
const FORBIDDEN = [CANARY, OTHER, ...['user', 'proxy'].flatMap((who) => [CANARY, OTHER].map((c) => Buffer.from(`${who}:${c}`).toString('base64')))]

/** The flags of syncbench ab that carry the canary. */
const AB_SECRETS = ['-A', `user:${CANARY}`, '-P', `proxy:${CANARY}`, '-C', `sid=${CANARY}`,
  '-H', `Authorization: Bearer ${CANARY}`, '-H', `X-Api-Key: ${CANARY}`, '-H', `X-Auth-Token: ${CANARY}`,
  '-H', `Cookie: theme=${CANARY}`, '--secret-header', 'X-Custom', '-H', `X-Custom: ${CANARY}`]
/** The flags of syncbench run --app that carry it (run has no -P). */
const APP_SECRETS = ['-A', `user:${CANARY}`, '-C', `sid=${CANARY}`, '-H', `Authorization: Bearer ${CANARY}`,
  '-H', `X-Api-Key: ${CANARY}`, '--secret-header', 'X-Custom', '-H', `X-Custom: ${CANARY}`]

/**
 * Fail naming where a canary shows.
 * @param {string} where @param {string|Buffer} bytes
 */
function assertClean (where, bytes) {
  const text = Buffer.isBuffer(bytes) ? bytes.toString('latin1') : bytes
  for (const secret of FORBIDDEN) {
    const at = text.indexOf(secret)
    assert.equal(at, -1, `${where} holds a credential: ...${text.slice(Math.max(0, at - 80), at + secret.length + 20)}...`)
  }
}

/**
 * Every file under a folder, scanned.
 * @param {string} dir
 * @returns {Promise<number>} how many files were read
 */
async function assertFolderClean (dir) {
  let files = 0
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    assertClean(file, await readFile(file))
    files++
  }
  return files
}

/**
 * What a command printed, scanned.
 * @param {string} what @param {{ stdout: string, stderr: string }} r
 */
function assertPrintedClean (what, r) {
  assertClean(`${what}: stdout`, r.stdout)
  assertClean(`${what}: stderr`, r.stderr)
}

/**
 * A server that records each request's raw headers and target, and answers with a cookie of its own
 * (a Set-Cookie the canary).
 */
async function recordingServer () {
  /** @type {{ url: string, headers: string[] }[]} */
  const seen = []
  const server = await startHttpServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.rawHeaders })
    req.resume()
    req.on('end', () => {
      res.setHeader('Set-Cookie', `sid=${CANARY}`)
      res.end('ok')
    })
  })
  return { ...server, seen }
}

/**
 * The header values a request carried under a name (rawHeaders keeps duplicates: -A and -H both send
 * an Authorization).
 * @param {string[]} raw @param {string} name
 */
function headerValues (raw, name) {
  const out = []
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) out.push(raw[i + 1])
  return out
}

/**
 * The real CLI with its dashboard: the dashboard's URL once printed, then its page and the whole
 * of its event stream (read until the dashboard closes), then the exit.
 * @param {string[]} args
 * @param {() => void} release  lets the run go on once the stream is open
 */
async function withDashboard (args, release) {
  const child = spawn(process.execPath, [binPath, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  const exited = once(child, 'close')
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d
      const m = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(stderr)
      if (m) resolve(new URL(m[1]))
    })
    exited.then(() => reject(new Error(`exited before printing the dashboard's URL: ${stderr}`)))
  })
  const page = await get(url.href)
  const events = new URL('/events', url)
  events.search = url.search
  const stream = await new Promise((resolve, reject) => {
    http.get(events, { agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => {
        body += d
        if (body.includes('event: state')) release()
      })
      res.on('close', () => resolve(body))
      res.on('error', () => resolve(body))
    }).on('error', reject)
  })
  const [code] = await exited
  clearTimeout(killer)
  return { code, stdout, stderr, page, stream: /** @type {string} */ (stream) }
}

/** @param {string} url @returns {Promise<string>} */
function get (url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d })
      res.on('end', () => resolve(body))
    }).on('error', reject)
  })
}

test('ab: the canary through every flag is in no report, --json, -g, -e, --hdr-log, -v dump or dashboard; the server gets every credential as given', { timeout: 120_000 }, async (t) => {
  const server = await recordingServer()
  t.after(() => server.close())
  const dir = await tempDir(t)
  const url = `${server.url}login?token=${CANARY}&sig=${CANARY}&page=2`
  const files = ['-g', path.join(dir, 'g.tsv'), '-e', path.join(dir, 'e.csv'), '--hdr-log', path.join(dir, 'h.hlog')]
  const text = await runCli(['ab', '-n', '6', '-c', '2', '-v', '4', ...AB_SECRETS, ...files, url])
  assert.equal(text.code, 0, text.stderr)
  assertPrintedClean('ab', text)
  assert.match(text.stdout, /^Authorization: Basic \*\*\*$/m, 'the -v dump shows the header, its value starred')
  assert.match(text.stdout, /^Document Path: +\/login\?token=\*\*\*&sig=\*\*\*&page=2$/m)
  assert.equal(await assertFolderClean(dir), 3)
  const html = await runCli(['ab', '-w', '-n', '2', ...AB_SECRETS, url])
  assert.equal(html.code, 0, html.stderr)
  assertPrintedClean('ab -w', html)

  // what arrived: every credential as typed
  const request = server.seen[0]
  assert.equal(request.url, `/login?token=${CANARY}&sig=${CANARY}&page=2`)
  assert.deepEqual(headerValues(request.headers, 'authorization').sort(), [`Basic ${Buffer.from(`user:${CANARY}`).toString('base64')}`, `Bearer ${CANARY}`])
  assert.deepEqual(headerValues(request.headers, 'proxy-authorization'), [`Basic ${Buffer.from(`proxy:${CANARY}`).toString('base64')}`])
  for (const name of ['x-api-key', 'x-auth-token', 'x-custom']) assert.deepEqual(headerValues(request.headers, name), [CANARY], name)
  assert.ok(headerValues(request.headers, 'cookie').join(';').includes(`sid=${CANARY}`))

  const json = await runCli(['ab', '--json', '-n', '6', '-c', '2', ...AB_SECRETS, url])
  assert.equal(json.code, 0, json.stderr)
  assertPrintedClean('ab --json', json)
  const options = JSON.parse(json.stdout).options
  // each credential starred with its digest; the digest the same for the same value
  const digest = /\*\*\*~([0-9a-f]{8})$/.exec(options.headers[0])?.[1]
  assert.ok(digest, options.headers[0])
  assert.deepEqual(options.headers, [`Authorization: Bearer ***~${digest}`, `X-Api-Key: ***~${digest}`, `X-Auth-Token: ***~${digest}`, `Cookie: theme=***~${digest}`, `X-Custom: ***~${digest}`])
  assert.deepEqual(options.cookies, [`sid=***~${digest}`])
  assert.match(options.auth, /^\*\*\*~[0-9a-f]{8}$/)
  assert.notEqual(options.auth, `***~${digest}`, 'user:canary is another value than the canary')
  assert.equal(options.url, `${server.url}login?token=***~${digest}&sig=***~${digest}&page=2`)

  let release = () => {}
  const gate = new Promise((resolve) => { release = () => resolve(undefined) })
  const gated = await startHttpServer((req, res) => { gate.then(() => res.end('ok')) })
  t.after(() => gated.close())
  const live = await withDashboard(['ab', '--dashboard', '-n', '4', '-c', '1', ...AB_SECRETS, `${gated.url}?access_token=${CANARY}`], () => release())
  assert.equal(live.code, 0, live.stderr)
  assertPrintedClean('ab --dashboard', live)
  assertClean('the dashboard page', live.page)
  assertClean('the dashboard stream', live.stream)
  assert.match(live.stream, /access_token=\*\*\*/, 'the stream shows the run, its credential starred')
})

test('ab and merge: error messages quote no credential; merge tells two credentials apart by digest only', { timeout: 120_000 }, async (t) => {
  const server = await recordingServer()
  t.after(() => server.close())
  const dir = await tempDir(t)
  const port = await closedPort()
  const failures = [
    ['ab', '-n', '1', `http://user:${CANARY}@127.0.0.1:${port}/`],
    ['ab', '-n', '1', `127.0.0.1:${port}/?api_key=${CANARY}`],
    ['ab', '-n', '1', '-H', `X-Api-Key ${CANARY}`, server.url],
    ['ab', '-n', '1', ...AB_SECRETS, `http://127.0.0.1:${port}/x?key=${CANARY}`],
    ['run', '--target', `http://user:${CANARY}@127.0.0.1:${port}/`, '--no-calibrate'],
    ['run', '--target', `http://127.0.0.1:${port}/?token=${CANARY}`, '--app', 'node x.js']
  ]
  for (const args of failures) {
    const r = await runCli(args)
    assert.notEqual(r.code, 0, args.join(' '))
    assert.match(r.stderr, /syncbench (ab|run): /, r.stderr)
    assertPrintedClean(args.join(' '), r)
  }

  // the shards of one run, and a third with another credential
  const shard = async (/** @type {string} */ name, /** @type {string} */ secret, /** @type {string} */ segment) => {
    const r = await runCli(['ab', '--json', '-n', '4', '-c', '2', '--segment', segment, '-A', `user:${secret}`, '-H', `Authorization: Bearer ${secret}`, `${server.url}?token=${secret}`])
    assert.equal(r.code, 0, r.stderr)
    assertPrintedClean(`shard ${name}`, r)
    const file = path.join(dir, `${name}.json`)
    await writeFile(file, r.stdout)
    return file
  }
  const one = await shard('one', CANARY, '0/2')
  const two = await shard('two', CANARY, '1/2')
  const other = await shard('other', OTHER, '1/2')
  const merged = await runCli(['merge', '--json', one, two])
  assert.equal(merged.code, 0, merged.stderr)
  assertPrintedClean('merge', merged)
  assert.equal(JSON.parse(merged.stdout).completeRequests, 4)
  const report = await runCli(['merge', one, two])
  assert.equal(report.code, 0, report.stderr)
  assertPrintedClean('merge (report)', report)
  const refused = await runCli(['merge', one, other])
  assert.equal(refused.code, 2, refused.stderr)
  assertPrintedClean('merge of two credentials', refused)
  assert.match(refused.stderr, /differs from .* in the URL: "[^"]*token=\*\*\*~[0-9a-f]{8}" vs "[^"]*token=\*\*\*~[0-9a-f]{8}"/)
  assert.equal(await assertFolderClean(dir), 3)
})

/**
 * A tiny app: records what each request carried in RECEIVED (outside the output folders), answers once
 * GATE exists, with a cookie of its own.
 */
const APP = `import http from 'node:http'
import { appendFileSync, existsSync } from 'node:fs'
http.createServer(async (req, res) => {
  appendFileSync(process.env.RECEIVED, JSON.stringify({ url: req.url, headers: req.rawHeaders }) + '\\n')
  while (process.env.GATE && !existsSync(process.env.GATE)) await new Promise((resolve) => setTimeout(resolve, 20))
  req.resume()
  res.setHeader('Set-Cookie', 'sid=${CANARY}')
  res.end('ok')
}).listen(Number(process.env.PORT) || 0, '127.0.0.1')
`

test('run --app, --app --mix, run --target, compare and report: the canary is in no file of the output folders, nothing printed, no dashboard', { timeout: 300_000 }, async (t) => {
  const dir = await tempDir(t)
  const inputs = path.join(dir, 'inputs')
  await mkdir(inputs)
  await writeFile(path.join(inputs, 'app.mjs'), APP)
  const received = path.join(inputs, 'received.jsonl')
  const gateFile = path.join(inputs, 'gate')
  const env = ['--env', `RECEIVED=${received}`, '--env', `GATE=${gateFile}`]
  const load = ['--no-calibrate', '--runs', '1', '-n', '10', '-c', '2']
  const common = [...load, '--cwd', inputs]

  // one route, watched live
  const appOut = path.join(dir, 'app')
  const live = await withDashboard(['run', '--app', 'node app.mjs', '--path', `/me?token=${CANARY}`, '--probe-path', `/health?api_key=${CANARY}`, ...APP_SECRETS, ...env, ...common, '--dashboard', '--out', appOut],
    () => { writeFile(gateFile, '') })
  assert.equal(live.code, 0, live.stderr)
  assertPrintedClean('run --app', live)
  assertClean('run --app: the dashboard page', live.page)
  assertClean('run --app: the dashboard stream', live.stream)
  assert.match(live.stream, /token=\*\*\*/, 'the stream shows the route, its credential starred')
  assert.ok(await assertFolderClean(appOut) >= 4)
  // the load's requests as given (the probe's, beside them, ask its own path)
  const requests = (await readFile(received, 'utf8')).trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.url.startsWith('/me'))
  assert.ok(requests.length >= 10)
  for (const r of requests) {
    assert.equal(r.url, `/me?token=${CANARY}`)
    assert.deepEqual(headerValues(r.headers, 'authorization').sort(), [`Basic ${Buffer.from(`user:${CANARY}`).toString('base64')}`, `Bearer ${CANARY}`])
    assert.deepEqual(headerValues(r.headers, 'x-custom'), [CANARY])
  }
  const results = JSON.parse(await readFile(path.join(appOut, 'results.json'), 'utf8'))
  assert.ok(results.argv.some((/** @type {string} */ a) => /^\/me\?token=\*\*\*~[0-9a-f]{8}$/.test(a)), results.argv.join(' '))
  assert.ok(results.argv.some((/** @type {string} */ a) => /^Authorization: Bearer \*\*\*~[0-9a-f]{8}$/.test(a)), results.argv.join(' '))
  assert.equal(results.runs[0].probe.path, '/health?api_key=***')

  // two routes in one run
  const mixOut = path.join(dir, 'mix')
  const mix = await runCli(['run', '--app', 'node app.mjs', '--request', `POST /login?access_token=${CANARY}`, '--path', `/health?key=${CANARY}`, '--mix',
    ...APP_SECRETS, ...env, ...common, '--no-report', '--out', mixOut])
  assert.equal(mix.code, 0, mix.stderr)
  assertPrintedClean('run --app --mix', mix)
  assert.ok(await assertFolderClean(mixOut) >= 3)

  // an experiment file's credentials against a server already running, twice, then compared
  const server = await recordingServer()
  t.after(() => server.close())
  const experiment = path.join(inputs, 'target.json')
  await writeFile(experiment, JSON.stringify({
    name: 'target-secrets',
    title: 'Credentials from an experiment file',
    server: { app: 'lab' },
    load: { headers: [`Authorization: Bearer ${CANARY}`, `X-Custom: ${CANARY}`], cookies: [`sid=${CANARY}`], auth: `user:${CANARY}` },
    variants: [{ label: 'me', path: `/me?sig=${CANARY}`, config: { strategy: 'me' } }]
  }))
  const targets = []
  for (const name of ['target-a', 'target-b']) {
    const out = path.join(dir, name)
    const r = await runCli(['run', '--experiment', experiment, '--target', `${server.url}?token=${CANARY}`, '--secret-header', 'X-Custom', ...load, '--no-report', '--out', out])
    assert.equal(r.code, 0, r.stderr)
    assertPrintedClean(`run --target (${name})`, r)
    assert.ok(await assertFolderClean(out) >= 3)
    targets.push(out)
  }
  // besides syncbench's own questions (/__syncbench/...), the experiment's requests as written
  const loaded = server.seen.filter((r) => r.url.startsWith('/me'))
  assert.ok(loaded.length >= 20)
  assert.ok(loaded.every((r) => r.url === `/me?sig=${CANARY}` && headerValues(r.headers, 'x-custom')[0] === CANARY), JSON.stringify(loaded[0]))

  const compared = await runCli(['compare', ...targets])
  assert.equal(compared.code, 0, compared.stderr)
  assertPrintedClean('compare', compared)
  const comparedJson = await runCli(['compare', '--json', ...targets])
  assert.equal(comparedJson.code, 0, comparedJson.stderr)
  assertPrintedClean('compare --json', comparedJson)

  // the reports written again from results.json
  for (const from of [appOut, mixOut]) {
    const again = path.join(dir, `report-${path.basename(from)}`)
    const r = await runCli(['report', from, '--out', again, '--no-png'])
    assert.equal(r.code, 0, r.stderr)
    assertPrintedClean(`report ${from}`, r)
    assert.equal(await assertFolderClean(again), 2)
    const text = await runCli(['report', from, '--text'])
    assertPrintedClean(`report --text ${from}`, text)
  }
  assert.ok(existsSync(path.join(appOut, 'report.html')))

  // a results.json written before syncbench starred credentials: its report shows the command starred
  const old = path.join(dir, 'old')
  await mkdir(old)
  await writeFile(path.join(old, 'results.json'), JSON.stringify({ ...results, argv: ['--app', 'node app.mjs', '-A', `user:${CANARY}`, '-H', `X-Api-Key: ${CANARY}`, '--path', `/me?token=${CANARY}`] }))
  const oldReport = path.join(dir, 'old-report')
  const r = await runCli(['report', old, '--out', oldReport, '--no-png'])
  assert.equal(r.code, 0, r.stderr)
  await assertFolderClean(oldReport)
  assert.match(await readFile(path.join(oldReport, 'report.html'), 'utf8'), /Command: syncbench run --app node app\.mjs -A \*\*\*~[0-9a-f]{8} -H X-Api-Key: \*\*\*~[0-9a-f]{8} --path \/me\?token=\*\*\*~[0-9a-f]{8}/)
})
