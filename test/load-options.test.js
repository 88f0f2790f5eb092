// The load options' one set of rules (lib/load/options.js): the same bad value is refused the same
// way whether it comes from ab's argv, the loadtest() API or an experiment file, and the bounds the
// CLI enforces (MAX_CONCURRENCY, ...) hold for a program too.
import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseAbArgs } from '../lib/ab/ab-args.js'
import { loadtest, normalizeOptions } from '../lib/load/loadtest.js'
import { MAX_CONCURRENCY, TIMELIMIT_REQUESTS, defaultOptions, loadOptionRules } from '../lib/load/options.js'
import { validateExperiment, loadExperimentFile } from '../lib/run/experiment-loader.js'
import { parseRunArgs } from '../lib/cli/run.js'
import { helpText } from '../lib/cli/ab.js'
import { SyncbenchError } from '../lib/errors.js'
import { startRawServer, runCli } from './helper.js'

const URL_OK = 'http://127.0.0.1:8080/'

/** An experiment that is valid but for `extra`. */
function experiment (extra) {
  return { name: 'x', server: { app: 'lab' }, variants: [{ label: 'a', path: '/' }], ...extra }
}

/** @param {() => unknown} fn @returns {any} the error fn threw */
function thrown (fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
  assert.fail('expected a throw')
}

describe('one bad value, three ways in, one refusal', () => {
  // [LoadOptions property, ab flag, argv text, the same value as a program gives it, what a good value is]
  const cases = [
    ['requests', '-n', '0', 0, 'must be a positive integer'],
    ['concurrency', '-c', '0', 0, 'must be a positive integer'],
    ['concurrency', '-c', '20001', 20001, 'must be at most 20000'],
    ['timelimit', '-t', 'soon', 'soon', 'must be a non-negative number of seconds or a duration (500ms, 10s, 2m)'],
    ['timeout', '-s', '0', 0, 'must be a positive number of seconds or a duration (500ms, 10s, 2m)'],
    ['method', '-m', 'GE T', 'GE T', 'must be an HTTP method token'],
    ['verbosity', '-v', 'loud', 'loud', 'must be a non-negative integer']
  ]
  for (const [name, flag, raw, value, expected] of cases) {
    test(`${name} = ${JSON.stringify(value)}`, async () => {
      // -n large enough that only the value under test is wrong
      const argv = thrown(() => parseAbArgs([flag, raw, ...(name === 'requests' ? [] : ['-n', '30000']), URL_OK]))
      assert.equal(argv.code, 'SB_ERR_INVALID_OPTION')
      assert.equal(argv.message, `${flag} ${expected}, got "${raw}"`)

      const options = { url: URL_OK, [name]: value, ...(name === 'requests' ? {} : { requests: 30000 }) }
      await assert.rejects(loadtest(options), (err) => {
        assert.ok(err instanceof SyncbenchError)
        assert.equal(err.code, 'SB_ERR_INVALID_OPTION')
        assert.equal(err.message, `${flag} (${name}) ${expected}, got "${value}"`)
        return true
      })

      // the file is at fault (SB_ERR_EXPERIMENT); the option's own refusal is its cause
      const file = thrown(() => validateExperiment(experiment({ load: { [name]: value } }), 'file.json'))
      assert.equal(file.code, 'SB_ERR_EXPERIMENT')
      assert.equal(file.message, `file.json: load.${name} ${expected}, got "${value}"`)
      assert.equal(file.cause.code, 'SB_ERR_INVALID_OPTION')
      assert.equal(file.cause.message, `load.${name} ${expected}, got "${value}"`)
    })
  }

  // a line without "Name:" cannot say which part is a credential: all but its first word is starred
  test('a header line without a name: -H, headers, load.headers', () => {
    assert.equal(thrown(() => parseAbArgs(['-H', 'no colon', URL_OK])).message, '-H must be a header line "Name: value", got "no ***"')
    const api = thrown(() => normalizeOptions({ url: URL_OK, headers: ['X: 1', 'no colon'] }))
    assert.equal(api.code, 'SB_ERR_INVALID_OPTION')
    assert.equal(api.message, '-H (headers) must be a header line "Name: value", got "no ***"')
    const file = thrown(() => validateExperiment(experiment({ load: { headers: ['no colon'] } }), 'file.json'))
    assert.equal(file.message, 'file.json: load.headers must be a header line "Name: value", got "no ***"')
  })

  test('-c above -n: the CLI\'s words, the API\'s names', () => {
    assert.equal(thrown(() => parseAbArgs(['-c', '5', '-n', '2', URL_OK])).message, '-c must not exceed the number of requests (-n 2), got "5"')
    const api = thrown(() => normalizeOptions({ url: URL_OK, requests: 2, concurrency: 5 }))
    assert.equal(api.code, 'SB_ERR_INVALID_OPTION')
    assert.equal(api.message, '-c (concurrency) must not exceed the number of requests (-n (requests) 2), got "5"')
  })

  test('an experiment file on disk and syncbench run refuse it with the option named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'syncbench-options-'))
    after(() => rm(dir, { recursive: true, force: true }))
    await writeFile(join(dir, 'wide.json'), JSON.stringify(experiment({ load: { requests: 50000, concurrency: 1e6 } })))
    await assert.rejects(loadExperimentFile('wide.json', dir), (err) => {
      assert.equal(err.code, 'SB_ERR_EXPERIMENT')
      assert.equal(err.message, '--experiment wide.json: load.concurrency must be at most 20000, got "1000000"')
      assert.equal(err.cause.code, 'SB_ERR_INVALID_OPTION')
      return true
    })
    const { code, stdout, stderr } = await runCli(['run', '--experiment', 'wide.json', '--no-report'], { cwd: dir })
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /^syncbench run: --experiment wide\.json: load\.concurrency must be at most 20000, got "1000000"$/m)
  })
})

describe('the bounds hold for a program', () => {
  test('loadtest({ concurrency: 1e6 }) is refused before a connection is made', async () => {
    let connections = 0
    const server = await startRawServer((socket) => { connections++; socket.destroy() })
    after(() => server.close())
    const url = `http://127.0.0.1:${server.port}/`
    await assert.rejects(loadtest({ url, requests: 1e6, concurrency: 1e6 }), {
      code: 'SB_ERR_INVALID_OPTION',
      message: `-c (concurrency) must be at most ${MAX_CONCURRENCY}, got "1000000"`
    })
    assert.equal(connections, 0)
  })

  test('MAX_CONCURRENCY itself is accepted, one more is not', () => {
    assert.equal(normalizeOptions({ url: URL_OK, requests: MAX_CONCURRENCY, concurrency: MAX_CONCURRENCY }).concurrency, MAX_CONCURRENCY)
    assert.throws(() => normalizeOptions({ url: URL_OK, requests: 1e9, concurrency: MAX_CONCURRENCY + 1 }), { code: 'SB_ERR_INVALID_OPTION', message: /^-c \(concurrency\) must be at most 20000, got "20001"$/ })
  })

  test('requests beyond a safe integer, fractions, infinities, strings', () => {
    const refused = (options, message) => assert.throws(() => normalizeOptions({ url: URL_OK, ...options }), { code: 'SB_ERR_INVALID_OPTION', message })
    // the bound is ab's (a C int, MAX_REQUESTS), below a safe integer
    refused({ requests: 2 ** 53 }, /^-n \(requests\) must be at most 2147483647, got "9007199254740992"$/)
    refused({ requests: 2 ** 31 }, /^-n \(requests\) must be at most 2147483647, got "2147483648"$/)
    refused({ requests: 1.5 }, /^-n \(requests\) must be a positive integer, got "1.5"$/)
    refused({ requests: '10' }, /^-n \(requests\) must be a positive integer, got "10"$/)
    refused({ timelimit: Infinity }, /^-t \(timelimit\) must be a non-negative number of seconds or a duration \(500ms, 10s, 2m\), got "Infinity"$/)
    refused({ timeout: -1 }, /^-s \(timeout\) must be a positive number of seconds or a duration \(500ms, 10s, 2m\), got "-1"$/)
    refused({ verbosity: -1 }, /^-v \(verbosity\) must be a non-negative integer, got "-1"$/)
  })

  test('the options only a program sets are checked too, and named as it spells them', () => {
    const refused = (options, message) => assert.throws(() => normalizeOptions({ url: URL_OK, ...options }), { code: 'SB_ERR_INVALID_OPTION', message })
    refused({ keepAlive: 'yes' }, /^-k \(keepAlive\) must be true or false, got "yes"$/)
    refused({ http11: 1 }, /^--http1\.1 \(http11\) must be true or false, got "1"$/)
    refused({ heartbeat: -1 }, /^heartbeat must be a non-negative integer, got "-1"$/)
    refused({ onProgress: 'log' }, /^onProgress must be a function, got "log"$/)
    refused({ onRequest: {} }, /^onRequest must be a function, got "object"$/)
    refused({ signal: true }, /^signal must be an AbortSignal, got "true"$/)
    refused({ body: 'text' }, /^-p \(body\) must be a Buffer, got "text"$/)
    refused({ headers: 'X: 1' }, /^-H \(headers\) must be an array of header lines "Name: value", got "X: 1"$/)
    // a line break is shown escaped: the message stays one line
    // a cookie's value is starred: it may be a credential
    refused({ cookies: ['a=1\r\nX: y'] }, /^-C \(cookies\) must be a cookie "name=value" on one line, got "a=\*\*\*"$/)
    refused({ auth: 5 }, /^-A \(auth\) must be a string, got "5"$/)
  })
})

describe('one set of defaults', () => {
  test('parseAbArgs and normalizeOptions fill in the same defaults', () => {
    const { options } = parseAbArgs([URL_OK])
    const normal = normalizeOptions({ url: URL_OK })
    for (const [name, value] of Object.entries(defaultOptions)) {
      assert.deepEqual(options[name], value, `parseAbArgs ${name}`)
      assert.deepEqual(normal[name], value, `normalizeOptions ${name}`)
    }
    assert.equal(options.method, 'GET')
    assert.equal(normal.method, 'GET')
  })

  test('computed defaults: -t implies 50000 requests, a body implies POST; undefined means not given', () => {
    assert.equal(normalizeOptions({ url: URL_OK, timelimit: 1 }).requests, TIMELIMIT_REQUESTS)
    assert.equal(normalizeOptions({ url: URL_OK, timelimit: 1, requests: 7 }).requests, 7)
    assert.equal(normalizeOptions({ url: URL_OK, body: Buffer.from('x') }).method, 'POST')
    const o = normalizeOptions({ url: URL_OK, concurrency: undefined, keepAlive: undefined, headers: undefined })
    assert.equal(o.concurrency, 1)
    assert.equal(o.keepAlive, false)
    assert.deepEqual(o.headers, [])
    // each run gets its own arrays, never the shared defaults
    assert.notEqual(o.headers, defaultOptions.headers)
    assert.ok(Object.isFrozen(defaultOptions.headers))
  })

  test('every option with an ab flag is in syncbench ab --help', () => {
    const help = helpText()
    for (const rule of loadOptionRules) {
      if (rule.flag !== null) assert.match(help, new RegExp(`^  ${rule.flag.replace(/\./g, '\\.')}[, ]`, 'm'), rule.name)
    }
  })
})

describe('experiments and syncbench run use the same rules', () => {
  test('load, warmup and load axes of an experiment', () => {
    const refused = (extra, message) => assert.throws(() => validateExperiment(experiment(extra), 'f'), (err) => {
      assert.equal(err.code, 'SB_ERR_EXPERIMENT')
      assert.equal(err.cause?.code, 'SB_ERR_INVALID_OPTION')
      assert.equal(err.message, message)
      return true
    })
    refused({ load: { keepAlive: 'yes' } }, 'f: load.keepAlive must be true or false, got "yes"')
    refused({ load: { requests: null } }, 'f: load.requests must be a positive integer, got "null"')
    refused({ warmup: { concurrency: 0 } }, 'f: warmup.concurrency must be a positive integer, got "0"')
    refused({ axes: { concurrency: [1, 2, 30000] } }, 'f: axes.concurrency must be at most 20000, got "30000"')
    refused({ axes: { keepAlive: [true, 'no'] } }, 'f: axes.keepAlive must be true or false, got "no"')
    refused({ warmup: { requests: -1 } }, 'f: warmup.requests must be a positive integer, got "-1"')
    assert.equal(validateExperiment(experiment({ warmup: { requests: 0 } }), 'f').warmup.requests, 0, 'no warm-up')
    // a key that is no load option is a typo, not a note: refused, naming it (issue 12)
    assert.throws(() => validateExperiment(experiment({ load: { requests: 5, note: 'x' } }), 'f'), { code: 'SB_ERR_EXPERIMENT', message: /^f: load has an unexpected key "note" \(load options: requests, concurrency, / })
    assert.deepEqual(validateExperiment(experiment({ load: { requests: 5 }, axes: { delay: ['a'] } }), 'f').load, { requests: 5 })
  })

  test('syncbench run -c takes the load option\'s bounds, in run\'s words', () => {
    assert.equal(parseRunArgs(['-c', String(MAX_CONCURRENCY)]).concurrency, MAX_CONCURRENCY)
    assert.throws(() => parseRunArgs(['-c', String(MAX_CONCURRENCY + 1)]), { code: 'SB_ERR_INVALID_OPTION', message: '-c must be an integer from 1 to 20000, got "20001"' })
    assert.throws(() => parseRunArgs(['-n', '0']), { code: 'SB_ERR_INVALID_OPTION', message: '-n must be an integer from 1 to 10000000, got "0"' })
  })
})
