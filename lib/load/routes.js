// A mix of routes in one run (LoadOptions.routes): each connection carries one route's requests for
// the whole run, the connections shared out by weight, and each route counts its own requests,
// statuses and latency histogram beside the run's totals. Real traffic is a mix: one slow route
// taxes every other route sharing the server's event loop, and the mix shows by how much.
//
// Connections rather than requests are shared out: a connection that drew the slow route waits for
// it while the cheap route's connections keep sending, as their users would; requests drawn per
// request would leave every connection waiting on the slow route sooner or later.
import { Row } from './request-times.js'

/** @typedef {import('../types.js').Route} Route */

/** Keys a route may have. */
const ROUTE_KEYS = new Set(['path', 'method', 'name', 'headers', 'body', 'contentType', 'weight'])
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const CR_LF = /[\r\n]/

/**
 * Whether `p` is a request path as every route, --path, --request and --probe-path take it: one "/" first
 * (where a path is resolved as a URL, as many servers resolve theirs, "//x/y" names host x, path /y),
 * no white space (the request line would break).
 * @param {unknown} p
 * @returns {p is string}
 */
export function isRequestPath (p) {
  return typeof p === 'string' && p.startsWith('/') && !p.startsWith('//') && !/\s/.test(p)
}

/**
 * What is wrong with one route, or null.
 * @param {unknown} value
 * @returns {string|null}
 */
export function routeProblem (value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a route { path, method?, name?, headers?, body?, contentType?, weight? }'
  const r = /** @type {Record<string, unknown>} */ (value)
  const unknown = Object.keys(r).find((key) => !ROUTE_KEYS.has(key))
  if (unknown !== undefined) return `must be a route: "${unknown}" is not one of ${[...ROUTE_KEYS].join(', ')}`
  if (!isRequestPath(r.path)) return 'must be a route whose path starts with one / and has no white space'
  if (r.method !== undefined && (typeof r.method !== 'string' || !TOKEN.test(r.method))) return 'must be a route whose method is an HTTP method token'
  if (r.name !== undefined && (typeof r.name !== 'string' || r.name === '' || CR_LF.test(r.name))) return 'must be a route whose name is a non-empty line'
  if (r.headers !== undefined && (!Array.isArray(r.headers) || !r.headers.every((h) => typeof h === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:/.test(h) && !CR_LF.test(h)))) return 'must be a route whose headers are lines "Name: value"'
  if (r.body !== undefined && !Buffer.isBuffer(r.body)) return 'must be a route whose body is a Buffer'
  if (r.contentType !== undefined && (typeof r.contentType !== 'string' || CR_LF.test(r.contentType))) return 'must be a route whose content type is one line'
  if (r.weight !== undefined && (typeof r.weight !== 'number' || !Number.isFinite(r.weight) || r.weight <= 0)) return 'must be a route whose weight is a positive number'
  return null
}

/** Methods whose requests carry the run's body (-p, -u) when their route has none of its own. */
export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/** The method a route is sent with: its own, else POST with a body, else GET. @param {Route} r */
export function routeMethod (r) {
  return r.method ?? (r.body ? 'POST' : 'GET')
}

/** A route's name: its own, else "METHOD path". @param {Route} r */
export function routeName (r) {
  return r.name ?? `${routeMethod(r)} ${r.path}`
}

/**
 * The route of each of `concurrency` connections: shared out in proportion to the weights (the
 * largest remainders first, ties to the earlier route), then every route given at least one (taken
 * from the route with the most); routes in order along the connections.
 * @param {number} concurrency at least weights.length
 * @param {readonly number[]} weights positive
 * @returns {number[]} a route index per connection
 */
export function assignRoutes (concurrency, weights) {
  const total = weights.reduce((a, b) => a + b, 0)
  const quotas = weights.map((w) => (w / total) * concurrency)
  const counts = quotas.map(Math.floor)
  let left = concurrency - counts.reduce((a, b) => a + b, 0)
  const order = quotas.map((q, i) => ({ i, rest: q - Math.floor(q) })).sort((a, b) => b.rest - a.rest || a.i - b.i)
  for (let k = 0; left > 0; k++, left--) counts[order[k].i]++
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] > 0) continue
    const most = counts.indexOf(Math.max(...counts))
    counts[most]--
    counts[i]++
  }
  return counts.flatMap((count, i) => Array.from({ length: count }, () => i))
}

/** What one route of a run counted; added across threads and shards as the run's counts are. */
export class RouteCounts {
  /** @param {{ name: string, method: string, path: string, weight: number }} route */
  constructor ({ name, method, path, weight }) {
    this.name = name
    this.method = method
    this.path = path
    this.weight = weight
    /** connections carrying it */
    this.connections = 0
    /** completed requests */
    this.done = 0
    /** completed requests that had no usable response: an error, a malformed or timed-out response */
    this.failed = 0
    /** responses whose status is not 2xx */
    this.non2xx = 0
    /** @type {Record<string, number>} count per status code */
    this.statusCodes = {}
    /** each completed request's latency, ms (corrected under -R, as LoadResult.latency) */
    this.latency = new Row()
  }

  /**
   * A completed request of this route.
   * @param {number} ms its latency @param {number} status its response's status, -1 when it had none
   */
  record (ms, status) {
    this.done++
    this.latency.record(ms)
    if (status < 0) {
      this.failed++
      return
    }
    const key = String(status).padStart(3, '0')
    this.statusCodes[key] = (this.statusCodes[key] ?? 0) + 1
    if (status < 200 || status > 299) this.non2xx++
  }

  /** Add another share's counts of the same route (a worker's, cloned across threads). @param {RouteCounts} other */
  add (other) {
    this.connections += other.connections
    this.done += other.done
    this.failed += other.failed
    this.non2xx += other.non2xx
    for (const [k, v] of Object.entries(other.statusCodes)) this.statusCodes[k] = (this.statusCodes[k] ?? 0) + v
    this.latency.add(other.latency)
  }
}
