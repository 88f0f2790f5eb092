// The load options' rules, each written once: its LoadOptions name, ab's flag, its default, its bounds
// and what a good value looks like. Every way in checks through this table: parseAbArgs (argv text),
// loadtest() (values from a program), an experiment file's load section, syncbench run's -n / -c. So a
// bad value is refused everywhere with InvalidOptionError and the same words; only the option's name
// in the message follows the caller's spelling of it (see Spelling): "-c" on the command line,
// "-c (concurrency)" from the API, "load.concurrency" in an experiment file.
import { InvalidOptionError, invalidOption } from '../errors.js'
import { durationSeconds } from '../args.js'
import { routeProblem, routeName } from './routes.js'
import { STARS, redactCookies, redactHeaderLine } from '../redact.js'
import { rateShape, requestsWithin } from './schedule.js'

/** ab's -f values (lib/load/tls.js maps them to Node's protocol bounds; kept here so that a plain run never loads node:tls). */
const TLS_PROTOCOLS = { ALL: true, TLS1: true, 'TLS1.1': true, 'TLS1.2': true, 'TLS1.3': true }
export const TLS_PROTOCOL_NAMES = Object.keys(TLS_PROTOCOLS).join(', ')

/** ab's MAX_CONCURRENCY. Also a guard for the API: every connection is allocated before the run. */
export const MAX_CONCURRENCY = 20000
/** ab's MAX_REQUESTS: what -t sets -n to. */
export const TIMELIMIT_REQUESTS = 50000

/**
 * The progress interval when none is given (LoadOptions.heartbeat): ab's, every 10% of the requests,
 * at least 100 apart, none for 150 requests or fewer.
 * @param {number} requests
 */
export function defaultHeartbeat (requests) {
  return requests <= 150 ? 0 : Math.max(Math.floor(requests / 10), 100)
}

/**
 * The largest -n: ab keeps -n in a C int and refuses it once atoi's value is not positive
 * (ab -n 1000000000000 says "Invalid number of requests"), so INT_MAX is the most it can run.
 * syncbench refuses anything above, rather than wrapping as atoi does.
 */
export const MAX_REQUESTS = 2 ** 31 - 1

/**
 * -R's bound, requests per second. Far above what one generator core holds (npm run bench measures
 * it): the bound only refuses a typo, such as a rate whose interval is below a nanosecond's float noise.
 */
export const MAX_RATE = 1_000_000

/**
 * --workers' bound: threads of one process. Far above the cores of the machines syncbench runs on
 * (each worker holds a V8 isolate, ~10 MB); the bound refuses a typo, not a choice.
 */
export const MAX_WORKERS = 64

/**
 * --streams' bound: concurrent streams per HTTP/2 connection. Servers allow 100 to 1000 (nghttp2's
 * default is 100, Node's 4294967295); the bound refuses a typo.
 */
export const MAX_STREAMS = 10000

/** --response-timeout's bound, in seconds: a day. */
export const MAX_RESPONSE_TIMEOUT = 86400

/**
 * --start-at's bounds, in seconds from now. A time this little in the past starts at once (a shard's
 * process may be scheduled a moment late); one further past would skew the union of the shards' time
 * windows, and one further ahead is more likely a typo (a date, a time zone) than a plan: a scheduler
 * (cron, a Kubernetes CronJob) starts runs hours ahead, syncbench only lines shards up.
 */
export const START_AT_LATE_SECONDS = 1
export const START_AT_AHEAD_SECONDS = 3600

/** --start-at's text: an ISO 8601 date and time with seconds optional, milliseconds at most, and a time zone (Z or +hh:mm). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/

/** RFC 9110 token: what a method, or a header's name, may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_NAME_COLON = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/
const CR_LF = /[\r\n]/

/**
 * One load option. `check` and `expected` are the single source of its messages: every refusal reads
 * `<the option as the caller spells it> <expected>, got "<value>"`.
 * @typedef {object} OptionRule
 * @property {keyof import('../types.js').LoadOptions} name  the LoadOptions property
 * @property {string|null} flag      ab's flag for it; null for options only a program sets (callbacks)
 * @property {(value: unknown) => string|null} check  null for a good value, else the expected text
 *                                   ("must be a positive integer"); for a list option, of one item
 * @property {(raw: string) => unknown} [fromArg]  argv text to value; text of the wrong shape gives
 *                                   NaN, which check refuses (absent: the text is the value)
 * @property {number} [min]          bounds of a number, for callers that print them (syncbench run)
 * @property {number} [max]
 * @property {string} [list]         an array of such values (-H, -C): what the array must be
 * @property {unknown} [default]     ab's default (absent: none, or computed by normalizeLoadOptions)
 * @property {(raw: string) => string} [shownAs]  how a refused value is quoted, when it may hold a
 *                                   credential (lib/redact.js); absent: as typed
 */

/**
 * How an entry point names an option in its messages.
 * @typedef {(rule: OptionRule) => string} Spelling
 */

/** The command line: ab's flag, as the user typed it. */
export const argvSpelling = (/** @type {OptionRule} */ rule) => rule.flag ?? rule.name
/**
 * A program calling loadtest(): the property it set. ab's flag comes first, as the CLI's messages put
 * it, so one pattern (/^-c /) matches a refusal from either.
 */
export const apiSpelling = (/** @type {OptionRule} */ rule) => rule.flag === null ? rule.name : `${rule.flag} (${rule.name})`
/**
 * A section of a data file, such as an experiment's `load`: the key path.
 * @param {string} prefix e.g. "load."
 * @returns {Spelling}
 */
export const keySpelling = (prefix) => (rule) => `${prefix}${rule.name}`

/**
 * @param {number} min 0 or 1
 * @param {number} [max]
 * @returns {Pick<OptionRule, 'check'|'fromArg'|'min'|'max'>}
 */
function integer (min, max = Number.MAX_SAFE_INTEGER) {
  const expected = min === 1 ? 'must be a positive integer' : 'must be a non-negative integer'
  return {
    min,
    max,
    fromArg: (raw) => /^\d+$/.test(raw) ? Number(raw) : NaN,
    check: (v) => typeof v !== 'number' || !Number.isInteger(v) || v < min ? expected : v > max ? `must be at most ${max}` : null
  }
}

/**
 * @param {boolean} allowZero -t may be 0 (no time limit), -s may not
 * @returns {Pick<OptionRule, 'check'|'fromArg'|'min'>}
 */
function seconds (allowZero) {
  const expected = `must be a ${allowZero ? 'non-negative' : 'positive'} number of seconds or a duration (500ms, 10s, 2m)`
  return {
    min: 0,
    // ab's strtod would take "1e3" or "0x10"; a plain decimal is what anybody means, or a duration
    fromArg: (raw) => durationSeconds(raw),
    check: (v) => typeof v === 'number' && Number.isFinite(v) && (v > 0 || (allowZero && v === 0)) ? null : expected
  }
}

export { durationSeconds }

/** @type {Pick<OptionRule, 'check'>} */
const boolean = { check: (v) => typeof v === 'boolean' ? null : 'must be true or false' }
/** @type {Pick<OptionRule, 'check'>} */
const text = { check: (v) => typeof v === 'string' ? null : 'must be a string' }
/**
 * --segment's text "i/N" (0-based: the first shard is 0/N) to { index, count }; NaN when malformed.
 * @param {string} raw
 */
function segmentFromArg (raw) {
  const m = /^(\d+)\/(\d+)$/.exec(raw)
  return m ? { index: Number(m[1]), count: Number(m[2]) } : NaN
}

/** @param {unknown} v */
function segmentProblem (v) {
  const s = /** @type {{ index?: unknown, count?: unknown }|null} */ (v)
  const shape = 'must be i/N, shard i of N counted from 0 (0/2 and 1/2 for two shards)'
  if (s === null || typeof s !== 'object' || !Number.isInteger(s.index) || !Number.isInteger(s.count)) return shape
  const index = /** @type {number} */ (s.index)
  const count = /** @type {number} */ (s.count)
  if (count < 1 || count > MAX_CONCURRENCY) return `must have 1 <= N <= ${MAX_CONCURRENCY} shards (each takes at least one connection)`
  if (index < 0 || index >= count) return `must have 0 <= i < N (counted from 0: the last of ${count} shards is ${count - 1}/${count})`
  return null
}

/**
 * --start-at: a wall-clock time a little in the past at most, an hour ahead at most (checked against
 * the clock when the option is read).
 * @param {unknown} v
 */
function startAtProblem (v) {
  if (typeof v !== 'string' || !ISO_TIME.test(v) || Number.isNaN(Date.parse(v))) return 'must be an ISO 8601 time with a time zone, as in 2026-11-23T18:30:00Z'
  const ahead = (Date.parse(v) - Date.now()) / 1000
  if (ahead < -START_AT_LATE_SECONDS) return `must not be more than ${START_AT_LATE_SECONDS} s in the past (it is ${(-ahead).toFixed(1)} s past)`
  if (ahead > START_AT_AHEAD_SECONDS) return `must be at most ${START_AT_AHEAD_SECONDS} s ahead (it is ${ahead.toFixed(0)} s ahead)`
  return null
}

/** -R's value, and each end of a ramp's. @param {unknown} v */
function rateProblem (v) {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return 'must be a positive number of requests per second'
  return v > MAX_RATE ? `must be at most ${MAX_RATE} requests per second` : null
}

/** -R's text as a number: a plain decimal, as -t ("1e3" or "0x10" are refused). @param {string} raw */
const rateFromArg = (raw) => /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN

/** -R FROM..TO: a ramp's two ends. */
const RAMP_RANGE = /^([^.]*(?:\.\d+)?)\.\.(.*)$/

/** @type {Pick<OptionRule, 'check'>} */
const callback = { check: (v) => typeof v === 'function' ? null : 'must be a function' }

/** @type {OptionRule[]} */
const rules = [
  // requests' default is 1, or TIMELIMIT_REQUESTS with a time limit (ab's -t implies -n 50000)
  { name: 'requests', flag: '-n', ...integer(1, MAX_REQUESTS), default: 1 },
  { name: 'concurrency', flag: '-c', ...integer(1, MAX_CONCURRENCY), default: 1 },
  { name: 'timelimit', flag: '-t', ...seconds(true), default: 0 },
  // open loop (wrk2's -R): total requests per second over all connections; absent: ab's closed loop
  { name: 'rate', flag: '-R', min: 0, max: MAX_RATE, fromArg: rateFromArg, check: rateProblem },
  // a ramp (-R FROM..TO --ramp T; schedule.js): `rate` is FROM, the rate at the start; rampTo is TO,
  // the rate at the ramp's end and after it (below FROM: a falling ramp); ramp is its duration
  { name: 'rampTo', flag: '-R', min: 0, max: MAX_RATE, fromArg: rateFromArg, check: rateProblem },
  { name: 'ramp', flag: '--ramp', ...seconds(false) },
  // many machines: this process is shard i of N and takes its share of -n, -c and -R (segmentShares)
  { name: 'segment', flag: '--segment', fromArg: segmentFromArg, check: segmentProblem },
  // many machines: wait until this wall-clock moment before starting (every shard the same one)
  { name: 'startAt', flag: '--start-at', check: startAtProblem },
  // threads the run is split over (workers.js); 1: the run stays on the calling thread (measured best on 2 cores: docs/ab.md)
  { name: 'workers', flag: '--workers', ...integer(1, MAX_WORKERS), default: 1 },
  { name: 'timeout', flag: '-s', ...seconds(false), default: 30 },
  // our own bound (ab has none): the longest one response may take, in total; 0: none. A day at most,
  // so the engine's one timer never needs more than a few turns.
  { name: 'responseTimeout', flag: '--response-timeout', ...seconds(true), max: MAX_RESPONSE_TIMEOUT, check: (v) => seconds(true).check(v) ?? (/** @type {number} */ (v) > MAX_RESPONSE_TIMEOUT ? `must be at most ${MAX_RESPONSE_TIMEOUT} seconds` : null), default: 0 },
  { name: 'keepAlive', flag: '-k', ...boolean, default: false },
  // method's default is POST with a body, else GET (ab's -p; -i and -u set it in parseAbArgs)
  { name: 'method', flag: '-m', check: (v) => typeof v === 'string' && TOKEN.test(v) ? null : 'must be an HTTP method token' },
  {
    name: 'headers',
    flag: '-H',
    list: 'must be an array of header lines "Name: value"',
    check: (v) => typeof v === 'string' && HEADER_NAME_COLON.test(v) && !CR_LF.test(v) ? null : 'must be a header line "Name: value"',
    shownAs: redactHeaderLine,
    default: Object.freeze([])
  },
  {
    name: 'cookies',
    flag: '-C',
    list: 'must be an array of cookies "name=value"',
    check: (v) => typeof v === 'string' && !CR_LF.test(v) ? null : 'must be a cookie "name=value" on one line',
    shownAs: (raw) => redactCookies(raw),
    default: Object.freeze([])
  },
  { name: 'auth', flag: '-A', ...text, shownAs: () => STARS },
  { name: 'proxyAuth', flag: '-P', ...text, shownAs: () => STARS },
  // names only: their values are starred where written or printed (lib/redact.js), never changed in requests
  {
    name: 'secretHeaders',
    flag: '--secret-header',
    list: 'must be an array of header names',
    check: (v) => typeof v === 'string' && TOKEN.test(v) ? null : 'must be a header name'
  },
  { name: 'body', flag: '-p', check: (v) => Buffer.isBuffer(v) ? null : 'must be a Buffer' },
  // on one line, as -H: a CR or LF would put header lines of its own into every request
  { name: 'contentType', flag: '-T', check: (v) => typeof v === 'string' && !CR_LF.test(v) ? null : 'must be a content type on one line' },
  // a mix of routes in one run (routes.js): each connection carries one route, shared out by weight
  { name: 'routes', flag: null, list: 'must be a non-empty array of routes { path, method?, name?, headers?, body?, contentType?, weight? }', check: routeProblem },
  { name: 'variableLength', flag: '-l', ...boolean, default: false },
  { name: 'continueOnReceiveError', flag: '-r', ...boolean, default: false },
  { name: 'http11', flag: '--http1.1', ...boolean, default: false },
  // no default on purpose: absent is HTTP/1, and an HTTP/1 run's recorded options stay as they were
  { name: 'http2', flag: '--http2', ...boolean },
  // h2load's -m (ab's -m is the method): concurrent streams per connection, --http2 only
  { name: 'streams', flag: '--streams', ...integer(1, MAX_STREAMS) },
  // https:// only (ab's -Z and -f; lib/load/tls.js): an OpenSSL cipher list, checked against OpenSSL
  // when the run's TLS context is made; the protocol as ab names it (SSL2 and SSL3 are not in Node)
  { name: 'ciphers', flag: '-Z', check: (v) => typeof v === 'string' && v !== '' && !CR_LF.test(v) ? null : 'must be an OpenSSL cipher list' },
  {
    name: 'tlsProtocol',
    flag: '-f',
    fromArg: (raw) => raw.toUpperCase(),
    check: (v) => typeof v === 'string' && Object.hasOwn(TLS_PROTOCOLS, v) ? null : `must be one of ${TLS_PROTOCOL_NAMES} (SSL2 and SSL3 are not supported: Node's OpenSSL has neither)`
  },
  // --unix: the server's unix socket; the URL still gives the Host header and the path
  { name: 'socketPath', flag: '--unix', check: (v) => typeof v === 'string' && v !== '' ? null : 'must be the path of a unix socket' },
  { name: 'verbosity', flag: '-v', ...integer(0), default: 1 },
  { name: 'heartbeat', flag: null, ...integer(0) },
  { name: 'onProgress', flag: null, ...callback },
  { name: 'onRequest', flag: null, ...callback },
  { name: 'series', flag: null, ...boolean },
  { name: 'onSecond', flag: null, ...callback },
  // a program's own HTTP/2 connection for the run's first connection (lib/load/h2-shared.js)
  {
    name: 'http2Session',
    flag: null,
    check: (v) => {
      const shared = /** @type {{ lease?: unknown, giveBack?: unknown }|null} */ (v)
      return shared !== null && typeof shared === 'object' && typeof shared.lease === 'function' && typeof shared.giveBack === 'function' ? null : 'must be a shared HTTP/2 connection (openSharedConnection) past its SETTINGS'
    }
  },
  {
    name: 'signal',
    flag: null,
    // duck-typed as the engine uses it, so an AbortSignal from another realm or polyfill also works
    check: (v) => {
      const signal = /** @type {{ aborted?: unknown, addEventListener?: unknown }|null} */ (v)
      const like = signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function'
      return v instanceof AbortSignal || like ? null : 'must be an AbortSignal'
    }
  }
]

/** Every load option, in the order their checks run. */
export const loadOptionRules = Object.freeze(rules.map((rule) => Object.freeze(rule)))

/** @type {Map<string, OptionRule>} */
const byName = new Map(loadOptionRules.map((rule) => [rule.name, rule]))

/**
 * The rule of one load option.
 * @param {string} name a LoadOptions property
 * @returns {OptionRule}
 */
export function loadOptionRule (name) {
  const rule = byName.get(name)
  if (rule === undefined) throw new TypeError(`no load option "${name}"`)
  return rule
}

/**
 * ab's defaults, in LoadOptions terms (requests and method have computed defaults too: see
 * normalizeLoadOptions).
 */
export const defaultOptions = /** @type {Readonly<{ requests: number, concurrency: number, timelimit: number, timeout: number, responseTimeout: number, keepAlive: boolean, headers: readonly string[], cookies: readonly string[], variableLength: boolean, continueOnReceiveError: boolean, http11: boolean, verbosity: number, workers: number }>} */ (Object.freeze(Object.fromEntries(
  loadOptionRules.filter((rule) => rule.default !== undefined).map((rule) => [rule.name, rule.default])
)))

/**
 * A value as a message shows it: strings on one line (a CR or LF shown escaped), objects by kind.
 * @param {unknown} value
 * @returns {string}
 */
function shown (value) {
  if (typeof value === 'string') return JSON.stringify(value).slice(1, -1)
  if (typeof value === 'function') return 'function'
  if (Buffer.isBuffer(value)) return 'Buffer'
  if (Array.isArray(value)) return 'array'
  if (value !== null && typeof value === 'object') return 'object'
  return String(value)
}

/**
 * The value of one LoadOptions property as the command line gives it: one item of a list option.
 * @template {keyof import('../types.js').LoadOptions} K
 * @typedef {NonNullable<import('../types.js').LoadOptions[K]> extends (infer T)[] ? T : NonNullable<import('../types.js').LoadOptions[K]>} ArgValue
 */

/**
 * One command-line value, text as typed, to its LoadOptions value. For a list option (-H, -C), one item.
 * @template {keyof import('../types.js').LoadOptions} K
 * @param {K} name a LoadOptions property
 * @param {string} flag as the user typed it
 * @param {string} raw
 * @returns {ArgValue<K>}
 */
export function parseLoadArg (name, flag, raw) {
  const rule = loadOptionRule(name)
  const value = rule.fromArg ? rule.fromArg(raw) : raw
  const expected = rule.check(value)
  // the value as typed: the user recognises it (a credential starred); only a CR or LF is shown
  // escaped, so the message stays one line
  if (expected !== null) throw invalidOption(flag, (rule.shownAs?.(raw) ?? raw).replace(/\r/g, '\\r').replace(/\n/g, '\\n'), expected)
  // the rule's check accepted it: a value of the option's type
  return /** @type {ArgValue<K>} */ (value)
}

/**
 * Check one option's value as a program or a data file gives it (undefined: not given, nothing to check).
 * @param {string} name a LoadOptions property
 * @param {unknown} value
 * @param {Spelling} spell
 */
export function checkLoadOption (name, value, spell) {
  if (value === undefined) return
  const rule = loadOptionRule(name)
  /** @param {unknown} v */
  const quoted = (v) => shown(typeof v === 'string' && rule.shownAs ? rule.shownAs(v) : v)
  if (rule.list === undefined) {
    const expected = rule.check(value)
    if (expected !== null) throw invalidOption(spell(rule), quoted(value), expected)
    return
  }
  if (!Array.isArray(value)) throw invalidOption(spell(rule), shown(value), rule.list)
  for (const item of value) {
    const expected = rule.check(item)
    if (expected !== null) throw invalidOption(spell(rule), quoted(item), expected)
  }
}

/**
 * Check every load option an object sets, in the table's order; properties that are not load options
 * are left alone (an experiment's load section may carry its own notes).
 * @param {Record<string, unknown>} values
 * @param {Spelling} spell
 */
export function checkLoadOptions (values, spell) {
  for (const rule of loadOptionRules) {
    if (Object.hasOwn(values, rule.name)) checkLoadOption(rule.name, values[rule.name], spell)
  }
}

/**
 * ab's rule across two options: no more requests in flight than requests to make.
 * @param {number} concurrency
 * @param {number} requests
 * @param {Spelling} spell
 * @param {{ requests?: string, got?: string }} [said] how the caller states the request count (ab: "-n 2",
 *        or "-t (which implies -n 50000) 50000") and the concurrency (as typed)
 */
export function checkConcurrencyWithinRequests (concurrency, requests, spell, said = {}) {
  if (concurrency <= requests) return
  const requestsSaid = said.requests ?? `${spell(loadOptionRule('requests'))} ${requests}`
  throw invalidOption(spell(loadOptionRule('concurrency')), said.got ?? shown(concurrency), `must not exceed the number of requests (${requestsSaid})`)
}

/**
 * -Z and -f speak to a TLS server: refused for an http:// URL rather than ignored.
 * @param {{ ciphers?: string, tlsProtocol?: string }} values
 * @param {boolean} tls the URL is https://
 * @param {Spelling} spell
 */
export function checkTlsOptions (values, tls, spell) {
  if (tls) return
  for (const name of ['ciphers', 'tlsProtocol']) {
    const value = /** @type {Record<string, unknown>} */ (values)[name]
    if (value !== undefined) throw invalidOption(spell(loadOptionRule(name)), shown(value), 'applies to https:// URLs only')
  }
}

/**
 * --workers' rule: each worker thread holds at least one of the -c connections.
 * @param {number} workers
 * @param {number} concurrency
 * @param {Spelling} spell
 * @param {string} [got] the workers as typed
 */
export function checkWorkersWithinConcurrency (workers, concurrency, spell, got) {
  if (workers <= concurrency) return
  throw invalidOption(spell(loadOptionRule('workers')), got ?? shown(workers), `must not exceed the concurrency (${spell(loadOptionRule('concurrency'))} ${concurrency}): each worker holds at least one connection`)
}

/**
 * --http2's combinations: --streams needs it; it does not speak --http1.1, runs one route. -k is
 * accepted and changes nothing (HTTP/2 keeps its connections open), so an ab command line takes --h2 as is.
 * @param {{ http2?: boolean, streams?: number, http11?: boolean, routes?: unknown }} o
 * @param {Spelling} spell
 * @param {string} [gotStreams] --streams as typed
 */
export function checkHttp2 (o, spell, gotStreams) {
  const flag = spell(loadOptionRule('http2'))
  if (o.http2 !== true) {
    if (o.streams !== undefined) throw invalidOption(spell(loadOptionRule('streams')), gotStreams ?? shown(o.streams), `applies to ${flag} only (concurrent streams per connection)`)
    return
  }
  /** @type {[string, boolean, string][]} */
  const refused = [
    ['http11', o.http11 === true, 'speaks HTTP/2, not HTTP/1.1'],
    ['routes', o.routes !== undefined, 'runs one route']
  ]
  for (const [name, given, why] of refused) {
    if (given) throw new InvalidOptionError(`${flag} cannot be combined with ${spell(loadOptionRule(name))}: it ${why}`)
  }
}

/**
 * -R FROM..TO's text to its two rates, each checked as -R's; throws naming -R and the text as typed.
 * @param {string} flag as the user typed it
 * @param {string} raw
 * @returns {{ rate: number, rampTo: number }}
 */
export function parseRampRange (flag, raw) {
  const m = RAMP_RANGE.exec(raw)
  const shape = 'must be FROM..TO, two positive numbers of requests per second (100..2000)'
  if (m === null) throw invalidOption(flag, raw, shape)
  const from = rateFromArg(m[1])
  const to = rateFromArg(m[2])
  for (const v of [from, to]) {
    const problem = rateProblem(v)
    if (problem !== null) throw invalidOption(flag, raw, Number.isNaN(v) ? shape : problem)
  }
  return { rate: from, rampTo: to }
}

/** -R's text is a ramp's range FROM..TO. @param {string} raw */
export function isRampRange (raw) {
  return raw.includes('..')
}

/**
 * A ramp's options go together: a range (rampTo) needs its duration (ramp) and a duration needs a
 * range, so that neither is silently ignored.
 * @param {{ rate?: number, rampTo?: number, ramp?: number }} o
 * @param {Spelling} spell
 * @param {{ rate?: string, ramp?: string }} [said] -R's and --ramp's values as typed
 */
export function checkRamp (o, spell, said = {}) {
  if (o.ramp !== undefined && (o.rampTo === undefined || o.rate === undefined)) {
    throw invalidOption(spell(loadOptionRule('ramp')), said.ramp ?? shown(o.ramp), `needs -R FROM..TO, the rates to ramp between (as ${RAMP_EXAMPLE})`)
  }
  if (o.rampTo !== undefined && o.ramp === undefined) {
    const range = said.rate ?? (o.rate === undefined ? shown(o.rampTo) : `${shown(o.rate)}..${shown(o.rampTo)}`)
    throw invalidOption(spell(loadOptionRule('rampTo')), range, `needs --ramp DURATION, the time the rate takes from FROM to TO (as ${RAMP_EXAMPLE})`)
  }
}

/** A ramp as the messages show one (its options as the command line spells them: the API's are rate, rampTo, ramp). */
const RAMP_EXAMPLE = '-R 100..2000 --ramp 20s'

/**
 * Shard `index` (0-based) of `count`'s share of `total`: the first total % count shards take one more,
 * so the shares differ by at most 1 and add up to total exactly. Shard i of the requests takes those
 * numbered i, i + N, i + 2N... of the whole run's schedule (k6's execution segments, simplified).
 * @param {number} total @param {number} index @param {number} count
 */
export function segmentShare (total, index, count) {
  return Math.floor(total / count) + (index < total % count ? 1 : 0)
}

/**
 * A shard's share of the whole run: its -n and -c (segmentShare) and its -R, rate / N. With -R, the
 * shard's requests are every N-th of the one schedule a single generator would follow (due at k / rate),
 * so shard i follows that schedule's requests i, i + N...: rate / N, its first one due i / rate after the
 * start (the offset loadtest() adds to --start-at).
 * @param {{ requests: number, concurrency: number, rate?: number }} totals
 * @param {{ index: number, count: number }} segment
 * @param {Spelling} spell
 * @returns {{ requests: number, concurrency: number, rate?: number, offsetMs: number }}
 */
export function segmentShares (totals, { index, count }, spell) {
  if (totals.concurrency < count) {
    throw invalidOption(spell(loadOptionRule('segment')), `${index}/${count}`, `needs at least one connection per shard: ${spell(loadOptionRule('concurrency'))} ${totals.concurrency} cannot be split over ${count} shards`)
  }
  const share = {
    requests: segmentShare(totals.requests, index, count),
    concurrency: segmentShare(totals.concurrency, index, count),
    offsetMs: 0
  }
  if (totals.rate === undefined) return share
  return { ...share, rate: totals.rate / count, offsetMs: index * 1000 / totals.rate }
}

/**
 * -n's default: 1, or under -t ab's 50000; under -R the requests whose intended time falls within -t
 * (at a constant rate, ceil(rate x t)), and on a ramp without -t those its schedule holds over its
 * duration; at most MAX_REQUESTS.
 * @param {{ timelimit?: number, rate?: number, rampTo?: number, ramp?: number }} o
 */
export function defaultRequests (o) {
  const shape = rateShape(o)
  const timelimit = o.timelimit ?? 0
  if (shape !== null && timelimit > 0) return Math.min(MAX_REQUESTS, requestsWithin(shape, timelimit))
  if (shape !== null && shape.seconds > 0) return Math.min(MAX_REQUESTS, requestsWithin(shape, shape.seconds))
  return timelimit > 0 ? TIMELIMIT_REQUESTS : 1
}

/**
 * LoadOptions with every default filled in; `interleave` is set for a ramp split over shards or
 * threads: this part takes the schedule's requests index, index + count... (schedule.js).
 * @typedef {Required<Pick<import('../types.js').LoadOptions, 'url'|'requests'|'concurrency'|'timelimit'|'timeout'|'keepAlive'|'method'|'headers'|'cookies'|'variableLength'|'continueOnReceiveError'|'http11'|'verbosity'|'workers'>> & import('../types.js').LoadOptions & { interleave?: { index: number, count: number } }} NormalizedLoadOptions
 */

/**
 * loadtest()'s way in: check every option as the CLI checks it (bounds included: no million
 * connections allocated from a typo) and fill in ab's defaults. Throws InvalidOptionError naming
 * the option as `-c (concurrency)`. The url is checked where it is parsed (request.js parseTarget).
 * @param {import('../types.js').LoadOptions} options
 * @returns {NormalizedLoadOptions}
 */
export function normalizeLoadOptions (options) {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionError(`options must be an object, got "${options}"`)
  }
  checkLoadOptions(/** @type {Record<string, unknown>} */ (options), apiSpelling)
  const o = /** @type {NormalizedLoadOptions} */ ({ ...defaultOptions, ...options })
  for (const rule of loadOptionRules) {
    // a property set to undefined is not given: it gets the default as an absent one does
    if (o[rule.name] === undefined && rule.default !== undefined) /** @type {Record<string, unknown>} */ (o)[rule.name] = rule.default
  }
  checkRamp(o, apiSpelling)
  if (options.requests === undefined) o.requests = defaultRequests(o)
  // fresh arrays: the shared frozen defaults must not reach a caller that pushes onto them
  if (options.headers === undefined) o.headers = []
  if (options.cookies === undefined) o.cookies = []
  if (o.method === undefined) o.method = o.body ? 'POST' : 'GET'
  checkConcurrencyWithinRequests(o.concurrency, o.requests, apiSpelling)
  if (o.segment !== undefined) {
    // this process runs its share; options.segment keeps the whole run's figures for the merge
    const { index, count } = o.segment
    const share = segmentShares(o, o.segment, apiSpelling)
    o.segment = { index, count, requests: o.requests, concurrency: o.concurrency, ...(o.rate === undefined ? {} : { rate: o.rate }) }
    o.requests = share.requests
    o.concurrency = share.concurrency
    // a ramp is not divided: this shard follows the one schedule's requests i, i + N... (schedule.js)
    if (o.ramp !== undefined) o.interleave = { index, count }
    else if (share.rate !== undefined) o.rate = share.rate
  }
  checkWorkersWithinConcurrency(o.workers, o.concurrency, apiSpelling)
  checkHttp2(o, apiSpelling)
  if (o.http2Session !== undefined) {
    // a session lives in this thread, and speaks HTTP/2 only
    if (o.http2 !== true) throw new InvalidOptionError(`http2Session applies to ${apiSpelling(loadOptionRule('http2'))} only`)
    if (o.workers > 1) throw new InvalidOptionError(`http2Session needs the run in this thread, not ${apiSpelling(loadOptionRule('workers'))} ${o.workers}`)
  }
  if (o.routes !== undefined) checkRoutes(o.routes, o.concurrency, o.workers, apiSpelling)
  return o
}

/**
 * A mix's routes as a whole: at least one, names that differ, and a connection for every route in
 * every worker (each worker shares out its own connections).
 * @param {readonly import('./routes.js').Route[]} routes each checked already (routeProblem)
 * @param {number} concurrency this process's share
 * @param {number} workers
 * @param {Spelling} spell
 */
export function checkRoutes (routes, concurrency, workers, spell) {
  const flag = spell(loadOptionRule('routes'))
  if (routes.length === 0) throw invalidOption(flag, 'none', 'must name at least one route')
  const seen = new Set()
  for (const route of routes) {
    const name = routeName(route)
    if (seen.has(name)) throw invalidOption(flag, name, 'must name each route once (give one a name)')
    seen.add(name)
  }
  const least = Math.floor(concurrency / workers)
  if (least < routes.length) {
    const per = workers > 1 ? ` in each of ${spell(loadOptionRule('workers'))} ${workers} workers` : ''
    throw invalidOption(spell(loadOptionRule('concurrency')), shown(concurrency), `must give each of the ${routes.length} routes a connection${per} (at least ${routes.length * workers})`)
  }
}
