import { parseArgs } from 'node:util'
import { InvalidOptionError, UnknownOptionError, invalidOption } from './errors.js'

/**
 * util.parseArgs for a syncbench command, with its errors turned into the one line the CLI prints
 * (bin/ puts `syncbench <command>: ` in front)
 * (parseArgs' own messages run over several sentences and suggest `--` tricks).
 * `syncbench ab` has its own parser: ab's getopt clustering and order rules need one.
 * Below lib/cli because the server child (lib/lab/server-child.js) parses `syncbench serve` options too.
 * @template {import('node:util').ParseArgsConfig['options']} O
 * @param {string} command the command's name, for messages and the --help hint
 * @param {string[]} argv
 * @param {O} options
 * @returns {ReturnType<typeof parseArgs<{ args: string[], allowPositionals: true, strict: true, tokens: true, options: O }>>}
 *          tokens: the options in the order given (run's --weight weighs the route given before it)
 */
export function parseCommandArgs (command, argv, options) {
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), allowPositionals: true, strict: true, tokens: true, options })
  } catch (err) {
    // Only the user's argv is turned into a usage error; a bad `options` table is a bug and surfaces.
    if (!isParseArgsError(err)) throw err
    const option = /'([^' ,]+)/.exec(err.message)?.[1] ?? ''
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UnknownOptionError(`unknown option "${option}" (see syncbench ${command} --help)`)
    }
    // "ambiguous": the next word is an option (--port --host), so this one was given no value
    const problem = /argument missing|ambiguous/.test(err.message) ? 'needs a value' : 'takes no value'
    throw new InvalidOptionError(`option "${option}" ${problem} (see syncbench ${command} --help)`)
  }
}

/**
 * `--port -1` as `--port=-1`: parseArgs takes a value starting with "-" for an option and refuses it,
 * so a negative number would be reported as the wrong problem instead of reaching the option's own
 * bounds check ("--port must be an integer from 0 to 65535, got "-1"").
 * @param {string[]} argv
 * @param {import('node:util').ParseArgsConfig['options']} options
 * @returns {string[]}
 */
function joinNegativeValues (argv, options = {}) {
  /** @type {string[]} */
  const out = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') return out.concat(argv.slice(i))
    const next = argv[i + 1]
    const name = token.startsWith('--')
      ? token.slice(2)
      : /^-[^-]$/.test(token) ? Object.keys(options).find((key) => options[key].short === token[1]) : undefined
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`--${name}=${next}`)
      i++
    } else {
      out.push(token)
    }
  }
  return out
}

/**
 * What parseArgs throws for the user's argv (ERR_PARSE_ARGS_UNKNOWN_OPTION, _INVALID_OPTION_VALUE,
 * _UNEXPECTED_POSITIONAL), as opposed to its errors about the configuration it was given.
 * @param {unknown} err
 * @returns {err is Error & { code: string }}
 */
function isParseArgsError (err) {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS_')
}

/**
 * A whole-number option within bounds, or undefined when it was not given.
 * @param {string} flag as the user typed it, for the message
 * @param {string|undefined} raw
 * @param {number} min
 * @param {number} max
 * @returns {number|undefined}
 */
export function integerOption (flag, raw, min, max) {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < min || n > max) throw invalidOption(flag, raw, `must be an integer from ${min} to ${max}`)
  return n
}

/**
 * A duration option within bounds, in seconds: a plain number is seconds, or a number with a unit
 * (500ms, 10s, 2m, 1h), as every option that takes a time reads it; undefined when not given.
 * @param {string} flag as the user typed it, for the message
 * @param {string|undefined} raw
 * @param {number} min seconds
 * @param {number} max seconds
 * @returns {number|undefined}
 */
export function durationOption (flag, raw, min, max) {
  if (raw === undefined) return undefined
  const s = durationSeconds(raw)
  if (!(s >= min && s <= max)) throw invalidOption(flag, raw, `must be a duration from ${min} s to ${max} s (seconds, or 500ms, 10s, 2m, 1h)`)
  return s
}

/** Seconds per unit of a duration ("500ms", "10s", "2m", "1h"). @type {Record<string, number>} */
const DURATION_UNITS = { ms: 0.001, s: 1, m: 60, h: 3600 }

/**
 * A duration as typed, in seconds: a plain number is seconds (ab's unit), or a number with a unit:
 * "500ms", "10s", "2m", "1h". NaN when it is neither.
 * @param {string} raw
 */
export function durationSeconds (raw) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw)
  if (m === null) return NaN
  // whole microseconds at most: "0.1s" is 0.1, not 0.1 plus float noise
  return Math.round(Number(m[1]) * DURATION_UNITS[m[2] ?? 's'] * 1e6) / 1e6
}
