// The routes of a mix (LoadOptions.routes) over a configuration's runs: each route's requests, errors
// and latency, its runs' histograms added as the configuration's own are (lib/analysis/latency.js).
// One slow route taxes every other route sharing the server's event loop: the cheap route's latency
// under the mix is what that tax costs its users.
import { summarizeLatency } from './latency.js'
import { mean } from './stats.js'

/**
 * @typedef {object} RouteSummary
 * @property {string} name
 * @property {string} method
 * @property {string} path
 * @property {number} weight
 * @property {number} connections   per run (the first run's: every run shares them out alike)
 * @property {number} requests      completed, all runs together
 * @property {number} failed
 * @property {number} non2xx
 * @property {Record<string, number>} statusCodes  all runs together
 * @property {number} requestsPerSecond  mean over the runs of its requests / the run's time
 * @property {import('./latency.js').LatencySummary|null} latency
 */

/**
 * Each route of the runs' mix, in the order given; null when the runs loaded no mix.
 * @param {import('./summarize.js').MeasuredRun[]} runs  measured runs of one configuration
 * @returns {RouteSummary[]|null}
 */
export function summarizeRoutes (runs) {
  const mixed = runs.filter((r) => Array.isArray(r.load.routes) && r.load.routes.length > 0)
  if (mixed.length === 0) return null
  const first = /** @type {import('../types.js').RouteResult[]} */ (mixed[0].load.routes)
  return first.map((route) => {
    const parts = mixed.flatMap((run) => {
      const own = run.load.routes?.find((r) => r.name === route.name)
      return own ? [{ run, own }] : []
    })
    /** @type {Record<string, number>} */
    const statusCodes = {}
    for (const { own } of parts) for (const [code, n] of Object.entries(own.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n
    const asRuns = routeRuns(mixed, route.name)
    return {
      name: route.name,
      method: route.method,
      path: route.path,
      weight: route.weight,
      connections: route.connections,
      requests: parts.reduce((n, p) => n + p.own.completeRequests, 0),
      failed: parts.reduce((n, p) => n + p.own.failedRequests, 0),
      non2xx: parts.reduce((n, p) => n + p.own.non2xxResponses, 0),
      statusCodes,
      requestsPerSecond: mean(asRuns.map((r) => r.load.requestsPerSecond)),
      latency: summarizeLatency(asRuns)
    }
  })
}

/**
 * The names of the routes the runs' mix loaded, in the order given ([] without a mix).
 * @param {import('./summarize.js').MeasuredRun[]} runs
 */
export function mixRouteNames (runs) {
  return runs.find((r) => Array.isArray(r.load.routes))?.load.routes?.map((route) => route.name) ?? []
}

/**
 * One route's requests of each run as runs of their own (its requests per second over the run's time,
 * its latency and histogram), so that every rule of combining runs (lib/analysis/latency.js, the
 * compare rows) applies to a route as to a configuration.
 * @param {import('./summarize.js').MeasuredRun[]} runs
 * @param {string} name
 * @returns {import('./summarize.js').MeasuredRun[]}
 */
export function routeRuns (runs, name) {
  return runs.flatMap((run) => {
    const own = run.load.routes?.find((r) => r.name === name)
    if (!own) return []
    const seconds = run.load.timeTakenSeconds
    const part = {
      id: `${run.id} ${own.name}`,
      load: { completeRequests: own.completeRequests, requestsPerSecond: seconds > 0 ? own.completeRequests / seconds : 0, latency: own.latency, latencyHistogram: own.latencyHistogram }
    }
    // the fields every rule of combining runs reads; the rest of a run is not a route's
    const asRun = /** @type {import('./summarize.js').MeasuredRun} */ (/** @type {unknown} */ (part))
    return [asRun]
  })
}

/**
 * "POST /login 401 x20; GET /health failed x2": each route's answers that were not 2xx, for the
 * reason an invalid mix run gives; '' when every route's were.
 * @param {import('../types.js').RouteResult[]} routes
 */
export function routeStatusText (routes) {
  return routes.flatMap((r) => {
    const bad = [statusText(r.statusCodes), r.failedRequests > 0 ? `failed x${r.failedRequests}` : ''].filter(Boolean).join(', ')
    return bad ? [`${r.name} ${bad}`] : []
  }).join('; ')
}

/**
 * "401 x20, 500 x2": the status codes that were not 2xx; '' without any.
 * @param {Record<string, number>|undefined} statusCodes
 */
export function statusText (statusCodes) {
  return Object.entries(statusCodes ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${code} x${n}`).join(', ')
}
