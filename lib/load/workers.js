// `--workers N` (LoadOptions.workers): one run split over N worker threads (load-worker.js, one Engine
// each), merged back into the counts one thread would have made.
//
// The split: connections, requests and the -R rate divided as evenly as they go (the first ones get
// one more), each worker's rate in proportion to its requests, so every worker's schedule ends at the
// run's (n_i / rate_i = n / rate). A ramp (-R FROM..TO --ramp) is not divided: worker i of N follows
// the one schedule's requests i, i + N... (schedule.js), as a shard does. -t, -s and --response-timeout apply to each worker as to the run.
// The merge: every count is a sum; each time row keeps count, min, max, sum, sum of squares and HDR
// bucket counts, all additive (stats.js Row.add), so the mean, the sd and every percentile of the
// union are exactly what one thread recording every request would report. The time taken is the
// union of the workers' windows (the first start to the last end; performance.now() is one clock for
// all threads of a process). Workers are started, build their engines, and only then start together.
//
// Ends as one thread's run does: Ctrl-C (the signal) stops every worker; a worker that meets what ab
// aborts on (ConnectError, TimeoutError) stops the others and the run throws that error, with the
// merged partial result; a callback of the caller's (onProgress, onRequest) that throws does the same
// with its own error. The heartbeats count the whole run (a shared counter), so "Completed N
// requests" comes at the same N as with one thread.
import { Worker } from 'node:worker_threads'
import { countsFor } from './ab-counts.js'
/** @typedef {import('./ab-counts.js').AbCounts} AbCounts */
import { defaultHeartbeat } from './options.js'
import { mergeHttp2 } from './merge-results.js'
import { ConnectError, TimeoutError, errorCodes } from '../errors.js'

/** Numbers per request in a worker's 'records' message: start, connect, waiting, total, latency (RequestTiming). */
export const RECORD_FIELDS = 5

/**
 * The share of `total` that part `i` of `parts` takes: as even as it goes, the first ones one more.
 * @param {number} total @param {number} parts @param {number} i
 */
export function shareOf (total, parts, i) {
  return Math.floor(total / parts) + (i < total % parts ? 1 : 0)
}

/**
 * Each worker's options: its share of -c, -n and -R. Since workers <= concurrency <= requests,
 * every share has at least one connection and no more connections than requests.
 * @param {import('./options.js').NormalizedLoadOptions} o
 * @returns {import('./options.js').NormalizedLoadOptions[]}
 */
export function splitOptions (o) {
  const n = o.workers
  const { onProgress, onRequest, onSecond, series, signal, heartbeat, ...plain } = o
  return Array.from({ length: n }, (_, i) => {
    const requests = shareOf(o.requests, n, i)
    /** @type {import('./options.js').NormalizedLoadOptions} */
    const share = { ...plain, workers: 1, requests, concurrency: shareOf(o.concurrency, n, i) }
    if (o.ramp !== undefined) {
      // a ramp: the whole schedule, this worker taking every n-th of this process's requests
      const part = o.interleave ?? { index: 0, count: 1 }
      share.interleave = { index: part.index + part.count * i, count: part.count * n }
    } else if (o.rate !== undefined) {
      share.rate = (o.rate * requests) / o.requests
    }
    return share
  })
}

/**
 * @typedef {object} WorkerEnd
 * @property {number} timeTakenSeconds
 * @property {number} startTime  ms, performance.timeOrigin + performance.now()
 * @property {number} endTime
 * @property {boolean} aborted
 * @property {{ code: string, message: string }|null} failure
 */

/**
 * Run `o` over o.workers threads; resolves to the merged counts and the run's end, as one Engine's.
 * @param {import('./options.js').NormalizedLoadOptions} o
 * @param {import('./request.js').Target} target
 * @param {string[]} addresses
 * @returns {Promise<{ counts: AbCounts, end: import('./engine.js').RunEnd, transport: import('./transport.js').TransportName, tls: import('../types.js').TlsInfo|null, http2: import('../types.js').Http2Info|null }>}
 */
export async function runWorkers (o, target, addresses) {
  const onProgress = typeof o.onProgress === 'function' ? o.onProgress : null
  const onRequest = typeof o.onRequest === 'function' ? o.onRequest : null
  const heartbeat = onProgress === null ? 0 : o.heartbeat ?? defaultHeartbeat(o.requests)
  const progress = heartbeat > 0 ? new SharedArrayBuffer(4) : null
  const shares = splitOptions(o)
  const url = new URL('./load-worker.js', import.meta.url)
  const workers = shares.map((options) => new Worker(url, {
    workerData: { options, target, addresses, progress, heartbeat, records: onRequest !== null }
  }))

  /** @type {WorkerEnd[]} */
  const ends = []
  /** @type {import('../types.js').TlsInfo|null} https: the first worker's TLS */
  let tls = null
  /** @type {import('../types.js').Http2Info[]} --http2: each worker's connections' figures */
  const http2 = []
  /** @type {Set<string>} the workers' transports */
  const transports = new Set()
  const merged = countsFor(o)
  /** @type {{ failure: { code: string, message: string }|null }} the first worker's failure (boxed: set in a callback) */
  const first = { failure: null }
  /** @type {{ thrown: unknown }|null} */
  let callbackError = null
  let printed = 0
  let stopped = false
  const stopAll = () => {
    if (stopped) return
    stopped = true
    for (const w of workers) w.postMessage({ type: 'abort' })
  }
  /** @param {unknown} err */
  const callbackFailed = (err) => {
    if (callbackError === null) callbackError = { thrown: err }
    stopAll()
  }

  const signal = o.signal ?? null
  let ready = 0
  try {
    await new Promise((resolve, reject) => {
      let ended = 0
      workers.forEach((w, i) => {
        // an error thrown in a worker is a bug of ours: stop the others and hand it on
        w.on('error', (err) => { stopAll(); reject(err) })
        w.on('exit', (code) => {
          if (ends[i] === undefined) reject(new Error(`load worker ${i + 1} of ${workers.length} exited (code ${code}) before its run ended`))
        })
        w.on('message', (/** @type {any} */ m) => {
          switch (m.type) {
            case 'ready':
              if (++ready === workers.length) {
                if (signal !== null) {
                  if (signal.aborted) stopAll()
                  else signal.addEventListener('abort', stopAll, { once: true })
                }
                for (const each of workers) each.postMessage({ type: 'go' })
              }
              break
            case 'progress':
              // messages from several threads may arrive out of order: print each heartbeat once, in order
              if (onProgress === null || callbackError !== null) break
              try {
                for (let done = printed + heartbeat; done <= m.done; done += heartbeat) {
                  printed = done
                  onProgress(done)
                }
              } catch (err) {
                callbackFailed(err)
              }
              break
            case 'records': {
              if (onRequest === null || callbackError !== null) break
              /** @type {Float64Array} */
              const r = m.records
              try {
                for (let k = 0; k < r.length; k += RECORD_FIELDS) onRequest({ start: r[k], connect: r[k + 1], waiting: r[k + 2], total: r[k + 3], latency: r[k + 4] })
              } catch (err) {
                callbackFailed(err)
              }
              break
            }
            case 'end':
              ends[i] = m.end
              if (tls === null) tls = m.tls ?? null
              transports.add(m.transport)
              merged.add(m.counts)
              if (m.http2 !== null) http2.push(m.http2)
              // what ab aborts on ends every worker, and the run reports the first such failure
              if (m.end.failure !== null) {
                if (first.failure === null) first.failure = m.end.failure
                stopAll()
              }
              if (++ended === workers.length) resolve(undefined)
              break
          }
        })
      })
    })
  } finally {
    if (signal !== null) signal.removeEventListener('abort', stopAll)
    await Promise.all(workers.map((w) => w.terminate()))
  }

  const failure = first.failure
  const startTime = Math.min(...ends.map((e) => e.startTime))
  const endTime = Math.max(...ends.map((e) => e.endTime))
  return {
    counts: merged,
    // every worker picks its transport as one thread does: the same one, unless a worker's addon failed
    transport: /** @type {import('./transport.js').TransportName} */ ([...transports].join('+')),
    tls,
    http2: http2.length === 0 ? null : mergeHttp2(http2),
    end: {
      // on this thread's performance.now() clock, as one engine's
      startTime: startTime - performance.timeOrigin,
      endTime: endTime - performance.timeOrigin,
      // whole microseconds, as one engine's
      timeTakenSeconds: Math.round((endTime - startTime) * 1000) / 1e6,
      aborted: ends.some((e) => e.aborted) || callbackError !== null,
      failure: failure === null ? null : failure.code === errorCodes.TIMEOUT ? new TimeoutError(failure.message) : new ConnectError(failure.message),
      callbackError
    }
  }
}
