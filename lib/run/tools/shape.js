// A LoadResult with every field present, for the external tools' adapters to fill with what their
// tool reports: fields a tool does not measure stay 0 (documented per adapter), so tables, the
// ab-format report and results.json never meet a missing field.
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { TimeoutError } from '../../errors.js'
import { version } from '../../version.js'
import { track } from '../children.js'
import { rates } from '../../load/request-times.js'
import { redactLoadOptions, redactUrl } from '../../redact.js'

const zeroRow = () => ({ min: 0, mean: 0, sd: 0, median: 0, max: 0 })

/**
 * @param {import('../../types.js').LoadOptions} options
 * @param {string} tool the external tool, named as the result's `transport`
 * @returns {import('../../types.js').LoadResult}
 */
export function emptyResult (options, tool) {
  const url = new URL(options.url)
  const { signal, onProgress, onRequest, body, ...plain } = options
  return {
    schema: 'syncbench/load-result@1',
    tool: { name: 'syncbench', version },
    options: redactLoadOptions({ requests: 1, concurrency: 1, keepAlive: false, ...plain }),
    startedAt: new Date().toISOString(),
    server: { software: '', hostname: url.hostname, port: Number(url.port || 80) },
    transport: tool,
    document: { path: redactUrl(url.pathname + url.search), length: 0, variable: false },
    concurrency: options.concurrency ?? 1,
    timeTakenSeconds: 0,
    completeRequests: 0,
    failedRequests: 0,
    failures: { connect: 0, receive: 0, length: 0, exceptions: 0 },
    writeErrors: 0,
    non2xxResponses: 0,
    keepAliveRequests: 0,
    totalTransferredBytes: 0,
    htmlTransferredBytes: 0,
    totalBodySentBytes: 0,
    requestsPerSecond: 0,
    timePerRequestMs: 0,
    timePerRequestAcrossMs: 0,
    transferRateKBps: 0,
    connectionTimes: { connect: zeroRow(), processing: zeroRow(), waiting: zeroRow(), total: zeroRow() },
    percentiles: { 50: 0, 66: 0, 75: 0, 80: 0, 90: 0, 95: 0, 98: 0, 99: 0, 100: 0 },
    latency: { p50: 0, p75: 0, p90: 0, p99: 0, p999: 0, p9999: 0, max: 0, mean: 0, stddev: 0 },
    statusCodes: {},
    errors: {},
    aborted: false,
    // the tools print percentiles, not their histograms: their runs' percentiles cannot be merged
    latencyHistogram: null
  }
}

/**
 * The per-request timeout to give a tool whose timeout bounds a request's whole time (wrk's --timeout,
 * autocannon's -t), in seconds: the response timeout when one is set and shorter, else ab's -s.
 * @param {import('../../types.js').LoadOptions} options
 * @returns {number}
 */
export function requestTimeoutSeconds (options) {
  const timeout = options.timeout ?? 30
  return options.responseTimeout ? Math.min(timeout, options.responseTimeout) : timeout
}

/**
 * Fill the derived ab figures from the counts and the duration, as ab computes them.
 * @param {import('../../types.js').LoadResult} result
 */
export function deriveRates (result) {
  const { timeTakenSeconds, completeRequests: done, concurrency, totalTransferredBytes: totalRead } = result
  if (timeTakenSeconds > 0 && done > 0) Object.assign(result, rates({ done, timeTakenSeconds, concurrency, totalRead }))
  return result
}

/** The guard each tool runs under (tool-guard.js): it ends the tool when the runner is gone. */
const guardPath = fileURLToPath(new URL('./tool-guard.js', import.meta.url))

/**
 * Run a command to completion, collecting stdout and stderr. The tool runs under a guard (tool-guard.js)
 * in a process group of its own, so a terminal's Ctrl-C reaches only the runner: `signal` then sends the
 * group SIGINT (ab and wrk print what they measured so far, as after Ctrl-C in a terminal). Past
 * `timeoutMs` the group is killed and the promise rejects with a TimeoutError; lib/run/children.js ends
 * the group if the runner goes first, and the guard ends it if the runner is SIGKILLed.
 * @param {string} cmd
 * @param {string[]} args
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]
 * @param {number} [options.timeoutMs=600000]
 * @param {NodeJS.ProcessEnv} [options.env]
 * @param {(stderr: string, stop: () => void) => void} [options.onStderr]  called on every chunk with all
 *   stderr so far; `stop()` sends the tool SIGINT (wrk's adapter ends a run at -n this way)
 * @returns {Promise<{ code: number|null, stdout: string, stderr: string }>}
 */
export function runTool (cmd, args, { signal, timeoutMs = 600_000, env, onStderr } = {}) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [guardPath, String(process.pid), cmd, ...args], { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }))
    let stdout = ''
    let stderr = ''
    let timedOut = false
    /** @param {NodeJS.Signals} name */
    const signalGroup = (name) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      try {
        process.kill(-(/** @type {number} */ (child.pid)), name)
      } catch {
        // the group is gone already
      }
    }
    const stop = () => signalGroup('SIGINT')
    const kill = () => signalGroup('SIGKILL')
    child.stdout?.setEncoding('utf8').on('data', (d) => { stdout += d })
    child.stderr?.setEncoding('utf8').on('data', (d) => {
      stderr += d
      onStderr?.(stderr, stop)
    })
    signal?.addEventListener('abort', stop, { once: true })
    if (signal?.aborted) stop()
    const timer = setTimeout(() => { timedOut = true; kill() }, timeoutMs)
    const settle = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', stop)
    }
    child.on('error', (err) => { settle(); kill(); reject(err) })
    child.on('close', (code) => {
      settle()
      if (timedOut) reject(new TimeoutError(`${cmd} did not finish within ${timeoutMs / 1000} s and was killed`))
      else resolve({ code, stdout, stderr })
    })
  })
}

/**
 * Is `cmd` installed? Probed by running it with `args` (a help flag): spawn fails with ENOENT when absent.
 * @param {string} cmd
 * @param {string[]} args
 * @param {number} [timeoutMs=20000]
 */
export function probe (cmd, args, timeoutMs = 20_000) {
  const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: timeoutMs })
  return !r.error
}
