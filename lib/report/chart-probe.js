// The probe's chart: how long a request to the server's cheapest route (/__syncbench/health, 10 req/s
// in an open loop, corrected for coordinated omission) waited while each configuration was loaded. The
// p99 is the point, p50 the ring, the max the tick, on a log axis: a blocked event loop puts the sync
// configurations' dots seconds to the right of the async ones'.
import { shortTitle, joinTitle } from './chart-data.js'
import { colorsFor, formatMs, WIDTH } from './chart-style.js'
import { percentileStrip } from './chart-latency.js'
import { isMeasured } from '../analysis/summarize.js'
import { describeLatencyCombine } from '../analysis/latency.js'

/**
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./charts.js').Drawing|null}
 */
export function probeChart ({ experiment, runs, references = [], note, id, name, probeOf }) {
  /** @type {Map<string, import('../types.js').RunRecord[]>} */
  const byLabel = new Map()
  for (const r of [...runs, ...references]) {
    if (!isMeasured(r) || !r.probe) continue
    const list = byLabel.get(r.label)
    if (list) list.push(r)
    else byLabel.set(r.label, [r])
  }
  const data = [...byLabel].flatMap(([label, rs]) => {
    const probe = probeOf(rs.filter(isMeasured))
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
  const few = data.some((d) => d.p99IsMax)
  return (width = WIDTH) => ({
    id: `${id}-probe`,
    experiment: name,
    kind: 'probe',
    title: joinTitle(shortTitle(experiment), `what the load did to everyone else (${data[0].path})`),
    subtitle: `Latency of a ${data[0].rate} req/s open-loop probe on the same server's cheapest route while each configuration was loaded, ` +
      'measured from each request\'s intended send time (corrected for coordinated omission), log scale: the time any other request waited for the event loop. ' +
      `Dot: p99; ring: p50; tick: max${few ? ' (a p99 over fewer than 100 probe requests is their max)' : ''}. ${[...new Set(data.map((d) => d.how))].join('; ')}.`,
    note,
    ...percentileStrip({
      data,
      names,
      color,
      width,
      xLabel: `${data[0].path} latency →`,
      // room for the printed p99, wider than the event-loop chart's max
      room: 110,
      p99Title: (d) => `${d.series}: p99 ${formatMs(d.p99)} (${d.count} probe requests)`,
      label: (d) => `p99 ${formatMs(d.p99)}${d.p99IsMax ? ' (max)' : ''}`
    })
  })
}
