// syncbench predict <results.json>: what each measured configuration would serve on another machine
// shape (cores, UV_THREADPOOL_SIZE, workers), from the per-request costs the run measured: one
// request's work alone (the calibration) and its HTTP work on the main thread (lib/analysis/bounds.js).
import { parseCommandArgs, integerOption } from '../args.js'
import { version } from '../version.js'
import { InvalidOptionError, MissingArgumentError, ResultsError } from '../errors.js'
import { readResultsFile } from '../run/results-writer.js'
import { resultsFileOf } from '../run/results-path.js'
import { checkResults } from '../report/check-results.js'
import { summarizeExperiments } from '../analysis/summarize.js'
import { projectBound, projectCapacity } from '../analysis/bounds.js'
import { capacityRows } from '../analysis/capacity.js'
import { renderTerminal } from '../report/text-table.js'
import { formatNumber } from '../format.js'

export const help = `Usage: syncbench predict <results.json> [options]

Project the per-request costs a run measured (one request's work, timed
alone, and its HTTP work on the server's main thread) to another machine:
the req/s each configuration would reach there and what would bound it
(the main thread, the pool threads, the workers, the cores, the requests
in flight). Without options: the machine it ran on. A configuration
without those costs (no calibration, no server metrics) says why.

A file of syncbench run --capacity also gets each configuration's capacity
at its goal projected: scaled by the ratio of the bound there to the bound
here, only where the same kind of bound holds on both shapes; elsewhere
(the bound changes kind, the goal has a loop p99 term) one line says why.

Options:
  --cores <n>       usable cores (1 to 1024)
  --threadpool <n>  UV_THREADPOOL_SIZE (1 to 1024)
  --workers <n>     worker pool threads (1 to 1024)
  --json            print JSON: { shape, configurations: [{ experiment,
                    label, predictedRps, bound, lever, measuredRps, here,
                    why }] }: here is the bound's rate on the machine it
                    ran on; predictedRps and bound are null where none;
                    with capacity searches also capacity: { goal,
                    configurations: [{ experiment, label, node,
                    capacity, predictedCapacity, scale, boundHere,
                    boundThere, why }] }
  -h, --help        show this help
  -V, --version     print the version
`

/**
 * @typedef {object} Prediction
 * @property {string} experiment
 * @property {string} label
 * @property {number|null} predictedRps  on the shape asked for
 * @property {string|null} bound         what binds there ("4 pool threads", "main thread", ...)
 * @property {string|null} lever         what would raise it
 * @property {number|null} measuredRps   what the run measured on its own machine
 * @property {number|null} here          what the bound allowed on its own machine
 * @property {string|null} why           why there is no prediction
 */

/**
 * @typedef {object} CapacityPrediction
 * @property {string} experiment
 * @property {string} label
 * @property {string|null} node               under --node: the binary
 * @property {number|null} capacity           the geometric mean of the capacities found here (null: none found)
 * @property {number|null} predictedCapacity  on the shape asked for; null where the model does not allow it
 * @property {number|null} scale              the bound's rate there over its rate here
 * @property {string|null} boundHere          what binds here, with the search's connections in flight
 * @property {string|null} boundThere
 * @property {string|null} why                why there is no projection
 */

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const { values, positionals } = parseCommandArgs('predict', argv, {
    cores: { type: 'string' },
    threadpool: { type: 'string' },
    workers: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  if (values.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  if (values.help) {
    io.stdout.write(help)
    return 0
  }
  const to = {
    cores: integerOption('--cores', values.cores, 1, 1024),
    pool: integerOption('--threadpool', values.threadpool, 1, 1024),
    workers: integerOption('--workers', values.workers, 1, 1024)
  }
  if (positionals.length === 0) throw new MissingArgumentError('a results file is needed: syncbench predict <results.json> (see syncbench predict --help)')
  if (positionals.length > 1) throw new InvalidOptionError(`one results file expected, got ${positionals.length}: ${positionals.join(' ')}`)
  const file = await resultsFileOf(positionals[0])
  const results = await readResultsFile(file)
  checkResults(results, file)
  const predictions = predict(results, to)
  if (predictions.length === 0) throw new ResultsError(`${file}: no configuration was measured`)
  const capacities = results.capacity ? predictCapacities(results, to) : []
  if (values.json) {
    const shape = Object.fromEntries(Object.entries(to).filter(([, v]) => v !== undefined))
    const capacity = results.capacity && { capacity: { goal: results.capacity.goal, configurations: capacities } }
    io.stdout.write(JSON.stringify({ shape, configurations: predictions, ...capacity }, null, 2) + '\n')
    return 0
  }
  const asked = [to.cores && counted(to.cores, 'core'), to.pool && `UV_THREADPOOL_SIZE=${to.pool}`, to.workers && counted(to.workers, 'worker')].filter(Boolean).join(', ')
  // why a configuration has no prediction is a sentence, said once under the table and pointed to
  const reasons = [...new Set(predictions.flatMap((p) => p.bound === null && p.why ? [p.why] : []))]
  const rows = predictions.map((p) => [p.experiment, p.label, p.measuredRps === null ? '' : formatNumber(p.measuredRps), p.here === null ? '' : formatNumber(p.here),
    p.predictedRps === null ? '—' : formatNumber(p.predictedRps), p.bound ?? (p.why ? `none (${reasons.indexOf(p.why) + 1})` : '')])
  io.stdout.write(renderTerminal({
    title: `predicted req/s ${asked ? `with ${asked}` : 'on the machine it ran on'} (the rest as measured)`,
    columns: ['Experiment', 'Configuration', 'measured', 'bound here', 'predicted', 'bound there'],
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
    rows,
    ...(reasons.length && { note: reasons.map((why, i) => `(${i + 1}) ${why}`).join('\n') })
  }, { whole: 'syncbench predict --json', keys: 2 }))
  if (capacities.length > 0) io.stdout.write(capacityTable(capacities, /** @type {string} */ (results.capacity?.goal), asked))
  return 0
}

/**
 * The capacities' projection under predict's table: each configuration's capacity here, the bound's
 * rate here and the capacity projected, or why not, said once under the table.
 * @param {CapacityPrediction[]} capacities
 * @param {string} goal
 * @param {string} asked  the shape asked for, as the first table's title says it
 */
function capacityTable (capacities, goal, asked) {
  const reasons = [...new Set(capacities.flatMap((p) => p.why ? [p.why] : []))]
  const rows = capacities.map((p) => [p.experiment, p.node === null ? p.label : `${p.label} @${p.node}`, p.capacity === null ? 'none' : formatNumber(p.capacity),
    p.boundHere ?? '', p.predictedCapacity === null ? '—' : formatNumber(p.predictedCapacity), p.why ? `none (${reasons.indexOf(p.why) + 1})` : `${p.boundThere} (x${formatNumber(/** @type {number} */ (p.scale))})`])
  const rule = 'a capacity is a rate below its bound: projected by the bound\'s rate there over here, where the same kind of bound holds on both'
  return '\n' + renderTerminal({
    title: `predicted capacity at ${goal} (req/s) ${asked ? `with ${asked}` : 'on the machine it ran on'}`,
    columns: ['Experiment', 'Configuration', 'capacity', 'bound here', 'predicted', 'bound there'],
    align: ['left', 'left', 'right', 'left', 'right', 'left'],
    rows,
    note: [rule, ...reasons.map((why, i) => `(${i + 1}) ${why}`)].join('\n')
  }, { whole: 'syncbench predict --json', keys: 2 })
}

/**
 * Every configuration's capacity (run --capacity) projected to the shape asked for where the bound model
 * allows it (lib/analysis/bounds.js projectCapacity), from the bound of its closed-loop runs.
 * @param {import('../types.js').ResultsFile} results
 * @param {{ cores?: number, pool?: number, workers?: number }} to
 * @returns {CapacityPrediction[]}
 */
export function predictCapacities (results, to) {
  const capacity = results.capacity
  if (!capacity) return []
  return summarizeExperiments(results).flatMap((s) => capacityRows(results, s.name).map((c) => {
    const row = s.rows.find((r) => r.label === c.label && r.runs.length > 0)
    const found = c.interval.n > 0 ? c.interval.geometricMean : null
    const none = { experiment: s.name, label: c.label, node: c.node, capacity: found, predictedCapacity: null, scale: null, boundHere: null, boundThere: null }
    if (!row) return { ...none, why: 'no closed-loop run measured its bound' }
    const connections = c.searches.find((x) => x.connections > 0)?.connections ?? 0
    const p = projectCapacity(String(row.runs[0].config?.strategy ?? ''), /** @type {import('../analysis/bounds.js').RowBound} */ (row.bound), connections, capacity.slo, to)
    const bounds = { boundHere: p.here?.name ?? null, boundThere: p.there?.name ?? null }
    if (p.scale === null) return { ...none, ...bounds, why: p.why }
    if (found === null) return { ...none, ...bounds, why: 'no capacity found here: no search met the goal' }
    return { ...none, ...bounds, predictedCapacity: found * p.scale, scale: p.scale, why: null }
  }))
}

/** "1 core", "2 cores". @param {number} n @param {string} noun */
function counted (n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/**
 * Every measured configuration's prediction on the shape asked for.
 * @param {import('../types.js').ResultsFile} results
 * @param {{ cores?: number, pool?: number, workers?: number }} to
 * @returns {Prediction[]}
 */
export function predict (results, to) {
  return summarizeExperiments(results).flatMap((s) => s.rows.filter((r) => r.runs.length > 0).map((r) => {
    const measured = /** @type {import('../analysis/bounds.js').RowBound} */ (r.bound)
    const p = projectBound(String(r.runs[0].config?.strategy ?? ''), measured, to)
    return {
      experiment: s.name,
      label: r.label,
      predictedRps: p.bound?.predictedRps ?? null,
      bound: p.bound?.name ?? null,
      lever: p.bound?.lever ?? null,
      measuredRps: r.figures.requestsPerSecond.mean,
      here: measured.bound?.predictedRps ?? null,
      why: p.why
    }
  }))
}
