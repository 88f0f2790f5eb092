// npm run docs: rewrite every generated block of README.md, CONTRIBUTING.md and docs/*.md from the
// code, so no output shown in the docs can drift from what syncbench prints. A block is
//
//   <!-- syncbench-docs: run="syncbench ab --help" -->
//   ...written by this script...
//   <!-- /syncbench-docs -->
//
// with one of:
//   run="syncbench <args>"      the command's output, run in this process from the repository's root
//                               (cheap commands only: help texts, lists, a report of a recorded file)
//   recorded="docs/recorded/x.json"  beside run=: a line naming when, where and with which command the
//                               recorded results file was measured (long runs are never re-run here)
//   generate="limits|exit-codes|error-codes|lab-codes"  a table from the option rules and the registries
//   generate="bench-nginx|bench-open-loop|bench-dashboard"  the median and range of the bench/run.js --json
//                               invocations recorded in docs/recorded/bench-*.json (scripts/docs-bench.js)
// and optionally lines="1-20,40-45" (the output's lines kept, "..." where some are left out) or
// sections="seed-bcrypt: probe|app:..Where the event loop went" (its paragraphs, by how they start:
// keepSections; a block of a long report follows its section when the report around it changes),
// stream="stderr" (show what the command printed on stderr), exit="2" (the exit code it must end with).
//
// node scripts/docs.js          rewrite the blocks in place
// node scripts/docs.js --check  print the blocks that differ, exit 1 if any (test/docs.test.js does this)
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { Writable } from 'node:stream'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { wrap } from '../lib/report/wrap.js'
import { commandOf } from '../lib/report/phrases.js'
import { shellWords as splitShellWords } from '../lib/lab/command.js'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const OPEN = /<!-- syncbench-docs: (.*?) -->\n/g
const CLOSE = '<!-- /syncbench-docs -->'

/** The markdown files that hold generated blocks and commands. */
export async function docFiles () {
  const docs = (await readdir(path.join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()]
}

/**
 * @typedef {object} Block
 * @property {Record<string, string>} attrs
 * @property {number} start index of the first character after the opening marker's line
 * @property {number} end index of the closing marker
 * @property {string} body
 */

/**
 * The generated blocks of one markdown text.
 * @param {string} text
 * @param {string} file for messages
 * @returns {Block[]}
 */
export function findBlocks (text, file) {
  /** @type {Block[]} */
  const blocks = []
  for (const m of text.matchAll(OPEN)) {
    const start = /** @type {number} */ (m.index) + m[0].length
    const end = text.indexOf(CLOSE, start)
    if (end === -1) throw new Error(`${file}: a syncbench-docs block is not closed (${m[0].trim()})`)
    /** @type {Record<string, string>} */
    const attrs = {}
    for (const a of m[1].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) attrs[a[1]] = a[2].replace(/\\(.)/g, '$1')
    blocks.push({ attrs, start, end, body: text.slice(start, end) })
  }
  return blocks
}

/**
 * A docs line's words (lib/lab/command.js's shell splitting). A quote left open is kept to the end
 * of the line: a docs line may be cut from a multi-line command.
 * @param {string} line
 * @returns {string[]}
 */
export function shellWords (line) {
  return splitShellWords(line).words
}

/** A stream that keeps what is written to it. */
function sink () {
  const stream = Object.assign(new Writable({ write (chunk, _enc, done) { stream.text += chunk; done() } }), { text: '' })
  return stream
}

/**
 * `syncbench <argv>` in this process, as bin/syncbench.js runs it, from the repository's root.
 * @param {string[]} argv
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export async function runSyncbench (argv) {
  const { commands, topLevelHelp, version } = await import('../lib/cli/commands.js')
  const { describeError } = await import('../lib/cli/output.js')
  const stdout = sink()
  const stderr = sink()
  const [name, ...rest] = argv
  const cwd = process.cwd()
  process.chdir(root)
  let code = 0
  try {
    if (name === undefined || name === '--help' || name === '-h') stdout.text = topLevelHelp()
    else if (name === '--version' || name === '-V') stdout.text = `syncbench ${version}\n`
    else if (!Object.hasOwn(commands, name)) throw new Error(`no command "${name}"`)
    else code = await (await commands[name].load()).main(rest, { stdout, stderr, env: { NO_COLOR: '1' } })
  } catch (err) {
    const described = describeError(err, name)
    stderr.text += described.line + '\n'
    code = described.exitCode
  } finally {
    process.chdir(cwd)
  }
  return { code, stdout: stdout.text, stderr: stderr.text }
}

/**
 * Keep the lines "a-b,c-d" (1-based, inclusive) of a text, "..." where lines are left out.
 * @param {string} text
 * @param {string|undefined} spec
 */
function keepLines (text, spec) {
  if (!spec) return text
  const lines = text.replace(/\n$/, '').split('\n')
  const out = []
  let last = 0
  for (const range of spec.split(',')) {
    const [a, b = a] = range.split('-').map((n) => n === '' ? lines.length : Number(n))
    if (a > last + 1) out.push('...')
    out.push(...lines.slice(a - 1, Math.min(b, lines.length)))
    last = b
  }
  if (last < lines.length) out.push('...')
  return out.join('\n') + '\n'
}

/**
 * Keep the paragraphs (lines between blank lines) that `spec` names by how they start, so that a
 * block follows its section when the output around it grows or shrinks. "A" keeps the paragraph
 * that starts with A and those right after it that start with A too ("seed-bcrypt:" is the whole
 * experiment, "seed-bcrypt: probe" its probe table); "A..B" keeps from A's paragraphs through B's;
 * "|" separates selections, each looked for after the one before; "..." stands where paragraphs are
 * left out. A name no paragraph starts with is an error: the block names a section that is gone.
 * @param {string} text
 * @param {string} spec
 */
export function keepSections (text, spec) {
  const lines = text.replace(/\n$/, '').split('\n')
  const starts = lines.flatMap((line, i) => line !== '' && (i === 0 || lines[i - 1] === '') ? [i] : [])
  /** @param {number} start @returns {number} the index after the paragraph */
  const endOf = (start) => {
    let i = start
    while (i < lines.length && lines[i] !== '') i++
    return i
  }
  /** @param {string} name @param {number} from @returns {number} */
  const find = (name, from) => {
    const at = starts.find((i) => i >= from && lines[i].startsWith(name))
    if (at === undefined) throw new Error(`sections="${spec}": no paragraph of the output starts with "${name}"${from > 0 ? ' after the one before' : ''}`)
    return at
  }
  /** the end of the run of paragraphs from `start` that start with `name` @param {string} name @param {number} start */
  const endOfRun = (name, start) => {
    let end = endOf(start)
    for (const i of starts) if (i > end && lines[i].startsWith(name) && lines.slice(end, i).every((l) => l === '')) end = endOf(i)
    return end
  }
  const out = []
  let last = 0
  for (const item of spec.split('|')) {
    const [first, through = first] = item.split('..')
    const start = find(first, last)
    const end = endOfRun(through, find(through, start))
    const skipped = lines.slice(last, start)
    if (skipped.some((l) => l !== '')) out.push('...')
    else if (out.length > 0 && skipped.length > 0) out.push('')
    out.push(...lines.slice(start, end))
    last = end
  }
  if (lines.slice(last).some((l) => l !== '')) out.push('...')
  return out.join('\n') + '\n'
}

/**
 * What a block holds, from the code as it is now.
 * @param {Record<string, string>} attrs
 * @param {string} [file] the page, relative to the repository (its links are relative to it)
 * @returns {Promise<string>}
 */
export async function renderBlock (attrs, file = 'README.md') {
  if (attrs.generate?.startsWith('bench-')) {
    const { benchBlock } = await import('./docs-bench.js')
    return benchBlock(attrs.generate.slice('bench-'.length), path.dirname(file))
  }
  if (attrs.generate) {
    const { generated } = await import('./docs-tables.js')
    return generated(attrs.generate)
  }
  if (!attrs.run) throw new Error(`a syncbench-docs block needs run="..." or generate="...": ${JSON.stringify(attrs)}`)
  const words = shellWords(attrs.run)
  if (words[0] !== 'syncbench') throw new Error(`run="${attrs.run}": only syncbench commands are run`)
  const r = await runSyncbench(words.slice(1))
  const expected = Number(attrs.exit ?? 0)
  if (r.code !== expected) throw new Error(`${attrs.run}: exit ${r.code}, expected ${expected}: ${r.stderr}`)
  if (attrs.lines && attrs.sections) throw new Error(`${attrs.run}: a block keeps lines="..." or sections="...", not both`)
  const printed = attrs.stream === 'stderr' ? r.stderr : r.stdout
  const output = attrs.sections ? keepSections(printed, attrs.sections) : keepLines(printed, attrs.lines)
  let head = ''
  if (attrs.recorded) head = wrap(await recordedLine(attrs.recorded, attrs.machine, path.dirname(file))) + '\n\n'
  return `${head}\`\`\`text\n$ ${attrs.run}\n${output.replace(/\n?$/, '\n')}\`\`\`\n`
}

/**
 * When, where and with which command a recorded file was measured, from the file itself (a
 * results.json names its machine; a LoadResult does not, so the block's machine="..." does).
 * @param {string} file relative to the repository
 * @param {string|undefined} machine
 * @param {string} from the folder of the page that links to it
 */
async function recordedLine (file, machine, from) {
  const data = JSON.parse(await readFile(path.join(root, file), 'utf8'))
  const link = `[${path.basename(file)}](${path.relative(from, file)})`
  if (data.schema === 'syncbench/results@1') {
    const env = data.environment ?? {}
    const took = data.finishedAt ? ` in ${minutes(Date.parse(data.finishedAt) - Date.parse(data.createdAt))}` : ' (interrupted)'
    // where the files went says nothing of the measurement, and a recording's folder is often a temporary one
    const argv = data.argv.filter((/** @type {string} */ w, /** @type {number} */ i, /** @type {string[]} */ all) => w !== '--out' && all[i - 1] !== '--out' && !w.startsWith('--out='))
    // quoted where a shell would read a character otherwise (p99<1s: a redirection)
    const words = argv.map((/** @type {string} */ w) => /[^\w@%+=:,./-]/.test(w) ? JSON.stringify(w) : w).join(' ')
    const command = argv.length === 0 ? '`npm start` (`syncbench run` with its defaults)' : `\`syncbench ${commandOf(data)} ${words}\``
    return `Recorded ${String(data.createdAt).slice(0, 10)}: ${command}${took}, on ${machine ?? `${env.cpuModel} (${env.cpuCount} cores)`}, Node ${env.node} (${link}).`
  }
  const { options } = data
  return `Recorded ${String(data.startedAt).slice(0, 10)}: ${options.requests} requests at -c ${options.concurrency}${options.keepAlive ? ' -k' : ''}${machine ? `, on ${machine}` : ''} (${link}).`
}

/** @param {number} ms */
function minutes (ms) {
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

/**
 * Every block of every docs file, rendered; the files rewritten unless `check`.
 * @param {{ check?: boolean, only?: (attrs: Record<string, string>) => boolean }} [options]
 * @returns {Promise<{ file: string, attrs: Record<string, string>, was: string, now: string }[]>} the blocks that differ
 */
export async function updateDocs ({ check = false, only = () => true } = {}) {
  const differ = []
  for (const file of await docFiles()) {
    let text
    try { text = await readFile(path.join(root, file), 'utf8') } catch { continue }
    const blocks = findBlocks(text, file)
    let out = ''
    let at = 0
    for (const block of blocks) {
      const now = only(block.attrs) ? await renderBlock(block.attrs, file) : block.body
      if (now !== block.body) differ.push({ file, attrs: block.attrs, was: block.body, now })
      out += text.slice(at, block.start) + now
      at = block.end
    }
    out += text.slice(at)
    if (!check && out !== text) await writeFile(path.join(root, file), out)
  }
  return differ
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const differ = await updateDocs({ check })
  for (const d of differ) console.log(`${check ? 'differs' : 'rewrote'}: ${d.file}: ${JSON.stringify(d.attrs)}`)
  if (check && differ.length) process.exitCode = 1
}
