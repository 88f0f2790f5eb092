// syncbench serve, the human front end: start the seed apps or the lab in this process, print where
// they listen, and run until SIGINT / SIGTERM. Programs start servers with spawnServer
// (lib/lab/spawn.js), which forks lib/lab/server-child.js instead of this command.
import { parseServeArgs, readfileServerNames as only } from '../lab/serve-args.js'
import { startServeApp } from '../lab/serve-app.js'

export { parseServeArgs }

export const help = `Usage: syncbench serve <app> [options]

Start a server under test. It binds 127.0.0.1 unless --host says otherwise, and runs until
Ctrl-C (SIGINT) or SIGTERM, then closes its servers and exits 0.

Apps:
  seed-bcrypt    the bcrypt article's Express app on port 3000: GET /sync (bcrypt.hashSync('secret', 10)),
                 GET /async (await bcrypt.hash('secret', 10)), native bcrypt
  seed-readfile  the French article's three node:http servers, each in its own process:
                 8081 readfile (fs.readFile), 8082 readfilesync (fs.readFileSync in try/catch),
                 8083 fake-async (setTimeout(readFileSync, 0), --delay sets the 0); each answers 'Coucou gamin'
  lab            one server on port 3001, routes /<workload>/<strategy>?params; GET / lists them as JSON
                 workloads: bcrypt, bcryptjs, readfile, pbkdf2, wait
                 strategies: sync, async, fake-async, immediate, promises, stream, worker

Options:
  --port <n>          port (default: the app's; 0 = an ephemeral port, printed). seed-readfile
                      without --only uses <n>, <n>+1, <n>+2
  --host <address>    address to bind (default 127.0.0.1)
  --only <name>       seed-readfile: start one server in this process: ${only.join(', ')}
  --delay <ms>        seed-readfile: the fake-async server's setTimeout delay, 0 to 10000 (default 0,
                      the article's)
  --file-size <size>  bytes of the generated file the readfile servers read: 4194304, 4m, 4MiB,
                      512k, 1g (default 4MiB, at most 1GiB)
  --cache-dir <dir>   where that file is kept (default $SYNCBENCH_CACHE_DIR, else <tmpdir>/syncbench-cache)
  --framework <name>  lab: express or http (default express)
  --pool-size <n>     lab: worker threads of the worker strategy, piscina (default: CPU count)
  --memory-budget <size>  lab: bytes the readfile requests in flight may read into memory together
                      (default 1GiB); a request beyond it gets a 503 with a JSON error naming the budget
  -h, --help          show this help

Options an app does not use (--framework for seed-bcrypt, ...) are accepted and ignored, so a runner
can pass the same options to every app; --only and --delay are the exceptions (seed-readfile only).

Every server also answers GET /__syncbench/metrics (the process's measurement window as JSON;
?reset=1 starts a new window), GET /__syncbench/env (Node, V8, libuv, UV_* variables, CPU) and
GET /__syncbench/health ("ok", served by the app's own event loop: syncbench run's probe route).
Forked with an IPC channel (lib/lab/spawn.js), the same data travels as messages instead.
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const options = parseServeArgs(argv)
  if (options.help) {
    io.stdout.write(help)
    return 0
  }
  const stopped = stopSignal()
  let served
  try {
    served = await startServeApp(options)
  } catch (err) {
    stopped.cancel()
    throw err
  }
  for (const s of served.servers) {
    const label = s.name === options.app ? s.name : `${options.app} ${s.name}`
    io.stdout.write(`${label} listening on ${s.url} (${s.routes.join(', ')})\n`)
  }
  const signal = await stopped.promise
  await served.close()
  io.stderr.write(`syncbench serve: ${signal}, servers closed\n`)
  return 0
}

/**
 * Resolves with the first of SIGINT and SIGTERM, which then no longer end the process by default.
 * @returns {{ promise: Promise<NodeJS.Signals>, cancel: () => void }}
 */
function stopSignal () {
  /** @type {(signal: NodeJS.Signals) => void} */
  let trigger = () => {}
  const promise = new Promise((resolve) => { trigger = resolve })
  const onSigint = () => trigger('SIGINT')
  const onSigterm = () => trigger('SIGTERM')
  const cancel = () => { process.off('SIGINT', onSigint); process.off('SIGTERM', onSigterm) }
  process.once('SIGINT', onSigint)
  process.once('SIGTERM', onSigterm)
  promise.then(cancel)
  return { promise, cancel }
}
