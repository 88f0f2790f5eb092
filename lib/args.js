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
 * @returns {ReturnType<typeof parseArgs<{ args: string[], allowPositionals: true, strict: true, options: O }>>}
 */
export function parseCommandArgs (command, argv, options) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options })
  } catch (err) {
    // Only the user's argv is turned into a usage error; a bad `options` table is a bug and surfaces.
    if (!isParseArgsError(err)) throw err
    const option = /'([^' ,]+)/.exec(err.message)?.[1] ?? ''
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UnknownOptionError(`unknown option "${option}" (see syncbench ${command} --help)`)
    }
    const problem = /argument missing/.test(err.message) ? 'needs a value' : 'takes no value'
    throw new InvalidOptionError(`option "${option}" ${problem} (see syncbench ${command} --help)`)
  }
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
