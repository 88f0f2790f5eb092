// The tables of `syncbench run` and `syncbench compare`, as data ({ title, columns, rows }) built from
// lib/analysis/summarize.js's statistics: an experiment's (its kind's comparison table, then the
// latency, probe and server tables every kind shares) and compare's; their plain-text rendering.
// lib/report/text-table.js fits them to a terminal, lib/report/markdown.js renders them for summary.md.
import { formatPValue, formatEfficiency, boundCells, boundNotes } from './phrases.js'
import { MIB, formatNumber } from '../format.js'
import { probeTable } from './probe.js'
import { routesTable } from './route-table.js'
import { kindOf } from './kinds.js'
import { SERVER_FIGURES } from '../analysis/summarize.js'
import { describeLatencyCombine, LATENCY_PERCENTILES } from '../analysis/latency.js'
import { formatRatioInterval, formatThreshold, gateText } from './compare-gate.js'
import { capacityTable } from './capacity-report.js'

/**
 * @typedef {object} Table
 * @property {string} title     a table without columns is a note: only its title is shown
 * @property {string[]} columns
 * @property {('left'|'right')[]} align
 * @property {string[][]} rows
 * @property {string[]} [short]       the headers on a terminal (lib/report/text-table.js), the units and
 *           the rules they leave out said once in `note`
 * @property {string[][]} [textRows]  the cells on a terminal, where shorter than `rows`' (seed 001's ab text)
 * @property {boolean[]} [hidden]     the columns a terminal leaves out: summary.md and report.html show them
 * @property {boolean[]} [parts]      the columns that start a group: where a terminal too narrow for the
 *           whole table splits it first
 * @property {string} [note]          the line under the table on a terminal
 */

/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../analysis/summarize.js').Row} Row */

/**
 * The tables of one experiment: its kind's comparison table, what a capacity search found (when the
 * model read one: ReportSummary's capacityReading), then the latency, the probe and the server metrics.
 * @param {ExperimentSummary & { capacityReading?: import('./capacity-report.js').CapacityReading|null }} s
 * @returns {Table[]}
 */
export function experimentTables (s) {
  const measured = s.rows.filter((r) => r.runs.length > 0)
  // A configuration whose every run is invalid keeps its row, saying so instead of a figure.
  const shown = s.rows.filter((r) => r.runs.length > 0 || r.invalid.length > 0)
  if (shown.length === 0) return []
  const kind = kindOf(s.table)
  const main = [kind.table(s, shown)].flat()
  const latency = kind.latencyTable ? latencyTable(s, measured) : null
  const server = kind.serverTable ? [serverTable(s, measured), boundNote(s, measured)] : []
  const rest = measured.length ? [latency, routesTable(s, measured), probeTable(s, measured), ...server] : []
  const capacity = s.capacityReading ? [capacityTable(s.name, s.capacityReading)] : []
  return [...main, ...capacity, ...rest].filter((t) => t !== null).map(dropEmptyColumns)
}

/**
 * Columns with no value in any row (the ceiling without a calibration, CIs of single runs) are left out.
 * @param {Table} table
 * @returns {Table}
 */
function dropEmptyColumns (table) {
  const keep = table.columns.map((_, i) => i === 0 || table.rows.some((r) => (r[i] ?? '') !== ''))
  /** @template T @param {T[]} cells */
  const pick = (cells) => cells.filter((_, i) => keep[i])
  const { short, textRows, hidden, parts } = table
  return {
    ...table,
    columns: pick(table.columns),
    align: pick(table.align),
    rows: table.rows.map(pick),
    ...(short && { short: pick(short) }),
    ...(textRows && { textRows: textRows.map(pick) }),
    ...(hidden && { hidden: pick(hidden) }),
    ...(parts && { parts: pick(parts) })
  }
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table}
 */
function serverTable (s, rows) {
  if (rows.every((r) => !r.server)) return noServerMetrics(s)
  const body = rows.map((r) => {
    const m = r.server
    if (!m) return [r.label, '', '', '', '', '', '', '', '', '', '']
    return [r.label, m.loopP99.toFixed(1), m.loopMax.toFixed(1), m.elu.toFixed(2), m.cpuPercent.toFixed(0), (m.peakRssBytes / MIB).toFixed(1), String(m.threads),
      ...boundCells(r), formatEfficiency(r)]
  })
  /** @param {string} name @param {import('../analysis/summarize.js').ServerFigure} figure */
  const column = (name, figure) => withRule(name, SERVER_FIGURES[figure].rule, rows)
  const columns = ['Strategy', column('loop p99 ms', 'loopP99'), column('loop max ms', 'loopMax'), column('ELU', 'elu'), column('CPU %', 'cpuPercent'),
    column('peak RSS MiB', 'peakRssBytes'), column('threads', 'threads'), 'bound', 'predicted req/s', 'of bound', 'of machine']
  /** @type {Table['align']} */
  const align = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'right', 'right', 'right']
  return {
    title: `${s.name}: server metrics (measured window)`,
    columns,
    align,
    rows: body,
    short: ['Strategy', 'loop p99', 'loop max', 'ELU', 'CPU %', 'RSS MiB', 'threads', 'bound', 'predicted req/s', 'of bound', 'of machine'],
    // the figures of the server, then what bounds it: a terminal splits the table there first
    parts: columns.map((_, i) => i === 7),
    note: serverNote(rows)
  }
}

/**
 * Under the server table on a terminal, what its short headers leave out: the units, and how each
 * figure combines its runs when some configuration has several.
 * @param {Row[]} rows  the measured ones
 */
function serverNote (rows) {
  const units = 'loop p99 and max: event-loop delay, ms; RSS: peak resident memory'
  if (!rows.some((r) => r.runs.length > 1)) return `${units}.`
  /** @type {Record<string, string>} */
  const names = { loopP99: 'loop p99', loopMax: 'loop max', elu: 'ELU', cpuPercent: 'CPU %', peakRssBytes: 'RSS', threads: 'threads' }
  /** @type {Map<string, string[]>} */
  const byRule = new Map()
  for (const [figure, name] of Object.entries(names)) {
    const rule = SERVER_FIGURES[/** @type {import('../analysis/summarize.js').ServerFigure} */ (figure)].rule
    byRule.set(rule, [...byRule.get(rule) ?? [], name])
  }
  return `${units}; ${[...byRule].map(([rule, list]) => `${list.join(', ')}: ${rule}`).join('; ')}.`
}

/**
 * Below the server table, why a bound is missing or uncertain (a title-only table), null when every bound stands.
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table|null}
 */
function boundNote (s, rows) {
  if (rows.every((r) => !r.server)) return null
  const note = boundNotes(rows)
  return note ? { title: `${s.name}: ${note}`, columns: [], align: [], rows: [] } : null
}

/**
 * A column's name with the rule that combined its runs ("peak RSS MiB (max of runs)"), when some row
 * has more than one run: the rule is SERVER_FIGURES', the one the charts follow too.
 * @param {string} name @param {string} rule @param {Row[]} rows
 */
function withRule (name, rule, rows) {
  return rows.some((r) => r.runs.length > 1) ? `${name} (${rule})` : name
}

/** The percentiles of the latency tables. */
const TABLE_PERCENTILES = LATENCY_PERCENTILES.filter((q) => ['p50', 'p90', 'p99', 'p999'].includes(q.key))

/**
 * A latency cell: the percentile (3 significant digits, the histogram's precision), "(max)" where the
 * requests are too few for it (lib/analysis/latency.js), '' where the runs did not measure it (ab: no p99.9).
 * @param {import('../analysis/latency.js').LatencySummary|null} latency
 * @param {string} key
 */
function percentileCell (latency, key) {
  const q = latency?.percentiles.find((x) => x.key === key)
  if (!q) return ''
  return q.isMax ? `${formatNumber(q.ms)} (max)` : formatNumber(q.ms)
}

/**
 * Latency per request of each configuration: percentiles of the runs' merged histograms (or, for runs
 * without one, the mean of their percentiles, labelled so), null when no run timed a request.
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table|null}
 */
function latencyTable (s, rows) {
  const timed = rows.filter((r) => r.latency !== null)
  if (timed.length === 0) return null
  const body = timed.map((r) => {
    const l = /** @type {import('../analysis/latency.js').LatencySummary} */ (r.latency)
    return [r.label, String(l.count), ...TABLE_PERCENTILES.map((q) => percentileCell(l, q.key)), formatNumber(l.max), describeLatencyCombine(l)]
  })
  return {
    title: `${s.name}: latency per request (total time, ms${rows.some((r) => r.runs.some((run) => run.load.openLoop)) ? '; open loop: from each request\'s intended send time, corrected for coordinated omission' : ''})`,
    columns: ['Configuration', 'requests', ...TABLE_PERCENTILES.map((q) => `${q.label} ms`), 'max ms', 'runs combined'],
    align: ['left', 'right', ...TABLE_PERCENTILES.map(() => /** @type {const} */ ('right')), 'right', 'left'],
    rows: body,
    // the title says ms
    short: ['Configuration', 'requests', ...TABLE_PERCENTILES.map((q) => q.label), 'max', 'runs combined']
  }
}

/**
 * No server reported metrics: a title-only table (no columns) that says so, instead of a table of empty columns.
 * @param {ExperimentSummary} s
 * @returns {Table}
 */
function noServerMetrics (s) {
  const why = s.target ? 'the --target server does not answer /__syncbench/metrics' : 'none were recorded'
  return { title: `${s.name}: no server metrics: ${why}`, columns: [], align: [], rows: [] }
}

/**
 * syncbench compare's table: req/s of b against a, compare.R's columns, the 95% CI of the ratio b / a
 * (3 runs a side), and with --fail-if-slower the gate's verdict per row.
 * @param {ReturnType<typeof import('../analysis/summarize.js').compareResults>} comparisons
 * @param {{ a: string, b: string }} names
 * @param {import('../analysis/gate.js').GateResult} [gate]
 * @returns {Table}
 */
export function compareTable (comparisons, names, gate) {
  return ratioTable(comparisons, gate, {
    title: `req/s: b (${names.b}) against a (${names.a})`,
    unit: 'req/s',
    cells: (c) => [c.a.mean.toFixed(2), c.b.mean.toFixed(2)],
    change: (c) => signedPercent(c.change),
    noun: 'runs'
  })
}

/**
 * syncbench compare's capacity table (both files ran run --capacity at one goal): each configuration's
 * capacity in a and in b (the geometric mean of the capacities found, the searches that found none
 * counted beside it), then the columns and gate verdicts of compareTable.
 * @param {import('../analysis/capacity.js').CapacityComparison[]} comparisons
 * @param {{ a: string, b: string }} names
 * @param {string} goal  the goal both searched at, as results.json writes it
 * @param {import('../analysis/gate.js').GateResult} [gate]
 * @returns {Table}
 */
export function capacityCompareTable (comparisons, names, goal, gate) {
  return ratioTable(comparisons, gate, {
    title: `capacity at ${goal} (req/s): b (${names.b}) against a (${names.a})`,
    unit: 'capacity',
    cells: (c) => [capacityCell(c.a), capacityCell(c.b)],
    change: (c) => Number.isFinite(c.change) ? signedPercent(c.change) : '',
    noun: 'capacities'
  })
}

/** "+5.00%", "-19.98%": a change b / a - 1. @param {number} x */
function signedPercent (x) {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%`
}

/**
 * A side's capacity: "12.49", "12.49 (1 none)" when a search found none, "none" when none did.
 * @param {import('../analysis/capacity.js').CapacitySide} side
 */
function capacityCell (side) {
  if (side.n === 0) return 'none'
  const none = side.capacities.length - side.n
  return `${side.interval.geometricMean.toFixed(2)}${none ? ` (${none} none)` : ''}`
}

/**
 * The table of b against a that compare prints for req/s and for capacities: a and b, the change, the
 * 95% CI of b / a (left out when no row has one: 3 a side needed), the p-value and stars, and with a
 * gate its verdict per row.
 * @template {{ experiment: string, label: string, a: { n: number }, b: { n: number }, ratio: { low: number, high: number }, test: { p: number, stars: string } }} R
 * @param {R[]} comparisons
 * @param {import('../analysis/gate.js').GateResult|undefined} gate
 * @param {{ title: string, unit: string, cells: (c: R) => [string, string], change: (c: R) => string, noun: string }} how
 * @returns {Table}
 */
function ratioTable (comparisons, gate, how) {
  const ci = comparisons.some((c) => formatRatioInterval(c.ratio) !== '')
  const rows = comparisons.map((c, i) => [c.experiment, c.label, ...how.cells(c),
    how.change(c), ...(ci ? [formatRatioInterval(c.ratio)] : []), formatPValue(c.test.p), c.test.stars,
    ...(gate ? [gateText(gate.decisions[i], c, gate.threshold, how.noun)] : [])])
  const columns = ['Experiment', 'Configuration', `a ${how.unit}`, `b ${how.unit}`, 'change', ...(ci ? ['b/a 95% CI'] : []), 'p-value', 'signif.', ...(gate ? [`gate (${formatThreshold(gate.threshold)})`] : [])]
  /** @type {Table['align']} */
  const align = ['left', 'left', 'right', 'right', 'right', ...(ci ? /** @type {const} */ (['right']) : []), 'right', 'left', ...(gate ? /** @type {const} */ (['left']) : [])]
  // on a terminal the stars follow the p-value in its cell ("5.04e-8 ***"): a column less to fit
  const p = columns.indexOf('p-value')
  const textRows = rows.map((r) => r.map((cell, i) => i === p ? `${cell} ${r[p + 1]}`.trim() : i === p + 1 ? '' : cell))
  return { title: how.title, columns, align, rows, textRows, ...(gate && { parts: columns.map((c) => c.startsWith('gate')) }) }
}

/**
 * syncbench compare's latency table: p99 and p50 of b against a, each side's runs merged
 * (lib/analysis/latency.js), null when no configuration has latency on both sides.
 * @param {ReturnType<typeof import('../analysis/summarize.js').compareResults>} comparisons
 * @param {{ a: string, b: string }} names
 * @returns {Table|null}
 */
export function compareLatencyTable (comparisons, names) {
  const both = comparisons.filter((c) => c.latency.a !== null && c.latency.b !== null)
  if (both.length === 0) return null
  const rows = both.map((c) => {
    const a = /** @type {import('../analysis/latency.js').LatencySummary} */ (c.latency.a)
    const b = /** @type {import('../analysis/latency.js').LatencySummary} */ (c.latency.b)
    const p99 = (/** @type {import('../analysis/latency.js').LatencySummary} */ l) => l.percentiles.find((q) => q.key === 'p99')
    const pa = p99(a)
    const pb = p99(b)
    const change = pa && pb && !pa.isMax && !pb.isMax && pa.ms > 0 ? pb.ms / pa.ms - 1 : NaN
    const how = [describeLatencyCombine(a), describeLatencyCombine(b)]
    return [c.experiment, c.label, percentileCell(a, 'p99'), percentileCell(b, 'p99'),
      Number.isFinite(change) ? `${change >= 0 ? '+' : ''}${(change * 100).toFixed(2)}%` : '',
      percentileCell(a, 'p50'), percentileCell(b, 'p50'), how[0] === how[1] ? how[0] : `a: ${how[0]}; b: ${how[1]}`]
  })
  return dropEmptyColumns({
    title: `latency per request (total time, ms): b (${names.b}) against a (${names.a})`,
    columns: ['Experiment', 'Configuration', 'a p99 ms', 'b p99 ms', 'p99 change', 'a p50 ms', 'b p50 ms', 'runs combined'],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows,
    // the title says ms
    short: ['Experiment', 'Configuration', 'a p99', 'b p99', 'p99 change', 'a p50', 'b p50', 'runs combined'],
    // how each row's runs were merged qualifies its figures: a terminal says it under the table when
    // every row's is the same, and leaves it to --markdown when not
    hidden: [false, false, false, false, false, false, false, true]
  })
}

/**
 * Plain-text rendering: a title line, then columns padded to their widest cell.
 * @param {Table} table
 * @returns {string}
 */
export function renderText (table) {
  if (table.columns.length === 0) return table.title + '\n'
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)))
  /** @param {string[]} cells */
  const line = (cells) => cells.map((c, i) => table.align[i] === 'right' ? (c ?? '').padStart(widths[i]) : (c ?? '').padEnd(widths[i])).join('  ').trimEnd()
  return [table.title, line(table.columns), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(line)].join('\n') + '\n'
}
