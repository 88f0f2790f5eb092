import { SyncbenchError, USAGE_CODES, systemCode } from '../errors.js'
import { scrubText, secretsOfArgv } from '../redact.js'

/**
 * @typedef {object} Io
 * @property {NodeJS.WritableStream & { isTTY?: boolean }} stdout results go here
 * @property {NodeJS.WritableStream & { isTTY?: boolean }} stderr progress and errors go here
 * @property {NodeJS.ProcessEnv} env
 */

/**
 * Every exit code of the CLI and what it means, documented once (docs/reference.md is generated from
 * this table, and test/cli-fuzz.test.js accepts no other code).
 * @type {readonly { codes: number[], meaning: string }[]}
 */
export const EXIT_CODES = Object.freeze([
  { codes: [0], meaning: 'done; for compare --fail-if-slower, the gate passed' },
  { codes: [1], meaning: 'a run failed or was invalid, a file is unreadable or malformed, a server did not start; syncbench ab: a run ab would abort, and Ctrl-C after the report of what was measured, as ab does' },
  { codes: [2], meaning: 'a bad command line: one line naming the option and the value' },
  { codes: [3], meaning: 'syncbench compare --fail-if-slower: a configuration is slower beyond the threshold (its req/s or its capacity), or meets its capacity goal at no rate' },
  { codes: [70], meaning: 'an internal error (a bug): the only case that prints a stack trace' },
  { codes: [129, 130, 143], meaning: 'ended by SIGHUP, SIGINT (Ctrl-C) or SIGTERM: syncbench run after writing what it measured; syncbench report before the next file (130); syncbench serve while it started (what it made is removed; a serve that was serving exits 0); syncbench ab while waiting for --start-at (130)' }
])

/**
 * Colour only on a TTY and never with NO_COLOR (https://no-color.org).
 * @param {{ isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} env
 */
export function useColor (stream, env) {
  return Boolean(stream.isTTY) && !('NO_COLOR' in env && env.NO_COLOR !== '') && env.TERM !== 'dumb'
}

const codes = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 }

/**
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} env
 * @returns {(style: keyof typeof codes, text: string) => string}
 */
export function painter (stream, env) {
  if (!useColor(stream, env)) return (_style, text) => text
  return (style, text) => `\x1b[${codes[style]}m${text}\x1b[0m`
}

/**
 * The one error printer of the CLI: any error to the line `syncbench <command>: message` and its exit
 * code. A SyncbenchError prints its message, exit 2 for a bad command line (USAGE_CODES), 1 for a run
 * that failed. A Node system error that escaped the library (ECONNRESET, EACCES...) is the machine's
 * or the network's doing, not ours: `CODE: message`, exit 1. Anything else is a bug and keeps its
 * stack for the report (exit 70). Never a stack for user error.
 * @param {unknown} err
 * @param {string} [command]
 * @returns {{ line: string, exitCode: number }}
 */
export function describeError (err, command) {
  const who = command ? `syncbench ${command}` : 'syncbench'
  if (err instanceof SyncbenchError) return { line: `${who}: ${oneLine(err.message)}`, exitCode: USAGE_CODES.has(err.code) ? 2 : 1 }
  const e = /** @type {Error} */ (err)
  const code = systemCode(err)
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return { line: `${who}: ${code}: ${oneLine(e.message)}`, exitCode: 1 }
  return { line: `${who}: internal error: ${e && e.stack ? e.stack : String(err)}`, exitCode: 70 }
}

/**
 * A message on one line whatever values it quotes: a CR, LF or other control character in a value
 * (typed as $'1\n2', an escape sequence) shown escaped as JSON writes it, as the load options' messages
 * do (lib/load/options.js), so one error stays one line and cannot rewrite the terminal.
 * @param {string} text
 */
function oneLine (text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f\u2028\u2029]/g, (ch) => {
    const escaped = JSON.stringify(ch).slice(1, -1)
    return escaped !== ch ? escaped : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}

let addonNoticeSaid = false

/**
 * Before a command that loads with syncbench's own engine: refuse a SYNCBENCH_IO that is none of its
 * values (a usage error, exit 2), and say once per process, on stderr, that the native transport's
 * addon is there but did not load, so node:net carries the load (nothing when there is no addon:
 * node:net is then the expected path). The addon is loaded here if it was not already.
 * @param {string} command
 * @param {Io} io
 * @param {{ notice?: boolean }} [options] notice: false checks SYNCBENCH_IO only (the load is another tool's)
 */
export async function checkNativeTransport (command, io, options = {}) {
  const { checkIoChoice, addonNotice } = await import('../load/native-addon.js')
  checkIoChoice()
  const notice = options.notice === false ? null : addonNotice()
  if (notice === null || addonNoticeSaid) return
  addonNoticeSaid = true
  io.stderr.write(`syncbench ${command}: ${oneLine(notice)}\n`)
}

/**
 * Keep the credentials of a command line out of everything a stream prints. Each writer stars what it
 * knows to be a credential already (lib/redact.js); this is the net under them for the text nobody
 * thought of: an error quoting a value, a line of a tool's output. Only when argv holds one: a
 * command line without credentials pays nothing.
 * @param {readonly string[]} argv  the command's arguments
 * @param {(NodeJS.WritableStream & { write: Function })[]} streams  stdout and stderr
 */
export function guardOutput (argv, streams) {
  const secrets = secretsOfArgv(argv)
  if (secrets.length === 0) return
  for (const stream of streams) {
    const write = stream.write.bind(stream)
    /** @param {string|Uint8Array} chunk @param {...unknown} rest */
    stream.write = (chunk, ...rest) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
      const scrubbed = scrubText(text, secrets)
      return write(scrubbed === text ? chunk : scrubbed, ...rest)
    }
  }
}
