// The load generators `syncbench run --engine` can drive: the built-in one, and ab, wrk and
// autocannon through adapters that turn their output into LoadResult's shape for a cross-check.
import { SyncbenchError } from '../../errors.js'
import { builtinEngine } from './builtin.js'
import { abEngine } from './ab.js'
import { wrkEngine } from './wrk.js'
import { autocannonEngine } from './autocannon.js'

/** @type {Record<string, { name: string, available: () => boolean|Promise<boolean>, run: (options: import('../../types.js').LoadOptions) => Promise<import('../../types.js').LoadResult> }>} */
const engines = { builtin: builtinEngine, ab: abEngine, wrk: wrkEngine, autocannon: autocannonEngine }

export const engineNames = Object.keys(engines)

/**
 * @param {string} name
 * @returns {{ name: string, available: () => boolean|Promise<boolean>, run: (options: import('../../types.js').LoadOptions) => Promise<import('../../types.js').LoadResult> }}
 */
export function getEngine (name) {
  if (!Object.hasOwn(engines, name)) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `--engine must be one of ${engineNames.join(', ')}, got "${name}"`)
  return engines[name]
}
