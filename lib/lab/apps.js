// Start one of syncbench's apps in this process: hosts its servers, watches the process, and
// returns what the CLI and the IPC channel need. The apps' names are the `syncbench serve` names.
import { hostServer } from './http-host.js'
import { createServerMetrics, collectEnvironment } from './metrics.js'
import { seedReadfileServers, seedReadfileHandler, isReadfileServer } from './seed-readfile.js'
import { ensureDataFile, DEFAULT_FILE_SIZE } from './data-file.js'
import { readFile } from 'node:fs/promises'
import tlsModule from 'node:tls'
import { InvalidOptionError, firstLine, systemCode } from '../errors.js'

export const appNames = ['seed-bcrypt', 'seed-readfile', 'lab']
export const LAB_PORT = 3001

/**
 * @typedef {object} AppOptions
 * @property {number} [port]        seed port by default; 0 for an ephemeral port
 * @property {string} [host='127.0.0.1']
 * @property {number} [fileSize]    bytes of the readfile data file (default 4 MiB)
 * @property {string} [cacheDir]    where the data file lives (see data-file.js)
 * @property {string} [only]        seed-readfile: start only this server (readfile, readfilesync, fake-async)
 * @property {number} [delay]       seed-readfile: the fake-async server's setTimeout delay, ms (default 0, as published)
 * @property {number} [poolSize]    lab: worker threads of the worker strategy
 * @property {number} [memoryBudget] lab: bytes readfile requests may hold at once (default 1 GiB); beyond, 503
 * @property {'express'|'http'} [framework='express']  lab
 * @property {boolean} [http2]      serve HTTP/2: h2c (cleartext, prior knowledge), or h2 with `tls`
 * @property {boolean} [tls]        with http2: HTTP/2 over TLS by ALPN, HTTP/1.1 as fallback
 * @property {string} [cert]        with tls: the certificate's PEM file (default: a self-signed one made at start)
 * @property {string} [key]         with tls: its private key's PEM file
 * @property {AbortSignal} [signal] ends the start (serve got SIGTERM): a data file being written is dropped
 */

/** @typedef {import('./http-host.js').HostedServer & { routes: string[] }} AppServer */

/**
 * @typedef {object} RunningApp
 * @property {string} app
 * @property {AppServer[]} servers
 * @property {import('../types.js').Environment} env
 * @property {ReturnType<typeof createServerMetrics>} metrics
 * @property {() => Promise<void>} close   closes every server and stops watching; idempotent
 */

/**
 * @param {string} app one of appNames
 * @param {AppOptions} [options]
 * @returns {Promise<RunningApp>}
 */
export async function startApp (app, options = {}) {
  const host = options.host ?? '127.0.0.1'
  const env = collectEnvironment()
  const protocol = !options.http2 ? 'http1' : options.tls ? 'h2' : 'h2c'
  const tls = protocol === 'h2' ? await tlsMaterial(options, host) : undefined
  const metrics = createServerMetrics()
  /** @type {AppServer[]} */
  const servers = []
  /** @type {(() => Promise<void>)[]} */
  const closers = []
  /** @type {Promise<void>|undefined} */
  let closed
  const close = () => {
    closed ??= Promise.all(servers.map((s) => s.close()))
      .then(() => Promise.all(closers.map((fn) => fn())))
      .then(() => {})
      .finally(() => metrics.close())
    return closed
  }
  /**
   * @param {string} name
   * @param {import('node:http').RequestListener} handler
   * @param {number} port
   * @param {string[]} routes
   */
  const host1 = async (name, handler, port, routes) => {
    const server = await hostServer({ name, handler, metrics, env, port, host, protocol, tls })
    servers.push({ ...server, routes })
  }
  try {
    if (app === 'seed-bcrypt') {
      // loaded with its app, as the lab's is: Express and bcrypt are not wanted where serve's
      // arguments are only parsed (syncbench run's parent process)
      const { createSeedBcryptApp, seedBcryptRoutes, SEED_BCRYPT_PORT } = await import('./seed-bcrypt.js')
      await host1('seed-bcrypt', createSeedBcryptApp(), options.port ?? SEED_BCRYPT_PORT, seedBcryptRoutes)
    } else if (app === 'seed-readfile') {
      const file = await ensureDataFile(options.fileSize ?? DEFAULT_FILE_SIZE, options)
      const names = options.only ? [options.only] : Object.keys(seedReadfileServers)
      for (const [i, name] of names.entries()) {
        if (!isReadfileServer(name)) throw new InvalidOptionError(`--only must be one of ${Object.keys(seedReadfileServers).join(', ')}, got "${name}"`)
        const seed = seedReadfileServers[name]
        const port = options.port === undefined ? seed.port : options.port === 0 ? 0 : options.port + i
        await host1(name, seedReadfileHandler(name, file, options.delay ?? 0), port, [`GET / (${seed.description})`])
      }
    } else if (app === 'lab') {
      const { createLab } = await import('./lab-app.js')
      const lab = await createLab(options)
      closers.push(lab.close)
      await host1('lab', lab.handler, options.port ?? LAB_PORT, ['GET / lists the routes', 'GET /<workload>/<strategy>'])
    } else {
      throw new InvalidOptionError(`app must be one of ${appNames.join(', ')}, got "${app}"`)
    }
  } catch (err) {
    await close()
    throw err
  }
  return { app, servers, env, metrics, close }
}

/**
 * The h2 server's key and certificate: the --cert and --key files, else a self-signed pair made now
 * (lib/lab/self-signed.js), naming the address bound as well as localhost.
 * @param {AppOptions} options
 * @param {string} host
 * @returns {Promise<{ key: string|Buffer, cert: string|Buffer }>}
 */
async function tlsMaterial (options, host) {
  if (options.cert === undefined || options.key === undefined) {
    const { selfSignedCertificate } = await import('./self-signed.js')
    return selfSignedCertificate([host])
  }
  /** @type {Record<'cert'|'key', Buffer>} */
  const pem = { cert: Buffer.alloc(0), key: Buffer.alloc(0) }
  for (const flag of /** @type {const} */ (['cert', 'key'])) {
    const file = /** @type {string} */ (options[flag])
    try {
      pem[flag] = await readFile(file)
    } catch (err) {
      throw new InvalidOptionError(`--${flag} ${file}: cannot be read (${systemCode(err) || firstLine(err)})`)
    }
  }
  try {
    // The pair is checked here, where a bad file can be named, rather than at the first handshake.
    tlsModule.createSecureContext({ key: pem.key, cert: pem.cert })
  } catch (err) {
    throw new InvalidOptionError(`--cert ${options.cert} --key ${options.key}: not a PEM certificate and its key (${firstLine(err)})`)
  }
  return pem
}
