// One convention for every command, checked over the command table itself (lib/cli/commands.js), so
// a command added later is held to it too: -h/--help and -V/--version, a help that fits 80 columns,
// an unknown option is a usage error (exit 2, one line), one meaning per short letter across
// commands; and the messages: never "undefined", never a quote cut in the middle, system codes in words.
// The commands run in this process, as bin/syncbench.js runs them (its error printer, its exit codes):
// a node process per case would take a minute here; one case goes through the real bin.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { Writable } from 'node:stream'
import os from 'node:os'
import path from 'node:path'
import { runCli } from './helper.js'
import { commands, topLevelHelp, version } from '../lib/cli/commands.js'
import { describeError } from '../lib/cli/output.js'

const names = Object.keys(commands)
/** @type {string} */
let dir

const startDir = process.cwd()
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-convention-'))
  process.chdir(dir)
  await writeFile(path.join(dir, 'garbage.json'), 'garbage\n')
  await writeFile(path.join(dir, 'empty.json'), '{}\n')
  await writeFile(path.join(dir, 'nameless.json'), '{ "server": { "app": "lab" } }\n')
})
after(async () => {
  process.chdir(startDir)
  await rm(dir, { recursive: true, force: true })
})

/** A stream that keeps what is written to it. */
function sink () {
  const stream = Object.assign(new Writable({ write (chunk, _enc, done) { stream.text += chunk; done() } }), { text: '' })
  return stream
}

/**
 * `syncbench <argv>` in this process, as bin/syncbench.js runs a command.
 * @param {string[]} argv
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
async function cli ([name, ...rest]) {
  const stdout = sink()
  const stderr = sink()
  let code
  try {
    code = await (await commands[name].load()).main(rest, { stdout, stderr, env: { NO_COLOR: '1' } })
  } catch (err) {
    const described = describeError(err, name)
    stderr.text += described.line + '\n'
    code = described.exitCode
  }
  return { code, stdout: stdout.text, stderr: stderr.text }
}

/**
 * Each command line in turn.
 * @param {string[][]} lines
 */
async function runAll (lines) {
  const out = []
  for (const line of lines) out.push(await cli(line))
  return out
}

test('through bin/syncbench.js: an unknown experiment exits 2', async () => {
  const r = await runCli(['run', 'no-such-experiment'])
  assert.equal(r.code, 2, r.stderr)
  assert.match(r.stderr, /^syncbench run: unknown experiment "no-such-experiment"/)
})

/** @type {Map<string, string>} each command's --help */
const helps = new Map()

test('every command: -h and --help print the help on stdout, exit 0, within 80 columns, no line reading as a stack frame', async () => {
  const lines = names.flatMap((name) => [[name, '--help'], [name, '-h']])
  const results = await runAll(lines)
  for (const [i, r] of results.entries()) {
    const what = lines[i].join(' ')
    assert.equal(r.code, 0, `${what}: ${r.stderr}`)
    assert.equal(r.stderr, '', what)
    assert.match(r.stdout, /Usage: syncbench /, what)
    const wide = r.stdout.split('\n').filter((line) => line.length > 80)
    assert.deepEqual(wide, [], `${what}: lines over 80 columns`)
    // an indented line starting "at " reads as a stack frame (the argv fuzz reports one on stdout)
    assert.deepEqual(r.stdout.split('\n').filter((line) => /^\s+at \S/.test(line)), [], `${what}: a line that reads as a stack frame`)
    assert.match(r.stdout, /^ +-h, --help /m, `${what} lists -h, --help`)
    assert.match(r.stdout, /^ +-V, --version /m, `${what} lists -V, --version`)
    helps.set(lines[i][0], r.stdout)
  }
  assert.equal(results[0].stdout, results[1].stdout, '-h is --help')
})

test('syncbench --help lists every command within 80 columns', async () => {
  const help = topLevelHelp()
  assert.deepEqual(help.split('\n').filter((line) => line.length > 80), [])
  for (const name of names) assert.match(help, new RegExp(`^ {2}${name} `, 'm'))
})

test('every command: -V and --version print the version, exit 0', async () => {
  const lines = names.flatMap((name) => [[name, '--version'], [name, '-V']])
  const results = await runAll(lines)
  for (const [i, r] of results.entries()) {
    const what = lines[i].join(' ')
    assert.equal(r.code, 0, `${what}: ${r.stderr}`)
    assert.ok(r.stdout.includes(version), `${what}: ${r.stdout}`)
  }
})

test('every command: an unknown option is a usage error, one line, exit 2', async () => {
  const lines = names.map((name) => [name, '--no-such-option'])
  const results = await runAll(lines)
  for (const [i, r] of results.entries()) {
    const what = lines[i].join(' ')
    assert.equal(r.code, 2, what)
    assert.equal(r.stdout, '', what)
    assert.match(r.stderr, new RegExp(`^syncbench ${lines[i][0]}: unknown option "--no-such-option".*\\n$`), what)
  }
})

test('a short letter means the same on every command that has it', async () => {
  if (helps.size < names.length) {
    for (const name of names) helps.set(name, (await cli([name, '--help'])).stdout)
  }
  /** @type {Map<string, Set<string>>} */
  const meanings = new Map()
  for (const [name, help] of helps) {
    for (const m of help.matchAll(/^ +(-[A-Za-z]), (--[\w.-]+)/gm)) {
      const set = meanings.get(m[1]) ?? new Set()
      set.add(`${m[2]} (${name})`)
      meanings.set(m[1], set)
    }
  }
  for (const [letter, set] of meanings) {
    const longs = new Set([...set].map((s) => s.split(' ')[0]))
    assert.equal(longs.size, 1, `${letter} means ${[...set].join(', ')}`)
  }
  // run's --verbose has no letter: ab's -v is a verbosity level
  assert.match(helps.get('run') ?? '', /^ {2}--verbose /m)
})

/**
 * Bad command lines: each a usage error (exit 2) or a bad input file (exit 1), one line on stderr
 * that names the problem, never "undefined", its quotes paired.
 * @type {[string[], number, RegExp][]}
 */
const bad = [
  [['run', 'no-such-experiment'], 2, /^syncbench run: unknown experiment "no-such-experiment" \(try: /],
  [['run', '--experiment', 'garbage.json'], 1, /^syncbench run: --experiment garbage\.json cannot be loaded: not JSON \(.*"garbage\\n".*\)$/],
  [['run', '--experiment', 'nameless.json'], 1, /name must be .*, got nothing$/],
  [['run', '--run-timeout', 'soon'], 2, /^syncbench run: --run-timeout must be a duration .*, got "soon"$/],
  [['report', 'empty.json'], 1, /^syncbench report: empty\.json: not a syncbench results file \(no schema field, expected "syncbench\/results@1"\)$/],
  [['compare', 'empty.json', 'empty.json'], 1, /no schema field/],
  [['ab', '-p', '/no/such/file', 'http://127.0.0.1:1/'], 2, /^syncbench ab: -p cannot read "\/no\/such\/file": no such file \(ENOENT\)$/],
  [['ab', '-g', '/no/such/dir/g.tsv', 'http://127.0.0.1:1/'], 2, /^syncbench ab: -g cannot write "\/no\/such\/dir\/g\.tsv": no such folder \(ENOENT\)$/],
  [['merge'], 2, /^syncbench merge: missing the files to merge/],
  [['serve'], 2, /^syncbench serve: an app is needed/],
  [['report'], 2, /^syncbench report: a results file is needed/],
  [['compare', 'a'], 2, /^syncbench compare: two results files expected, got 1/]
]

test('bad command lines and files: one line, the documented exit, no "undefined", quotes paired', async () => {
  const results = await runAll(bad.map(([argv]) => argv))
  for (const [i, r] of results.entries()) {
    const [argv, code, pattern] = bad[i]
    const what = argv.join(' ')
    assert.equal(r.code, code, `${what}: ${r.stderr}`)
    const lines = r.stderr.split('\n').filter(Boolean)
    assert.equal(lines.length, 1, `${what}: ${r.stderr}`)
    assert.match(lines[0], pattern, what)
    assert.doesNotMatch(lines[0], /undefined/, what)
    const quotes = lines[0].replaceAll('\\"', '').split('"').length - 1
    assert.equal(quotes % 2, 0, `${what}: a quote left open: ${lines[0]}`)
  }
})
