// --engine wrk: the same run driven by wrk (one thread, -c connections, HTTP/1.1 keep-alive always:
// wrk has no other mode). wrk runs for a duration, so lib/run/engines/wrk-stop.lua counts responses
// and the adapter stops wrk with SIGINT at -n; in-flight requests may add up to c - 1 more.
// Connect/read/timeout errors are not responses: a run with errors may never reach -n, so it ends at
// the run's deadline (lib/run/run-deadline.js: the runner's signal, else runTool's timeout set to it)
// instead of wrk's -d of an hour.
// How this LoadResult differs from the builtin engine's:
// - options: the LoadOptions as given (no bodyBytes, no defaults filled in: see shape.js emptyResult).
// - not measured by wrk, left 0: connect/processing/waiting rows (total only), HTML transferred,
//   Total body sent, Server Software, p99.9/p99.99; document length is 0 (wrk does not report it).
// - keepAliveRequests = every request (wrk speaks HTTP/1.1 keep-alive only), whatever -k says.
// - percentiles in whole ms (rounded from wrk's microseconds); latency.* keeps the fractions.
// - timeTakenSeconds is wrk's own duration, which includes the round trip of the SIGINT that stops it.
// - --timeout (a request's whole time, in wrk) is the response timeout when one is set, else -s.
// - errors: only ETIMEDOUT and ECONNREFUSED (wrk counts connect/read/write/timeout errors, not their causes).
import { fileURLToPath } from 'node:url'
import { ConnectError, SyncbenchError, errorCodes, errorFromCode, systemCode } from '../../errors.js'
import { emptyResult, deriveRates, runTool, probe, requestTimeoutSeconds } from './shape.js'
import { runDeadlineMs } from '../run-deadline.js'

const script = fileURLToPath(new URL('./wrk-stop.lua', import.meta.url))

/** @type {import('./index.js').Engine} */
export const wrkEngine = {
  name: 'wrk',
  // wrk -v prints its version and exits 1: only a spawn error means it is missing.
  available: () => probe('wrk', ['-v']),
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  async run (options) {
    const requests = options.requests ?? 1
    const args = ['-t', '1', '-c', String(options.concurrency ?? 1), '-d', `${options.timelimit || 3600}s`,
      '--timeout', `${requestTimeoutSeconds(options)}s`, '-s', script, options.url]
    const startedAt = new Date().toISOString()
    let out
    try {
      out = await runTool('wrk', args, {
        signal: options.signal,
        env: { ...process.env, SB_REQUESTS: String(requests) },
        // the deadline syncbench run gives every run (run-deadline.js), not a fixed safety timeout
        timeoutMs: runDeadlineMs(options),
        onStderr: (stderr, stop) => { if (stderr.includes('syncbench:done')) stop() }
      })
    } catch (err) {
      // runTool's TimeoutError, named after the engine; a spawn failure (ENOENT: not installed) is a ConnectError.
      if (err instanceof SyncbenchError) throw errorFromCode(err.code, `--engine wrk: ${err.message}`, errorCodes.CONNECT, { cause: err })
      const code = systemCode(err)
      if (code === undefined) throw err
      throw new ConnectError(`--engine wrk: cannot run wrk (${code})`, { cause: err })
    }
    const result = parse(out.stdout, { ...emptyResult(options, 'wrk'), startedAt })
    if (result === null) throw new ConnectError(`--engine wrk: ${out.stderr.replace('syncbench:done', '').trim().split('\n').pop() || `exit code ${out.code}`}`)
    result.aborted = Boolean(options.signal?.aborted)
    return result
  }
}

/**
 * Parse the JSON line wrk-stop.lua's done() prints into `into` (from emptyResult); null without it.
 * @param {string} stdout
 * @param {import('../../types.js').LoadResult} into
 */
export function parse (stdout, into) {
  const m = /^SYNCBENCH-JSON (.*)$/m.exec(stdout)
  if (!m) return null
  const w = JSON.parse(m[1])
  const r = into
  const ms = (/** @type {number} */ us) => us / 1000
  const errors = w.connect + w.read + w.write + w.timeout
  r.timeTakenSeconds = w.durationUs / 1e6
  r.completeRequests = w.requests
  r.failedRequests = w.status + errors
  r.failures = { connect: w.connect, receive: w.read + w.timeout, length: 0, exceptions: 0 }
  r.writeErrors = w.write
  r.non2xxResponses = w.status
  r.totalTransferredBytes = w.bytes
  r.keepAliveRequests = w.requests
  const total = { min: ms(w.minUs), mean: ms(w.meanUs), sd: ms(w.stdevUs), median: ms(w.percentilesUs['50']), max: ms(w.maxUs) }
  r.connectionTimes.total = total
  for (const [q, us] of Object.entries(w.percentilesUs)) r.percentiles[q] = Math.round(ms(us))
  r.percentiles['100'] = Math.round(ms(w.maxUs))
  Object.assign(r.latency, { p50: ms(w.percentilesUs['50']), p75: ms(w.percentilesUs['75']), p90: ms(w.percentilesUs['90']), p99: ms(w.percentilesUs['99']), max: ms(w.maxUs), mean: ms(w.meanUs), stddev: ms(w.stdevUs) })
  if (w.timeout) r.errors.ETIMEDOUT = w.timeout
  if (w.connect) r.errors.ECONNREFUSED = w.connect
  return deriveRates(r)
}
