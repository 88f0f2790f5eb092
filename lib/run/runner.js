// The runner: for every scheduled run, a fresh server child (so V8 and libuv state never carry over),
// its environment set at spawn, a short warm-up, a metrics window that covers the measured load only,
// then the server stopped; results.json is rewritten after every run so an interruption keeps them.
import path from 'node:path'
import { SyncbenchError } from '../errors.js'
import { version } from '../version.js'
import { spawnServer, spawnWorkloadServer, queryWorkloadHandlers } from '../lab/spawn.js'
import { collectEnvironment } from '../lab/metrics.js'
import { expandExperiment, baselines, schedule } from './plan.js'
import { calibrate, calibrationKey } from './calibrate.js'
import { RESULTS_SCHEMA, writeAtomic } from './results-writer.js'
import { builtinEngine } from './engines/builtin.js'
import { track } from './children.js'
import { mean } from './stats.js'

/**
 * @typedef {object} RunnerOptions
 * @property {import('./experiment-loader.js').Experiment[]} experiments
 * @property {number} [runs]                    repeats of every configuration, interleaved (default: each
 *                                              experiment's own `runs`, else 1)
 * @property {{ name: string, run: (options: object) => Promise<import('../types.js').LoadResult> }} [engine]  builtin by default
 * @property {string} [target]                  URL of a server already running: no server is started
 * @property {{ requests?: number, concurrency?: number, keepAlive?: boolean }} [overrides]
 * @property {boolean} [calibrate=true]
 * @property {string} outDir                    results.json goes there
 * @property {string[]} [argv]
 * @property {object} [options]                 recorded as ResultsFile.options
 * @property {AbortSignal} [signal]             Ctrl-C: ends the current run early, keeps what was measured, stops
 * @property {(event: object) => void} [onEvent] progress: { type: 'calibrate' | 'run-start' | 'run-end', ... }
 */

/**
 * @param {RunnerOptions} options
 * @returns {Promise<{ results: import('../types.js').ResultsFile, file: string, interrupted: boolean, error: SyncbenchError|null }>}
 */
export async function runExperiments (options) {
  const { experiments, runs, engine = builtinEngine, target, overrides = {}, outDir, signal, onEvent = () => {} } = options
  const file = path.join(outDir, 'results.json')
  const plans = experiments.map((experiment) => {
    const configurations = expandExperiment(experiment, overrides)
    return { experiment, configurations, order: schedule(configurations, runs ?? experiment.runs ?? 1) }
  })
  /** @type {import('../types.js').ResultsFile} */
  const results = {
    schema: RESULTS_SCHEMA,
    syncbench: version,
    createdAt: new Date().toISOString(),
    finishedAt: null,
    argv: options.argv ?? [],
    options: { runs: runs ?? null, engine: engine.name, target: target ?? null, calibrate: options.calibrate !== false, ...overrides, ...options.options },
    environment: collectEnvironment(),
    experiments: plans.map(({ experiment, configurations }) => ({
      name: experiment.name,
      title: experiment.title,
      description: experiment.description,
      axes: Object.keys(experiment.axes ?? {}),
      runs: runs ?? experiment.runs ?? 1,
      baseline: experiment.baseline,
      table: experiment.table,
      reference: experiment.reference,
      labels: configurations.map((c) => c.label),
      comparisons: Object.fromEntries(baselines(experiment, configurations))
    })),
    runs: []
  }
  const save = () => writeAtomic(file, JSON.stringify(results, null, 2) + '\n')
  await save()

  const total = plans.reduce((n, p) => n + p.order.length, 0)
  const durations = new Map()
  const calibrations = new Map()
  let index = 0
  let error = null
  let stop = false
  let calibrationInterrupted = false
  for (const [e, { experiment, order }] of plans.entries()) {
    if (stop || signal?.aborted) break
    if (experiment.calibration && options.calibrate !== false && !target) {
      const key = calibrationKey(experiment.calibration)
      if (!calibrations.has(key)) {
        onEvent({ type: 'calibrate', experiment: experiment.name, op: experiment.calibration.op })
        try {
          calibrations.set(key, await calibrate(experiment.calibration, { signal }))
        } catch (err) {
          // Ctrl-C ends the calibration child (or, outside syncbench's own process groups, the terminal's
          // SIGINT reached it first): that is the interrupt, not a failure.
          if (signal?.aborted || err.signal === 'SIGINT') {
            calibrationInterrupted = true
            break
          }
          throw err
        }
      }
      results.experiments[e].calibration = calibrations.get(key)
      await save()
    }
    for (const { configuration, repeat } of order) {
      if (signal?.aborted) break
      index++
      onEvent({ type: 'run-start', index, total, experiment: experiment.name, label: configuration.label, repeat, etaMs: eta(plans, index, durations) })
      const started = Date.now()
      const record = await runOne({ experiment, configuration, repeat, engine, target, signal })
      durations.set(configuration.label + '\0' + experiment.name, Date.now() - started)
      if (record.error) {
        // A connection error can beat the Ctrl-C that caused it: the SIGINT handler runs on a later
        // turn of the event loop (signals are read in its poll phase, before setImmediate callbacks).
        await new Promise((resolve) => setImmediate(resolve))
        if (signal?.aborted) record.error = null
      }
      results.runs.push(record)
      await save()
      onEvent({ type: 'run-end', index, total, record })
      if (record.error) {
        error = new SyncbenchError(record.error.code, `${record.id}: ${record.error.message}`)
        stop = true
        break
      }
    }
  }
  const interrupted = calibrationInterrupted || Boolean(signal?.aborted)
  if (!interrupted && !error) {
    results.finishedAt = new Date().toISOString()
    await save()
  }
  return { results, file, interrupted, error }
}

/**
 * A workload module's handler names, asked of a server child that imports the module, answers and
 * exits without serving: neither this process nor the experiment loader ever runs the module's code.
 * @param {string} workload absolute path
 * @param {string} [label] the module as the user named it, for messages
 * @returns {Promise<string[]>}
 */
export function workloadHandlerNames (workload, label = workload) {
  return queryWorkloadHandlers({ workload, label, onChild: track })
}

/**
 * One run: start the server, warm up, measure, read the server's window, stop it.
 * @returns {Promise<import('../types.js').RunRecord>}
 */
async function runOne ({ experiment, configuration, repeat, engine, target, signal }) {
  const record = {
    id: `${experiment.name}/${configuration.label}#${repeat}`,
    experiment: experiment.name,
    label: configuration.label,
    config: configuration.config,
    repeat,
    engine: engine.name,
    load: null,
    server: null,
    serverEnv: null,
    startedAt: new Date().toISOString(),
    error: null
  }
  let handle = null
  try {
    let url
    if (target) {
      handle = remoteHandle(target)
      url = new URL(configuration.path, target).href
    } else {
      handle = configuration.server.workload
        ? await spawnWorkloadServer({ workload: configuration.server.workload, label: path.basename(configuration.server.workload), env: configuration.server.env, onChild: track })
        : await spawnServer({ app: configuration.server.app, args: configuration.server.args, env: configuration.server.env, onChild: track })
      url = handle.servers[0].url + configuration.path
    }
    record.serverEnv = await handle.env
    const warmup = experiment.warmup ?? { requests: 4, concurrency: 2 }
    if (warmup.requests > 0 && !signal?.aborted) {
      await builtinEngine.run({ url, requests: warmup.requests, concurrency: Math.min(warmup.concurrency, warmup.requests), keepAlive: configuration.load.keepAlive, signal })
    }
    await handle.metrics({ reset: true })
    try {
      record.load = await engine.run({ ...configuration.load, url, signal })
    } catch (err) {
      // What was measured before the failure (loadtest's partial LoadResult) is kept either way.
      record.load = err?.result ?? null
      throw err
    }
    record.server = await handle.metrics()
  } catch (err) {
    if (!(err instanceof SyncbenchError)) throw err
    // A server or tool gone after the interrupt is the interrupt, not a failure.
    if (!signal?.aborted) record.error = { code: err.code, message: err.message }
  } finally {
    await handle?.stop()
  }
  return record
}

/**
 * A server syncbench did not start: metrics from its /__syncbench/metrics route when it has one
 * (null otherwise), nothing to stop.
 * @param {string} target
 */
function remoteHandle (target) {
  const get = async (route) => {
    try {
      const res = await fetch(new URL(route, target), { signal: AbortSignal.timeout(10_000) })
      if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return null
      return await res.json()
    } catch {
      return null
    }
  }
  return {
    env: get('/__syncbench/env'),
    metrics: ({ reset = false } = {}) => get(`/__syncbench/metrics${reset ? '?reset=1' : ''}`),
    stop: async () => {}
  }
}

/** Remaining time: each remaining run costs what its configuration cost last time, else the mean so far. */
function eta (plans, index, durations) {
  if (durations.size === 0) return null
  const average = mean([...durations.values()])
  let remaining = 0
  let i = 0
  for (const { experiment, order } of plans) {
    for (const { configuration } of order) {
      if (++i >= index) remaining += durations.get(configuration.label + '\0' + experiment.name) ?? average
    }
  }
  return remaining
}
