// The report's one model: every experiment of a results file summarized (lib/analysis/summarize.js),
// with its verdict line (its kind's, lib/report/kinds.js) and the seed articles it reproduces. Computed once per command and handed to
// every renderer (the terminal, summary.md, report.html, the charts), none of which summarizes again.
import { summarizeExperiments } from '../analysis/summarize.js'
import { primaryResults } from '../analysis/versions.js'
import { kindOf } from './kinds.js'
import { probeSentence } from './probe.js'
import { compareWithArticles } from './articles.js'
import { boundsVerdict, roundsSentence } from './phrases.js'
import { hypothesisVerdict } from './hypotheses.js'
import { capacityReading, capacityVerdict } from './capacity-report.js'

/**
 * An experiment's statistics with its verdict line and its seed articles beside this machine: all that
 * the tables, the charts, summary.md and report.html say of it. The verdict is its parts, one subject
 * each (the kind's: the ratios, the ceiling, the flags; then the bounds, the claim, the probe), joined
 * by "; ": a paragraph in summary.md and report.html, a line per part on a terminal.
 * loopLabels: the configurations whose "where the event loop went" the report shows, in its order (the
 * kind's choice: every profiled one by default). capacityReading: what `run --capacity` found of it
 * (lib/report/capacity-report.js), null without a search of it. rounds: how `run --runs auto`'s rounds of
 * it ended (phrases.js roundsSentence), null where its runs were fixed.
 * @typedef {import('../analysis/summarize.js').ExperimentSummary & { verdict: string, verdictParts: string[], articles: import('./articles.js').ArticleComparison[], loopLabels: string[], capacityReading: import('./capacity-report.js').CapacityReading|null, rounds: string|null }} ReportSummary
 */

/**
 * Every experiment of a results file summarized and given its verdict line and its articles.
 * @param {import('../types.js').ResultsFile} results
 * @returns {ReportSummary[]}
 */
export function summarizeResults (results) {
  // under --node the experiments' own figures are the baseline version's (lib/report/version-report.js sets the versions side by side)
  const own = primaryResults(results)
  return summarizeExperiments(own).map((summary) => {
    // what bounds each configuration, then whether the experiment's claim held here, follow its kind's
    // line, after what a capacity search found; what the probe saw closes it: how long everyone else
    // waited under each configuration
    const capacity = capacityReading(results, summary)
    const parts = [
      ...[kindOf(summary.table).verdict(summary)].flat(),
      ...capacity ? capacityVerdict(capacity) : [],
      boundsVerdict(summary.rows.filter((r) => r.runs.length > 0)),
      hypothesisVerdict(summary),
      probeSentence(summary)
    ].filter(Boolean)
    const kind = kindOf(summary.table)
    const loopLabels = (kind.loopRows ? kind.loopRows(summary) : summary.rows).filter((r) => r.profile).map((r) => r.label)
    const rounds = roundsSentence(results.experiments.find((e) => e.name === summary.name)?.sequential)
    return { ...summary, verdict: parts.join('; '), verdictParts: parts, articles: compareWithArticles(own, [summary]), loopLabels, capacityReading: capacity, rounds }
  })
}

/** @param {unknown} v */
const isObject = (v) => v !== null && typeof v === 'object'

/**
 * The model, or null for a hand-written or truncated results file whose experiments lack their
 * configurations in order (labels) or their baselines (comparisons): its report shows the charts and
 * runs without tables. Anything else summarizeResults throws is a bug and surfaces.
 * @param {import('../types.js').ResultsFile} results
 * @returns {ReportSummary[]|null}
 */
export function summariesOf (results) {
  const complete = Array.isArray(results.experiments) && Array.isArray(results.runs) &&
    results.experiments.every((e) => Array.isArray(e?.labels) && isObject(e.comparisons))
  return complete ? summarizeResults(results) : null
}
