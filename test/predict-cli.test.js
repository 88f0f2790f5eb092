// syncbench predict (lib/cli/predict.js) on the 16-core fixture, the bound columns of syncbench report
// on it, and the HTTP calibration (lib/run/calibrate-http.js) against a real server.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helper.js'
import { calibrateHttp, needsHttpCalibration } from '../lib/run/calibrate-http.js'
import { expandExperiment } from '../lib/run/plan.js'
import { experiments } from '../lib/run/experiments.js'

const fixture = fileURLToPath(new URL('./fixtures/results-16-cores-seed-bcrypt.json', import.meta.url))

test('predict: the run\'s own machine, then a pool of 16 and 2 cores', async () => {
  const here = await runCli(['predict', fixture])
  assert.equal(here.code, 0, here.stderr)
  assert.match(here.stdout, /^predicted req\/s on the machine it ran on/)
  assert.match(here.stdout, /^seed-bcrypt +async +48\.1 +50\.4 +50\.4 +4 pool threads$/m)
  assert.match(here.stdout, /^seed-bcrypt +sync +12\.2 +12\.4 +12\.4 +main thread$/m)

  const pool = await runCli(['predict', fixture, '--threadpool', '16', '--json'])
  assert.equal(pool.code, 0, pool.stderr)
  const json = JSON.parse(pool.stdout)
  assert.deepEqual(json.shape, { pool: 16 })
  const async = json.configurations.find((/** @type {any} */ c) => c.label === 'async')
  assert.equal(async.bound, '16 cores')
  assert.ok(async.predictedRps > 190 && async.predictedRps < 200, String(async.predictedRps))
  assert.equal(json.configurations.find((/** @type {any} */ c) => c.label === 'sync').bound, 'main thread')

  const two = JSON.parse((await runCli(['predict', fixture, '--cores', '2', '--json'])).stdout)
  assert.equal(two.configurations[1].bound, '2 cores')
})

test('predict --cores: "bound here" stays the bound on the machine it ran on; the title counts in the singular at 1', async () => {
  const two = await runCli(['predict', fixture, '--cores', '2'])
  assert.equal(two.code, 0, two.stderr)
  assert.match(two.stdout, /^predicted req\/s with 2 cores \(the rest as measured\)$/m)
  // async ran bound by its 4 pool threads on 16 cores (50.4 req/s); on 2 cores the cores bind at 24.8
  assert.match(two.stdout, /^seed-bcrypt +async +48\.1 +50\.4 +24\.8 +2 cores$/m)
  const json = JSON.parse((await runCli(['predict', fixture, '--cores', '2', '--json'])).stdout)
  const async = json.configurations.find((/** @type {any} */ c) => c.label === 'async')
  assert.ok(Math.abs(async.here - 50.4) < 0.05, String(async.here))
  assert.ok(Math.abs(async.predictedRps - 24.8) < 0.05, String(async.predictedRps))
  const one = await runCli(['predict', fixture, '--cores', '1', '--threadpool', '1', '--workers', '1'])
  assert.equal(one.code, 0, one.stderr)
  assert.match(one.stdout, /^predicted req\/s with 1 core, UV_THREADPOOL_SIZE=1, 1 worker \(the rest as measured\)$/m)
  assert.match(one.stdout, /^seed-bcrypt +async +48\.1 +50\.4 +12\.4 +1 core$/m)
  const many = await runCli(['predict', fixture, '--workers', '3'])
  assert.match(many.stdout, /^predicted req\/s with 3 workers \(the rest as measured\)$/m)
})

test('predict: bad input is one line and exit 2; its help fits 80 columns', async () => {
  for (const args of [['--workers', '1.5', fixture], [], ['--bogus', fixture]]) {
    const r = await runCli(['predict', ...args])
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    assert.match(r.stderr, /^syncbench predict: /)
    assert.equal(r.stdout, '')
  }
  const missing = await runCli(['predict', path.join(tmpdir(), 'no-such-results.json')])
  assert.equal(missing.code, 1)
  assert.equal(missing.stderr.trim().split('\n').length, 1)
  const help = await runCli(['predict', '--help'])
  assert.equal(help.code, 0)
  assert.match(help.stdout, /^Usage: syncbench predict <results\.json> \[options\]/)
  for (const line of help.stdout.split('\n')) assert.ok(line.length <= 80, line)
  assert.match((await runCli(['--help'])).stdout, /^ {2}predict +a run's req\/s on another machine shape/m)
})

test('report on the 16-core fixture: async at 95% of its 4 pool threads, named in the verdict', async () => {
  const out = await mkdtemp(path.join(tmpdir(), 'syncbench-bounds-'))
  try {
    const r = await runCli(['report', fixture, '--no-png', '--out', out])
    assert.equal(r.code, 0, r.stderr)
    const md = await readFile(path.join(out, 'summary.md'), 'utf8')
    assert.match(md, /\| bound \| predicted req\/s \| of bound \| of machine \|/)
    assert.match(md, /^\| async \|.*\| 4 pool threads \| 50\.4 \| 95% \| 24% \|$/m)
    assert.match(md, /^\| sync \|.*\| main thread \| 12\.4 \| 98% \| 6% \|$/m)
    assert.match(md, /async is bound by UV_THREADPOOL_SIZE \(4 of 16 cores; 95% of its 50\.4 req\/s\): raise it to use more cores/)
    const html = await readFile(path.join(out, 'report.html'), 'utf8')
    assert.match(html, /4 pool threads/)
  } finally {
    await rm(out, { recursive: true, force: true })
  }
})

test('the HTTP calibration: only where a strategy on the loop has no sibling off it; the real server\'s no-work route timed', async () => {
  const plan = (/** @type {string} */ name) => expandExperiment(/** @type {any} */ (experiments.find((e) => e.name === name)), {})
  assert.equal(needsHttpCalibration(plan('seed-bcrypt')), null, 'async measures it beside sync')
  assert.equal(needsHttpCalibration(plan('threadpool-sweep')), null, 'nothing on the loop')
  const delay = needsHttpCalibration(plan('delay-sweep'))
  assert.equal(delay?.server.app, 'seed-readfile')
  const http = await calibrateHttp(/** @type {NonNullable<typeof delay>} */ (delay))
  assert.equal(http.route, '/__syncbench/health')
  assert.equal(http.timings.length, 3)
  for (const t of http.timings) assert.ok(t.requests === 400 && t.busyMs > 0 && t.httpMs === t.busyMs / t.requests)
  assert.ok(http.httpMsMin <= http.httpMs && http.httpMs <= http.httpMsMax)
})
