// The probe's figures of a configuration over its repeats (lib/run/prober.js measured them): its
// requests, its errors and its latency percentiles, read from the sum of the runs' probe histograms as
// every cross-run percentile is (lib/analysis/latency.js), never averaged.
import { summarizeLatency } from './latency.js'

/**
 * @typedef {object} ProbeSummary
 * @property {string} path                  the probed route
 * @property {number} rate                  its target requests per second
 * @property {number} runs                  runs whose probe measured something
 * @property {number} requests              probe requests completed, all runs together
 * @property {number} errors                failed or non-2xx probe requests, and probes that could not run
 * @property {number} late                  probe requests sent late: their connection was still busy with
 *                                          the one before (openLoop.lateRequests), all runs
 * @property {import('./latency.js').LatencySummary|null} latency  corrected for coordinated omission
 */

/**
 * @param {import('./summarize.js').MeasuredRun[]} runs  a configuration's measured runs
 * @returns {ProbeSummary|null} null when none of them ran the probe
 */
export function summarizeProbe (runs) {
  const probed = runs.flatMap((r) => r.probe ? [{ run: r, probe: r.probe }] : [])
  if (probed.length === 0) return null
  const loads = probed.flatMap(({ run, probe }) => probe.load ? [{ ...run, load: probe.load }] : [])
  const errors = probed.reduce((n, { probe }) => n + (probe.error ? 1 : 0) + (probe.load ? probe.load.failedRequests + probe.load.non2xxResponses : 0), 0)
  return {
    path: probed[0].probe.path,
    rate: probed[0].probe.rate,
    runs: loads.length,
    requests: loads.reduce((n, r) => n + r.load.completeRequests, 0),
    errors,
    late: loads.reduce((n, r) => n + (r.load.openLoop?.lateRequests ?? 0), 0),
    latency: summarizeLatency(loads)
  }
}
