// loadtest(options) -> LoadResult: validate LoadOptions, resolve the host once, run the engine,
// and hand back the LoadResult (lib/types.js) that ab's counts (AbCounts) make of it.
import { performance } from 'node:perf_hooks'
import { ConnectError, systemCode } from '../errors.js'
import { parseTarget, buildRequest, isIpAddress } from './request.js'
import { checkUnixSocket } from './connection.js'
import { Engine } from './engine.js'
import { BODY_METHODS, routeMethod } from './routes.js'
import { createTransport } from './transport.js'
import { countsFor } from './ab-counts.js'
/** @typedef {import('./ab-counts.js').AbCounts} AbCounts */
import { AbFraming } from './ab-framing.js'
import { LoadSeries } from './load-series.js'
import { Schedule, rateShape } from './schedule.js'
import { normalizeLoadOptions as normalizeOptions, checkTlsOptions, apiSpelling, loadOptionRule, defaultHeartbeat } from './options.js'
import { redactLoadOptions, redactUrl } from '../redact.js'

// Each option's default, bounds and message: options.js, shared with parseAbArgs, syncbench run and
// experiment files, so loadtest() refuses what the CLI refuses, in the same words.
export { normalizeOptions }
export { defaultOptions } from './options.js'

/**
 * The options as LoadResult records them: no functions, the body as its length, the credentials
 * starred with their digests (lib/redact.js): a LoadResult is what gets printed, saved and shared.
 * @param {ReturnType<typeof normalizeOptions>} o
 */
function publicOptions (o) {
  const { body, onProgress, onRequest, onSecond, signal, routes, interleave, http2Session, ...rest } = o
  const recorded = { ...rest, headers: [...o.headers], cookies: [...o.cookies], bodyBytes: body ? body.length : 0 }
  if (routes === undefined) return redactLoadOptions(recorded)
  return redactLoadOptions({
    ...recorded,
    routes: routes.map(({ body: routeBody, ...route }) => ({ ...route, ...(routeBody === undefined ? {} : { bodyBytes: routeBody.length }) }))
  })
}

/**
 * Run one load test the way ab does and resolve to its LoadResult. Throws a SyncbenchError for bad
 * options (InvalidOptionError, InvalidUrlError), and where ab would abort the run (ConnectError:
 * refused, reset, over 10 connect failures, an unresolvable host; TimeoutError: -s expired) with the
 * partial LoadResult as `err.result`. What an onRequest or onProgress callback throws ends the run
 * and is thrown as it is, with the partial LoadResult as its `result` when it is an object.
 * @param {import('../types.js').LoadOptions} options
 * @returns {Promise<import('../types.js').LoadResult>}
 */
export async function loadtest (options) {
  const o = normalizeOptions(options)
  const target = parseTarget(o.url)
  checkTlsOptions(o, target.tls, apiSpelling)
  let addresses = [target.hostname]
  if (o.socketPath !== undefined) {
    // the URL gives the Host header and the path only: nothing to resolve
    checkUnixSocket(o.socketPath, apiSpelling(loadOptionRule('socketPath')))
  } else if (!isIpAddress(target.hostname)) {
    try {
      // Loaded here only: a run on an IP address never needs the resolver (~0.5 ms of startup CPU).
      const { lookup } = await import('node:dns/promises')
      addresses = (await lookup(target.hostname, { all: true })).map((a) => a.address)
    } catch (err) {
      // the resolver's answer (ENOTFOUND, EAI_AGAIN...) is where ab exits; anything else is a bug
      const code = systemCode(err)
      if (code === undefined) throw err
      throw new ConnectError(`${target.hostname}:${target.port}: cannot resolve host (${code})`, { cause: err })
    }
  }
  if (o.startAt !== undefined) await waitUntil(Date.parse(o.startAt) + startOffsetMs(o), o.signal)
  return runEngine(o, target, addresses)
}

/**
 * A shard's offset from --start-at under a constant -R: shard i of N starts i / rate after it (the
 * whole run's rate), so that the shards' schedules interleave into the one a single generator would
 * follow. A ramp's shards start together: each follows the whole schedule's requests i, i + N...
 * @param {ReturnType<typeof normalizeOptions>} o
 */
export function startOffsetMs (o) {
  const s = o.segment
  return s !== undefined && s.rate !== undefined && o.ramp === undefined ? s.index * 1000 / s.rate : 0
}

/**
 * Wait until the wall clock reads `epochMs` (Date.now()), or `signal` aborts (then the run starts
 * aborted and measures nothing). A timer may fire a little early or late: it is re-armed until the
 * clock has passed the moment, so the start is late by a timer's granularity (~1 ms) at most.
 * @param {number} epochMs
 * @param {AbortSignal|undefined} signal
 * @returns {Promise<void>}
 */
export function waitUntil (epochMs, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    /** @type {NodeJS.Timeout|null} */
    let timer = null
    const done = () => {
      if (timer !== null) clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const arm = () => {
      const left = epochMs - Date.now()
      if (left <= 0) return done()
      timer = setTimeout(arm, Math.min(left, 2 ** 31 - 1))
    }
    signal?.addEventListener('abort', done, { once: true })
    arm()
  })
}

/**
 * The run itself, on addresses already resolved (separate so that tests can give a host several).
 * With `workers` above 1 the run is split over that many threads (workers.js), whose counts are
 * merged into one LoadResult.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @returns {Promise<import('../types.js').LoadResult>}
 */
export async function runEngine (o, target, addresses) {
  // the run's window on the wall clock, from the engines' monotonic times (performance.now(), one clock
  // for every thread of the process): what the merge of shards run on several machines unites (their
  // clocks agree as NTP keeps them)
  const wallOffset = Date.now() - performance.now()
  // https with --http2: its TLS (a secure context, loaded once), and the protocol the server picks in ALPN
  const h2tls = o.http2 === true && target.tls ? await http2Tls(o, target, addresses) : null
  if (h2tls !== null && await negotiate(h2tls, o.timeout * 1000) !== 'h2') {
    // the server refused h2 in ALPN: HTTP/1.1, as a browser falls back (LoadResult.protocol says so)
    o = { ...o, http2: false, http11: true, keepAlive: true }
  }
  if ((o.workers ?? 1) > 1) {
    const { runWorkers } = await import('./workers.js')
    const { counts, end, transport, tls, http2 } = await runWorkers(o, target, addresses)
    return finishRun(o, target, wallOffset, counts, end, transport, tls, null, http2)
  }
  if (o.http2 === true) {
    const counts = newCounts(o)
    const engine = await createHttp2Engine(o, target, addresses, counts)
    const end = await engine.run()
    return finishRun(o, target, wallOffset, counts, end, engine.transportName, engine.tls, o.series === true ? engine.series : null, engine.info())
  }
  const counts = newCounts(o)
  const engine = await createEngine(o, target, addresses, counts)
  const end = await engine.run()
  return finishRun(o, target, wallOffset, counts, end, engine.transport.name, engine.transport.tlsInfo(), o.series === true ? engine.series : null)
}

/**
 * https with --http2: how its sockets are made (ALPN h2, then http/1.1), from -Z, -f and the SNI.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @returns {Promise<import('./h2-engine.js').Http2Tls>}
 */
async function http2Tls (o, target, addresses) {
  const [{ connect }, { handshakeInfo }, { context, servername }] = await Promise.all([import('node:tls'), import('./tls.js'), tlsOptions(o, target)])
  const where = o.socketPath === undefined ? { host: addresses[0], port: target.port } : { path: o.socketPath }
  const options = { ...where, secureContext: context, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'], ...(servername === null ? {} : { servername }) }
  return { connect, options, handshakeInfo, servername }
}

/**
 * https with --http2: the protocol the server picks in ALPN (h2-engine.js negotiate), loaded only then.
 * @param {import('./h2-engine.js').Http2Tls} tls @param {number} timeoutMs
 */
async function negotiate (tls, timeoutMs) {
  return (await import('./h2-engine.js')).negotiate(tls, timeoutMs)
}

/**
 * The HTTP/2 engine of a --http2 run (or of one worker's share of it), ready to run.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @param {AbCounts} counts
 */
export async function createHttp2Engine (o, target, addresses, counts) {
  const [{ H2Engine, http2Headers, requestBlock }, { requestHead }] = await Promise.all([import('./h2-engine.js'), import('./request.js')])
  const headers = http2Headers(o, target, requestHead({ ...o, http11: true, keepAlive: true }, target))
  const socketPath = o.socketPath ?? null
  // https: ALPN offers h2 only (loadtest() has asked the server already); each connection's is checked
  const alpnTls = target.tls ? { ...await tlsOptions(o, target), alpn: ['h2'] } : null
  return new H2Engine({
    addresses,
    socketPath,
    hostname: target.hostname,
    port: target.port,
    transport: await createTransport({ addresses, port: target.port, socketPath, tls: alpnTls }),
    block: requestBlock(headers),
    body: o.body && o.body.length > 0 ? o.body : null,
    tls: target.tls,
    streams: o.streams ?? 1,
    lent: /** @type {import('./h2-shared.js').H2SharedConnection|undefined} */ (o.http2Session) ?? null,
    ...runShape(o, counts)
  })
}

/**
 * What every engine of a run shares, whatever its protocol: its count of requests and connections, its
 * schedule (-R, a ramp: this part's every N-th request of the one schedule when split over shards or
 * threads), its time bounds, its progress and per-second callbacks, its signal and its counts.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {AbCounts} counts
 */
function runShape (o, counts) {
  const shape = rateShape(o)
  const part = o.interleave ?? { index: 0, count: 1 }
  const schedule = shape === null ? null : new Schedule(shape, part.index, part.count)
  return {
    requests: o.requests,
    concurrency: o.concurrency,
    schedule,
    timeoutMs: o.timeout * 1000,
    timelimitMs: o.timelimit * 1000,
    responseTimeoutMs: (o.responseTimeout ?? 0) * 1000,
    heartbeat: o.heartbeat ?? defaultHeartbeat(o.requests),
    onProgress: typeof o.onProgress === 'function' ? o.onProgress : null,
    onRequest: typeof o.onRequest === 'function' ? o.onRequest : null,
    // a single-thread run only: a worker thread's seconds would need merging across threads
    series: (o.workers ?? 1) === 1 && (o.series === true || typeof o.onSecond === 'function') ? new LoadSeries(counts, schedule === null ? null : { schedule, requests: o.requests }) : null,
    onSecond: typeof o.onSecond === 'function' ? o.onSecond : null,
    signal: o.signal ?? null,
    counts
  }
}

/**
 * The counts of one run (or of one worker's share of it).
 * @param {ReturnType<typeof normalizeOptions>} o
 */
export function newCounts (o) {
  return countsFor(o)
}

/**
 * The Engine of a run (or of one worker's share of it), ready to run.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @param {AbCounts} counts
 */
export async function createEngine (o, target, addresses, counts) {
  const framingOptions = { keepAlive: o.keepAlive === true, head: o.method === 'HEAD' }
  // https only: the run's TLS context (-Z, -f checked against OpenSSL here)
  const tls = target.tls ? await tlsOptions(o, target) : null
  const socketPath = o.socketPath ?? null
  return new Engine({
    addresses,
    hostname: target.hostname,
    port: target.port,
    request: buildRequest(o, target),
    routes: o.routes === undefined ? null : o.routes.map((route, i) => ({ request: routeRequest(o, target, route), counts: /** @type {import('./routes.js').RouteCounts[]} */ (counts.routes)[i] })),
    continueOnReceiveError: o.continueOnReceiveError === true,
    ...runShape(o, counts),
    transport: await createTransport({ addresses, port: target.port, socketPath, tls }),
    socketPath,
    // The HTTP/1.1 framing is loaded only under --http1.1: a plain ab run skips two modules.
    framing: o.http11 === true ? new (await import('./http11.js')).Http11Framing(framingOptions) : new AbFraming(framingOptions)
  })
}

let runs = 0

/**
 * An id for one run, so that a merge can tell a run given twice: its start (ms, base 36), this process,
 * a count within it and random bits. Unique without node:crypto, which a plain run does not load.
 * @param {number} startMs
 */
function newRunId (startMs) {
  const random = Math.floor(Math.random() * 2 ** 32).toString(36)
  return `${Math.round(startMs).toString(36)}-${process.pid.toString(36)}-${(++runs).toString(36)}-${random}`
}

/**
 * The bytes of one route's requests: the run's request with the route's method and path, the run's
 * headers then the route's, its own body or else the run's (for POST, PUT and PATCH).
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {import('./routes.js').Route} route
 */
function routeRequest (o, target, route) {
  const method = routeMethod(route)
  const body = route.body ?? (BODY_METHODS.has(method) ? o.body : undefined)
  const contentType = route.contentType ?? o.contentType
  const { body: _runBody, contentType: _runType, ...rest } = o
  return buildRequest({
    ...rest,
    method,
    headers: [...o.headers, ...(route.headers ?? [])],
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType })
  }, { ...target, path: route.path })
}

/**
 * The LoadResult of a run's counts, or the run's failure with it attached.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @param {number} wallOffset Date.now() - performance.now(): the engines' clock on the wall clock
 * @param {AbCounts} counts
 * @param {import('./engine.js').RunEnd} end
 * @param {import('./transport.js').TransportName} transport the I/O path that carried the run
 * @param {import('../types.js').TlsInfo|null} tls https: the run's TLS
 * @param {LoadSeries|null} [series] the run over time, when asked (LoadOptions.series)
 * @param {import('../types.js').Http2Info|null} [http2] an HTTP/2 run's connections' figures
 * @returns {import('../types.js').LoadResult}
 */
function finishRun (o, target, wallOffset, counts, end, transport, tls, series = null, http2 = null) {
  const startTime = wallOffset + (end.startTime ?? performance.now() - end.timeTakenSeconds * 1000)
  const startedAt = new Date(startTime).toISOString()
  const endedAt = new Date(startTime + end.timeTakenSeconds * 1000).toISOString()
  const result = counts.toResult({
    options: publicOptions(o), target: { ...target, path: redactUrl(target.path) }, startedAt, endedAt, concurrency: o.concurrency, bodySent: Boolean(o.body), end, transport, protocol: o.http2 === true ? 'h2' : o.http11 ? 'http/1.1' : 'http/1.0', runId: newRunId(startTime)
  })
  if (http2 !== null) result.http2 = http2
  if (tls !== null) result.tls = tls
  if (series !== null) result.series = series.toJSON()
  if (end.failure !== null) {
    end.failure.result = result
    throw end.failure
  }
  if (end.callbackError !== null) {
    const thrown = end.callbackError.thrown
    // The caller's own error, rethrown as the same object (a caller compares it with what its
    // callback threw), so the partial result can only ride on it as an undeclared property.
    if (thrown !== null && typeof thrown === 'object') /** @type {{ result?: import('../types.js').LoadResult }} */ (thrown).result = result
    throw thrown
  }
  return result
}

/**
 * The TLS of an https run: its context from -Z and -f, and the SNI.
 * @param {ReturnType<typeof normalizeOptions>} o
 * @param {import('./request.js').Target} target
 * @returns {Promise<import('./transport-tls.js').TlsOptions>}
 */
async function tlsOptions (o, target) {
  const { secureContext, serverName } = await import('./tls.js')
  const context = secureContext(o, { ciphers: apiSpelling(loadOptionRule('ciphers')), tlsProtocol: apiSpelling(loadOptionRule('tlsProtocol')) })
  return { context, servername: serverName(target.hostname, o.headers) }
}
