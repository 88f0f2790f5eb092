// syncbench serve, the human front end: start the seed apps or the lab in this process, print where
// they listen, and run until SIGINT / SIGTERM. Programs start servers with spawnServer
// (lib/lab/spawn.js), which forks lib/lab/server-child.js instead of this command.
import os from 'node:os'
import { version } from '../version.js'
import { parseServeArgs, readfileServerNames as only } from '../lab/serve-args.js'
import { startServeApp } from '../lab/serve-app.js'

export { parseServeArgs }

export const help = `Usage: syncbench serve <app> [options]

Start a server under test. It binds 127.0.0.1 unless --host says otherwise,
and runs until Ctrl-C (SIGINT) or SIGTERM, then closes its servers and exits 0.
A signal while it starts (writing a large --file-size, starting seed-readfile's
children) abandons the start, removes what it made and exits 130 (SIGINT) or
143 (SIGTERM).

Apps:
  seed-bcrypt    the bcrypt article's Express app on port 3000: GET /sync
                 (bcrypt.hashSync('secret', 10)), GET /async
                 (await bcrypt.hash('secret', 10)), native bcrypt
  seed-readfile  the French article's three node:http servers, each in its own
                 process: 8081 readfile (fs.readFile), 8082 readfilesync
                 (fs.readFileSync in try/catch), 8083 fake-async
                 (setTimeout(readFileSync, 0), --delay sets the 0); each
                 answers 'Coucou gamin'
  lab            one server on port 3001, routes /<workload>/<strategy>?params;
                 GET / lists them as JSON
                 workloads: bcrypt, bcryptjs, readfile, pbkdf2, wait
                 strategies: sync, async, fake-async, immediate, promises,
                 stream, worker

Options:
  --port <n>          port (default: the app's; 0 = an ephemeral port,
                      printed). seed-readfile without --only uses <n>, <n>+1,
                      <n>+2
  --host <address>    address to bind (default 127.0.0.1)
  --only <name>       seed-readfile: start one server in this process:
                      ${only.join(', ')}
  --delay <ms>        seed-readfile: the fake-async server's setTimeout delay,
                      0 to 10000 (default 0, the article's)
  --file-size <size>  bytes of the generated file the readfile servers read:
                      4194304, 4m, 4MiB, 512k, 1g (default 4MiB, at most 1GiB)
  --cache-dir <dir>   where that file is kept (default $SYNCBENCH_CACHE_DIR,
                      else <tmpdir>/syncbench-cache)
  --framework <name>  lab: express or http (default express)
  --pool-size <n>     lab: worker threads of the worker strategy, piscina
                      (default: CPU count)
  --memory-budget <size>
                      lab: bytes the readfile requests in flight may read into
                      memory together (default 1GiB); a request beyond it gets
                      a 503 with a JSON error naming the budget
  --http2, --h2       serve HTTP/2, in cleartext by prior knowledge (h2c);
                      syncbench ab --http2 and run --http2 speak it
  --tls               with --http2: over TLS instead, h2 negotiated by ALPN,
                      HTTP/1.1 as fallback; the server makes a self-signed
                      certificate when it starts (localhost, 127.0.0.1, ::1
                      and --host)
  --cert <file>       with --tls: serve this certificate (PEM) instead,
  --key <file>        with its private key (PEM); both or neither
  -h, --help          show this help
  -V, --version       print the version

Options an app does not use (--framework for seed-bcrypt, ...) are accepted and
ignored, so a runner can pass the same options to every app; --only and --delay
are the exceptions (seed-readfile only).

Every server also answers GET /__syncbench/metrics (the process's measurement
window as JSON; ?reset=1 starts a new window), GET /__syncbench/env (Node, V8,
libuv, UV_* variables, CPU) and GET /__syncbench/health ("ok", served by the
app's own event loop: syncbench run's probe route), over HTTP/2 too.
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
  if (options.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  const stopped = stopSignal()
  // A signal is honoured at any moment: during the start (a large data file being written, children
  // starting) it abandons the start, removing what was made, and serve exits as the signal would end it.
  const starting = new AbortController()
  stopped.promise.then(() => starting.abort())
  let served
  try {
    served = await startServeApp(options, { signal: starting.signal })
  } catch (err) {
    if (!starting.signal.aborted) {
      stopped.cancel()
      throw err
    }
    const signal = await stopped.promise
    io.stderr.write(`syncbench serve: ${signal} while starting, stopped (nothing served)\n`)
    // 128 + the signal's number, as the signal's default action would have ended it (130, 143): the
    // same status as a signal in the first instant, before these handlers exist
    return 128 + os.constants.signals[signal]
  }
  // Before the servers' lines, which a caller may wait for.
  if (options.http2) io.stdout.write(`${protocolLine(options)}\n`)
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
 * What the servers speak, said once before their lines.
 * @param {import('../lab/serve-args.js').ServeOptions} options  with http2
 */
function protocolLine (options) {
  if (!options.tls) return 'HTTP/2 in cleartext (h2c) by prior knowledge: clients speak HTTP/2 from the first byte'
  const certificate = options.cert === undefined ? 'a self-signed certificate made at start' : `the certificate of ${options.cert}`
  return `HTTP/2 over TLS (ALPN h2, HTTP/1.1 as fallback) with ${certificate}`
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
