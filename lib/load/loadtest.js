// loadtest(options) -> LoadResult: validate LoadOptions, resolve the host once, run the engine,
// and hand back the LoadResult (lib/types.js) that ab's counts (AbCounts) make of it.
import { SyncbenchError, invalidOption } from '../errors.js'
import { parseTarget, buildRequest, isIpAddress } from './request.js'
import { Engine } from './engine.js'
import { AbCounts } from './ab-counts.js'
import { AbFraming } from './ab-framing.js'
import { TIMELIMIT_REQUESTS, abHeartbeat } from './ab-args.js'

/** ab's defaults, in LoadOptions terms. */
export const defaultOptions = Object.freeze({
  requests: 1,
  concurrency: 1,
  timelimit: 0,
  timeout: 30,
  keepAlive: false,
  headers: [],
  cookies: [],
  variableLength: false,
  continueOnReceiveError: false,
  http11: false,
  verbosity: 1
})

function positiveInteger (flag, value) {
  if (!Number.isInteger(value) || value < 1) throw invalidOption(flag, value, 'must be a positive integer')
  return value
}

/** Each value must be a string that cannot break the request's lines. */
function checkLines (flag, values, expected) {
  if (!Array.isArray(values)) throw invalidOption(flag, typeof values, expected)
  const bad = values.find((v) => typeof v !== 'string' || /[\r\n]/.test(v))
  if (bad !== undefined) throw invalidOption(flag, JSON.stringify(bad).slice(1, -1), expected)
}

/**
 * Fill in ab's defaults and check every option loadtest() relies on.
 * @param {import('../types.js').LoadOptions} options
 * @returns {Required<Pick<import('../types.js').LoadOptions, 'url'|'requests'|'concurrency'|'timelimit'|'timeout'|'keepAlive'|'method'|'headers'|'cookies'|'variableLength'|'continueOnReceiveError'|'http11'|'verbosity'>> & import('../types.js').LoadOptions}
 */
export function normalizeOptions (options) {
  if (options === null || typeof options !== 'object') {
    throw new SyncbenchError('SB_ERR_INVALID_OPTION', `options must be an object, got "${options}"`)
  }
  const timelimit = options.timelimit ?? 0
  if (typeof timelimit !== 'number' || !(timelimit >= 0) || !Number.isFinite(timelimit)) {
    throw invalidOption('-t', timelimit, 'must be a number of seconds >= 0')
  }
  const o = {
    ...defaultOptions,
    ...options,
    requests: options.requests ?? (timelimit > 0 ? TIMELIMIT_REQUESTS : 1),
    headers: options.headers ?? [],
    cookies: options.cookies ?? [],
    timelimit
  }
  positiveInteger('-n', o.requests)
  positiveInteger('-c', o.concurrency)
  if (o.concurrency > o.requests) {
    throw invalidOption('-c', o.concurrency, `cannot be greater than the number of requests (-n ${o.requests})`)
  }
  if (typeof o.timeout !== 'number' || !(o.timeout > 0) || !Number.isFinite(o.timeout)) {
    throw invalidOption('-s', o.timeout, 'must be a number of seconds > 0')
  }
  if (o.body !== undefined && !Buffer.isBuffer(o.body)) throw invalidOption('-p', typeof o.body, 'body must be a Buffer')
  checkLines('-H', o.headers, 'must be header lines without CR or LF')
  checkLines('-C', o.cookies, 'must be cookies without CR or LF')
  o.method = o.method ?? (o.body ? 'POST' : 'GET')
  if (typeof o.method !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(o.method)) {
    throw invalidOption('-m', o.method, 'must be an HTTP method token')
  }
  if (o.heartbeat !== undefined && (!Number.isInteger(o.heartbeat) || o.heartbeat < 0)) {
    throw invalidOption('heartbeat', o.heartbeat, 'must be an integer >= 0')
  }
  return o
}

/**
 * The options as LoadResult records them: no functions, the body as its length.
 * @param {ReturnType<typeof normalizeOptions>} o
 */
function publicOptions (o) {
  const { body, onProgress, onRequest, signal, ...rest } = o
  return { ...rest, headers: [...o.headers], cookies: [...o.cookies], bodyBytes: body ? body.length : 0 }
}

/**
 * Run one load test the way ab does and resolve to its LoadResult. Throws SyncbenchError for bad
 * options, and where ab would abort the run (SB_ERR_CONNECT: refused, reset, over 10 connect
 * failures; SB_ERR_TIMEOUT: -s expired) with the partial LoadResult as `err.result`.
 * @param {import('../types.js').LoadOptions} options
 * @returns {Promise<import('../types.js').LoadResult>}
 */
export async function loadtest (options) {
  const o = normalizeOptions(options)
  const target = parseTarget(o.url)
  let addresses = [target.hostname]
  if (!isIpAddress(target.hostname)) {
    try {
      // Loaded here only: a run on an IP address never needs the resolver (~0.5 ms of startup CPU).
      const { lookup } = await import('node:dns/promises')
      addresses = (await lookup(target.hostname, { all: true })).map((a) => a.address)
    } catch (err) {
      throw new SyncbenchError('SB_ERR_CONNECT', `${target.hostname}:${target.port}: cannot resolve host (${err.code ?? err.message})`, { cause: err })
    }
  }
  return runEngine(o, target, addresses)
}

/**
 * The run itself, on addresses already resolved (separate so that tests can give a host several).
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @returns {Promise<import('../types.js').LoadResult>}
 */
export async function runEngine (o, target, addresses) {
  const startedAt = new Date().toISOString()
  const counts = new AbCounts({ variableLength: o.variableLength === true })
  const framingOptions = { keepAlive: o.keepAlive === true, head: o.method === 'HEAD' }
  const engine = new Engine({
    addresses,
    hostname: target.hostname,
    port: target.port,
    request: buildRequest(o, target),
    requests: o.requests,
    concurrency: o.concurrency,
    continueOnReceiveError: o.continueOnReceiveError === true,
    timeoutMs: o.timeout * 1000,
    timelimitMs: o.timelimit * 1000,
    heartbeat: o.heartbeat ?? abHeartbeat(o.requests, false),
    onProgress: typeof o.onProgress === 'function' ? o.onProgress : null,
    onRequest: typeof o.onRequest === 'function' ? o.onRequest : null,
    signal: o.signal ?? null,
    counts,
    // The HTTP/1.1 framing is loaded only under --http1.1: a plain ab run skips two modules.
    framing: o.http11 === true ? new (await import('./http11.js')).Http11Framing(framingOptions) : new AbFraming(framingOptions)
  })
  const end = await engine.run()

  const result = counts.toResult({
    options: publicOptions(o), target, startedAt, concurrency: o.concurrency, bodySent: Boolean(o.body), end
  })
  if (end.failure) {
    /** @type {any} */
    const err = end.failure
    if (err !== null && typeof err === 'object') err.result = result
    throw err
  }
  return result
}
