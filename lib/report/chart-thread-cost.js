// The thread-cost experiment's own chart: context switches per request, voluntary and involuntary,
// against the worker pool's size, with the one event loop's as dashed reference lines. The readers'
// claim under seed 002 is that threads cost context switches an event loop avoids: this draws it.
import { summarizeBy, shortTitle, joinTitle } from './chart-data.js'
import { sweepChart } from './chart-kinds.js'

/**
 * @param {import('./charts.js').ChartContext} ctx
 * @returns {import('./charts.js').Drawing|null}
 */
export function threadCostChart (ctx) {
  const { experiment, runs, axis } = ctx
  if (axis === null) return null
  /** @type {[string, (m: import('../types.js').ContextSwitches) => number|null][]} */
  const kinds = [['voluntary', (c) => c.voluntaryPerRequest], ['involuntary', (c) => c.involuntaryPerRequest]]
  const points = kinds.flatMap(([name, pick]) => summarizeBy(runs, axis, (r) => r.server?.contextSwitches ? pick(r.server.contextSwitches) : undefined)
    .map((p) => ({ ...p, series: `${p.series} ${name}`, strategy: '' })))
  if (points.length === 0) return null
  // the runs outside the sweep (the event loop), one dashed line per kind
  const refs = kinds.flatMap(([name, pick]) => summarizeBy(ctx.references ?? [], null, (r) => r.server?.contextSwitches ? pick(r.server.contextSwitches) : undefined)
    .map((p) => ({ label: `${p.series}: ${p.mean.toFixed(2)} ${name} a request`, value: p.mean })))
  return (width) => sweepChart({
    id: `${ctx.id}-context-switches`,
    experiment: ctx.name,
    width,
    kind: 'thread-cost',
    title: joinTitle(shortTitle(experiment), 'context switches per request'),
    subtitle: 'Context switches of the whole server process (process.resourceUsage(): every thread) per request served, ' +
      'voluntary (a thread waited) and involuntary (the kernel took its core); dashed: the one event loop\'s.',
    note: ctx.note,
    points,
    axis,
    refs,
    repeated: points.some((p) => p.n > 1),
    yLabel: 'context switches / request',
    zero: true
  })
}
