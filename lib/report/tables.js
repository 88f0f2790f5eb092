// The comparison tables of `syncbench run` and `syncbench compare`, as data ({ title, columns, rows })
// built from lib/run/summarize.js's statistics, and their plain-text rendering for the terminal.
// lib/report/markdown.js renders the same tables for summary.md.
import { formatPValue, formatComparison, formatRateInterval, formatEfficiency, formatFlag } from './verdicts.js'
import { MIB } from '../format.js'

/**
 * @typedef {object} Table
 * @property {string} title
 * @property {string[]} columns
 * @property {('left'|'right')[]} align
 * @property {string[][]} rows
 */

/** @typedef {import('../run/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../run/summarize.js').Row} Row */

/**
 * The seed 001 comparison rows, labels as the article prints them (ab's own labels): label, figure
 * (lib/run/summarize.js FIGURES), format of its mean. Requests per second is the mean over the runs; the
 * figures ab derives from it (time per request, transfer rate) are derived again from that mean (DERIVED).
 * @type {[string, string, (x: number) => string][]}
 */
const SEED_001_ROWS = [
  ['Concurrency Level', 'concurrency', (x) => int(x)],
  ['Time taken for tests:', 'timeTakenSeconds', (x) => `${x.toFixed(3)} seconds`],
  ['Complete requests:', 'completeRequests', (x) => int(x)],
  ['Failed requests:', 'failedRequests', (x) => int(x)],
  ['Keep-Alive requests:', 'keepAliveRequests', (x) => int(x)],
  ['Total transferred:', 'totalTransferredBytes', (x) => `${int(x)} bytes`],
  ['HTML transferred:', 'htmlTransferredBytes', (x) => `${int(x)} bytes`],
  ['Requests per second:', 'requestsPerSecond', (x) => `${x.toFixed(2)} [#/sec] (mean)`],
  ['Time per request:', 'timePerRequestMs', (x) => `${x.toFixed(3)} [ms] (mean)`],
  ['Time per request:', 'timePerRequestAcrossMs', (x) => `${x.toFixed(3)} [ms] (mean, across all concurrent requests)`],
  ['Transfer rate:', 'transferRateKBps', (x) => `${x.toFixed(2)} [Kbytes/sec] received`]
]

/**
 * The tables of one experiment: its comparison table (seed 001, seed 002 or generic), then the server metrics.
 * @param {import('../run/summarize.js').ExperimentSummary} s
 * @returns {Table[]}
 */
export function experimentTables (s) {
  const measured = s.rows.filter((r) => r.runs.length > 0)
  if (measured.length === 0) return []
  const main = s.table === 'seed-001' ? seed001(s, measured) : s.table === 'seed-002' ? seed002(s, measured) : generic(s, measured)
  return [main, serverTable(s, measured)].map(dropEmptyColumns)
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
  return { ...table, columns: pick(table.columns), align: pick(table.align), rows: table.rows.map(pick) }
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table}
 */
function seed001 (s, rows) {
  const body = SEED_001_ROWS.map(([name, figure, format]) => [name, ...rows.map((r) => format(figureOf(r, figure)))])
  if (rows.some((r) => r.runs.length > 1)) {
    body.push(['Runs', ...rows.map((r) => String(r.runs.length))])
    body.push(['Req/s 95% CI', ...rows.map((r) => formatRateInterval(r, 2))])
  }
  if (rows.some((r) => r.flags?.length)) body.push(['Flags', ...rows.map(flags)])
  return { title: `${s.name}: ${s.title}`, columns: ['Metrics', ...rows.map((r) => r.label)], align: ['left', ...rows.map(() => /** @type {const} */ ('left'))], rows: body }
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table}
 */
function seed002 (s, rows) {
  // One baseline for the whole table: the percentages and the ratios are both against the experiment's
  // baseline (the row its Welch tests compare with), named in the column titles.
  const ref = rows.find((r) => r.label === s.baseline) ?? rows[0]
  const body = rows.map((r) => [r.label,
    r.derived.requestsPerSecond.toFixed(2),
    `${Math.round(r.derived.requestsPerSecond / ref.derived.requestsPerSecond * 100)}%`,
    r.derived.timePerRequestMs.toFixed(3),
    r.derived.timePerRequestAcrossMs.toFixed(3),
    formatRateInterval(r, 2),
    flags(r),
    significance(r, rows)])
  return {
    title: `${s.name}: ${s.title}`,
    columns: ['Mode', 'Req/s', `% of ${ref.label}`, 'Time/req ms', 'across ms', 'Req/s 95% CI', 'Flags', `vs ${ref.label}`],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
    rows: body
  }
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table}
 */
function generic (s, rows) {
  const body = rows.map((r) => [r.label,
    r.derived.requestsPerSecond.toFixed(2),
    formatRateInterval(r, 2),
    r.derived.timePerRequestMs.toFixed(1),
    r.derived.timePerRequestAcrossMs.toFixed(3),
    significance(r, rows),
    formatEfficiency(r),
    flags(r)])
  return { title: `${s.name}: ${s.title}`, columns: ['Configuration', 'Req/s', 'Req/s 95% CI', 'Time/req ms', 'across ms', 'vs baseline', 'of ceiling', 'Flags'], align: ['left', 'right', 'right', 'right', 'right', 'left', 'right', 'left'], rows: body }
}

/**
 * "1.97x sync, 95% CI 1.90x..2.04x, p = 0.00312 **", "1.51x sync, one run: not a result", or '' for a baseline.
 * @param {Row} r
 * @param {Row[]} rows  the measured rows, the baseline among them
 */
function significance (r, rows) {
  if (!r.comparison) return ''
  return `${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline}, ${formatComparison({ ...r, comparison: r.comparison }, rows)}`
}

/**
 * A row's flags in words, '' when none (the Flags column is then left out).
 * @param {Row} r
 */
function flags (r) {
  return (r.flags ?? []).map(formatFlag).join('; ')
}

/** @type {Record<string, keyof import('../run/summarize.js').Derived>} */
const DERIVED = { requestsPerSecond: 'requestsPerSecond', timePerRequestMs: 'timePerRequestMs', timePerRequestAcrossMs: 'timePerRequestAcrossMs', transferRateKBps: 'transferRateKBps' }

/**
 * A seed 001 figure: derived from the mean req/s where ab derives it, else the mean over the runs.
 * @param {Row} r
 * @param {string} figure
 */
function figureOf (r, figure) {
  return figure in DERIVED ? r.derived[DERIVED[figure]] : r.figures[figure].mean
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {Table}
 */
function serverTable (s, rows) {
  const body = rows.map((r) => {
    const m = r.server
    if (!m) return [r.label, '', '', '', '', '', '', '']
    return [r.label, m.loopP99.toFixed(1), m.loopMax.toFixed(1), m.elu.toFixed(2), m.cpuPercent.toFixed(0), (m.peakRssBytes / MIB).toFixed(1), String(m.threads),
      formatEfficiency(r)]
  })
  return { title: `${s.name}: server metrics (measured window)`, columns: ['Strategy', 'loop p99 ms', 'loop max ms', 'ELU', 'CPU %', 'peak RSS MiB', 'threads', 'of ceiling'], align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'], rows: body }
}

/**
 * syncbench compare's table: req/s of b against a, compare.R's columns.
 * @param {ReturnType<typeof import('../run/summarize.js').compareResults>} comparisons
 * @param {{ a: string, b: string }} names
 * @returns {Table}
 */
export function compareTable (comparisons, names) {
  const rows = comparisons.map((c) => [c.experiment, c.label, c.a.mean.toFixed(2), c.b.mean.toFixed(2),
    `${c.change >= 0 ? '+' : ''}${(c.change * 100).toFixed(2)}%`, formatPValue(c.test.p), c.test.stars])
  return { title: `req/s: b (${names.b}) against a (${names.a})`, columns: ['Experiment', 'Configuration', 'a req/s', 'b req/s', 'change', 'p-value', 'signif.'], align: ['left', 'left', 'right', 'right', 'right', 'right', 'left'], rows }
}

/**
 * Plain-text rendering: a title line, then columns padded to their widest cell.
 * @param {Table} table
 * @returns {string}
 */
export function renderText (table) {
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)))
  /** @param {string[]} cells */
  const line = (cells) => cells.map((c, i) => table.align[i] === 'right' ? (c ?? '').padStart(widths[i]) : (c ?? '').padEnd(widths[i])).join('  ').trimEnd()
  return [table.title, line(table.columns), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(line)].join('\n') + '\n'
}

/** @param {number} x */
function int (x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1)
}
