// Checks syncbench predict against real runs on this machine: async bcrypt measured with
// UV_THREADPOOL_SIZE=1, its costs projected to a pool of 2, against a measured pool of 2; then the
// same pool measured on one core (taskset -c 0), projected to every core, against the run on every core.
// Prints each prediction, the measured req/s and their ratio (within 25% counts as a match). A
// measurement, not a test: a busy machine moves it.
//   node bench/predict-check.js [--requests 24] [--runs 2]
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, availableParallelism } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { summarizeExperiments } from '../lib/analysis/summarize.js'
import { projectBound } from '../lib/analysis/bounds.js'

const { values } = parseArgs({ options: { requests: { type: 'string', default: '24' }, runs: { type: 'string', default: '2' } } })
const bin = fileURLToPath(new URL('../bin/syncbench.js', import.meta.url))
const dir = mkdtempSync(path.join(tmpdir(), 'syncbench-predict-'))
const cores = availableParallelism()

/** @param {number[]} pools */
function experiment (pools) {
  return {
    name: 'predict-check',
    title: 'async bcrypt at a few pool sizes',
    description: 'syncbench predict against measured runs',
    table: 'generic',
    baseline: 'async',
    server: { app: 'lab' },
    load: { requests: Number(values.requests), concurrency: 8, keepAlive: true },
    variants: [{ label: 'async', path: '/bcrypt/async', config: { strategy: 'async', workload: 'bcrypt' } }],
    axes: { threadpoolSize: pools },
    calibration: { op: 'bcrypt', cost: 10 }
  }
}

/**
 * Run an experiment (prefixed by taskset when given) and return each pool's row.
 * @param {string} name @param {number[]} pools @param {string[]} [prefix]
 */
function measure (name, pools, prefix = []) {
  const file = path.join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(experiment(pools)))
  const out = path.join(dir, name)
  const argv = [process.execPath, bin, 'run', '--experiment', file, '--runs', values.runs, '--no-report', '--quiet', '--out', out]
  const [cmd, ...args] = [...prefix, ...argv]
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] })
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'))
  const [summary] = summarizeExperiments(results)
  return new Map(summary.rows.map((r) => [Number(r.runs[0]?.config?.threadpoolSize), r]))
}

/**
 * @param {string} what
 * @param {import('../lib/analysis/summarize.js').Row} from
 * @param {{ cores?: number, pool?: number }} to
 * @param {import('../lib/analysis/summarize.js').Row} actual
 */
function compare (what, from, to, actual) {
  const p = projectBound('async', /** @type {import('../lib/analysis/bounds.js').RowBound} */ (from.bound), to)
  const measured = actual.figures.requestsPerSecond.mean
  if (!p.bound) return console.log(`${what}: no prediction (${p.why})`)
  const ratio = measured / p.bound.predictedRps
  console.log(`${what}: predicted ${p.bound.predictedRps.toFixed(2)} req/s (${p.bound.name}), measured ${measured.toFixed(2)}: ${ratio.toFixed(2)}x ${Math.abs(ratio - 1) <= 0.25 ? 'within 25%' : 'NOT within 25%'}`)
}

try {
  const all = measure('all-cores', [1, 2])
  const one = all.get(1)
  const two = all.get(2)
  if (!one || !two) throw new Error('a pool size was not measured')
  console.log(`measured on ${cores} cores: pool=1 ${one.figures.requestsPerSecond.mean.toFixed(2)} req/s, pool=2 ${two.figures.requestsPerSecond.mean.toFixed(2)} req/s; work ${one.bound?.workMs?.toFixed(1)} ms, HTTP ${one.bound?.httpMs?.toFixed(2)} ms a request`)
  compare('UV_THREADPOOL_SIZE=1 -> 2', one, { pool: 2 }, two)
  if (cores > 1) {
    const pinned = measure('one-core', [2], ['taskset', '-c', '0']).get(2)
    if (!pinned) throw new Error('taskset -c 0: nothing measured')
    console.log(`measured on 1 core (taskset -c 0): pool=2 ${pinned.figures.requestsPerSecond.mean.toFixed(2)} req/s, bound ${pinned.bound?.bound?.name}`)
    compare(`taskset -c 0 -> ${cores} cores`, pinned, { cores }, two)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
