// The options of `syncbench serve <app> ...`, parsed once for both places that start an app: the
// terminal front end (lib/cli/serve.js) and the server child (lib/lab/server-child.js), which gets
// the same words from spawnServer({ app, args }) and from experiments' `server.args`.
import { isIPv6 } from 'node:net'
import { parseCommandArgs, integerOption } from '../args.js'
import { InvalidOptionError, MissingArgumentError, invalidOption } from '../errors.js'
import { appNames } from './apps.js'
import { seedReadfileServers } from './seed-readfile.js'
import { parseSize } from './data-file.js'

/** The largest `--memory-budget`: a bound, not a target (a machine with more has no need of one). */
const MAX_MEMORY_BUDGET = 1024 ** 4

/** The seed-readfile servers, by the names `--only` takes. */
export const readfileServerNames = Object.keys(seedReadfileServers)

/**
 * @typedef {{ app: string, help?: boolean, version?: boolean } & import('./apps.js').AppOptions} ServeOptions
 */

/**
 * @param {string[]} argv `<app> [options]`, as after `syncbench serve`
 * @returns {ServeOptions}
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
    'memory-budget': { type: 'string' },
    delay: { type: 'string' },
    http2: { type: 'boolean' },
    // ab's and run's alias
    h2: { type: 'boolean' },
    tls: { type: 'boolean' },
    cert: { type: 'string' },
    key: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  const { values, positionals } = parsed
  if (values.help) return { app: '', help: true }
  if (values.version) return { app: '', version: true }
  if (positionals.length === 0) throw new MissingArgumentError(`an app is needed: ${appNames.join(', ')} (see syncbench serve --help)`)
  if (positionals.length > 1) throw new InvalidOptionError(`one app expected, got "${positionals.join(' ')}"`)
  const [app] = positionals
  if (!appNames.includes(app)) throw new InvalidOptionError(`the app must be one of ${appNames.join(', ')}, got "${app}"`)
  /** @type {ServeOptions} */
  const options = { app }
  if (values.port !== undefined) {
    // Three servers on port, port + 1 and port + 2 unless one is chosen with --only.
    const last = app === 'seed-readfile' && values.only === undefined && values.port !== '0' ? 65533 : 65535
    options.port = integerOption('--port', values.port, 0, last)
  }
  if (values.host !== undefined) {
    if (values.host.trim() === '') throw invalidOption('--host', values.host, 'must be an address such as 127.0.0.1')
    // [::1] as a URL writes it: the address inside the brackets is what listen() takes
    const bracketed = /^\[(.*)\]$/.exec(values.host)
    if (bracketed !== null && !isIPv6(bracketed[1])) throw invalidOption('--host', values.host, 'must be an address such as 127.0.0.1 or [::1]')
    options.host = bracketed === null ? values.host : bracketed[1]
  }
  if (values.only !== undefined) {
    if (app !== 'seed-readfile') throw invalidOption('--only', values.only, 'applies to seed-readfile only')
    if (!readfileServerNames.includes(values.only)) throw invalidOption('--only', values.only, `must be one of ${readfileServerNames.join(', ')}`)
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
    options.framework = /** @type {'express'|'http'} */ (values.framework)
  }
  if (values.delay !== undefined) {
    if (app !== 'seed-readfile') throw invalidOption('--delay', values.delay, 'applies to seed-readfile only')
    options.delay = integerOption('--delay', values.delay, 0, 10_000)
  }
  if (values['pool-size'] !== undefined) {
    options.poolSize = integerOption('--pool-size', values['pool-size'], 1, 256)
  }
  if (values['memory-budget'] !== undefined) {
    const budget = parseSize(values['memory-budget'], MAX_MEMORY_BUDGET)
    if (budget === null) throw invalidOption('--memory-budget', values['memory-budget'], 'must be a size from 0 to 1024GiB such as 1g or 512m')
    options.memoryBudget = budget
  }
  if (values.http2 || values.h2) options.http2 = true
  if (values.tls) {
    if (!options.http2) throw new InvalidOptionError('--tls applies with --http2 (HTTP/2 over TLS, HTTP/1.1 as fallback); without it serve speaks cleartext HTTP/1.1')
    options.tls = true
  }
  for (const flag of /** @type {const} */ (['cert', 'key'])) {
    const file = values[flag]
    if (file === undefined) continue
    if (file === '') throw invalidOption(`--${flag}`, '', 'must be a PEM file')
    if (!options.tls) throw invalidOption(`--${flag}`, file, 'applies with --tls')
    const other = flag === 'cert' ? 'key' : 'cert'
    if (values[other] === undefined) throw invalidOption(`--${flag}`, file, `needs --${other} too`)
    options[flag] = file
  }
  return options
}
