// Start an app the way `syncbench serve` does, in the calling process: seed-readfile without --only
// is one server child per server (supervised from here), every other app runs in this process. Used
// by the terminal front end (lib/cli/serve.js) and by the server child (lib/lab/server-child.js).
import { InvalidOptionError } from '../errors.js'
import { startApp } from './apps.js'
import { collectEnvironment } from './metrics.js'
import { seedReadfileServers } from './seed-readfile.js'
import { ensureDataFile, DEFAULT_FILE_SIZE, cacheDir } from './data-file.js'
import { spawnServer } from './spawn.js'

/**
 * An app started by this process, as the terminal and the IPC channel see it.
 * @typedef {object} ServedApp
 * @property {{ name: string, url: string, host: string, port: number, routes: string[] }[]} servers  url: https:// for HTTP/2 over TLS
 * @property {import('../types.js').Environment} env
 * @property {(request: { reset: boolean, server?: string }) => import('../types.js').ServerMetrics | Promise<import('../types.js').ServerMetrics>} read
 *   the metrics window (of `server`, where several processes each have their own), then reset it if asked
 * @property {(request: { server?: string }) => import('../types.js').ServerSecond | null | Promise<import('../types.js').ServerSecond|null>} live
 *   the figures since the previous live read (of `server`), the window untouched (lib/lab/metrics.js live())
 * @property {() => Promise<void>} close   closes every server (stops the supervised children); idempotent
 */

/**
 * @param {import('./serve-args.js').ServeOptions} options
 * @param {{ signal?: AbortSignal }} [start] signal: abandon the start (serve got SIGTERM or SIGINT while
 *   it writes the data file or starts its children): what was started is stopped, a data file being
 *   written is removed, and the promise rejects with the signal's reason
 * @returns {Promise<ServedApp>}
 */
export async function startServeApp (options, { signal } = {}) {
  if (options.app === 'seed-readfile' && !options.only) return superviseReadfile({ ...options, signal })
  const running = await startApp(options.app, { ...options, signal })
  if (signal?.aborted) {
    await running.close()
    throw signal.reason
  }
  return { servers: running.servers, env: running.env, read: (request) => running.metrics.read(request), live: () => running.metrics.live(), close: running.close }
}

/**
 * seed-readfile without --only: one server child per server, as the seed ran three scripts, so a
 * server blocked in readFileSync never stalls the fs.readFile one.
 * @param {import('./apps.js').AppOptions} options
 * @returns {Promise<ServedApp>}
 */
export async function superviseReadfile (options) {
  const names = /** @type {(keyof typeof seedReadfileServers)[]} */ (Object.keys(seedReadfileServers))
  const { signal } = options
  // Created once here so the children find it instead of each writing their own.
  await ensureDataFile(options.fileSize ?? DEFAULT_FILE_SIZE, options)
  /** @type {import('./spawn.js').ChildHandle[]} */
  const handles = []
  /** @type {import('node:child_process').ChildProcess|null} the child being started, not yet a handle */
  let starting = null
  // Nothing of it is needed any more (no data file to keep, no port to release): ended at once.
  const onAbort = () => { starting?.kill('SIGKILL') }
  signal?.addEventListener('abort', onAbort, { once: true })
  /** @type {Promise<void>|undefined} */
  let closed
  const stopAll = () => {
    closed ??= Promise.all(handles.map((h) => h.stop())).then(() => {})
    return closed
  }
  try {
    for (const [i, name] of names.entries()) {
      const port = options.port === undefined ? seedReadfileServers[name].port : options.port === 0 ? 0 : options.port + i
      const args = ['--only', name, '--port', String(port), '--cache-dir', cacheDir(options)]
      if (options.host) args.push('--host', options.host)
      if (options.fileSize !== undefined) args.push('--file-size', String(options.fileSize))
      if (options.delay !== undefined) args.push('--delay', String(options.delay))
      if (options.http2) args.push('--http2')
      if (options.tls) args.push('--tls')
      if (options.cert !== undefined && options.key !== undefined) args.push('--cert', options.cert, '--key', options.key)
      signal?.throwIfAborted()
      handles.push(await spawnServer({ app: 'seed-readfile', args, onChild: (child) => { starting = child } }))
      starting = null
    }
    signal?.throwIfAborted()
  } catch (err) {
    await stopAll()
    throw signal?.aborted ? signal.reason : err
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  const servers = handles.flatMap((h) => h.servers.map((s) => ({
    ...s,
    host: h.address?.host ?? options.host ?? '127.0.0.1',
    routes: [`GET / (${seedReadfileServers[/** @type {keyof typeof seedReadfileServers} */ (s.name)].description}, pid ${h.pid})`]
  })))
  /** @param {string|undefined} server @returns {number} */
  const serverIndex = (server) => {
    const index = server === undefined ? 0 : servers.findIndex((s) => s.name === server)
    if (index < 0) throw new InvalidOptionError(`no server "${server}" (servers: ${names.join(', ')})`)
    return index
  }
  return {
    servers,
    env: collectEnvironment(),
    // Each server has its own process and window: `server` picks one, the first by default;
    // a reset without `server` resets all three.
    async read ({ reset, server }) {
      const metrics = await handles[serverIndex(server)].metrics({ reset: reset && server !== undefined })
      if (reset && server === undefined) await Promise.all(handles.map((h) => h.metrics({ reset: true })))
      return metrics
    },
    live: ({ server }) => handles[serverIndex(server)].live(),
    close: stopAll
  }
}
