// The server under test: the one module syncbench forks as a server (lib/lab/spawn.js forks it; nothing
// forks bin/). It starts what its ChildSpec names (a seed app, the lab, or a user's workload module),
// then speaks the protocol documented in lib/lab/ipc.js until SIGTERM or its parent goes away.
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { ServerStartError, SyncbenchError } from '../errors.js'
import { serveIpc, sendError, sendHandlers } from './ipc.js'
import { watchParent } from './parent-watch.js'

/**
 * @param {import('./ipc.js').ChildSpec} spec
 * @returns {Promise<void>}
 */
async function main (spec) {
  // Before the user's module loads: its top-level code may already block the main thread.
  const watchdog = watchParent({ parent: process.argv[3] })
  const stopped = stopSignal()
  // A user's module may leave timers or sockets open: once the server is done (or failed), they must
  // not keep this process alive, so it ends itself with SIGTERM's default action.
  const isWorkload = 'workload' in spec || 'command' in spec
  /** @type {import('./serve-app.js').ServedApp} */
  let served
  /** @type {Record<string, unknown>|undefined} */
  let info
  /** @type {import('./app-host.js').HostedApp['profile']|undefined} */
  let profile
  let stopping = false
  try {
    if ('command' in spec) {
      const { hostApp } = await import('./app-host.js')
      const hosted = await hostApp(spec, { watchdog })
      served = hosted
      info = hosted.info
      profile = hosted.profile
      // The app ended by itself while it was measured: say how (its last stderr lines), and go, so the
      // runner sees the server gone.
      hosted.exited.then(async (line) => {
        if (stopping) return
        process.stderr.write(`${line('while it was measured')}\n`)
        await hosted.close()
        end(1, true)
      })
    } else if ('workload' in spec) {
      const { importWorkload, hostWorkload } = await import('./workload-host.js')
      const handlers = await importWorkload(spec.workload, `--workload ${spec.label ?? spec.workload}`)
      if (spec.query === 'handlers') {
        await sendHandlers(process, Object.keys(handlers))
        return end(0, true)
      }
      served = await hostWorkload(handlers, { http2: spec.http2 === true })
      info = { handlers: Object.keys(handlers) }
    } else if (typeof spec.app === 'string') {
      const { parseServeArgs } = await import('./serve-args.js')
      const { startServeApp } = await import('./serve-app.js')
      served = await startServeApp(parseServeArgs([spec.app, ...(spec.args ?? [])]))
    } else {
      throw new ServerStartError(`the server child needs an app or a workload, got ${JSON.stringify(spec)}`)
    }
  } catch (e) {
    const err = /** @type {any} */ (e)
    // A bug, not a user's mistake: its stack goes to stderr, which the parent keeps.
    if (!(err instanceof SyncbenchError)) process.stderr.write(`${err?.stack ?? err}\n`)
    await sendError(process, err, 'command' in spec && Array.isArray(err?.stderr) ? err.stderr : undefined)
    return end(1, isWorkload)
  }
  const ipc = serveIpc(process, { servers: served.servers, env: served.env, read: served.read, live: served.live, info, profile })
  await stopped
  stopping = true
  ipc.stop()
  await served.close()
  end(0, isWorkload)
}

/**
 * Resolves on SIGTERM, SIGINT or the parent's channel closing, whichever comes first (also during the
 * start: the server then stops as soon as it is up).
 * @returns {Promise<void>}
 */
function stopSignal () {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGTERM', done)
      process.off('SIGINT', done)
      process.off('disconnect', done)
      resolve()
    }
    process.on('SIGTERM', done)
    process.on('SIGINT', done)
    process.on('disconnect', done)
  })
}

/**
 * @param {number} code
 * @param {boolean} force end with SIGTERM's default action even if handles are left open
 */
function end (code, force) {
  process.exitCode = code
  // The IPC channel would keep this process alive.
  if (process.connected) process.disconnect()
  if (force) {
    process.removeAllListeners('SIGTERM')
    process.kill(process.pid, 'SIGTERM')
  }
}

/** @returns {import('./ipc.js').ChildSpec} */
function readSpec () {
  try {
    return JSON.parse(process.argv[2])
  } catch {
    return /** @type {any} */ ({})
  }
}

// Forked by lib/lab/spawn.js only; importing this module does nothing.
const isMain = process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url
if (isMain && typeof process.send === 'function') await main(readSpec())
