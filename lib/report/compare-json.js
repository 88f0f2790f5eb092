// `syncbench compare --json`: the comparison of two results files as one documented object, for CI
// scripts. A contract like the LoadResult: fields are added, never renamed; the schema names the version.

import { gateText } from './compare-gate.js'
import { describeTransports } from './phrases.js'

export const COMPARE_SCHEMA = 'syncbench/compare@1'

/**
 * @typedef {object} CompareSide
 * @property {number} n        measured runs
 * @property {number} mean     mean requests per second over them
 * @property {number|null} sd  sample standard deviation; null with one run
 * @property {number|null} ciLow   95% confidence interval of the req/s, on the log scale (never negative, as the
 *                             tables' Req/s 95% CI); null with fewer than 3 runs
 * @property {number|null} ciHigh
 */

/**
 * @typedef {object} CompareRow
 * @property {string} experiment
 * @property {string} label         the configuration, as the tables name it
 * @property {CompareSide} a
 * @property {CompareSide} b
 * @property {number} change        b's mean / a's mean - 1 (0.05 = b is 5% faster)
 * @property {number|null} p        two-sided Welch t-test p-value of b's runs against a's; null with fewer than 2 runs a side
 * @property {string} stars         '***' p < 0.001, '**' p < 0.01, '*' p < 0.05, '' otherwise (compare.R's)
 * @property {boolean} significant  p < 0.05
 * @property {CompareRatio} ratio   b / a and its 95% CI
 * @property {CompareRowGate|null} gate  the --fail-if-slower verdict; null without the option
 * @property {{ a: string, b: string }} [nodes]  the --node binaries compared (one results file of several
 *                                  versions: a the baseline binary, b another); absent between two files
 */

/**
 * @typedef {object} CompareRatio
 * @property {number|null} value   b / a of the geometric means of the runs' req/s
 * @property {number|null} ciLow   95% CI: Welch's t-interval of the mean log req/s, back-transformed;
 *                                 null with fewer than 3 runs a side
 * @property {number|null} ciHigh
 */

/**
 * @typedef {object} CompareRowGate
 * @property {import('../analysis/gate.js').GateVerdict} verdict  'slower' (fails: the CI is entirely below 1 - threshold),
 *   'slower-within', 'equivalent' (the CI is inside 1 ± threshold), 'no-change', 'faster', 'too-few-runs', 'no-interval'
 * @property {boolean} fails   verdict === 'slower'
 * @property {string} text     the verdict as the table words it
 */

/**
 * @typedef {object} CompareGate
 * @property {number} threshold  --fail-if-slower as a fraction (5% -> 0.05)
 * @property {boolean} failed    a row fails
 * @property {number} exitCode   what syncbench compare exits with: 0, or 3 when failed
 * @property {number} slower     rows that fail
 * @property {number} undecided  rows without an interval (too few runs)
 */

/**
 * @typedef {object} CompareJson
 * @property {'syncbench/compare@1'} schema
 * @property {{ file: string, node: string|null, syncbench: string|null, createdAt: string|null, transport: string|null }} a   the first results file, as given (transport: the I/O paths its runs went through, null when not recorded)
 * @property {{ file: string, node: string|null, syncbench: string|null, createdAt: string|null, transport: string|null }} b
 * @property {CompareRow[]} rows    every configuration measured in both, in a's order
 * @property {CompareGate|null} gate  with --fail-if-slower; null without
 * @property {CompareScan|null} [scan]  two scans: each route's change; null when a and b hold no scan in common
 * @property {CompareCapacity} [capacity]  run --capacity's searches, when a or b holds some; absent when neither does
 */

/**
 * @typedef {object} CompareCapacity
 * @property {{ a: string|null, b: string|null }} goal   each side's goal as written (null: it has no searches)
 * @property {boolean} compared     both searched at the same goal, some configuration in both
 * @property {string|null} note     why not compared, the line the text prints; null when compared
 * @property {CompareCapacityRow[]} rows
 * @property {CompareGate|null} gate  with --fail-if-slower and rows to decide; null without
 */

/**
 * @typedef {object} CompareCapacityRow
 * @property {string} experiment
 * @property {string} label
 * @property {CompareCapacitySide} a
 * @property {CompareCapacitySide} b
 * @property {number|null} change   b / a of the geometric means - 1; null where a side found none
 * @property {number|null} p        Welch's t-test on the log capacities; null with fewer than 2 found a side
 * @property {string} stars
 * @property {boolean} significant
 * @property {CompareRatio} ratio
 * @property {boolean} noneFound    a search of b met the goal at no rate where a's found a capacity (fails the gate)
 * @property {CompareRowGate|null} gate
 * @property {{ a: string, b: string }} [nodes]
 */

/**
 * @typedef {object} CompareCapacitySide
 * @property {number} searches         searches of the configuration
 * @property {number} found            of them, those that found a capacity
 * @property {(number|null)[]} capacities  each search's, req/s (null: none found)
 * @property {string[]} reasons        each search's outcome: found, no-rate-meets, generator-bound, budget, max-rate, error
 * @property {number|null} geometricMean  of the capacities found; null when none
 * @property {number|null} ciLow       its 95% CI on the log scale; null below 3 found
 * @property {number|null} ciHigh
 */

/**
 * @typedef {object} CompareScan
 * @property {import('./kinds/scan.js').ScanChange[]} changes  each route: started, stopped, still (holds the loop on
 *   both sides), clear (on neither), only-a, only-b; its loop p99 (ms) on each side
 * @property {{ failed: boolean, exitCode: number, started: number }|null} gate  with --fail-if-blocking; null without
 */

/**
 * @param {ReturnType<typeof import('../analysis/summarize.js').compareResults>} rows
 * @param {{ file: string, results: import('../types.js').ResultsFile }} a
 * @param {{ file: string, results: import('../types.js').ResultsFile }} b
 * @param {{ result: import('../analysis/gate.js').GateResult, exitCode: number }} [gate]  --fail-if-slower's
 * @param {CompareScan|null} [scan]  two scans' routes
 * @param {{ pairing: string, rows: import('../analysis/capacity.js').CapacityComparison[], note: string|null, gate: { result: import('../analysis/gate.js').GateResult, exitCode: number }|undefined }|null} [capacity]
 *        the capacities compared; null when neither file holds any
 * @returns {CompareJson}
 */
export function compareJson (rows, a, b, gate, scan = null, capacity = null) {
  /** @param {{ file: string, results: import('../types.js').ResultsFile }} s */
  const side = (s) => ({ file: s.file, node: s.results.environment?.node ?? null, syncbench: s.results.syncbench ?? null, createdAt: s.results.createdAt ?? null, transport: describeTransports(s.results) })
  return {
    schema: COMPARE_SCHEMA,
    a: side(a),
    b: side(b),
    rows: rows.map((r, i) => ({
      experiment: r.experiment,
      label: r.label,
      a: summary(r.a, r.rate.a),
      b: summary(r.b, r.rate.b),
      change: r.change,
      p: finite(r.test.p),
      stars: r.test.stars,
      significant: r.test.p < 0.05,
      ratio: { value: finite(r.ratio.ratio), ciLow: finite(r.ratio.low), ciHigh: finite(r.ratio.high) },
      gate: gate ? { ...gate.result.decisions[i], text: gateText(gate.result.decisions[i], r, gate.result.threshold) } : null,
      ...nodesOf(r)
    })),
    gate: gate
      ? { threshold: gate.result.threshold, failed: gate.result.failed, exitCode: gate.result.failed ? gate.exitCode : 0, slower: gate.result.slower.length, undecided: gate.result.undecided.length }
      : null,
    scan,
    ...(capacity && { capacity: capacityJson(capacity, a.results, b.results) })
  }
}

/**
 * @param {NonNullable<Parameters<typeof compareJson>[5]>} capacity
 * @param {import('../types.js').ResultsFile} a
 * @param {import('../types.js').ResultsFile} b
 * @returns {CompareCapacity}
 */
function capacityJson (capacity, a, b) {
  const gate = capacity.gate
  return {
    goal: { a: a.capacity?.goal ?? null, b: b.capacity?.goal ?? null },
    compared: capacity.rows.length > 0,
    note: capacity.note,
    rows: capacity.rows.map((r, i) => ({
      experiment: r.experiment,
      label: r.label,
      a: capacitySide(r.a),
      b: capacitySide(r.b),
      change: finite(r.change),
      p: finite(r.test.p),
      stars: r.test.stars,
      significant: r.test.p < 0.05,
      ratio: { value: finite(r.ratio.ratio), ciLow: finite(r.ratio.low), ciHigh: finite(r.ratio.high) },
      noneFound: r.noneFound,
      gate: gate ? { ...gate.result.decisions[i], text: gateText(gate.result.decisions[i], r, gate.result.threshold, 'capacities') } : null,
      ...nodesOf(r)
    })),
    gate: gate
      ? { threshold: gate.result.threshold, failed: gate.result.failed, exitCode: gate.result.failed ? gate.exitCode : 0, slower: gate.result.slower.length, undecided: gate.result.undecided.length }
      : null
  }
}

/**
 * @param {import('../analysis/capacity.js').CapacitySide} s
 * @returns {CompareCapacitySide}
 */
function capacitySide (s) {
  return { searches: s.capacities.length, found: s.n, capacities: s.capacities, reasons: s.reasons, geometricMean: s.n ? s.interval.geometricMean : null, ciLow: finite(s.interval.low), ciHigh: finite(s.interval.high) }
}

/**
 * @param {import('../analysis/stats.js').Summary} s
 * @param {import('../analysis/stats.js').RateInterval} rate  the log-scale interval the tables print
 * @returns {CompareSide}
 */
function summary (s, rate) {
  return { n: s.n, mean: s.mean, sd: finite(s.sd), ciLow: finite(rate.low), ciHigh: finite(rate.high) }
}

/**
 * A row of one results file's versions (lib/analysis/versions.js compareVersions) names its binaries.
 * @param {object} row
 * @returns {{ nodes?: { a: string, b: string } }}
 */
function nodesOf (row) {
  return 'nodes' in row ? { nodes: /** @type {{ a: string, b: string }} */ (row.nodes) } : {}
}

/** JSON has no NaN: a figure that cannot be computed is null. @param {number} x */
function finite (x) {
  return Number.isFinite(x) ? x : null
}
