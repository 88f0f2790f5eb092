// The comparison kind (`table: 'generic'`), every other kind's defaults: configurations compared by
// their requests per second, each against its baseline. Its table (req/s and its interval, the ratio
// with what it rests on, the efficiency against the ceiling, the flags), its verdict line (the ratios,
// the ceiling, the flags, the invalid runs) and its charts (lib/report/chart-comparison.js, then the probe).
import { formatNumber } from '../../format.js'
import { formatComparison, formatEfficiency, formatCeilingSpread, formatFlag, formatRateInterval, invalidCell, significance, shortSignificance, sharedBaseline, flagsText, leftOut, tableTitle } from '../phrases.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */

/** @type {import('../kinds.js').ExperimentKind} */
export const generic = {
  name: 'generic',
  table: genericTable,
  verdict: comparisonVerdict,
  latencyTable: true,
  serverTable: true,
  textChart: true,
  charts: (ctx, kit) => [...kit.comparisonCharts(ctx), kit.probeChart(ctx)]
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the configurations shown: measured, or all of whose runs are invalid
 * @returns {import('../tables.js').Table}
 */
function genericTable (s, rows) {
  const body = rows.map((r) => r.runs.length === 0
    ? [r.label, invalidCell(r), '', '', '', '', '', '', '']
    : [r.label,
        r.derived.requestsPerSecond.toFixed(2),
        formatRateInterval(r, 2),
        r.derived.timePerRequestMs.toFixed(1),
        r.derived.timePerRequestAcrossMs.toFixed(3),
        significance(r, rows),
        formatEfficiency(r),
        flagsText(r),
        leftOut(r)])
  const columns = ['Configuration', 'Req/s', 'Req/s 95% CI', 'Time/req ms', 'across ms', 'vs baseline', 'of ceiling', 'Flags', 'invalid runs']
  return {
    title: tableTitle(s),
    columns,
    align: ['left', 'right', 'right', 'right', 'right', 'left', 'right', 'left', 'left'],
    rows: body,
    ...comparisonTerminal(rows, body, columns, 5)
  }
}

/**
 * A terminal's form of a table's ratio column (at `at`): shortSignificance's cells, under a header
 * naming the baseline when the rows share one ("vs sync", the ratio and its interval said in the note),
 * and the cells as the table has them when they do not (each names its own).
 * @param {Row[]} rows  the table's, in its order
 * @param {string[][]} body  its cells
 * @param {string[]} columns  its headers
 * @param {number} at  the ratio column
 * @returns {{ short?: string[], textRows?: string[][], note?: string }}
 */
function terminalRatios (rows, body, columns, at) {
  const baseline = sharedBaseline(rows)
  if (baseline === null) return {}
  return {
    short: columns.map((c, i) => i === at ? `vs ${baseline}` : c),
    textRows: body.map((cells, k) => cells.map((c, i) => i === at && rows[k].runs.length > 0 ? shortSignificance(rows[k], rows) : c)),
    note: `vs ${baseline}: req/s ratio (95% CI), Welch's p.`
  }
}

/**
 * A comparison table's terminal form: its ratio column (terminalRatios), the time-per-request columns
 * left out (req/s again, divided into the connections: a terminal can do without them), and a second
 * part from the flags on.
 * @param {Row[]} rows
 * @param {string[][]} body
 * @param {string[]} columns
 * @param {number} at  the ratio column
 */
export function comparisonTerminal (rows, body, columns, at) {
  return {
    ...terminalRatios(rows, body, columns, at),
    hidden: columns.map((c) => c === 'Time/req ms' || c === 'across ms'),
    parts: columns.map((c) => c === 'Flags')
  }
}

/**
 * ["seed-bcrypt: async is 1.97x sync (95% CI 1.90x..2.04x, p = 0.00312 **)", "ceiling 2 cores x 15.4
 * hash/s = 30.8 req/s (5 timings: 30.1..31.5): sync 46%, async 92%"]: the verdict's parts, one subject
 * each (the ratios, the ceiling, the flagged rows, the invalid runs), which joined by "; " read as one
 * line. A ratio from one run says so ("one run: not a result"), one from two runs has no interval.
 * With many configurations (sweeps) only the best and the worst ratio are named.
 * @param {ExperimentSummary} summary
 * @returns {string[]}
 */
export function comparisonVerdict ({ name: experiment, rows, calibration, target }) {
  // Measured elsewhere than the experiment's own servers: the sentence says where.
  const name = target ? `${experiment} (at --target ${target})` : experiment
  const measured = rows.filter((r) => r.runs.length > 0)
  const invalid = invalidNote(rows)
  if (measured.length === 0) return [invalid ? `${name}: nothing measured validly${invalid}` : `${name}: nothing measured`]
  const ratios = ratiosText(rows)
  const parts = [`${name}: ${ratios || `${measured[0].label}: ${measured[0].figures.requestsPerSecond.mean.toFixed(2)} req/s`}`]
  if (calibration) {
    const perCore = 1000 / calibration.opMs
    const calibrated = measured.filter(/** @returns {r is Row & { efficiency: number }} */ (r) => r.efficiency !== null)
    const shown = calibrated.length > 4 ? [...calibrated].sort((a, b) => b.efficiency - a.efficiency).filter((_, i, a) => i === 0 || i === a.length - 1) : calibrated
    const eff = shown.map((r) => `${r.label} ${formatEfficiency(r)}`).join(', ')
    parts.push(`ceiling ${calibration.usableCores} cores x ${formatNumber(perCore)} ${calibration.unit} = ${formatNumber(calibration.ceilingRps)} req/s (${formatCeilingSpread(calibration)}): ${eff}`)
  }
  const flagged = measured.filter((r) => r.flags?.length)
  if (flagged.length) parts.push(`flagged: ${flagged.map((r) => `${r.label}: ${r.flags.map(formatFlag).join(', ')}`).join('; ')}`)
  // invalidNote's "; invalid: ..." as a part of its own
  if (invalid) parts.push(invalid.slice('; '.length))
  // what one run each is worth closes the verdict
  parts[parts.length - 1] += singleRunNote(measured)
  return parts
}

/**
 * "async is 1.97x sync (95% CI 1.90x..2.04x, p = 0.00312 **)": each compared row's ratio to its
 * baseline, the best and the worst only past three; '' without any.
 * @param {Row[]} rows
 */
export function ratiosText (rows) {
  const measured = rows.filter((r) => r.runs.length > 0)
  let compared = rows.filter(/** @returns {r is Row & { comparison: NonNullable<Row['comparison']> }} */ (r) => r.comparison !== null)
  if (compared.length > 3) {
    const sorted = [...compared].sort((a, b) => b.comparison.ratio - a.comparison.ratio)
    compared = [sorted[0], sorted[sorted.length - 1]]
  }
  return compared.map((r) => `${r.label} is ${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline} (${formatComparison(r, measured)})`).join(', ')
}

/**
 * " [one run each: ...]" when no configuration has two runs; '' otherwise.
 * @param {Row[]} measured
 */
export function singleRunNote (measured) {
  return measured.every((r) => r.runs.length < 2) ? ' [one run each: not a result; --runs 3 or more for 95% intervals]' : ''
}

/**
 * "; invalid: sync (20 of 20 non-2xx), async #2 (3 of 100 failed (length 3))": the runs left out of the
 * figures (lib/analysis/validity.js), a repeat's number where its configuration had several; '' without any.
 * @param {Row[]} rows
 * @returns {string}
 */
export function invalidNote (rows) {
  const named = rows.flatMap((r) => r.invalid.map((i) => `${r.label}${r.runs.length + r.invalid.length > 1 ? ` #${i.repeat}` : ''} (${i.reason})`))
  return named.length ? `; invalid: ${named.join(', ')}` : ''
}
