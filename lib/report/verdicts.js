// The sentences of a report: one verdict line per experiment, p-values as compare.R prints them, the
// number of runs in words. The statistics behind them are lib/analysis/summarize.js's; the terminal,
// summary.md and report.html all print these same strings.
import { summarizeExperiments, ceilingSpread } from '../analysis/summarize.js'
import { formatNumber } from '../format.js'
import { threadCostVerdict } from './thread-cost.js'
import { probeSentence } from './probe.js'
import { rateSweepVerdict } from './rate-sweep.js'

/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../analysis/summarize.js').Row} Row */

/**
 * An experiment's statistics with its verdict line: what the tables, summary.md and report.html show.
 * @typedef {ExperimentSummary & { verdict: string }} ReportSummary
 */

/**
 * Every experiment of a results file summarized (lib/analysis/summarize.js) and given its verdict line.
 * Computed once per command and handed to every renderer.
 * @param {import('../types.js').ResultsFile} results
 * @returns {ReportSummary[]}
 */
export function summarizeResults (results) {
  return summarizeExperiments(results).map((summary) => {
    const line = summary.table === 'thread-cost' ? threadCostVerdict(summary) : summary.table === 'rate-sweep' ? rateSweepVerdict(summary) : verdict(summary)
    // what the probe saw closes the line: how long everyone else waited under each configuration
    const probe = probeSentence(summary)
    return { ...summary, verdict: probe ? `${line}; ${probe}` : line }
  })
}

/**
 * "async is 1.97x sync (95% CI 1.90x..2.04x, p = 0.00312 **); ceiling 2 cores x 15.4 hash/s = 30.8 req/s
 * (5 timings: 30.1..31.5): sync 46%, async 92%". A ratio from one run says so ("one run: not a result"),
 * one from two runs has no interval; flagged rows are named at the end.
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
  const ratios = compared.map((r) => `${r.label} is ${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline} (${formatComparison(r, measured)})`)
  const parts = [ratios.length ? ratios.join(', ') : `${measured[0].label}: ${measured[0].figures.requestsPerSecond.mean.toFixed(2)} req/s`]
  if (calibration) {
    const perCore = 1000 / calibration.opMs
    const calibrated = measured.filter(/** @returns {r is Row & { efficiency: number }} */ (r) => r.efficiency !== null)
    const shown = calibrated.length > 4 ? [...calibrated].sort((a, b) => b.efficiency - a.efficiency).filter((_, i, a) => i === 0 || i === a.length - 1) : calibrated
    const eff = shown.map((r) => `${r.label} ${formatEfficiency(r)}`).join(', ')
    parts.push(`ceiling ${calibration.usableCores} cores x ${formatNumber(perCore)} ${calibration.unit} = ${formatNumber(calibration.ceilingRps)} req/s (${formatCeilingSpread(calibration)}): ${eff}`)
  }
  const flagged = measured.filter((r) => r.flags?.length)
  if (flagged.length) parts.push(`flagged: ${flagged.map((r) => `${r.label}: ${r.flags.map(formatFlag).join(', ')}`).join('; ')}`)
  const single = measured.every((r) => r.runs.length < 2) ? ' [one run each: not a result; --runs 3 or more for 95% intervals]' : ''
  return `${name}: ${parts.join('; ')}${invalid}${single}`
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

/**
 * What a ratio rests on: "95% CI 1.90x..2.04x, p = 0.00312 **", "2 runs: no interval, p = 0.0794",
 * "one run: not a result".
 * @param {Row & { comparison: NonNullable<Row['comparison']> }} r
 * @param {Row[]} rows  the experiment's rows, to find the baseline's run count
 * @returns {string}
 */
export function formatComparison (r, rows) {
  const base = rows.find((b) => b.label === r.comparison.baseline)
  const n = Math.min(r.runs.length, base?.runs.length ?? 0)
  if (n < 2) return 'one run: not a result'
  const { low, high } = r.comparison.interval ?? { low: NaN, high: NaN }
  const interval = Number.isFinite(low) && Number.isFinite(high) ? `95% CI ${low.toFixed(2)}x..${high.toFixed(2)}x` : `${n} runs: no interval`
  return `${interval}, ${formatP(r.comparison.test)}`
}

/**
 * A configuration's req/s 95% CI (log scale, never negative): "488.00..685.28", "2 runs: no interval",
 * '' for a single run (the verdict says it is one run).
 * @param {Pick<Row, 'rate'>} r
 * @param {number} digits
 * @returns {string}
 */
export function formatRateInterval ({ rate }, digits) {
  if (!rate || rate.n < 2) return ''
  if (!(Number.isFinite(rate.low) && Number.isFinite(rate.high))) return `${rate.n} runs: no interval`
  return `${rate.low.toFixed(digits)}..${rate.high.toFixed(digits)}`
}

/**
 * The efficiency against the ceiling, never above 100% without saying why: "46%", "101% (within the
 * calibration's spread)", "112% (above the ceiling's spread!)"; '' without a ceiling.
 * @param {Pick<Row, 'efficiency'|'ceiling'>} r
 * @returns {string}
 */
export function formatEfficiency (r) {
  if (r.efficiency === null) return ''
  const pct = `${Math.round(r.efficiency * 100)}%`
  if (!r.ceiling || r.efficiency <= 1) return pct
  if (r.ceiling.above) return `${pct} (above the ceiling${r.ceiling.timings > 1 ? "'s spread" : ', 1 timing'}!)`
  return `${pct} (within the calibration's spread)`
}

/**
 * "5 timings: 30.1..31.5" or "1 timing: no spread" (a results file from before the repeats).
 * @param {NonNullable<ExperimentSummary['calibration']>} calibration
 */
export function formatCeilingSpread (calibration) {
  const n = calibration.timings?.length ?? 1
  if (n < 2) return '1 timing: no spread'
  const { low, high } = ceilingSpread(calibration)
  return `${n} timings: ${formatNumber(low)}..${formatNumber(high)}`
}

/**
 * One flag in words, for the tables' Flags cells and the verdict line.
 * @param {import('../analysis/summarize.js').RowFlag} f
 * @returns {string}
 */
export function formatFlag (f) {
  if (f.kind === 'spread') return `runs disagree (CV ${Math.round(f.cv * 100)}% over ${f.n} runs)`
  if (f.kind === 'cpu') return `CPU time ${formatMs(f.cpuMs)} < the ${formatMs(f.neededMs)} its ${f.requests} requests need`
  return `${f.strategy} with an idle loop (busy ${formatMs(f.busyMs)} < the ${formatMs(f.neededMs)} its ${f.requests} requests need)`
}

/** "850 ms", "12.3 s" @param {number} ms */
function formatMs (ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${formatNumber(ms / 1000)} s`
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
 * @param {Pick<import('../analysis/stats.js').WelchResult, 'p'|'stars'>} r
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
 * @param {import('../analysis/summarize.js').Row} r
 */
export function invalidCell (r) {
  const reasons = [...new Set(r.invalid.map((i) => i.reason))]
  return `invalid: ${reasons.join('; ')}${r.invalid.length > 1 ? ` (${r.invalid.length} runs)` : ''}`
}
