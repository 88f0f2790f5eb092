// --engine ab: the same run driven by Apache Bench itself, its report parsed back into LoadResult's
// shape. The parse reads the labels ab 2.3 prints. How this LoadResult differs from the builtin's:
// - options: the LoadOptions as given (no bodyBytes, no defaults filled in: see shape.js emptyResult).
// - percentiles, connection times and latency.* in whole ms, as ab prints them (builtin: fractions);
//   latency.p999/p9999 stay 0 (ab prints no HDR figures).
// - statusCodes and errors stay {}: ab prints only the Non-2xx and failure counts.
// - ab has no per-response deadline (its -s is an inactivity timeout): the response timeout does not
//   apply; the run's deadline (run-deadline.js) bounds a response that never ends.
// - the run ends at the run's deadline (run-deadline.js; runTool's timeout) with a TimeoutError.
import { ConnectError, SyncbenchError, errorCodes, errorFromCode, systemCode } from '../../errors.js'
import { emptyResult, runTool, probe } from './shape.js'
import { runDeadlineMs } from '../run-deadline.js'

/** @type {import('./index.js').Engine} */
export const abEngine = {
  name: 'ab',
  available: () => probe('ab', ['-V']),
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  async run (options) {
    const args = ['-n', String(options.requests ?? 1), '-c', String(options.concurrency ?? 1), '-s', String(options.timeout ?? 30)]
    if (options.keepAlive) args.push('-k')
    args.push(options.url)
    const startedAt = new Date().toISOString()
    let out
    try {
      out = await runTool('ab', args, { signal: options.signal, timeoutMs: runDeadlineMs(options) })
    } catch (err) {
      // runTool's TimeoutError, named after the engine; a spawn failure (ENOENT: not installed) is a ConnectError.
      if (err instanceof SyncbenchError) throw errorFromCode(err.code, `--engine ab: ${err.message}`, errorCodes.CONNECT, { cause: err })
      const code = systemCode(err)
      if (code === undefined) throw err
      throw new ConnectError(`--engine ab: cannot run ab (${code})`, { cause: err })
    }
    if (!/Complete requests:/.test(out.stdout)) {
      throw new ConnectError(`--engine ab: ${(out.stderr.trim().split('\n').pop() || `exit code ${out.code}`)}`)
    }
    const result = parse(out.stdout, { ...emptyResult(options, 'ab'), startedAt })
    result.aborted = Boolean(options.signal?.aborted)
    return result
  }
}

/**
 * Parse ab's report into `into` (a LoadResult from emptyResult).
 * @param {string} stdout
 * @param {import('../../types.js').LoadResult} into
 */
export function parse (stdout, into) {
  const r = into
  const field = (/** @type {string} */ label) => {
    const m = new RegExp(`^${label}:[ \\t]*(.*)$`, 'm').exec(stdout)
    return m ? m[1].trim() : null
  }
  const num = (/** @type {string} */ label) => {
    const v = field(label)
    return v === null ? 0 : Number.parseFloat(v)
  }
  r.server.software = field('Server Software') ?? ''
  r.server.hostname = field('Server Hostname') ?? r.server.hostname
  r.server.port = num('Server Port') || r.server.port
  r.document.path = field('Document Path') ?? r.document.path
  const length = field('Document Length')
  r.document.variable = length === 'Variable'
  r.document.length = r.document.variable ? 0 : Number.parseInt(length ?? '0', 10)
  r.concurrency = num('Concurrency Level')
  r.timeTakenSeconds = num('Time taken for tests')
  r.completeRequests = num('Complete requests')
  r.failedRequests = num('Failed requests')
  const f = /\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/.exec(stdout)
  if (f) r.failures = { connect: +f[1], receive: +f[2], length: +f[3], exceptions: +f[4] }
  r.writeErrors = num('Write errors')
  r.non2xxResponses = num('Non-2xx responses')
  r.keepAliveRequests = num('Keep-Alive requests')
  r.totalTransferredBytes = num('Total transferred')
  r.htmlTransferredBytes = num('HTML transferred')
  r.totalBodySentBytes = num('Total body sent')
  r.requestsPerSecond = num('Requests per second')
  const tpr = [...stdout.matchAll(/^Time per request:\s+([\d.]+) \[ms\]/gm)].map((m) => Number(m[1]))
  r.timePerRequestMs = tpr[0] ?? 0
  r.timePerRequestAcrossMs = tpr[1] ?? 0
  r.transferRateKBps = num('Transfer rate')
  for (const [label, key] of /** @type {const} */ ([['Connect', 'connect'], ['Processing', 'processing'], ['Waiting', 'waiting'], ['Total', 'total']])) {
    const m = new RegExp(`^${label}:\\s+(\\d+)\\s+(\\d+)\\s+([\\d.]+)\\s+(\\d+)\\s+(\\d+)`, 'm').exec(stdout)
    if (m) r.connectionTimes[key] = { min: +m[1], mean: +m[2], sd: +m[3], median: +m[4], max: +m[5] }
  }
  for (const m of stdout.matchAll(/^\s+(\d+)%\s+(\d+)/gm)) r.percentiles[m[1]] = Number(m[2])
  r.latency.mean = r.connectionTimes.total.mean
  r.latency.stddev = r.connectionTimes.total.sd
  r.latency.p50 = r.percentiles['50']
  r.latency.p75 = r.percentiles['75']
  r.latency.p90 = r.percentiles['90']
  r.latency.p99 = r.percentiles['99']
  r.latency.max = r.percentiles['100']
  return r
}
