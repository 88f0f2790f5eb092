// The load generators `syncbench run --engine` can drive (lib/run/tools/): the built-in one, and ab, wrk
// and autocannon through adapters that turn their output into LoadResult's shape for a cross-check.
import { InvalidOptionError, invalidOption } from '../errors.js'
import { builtinTool } from './tools/builtin.js'
import { abTool } from './tools/apache-bench.js'
import { wrkTool } from './tools/wrk.js'
import { autocannonTool } from './tools/autocannon.js'

/**
 * A load generator the runner can drive: `run` resolves to a LoadResult (a partial one with
 * `aborted: true` after `signal`), or rejects with a SyncbenchError.
 * @typedef {object} LoadTool
 * @property {import('../types.js').RunRecord['engine']} name  what --engine calls it
 * @property {() => boolean|Promise<boolean>} available  is the tool installed?
 * @property {(options: import('../types.js').LoadOptions) => Promise<import('../types.js').LoadResult>} run
 */

/** @type {Record<string, LoadTool>} */
const tools = { builtin: builtinTool, ab: abTool, wrk: wrkTool, autocannon: autocannonTool }

/** The names --engine takes. */
export const toolNames = Object.keys(tools)

/**
 * The tool --engine names.
 * @param {string} name
 * @returns {LoadTool}
 */
export function getTool (name) {
  if (!Object.hasOwn(tools, name)) throw new InvalidOptionError(`--engine must be one of ${toolNames.join(', ')}, got "${name}"`)
  return tools[name]
}

/**
 * An open loop (LoadOptions.rate: -R, an experiment's load.rate or rate axis, the rate-sweep) needs the
 * builtin engine: ab, wrk and autocannon cannot send at a rate and count each request from its intended
 * send time (wrk2's correction for coordinated omission; wrk is not wrk2, autocannon's -R only caps a
 * closed loop). Refused before anything runs rather than measured as something else.
 * @param {string} name the tool (--engine)
 * @param {{ experiment: string, rate?: number }[]} openLoops  the configurations that ask for a rate
 */
export function checkOpenLoopTool (name, openLoops) {
  if (name === 'builtin' || openLoops.length === 0) return
  const first = openLoops[0]
  const what = first.rate === undefined ? `${first.experiment}'s offered rates` : `${first.experiment} at ${first.rate} req/s`
  throw invalidOption('--engine', name, `must be builtin for an open loop (${what}): only the builtin engine sends at a rate and measures from each request's intended send time (corrected for coordinated omission)`)
}
