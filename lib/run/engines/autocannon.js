// --engine autocannon: the same run driven by autocannon's CLI (-a requests, -c connections, --json),
// its JSON parsed into LoadResult's shape. How this LoadResult differs from the builtin's:
// - options: the LoadOptions as given (no bodyBytes, no defaults filled in: see shape.js emptyResult).
// - keepAliveRequests = every request: autocannon always keeps connections alive (HTTP/1.1), whatever -k says.
// - latency and percentiles in whole ms (autocannon's resolution); no 66/80/95/98 percentiles (left 0).
// - no connect/processing/waiting split (only the total row), HTML transferred and Total body sent 0,
//   document length 0; failures are all counted as receive failures (errors + timeouts).
// - timeTakenSeconds is autocannon's start-to-finish, which includes up to one 10 ms sample tick.
// - -t (a request's whole time, in autocannon) is the response timeout when one is set, else -s.
// - the run ends at the run's deadline (run-deadline.js; runTool's timeout) with a TimeoutError.
import { createRequire } from 'node:module'
import { ConnectError, SyncbenchError, errorCodes, errorFromCode, systemCode } from '../../errors.js'
import { emptyResult, deriveRates, runTool, probe, requestTimeoutSeconds } from './shape.js'
import { runDeadlineMs } from '../run-deadline.js'

/**
 * The CLI script: the project's own autocannon (a dev dependency) if present, else one on PATH.
 * @returns {[string, string[]]}
 */
function command () {
  try {
    return [process.execPath, [createRequire(import.meta.url).resolve('autocannon/autocannon.js')]]
  } catch (err) {
    if (systemCode(err) !== 'MODULE_NOT_FOUND') throw err
    return ['autocannon', []]
  }
}

/** @type {import('./index.js').Engine} */
export const autocannonEngine = {
  name: 'autocannon',
  available () {
    const [cmd, pre] = command()
    return probe(cmd, [...pre, '--version'])
  },
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  async run (options) {
    const [cmd, pre] = command()
    // -L 10: autocannon ends an -a run on its next sample tick (1 s by default), which would add up to
    // a second to "Time taken"; a 10 ms tick bounds that error.
    const args = [...pre, '-a', String(options.requests ?? 1), '-c', String(options.concurrency ?? 1),
      '-t', String(requestTimeoutSeconds(options)), '-L', '10', '--json', options.url]
    let out
    try {
      out = await runTool(cmd, args, { signal: options.signal, timeoutMs: runDeadlineMs(options) })
    } catch (err) {
      // runTool's TimeoutError, named after the engine; a spawn failure (ENOENT: not installed) is a ConnectError.
      if (err instanceof SyncbenchError) throw errorFromCode(err.code, `--engine autocannon: ${err.message}`, errorCodes.CONNECT, { cause: err })
      const code = systemCode(err)
      if (code === undefined) throw err
      throw new ConnectError(`--engine autocannon: cannot run autocannon (${code})`, { cause: err })
    }
    const result = parse(out.stdout, emptyResult(options, 'autocannon'))
    if (result === null) throw new ConnectError(`--engine autocannon: ${out.stderr.trim().split('\n').pop() || `exit code ${out.code}`}`)
    result.aborted = Boolean(options.signal?.aborted)
    return result
  }
}

/**
 * Parse autocannon's --json output into `into` (from emptyResult); null when there is none.
 * @param {string} stdout
 * @param {import('../../types.js').LoadResult} into
 */
export function parse (stdout, into) {
  const line = stdout.split('\n').find((l) => l.startsWith('{'))
  if (!line) return null
  const a = JSON.parse(line)
  const r = into
  r.startedAt = a.start
  r.timeTakenSeconds = (Date.parse(a.finish) - Date.parse(a.start)) / 1000
  r.completeRequests = a.requests.total
  r.failedRequests = a.errors + a.timeouts
  r.failures = { connect: 0, receive: a.errors + a.timeouts, length: 0, exceptions: 0 }
  r.non2xxResponses = a.non2xx
  r.keepAliveRequests = a.requests.total
  r.totalTransferredBytes = a.throughput.total
  r.connectionTimes.total = { min: a.latency.min, mean: a.latency.mean, sd: a.latency.stddev, median: a.latency.p50, max: a.latency.max }
  Object.assign(r.percentiles, { 50: a.latency.p50, 75: a.latency.p75, 90: a.latency.p90, 99: a.latency.p99, 100: a.latency.max })
  Object.assign(r.latency, { p50: a.latency.p50, p75: a.latency.p75, p90: a.latency.p90, p99: a.latency.p99, p999: a.latency.p99_9, p9999: a.latency.p99_99, max: a.latency.max, mean: a.latency.mean, stddev: a.latency.stddev })
  for (const [code, s] of Object.entries(a.statusCodeStats ?? {})) r.statusCodes[code] = s.count
  if (a.timeouts) r.errors.ETIMEDOUT = a.timeouts
  return deriveRates(r)
}
