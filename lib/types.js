// The data contracts between the parts of syncbench, as JSDoc types. Nothing here runs.
// lib/load produces LoadResult; lib/lab produces ServerMetrics and Environment; lib/run writes
// ResultsFile; lib/report reads ResultsFile. docs/formats.md documents the same shapes for users.
// All times are milliseconds as floats (microsecond precision) unless the name says otherwise.

/**
 * Options of one load test: `parseAbArgs(argv)` returns this, `loadtest(options)` takes it.
 * Names follow ab's meaning; defaults are ab's. Each option's default, bounds and message are
 * written once, in lib/load/options.js.
 * @typedef {object} LoadOptions
 * @property {string} url                 target, http:// or https:// (TLS as ab's: the certificate is NOT verified)
 * @property {number} [requests=1]        -n: requests to perform
 * @property {number} [concurrency=1]     -c: requests in flight at once (connections)
 * @property {number} [timelimit=0]       -t: seconds at most (0 = no limit); -t implies requests=50000 unless -n follows it
 *                                        (with `rate`: the requests due within the limit, ceil(rate x timelimit))
 * @property {number} [rate]              -R: open loop (wrk2's -R): total requests per second over all connections, each
 *                                        connection following its own evenly spaced schedule at rate / concurrency,
 *                                        phase-shifted (connection i starts at i / rate); a request due while its connection
 *                                        is busy is sent the moment it is free, and its latency counts from its intended
 *                                        send time (corrected for coordinated omission). `requests` counts intended
 *                                        requests. Absent: ab's closed loop. With rampTo and ramp: the rate at a ramp's start
 * @property {number} [rampTo]            -R FROM..TO: a ramp's TO, the rate at its end and after it, requests per second (below
 *                                        `rate`: a falling ramp); needs `rate` and `ramp`. Request k is due when the rate's
 *                                        integral reaches k (lib/load/schedule.js); shards and workers each take every N-th
 *                                        request of the one schedule. Without requests or timelimit: the requests the ramp
 *                                        schedules over its duration
 * @property {number} [ramp]              --ramp: seconds the rate takes from `rate` to `rampTo`; needs both
 * @property {Segment} [segment]         --segment i/N: this process is shard `index` (0-based) of `count` and runs its share of
 *                                        `requests`, `concurrency` and `rate` (lib/load/options.js segmentShares: the first
 *                                        total % N shards take one more; rate / N each, shard i's schedule offset by i / rate).
 *                                        Given as { index, count }; the LoadResult's options hold the shares, and options.segment
 *                                        the whole run's requests, concurrency and rate as well
 * @property {string} [startAt]           --start-at: an ISO 8601 time with a time zone; loadtest() waits until then (plus the
 *                                        shard's offset under `rate`) before it starts. At most 1 s past, at most 1 hour ahead;
 *                                        `signal` ends the wait (the result then has no request)
 * @property {number} [workers=1]       --workers: worker threads the run is split over (1..64, at most `concurrency`):
 *                                        connections, requests and rate divided as evenly as they go, the counts
 *                                        and histograms merged exactly into one LoadResult, as one thread reports it
 * @property {number} [timeout=30]        -s: seconds the whole run may go without receiving a byte before it is
 *                                        aborted (ab's inactivity timeout: one stalled socket among busy ones does not trip it)
 * @property {number} [responseTimeout=0] --response-timeout: seconds one response may take in total, from its request's
 *                                        start (0 = no limit); a response past it fails its request (counted under
 *                                        failures.exceptions, RESPONSE_TIMEOUT in errors). ab has no such bound
 * @property {boolean} [keepAlive=false]  -k: send `Connection: Keep-Alive` and reuse connections the server keeps open
 * @property {string} [method]            GET by default; HEAD with -i, POST with -p, PUT with -u, any with -m
 * @property {string[]} [headers=[]]      -H: extra header lines "Name: value" (replacing a default of the same name, as ab does)
 * @property {string[]} [cookies=[]]      -C: "name=value" pairs, sent as one Cookie header joined by "; "
 * @property {string} [auth]              -A: "user:password" for Basic authentication
 * @property {string} [proxyAuth]         -P: "user:password" for Proxy-Authorization
 * @property {string[]} [secretHeaders]   --secret-header: names of headers whose values are credentials, starred
 *                                        where they are written or printed (lib/redact.js) as Authorization's are
 * @property {Buffer} [body]              the -p / -u file's bytes
 * @property {string} [contentType]       -T: Content-Type of the body (ab's default: text/plain)
 * @property {Route[]} [routes] a mix of routes loaded together (--request, --mix): each connection
 *                                        carries one route's requests, the connections shared out by weight; headers, cookies and auth
 *                                        apply to every route, the run's body to the POST, PUT and PATCH routes without one of their own.
 *                                        The url gives the server; each route its path. Each route is counted on its own (LoadResult.routes)
 *                                        and ab's Length check is off (the routes' documents differ)
 * @property {boolean} [variableLength=false] -l: do not count responses of another length as failures
 * @property {boolean} [continueOnReceiveError=false] -r: do not stop on socket receive errors
 * @property {boolean} [http11=false]     --http1.1: send HTTP/1.1 requests and read responses as RFC 9112 does (a malformed one fails its request)
 * @property {boolean} [http2]           --http2: requests as HTTP/2 streams (h2c by prior knowledge on http://, ALPN h2 on https://,
 *                                        HTTP/1.1 when the server refuses h2); `concurrency` connections of `streams` streams each
 * @property {number} [streams=1]         --streams, with http2: concurrent streams per connection (h2load's -m), fewer when the
 *                                        server's SETTINGS_MAX_CONCURRENT_STREAMS is lower
 * @property {string} [ciphers]           -Z, https only: an OpenSSL cipher list (TLS 1.3 suites with tlsProtocol 'TLS1.3', as ab)
 * @property {TlsProtocol} [tlsProtocol]  -f, https only: the TLS version(s) to offer (ab's names; default 'ALL')
 * @property {string} [socketPath]        --unix: connect to this unix socket; the url still gives the Host header and path
 * @property {number} [verbosity=1]       -v: ab's verbosity level (2 prints warnings, 4 headers)
 * @property {number} [heartbeat]         completed-requests interval for progress (ab: max(n/10, 100) when n > 150)
 * @property {(done: number) => void} [onProgress] called every `heartbeat` completed requests
 * @property {(request: RequestTiming) => void} [onRequest] called per completed request (only -g needs it;
 *                                        leave unset on the hot path)
 * @property {boolean} [series=false]     keep the run over time, one point a second, in LoadResult.series (a single-thread run's)
 * @property {(second: LoadSecond) => void} [onSecond] called once a second with the second that ended (a live view)
 * @property {AbortSignal} [signal]       ends the run early, keeping what was measured (Ctrl-C)
 * @property {SharedHttp2Connection} [http2Session]  with http2: the caller's connection (openSharedConnection), past the
 *                                        server's SETTINGS, carries the first connection's streams on seats of its own;
 *                                        never closed by the run
 */

/**
 * An HTTP/2 connection runs may share (openSharedConnection, LoadOptions.http2Session); its owner closes it.
 * @typedef {object} SharedHttp2Connection
 * @property {boolean} closed  closed by its owner, or lost (the server closed it, a socket or protocol error)
 * @property {() => void} close
 */

/**
 * One second of a run as LoadOptions.onSecond receives it (lib/load/load-series.js).
 * @typedef {object} LoadSecond
 * @property {number} t          seconds since the load started, at the end of the interval
 * @property {number} requests   requests completed in it
 * @property {number} errors     of them, failed (ab's Failed requests) or answered with a non-2xx status
 * @property {number|null} p50Ms latency percentiles of its requests (the corrected latency under `rate`), ms;
 * @property {number|null} p90Ms   null when none completed
 * @property {number|null} p99Ms
 * @property {number|null} maxMs
 * @property {number} [scheduled]  under `rate`: requests the schedule made due in it
 * @property {number} [sent]       under `rate`: requests sent in it, on time or late
 * @property {number} [late]       under `rate`: of them, sent over OpenLoop.lateThresholdMs after their intended time
 * @property {number|null} [p50UncorrectedMs] under `rate`: p50Ms and p99Ms from each request's actual send
 * @property {number|null} [p99UncorrectedMs]
 */

/**
 * The load over time (lib/load/load-series.js): parallel arrays, one entry per interval of `intervalMs`
 * (the last one shorter: it ends with the run). `t`: seconds since the load started, at each interval's
 * end; `requests` completed in it, `errors` of them failed or non-2xx; the latency percentiles of those
 * requests, ms (as LoadResult.latency counts: corrected under `rate`), null when none completed. Under
 * `rate` also the open loop's: `scheduled` (the offered rate: requests due in the interval), `sent`, `late`,
 * and the uncorrected p50 and p99 beside the corrected ones.
 * @typedef {object} LoadSeries
 * @property {number} intervalMs
 * @property {number[]} t
 * @property {number[]} requests
 * @property {number[]} errors
 * @property {(number|null)[]} p50Ms
 * @property {(number|null)[]} p90Ms
 * @property {(number|null)[]} p99Ms
 * @property {(number|null)[]} maxMs
 * @property {number[]} [scheduled]
 * @property {number[]} [sent]
 * @property {number[]} [late]
 * @property {(number|null)[]} [p50UncorrectedMs]
 * @property {(number|null)[]} [p99UncorrectedMs]
 */

/**
 * ab's -f: ALL (TLS 1.0 to 1.3, ab's default), or exactly one version.
 * @typedef {'ALL'|'TLS1'|'TLS1.1'|'TLS1.2'|'TLS1.3'} TlsProtocol
 */

/**
 * An https run's TLS, as ab's report states it (from the first handshake that completed).
 * @typedef {object} TlsInfo
 * @property {string} protocol        'TLSv1.3' ('' when no handshake completed)
 * @property {string} cipher          OpenSSL's name of the cipher, 'TLS_AES_256_GCM_SHA384'
 * @property {number} certificateBits the server certificate's public key bits (0: none)
 * @property {number} cipherBits      the cipher's secret bits
 * @property {string} serverTempKey   the key exchange's ephemeral key, 'X25519 253 bits' ('' when none)
 * @property {string|null} serverName the SNI sent (null: none, as for an IP address)
 */

/**
 * A shard of a run spread over several processes or machines (LoadOptions.segment).
 * @typedef {object} Segment
 * @property {number} index        0-based: 0 .. count - 1
 * @property {number} count        how many shards
 * @property {number} [requests]   in a LoadResult: the whole run's -n (the shard's share is options.requests)
 * @property {number} [concurrency] in a LoadResult: the whole run's -c
 * @property {number} [rate]       in a LoadResult: the whole run's -R
 */

/**
 * The times of one completed request, in ab's terms (milliseconds since the epoch for start, ms for the
 * rest), as ab's -g gnuplot file lists them. ("Record" is kept for what results.json records of a run.)
 * @typedef {object} RequestTiming
 * @property {number} start    epoch milliseconds (float) when the request's connection/write began
 * @property {number} connect  ms from start to connected (0 on a reused keep-alive connection)
 * @property {number} waiting  ms from the end of the write to the first response byte
 * @property {number} total    ms from start to the end of the response
 * @property {number} latency  ms from its intended send time to the end of the response under `rate` (the corrected
 *                             latency, as LoadResult.latency counts it); else the same as total
 */

/** @typedef {'http/1.0'|'http/1.1'|'h2'} Protocol */

/**
 * min / mean / max of a per-connection figure.
 * @typedef {{ min: number, mean: number, max: number }} SpreadRow
 */

/**
 * An HTTP/2 run's connections (sessions), LoadResult.http2.
 * @typedef {object} Http2Info
 * @property {number} streams              concurrent streams per connection asked (--streams)
 * @property {number} serverStreamsLimit   the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent below `streams` (0: none lower)
 * @property {number} connections          connections opened (a connection the server ended is replaced)
 * @property {SpreadRow} connectMs         per connection: ms from its start to connected (TCP, and TLS's handshake)
 * @property {SpreadRow} firstByteMs       per connection: ms from its start to its first response's HEADERS
 * @property {SpreadRow} streamsPerConnection per connection: streams completed with their response
 * @property {Record<string, number>} goaways GOAWAY frames received, by error code name (NO_ERROR, ENHANCE_YOUR_CALM...)
 * @property {Record<string, number>} resets  RST_STREAM frames received, by error code name (REFUSED_STREAM, CANCEL...)
 */

/**
 * min / mean / sd / median / max of one row of ab's "Connection Times (ms)" table. median follows ab's
 * index rule (see lib/load), sd is the sample standard deviation.
 * @typedef {{ min: number, mean: number, sd: number, median: number, max: number }} TimeRow
 */

/**
 * What one load test measured: every figure of ab's report, plus HDR percentiles. `--json` prints
 * exactly this object; `loadtest()` resolves to it.
 * @typedef {object} LoadResult
 * @property {'syncbench/load-result@1'} schema
 * @property {{ name: 'syncbench', version: string }} tool
 * @property {string} [runId]                    this run's id: `syncbench merge` refuses a run given twice (absent from an external
 *                                              tool's result and from files written before it was kept)
 * @property {Omit<LoadOptions, 'body'|'signal'|'onProgress'|'onRequest'|'onSecond'|'http2Session'> & { bodyBytes?: number }} options  the LoadOptions used, body
 *                                              replaced by its byte length (bodyBytes; absent from an external engine's result), every
 *                                              credential starred with its digest ("Authorization: Bearer ***~1a2b3c4d"; lib/redact.js)
 * @property {string} startedAt                  ISO time the run started (after any --start-at wait)
 * @property {string} [endedAt]                  ISO time of its last response: startedAt + timeTakenSeconds, what
 *                                              `syncbench merge` unites into the shards' common time window
 * @property {{ software: string, hostname: string, port: number }} server  software from the first response's Server header ('' if none)
 * @property {string} [transport]                the I/O path that carried the run: "native" or "native-unix" (native/io.c),
 *           "node:net", "node:net-unix", "node:tls" or "node:tls-unix" (Node's modules), several joined by "+" when the
 *           threads or shards of one run differed; the external tool's name ("ab", "wrk", "autocannon") for their results.
 *           CPU per request differs between paths. Absent from results written before syncbench recorded it.
 * @property {Protocol} [protocol]              the HTTP version the requests were sent in (absent from results written before it was recorded)
 * @property {Http2Info} [http2]                 HTTP/2 runs: the connections (sessions) and what the server told them
 * @property {TlsInfo} [tls]                     https only: the TLS of the run (ab's SSL/TLS Protocol, Server Temp Key, TLS Server Name)
 * @property {{ path: string, length: number, variable: boolean }} document  length of the first good response body
 * @property {number} concurrency
 * @property {number} timeTakenSeconds           from the first connect to the last response (ab's "Time taken for tests")
 * @property {number} completeRequests           ab's "Complete requests"
 * @property {number} failedRequests             ab's "Failed requests"
 * @property {{ connect: number, receive: number, length: number, exceptions: number }} failures
 * @property {number} writeErrors
 * @property {number} non2xxResponses
 * @property {number} keepAliveRequests
 * @property {number} totalTransferredBytes      every byte received, headers included
 * @property {number} htmlTransferredBytes       body bytes received
 * @property {number} totalBodySentBytes         with -p / -u, every request byte written, headers included, as ab's
 *                                              "Total body sent" counts them (0 without a body)
 * @property {number} requestsPerSecond
 * @property {number} timePerRequestMs           mean, at the chosen concurrency
 * @property {number} timePerRequestAcrossMs     mean across all concurrent requests
 * @property {number} transferRateKBps           received kilobytes (1024) per second
 * @property {Record<'connect'|'processing'|'waiting'|'total', TimeRow>} connectionTimes
 * @property {Record<string, number>} percentiles  ab's table, ms: keys '50' '66' '75' '80' '90' '95' '98' '99' '100'
 * @property {{ p50: number, p75: number, p90: number, p99: number, p999: number, p9999: number, max: number, mean: number, stddev: number }} latency
 *           HDR histogram of total time per request, ms (with `rate`: from each request's intended send time, corrected
 *           for coordinated omission; ab's tables, `connectionTimes` and `percentiles`, always count from the actual send)
 * @property {Record<string, number>} statusCodes  count per HTTP status code
 * @property {Record<string, number>} errors        count per error code (ECONNREFUSED, ETIMEDOUT, ...) and, under
 *           --http1.1, per fault of a malformed response (HPE_INVALID_CHUNK_SIZE, DATA_AFTER_RESPONSE, ...: lib/load/http11.js)
 * @property {boolean} aborted                     true when the run ended early (signal, fatal error)
 * @property {RouteResult[]} [routes]             with `routes` only: what each route of the mix counted, in the order given
 * @property {{ p50: number, p75: number, p90: number, p99: number, p999: number, p9999: number, max: number, mean: number, stddev: number }} [latencyUncorrected]
 *           with `rate` only: the same figures measured from each request's actual send (what a closed-loop tool reports),
 *           while `latency` then counts from each request's intended send time (corrected for coordinated omission)
 * @property {OpenLoop} [openLoop]                 with `rate` only: how well the schedule was held
 * @property {{ connect: string, processing: string, waiting: string }} [connectionTimesHistograms] the other three rows of
 *           `connectionTimes` as histograms (same encoding as latencyHistogram), so `syncbench merge` reads their medians from
 *           the merged histograms too
 * @property {Merged} [merged]                   set by `syncbench merge` (mergeLoadResults): what was merged
 * @property {LoadSeries} [series]               with `series` only: the run over time, one point a second (absent from older files,
 *           from external tools and from --workers runs)
 * @property {string} [latencyHistogramUncorrected] with `rate` only: latencyHistogram's uncorrected twin (same encoding)
 * @property {string|null} latencyHistogram        the total time per request of every completed request (with `rate`: from
 *           its intended send time, as `latency`), recorded in
 *           MICROSECONDS (HDR range 1 us to 1 hour, 3 significant digits), as HdrHistogram's compressed base64 encoding
 *           (V2, hdr-histogram-js `encodeIntoCompressedBase64`; any HdrHistogram port decodes it). Runs are combined by
 *           adding these histograms, never by averaging percentiles. null from an external engine (ab, wrk,
 *           autocannon: they report percentiles only); absent from files written before syncbench 0.1.0 kept it.
 */

/**
 * One route of a mix, as LoadOptions.routes gives it.
 * @typedef {object} Route
 * @property {string} path           after the authority, as the URL's ("/login?next=/")
 * @property {string} [method]       default GET, or POST with a body
 * @property {string} [name]         default "METHOD path"
 * @property {readonly string[]} [headers] this route's own header lines, after the run's
 * @property {Buffer} [body]         sent with this route's requests (the run's body is not)
 * @property {string} [contentType]  with a body (default text/plain, as ab)
 * @property {number} [weight]       its share of the connections (default 1)
 */

/**
 * One route of a mix (LoadOptions.routes), as its own requests measured it.
 * @typedef {object} RouteResult
 * @property {string} name
 * @property {string} method
 * @property {string} path
 * @property {number} weight
 * @property {number} connections      the connections that carried it
 * @property {number} completeRequests
 * @property {number} failedRequests   requests without a usable response (an error, a malformed or timed-out response)
 * @property {number} non2xxResponses
 * @property {Record<string, number>} statusCodes
 * @property {{ p50: number, p75: number, p90: number, p99: number, p999: number, p9999: number, max: number, mean: number, stddev: number }} latency
 *           ms, from its own histogram (with `rate`: corrected, as LoadResult.latency)
 * @property {string|null} latencyHistogram its requests' latencies, encoded as LoadResult.latencyHistogram
 */

/**
 * What a merged LoadResult was made of (lib/load/merge.js).
 * @typedef {object} Merged
 * @property {number} results        how many LoadResults were added
 * @property {{ runId?: string, startedAt: string, endedAt: string, segment: string|null, completeRequests: number }[]} parts  each one's run, window
 *           and shard ("0/2"), in the order given
 */

/**
 * How an open-loop run (`rate`) held its schedule.
 * @typedef {object} OpenLoop
 * @property {number} targetRate      the requested rate, requests per second (LoadOptions.rate; a ramp's mean over its
 *                                    requests: their count over the time the schedule takes to offer them)
 * @property {number} achievedRate    completed requests per second: over the schedule's time (requests / rate) when every
 *                                    request completed (or the run's own time if longer), else over the run's time
 * @property {number} lateRequests    requests sent more than lateThresholdMs after their intended send time (their
 *                                    connection was still busy, or the generator fell behind)
 * @property {number} lateThresholdMs the threshold of lateRequests (lib/load/engine.js LATE_THRESHOLD_MS)
 * @property {{ fromRate: number, toRate: number, seconds: number }} [ramp] -R FROM..TO --ramp: the rate from FROM to
 *                                    TO over `seconds`, then TO
 */

/**
 * One measurement window of a server syncbench started (or any server exposing /__syncbench/metrics).
 * @typedef {object} ServerMetrics
 * @property {number} windowMs            length of the window since the last reset
 * @property {number} requests            requests the server answered in the window
 * @property {{ min: number, mean: number, p50: number, p99: number, max: number, stddev: number }} eventLoopDelay  ms: lateness of a 10 ms timer, sampled as perf_hooks.monitorEventLoopDelay does (lib/lab/metrics.js says why not the native one)
 * @property {number} elu                 event-loop utilization in the window, 0..1
 * @property {{ userMs: number, systemMs: number, percent: number }} cpu  percent of one core (can exceed 100)
 * @property {{ rssBytes: number, peakRssBytes: number, heapUsedBytes: number, startRssBytes?: number, startHeapUsedBytes?: number }} memory
 *           at the window's end; peak is over the window; start*: at its start (absent from older files)
 * @property {number} threads             OS threads of the process at the end of the window (/proc/self/status)
 * @property {number|null} [mainThreadCpuMs]  CPU time of the main thread alone over the window (Linux; null
 *                                       elsewhere; absent in older files)
 * @property {number} activeHandles       libuv handles alive at the end of the window
 * @property {ContextSwitches} [contextSwitches]  in the window (absent from older files)
 * @property {ServerMetricsSeries} [series]       the window over time (absent from older files)
 * @property {LoopBlocks} [loopBlocks]            when the event loop was held past a threshold (absent from older files)
 */

/**
 * The spans of a metrics window when the event loop was held: the 10 ms ticker of lib/lab/metrics.js
 * ran more than `thresholdMs` late, and the span runs from the tick before it to that tick (the loop
 * ran no timer in between; lib/lab/loop-blocks.js says why from the tick before rather than from its
 * due time). A block of B ms is a span of B to B + 10 ms. Sorted, disjoint; spans that touch are one.
 * Bounded: at most 500 spans (lib/lab/loop-blocks.js LOOP_BLOCKS_MAX_SPANS); past that the two closest
 * are merged and the gap between them is added to `mergedGapMs`.
 * @typedef {object} LoopBlocks
 * @property {number} thresholdMs          a tick later than this (ms) makes a span (lib/lab/loop-blocks.js BLOCKING_DELAY_MS)
 * @property {[number, number][]} spans    [from, to], ms since the window started
 * @property {number} mergedGapMs          time inside the spans that merges past the bound added (0 below it)
 * @property {RouteBlocks[]} [routes]     the routes whose requests were in progress during the spans, by ms
 *   (lib/lab/route-blocks.js); absent where requests are not followed and from older files
 */

/**
 * A route's part of the blocking spans: the time in them during which at least one of its requests was in
 * progress (from 'http.server.request.start' to 'http.server.response.finish').
 * @typedef {object} RouteBlocks
 * @property {string} route    "METHOD /path" (no query string); "other routes" past the bound of distinct ones
 * @property {number} ms       of the spans, covered by its requests
 * @property {number} blocks   how many spans its requests covered

/**
 * Context switches of the server process in the window, from process.resourceUsage() (getrusage
 * RUSAGE_SELF: all its threads). Voluntary: a thread gave up the CPU to wait (a blocked read, a lock,
 * an idle event loop); involuntary: the kernel took the CPU away (time slice over, more runnable
 * threads than cores). Per request: divided by `requests`; null when the window served none.
 * @typedef {object} ContextSwitches
 * @property {number} voluntary
 * @property {number} involuntary
 * @property {number|null} voluntaryPerRequest
 * @property {number|null} involuntaryPerRequest
 */

/**
 * A metrics window over time, sampled every `intervalMs` (100 ms; lib/lab/metrics-series.js). The
 * arrays are parallel, one entry per sample. Bounded: past 600 samples neighbours are merged in pairs
 * and intervalMs doubles (max of delays and RSS, CPU averaged over the merged time), so a long window
 * never grows without bound. A sample cannot run while the loop is blocked: the one after a block
 * records the gap, so a 1 s block reads 1000 in loopDelayMaxMs and its interval lasted 1 s.
 * @typedef {object} ServerMetricsSeries
 * @property {number} intervalMs           the time a sample covers (100, then 200, 400... after merges)
 * @property {number[]} t                  ms since the window started, at the end of each sample
 * @property {number[]} loopDelayMaxMs     the largest event-loop delay seen in the sample, ms
 * @property {number[]} cpuPercent         CPU of the process over the sample, percent of one core
 * @property {number[]} rssBytes           resident set size (the sample's largest, once merged)
 */

/**
 * The server's last interval as a live view reads it (lib/lab/metrics.js live(), the `syncbench:live`
 * request of lib/lab/ipc.js): the figures since the previous live read (the first: since the window
 * started), read without touching the measurement window.
 * @typedef {object} ServerSecond
 * @property {number} t               ms since the window started, at the read (ServerMetricsSeries' clock)
 * @property {number} intervalMs      the time since the previous live read
 * @property {number} requests        requests the server counted in it
 * @property {number} loopDelayMaxMs  the largest event-loop delay in it, ms (a block still going at the read included)
 * @property {number} loopDelayP99Ms  the 99th percentile of its 10 ms ticks' delays, ms
 * @property {number} elu             event-loop utilization over it, 0..1
 * @property {number} cpuPercent      CPU of the process over it, percent of one core
 * @property {number} rssBytes        resident set size at the read
 */

/**
 * Where a run happened.
 * @typedef {object} Environment
 * @property {string} node       process.versions.node
 * @property {string} v8
 * @property {string} uv
 * @property {string} [openssl]  process.versions.openssl (absent in files from before it)
 * @property {string|null} uvThreadpoolSize   the UV_THREADPOOL_SIZE the process started with (null: libuv default 4)
 * @property {string|null} uvUseIoUring
 * @property {string} cpuModel
 * @property {number} cpuCount              os.availableParallelism()
 * @property {string} platform
 * @property {string} arch
 * @property {number} totalMemoryBytes
 */

/**
 * A framework whose routes discovery reads (lib/lab/frameworks.js lists them).
 * @typedef {'express'|'fastify'|'koa'|'hapi'} FrameworkName
 */

/**
 * A framework found in an app's process, with the version the framework or its package.json says.
 * @typedef {object} FrameworkInfo
 * @property {FrameworkName} name
 * @property {string} [version]  absent when neither the framework nor a package.json above its files says
 */

/**
 * A route found in an app's own process (lib/lab/route-reader.js).
 * @typedef {object} FoundRoute
 * @property {string} method   'GET', 'POST', ...; 'ALL' for a route every method reaches
 * @property {string} path     the full pattern (mount paths and prefixes joined), parameters as ':name'
 *                             (Hapi's '{id}' written ':id'), wildcards as '*'
 * @property {FrameworkName} framework
 * @property {string} [file]   absolute path of the file where its handler is written, when known
 * @property {number} [line]   1-based line of the handler in that file
 */

/**
 * What route discovery found in an app (lib/scan/discover.js).
 * @typedef {object} RouteDiscovery
 * @property {FrameworkInfo[]} frameworks
 * @property {FoundRoute[]} routes
 * @property {string[]} notes   what could not be read, one line each (a plain node:http server, a path
 *                              that cannot be recovered, a framework version whose shape is unknown)
 * @property {number} startMs   from the app's spawn to its listening (ms)
 */

/**
 * A running server child, as lib/lab/spawn.js returns it to the runner.
 * The child is lib/lab/server-child.js forked with an IPC channel; the messages are documented at the
 * top of lib/lab/ipc.js (ready with the address, metrics windows on request, errors; SIGTERM stops it).
 * `server` (optional) names one of `servers` when a child runs several (seed-readfile without --only, one
 * process per server): default the first; a reset without `server` resets them all.
 * @typedef {object} ServerHandle
 * @property {number} pid
 * @property {{ host: string, port: number }} [address]  where the load goes (the first server); absent for a server syncbench did not start
 * @property {{ name: string, url: string, port: number }[]} servers
 * @property {Environment} env
 * @property {(options?: { reset?: boolean, server?: string, signal?: AbortSignal }) => Promise<ServerMetrics>} metrics  reads the window, then resets it if asked;
 *   once `signal` aborts, waits 2 s at most (lib/lab/spawn.js METRICS_AFTER_ABORT_MS)
 * @property {(graceMs?: number) => Promise<void>} stop     SIGTERM, then SIGKILL after a grace period (graceMs); resolves when the process is gone
 */

/**
 * One run in a results file.
 * @typedef {object} RunRecord
 * @property {string} id                 unique within the file, e.g. "seed-bcrypt/sync#1"
 * @property {string} experiment         experiment name
 * @property {string} label              what the tables call this configuration ("sync", "async c=20", ...)
 * @property {Record<string, string|number|boolean>} config  the configuration: strategy, workload, concurrency, requests, delay, poolSize, threadpoolSize, ...
 * @property {number} repeat             1..N
 * @property {'builtin'|'ab'|'wrk'|'autocannon'} engine
 * @property {LoadResult|null} load      null when nothing was measured; a failed or interrupted run keeps its
 *                                       partial result (then `error` is set, or `load.aborted` is true)
 * @property {ServerMetrics|null} server metrics of the measured window only
 * @property {Environment|null} serverEnv
 * @property {string} startedAt
 * @property {{ code: string, message: string }|null} error
 * @property {ProfileSummary|null} [profile]  a user's app (--app): where its main thread's time went in the
 *                                       measured window (lib/analysis/profile.js); null or absent without a profile
 * @property {ProbeRecord|null} [probe]  the probe that ran beside the measured load (lib/run/prober.js); null when
 *                                       none ran (--no-probe, or an experiment without one); absent in older files
 * @property {{ reason: string }|null} [invalid]  set when the load had failed requests or non-2xx responses
 *                                       ("20 of 20 non-2xx"): left out of every figure (lib/analysis/validity.js);
 *                                       null when valid or under --allow-errors; absent in files written before it
 * @property {RunNode} [node]            under `syncbench run --node`: the binary its server child ran under, by the
 *                                       name the tables give it, with its versions; absent without --node
 */

/**
 * The Node.js binary of a run under `syncbench run --node` (lib/run/node-binaries.js asked it for its versions).
 * @typedef {object} RunNode
 * @property {string} name      as --node named it ("20", "24", "next")
 * @property {string} node      process.versions of that binary: node, v8, uv, openssl
 * @property {string} v8
 * @property {string} uv
 * @property {string} openssl
 */

/**
 * One row of a profile's reduction (lib/analysis/profile.js). In self time (with `entry` or `caller`) a row
 * is a call: the samples charged to the package entry its caller called at one line, `name` and `location`
 * naming the hottest of their leaves. Files from before calls, and inclusive time, have a function per row.
 * @typedef {object} ProfileEntry
 * @property {string} name        the function ("_encipher", "(anonymous)", "Node.js internals", "syncbench")
 * @property {string} location    file:line (relative to the app's folder; a package's files from its name on), or a node: module
 * @property {string} [via]       the native function the leaf was in ("run", "native code" when V8 gives no name);
 *                                in files from before calls: the first Node/V8 function the app's frame called
 * @property {number} ms
 * @property {number} [nativeMs]  of ms, the samples in native code, garbage collection or "(program)": outside
 *                                JavaScript (absent when none, and from older files)
 * @property {ProfileCallEntry} [entry]  where control entered the leaf's package (bcryptjs's compareSync; Node's
 *                                pbkdf2Sync); absent when the leaf is the caller's own code
 * @property {ProfileCaller} [caller]  the first frame of the app's own code above the entry (of the calling
 *                                package when the app is itself a package); absent for a chunk whose start no
 *                                sample shows
 * @property {boolean} [chunked]  the package's work ran in slices from Node's timers or ticks (bcryptjs's async
 *                                compare): `caller` is the call that started it, seen in a first slice
 * @property {number} [leafMs]    of ms, the leaf's (name, location, via); absent in files from before calls
 */

/**
 * A package's function where control entered it.
 * @typedef {object} ProfileCallEntry
 * @property {string} name       "compareSync"
 * @property {string} package    "bcryptjs", "@scope/name", or a Node module ("node:crypto"; "node" when internal)
 */

/**
 * The app's function that made a call, and the line of the call.
 * @typedef {object} ProfileCaller
 * @property {string} name       "login", "(anonymous)"
 * @property {string} location   the function's file:line (its first line), as ProfileEntry's
 * @property {number} [line]     the line of the call in that file: from the samples' lines when the caller is
 *                               the leaf, else from the caller's source; absent when neither tells it
 */

/**
 * Where a run's main thread went (RunRecord.profile): a CPU profile of the measured window, reduced.
 * @typedef {object} ProfileSummary
 * @property {string} file              the .cpuprofile (the window's samples), relative to the results folder
 * @property {number} intervalUs        sampling interval asked of V8
 * @property {number} samples
 * @property {number} totalMs           the profile's duration (the measured window)
 * @property {number} idleMs            of it, the main thread waiting for events
 * @property {ProfileEntry[]} self      by charged self time, largest first
 * @property {ProfileEntry[]} inclusive by inclusive time (the app's functions and what they call), largest first
 * @property {{ thresholdMs: number, ms: number, self: ProfileEntry[] }|null} blocking  self time of the samples
 *   taken while the event loop was held past thresholdMs (ServerMetrics.loopBlocks' spans; from the series,
 *   an estimate, for a server without them); null without either
 */

/**
 * The probe of one run (lib/run/prober.js): a light open-loop load (`rate` requests a second over
 * `connections` request slots, each request on a new connection) on the same server's GET /__syncbench/health while the run's own
 * load ran, from its start to its end. Its LoadResult's `latency` is corrected for coordinated omission
 * (measured from each request's intended send time, as wrk2 does), so it is how long any request of that
 * server waited for the event loop. `load.aborted` is always true: the probe is stopped when the run ends.
 * @typedef {object} ProbeRecord
 * @property {string} path             /__syncbench/health
 * @property {number} rate             target requests per second
 * @property {number} connections
 * @property {number} [streams]        over HTTP/2 (syncbench run --http2): the streams of each connection; absent over HTTP/1
 * @property {boolean} [sameConnection]  true: its streams rode the measured load's own HTTP/2 connection (axes.probeConnection
 *                                     "load"; connections 1, streams 100); absent when the probe had connections of its own
 * @property {LoadResult|null} load    what it measured (null when it could not start)
 * @property {{ code: string, message: string }|null} error  why the probe failed (the run stands)
 */

/**
 * A rate-sweep variant's capacity: a closed-loop run of `concurrency` connections for `seconds` on a fresh
 * server before its steps (lib/run/runner.js). `rps` 0 with `error` when it could not be measured.
 * @typedef {object} Capacity
 * @property {number} rps
 * @property {number} seconds
 * @property {number} concurrency
 * @property {number} requests            completed
 * @property {string|null} error
 */

/**
 * One term of a latency goal (`--slo`, lib/analysis/slo.js): a step meets it when its figure is strictly
 * below `below`. `below` is in ms for the latencies ('loop p99': the server's event-loop delay), and a
 * fraction of the requests for 'errors' (0.01 for 1%).
 * @typedef {object} SloTerm
 * @property {'p50'|'p90'|'p99'|'p99.9'|'loop p99'|'errors'} measure
 * @property {number} below
 */

/**
 * A goal as `--slo` parses it: its terms in a fixed order (p50, p90, p99, p99.9, loop p99, errors), each
 * measure at most once.
 * @typedef {object} Slo
 * @property {SloTerm[]} terms
 */

/**
 * What one open-loop step of a capacity search measured (a step's `measure(rate)` returns it): latency
 * percentiles corrected for coordinated omission (from each request's intended send time), ms, null when
 * no request completed; the server's event-loop delay p99 (null when it is not measured); the share of
 * requests that failed or were not 2xx; `late`: the requests sent late in each whole second of the step,
 * in order, the backlog signal lib/analysis/capacity.js judges.
 * @typedef {object} StepFigures
 * @property {number} achievedRate   completed requests per second
 * @property {number|null} p50Ms
 * @property {number|null} p90Ms
 * @property {number|null} p99Ms
 * @property {number|null} p999Ms
 * @property {number|null} loopP99Ms
 * @property {number} errorRate      0..1
 * @property {number[]} late
 * @property {number} [sentRate]     requests the generator sent per second during the step's schedule
 *                                   (the generator rule's figure; absent: achievedRate stands for it)
 * @property {number} [latencyRiseMs] how much the corrected p50 rose through the step, second by second (the
 *                                   least-squares line through each second's p50, first to last), ms
 * @property {number} [scheduled]    requests the step offered (rate x its seconds)
 * @property {number} [completed]    of them, answered before the step's end; the rest count as slower than
 *                                   every bound of the goal (the step waits the largest bound for them)
 */

/**
 * One step of a capacity search (lib/analysis/capacity.js): the offered rate, what it measured, and its
 * verdict with the reasons (each failed goal term with its figure, a growing backlog, the generator's
 * shortfall; empty for a pass).
 * @typedef {object} CapacityStep
 * @property {number} rate                   offered requests per second
 * @property {'grow'|'descend'|'bisect'} phase
 * @property {'pass'|'fail'|'generator-bound'} verdict
 * @property {string[]} why
 * @property {StepFigures} figures
 */

/**
 * A capacity search's outcome: the highest offered rate that met the goal (null when none did), the
 * lowest that failed above it (null when none did), every step in the order run, and why it stopped:
 * 'found' (bisected to the tolerance), 'no-rate-meets' (not even `minRate`, the lowest step tried),
 * 'generator-bound' (a step met the goal but the generator fell short of the offered rate), 'budget'
 * (the time or step budget ran out: the best so far), 'max-rate' (the goal held at the highest rate allowed),
 * 'error' (a step could not run, or Ctrl-C: the steps before it, the best of them; CapacityRecord.error says which).
 * @typedef {object} CapacitySearch
 * @property {number|null} capacity
 * @property {number|null} lastFail
 * @property {'found'|'no-rate-meets'|'generator-bound'|'budget'|'max-rate'|'error'} reason
 * @property {number} tolerance
 * @property {number} elapsedMs
 * @property {CapacityStep[]} steps
 */

/**
 * `syncbench run --capacity --slo EXPR` (lib/run/capacity-runner.js): the goal, how each step ran, and
 * every search, in the order run. Each configuration's closed-loop run (in `runs`, as any run, its
 * load cut at `closedLoopSeconds`) comes first, then its search, which starts from a fraction of that
 * run's req/s; `--runs` repeats both, interleaved across configurations as runs are.
 * @typedef {object} CapacityRuns
 * @property {string} goal                 the goal as written back (lib/analysis/slo.js sloText): "p99 < 1 s"
 * @property {Slo} slo                      the goal parsed
 * @property {number} stepSeconds          each step offers its rate for this long (--step)
 * @property {number} closedLoopSeconds    the closed-loop run before each search is cut at this
 * @property {number} budgetMs             --budget: every search's time together
 * @property {number} tolerance            the searches' bisection tolerance (0.05)
 * @property {number} growth               the factor of their growth (2)
 * @property {number} startShare           the first step's rate as a share of the closed loop's req/s
 * @property {CapacityRecord[]} searches
 */

/**
 * One search of one configuration, one repeat (results.json capacity.searches[]).
 * @typedef {object} CapacityRecord
 * @property {string} id                   "seed-bcrypt/sync#1": the id of the closed-loop run it started from
 * @property {string} experiment
 * @property {string} label                the configuration, as in runs[] and the tables
 * @property {Record<string, string|number|boolean>} config
 * @property {number} repeat               1..N
 * @property {RunNode} [node]              under --node: the binary its servers ran under
 * @property {string} startedAt
 * @property {number} connections          the open loop's connections in every step
 * @property {number|null} closedLoopRps   the closed-loop run's req/s (null: it failed, and no search ran)
 * @property {number|null} startRate       req/s of the first step (null: no search ran)
 * @property {CapacitySearch|null} search  null when no search ran (the closed loop failed; see error)
 * @property {{ code: string, message: string }|null} error  the step that could not run (the port was
 *                                         taken, the server crashed), named; the steps before it are kept
 */

/**
 * What a scan found and planned (results.json experiments[].scan).
 * @typedef {object} ScanInfo
 * @property {number} budgetMs                         --budget: the whole scan's time
 * @property {{ name: string, version: string }[]} frameworks  the frameworks found in the app's process
 * @property {string[]} tried                          what discovery tried (for the message when nothing was found)
 * @property {string[]} notes                          what discovery noticed ("a node:http server: no routes to read")
 * @property {PlannedRoute[]} routes                   every planned route, the skipped ones included
 */

/**
 * An experiment's server answering its no-work route, timed alone (lib/run/calibrate-http.js): main-thread
 * ms per request, the median of the timings and their range.
 * @typedef {object} HttpCalibration
 * @property {number} httpMs   the median of the timings
 * @property {string} route    the route loaded
 * @property {{ httpMs: number, requests: number, busyMs: number }[]} timings  each timing: main-thread busy ms over requests
 * @property {number} httpMsMin
 * @property {number} httpMsMax
 */

/**
 * results/<timestamp>/results.json, rewritten atomically after every run.
 * @typedef {object} ResultsFile
 * @property {'syncbench/results@1'} schema
 * @property {string} syncbench          syncbench version
 * @property {string} createdAt
 * @property {string|null} finishedAt    null while running or after a crash / Ctrl-C
 * @property {string[]} argv               the `syncbench run` arguments (after "run"), credentials starred with their digests
 * @property {{ engine?: string, [option: string]: unknown }} options  the runner's options (runs, engine, target, calibrate, report, overrides...)
 * @property {Environment} environment   of the runner's machine
 * @property {{ name: string, title: string, description: string, axes: string[], runs: number, baseline?: string,
 *              calibration?: { opMs: number, usableCores: number, ceilingRps: number, op: string, unit: string, samples: number,
 *                timings?: { opMs: number, cpuMs?: number, samples: number }[], opMsMin?: number, opMsMax?: number, ceilingLowRps?: number,
 *                ceilingHighRps?: number, opCpuMsMin?: number, http?: HttpCalibration },
 *              table?: string, reference?: string, target?: string, labels: string[],
 *              comparisons: Record<string, string>, capacity?: Record<string, Capacity>, sloP99Ms?: number, scan?: ScanInfo,
 *              sequential?: SequentialRecord }[]} experiments
 *           Written by lib/run/runner.js: `runs` the repeats of each of its configurations (--runs, else the
 *           experiment's default), `table` the kind that presents it (lib/report/kinds.js; absent: generic),
 *           `reference` the seed-002 100% row, `labels` the configurations in table order, `comparisons`
 *           label -> the baseline label it is compared with (Welch t-test), `target` the --target URL every
 *           configuration was sent to (absent: a fresh server per run); calibration's `op` ('bcrypt',
 *           'readfile'...), `unit` ('hash/s') and `samples` (timed calls), once the operation was timed; `timings` each
 *           independent timing (a fresh child each), `opMs` their median, `opMsMin`..`opMsMax` their range and
 *           `ceilingLowRps`..`ceilingHighRps` the ceiling's, `opCpuMsMin` the least CPU time of one call
 *           (absent in files from before the repeats), `http` the same server answering its no-work route, timed
 *           alone: main-thread ms per request (absent in older files). A rate-sweep's `capacity`: variant label -> what its
 *           closed-loop capacity run measured (the offered rates are fractions of it), `sloP99Ms` the p99 a rate
 *           must stay under to count as sustained (--slo-p99). A scan's (`table: 'scan'`) `scan`: what it found and
 *           planned, each route measured as the configuration labelled with its key. Under `--runs auto`,
 *           `runs` is the rounds it took once decided (until then the most allowed) and `sequential` the rule's record.
 * @property {RunRecord[]} runs
 * @property {CapacityRuns} [capacity]   `syncbench run --capacity`: the goal and every search; absent without it
 * @property {{ name: string, path: string, versions: { node: string, v8: string, uv: string, openssl: string, modules: string } }[]} [nodes]
 *           `syncbench run --node`: the binaries every configuration ran under, in the order given (the
 *           first is the baseline of the comparisons between versions); absent without --node
 */

/**
 * `syncbench run --runs auto`: an experiment's rounds and the stopping rule's last look at each comparison
 * (lib/analysis/sequential.js), rewritten after every round.
 * @typedef {object} SequentialRecord
 * @property {'bonferroni'} rule   alpha split over the looks, half of it at the last one
 * @property {number} alpha        the error rate spent over all the looks at one comparison (0.05)
 * @property {number} threshold    the slowdown decided against, a fraction (--threshold)
 * @property {number} maxRuns      the most rounds (--max-runs)
 * @property {number} level        the last look's intervals' confidence level (lib/analysis/sequential.js lookLevel)
 * @property {number} rounds       the rounds that ended
 * @property {boolean} decided     at the last look, every comparison was decided
 * @property {{ label: string, baseline: string, verdict: string, decided: boolean, ratio: number|null, low: number|null, high: number|null }[]} decisions
 *           at the last look (none before the third round): each comparison's gate verdict on its interval
 *           of label / baseline at `level`; null where there is no interval (fewer than 3 runs a side)
 */

/**
 * The progress of `syncbench run`, one event at a time, in this order: `plan` once, then per experiment
 * `calibrate` (an operation timed alone, when it has a ceiling) and `capacity` (a rate-sweep's variant
 * measured closed-loop), and per run `run-start`, the `heartbeat`s of its load (the built-in engine's,
 * every tenth of its requests when it has more than 150: the totals `syncbench ab` prints), `run-end`;
 * `end` last, whether the runs finished, were interrupted or failed. Emitted by lib/run/progress.js
 * (RunProgress) and nowhere else; `index` counts the runs from 1 to `total`.
 * @typedef {{ type: 'plan', total: number, upTo?: true, runs: { experiment: string, label: string }[], experiments: { name: string, title: string, configurations: number, runs: number }[] }
 *   | { type: 'calibrate', experiment: string, op: string }
 *   | { type: 'capacity', experiment: string, label: string, seconds: number }
 *   | { type: 'run-start', index: number, total: number, upTo?: true, experiment: string, label: string, repeat: number, etaMs: number|null }
 *   | { type: 'heartbeat', index: number, total: number, experiment: string, label: string, done: number, requests: number }
 *   | { type: 'second', index: number, experiment: string, label: string, source: 'load'|'probe', second: LoadSecond }
 *   | { type: 'server-second', index: number, experiment: string, label: string, second: ServerSecond }
 *   | { type: 'run-end', index: number, total: number, upTo?: true, record: RunRecord }
 *   | { type: 'rounds-end', experiment: string, rounds: number, maxRuns: number, level: number, decisions: SequentialRecord['decisions'] }
 *   | { type: 'capacity-step', experiment: string, label: string, repeat: number, step: CapacityStep }
 *   | { type: 'experiment-end', experiment: string, verdicts: string[] }
 *   | { type: 'end', runs: number, total: number, interrupted: boolean }} RunEvent
 *   `runs` of the plan: every run in the order it will run. `upTo` (--runs auto): the plan, and so `total`,
 *   goes as far as the most rounds allowed; `rounds-end` says an experiment's rounds are over (decided, or
 *   at the most) and `total` drops the runs it will not need.
 *   `capacity-step`: under --capacity, a step of a configuration's search ended (after its closed-loop run's
 *   `run-end`), with its rate, verdict and figures.
 *   `second`: one second of the running run's load (the built-in generator's) or of its probe, as it ends.
 *   `server-second`: the running run's server over the last second (about one a second), only while a
 *   subscriber asked for them (RunProgress.subscribe's `serverSeconds`): nobody asks the server otherwise.
 *   `experiment-end`: an experiment's last run ended (not when its runs were cut short), with its verdict
 *   lines as `syncbench run` prints them at the end; only where the caller gave RunProgress its `verdicts`.
 *   `etaMs`: the runs left, each at what its configuration took last time (else the mean so far), null
 *   before any run ended; `done` of `requests`: the run's completed requests; `runs`: the runs that ended.
 */

/**
 * A route read from a document by `syncbench scan` (--openapi: lib/scan/openapi.js, --har: lib/scan/har.js).
 * @typedef {object} DocumentRoute
 * @property {string} method     upper case
 * @property {string} path       the pattern, parameters written ":name" (OpenAPI's {name} rewritten)
 * @property {'openapi'|'har'} from
 * @property {Record<string, string>} [params]  example values of the path's parameters, by name (decoded)
 * @property {string} [query]    the query to send, without "?" ("limit=10"): OpenAPI's required query
 *                               parameters' examples, a HAR request's query as sent; '' when none
 * @property {string[]} [headers]  "Name: value" lines, HAR only: what the browser sent, credentials
 *                               included (starred where printed), minus the lines lib/scan/har.js drops
 * @property {{ contentType: string, text: string }} [body]  OpenAPI's request body example, HAR's postData
 */

/**
 * One route of a scan's plan (lib/scan/scan-plan.js): what will be sent to it, or why nothing will.
 * @typedef {object} PlannedRoute
 * @property {string} key        "METHOD /pattern": the route's label in results.json ("GET /users/:id")
 * @property {string} method     the method sent (app.all's routes: GET)
 * @property {string} pattern
 * @property {string|null} path  the concrete path and query sent ("/users/42?limit=10"), null when skipped
 * @property {string[]} from     where the route was found: the framework, 'openapi', 'har', 'request' (named)
 * @property {{ file: string, line: number }|null} declared  the handler's place, from discovery
 * @property {string[]} [headers]  "Name: value" lines sent with it (a HAR's, a named route's own); in
 *                                 results.json the credentials' values starred with their digests
 * @property {{ contentType: string, text: string }} [body]  in results.json its text starred with its digest
 * @property {{ reason: string, flag?: string }|null} skipped  one line, and the flag that would send it
 */

export {}
