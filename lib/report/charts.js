// Which charts a results file deserves: each experiment's kind (lib/report/kinds.js) names its charts,
// drawn per part (an experiment without a swept axis that mixes workloads is charted one workload at a
// time) with the kit below: the kinds load no Plot themselves (the terminal's tables and compare use
// them without a chart), this module hands them the drawing modules.
import * as Plot from '@observablehq/plot'
import { experimentsOf, slug, sweptAxis } from './chart-data.js'
import { environmentNote } from './chart-style.js'
import { sweepChart } from './chart-shapes.js'
import { comparisonCharts } from './chart-comparison.js'
import { probeChart } from './chart-probe.js'
import { versionCharts } from './chart-versions.js'
import { capacityChart } from './chart-capacity.js'
import { kindOf } from './kinds.js'
import { isMeasured } from '../analysis/summarize.js'
import { summarizeLatency } from '../analysis/latency.js'
import { summarizeProbe } from '../analysis/probe-summary.js'

/** @typedef {import('../types.js').RunRecord} RunRecord */
/** @typedef {import('./svg.js').ChartSpec} ChartSpec */

/**
 * What a kind draws its charts with: Observable Plot, the sweep chart, the comparison kind's charts and
 * the probe's.
 * @typedef {object} ChartKit
 * @property {typeof Plot} Plot
 * @property {typeof sweepChart} sweepChart
 * @property {typeof comparisonCharts} comparisonCharts
 * @property {typeof probeChart} probeChart
 */

/** @type {ChartKit} */
const KIT = Object.freeze({ Plot, sweepChart, comparisonCharts, probeChart })

/**
 * @typedef {object} ChartContext
 * @property {import('./chart-data.js').ExperimentInfo} experiment  the experiment entry (title adjusted for a workload part)
 * @property {string} name        the experiment's name in the results file
 * @property {string} id          file-name prefix of this part's charts
 * @property {import('../types.js').RunRecord[]} runs   measured runs only (isMeasured)
 * @property {import('../types.js').RunRecord[]} [references]  measured runs of variants outside the sweep
 *   (sweep: false: readFileSync beside the delays, one event loop beside the pools): drawn as reference lines
 * @property {string|null} axis
 * @property {number|null} cores
 * @property {string} note
 * @property {import('../analysis/summarize.js').ExperimentSummary} [summary]  the experiment's, from the model
 * @property {(runs: import('../analysis/summarize.js').MeasuredRun[]) => import('../analysis/latency.js').LatencySummary|null} latencyOf
 *           the merged latency of a group of runs (the model's, for one configuration's)
 * @property {(runs: import('../analysis/summarize.js').MeasuredRun[]) => import('../analysis/probe-summary.js').ProbeSummary|null} probeOf
 *           the probe of a group of runs (the model's, for one configuration's)
 */

/**
 * A chart with its figures computed, drawn at a layout width (default 720 px; report.html draws each
 * chart again at 420 px for phones, from the same figures).
 * @typedef {(width?: number) => ChartSpec} Drawing
 */

/**
 * The charts of a results file, in reading order (experiment by experiment).
 * @param {import('../types.js').ResultsFile} results
 * @param {{ width?: number, summaries?: import('./model.js').ReportSummary[]|null }} [options]
 *        width: the layout's; summaries: the model (summarizeResults), else the figures are computed here
 * @returns {ChartSpec[]}
 */
export function chartsFor (results, options = {}) {
  return chartDrawings(results, options.summaries).map((draw) => draw(options.width))
}

/**
 * The charts of a results file, their figures computed once, each to be drawn at any width.
 * @param {import('../types.js').ResultsFile} results
 * @param {import('./model.js').ReportSummary[]|null} [summaries]  the model: each configuration's merged
 *        latency and probe are read from it (no histogram decoded again); without it they are computed
 * @returns {Drawing[]}
 */
export function chartDrawings (results, summaries) {
  /** @type {(Drawing|null)[]} */
  const drawings = []
  // a workload part's id ("x-bcrypt") could still meet an experiment named so: the second gets "-2"
  const used = new Set()
  for (const { experiment, runs } of experimentsOf(results)) {
    const ok = runs.filter(isMeasured)
    if (ok.length === 0) continue
    const summary = summaries?.find((s) => s.name === experiment.name)
    const kind = kindOf(experiment.table)
    /** @type {ChartContext|null} */
    let first = null
    for (const part of partsOf(experiment, ok, results, kind.wholeCharts === true)) {
      let id = part.id
      for (let n = 2; used.has(id); n++) id = `${part.id}-${n}`
      used.add(id)
      const ctx = { ...part, id, summary, ...configurationFigures(summary) }
      first ??= ctx
      drawings.push(...kind.charts(ctx, KIT, results))
    }
    // what a capacity search found (run --capacity): the experiment's whole, whatever its kind and parts
    if (first && summary?.capacityReading) drawings.push(capacityChart({ ...first, experiment }, summary.capacityReading))
  }
  // under --node: each experiment's comparisons by Node.js version, after the experiments' own
  drawings.push(...versionCharts(results))
  return drawings.filter((draw) => draw !== null)
}

/**
 * A group of runs' merged latency and probe: the model's row's when the group is exactly one
 * configuration's runs (the charts group them so), computed from the runs otherwise (no model, or a group
 * of another shape).
 * @param {import('../analysis/summarize.js').ExperimentSummary|undefined} summary
 * @returns {Pick<ChartContext, 'latencyOf'|'probeOf'>}
 */
function configurationFigures (summary) {
  const rows = new Map((summary?.rows ?? []).map((r) => [r.label, r]))
  /**
   * @param {import('../analysis/summarize.js').MeasuredRun[]} runs
   * @param {(run: import('../types.js').RunRecord) => boolean} counted  which of the row's runs the group may hold
   */
  const rowOf = (runs, counted) => {
    const row = runs.length ? rows.get(runs[0].label) : undefined
    const own = row ? row.runs.filter(counted) : []
    return row && own.length === runs.length && runs.every((r) => own.includes(r)) ? row : null
  }
  return {
    latencyOf: (runs) => {
      const row = rowOf(runs, () => true)
      return row ? row.latency : summarizeLatency(runs)
    },
    probeOf: (runs) => {
      const row = rowOf(runs, (r) => Boolean(r.probe))
      return row ? row.probe : summarizeProbe(runs)
    }
  }
}

/**
 * An experiment without a swept axis that mixes workloads (bcrypt at 14 req/s, readfile at 600) is
 * charted one workload at a time: on one axis the slow workload's bars would be invisible; unless its
 * kind charts it whole (a scan's routes, ranked on one axis).
 * @param {import('./chart-data.js').ExperimentInfo} experiment
 * @param {RunRecord[]} runs  measured runs only
 * @param {import('../types.js').ResultsFile} results
 * @param {boolean} whole  one part, whatever its workloads
 * @returns {Omit<ChartContext, 'summary'|'latencyOf'|'probeOf'>[]}
 */
function partsOf (experiment, runs, results, whole) {
  // Runs without one of the declared axes ran outside the sweep: with a sweep, they are reference lines.
  const declared = experiment.axes ?? []
  const outside = (/** @type {RunRecord} */ r) => declared.length > 0 && declared.some((a) => !Object.hasOwn(r.config ?? {}, a))
  const sweepAxis = runs.some(outside) ? sweptAxis(experiment, runs.filter((r) => !outside(r))) : null
  const references = sweepAxis === null ? [] : runs.filter(outside)
  if (sweepAxis !== null) runs = runs.filter((r) => !outside(r))
  const axis = sweepAxis ?? sweptAxis(experiment, runs)
  const base = {
    references,
    name: experiment.name,
    axis,
    cores: runs.find((r) => r.serverEnv)?.serverEnv?.cpuCount ?? results.environment?.cpuCount ?? null,
    note: environmentNote(results.environment)
  }
  // a config without a workload key reads undefined, whatever its Record type says
  const workloads = /** @type {(string|number|boolean|undefined)[]} */ ([...new Set(runs.map((r) => r.config?.workload))])
  if (whole || axis !== null || workloads.length < 2 || workloads.includes(undefined)) {
    return [{ ...base, experiment, id: slug(experiment.name), runs }]
  }
  return workloads.map((w) => {
    const cal = experiment.calibration
    const applies = cal && String(cal.op) === String(w)
    return {
      ...base,
      experiment: { ...experiment, title: `${experiment.title} — ${w}`, calibration: applies ? cal : undefined },
      id: slug(`${experiment.name}-${w}`),
      runs: runs.filter((r) => r.config.workload === w)
    }
  })
}
