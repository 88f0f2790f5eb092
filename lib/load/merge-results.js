// The union of several LoadResults: the shards of one run spread over processes or machines
// (`--segment i/N`), or independent generators loading one server at once. Counts are summed; the
// rates are over the union of their time windows (from the first start to the last end, on the wall
// clock); every percentile and median is read from the sum of their histograms, exactly as from one
// run's (the same Row code reads it), never averaged. A merged result is a LoadResult again, so it
// prints as ab's report and merges further.
import { InvalidOptionError, ResultsError } from '../errors.js'
import { roundTo } from '../format.js'
import { Row, RequestTimes, rates } from './request-times.js'
import { countsOfHistogram, decodeHistogram, encodeCounts } from './histogram.js'
import { apiSpelling, loadOptionRule } from './options.js'
import { mapValues } from './ab-counts.js'
import { redactLoadOptions } from '../redact.js'

/** @typedef {import('../types.js').LoadResult} LoadResult */
/** @typedef {import('../types.js').TimeRow} TimeRow */

/**
 * Options every part must share: they decide what a request is, so parts that differ measured
 * different things. (-n, -c and -R may differ: they are summed. -s, -v, -q... change nothing measured.)
 */
const SAME = /** @type {const} */ (['url', 'method', 'keepAlive', 'http11', 'variableLength', 'headers', 'cookies', 'contentType', 'auth', 'proxyAuth', 'timelimit', 'responseTimeout', 'routes', 'streams'])

const ROWS = /** @type {const} */ (['connect', 'processing', 'waiting'])

/**
 * The HTTP version of a result; one written before `protocol` was recorded was HTTP/1.
 * @param {LoadResult} r
 */
function protocolOf (r) {
  return r.protocol ?? (r.options.http11 === true ? 'http/1.1' : 'http/1.0')
}

/**
 * The parts' HTTP/2 figures (shards, or a run's worker threads) as one run's: counts summed, the spreads' extremes and their means
 * weighted by each part's connections.
 * @param {import('../types.js').Http2Info[]} parts
 * @returns {import('../types.js').Http2Info}
 */
export function mergeHttp2 (parts) {
  const connections = parts.reduce((n, p) => n + p.connections, 0)
  const spread = (/** @type {(p: import('../types.js').Http2Info) => import('../types.js').SpreadRow} */ f) => {
    const rows = parts.filter((p) => p.connections > 0)
    if (rows.length === 0) return { min: 0, mean: 0, max: 0 }
    return {
      min: Math.min(...rows.map((p) => f(p).min)),
      mean: roundTo(rows.reduce((n, p) => n + f(p).mean * p.connections, 0) / connections, 3),
      max: Math.max(...rows.map((p) => f(p).max))
    }
  }
  const limits = parts.map((p) => p.serverStreamsLimit).filter((n) => n > 0)
  return {
    streams: parts[0].streams,
    serverStreamsLimit: limits.length === 0 ? 0 : Math.min(...limits),
    connections,
    connectMs: spread((p) => p.connectMs),
    firstByteMs: spread((p) => p.firstByteMs),
    streamsPerConnection: spread((p) => p.streamsPerConnection),
    goaways: sumRecords(parts.map((p) => p.goaways)),
    resets: sumRecords(parts.map((p) => p.resets))
  }
}

/**
 * @param {LoadResult[]} results  at least one
 * @param {string[]} [names]      how messages name each (file names); default "result 1", "result 2"...
 * @returns {LoadResult}
 */
export function mergeLoadResults (results, names = results.map((_, i) => `result ${i + 1}`)) {
  if (results.length === 0) throw new InvalidOptionError('nothing to merge: give one LoadResult at least')
  results.forEach((r, i) => checkMergeable(r, names[i]))
  checkConsistent(results, names)
  const first = results[0]
  const openLoop = first.openLoop !== undefined

  const startMs = Math.min(...results.map((r) => Date.parse(r.startedAt)))
  // each part's end from its exact duration (its startedAt has ms precision, its time taken us)
  const endMs = Math.max(...results.map((r) => Date.parse(r.startedAt) + r.timeTakenSeconds * 1000))
  const timeTakenSeconds = Math.round((endMs - startMs) * 1000) / 1e6

  const sum = (/** @type {(r: LoadResult) => number} */ f) => results.reduce((n, r) => n + f(r), 0)
  const done = sum((r) => r.completeRequests)
  const concurrency = sum((r) => r.concurrency)
  const totalRead = sum((r) => r.totalTransferredBytes)

  // the four rows of Connection Times, each from its summed histogram and its parts' exact moments
  const times = new RequestTimes()
  for (const key of ROWS) {
    times[key] = mergedRow(results.map((r) => ({ row: r.connectionTimes[key], count: r.completeRequests, histogram: /** @type {NonNullable<LoadResult['connectionTimesHistograms']>} */ (r.connectionTimesHistograms)[key] })))
  }
  // ab's total time: the uncorrected histogram under -R (latencyHistogram then counts from the intended send)
  times.total = mergedRow(results.map((r) => ({ row: r.connectionTimes.total, count: r.completeRequests, histogram: /** @type {string} */ (openLoop ? r.latencyHistogramUncorrected : r.latencyHistogram) })))

  // starred again: a file written before syncbench starred credentials must not pass them on
  const options = redactLoadOptions({ ...first.options, requests: sum((r) => r.options.requests ?? r.completeRequests), concurrency })
  delete options.segment
  delete options.startAt
  // the shards' I/O paths, each once, in order ("native+node:net" when they differ)
  const transports = [...new Set(results.flatMap((r) => r.transport === undefined ? [] : r.transport.split('+')))]
  /** @type {LoadResult} */
  const merged = {
    schema: 'syncbench/load-result@1',
    tool: first.tool,
    options,
    startedAt: new Date(startMs).toISOString(),
    endedAt: new Date(endMs).toISOString(),
    server: { ...first.server, software: results.find((r) => r.server.software !== '')?.server.software ?? '' },
    ...(transports.length > 0 ? { transport: transports.join('+') } : {}),
    ...(first.protocol === undefined ? {} : { protocol: first.protocol }),
    document: first.document,
    concurrency,
    timeTakenSeconds,
    completeRequests: done,
    failedRequests: sum((r) => r.failedRequests),
    failures: {
      connect: sum((r) => r.failures.connect),
      receive: sum((r) => r.failures.receive),
      length: sum((r) => r.failures.length),
      exceptions: sum((r) => r.failures.exceptions)
    },
    writeErrors: sum((r) => r.writeErrors),
    non2xxResponses: sum((r) => r.non2xxResponses),
    keepAliveRequests: sum((r) => r.keepAliveRequests),
    totalTransferredBytes: totalRead,
    htmlTransferredBytes: sum((r) => r.htmlTransferredBytes),
    totalBodySentBytes: sum((r) => r.totalBodySentBytes),
    ...mapValues(rates({ done, timeTakenSeconds, concurrency, totalRead }), (v) => roundTo(v, 6)),
    connectionTimes: mapValues(times.connectionTimes(), (row) => mapValues(row, (ms) => roundTo(ms, 3))),
    percentiles: mapValues(times.percentiles(), (ms) => roundTo(ms, 3)),
    latency: mapValues(times.latency(), (ms) => roundTo(ms, 3)),
    statusCodes: sumRecords(results.map((r) => r.statusCodes)),
    errors: sumRecords(results.map((r) => r.errors)),
    aborted: results.some((r) => r.aborted),
    latencyHistogram: encodeCounts(times.total.counts),
    connectionTimesHistograms: {
      connect: encodeCounts(times.connect.counts),
      processing: encodeCounts(times.processing.counts),
      waiting: encodeCounts(times.waiting.counts)
    },
    merged: {
      results: sum((r) => r.merged?.results ?? 1),
      parts: results.flatMap((r) => r.merged?.parts ?? [{
        ...(r.runId === undefined ? {} : { runId: r.runId }),
        startedAt: r.startedAt,
        endedAt: /** @type {string} */ (r.endedAt),
        segment: r.options.segment ? `${r.options.segment.index}/${r.options.segment.count}` : null,
        completeRequests: r.completeRequests
      }])
    }
  }
  if (first.http2 !== undefined) merged.http2 = mergeHttp2(results.map((r) => /** @type {import('../types.js').Http2Info} */ (r.http2)))
  if (first.routes !== undefined) merged.routes = first.routes.map((route, i) => mergeRoute(results.map((r) => /** @type {import('../types.js').RouteResult[]} */ (r.routes)[i])))
  if (!openLoop) return merged

  // -R: latency from the intended send times (latencyHistogram), its uncorrected twin as ab's total row
  const corrected = mergedRow(results.map((r) => ({
    // LoadResult.latency keeps no minimum: the lowest bucket's value stands for it
    row: { min: NaN, mean: r.latency.mean, sd: r.latency.stddev, median: 0, max: r.latency.max },
    count: r.completeRequests,
    histogram: /** @type {string} */ (r.latencyHistogram)
  })))
  const targetRate = roundTo(sum((r) => /** @type {NonNullable<LoadResult['openLoop']>} */ (r.openLoop).targetRate), 6)
  const ramp = /** @type {NonNullable<LoadResult['openLoop']>} */ (first.openLoop).ramp
  // a constant rate's shards each ran rate / N; a ramp's shards each followed the whole ramp
  if (ramp === undefined) merged.options = { ...options, rate: targetRate }
  merged.latencyUncorrected = merged.latency
  merged.latency = mapValues(corrected.latency(), (ms) => roundTo(ms, 3))
  merged.openLoop = {
    targetRate,
    achievedRate: roundTo(sum((r) => /** @type {NonNullable<LoadResult['openLoop']>} */ (r.openLoop).achievedRate), 6),
    lateRequests: sum((r) => /** @type {NonNullable<LoadResult['openLoop']>} */ (r.openLoop).lateRequests),
    lateThresholdMs: /** @type {NonNullable<LoadResult['openLoop']>} */ (first.openLoop).lateThresholdMs
  }
  if (ramp !== undefined) merged.openLoop.ramp = { ...ramp }
  merged.latencyHistogramUncorrected = encodeCounts(times.total.counts)
  merged.latencyHistogram = encodeCounts(corrected.counts)
  return merged
}

/**
 * What a merge needs of each part: every histogram (an external engine's result has none, and its
 * percentiles cannot be added) and its window.
 * @param {LoadResult} r @param {string} name
 */
function checkMergeable (r, name) {
  const missing = (/** @type {string} */ what) => new ResultsError(`${name}: has no ${what}: only syncbench ab --json results (syncbench 0.1.0 or later) can be merged`)
  if (typeof r.latencyHistogram !== 'string') throw missing('latencyHistogram (an external engine reports percentiles only, which do not add up)')
  if (r.connectionTimesHistograms === undefined) throw missing('connectionTimesHistograms')
  if (r.endedAt === undefined) throw missing('endedAt')
  if (r.openLoop !== undefined && typeof r.latencyHistogramUncorrected !== 'string') throw missing('latencyHistogramUncorrected')
  const histograms = { latencyHistogram: r.latencyHistogram, latencyHistogramUncorrected: r.latencyHistogramUncorrected, ...Object.fromEntries(Object.entries(r.connectionTimesHistograms).map(([k, v]) => [`connectionTimesHistograms.${k}`, v])) }
  for (const [key, value] of Object.entries(histograms)) {
    if (value === undefined) continue
    try {
      decodeHistogram(value)
    } catch (err) {
      throw new ResultsError(`${name}: ${key} is not an HdrHistogram compressed base64 histogram (${err instanceof Error ? err.message : err})`)
    }
  }
}

/**
 * Refuse parts that measured different things, naming the first difference.
 * @param {LoadResult[]} results @param {string[]} names
 */
function checkConsistent (results, names) {
  // credentials are compared by their digests (lib/redact.js), and only those are quoted: the same
  // value gives the same digest in a file written before syncbench starred them
  const first = /** @type {Record<string, unknown>} */ (redactLoadOptions(results[0].options))
  /** @param {string} what @param {number} i @param {unknown} a @param {unknown} b */
  const differs = (what, i, a, b) => new InvalidOptionError(`${names[i]} differs from ${names[0]} in ${what}: ${shown(b)} vs ${shown(a)}; merge the parts of one run`)
  for (const [i, r] of results.entries()) {
    // HTTP/1 and HTTP/2 requests are different things to count (a stream is not a connection's request)
    if (protocolOf(r) !== protocolOf(results[0])) throw new InvalidOptionError(`${names[i]} was sent over ${protocolOf(r)}, ${names[0]} over ${protocolOf(results[0])}: merge adds results of one protocol`)
    const options = /** @type {Record<string, unknown>} */ (redactLoadOptions(r.options))
    for (const key of SAME) {
      // absent and the default are the same request (an older file may leave a default out)
      if (JSON.stringify(options[key] ?? null) !== JSON.stringify(first[key] ?? null)) throw differs(key === 'url' ? 'the URL' : apiSpelling(loadOptionRule(key)), i, first[key], options[key])
    }
    if ((r.options.bodyBytes ?? 0) !== (results[0].options.bodyBytes ?? 0)) throw differs('the -p / -u body (bodyBytes)', i, results[0].options.bodyBytes ?? 0, r.options.bodyBytes ?? 0)
    if ((r.openLoop === undefined) !== (results[0].openLoop === undefined)) throw differs('-R (rate): an open loop and a closed one', i, results[0].options.rate ?? 'none', r.options.rate ?? 'none')
    const a = results[0].options.segment
    const b = r.options.segment
    if ((a === undefined) !== (b === undefined)) {
      const shard = (/** @type {typeof a} */ x) => x ? `shard ${x.index}/${x.count}` : 'no shard'
      throw new InvalidOptionError(`${names[i]} differs from ${names[0]} in --segment (segment): ${shard(b)} vs ${shard(a)}; merge the parts of one run`)
    }
    if (a !== undefined && b !== undefined) {
      for (const key of /** @type {const} */ (['count', 'requests', 'concurrency', 'rate'])) {
        if (a[key] !== b[key]) throw differs(`--segment's whole run (${key === 'count' ? 'number of shards' : apiSpelling(loadOptionRule(key))})`, i, a[key], b[key])
      }
    }
  }
  // the same run twice (a file given twice, or a part inside a merged file given again) would count
  // its requests twice
  /** @type {Map<string, string>} */
  const runs = new Map()
  for (const [i, r] of results.entries()) {
    const ids = r.merged ? r.merged.parts.flatMap((p) => p.runId === undefined ? [] : [p.runId]) : (r.runId === undefined ? [] : [r.runId])
    for (const id of ids) {
      const other = runs.get(id)
      if (other !== undefined) throw new InvalidOptionError(`${names[i]} and ${other} hold the same run (runId ${id}): each run may be merged once`)
      runs.set(id, names[i])
    }
  }
  /** @type {Map<string, string>} */
  const seen = new Map()
  for (const [i, r] of results.entries()) {
    const parts = r.merged?.parts ?? [{ segment: r.options.segment ? `${r.options.segment.index}/${r.options.segment.count}` : null }]
    for (const { segment } of parts) {
      if (segment === null) continue
      const other = seen.get(segment)
      if (other !== undefined) throw new InvalidOptionError(`${names[i]} and ${other} are both shard ${segment}: each shard is merged once`)
      seen.set(segment, names[i])
    }
  }
}

/**
 * One row of Connection Times over the parts: the sum of their histograms for the order statistics,
 * their exact min and max, and the mean and sample sd of all their requests (from each part's mean
 * and sd, as ab computes them: sd with n - 1).
 * @param {{ row: TimeRow, count: number, histogram: string }[]} parts
 * @returns {Row}
 */
function mergedRow (parts) {
  const row = new Row()
  const histograms = parts.map((p) => decodeHistogram(p.histogram))
  const h = histograms[0]
  for (const other of histograms.slice(1)) h.add(other)
  row.counts.set(countsOfHistogram(h, row.counts.length))
  const counted = parts.filter((p) => p.count > 0)
  row.count = counted.reduce((n, p) => n + p.count, 0)
  if (row.count === 0) return row
  // the exact minimum where the parts kept it (NaN: not kept), else the lowest bucket's value
  const lowest = h.minNonZeroValue / 1000
  row.min = Math.min(...counted.map((p) => Number.isNaN(p.row.min) ? lowest : p.row.min))
  row.max = Math.max(...counted.map((p) => p.row.max))
  row.sum = counted.reduce((n, p) => n + p.row.mean * p.count, 0)
  // sum of squares = (n - 1) sd^2 + n mean^2, per part
  row.sumSquares = counted.reduce((n, p) => n + (p.count - 1) * p.row.sd ** 2 + p.count * p.row.mean ** 2, 0)
  return row
}

/**
 * One route of a mix, from its parts: counts summed, latency from the summed histograms.
 * @param {import('../types.js').RouteResult[]} parts the same route in every part (checkConsistent: same routes)
 * @returns {import('../types.js').RouteResult}
 */
function mergeRoute (parts) {
  const sum = (/** @type {(r: import('../types.js').RouteResult) => number} */ f) => parts.reduce((n, r) => n + f(r), 0)
  const row = mergedRow(parts.map((r) => ({
    row: { min: NaN, mean: r.latency.mean, sd: r.latency.stddev, median: 0, max: r.latency.max },
    count: r.completeRequests,
    histogram: /** @type {string} */ (r.latencyHistogram)
  })))
  const { name, method, path, weight } = parts[0]
  return {
    name,
    method,
    path,
    weight,
    connections: sum((r) => r.connections),
    completeRequests: sum((r) => r.completeRequests),
    failedRequests: sum((r) => r.failedRequests),
    non2xxResponses: sum((r) => r.non2xxResponses),
    statusCodes: sumRecords(parts.map((r) => r.statusCodes)),
    latency: mapValues(row.latency(), (ms) => roundTo(ms, 3)),
    latencyHistogram: encodeCounts(row.counts)
  }
}

/**
 * @param {Record<string, number>[]} records
 * @returns {Record<string, number>}
 */
function sumRecords (records) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const record of records) for (const [k, v] of Object.entries(record)) out[k] = (out[k] ?? 0) + v
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/** @param {unknown} v */
function shown (v) {
  return v === undefined || v === null ? 'none' : typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? JSON.stringify(v) : String(v)
}
