// The apps of one results file written by `syncbench run --app before=... --app after=...`: every route
// of every app ran interleaved in one experiment (table `app`), the first app the baseline. Each app's
// runs are cut out as a results file of their own, their labels without the app's name ("after /report"
// becomes "/report"), so compareResults and compareCapacities pair two apps' configurations as they pair
// two files'. That is what `syncbench compare` of one such file gates on: a pull request against its
// base, both measured in one job on one machine, their runs alternating.
import { compareResults } from './summarize.js'
import { compareCapacities } from './capacity.js'

/**
 * @typedef {import('../types.js').ResultsFile} ResultsFile
 * @typedef {ResultsFile['experiments'][number]} ExperimentRecord
 */

/**
 * The experiment of `run --app` with two or more apps, and its apps (the baseline first, the others in
 * the order of its labels); no experiment and no apps for any other file.
 * @param {ResultsFile} results
 * @returns {{ experiment: ExperimentRecord|null, apps: string[] }}
 */
export function resultsApps (results) {
  const experiment = results.experiments.find((e) => e.table === 'app') ?? null
  const none = { experiment: null, apps: [] }
  if (experiment === null || experiment.baseline === undefined) return none
  // a run's app is its configuration's strategy; with one app the labels carry no app name to cut off
  /** @type {Map<string, string>} label -> app */
  const appOf = new Map()
  for (const r of results.runs) if (r.experiment === experiment.name) appOf.set(r.label, String(r.config.strategy))
  const apps = [...new Set(experiment.labels.flatMap((label) => appOf.get(label) ?? []))]
  if (apps.length < 2 || !apps.includes(experiment.baseline)) return none
  return { experiment, apps: [experiment.baseline, ...apps.filter((a) => a !== experiment.baseline)] }
}

/**
 * One app's runs (and capacity searches) as a results file of their own, labelled by route alone.
 * @param {ResultsFile} results
 * @param {ExperimentRecord} experiment  resultsApps' experiment
 * @param {string} app
 * @returns {ResultsFile}
 */
export function resultsOfApp (results, experiment, app) {
  const prefix = `${app} `
  /** @param {{ experiment: string, config: Record<string, unknown> }} r */
  const mine = (r) => r.experiment === experiment.name && r.config.strategy === app
  /** @template {{ label: string }} T @param {T} r @returns {T} */
  const relabel = (r) => ({ ...r, label: r.label.startsWith(prefix) ? r.label.slice(prefix.length) : r.label })
  // the experiment's own comparisons were app against app: within one app there is none
  const { baseline, ...meta } = experiment
  const own = { ...meta, labels: experiment.labels.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length)), comparisons: {} }
  const { capacity, ...rest } = results
  /** @type {ResultsFile} */
  const out = { ...rest, experiments: [own], runs: results.runs.filter(mine).map(relabel) }
  if (capacity) out.capacity = { ...capacity, searches: capacity.searches.filter(mine).map(relabel) }
  return out
}

/**
 * `syncbench compare` within one results file of several apps: every configuration of each app after
 * the first against the baseline app's at the same route, in compareResults' shape (so its table,
 * --json and the CI gate apply). The label names the apps compared ("/report (after vs before)").
 * @param {ResultsFile} results
 * @returns {ReturnType<typeof compareResults>}
 */
export function compareApps (results) {
  return pairApps(results, compareResults)
}

/**
 * compareApps for capacities (run --capacity --app ... --app ...): each configuration's capacities
 * in each app after the first against the baseline app's, labelled as compareApps labels them.
 * @param {ResultsFile} results
 * @returns {import('./capacity.js').CapacityComparison[]}
 */
export function compareCapacityApps (results) {
  return pairApps(results, compareCapacities)
}

/**
 * Each app after the first against the baseline app, by `compare` (two results files' comparison).
 * @template {{ label: string }} Row
 * @param {ResultsFile} results
 * @param {(a: ResultsFile, b: ResultsFile) => Row[]} compare
 * @returns {Row[]}
 */
function pairApps (results, compare) {
  const { experiment, apps } = resultsApps(results)
  if (experiment === null) return []
  const [base, ...others] = apps
  const baseResults = resultsOfApp(results, experiment, base)
  return others.flatMap((other) => compare(baseResults, resultsOfApp(results, experiment, other))
    .map((row) => ({ ...row, label: `${row.label} (${other} vs ${base})` })))
}
