// What a capacity run (`syncbench run --capacity --slo EXPR`, results.json `capacity`) says of an
// experiment: each configuration's capacity at the goal beside its closed-loop req/s and latency and the
// bound predict's model gives it (a table), and one verdict part naming every outcome of the searches.
// The figures are lib/analysis/capacity.js capacityRows' (the intervals and ratios are computed there)
// and the model's rows (the closed loop's req/s, latency and bound); this module only words them.
// lib/report/model.js reads an experiment's capacity once (capacityReading), the tables
// (lib/report/tables.js), the verdict and lib/report/chart-capacity.js take it from the model.
import { capacityRows } from '../analysis/capacity.js'
import { summarizeExperiments } from '../analysis/summarize.js'
import { resultsNodes, resultsOfNode } from '../analysis/versions.js'
import { stars, MIN_RUNS_FOR_INTERVAL } from '../analysis/stats.js'
import { formatNumber } from '../format.js'
import { formatP } from './phrases.js'
import { formatMs } from './chart-style.js'

/** @typedef {import('../analysis/capacity.js').CapacityRow} CapacityRow */
/** @typedef {import('../types.js').CapacityRecord} CapacityRecord */
/** @typedef {import('../types.js').StepFigures} StepFigures */

/**
 * The latency a capacity run is read by: the goal's first latency term (a request percentile or the
 * server's loop p99), p99 when the goal names none (then `below` is null: no goal line to draw).
 * @typedef {object} GoalMeasure
 * @property {string} name          as the goal writes it: "p99", "p99.9", "loop p99"
 * @property {'p50Ms'|'p90Ms'|'p99Ms'|'p999Ms'|'loopP99Ms'} figure  the step figure it reads
 * @property {string|null} percentile  the closed loop's latency percentile it reads (LATENCY_PERCENTILES
 *           key), null for the loop's p99 (the server table's)
 * @property {number|null} below    the goal's bound, ms
 */

/**
 * A configuration's capacity with the closed loop it started from.
 * @typedef {CapacityRow & { closedLoopRps: number|null, closedLoopMs: number|null, closedLoopIsMax: boolean, boundRps: number|null }} CapacityReadingRow
 *           closedLoopRps: the mean req/s of its closed-loop runs (the model's); closedLoopMs: their
 *           latency at the goal's measure; boundRps: the rate predict's model allows it (null: no bound)
 */

/**
 * @typedef {object} CapacityReading
 * @property {string} goal          "p99 < 1 s"
 * @property {GoalMeasure} measure
 * @property {number} stepSeconds
 * @property {number} tolerance
 * @property {boolean} calibrated   the experiment has a calibration: the bound column is shown
 * @property {CapacityReadingRow[]} rows
 */

/** @type {Record<string, { figure: GoalMeasure['figure'], percentile: string|null }>} */
const MEASURES = {
  p50: { figure: 'p50Ms', percentile: 'p50' },
  p90: { figure: 'p90Ms', percentile: 'p90' },
  p99: { figure: 'p99Ms', percentile: 'p99' },
  'p99.9': { figure: 'p999Ms', percentile: 'p999' },
  'loop p99': { figure: 'loopP99Ms', percentile: null }
}

/**
 * The latency a goal is read by (GoalMeasure).
 * @param {import('../types.js').Slo} slo
 * @returns {GoalMeasure}
 */
export function goalMeasure (slo) {
  const term = slo.terms.find((t) => t.measure in MEASURES)
  const name = term?.measure ?? 'p99'
  return { name, ...MEASURES[name], below: term ? term.below : null }
}

/**
 * An experiment's capacity as the report reads it, null when the file has no search of it.
 * @param {import('../types.js').ResultsFile} results
 * @param {import('../analysis/summarize.js').ExperimentSummary} summary  the experiment's, from the model
 *        (under --node the baseline binary's: the other binaries' closed loops are summarized here)
 * @returns {CapacityReading|null}
 */
export function capacityReading (results, summary) {
  const capacity = results.capacity
  if (!capacity) return null
  const rows = capacityRows(results, summary.name)
  if (rows.length === 0) return null
  const measure = goalMeasure(capacity.slo)
  const [primary] = resultsNodes(results)
  /** @param {string|null} node */
  const closedLoopRows = (node) => node === null || node === primary?.name ? summary.rows : binaryRows(results, node, summary.name)
  return {
    goal: capacity.goal,
    measure,
    stepSeconds: capacity.stepSeconds,
    tolerance: capacity.tolerance,
    calibrated: Boolean(summary.calibration),
    rows: rows.map((row) => {
      const closed = closedLoopRows(row.node).find((r) => r.label === row.label && r.runs.length > 0)
      const latency = closedLoopLatency(closed, measure)
      return {
        ...row,
        closedLoopRps: closed ? closed.derived.requestsPerSecond : null,
        closedLoopMs: latency?.ms ?? null,
        closedLoopIsMax: latency?.isMax ?? false,
        boundRps: closed?.bound?.bound?.predictedRps ?? null
      }
    })
  }
}

/** Each results file's other binaries summarized, once for all its experiments. @type {WeakMap<object, Map<string, import('../analysis/summarize.js').ExperimentSummary[]>>} */
const binaries = new WeakMap()

/**
 * The rows of an experiment's closed loops under a --node binary after the first (the model's are the
 * first binary's: lib/analysis/versions.js primaryResults), each binary summarized once per file.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} node
 * @param {string} experiment
 * @returns {import('../analysis/summarize.js').Row[]}
 */
function binaryRows (results, node, experiment) {
  /** @type {Map<string, import('../analysis/summarize.js').ExperimentSummary[]>} */
  const byNode = binaries.get(results) ?? new Map()
  binaries.set(results, byNode)
  if (!byNode.has(node)) {
    const binary = resultsNodes(results).find((n) => n.name === node)
    byNode.set(node, binary ? summarizeExperiments(resultsOfNode(results, binary)) : [])
  }
  return byNode.get(node)?.find((s) => s.name === experiment)?.rows ?? []
}

/**
 * The closed loop's latency at the goal's measure: its merged histogram's percentile, or its server's
 * loop p99 (combined over the runs by the server table's rule).
 * @param {import('../analysis/summarize.js').Row|undefined} row
 * @param {GoalMeasure} measure
 * @returns {{ ms: number, isMax: boolean }|null}
 */
function closedLoopLatency (row, measure) {
  if (!row) return null
  if (measure.percentile === null) return row.server ? { ms: row.server.loopP99, isMax: false } : null
  const q = row.latency?.percentiles.find((x) => x.key === measure.percentile)
  return q ? { ms: q.ms, isMax: q.isMax } : null
}

/** How each way a search can stop short of bisecting is named in a cell. @type {Record<string, string>} */
const STOPPED = { 'generator-bound': 'generator', budget: 'budget', 'max-rate': 'max rate' }

/**
 * One search's capacity in a cell: "12.5", "none" (no rate met the goal), "≥ 40 (generator)" (a lower
 * bound: the search stopped at the generator's limit, the budget or the max rate), "error" (a step could
 * not run before any rate held).
 * @param {CapacityRecord} record
 */
function searchValue (record) {
  const search = record.search
  const found = search?.capacity ?? null
  if (record.error || !search) return found === null ? 'error' : `≥ ${formatNumber(found)} (error)`
  if (search.reason === 'found') return formatNumber(/** @type {number} */ (found))
  if (found === null) return 'none'
  return `≥ ${formatNumber(found)} (${STOPPED[search.reason] ?? search.reason})`
}

/**
 * A row's capacity cell: with 3 searches or more that found one, their geometric mean ("12.5"), "≥"
 * before it and what stopped them after it when some are lower bounds, and how many found none; with
 * fewer, each search's value (searchValue).
 * @param {CapacityReadingRow} row
 */
function capacityCell (row) {
  if (row.interval.n < 3) return row.searches.map(searchValue).join(', ')
  const lower = row.searches.filter((s) => s.search?.capacity != null && (s.error || s.search.reason !== 'found'))
  /** @type {Map<string, number>} */
  const counts = new Map()
  for (const s of lower) {
    const why = s.error ? 'error' : STOPPED[/** @type {string} */ (s.search?.reason)]
    counts.set(why, (counts.get(why) ?? 0) + 1)
  }
  const notes = [...[...counts].map(([why, n]) => `${n} ${why}`), ...row.interval.missing > 0 ? [`${row.interval.missing} none`] : []]
  return `${lower.length ? '≥ ' : ''}${formatNumber(row.interval.geometricMean)}${notes.length ? ` (${notes.join(', ')})` : ''}`
}

/**
 * A single search's bracket: its capacity and the lowest rate that failed above it ("18.1..18.9"), where
 * the truth lies on a server whose latency grows with the rate: the search's resolution (its 5%), not a
 * confidence interval. '' for more searches, or one that ended without both ends.
 * @param {CapacityReadingRow} row
 */
function bracketCell (row) {
  if (row.searches.length !== 1) return ''
  const search = row.searches[0].search
  if (!search || search.capacity === null || search.lastFail === null) return ''
  return `${formatNumber(search.capacity)}..${formatNumber(search.lastFail)}`
}

/** "11.9..13.1", '' without an interval (fewer than 3 searches found one). @param {CapacityReadingRow} row */
function intervalCell ({ interval }) {
  return Number.isFinite(interval.low) && Number.isFinite(interval.high) ? `${formatNumber(interval.low)}..${formatNumber(interval.high)}` : ''
}

/**
 * A configuration's capacity over its baseline's: "2.00x sync, 95% CI 1.80x..2.20x, p = 0.00312 **"
 * (the tables' form), the interval and p where the searches allow them; '' for a baseline or when
 * either side found none.
 * @param {CapacityReadingRow} row
 */
function ratioText (row) {
  const what = ratioParts(row)
  return what === null ? '' : [`${what.ratio} ${row.baseline}`, ...what.rest].join(', ')
}

/**
 * The ratio as a verdict says it: "2.00x sync (95% CI 1.80x..2.20x, p = 0.00312 **)".
 * @param {CapacityReadingRow} row
 */
function ratioPhrase (row) {
  const what = ratioParts(row)
  return what === null ? '' : `${what.ratio} ${row.baseline}${what.rest.length ? ` (${what.rest.join(', ')})` : ''}`
}

/**
 * The ratio as a terminal's table shows it under "vs sync": "2.00x (1.80x..2.20x), p = 0.00312", its
 * stars left to summary.md and report.html (the p says it, in a column that fits).
 * @param {CapacityReadingRow} row
 */
function shortRatio (row) {
  const what = ratioParts(row)
  if (what === null) return ''
  const p = what.p.replace(/ \*+$/, '')
  return `${what.ratio}${what.interval ? ` (${what.interval})` : ''}${p ? `, ${p}` : ''}`
}

/**
 * @param {CapacityReadingRow} row
 * @returns {{ ratio: string, interval: string, p: string, rest: string[] }|null}
 */
function ratioParts ({ ratio }) {
  if (!ratio || !Number.isFinite(ratio.ratio)) return null
  const interval = Number.isFinite(ratio.low) && Number.isFinite(ratio.high) ? `${ratio.low.toFixed(2)}x..${ratio.high.toFixed(2)}x` : ''
  const p = Number.isFinite(ratio.p) ? formatP({ p: ratio.p, stars: stars(ratio.p) }) : ''
  return { ratio: `${ratio.ratio.toFixed(2)}x`, interval, p, rest: [interval && `95% CI ${interval}`, p].filter(Boolean) }
}

/** The closed loop's latency cell: "8700", "420 (max)", '' without one. @param {CapacityReadingRow} row */
function closedLoopLatencyCell (row) {
  if (row.closedLoopMs === null) return ''
  return `${formatNumber(row.closedLoopMs)}${row.closedLoopIsMax ? ' (max)' : ''}`
}

/** A row's name: its configuration, and its binary under --node. @param {CapacityReadingRow} row */
function rowName (row) {
  return row.node === null ? row.label : `${row.label} (${row.node})`
}

/**
 * The capacity table of an experiment: a row per configuration (and binary, under --node).
 * @param {string} experiment
 * @param {CapacityReading} reading
 * @returns {import('./tables.js').Table}
 */
export function capacityTable (experiment, reading) {
  const m = reading.measure.name
  const body = reading.rows.map((row) => [
    rowName(row),
    capacityCell(row),
    intervalCell(row),
    bracketCell(row),
    row.closedLoopRps === null ? '' : formatNumber(row.closedLoopRps),
    closedLoopLatencyCell(row),
    reading.calibrated ? (row.boundRps === null ? '—' : formatNumber(row.boundRps)) : '',
    ratioText(row)
  ])
  const searches = Math.max(...reading.rows.map((r) => r.searches.length))
  // on a terminal the ratio column is named after the baseline when every compared row shares one
  const baselines = new Set(reading.rows.flatMap((r) => r.ratio ? [r.baseline] : []))
  const shared = baselines.size === 1 ? [...baselines][0] : null
  return {
    title: `${experiment}: capacity at ${reading.goal} (open loop, ${reading.stepSeconds} s steps, ${searches} search${searches === 1 ? '' : 'es'} per configuration)`,
    columns: ['Configuration', 'capacity req/s', 'capacity 95% CI', 'search bracket req/s', 'closed-loop req/s', `closed-loop ${m} ms`, 'bound req/s', 'capacity vs baseline'],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: body,
    short: ['Configuration', 'capacity', '95% CI', 'bracket', 'closed req/s', `closed ${m}`, 'bound', shared === null ? 'vs baseline' : `vs ${shared}`],
    ...shared !== null && { textRows: body.map((cells, i) => [...cells.slice(0, -1), shortRatio(reading.rows[i])]) },
    note: `capacity: the highest offered req/s whose steps met ${reading.goal}${searches >= MIN_RUNS_FOR_INTERVAL ? ` (from ${searches} searches, their geometric mean)` : ''}; ≥: a lower bound; ` +
      `${searches === 1 ? 'bracket: the search\'s capacity and the lowest rate that failed above it (its resolution, not a 95% interval: --runs 3 for one); ' : ''}` +
      `closed: the closed-loop runs' req/s and ${m} ms${reading.calibrated ? '; bound: the req/s predict\'s model allows' : ''}` +
      `${shared === null ? '' : `; vs ${shared}: capacity ratio (95% CI), Welch's p`}.`
  }
}

/**
 * The capacity parts of an experiment's verdict, one subject each (a line each on a terminal): what
 * the configurations hold at the goal and their ratios to their baselines; each way a configuration's
 * searches found no capacity bisected to the tolerance and why (no rate met the goal, with the lowest
 * rate tried and its figures; the generator as the bound; the budget; the max rate; a step that could
 * not run); then where the closed loop's req/s hides a latency already past the goal.
 * @param {CapacityReading} reading
 * @returns {string[]}
 */
export function capacityVerdict (reading) {
  const held = reading.rows.filter((r) => r.searches.some((s) => !s.error && s.search?.reason === 'found'))
  const parts = []
  if (held.length > 0) {
    parts.push(`capacity at ${reading.goal}: ${held.map((r, i) => {
      const { value, ci } = heldText(r)
      const ratio = ratioPhrase(r)
      return `${rowName(r)}${i === 0 ? ' holds' : ''} ${value}${i === 0 ? ' req/s' : ''}${ci ? ` (${ci})` : ''}${ratio ? `: ${ratio}` : ''}`
    }).join(', ')}`)
  }
  for (const row of reading.rows) parts.push(...shortfalls(row, reading))
  const below = reading.measure.below
  const hidden = reading.rows.filter((r) => below !== null && r.closedLoopRps !== null && r.closedLoopMs !== null && r.closedLoopMs >= below)
  /** @param {CapacityReadingRow} r */
  const latency = (r) => `${formatMs(/** @type {number} */ (r.closedLoopMs))}${r.closedLoopIsMax ? ' (its max)' : ''}`
  /** @param {CapacityReadingRow} r */
  const rps = (r) => formatNumber(/** @type {number} */ (r.closedLoopRps))
  if (hidden.length === 1) {
    parts.push(`the closed loop's ${rps(hidden[0])} req/s hides that ${rowName(hidden[0])}'s ${reading.measure.name} is already ${latency(hidden[0])} there`)
  } else if (hidden.length > 1) {
    parts.push(`the closed loop's req/s hide that its ${reading.measure.name} is already past the goal there: ${hidden.map((r) => `${rowName(r)} ${latency(r)} at ${rps(r)} req/s`).join(', ')}`)
  }
  return parts
}

/**
 * A configuration's capacity in a verdict: the geometric mean of its found ones and their interval
 * ("12.5", "95% CI 11.9..13.1"), or each ("12, 13", no interval).
 * @param {CapacityReadingRow} row
 * @returns {{ value: string, ci: string }}
 */
function heldText (row) {
  const found = row.searches.filter((s) => !s.error && s.search?.reason === 'found').map((s) => /** @type {number} */ (s.search?.capacity))
  if (found.length === row.interval.n && found.length >= 3) {
    const ci = intervalCell(row)
    return { value: formatNumber(row.interval.geometricMean), ci: ci && `95% CI ${ci}` }
  }
  const bracket = bracketCell(row)
  if (bracket && found.length === 1) return { value: formatNumber(found[0]), ci: `fails at ${formatNumber(/** @type {number} */ (row.searches[0].search?.lastFail))}` }
  return { value: found.map(formatNumber).join(', '), ci: '' }
}

/**
 * Every way a configuration's searches fell short of a capacity bisected to the tolerance, each said
 * once with how many of its searches it was ("2 of 3 searches").
 * @param {CapacityReadingRow} row
 * @param {CapacityReading} reading
 * @returns {string[]}
 */
function shortfalls (row, reading) {
  const name = rowName(row)
  /** @type {Map<string, CapacityRecord[]>} */
  const by = new Map()
  for (const s of row.searches) {
    const key = s.error || !s.search ? 'error' : s.search.reason
    if (key !== 'found') by.set(key, [...by.get(key) ?? [], s])
  }
  const total = row.searches.length
  /** @param {CapacityRecord[]} list */
  const of = (list) => total > 1 ? ` (${list.length} of ${total} searches)` : ''
  /** @param {CapacityRecord[]} list */
  const best = (list) => formatNumber(Math.max(...list.map((s) => s.search?.capacity ?? NaN).filter(Number.isFinite)))
  const out = []
  for (const [reason, list] of by) {
    if (reason === 'no-rate-meets') {
      out.push(`no rate meets ${reading.goal} for ${name}${of(list)}: ${lowestTried(list, reading)}`)
    } else if (reason === 'generator-bound') {
      out.push(`the generator, not the server, was the bound for ${name}${of(list)}: at least ${best(list)} req/s`)
    } else if (reason === 'budget') {
      const some = list.some((s) => s.search?.capacity != null)
      out.push(`the budget ran out for ${name}${of(list)}${some ? `: at least ${best(list)} req/s, the best so far, not bisected to ${Math.round(reading.tolerance * 100)}%` : ' before any rate met the goal'}`)
    } else if (reason === 'max-rate') {
      out.push(`${name} held the highest rate a search may offer${of(list)}: at least ${best(list)} req/s`)
    } else {
      const errors = [...new Set(list.map((s) => s.error ? `${s.error.code}: ${s.error.message}` : 'no search ran'))]
      const some = list.some((s) => s.search?.capacity != null)
      out.push(`a step of ${name} could not run${of(list)} (${errors.join('; ')})${some ? `: at least ${best(list)} req/s before it` : ''}`)
    }
  }
  return out
}

/**
 * The lowest rate the searches tried and why it failed: "the lowest tried, 1.17 req/s, had p99 1.2 s,
 * 1.1 req/s answered (p99 1.2 s >= 1 s)".
 * @param {CapacityRecord[]} list  searches that found no rate
 * @param {CapacityReading} reading
 */
function lowestTried (list, reading) {
  const steps = list.flatMap((s) => s.search?.steps ?? [])
  if (steps.length === 0) return 'no step ran'
  const step = steps.reduce((low, s) => s.rate < low.rate ? s : low)
  const f = step.figures
  const latency = f[reading.measure.figure]
  const figures = [
    `${reading.measure.name} ${typeof latency === 'number' ? formatMs(latency) : 'not measured'}`,
    `${formatNumber(f.achievedRate)} req/s answered`,
    ...f.errorRate > 0 ? [`${formatNumber(f.errorRate * 100)}% errors`] : []
  ]
  return `the lowest tried, ${formatNumber(step.rate)} req/s, had ${figures.join(', ')}${step.why.length ? ` (${step.why.join('; ')})` : ''}`
}
