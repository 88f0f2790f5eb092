// The physical ceiling's calibration (lib/run/calibrate.js): several independent timings, each in a
// fresh child (lib/run/calibrate-child.js), kept with their spread, so that an efficiency over 100%
// can be told apart from the calibration's own noise (issue 10, item 5).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import { calibrate, CALIBRATION_REPEATS } from '../lib/run/calibrate.js'

test('calibrate times the operation in several children and keeps every timing with the spread', async () => {
  const cal = await calibrate({ op: 'readfile', bytes: 64 * 1024 })
  assert.equal(CALIBRATION_REPEATS, 5)
  assert.equal(cal.timings.length, CALIBRATION_REPEATS)
  for (const t of cal.timings) {
    assert.ok(t.opMs > 0, `opMs ${t.opMs}`)
    assert.ok(t.samples >= 3, `samples ${t.samples}`)
    assert.ok(t.cpuMs >= 0, `cpuMs ${t.cpuMs}`)
  }
  const sorted = cal.timings.map((t) => t.opMs).sort((a, b) => a - b)
  assert.equal(cal.opMs, sorted[2], 'the median of five timings')
  assert.equal(cal.opMsMin, sorted[0])
  assert.equal(cal.opMsMax, sorted[4])
  assert.equal(cal.samples, cal.timings.reduce((n, t) => n + t.samples, 0))
  assert.equal(cal.usableCores, os.availableParallelism())
  assert.equal(cal.ceilingRps, cal.usableCores * 1000 / cal.opMs)
  assert.equal(cal.ceilingLowRps, cal.usableCores * 1000 / cal.opMsMax)
  assert.equal(cal.ceilingHighRps, cal.usableCores * 1000 / cal.opMsMin)
  assert.ok(cal.ceilingLowRps <= cal.ceilingRps && cal.ceilingRps <= cal.ceilingHighRps)
  assert.equal(cal.opCpuMsMin, Math.min(...cal.timings.map((t) => t.cpuMs)))
  assert.equal(cal.unit, 'read/s')
})

test('repeats: an even count takes the mean of the middle two', async () => {
  const cal = await calibrate({ op: 'readfile', bytes: 64 * 1024 }, { repeats: 2 })
  assert.equal(cal.timings.length, 2)
  assert.equal(cal.opMs, (cal.timings[0].opMs + cal.timings[1].opMs) / 2)
})
