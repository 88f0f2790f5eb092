// One worker thread of a `--workers N` run (workers.js starts it): runs its share of the run on its
// own Engine and hands its counts back to be merged. The protocol, in order:
//   worker -> parent  { type: 'ready' }                        engine built, connections allocated
//   parent -> worker  { type: 'go' } | { type: 'abort' }       start together / stop now (Ctrl-C, a failure elsewhere)
//   worker -> parent  { type: 'records', records: Float64Array } with onRequest: RECORD_FIELDS numbers per request
//                                                              (start, connect, waiting, total, latency), in batches
//   worker -> parent  { type: 'progress', done }               the run's total crossed a heartbeat
//   worker -> parent  { type: 'end', counts, end, tls, http2 } its AbCounts (fields only), how it ended, its TLS (https),
//                                                              its connections' figures (--http2, else null)
// Progress counts the whole run's completed requests in one shared Int32 (Atomics.add), so the
// heartbeats come at the same totals as with one thread.
import { parentPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { createEngine, createHttp2Engine, newCounts } from './loadtest.js'
import { RECORD_FIELDS } from './workers.js'

/** Requests per 'records' message: few messages, little held. */
const RECORDS_BATCH = 1024

/**
 * What workers.js hands each worker.
 * @typedef {object} WorkerSpec
 * @property {import('./options.js').NormalizedLoadOptions} options this worker's share, without callbacks or signal
 * @property {import('./request.js').Target} target
 * @property {string[]} addresses
 * @property {SharedArrayBuffer|null} progress  the run's completed requests (Int32), null: no progress
 * @property {number} heartbeat                 completed requests between progress messages
 * @property {boolean} records                  forward each request's times (the caller's onRequest)
 */

if (parentPort === null) throw new Error('lib/load/load-worker.js runs as a worker thread (workers.js)')
const port = parentPort
const spec = /** @type {WorkerSpec} */ (workerData)
const o = spec.options
// a Buffer arrives as a plain Uint8Array
/** @param {Uint8Array} bytes */
const asBuffer = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
if (o.body !== undefined) o.body = asBuffer(o.body)
for (const route of o.routes ?? []) if (route.body !== undefined) route.body = asBuffer(route.body)

const controller = new AbortController()
o.signal = controller.signal

if (spec.progress !== null && spec.heartbeat > 0) {
  const done = new Int32Array(spec.progress)
  const heartbeat = spec.heartbeat
  o.heartbeat = 1
  o.onProgress = () => {
    const total = Atomics.add(done, 0, 1) + 1
    if (total % heartbeat === 0) port.postMessage({ type: 'progress', done: total })
  }
}

let batch = new Float64Array(RECORD_FIELDS * RECORDS_BATCH)
let filled = 0
function flush () {
  if (filled === 0) return
  const records = batch.subarray(0, filled)
  port.postMessage({ type: 'records', records }, [batch.buffer])
  batch = new Float64Array(RECORD_FIELDS * RECORDS_BATCH)
  filled = 0
}
if (spec.records) {
  o.onRequest = (/** @type {import('../types.js').RequestTiming} */ r) => {
    batch[filled++] = r.start
    batch[filled++] = r.connect
    batch[filled++] = r.waiting
    batch[filled++] = r.total
    batch[filled++] = r.latency
    if (filled === batch.length) flush()
  }
}

const counts = newCounts(o)
// --http2: its share of the connections (h2-engine.js); its figures go back with its end
const h2 = o.http2 === true ? await createHttp2Engine(o, spec.target, spec.addresses, counts) : null
const engine = h2 ?? await createEngine(o, spec.target, spec.addresses, counts)

port.on('message', (/** @type {{ type: string }} */ message) => {
  if (message.type === 'abort') controller.abort()
  else if (message.type === 'go') run()
})
port.postMessage({ type: 'ready' })

async function run () {
  const end = await engine.run()
  flush()
  const origin = performance.timeOrigin
  const failure = end.failure === null ? null : { code: end.failure.code, message: end.failure.message }
  port.postMessage({
    type: 'end',
    counts,
    end: {
      timeTakenSeconds: end.timeTakenSeconds,
      // the same clock in every thread: the parent merges the windows
      startTime: origin + (end.startTime ?? 0),
      endTime: origin + (end.endTime ?? 0),
      aborted: end.aborted,
      failure
    },
    // https: the TLS of this worker's first handshake (every worker speaks to the same server)
    transport: h2 !== null ? h2.transportName : /** @type {import('./engine.js').Engine} */ (engine).transport.name,
    tls: h2 !== null ? h2.tls : /** @type {import('./engine.js').Engine} */ (engine).transport.tlsInfo(),
    http2: h2 !== null ? h2.info() : null
  })
  port.close()
}
