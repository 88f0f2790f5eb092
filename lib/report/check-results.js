// The shape a report needs from a results file, checked before any chart module loads (so a bad file
// fails fast, in one line, without paying for Plot and resvg).
import { ResultsError } from '../errors.js'

/**
 * What the report reads beyond readResultsFile's schema check, so a hand-edited or truncated file
 * gets one line naming the bad entry instead of a TypeError deep in a chart.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} [file]  named in the message
 */
export function checkResults (results, file = 'results file') {
  /** @param {string} what */
  const bad = (what) => new ResultsError(`${file}: ${what}`)
  /** @param {unknown} v */
  const object = (v) => v !== null && typeof v === 'object'
  if (!Array.isArray(results?.experiments)) throw bad('no "experiments" list')
  if (!Array.isArray(results.runs)) throw bad('no "runs" list')
  for (const [i, e] of results.experiments.entries()) {
    if (typeof e?.name !== 'string') throw bad(`experiments[${i}] has no name`)
  }
  for (const [i, r] of results.runs.entries()) {
    if (typeof r?.experiment !== 'string' || typeof r.label !== 'string' || !object(r.config)) {
      throw bad(`runs[${i}] is not a run record (it needs experiment, label and config)`)
    }
    const l = r.load
    if (l && (typeof l.requestsPerSecond !== 'number' || !object(l.latency) || !object(l.percentiles) || !object(l.connectionTimes))) {
      throw bad(`runs[${i}] (${r.id}) has an incomplete "load"`)
    }
    const m = r.server
    if (m && (!object(m.eventLoopDelay) || !object(m.cpu) || !object(m.memory))) {
      throw bad(`runs[${i}] (${r.id}) has an incomplete "server"`)
    }
  }
}
