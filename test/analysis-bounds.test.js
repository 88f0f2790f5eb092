// The bound model (lib/analysis/bounds.js): which constraint binds each strategy on machines of
// several shapes, and the rate it allows, at the edges where one constraint takes over from another.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { strategyBound } from '../lib/analysis/bounds.js'

/** @param {string} strategy @param {Partial<import('../lib/analysis/bounds.js').Shape>} shape @param {number} [workMs] @param {number} [httpMs] */
function bound (strategy, shape, workMs = 80, httpMs = 1.2) {
  const r = strategyBound({ strategy, workMs, httpMs, shape: { cores: 2, pool: 4, workers: null, inFlight: 20, ...shape } })
  assert.equal(r.why, null)
  return /** @type {import('../lib/analysis/bounds.js').Bound} */ (r.bound)
}

test('work on the main thread is bound by the main thread, whatever the cores', () => {
  for (const cores of [1, 2, 16]) {
    const b = bound('sync', { cores })
    assert.equal(b.name, 'main thread')
    assert.equal(b.predictedRps, 1000 / 81.2)
    assert.match(String(b.lever), /off the event loop/)
  }
  assert.equal(bound('fake-async', { cores: 16 }).name, 'main thread')
})

test('libuv pool work: the pool, the cores or the requests in flight, whichever is fewer', () => {
  // 16 cores, the default pool of 4: the pool binds (the 16-core machine's async: 4 x 12.5 = 50 req/s)
  const b16 = bound('async', { cores: 16 })
  assert.equal(b16.name, '4 pool threads')
  assert.equal(b16.predictedRps, 50)
  assert.match(String(b16.lever), /raise UV_THREADPOOL_SIZE \(4 of 16 cores\)/)
  // 2 cores: the cores bind, the HTTP work counted on them too
  const b2 = bound('async', { cores: 2 })
  assert.equal(b2.name, '2 cores')
  assert.equal(b2.predictedRps, 2000 / 81.2)
  // 1 core (taskset -c 0)
  assert.equal(bound('async', { cores: 1 }).name, '1 core')
  // pools of 1 to 16 on 16 cores: the pool binds up to the cores, then the cores
  assert.equal(bound('async', { cores: 16, pool: 1 }).name, '1 pool thread')
  assert.equal(bound('async', { cores: 16, pool: 1 }).predictedRps, 1000 / 80)
  assert.equal(bound('async', { cores: 16, pool: 15 }).name, '15 pool threads')
  assert.equal(bound('async', { cores: 16, pool: 16 }).name, '16 cores', 'a pool as large as the machine shares it with the main thread')
  assert.equal(bound('async', { cores: 16, pool: 32 }).name, '16 cores')
  // fewer requests in flight than threads: each waits for none
  const few = bound('async', { cores: 16, pool: 16, inFlight: 3 })
  assert.equal(few.name, '3 in flight')
  assert.equal(few.predictedRps, 3000 / 80)
})

test('a cheap operation is bound by the HTTP work on the main thread', () => {
  const b = bound('async', { cores: 16, pool: 16 }, 0.5, 0.25)
  assert.equal(b.name, 'main thread')
  assert.equal(b.predictedRps, 4000)
  // at the edge: the main thread's 1 / httpMs against the pool's k / workMs
  assert.equal(bound('async', { cores: 16, pool: 4 }, 4, 1.01).name, 'main thread')
  assert.equal(bound('async', { cores: 16, pool: 4 }, 4, 0.99).name, '4 pool threads')
})

test('a worker pool: the workers, the cores or the requests in flight', () => {
  assert.equal(bound('worker', { cores: 16, workers: 3 }).name, '3 workers')
  assert.equal(bound('worker', { cores: 2, workers: 3 }).name, '2 cores')
  assert.equal(bound('worker', { cores: 16, workers: 16, inFlight: 20 }).name, '16 cores')
})

test('no bound without the figures it needs, and the reason', () => {
  const shape = { cores: 2, pool: 4, workers: null, inFlight: 20 }
  assert.deepEqual(strategyBound({ strategy: 'sync', workMs: null, httpMs: 1, shape }), { bound: null, why: 'the work was not calibrated' })
  assert.deepEqual(strategyBound({ strategy: 'sync', workMs: 80, httpMs: null, shape }), { bound: null, why: 'the HTTP work on the main thread was not measured' })
  assert.deepEqual(strategyBound({ strategy: 'my-app', workMs: 80, httpMs: 1, shape }), { bound: null, why: 'where "my-app" does its work is not known' })
})

// --- the bounds of a results file's configurations (experimentBounds), its projection (projectBound),
// the verdicts they give and the sweeps' claims (lib/report/hypotheses.js) ---
import { readFileSync } from 'node:fs'
import { experimentBounds, mainThreadMs, projectBound, calibrationDoubts, shapeOf } from '../lib/analysis/bounds.js'
import { summarizeResults } from '../lib/report/model.js'
import { predict } from '../lib/cli/predict.js'

const sixteen = JSON.parse(readFileSync(new URL('./fixtures/results-16-cores-seed-bcrypt.json', import.meta.url), 'utf8'))

/**
 * A measured run of one configuration, cloned from the 16-core fixture's, its figures replaced.
 * @param {object} o
 * @param {string} o.label @param {Record<string, any>} o.config @param {number} o.rps
 * @param {{ elu?: number, windowMs?: number, requests?: number, mainThreadCpuMs?: number|null }|null} [o.server]
 * @param {string} [o.experiment] @param {number} [o.repeat]
 */
function run ({ label, config, rps, server = {}, experiment = 'x', repeat = 1 }) {
  const base = structuredClone(sixteen.runs[1])
  return {
    ...base,
    id: `${experiment}/${label}#${repeat}`,
    experiment,
    label,
    repeat,
    config: { workload: 'bcrypt', requests: 100, concurrency: 20, keepAlive: true, ...config },
    load: { ...base.load, requestsPerSecond: rps, concurrency: config.concurrency ?? 20 },
    server: server === null ? null : { ...base.server, elu: 0.05, windowMs: 5000, requests: 100, ...server },
    serverEnv: { ...base.serverEnv, uvThreadpoolSize: null }
  }
}

/** @param {number} cores @param {Partial<Record<string, number>>} [more] */
const calibration = (cores, more = {}) => ({ ...sixteen.experiments[0].calibration, usableCores: cores, opMs: 80, opMsMin: 80, opMsMax: 84, opCpuMsMin: 81, ...more })

/** @param {ReturnType<typeof run>[]} runs */
const inputs = (runs) => runs.map((r) => ({ label: r.label, runs: [r], rps: r.load.requestsPerSecond }))

test('the 16-core fixture: sync bound by the main thread, async by its 4 pool threads at about 96%', () => {
  const [summary] = summarizeResults(sixteen)
  const [sync, async] = summary.rows
  assert.equal(sync.bound?.bound?.name, 'main thread')
  assert.equal(async.bound?.bound?.name, '4 pool threads')
  assert.equal(async.bound?.httpFrom, 'its event loop')
  // async's HTTP work: its event loop's busy time over its 750 requests, about 1.2 ms
  assert.ok(Math.abs(/** @type {number} */ (async.bound?.httpMs) - 1.236) < 0.01)
  assert.equal(sync.bound?.httpFrom, "async's event loop")
  const share = /** @type {number} */ (async.bound?.ofBound)
  assert.ok(share > 0.94 && share < 0.97, `async at ${share} of its bound`)
  assert.ok(/** @type {number} */ (sync.bound?.ofBound) > 0.95)
  assert.match(summary.verdict, /async is bound by UV_THREADPOOL_SIZE \(4 of 16 cores; 95% of its 50\.4 req\/s\): raise it to use more cores/)
  assert.match(summary.verdict, /sync is bound by the main thread \(98% of its 12\.4 req\/s\): move the work off the event loop/)
})

test('1 core (taskset -c 0) and 2 cores: the cores bind async, the main thread sync', () => {
  for (const cores of [1, 2]) {
    const b = experimentBounds(inputs([
      run({ label: 'sync', config: { strategy: 'sync' }, rps: 12, server: { elu: 1, windowMs: 8000 } }),
      run({ label: 'async', config: { strategy: 'async' }, rps: 12 * cores, server: { mainThreadCpuMs: 100 } })
    ]), calibration(cores))
    assert.equal(b.get('sync')?.bound?.name, 'main thread')
    assert.equal(b.get('async')?.bound?.name, cores === 1 ? '1 core' : '2 cores')
    // 1 ms of HTTP work a request, from the main thread's CPU time rather than its ELU
    assert.equal(b.get('async')?.httpMs, 1)
    assert.equal(b.get('async')?.bound?.predictedRps, cores * 1000 / 81)
  }
})

test('pools of 1 to 16 on 2 and 16 cores: the pool binds below the cores, the cores from there', () => {
  for (const cores of [2, 16]) {
    const runs = [1, 2, 4, 8, 16].map((pool) => run({ label: `async pool=${pool}`, config: { strategy: 'async', threadpoolSize: pool }, rps: 10, server: { mainThreadCpuMs: 100 } }))
    const b = experimentBounds(inputs(runs), calibration(cores))
    for (const pool of [1, 2, 4, 8, 16]) {
      const name = b.get(`async pool=${pool}`)?.bound?.name
      assert.equal(name, pool < cores ? `${pool} pool thread${pool === 1 ? '' : 's'}` : `${cores} cores`, `pool ${pool} on ${cores} cores`)
    }
  }
})

test('a strategy on the loop takes its HTTP work from a sibling off the loop, else the HTTP calibration, else none and why', () => {
  const sync = run({ label: 'sync', config: { strategy: 'fake-async' }, rps: 12, server: { elu: 1 } })
  const none = experimentBounds(inputs([sync]), calibration(2)).get('sync')
  assert.equal(none?.bound, null)
  assert.match(String(none?.why), /^the HTTP work on the main thread was not measured \(its event loop runs the work too/)
  const http = { httpMs: 0.5, route: '/__syncbench/health', timings: [{ httpMs: 0.5, requests: 400, busyMs: 200 }], httpMsMin: 0.5, httpMsMax: 0.5 }
  const calibrated = experimentBounds(inputs([sync]), { ...calibration(2), http }).get('sync')
  assert.equal(calibrated?.httpFrom, 'the HTTP calibration')
  assert.equal(calibrated?.bound?.predictedRps, 1000 / 80.5)
  // a sibling of another workload does not count
  const other = run({ label: 'wait async', config: { strategy: 'async', workload: 'wait' }, rps: 100 })
  assert.equal(experimentBounds(inputs([sync, other]), calibration(2)).get('sync')?.bound, null)
  assert.match(String(experimentBounds(inputs([sync, other]), calibration(2)).get('wait async')?.why), /its work \(wait\) was not calibrated \(bcrypt was\)/)
})

test('an old results file: no server metrics, no calibration, an unknown strategy: no bound, with the reason', () => {
  const old = run({ label: 'async', config: { strategy: 'async' }, rps: 20, server: null })
  assert.match(String(experimentBounds(inputs([old]), calibration(2)).get('async')?.why), /HTTP work on the main thread was not measured \(no server metrics\)/)
  assert.equal(experimentBounds(inputs([old]), undefined).get('async')?.why, 'the work was not calibrated')
  const mine = run({ label: '/hash', config: { strategy: 'hash' }, rps: 20 })
  assert.equal(experimentBounds(inputs([mine]), calibration(2)).get('/hash')?.why, 'where "hash" does its work is not known')
  // ELU x window when the server did not measure its main thread's CPU time
  assert.equal(mainThreadMs([(run({ label: 'a', config: {}, rps: 1, server: { elu: 0.1, windowMs: 1000, requests: 50, mainThreadCpuMs: undefined } }))]), 2)
})

test('calibration timings over 1.5x apart make the bound uncertain, in the table and the verdict', () => {
  assert.deepEqual(calibrationDoubts({ opMsMin: 10, opMsMax: 23 }), ['work timings 2.3x apart'])
  assert.deepEqual(calibrationDoubts({ opMsMin: 10, opMsMax: 14 }), [])
  const results = structuredClone(sixteen)
  Object.assign(results.experiments[0].calibration, { opMsMin: 40, opMsMax: 92 })
  const [summary] = summarizeResults(results)
  assert.deepEqual(summary.rows[1].bound?.doubts, ['work timings 2.3x apart'])
  assert.match(summary.verdict, /the calibration disagrees with itself \(work timings 2\.3x apart\): these bounds are uncertain/)
})

test('the calibration\'s spread at its edge: 1.5x apart is one figure, just over is a doubt, for the work and the HTTP timings', () => {
  assert.deepEqual(calibrationDoubts({ opMsMin: 10, opMsMax: 15 }), [])
  assert.deepEqual(calibrationDoubts({ opMsMin: 10, opMsMax: 15.1 }), ['work timings 1.5x apart'])
  const http = (/** @type {number} */ max) => ({ httpMs: 1, route: '/', timings: [], httpMsMin: 1, httpMsMax: max })
  assert.deepEqual(calibrationDoubts({ http: http(1.5) }), [])
  assert.deepEqual(calibrationDoubts({ http: http(1.6) }), ['HTTP timings 1.6x apart'])
  assert.deepEqual(calibrationDoubts({ opMsMin: 0, opMsMax: 15 }), [], 'no spread from a fastest timing of 0')
})

test('the main thread\'s ms per request: its CPU time only when every run measured it, else every run\'s ELU; the shape\'s defaults', () => {
  const cpu = run({ label: 'a', config: {}, rps: 1, server: { mainThreadCpuMs: 100 } })
  const elu = run({ label: 'a', config: {}, rps: 1, server: { elu: 0.1, windowMs: 1000, requests: 50, mainThreadCpuMs: undefined } })
  assert.equal(mainThreadMs([cpu]), 1)
  // the first's 0.05 x 5000 ms and the second's 0.1 x 1000 ms over their 150 requests
  assert.equal(mainThreadMs([cpu, elu]), 350 / 150)
  assert.equal(mainThreadMs([run({ label: 'a', config: {}, rps: 1, server: { requests: 0 } })]), null)
  assert.deepEqual(shapeOf([], 2), { cores: 2, pool: 4, workers: null, inFlight: Infinity })
})

test('over HTTP/2 the requests in flight are the connections times their streams', () => {
  const h1 = run({ label: 'a', config: {}, rps: 1 })
  const h2 = structuredClone(h1)
  h2.load.concurrency = 1
  h2.load.http2 = { streams: 10, serverStreamsLimit: 0, connections: 1, connectMs: { min: 0, mean: 0, max: 0 }, firstByteMs: { min: 0, mean: 0, max: 0 }, streamsPerConnection: { min: 0, mean: 0, max: 0 }, goaways: {}, resets: {} }
  assert.equal(shapeOf([h2], 2).inFlight, 10)
  h2.load.http2.streams = 1
  assert.equal(shapeOf([h2], 2).inFlight, 1)
})

test('predict: the measured costs on another shape', () => {
  const [summary] = summarizeResults(sixteen)
  const async = /** @type {import('../lib/analysis/bounds.js').RowBound} */ (summary.rows[1].bound)
  const pool16 = projectBound('async', async, { pool: 16 })
  assert.equal(pool16.bound?.name, '16 cores')
  const two = projectBound('async', async, { cores: 2 })
  assert.equal(two.bound?.name, '2 cores')
  assert.equal(projectBound('async', async, { pool: 2 }).bound?.predictedRps, 2000 / async.workMs)
  assert.equal(projectBound('sync', /** @type {any} */ (summary.rows[0].bound), { cores: 64 }).bound?.name, 'main thread')
})

test('predict --workers: a worker strategy projected on more workers, bound by them below the cores, by the cores from there', () => {
  // measured with 2 workers on 16 cores: its own bound is its 2 workers
  const measured = /** @type {import('../lib/analysis/bounds.js').RowBound} */ (experimentBounds(inputs([
    run({ label: 'worker', config: { strategy: 'worker', poolSize: 2 }, rps: 24, server: { mainThreadCpuMs: 100 } })
  ]), calibration(16)).get('worker'))
  assert.equal(measured.bound?.name, '2 workers')
  assert.equal(measured.workMs, 80)
  const eight = projectBound('worker', measured, { workers: 8 })
  assert.equal(eight.bound?.name, '8 workers')
  assert.equal(eight.bound?.predictedRps, 8000 / 80)
  assert.equal(eight.shape?.workers, 8)
  // either side of the cores: 15 workers bind, 16 share the machine with the main thread
  assert.equal(projectBound('worker', measured, { workers: 15 }).bound?.name, '15 workers')
  assert.equal(projectBound('worker', measured, { workers: 16 }).bound?.name, '16 cores')
  // fewer cores than the workers asked for: the cores bind
  assert.equal(projectBound('worker', measured, { workers: 8, cores: 4 }).bound?.name, '4 cores')
  // the pool's size is not the workers': UV_THREADPOOL_SIZE leaves a worker strategy's bound alone
  assert.equal(projectBound('worker', measured, { pool: 16 }).bound?.name, '2 workers')
})

/**
 * A results file of one experiment built from runs (the 16-core fixture's file around them).
 * @param {string} name @param {ReturnType<typeof run>[]} runs @param {Record<string, string>} comparisons @param {object} cal
 */
function resultsOf (name, runs, comparisons, cal) {
  return {
    ...structuredClone(sixteen),
    experiments: [{ name, title: name, description: '', axes: [], runs: 2, table: 'generic', labels: [...new Set(runs.map((r) => r.label))], comparisons, calibration: cal }],
    runs: runs.map((r) => ({ ...r, experiment: name, id: `${name}/${r.label}#${r.repeat}` }))
  }
}

test('predict on a results file: --workers moves a worker configuration only; "here" stays its bound on its own machine', () => {
  const runs = [
    run({ label: 'worker', config: { strategy: 'worker', poolSize: 2 }, rps: 24, server: { mainThreadCpuMs: 100 } }),
    run({ label: 'async', config: { strategy: 'async' }, rps: 48, server: { mainThreadCpuMs: 100 } })
  ]
  const results = /** @type {any} */ (resultsOf('workers', runs, {}, calibration(16)))
  const [worker, async] = predict(results, { workers: 8 })
  assert.deepEqual([worker.label, worker.bound, worker.predictedRps, worker.here], ['worker', '8 workers', 100, 25])
  assert.deepEqual([async.label, async.bound, async.predictedRps, async.here], ['async', '4 pool threads', 50, 50])
})

test('the threadpool sweep\'s claim: held on 2 cores, only beyond the cores on 16', () => {
  /** @param {number} cores @param {(pool: number) => number} rps */
  const sweep = (cores, rps) => {
    const pools = [1, 2, 4, 8, 16]
    const runs = pools.flatMap((pool) => [1, 2].map((repeat) => run({ label: `async pool=${pool}`, repeat, config: { strategy: 'async', threadpoolSize: pool }, rps: rps(pool) * (repeat === 1 ? 0.99 : 1.01), server: { mainThreadCpuMs: 100 } })))
    const comparisons = Object.fromEntries(pools.slice(1).map((p) => [`async pool=${p}`, 'async pool=1']))
    return summarizeResults(/** @type {any} */ (resultsOf('threadpool-sweep', runs, comparisons, calibration(cores))))[0].verdict
  }
  assert.match(sweep(2, (p) => 12.5 * Math.min(p, 2)), /claim "cores, not the pool, set the ceiling" held here: beyond 2 cores a larger pool adds nothing \(async pool=16 1\.00x async pool=2\); below 2 cores the pool sets it/)
  assert.match(sweep(16, (p) => 12.5 * Math.min(p, 16)), /claim "cores, not the pool, set the ceiling" held only beyond the cores here: .*so with the default pool of 4 on 16 cores the pool, not the cores, sets the ceiling: raise UV_THREADPOOL_SIZE to 16/)
  assert.match(sweep(32, (p) => 12.5 * p), /not tested here: every pool is below the 32 cores, and async pool=16 served 16\.00x async pool=1, so the pool set it/)
})

test('the delay sweep\'s and the concurrency sweep\'s claims, each held or not and why', () => {
  const http = { httpMs: 0.5, route: '/__syncbench/health', timings: [{ httpMs: 0.5, requests: 400, busyMs: 200 }], httpMsMin: 0.5, httpMsMax: 0.5 }
  const delays = [0, 1, 2, 5, 10]
  /** @param {(d: number) => number} rps */
  const delaySweep = (rps) => {
    const runs = delays.flatMap((delay) => [1, 2, 3].map((repeat) => run({ label: `fake-async delay=${delay}`, repeat, config: { strategy: 'fake-async', workload: 'readfile', delay }, rps: rps(delay) * (1 + (repeat - 2) * 0.01), server: { elu: 1 } })))
    const comparisons = Object.fromEntries(delays.slice(1).map((d) => [`fake-async delay=${d}`, 'fake-async delay=0']))
    return summarizeResults(/** @type {any} */ (resultsOf('delay-sweep', runs, comparisons, { ...calibration(2, { opMs: 5, opMsMin: 5, opMsMax: 5.5, opCpuMsMin: 5 }), op: 'readfile', http })))[0].verdict
  }
  assert.match(delaySweep((d) => (d === 10 ? 90 : 100)), /seed 002's note: "no difference from 1 to 5 ms" held here \(1\.00x of 0 ms\), "at 10 ms we lose" held here \(10\.0 req\/s lost, 0\.90x fake-async delay=0, p = [\d.e-]+ \*+\): every delay still runs the read on the main thread/)
  assert.match(delaySweep((d) => (d === 2 ? 80 : 100)), /"no difference from 1 to 5 ms" did not hold here: fake-async delay=2 0\.80x fake-async delay=0.*"at 10 ms we lose" did not hold here/)

  /** @param {number} cores @param {number} gain */
  const concurrency = (cores, gain) => {
    const runs = [1, 20].flatMap((c) => ['sync', 'async'].flatMap((s) => [1, 2, 3].map((repeat) => run({ label: `${s} c=${c}`, repeat, config: { strategy: s, concurrency: c }, rps: (s === 'async' && c > 1 ? 12 * gain : 12) * (1 + (repeat - 2) * 0.01) }))))
    const comparisons = { 'async c=1': 'sync c=1', 'async c=20': 'sync c=20' }
    return summarizeResults(/** @type {any} */ (resultsOf('concurrency-sweep', runs, comparisons, calibration(cores))))[0].verdict
  }
  assert.match(concurrency(2, 2), /claim "async gains only with requests in flight to overlap" held here: async c=1 1\.00x sync c=1, p = 1, async c=20 2\.00x sync c=20, p = [\d.e-]+ \*+: one request in flight is one hash at a time whatever the strategy; with more, async runs min\(4 pool threads, 2 cores\) = 2 at once/)
  assert.match(concurrency(1, 1), /not testable here: .* = 1 at once, so async cannot gain at any concurrency/)
})

test('the strategies experiment\'s claim: the loop\'s p99 delay on the loop above every one off it, per workload', () => {
  /** @param {number} asyncP99 */
  const verdict = (asyncP99) => {
    const p99 = { sync: 60, 'fake-async': 55, async: asyncP99, worker: 3 }
    const runs = Object.entries(p99).map(([s, ms]) => {
      const r = run({ label: `bcrypt ${s}`, config: { strategy: s }, rps: 10 })
      r.server.eventLoopDelay = { ...r.server.eventLoopDelay, p99: ms }
      return r
    })
    return summarizeResults(/** @type {any} */ (resultsOf('strategies', runs, {}, calibration(2))))[0].verdict
  }
  assert.match(verdict(2), /claim "sync blocks, async does not" held here for every way out: bcrypt: loop p99 at least 55\.0 ms on the loop \(bcrypt fake-async\), at most 3\.00 ms off it \(bcrypt worker\)/)
  assert.match(verdict(70), /claim "sync blocks, async does not" did not hold here for every way out: bcrypt: loop p99 down to 55\.0 ms on the loop \(bcrypt fake-async\), up to 70\.0 ms off it \(bcrypt async\)/)
})
