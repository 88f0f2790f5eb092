import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { runCli } from './helper.js'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

test('--version prints the package version', async () => {
  const { code, stdout } = await runCli(['--version'])
  assert.equal(code, 0)
  assert.equal(stdout, `syncbench ${pkg.version}\n`)
})

test('--help lists every command', async () => {
  const { code, stdout, stderr } = await runCli(['--help'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  for (const name of ['run', 'ab', 'serve', 'report', 'compare']) assert.match(stdout, new RegExp(`^  ${name} `, 'm'))
})

test('an unknown command is one line on stderr and exit 2', async () => {
  const { code, stdout, stderr } = await runCli(['frobnicate'])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.match(stderr, /^syncbench: unknown command "frobnicate"/)
  assert.equal(stderr.trim().split('\n').length, 1)
})

test('no command: the help on stderr, nothing on stdout, exit 2', async () => {
  const { code, stdout, stderr } = await runCli([])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.match(stderr, /^Usage: syncbench <command> \[options\]$/m)
})

test('a reader closing the pipe early gets no stack trace', async () => {
  // As `syncbench ab --help | head -0`: the reader is gone before the first write, which fails with EPIPE.
  const { spawn } = await import('node:child_process')
  const { once } = await import('node:events')
  const { binPath } = await import('./helper.js')
  const child = spawn(process.execPath, [binPath, 'ab', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  child.stdout.destroy()
  const [code] = await once(child, 'close')
  assert.equal(stderr, '')
  assert.equal(code, 0)
})

test('one error printer for every command: usage 2, failed run 1, system error 1 in one line, bug 70 with its stack', async () => {
  const { describeError } = await import('../lib/cli/output.js')
  const { InvalidOptionError, ResultsError } = await import('../lib/errors.js')
  assert.deepEqual(describeError(new InvalidOptionError('-c must be a positive integer, got "x"'), 'ab'),
    { line: 'syncbench ab: -c must be a positive integer, got "x"', exitCode: 2 })
  assert.deepEqual(describeError(new ResultsError('x.json: not JSON'), 'report'), { line: 'syncbench report: x.json: not JSON', exitCode: 1 })
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' })
  for (const command of ['ab', 'run', 'report']) {
    assert.deepEqual(describeError(reset, command), { line: `syncbench ${command}: ECONNRESET: read ECONNRESET`, exitCode: 1 })
  }
  const bug = new TypeError('Cannot read properties of undefined')
  const { line, exitCode } = describeError(bug)
  assert.equal(exitCode, 70)
  assert.ok(line.startsWith('syncbench: internal error: TypeError: Cannot read properties of undefined\n    at '), line)
  // Node's own ERR_* codes are argument errors, bugs: not mistaken for the machine's
  const invalid = Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' })
  assert.equal(describeError(invalid, 'run').exitCode, 70)
})

test('an error quoting a value with a CR, LF or escape is still one line: the value is shown escaped (found by test/cli-fuzz.test.js)', async () => {
  const cases = [
    [['serve', 'lab', '--port', '1\n2'], 'syncbench serve: --port must be an integer from 0 to 65535, got "1\\n2"', 2],
    [['serve', 'la\r\nb'], 'syncbench serve: the app must be one of seed-bcrypt, seed-readfile, lab, got "la\\r\\nb"', 2],
    [['run', '--runs', '\n'], 'syncbench run: --runs must be an integer from 1 to 1000, or auto, got "\\n"', 2],
    [['run', '--foo\nbar'], 'syncbench run: unknown option "--foo\\nbar" (see syncbench run --help)', 2],
    [['compare', '--fail-if-slower', '5\x1b[2J', 'a', 'b'], 'syncbench compare: --fail-if-slower must be a percentage above 0 and below 100 (5%, 5 or 0.5%), got "5\\u001b[2J"', 2],
    [['report', '/nonexistent/a\nb'], 'syncbench report: /nonexistent/a\\nb: no such file', 1]
  ]
  for (const [args, line, code] of cases) {
    const r = await runCli(/** @type {string[]} */ (args))
    assert.equal(r.stderr, `${line}\n`, JSON.stringify(args))
    assert.equal(r.code, code, JSON.stringify(args))
  }
})
