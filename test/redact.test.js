// The redaction rule (lib/redact.js) on its own: which headers, parameters, flags and URL parts are
// credentials, the digests that let merge tell two apart, and what stays as typed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  digestOf, redactArgv, redactCookies, redactHeader, redactHeaderLine, redactLoadOptions, redactRequestHead, redactUrl, redactValue,
  scrubText, secretHeaderSet, secretsOfArgv
} from '../lib/redact.js'
import { mergeLoadResults } from '../lib/load/merge-results.js'
import { loadtest } from '../lib/load/loadtest.js'
import { startHttpServer } from './helper.js'

const DIGESTED = /^\*\*\*~[0-9a-f]{8}$/

test('headers: the credential ones starred (any case), Authorization keeps its scheme, the others as typed', () => {
  const secret = secretHeaderSet(['X-Custom'])
  assert.equal(redactHeader('Authorization: Basic dXNlcjpwdw==', secret), 'Authorization: Basic ***')
  assert.equal(redactHeader('proxy-authorization: Bearer abc.def', secret), 'proxy-authorization: Bearer ***')
  // a token alone is no scheme and its value
  assert.equal(redactHeader('Authorization: abcdef', secret), 'Authorization: ***')
  assert.equal(redactHeader('X-API-KEY: k1', secret), 'X-API-KEY: ***')
  assert.equal(redactHeader('X-Auth-Token:t', secret), 'X-Auth-Token: ***')
  assert.equal(redactHeader('x-custom: c', secret), 'x-custom: ***')
  assert.equal(redactHeader('Cookie: a=1; b=2', secret), 'Cookie: a=***; b=***')
  assert.equal(redactHeader('Set-Cookie: sid=9; Path=/', secret), 'Set-Cookie: sid=***; Path=***')
  for (const line of ['X-Custom2: c', 'Accept: */*', 'X-Api-Keys: k', 'Authorization2: x', 'no colon']) assert.equal(redactHeader(line, secret), line)
  // without --secret-header, X-Custom is a header like any other
  assert.equal(redactHeader('X-Custom: c', secretHeaderSet()), 'X-Custom: c')
})

test('a refused -H value: all but its first word starred when it has no "Name:"', () => {
  assert.equal(redactHeaderLine('X-Api-Key abc'), 'X-Api-Key ***')
  assert.equal(redactHeaderLine('abc'), '***')
  assert.equal(redactHeaderLine('Authorization: Bearer abc'), 'Authorization: Bearer ***')
  assert.equal(redactHeaderLine('X-Other: abc'), 'X-Other: abc')
})

test('cookies: each value starred, the names kept', () => {
  assert.equal(redactCookies('sid=abc'), 'sid=***')
  assert.equal(redactCookies('a=1; b=x=y'), 'a=***; b=***')
  assert.equal(redactCookies('lonely'), '***')
})

test('URLs and paths: user info and the token parameters starred, the rest as written', () => {
  assert.equal(redactUrl('http://user:pw@host:8080/x'), 'http://***@host:8080/x')
  assert.equal(redactUrl('https://tok@host/'), 'https://***@host/')
  // ab takes a URL without its scheme
  assert.equal(redactUrl('user:pw@127.0.0.1/x'), '***@127.0.0.1/x')
  assert.equal(redactUrl('/a?token=1&TOKEN=2&Access_Token=3&api_key=4&key=5&sig=6&page=7#sig=8'), '/a?token=***&TOKEN=***&Access_Token=***&api_key=***&key=***&sig=***&page=7#sig=8')
  // names that merely contain a token's name are not tokens; a name percent-encoded still is
  assert.equal(redactUrl('/a?keyword=1&monkey=2&tokens=3&signature=4'), '/a?keyword=1&monkey=2&tokens=3&signature=4')
  assert.equal(redactUrl('/a?%74oken=1'), '/a?%74oken=***')
  assert.equal(redactUrl('POST /login?access_token=x'), 'POST /login?access_token=***')
  // an @ in the path or the query is no user info
  assert.equal(redactUrl('http://host/@me?q=a@b'), 'http://host/@me?q=a@b')
  assert.equal(redactUrl('/plain'), '/plain')
})

test('digests: the same value the same digest, two values two, again redacted nothing changes; the salt changes them all', () => {
  const a = redactValue('s3cret', true)
  assert.match(a, DIGESTED)
  assert.equal(redactValue('s3cret', true), a)
  assert.notEqual(redactValue('s3cre7', true), a)
  assert.equal(redactValue(a, true), a)
  assert.equal(redactValue('***', true), '***')
  assert.equal(redactValue('s3cret'), '***')
  const options = { url: 'http://u:p@h/x?token=t', headers: ['Authorization: Bearer t', 'X-A: 1'], cookies: ['s=t'], auth: 'u:p', proxyAuth: 'q:p', routes: [{ path: '/r?key=t', name: 'GET /r?key=t', headers: ['X-Api-Key: t'], cookies: ['c=t'], auth: 'u:p' }] }
  const once = redactLoadOptions(options)
  assert.deepEqual(redactLoadOptions(once), once)
  const t = digestOf('t')
  assert.deepEqual(once, {
    url: `http://***~${digestOf('u:p')}@h/x?token=***~${t}`,
    headers: [`Authorization: Bearer ***~${t}`, 'X-A: 1'],
    cookies: [`s=***~${t}`],
    auth: `***~${digestOf('u:p')}`,
    proxyAuth: `***~${digestOf('q:p')}`,
    routes: [{ path: `/r?key=***~${t}`, name: 'GET /r?key=***', headers: [`X-Api-Key: ***~${t}`], cookies: [`c=***~${t}`], auth: `***~${digestOf('u:p')}` }]
  })
  assert.equal(options.headers[0], 'Authorization: Bearer t', 'the options given are not changed')
  // another process, another salt: another digest; the same salt: the same one
  const digestIn = (/** @type {string|undefined} */ salt) => spawnSync(process.execPath, ['--input-type=module', '-e',
    `import { digestOf } from ${JSON.stringify(fileURLToPath(new URL('../lib/redact.js', import.meta.url)))}; process.stdout.write(digestOf('s3cret'))`],
  { env: { ...process.env, SYNCBENCH_SECRET_SALT: salt ?? '' }, encoding: 'utf8' }).stdout
  assert.equal(digestIn(undefined), digestOf('s3cret'))
  assert.notEqual(digestIn('team-salt'), digestOf('s3cret'))
  assert.equal(digestIn('team-salt'), digestIn('team-salt'))
})

test('argv: each credential flag in every spelling starred with its digest, everything else as typed', () => {
  const d = (/** @type {string} */ v) => `***~${digestOf(v)}`
  assert.deepEqual(redactArgv(['-A', 'u:p', '-Au:q', '-kA', 'u:r', '--auth', 'u:s', '--auth=u:t', '-P', 'x:y', '--proxy-auth=x:z']),
    ['-A', d('u:p'), `-A${d('u:q')}`, '-kA', d('u:r'), '--auth', d('u:s'), `--auth=${d('u:t')}`, '-P', d('x:y'), `--proxy-auth=${d('x:z')}`])
  assert.deepEqual(redactArgv(['-C', 'a=1; b=2', '--cookie=c=3', '-H', 'Authorization: Basic zz', '--header=X-Api-Key: k', '-H', 'X-Plain: v', '-H', 'broken value']),
    ['-C', `a=${d('1')}; b=${d('2')}`, `--cookie=c=${d('3')}`, '-H', `Authorization: Basic ${d('zz')}`, `--header=X-Api-Key: ${d('k')}`, '-H', 'X-Plain: v', '-H', d('broken value')])
  assert.deepEqual(redactArgv(['--secret-header', 'X-Mine', '-H', 'X-Mine: v', '--secret-header=X-Too', '-H', 'x-too: w']),
    ['--secret-header', 'X-Mine', '-H', `X-Mine: ${d('v')}`, '--secret-header=X-Too', '-H', `x-too: ${d('w')}`])
  // a flag that takes a value ends the cluster: -pCfile posts the file "Cfile"; -n100 is no -A
  assert.deepEqual(redactArgv(['-pCfile', '-n100', '-c', '-A']), ['-pCfile', '-n100', '-c', '-A'])
  assert.deepEqual(redactArgv(['--target', 'http://u:p@h/?sig=s', '--path', '/x?token=t', 'run']),
    ['--target', `http://${d('u:p')}@h/?sig=${d('s')}`, '--path', `/x?token=${d('t')}`, 'run'])
  // a URL inside a header that is no credential keeps its own credentials starred
  assert.deepEqual(redactArgv(['-H', 'Referer: http://h/?token=t&a=1']), ['-H', `Referer: http://h/?token=${d('t')}&a=1`])
  // after --, arguments are positionals
  assert.deepEqual(redactArgv(['--', '-A', 'u:p']), ['--', '-A', 'u:p'])
})

test('the text net: every credential of argv, a Basic header\'s base64 of it, left out of any text; short values are not', () => {
  const secrets = secretsOfArgv(['-A', 'user:pass-word', '-H', 'Authorization: Bearer tok-123456', '-C', 'sid=cookie-value', 'http://me:pw123456@h/?key=qkey-9999', '-A', 'a:test'])
  for (const s of ['user:pass-word', 'pass-word', Buffer.from('user:pass-word').toString('base64'), 'tok-123456', 'Bearer tok-123456', 'cookie-value', 'me:pw123456', 'pw123456', 'qkey-9999']) {
    assert.ok(secrets.includes(s), s)
  }
  assert.ok(!secrets.includes('test') && !secrets.includes('a:test'), 'values under 8 characters are not starred in free text: every "test" of a report would be')
  assert.equal(scrubText('got "Bearer tok-123456" and dXNlcjpwYXNzLXdvcmQ= then pass-word', secrets), 'got "***" and *** then ***')
  assert.deepEqual(secretsOfArgv(['-n', '10', '-H', 'Accept: text/plain', 'http://h/?page=2']), [])
})

test('ab -v\'s request head: the query and the credential headers starred, its CRLFs kept', () => {
  const head = 'GET /x?sig=abc&p=1 HTTP/1.0\r\nAuthorization: Basic eA==\r\nX-Mine: v\r\nHost: h\r\n\r\n'
  assert.equal(redactRequestHead(head, ['X-Mine']), 'GET /x?sig=***&p=1 HTTP/1.0\r\nAuthorization: Basic ***\r\nX-Mine: ***\r\nHost: h\r\n\r\n')
})

test('merge: parts with one credential merge, with two are refused by their digests; a file of before starring compares by the same digest', async (t) => {
  const server = await startHttpServer((req, res) => res.end('ok'))
  t.after(() => server.close())
  const run = async (/** @type {string} */ token) => loadtest({ url: server.url, requests: 2, concurrency: 1, headers: [`Authorization: Bearer ${token}`] })
  const [a, b, other] = [await run('s3cret'), await run('s3cret'), await run('0ther')]
  const starred = `Authorization: Bearer ${redactValue('s3cret', true)}`
  assert.deepEqual(a.options.headers, [starred])
  // a file written before syncbench starred credentials holds the value itself
  const before = { ...a, options: { ...a.options, headers: ['Authorization: Bearer s3cret'] } }
  assert.deepEqual(mergeLoadResults([before, b], ['a.json', 'b.json']).options.headers, [starred])
  assert.throws(() => mergeLoadResults([before, other], ['a.json', 'other.json']), (err) => {
    assert.ok(err instanceof Error)
    assert.match(err.message, /^other\.json differs from a\.json in -H \(headers\): .*\*\*\*~[0-9a-f]{8}.* vs .*\*\*\*~[0-9a-f]{8}/)
    assert.ok(!err.message.includes('s3cret') && !err.message.includes('0ther'), err.message)
    return true
  })
})

test('the CLI\'s net: a stream guarded with a command line\'s credentials prints them starred, strings and bytes alike; without any, the stream is left alone', async () => {
  const { guardOutput } = await import('../lib/cli/output.js')
  /** @type {unknown[]} */
  const written = []
  const stream = /** @type {NodeJS.WritableStream & { write: Function }} */ (/** @type {unknown} */ ({ write: (/** @type {unknown} */ chunk) => { written.push(chunk); return true } }))
  const original = stream.write
  guardOutput(['-n', '1', 'http://h/'], [stream])
  assert.equal(stream.write, original, 'no credential: nothing wrapped')
  guardOutput(['-H', 'X-Api-Key: key-123456789', 'http://h/'], [stream])
  stream.write('refused key-123456789 here\n')
  stream.write(Buffer.from('bytes key-123456789\n'))
  const plain = Buffer.from('nothing secret\n')
  stream.write(plain)
  assert.deepEqual(written.slice(0, 2), ['refused *** here\n', 'bytes ***\n'])
  assert.equal(written[2], plain, 'a chunk without a credential goes through as it was')
})
