// The text ab 2.3 prints, rebuilt from a LoadResult: same labels, order, column widths and rounding,
// so scripts that parse ab's report parse ours. Only the banner is our own.
import { version } from '../version.js'

/**
 * ab keeps times as integer microseconds and reduces them with (us + 500) / 1000 in integer
 * arithmetic: round half up, on the microsecond value.
 * @param {number} ms
 */
export function abRoundMs (ms) {
  const us = Math.round(ms * 1000)
  return Math.trunc((us + 500) / 1000)
}

/** ab's means are integer microseconds (sum / done, truncated) before the rounding to ms. @param {number} ms */
function abRoundMeanMs (ms) {
  return abRoundMs(Math.trunc(ms * 1000 + 1e-6) / 1000)
}

/** printf("%Nd") @param {number|string} n @param {number} width */
const d = (n, width) => String(n).padStart(width)

/**
 * printf("%.Nf") as glibc does it: like toFixed, except that an exact binary tie rounds half to even
 * (toFixed rounds it up): 1.25 prints as "1.2" in ab.
 * @param {number} x
 * @param {number} digits
 */
export function printfFixed (x, digits) {
  const exact = x.toFixed(100)
  const dot = exact.indexOf('.')
  if (dot !== -1 && /^50*$/.test(exact.slice(dot + 1 + digits))) {
    const kept = exact.slice(0, dot + 1 + digits).replace(/\.$/, '')
    if (Number(kept.at(-1)) % 2 === 0) return kept
  }
  return x.toFixed(digits)
}

/** The hostname as ab prints it: IPv6 literals without their brackets. @param {string} url */
export function abHostname (url) {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1')
}

/** Our banner, where ab prints its copyright lines. */
export function formatAbBanner () {
  return `This is syncbench ${version}, an ApacheBench 2.3 compatible load generator\n\n`
}

/**
 * "Benchmarking host (be patient)": ab ends it with a newline when it will print progress on stderr,
 * else with "..." completed by "..done" at the end (see formatAbDone).
 * @param {string} url
 * @param {number} heartbeat
 */
export function formatAbStart (url, heartbeat) {
  return `Benchmarking ${abHostname(url)} (be patient)${heartbeat ? '\n' : '...'}`
}

/**
 * What ab prints when the run ends normally: on stderr "Finished N requests" with progress, else
 * "..done" on stdout.
 * @param {number} done
 * @param {number} heartbeat
 * @returns {{ stdout: string, stderr: string }}
 */
export function formatAbDone (done, heartbeat) {
  return heartbeat ? { stdout: '', stderr: `Finished ${done} requests\n` } : { stdout: '..done\n', stderr: '' }
}

/**
 * ab's sanity check of one Connection Times row, printed under the table.
 * @param {string} what @param {number} mean @param {number} median @param {number} sd
 * @returns {string[]}
 */
function sanity (what, mean, median, sd) {
  const diff = Math.abs(mean - median)
  if (diff > 2 * sd) {
    return [`ERROR: The median and mean for ${what} are more than twice the standard`,
      '       deviation apart. These results are NOT reliable.']
  }
  if (diff > sd) {
    return [`WARNING: The median and mean for ${what} are not within a normal deviation`,
      '        These results are probably not that reliable.']
  }
  return []
}

/**
 * @param {import('../types.js').LoadResult} result
 * @param {{ confidence: boolean }} output
 */
function connectionTimes (result, output) {
  /** @type {[label: string, key: keyof import('../types.js').LoadResult['connectionTimes'], what: string][]} */
  const rows = [['Connect:    ', 'connect', 'the initial connection time'], ['Processing: ', 'processing', 'the processing time'],
    ['Waiting:    ', 'waiting', 'the waiting time'], ['Total:      ', 'total', 'the total time']]
  const lines = ['', 'Connection Times (ms)']
  const rounded = rows.map(([label, key, what]) => {
    const r = result.connectionTimes[key]
    return {
      label,
      what,
      min: abRoundMs(r.min),
      mean: abRoundMeanMs(r.mean),
      sd: r.sd,
      median: abRoundMs(r.median),
      max: abRoundMs(r.max)
    }
  })
  if (output.confidence) {
    lines.push('              min  mean[+/-sd] median   max')
    for (const r of rounded) lines.push(`${r.label}${d(r.min, 5)} ${d(r.mean, 4)} ${d(printfFixed(r.sd, 1), 5)} ${d(r.median, 6)} ${d(r.max, 7)}`)
    for (const r of rounded) lines.push(...sanity(r.what, r.mean, r.median, r.sd))
  } else {
    lines.push('              min   avg   max')
    // ab's format has no space between the avg and max columns ("%5d %5d%5d"): kept on purpose
    for (const r of rounded) lines.push(`${r.label}${d(r.min, 5)} ${d(r.mean, 5)}${d(r.max, 5)}`)
  }
  return lines
}

/**
 * What the report reads of the options a result records. LoadResult.options is only `object`: a
 * result from another load tool (lib/run/tools) records its own, so each of these may be absent.
 * @param {import('../types.js').LoadResult} result
 */
function recordedOptions (result) {
  return /** @type {{ keepAlive?: unknown, variableLength?: unknown, bodyBytes?: number }} */ (result.options ?? {})
}

/**
 * An https run's lines under "Server Port", as ab prints them: the first handshake's protocol, cipher,
 * certificate key bits and cipher bits; its ephemeral key; the SNI (each only when there is one).
 * @param {import('../types.js').TlsInfo|undefined} tls
 * @returns {string[]}
 */
function tlsLines (tls) {
  if (tls === undefined) return []
  const lines = []
  if (tls.protocol !== '') lines.push(`SSL/TLS Protocol:       ${tls.protocol},${tls.cipher},${tls.certificateBits},${tls.cipherBits}`)
  if (tls.serverTempKey !== '') lines.push(`Server Temp Key:        ${tls.serverTempKey}`)
  if (tls.serverName !== null) lines.push(`TLS Server Name:        ${tls.serverName}`)
  return lines
}

const PERCENTS = ['50', '66', '75', '80', '90', '95', '98', '99']

/**
 * The report ab prints after the run (from the two blank lines before "Server Software" to the
 * percentile table), line for line as ab 2.3 prints it.
 * @param {import('../types.js').LoadResult} result
 * @param {{ confidence?: boolean, percentiles?: boolean, keepAlive?: boolean, variableLength?: boolean, sendBody?: boolean }} [output]
 *        which optional parts to show (defaults: from result.options)
 * @returns {string}
 */
export function formatAbReport (result, output = {}) {
  const opts = recordedOptions(result)
  const show = {
    confidence: output.confidence ?? true,
    percentiles: output.percentiles ?? true,
    keepAlive: output.keepAlive ?? Boolean(opts.keepAlive),
    variableLength: output.variableLength ?? Boolean(result.document.variable ?? opts.variableLength),
    sendBody: output.sendBody ?? (opts.bodyBytes ?? 0) > 0
  }
  const t = result.timeTakenSeconds
  const done = result.completeRequests
  const f = result.failures
  const lines = [
    '', '',
    `Server Software:        ${result.server.software}`,
    `Server Hostname:        ${result.server.hostname}`,
    `Server Port:            ${result.server.port}`,
    ...tlsLines(result.tls),
    '',
    `Document Path:          ${result.document.path}`,
    show.variableLength ? 'Document Length:        Variable' : `Document Length:        ${result.document.length} bytes`,
    '',
    `Concurrency Level:      ${result.concurrency}`,
    `Time taken for tests:   ${printfFixed(t, 3)} seconds`,
    `Complete requests:      ${done}`,
    `Failed requests:        ${result.failedRequests}`
  ]
  if (result.failedRequests) lines.push(`   (Connect: ${f.connect}, Receive: ${f.receive}, Length: ${f.length}, Exceptions: ${f.exceptions})`)
  if (result.writeErrors) lines.push(`Write errors:           ${result.writeErrors}`)
  if (result.non2xxResponses) lines.push(`Non-2xx responses:      ${result.non2xxResponses}`)
  if (show.keepAlive) lines.push(`Keep-Alive requests:    ${result.keepAliveRequests}`)
  lines.push(`Total transferred:      ${result.totalTransferredBytes} bytes`)
  // ab prints no unit on this line
  if (show.sendBody) lines.push(`Total body sent:        ${result.totalBodySentBytes}`)
  lines.push(`HTML transferred:       ${result.htmlTransferredBytes} bytes`)
  if (t > 0 && done > 0) {
    lines.push(
      `Requests per second:    ${printfFixed(result.requestsPerSecond, 2)} [#/sec] (mean)`,
      `Time per request:       ${printfFixed(result.timePerRequestMs, 3)} [ms] (mean)`,
      `Time per request:       ${printfFixed(result.timePerRequestAcrossMs, 3)} [ms] (mean, across all concurrent requests)`,
      `Transfer rate:          ${printfFixed(result.transferRateKBps, 2)} [Kbytes/sec] received`
    )
    if (show.sendBody) {
      lines.push(
        `                        ${printfFixed(result.totalBodySentBytes / 1024 / t, 2)} kb/s sent`,
        `                        ${printfFixed((result.totalTransferredBytes + result.totalBodySentBytes) / 1024 / t, 2)} kb/s total`
      )
    }
  }
  if (done > 0) {
    lines.push(...connectionTimes(result, show))
    if (show.percentiles && done > 1) {
      lines.push('', 'Percentage of the requests served within a certain time (ms)')
      for (const p of PERCENTS) lines.push(`  ${p}%  ${d(abRoundMs(result.percentiles[p]), 5)}`)
      lines.push(` 100%  ${d(abRoundMs(result.percentiles['100']), 5)} (longest request)`)
    }
  }
  if (result.openLoop !== undefined) lines.push(...openLoopSection(result, result.openLoop))
  if (result.http2 !== undefined) lines.push(...http2Section(result, result.http2))
  return lines.join('\n') + '\n'
}

/**
 * --http2 only, after ab's report: the run's connections (sessions), what the server told them, and
 * (in a closed loop; the open loop's section has them) the HDR percentiles per request, a stream each.
 * @param {import('../types.js').LoadResult} result
 * @param {import('../types.js').Http2Info} h2
 * @returns {string[]}
 */
function http2Section (result, h2) {
  const spread = (/** @type {import('../types.js').SpreadRow} */ row, /** @type {number} */ digits) =>
    `min ${printfFixed(row.min, digits)}, mean ${printfFixed(row.mean, digits)}, max ${printfFixed(row.max, digits)}`
  const codes = (/** @type {Record<string, number>} */ counts) => {
    const entries = Object.entries(counts)
    return entries.length === 0 ? '0' : entries.map(([code, n]) => `${code} ${n}`).join(', ')
  }
  const mode = result.tls === undefined ? 'h2c (prior knowledge)' : 'h2 (TLS, ALPN)'
  const limit = h2.serverStreamsLimit > 0 ? ` (server allowed ${h2.serverStreamsLimit})` : ''
  const lines = [
    '',
    `HTTP/2:                 ${mode}, ${result.concurrency} x ${h2.streams} streams${limit}`,
    `Connections opened:     ${h2.connections}`,
    `Connect (ms):           ${spread(h2.connectMs, 3)}`,
    `First byte (ms):        ${spread(h2.firstByteMs, 3)}`,
    `Streams per connection: ${spread(h2.streamsPerConnection, 1)}`,
    `GOAWAY received:        ${codes(h2.goaways)}`,
    `RST_STREAM received:    ${codes(h2.resets)}`
  ]
  if (result.openLoop !== undefined || result.completeRequests === 0) return lines
  lines.push('', 'Latency per request (stream), HDR (ms)')
  for (const [label, key] of OPEN_LOOP_ROWS) {
    lines.push(`${label.padStart(7)} ${d(printfFixed(result.latency[key], 3), 11)}${key === 'max' ? ' (longest request)' : ''}`)
  }
  return lines
}

/** The corrected latency section's rows: label and LoadResult.latency key. */
const OPEN_LOOP_ROWS = /** @type {const} */ ([['50%', 'p50'], ['75%', 'p75'], ['90%', 'p90'], ['99%', 'p99'], ['99.9%', 'p999'], ['99.99%', 'p9999'], ['100%', 'max']])

/**
 * -R only, after ab's report (which it leaves as ab prints it: ab's tables there count from each
 * request's actual send): the schedule held, and the latency from each request's intended send time
 * beside the latency from its actual send, wrk2's percentiles, in ms with microseconds.
 * @param {import('../types.js').LoadResult} result
 * @param {import('../types.js').OpenLoop} openLoop
 * @returns {string[]}
 */
function openLoopSection (result, openLoop) {
  const uncorrected = result.latencyUncorrected ?? result.latency
  const lines = [
    '',
    openLoop.ramp === undefined
      ? `Target rate:            ${printfFixed(openLoop.targetRate, 2)} [#/sec]`
      : `Target rate:            ${printfFixed(openLoop.ramp.fromRate, 2)}..${printfFixed(openLoop.ramp.toRate, 2)} [#/sec], ramp over ${openLoop.ramp.seconds} s (mean ${printfFixed(openLoop.targetRate, 2)})`,
    `Achieved rate:          ${printfFixed(openLoop.achievedRate, 2)} [#/sec] (mean)`,
    `Late requests:          ${openLoop.lateRequests} (sent over ${openLoop.lateThresholdMs} ms after their intended time)`
  ]
  if (result.completeRequests === 0) return lines
  lines.push('', 'Latency (corrected for coordinated omission) (ms)', '         corrected  uncorrected')
  for (const [label, key] of OPEN_LOOP_ROWS) {
    lines.push(`${label.padStart(7)} ${d(printfFixed(result.latency[key], 3), 11)} ${d(printfFixed(uncorrected[key], 3), 12)}${key === 'max' ? ' (longest request)' : ''}`)
  }
  return lines
}

/** ab's -w banner, in place of its HTML copyright block. */
export function formatAbHtmlBanner () {
  return `<p>\n This is syncbench ${version}, an ApacheBench 2.3 compatible load generator<br>\n</p>\n<p>\n`
}

/**
 * ab's -w report: the same figures as an HTML table with ab's attributes (no percentile table,
 * no Receive count in the failures row, a min/avg/max table whose Processing row is Total minus
 * Connect column by column), as ab 2.3 prints them.
 * @param {import('../types.js').LoadResult} result
 * @param {{ keepAlive?: boolean, variableLength?: boolean, sendBody?: boolean }} [output]
 */
export function formatAbHtmlReport (result, output = {}) {
  const opts = recordedOptions(result)
  const keepAlive = output.keepAlive ?? Boolean(opts.keepAlive)
  const variable = output.variableLength ?? Boolean(result.document.variable ?? opts.variableLength)
  const sendBody = output.sendBody ?? (opts.bodyBytes ?? 0) > 0
  const td = 'bgcolor=white'
  /** @param {string} label @param {string|number} value */
  const row = (label, value) => `<tr ><th colspan=2 ${td}>${label}:</th><td colspan=2 ${td}>${value}</td></tr>`
  const t = result.timeTakenSeconds
  const done = result.completeRequests
  const f = result.failures
  const lines = ['', '', '<table >',
    row('Server Software', result.server.software),
    row('Server Hostname', result.server.hostname),
    row('Server Port', result.server.port),
    row('Document Path', result.document.path),
    row('Document Length', variable ? 'Variable' : `${result.document.length} bytes`),
    row('Concurrency Level', result.concurrency),
    row('Time taken for tests', `${printfFixed(t, 3)} seconds`),
    row('Complete requests', done),
    row('Failed requests', result.failedRequests)]
  if (result.failedRequests) lines.push(`<tr ><td colspan=4 ${td} >   (Connect: ${f.connect}, Length: ${f.length}, Exceptions: ${f.exceptions})</td></tr>`)
  if (result.non2xxResponses) lines.push(row('Non-2xx responses', result.non2xxResponses))
  if (keepAlive) lines.push(row('Keep-Alive requests', result.keepAliveRequests))
  lines.push(row('Total transferred', `${result.totalTransferredBytes} bytes`))
  if (sendBody) lines.push(row('Total body sent', result.totalBodySentBytes))
  lines.push(row('HTML transferred', `${result.htmlTransferredBytes} bytes`))
  if (t > 0) {
    // the LoadResult's own rates (lib/load/stats.js rates()), as the text report prints them
    lines.push(row('Requests per second', printfFixed(result.requestsPerSecond, 2)),
      row('Transfer rate', `${printfFixed(result.transferRateKBps, 2)} kb/s received`))
    if (sendBody) {
      lines.push(`<tr ><td colspan=2 ${td}>&nbsp;</td><td colspan=2 ${td}>${printfFixed(result.totalBodySentBytes / 1024 / t, 2)} kb/s sent</td></tr>`,
        `<tr ><td colspan=2 ${td}>&nbsp;</td><td colspan=2 ${td}>${printfFixed((result.totalTransferredBytes + result.totalBodySentBytes) / 1024 / t, 2)} kb/s total</td></tr>`)
    }
  }
  if (done > 0) {
    const c = result.connectionTimes.connect
    const tt = result.connectionTimes.total
    // ab rounds the sums to ms before dividing them (integer division)
    const avgCon = Math.trunc(abRoundMs(c.mean * done) / done)
    const avgTot = Math.trunc(abRoundMs(tt.mean * done) / done)
    const cell = (/** @type {number} */ n) => `<td ${td}>${d(n, 5)}</td>`
    /** @param {string} label @param {number} a @param {number} b @param {number} e */
    const trow = (label, a, b, e) => `<tr ><th ${td}>${label}:</th>${cell(a)}${cell(b)}${cell(e)}</tr>`
    lines.push(`<tr ><th ${td} colspan=4>Connection Times (ms)</th></tr>`,
      `<tr ><th ${td}>&nbsp;</th> <th ${td}>min</th>   <th ${td}>avg</th>   <th ${td}>max</th></tr>`,
      trow('Connect', abRoundMs(c.min), avgCon, abRoundMs(c.max)),
      trow('Processing', abRoundMs(tt.min) - abRoundMs(c.min), avgTot - avgCon, abRoundMs(tt.max) - abRoundMs(c.max)),
      trow('Total', abRoundMs(tt.min), avgTot, abRoundMs(tt.max)))
  }
  lines.push('</table>')
  return lines.join('\n') + '\n'
}
