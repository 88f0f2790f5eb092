// The runner: for every scheduled run, a fresh server child (so V8 and libuv state never carry over),
// its environment set at spawn, a short warm-up, a metrics window that covers the measured load only,
// then the server stopped; results.json is rewritten after every run so an interruption keeps them.
import path from 'node:path'
import { ConnectError, ExperimentError, ServerExitedError, SyncbenchError, TimeoutError, errorCodes, errorFromCode } from '../errors.js'
import { version } from '../version.js'
import { readFile } from 'node:fs/promises'
import { spawnServer, spawnWorkloadServer, spawnAppServer, queryWorkloadHandlers } from '../lab/spawn.js'
import { makeDirectory } from '../fs-dir.js'
import { summarizeProfile, windowProfile } from '../analysis/profile.js'
import { runFileName } from './run-reports.js'
import { collectEnvironment } from '../lab/metrics.js'
import { expandExperiment, baselines, schedule, roundsUntil, openLoops, OFFERED_AXIS } from './plan.js'
import { lookAtExperiment, lookLevel, maxLooks, FIRST_LOOK_ROUND, SEQUENTIAL_ALPHA } from '../analysis/sequential.js'
import { TIMELIMIT_REQUESTS } from '../load/options.js'
import { checkOpenLoopTool } from './tools.js'
import { calibrate, calibrationKey } from './calibrate.js'
import { calibrateHttp, needsHttpCalibration } from './calibrate-http.js'
import { RESULTS_SCHEMA, writeAtomic } from './results-writer.js'
import { builtinTool } from './tools/builtin.js'
import { track, trackGroup } from './children.js'
import { loadInvalidity } from '../analysis/validity.js'
import { checkTarget } from './target.js'
import { fittedLoad, runDeadlineMs } from './run-deadline.js'
import { capacityRuns, closedLoopConfiguration, searchConfiguration } from './capacity-runner.js'
import { startProbe, sharedSession } from './prober.js'
import { RunProgress, runLabel } from './progress.js'
import { redactArgv, redactUrl } from '../redact.js'

/** After an interrupt, how long a server child gets between SIGTERM and SIGKILL. */
const STOP_GRACE_AFTER_ABORT_MS = 1000
/** Where a user's app (--app) writes its stdout and stderr, and its CPU profiles go, in the results folder. */
export const APPS_DIR = 'apps'
export const PROFILES_DIR = 'profiles'
/** After a load failed, how long the runner waits to learn whether the app exited (then that is the error). */
const EXIT_NOTICE_MS = 1000
/** How often a live view gets the server's figures during a measured load (lib/lab/ipc.js's live request). */
const SERVER_SECOND_MS = 1000

/**
 * @typedef {object} RunnerOptions
 * @property {import('./experiment-loader.js').Experiment[]} experiments
 * @property {number} [runs]                    repeats of every configuration, interleaved (default: each
 *                                              experiment's own `runs`, else 1)
 * @property {{ maxRuns: number, threshold: number }} [sequential]  --runs auto: rounds of every configuration,
 *                                              interleaved, until each comparison is decided against threshold
 *                                              (lib/analysis/sequential.js) or maxRuns rounds ran; over `runs`
 * @property {Pick<import('./tools.js').LoadTool, 'name' | 'run'>} [engine]  the load generator (--engine): builtin by default
 * @property {string} [target]                  URL of a server already running: no server is started
 * @property {import('./plan.js').LoadOverrides} [overrides]
 * @property {number} [sloP99Ms]               rate-sweep: the p99 a strategy must stay under (--slo-p99; default the experiment's)
 * @property {boolean} [allowErrors=false]      count runs with failed requests or non-2xx responses (a lab that
 *                                              answers 404 on purpose); else such a run is recorded invalid
 * @property {boolean} [calibrate=true]
 * @property {boolean} [probe]                 --probe / --no-probe: run the probe (lib/run/prober.js) beside every
 *                                              measured load, or never; default: where the experiment says
 *                                              (`probe: true`: the seeds), never against a --target
 * @property {string} [probePath]              the route the probe asks (--probe-path): a user's app has no
 *                                              /__syncbench/health
 * @property {string} outDir                    results.json goes there
 * @property {string[]} [argv]
 * @property {object} [options]                 recorded as ResultsFile.options
 * @property {number} [runTimeout]             seconds each run may take (--run-timeout); default derived from
 *                                              its load options (run-deadline.js)
 * @property {() => number} [runDeadline]      seconds the next run may take, asked as it starts (over runTimeout):
 *                                              syncbench scan gives each route what its budget has left
 * @property {{ readsSeconds: number, minSeconds: number }} [fitLoad]  a time-limited load (-t) shortened, as it
 *                                              starts, to end readsSeconds before its run's deadline, never below
 *                                              minSeconds: syncbench scan, whose route may have spent more of its
 *                                              share starting and warming up than planned
 * @property {string} [deadlineFlag]            the option a run's deadline message names (default --run-timeout)
 * @property {boolean} [isolateErrors]          a run that fails (its server crashed, could not start) is recorded
 *                                              invalid with what went wrong, and the next run goes on: syncbench
 *                                              scan's routes are independent, one route's crash says nothing of
 *                                              the others (default: the first failure ends the runs)
 * @property {AbortSignal} [signal]             Ctrl-C: ends the current run early, keeps what was measured, stops
 * @property {RunProgress} [progress]           where the runner reports its progress (lib/run/progress.js), for
 *                                              the subscribers the caller gave it; a new one by default
 * @property {(event: import('../types.js').RunEvent) => void} [onEvent]  subscribes to that progress
 * @property {import('./capacity-runner.js').CapacitySettings} [capacity]  --capacity: after each configuration's
 *                                              closed-loop run (cut short), a search for its capacity at the goal
 *                                              (lib/run/capacity-runner.js); results.json `capacity` records them
 * @property {import('./node-binaries.js').NodeBinary[]} [nodes]  --node: every configuration runs under each of
 *                                              these binaries in turn (their server children; the load generator
 *                                              stays in this process), the first the baseline; none: this one's
 */

/**
 * What the runner needs of a server: a ChildHandle it started, or a server already running (--target).
 * @typedef {object} MeasuredServer
 * @property {import('../types.js').Environment | Promise<import('../types.js').Environment|null>} env
 * @property {(options?: { reset?: boolean, signal?: AbortSignal }) => Promise<import('../types.js').ServerMetrics|null>} metrics
 * @property {(graceMs?: number) => Promise<void>} stop
 * @property {import('../lab/spawn.js').ChildHandle['profile']} [profile]  a user's app: its main thread's CPU profile
 * @property {import('../lab/spawn.js').ChildHandle['live']} [live]  the server's last interval, its window untouched (a live view's)
 * @property {Promise<void>} [exited]   resolves once a server syncbench started is gone
 */

/**
 * @param {RunnerOptions} options
 * @returns {Promise<{ results: import('../types.js').ResultsFile, file: string, interrupted: boolean, error: SyncbenchError|null, invalid: { id: string, reason: string }[] }>}
 *          invalid: the runs recorded invalid (failed requests or non-2xx responses), in run order
 */
export async function runExperiments (options) {
  const { experiments, runs, sequential, engine = builtinTool, target, overrides = {}, outDir, signal, progress = new RunProgress(), nodes = [] } = options
  if (options.onEvent) progress.subscribe(options.onEvent)
  const allowErrors = options.allowErrors === true
  if (target) checkTarget(experiments, overrides)
  checkOpenLoopTool(engine.name, openLoops(experiments, overrides))
  const file = path.join(outDir, 'results.json')
  // --runs auto plans the most rounds allowed, and stops handing them out once decided (roundsUntil)
  const repeats = (/** @type {import('./experiment-loader.js').Experiment} */ experiment) => sequential?.maxRuns ?? runs ?? experiment.runs ?? 1
  const plans = experiments.map((experiment) => {
    const configurations = expandExperiment(experiment, overrides)
    return { experiment, configurations, order: schedule(configurations, repeats(experiment), nodes) }
  })
  /** @type {import('../types.js').ResultsFile} */
  const results = {
    schema: RESULTS_SCHEMA,
    syncbench: version,
    createdAt: new Date().toISOString(),
    finishedAt: null,
    // the command line as typed, its credentials starred (lib/redact.js): results.json is shared
    argv: redactArgv(options.argv ?? []),
    options: { runs: sequential ? 'auto' : runs ?? null, ...sequential, engine: engine.name, target: target === undefined ? null : redactUrl(target, true), calibrate: options.calibrate !== false, allowErrors, ...overrides, ...options.options },
    environment: collectEnvironment(),
    experiments: plans.map(({ experiment, configurations }) => ({
      name: experiment.name,
      title: experiment.title,
      description: experiment.description,
      axes: Object.keys(experiment.axes ?? {}),
      runs: repeats(experiment),
      baseline: experiment.baseline,
      table: experiment.table,
      reference: experiment.reference,
      // syncbench scan's plan: every route found, sent or skipped (lib/cli/scan-command.js)
      scan: experiment.scan,
      // what was measured instead of the servers the experiment names (absent: syncbench started them)
      target: target === undefined ? undefined : redactUrl(target, true),
      labels: configurations.map((c) => c.label),
      comparisons: Object.fromEntries(baselines(experiment, configurations)),
      ...sequential && { sequential: { rule: /** @type {const} */ ('bonferroni'), alpha: SEQUENTIAL_ALPHA, threshold: sequential.threshold, maxRuns: sequential.maxRuns, level: lookLevel(1, maxLooks(sequential.maxRuns)), rounds: 0, decided: false, decisions: [] } }
    })),
    runs: []
  }
  if (nodes.length > 0) results.nodes = nodes.map(({ name, path, versions }) => ({ name, path, versions }))
  const capacity = options.capacity
  if (capacity) results.capacity = capacityRuns(capacity)
  // each search gets what the budget has left over the searches left, so a quick one leaves more to the rest
  let searchesLeft = plans.reduce((n, p) => n + p.order.length, 0)
  const searchesStarted = Date.now()
  const save = () => writeAtomic(file, JSON.stringify(results, null, 2) + '\n')
  await save()
  progress.planned(plans, { upTo: Boolean(sequential) })

  /** @type {Map<string, import('./calibrate.js').Calibration>} */
  const calibrations = new Map()
  /** @type {Set<string>} */
  const profileNames = new Set()
  /** @type {SyncbenchError|null} */
  let error = null
  let stop = false
  let calibrationInterrupted = false
  for (const [e, { experiment, order }] of plans.entries()) {
    if (stop || signal?.aborted) break
    if (experiment.calibration && options.calibrate !== false && !target) {
      const key = calibrationKey(experiment.calibration)
      if (!calibrations.has(key)) {
        progress.calibrating(experiment.name, experiment.calibration.op)
        try {
          calibrations.set(key, await calibrate(experiment.calibration, { signal }))
        } catch (err) {
          // Ctrl-C ends the calibration child (or, outside syncbench's own process groups, the terminal's
          // SIGINT reached it first): that is the interrupt, not a failure.
          if (signal?.aborted || (err instanceof ExperimentError && err.signal === 'SIGINT')) {
            calibrationInterrupted = true
            break
          }
          throw err
        }
      }
      results.experiments[e].calibration = calibrations.get(key)
      // Strategies on the event loop, with no sibling off it to measure their HTTP work: time it alone.
      const http = needsHttpCalibration(plans[e].configurations)
      if (http && !signal?.aborted) {
        progress.calibrating(experiment.name, 'no-work HTTP')
        try {
          const work = /** @type {import('./calibrate.js').Calibration} */ (calibrations.get(key))
          results.experiments[e].calibration = { ...work, http: await calibrateHttp(http, { signal }) }
        } catch (err) {
          if (signal?.aborted) { calibrationInterrupted = true; break }
          throw err
        }
      }
      await save()
    }
    /** @type {Record<string, import('../types.js').Capacity>} */
    let capacities = {}
    if (experiment.rateSweep) {
      results.experiments[e].sloP99Ms = options.sloP99Ms ?? experiment.rateSweep.sloP99Ms
      // under --node, on the baseline binary: each step is a fraction of the same capacity on every binary
      capacities = await measureCapacities({ experiment, sweep: experiment.rateSweep, configurations: plans[e].configurations, engine, target, signal, runTimeout: options.runTimeout, outDir, progress, node: nodes[0] })
      results.experiments[e].capacity = capacities
      await save()
    }
    const runsInOrder = sequential ? roundsUntil(order, (round) => lookAfterRound(results, e, round, progress)) : order
    for (const { configuration: planned, repeat, node } of runsInOrder) {
      if (signal?.aborted) break
      // a rate-sweep step's rate is its fraction of the variant's capacity, measured above
      const configuration = experiment.rateSweep
        ? atOfferedRate(planned, capacities[planned.variant], experiment.rateSweep)
        : capacity ? closedLoopConfiguration(planned) : planned
      progress.runStarted({ experiment: experiment.name, label: runLabel(configuration.label, node), repeat, requests: configuration.load.requests })
      const probe = options.probe ?? (experiment.probe === true && !target)
      // the server is asked for its figures during the load only when a live view shows them
      const onServerSecond = progress.wantsServerSeconds ? (/** @type {import('../types.js').ServerSecond} */ second) => progress.serverSecond(second) : undefined
      const record = await runOne({ experiment, configuration, repeat, engine, target, signal, runTimeout: options.runDeadline?.() ?? options.runTimeout, fitLoad: options.fitLoad, deadlineFlag: options.deadlineFlag, outDir, profileNames, probe, probePath: options.probePath, node, onProgress: (done) => progress.heartbeat(done), onSecond: (source, second) => progress.second(source, second), onServerSecond })
      // A run whose requests failed or got error answers measured an error page's speed, not the server's.
      // a user's app: the status codes too (a rejected body, a missing header are the user's to fix)
      const reason = record.invalid?.reason ?? (record.error || !record.load || record.load.aborted || allowErrors ? null : loadInvalidity(record.load, { statuses: configuration.server.command !== undefined }))
      record.invalid = reason === null ? null : { reason }
      if (record.error) {
        // A connection error can beat the Ctrl-C that caused it: the SIGINT handler runs on a later
        // turn of the event loop (signals are read in its poll phase, before setImmediate callbacks).
        await new Promise((resolve) => setImmediate(resolve))
        if (signal?.aborted) record.error = null
      }
      if (record.error && options.isolateErrors && !signal?.aborted) {
        record.invalid = { reason: record.error.message }
        record.error = null
      }
      results.runs.push(record)
      await save()
      progress.runEnded(record)
      if (capacity && results.capacity && !record.error && !signal?.aborted) {
        const budgetMs = Math.max(1, (capacity.budgetMs - (Date.now() - searchesStarted)) / searchesLeft)
        searchesLeft--
        const search = await searchConfiguration({
          configuration: planned,
          closedLoop: record,
          settings: capacity,
          budgetMs,
          signal,
          onStep: (step) => progress.capacityStep({ experiment: experiment.name, label: runLabel(configuration.label, node), repeat, step }),
          runStep: (stepConfig) => runOne({ experiment, configuration: stepConfig, repeat, engine, target, signal, outDir, node })
        })
        if (!signal?.aborted || search.search?.steps.length) results.capacity.searches.push(search)
        await save()
      }
      if (record.error) {
        error = errorFromCode(record.error.code, `${record.id}: ${record.error.message}`, errorCodes.EXPERIMENT)
        // The partial result, where the error class declares one (lib/errors.js).
        if ((error instanceof ConnectError || error instanceof TimeoutError) && record.load) error.result = record.load
        stop = true
        break
      }
    }
    // the last look's decision, written whether or not the runs go on
    if (sequential) await save()
    if (!stop && !signal?.aborted) progress.experimentEnded(experiment.name, results)
  }
  const interrupted = calibrationInterrupted || Boolean(signal?.aborted)
  if (!interrupted && !error) {
    results.finishedAt = new Date().toISOString()
    await save()
  }
  progress.finished({ interrupted })
  const invalid = results.runs.flatMap((r) => r.invalid ? [{ id: r.id, reason: r.invalid.reason }] : [])
  return { results, file, interrupted, error, invalid }
}

/**
 * --runs auto, after each round of an experiment: the rounds so far, and from the third on the stopping
 * rule's look at every comparison (lib/analysis/sequential.js), recorded in its `sequential`. Once
 * decided (or at the last round allowed) its `runs` are the rounds it took and the progress drops the
 * rounds it will not run.
 * @param {import('../types.js').ResultsFile} results
 * @param {number} e  the experiment's index
 * @param {number} round  the rounds that ended
 * @param {RunProgress} progress
 * @returns {boolean}  no round follows
 */
function lookAfterRound (results, e, round, progress) {
  const record = results.experiments[e]
  const settings = /** @type {import('../types.js').SequentialRecord} */ (record.sequential)
  settings.rounds = round
  if (round < FIRST_LOOK_ROUND) return false
  const look = lookAtExperiment(results, record.name, { round, maxRuns: settings.maxRuns, threshold: settings.threshold })
  const number = (/** @type {number} */ x) => Number.isFinite(x) ? x : null
  settings.decided = look.decided
  settings.level = look.level
  settings.decisions = look.decisions.map((d) => ({ label: d.label, baseline: d.baseline, verdict: d.verdict, decided: d.decided, ratio: number(d.ratio), low: number(d.low), high: number(d.high) }))
  const last = look.decided || round >= settings.maxRuns
  if (last) {
    record.runs = round
    progress.roundsEnded({ experiment: record.name, rounds: round, maxRuns: settings.maxRuns, level: settings.level, decisions: settings.decisions })
  }
  return look.decided
}

/**
 * A rate-sweep's capacities: for each of its variants, a closed-loop run (rateSweep.capacityConcurrency
 * connections for capacitySeconds) on a fresh server, as any run, before its steps. Not a run of the
 * results: its req/s is what the offered rates are fractions of.
 * @param {object} o
 * @param {import('./experiment-loader.js').Experiment} o.experiment
 * @param {import('./experiment-loader.js').RateSweep} o.sweep
 * @param {import('./plan.js').Configuration[]} o.configurations
 * @param {Pick<import('./tools.js').LoadTool, 'name' | 'run'>} o.engine
 * @param {string} [o.target]
 * @param {AbortSignal} [o.signal]
 * @param {number} [o.runTimeout]
 * @param {string} o.outDir
 * @param {RunProgress} o.progress
 * @param {import('./node-binaries.js').NodeBinary} [o.node]  the binary the servers run under (--node's baseline)
 * @returns {Promise<Record<string, import('../types.js').Capacity>>}
 */
async function measureCapacities ({ experiment, sweep, configurations, engine, target, signal, runTimeout, outDir, progress, node }) {
  const { capacitySeconds: seconds, capacityConcurrency: concurrency } = sweep
  /** @type {Record<string, import('../types.js').Capacity>} */
  const capacities = {}
  for (const variant of [...new Set(configurations.map((c) => c.variant))]) {
    if (signal?.aborted) break
    const first = /** @type {import('./plan.js').Configuration} */ (configurations.find((c) => c.variant === variant))
    progress.measuringCapacity(experiment.name, variant, seconds)
    const { rate, ...closed } = first.load
    const configuration = { ...first, label: `${variant} capacity`, load: { ...closed, concurrency, timelimit: seconds, requests: TIMELIMIT_REQUESTS } }
    const record = await runOne({ experiment, configuration, repeat: 1, engine, target, signal, runTimeout, outDir, node })
    const load = record.load
    const reason = record.error?.message ?? record.invalid?.reason ?? (load ? loadInvalidity(load) : 'nothing measured')
    capacities[variant] = { rps: reason === null && load ? load.requestsPerSecond : 0, seconds, concurrency, requests: load?.completeRequests ?? 0, error: reason }
  }
  return capacities
}

/**
 * A rate-sweep step at its rate: its offered fraction of the variant's capacity, rateSweep.stepSeconds
 * of intended requests (all of them answered before the run ends: no request left out because it was
 * slow), at most as many connections as requests.
 * @param {import('./plan.js').Configuration} c
 * @param {import('../types.js').Capacity|undefined} capacity
 * @param {import('./experiment-loader.js').RateSweep} sweep
 * @returns {import('./plan.js').Configuration}
 */
function atOfferedRate (c, capacity, sweep) {
  const rps = capacity?.rps ?? 0
  // no capacity (its run failed): the smallest rate there is, so the step runs and fails or says so
  const rate = Number(Math.max(0.01, Number(c.config[OFFERED_AXIS]) * rps).toPrecision(4))
  const requests = Math.max(1, Math.ceil(rate * sweep.stepSeconds))
  const concurrency = Math.min(c.load.concurrency, requests)
  return { ...c, load: { ...c.load, rate, requests, concurrency }, config: { ...c.config, rate, requests, concurrency } }
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
 * @param {object} run
 * @param {import('./experiment-loader.js').Experiment} run.experiment
 * @param {import('./plan.js').Configuration} run.configuration
 * @param {number} run.repeat
 * @param {Pick<import('./tools.js').LoadTool, 'name' | 'run'>} run.engine
 * @param {string} [run.target]
 * @param {AbortSignal} [run.signal]
 * @param {number} [run.runTimeout] seconds (run-deadline.js)
 * @param {{ readsSeconds: number, minSeconds: number }} [run.fitLoad]  RunnerOptions.fitLoad
 * @param {string} [run.deadlineFlag]  the option its deadline message names
 * @param {string} run.outDir  the results folder (a user's app: its log and profile go there)
 * @param {Set<string>} [run.profileNames]  profile file names given so far (none: a run that saves no profile)
 * @param {boolean} [run.probe]  run the probe beside the measured load
 * @param {string} [run.probePath]  the route it asks (default the health route of syncbench's servers)
 * @param {import('./node-binaries.js').NodeBinary} [run.node]  --node: the binary the server child runs under
 * @param {(done: number) => void} [run.onProgress]  the measured load's heartbeats (the built-in generator's)
 * @param {(source: 'load'|'probe', second: import('../types.js').LoadSecond) => void} [run.onSecond]  each second of
 *        the measured load (the built-in generator's) and of the probe, as it ends
 * @param {(second: import('../types.js').ServerSecond) => void} [run.onServerSecond]  the server's figures about
 *        once a second during the measured load (a live view's); none: the server is not asked for them
 * @returns {Promise<import('../types.js').RunRecord>}
 */
async function runOne ({ experiment, configuration, repeat, engine, target, signal, runTimeout, fitLoad, deadlineFlag = '--run-timeout', outDir, profileNames = new Set(), probe = false, probePath, node, onProgress, onSecond, onServerSecond }) {
  /** @type {import('../types.js').RunRecord} */
  const record = {
    id: `${experiment.name}/${runLabel(configuration.label, node)}#${repeat}`,
    experiment: experiment.name,
    label: configuration.label,
    config: configuration.config,
    repeat,
    engine: engine.name,
    load: null,
    server: null,
    serverEnv: null,
    startedAt: new Date().toISOString(),
    error: null,
    probe: null,
    invalid: null
  }
  if (node) record.node = { name: node.name, node: node.versions.node, v8: node.versions.v8, uv: node.versions.uv, openssl: node.versions.openssl }
  /** @type {MeasuredServer|null} */
  let handle = null
  /** @type {import('../types.js').SharedHttp2Connection|null} the HTTP/2 connection the load and the probe share */
  let shared = null
  /** @type {(() => void)|null} ends what is left of a user's app's process group */
  let untrackGroup = null
  // The run's deadline ends the load (as Ctrl-C does) and stops the server, which fails a pending metrics request.
  const deadlineMs = runDeadlineMs(configuration.load, runTimeout)
  const deadlineAt = performance.now() + deadlineMs
  const deadline = new AbortController()
  const timer = setTimeout(() => { deadline.abort(); handle?.stop() }, deadlineMs)
  const runSignal = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal
  // What no signal ends (a --target's metrics routes, a child's IPC reply) is raced against the deadline.
  const expired = new Promise((resolve, reject) => deadline.signal.addEventListener('abort', () => reject(new TimeoutError('run deadline')), { once: true }))
  expired.catch(() => {})
  /** @type {<T>(pending: Promise<T>) => Promise<T>} */
  const within = (pending) => Promise.race([pending, /** @type {Promise<never>} */ (expired)])
  try {
    let url
    if (target) {
      handle = remoteHandle(target)
      // the target's origin and the path as it is: resolved as a URL, "//host:port/x" would name another host
      url = new URL(target).origin + configuration.path
    } else {
      // A validated experiment's server names a workload, a command or an app (lib/run/experiment-loader.js).
      const server = node ? underNode(configuration.server, node) : configuration.server
      const execPath = node?.path
      const child = server.workload
        ? await spawnWorkloadServer({ workload: server.workload, label: path.basename(server.workload), env: server.env, execPath, onChild: track, ...configuration.load.http2 === true && { http2: true } })
        : server.command
          ? await spawnUserApp(server, outDir, execPath)
          : await spawnServer({ app: /** @type {string} */ (server.app), args: server.args, env: server.env, execPath, onChild: track })
      handle = child
      const appPid = child.ready.appPid
      if (typeof appPid === 'number') untrackGroup = trackGroup(appPid)
      url = child.servers[0].url + configuration.path
    }
    const profiling = Boolean(configuration.server.command && configuration.server.profile && handle.profile)
    record.serverEnv = await within(Promise.resolve(handle.env))
    // The profile starts before the warm-up and the window: starting V8's profiler holds the app's loop
    // while it records the code already compiled (about 10 ms in a bare app, 100 ms and more with a large
    // heap), a stall of syncbench's own that the window must not count. Its samples from before the
    // window are left out (saveProfile: the profile's startOffsetMs is negative).
    if (profiling) await within(/** @type {NonNullable<MeasuredServer['profile']>} */ (handle.profile)({ action: 'start', signal }))
    const warmup = experiment.warmup ?? { requests: 4, concurrency: 2 }
    if (warmup.requests > 0 && !runSignal.aborted) {
      await builtinTool.run({ url, ...warmupRequest(configuration.load, warmup), keepAlive: configuration.load.keepAlive, signal: runSignal })
    }
    // `signal`: after a Ctrl-C a server blocked in its handler gets 2 s to answer, then its metrics are missing.
    await within(handle.metrics({ reset: true, signal }))
    // the probe covers the measured load, from its start to its end (lib/run/prober.js)
    // a server loaded over h2c may speak nothing else: the probe speaks HTTP/2 to it too, on the load's
    // own connection where the experiment asks (lib/run/prober.js says how and why)
    const origin = new URL(url).origin
    shared = probe && configuration.probeConnection === 'load' ? await sharedSession(origin, configuration.load.streams ?? 1, runSignal) : null
    const prober = probe ? startProbe({ origin, ...(probePath === undefined ? {} : { path: probePath }), http2: configuration.load.http2 === true, ...shared && { session: shared }, signal: runSignal, ...onSecond && { onSecond: (second) => onSecond('probe', second) } }) : null
    // the built-in generator keeps the load over time (LoadResult.series) and hands each second to a live view
    const overTime = engine.name === builtinTool.name ? { series: true, ...onSecond && { onSecond: (/** @type {import('../types.js').LoadSecond} */ second) => onSecond('load', second) } } : {}
    const watcher = onServerSecond && handle.live ? watchServer(handle.live, onServerSecond, runSignal) : null
    try {
      const load = fitLoad ? fittedLoad(configuration.load, deadlineAt - performance.now(), fitLoad) : configuration.load
      record.load = await engine.run({ ...load, url, signal: runSignal, ...onProgress && { onProgress }, ...overTime, ...shared && { http2Session: shared } })
    } catch (err) {
      // What was measured before the failure (loadtest's partial LoadResult) is kept either way.
      record.load = partialResult(err)
      throw err
    } finally {
      watcher?.stop()
      if (prober) record.probe = await prober.stop()
      shared?.close()
    }
    record.server = await within(handle.metrics({ signal }))
    if (profiling) record.profile = await within(saveProfile(/** @type {MeasuredServer} */ (handle), { record, outDir, profileNames, signal, root: configuration.server.cwd }))
  } catch (e) {
    if (!(e instanceof SyncbenchError)) throw e
    let err = e
    // The app ended by itself (a crash under load): that, with its last stderr lines, is what went wrong,
    // not the refused connections that followed.
    if (handle?.exited && !signal?.aborted) err = await exitError(handle) ?? err
    // A server or tool gone after the interrupt is the interrupt, not a failure.
    if (!signal?.aborted) record.error = { code: err.code, message: err.message }
  } finally {
    clearTimeout(timer)
    // closed already once the load and the probe ended; ended here whatever happened before
    shared?.close()
    // Interrupted: a server that ignores SIGTERM (blocked in a handler) is not given the full grace.
    await handle?.stop(signal?.aborted ? STOP_GRACE_AFTER_ABORT_MS : undefined)
    untrackGroup?.()
  }
  if (deadline.signal.aborted && !signal?.aborted) {
    record.error = null
    record.invalid = { reason: `did not end within its deadline of ${deadlineMs / 1000} s (${deadlineFlag}): server stopped` }
  }
  return record
}

/**
 * Ask the server for its last interval about once a second while the measured load runs, for a live
 * view: a read of its own (lib/lab/ipc.js's live request) that leaves the metrics window as it was.
 * One read at a time: a server whose loop is blocked answers late, and no read queues behind it.
 * @param {NonNullable<MeasuredServer['live']>} live
 * @param {(second: import('../types.js').ServerSecond) => void} onSecond
 * @param {AbortSignal} signal  the run's: after it, a read gets 2 s to answer (lib/lab/spawn.js)
 * @returns {{ stop: () => void }}  no answer is reported after stop()
 */
function watchServer (live, onSecond, signal) {
  let stopped = false
  let reading = false
  const timer = setInterval(() => {
    if (reading) return
    reading = true
    live({ signal }).then((second) => {
      if (!stopped && second !== null) onSecond(second)
    }, (err) => {
      // The view misses that second; what failed (a server gone, a read that timed out) is the
      // window's read's to report, after the load. Anything else is a bug and surfaces.
      if (!(err instanceof SyncbenchError)) throw err
    }).finally(() => { reading = false })
  }, SERVER_SECOND_MS)
  return {
    stop () {
      stopped = true
      clearInterval(timer)
    }
  }
}

/** The load options that shape the requests: the warm-up sends what the measured load will. */
const REQUEST_OPTIONS = /** @type {const} */ (['method', 'headers', 'cookies', 'auth', 'body', 'contentType', 'routes', 'http11', 'http2', 'streams'])

/**
 * The warm-up's load: its count and connections, the measured load's requests (a POST with its body,
 * a mix's routes; a mix needs a connection per route).
 * @param {import('./plan.js').Configuration['load']} load
 * @param {{ requests: number, concurrency: number }} warmup
 */
function warmupRequest (load, warmup) {
  /** @type {Record<string, unknown>} */
  const shaped = {}
  for (const key of REQUEST_OPTIONS) if (load[key] !== undefined) shaped[key] = load[key]
  const routes = Array.isArray(load.routes) ? load.routes.length : 1
  const concurrency = Math.max(routes, Math.min(warmup.concurrency, warmup.requests))
  return { ...shaped, requests: Math.max(warmup.requests, concurrency), concurrency }
}

/**
 * A configuration's server under one of --node's binaries: the binary's folder first on its PATH, so
 * that what the server starts by name (an --app's "node server.js", "npm start") runs under it too.
 * @param {import('./plan.js').Configuration['server']} server
 * @param {import('./node-binaries.js').NodeBinary} node
 * @returns {import('./plan.js').Configuration['server']}
 */
function underNode (server, node) {
  const PATH = [path.dirname(node.path), server.env.PATH ?? process.env.PATH ?? ''].filter(Boolean).join(path.delimiter)
  return { ...server, env: { ...server.env, PATH } }
}

/**
 * Start a user's own server command (--app) for one run.
 * @param {import('./plan.js').Configuration['server']} server
 * @param {string} outDir
 * @param {string} [execPath]  the Node.js binary of its server child (--node)
 */
async function spawnUserApp (server, outDir, execPath) {
  const name = server.name ?? 'app'
  const logDir = path.join(outDir, APPS_DIR)
  await makeDirectory(logDir, `--out ${outDir}`)
  /** @type {Parameters<typeof spawnAppServer>[0]} */
  const options = { command: /** @type {string} */ (server.command), name, log: path.join(logDir, `${name}.log`), env: server.env, execPath, onChild: track }
  if (server.cwd !== undefined) options.cwd = server.cwd
  if (server.port !== undefined) options.port = server.port
  if (server.startTimeoutMs !== undefined) options.startTimeoutMs = server.startTimeoutMs
  return spawnAppServer(options)
}

/**
 * Stop the app's profile into profiles/<run>.cpuprofile and reduce it (lib/analysis/profile.js).
 * @param {MeasuredServer} handle
 * @param {{ record: import('../types.js').RunRecord, outDir: string, profileNames: Set<string>, signal?: AbortSignal, root?: string }} o
 * @returns {Promise<import('../analysis/profile.js').ProfileSummary|null>}
 */
async function saveProfile (handle, { record, outDir, profileNames, signal, root }) {
  const dir = path.join(outDir, PROFILES_DIR)
  await makeDirectory(dir, `--out ${outDir}`)
  const name = runFileName({ experiment: record.experiment, label: record.label, repeat: record.repeat }, profileNames).replace(/\.txt$/, '.cpuprofile')
  const file = path.join(dir, name)
  const info = await /** @type {NonNullable<MeasuredServer['profile']>} */ (handle.profile)({ action: 'stop', file, signal })
  if (!info) return null
  // The profile ran from before the warm-up to after the window's read: the file keeps the window's
  // samples, those the reduction counts and the flame graph draws.
  const { profile, startOffsetMs } = windowProfile(JSON.parse(await readFile(file, 'utf8')), { startOffsetMs: info.startOffsetMs, windowMs: record.server?.windowMs })
  await writeAtomic(file, JSON.stringify(profile))
  return summarizeProfile(profile, { file: path.join(PROFILES_DIR, name), intervalUs: info.intervalUs, startOffsetMs, root, blocks: record.server?.loopBlocks, series: record.server?.series })
}

/**
 * The error that says how a server exited, if it did within EXIT_NOTICE_MS: its metrics request
 * fails naming the server's last stderr line (lib/lab/spawn.js).
 * @param {MeasuredServer} handle
 * @returns {Promise<SyncbenchError|null>}
 */
async function exitError (handle) {
  let timer
  const gone = await Promise.race([handle.exited?.then(() => true), new Promise((resolve) => { timer = setTimeout(resolve, EXIT_NOTICE_MS, false) })])
  clearTimeout(timer)
  if (!gone) return null
  try {
    await handle.metrics()
    return null
  } catch (err) {
    if (!(err instanceof SyncbenchError)) return null
    // "<server> is not running: <its last stderr line>": the app host's line says it all.
    return new ServerExitedError(err.message.replace(/^.*? is not running: (?=app ")/, ''), { stderr: 'stderr' in err && Array.isArray(err.stderr) ? err.stderr : [] })
  }
}

/**
 * What an aborted load run measured before its error: the `result` that ConnectError and TimeoutError
 * declare (lib/errors.js), else null.
 * @param {unknown} err
 * @returns {import('../types.js').LoadResult|null}
 */
function partialResult (err) {
  if (!(err instanceof SyncbenchError) || (err.code !== errorCodes.CONNECT && err.code !== errorCodes.TIMEOUT)) return null
  // By code rather than by class: lib/load may still throw the base class with these codes and the field.
  return /** @type {ConnectError|TimeoutError} */ (err).result ?? null
}

/**
 * A server syncbench did not start: metrics from its /__syncbench/metrics route when it has one
 * (null otherwise), nothing to stop.
 * @param {string} target
 * @returns {MeasuredServer}
 */
function remoteHandle (target) {
  /**
   * @param {string} route
   * @returns {Promise<any>} the server's JSON as it sent it (a syncbench server's ServerMetrics or Environment)
   */
  const get = async (route) => {
    try {
      const res = await fetch(new URL(route, target), { signal: AbortSignal.timeout(10_000) })
      if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return null
      return await res.json()
    } catch (err) {
      // No route, no server, no answer in time, not JSON: no metrics. Anything else is a bug.
      if (err instanceof TypeError || err instanceof SyntaxError || (err instanceof DOMException && err.name === 'TimeoutError')) return null
      throw err
    }
  }
  return {
    env: get('/__syncbench/env'),
    metrics: ({ reset = false } = {}) => get(`/__syncbench/metrics${reset ? '?reset=1' : ''}`),
    stop: async () => {}
  }
}
