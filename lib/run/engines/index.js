// The load generators `syncbench run --engine` can drive: the built-in one, and ab, wrk and
// autocannon through adapters that turn their output into LoadResult's shape for a cross-check.
import { InvalidOptionError, invalidOption } from '../../errors.js'
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

/**
 * An open loop (LoadOptions.rate: -R, an experiment's load.rate or rate axis, the rate-sweep) needs the
 * builtin engine: ab, wrk and autocannon cannot send at a rate and count each request from its intended
 * send time (wrk2's correction for coordinated omission; wrk is not wrk2, autocannon's -R only caps a
 * closed loop). Refused before anything runs rather than measured as something else.
 * @param {string} name the engine
 * @param {{ experiment: string, rate?: number }[]} openLoops  the configurations that ask for a rate
 */
export function checkOpenLoopEngine (name, openLoops) {
  if (name === 'builtin' || openLoops.length === 0) return
  const first = openLoops[0]
  const what = first.rate === undefined ? `${first.experiment}'s offered rates` : `${first.experiment} at ${first.rate} req/s`
  throw invalidOption('--engine', name, `must be builtin for an open loop (${what}): only the builtin engine sends at a rate and measures from each request's intended send time (corrected for coordinated omission)`)
}
