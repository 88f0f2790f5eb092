// The HTTP/2 head-of-line kind (`table: 'h2-head-of-line'`): a route loaded over one HTTP/2 connection
// of many streams, the probe (lib/run/prober.js) measured on that same connection and on connections
// of its own (axes.probeConnection), for a sync and an async route. Its table puts the four cases side
// by side (the probe's corrected latency, the route's req/s); its verdict says what the probe on the
// load's own connection waited under the sync route against the async one, whichever way it went.
import { formatNumber } from '../../format.js'
import { formatMs } from '../chart-style.js'
import { probeTail } from '../probe.js'
import { invalidCell } from '../phrases.js'
import { generic } from './generic.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */

/** @type {import('../kinds.js').ExperimentKind} */
export const h2HeadOfLine = {
  ...generic,
  name: 'h2-head-of-line',
  table: headOfLineTable,
  verdict: headOfLineVerdict,
  // one connection of streams: req/s against a swept axis says nothing here
  textChart: false
}

/**
 * Where a row's probe went: 'load' (the load's own connection) or 'own'.
 * @param {Row} r
 */
function probeOn (r) {
  return r.runs[0]?.config.probeConnection === 'load' || r.runs[0]?.probe?.sameConnection === true ? 'load' : 'own'
}

/**
 * A row's route, as its config names the strategy (sync, async), else its label.
 * @param {Row} r
 */
function routeOf (r) {
  const strategy = r.runs[0]?.config.strategy
  return typeof strategy === 'string' ? strategy : r.label
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the configurations shown: measured, or all of whose runs are invalid
 * @returns {import('../tables.js').Table}
 */
function headOfLineTable (s, rows) {
  const body = rows.map((r) => {
    if (r.runs.length === 0) return [r.label, '', '', invalidCell(r), '', '', '', '']
    const latency = r.probe?.latency ?? null
    const cell = (/** @type {string} */ key) => {
      const q = latency?.percentiles.find((x) => x.key === key)
      return q ? `${formatNumber(q.ms)}${q.isMax ? ' (max)' : ''}` : ''
    }
    return [r.label, routeOf(r), probeOn(r) === 'load' ? "the load's" : 'its own',
      r.derived.requestsPerSecond.toFixed(2),
      r.probe ? String(r.probe.requests) : '0',
      cell('p50'), cell('p99'), latency ? formatNumber(latency.max) : 'no probe result']
  })
  return {
    title: `${s.name}: the probe (${probeRoute(rows)}) on the load's HTTP/2 connection and on its own (latency corrected for coordinated omission, ms)`,
    columns: ['Configuration', 'route', 'probe connection', 'Req/s', 'probe requests', 'probe p50', 'probe p99', 'probe max'],
    align: ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right'],
    rows: body,
    short: ['Configuration', 'route', 'probe on', 'Req/s', 'probes', 'p50', 'p99', 'max']
  }
}

/** @param {Row[]} rows */
function probeRoute (rows) {
  return rows.find((r) => r.probe)?.probe?.path ?? '/__syncbench/health'
}

/**
 * "on HTTP/2 a sync handler delays every stream of its connection: the probe on the load's own
 * connection waited 612 ms at p99 under sync against 3.1 ms under async (on connections of its own:
 * 598 ms against 2.4 ms)"; when the sync route did not delay it more, the line says that instead.
 * @param {ExperimentSummary} s
 * @returns {string}
 */
export function headOfLineVerdict (s) {
  const measured = s.rows.filter((r) => r.runs.length > 0 && r.probe?.latency)
  /** @param {string} route @param {'load'|'own'} on */
  const find = (route, on) => measured.find((r) => routeOf(r) === route && probeOn(r) === on)
  const sync = find('sync', 'load')
  const async = find('async', 'load')
  if (!sync || !async) return `${s.name}: no verdict: the probe on the load's connection was not measured under both the sync and the async route`
  const tail = (/** @type {Row} */ r) => probeTail(/** @type {import('../../analysis/latency.js').LatencySummary} */ (r.probe?.latency))
  const a = tail(sync)
  const b = tail(async)
  const at = a.what === b.what ? `at ${a.what}` : `at ${a.what} (${b.what} under async)`
  const ownSync = find('sync', 'own')
  const ownAsync = find('async', 'own')
  const own = ownSync && ownAsync ? ` (on connections of its own: ${formatMs(tail(ownSync).ms)} against ${formatMs(tail(ownAsync).ms)})` : ''
  const waits = `the probe on the load's own connection waited ${formatMs(a.ms)} ${at} under sync against ${formatMs(b.ms)} under async${own}`
  return a.ms > b.ms
    ? `${s.name}: on HTTP/2 a sync handler delays every stream of its connection: ${waits}`
    : `${s.name}: here the sync route did not delay the other streams of its connection more than the async one: ${waits}`
}
