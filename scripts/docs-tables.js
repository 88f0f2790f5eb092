// The reference tables of docs/reference.md, generated from the code (scripts/docs.js writes them):
// each option's accepted values are what its parser says when refusing a bad one, the error codes and
// exit codes are their registries' (lib/errors.js, lib/cli/output.js). Nothing here is typed by hand
// but the probe values and the order of the commands.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { errorCodes, errorFromCode, USAGE_CODES, SyncbenchError } from '../lib/errors.js'
import { EXIT_CODES } from '../lib/cli/output.js'
import { INPUT_FILE_LIMIT } from '../lib/fs-input.js'
import { formatBytes } from '../lib/format.js'
import { loadOptionRules } from '../lib/load/options.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** @param {string} text */
const cell = (text) => text.replaceAll('|', '\\|')

/**
 * The options of a help text that take a value: `  -n, --requests <n>` -> { short: '-n', long: '--requests' }.
 * @param {string} help
 */
function valueOptions (help) {
  const out = []
  const lines = help.split('\n')
  for (const [i, line] of lines.entries()) {
    const m = /^ {2}(?:(-[A-Za-z]), )?(--[\w.-]+)(?:,.*?)? (<[^>]+>|[A-Z][\w:=.]*)(?: |$)/.exec(line)
    if (!m) continue
    // the option's description: its line and the indented lines under it
    let text = line.slice(m[0].length)
    for (let j = i + 1; j < lines.length && /^ {6,}\S/.test(lines[j]); j++) text += ' ' + lines[j].trim()
    const def = /\(default:? ([^;)]*(?:\([^)]*\)[^;)]*)*)[;)]/.exec(text)
    out.push({ short: m[1] ?? null, long: m[2], default: def ? def[1].trim() : '' })
  }
  return out
}

/**
 * What a parser says of bad values of one option: "must be ..." texts, distinct, in order.
 * @param {(argv: string[]) => unknown} parse
 * @param {string[]} before arguments the option needs beside it
 * @param {string} flag
 * @param {string[]} after
 */
function refusals (parse, before, flag, after) {
  /** @type {string[]} */
  const said = []
  for (const value of ['x', '99999999999']) {
    try {
      parse([...before, flag, value, ...after])
    } catch (err) {
      if (!(err instanceof SyncbenchError)) throw err
      const m = /^(\S+) (.+), got "[^"]*"$/.exec(err.message)
      if (m && !said.includes(m[2])) said.push(m[2])
    }
  }
  return said
}

/**
 * What a run option needs beside it: the options of --app, --workload and --runs auto apply with them only.
 * @param {string} flag
 * @returns {string[]}
 */
function runBefore (flag) {
  if (['--path', '--port', '--start-timeout'].includes(flag)) return ['--app', 'node app.js']
  if (flag === '--baseline') return ['--workload', 'w.js']
  if (flag === '--max-runs' || flag === '--threshold') return ['--runs', 'auto']
  return []
}

/** The commands whose options are listed, with how to parse a command line of each. */
async function parsers () {
  const { parseAbArgs } = await import('../lib/ab/ab-args.js')
  const { parseRunArgs, help: runHelp } = await import('../lib/cli/run.js')
  const { parseServeArgs } = await import('../lib/lab/serve-args.js')
  const { help: serveHelp } = await import('../lib/cli/serve.js')
  const { parseCompareArgs, help: compareHelp } = await import('../lib/cli/compare.js')
  const { parseScanArgs, help: scanHelp } = await import('../lib/cli/scan-command.js')
  const { helpText: abHelp } = await import('../lib/cli/ab.js')
  const url = 'http://127.0.0.1:8080/'
  return [
    { name: 'ab', help: abHelp(), parse: parseAbArgs, before: () => [], after: [url] },
    {
      name: 'run',
      help: runHelp,
      parse: parseRunArgs,
      before: runBefore,
      after: []
    },
    // scan's options beside the --app it needs
    { name: 'scan', help: scanHelp, parse: parseScanArgs, before: (/** @type {string} */ flag) => flag === '--app' ? [] : ['--app', 'node app.js'], after: [] },
    { name: 'serve', help: serveHelp, parse: parseServeArgs, before: (/** @type {string} */ flag) => flag === '--only' || flag === '--delay' ? ['seed-readfile'] : ['lab'], after: [] },
    { name: 'compare', help: compareHelp, parse: parseCompareArgs, before: () => [], after: ['a.json', 'b.json'] }
  ]
}

async function limitsTable () {
  const rows = ['| command | option | accepted (what a bad value is told) | default |', '|---|---|---|---|']
  for (const c of await parsers()) {
    for (const o of valueOptions(c.help)) {
      const said = refusals(c.parse, c.before(o.long), o.long, c.after)
      if (said.length === 0) continue
      const name = o.short ? `\`${o.short}\`, \`${o.long}\`` : `\`${o.long}\``
      // ab's defaults are the option table's, the others' their help's
      const rule = c.name === 'ab' ? loadOptionRules.find((r) => r.flag === o.short || r.flag === o.long) : undefined
      const def = rule?.default !== undefined && !Array.isArray(rule.default) ? String(rule.default) : o.default
      rows.push(`| ${c.name} | ${name} | ${cell(said.join('; '))} | ${cell(def)} |`)
    }
  }
  rows.push(`| report, compare, merge, run | input files | a regular file of at most ${formatBytes(INPUT_FILE_LIMIT)} | |`)
  return rows.join('\n') + '\n'
}

/** The registry's doc comments, by key: lib/errors.js documents each code once, above it. */
async function codeComments () {
  const source = await readFile(path.join(root, 'lib', 'errors.js'), 'utf8')
  /** @type {Record<string, string>} */
  const out = {}
  for (const m of source.matchAll(/\/\*\* (.*?) \*\/\n\s+(\w+): 'SB_ERR_/g)) out[m[2]] = m[1]
  return out
}

/** @param {{ lab: boolean }} options */
async function errorCodesTable ({ lab }) {
  const comments = await codeComments()
  const rows = lab
    ? ['| code | meaning |', '|---|---|']
    : ['| code | class | when | exit |', '|---|---|---|---|']
  for (const [key, code] of Object.entries(errorCodes)) {
    const what = comments[key] ?? ''
    const cls = errorFromCode(code, '', /** @type {any} */ ('none'))
    const thrown = cls.code === code
    if (lab === thrown) continue
    rows.push(lab ? `| \`${code}\` | ${cell(what)} |` : `| \`${code}\` | \`${cls.constructor.name}\` | ${cell(what)} | ${USAGE_CODES.has(code) ? 2 : 1} |`)
  }
  return rows.join('\n') + '\n'
}

function exitCodesTable () {
  const rows = ['| exit code | meaning |', '|---|---|']
  for (const { codes, meaning } of EXIT_CODES) rows.push(`| ${codes.join(', ')} | ${cell(meaning)} |`)
  return rows.join('\n') + '\n'
}

/** ab's flags that syncbench ab refuses, with what it says of each. */
async function abUnsupportedTable () {
  const { parseAbArgs } = await import('../lib/ab/ab-args.js')
  const rows = ['| flag | what syncbench ab says |', '|---|---|']
  for (const letter of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    try {
      parseAbArgs([`-${letter}`, 'v', 'http://127.0.0.1:8080/'])
    } catch (err) {
      if (err instanceof SyncbenchError && / is not supported /.test(err.message)) rows.push(`| \`-${letter}\` | ${cell(err.message)} |`)
    }
  }
  return rows.join('\n') + '\n'
}

/**
 * @param {string} what limits, exit-codes, error-codes, lab-codes or ab-unsupported
 * @returns {Promise<string>}
 */
export async function generated (what) {
  switch (what) {
    case 'limits': return limitsTable()
    case 'error-codes': return errorCodesTable({ lab: false })
    case 'lab-codes': return errorCodesTable({ lab: true })
    case 'exit-codes': return exitCodesTable()
    case 'ab-unsupported': return abUnsupportedTable()
    default: throw new Error(`generate="${what}": one of limits, error-codes, lab-codes, exit-codes, ab-unsupported`)
  }
}
