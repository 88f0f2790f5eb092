// The load generator's contract (syncbench ab, loadtest()): the options of one load test and the
// LoadResult it resolves to, which `syncbench ab --json` prints. Names follow ab's meaning; times are
// milliseconds unless a name says otherwise.

/** ab's -f: ALL (TLS 1.0 to 1.3, ab's default), or exactly one version. */
export type TlsProtocol = 'ALL' | 'TLS1' | 'TLS1.1' | 'TLS1.2' | 'TLS1.3'

/** This process's shard of a run spread over several (--segment i/N). */
export interface Segment {
  /** 0-based, below count */
  index: number
  count: number
  /** in a LoadResult: the whole run's -n (options.requests holds the shard's share) */
  requests?: number
  /** in a LoadResult: the whole run's -c */
  concurrency?: number
  /** in a LoadResult: the whole run's -R */
  rate?: number
}

/** One route of a mix (LoadOptions.routes). */
export interface Route {
  /** after the authority, as the URL's ("/login?next=/") */
  path: string
  /** default GET, or POST with a body */
  method?: string
  /** default "METHOD path" */
  name?: string
  /** this route's own header lines, after the run's */
  headers?: readonly string[]
  /** sent with this route's requests (the run's body is not) */
  body?: Buffer
  /** with a body (default text/plain, as ab) */
  contentType?: string
  /** its share of the connections (default 1) */
  weight?: number
}

/** The times of one completed request, as ab's -g file lists them (start in epoch ms, the rest in ms). */
export interface RequestTiming {
  start: number
  /** from start to connected (0 on a reused keep-alive connection) */
  connect: number
  /** from the end of the write to the first response byte */
  waiting: number
  /** from start to the end of the response */
  total: number
  /** under `rate`: from its intended send time (corrected for coordinated omission); else total */
  latency: number
}

/** Options of one load test: `parseAbArgs(argv)` returns them, `loadtest(options)` takes them. */
export interface LoadOptions {
  /** http:// or https:// (TLS as ab's: the certificate is not verified) */
  url: string
  /** -n (default 1) */
  requests?: number
  /** -c: requests in flight (default 1) */
  concurrency?: number
  /** -t: seconds at most (0: none) */
  timelimit?: number
  /** -R: an open loop at this total rate (wrk2's), latency from each request's intended send time */
  rate?: number
  /** -R FROM..TO: a ramp's TO, the rate at its end and after it (`rate` is FROM); needs `ramp` */
  rampTo?: number
  /** --ramp: seconds the rate takes from `rate` to `rampTo` */
  ramp?: number
  /** --segment i/N: this process runs shard `index` of `count` */
  segment?: Segment
  /** --start-at: an ISO 8601 time to start at */
  startAt?: string
  /** --workers: threads the run is split over (1..64) */
  workers?: number
  /** -s: seconds the run may go without a byte before it is aborted (default 30) */
  timeout?: number
  /** --response-timeout: seconds one response may take (0: none) */
  responseTimeout?: number
  /** -k */
  keepAlive?: boolean
  /** GET by default; HEAD with -i, POST with -p, PUT with -u, any with -m */
  method?: string
  /** -H: "Name: value" lines */
  headers?: string[]
  /** -C: "name=value" pairs */
  cookies?: string[]
  /** -A: "user:password" */
  auth?: string
  /** -P: "user:password" */
  proxyAuth?: string
  /** --secret-header: names of headers whose values are credentials, starred where written or printed */
  secretHeaders?: string[]
  /** the -p / -u file's bytes */
  body?: Buffer
  /** -T */
  contentType?: string
  /** a mix of routes loaded together, each counted on its own (LoadResult.routes) */
  routes?: Route[]
  /** -l */
  variableLength?: boolean
  /** -r */
  continueOnReceiveError?: boolean
  /** --http1.1: HTTP/1.1 requests, responses read as RFC 9112 does */
  http11?: boolean
  /** --http2: requests as HTTP/2 streams (h2c on http://, ALPN h2 on https://, HTTP/1.1 when refused) */
  http2?: boolean
  /** --streams, with http2: concurrent streams per connection (h2load's -m) */
  streams?: number
  /** -Z, https only */
  ciphers?: string
  /** -f, https only */
  tlsProtocol?: TlsProtocol
  /** --unix: connect to this unix socket (the url gives the Host header and path) */
  socketPath?: string
  /** -v */
  verbosity?: number
  /** completed requests between onProgress calls (default: ab's, a tenth of them above 150) */
  heartbeat?: number
  onProgress?: (done: number) => void
  /** called per completed request (leave unset on the hot path) */
  onRequest?: (request: RequestTiming) => void
  /** keep the run over time, one point a second, in LoadResult.series (a single-thread run's) */
  series?: boolean
  /** called once a second with the second that ended */
  onSecond?: (second: LoadSecond) => void
  /** ends the run early, keeping what was measured */
  signal?: AbortSignal
  /** with http2: the caller's connection (openSharedConnection), past the server's SETTINGS, carries the first connection's streams on seats of its own; never closed by the run */
  http2Session?: SharedHttp2Connection
}

/** An HTTP/2 connection runs may share (openSharedConnection, LoadOptions.http2Session); its owner closes it. */
export interface SharedHttp2Connection {
  /** closed by its owner, or lost (the server closed it, a socket or protocol error) */
  closed: boolean
  close (): void
}

/** One second of a run, as LoadOptions.onSecond receives it. */
export interface LoadSecond {
  /** seconds since the load started, at the end of the interval */
  t: number
  requests: number
  errors: number
  p50Ms: number | null
  p90Ms: number | null
  p99Ms: number | null
  maxMs: number | null
  /** under `rate`: requests the schedule made due in the interval */
  scheduled?: number
  /** under `rate`: requests sent in it, on time or late */
  sent?: number
  /** under `rate`: of them, sent late */
  late?: number
  /** under `rate`: from each request's actual send */
  p50UncorrectedMs?: number | null
  p99UncorrectedMs?: number | null
}

/** The load over time: parallel arrays, one entry per interval (the last one ends with the run). */
export interface LoadSeries {
  intervalMs: number
  t: number[]
  requests: number[]
  errors: number[]
  p50Ms: Array<number | null>
  p90Ms: Array<number | null>
  p99Ms: Array<number | null>
  maxMs: Array<number | null>
  /** under `rate`: requests due, sent and sent late in each interval */
  scheduled?: number[]
  sent?: number[]
  late?: number[]
  /** under `rate`: p50Ms and p99Ms from each request's actual send */
  p50UncorrectedMs?: Array<number | null>
  p99UncorrectedMs?: Array<number | null>
}

/** One row of ab's "Connection Times (ms)" table. */
export interface TimeRow { min: number, mean: number, sd: number, median: number, max: number }

/** HDR percentiles of the total time per request, ms. */
export interface LatencyFigures { p50: number, p75: number, p90: number, p99: number, p999: number, p9999: number, max: number, mean: number, stddev: number }

/** The HTTP version a run's requests were sent in. */
export type Protocol = 'http/1.0' | 'http/1.1' | 'h2'

/** min / mean / max of a per-connection figure. */
export interface SpreadRow { min: number, mean: number, max: number }

/** An HTTP/2 run's connections (sessions) and what the server told them. */
export interface Http2Info {
  /** concurrent streams per connection asked (--streams) */
  streams: number
  /** the lowest SETTINGS_MAX_CONCURRENT_STREAMS below streams (0: none lower) */
  serverStreamsLimit: number
  /** connections opened */
  connections: number
  connectMs: SpreadRow
  firstByteMs: SpreadRow
  streamsPerConnection: SpreadRow
  /** GOAWAY frames received, by error code name */
  goaways: Record<string, number>
  /** RST_STREAM frames received, by error code name */
  resets: Record<string, number>
}

/** An https run's TLS, as ab's report states it. */
export interface TlsInfo {
  protocol: string
  cipher: string
  certificateBits: number
  cipherBits: number
  serverTempKey: string
  serverName: string | null
}

/** How an open-loop run held its schedule. */
export interface OpenLoop {
  targetRate: number
  achievedRate: number
  /** requests sent more than lateThresholdMs after their intended send time */
  lateRequests: number
  lateThresholdMs: number
  /** -R FROM..TO --ramp: the rate from FROM to TO over `seconds`, then TO */
  ramp?: { fromRate: number, toRate: number, seconds: number }
}

/** What a merged LoadResult was made of (mergeLoadResults). */
export interface Merged {
  results: number
  parts: { runId?: string, startedAt: string, endedAt: string, segment: string | null, completeRequests: number }[]
}

/** One route of a mix, as its own requests measured it. */
export interface RouteResult {
  name: string
  method: string
  path: string
  weight: number
  connections: number
  completeRequests: number
  failedRequests: number
  non2xxResponses: number
  statusCodes: Record<string, number>
  latency: LatencyFigures
  latencyHistogram: string | null
}

/** What one load test measured: every figure of ab's report, plus HDR percentiles. */
export interface LoadResult {
  schema: 'syncbench/load-result@1'
  tool: { name: 'syncbench', version: string }
  /** this run's id (syncbench merge refuses a run given twice); absent from an external tool's result */
  runId?: string
  /** the options used, the body replaced by its length, every credential starred with its digest ("Authorization: Bearer ***~1a2b3c4d") */
  options: Omit<LoadOptions, 'body' | 'signal' | 'onProgress' | 'onRequest' | 'onSecond' | 'http2Session'> & { bodyBytes?: number }
  startedAt: string
  endedAt?: string
  server: { software: string, hostname: string, port: number }
  /** the I/O path: "native", "native-unix", "node:net", "node:tls"... or the external tool's name */
  transport?: string
  /** the HTTP version the requests were sent in */
  protocol?: Protocol
  /** HTTP/2 runs: the connections and what the server told them */
  http2?: Http2Info
  tls?: TlsInfo
  document: { path: string, length: number, variable: boolean }
  concurrency: number
  timeTakenSeconds: number
  completeRequests: number
  failedRequests: number
  failures: { connect: number, receive: number, length: number, exceptions: number }
  writeErrors: number
  non2xxResponses: number
  keepAliveRequests: number
  totalTransferredBytes: number
  htmlTransferredBytes: number
  totalBodySentBytes: number
  requestsPerSecond: number
  timePerRequestMs: number
  timePerRequestAcrossMs: number
  transferRateKBps: number
  connectionTimes: Record<'connect' | 'processing' | 'waiting' | 'total', TimeRow>
  /** ab's percentile table, ms: keys '50' '66' '75' '80' '90' '95' '98' '99' '100' */
  percentiles: Record<string, number>
  /** with `rate`: from each request's intended send time (corrected for coordinated omission) */
  latency: LatencyFigures
  statusCodes: Record<string, number>
  errors: Record<string, number>
  aborted: boolean
  routes?: RouteResult[]
  /** with `rate`: the same figures from each request's actual send */
  latencyUncorrected?: LatencyFigures
  openLoop?: OpenLoop
  connectionTimesHistograms?: { connect: string, processing: string, waiting: string }
  merged?: Merged
  /** with `series` only: the run over time, one point a second */
  series?: LoadSeries
  latencyHistogramUncorrected?: string
  /** HdrHistogram's compressed base64 of the total time per request, in microseconds; null from an external tool */
  latencyHistogram: string | null
}

/** What `syncbench ab`'s flags ask of the output, beside the LoadOptions (parseAbArgs). */
export interface AbOutput {
  help: boolean
  version: boolean
  json: boolean
  quiet: boolean
  percentiles: boolean
  confidence: boolean
  html: boolean
  keepAlive: boolean
  variableLength: boolean
  sendBody: boolean
  gnuplot: string | null
  csv: string | null
  hdrLog: string | null
  heartbeat: number
  /** --dashboard: a live page of the run */
  dashboard: boolean
  /** --dashboard-port (0: a free one) */
  dashboardPort: number
  /** --dashboard-host (null: 127.0.0.1) */
  dashboardHost: string | null
}

/** Which optional parts formatAbReport shows (defaults: from the result's options). */
export interface AbReportParts {
  confidence?: boolean
  percentiles?: boolean
  keepAlive?: boolean
  variableLength?: boolean
  sendBody?: boolean
}
