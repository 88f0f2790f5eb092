// The Node.js versions of a results file written by `syncbench run --node`: every configuration ran
// under each binary in turn, so each version's runs are summarized as a results file of their own
// (summarize.js, the same rows, ratios and flags), then set side by side: each configuration's req/s
// on each version against the baseline version (the first --node), with Welch's test and the log-scale
// 95% CI of the ratio, and each within-version comparison (readFile / readFileSync) as it moved between
// versions (stats.js ratioChange). The words are lib/report's (versions.js there).
import { summarizeExperiments, rps, compareResults } from './summarize.js'
import { ratioInterval, ratioChange, welchTTest } from './stats.js'
import { compareCapacities } from './capacity.js'

/**
 * @typedef {NonNullable<import('../types.js').ResultsFile['nodes']>[number]} ResultsNode
 */

/**
 * One configuration on every version.
 * @typedef {object} VersionRow
 * @property {string} label
 * @property {{ node: string, row: import('./summarize.js').Row }[]} byVersion   in --node's order
 * @property {{ node: string, ratio: number, interval: import('./stats.js').RatioInterval, test: import('./stats.js').WelchResult }[]} vsBaseline
 *           each version after the first: its mean req/s / the baseline version's (as a Row's comparison:
 *           the ratio of the means, the log-scale 95% CI, Welch's test of the runs); NaN ratio when a side has no run
 */

/**
 * One within-version comparison (a configuration against its experiment's baseline) on every version.
 * @typedef {object} VersionComparison
 * @property {string} label
 * @property {string} baseline
 * @property {{ node: string, comparison: import('./summarize.js').Row['comparison'] }[]} byVersion
 * @property {{ node: string, change: import('./stats.js').RatioChange }[]} changes  each version after the
 *           first against the baseline version: how far the ratio moved, its CI and p-value
 */

/**
 * @typedef {object} ExperimentVersions
 * @property {string} name
 * @property {VersionRow[]} rows
 * @property {VersionComparison[]} comparisons
 */

/**
 * @typedef {object} VersionsSummary
 * @property {ResultsNode[]} nodes                         the binaries, the baseline first
 * @property {{ node: ResultsNode, results: import('../types.js').ResultsFile, summaries: import('./summarize.js').ExperimentSummary[] }[]} versions
 *           each version's runs as a results file of their own, and its summaries
 * @property {ExperimentVersions[]} experiments
 */

/**
 * The --node binaries of a results file (none without --node).
 * @param {import('../types.js').ResultsFile} results
 * @returns {ResultsNode[]}
 */
export function resultsNodes (results) {
  return Array.isArray(results.nodes) ? results.nodes : []
}

/**
 * The runs of one version as a results file of their own: its environment's versions are the binary's.
 * @param {import('../types.js').ResultsFile} results
 * @param {ResultsNode} node
 * @returns {import('../types.js').ResultsFile}
 */
export function resultsOfNode (results, node) {
  const { nodes, ...rest } = results
  const { node: version, v8, uv, openssl } = node.versions
  return { ...rest, environment: { ...results.environment, node: version, v8, uv, openssl }, runs: results.runs.filter((r) => r.node?.name === node.name) }
}

/**
 * Every version side by side, or null when the file has fewer than two (no --node, or one).
 * @param {import('../types.js').ResultsFile} results
 * @returns {VersionsSummary|null}
 */
export function summarizeVersions (results) {
  const nodes = resultsNodes(results)
  if (nodes.length < 2) return null
  const versions = nodes.map((node) => {
    const own = resultsOfNode(results, node)
    return { node, results: own, summaries: summarizeExperiments(own) }
  })
  const [base] = versions
  const experiments = base.summaries.map((summary, e) => {
    /** @param {string} label */
    const rowsOf = (label) => versions.map((v) => ({ node: v.node.name, row: /** @type {import('./summarize.js').Row} */ (v.summaries[e].rows.find((r) => r.label === label)) }))
    const rows = summary.rows.map((r) => {
      const byVersion = rowsOf(r.label)
      const vsBaseline = byVersion.slice(1).map(({ node, row }) => ({
        node,
        ratio: row.runs.length && r.runs.length ? row.figures.requestsPerSecond.mean / r.figures.requestsPerSecond.mean : NaN,
        interval: ratioInterval(rps(row.runs), rps(r.runs)),
        test: welchTTest(rps(row.runs), rps(r.runs))
      }))
      return { label: r.label, byVersion, vsBaseline }
    })
    const comparisons = summary.rows.flatMap((r) => {
      const baseline = results.experiments[e].comparisons[r.label]
      if (!baseline) return []
      const subject = rowsOf(r.label)
      const against = rowsOf(baseline)
      const changes = subject.slice(1).map(({ node, row }, i) => ({
        node,
        change: ratioChange(rps(subject[0].row.runs), rps(against[0].row.runs), rps(row.runs), rps(against[i + 1].row.runs))
      }))
      return [{ label: r.label, baseline, byVersion: subject.map(({ node, row }) => ({ node, comparison: row.comparison })), changes }]
    })
    return { name: summary.name, rows, comparisons }
  })
  return { nodes, versions, experiments }
}

/**
 * `syncbench compare` within one results file of several versions: every configuration on each version
 * after the first against the baseline version, in compareResults' shape (so its table, --json and the
 * CI gate apply: a Node.js upgrade as a pull request). The label names the version compared
 * ("readFile (24 vs 20)"), `nodes` both.
 * @param {import('../types.js').ResultsFile} results
 * @returns {(ReturnType<typeof compareResults>[number] & { nodes: { a: string, b: string } })[]}
 */
export function compareVersions (results) {
  const nodes = resultsNodes(results)
  if (nodes.length < 2) return []
  // each version's runs without their binary: compareResults then pairs them by configuration alone
  const [base, ...others] = nodes.map((node) => {
    const own = resultsOfNode(results, node)
    return { ...own, runs: own.runs.map(({ node, ...run }) => run) }
  })
  return others.flatMap((other, i) => compareResults(base, other).map((row) => ({
    ...row,
    label: `${row.label} (${nodes[i + 1].name} vs ${nodes[0].name})`,
    nodes: { a: nodes[0].name, b: nodes[i + 1].name }
  })))
}

/**
 * What the experiments' own tables, verdicts and charts show: the baseline version's runs under --node
 * (the versions side by side are summarizeVersions'), the file itself otherwise.
 * @param {import('../types.js').ResultsFile} results
 * @returns {import('../types.js').ResultsFile}
 */
export function primaryResults (results) {
  const [base] = resultsNodes(results)
  return base ? resultsOfNode(results, base) : results
}

/**
 * compareVersions for capacities (run --capacity --node): each configuration's capacities on each
 * version after the first against the baseline version's, labelled as compareVersions labels them.
 * @param {import('../types.js').ResultsFile} results
 * @returns {(import('./capacity.js').CapacityComparison & { nodes: { a: string, b: string } })[]}
 */
export function compareCapacityVersions (results) {
  const nodes = resultsNodes(results)
  if (nodes.length < 2 || !results.capacity) return []
  const capacity = results.capacity
  // each version's searches without their binary: compareCapacities then pairs them by configuration alone
  const [base, ...others] = nodes.map((node) => ({
    ...results,
    capacity: { ...capacity, searches: capacity.searches.filter((s) => s.node?.name === node.name).map(({ node, ...search }) => search) }
  }))
  return others.flatMap((other, i) => compareCapacities(base, other).map((row) => ({
    ...row,
    label: `${row.label} (${nodes[i + 1].name} vs ${nodes[0].name})`,
    nodes: { a: nodes[0].name, b: nodes[i + 1].name }
  })))
}
