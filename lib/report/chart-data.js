// From a ResultsFile to the numbers the charts draw: which axis an experiment sweeps, which runs form a
// series, and the mean and 95% CI of repeated runs (lib/analysis/stats.js: compare.R's t-interval, and for
// req/s the log-scale rateInterval the tables print, never negative and none below 3 runs).
import { primaryResults } from '../analysis/versions.js'
import { summarize, rateInterval } from '../analysis/stats.js'
import { isMeasured, combineValues } from '../analysis/summarize.js'
import { formatBytes } from '../format.js'

/** Config keys that are settings of the experiment, never a swept axis worth a chart of its own. */
const NOT_AXES = new Set(['strategy', 'requests', 'app', 'workload', 'keepAlive', 'engine', 'timelimit'])

/** Axes whose values span decades, drawn on a log scale when every value is positive. */
const LOG_AXES = new Set(['concurrency', 'threadpoolSize', 'poolSize', 'fileSize', 'cost', 'requests'])

/**
 * @typedef {object} Point one configuration of a series, its repeated runs summarized
 * @property {string} series
 * @property {string} strategy   config.strategy ('' when unset): picks the colour
 * @property {string} label      the runs' label (what the tables call this configuration)
 * @property {number|null} x     the swept axis value (null when the experiment sweeps nothing numeric)
 * @property {import('../types.js').RunRecord[]} runs   the measured runs (isMeasured)
 * @property {number} n
 * @property {number} mean       the runs' combined value: their mean, or their max under the 'max' rule
 * @property {number} ciLow      NaN when n < 2, under the 'max' rule, and under the 'rate' rule below
 *                               MIN_RUNS_FOR_INTERVAL runs (lib/analysis/stats.js)
 * @property {number} ciHigh
 */

/** @typedef {import('../types.js').ResultsFile['experiments'][number]} ExperimentEntry */

/**
 * An experiment as the report reads it: an entry of the file's list, or the one experimentsOf makes up
 * from runs the list does not name (then only name, title, description and axes are known).
 * @typedef {Pick<ExperimentEntry, 'name'|'title'|'description'|'axes'> & Partial<ExperimentEntry>} ExperimentInfo
 */

/**
 * Group a file's runs by experiment, keeping the file's experiment order, then any experiment only the
 * runs name (a runner killed before it wrote the list still leaves readable runs).
 * @param {import('../types.js').ResultsFile} results
 * @returns {{ experiment: ExperimentInfo, runs: import('../types.js').RunRecord[] }[]}
 */
export function experimentsOf (results) {
  /** @type {Map<string, { experiment: ExperimentInfo, runs: import('../types.js').RunRecord[] }>} */
  const byName = new Map()
  for (const e of results.experiments ?? []) byName.set(e.name, { experiment: e, runs: [] })
  // under --node, the baseline version's runs (lib/report/version-report.js charts the versions)
  for (const run of primaryResults(results).runs ?? []) {
    let group = byName.get(run.experiment)
    if (!group) {
      group = { experiment: { name: run.experiment, title: run.experiment, description: '', axes: [] }, runs: [] }
      byName.set(run.experiment, group)
    }
    group.runs.push(run)
  }
  return [...byName.values()].filter((g) => g.runs.length > 0)
}

/**
 * The numeric config key whose values vary across the runs: the experiment's declared axes first,
 * then any other varying numeric key (older files, hand-written experiments).
 * @param {{ axes?: string[] }} experiment
 * @param {import('../types.js').RunRecord[]} runs
 * @returns {string|null}
 */
export function sweptAxis (experiment, runs) {
  /** @param {string} key */
  const varies = (key) => {
    const values = new Set(runs.map((r) => r.config?.[key]))
    return values.size > 1 && [...values].every((v) => typeof v === 'number')
  }
  for (const key of experiment.axes ?? []) if (!NOT_AXES.has(key) && varies(key)) return key
  const keys = new Set(runs.flatMap((r) => Object.keys(r.config ?? {})))
  for (const key of keys) if (!NOT_AXES.has(key) && varies(key)) return key
  return null
}

/**
 * What names a series: the run's label (what the tables call it) without the swept axis's token
 * ("async c=20" -> "async", as lib/run/plan.js builds labels), else the config values that vary.
 * @param {import('../types.js').RunRecord[]} runs
 * @param {string|null} axis
 * @returns {(run: import('../types.js').RunRecord) => string}
 */
export function seriesOf (runs, axis) {
  if (axis === null) return (run) => run.label
  /** @param {import('../types.js').RunRecord} run @returns {string|null} */
  const stripped = (run) => {
    const value = String(run.config?.[axis])
    const tokens = String(run.label).split(' ')
    const kept = tokens.filter((t) => !(t.includes('=') && t.slice(t.indexOf('=') + 1) === value))
    return kept.length < tokens.length && kept.length > 0 ? kept.join(' ') : null
  }
  // every run's label gave up its axis token: none of them strips to null
  if (runs.every((r) => stripped(r) !== null)) return /** @type {(run: import('../types.js').RunRecord) => string} */ (stripped)
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.config ?? {})))]
    .filter((k) => k !== axis && k !== 'requests' && new Set(runs.map((r) => r.config?.[k])).size > 1)
  if (keys.length === 0) return (run) => String(run.config?.strategy ?? run.experiment)
  keys.sort((a, b) => Number(b === 'strategy') - Number(a === 'strategy'))
  return (run) => keys.map((k) => k === 'strategy' ? String(run.config[k]) : `${k}=${run.config[k]}`).join(' ')
}

/** @param {string} axis @param {number[]} values */
export function isLogAxis (axis, values) {
  if (!LOG_AXES.has(axis) || values.some((v) => !(v > 0))) return false
  return Math.max(...values) / Math.min(...values) >= 8
}

/**
 * Summarize one metric per (series, x) over the measured repeats (isMeasured): by default their mean
 * and 95% CI; with combine 'max' (the figure's rule in lib/analysis/summarize.js) the highest of them; with
 * 'rate' (req/s) their mean and the log-scale 95% CI of Row.rate (rateInterval), so a chart's whisker
 * is the table's "Req/s 95% CI": never below zero, and none from fewer than 3 runs.
 * @param {import('../types.js').RunRecord[]} runs
 * @param {string|null} axis
 * @param {(run: import('../types.js').RunRecord) => number|undefined|null} metric
 * @param {'mean'|'max'|'rate'} [combine='mean']
 * @returns {Point[]}
 */
export function summarizeBy (runs, axis, metric, combine = 'mean') {
  const series = seriesOf(runs, axis)
  /** @type {Map<string, Omit<Point, 'n'|'mean'|'ciLow'|'ciHigh'> & { values: number[] }>} */
  const groups = new Map()
  for (const run of runs) {
    if (!isMeasured(run)) continue
    const value = metric(run)
    if (typeof value !== 'number' || !Number.isFinite(value)) continue
    const x = axis === null ? null : Number(run.config[axis])
    const key = `${series(run)}\u0000${x}`
    let g = groups.get(key)
    if (!g) {
      g = { series: series(run), strategy: String(run.config?.strategy ?? ''), label: run.label, x, runs: [], values: [] }
      groups.set(key, g)
    }
    g.runs.push(run)
    g.values.push(value)
  }
  return [...groups.values()].map(({ values, ...g }) => {
    if (combine === 'max') return { ...g, n: values.length, mean: combineValues('max', values), ciLow: NaN, ciHigh: NaN }
    const s = summarize(values)
    if (combine === 'rate') {
      const rate = rateInterval(values)
      return { ...g, n: s.n, mean: s.mean, ciLow: rate.low, ciHigh: rate.high }
    }
    return { ...g, n: s.n, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh }
  })
}

/**
 * Points averaged over 2 or more runs that still have no interval (a rate from fewer than 3 runs):
 * their whisker is missing on purpose and the caption says so.
 * @param {Point[]} points
 */
export function withoutInterval (points) {
  return points.filter((p) => p.n > 1 && !(Number.isFinite(p.ciLow) && Number.isFinite(p.ciHigh)))
}

/** Series names in first-seen order. @param {Point[]} points */
export function seriesNames (points) {
  return [...new Set(points.map((p) => p.series))]
}

/**
 * @typedef {object} CurvePoint one point of a latency curve
 * @property {number} q        the percentile as a fraction (0.999)
 * @property {number} rank     1 / (1 - q), the classic HdrHistogram x axis that spreads out the tail
 * @property {number} ms
 * @property {boolean} isMax   too few requests for this percentile: ms is the slowest request
 * @property {string} label    'p99.9'
 * @property {number} count    requests behind the curve
 */

/**
 * Percentile curve of one group of runs, from their merged latency (lib/analysis/latency.js; the mean
 * of their percentiles for runs without a histogram). The curve ends at the first percentile its
 * requests cannot support, drawn as the maximum (isMax): every later one would be the same maximum again.
 * @param {import('../analysis/latency.js').LatencySummary|null} latency
 * @returns {CurvePoint[]}
 */
export function latencyCurve (latency) {
  if (latency === null) return []
  const points = []
  for (const { q, ms, isMax, label } of latency.percentiles) {
    if (Number.isFinite(ms) && ms > 0) points.push({ q, rank: 1 / (1 - q), ms, isMax, label, count: latency.count })
    if (isMax) break
  }
  return points
}

/**
 * The experiment title without its parenthesised details or "requests/s vs ...", for secondary charts.
 * @param {{ name: string, title?: string }} experiment
 */
export function shortTitle (experiment) {
  return String(experiment.title || experiment.name).replace(/\s+\([^)]*\)\s*$/, '').replace(/:\s*requests\/s vs .*$/, '')
}

/**
 * "Title: more", or "Title? more" when the title already ends a sentence.
 * @param {string} title
 * @param {string} more
 */
export function joinTitle (title, more) {
  return /[?!.]$/.test(title) ? `${title} ${more[0].toUpperCase()}${more.slice(1)}` : `${title}: ${more}`
}

/** Human label for an axis name. @param {string} axis */
export function axisTitle (axis) {
  /** @type {Record<string, string|undefined>} */
  const titles = {
    concurrency: 'concurrency',
    threadpoolSize: 'UV_THREADPOOL_SIZE',
    poolSize: 'worker pool size',
    delay: 'setTimeout delay (ms)',
    fileSize: 'file size',
    cost: 'cost per request',
    requests: 'requests'
  }
  return titles[axis] ?? axis
}

/** Format an axis value for ticks and tables. @param {string} axis @param {number} v */
export function formatAxisValue (axis, v) {
  if (axis === 'fileSize') return formatBytes(v)
  return String(v)
}

/**
 * A name as a file-name prefix and HTML id: lower-case letters, digits and "-" as they are, any other
 * character as "_<hex code point>_". One-to-one, so "a.b" and "a-b" (or "A" and "a", on a
 * case-insensitive file system) never share a PNG or an id.
 * @param {unknown} s
 * @returns {string}
 */
export function slug (s) {
  return String(s).replace(/[^a-z0-9-]/gu, (c) => `_${/** @type {number} */ (c.codePointAt(0)).toString(16)}_`) || 'experiment'
}
