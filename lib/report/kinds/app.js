// The app kind (`table: 'app'`, a user's own server: run --app, an experiment whose server is a
// command): the comparison kind's table and charts, and a verdict that answers the user's question,
// "is this route blocking my server?": the route that held the event loop most, for how long (the
// loop's p99 delay and the share of the window it was late), with a profile the function first in
// "where the event loop went", and what that did to the other routes (their latency beside it in a
// mix, or the probe's wait).
//
// One results file of several apps (run --app before=... --app after=...: every route of every app ran
// interleaved, the first app the baseline) is compared app by app: each app's runs are cut out as a
// results file of their own, their labels without the app's name ("after /report" becomes "/report"),
// so compareResults and compareCapacities pair two apps' configurations as they pair two files'. That
// is what `syncbench compare` of one such file gates on: a pull request against its base, both
// measured in one job on one machine, their runs alternating (docs/ci.md).
import { generic, comparisonVerdict, ratiosText, invalidNote, singleRunNote } from './generic.js'
import { callText, leafText, lateShareOf } from '../event-loop.js'
import { heldShare, compareResults } from '../../analysis/summarize.js'
import { compareCapacities } from '../../analysis/capacity.js'
import { formatMs } from '../chart-style.js'
import { routeTail } from '../route-table.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */

/** @type {import('../kinds.js').ExperimentKind} */
export const app = {
  ...generic,
  name: 'app',
  verdict: appVerdict
}

/**
 * The share of a row's measured windows the event loop was late past the blocking threshold, as "where
 * the event loop went" gives it (lateShareOf).
 * @param {Row} r
 * @returns {number|null}
 */
function lateShare (r) {
  return lateShareOf(heldShare(r.runs), r.profile)
}

/** A share as the verdict prints it: whole percents, tenths below 10%. @param {number} share */
const percentText = (share) => (share * 100).toFixed(share < 0.1 ? 1 : 0)

/** @param {number} share */
const percent = (share) => `${percentText(share)}%`

/**
 * The routes the loop was held by in a mix, from the server's own view of its requests when it kept
 * one (LoopBlocks.routes: the time of the blocking spans each route's requests covered), the most first.
 * @param {Row} r
 * @returns {{ route: string, ms: number }[]}
 */
function heldBy (r) {
  /** @type {Map<string, number>} */
  const byRoute = new Map()
  for (const run of r.runs) {
    const routes = /** @type {{ routes?: { route: string, ms: number }[] }|undefined} */ (run.server?.loopBlocks)?.routes
    for (const { route, ms } of routes ?? []) byRoute.set(route, (byRoute.get(route) ?? 0) + ms)
  }
  return [...byRoute].map(([route, ms]) => ({ route, ms })).sort((a, b) => b.ms - a.ms)
}

/**
 * How long the loop was held under a row: "loop p99 227 ms, late 87% of the window".
 * @param {Row} r
 */
function holding (r) {
  const parts = []
  if (r.server) parts.push(`loop p99 ${formatMs(r.server.loopP99)}`)
  const late = lateShare(r)
  if (late !== null) parts.push(`late ${percent(late)} of the window`)
  return parts.join(', ')
}

/**
 * "first in where the event loop went: compareSync (bcryptjs) from login at server.js:3, 94% of the window
 * (leaf: _encipher (bcryptjs/dist/bcrypt.js:959), 87%)"; a row from before calls names its function.
 * @param {Row} r
 * @param {string} [scope] what the profile covers
 */
function firstFunction (r, scope = '') {
  const first = r.profile?.self[0]
  if (!first || !r.profile || !(r.profile.totalMs > 0)) return ''
  const leaf = leafText(first)
  const beneath = leaf ? ` (${leaf}, ${percent((first.leafMs ?? first.ms) / r.profile.totalMs)})` : ''
  return `first in where the event loop went${scope}: ${callText(first)}, ${percent(first.ms / r.profile.totalMs)} of the window${beneath}`
}

/**
 * How much a row held the loop, to rank them: the share late as the verdict prints it, then the loop's
 * p99 (two routes both "late 51%" rank by their p99, not by a difference the reader is not shown, which
 * on a loaded machine is noise).
 * @param {Row} r
 */
function weight (r) {
  const late = lateShare(r)
  return (late === null ? 0 : Number(percentText(late))) * 1e6 + (r.server?.loopP99 ?? 0)
}

/**
 * What one configuration says: a route alone, or a mix.
 * @param {Row} r
 * @returns {string}
 */
function rowSentence (r) {
  const routes = r.routes
  if (!routes) {
    const latency = r.latency?.percentiles.find((q) => q.key === 'p99')
    const speed = `${r.figures.requestsPerSecond.mean.toFixed(2)} req/s${latency ? `, p99 ${formatMs(latency.ms)}` : ''}`
    return [`${r.label} holds the event loop most: ${holding(r) || 'no server metrics'}`, firstFunction(r), speed].filter(Boolean).join('; ')
  }
  // a mix: the route the server saw in progress through the blocks, when it followed them; else the
  // mix as a whole, the profile covering all its routes
  const held = heldBy(r)
  const named = held.length ? routes.find((route) => `${route.method} ${route.path.split('?')[0]}` === held[0].route) : undefined
  const head = named
    ? `in ${r.label}, ${named.name} holds the event loop most (in progress through ${formatMs(held[0].ms)} of the blocking): ${holding(r)}`
    : `${r.label} (${routes.map((route) => route.name).join(', ')}) held the event loop: ${holding(r) || 'no server metrics'}`
  const others = named ? routes.filter((route) => route !== named) : routes
  const waits = others.flatMap((route) => {
    const tail = routeTail(route)
    return tail ? [`${route.name} ${tail.what} ${formatMs(tail.ms)}`] : []
  })
  const beside = named ? routeTail(named) : null
  const effect = waits.length ? `${named ? 'beside it ' : ''}${waits.join(', ')}${beside ? ` (${named?.name} ${beside.what} ${formatMs(beside.ms)})` : ''}` : ''
  return [head, firstFunction(r, ' (the profile covers all the routes of the mix)'), effect].filter(Boolean).join('; ')
}

/**
 * "app: POST /login holds the event loop most: loop p99 227 ms, late 87% of the window; first in where
 * the event loop went: compareSync (bcrypt) from server.js:3, 87% of the window; 25.22 req/s, p99 402 ms;
 * /health alone: loop p99 3.1 ms, 2750 req/s". The comparison kind's sentence where apps are
 * compared (before/after) or nothing was measured.
 * @param {ExperimentSummary} s
 * @returns {string}
 */
export function appVerdict (s) {
  const measured = s.rows.filter((r) => r.runs.length > 0)
  const compared = s.rows.some((r) => r.comparison !== null)
  if (measured.length === 0) return comparisonVerdict(s).join('; ')
  const ranked = [...measured].sort((a, b) => weight(b) - weight(a))
  const [top, ...rest] = ranked
  const parts = [rowSentence(top)]
  const alone = rest.filter((r) => !r.routes).slice(0, 3)
  if (alone.length) parts.push(alone.map((r) => `${r.label} alone: ${[holding(r), `${r.figures.requestsPerSecond.mean.toFixed(2)} req/s`].filter(Boolean).join(', ')}`).join('; '))
  const mixes = rest.filter((r) => r.routes)
  for (const r of mixes.slice(0, 2)) parts.push(rowSentence(r))
  // no mix and no probe: nothing measured what the blocking did to the other routes; say how to see it
  if (!measured.some((r) => r.routes || r.probe)) parts.push('--mix, or --probe-path with a cheap route, measures what it does to the other routes')
  // apps compared (before/after): their ratios first
  const ratios = compared ? ratiosText(s.rows) : ''
  return `${s.name}: ${[ratios, ...parts].filter(Boolean).join('; ')}${invalidNote(s.rows)}${singleRunNote(measured)}`
}

/**
 * @typedef {import('../../types.js').ResultsFile} ResultsFile
 * @typedef {ResultsFile['experiments'][number]} ExperimentRecord
 */

/**
 * The experiment of `run --app` with two or more apps, and its apps (the baseline first, the others in
 * the order of its labels); no experiment and no apps for any other file.
 * @param {ResultsFile} results
 * @returns {{ experiment: ExperimentRecord|null, apps: string[] }}
 */
export function resultsApps (results) {
  for (const experiment of results.experiments) {
    if (experiment.table !== 'app' || experiment.baseline === undefined) continue
    const apps = appsOf(results, experiment, experiment.baseline)
    if (apps.length) return { experiment, apps }
  }
  return { experiment: null, apps: [] }
}

/**
 * The apps of one experiment of the app kind, the baseline first; none unless it ran two or more apps
 * as run --app does, each configuration labelled "<app> <route>" (an experiment file whose server is a
 * command labels its variants its own way, and is no comparison of apps).
 * @param {ResultsFile} results
 * @param {ExperimentRecord} experiment
 * @param {string} baseline
 * @returns {string[]}
 */
function appsOf (results, experiment, baseline) {
  // a run's app is its configuration's strategy
  /** @type {Map<string, string>} label -> app */
  const appOf = new Map()
  for (const r of results.runs) if (r.experiment === experiment.name) appOf.set(r.label, String(r.config.strategy))
  const apps = [...new Set(experiment.labels.flatMap((label) => appOf.get(label) ?? []))]
  if (apps.length < 2 || !apps.includes(baseline)) return []
  if (!experiment.labels.every((label) => !appOf.has(label) || label.startsWith(`${appOf.get(label)} `))) return []
  return [baseline, ...apps.filter((a) => a !== baseline)]
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
 * @returns {import('../../analysis/capacity.js').CapacityComparison[]}
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
