// ab's command line, parsed the way ab 2.3 reads it (getopt clustering, order-dependent -t/-n) into
// LoadOptions for loadtest() plus what the CLI needs to print the report and write files.
import { readFileSync, statSync } from 'node:fs'
import { InvalidOptionError, InvalidUrlError, MissingArgumentError, invalidOption, UnknownOptionError, systemCode, systemReason } from '../errors.js'
import { TIMELIMIT_REQUESTS, defaultOptions, defaultHeartbeat, parseLoadArg, checkConcurrencyWithinRequests, checkWorkersWithinConcurrency, checkHttp2, checkTlsOptions, argvSpelling, segmentShares, checkRamp, defaultRequests, isRampRange, parseRampRange } from '../load/options.js'
import { checkUnixSocket } from '../load/connection.js'
import { integerOption } from '../args.js'
import { redactUrl } from '../redact.js'

// Each option's rule (default, bounds, message) is in options.js; this file knows ab's argv only.
export { TIMELIMIT_REQUESTS, MAX_CONCURRENCY } from '../load/options.js'

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
 * @property {string|null} hdrLog    --hdr-log file
 * @property {number} heartbeat      ab's progress interval (0: ab prints no progress and "...done")
 * @property {boolean} dashboard     --dashboard: a live page of the run (lib/cli/dashboard.js)
 * @property {number} dashboardPort  --dashboard-port (0: a free one)
 * @property {string|null} dashboardHost --dashboard-host (null: 127.0.0.1)
 */

/** @typedef {'n'|'c'|'t'|'s'|'T'|'p'|'u'|'v'|'C'|'H'|'P'|'A'|'g'|'e'|'m'|'R'|'Z'|'f'|'ramp'|'responseTimeout'|'unix'|'segment'|'startAt'|'hdrLog'|'workers'|'dashboardPort'|'dashboardHost'|'secretHeader'|'streams'} ValueFlag ab's flags that take a value, with our own */
/** @typedef {'l'|'r'|'k'|'V'|'h'|'w'|'i'|'d'|'S'|'q'|'json'|'http11'|'http2'|'dashboard'} BooleanFlag the others, with our long ones */
/**
 * One flag of the command line, by its short name: a value flag always has its value.
 * @typedef {{ flag: string, name: BooleanFlag }|{ flag: string, name: ValueFlag, value: string }} FlagToken
 */

// Flags that take a value, and flags that do not: ab's getopt string (plus our -R, wrk2's rate flag),
// and the SSL/proxy ones we refuse.
/** @type {ReadonlySet<string>} */
const WITH_VALUE = new Set(['n', 'c', 't', 's', 'T', 'p', 'u', 'v', 'C', 'H', 'P', 'A', 'g', 'e', 'm', 'R', 'Z', 'f'])
/** @type {ReadonlySet<string>} */
const BOOLEAN = new Set(['l', 'r', 'k', 'V', 'h', 'w', 'i', 'd', 'S', 'q'])
/** @type {Record<string, string>} */
const UNSUPPORTED = {
  b: 'sets the TCP window size',
  B: 'binds to a local address',
  X: 'sends through a proxy',
  x: 'sets HTML table attributes',
  y: 'sets HTML row attributes',
  z: 'sets HTML cell attributes',
  E: 'sets a TLS client certificate',
  I: 'disables TLS SNI'
}
/**
 * Every flag's long form (autocannon's and oha's convention; ab has none), and our own long flags.
 * @type {Record<string, BooleanFlag>}
 */
const LONG = {
  help: 'h',
  version: 'V',
  json: 'json',
  'http1.1': 'http11',
  http2: 'http2',
  h2: 'http2',
  keepalive: 'k',
  head: 'i',
  'variable-length': 'l',
  'continue-on-receive-error': 'r',
  quiet: 'q',
  'no-percentiles': 'd',
  'no-confidence': 'S',
  html: 'w',
  dashboard: 'dashboard'
}
/** @type {Record<string, ValueFlag>} long flags that take a value (`--name value` or `--name=value`) */
const LONG_WITH_VALUE = {
  requests: 'n',
  concurrency: 'c',
  timelimit: 't',
  timeout: 's',
  'body-file': 'p',
  'put-file': 'u',
  'content-type': 'T',
  method: 'm',
  header: 'H',
  cookie: 'C',
  auth: 'A',
  'proxy-auth': 'P',
  gnuplot: 'g',
  csv: 'e',
  verbosity: 'v',
  rate: 'R',
  ramp: 'ramp',
  ciphers: 'Z',
  'tls-protocol': 'f',
  'response-timeout': 'responseTimeout',
  unix: 'unix',
  segment: 'segment',
  'start-at': 'startAt',
  'hdr-log': 'hdrLog',
  workers: 'workers',
  'dashboard-port': 'dashboardPort',
  'dashboard-host': 'dashboardHost',
  'secret-header': 'secretHeader',
  streams: 'streams',
  'max-concurrent-streams': 'streams'
}

/**
 * Split argv into [flag, value] pairs and positionals, as getopt does for ab: `-kc 20`, `-n100`,
 * `-c20`, `--` ends the flags. Unlike ab, flags may also follow the URL (ab refuses that).
 * @param {string[]} argv
 */
function tokenize (argv) {
  /** @type {FlagToken[]} */
  const flags = []
  const positionals = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') { positionals.push(...argv.slice(i + 1)); break }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      const name = arg.slice(2, eq === -1 ? undefined : eq)
      if (Object.hasOwn(LONG_WITH_VALUE, name)) {
        const flag = `--${name}`
        if (eq === -1 && i + 1 >= argv.length) throw new MissingArgumentError(`${flag} needs a value`)
        flags.push({ flag, name: LONG_WITH_VALUE[name], value: eq === -1 ? argv[++i] : arg.slice(eq + 1) })
        continue
      }
      if (!Object.hasOwn(LONG, name)) throw new UnknownOptionError(`unknown option "${arg}" (see syncbench ab --help)`)
      flags.push({ flag: arg, name: LONG[name] })
      continue
    }
    if (!arg.startsWith('-') || arg === '-') { positionals.push(arg); continue }
    for (let j = 1; j < arg.length; j++) {
      const ch = arg[j]
      const flag = `-${ch}`
      if (Object.hasOwn(UNSUPPORTED, ch)) {
        throw new UnknownOptionError(`${flag} (ab's flag that ${UNSUPPORTED[ch]}) is not supported by syncbench ab`)
      }
      // BOOLEAN and WITH_VALUE hold the names of BooleanFlag and ValueFlag
      if (BOOLEAN.has(ch)) { flags.push({ flag, name: /** @type {BooleanFlag} */ (ch) }); continue }
      if (!WITH_VALUE.has(ch)) throw new UnknownOptionError(`unknown option "${flag}" (see syncbench ab --help)`)
      // getopt: the rest of the cluster is the value, else the next argument
      let value = arg.slice(j + 1)
      if (value === '') {
        if (i + 1 >= argv.length) throw new MissingArgumentError(`${flag} needs a value`)
        value = argv[++i]
      }
      flags.push({ flag, name: /** @type {ValueFlag} */ (ch), value })
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
  // as the messages show it: a credential in it starred
  const shown = redactUrl(raw)
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)
  const https = scheme !== null && scheme[1].toLowerCase() === 'https'
  if (scheme && scheme[1].toLowerCase() !== 'http' && !https) {
    throw new InvalidUrlError(`only http:// and https:// URLs are supported (no ${scheme[1]}), got "${shown}"`)
  }
  // new URL() drops a CR or LF silently, the request line would not: it would add header lines
  if (/[\r\n]/.test(raw)) throw new InvalidUrlError(`the URL must be on one line, got "${JSON.stringify(shown).slice(1, -1)}"`)
  const url = scheme ? raw : `http://${raw}`
  const rest = url.slice(https ? 8 : 7)
  const slash = rest.indexOf('/')
  // ab's rule: without a "/" after the host there is no path and the URL is invalid
  if (slash <= 0) throw new InvalidUrlError(`the URL needs a host and a path, as in http://127.0.0.1:8080/, got "${shown}"`)
  let parsed
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidUrlError(`the URL cannot be parsed, got "${shown}"`)
  }
  if (parsed.username || parsed.password) throw new InvalidUrlError(`the URL cannot carry credentials (use -A), got "${shown}"`)
  return url
}

/**
 * An output file's name as -g / -e give it: ab cannot open "" and exits 1; so do we, before any load.
 * @param {string} flag
 * @param {string} file
 */
function fileName (flag, file) {
  if (file === '') throw invalidOption(flag, file, 'needs a file name')
  return file
}

/**
 * The -p / -u body as ab reads it: as many bytes as stat gives the file (ab's apr_file_info_get,
 * then apr_file_read_full of that size). A device or a FIFO has size 0, so /dev/null posts nothing
 * and /dev/zero, /dev/urandom or a FIFO are not read forever.
 * @param {string} flag
 * @param {string} file
 */
export function readBody (flag, file) {
  try {
    const info = statSync(file)
    if (!info.isFile() && !info.isDirectory()) return Buffer.alloc(0)
    return readFileSync(file)
  } catch (err) {
    // the file system's refusal (ENOENT, EACCES, EISDIR...) is the user's; anything else is a bug
    const code = systemCode(err)
    if (code === undefined) throw err
    throw new InvalidOptionError(`${flag} cannot read "${file}": ${systemReason(code)}`, { cause: err })
  }
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
    hdrLog: null,
    heartbeat: 0,
    dashboard: false,
    dashboardPort: 0,
    dashboardHost: null
  }
  // ab's defaults, from the one table of option rules
  let requests = defaultOptions.requests
  let concurrency = defaultOptions.concurrency
  let requestsFlag = '-n'
  /** -n was typed (and not overridden by a -t after it) */
  let requestsGiven = false
  let rawConcurrency = String(concurrency)
  let timelimit = defaultOptions.timelimit
  let timeout = defaultOptions.timeout
  let responseTimeout = defaultOptions.responseTimeout
  /** @type {number|undefined} */
  let rate
  /** @type {number|undefined} a ramp's: -R FROM..TO's TO, and --ramp's duration */
  let rampTo
  /** @type {number|undefined} */
  let ramp
  let rawRate = ''
  let rawRamp = ''
  /** @type {import('../types.js').Segment|undefined} */
  let segment
  /** @type {string|undefined} */
  let startAt
  let workers = defaultOptions.workers
  let rawWorkers = String(workers)
  /** @type {string|null} */
  let method = null
  /** @type {string|null} */
  let methodFlag = null
  /** the method and its flag before -m replaced them (-p's POST), kept if -m turns out to give streams */
  let beforeM = { method: /** @type {string|null} */ (null), methodFlag: /** @type {string|null} */ (null) }
  /** @type {Buffer|undefined} */
  let body
  /** @type {string|undefined} */
  let contentType
  /** @type {string|undefined} */
  let auth
  /** @type {string|undefined} */
  let proxyAuth
  let verbosity = defaultOptions.verbosity
  let http11 = defaultOptions.http11
  let http2 = false
  /** @type {number|undefined} */
  let streams
  let rawStreams = ''
  let continueOnReceiveError = defaultOptions.continueOnReceiveError
  /** @type {string|undefined} */
  let ciphers
  /** @type {import('../types.js').TlsProtocol|undefined} */
  let tlsProtocol
  /** @type {string|undefined} */
  let socketPath
  /** @type {string[]} */
  const headers = []
  /** @type {string[]} */
  const cookies = []
  /** @type {string[]} */
  const secretHeaders = []

  // ab refuses a second method flag, except -m which may replace an earlier one
  /** @param {string} flag @param {string} name */
  const setMethod = (flag, name) => {
    if (method !== null) throw new InvalidOptionError(`${flag} cannot be combined with ${methodFlag}: ab sends one method (${method} already chosen)`)
    method = name
    methodFlag = flag
  }

  for (const token of flags) {
    const flag = token.flag
    switch (token.name) {
      case 'h': output.help = true; break
      case 'V': output.version = true; break
      case 'json': output.json = true; break
      case 'http11': http11 = true; break
      case 'http2': http2 = true; break
      case 'streams': streams = parseLoadArg('streams', flag, token.value); rawStreams = token.value; break
      case 'n': requests = parseLoadArg('requests', flag, token.value); requestsFlag = '-n'; requestsGiven = true; break
      // ab's rule: -t sets -n to 50000, so a -n before -t is overridden and a -n after it wins
      case 't': timelimit = parseLoadArg('timelimit', flag, token.value); requests = TIMELIMIT_REQUESTS; requestsFlag = `-t (which implies -n ${TIMELIMIT_REQUESTS})`; requestsGiven = false; break
      case 'c': concurrency = parseLoadArg('concurrency', flag, token.value); rawConcurrency = token.value; break
      case 's': timeout = parseLoadArg('timeout', flag, token.value); break
      case 'responseTimeout': responseTimeout = parseLoadArg('responseTimeout', flag, token.value); break
      case 'R':
        rawRate = token.value
        if (isRampRange(token.value)) ({ rate, rampTo } = parseRampRange(flag, token.value))
        else { rate = parseLoadArg('rate', flag, token.value); rampTo = undefined }
        break
      case 'ramp': ramp = parseLoadArg('ramp', flag, token.value); rawRamp = token.value; break
      case 'segment': segment = parseLoadArg('segment', flag, token.value); break
      case 'startAt': startAt = parseLoadArg('startAt', flag, token.value); break
      case 'hdrLog': output.hdrLog = fileName(flag, token.value); break
      case 'dashboard': output.dashboard = true; break
      case 'dashboardPort': output.dashboardPort = /** @type {number} */ (integerOption(flag, token.value, 0, 65535)); break
      case 'dashboardHost':
        if (token.value === '' || /[\s/]/.test(token.value)) throw invalidOption(flag, token.value, 'must be an IP address or host name of this machine')
        output.dashboardHost = token.value
        break
      case 'workers': workers = parseLoadArg('workers', flag, token.value); rawWorkers = token.value; break
      case 'k': output.keepAlive = true; break
      case 'q': output.quiet = true; break
      case 'd': output.percentiles = false; break
      case 'S': output.confidence = false; break
      case 'w': output.html = true; break
      case 'l': output.variableLength = true; break
      case 'r': continueOnReceiveError = true; break
      case 'i': setMethod(flag, 'HEAD'); break
      case 'p': setMethod(flag, 'POST'); body = readBody(flag, token.value); output.sendBody = true; break
      case 'u': setMethod(flag, 'PUT'); body = readBody(flag, token.value); output.sendBody = true; break
      case 'm':
        if (methodFlag !== '-m') beforeM = { method, methodFlag }
        method = parseLoadArg('method', flag, token.value)
        methodFlag = flag
        break
      case 'T': contentType = parseLoadArg('contentType', flag, token.value); break
      case 'v': verbosity = parseLoadArg('verbosity', flag, token.value); break
      case 'H': headers.push(parseLoadArg('headers', flag, token.value)); break
      case 'C': cookies.push(parseLoadArg('cookies', flag, token.value)); break
      case 'secretHeader': secretHeaders.push(parseLoadArg('secretHeaders', flag, token.value)); break
      // ab skips leading blanks of the credentials
      case 'A': auth = token.value.trimStart(); break
      case 'P': proxyAuth = token.value.trimStart(); break
      case 'g': output.gnuplot = fileName(flag, token.value); break
      case 'e': output.csv = fileName(flag, token.value); break
      case 'Z': ciphers = parseLoadArg('ciphers', flag, token.value); break
      case 'f': tlsProtocol = /** @type {import('../types.js').TlsProtocol} */ (parseLoadArg('tlsProtocol', flag, token.value)); break
      case 'unix': socketPath = parseLoadArg('socketPath', flag, token.value); break
    }
  }

  if (output.help || output.version) return { options: { url: '' }, output }
  // a port or host without --dashboard would be silently ignored
  for (const [flag, given] of /** @type {const} */ ([['--dashboard-port', flags.find((t) => t.name === 'dashboardPort')], ['--dashboard-host', flags.find((t) => t.name === 'dashboardHost')]])) {
    if (given !== undefined && 'value' in given && !output.dashboard) throw invalidOption(flag, given.value, 'applies to --dashboard only')
  }

  if (positionals.length === 0) throw new MissingArgumentError('missing the URL to test, as in syncbench ab -n 100 http://127.0.0.1:8080/')
  if (positionals.length > 1) throw new InvalidOptionError(`expected one URL, got ${positionals.length} arguments: "${positionals.join('" "')}"`)
  const url = parseUrl(positionals[0])
  checkTlsOptions({ ciphers, tlsProtocol }, /^https:/i.test(url), argvSpelling)
  // under --http2, -m with a number is h2load's -m (streams per connection): no method is called "10"
  if (http2 && methodFlag === '-m' && /^\d+$/.test(method ?? '')) {
    if (streams !== undefined) throw invalidOption('-m', method, `sets the streams per connection as --streams does: give one of them (--streams ${rawStreams})`)
    rawStreams = method ?? ''
    streams = parseLoadArg('streams', '-m', rawStreams)
    ;({ method, methodFlag } = beforeM)
  }
  checkHttp2({ http2, streams, http11 }, argvSpelling, rawStreams)
  // -k under --http2 changes nothing (a connection carries every next request): no Keep-Alive line either
  if (http2) output.keepAlive = false
  if (socketPath !== undefined) checkUnixSocket(socketPath, '--unix')

  checkRamp({ rate, rampTo, ramp }, argvSpelling, { rate: rawRate, ramp: rawRamp })
  // open loop: -t implies the requests due within it rather than ab's 50000 (a -n after -t still
  // wins); a ramp without -t or -n, the requests it schedules over its duration
  if (rate !== undefined && timelimit > 0 && requestsFlag !== '-n') {
    requests = defaultRequests({ timelimit, rate, rampTo, ramp })
    requestsFlag = `-t ${timelimit} with -R ${rawRate}, which implies -n`
  } else if (ramp !== undefined && !requestsGiven) {
    requests = defaultRequests({ timelimit, rate, rampTo, ramp })
    requestsFlag = `-R ${rawRate} --ramp ${rawRamp}, which implies -n`
  }
  checkConcurrencyWithinRequests(concurrency, requests, argvSpelling, { requests: `${requestsFlag} ${requests}`, got: rawConcurrency })
  // refused here, with the flags as typed, rather than by loadtest() after the banner; each worker
  // holds at least one of this process's connections (its shard's, with --segment)
  const ownConcurrency = segment === undefined ? concurrency : segmentShares({ requests, concurrency, rate }, segment, argvSpelling).concurrency
  checkWorkersWithinConcurrency(workers, ownConcurrency, argvSpelling, rawWorkers)
  if (output.sendBody && contentType === undefined) contentType = 'text/plain'

  /** @type {import('../types.js').LoadOptions} */
  const options = {
    url,
    requests,
    concurrency,
    timelimit,
    timeout,
    responseTimeout,
    keepAlive: output.keepAlive,
    method: method ?? 'GET',
    headers,
    cookies,
    variableLength: output.variableLength,
    continueOnReceiveError,
    http11,
    verbosity,
    workers
  }
  if (auth !== undefined) options.auth = auth
  if (proxyAuth !== undefined) options.proxyAuth = proxyAuth
  if (secretHeaders.length > 0) options.secretHeaders = secretHeaders
  if (rate !== undefined) options.rate = rate
  if (rampTo !== undefined && ramp !== undefined) {
    options.rampTo = rampTo
    options.ramp = ramp
  }
  if (ciphers !== undefined) options.ciphers = ciphers
  if (tlsProtocol !== undefined) options.tlsProtocol = tlsProtocol
  if (socketPath !== undefined) options.socketPath = socketPath
  if (http2) options.http2 = true
  if (streams !== undefined) options.streams = streams
  if (segment !== undefined) options.segment = segment
  if (startAt !== undefined) options.startAt = startAt
  if (body !== undefined) options.body = body
  if (output.sendBody) options.contentType = contentType
  output.heartbeat = output.quiet ? 0 : defaultHeartbeat(requests)
  return { options, output }
}
