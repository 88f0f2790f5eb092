// The probe's chart: how long a request to the server's cheapest route (/__syncbench/health, 10 req/s
// in an open loop, corrected for coordinated omission) waited while each configuration was loaded. The
// p99 is the point, p50 the ring, the max the tick, on a log axis: a blocked event loop puts the sync
// configurations' dots seconds to the right of the async ones'.
import * as Plot from '@observablehq/plot'
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, niceLogTicks, formatMs, INK } from './chart-style.js'
import { WIDTH } from './chart-kinds.js'
import { isMeasured } from '../run/summarize.js'
import { summarizeProbe } from '../run/probe-summary.js'
import { describeLatencyCombine } from '../run/latency.js'

/**
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./svg.js').ChartSpec|null}
 */
export function probeChart ({ experiment, runs, references = [], note, id, name, width = WIDTH }) {
  /** @type {Map<string, import('../types.js').RunRecord[]>} */
  const byLabel = new Map()
  for (const r of [...runs, ...references]) {
    if (!isMeasured(r) || !r.probe) continue
    const list = byLabel.get(r.label)
    if (list) list.push(r)
    else byLabel.set(r.label, [r])
  }
  const data = [...byLabel].flatMap(([label, rs]) => {
    const probe = summarizeProbe(rs.filter(isMeasured))
    const latency = probe?.latency
    if (!probe || !latency) return []
    const at = (/** @type {string} */ key) => latency.percentiles.find((q) => q.key === key)
    const p99 = at('p99')
    return [{ series: label, strategy: String(rs[0].config?.strategy ?? ''), p50: at('p50')?.ms ?? latency.max, p99: p99?.ms ?? latency.max, p99IsMax: !p99 || p99.isMax, max: latency.max, count: probe.requests, how: describeLatencyCombine(latency), rate: probe.rate, path: probe.path }]
  }).filter((d) => d.p50 > 0 && d.max > 0)
  if (data.length === 0) return null
  const names = data.map((d) => d.series)
  const strategies = new Map(data.map((d) => [d.series, d.strategy]))
  const colors = colorsFor(names, (n) => strategies.get(n) ?? '', { unique: false })
  /** @param {{ series: string }} d */
  const color = (d) => colors.get(d.series)
  const values = data.flatMap((d) => [d.p50, d.p99, d.max])
  const lo = Math.min(...values) / 1.5
  const longest = Math.max(...names.map((n) => n.length))
  const marginLeft = Math.min(width * 0.3, 16 + longest * 7.2)
  const inner = width - marginLeft - 28
  // room right of the largest value for its printed p99, as the event-loop chart keeps
  const top = Math.max(...values) * 1.05
  const hi = lo * (top / lo) ** (inner / Math.max(inner - 110, inner / 2))
  const few = data.some((d) => d.p99IsMax)
  return {
    id: `${id}-probe`,
    experiment: name,
    kind: 'probe',
    title: joinTitle(shortTitle(experiment), `what the load did to everyone else (${data[0].path})`),
    subtitle: `Latency of a ${data[0].rate} req/s open-loop probe on the same server's cheapest route while each configuration was loaded, ` +
      'measured from each request\'s intended send time (corrected for coordinated omission), log scale: the time any other request waited for the event loop. ' +
      `Dot: p99; ring: p50; tick: max${few ? ' (a p99 over fewer than 100 probe requests is their max)' : ''}. ${[...new Set(data.map((d) => d.how))].join('; ')}.`,
    note,
    legend: [
      { label: 'p50', color: INK, shape: 'ring' },
      { label: 'p99', color: INK, shape: 'dot' },
      { label: 'max', color: INK, shape: 'tick' }
    ],
    plot: {
      width,
      height: 56 + names.length * 44,
      marginTop: 8,
      marginLeft,
      marginRight: 28,
      marginBottom: 40,
      color: { type: 'identity' },
      x: { type: 'log', domain: [lo, hi], ticks: niceLogTicks(lo, hi), tickFormat: formatMs, grid: true, label: `${data[0].path} latency →`, labelAnchor: 'center' },
      y: { domain: names, label: null, tickSize: 0 },
      marks: [
        Plot.ruleY(data, { y: 'series', x1: 'p50', x2: 'max', stroke: color, strokeWidth: 3, strokeOpacity: 0.5 }),
        Plot.tickX(data, { y: 'series', x: 'max', stroke: color, strokeWidth: 2.5, insetTop: 10, insetBottom: 10 }),
        Plot.dot(data, { y: 'series', x: 'p99', fill: color, r: 6, title: (d) => `${d.series}: p99 ${formatMs(d.p99)} (${d.count} probe requests)` }),
        Plot.dot(data, { y: 'series', x: 'p50', fill: 'white', stroke: color, strokeWidth: 2, r: 5.5, title: (d) => `${d.series}: p50 ${formatMs(d.p50)}` }),
        Plot.text(data, { y: 'series', x: 'max', text: (d) => `p99 ${formatMs(d.p99)}${d.p99IsMax ? ' (max)' : ''}`, dx: 8, textAnchor: 'start', fill: INK, fontSize: 11 })
      ]
    }
  }
}
