// `syncbench ab`: ab's flags in, ab's report out (stdout), progress and errors on stderr.
import { accessSync, closeSync, constants, openSync, statSync, unlinkSync } from 'node:fs'
import { SyncbenchError, InvalidOptionError, errorCodes, systemCode, systemReason } from '../errors.js'
import { version } from '../version.js'
import { parseAbArgs } from '../ab/ab-args.js'
import { formatAbBanner, formatAbStart, formatAbDone, formatAbReport, formatAbHtmlBanner, formatAbHtmlReport } from '../ab/ab-report.js'
import { checkNativeTransport } from './output.js'
import { redactHttp2Headers, redactRequestHead, redactUrl } from '../redact.js'

export function helpText () {
  return `syncbench ab ${version}: an ApacheBench 2.3 drop-in (same flags, same report)

Usage: syncbench ab [options] http[s]://host[:port]/path

Options (ab's names, defaults and meaning; every flag has a long form too):
  -n, --requests N        requests to perform (default 1)
  -c, --concurrency N     requests in flight at once, at most -n (default 1)
  -t, --timelimit T       at most T (seconds, or 500ms, 10s, 2m); implies
                          -n 50000 unless a -n follows it. Unlike ab, the run
                          ends at the limit whatever the server does (ab keeps
                          reading a response that trickles in past -t)
  -s, --timeout T         how long the whole run may go without receiving a byte
                          (ab's inactivity timeout; seconds or 500ms, 10s, 2m;
                          default 30)
  -k, --keepalive         use HTTP keep-alive
  -p, --body-file FILE    POST this file's bytes (set its type with -T)
  -u, --put-file FILE     PUT this file's bytes (set its type with -T)
  -T, --content-type TYPE Content-Type of the -p / -u body (default text/plain)
  -m, --method NAME       any method name
  -i, --head              HEAD instead of GET
  -H, --header LINE       extra header "Name: value", replacing ab's default of
                          that name (repeatable)
  -C, --cookie NAME=VAL   a cookie (repeatable, joined into one Cookie header)
  -A, --auth USER:PASS    Basic authentication
  -P, --proxy-auth U:P    Basic proxy authentication
  -l, --variable-length   accept variable document lengths (no Length failures)
  -r, --continue-on-receive-error
                          keep going on socket receive errors
  -q, --quiet             no "Completed N requests" progress (shown above 150)
  -d, --no-percentiles    hide the percentile table
  -S, --no-confidence     hide the sd / median columns and ab's warnings
  -g, --gnuplot FILE      write ab's gnuplot TSV, one line per request
  -e, --csv FILE          write ab's CSV of the time within which 0..100% of
                          requests were served
  -w, --html              print the results as an HTML table
  -v, --verbosity N       ab's verbosity level (default 1; 2 prints the request
                          head first)
  -Z, --ciphers LIST      https: OpenSSL cipher list (see openssl ciphers); with
                          -f TLS1.3, TLS 1.3 suites
  -f, --tls-protocol P    https: TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL (default
                          ALL; SSL2 and SSL3 are refused: Node's OpenSSL has
                          neither)
  -h, --help              this help
  -V, --version           print the version

syncbench's own:
  -R, --rate N            open loop (wrk2's -R): N requests per second in all,
                          each of the -c connections on its own evenly spaced
                          schedule, each request's latency from its intended
                          send time (corrected for coordinated omission); -n
                          counts intended requests, -t implies the ones due
                          within it. At most 1000000; adds the corrected
                          latency section
  --ramp T                with -R FROM..TO: a ramp, the open loop's rate growing
                          (or falling) linearly from FROM to TO requests per
                          second over T (20s, 2m), then staying at TO; without
                          -n or -t the run makes the requests the ramp
                          schedules (-R 100..2000 --ramp 20s: 21000). --json's
                          series records each second's scheduled, sent and late
                          requests
  --http1.1               send HTTP/1.1 requests instead of ab's HTTP/1.0 and
                          read the responses as RFC 9112 says: a malformed one
                          is a failed request (Exceptions)
  --http2, --h2          requests as HTTP/2 streams: h2c by prior
                          knowledge on http://, ALPN h2 on https:// (HTTP/1.1
                          when the server refuses h2, said on stderr); -c
                          connections of --streams streams each. Adds the
                          connections' figures and the HDR percentiles per
                          request (docs/http2.md)
  --streams N             with --http2: concurrent streams per connection
                          (default 1), fewer when the server's SETTINGS allow
                          fewer; -m N says the same (h2load's -m), -m WORD is
                          the method
  --response-timeout T    the longest one response may take, from its request's
                          start (default 0: none; at most 86400 s); a response
                          past it is a failed request (Exceptions,
                          RESPONSE_TIMEOUT in --json's errors), the run goes on
  --unix PATH             connect to the server's unix socket at PATH; the URL
                          still gives the Host header and the path
  --workers N             split the run over N threads (1 to 64, at most -c;
                          default 1): connections, requests and -R shared
                          evenly, counts and histograms merged exactly; more
                          than one pays only when the generator's core is the
                          limit
  --json                  print the LoadResult (schema syncbench/load-result@1)
                          as JSON on stdout, nothing else
  --secret-header NAME    a header whose value is a credential (repeatable):
                          starred wherever syncbench writes or prints it, as
                          Authorization, Cookie, X-Api-Key and X-Auth-Token are
                          (so are -A, -P, -C, a URL's user:pass@ and token=,
                          access_token=, api_key=, key=, sig=); the requests
                          carry it unchanged
  --hdr-log FILE          write the latency (corrected under -R) as an
                          HdrHistogram interval log, one interval per second
  --dashboard             watch the run in a browser: a read-only page on
                          127.0.0.1 (a free port), its URL with a random token
                          printed on stderr; closed when the run ends
  --dashboard-port N      with --dashboard: this port (default 0: a free one)
  --dashboard-host ADDR   with --dashboard: listen on ADDR instead of 127.0.0.1
                          (a warning says others who reach it can watch)
                          (values in microseconds), as HistogramLogWriter does

Many machines (docs/distributed.md; syncbench merge adds up their results):
  --segment i/N           this process is shard i of N, counted from 0: it runs
                          its share of -n, -c and -R (the first shards take one
                          more when they do not divide); -c must be at least N
  --start-at TIME         wait until this ISO 8601 time with a time zone
                          (2026-11-23T18:30:00Z) before starting: at most 1 s
                          past, 3600 s ahead. Under -R shard i starts i / rate
                          later, so the shards' schedules interleave into one
                          (a ramp's shards start together, each taking every
                          N-th request of the ramp).
                          Ctrl-C while waiting sends nothing and exits 130

https:// as ab: the certificate is NOT verified (a self-signed one is fine), SNI
is the -H Host or the URL's host (none for an IP address), and every connection
makes a full handshake, counted in its Connect time.

Flags cluster as in ab (-kc 20, -n100). Ctrl-C stops the run and prints the
report of what was measured.
`
}

/**
 * Refuse an output file that cannot be written before the run, not after it: a folder, or a place
 * where the atomic write's temporary file cannot be made (lib/fs-atomic.js). Tried for real, not
 * with access(), which root passes everywhere, /proc included. A device or FIFO is written through.
 * @param {string} flag
 * @param {string} file
 * @param {(file: string) => string} tempNameFor fs-atomic.js's, loaded only for runs that write files
 */
function checkWritable (flag, file, tempNameFor) {
  try {
    const target = statSync(file, { throwIfNoEntry: false })
    if (target?.isDirectory()) throw Object.assign(new Error(`${file} is a folder`), { code: 'EISDIR' })
    if (target && !target.isFile()) return accessSync(file, constants.W_OK)
    const probe = tempNameFor(file)
    closeSync(openSync(probe, 'wx'))
    unlinkSync(probe)
  } catch (err) {
    const code = systemCode(err)
    throw new InvalidOptionError(`${flag} cannot write "${file}": ${code ? systemReason(code, 'write') : /** @type {Error} */ (err).message}`)
  }
}

/**
 * What a run that ab would abort measured until then: the `result` a ConnectError or TimeoutError
 * carries (told by code: the class is the registry's for that code), else undefined.
 * @param {unknown} err
 * @returns {import('../types.js').LoadResult|undefined}
 */
function partialResult (err) {
  if (!(err instanceof SyncbenchError) || (err.code !== errorCodes.CONNECT && err.code !== errorCodes.TIMEOUT)) return undefined
  return /** @type {import('../errors.js').ConnectError|import('../errors.js').TimeoutError} */ (err).result
}

/**
 * Errors are thrown, as every command's: bin/syncbench.js prints them (lib/cli/output.js describeError).
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>} exit code
 */
export async function main (argv, io) {
  const { options, output } = parseAbArgs(argv)
  if (output.help) { io.stdout.write(helpText()); return 0 }
  if (output.version) { io.stdout.write(`This is syncbench ${version}, an ApacheBench 2.3 compatible load generator\n`); return 0 }
  await checkNativeTransport('ab', io)
  if (output.gnuplot || output.csv || output.hdrLog) {
    // loaded here only: the atomic writer's node:crypto costs start-up CPU a plain run does not need
    const { tempNameFor } = await import('../fs-atomic.js')
    if (output.gnuplot) checkWritable('-g', output.gnuplot, tempNameFor)
    if (output.csv) checkWritable('-e', output.csv, tempNameFor)
    if (output.hdrLog) checkWritable('--hdr-log', output.hdrLog, tempNameFor)
  }

  // ab prints progress whenever it has a heartbeat; we do only on a terminal (project rule)
  if (output.heartbeat && io.stderr.isTTY) {
    options.heartbeat = output.heartbeat
    options.onProgress = (done) => io.stderr.write(`Completed ${done} requests\n`)
  }
  // -g and -e only: the files module (and node:crypto behind its atomic write) costs startup otherwise.
  const files = output.gnuplot || output.csv || output.hdrLog ? await import('../ab/ab-files.js') : null
  const log = files && (output.gnuplot || output.csv) ? files.createRequestLog() : null
  const hdrLog = output.hdrLog ? new (await import('../ab/hdr-log.js')).IntervalLog() : null
  if (log && hdrLog) options.onRequest = (r) => { log.onRequest(r); hdrLog.onRequest(r) }
  else if (log) options.onRequest = log.onRequest
  else if (hdrLog) options.onRequest = (r) => hdrLog.onRequest(r)
  const controller = new AbortController()
  options.signal = controller.signal
  // --json under -R: the run second by second (offered, sent, late, corrected and uncorrected
  // percentiles; lib/load/load-series.js), as one thread records it
  if (output.json && options.rate !== undefined) options.series = true
  // after every check of the arguments and files: a refused run opens no page
  const live = output.dashboard ? await liveView(options, output, io) : null
  try {
    return await runAb({ options, output, io, controller, files, log, hdrLog, live })
  } finally {
    await live?.dashboard.close()
  }
}

/**
 * ab -v 2's request head, credentials starred: the HTTP/1 head, or under --http2 each stream's headers.
 * @param {import('../types.js').LoadOptions} options
 */
async function shownRequestHead (options) {
  const [{ normalizeOptions }, { parseTarget, requestHead }] = await Promise.all([import('../load/loadtest.js'), import('../load/request.js')])
  const o = normalizeOptions(options)
  const target = parseTarget(options.url)
  if (o.http2 !== true) return `INFO: ${options.method} header == \n---\n${redactRequestHead(requestHead(o, target), options.secretHeaders)}\n---\n`
  const { http2Headers } = await import('../load/h2-engine.js')
  const headers = http2Headers(o, target, requestHead({ ...o, http11: true, keepAlive: true }, target))
  return `INFO: ${options.method} headers (HTTP/2) == \n---\n${redactHttp2Headers(headers, options.secretHeaders)}\n---\n`
}

/**
 * The run and its report: the exit code.
 * @param {object} o
 * @param {import('../types.js').LoadOptions} o.options
 * @param {import('../ab/ab-args.js').AbOutput} o.output
 * @param {import('./output.js').Io} o.io
 * @param {AbortController} o.controller
 * @param {typeof import('../ab/ab-files.js')|null} o.files
 * @param {ReturnType<typeof import('../ab/ab-files.js').createRequestLog>|null} o.log
 * @param {import('../ab/hdr-log.js').IntervalLog|null} o.hdrLog
 * @param {Awaited<ReturnType<typeof liveView>>|null} o.live
 * @returns {Promise<number>}
 */
async function runAb ({ options, output, io, controller, files, log, hdrLog, live }) {
  const { loadtest } = await import('../load/loadtest.js')
  let abortedAt = Infinity
  const onSigint = () => { abortedAt = Date.now(); controller.abort() }

  // On a terminal the banner shows before the run, as ab does; into a pipe or file it is held back
  // so that a run that cannot start leaves stdout empty.
  let pending = ''
  if (!output.json) pending = output.html ? formatAbHtmlBanner() : formatAbBanner() + formatAbStart(options.url, output.heartbeat)
  // ab -v 2 shows the request head it will send (its other -v output is per response: not reproduced);
  // under --http2, the header list each stream's HEADERS frame carries
  if (!output.json && (options.verbosity ?? 1) >= 2) pending += await shownRequestHead(options)
  if (io.stdout.isTTY) { io.stdout.write(pending); pending = '' }

  let result
  // once: a second Ctrl-C gets the default behaviour and ends the process at once
  process.once('SIGINT', onSigint)
  // a shard may wait minutes: say so (stderr, as progress), once Ctrl-C is handled
  if (options.startAt !== undefined && !output.quiet) io.stderr.write(`syncbench ab: waiting until ${options.startAt} (--start-at)\n`)
  try {
    live?.started()
    result = await loadtest(options)
    live?.ended(result)
  } catch (err) {
    live?.ended(partialResult(err) ?? null, err)
    process.off('SIGINT', onSigint)
    // ab's way out of a run it gives up (apr_err): the error on stderr and, when some requests
    // completed, "Total of N requests completed" on stdout instead of the report
    const done = partialResult(err)?.completeRequests ?? 0
    if (!output.json) io.stdout.write(done > 0 ? `${pending}Total of ${done} requests completed\n` : io.stdout.isTTY ? '\n' : '')
    throw err
  }
  for (const line of http2Notes(options, result)) io.stderr.write(`syncbench ab: ${line}\n`)
  const interrupted = controller.signal.aborted
  // (a shard under a constant -R starts i / rate after --start-at: lib/load/loadtest.js)
  const startMs = options.startAt === undefined ? -Infinity : Date.parse(options.startAt) + (options.segment && options.rate && options.ramp === undefined ? options.segment.index * 1000 / options.rate : 0)
  if (interrupted && result.completeRequests === 0 && abortedAt < startMs) {
    // Ctrl-C before --start-at: nothing was sent, so no report, no files; the shell's code for SIGINT
    io.stderr.write(`syncbench ab: interrupted while waiting for --start-at ${options.startAt}: nothing was sent\n`)
    return 130
  }

  if (output.json) {
    io.stdout.write(JSON.stringify(result, null, 2) + '\n')
  } else {
    // ab prints no "..done" / "Finished" when interrupted, only the report
    if (!interrupted) {
      const end = formatAbDone(result.completeRequests, output.heartbeat)
      pending += end.stdout
      // ab's closing "Finished N requests" is progress too: only on a terminal, like the Completed lines
      if (end.stderr && io.stderr.isTTY) io.stderr.write(end.stderr)
    }
    io.stdout.write(pending + (output.html ? formatAbHtmlReport(result, output) : formatAbReport(result, output)))
  }

  try {
    // ab writes the CSV first, then the gnuplot file, and only when a request completed. The SIGINT
    // handler stays until they are written, so a Ctrl-C here cannot leave a temporary file behind.
    if (files && log && result.completeRequests > 0) {
      if (output.csv) await files.writeAbFile('-e', output.csv, files.formatAbCsv(log.records.map((r) => r.total)))
      if (output.gnuplot) await files.writeAbFile('-g', output.gnuplot, files.formatAbGnuplot(log.records))
    }
    // the interval log also when nothing completed: its intervals then say so
    if (files && hdrLog && output.hdrLog) {
      const endMs = Date.parse(/** @type {string} */ (result.endedAt))
      await files.writeAbFile('--hdr-log', output.hdrLog, hdrLog.format(endMs, Date.parse(result.startedAt)))
    }
  } finally {
    process.off('SIGINT', onSigint)
  }
  // ab exits 1 after printing the report of an interrupted run
  return interrupted || result.aborted ? 1 : 0
}

/**
 * --http2: what the server changed of the run, a line each (on stderr, beside the report): h2 refused
 * in ALPN (the run went over HTTP/1.1), or fewer concurrent streams than --streams asked.
 * @param {import('../types.js').LoadOptions} options
 * @param {import('../types.js').LoadResult} result
 * @returns {string[]}
 */
export function http2Notes (options, result) {
  if (options.http2 !== true) return []
  if (result.protocol !== 'h2') return ['the server refused h2 in TLS ALPN: the run used HTTP/1.1']
  const limit = result.http2?.serverStreamsLimit ?? 0
  if (limit === 0) return []
  return [`the server allows ${limit} concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS), fewer than --streams ${options.streams ?? 1}: ${limit} used`]
}

/**
 * The dashboard of one ab run: the progress stream of a plan of one run, fed by the engine's
 * heartbeats and seconds (kept off the hot path: a timer reads them, lib/load/load-series.js).
 * @param {import('../types.js').LoadOptions} options  given its onSecond and onProgress here
 * @param {import('../ab/ab-args.js').AbOutput} output
 * @param {import('./output.js').Io} io
 */
async function liveView (options, output, io) {
  const [{ openDashboard, DASHBOARD_HOST }, { RunProgress }, { defaultHeartbeat }, { runOutcome }] = await Promise.all([
    import('./dashboard.js'), import('../run/progress.js'), import('../load/options.js'), import('./progress-line.js')])
  const label = redactUrl(options.url)
  const dashboard = await openDashboard(`syncbench ab ${label}`, { dashboardPort: output.dashboardPort, dashboardHost: output.dashboardHost ?? DASHBOARD_HOST }, io, 'syncbench ab')
  const progress = new RunProgress()
  progress.subscribe(dashboard.event)
  const configuration = { label }
  progress.planned([{ experiment: { name: 'ab', title: 'syncbench ab' }, configurations: [configuration], order: [{ configuration }] }])
  const requests = options.requests ?? 1
  const terminal = options.onProgress
  options.heartbeat ??= defaultHeartbeat(requests)
  options.onProgress = (done) => { terminal?.(done); progress.heartbeat(done) }
  options.onSecond = (second) => progress.second('load', second)
  const startedAt = new Date().toISOString()
  return {
    dashboard,
    started: () => progress.runStarted({ experiment: 'ab', label, repeat: 1, requests }),
    /**
     * The run ended, with its result (or what a failure kept of it).
     * @param {import('../types.js').LoadResult|null} load
     * @param {unknown} [err]
     */
    ended (load, err) {
      const error = err instanceof SyncbenchError ? { code: err.code, message: err.message } : null
      /** @type {import('../types.js').RunRecord} */
      const record = { id: 'ab', experiment: 'ab', label, config: {}, repeat: 1, engine: 'builtin', load, server: null, serverEnv: null, startedAt, error, probe: null, invalid: null }
      progress.runEnded(record)
      progress.finished({ interrupted: Boolean(options.signal?.aborted) })
      dashboard.finish({ verdicts: [`${label}: ${runOutcome(record)}${load ? `, p99 ${load.latency.p99} ms` : ''}`], report: null, lines: ['syncbench ab writes no report.html: its report is on stdout.'] })
    }
  }
}
