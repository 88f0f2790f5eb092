// `syncbench compare --json`: the comparison of two results files as one documented object, for CI
// scripts. A contract like the LoadResult: fields are added, never renamed; the schema names the version.

export const COMPARE_SCHEMA = 'syncbench/compare@1'

/**
 * @typedef {object} CompareSide
 * @property {number} n        measured runs
 * @property {number} mean     mean requests per second over them
 * @property {number|null} sd  sample standard deviation; null with one run
 * @property {number|null} ciLow   95% confidence interval of the mean (t distribution); null with one run
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
 */

/**
 * @typedef {object} CompareJson
 * @property {'syncbench/compare@1'} schema
 * @property {{ file: string, node: string|null, syncbench: string|null, createdAt: string|null }} a   the first results file, as given
 * @property {{ file: string, node: string|null, syncbench: string|null, createdAt: string|null }} b
 * @property {CompareRow[]} rows    every configuration measured in both, in a's order
 */

/**
 * @param {ReturnType<typeof import('../run/summarize.js').compareResults>} rows
 * @param {{ file: string, results: import('../types.js').ResultsFile }} a
 * @param {{ file: string, results: import('../types.js').ResultsFile }} b
 * @returns {CompareJson}
 */
export function compareJson (rows, a, b) {
  /** @param {{ file: string, results: import('../types.js').ResultsFile }} s */
  const side = (s) => ({ file: s.file, node: s.results.environment?.node ?? null, syncbench: s.results.syncbench ?? null, createdAt: s.results.createdAt ?? null })
  return {
    schema: COMPARE_SCHEMA,
    a: side(a),
    b: side(b),
    rows: rows.map((r) => ({
      experiment: r.experiment,
      label: r.label,
      a: summary(r.a),
      b: summary(r.b),
      change: r.change,
      p: finite(r.test.p),
      stars: r.test.stars,
      significant: r.test.p < 0.05
    }))
  }
}

/**
 * @param {import('../run/stats.js').Summary} s
 * @returns {CompareSide}
 */
function summary (s) {
  return { n: s.n, mean: s.mean, sd: finite(s.sd), ciLow: finite(s.ciLow), ciHigh: finite(s.ciHigh) }
}

/** JSON has no NaN: a figure that cannot be computed is null. @param {number} x */
function finite (x) {
  return Number.isFinite(x) ? x : null
}
