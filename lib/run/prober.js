// The probe: what blocking does to everyone else. While a run loads its route, a second, light
// open-loop load (PROBE_RATE requests a second, wrk2's schedule: latency measured from each request's
// intended send time, so a stall counts for every request that was due during it) asks the same server
// for its cheapest answer, GET /__syncbench/health (lib/lab/http-host.js). That route does no work:
// its latency is the time any other request of that server waits for the event loop. A sync handler
// stalls it for the length of a request; an async one leaves it at a millisecond or so.
//
// Over HTTP/2 the probe may also ride the measured load's own connection (sharedSession): its requests
// are then streams beside the load's on one session, so a handler that holds the loop while the
// server reads that connection's frames delays them as it delays the load's own streams (head-of-line
// blocking at the application level). The runner opens that one connection and lends it to both the
// load and the probe (LoadOptions.http2Session): each run keeps its own counts and its open loop (the
// probe's latency still corrected from each request's intended send time), and the connection outlives
// both, so the probe's slowest requests, still in flight when the load ends, complete and are counted.
// The other ways were worse: the probe as one of the load's routes would wait for a seat of a closed
// loop (no schedule, no correction), and a session exposed by the load's engine would be closed at the
// load's end, cutting those slowest requests off.
import { loadtest } from '../load/loadtest.js'
import { openSharedConnection } from '../load/h2-shared.js'
import { HEALTH_PATH } from '../lab/http-host.js'
import { ConnectError, SyncbenchError, firstLine, systemCode } from '../errors.js'
import { redactUrl } from '../redact.js'

/** Requests a second: light beside any route worth measuring, yet ten chances a second to see a stall. */
export const PROBE_RATE = 10
/**
 * Request slots, each on its own schedule (rate / PROBE_CONNECTIONS: one request every 10 s), each
 * request on a new connection (no keep-alive), as independent users arrive: a probe request waits behind
 * another of its own only when one takes over 10 s (then it is counted late, `openLoop.lateRequests`,
 * and its corrected latency includes that wait, as wrk2's would). With a few kept-alive connections, a
 * server stalled for seconds would make the probe measure its own queue, not what one request waits.
 * Without keep-alive an idle slot holds no socket.
 */
export const PROBE_CONNECTIONS = 100
/**
 * Over HTTP/2 (a server loaded with --http2 may speak h2c only) the same 100 slots are streams: 10
 * connections of 10 streams each, a stream per request on its own schedule as above; an HTTP/2
 * connection stays open, so 100 of them would be 100 sessions the server keeps for 10 requests a second.
 */
export const PROBE_H2_CONNECTIONS = 10
export const PROBE_H2_STREAMS = PROBE_CONNECTIONS / PROBE_H2_CONNECTIONS
export { HEALTH_PATH as PROBE_PATH }
/** After the run's load, how long the probe requests already due may take to complete (the server is free by then). */
const DRAIN_MS = 5000

/**
 * What the probe measured during one run: RunRecord.probe (lib/types.js ProbeRecord).
 * @typedef {import('../types.js').ProbeRecord} ProbeRecord
 */

/**
 * Start the probe against a server's origin; `stop()` ends it and resolves with its record. It never
 * rejects: a probe that could not run says so in its record (`error`), and the run it watched stands.
 * @param {object} o
 * @param {string} o.origin   http://host:port of the server the run loads
 * @param {string} [o.path]  the route asked: a syncbench server's health route, or a cheap route of a user's app (--probe-path)
 * @param {number} [o.rate]
 * @param {boolean} [o.http2]  speak HTTP/2 (h2c for http://), as the measured load does
 * @param {import('../types.js').SharedHttp2Connection} [o.session]  with http2: the measured load's connection
 *   (sharedSession), which carries the probe's 100 slots as streams
 * @param {AbortSignal} [o.signal]  Ctrl-C, the run's deadline
 * @param {(second: import('../types.js').LoadSecond) => void} [o.onSecond]  each second's waits as it ends (a live view)
 * @returns {{ stop: () => Promise<ProbeRecord> }}
 */
export function startProbe ({ origin, path = HEALTH_PATH, rate = PROBE_RATE, http2: overHttp2 = false, session, signal, onSecond }) {
  const controller = new AbortController()
  const ended = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal
  /** @type {ProbeRecord} */
  // the path as results.json keeps it: a credential in its query starred (lib/redact.js)
  const record = session !== undefined
    ? { path: redactUrl(path), rate, connections: 1, streams: PROBE_CONNECTIONS, sameConnection: true, load: null, error: null }
    : overHttp2
      ? { path: redactUrl(path), rate, connections: PROBE_H2_CONNECTIONS, streams: PROBE_H2_STREAMS, load: null, error: null }
      : { path: redactUrl(path), rate, connections: PROBE_CONNECTIONS, load: null, error: null }
  const startedAt = performance.now()
  let done = 0
  /** @type {(() => void)|null} called on each completed probe request while stop() drains */
  let onDone = null
  // An hour of requests at most: the run's end (stop) or its deadline ends the probe long before.
  const running = loadtest(/** @type {import('../types.js').LoadOptions} */ ({
    url: origin + path,
    rate,
    requests: rate * 3600,
    ...session !== undefined
      ? { http2: true, concurrency: 1, streams: PROBE_CONNECTIONS, http2Session: session }
      : overHttp2 ? { http2: true, concurrency: PROBE_H2_CONNECTIONS, streams: PROBE_H2_STREAMS } : { concurrency: PROBE_CONNECTIONS, keepAlive: false },
    heartbeat: 1,
    onProgress: (/** @type {number} */ n) => { done = n; onDone?.() },
    ...onSecond && { onSecond },
    signal: ended
  })).then((load) => { record.load = load }, (err) => {
    if (!(err instanceof SyncbenchError)) throw err
    record.load = /** @type {{ result?: import('../types.js').LoadResult }} */ (err).result ?? null
    record.error = { code: err.code, message: err.message }
  })
  return {
    async stop () {
      // The load has ended, so the server answers again: the probe requests due so far, the slowest
      // among them (still in flight, or waiting for their slot), complete within moments. Cutting them
      // off would leave out exactly the requests that waited longest; DRAIN_MS bounds the wait.
      if (!ended.aborted) {
        const due = Math.floor((performance.now() - startedAt) / 1000 * rate) + 1
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, DRAIN_MS)
          onDone = () => { if (done >= due) { clearTimeout(timer); resolve(undefined) } }
          onDone()
        })
      }
      controller.abort()
      await running
      return record
    }
  }
}

/**
 * The one HTTP/2 connection the measured load and the probe share (h2c to an http:// `origin`, ALPN h2
 * to an https:// one), once the server's SETTINGS have arrived: both runs start their streams at once,
 * on seats of their own (the load's `streams`, the probe's PROBE_CONNECTIONS). The caller closes it
 * after both.
 * @param {string} origin  http://host:port
 * @param {number} streams  the load's streams on it
 * @param {AbortSignal} [signal]
 * @returns {Promise<import('../types.js').SharedHttp2Connection>}
 */
export async function sharedSession (origin, streams, signal) {
  try {
    return await openSharedConnection(origin, { seats: streams + PROBE_CONNECTIONS, ...signal && { signal } })
  } catch (err) {
    throw new ConnectError(`${origin}: cannot open the HTTP/2 connection the load and the probe share (${systemCode(err) ?? firstLine(err)})`, { cause: err })
  }
}
