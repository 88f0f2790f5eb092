// --engine wrk: the same run driven by wrk (one thread, -c connections, HTTP/1.1 keep-alive always:
// wrk has no other mode). wrk runs for a duration, so lib/run/engines/wrk-stop.lua counts responses
// and the adapter stops wrk with SIGINT at -n; in-flight requests may add up to c - 1 more.
// Not measured by wrk, left 0: connect/processing/waiting rows (total only), HTML bytes (keep-alive: every request, wrk speaks HTTP/1.1 only).
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { SyncbenchError } from '../../errors.js'
import { emptyResult, deriveRates } from './shape.js'

const script = fileURLToPath(new URL('./wrk-stop.lua', import.meta.url))

export const wrkEngine = {
  name: 'wrk',
  available: () => !spawnSync('wrk', ['-v'], { stdio: 'ignore', timeout: 10_000 }).error,
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  async run (options) {
    const requests = options.requests ?? 1
    const args = ['-t', '1', '-c', String(options.concurrency ?? 1), '-d', `${options.timelimit || 3600}s`,
      '--timeout', `${options.timeout ?? 30}s`, '-s', script, options.url]
    const out = await new Promise((resolve, reject) => {
      const child = spawn('wrk', args, { env: { ...process.env, SB_REQUESTS: String(requests) }, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      const stop = () => child.kill('SIGINT')
      options.signal?.addEventListener('abort', stop, { once: true })
      child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
      child.stderr.setEncoding('utf8').on('data', (d) => {
        stderr += d
        if (stderr.includes('syncbench:done')) stop()
      })
      child.on('error', reject)
      child.on('close', (code) => {
        options.signal?.removeEventListener('abort', stop)
        resolve({ code, stdout, stderr })
      })
    }).catch((err) => { throw new SyncbenchError('SB_ERR_CONNECT', `--engine wrk: cannot run wrk (${err.code || err.message})`, { cause: err }) })
    const result = parse(out.stdout, emptyResult(options))
    if (result === null) throw new SyncbenchError('SB_ERR_CONNECT', `--engine wrk: ${out.stderr.replace('syncbench:done', '').trim().split('\n').pop() || `exit code ${out.code}`}`)
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
  const ms = (us) => us / 1000
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
