// What `--profile` does to the window it measures: an app that blocks nothing (test/fixtures/apps/heap-app.js,
// "hello" on every route) run with the profile on and off, a fresh process per run, interleaved, and its
// loop max (ServerMetrics.eventLoopDelay.max) and blocking spans in each window. Starting V8's profiler
// holds the app's loop while it walks the heap (about 10 ms in a bare app, 100 ms and more with a large
// one); the runner starts it before the warm-up, so neither side's window should see it. Run for a bare
// heap and a large one (HEAP_OBJECTS: about 150 MB for a million objects); medians and ranges, one run
// proving nothing on a shared machine.
//
// Usage: node bench/profile-stall.js [--heap-objects 0,1000000] [--runs 6] [--requests 200] [--concurrency 2]
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { runExperiments } from '../lib/run/runner.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    'heap-objects': { type: 'string', default: '0,1000000' },
    runs: { type: 'string', default: '6' },
    requests: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '2' }
  }
})
const heaps = values['heap-objects'].split(',').map(Number)
const server = { command: 'node --expose-gc test/fixtures/apps/heap-app.js', name: 'heap-app', cwd: root }
const experiment = validateExperiment({
  name: 'profile-stall',
  title: 'an idle app\'s loop with the CPU profile on and off',
  baseline: `off ${heaps[0]}`,
  server,
  load: { requests: Number(values.requests), concurrency: Number(values.concurrency), keepAlive: true },
  variants: heaps.flatMap((objects) => ['off', 'on'].map((side) => ({
    label: `${side} ${objects}`,
    path: '/',
    config: { strategy: side, workload: String(objects) },
    server: { ...server, env: { HEAP_OBJECTS: String(objects) }, profile: side === 'on' }
  })))
}, 'bench/profile-stall.js')

/** @param {number[]} xs */
function median (xs) {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

const outDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-profile-stall-'))
try {
  const { results } = await runExperiments({ experiments: [experiment], runs: Number(values.runs), outDir, calibrate: false })
  process.stdout.write(`heap-app.js, ${values.runs} runs each, -n ${values.requests} -c ${values.concurrency} -k, Node ${process.versions.node}, ` +
    `${os.availableParallelism()} cores, load average ${os.loadavg()[0].toFixed(1)} at the end\n`)
  process.stdout.write('side     heap objects  heap MiB  loop max ms: median (range)   runs with a span  spans at the start\n')
  for (const objects of heaps) {
    for (const side of ['off', 'on']) {
      const runs = results.runs.filter((r) => r.label === `${side} ${objects}` && r.server)
      const max = runs.map((r) => r.server.eventLoopDelay.max)
      const spanned = runs.filter((r) => r.server.loopBlocks.spans.length > 0).length
      // a span from the window's first 10 ms: what a stall at its opening looked like
      const atStart = runs.filter((r) => r.server.loopBlocks.spans.some(([from]) => from < 10)).length
      const heapMiB = median(runs.map((r) => r.server.memory.heapUsedBytes / 2 ** 20))
      const figure = `${median(max).toFixed(1)} (${Math.min(...max).toFixed(1)}-${Math.max(...max).toFixed(1)})`
      process.stdout.write(`${side.padEnd(9)}${String(objects).padStart(12)}  ${heapMiB.toFixed(0).padStart(8)}  ${figure.padEnd(28)}  ` +
        `${`${spanned} of ${runs.length}`.padStart(16)}  ${`${atStart} of ${runs.length}`.padStart(18)}\n`)
    }
  }
} finally {
  await rm(outDir, { recursive: true, force: true })
}
