// Whether a measured run measured what it claims to: a run whose requests failed or were answered with
// errors (a handler that throws answers 500 fast) is invalid. Its req/s is the speed of an error page,
// so it is left out of every figure, ratio and comparison (isMeasured, lib/analysis/summarize.js) and shown
// as "invalid: <reason>" wherever its configuration appears.
import { routeStatusText, statusText } from './routes-summary.js'

/**
 * Why a load result is invalid ("20 of 20 non-2xx", "3 of 20 failed (length 3)", "4 of 4 failed
 * (exceptions 4; RESPONSE_TIMEOUT 4)"), or null when every request succeeded with a 2xx answer.
 * Failures are ab's ("Failed requests", with its kinds), then their causes from `errors`.
 * @param {Pick<import('../types.js').LoadResult, 'failedRequests'|'non2xxResponses'|'completeRequests'|'routes'> & { statusCodes?: Record<string, number>, failures?: Partial<import('../types.js').LoadResult['failures']>, errors?: Record<string, number>, options?: { requests?: number, timelimit?: number } }} load
 * @param {{ statuses?: boolean }} [options]  statuses: name the status codes that were not 2xx ("401 x20"):
 *        a user's own app, whose requests the user wrote (a wrong body, a missing header)
 * @returns {string|null}
 */
export function loadInvalidity (load, { statuses = false } = {}) {
  const failed = load.failedRequests > 0 ? load.failedRequests : 0
  const non2xx = load.non2xxResponses > 0 ? load.non2xxResponses : 0
  if (failed === 0 && non2xx === 0) return null
  // Of the requests asked for (-n); a time-limited run (-t) asks for "up to 50000", so then of those completed.
  const asked = load.options?.requests
  const of = typeof asked === 'number' && asked >= load.completeRequests && !(Number(load.options?.timelimit) > 0) ? asked : load.completeRequests
  const parts = []
  if (failed > 0) {
    const counted = (/** @type {Record<string, unknown>|undefined} */ map) => Object.entries(map ?? {}).filter(([, n]) => typeof n === 'number' && n > 0).map(([kind, n]) => `${kind} ${n}`)
    // ab's kinds, then the causes the engine counted (RESPONSE_TIMEOUT, ECONNRESET, HPE_...): the reason, not only the count
    const kinds = [counted(load.failures), counted(load.errors)].filter((list) => list.length).map((list) => list.join(', '))
    parts.push(`${failed} of ${of} failed${kinds.length ? ` (${kinds.join('; ')})` : ''}`)
  }
  // a mix: which route answered what, so a login that answers 401 is named, not only counted
  const routes = load.routes ? routeStatusText(load.routes) : statuses ? statusText(load.statusCodes) : ''
  if (non2xx > 0) parts.push(`${non2xx} of ${of} non-2xx`)
  return parts.join(', ') + (routes ? `: ${routes}` : '')
}

/**
 * Why a run is invalid, or null. What the runner recorded (`run.invalid`: null under --allow-errors)
 * decides; a file written before runs carried the field is judged from its load result's counts.
 * A failed or interrupted run is not "invalid": it is not measured at all (isMeasured).
 * @param {Pick<import('../types.js').RunRecord, 'load'|'error'> & { invalid?: { reason: string }|null }} run
 * @returns {string|null}
 */
export function invalidReason (run) {
  if (run.invalid !== undefined) return run.invalid === null ? null : String(run.invalid.reason)
  if (run.error || !run.load || run.load.aborted) return null
  return loadInvalidity(run.load)
}
