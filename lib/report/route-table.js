// The routes of a mix in a table and in words: per configuration that loaded several routes together
// (run --app --mix, an experiment's `mix`), each route's requests, errors and latency from its own
// histogram (lib/analysis/routes-summary.js). The table follows the latency table in the terminal,
// summary.md and report.html; the words are the app verdict's (lib/report/kinds/app.js).
import { describeLatencyCombine } from '../analysis/latency.js'
import { formatNumber } from '../format.js'

/** @typedef {import('../analysis/summarize.js').Row} Row */
/** @typedef {import('../analysis/routes-summary.js').RouteSummary} RouteSummary */

/** The percentiles shown per route. */
const SHOWN = ['p50', 'p90', 'p99']

/**
 * A percentile of a route's latency, "(max)" where its requests are too few for it.
 * @param {import('../analysis/latency.js').LatencySummary|null} latency
 * @param {string} key
 */
function cell (latency, key) {
  const q = latency?.percentiles.find((x) => x.key === key)
  if (!q) return ''
  return q.isMax ? `${formatNumber(q.ms)} (max)` : formatNumber(q.ms)
}

/**
 * The routes' table of an experiment, null when no configuration loaded a mix.
 * @param {import('../analysis/summarize.js').ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {import('./tables.js').Table|null}
 */
export function routesTable (s, rows) {
  const mixed = rows.filter((r) => r.routes !== null && r.routes !== undefined)
  if (mixed.length === 0) return null
  const body = mixed.flatMap((r) => /** @type {RouteSummary[]} */ (r.routes).map((route, i) => [
    i === 0 ? r.label : '',
    route.name,
    String(route.weight),
    String(route.connections),
    String(route.requests),
    route.requestsPerSecond.toFixed(2),
    String(route.non2xx + route.failed),
    ...SHOWN.map((k) => cell(route.latency, k)),
    route.latency ? formatNumber(route.latency.max) : '',
    route.latency ? describeLatencyCombine(route.latency) : ''
  ]))
  return {
    title: `${s.name}: each route of the mix, loaded together (latency per request, ms, from each route's own histogram)`,
    columns: ['Configuration', 'route', 'weight', 'connections', 'requests', 'req/s', 'errors', ...SHOWN.map((k) => `${k} ms`), 'max ms', 'runs combined'],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', ...SHOWN.map(() => /** @type {const} */ ('right')), 'right', 'left'],
    rows: body,
    // the title says ms
    short: ['Configuration', 'route', 'weight', 'conns', 'requests', 'req/s', 'errors', ...SHOWN, 'max', 'runs combined']
  }
}

/**
 * A route's p99 (or its max where its requests are too few).
 * @param {RouteSummary} route
 * @returns {{ ms: number, what: string }|null}
 */
export function routeTail (route) {
  const l = route.latency
  if (!l) return null
  const p99 = l.percentiles.find((q) => q.key === 'p99')
  return p99 && !p99.isMax ? { ms: p99.ms, what: 'p99' } : { ms: l.max, what: 'max' }
}
