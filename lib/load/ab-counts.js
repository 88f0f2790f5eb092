// ab's counts of one run, named as in ab 2.3's support/ab.c (done, good, bad, doneka, err_conn, ...),
// the rules ab applies to them (the Length check, the status and Server reading of a header), and
// the LoadResult (lib/types.js) they make at the end. The engine decides *when* something counts;
// this object holds *what* was counted, so every figure of the report has one home.
import { version } from '../version.js'
import { roundTo } from '../format.js'
import { RouteCounts, routeMethod, routeName } from './routes.js'
import { redactUrl } from '../redact.js'
import { indexOfCI, SERVER } from './response-parser.js'
import { RequestTimes, Row, rates } from './request-times.js'
import { LATE_THRESHOLD_MS } from './engine.js'
import { encodeCounts } from './histogram.js'
import { dueSeconds, rateShape } from './schedule.js'

/**
 * What the LoadResult takes from outside the counts: the run's options and target, and its end.
 * @typedef {object} ResultContext
 * @property {import('../types.js').LoadResult['options']} options  the LoadOptions as recorded
 * @property {import('./request.js').Target} target
 * @property {string} startedAt           ISO time
 * @property {string} endedAt             ISO time: startedAt + the time taken
 * @property {number} concurrency
 * @property {boolean} bodySent           a -p / -u body was sent (ab prints "Total body sent" only then)
 * @property {import('./engine.js').RunEnd} end
 * @property {string} transport           the I/O path that carried the run (transport.js)
 * @property {import('../types.js').Protocol} protocol  the HTTP version the requests were sent in
 * @property {string} runId               this run's id (a merge refuses one run twice)
 */

/**
 * The counts of one run (or of one worker's share of it): -l, -R and a mix's routes from its options.
 * A mix turns ab's Length check off: its routes' documents differ. A ramp's target rate is its mean
 * over this part's requests: they over the time the whole schedule takes to offer them all.
 * @param {Pick<import('../types.js').LoadOptions, 'variableLength'|'rate'|'rampTo'|'ramp'|'routes'|'requests'> & { interleave?: { count: number } }} o
 */
export function countsFor (o) {
  const shape = rateShape(o)
  const ramp = shape !== null && shape.seconds > 0 ? shape : null
  const requests = o.requests ?? 1
  const rate = ramp === null ? o.rate ?? 0 : roundTo(requests / dueSeconds(ramp, requests * (o.interleave?.count ?? 1)), 6)
  const counts = new AbCounts({ variableLength: o.variableLength === true || o.routes !== undefined, rate, ramp })
  if (o.routes !== undefined) {
    // names and paths as the LoadResult shows them: a credential in a query starred (lib/redact.js)
    counts.routes = o.routes.map((r) => new RouteCounts({ name: redactUrl(routeName(r)), method: routeMethod(r), path: redactUrl(r.path), weight: r.weight ?? 1 }))
  }
  return counts
}

export class AbCounts {
  /**
   * @param {{ variableLength: boolean, rate?: number, ramp?: import('./schedule.js').RateShape|null }} options -l:
   *        responses of another length are not failures; -R: the open loop's rate (requests per second;
   *        a ramp's mean), absent or 0 for ab's closed loop; a ramp's shape (-R FROM..TO --ramp)
   */
  constructor ({ variableLength, rate = 0, ramp = null }) {
    /** @type {boolean} */
    this.variableLength = variableLength
    /** -R (0: closed loop) */
    this.rate = rate
    this.ramp = ramp
    /** @type {Row|null} open loop: each request's total time from its intended send time (corrected) */
    this.corrected = rate > 0 ? new Row() : null
    /** open loop: requests sent more than LATE_THRESHOLD_MS after their intended time */
    this.late = 0
    /** open loop: requests the schedule has sent, on time or late (the series' sent per second) */
    this.sent = 0
    /** requests written */
    this.started = 0
    /** requests completed (ab's "Complete requests") */
    this.done = 0
    /** responses complete by framing or EOF, counted before the Length check */
    this.good = 0
    /** ab's "Failed requests" */
    this.bad = 0
    /** completed requests on a kept-alive connection */
    this.doneka = 0
    /** body length of the first good response: the Length check's reference */
    this.doclen = 0
    /** ab's err_conn, err_recv, err_length, err_except, err_response */
    this.errConn = 0
    this.errRecv = 0
    this.errLength = 0
    this.errExcept = 0
    this.errResponse = 0
    /** write errors */
    this.epipe = 0
    /** bytes received, headers included */
    this.totalRead = 0
    /** body bytes received */
    this.totalBread = 0
    /** request bytes written */
    this.totalPosted = 0
    /** the Server header of the first response (ab keeps re-reading it until a response is good) */
    this.servername = ''
    /** count per three-digit status code */
    this.statusCounts = new Float64Array(1000)
    /** @type {Record<string, number>} status "codes" that are not three digits */
    this.oddStatus = {}
    /** @type {Record<string, number>} count per socket error code */
    this.errors = {}
    this.times = new RequestTimes()
    /** @type {import('./routes.js').RouteCounts[]|null} a mix: each route's own counts (routes.js) */
    this.routes = null
  }

  /**
   * A response header was read: ab's Server name (until a response is good), its status and the
   * non-2xx count.
   * @param {Buffer} buf the header's bytes @param {number} end where the read header ends in buf
   * @param {number} code 0..999, or -1 when ab's 3 status bytes are not digits
   * @param {number} at where those 3 bytes are in buf (read only when code is -1)
   */
  header (buf, end, code, at) {
    if (this.good === 0) this.serverName(buf, end)
    if (code >= 0) {
      this.statusCounts[code]++
      if (code < 200 || code > 299) this.errResponse++
    } else {
      const key = buf.toString('latin1', at, at + 3)
      this.oddStatus[key] = (this.oddStatus[key] ?? 0) + 1
      if (buf[at] !== 0x32) this.errResponse++
    }
  }

  /**
   * ab keeps the Server header's value up to the first space or control byte.
   * @param {Buffer} buf @param {number} end
   */
  serverName (buf, end) {
    const p = indexOfCI(buf, 0, end, SERVER)
    if (p === -1) {
      this.servername = ''
      return
    }
    let q = p + 8
    while (q < end && buf[q] > 32) q++
    this.servername = buf.toString('latin1', Math.min(p + 8, q), q)
  }

  /**
   * ab's "Length" failure: a body length other than the first good response's (unless -l).
   * @param {number} bread body bytes of the response that just ended
   */
  checkLength (bread) {
    if (this.good === 1) this.doclen = bread
    else if (bread !== this.doclen && !this.variableLength) {
      this.bad++
      this.errLength++
    }
  }

  /**
   * A completed request and its times.
   * @param {number} ctime ms from start to connected @param {number} time ms from start to done
   * @param {number} wait ms from the end of the write to the first byte @param {boolean} keptAlive
   */
  complete (ctime, time, wait, keptAlive) {
    this.done++
    if (keptAlive) this.doneka++
    this.times.record(ctime, time, wait)
  }

  /**
   * --http1.1: a malformed response, a failed request under ab's Exceptions (engine.js malformed()).
   * @param {string} code the fault (http11.js), counted in `errors`
   */
  malformed (code) {
    this.bad++
    this.errExcept++
    this.error(code)
  }

  /** @param {string} code a socket error's code (ECONNREFUSED, ...) or ETIMEDOUT for -s, or a malformed response's fault */
  error (code) {
    this.errors[code] = (this.errors[code] ?? 0) + 1
  }

  /**
   * Add the counts of another share of the run (a worker thread's AbCounts, cloned to this thread:
   * its fields without the methods), as if its requests had been counted here. Every count is a sum
   * and every time row merges exactly (stats.js Row.add). The Server name and the Length check's
   * reference length are the first share's that had a good response: each worker checked lengths
   * against its own first good response, so responses of two lengths split between workers are not
   * counted as Length failures against each other (with one document, as in a benchmark, no difference).
   * @param {AbCounts} other
   */
  add (other) {
    if (this.good === 0 && other.good > 0) {
      this.servername = other.servername
      this.doclen = other.doclen
    } else if (this.good === 0 && this.servername === '') {
      this.servername = other.servername
    }
    this.late += other.late
    this.sent += other.sent
    this.started += other.started
    this.done += other.done
    this.good += other.good
    this.bad += other.bad
    this.doneka += other.doneka
    this.errConn += other.errConn
    this.errRecv += other.errRecv
    this.errLength += other.errLength
    this.errExcept += other.errExcept
    this.errResponse += other.errResponse
    this.epipe += other.epipe
    this.totalRead += other.totalRead
    this.totalBread += other.totalBread
    this.totalPosted += other.totalPosted
    for (let i = 0; i < 1000; i++) this.statusCounts[i] += other.statusCounts[i]
    for (const [k, v] of Object.entries(other.oddStatus)) this.oddStatus[k] = (this.oddStatus[k] ?? 0) + v
    for (const [k, v] of Object.entries(other.errors)) this.errors[k] = (this.errors[k] ?? 0) + v
    this.times.add(other.times)
    if (this.corrected !== null && other.corrected !== null) this.corrected.add(other.corrected)
    if (this.routes !== null && other.routes !== null) this.routes.forEach((route, i) => route.add(/** @type {import('./routes.js').RouteCounts[]} */ (other.routes)[i]))
  }

  /**
   * status code -> count, for LoadResult.statusCodes
   * @returns {Record<string, number>}
   */
  statusCodes () {
    /** @type {Record<string, number>} */
    const out = {}
    for (let i = 0; i < 1000; i++) if (this.statusCounts[i] > 0) out[String(i).padStart(3, '0')] = this.statusCounts[i]
    for (const [k, v] of Object.entries(this.oddStatus)) out[k] = v
    return out
  }

  /**
   * The LoadResult of these counts.
   * @param {ResultContext} context
   * @returns {import('../types.js').LoadResult}
   */
  toResult ({ options, target, startedAt, endedAt, concurrency, bodySent, end, transport, protocol, runId }) {
    const timeTakenSeconds = end.timeTakenSeconds
    /** @type {import('../types.js').LoadResult} */
    const result = {
      schema: 'syncbench/load-result@1',
      tool: { name: 'syncbench', version },
      runId,
      options,
      startedAt,
      endedAt,
      server: { software: this.servername, hostname: target.hostname, port: target.port },
      transport,
      protocol,
      document: { path: target.path, length: this.doclen, variable: this.variableLength },
      concurrency,
      timeTakenSeconds,
      completeRequests: this.done,
      failedRequests: this.bad,
      failures: { connect: this.errConn, receive: this.errRecv, length: this.errLength, exceptions: this.errExcept },
      writeErrors: this.epipe,
      non2xxResponses: this.errResponse,
      keepAliveRequests: this.doneka,
      totalTransferredBytes: this.totalRead,
      htmlTransferredBytes: this.totalBread,
      // ab's "Total body sent" is every request byte written, headers included, when a body is sent.
      totalBodySentBytes: bodySent ? this.totalPosted : 0,
      ...mapValues(rates({ done: this.done, timeTakenSeconds, concurrency, totalRead: this.totalRead }), (v) => roundTo(v, 6)),
      connectionTimes: mapValues(this.times.connectionTimes(), (row) => mapValues(row, (ms) => roundTo(ms, 3))),
      percentiles: mapValues(this.times.percentiles(), (ms) => roundTo(ms, 3)),
      latency: mapValues(this.times.latency(), (ms) => roundTo(ms, 3)),
      statusCodes: this.statusCodes(),
      errors: { ...this.errors },
      aborted: end.aborted,
      latencyHistogram: ''
    }
    if (this.routes !== null) result.routes = this.routes.map(routeResult)
    // the other rows' histograms too, so that a merge of shards reads every median from merged counts
    const times = this.times
    result.connectionTimesHistograms = { connect: '', processing: '', waiting: '' }
    for (const key of /** @type {const} */ (['connect', 'processing', 'waiting'])) withLazyHistogram(result.connectionTimesHistograms, key, times[key].counts)
    const corrected = this.corrected
    if (corrected === null) return withLazyHistogram(result, 'latencyHistogram', this.times.total.counts)
    // open loop: `latency` and `latencyHistogram` from the intended send times, their twins from the actual ones
    result.latencyUncorrected = result.latency
    result.latency = mapValues(corrected.latency(), (ms) => roundTo(ms, 3))
    result.openLoop = {
      targetRate: this.rate,
      achievedRate: roundTo(achievedRate(this.done, timeTakenSeconds, options.requests ?? this.done, this.rate), 6),
      lateRequests: this.late,
      lateThresholdMs: LATE_THRESHOLD_MS
    }
    if (this.ramp !== null) result.openLoop.ramp = { fromRate: this.ramp.from, toRate: this.ramp.to, seconds: this.ramp.seconds }
    withLazyHistogram(result, 'latencyHistogram', corrected.counts)
    result.latencyHistogramUncorrected = ''
    return withLazyHistogram(result, 'latencyHistogramUncorrected', this.times.total.counts)
  }
}

/**
 * LoadResult.routes[i] of a route's counts.
 * @param {import('./routes.js').RouteCounts} r
 * @returns {import('../types.js').RouteResult}
 */
function routeResult (r) {
  /** @type {import('../types.js').RouteResult} */
  const result = {
    name: r.name,
    method: r.method,
    path: r.path,
    weight: r.weight,
    connections: r.connections,
    completeRequests: r.done,
    failedRequests: r.failed,
    non2xxResponses: r.non2xx,
    statusCodes: { ...r.statusCodes },
    latency: mapValues(r.latency.latency(), (ms) => roundTo(ms, 3)),
    latencyHistogram: ''
  }
  return withLazyHistogram(result, 'latencyHistogram', r.latency.counts)
}

/**
 * Set `latencyHistogram` (or another histogram field of `result`) to the encoding of `counts` when it is
 * first read (JSON.stringify for --json
 * and results.json, a caller's code), then keep the string: encoding loads hdr-histogram-js (~20 ms of
 * CPU, lib/load/histogram.js), which a plain `syncbench ab` printing ab's report never needs. The
 * property is enumerable, so spreads, JSON and structuredClone see it like any other field.
 * @template {object} T
 * @param {T} result  the LoadResult, or its connectionTimesHistograms
 * @param {keyof T & string} key
 * @param {Float64Array} counts a row's bucket counts (stats.js Row.counts)
 * @returns {T}
 */
function withLazyHistogram (result, key, counts) {
  Object.defineProperty(result, key, {
    enumerable: true,
    configurable: true,
    get () {
      const value = encodeCounts(counts)
      Object.defineProperty(result, key, { value, enumerable: true, configurable: true, writable: true })
      return value
    },
    set (value) {
      Object.defineProperty(result, key, { value, enumerable: true, configurable: true, writable: true })
    }
  })
  return result
}

/**
 * The open loop's achieved rate: completed requests per second. A run that completed its n requests
 * is measured over the schedule's time, n / rate (n slots of 1 / rate each), or its own when it took
 * longer: a run whose last request is answered at once ends as soon as that request is due,
 * (n - 1) / rate after the start, and dividing by that would credit a generator that held its rate
 * exactly with one request too many (100 requests at 100 req/s: 100.9). A run cut short (-t, a
 * signal) is measured over its own time.
 * @param {number} done @param {number} timeTakenSeconds @param {number} requests @param {number} rate
 */
function achievedRate (done, timeTakenSeconds, requests, rate) {
  const seconds = done >= requests ? Math.max(timeTakenSeconds, requests / rate) : timeTakenSeconds
  return seconds > 0 ? done / seconds : 0
}

/**
 * @template {string} K
 * @template T, U
 * @param {Record<K, T>} obj @param {(v: T) => U} f
 * @returns {Record<K, U>} the same keys, the values mapped
 */
export function mapValues (obj, f) {
  // Object.entries and fromEntries forget the keys; they are obj's own
  return /** @type {Record<K, U>} */ (Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(/** @type {T} */ (v))])))
}
