// Route discovery for `syncbench scan`: the app is started as `run --app` starts it (lib/lab/app-host.js),
// asked for its routes once it listens (the `syncbench:routes` request of lib/lab/ipc.js, answered in
// its own process by lib/lab/route-reader.js), then ended with its whole process group.
import { performance } from 'node:perf_hooks'
import { hostApp } from '../lab/app-host.js'
import { roundTo } from '../format.js'

/**
 * Start the app, read its routes, end it. Rejects as hostApp does (ServerStartError: an app that never
 * listens or exits first) and when the app does not answer.
 * @param {import('../lab/ipc.js').AppSpec} spec
 * @returns {Promise<import('../types.js').RouteDiscovery>}
 */
export async function discoverRoutes (spec) {
  const started = performance.now()
  const app = await hostApp(spec)
  const startMs = roundTo(performance.now() - started, 1)
  try {
    const found = await app.routes()
    // --port with a process syncbench could not instrument: nothing can be read in it.
    if (!found) return { frameworks: [], routes: [], notes: [`app "${spec.name}" has no instrumented process: its routes cannot be read; give --openapi or --har`], startMs }
    return { frameworks: found.frameworks, routes: found.routes, notes: found.notes, startMs }
  } finally {
    await app.close()
  }
}
