// `npm run types`: the hand-written declarations of the public API (types/*.d.ts, what a TypeScript
// user reads) held to the implementation's JSDoc types. Every value index.js exports is declared and
// nothing else is; each is assignable both ways between the declarations and the implementation; the
// data contracts are the same types on both sides. A declaration that drifts from the code fails here.
import type * as Declared from 'syncbench'
import * as implementation from '../index.js'
import type * as Contracts from '../lib/types.js'
import type * as Errors from '../lib/errors.js'
import type * as Stats from '../lib/analysis/stats.js'
import type * as Summaries from '../lib/analysis/summarize.js'
import type * as Latency from '../lib/analysis/latency.js'
import type * as Probes from '../lib/analysis/probe-summary.js'
import type * as Model from '../lib/report/model.js'
import type * as Articles from '../lib/report/articles.js'
import type * as Report from '../lib/report/write-report.js'
import type * as Loader from '../lib/run/experiment-loader.js'
import type * as Ab from '../lib/ab/ab-args.js'

/** true when A and B are assignable to each other and have the same keys (an optional one left out counts) */
type Same<A, B> = [A, keyof A] extends [B, keyof B] ? ([B, keyof B] extends [A, keyof A] ? true : false) : false
type Holds<T extends true> = T

export const declaredByTheImplementation: typeof Declared = implementation
export const implementedByTheDeclarations: typeof implementation = null as unknown as typeof Declared

export type Exports = Holds<Same<keyof typeof implementation, keyof typeof Declared>>

export type LoadContracts = [
  Holds<Same<Declared.LoadOptions, Contracts.LoadOptions>>,
  Holds<Same<Declared.LoadResult, Contracts.LoadResult>>,
  Holds<Same<Declared.TlsInfo, Contracts.TlsInfo>>,
  Holds<Same<Declared.Http2Info, Contracts.Http2Info>>,
  Holds<Same<Declared.Protocol, Contracts.Protocol>>,
  Holds<Same<Declared.TlsProtocol, Contracts.TlsProtocol>>,
  Holds<Same<Declared.Segment, Contracts.Segment>>,
  Holds<Same<Declared.Route, Contracts.Route>>,
  Holds<Same<Declared.RouteResult, Contracts.RouteResult>>,
  Holds<Same<Declared.Merged, Contracts.Merged>>,
  Holds<Same<Declared.OpenLoop, Contracts.OpenLoop>>,
  Holds<Same<Declared.TimeRow, Contracts.TimeRow>>,
  Holds<Same<Declared.RequestTiming, Contracts.RequestTiming>>,
  Holds<Same<Declared.AbOutput, Ab.AbOutput>>
]

export type ResultsContracts = [
  Holds<Same<Declared.ResultsFile, Contracts.ResultsFile>>,
  Holds<Same<Declared.RunRecord, Contracts.RunRecord>>,
  Holds<Same<Declared.ProbeRecord, Contracts.ProbeRecord>>,
  Holds<Same<Declared.ProfileSummary, Contracts.ProfileSummary>>,
  Holds<Same<Declared.ProfileEntry, Contracts.ProfileEntry>>,
  Holds<Same<Declared.Capacity, Contracts.Capacity>>,
  Holds<Same<Declared.ScanInfo, Contracts.ScanInfo>>,
  Holds<Same<Declared.SequentialRecord, Contracts.SequentialRecord>>,
  Holds<Same<Declared.PlannedRoute, Contracts.PlannedRoute>>,
  Holds<Same<Declared.ServerMetrics, Contracts.ServerMetrics>>,
  Holds<Same<Declared.LoopBlocks, Contracts.LoopBlocks>>,
  Holds<Same<Declared.ContextSwitches, Contracts.ContextSwitches>>,
  Holds<Same<Declared.ServerMetricsSeries, Contracts.ServerMetricsSeries>>,
  Holds<Same<Declared.ServerSecond, Contracts.ServerSecond>>,
  Holds<Same<Declared.Environment, Contracts.Environment>>,
  Holds<Same<Declared.ServerHandle, Contracts.ServerHandle>>,
  Holds<Same<Declared.RunEvent, Contracts.RunEvent>>,
  Holds<Same<Declared.Experiment, Loader.Experiment>>,
  Holds<Same<Declared.ErrorCode, Errors.ErrorCode>>
]

export type ReportContracts = [
  Holds<Same<Declared.Summary, Stats.Summary>>,
  Holds<Same<Declared.WelchResult, Stats.WelchResult>>,
  Holds<Same<Declared.LatencySummary, Latency.LatencySummary>>,
  Holds<Same<Declared.ProbeSummary, Probes.ProbeSummary>>,
  Holds<Same<Declared.Row, Summaries.Row>>,
  Holds<Same<Declared.ExperimentSummary, Summaries.ExperimentSummary>>,
  Holds<Same<Declared.ReportSummary, Model.ReportSummary>>,
  Holds<Same<Declared.ArticleComparison, Articles.ArticleComparison>>,
  Holds<Same<Declared.WrittenReport, Report.WrittenReport>>
]
