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
import { projectBound } from '../analysis/bounds.js'
import { renderTerminal } from '../report/text-table.js'
import { formatNumber } from '../format.js'

export const help = `Usage: syncbench predict <results.json> [options]

Project the per-request costs a run measured (one request's work, timed
alone, and its HTTP work on the server's main thread) to another machine:
the req/s each configuration would reach there and what would bound it
(the main thread, the pool threads, the workers, the cores, the requests
in flight). Without options: the machine it ran on. A configuration
without those costs (no calibration, no server metrics) says why.

Options:
  --cores <n>       usable cores (1 to 1024)
  --threadpool <n>  UV_THREADPOOL_SIZE (1 to 1024)
  --workers <n>     worker pool threads (1 to 1024)
  --json            print JSON: { shape, configurations: [{ experiment,
                    label, predictedRps, bound, lever, measuredRps, here,
                    why }] }: here is the bound's rate on the machine it
                    ran on; predictedRps and bound are null where none
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
  if (values.json) {
    const shape = Object.fromEntries(Object.entries(to).filter(([, v]) => v !== undefined))
    io.stdout.write(JSON.stringify({ shape, configurations: predictions }, null, 2) + '\n')
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
  return 0
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
