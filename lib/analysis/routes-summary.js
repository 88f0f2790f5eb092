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
    // each route's requests as runs of their own: the one rule of merging latency
    const asRuns = parts.map(({ run, own }) => /** @type {import('./summarize.js').MeasuredRun} */ (/** @type {unknown} */ ({
      id: `${run.id} ${own.name}`,
      load: { completeRequests: own.completeRequests, latency: own.latency, latencyHistogram: own.latencyHistogram }
    })))
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
      requestsPerSecond: mean(parts.map(({ run, own }) => run.load.timeTakenSeconds > 0 ? own.completeRequests / run.load.timeTakenSeconds : 0)),
      latency: summarizeLatency(asRuns)
    }
  })
}

/**
 * "POST /login: 401 x20; GET /health: 200 x180": each route's answers that were not 2xx, for the
 * reason an invalid mix run gives; '' when every route's were.
 * @param {import('../types.js').RouteResult[]} routes
 */
export function routeStatusText (routes) {
  return routes.flatMap((r) => {
    const bad = [statusText(r.statusCodes), r.failedRequests > 0 ? `failed x${r.failedRequests}` : ''].filter(Boolean).join(', ')
    return bad ? [`${r.name}: ${bad}`] : []
  }).join('; ')
}

/**
 * "401 x20, 500 x2": the status codes that were not 2xx; '' without any.
 * @param {Record<string, number>|undefined} statusCodes
 */
export function statusText (statusCodes) {
  return Object.entries(statusCodes ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${code} x${n}`).join(', ')
}
