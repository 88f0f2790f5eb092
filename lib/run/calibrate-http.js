// The HTTP half of a request's cost: the experiment's own server answering its no-work route
// (/__syncbench/health), timed alone, as main-thread ms per request. A strategy whose work runs on the
// event loop cannot tell its HTTP work from its work (its loop does both); this figure can, and with the
// work's calibration it gives that strategy's bound (lib/analysis/bounds.js). Timed only where no
// strategy off the loop, beside it in the experiment, measures the same through its own loop.
import { spawnServer } from '../lab/spawn.js'
import { HEALTH_PATH } from '../lab/http-host.js'
import { builtinTool } from './tools/builtin.js'
import { track } from './children.js'
import { WHERE } from '../analysis/bounds.js'
import { ExperimentError } from '../errors.js'

/** Requests of one timing, and the timings: a few hundred ms in all on 2 cores. */
const REQUESTS = 400
const REPEATS = 3

/**
 * The configuration whose server the HTTP calibration loads, or null when none needs it: the
 * experiment's strategies on the event loop all have a sibling off the loop with the same workload, or
 * their server is not one syncbench's apps (a workload module, a user's command).
 * @param {import('./plan.js').Configuration[]} configurations
 * @returns {import('./plan.js').Configuration|null}
 */
export function needsHttpCalibration (configurations) {
  const where = (/** @type {import('./plan.js').Configuration} */ c) => WHERE[String(c.config.strategy)] ?? null
  const onLoop = configurations.filter((c) => where(c) === 'main' && !configurations.some((o) => where(o) !== null && where(o) !== 'main' && o.config.workload === c.config.workload))
  return onLoop.find((c) => c.server.app !== undefined && !c.server.workload && !c.server.command) ?? null
}

/**
 * Time the no-work route of one configuration's server: REPEATS timings of REQUESTS requests, each its
 * main thread's CPU time (else its event loop's busy time) over the requests.
 * @param {import('./plan.js').Configuration} configuration
 * @param {{ signal?: AbortSignal }} [options]
 * @returns {Promise<import('../analysis/bounds.js').HttpCalibration>}
 */
export async function calibrateHttp (configuration, options = {}) {
  const { server, load } = configuration
  const child = await spawnServer({ app: /** @type {string} */ (server.app), args: server.args, env: server.env, onChild: track })
  try {
    const url = child.servers[0].url + HEALTH_PATH
    const run = () => builtinTool.run({ url, requests: REQUESTS, concurrency: 2, keepAlive: load.keepAlive === true, signal: options.signal })
    await run() // warm-up: the first requests pay for lazy compilation
    /** @type {import('../analysis/bounds.js').HttpCalibration['timings']} */
    const timings = []
    for (let i = 0; i < REPEATS; i++) {
      await child.metrics({ reset: true, signal: options.signal })
      const result = await run()
      const m = await child.metrics({ signal: options.signal })
      if (!m || result.completeRequests === 0) throw new ExperimentError(`HTTP calibration of ${configuration.label}: no metrics or no request answered`)
      const busyMs = typeof m.mainThreadCpuMs === 'number' ? m.mainThreadCpuMs : m.elu * m.windowMs
      timings.push({ httpMs: busyMs / result.completeRequests, requests: result.completeRequests, busyMs })
    }
    const sorted = timings.map((t) => t.httpMs).sort((a, b) => a - b)
    return { httpMs: sorted[sorted.length >> 1], route: HEALTH_PATH, timings, httpMsMin: sorted[0], httpMsMax: sorted[sorted.length - 1] }
  } finally {
    await child.stop()
  }
}
