// The sentences of a report: one verdict line per experiment, p-values as compare.R prints them, the
// number of runs in words. The statistics behind them are lib/run/summarize.js's; the terminal,
// summary.md and report.html all print these same strings.
import { summarizeExperiments } from '../run/summarize.js'
import { formatNumber } from '../format.js'
import { threadCostVerdict } from './thread-cost.js'

/** @typedef {import('../run/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../run/summarize.js').Row} Row */

/**
 * An experiment's statistics with its verdict line: what the tables, summary.md and report.html show.
 * @typedef {ExperimentSummary & { verdict: string }} ReportSummary
 */

/**
 * Every experiment of a results file summarized (lib/run/summarize.js) and given its verdict line.
 * Computed once per command and handed to every renderer.
 * @param {import('../types.js').ResultsFile} results
 * @returns {ReportSummary[]}
 */
export function summarizeResults (results) {
  return summarizeExperiments(results).map((summary) => ({ ...summary, verdict: summary.table === 'thread-cost' ? threadCostVerdict(summary) : verdict(summary) }))
}

/**
 * "async is 1.97x sync (p = 0.00312 **); ceiling 2 cores x 15.4 hash/s = 30.8 req/s: sync 46%, async 92%"
 * With many configurations (sweeps) only the best and the worst ratio are named.
 * @param {ExperimentSummary} summary
 * @returns {string}
 */
export function verdict ({ name: experiment, rows, calibration, target }) {
  // Measured elsewhere than the experiment's own servers: the sentence says where.
  const name = target ? `${experiment} (at --target ${target})` : experiment
  const measured = rows.filter((r) => r.runs.length > 0)
  const invalid = invalidNote(rows)
  if (measured.length === 0) return invalid ? `${name}: nothing measured validly${invalid}` : `${name}: nothing measured`
  let compared = rows.filter(/** @returns {r is Row & { comparison: NonNullable<Row['comparison']> }} */ (r) => r.comparison !== null)
  if (compared.length > 3) {
    const sorted = [...compared].sort((a, b) => b.comparison.ratio - a.comparison.ratio)
    compared = [sorted[0], sorted[sorted.length - 1]]
  }
  const ratios = compared.map((r) => `${r.label} is ${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline} (${formatP(r.comparison.test)})`)
  const parts = [ratios.length ? ratios.join(', ') : `${measured[0].label}: ${measured[0].figures.requestsPerSecond.mean.toFixed(2)} req/s`]
  if (calibration) {
    const perCore = 1000 / calibration.opMs
    const calibrated = measured.filter(/** @returns {r is Row & { efficiency: number }} */ (r) => r.efficiency !== null)
    const shown = calibrated.length > 4 ? [...calibrated].sort((a, b) => b.efficiency - a.efficiency).filter((_, i, a) => i === 0 || i === a.length - 1) : calibrated
    const eff = shown.map((r) => `${r.label} ${Math.round(r.efficiency * 100)}%`).join(', ')
    parts.push(`ceiling ${calibration.usableCores} cores x ${formatNumber(perCore)} ${calibration.unit} = ${formatNumber(calibration.ceilingRps)} req/s: ${eff}`)
  }
  const single = measured.every((r) => r.runs.length < 2) ? ' [1 run each: --runs 5 for p-values]' : ''
  return `${name}: ${parts.join('; ')}${invalid}${single}`
}

/**
 * "; invalid: sync (20 of 20 non-2xx), async #2 (3 of 100 failed (length 3))": the runs left out of the
 * figures (lib/run/validity.js), a repeat's number where its configuration had several; '' without any.
 * @param {Row[]} rows
 * @returns {string}
 */
export function invalidNote (rows) {
  const named = rows.flatMap((r) => r.invalid.map((i) => `${r.label}${r.runs.length + r.invalid.length > 1 ? ` #${i.repeat}` : ''} (${i.reason})`))
  return named.length ? `; invalid: ${named.join(', ')}` : ''
}

/**
 * How many runs each configuration had, in words: "3", or "2 (seed-bcrypt), 5 (seed-readfile)" when the
 * experiments' own defaults differ.
 * @param {import('../types.js').ResultsFile} results
 * @returns {string}
 */
export function describeRuns (results) {
  const per = results.experiments.map((e) => [e.name, e.runs])
  const distinct = new Set(per.map(([, n]) => n))
  if (distinct.size <= 1) return String(distinct.values().next().value ?? 1)
  return per.map(([name, n]) => `${n} (${name})`).join(', ')
}

/**
 * A p-value as compare.R prints it: 3 significant digits ("0.0794", "0.00312"), in exponent form
 * below 0.0001 ("2.43e-7"), "< 2.2e-16" below what a double resolves next to 1 (R's format.pval),
 * "n/a" without one. The one format of the verdict lines and the compare table.
 * @param {number} p
 * @returns {string}
 */
export function formatPValue (p) {
  if (!(p >= 0)) return 'n/a'
  if (p < 2.2e-16) return '< 2.2e-16'
  if (p < 0.0001) return p.toExponential(2)
  return String(Number(p.toPrecision(3)))
}

/**
 * "p = 0.00312 **" / "p = 2.43e-7 ***" / "p < 2.2e-16 ***" / "p n/a" for one-line verdicts.
 * @param {Pick<import('../run/stats.js').WelchResult, 'p'|'stars'>} r
 * @returns {string}
 */
export function formatP (r) {
  if (!(r.p >= 0)) return 'p n/a'
  const s = r.stars ? ` ${r.stars}` : ''
  const p = formatPValue(r.p)
  return `p ${p.startsWith('<') ? p : `= ${p}`}${s}`
}

/**
 * The cell of a configuration with no valid run: "invalid: 20 of 20 non-2xx" (each distinct reason once).
 * @param {import('../run/summarize.js').Row} r
 */
export function invalidCell (r) {
  const reasons = [...new Set(r.invalid.map((i) => i.reason))]
  return `invalid: ${reasons.join('; ')}${r.invalid.length > 1 ? ` (${r.invalid.length} runs)` : ''}`
}
