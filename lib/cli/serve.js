// syncbench serve: start the seed apps or the lab, print where they listen (or tell the parent over
// IPC when forked by the runner), and run until SIGINT / SIGTERM.
import { parseCommandArgs, integerOption } from './args.js'
import { SyncbenchError, invalidOption } from '../errors.js'
import { startApp, appNames } from '../lab/apps.js'
import { seedReadfileServers } from '../lab/seed-readfile.js'
import { parseSize, ensureDataFile, DEFAULT_FILE_SIZE, cacheDir } from '../lab/data-file.js'
import { serveIpc, sendError } from '../lab/ipc.js'
import { spawnServer } from '../lab/spawn.js'
import { collectEnvironment } from '../lab/metrics.js'

const only = Object.keys(seedReadfileServers)

export const help = `Usage: syncbench serve <app> [options]

Start a server under test. It binds 127.0.0.1 unless --host says otherwise, and runs until
Ctrl-C (SIGINT) or SIGTERM, then closes its servers and exits 0.

Apps:
  seed-bcrypt    the bcrypt article's Express app on port 3000: GET /sync (bcrypt.hashSync('secret', 10)),
                 GET /async (await bcrypt.hash('secret', 10)), native bcrypt
  seed-readfile  the French article's three node:http servers, each in its own process:
                 8081 readfile (fs.readFile), 8082 readfilesync (fs.readFileSync in try/catch),
                 8083 fake-async (setTimeout(readFileSync, 0)); each answers 'Coucou gamin'
  lab            one server on port 3001, routes /<workload>/<strategy>?params; GET / lists them as JSON
                 workloads: bcrypt, bcryptjs, readfile, pbkdf2, wait
                 strategies: sync, async, fake-async, immediate, promises, stream, worker

Options:
  --port <n>          port (default: the app's; 0 = an ephemeral port, printed). seed-readfile
                      without --only uses <n>, <n>+1, <n>+2
  --host <address>    address to bind (default 127.0.0.1)
  --only <name>       seed-readfile: start one server in this process: ${only.join(', ')}
  --file-size <size>  bytes of the generated file the readfile servers read: 4194304, 4m, 4MiB,
                      512k, 1g (default 4MiB, at most 1GiB)
  --cache-dir <dir>   where that file is kept (default $SYNCBENCH_CACHE_DIR, else <tmpdir>/syncbench-cache)
  --framework <name>  lab: express or http (default express)
  --pool-size <n>     lab: worker threads of the worker strategy, piscina (default: CPU count)
  -h, --help          show this help

Options an app does not use (--framework for seed-bcrypt, ...) are accepted and ignored, except --only
(seed-readfile only), so a runner
can pass the same options to every app.

Every server also answers GET /__syncbench/metrics (the process's measurement window as JSON;
?reset=1 starts a new window) and GET /__syncbench/env (Node, V8, libuv, UV_* variables, CPU).
Forked with an IPC channel (lib/lab/spawn.js), the same data travels as messages instead.
`

/**
 * @param {string[]} argv
 * @returns {{ app: string, help?: boolean } & import('../lab/apps.js').AppOptions}
 */
export function parseServeArgs (argv) {
  const parsed = parseCommandArgs('serve', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    only: { type: 'string' },
    'file-size': { type: 'string' },
    'cache-dir': { type: 'string' },
    framework: { type: 'string' },
    'pool-size': { type: 'string' },
    help: { type: 'boolean', short: 'h' }
  })
  const { values, positionals } = parsed
  if (values.help) return { app: '', help: true }
  if (positionals.length === 0) throw new SyncbenchError('SB_ERR_MISSING_ARGUMENT', `an app is needed: ${appNames.join(', ')} (see syncbench serve --help)`)
  if (positionals.length > 1) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `one app expected, got "${positionals.join(' ')}"`)
  const [app] = positionals
  if (!appNames.includes(app)) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `the app must be one of ${appNames.join(', ')}, got "${app}"`)
  const options = { app }
  if (values.port !== undefined) {
    // Three servers on port, port + 1 and port + 2 unless one is chosen with --only.
    const last = app === 'seed-readfile' && values.only === undefined && values.port !== '0' ? 65533 : 65535
    options.port = integerOption('--port', values.port, 0, last)
  }
  if (values.host !== undefined) {
    if (values.host.trim() === '') throw invalidOption('--host', values.host, 'must be an address such as 127.0.0.1')
    options.host = values.host
  }
  if (values.only !== undefined) {
    if (app !== 'seed-readfile') throw invalidOption('--only', values.only, 'applies to seed-readfile only')
    if (!only.includes(values.only)) throw invalidOption('--only', values.only, `must be one of ${only.join(', ')}`)
    options.only = values.only
  }
  if (values['file-size'] !== undefined) {
    const size = parseSize(values['file-size'])
    if (size === null) throw invalidOption('--file-size', values['file-size'], 'must be a size from 0 to 1GiB such as 4194304, 4m or 4MiB')
    options.fileSize = size
  }
  if (values['cache-dir'] !== undefined) {
    if (values['cache-dir'] === '') throw invalidOption('--cache-dir', '', 'must be a folder')
    options.cacheDir = values['cache-dir']
  }
  if (values.framework !== undefined) {
    if (!['express', 'http'].includes(values.framework)) throw invalidOption('--framework', values.framework, 'must be express or http')
    options.framework = values.framework
  }
  if (values['pool-size'] !== undefined) {
    options.poolSize = integerOption('--pool-size', values['pool-size'], 1, 256)
  }
  return options
}

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const forked = typeof process.send === 'function'
  try {
    const options = parseServeArgs(argv)
    if (options.help) {
      io.stdout.write(help)
      return 0
    }
    const stopped = stopSignal()
    const running = options.app === 'seed-readfile' && !options.only
      ? await superviseReadfile(options)
      : await startApp(options.app, options)
    let ipc
    if (forked) {
      ipc = serveIpc(process, { servers: running.servers, env: running.env, read: running.read ?? ((r) => running.metrics.read(r)), onDisconnect: stopped.trigger })
    } else {
      for (const s of running.servers) {
        const label = s.name === options.app ? s.name : `${options.app} ${s.name}`
        io.stdout.write(`${label} listening on ${s.url} (${s.routes.join(', ')})\n`)
      }
    }
    const signal = await stopped.promise
    ipc?.stop()
    await running.close()
    if (!forked && signal) io.stderr.write(`syncbench serve: ${signal}, servers closed\n`)
    return 0
  } catch (err) {
    if (forked) await sendError(process, err)
    throw err
  } finally {
    // The IPC channel would keep this process alive after main returns.
    if (forked && process.connected) process.disconnect()
  }
}

function stopSignal () {
  let trigger
  const promise = new Promise((resolve) => { trigger = resolve })
  const onSigint = () => trigger('SIGINT')
  const onSigterm = () => trigger('SIGTERM')
  process.once('SIGINT', onSigint)
  process.once('SIGTERM', onSigterm)
  promise.then(() => { process.off('SIGINT', onSigint); process.off('SIGTERM', onSigterm) })
  return { promise, trigger: () => trigger(null) }
}

/**
 * seed-readfile without --only: one child process per server, as the seed ran three scripts, so a
 * server blocked in readFileSync never stalls the fs.readFile one.
 */
async function superviseReadfile (options) {
  // Created once here so the three children find it instead of each writing their own.
  await ensureDataFile(options.fileSize ?? DEFAULT_FILE_SIZE, options)
  const handles = []
  const stopAll = () => Promise.all(handles.map((h) => h.stop()))
  try {
    for (const [i, name] of only.entries()) {
      const port = options.port === undefined ? seedReadfileServers[name].port : options.port === 0 ? 0 : options.port + i
      const args = ['--only', name, '--port', String(port), '--cache-dir', cacheDir(options)]
      if (options.host) args.push('--host', options.host)
      if (options.fileSize !== undefined) args.push('--file-size', String(options.fileSize))
      handles.push(await spawnServer({ app: 'seed-readfile', args }))
    }
  } catch (err) {
    await stopAll()
    throw err
  }
  const servers = handles.flatMap((h) => h.servers.map((s) => ({ ...s, routes: [`GET / (${seedReadfileServers[s.name].description}, pid ${h.pid})`] })))
  return {
    servers,
    env: collectEnvironment(),
    // Each server has its own process and window: `server` picks one, the first by default;
    // a reset without `server` resets all three.
    async read ({ reset, server }) {
      const index = server === undefined ? 0 : servers.findIndex((s) => s.name === server)
      if (index < 0) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `no server "${server}" (servers: ${only.join(', ')})`)
      const metrics = await handles[index].metrics({ reset: reset && server !== undefined })
      if (reset && server === undefined) await Promise.all(handles.map((h) => h.metrics({ reset: true })))
      return metrics
    },
    close: stopAll
  }
}
