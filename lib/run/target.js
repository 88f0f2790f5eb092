// --target: a server already running stands in for the servers the experiments would start. It can stand
// for one server only. Configurations that would each start their own (seed-readfile's three servers, a
// UV_THREADPOOL_SIZE sweep, two experiments of different apps) would all be sent to that one URL and the
// tables would rank one server against itself under three names: refused before anything runs.
import { InvalidOptionError } from '../errors.js'
import { expandExperiment } from './plan.js'

/**
 * Throw when the experiments' configurations need more than one server, naming them grouped by server.
 * @param {import('./experiment-loader.js').Experiment[]} experiments
 * @param {{ requests?: number, concurrency?: number, keepAlive?: boolean, workers?: number }} [overrides]
 */
export function checkTarget (experiments, overrides = {}) {
  /** @type {Map<string, { server: string, configurations: string[] }>} */
  const servers = new Map()
  for (const experiment of experiments) {
    for (const c of expandExperiment(experiment, overrides)) {
      const key = JSON.stringify([c.server.app ?? null, c.server.workload ?? null, c.server.args, Object.entries(c.server.env).sort()])
      const entry = servers.get(key) ?? { server: describeServer(c.server), configurations: [] }
      entry.configurations.push(`${experiment.name}/${c.label}`)
      servers.set(key, entry)
    }
  }
  if (servers.size <= 1) return
  const list = [...servers.values()].map((s) => `${s.configurations.join(', ')} (${s.server})`).join('; ')
  throw new InvalidOptionError(`--target stands for one server, but these configurations need ${servers.size} different ones: ${list}; ` +
    'run only configurations that share one server (e.g. syncbench run seed-bcrypt --target <url>)')
}

/**
 * "seed-readfile --only readfile", "lab, UV_THREADPOOL_SIZE=1", "handlers.mjs".
 * @param {import('./plan.js').Configuration['server']} server
 * @returns {string}
 */
function describeServer (server) {
  const name = server.workload ? String(server.workload).split(/[\\/]/).pop() : [server.app, ...server.args].join(' ')
  const env = Object.entries(server.env).map(([k, v]) => `${k}=${v}`)
  return [name, ...env].join(', ')
}
