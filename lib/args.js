import { parseArgs } from 'node:util'
import { SyncbenchError, invalidOption } from './errors.js'

/**
 * util.parseArgs for a syncbench command, with its errors turned into the one line the CLI prints
 * (bin/ puts `syncbench <command>: ` in front)
 * (parseArgs' own messages run over several sentences and suggest `--` tricks).
 * `syncbench ab` has its own parser: ab's getopt clustering and order rules need one.
 * Below lib/cli because the server child (lib/lab/server-child.js) parses `syncbench serve` options too.
 * @param {string} command the command's name, for messages and the --help hint
 * @param {string[]} argv
 * @param {import('node:util').ParseArgsConfig['options']} options
 * @returns {{ values: Record<string, any>, positionals: string[] }}
 */
export function parseCommandArgs (command, argv, options) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options })
  } catch (err) {
    const option = /'([^' ,]+)/.exec(err.message)?.[1] ?? ''
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new SyncbenchError('SB_ERR_UNKNOWN_OPTION', `unknown option "${option}" (see syncbench ${command} --help)`)
    }
    const problem = /argument missing/.test(err.message) ? 'needs a value' : 'takes no value'
    throw new SyncbenchError('SB_ERR_INVALID_OPTION', `option "${option}" ${problem} (see syncbench ${command} --help)`)
  }
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
