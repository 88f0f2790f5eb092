// Child process of lib/run/calibrate.js: times one operation alone, on a fresh V8, and prints
// { opMs, cpuMs, samples } as JSON. A child so the runner's own JIT state and heap do not colour the figure.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { watchParent } from '../lab/parent-watch.js'

const [op, param, parent] = process.argv.slice(2)
// A runner that is killed must not leave this child behind (a large readfile or a high bcrypt cost can
// run for a while): the watchdog thread ends it once the runner (argv's third value) is gone.
watchParent({ parent })
// Enough calls for one timing, bounded in time: at least 3 calls, then stop after ~150 ms or 200 calls. The
// parent runs several such children (lib/run/calibrate.js): independent timings say more about the noise
// than more calls in one process, whose JIT state and CPU frequency they all share.
const MIN_CALLS = 3
const MAX_CALLS = 200
const BUDGET_MS = 150

async function operation () {
  if (op === 'bcrypt' || op === 'bcryptjs') {
    const bcrypt = (await import(op)).default
    const cost = Number(param)
    return () => bcrypt.hashSync('secret', cost)
  }
  if (op === 'readfile') {
    const { ensureDataFile } = await import('../lab/data-file.js')
    const file = await ensureDataFile(Number(param))
    return () => readFileSync(file)
  }
  throw new Error(`unknown calibration op "${op}"`)
}

const fn = await operation()
fn() // warm-up: first call pays for lazy compilation and the page cache
// The fast end of the calls (10th percentile; the fastest of a few slow ones): a ceiling is an upper
// bound, and another process on the machine only ever makes a call slower, never faster.
const times = []
const start = performance.now()
// CPU time as well as wall time: a busy machine stretches a call's wall time but not the CPU time it
// costs, which is what a server's CPU time is checked against (lib/analysis/summarize.js's flags).
const cpu0 = process.cpuUsage()
while (times.length < MIN_CALLS || (times.length < MAX_CALLS && performance.now() - start < BUDGET_MS)) {
  const t0 = performance.now()
  fn()
  times.push(performance.now() - t0)
}
const cpu = process.cpuUsage(cpu0)
times.sort((a, b) => a - b)
const opMs = times[Math.floor((times.length - 1) * 0.1)]
const cpuMs = (cpu.user + cpu.system) / 1000 / times.length
process.stdout.write(JSON.stringify({ opMs, cpuMs, samples: times.length }) + '\n')
