// loadtest(options) -> LoadResult: validate LoadOptions, resolve the host once, run the engine,
// and hand back the LoadResult (lib/types.js) that ab's counts (AbCounts) make of it.
import { ConnectError, systemCode } from '../errors.js'
import { parseTarget, buildRequest, isIpAddress } from './request.js'
import { Engine } from './engine.js'
import { AbCounts } from './ab-counts.js'
import { AbFraming } from './ab-framing.js'
import { abHeartbeat } from './ab-args.js'
import { normalizeLoadOptions as normalizeOptions } from './options.js'

// Each option's default, bounds and message: options.js, shared with parseAbArgs, syncbench run and
// experiment files, so loadtest() refuses what the CLI refuses, in the same words.
export { normalizeOptions }
export { defaultOptions } from './options.js'

/**
 * The options as LoadResult records them: no functions, the body as its length.
 * @param {ReturnType<typeof normalizeOptions>} o
 */
function publicOptions (o) {
  const { body, onProgress, onRequest, signal, ...rest } = o
  return { ...rest, headers: [...o.headers], cookies: [...o.cookies], bodyBytes: body ? body.length : 0 }
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
  let addresses = [target.hostname]
  if (!isIpAddress(target.hostname)) {
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
  const counts = new AbCounts({ variableLength: o.variableLength === true, rate: o.rate ?? 0 })
  const framingOptions = { keepAlive: o.keepAlive === true, head: o.method === 'HEAD' }
  const engine = new Engine({
    addresses,
    hostname: target.hostname,
    port: target.port,
    request: buildRequest(o, target),
    requests: o.requests,
    rate: o.rate ?? 0,
    concurrency: o.concurrency,
    continueOnReceiveError: o.continueOnReceiveError === true,
    timeoutMs: o.timeout * 1000,
    timelimitMs: o.timelimit * 1000,
    responseTimeoutMs: (o.responseTimeout ?? 0) * 1000,
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
