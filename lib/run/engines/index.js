// The load generators `syncbench run --engine` can drive: the built-in one, and ab, wrk and
// autocannon through adapters that turn their output into LoadResult's shape for a cross-check.
import { InvalidOptionError } from '../../errors.js'
import { builtinEngine } from './builtin.js'
import { abEngine } from './ab.js'
import { wrkEngine } from './wrk.js'
import { autocannonEngine } from './autocannon.js'

/**
 * A load generator the runner can drive: `run` resolves to a LoadResult (a partial one with
 * `aborted: true` after `signal`), or rejects with a SyncbenchError.
 * @typedef {object} Engine
 * @property {import('../../types.js').RunRecord['engine']} name
 * @property {() => boolean|Promise<boolean>} available  is the tool installed?
 * @property {(options: import('../../types.js').LoadOptions) => Promise<import('../../types.js').LoadResult>} run
 */

/** @type {Record<string, Engine>} */
const engines = { builtin: builtinEngine, ab: abEngine, wrk: wrkEngine, autocannon: autocannonEngine }

export const engineNames = Object.keys(engines)

/**
 * @param {string} name
 * @returns {Engine}
 */
export function getEngine (name) {
  if (!Object.hasOwn(engines, name)) throw new InvalidOptionError(`--engine must be one of ${engineNames.join(', ')}, got "${name}"`)
  return engines[name]
}
