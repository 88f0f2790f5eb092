// The statistics of repeated runs (summarize, welchTTest, compareResults) and the report's model:
// what summarizeResults computes of every experiment and every renderer reads (summary.md, report.html).
import type { LoadResult } from './load.js'
import type { Calibration, Capacity, CapacityRecord, CapacitySearch, ProfileEntry, RouteBlocks, RunRecord, ScanInfo } from './results.js'
import type { SyncbenchError } from './errors.js'

/** n, mean, sd and the 95% t-interval of the mean (NaN below 2 values). */
export interface Summary { n: number, mean: number, sd: number, ciLow: number, ciHigh: number, ciHalfWidth: number }

/** Welch's two-sample t-test, two-sided; stars as compare.R's ('***' p < 0.001 ... '' otherwise). */
export interface WelchResult { t: number, df: number, p: number, stars: string }

/** A rate's 95% interval on the log scale (NaN below 3 runs). */
export interface RateInterval { n: number, geometricMean: number, cv: number, low: number, high: number }

/** The ratio of two rates' geometric means and its 95% interval (NaN below 3 runs a side). */
export interface RatioInterval { ratio: number, low: number, high: number, df: number }

/** A cross-run percentile; the maximum (isMax) where the requests are too few for it. */
export interface LatencyPercentile { key: string, p: number, q: number, label: string, ms: number, isMax: boolean }

/** Total time per request over a configuration's runs: from their merged histograms, else the mean of their percentiles. */
export interface LatencySummary {
  combine: 'merged' | 'mean'
  runs: number
  count: number
  max: number
  percentiles: LatencyPercentile[]
}

/** The probe beside a configuration's runs, its latency corrected for coordinated omission. */
export interface ProbeSummary {
  path: string
  rate: number
  runs: number
  requests: number
  errors: number
  late: number
  latency: LatencySummary | null
}

/** A configuration's runs' CPU profiles added up. */
export interface ConfigurationProfile {
  runs: number
  totalMs: number
  idleMs: number
  self: ProfileEntry[]
  inclusive: ProfileEntry[]
  blocking: { thresholdMs: number, ms: number, self: ProfileEntry[] } | null
  files: string[]
  /** the routes whose requests were in progress while the loop was held, largest first */
  routes?: RouteBlocks[]
  /** with routes: the time of the runs' blocking spans (LoopBlocks.spans) added up */
  spansMs?: number
}

/** Why a row's figure should not be taken at face value. */
export type RowFlag =
  | { kind: 'spread', cv: number, n: number }
  | { kind: 'cpu', cpuMs: number, neededMs: number, requests: number }
  | { kind: 'idle-loop', busyMs: number, neededMs: number, requests: number, strategy: string }

export type ServerFigure = 'loopP50' | 'loopP99' | 'loopMax' | 'elu' | 'cpuPercent' | 'peakRssBytes' | 'threads'

/** A run that counts in the figures: not failed, not interrupted, valid. */
export type MeasuredRun = RunRecord & { load: LoadResult }

/** One configuration of an experiment, over its repeats. */
export interface Row {
  label: string
  runs: MeasuredRun[]
  failed: number
  invalid: { id: string, repeat: number, reason: string }[]
  /** each LoadResult figure over the runs */
  figures: Record<string, Summary>
  /** req/s against its baseline */
  comparison: { baseline: string, ratio: number, test: WelchResult, interval: RatioInterval } | null
  /** mean req/s over the ceiling */
  efficiency: number | null
  rate: RateInterval
  derived: { requestsPerSecond: number, timePerRequestMs: number, timePerRequestAcrossMs: number, transferRateKBps: number }
  ceiling: { efficiency: number, low: number, high: number, timings: number, above: boolean, withinSpread: boolean } | null
  flags: RowFlag[]
  server: Record<ServerFigure, number> | null
  latency: LatencySummary | null
  probe: ProbeSummary | null
  profile: ConfigurationProfile | null
  /** what bounds it on this machine and the rate that allows */
  bound: RowBound | null
  /** a mix: each route over the runs (null: no mix) */
  routes: RouteSummary[] | null
}

/** A strategy's bound: what limits its throughput and the rate that allows. */
export interface Bound {
  /** "main thread", "4 pool threads", "2 cores", "20 in flight", "3 workers" */
  name: string
  kind: 'main' | 'pool' | 'workers' | 'cores' | 'in-flight'
  predictedRps: number
  lever: string | null
}

/** The machine and load shape a bound is computed for. */
export interface BoundShape {
  cores: number
  pool: number
  workers: number | null
  inFlight: number
}

/** A configuration's bound on the machine it ran on. */
export interface RowBound {
  bound: Bound | null
  why: string | null
  ofBound: number | null
  workMs: number | null
  httpMs: number | null
  httpFrom: string | null
  shape: BoundShape | null
  doubts: string[]
}

/** One route of a mix over a configuration's runs. */
export interface RouteSummary {
  name: string
  method: string
  path: string
  weight: number
  /** per run (the first run's) */
  connections: number
  /** completed, all runs together */
  requests: number
  failed: number
  non2xx: number
  statusCodes: Record<string, number>
  /** mean over the runs of its requests / the run's time */
  requestsPerSecond: number
  latency: LatencySummary | null
}

/** One experiment's statistics, its configurations in table order. */
export interface ExperimentSummary {
  name: string
  title: string
  description: string
  /** its kind */
  table: string
  baseline?: string
  reference?: string
  target?: string
  calibration?: Calibration
  capacity?: Record<string, Capacity>
  sloP99Ms?: number
  /** a scan's: what it found and planned */
  scan?: ScanInfo
  rows: Row[]
}

export interface Claim {
  kind: 'faster' | 'no-gain'
  subject: string
  baseline: string
  text: string
}

export interface ClaimResult extends Claim {
  articleRatio: number
  ratio: number
  p: number
  stars: string
  evidence: string
  reproduces: boolean
  status: 'reproduces' | 'opposite' | 'no-difference' | 'no-p-value' | 'gain' | 'not-measured'
  why: string
}

/** What a reason is told of the machine and the run. */
export interface ArticleMachine {
  cores: number
  pool: number
  opMs: number | null
  peakRss: Map<string, number>
  noGainMargin: number
}

/** A seed article: its published figures and claims. */
export interface Article {
  seed: string
  author: string
  year: number
  title: string
  url?: string
  load: { requests: number, concurrency: number, keepAlive: boolean }
  figures: Record<string, number>
  claims: Claim[]
  reasons?: Record<string, (c: ClaimResult, m: ArticleMachine) => string>
}

/** A seed article's figures beside this machine's, and whether its claims reproduce here. */
export interface ArticleComparison {
  experiment: string
  article: Article
  rows: { label: string, article: number, here: { mean: number, runs: number, interval: string } | null }[]
  claims: ClaimResult[]
  outcome: 'reproduces' | 'partly' | 'does not reproduce'
  loadNote: string | null
  line: string
}

/**
 * An experiment's statistics, verdict line and seed articles: all the report says of it. verdict is
 * verdictParts (one subject each: the ratios, the ceiling, the flags, the bounds, the claim, the probe)
 * joined by "; ".
 */
/** loopLabels: the configurations whose "where the event loop went" the report shows, in its order (its kind's choice); rounds: how `run --runs auto`'s rounds of it ended, in one line, null where its runs were fixed */
export type ReportSummary = ExperimentSummary & { verdict: string, verdictParts: string[], articles: ArticleComparison[], loopLabels: string[], capacityReading: CapacityReading | null, rounds: string | null }

/** The latency a capacity run is read by: the goal's first latency term, p99 when it names none. */
export interface GoalMeasure {
  name: string
  figure: 'p50Ms' | 'p90Ms' | 'p99Ms' | 'p999Ms' | 'loopP99Ms'
  percentile: string | null
  below: number | null
}

/** A configuration's capacities under `run --capacity`, with the closed loop it started from. */
export interface CapacityReadingRow {
  label: string
  node: string | null
  capacities: (number | null)[]
  interval: RateInterval & { median: number, missing: number }
  reasons: (CapacitySearch['reason'] | 'error')[]
  searches: CapacityRecord[]
  baseline: string | null
  ratio: (RatioInterval & { p: number }) | null
  closedLoopRps: number | null
  closedLoopMs: number | null
  closedLoopIsMax: boolean
  boundRps: number | null
}

/** An experiment's capacity run as the report reads it (null on a summary without searches). */
export interface CapacityReading {
  goal: string
  measure: GoalMeasure
  stepSeconds: number
  tolerance: number
  calibrated: boolean
  rows: CapacityReadingRow[]
}

/** One configuration of two results files compared (compareResults): b's req/s against a's. */
export interface Comparison {
  experiment: string
  label: string
  a: Summary
  b: Summary
  change: number
  test: WelchResult
  rate: { a: RateInterval, b: RateInterval }
  ratio: RatioInterval
  latency: { a: LatencySummary | null, b: LatencySummary | null }
  /** each side's measured runs */
  runs: { a: MeasuredRun[], b: MeasuredRun[] }
}

export interface WriteReportOptions {
  /** the model, when the caller computed it */
  summaries?: ReportSummary[]
  /** false: summary.md only */
  html?: boolean
  /** false: no charts/*.png */
  png?: boolean
  signal?: AbortSignal
}

export interface WrittenReport {
  summary: string
  html: string | null
  charts: string[]
  warnings: string[]
  /** report.html or a chart could not be written (summary.md was) */
  error: SyncbenchError | null
}
