// syncbench ab: argument parsing, the ab-format report, the -g / -e files, and the real CLI end to end.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, writeFile, rm, readdir, lstat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { parseAbArgs, TIMELIMIT_REQUESTS } from '../lib/ab/ab-args.js'
import { formatAbReport, formatAbHtmlReport, abRoundMs, printfFixed } from '../lib/ab/ab-report.js'
import { main, helpText } from '../lib/cli/ab.js'
import { formatAbCsv, formatAbGnuplot, abCtime } from '../lib/ab/ab-files.js'
import { runCli, runCommand, binPath, startRawServer, startHttpServer, closedPort } from './helper.js'

const URL_OK = 'http://127.0.0.1:8080/'
let dir
before(async () => { dir = await mkdtemp(join(tmpdir(), 'syncbench-ab-')) })
after(async () => { await rm(dir, { recursive: true, force: true }) })

describe('parseAbArgs', () => {
  test('defaults are ab\'s', () => {
    const { options, output } = parseAbArgs([URL_OK])
    assert.equal(options.url, URL_OK)
    assert.equal(options.requests, 1)
    assert.equal(options.concurrency, 1)
    assert.equal(options.timelimit, 0)
    assert.equal(options.timeout, 30)
    assert.equal(options.keepAlive, false)
    assert.equal(options.method, 'GET')
    assert.deepEqual(options.headers, [])
    assert.deepEqual(options.cookies, [])
    assert.equal(options.variableLength, false)
    assert.equal(options.continueOnReceiveError, false)
    assert.equal(options.http11, false)
    assert.equal(options.verbosity, 1)
    assert.equal(options.body, undefined)
    assert.equal(output.json, false)
    assert.equal(output.percentiles, true)
    assert.equal(output.confidence, true)
    assert.equal(output.heartbeat, 0)
  })

  test('-t implies -n 50000 unless a -n follows it', () => {
    assert.equal(parseAbArgs(['-t', '5', URL_OK]).options.requests, TIMELIMIT_REQUESTS)
    assert.equal(parseAbArgs(['-n', '100', '-t', '5', URL_OK]).options.requests, 50000)
    const after = parseAbArgs(['-t', '5', '-n', '100', URL_OK]).options
    assert.equal(after.requests, 100)
    assert.equal(after.timelimit, 5)
  })

  test('getopt clustering: -kc 20, -n100, -c20, -kqd', () => {
    const { options, output } = parseAbArgs(['-kc', '20', '-n100', '-kqdS', URL_OK])
    assert.equal(options.keepAlive, true)
    assert.equal(options.concurrency, 20)
    assert.equal(options.requests, 100)
    assert.equal(output.quiet, true)
    assert.equal(output.percentiles, false)
    assert.equal(output.confidence, false)
    assert.equal(parseAbArgs(['-c20', '-n', '40', URL_OK]).options.concurrency, 20)
  })

  test('-H, -C, -A, -P, -m, -i, -l, -r, -s, -v, --http1.1, --json', () => {
    const { options, output } = parseAbArgs(['-H', 'X-One: 1', '-H', 'Accept: text/html', '-C', 'a=1', '-C', 'b=2',
      '-A', '  user:pw', '-P', 'proxy:pw', '-m', 'PATCH', '-l', '-r', '-s', '5', '-v', '3', '--http1.1', '--json', URL_OK])
    assert.deepEqual(options.headers, ['X-One: 1', 'Accept: text/html'])
    assert.deepEqual(options.cookies, ['a=1', 'b=2'])
    assert.equal(options.auth, 'user:pw')
    assert.equal(options.proxyAuth, 'proxy:pw')
    assert.equal(options.method, 'PATCH')
    assert.equal(options.variableLength, true)
    assert.equal(options.continueOnReceiveError, true)
    assert.equal(options.timeout, 5)
    assert.equal(options.verbosity, 3)
    assert.equal(options.http11, true)
    assert.equal(output.json, true)
    assert.equal(parseAbArgs(['-i', URL_OK]).options.method, 'HEAD')
  })

  test('-p reads the file when parsing, -T sets its type (default text/plain), -u is PUT', async () => {
    const file = join(dir, 'body.json')
    await writeFile(file, '{"a":1}')
    const post = parseAbArgs(['-p', file, '-T', 'application/json', URL_OK])
    assert.equal(post.options.method, 'POST')
    assert.deepEqual(post.options.body, Buffer.from('{"a":1}'))
    assert.equal(post.options.contentType, 'application/json')
    assert.equal(post.output.sendBody, true)
    const put = parseAbArgs(['-u', file, URL_OK])
    assert.equal(put.options.method, 'PUT')
    assert.equal(put.options.contentType, 'text/plain')
  })

  test('heartbeat: every 10% of -n, at least 100, only above 150 requests, none with -q', () => {
    assert.equal(parseAbArgs(['-n', '150', URL_OK]).output.heartbeat, 0)
    assert.equal(parseAbArgs(['-n', '151', URL_OK]).output.heartbeat, 100)
    assert.equal(parseAbArgs(['-n', '5000', URL_OK]).output.heartbeat, 500)
    assert.equal(parseAbArgs(['-t', '1', URL_OK]).output.heartbeat, 5000)
    assert.equal(parseAbArgs(['-q', '-n', '5000', URL_OK]).output.heartbeat, 0)
  })

  test('URLs: ab\'s host:port/path without a scheme, a path with a query', () => {
    assert.equal(parseAbArgs(['127.0.0.1:8080/x']).options.url, 'http://127.0.0.1:8080/x')
    assert.equal(parseAbArgs(['http://localhost/a/b?c=1']).options.url, 'http://localhost/a/b?c=1')
    assert.equal(parseAbArgs(['--', 'http://[::1]:81/']).options.url, 'http://[::1]:81/')
  })

  test('--help and -V need no URL', () => {
    assert.equal(parseAbArgs(['--help']).output.help, true)
    assert.equal(parseAbArgs(['-h']).output.help, true)
    assert.equal(parseAbArgs(['-V']).output.version, true)
  })

  const bad = [
    [['-Y', URL_OK], 'SB_ERR_UNKNOWN_OPTION', 'unknown option "-Y" (see syncbench ab --help)'],
    [['--nope', URL_OK], 'SB_ERR_UNKNOWN_OPTION', 'unknown option "--nope" (see syncbench ab --help)'],
    [['-X', 'proxy:3128', URL_OK], 'SB_ERR_UNKNOWN_OPTION', '-X (ab\'s flag that sends through a proxy) is not supported by syncbench ab'],
    [[], 'SB_ERR_MISSING_ARGUMENT', 'missing the URL to test, as in syncbench ab -n 100 http://127.0.0.1:8080/'],
    [['-n'], 'SB_ERR_MISSING_ARGUMENT', '-n needs a value'],
    [['-c', '0', URL_OK], 'SB_ERR_INVALID_OPTION', '-c must be a positive integer, got "0"'],
    [['-c', '20001', '-n', '30000', URL_OK], 'SB_ERR_INVALID_OPTION', '-c must be at most 20000, got "20001"'],
    [['-n', 'abc', URL_OK], 'SB_ERR_INVALID_OPTION', '-n must be a positive integer, got "abc"'],
    [['-n', '-5', URL_OK], 'SB_ERR_INVALID_OPTION', '-n must be a positive integer, got "-5"'],
    // ab's -n is a C int: ab -n 1000000000000 says "Invalid number of requests"
    [['-n', '1000000000000', URL_OK], 'SB_ERR_INVALID_OPTION', '-n must be at most 2147483647, got "1000000000000"'],
    [['-n', '2147483648', URL_OK], 'SB_ERR_INVALID_OPTION', '-n must be at most 2147483647, got "2147483648"'],
    [['-s', '0', URL_OK], 'SB_ERR_INVALID_OPTION', '-s must be a positive number of seconds or a duration (500ms, 10s, 2m), got "0"'],
    [['-t', 'soon', URL_OK], 'SB_ERR_INVALID_OPTION', '-t must be a non-negative number of seconds or a duration (500ms, 10s, 2m), got "soon"'],
    [['-c', '5', '-n', '2', URL_OK], 'SB_ERR_INVALID_OPTION', '-c must not exceed the number of requests (-n 2), got "5"'],
    [['ftp://127.0.0.1/'], 'SB_ERR_INVALID_URL', 'only http:// and https:// URLs are supported (no ftp), got "ftp://127.0.0.1/"'],
    [['https://127.0.0.1:8443'], 'SB_ERR_INVALID_URL', 'the URL needs a host and a path, as in http://127.0.0.1:8080/, got "https://127.0.0.1:8443"'],
    [['http://127.0.0.1:8080'], 'SB_ERR_INVALID_URL', 'the URL needs a host and a path, as in http://127.0.0.1:8080/, got "http://127.0.0.1:8080"'],
    [['http://127.0.0.1:99999/'], 'SB_ERR_INVALID_URL', 'the URL cannot be parsed, got "http://127.0.0.1:99999/"'],
    [[URL_OK, 'extra'], 'SB_ERR_INVALID_OPTION', 'expected one URL, got 2 arguments: "http://127.0.0.1:8080/" "extra"'],
    [['-p', '/nonexistent/body', URL_OK], 'SB_ERR_INVALID_OPTION', '-p cannot read "/nonexistent/body": no such file (ENOENT)'],
    [['-i', '-u', '/etc/hostname', URL_OK], 'SB_ERR_INVALID_OPTION', '-u cannot be combined with -i: ab sends one method (HEAD already chosen)'],
    [['-H', 'no colon', URL_OK], 'SB_ERR_INVALID_OPTION', '-H must be a header line "Name: value", got "no ***"'],
    [['-v', 'loud', URL_OK], 'SB_ERR_INVALID_OPTION', '-v must be a non-negative integer, got "loud"']
  ]
  for (const [argv, code, message] of bad) {
    test(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(() => parseAbArgs(argv), (err) => {
        assert.equal(err.name, 'SyncbenchError')
        assert.equal(err.code, code)
        assert.equal(err.message, message)
        return true
      })
    })
  }
})

/**
 * Run a shell command line (bash -c) with a time bound; the CLI's own streams and exit code.
 * @param {string} line
 * @returns {Promise<{ code: number|null, stdout: string, stderr: string }>}
 */
async function runCommandInShell (line) {
  const child = spawn('bash', ['-c', line], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return { code, stdout, stderr }
}

/** A LoadResult with figures chosen to exercise ab's rounding. */
function fixedResult (overrides = {}) {
  return {
    schema: 'syncbench/load-result@1',
    tool: { name: 'syncbench', version: '0.1.0' },
    options: { url: 'http://127.0.0.1:8080/hello?x=1', requests: 200, concurrency: 10, keepAlive: true },
    startedAt: '2026-11-22T19:00:00.000Z',
    server: { software: 'nginx/1.25.3', hostname: '127.0.0.1', port: 8080 },
    document: { path: '/hello?x=1', length: 12, variable: false },
    concurrency: 10,
    timeTakenSeconds: 0.1234567,
    completeRequests: 200,
    failedRequests: 0,
    failures: { connect: 0, receive: 0, length: 0, exceptions: 0 },
    writeErrors: 0,
    non2xxResponses: 0,
    keepAliveRequests: 200,
    totalTransferredBytes: 27000,
    htmlTransferredBytes: 2400,
    totalBodySentBytes: 0,
    requestsPerSecond: 200 / 0.1234567,
    timePerRequestMs: 10 * 0.1234567 * 1000 / 200,
    timePerRequestAcrossMs: 0.1234567 * 1000 / 200,
    transferRateKBps: 27000 / 1024 / 0.1234567,
    connectionTimes: {
      // 1.4996 ms is 1500 us, which ab rounds up to 2 (Math.round(1.4996) would say 1)
      connect: { min: 0.0004, mean: 0.1, sd: 0.2999, median: 0, max: 1.4996 },
      // sd 1.25 is an exact tie: glibc's %.1f prints 1.2
      processing: { min: 2.5, mean: 5.5, sd: 1.25, median: 5.4994, max: 12 },
      waiting: { min: 2, mean: 5, sd: 0.4, median: 4, max: 11 },
      total: { min: 3, mean: 6.2, sd: 0.8, median: 5, max: 13 }
    },
    percentiles: { 50: 5, 66: 5.4996, 75: 6.5, 80: 7, 90: 8, 95: 9, 98: 10, 99: 11, 100: 13 },
    latency: { p50: 5, p75: 6.5, p90: 8, p99: 11, p999: 13, p9999: 13, max: 13, mean: 6.2, stddev: 0.8 },
    statusCodes: { 200: 200 },
    errors: {},
    aborted: false,
    ...overrides
  }
}

const HEAD = [
  '', '',
  'Server Software:        nginx/1.25.3',
  'Server Hostname:        127.0.0.1',
  'Server Port:            8080',
  '',
  'Document Path:          /hello?x=1'
]
const RATES = [
  'Requests per second:    1620.00 [#/sec] (mean)',
  'Time per request:       6.173 [ms] (mean)',
  'Time per request:       0.617 [ms] (mean, across all concurrent requests)',
  'Transfer rate:          213.57 [Kbytes/sec] received'
]
const TIMES = [
  '',
  'Connection Times (ms)',
  '              min  mean[+/-sd] median   max',
  'Connect:        0    0   0.3      0       2',
  'Processing:     3    6   1.2      5      12',
  'Waiting:        2    5   0.4      4      11',
  'Total:          3    6   0.8      5      13',
  'ERROR: The median and mean for the waiting time are more than twice the standard',
  '       deviation apart. These results are NOT reliable.',
  'WARNING: The median and mean for the total time are not within a normal deviation',
  '        These results are probably not that reliable.'
]
const PERCENTILES = [
  '',
  'Percentage of the requests served within a certain time (ms)',
  '  50%      5',
  '  66%      6',
  '  75%      7',
  '  80%      7',
  '  90%      8',
  '  95%      9',
  '  98%     10',
  '  99%     11',
  ' 100%     13 (longest request)'
]

describe('one convention: every ab flag has a long form, durations take units', () => {
  test('the long forms parse to what the short flags do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'syncbench-long-'))
    try {
      const body = join(dir, 'body.json')
      await writeFile(body, '{"a":1}')
      const short = parseAbArgs(['-n', '20', '-c', '4', '-t', '5', '-n', '20', '-s', '9', '-k', '-p', body, '-T', 'application/json', '-H', 'X-A: 1', '-C', 'a=1', '-A', 'u:p', '-P', 'x:y', '-l', '-r', '-q', '-d', '-S', '-w', '-v', '2', '-R', '10', '-m', 'PATCH', URL_OK])
      const long = parseAbArgs(['--requests', '20', '--concurrency=4', '--timelimit', '5', '--requests', '20', '--timeout', '9', '--keepalive', '--body-file', body, '--content-type', 'application/json', '--header', 'X-A: 1', '--cookie', 'a=1', '--auth', 'u:p', '--proxy-auth', 'x:y', '--variable-length', '--continue-on-receive-error', '--quiet', '--no-percentiles', '--no-confidence', '--html', '--verbosity', '2', '--rate', '10', '--method', 'PATCH', URL_OK])
      assert.deepEqual(long, short)
      assert.equal(parseAbArgs(['--head', URL_OK]).options.method, 'HEAD')
      assert.equal(parseAbArgs(['--put-file', body, URL_OK]).options.method, 'PUT')
      const files = parseAbArgs(['--gnuplot', join(dir, 'g.tsv'), '--csv', join(dir, 'e.csv'), URL_OK]).output
      assert.deepEqual([files.gnuplot, files.csv], [join(dir, 'g.tsv'), join(dir, 'e.csv')])
      assert.deepEqual(parseAbArgs(['--ciphers', 'AES128-SHA', '--tls-protocol', 'tls1.2', 'https://127.0.0.1/']).options.tlsProtocol, 'TLS1.2')
      assert.equal(parseAbArgs(['--version']).output.version, true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('durations: 500ms, 10s, 2m, 1h, or a plain number of seconds as before', () => {
    const at = (/** @type {string[]} */ args) => parseAbArgs([...args, URL_OK]).options
    assert.equal(at(['-t', '500ms']).timelimit, 0.5)
    assert.equal(at(['-t', '2m']).timelimit, 120)
    assert.equal(at(['-t', '1.5']).timelimit, 1.5)
    assert.equal(at(['-s', '10s']).timeout, 10)
    assert.equal(at(['-s', '1h']).timeout, 3600)
    assert.equal(at(['--response-timeout', '250ms']).responseTimeout, 0.25)
    assert.throws(() => at(['-t', '5min']), { code: 'SB_ERR_INVALID_OPTION', message: '-t must be a non-negative number of seconds or a duration (500ms, 10s, 2m), got "5min"' })
    assert.throws(() => at(['-s', '0ms']), { code: 'SB_ERR_INVALID_OPTION', message: '-s must be a positive number of seconds or a duration (500ms, 10s, 2m), got "0ms"' })
  })

  test('every line of the help fits 80 columns', () => {
    const long = helpText().split('\n').filter((line) => line.length > 80)
    assert.deepEqual(long, [])
  })
})

describe('formatAbReport', () => {
  test('ab\'s layout line by line, keep-alive run', () => {
    const text = formatAbReport(fixedResult(), { keepAlive: true })
    assert.deepEqual(text.split('\n'), [
      ...HEAD,
      'Document Length:        12 bytes',
      '',
      'Concurrency Level:      10',
      'Time taken for tests:   0.123 seconds',
      'Complete requests:      200',
      'Failed requests:        0',
      'Keep-Alive requests:    200',
      'Total transferred:      27000 bytes',
      'HTML transferred:       2400 bytes',
      ...RATES,
      ...TIMES,
      ...PERCENTILES,
      ''
    ])
  })

  test('-S prints min/avg/max without sd, median or warnings; -d drops the percentiles', () => {
    const lines = formatAbReport(fixedResult(), { keepAlive: false, confidence: false, percentiles: false }).split('\n')
    assert.ok(!lines.includes('Keep-Alive requests:    200'))
    assert.deepEqual(lines.slice(lines.indexOf('Connection Times (ms)')), [
      'Connection Times (ms)',
      '              min   avg   max',
      'Connect:        0     0    2',
      'Processing:     3     6   12',
      'Waiting:        2     5   11',
      'Total:          3     6   13',
      ''
    ])
  })

  test('-l prints Variable; failures, write errors and non-2xx get their lines; a body adds sent/total rates', () => {
    const result = fixedResult({
      failedRequests: 7,
      failures: { connect: 1, receive: 2, length: 3, exceptions: 1 },
      writeErrors: 2,
      non2xxResponses: 5,
      totalBodySentBytes: 34600
    })
    const lines = formatAbReport(result, { keepAlive: true, variableLength: true, sendBody: true, percentiles: false }).split('\n')
    const from = lines.indexOf('Document Length:        Variable')
    assert.notEqual(from, -1)
    assert.deepEqual(lines.slice(from + 4, from + 21), [
      'Complete requests:      200',
      'Failed requests:        7',
      '   (Connect: 1, Receive: 2, Length: 3, Exceptions: 1)',
      'Write errors:           2',
      'Non-2xx responses:      5',
      'Keep-Alive requests:    200',
      'Total transferred:      27000 bytes',
      'Total body sent:        34600',
      'HTML transferred:       2400 bytes',
      ...RATES,
      '                        273.69 kb/s sent',
      '                        487.27 kb/s total',
      '',
      'Connection Times (ms)'
    ])
  })

  test('no rates when nothing completed, no percentile table for a single request', () => {
    const none = formatAbReport(fixedResult({ completeRequests: 0, timeTakenSeconds: 0 }))
    assert.ok(!none.includes('Requests per second'))
    assert.ok(!none.includes('Connection Times'))
    assert.ok(none.endsWith('HTML transferred:       2400 bytes\n'))
    const one = formatAbReport(fixedResult({ completeRequests: 1 }))
    assert.ok(one.includes('Connection Times (ms)'))
    assert.ok(!one.includes('Percentage of the requests'))
  })

  test('rounding: microseconds half up, printf ties to even', () => {
    assert.equal(abRoundMs(1.4996), 2)
    assert.equal(abRoundMs(1.4994), 1)
    assert.equal(abRoundMs(0.4994), 0)
    assert.equal(abRoundMs(0.5), 1)
    assert.equal(printfFixed(1.25, 1), '1.2')
    assert.equal(printfFixed(1.35, 1), '1.4')
    assert.equal(printfFixed(2.5, 0), '2')
    assert.equal(printfFixed(0.125, 2), '0.12')
    assert.equal(printfFixed(0.1234567, 3), '0.123')
  })
})

test('-w: ab\'s HTML table, failures without Receive, Processing = Total - Connect by column', () => {
  const result = fixedResult({ failedRequests: 3, failures: { connect: 1, receive: 1, length: 1, exceptions: 0 } })
  const lines = formatAbHtmlReport(result, { keepAlive: true }).split('\n')
  assert.deepEqual(lines.slice(0, 4), ['', '', '<table >', '<tr ><th colspan=2 bgcolor=white>Server Software:</th><td colspan=2 bgcolor=white>nginx/1.25.3</td></tr>'])
  assert.ok(lines.includes('<tr ><td colspan=4 bgcolor=white >   (Connect: 1, Length: 1, Exceptions: 0)</td></tr>'))
  assert.ok(lines.includes('<tr ><th colspan=2 bgcolor=white>Keep-Alive requests:</th><td colspan=2 bgcolor=white>200</td></tr>'))
  assert.ok(lines.includes('<tr ><th colspan=2 bgcolor=white>Requests per second:</th><td colspan=2 bgcolor=white>1620.00</td></tr>'))
  assert.deepEqual(lines.slice(-5), [
    '<tr ><th bgcolor=white>Connect:</th><td bgcolor=white>    0</td><td bgcolor=white>    0</td><td bgcolor=white>    2</td></tr>',
    '<tr ><th bgcolor=white>Processing:</th><td bgcolor=white>    3</td><td bgcolor=white>    6</td><td bgcolor=white>   11</td></tr>',
    '<tr ><th bgcolor=white>Total:</th><td bgcolor=white>    3</td><td bgcolor=white>    6</td><td bgcolor=white>   13</td></tr>',
    '</table>',
    ''
  ])
})

describe('-g and -e formats', () => {
  const records = [
    { start: Date.UTC(2026, 0, 5, 10, 0, 0, 250), connect: 0.4, waiting: 2.5004, total: 3.2 },
    { start: Date.UTC(2026, 0, 5, 10, 0, 1, 0), connect: 0, waiting: 0.2, total: 0.9 }
  ]
  test('gnuplot: header, one line per request sorted by total time, ab\'s columns', () => {
    const lines = formatAbGnuplot(records).split('\n')
    assert.equal(lines[0], 'starttime\tseconds\tctime\tdtime\tttime\twait')
    assert.equal(lines.length, 4)
    assert.equal(lines[3], '')
    assert.deepEqual(lines[1].split('\t'), [abCtime(records[1].start), String(Date.UTC(2026, 0, 5, 10, 0, 1) / 1000), '0', '1', '1', '0'])
    assert.deepEqual(lines[2].split('\t').slice(1), [String(Date.UTC(2026, 0, 5, 10, 0, 0) / 1000), '0', '3', '3', '3'])
    assert.match(lines[1].split('\t')[0], /^(Sun|Mon) Jan 0[45] \d\d:\d\d:0[01] 2026$/)
  })

  test('csv: 101 percentages with 3 decimals, ab\'s nearest index', () => {
    const totals = Array.from({ length: 10 }, (_, i) => 10.25 - i)
    const lines = formatAbCsv(totals).trimEnd().split('\n')
    assert.equal(lines[0], 'Percentage served,Time in ms')
    assert.equal(lines.length, 102)
    assert.equal(lines[1], '0,1.250')
    assert.equal(lines[6], '5,2.250')
    assert.equal(lines[51], '50,6.250')
    assert.equal(lines[100], '99,10.250')
    assert.equal(lines[101], '100,10.250')
  })
})

/** A raw HTTP/1.1 server answering every request with exactly `response`, counting them. */
async function fixedServer (response) {
  const stats = { requests: 0, connections: 0 }
  const srv = await startRawServer((socket) => {
    stats.connections++
    let pending = ''
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1')
      let end
      while ((end = pending.indexOf('\r\n\r\n')) !== -1) {
        const head = pending.slice(0, end)
        pending = pending.slice(end + 4)
        stats.requests++
        const keepAlive = /^connection: *keep-alive/im.test(head)
        socket.write(response(keepAlive))
        if (!keepAlive) socket.end()
      }
    })
  })
  return { ...srv, stats }
}

const BODY = 'hello world\n'
const respond = (keepAlive) => 'HTTP/1.1 200 OK\r\nServer: syncbench-test\r\nContent-Type: text/plain\r\n' +
  `Content-Length: ${BODY.length}\r\nConnection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n${BODY}`

describe('syncbench ab, the real CLI', () => {
  let srv
  before(async () => { srv = await fixedServer(respond) })
  after(() => srv.close())

  test('--json prints exactly the LoadResult, each field matching what the server sent', async (t) => {
    const before = srv.stats.requests
    const { code, stdout, stderr } = await runCli(['ab', '-k', '-c', '4', '-n', '40', '--json', `${srv.url}hello?x=1`])
    assert.equal(stderr, '')
    assert.equal(code, 0)
    const r = JSON.parse(stdout)
    assert.equal(r.schema, 'syncbench/load-result@1')
    assert.equal(r.tool.name, 'syncbench')
    assert.equal(typeof r.tool.version, 'string')
    assert.equal(r.options.requests, 40)
    assert.equal(r.options.concurrency, 4)
    assert.equal(r.options.keepAlive, true)
    assert.ok(!Number.isNaN(Date.parse(r.startedAt)))
    assert.equal(r.server.software, 'syncbench-test')
    assert.equal(r.server.hostname, '127.0.0.1')
    assert.equal(r.server.port, srv.port)
    assert.equal(r.document.path, '/hello?x=1')
    assert.equal(r.document.length, BODY.length)
    assert.equal(r.document.variable, false)
    assert.equal(r.concurrency, 4)
    assert.equal(r.completeRequests, 40)
    assert.equal(srv.stats.requests - before, 40)
    assert.equal(r.failedRequests, 0)
    assert.deepEqual(r.failures, { connect: 0, receive: 0, length: 0, exceptions: 0 })
    assert.equal(r.writeErrors, 0)
    assert.equal(r.non2xxResponses, 0)
    assert.equal(r.keepAliveRequests, 40)
    assert.equal(r.totalTransferredBytes, 40 * respond(true).length)
    assert.equal(r.htmlTransferredBytes, 40 * BODY.length)
    assert.equal(r.totalBodySentBytes, 0)
    assert.deepEqual(r.statusCodes, { 200: 40 })
    assert.deepEqual(r.errors, {})
    assert.equal(r.aborted, false)
    assert.ok(r.timeTakenSeconds > 0)
    assert.ok(Math.abs(r.requestsPerSecond - 40 / r.timeTakenSeconds) < 1e-6 * r.requestsPerSecond)
    for (const row of ['connect', 'processing', 'waiting', 'total']) {
      for (const k of ['min', 'mean', 'sd', 'median', 'max']) assert.equal(typeof r.connectionTimes[row][k], 'number', `${row}.${k}`)
    }
    assert.deepEqual(Object.keys(r.percentiles).sort(), ['100', '50', '66', '75', '80', '90', '95', '98', '99'])
    t.diagnostic(`server saw ${srv.stats.connections} connections`)
  })

  test('the report goes to stdout in ab\'s layout, nothing on stderr below ab\'s progress threshold', async () => {
    const { code, stdout, stderr } = await runCli(['ab', '-c', '2', '-n', '10', `${srv.url}`])
    assert.equal(code, 0)
    assert.equal(stderr, '')
    const lines = stdout.split('\n')
    assert.match(lines[0], /^This is syncbench \S+, an ApacheBench 2\.3 compatible load generator$/)
    assert.equal(lines[1], '')
    assert.equal(lines[2], 'Benchmarking 127.0.0.1 (be patient).....done')
    assert.deepEqual(lines.slice(3, 12), ['', '', 'Server Software:        syncbench-test', 'Server Hostname:        127.0.0.1',
      `Server Port:            ${srv.port}`, '', 'Document Path:          /', `Document Length:        ${BODY.length} bytes`, ''])
    assert.ok(lines.includes('Complete requests:      10'))
    assert.ok(lines.includes('Failed requests:        0'))
    assert.ok(!lines.some((l) => l.startsWith('Keep-Alive requests:')))
    assert.ok(lines.includes(`Total transferred:      ${10 * respond(false).length} bytes`))
    assert.ok(lines.includes(`HTML transferred:       ${10 * BODY.length} bytes`))
    assert.ok(lines.includes(' 100%  ' + lines.find((l) => l.startsWith(' 100%')).slice(7)))
  })

  test('above 150 requests, not on a terminal: stderr stays quiet (no "Completed", no "Finished")', async () => {
    const { code, stdout, stderr } = await runCli(['ab', '-k', '-c', '5', '-n', '200', srv.url])
    assert.equal(code, 0)
    assert.equal(stderr, '')
    assert.ok(stdout.includes('Benchmarking 127.0.0.1 (be patient)\n\n\nServer Software:'))
  })

  test('-g and -e write ab\'s files atomically', async () => {
    const g = join(dir, 'out.tsv')
    const e = join(dir, 'out.csv')
    const { code, stderr } = await runCli(['ab', '-q', '-c', '3', '-n', '30', '-g', g, '-e', e, srv.url])
    assert.equal(stderr, '')
    assert.equal(code, 0)
    const tsv = (await readFile(g, 'utf8')).trimEnd().split('\n')
    assert.equal(tsv.length, 31)
    assert.equal(tsv[0], 'starttime\tseconds\tctime\tdtime\tttime\twait')
    for (const line of tsv.slice(1)) {
      const cols = line.split('\t')
      assert.equal(cols.length, 6)
      assert.ok(cols.slice(1).every((c) => /^\d+$/.test(c)), line)
    }
    const csv = (await readFile(e, 'utf8')).trimEnd().split('\n')
    assert.equal(csv.length, 102)
    assert.ok(csv.slice(1).every((l, i) => new RegExp(`^${i},\\d+\\.\\d{3}$`).test(l)))
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tmp')), [])
  })

  test('-p and -u read as many bytes as stat gives, as ab: a device posts nothing, /dev/zero is not read forever (found by test/cli-fuzz.test.js)', async (t) => {
    /** @type {string[]} */
    const seen = []
    const echo = await startHttpServer((req, res) => {
      let n = 0
      req.on('data', (d) => { n += d.length })
      req.on('end', () => { seen.push(`${req.method} ${req.headers['content-length']} ${n}`); res.end('ok') })
    })
    t.after(() => echo.close())
    for (const [flag, file, method] of [['-p', '/dev/zero', 'POST'], ['-u', '/dev/zero', 'PUT'], ['-p', '/dev/null', 'POST']]) {
      const r = await runCli(['ab', flag, file, echo.url], { timeoutMs: 15_000 })
      assert.equal(r.code, 0, `${flag} ${file}: ${r.stderr}`)
      assert.equal(seen.pop(), `${method} 0 0`)
    }
    const body = join(dir, 'post-body.txt')
    await writeFile(body, 'a=1&b=2')
    assert.equal((await runCli(['ab', '-p', body, echo.url])).code, 0)
    assert.equal(seen.pop(), 'POST 7 7')
  })

  test('-g into a FIFO writes through it, as ab: the FIFO is not replaced by a regular file (found by test/cli-fuzz.test.js)', async (t) => {
    const fifo = join(dir, 'gnuplot.fifo')
    if (spawnSync('mkfifo', [fifo]).status !== 0) return t.skip('mkfifo is not available')
    // the reader: a FIFO's writer waits for one; killed at its bound if nothing is ever written into the FIFO
    const reader = runCommand('cat', [fifo], { timeoutMs: 15_000 })
    const r = await runCli(['ab', '-q', '-n', '3', '-g', fifo, srv.url], { timeoutMs: 15_000 })
    assert.equal(r.stderr, '')
    assert.equal(r.code, 0)
    const { stdout } = await reader
    assert.equal(stdout.split('\n')[0], 'starttime\tseconds\tctime\tdtime\tttime\twait')
    assert.equal(stdout.trimEnd().split('\n').length, 4)
    assert.ok((await lstat(fifo)).isFIFO(), 'still a FIFO')
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tmp')), [])
  })

  test('on a terminal, "Completed N requests" every heartbeat on stderr, then "Finished"', async () => {
    // main() in-process with streams that say they are terminals: the only way to get a TTY without a pty
    const sink = (isTTY) => {
      const chunks = []
      return { isTTY, chunks, write (c) { chunks.push(String(c)); return true } }
    }
    const io = { stdout: sink(false), stderr: sink(true), env: {} }
    const code = await main(['-k', '-c', '5', '-n', '300', srv.url], io)
    assert.equal(code, 0)
    assert.equal(io.stderr.chunks.join(''), 'Completed 100 requests\nCompleted 200 requests\nCompleted 300 requests\nFinished 300 requests\n')
    assert.match(io.stdout.chunks.join(''), /^Complete requests: {6}300$/m)
    const quiet = { stdout: sink(false), stderr: sink(true), env: {} }
    assert.equal(await main(['-q', '-k', '-c', '5', '-n', '300', srv.url], quiet), 0)
    assert.equal(quiet.stderr.chunks.join(''), '')
    assert.match(quiet.stdout.chunks.join(''), /\(be patient\)\.\.\.\.\.done\n/)
  })

  test('-v 2 prints ab\'s INFO block with the request head before the run, a cookie\'s value starred', async () => {
    const { code, stdout } = await runCli(['ab', '-v', '2', '-k', '-C', 'a=1', '-H', 'X-A: b', '-n', '1', `${srv.url}x`])
    assert.equal(code, 0)
    const head = `GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\nCookie: a=***\r\nX-A: b\r\nHost: 127.0.0.1:${srv.port}\r\n` +
      'User-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n'
    assert.ok(stdout.includes(`(be patient)...INFO: GET header == \n---\n${head}\n---\n..done\n`), stdout)
  })

  test('--help and -V print on stdout and exit 0', async () => {
    const help = await runCli(['ab', '--help'])
    assert.equal(help.code, 0)
    for (const flag of ['-n', '-c', '-t', '-s', '-k', '-p', '-u', '-T', '-m', '-i', '-H', '-C', '-A', '-P', '-l', '-r', '-q', '-d', '-S', '-g', '-e', '-w', '-v', '-h', '-V', '--http1.1', '--json']) {
      assert.match(help.stdout, new RegExp(`^ {2}(-h, )?${flag.replace('.', '\\.')}\\b`, 'm'), flag)
    }
    const v = await runCli(['ab', '-V'])
    assert.equal(v.code, 0)
    assert.match(v.stdout, /^This is syncbench \S+, an ApacheBench 2\.3 compatible load generator\n$/)
  })

  test('Ctrl-C ends the run early and still prints the report of what was measured', async () => {
    let answered = 0
    let onAnswer = () => {}
    const slow = await fixedServer((keepAlive) => {
      answered++
      onAnswer()
      return respond(keepAlive)
    })
    try {
      const child = spawn(process.execPath, [binPath, 'ab', '-q', '-c', '1', '-n', '100000', slow.url], { stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
      const safety = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await new Promise((resolve) => { onAnswer = () => { if (answered >= 20) resolve() } })
      child.kill('SIGINT')
      const [code] = await once(child, 'close')
      clearTimeout(safety)
      assert.equal(code, 1)
      const done = Number(/^Complete requests: +(\d+)$/m.exec(stdout)?.[1])
      assert.ok(done >= 19 && done < 100000, `complete requests ${done}`)
      assert.ok(!stdout.includes('..done'))
      assert.match(stdout, /^Connection Times \(ms\)$/m)
    } finally {
      await slow.close()
    }
  })
})

describe('syncbench ab, bad input and runs ab would give up: one line on stderr, non-zero exit', () => {
  const cases = [
    [['-Y', URL_OK], /^syncbench ab: unknown option "-Y"/],
    [[], /^syncbench ab: missing the URL/],
    [['-c', '0', URL_OK], /^syncbench ab: -c must be a positive integer, got "0"$/],
    [['-n', 'abc', URL_OK], /^syncbench ab: -n must be a positive integer, got "abc"$/],
    [['-c', '5', '-n', '2', URL_OK], /^syncbench ab: -c must not exceed the number of requests \(-n 2\), got "5"$/],
    [['ftp://127.0.0.1/'], /^syncbench ab: only http:\/\/ and https:\/\/ URLs are supported \(no ftp\)/],
    [['http://127.0.0.1:8080'], /^syncbench ab: the URL needs a host and a path/],
    [['-p', '/nonexistent/body', URL_OK], /^syncbench ab: -p cannot read "\/nonexistent\/body": no such file \(ENOENT\)$/],
    [['-g', '/nonexistent/dir/out.tsv', URL_OK], /^syncbench ab: -g cannot write "\/nonexistent\/dir\/out.tsv": no such folder \(ENOENT\)$/]
  ]
  for (const [argv, pattern] of cases) {
    test(JSON.stringify(argv), async () => {
      const { code, stdout, stderr } = await runCli(['ab', ...argv])
      assert.equal(stdout, '')
      assert.notEqual(code, 0)
      assert.equal(stderr.split('\n').length, 2, stderr)
      assert.ok(stderr.endsWith('\n'))
      assert.match(stderr.trimEnd(), pattern)
    })
  }

  test('a receive error without -r ends the run as ab does: one line, "Total of N requests completed"', async () => {
    let connections = 0
    const flaky = await startRawServer((socket) => {
      const n = ++connections
      socket.once('data', () => {
        if (n === 3) socket.resetAndDestroy()
        else socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')
      })
    })
    try {
      const { code, stdout, stderr } = await runCli(['ab', '-c', '1', '-n', '10', flaky.url])
      assert.equal(code, 1)
      assert.match(stdout, /\(be patient\)\.\.\.Total of 2 requests completed\n$/)
      assert.equal(stderr.split('\n').length, 2, stderr)
      assert.match(stderr, /^syncbench ab: .*ECONNRESET/)
    } finally {
      await flaky.close()
    }
  })

  test('-c beyond the open-files limit: one line with the sockets opened and how to raise it (ulimit -n)', async (t) => {
    // Answers each request's header and never its body, so every connection stays open (ab opens the
    // others once the first header arrived); the CLI runs under ulimit -n 64 with -c 200.
    const holding = await startRawServer((socket) => socket.once('data', () => socket.write('HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n')))
    t.after(() => holding.close())
    for (const io of ['native', 'net']) {
      const cli = `SYNCBENCH_IO=${io} exec "${process.execPath}" "${binPath}" ab -n 200 -c 200 -s 10 ${holding.url}`
      const { code, stdout, stderr } = await runCommandInShell(`ulimit -n 64 && ${cli}`)
      assert.equal(code, 1, stderr)
      assert.equal(stderr.split('\n').length, 2, stderr)
      assert.match(stderr, /^syncbench ab: 127\.0\.0\.1:\d+: test aborted after 10 failures: too many open files \(EMFILE\): only \d+ sockets could be opened for -c 200; raise the limit of open files per process \(now 64\) with ulimit -n 300 in this shell, or lower -c\n$/)
      // the sockets that got a descriptor: all the limit leaves after Node's own files (about 20 of them)
      const opened = Number(/only (\d+) sockets/.exec(stderr)?.[1])
      assert.ok(opened >= 20 && opened < 64, `${io}: ${stderr}`)
      assert.ok(!stderr.includes('undefined'), stderr)
      assert.match(stdout, /^This is ApacheBench|^$/m)
    }
  })

  test('an unreachable port', async () => {
    const port = await closedPort()
    const { code, stdout, stderr } = await runCli(['ab', '-n', '3', `http://127.0.0.1:${port}/`])
    assert.equal(stdout, '')
    assert.notEqual(code, 0)
    assert.equal(stderr.split('\n').length, 2, stderr)
    assert.match(stderr, /^syncbench ab: .*(ECONNREFUSED|connect)/i)
    assert.ok(!stderr.includes('    at '))
  })
})

describe('syncbench ab refuses bad input before any load (issue 12, bad input)', () => {
  /** @type {Awaited<ReturnType<typeof startRawServer>>} */
  let srv
  let connections = 0
  before(async () => {
    srv = await startRawServer((socket) => {
      connections++
      socket.once('data', () => socket.end('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'))
    })
  })
  after(() => srv.close())

  const cases = [
    [['-p', '/etc/hostname', '-T', 'text/plain\r\nX-Injected: 1'], /^syncbench ab: -T must be a content type on one line, got "text\/plain\\r\\nX-Injected: 1"\n$/],
    [['-T', 'a\nb'], /^syncbench ab: -T must be a content type on one line, got "a\\nb"\n$/],
    [[(url) => `${url}x\r\nX-Injected: 1`], /^syncbench ab: the URL must be on one line, got "http:\/\/127\.0\.0\.1:\d+\/x\\r\\nX-Injected: 1"\n$/],
    [['-g', ''], /^syncbench ab: -g needs a file name, got ""\n$/],
    [['-e', ''], /^syncbench ab: -e needs a file name, got ""\n$/],
    // found by test/cli-fuzz.test.js: access() lets root through /proc, and a folder failed after the run
    [['-e', '/proc/x'], /^syncbench ab: -e cannot write "\/proc\/x": .*\(E[A-Z]+\)\n$/],
    [['-g', '/etc/hostname/x'], /^syncbench ab: -g cannot write "\/etc\/hostname\/x": a part of the path is not a folder \(ENOTDIR\)\n$/],
    [['-g', tmpdir()], /^syncbench ab: -g cannot write ".+": a folder, not a file \(EISDIR\)\n$/]
  ]
  for (const [args, message] of cases) {
    test(`refuses ${JSON.stringify(args.map(String))}`, async () => {
      const before = connections
      const hasUrl = typeof args[args.length - 1] === 'function'
      const argv = args.map((a) => typeof a === 'function' ? a(srv.url) : a)
      const { code, stdout, stderr } = await runCli(['ab', '-n', '1', ...argv, ...(hasUrl ? [] : [srv.url])])
      assert.equal(code, 2)
      assert.equal(stdout, '')
      assert.equal(stderr.split('\n').length, 2, stderr)
      assert.match(stderr, message)
      assert.equal(connections, before, 'no request was sent')
    })
  }
})
