// The probe in words and in a table: how long a request to the server's cheapest route waited while
// each configuration was loaded (lib/run/prober.js measured it, lib/analysis/probe-summary.js combined the
// runs). The sentence goes at the end of the experiment's verdict, so the terminal, summary.md and
// report.html all say it; the table follows the latency table.
import { formatMs } from './chart-style.js'
import { describeLatencyCombine } from '../analysis/latency.js'
import { formatNumber } from '../format.js'
import { redactUrl } from '../redact.js'

/** @typedef {import('../analysis/summarize.js').Row} Row */
/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */

/** The probe percentiles shown: p50, p99 and the max. */
const SHOWN = ['p50', 'p90', 'p99']

/**
 * The rows whose probe measured a latency, with it.
 * @param {Row[]} rows
 */
function probed (rows) {
  return rows.flatMap((r) => r.probe?.latency ? [{ row: r, probe: r.probe, latency: r.probe.latency }] : [])
}

/**
 * What names a configuration in the sentence: its route when the routes differ (/sync, /async), else
 * its label (seed-readfile's three servers all answer /).
 * @param {Row[]} rows
 * @returns {(r: Row) => string}
 */
function namer (rows) {
  // a mix's URL names its first route only: the mix is its label
  // starred again for a file written before syncbench starred credentials (lib/redact.js)
  const pathOf = (/** @type {Row} */ r) => r.runs[0]?.load.routes ? '' : redactUrl(r.runs[0]?.load.document?.path ?? '')
  const paths = new Set(rows.map(pathOf))
  return paths.size === rows.length && !paths.has('') ? pathOf : (r) => r.label
}

/**
 * p99 of the probe's merged histograms, or its max where the requests are too few for a p99.
 * @param {import('../analysis/latency.js').LatencySummary} latency
 * @returns {{ ms: number, what: string }}
 */
export function probeTail (latency) {
  const p99 = latency.percentiles.find((q) => q.key === 'p99')
  return p99 && !p99.isMax ? { ms: p99.ms, what: 'p99' } : { ms: latency.max, what: 'max' }
}

/**
 * "probe: while /sync was loaded, /__syncbench/health waited p99 1.32 s; under /async, 3.05 ms (10 req/s,
 * corrected for coordinated omission)", the configuration that stalled it most first; '' without a probe.
 * With more than 3 configurations, the worst and the best only.
 * @param {ExperimentSummary} s
 * @returns {string}
 */
export function probeSentence (s) {
  const list = probed(s.rows)
  if (list.length === 0) return ''
  const name = namer(list.map((p) => p.row))
  let sorted = [...list].sort((a, b) => probeTail(b.latency).ms - probeTail(a.latency).ms)
  if (sorted.length > 3) sorted = [sorted[0], sorted[sorted.length - 1]]
  const [worst, ...rest] = sorted
  const tail = probeTail(worst.latency)
  const others = rest.map((p) => {
    const t = probeTail(p.latency)
    return `under ${name(p.row)}, ${t.what === tail.what ? '' : `${t.what} `}${formatMs(t.ms)}`
  })
  const errors = list.reduce((n, p) => n + p.probe.errors, 0)
  return `probe: while ${name(worst.row)} was loaded, ${worst.probe.path} waited ${tail.what} ${formatMs(tail.ms)}` +
    (others.length ? `; ${others.join('; ')}` : '') +
    ` (${Number(worst.probe.rate.toPrecision(3))} req/s, corrected for coordinated omission${errors ? `; ${errors} probe error${errors === 1 ? '' : 's'}` : ''})`
}

/**
 * The probe's table: per configuration, its requests, errors and corrected percentiles.
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the measured ones
 * @returns {import('./tables.js').Table|null}
 */
export function probeTable (s, rows) {
  const list = rows.flatMap((r) => r.probe ? [{ row: r, probe: r.probe }] : [])
  if (list.length === 0) return null
  const first = list[0].probe
  const cell = (/** @type {import('../analysis/latency.js').LatencySummary|null} */ l, /** @type {string} */ key) => {
    const q = l?.percentiles.find((x) => x.key === key)
    if (!q) return ''
    return q.isMax ? `${formatNumber(q.ms)} (max)` : formatNumber(q.ms)
  }
  return {
    title: `${s.name}: probe, ${Number(first.rate.toPrecision(3))} req/s to ${first.path} during each run (latency corrected for coordinated omission, ms)`,
    columns: ['Configuration', 'probe requests', 'errors', 'late', ...SHOWN.map((k) => `${k} ms`), 'max ms', 'runs combined'],
    align: ['left', 'right', 'right', 'right', ...SHOWN.map(() => /** @type {const} */ ('right')), 'right', 'left'],
    rows: list.map(({ row, probe }) => [row.label, String(probe.requests), String(probe.errors), String(probe.late), ...SHOWN.map((k) => cell(probe.latency, k)),
      probe.latency ? formatNumber(probe.latency.max) : '', probe.latency ? describeLatencyCombine(probe.latency) : 'no probe result']),
    // the title says ms
    short: ['Configuration', 'requests', 'errors', 'late', ...SHOWN, 'max', 'runs combined']
  }
}
