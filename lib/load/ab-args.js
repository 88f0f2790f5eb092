// ab's command line, parsed the way ab 2.3 reads it (getopt clustering, order-dependent -t/-n) into
// LoadOptions for loadtest() plus what the CLI needs to print the report and write files.
import { readFileSync } from 'node:fs'
import { SyncbenchError } from '../errors.js'
import { TIMELIMIT_REQUESTS, defaultOptions, parseLoadArg, checkConcurrencyWithinRequests, argvSpelling } from './options.js'

// Each option's rule (default, bounds, message) is in options.js; this file knows ab's argv only.
export { TIMELIMIT_REQUESTS, MAX_CONCURRENCY } from './options.js'

/**
 * What the CLI does besides running the test.
 * @typedef {object} AbOutput
 * @property {boolean} help          -h / --help
 * @property {boolean} version       -V / --version
 * @property {boolean} json          --json: print the LoadResult only
 * @property {boolean} quiet         -q: no "Completed N requests" progress
 * @property {boolean} percentiles   false with -d
 * @property {boolean} confidence    false with -S (no sd / median columns, no warnings)
 * @property {boolean} html          -w: results as an HTML table
 * @property {boolean} keepAlive     -k (the report shows Keep-Alive requests)
 * @property {boolean} variableLength -l (the report shows Document Length: Variable)
 * @property {boolean} sendBody      -p / -u (the report shows Total body sent and kb/s sent)
 * @property {string|null} gnuplot   -g file
 * @property {string|null} csv       -e file
 * @property {number} heartbeat      ab's progress interval (0: ab prints no progress and "...done")
 */

// Flags that take a value, and flags that do not: ab's getopt string, plus the SSL/proxy ones we refuse.
const WITH_VALUE = new Set(['n', 'c', 't', 's', 'T', 'p', 'u', 'v', 'C', 'H', 'P', 'A', 'g', 'e', 'm'])
const BOOLEAN = new Set(['l', 'r', 'k', 'V', 'h', 'w', 'i', 'd', 'S', 'q'])
const UNSUPPORTED = {
  b: 'sets the TCP window size',
  B: 'binds to a local address',
  X: 'sends through a proxy',
  x: 'sets HTML table attributes',
  y: 'sets HTML row attributes',
  z: 'sets HTML cell attributes',
  Z: 'sets a TLS cipher suite',
  f: 'sets a TLS protocol',
  E: 'sets a TLS client certificate',
  I: 'disables TLS SNI'
}
const LONG = { help: 'h', version: 'V', json: 'json', 'http1.1': 'http11' }

/**
 * Split argv into [flag, value] pairs and positionals, as getopt does for ab: `-kc 20`, `-n100`,
 * `-c20`, `--` ends the flags. Unlike ab, flags may also follow the URL (ab refuses that).
 * @param {string[]} argv
 */
function tokenize (argv) {
  /** @type {{ flag: string, name: string, value?: string }[]} */
  const flags = []
  const positionals = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') { positionals.push(...argv.slice(i + 1)); break }
    if (arg.startsWith('--')) {
      const name = arg.slice(2)
      if (!Object.hasOwn(LONG, name)) throw new SyncbenchError('SB_ERR_UNKNOWN_OPTION', `unknown option "${arg}" (see syncbench ab --help)`)
      flags.push({ flag: arg, name: LONG[name] })
      continue
    }
    if (!arg.startsWith('-') || arg === '-') { positionals.push(arg); continue }
    for (let j = 1; j < arg.length; j++) {
      const ch = arg[j]
      const flag = `-${ch}`
      if (Object.hasOwn(UNSUPPORTED, ch)) {
        throw new SyncbenchError('SB_ERR_UNKNOWN_OPTION', `${flag} (ab's flag that ${UNSUPPORTED[ch]}) is not supported by syncbench ab`)
      }
      if (BOOLEAN.has(ch)) { flags.push({ flag, name: ch }); continue }
      if (!WITH_VALUE.has(ch)) throw new SyncbenchError('SB_ERR_UNKNOWN_OPTION', `unknown option "${flag}" (see syncbench ab --help)`)
      // getopt: the rest of the cluster is the value, else the next argument
      let value = arg.slice(j + 1)
      if (value === '') {
        if (i + 1 >= argv.length) throw new SyncbenchError('SB_ERR_MISSING_ARGUMENT', `${flag} needs a value`)
        value = argv[++i]
      }
      flags.push({ flag, name: ch, value })
      break
    }
  }
  return { flags, positionals }
}

/**
 * ab accepts `http://host[:port]/path` and also `host[:port]/path`; the path is required.
 * @param {string} raw
 */
function parseUrl (raw) {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)
  if (scheme && scheme[1].toLowerCase() !== 'http') {
    throw new SyncbenchError('SB_ERR_INVALID_URL', `only http:// URLs are supported (no ${scheme[1]}), got "${raw}"`)
  }
  const url = scheme ? raw : `http://${raw}`
  const rest = url.slice('http://'.length)
  const slash = rest.indexOf('/')
  // ab's rule: without a "/" after the host there is no path and the URL is invalid
  if (slash <= 0) throw new SyncbenchError('SB_ERR_INVALID_URL', `the URL needs a host and a path, as in http://127.0.0.1:8080/, got "${raw}"`)
  let parsed
  try {
    parsed = new URL(url)
  } catch {
    throw new SyncbenchError('SB_ERR_INVALID_URL', `the URL cannot be parsed, got "${raw}"`)
  }
  if (parsed.username || parsed.password) throw new SyncbenchError('SB_ERR_INVALID_URL', `the URL cannot carry credentials (use -A), got "${raw}"`)
  return url
}

/** @param {string} flag @param {string} file */
function readBody (flag, file) {
  try {
    return readFileSync(file)
  } catch (err) {
    throw new SyncbenchError('SB_ERR_INVALID_OPTION', `${flag} cannot read "${file}": ${err.code ?? err.message}`, { cause: err })
  }
}

/**
 * ab's progress interval: every 10% of the requests, at least 100 apart, only above 150 requests.
 * @param {number} requests
 * @param {boolean} quiet
 */
export function abHeartbeat (requests, quiet) {
  if (quiet || requests <= 150) return 0
  return Math.max(Math.floor(requests / 10), 100)
}

/**
 * Parse `syncbench ab` arguments with ab's names, defaults and rules.
 * Reads the -p / -u file. Throws SyncbenchError naming the flag and the value.
 * @param {string[]} argv
 * @returns {{ options: import('../types.js').LoadOptions, output: AbOutput }}
 */
export function parseAbArgs (argv) {
  const { flags, positionals } = tokenize(argv)
  /** @type {AbOutput} */
  const output = {
    help: false,
    version: false,
    json: false,
    quiet: false,
    percentiles: true,
    confidence: true,
    html: false,
    keepAlive: false,
    variableLength: false,
    sendBody: false,
    gnuplot: null,
    csv: null,
    heartbeat: 0
  }
  // ab's defaults, from the one table of option rules
  let requests = defaultOptions.requests
  let concurrency = defaultOptions.concurrency
  let requestsFlag = '-n'
  let rawConcurrency = String(concurrency)
  let timelimit = defaultOptions.timelimit
  let timeout = defaultOptions.timeout
  let method = null
  let methodFlag = null
  let body
  let contentType
  let auth
  let proxyAuth
  let verbosity = defaultOptions.verbosity
  let http11 = defaultOptions.http11
  let continueOnReceiveError = defaultOptions.continueOnReceiveError
  const headers = []
  const cookies = []

  // ab refuses a second method flag, except -m which may replace an earlier one
  const setMethod = (flag, name) => {
    if (method !== null) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `${flag} cannot be combined with ${methodFlag}: ab sends one method (${method} already chosen)`)
    method = name
    methodFlag = flag
  }

  for (const { flag, name, value } of flags) {
    switch (name) {
      case 'h': output.help = true; break
      case 'V': output.version = true; break
      case 'json': output.json = true; break
      case 'http11': http11 = true; break
      case 'n': requests = parseLoadArg('requests', flag, value); requestsFlag = '-n'; break
      // ab's rule: -t sets -n to 50000, so a -n before -t is overridden and a -n after it wins
      case 't': timelimit = parseLoadArg('timelimit', flag, value); requests = TIMELIMIT_REQUESTS; requestsFlag = `-t (which implies -n ${TIMELIMIT_REQUESTS})`; break
      case 'c': concurrency = parseLoadArg('concurrency', flag, value); rawConcurrency = value; break
      case 's': timeout = parseLoadArg('timeout', flag, value); break
      case 'k': output.keepAlive = true; break
      case 'q': output.quiet = true; break
      case 'd': output.percentiles = false; break
      case 'S': output.confidence = false; break
      case 'w': output.html = true; break
      case 'l': output.variableLength = true; break
      case 'r': continueOnReceiveError = true; break
      case 'i': setMethod(flag, 'HEAD'); break
      case 'p': setMethod(flag, 'POST'); body = readBody(flag, value); output.sendBody = true; break
      case 'u': setMethod(flag, 'PUT'); body = readBody(flag, value); output.sendBody = true; break
      case 'm':
        method = parseLoadArg('method', flag, value)
        methodFlag = flag
        break
      case 'T': contentType = value; break
      case 'v': verbosity = parseLoadArg('verbosity', flag, value); break
      case 'H': headers.push(parseLoadArg('headers', flag, value)); break
      case 'C': cookies.push(parseLoadArg('cookies', flag, value)); break
      // ab skips leading blanks of the credentials
      case 'A': auth = value.trimStart(); break
      case 'P': proxyAuth = value.trimStart(); break
      case 'g': output.gnuplot = value; break
      case 'e': output.csv = value; break
    }
  }

  if (output.help || output.version) return { options: /** @type {any} */ ({ url: '' }), output }

  if (positionals.length === 0) throw new SyncbenchError('SB_ERR_MISSING_ARGUMENT', 'missing the URL to test, as in syncbench ab -n 100 http://127.0.0.1:8080/')
  if (positionals.length > 1) throw new SyncbenchError('SB_ERR_INVALID_OPTION', `expected one URL, got ${positionals.length} arguments: "${positionals.join('" "')}"`)
  const url = parseUrl(positionals[0])

  checkConcurrencyWithinRequests(concurrency, requests, argvSpelling, { requests: `${requestsFlag} ${requests}`, got: rawConcurrency })
  if (output.sendBody && contentType === undefined) contentType = 'text/plain'

  /** @type {import('../types.js').LoadOptions} */
  const options = {
    url,
    requests,
    concurrency,
    timelimit,
    timeout,
    keepAlive: output.keepAlive,
    method: method ?? 'GET',
    headers,
    cookies,
    variableLength: output.variableLength,
    continueOnReceiveError,
    http11,
    verbosity
  }
  if (auth !== undefined) options.auth = auth
  if (proxyAuth !== undefined) options.proxyAuth = proxyAuth
  if (body !== undefined) options.body = body
  if (output.sendBody) options.contentType = contentType
  output.heartbeat = abHeartbeat(requests, output.quiet)
  return { options, output }
}
