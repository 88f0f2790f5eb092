// The progress of `syncbench run` as one stream of events (lib/types.js RunEvent): the runner reports
// what it does here, and this module alone turns that into events, with the run counts and the ETA.
// Whoever shows progress subscribes: the terminal line (lib/cli/progress-line.js, nothing with --quiet),
// the runs/ reports as runs end (lib/cli/run.js), a live view (which alone asks for the server's figures
// during runs: subscribe's serverSeconds).
import { mean } from '../analysis/stats.js'

/** @typedef {import('../types.js').RunEvent} RunEvent */

/**
 * The runs of one experiment in the order they will run (lib/run/plan.js's schedule).
 * @typedef {{ experiment: { name: string, title?: string }, configurations: { label: string }[], order: { configuration: { label: string }, node?: { name: string } }[] }} PlannedExperiment
 */

export class RunProgress {
  /** @type {((event: RunEvent) => void)[]} */
  #subscribers = []
  /** how many subscribers asked for the server's figures during runs (the runner asks the server only then) */
  #serverWatchers = 0
  /** @type {{ experiment: string, label: string }[]} every run, in run order */
  #runs = []
  /** @type {Map<string, number>} ms the last run of each configuration took, by experiment and label */
  #durations = new Map()
  #index = 0
  #ended = 0
  /** when the last run or capacity step ended (the clock of `now`) */
  #lastEnd = 0
  /** @type {{ experiment: string, label: string, startedAt: number, requests: number }|null} */
  #current = null
  #now
  /** @type {((results: import('../types.js').ResultsFile, experiment: string) => string[])|null} */
  #verdicts
  /** --runs auto: the plan is the most rounds allowed, and the events' totals say "up to" */
  #upTo = false

  /**
   * @param {{ now?: () => number, verdicts?: (results: import('../types.js').ResultsFile, experiment: string) => string[] }} [options]
   *   now: the clock the runs' durations are read on (ms); verdicts: an experiment's verdict lines from the
   *   results so far, for `experiment-end` (the runner's layer does not write verdicts: its caller hands them in)
   */
  constructor ({ now = Date.now, verdicts } = {}) {
    this.#now = now
    this.#verdicts = verdicts ?? null
  }

  /**
   * Receive every event from now on.
   * @param {(event: RunEvent) => void} subscriber
   * @param {{ serverSeconds?: boolean }} [options]  serverSeconds: this subscriber shows the server's
   *   figures live (`server-second` events): only then does the runner ask the server for them
   * @returns {() => void} unsubscribes
   */
  subscribe (subscriber, { serverSeconds = false } = {}) {
    this.#subscribers.push(subscriber)
    if (serverSeconds) this.#serverWatchers++
    let subscribed = true
    return () => {
      if (!subscribed) return
      subscribed = false
      if (serverSeconds) this.#serverWatchers--
      this.#subscribers = this.#subscribers.filter((s) => s !== subscriber)
    }
  }

  /** Whether a subscriber shows the server's figures live: the runner reads them from the server only then. */
  get wantsServerSeconds () {
    return this.#serverWatchers > 0
  }

  /** @param {RunEvent} event */
  #emit (event) {
    for (const subscriber of this.#subscribers) subscriber(event)
  }

  /** The number of runs planned. */
  get total () {
    return this.#runs.length
  }

  /** The events' `upTo`: present, and true, under --runs auto only. */
  get #upToField () {
    return this.#upTo ? { upTo: /** @type {const} */ (true) } : {}
  }

  /**
   * The plan is known: every run of every experiment, in order.
   * @param {PlannedExperiment[]} plans
   * @param {{ upTo?: boolean }} [options]  upTo: --runs auto, the plan goes as far as the most rounds
   *   allowed; an experiment decided sooner drops the rest (roundsEnded)
   */
  planned (plans, { upTo = false } = {}) {
    this.#upTo = upTo
    this.#runs = plans.flatMap(({ experiment, order }) => order.map(({ configuration, node }) => ({ experiment: experiment.name, label: runLabel(configuration.label, node) })))
    this.#emit({
      type: 'plan',
      total: this.total,
      ...this.#upToField,
      runs: this.#runs.map((run) => ({ ...run })),
      experiments: plans.map(({ experiment, configurations, order }) => ({ name: experiment.name, title: experiment.title ?? experiment.name, configurations: configurations.length, runs: order.length }))
    })
  }

  /** An experiment's operation is being timed alone. @param {string} experiment @param {string} op */
  calibrating (experiment, op) {
    this.#emit({ type: 'calibrate', experiment, op })
  }

  /** A rate-sweep's variant is measured closed-loop. @param {string} experiment @param {string} label @param {number} seconds */
  measuringCapacity (experiment, label, seconds) {
    this.#emit({ type: 'capacity', experiment, label, seconds })
  }

  /**
   * A step of a capacity search ended (--capacity).
   * @param {{ experiment: string, label: string, repeat: number, step: import('../types.js').CapacityStep }} step
   */
  capacityStep ({ experiment, label, repeat, step }) {
    // a search follows its configuration's run: the ETA counts its steps as that configuration's time
    const now = this.#now()
    const k = key(experiment, label)
    this.#durations.set(k, (this.#durations.get(k) ?? 0) + now - this.#lastEnd)
    this.#lastEnd = now
    this.#emit({ type: 'capacity-step', experiment, label, repeat, step })
  }

  /**
   * The next run of the plan starts.
   * @param {{ experiment: string, label: string, repeat: number, requests: number }} run  requests: its load's
   */
  runStarted ({ experiment, label, repeat, requests }) {
    this.#index++
    this.#current = { experiment, label, startedAt: this.#now(), requests }
    this.#emit({ type: 'run-start', index: this.#index, total: this.total, ...this.#upToField, experiment, label, repeat, etaMs: this.#eta() })
  }

  /**
   * The running run's load completed `done` requests (the engine's onProgress).
   * @param {number} done
   */
  heartbeat (done) {
    const run = this.#current
    if (run === null) return
    this.#emit({ type: 'heartbeat', index: this.#index, total: this.total, experiment: run.experiment, label: run.label, done, requests: run.requests })
  }

  /**
   * A second of the running run ended: its measured load's (the built-in generator's) or its probe's.
   * @param {'load'|'probe'} source
   * @param {import('../types.js').LoadSecond} second
   */
  second (source, second) {
    const run = this.#current
    if (run === null) return
    this.#emit({ type: 'second', index: this.#index, experiment: run.experiment, label: run.label, source, second })
  }

  /**
   * The running run's server over its last interval (a live read, lib/lab/metrics.js live()).
   * @param {import('../types.js').ServerSecond} second
   */
  serverSecond (second) {
    const run = this.#current
    if (run === null) return
    this.#emit({ type: 'server-second', index: this.#index, experiment: run.experiment, label: run.label, second })
  }

  /**
   * The running run ended, its record written to results.json.
   * @param {import('../types.js').RunRecord} record
   */
  runEnded (record) {
    const run = this.#current
    this.#lastEnd = this.#now()
    if (run !== null) this.#durations.set(key(run.experiment, run.label), this.#lastEnd - run.startedAt)
    this.#current = null
    this.#ended++
    this.#emit({ type: 'run-end', index: this.#index, total: this.total, ...this.#upToField, record })
  }

  /**
   * --runs auto: an experiment's rounds are over, decided or at the most allowed. Its runs planned
   * beyond them leave the plan (the total and the ETA count the rest).
   * @param {{ experiment: string, rounds: number, maxRuns: number, level: number, decisions: import('../types.js').SequentialRecord['decisions'] }} o
   */
  roundsEnded ({ experiment, rounds, maxRuns, level, decisions }) {
    // the experiment's runs left are the next ones in the plan: experiments run one after another
    this.#runs = [...this.#runs.slice(0, this.#index), ...this.#runs.slice(this.#index).filter((run) => run.experiment !== experiment)]
    this.#emit({ type: 'rounds-end', experiment, rounds, maxRuns, level, decisions: decisions.map((d) => ({ ...d })) })
  }

  /**
   * An experiment's last run ended (its runs were not cut short), its records in `results`: its verdict,
   * where the caller handed in how to write one (nothing otherwise).
   * @param {string} experiment
   * @param {import('../types.js').ResultsFile} results
   */
  experimentEnded (experiment, results) {
    if (this.#verdicts === null) return
    this.#emit({ type: 'experiment-end', experiment, verdicts: this.#verdicts(results, experiment) })
  }

  /** No run follows: the plan finished, was interrupted or failed. @param {{ interrupted: boolean }} o */
  finished ({ interrupted }) {
    this.#emit({ type: 'end', runs: this.#ended, total: this.total, interrupted })
  }

  /**
   * The time the runs left will take: each what its configuration took last time, else the mean so far
   * (null before any run ended). The run about to start counts as left.
   * @returns {number|null}
   */
  #eta () {
    if (this.#durations.size === 0) return null
    const average = mean([...this.#durations.values()])
    let remaining = 0
    for (const run of this.#runs.slice(this.#index - 1)) remaining += this.#durations.get(key(run.experiment, run.label)) ?? average
    return remaining
  }
}

/** @param {string} experiment @param {string} label */
function key (experiment, label) {
  return `${label}\0${experiment}`
}

/**
 * How progress and run ids name a configuration run under one of several Node.js binaries (--node):
 * the label, a space, "@" and the binary's name.
 * @param {string} label
 * @param {{ name: string }} [node]
 */
export function runLabel (label, node) {
  return node ? `${label} @${node.name}` : label
}
