// What the CPU profile of `syncbench run --app` costs the app: the same app and route measured with
// the profiler on and off, a fresh process per run, interleaved, and the ratio of their throughputs
// with its 95% confidence interval (the runner's own statistics), and the app's CPU time per request
// (its metrics window: user + system over requests), which a busy shared machine disturbs less than
// throughput. The answer decides whether the profile is on by default (docs/run.md, "Where the event loop went").
//
// Usage: node bench/profile-overhead.js [--app "node test/fixtures/apps/express-app.js"] [--path /hash-async]
//        [--runs 8] [--requests 2000] [--concurrency 10]
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { runExperiments } from '../lib/run/runner.js'
import { validateExperiment } from '../lib/run/experiment-loader.js'
import { summarizeResults } from '../lib/report/model.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    app: { type: 'string', default: 'node test/fixtures/apps/express-app.js' },
    path: { type: 'string', multiple: true, default: ['/hash-async', '/hash'] },
    runs: { type: 'string', default: '8' },
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '10' }
  }
})
const server = { command: values.app, name: 'app', cwd: root }
const experiment = validateExperiment({
  name: 'profile-overhead',
  title: 'CPU profile on vs off',
  baseline: 'off',
  server,
  load: { requests: Number(values.requests), concurrency: Number(values.concurrency), keepAlive: true },
  variants: values.path.flatMap((p) => [
    { label: `off ${p}`, path: p, config: { strategy: 'off', workload: p }, server: { ...server, profile: false } },
    { label: `on ${p}`, path: p, config: { strategy: 'on', workload: p }, server: { ...server, profile: true } }
  ])
}, 'bench/profile-overhead.js')
const outDir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-profile-overhead-'))
try {
  const { results } = await runExperiments({ experiments: [experiment], runs: Number(values.runs), outDir, calibrate: false })
  const [summary] = summarizeResults(results)
  process.stdout.write(`${values.app}, ${values.runs} runs each, -n ${values.requests} -c ${values.concurrency} -k, Node ${process.versions.node}, ${os.availableParallelism()} cores\n`)
  process.stdout.write(summary.verdict + '\n')
  for (const p of values.path) {
    /** @param {string} label */
    const cpuPerRequest = (label) => {
      const xs = results.runs.filter((r) => r.label === label && r.server && r.server.requests > 0)
        .map((r) => (r.server.cpu.userMs + r.server.cpu.systemMs) / r.server.requests)
      return { mean: xs.reduce((a, x) => a + x, 0) / xs.length, min: Math.min(...xs), n: xs.length }
    }
    const off = cpuPerRequest(`off ${p}`)
    const on = cpuPerRequest(`on ${p}`)
    process.stdout.write(`${p}: app CPU per request ${on.mean.toFixed(3)} ms profiled, ${off.mean.toFixed(3)} ms not (mean of ${on.n} and ${off.n} runs): ${((on.mean / off.mean - 1) * 100).toFixed(1)}%; ` +
      `least of the runs ${on.min.toFixed(3)} vs ${off.min.toFixed(3)} ms: ${((on.min / off.min - 1) * 100).toFixed(1)}%\n`)
  }
} finally {
  await rm(outDir, { recursive: true, force: true })
}
