// loadtest(options) -> LoadResult: validate LoadOptions, resolve the host once, run the engine,
// and turn ab's counters and the request times into the LoadResult contract (lib/types.js).
import { SyncbenchError } from '../errors.js'
import { version } from '../version.js'
import { parseTarget, buildRequest, isIpAddress } from './request.js'
import { Engine } from './engine.js'
import { rates } from './stats.js'
import { abHeartbeat } from './ab-args.js'
import { normalizeLoadOptions as normalizeOptions } from './options.js'
import { roundTo } from '../format.js'

// Each option's default, bounds and message: options.js, shared with parseAbArgs, syncbench run and
// experiment files, so loadtest() refuses what the CLI refuses, in the same words.
export { normalizeOptions }
export { defaultOptions } from './options.js'

/** The options as LoadResult records them: no functions, the body as its length. */
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
  const engine = new Engine({
    addresses,
    hostname: target.hostname,
    port: target.port,
    request: buildRequest(o, target),
    requests: o.requests,
    concurrency: o.concurrency,
    keepAlive: o.keepAlive === true,
    http11: o.http11 === true ? await import('./http11.js') : null,
    head: o.method === 'HEAD',
    variableLength: o.variableLength === true,
    continueOnReceiveError: o.continueOnReceiveError === true,
    timeoutMs: o.timeout * 1000,
    timelimitMs: o.timelimit * 1000,
    heartbeat: o.heartbeat ?? abHeartbeat(o.requests, false),
    onProgress: typeof o.onProgress === 'function' ? o.onProgress : null,
    onRequest: typeof o.onRequest === 'function' ? o.onRequest : null,
    signal: o.signal ?? null
  })
  await engine.run()

  const result = toResult(engine, o, target, startedAt)
  if (engine.failure) {
    const err = engine.failure
    if (err !== null && typeof err === 'object') err.result = result
    throw err
  }
  return result
}

/**
 * @param {Engine} e
 * @returns {import('../types.js').LoadResult}
 */
function toResult (e, o, target, startedAt) {
  // ab measures in whole microseconds; digits beyond that are float noise in the JSON.
  const timeTakenSeconds = Math.round((e.lastTime - e.startTime) * 1000) / 1e6
  return {
    schema: 'syncbench/load-result@1',
    tool: { name: 'syncbench', version },
    options: publicOptions(o),
    startedAt,
    server: { software: e.servername, hostname: target.hostname, port: target.port },
    document: { path: target.path, length: e.doclen, variable: o.variableLength === true },
    concurrency: o.concurrency,
    timeTakenSeconds,
    completeRequests: e.done,
    failedRequests: e.bad,
    failures: { connect: e.errConn, receive: e.errRecv, length: e.errLength, exceptions: e.errExcept },
    writeErrors: e.epipe,
    non2xxResponses: e.errResponse,
    keepAliveRequests: e.doneka,
    totalTransferredBytes: e.totalRead,
    htmlTransferredBytes: e.totalBread,
    // ab's "Total body sent" is every request byte written, headers included, when a body is sent.
    totalBodySentBytes: o.body ? e.totalPosted : 0,
    ...mapValues(rates({ done: e.done, timeTakenSeconds, concurrency: o.concurrency, totalRead: e.totalRead }), (v) => roundTo(v, 6)),
    connectionTimes: mapValues(e.times.connectionTimes(), (row) => mapValues(row, (ms) => roundTo(ms, 3))),
    percentiles: mapValues(e.times.percentiles(), (ms) => roundTo(ms, 3)),
    latency: mapValues(e.times.latency(), (ms) => roundTo(ms, 3)),
    statusCodes: e.statusCodes(),
    errors: { ...e.errors },
    aborted: e.aborted
  }
}

/** @template T @param {Record<string, T>} obj @param {(v: T) => any} f */
function mapValues (obj, f) {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)]))
}
