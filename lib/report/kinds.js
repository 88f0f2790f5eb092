// The experiment kinds: what an experiment's `table` names (results.json, experiment files) is how the
// report presents it. Each kind is one module of lib/report/kinds/ (its table, its verdict, its charts,
// and the seed article it reproduces, if any), listed here; the tables (tables.js), the verdicts
// (model.js), the charts (charts.js), the terminal's text charts (text-chart.js) and the articles
// (articles.js) find it through kindOf, and no other module names a kind. A kind says what differs from
// the comparison kind (kinds/generic.js) and takes the rest from it.
import { generic } from './kinds/generic.js'
import { seed001 } from './kinds/seed-001.js'
import { seed002 } from './kinds/seed-002.js'
import { threadCost } from './kinds/thread-cost.js'
import { rateSweep } from './kinds/rate-sweep.js'
import { h2HeadOfLine } from './kinds/h2-head-of-line.js'
import { app } from './kinds/app.js'
import { scan } from './kinds/scan.js'

/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../analysis/summarize.js').Row} Row */

/**
 * @typedef {object} ExperimentKind
 * @property {string} name   the `table` that names it
 * @property {(s: ExperimentSummary, rows: Row[]) => import('./tables.js').Table|import('./tables.js').Table[]} table
 *           its comparison table, of the configurations shown (measured, or all of whose runs are invalid),
 *           or its tables, that one first
 * @property {boolean} serverTable    the server metrics table follows it (false: its own table has them)
 * @property {(s: ExperimentSummary) => Row[]} [loopRows]  the configurations whose "where the event loop
 *           went" the report shows, in its order (absent: every one, in table order)
 * @property {boolean} latencyTable   the latency table follows it (false: its own table has the percentiles)
 * @property {(s: ExperimentSummary) => string|string[]} verdict  its verdict line, or its parts, one subject
 *           each (a line each on a terminal); the bounds, the claim and the probe's sentence follow them
 * @property {(ctx: import('./charts.js').ChartContext, kit: import('./charts.js').ChartKit, results: import('../types.js').ResultsFile) => (import('./charts.js').Drawing|null)[]} charts
 *           the charts of one part of the experiment, in reading order (null: nothing to draw)
 * @property {boolean} textChart      the terminal draws its req/s against a swept axis
 * @property {boolean} [wholeCharts]  its charts take all its runs at once (absent: an experiment that mixes
 *           workloads without a swept axis is charted one workload at a time, lib/report/charts.js)
 * @property {import('./articles.js').Article} [article]  the seed article it reproduces
 */

/** Every kind; the seeds' in their articles' order. */
export const KINDS = Object.freeze([generic, seed001, seed002, threadCost, rateSweep, h2HeadOfLine, app, scan])

const byName = new Map(KINDS.map((k) => [k.name, k]))

/**
 * The kind an experiment's `table` names; without one (a file from before kinds had names), or a name
 * this version does not know, the comparison kind.
 * @param {string|undefined} name
 * @returns {ExperimentKind}
 */
export function kindOf (name) {
  return byName.get(name ?? 'generic') ?? generic
}
