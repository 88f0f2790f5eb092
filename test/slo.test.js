// The goal of a capacity search (lib/analysis/slo.js): every form --slo accepts, every refusal's exact
// line, the canonical text read back, and each bound judged just either side of its edge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseSlo, sloText, meetsSlo, DEFAULT_MAX_ERROR_RATE } from '../lib/analysis/slo.js'
import { InvalidOptionError, USAGE_CODES } from '../lib/errors.js'

/** Figures that meet any goal the tests write. */
const FINE = Object.freeze({ p50Ms: 1, p90Ms: 2, p99Ms: 3, p999Ms: 4, loopP99Ms: 1, errorRate: 0 })

test('each measure, each unit, spaces optional', () => {
  assert.deepEqual(parseSlo('p99<1s'), { terms: [{ measure: 'p99', below: 1000 }] })
  assert.deepEqual(parseSlo('p50<300ms').terms, [{ measure: 'p50', below: 300 }])
  assert.deepEqual(parseSlo('p90 < 1.5s').terms, [{ measure: 'p90', below: 1500 }])
  assert.deepEqual(parseSlo('p99.9<2 s').terms, [{ measure: 'p99.9', below: 2000 }])
  assert.deepEqual(parseSlo('p99<0.5ms').terms, [{ measure: 'p99', below: 0.5 }])
  assert.deepEqual(parseSlo('p99<1m').terms, [{ measure: 'p99', below: 60000 }])
  assert.deepEqual(parseSlo('loop p99<50ms').terms, [{ measure: 'loop p99', below: 50 }])
  assert.deepEqual(parseSlo('  loop   p99 <50ms ').terms, [{ measure: 'loop p99', below: 50 }])
  assert.deepEqual(parseSlo('errors<1%').terms, [{ measure: 'errors', below: 0.01 }])
  assert.deepEqual(parseSlo('errors < 0.5 %').terms, [{ measure: 'errors', below: 0.005 }])
  assert.deepEqual(parseSlo('errors<100%').terms, [{ measure: 'errors', below: 1 }])
})

test('terms joined by commas are kept in one order, whatever order they were given in', () => {
  const slo = parseSlo('errors<1%,loop p99<50ms , p99<1s,p50<100ms')
  assert.deepEqual(slo.terms.map((t) => t.measure), ['p50', 'p99', 'loop p99', 'errors'])
  assert.deepEqual(slo, parseSlo('p50<100ms, p99<1s, loop p99<50ms, errors<1%'))
})

test('the canonical text reads back to the same goal', () => {
  const slo = parseSlo('errors<0.1%, p99.9<2500ms, loop p99<50ms, p90<0.3s, p99<1s, p50<0.5ms')
  assert.equal(sloText(slo), 'p50 < 0.5 ms, p90 < 300 ms, p99 < 1 s, p99.9 < 2.5 s, loop p99 < 50 ms, errors < 0.1%')
  assert.deepEqual(parseSlo(sloText(slo)), slo)
  assert.equal(sloText(parseSlo('p99<1s')), 'p99 < 1 s')
  assert.equal(sloText(parseSlo('p99<999ms')), 'p99 < 999 ms')
  assert.equal(sloText(parseSlo('errors<0.3%')), 'errors < 0.3%', 'no float noise from the percent')
})

test('every refusal is one line naming the token, thrown as a usage error', () => {
  const cases = [
    ['p98<1s', '--slo "p98<1s": "p98" is not a percentile (p50, p90, p99, p99.9)'],
    ['p99.99<1s', '--slo "p99.99<1s": "p99.99" is not a percentile (p50, p90, p99, p99.9)'],
    ['p99<1s, latency<1s', '--slo "p99<1s, latency<1s": "latency" is not a measure (p50, p90, p99, p99.9, loop p99, errors)'],
    ['P99<1s', '--slo "P99<1s": "P99" is not a measure (p50, p90, p99, p99.9, loop p99, errors)'],
    ['loop p50<10ms', '--slo "loop p50<10ms": "loop p50": the loop\'s goal is its p99 ("loop p99<50ms")'],
    ['<1s', '--slo "<1s": a bound without a measure before its "<" (p50, p90, p99, p99.9, loop p99, errors)'],
    ['p99>1s', '--slo "p99>1s": "p99>1s" is not a goal (a measure, "<" and a bound: "p99<1s")'],
    ['p99', '--slo "p99": "p99" is not a goal (a measure, "<" and a bound: "p99<1s")'],
    ['p99<=1s', '--slo "p99<=1s": "p99<=1s": a bound is strict, written "<" ("p99<1s")'],
    ['p99<300', '--slo "p99<300": "300" needs a unit (300ms or 300s)'],
    ['p99<1sec', '--slo "p99<1sec": "1sec" is not a duration (300ms, 1s, 1.5s)'],
    ['p99<-1s', '--slo "p99<-1s": "-1s" is not a duration (300ms, 1s, 1.5s)'],
    ['p99<1%', '--slo "p99<1%": "1%" is not a duration (300ms, 1s, 1.5s)'],
    ['p99<', '--slo "p99<": "" is not a duration (300ms, 1s, 1.5s)'],
    ['p99<0ms', '--slo "p99<0ms": "0ms" must be above 0'],
    ['errors<0.01', '--slo "errors<0.01": "0.01" is not a percentage (1%, 0.5%)'],
    ['errors<1s', '--slo "errors<1s": "1s" is not a percentage (1%, 0.5%)'],
    ['errors<0%', '--slo "errors<0%": "0%" must be above 0%'],
    ['errors<100.5%', '--slo "errors<100.5%": "100.5%" is over 100%'],
    ['p99<1s, p99<2s', '--slo "p99<1s, p99<2s": "p99" is given twice'],
    ['p99<1s,', '--slo "p99<1s,": an empty goal between commas'],
    ['', '--slo "": no goal (write one such as "p99<1s", "loop p99<50ms" or "errors<1%")'],
    ['  ', '--slo "  ": no goal (write one such as "p99<1s", "loop p99<50ms" or "errors<1%")']
  ]
  for (const [expr, line] of cases) {
    assert.throws(() => parseSlo(expr), (err) => {
      assert.ok(err instanceof InvalidOptionError, expr)
      assert.ok(USAGE_CODES.has(err.code), `${expr}: a usage error, so the CLI exits 2`)
      assert.equal(err.message, line)
      assert.ok(!err.message.includes('\n'))
      return true
    })
  }
})

test('each latency bound is strict: just under it meets it, at it fails with the figure', () => {
  const goal = parseSlo('p99<1s')
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 999.9 }), { ok: true, failed: [] })
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1000 }), { ok: false, failed: ['p99 1 s >= 1 s'] })
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1423.7 }).failed, ['p99 1.42 s >= 1 s'])
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1000, p50Ms: 5000 }).failed, ['p99 1 s >= 1 s'], 'only the terms the goal names')

  const each = parseSlo('p50<100ms, p90<200ms, p99.9<2s, loop p99<50ms')
  const at = { ...FINE, p50Ms: 100, p90Ms: 200, p999Ms: 2000, loopP99Ms: 50 }
  assert.deepEqual(meetsSlo(each, at).failed, ['p50 100 ms >= 100 ms', 'p90 200 ms >= 200 ms', 'p99.9 2 s >= 2 s', 'loop p99 50 ms >= 50 ms'])
  const under = { ...FINE, p50Ms: 99.99, p90Ms: 199.99, p999Ms: 1999.99, loopP99Ms: 49.99 }
  assert.deepEqual(meetsSlo(each, under), { ok: true, failed: [] })
})

test('a failing figure is never written below the bound it failed', () => {
  // three significant figures would write 1 s, four 1.004 s: both below 1.0044 s
  const goal = parseSlo('p99<1004.4ms')
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1004.46 }).failed, ['p99 1.0045 s >= 1.0044 s'])
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1004.4 }).failed, ['p99 1.0044 s >= 1.0044 s'])
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: 1423.7 }).failed, ['p99 1.42 s >= 1.0044 s'])
})

test('the error rate: strict at the bound given, and at 1% when the goal names none', () => {
  const named = parseSlo('p99<1s, errors<5%')
  assert.equal(meetsSlo(named, { ...FINE, errorRate: 0.0499 }).ok, true)
  assert.deepEqual(meetsSlo(named, { ...FINE, errorRate: 0.05 }).failed, ['errors 5% >= 5%'])
  assert.equal(meetsSlo(named, { ...FINE, errorRate: 0.03 }).ok, true, 'a named bound replaces the default')

  const unnamed = parseSlo('p99<1s')
  assert.equal(DEFAULT_MAX_ERROR_RATE, 0.01)
  assert.equal(meetsSlo(unnamed, { ...FINE, errorRate: 0.0099 }).ok, true)
  assert.deepEqual(meetsSlo(unnamed, { ...FINE, errorRate: 0.01 }).failed, ['errors 1% >= 1% (the bound when the goal names no error rate)'])
  assert.deepEqual(meetsSlo(unnamed, { ...FINE, p99Ms: 2000, errorRate: 0.25 }).failed,
    ['p99 2 s >= 1 s', 'errors 25% >= 1% (the bound when the goal names no error rate)'])
})

test('a figure the step has not got fails its term rather than passing it', () => {
  const goal = parseSlo('p99<1s, loop p99<50ms')
  assert.deepEqual(meetsSlo(goal, { ...FINE, loopP99Ms: null }).failed, ['loop p99 not measured'])
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: null }).failed, ['p99 not measured'])
  assert.deepEqual(meetsSlo(goal, { ...FINE, p99Ms: NaN }).failed, ['p99 not measured'])
  assert.equal(meetsSlo(parseSlo('p99<1s'), { ...FINE, loopP99Ms: null }).ok, true, 'a loop the goal does not name is not needed')
})
