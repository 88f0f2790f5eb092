// Variants run outside a sweep (sweep: false) are reference lines beside it: readFileSync beside the
// fake-async delays on the article's server, one event loop beside the worker pools.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { loadFixture, svgDom } from './fixtures/report-helpers.js'

/** The fixture's delay sweep, with three readFileSync runs that have no delay (run once, outside the sweep). */
function withReference () {
  const results = loadFixture()
  const experiment = results.experiments.find((e) => e.name === 'delay-sweep')
  experiment.labels.push('readFileSync')
  const template = results.runs.find((r) => r.experiment === 'delay-sweep')
  for (const [i, rps] of [300, 310, 320].entries()) {
    const { delay, ...config } = template.config
    results.runs.push({ ...template, id: `delay-sweep/readFileSync#${i + 1}`, label: 'readFileSync', repeat: i + 1, config: { ...config, strategy: 'sync' }, load: { ...template.load, requestsPerSecond: rps } })
  }
  return results
}

test('the delay sweep keeps its delay axis and draws readFileSync, run outside it, as a dashed reference line', () => {
  const results = withReference()
  const spec = chartsFor(results).find((s) => s.id === 'delay-sweep-throughput')
  const d = svgDom(renderChartSvg(spec))
  assert.deepEqual(d.texts('x-axis tick label'), ['0', '1', '2', '5', '10'], 'still a sweep over the delay')
  assert.ok(d.legend().includes('readFileSync: 310 req/s'), d.legend().join(' | '))
  assert.equal(d.marks('dot').length, 5, 'the reference is no point of the sweep')
  const dashed = spec.plot.marks.filter((m) => m.constructor.name === 'RuleY' && m.data?.[0] === 310)
  assert.equal(dashed.length, 1, 'a rule at readFileSync\'s mean')
})
