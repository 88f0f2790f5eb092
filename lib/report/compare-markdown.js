// `syncbench compare --format markdown`: the comparison as a pull request's comment or a GitHub job
// summary. The gate's decision is the first line; then a warning when the two sides ran on different
// machines, Node.js versions or transports; one table row per configuration (req/s, the ratio with its
// interval and p, the verdict, the latency quantiles that moved beyond their interval); then, collapsed
// under <details>, each configuration's latency quantiles with their bootstrap intervals and the
// server's own costs. The whole stays under GitHub's comment limit: past it the collapsed parts are
// cut, with a line saying what was left out. Plain markdown, so it also reads as text in a log.
import { bootstrapQuantileDifferences, BOOTSTRAP_RESAMPLES } from '../analysis/quantile-bootstrap.js'
import { SERVER_FIGURES, combineValues } from '../analysis/summarize.js'
import { describeLatencyCombine } from '../analysis/latency.js'
import { mean } from '../analysis/stats.js'
import { formatBytes } from '../format.js'
import { gateText, gateSummary, capacityGateSummary, blockingGateSummary, formatRatioInterval } from './compare-gate.js'
import { describeTransports, formatPValue } from './phrases.js'
import { renderMarkdownTable, mdText } from './markdown.js'

/** GitHub's limit on a comment's (and a job summary's) characters. */
export const COMMENT_LIMIT = 65536

/** The quantiles the summary compares, percent: the middle, the shoulder and the tail. */
export const SUMMARY_PERCENTS = Object.freeze([50, 90, 99, 99.9])

/** @typedef {ReturnType<typeof import('../analysis/summarize.js').compareResults>[number]} CompareRow */

/**
 * What every format of compare renders (lib/cli/compare.js builds it once).
 * @typedef {object} CompareReport
 * @property {{ file: string, results: import('../types.js').ResultsFile }} a
 * @property {{ file: string, results: import('../types.js').ResultsFile }} b
 * @property {{ a: string, b: string }} names   each side in words, as the tables' titles name them
 * @property {boolean} versions   one results file's --node binaries: a and b differ in Node.js by design
 * @property {CompareRow[]} rows
 * @property {import('../analysis/gate.js').GateResult|undefined} gate  --fail-if-slower's on req/s
 * @property {{ rows: import('../analysis/capacity.js').CapacityComparison[], goal: string, gate: import('../analysis/gate.js').GateResult|undefined }} capacity
 * @property {import('./kinds/scan.js').ScanChange[]} changes  two scans' routes
 * @property {boolean} failIfBlocking
 * @property {string[]} notes     the lines the text format prints under its tables, other than the gates'
 * @property {number} exitCode    what compare exits with
 * @property {number} failExit    the exit code of a failed gate
 */

/**
 * The gates' decision in one line: "**Failed**: gate --fail-if-slower 5%: failed (exit 3): ...", or
 * without a gate what changed at p < 0.05.
 * @param {CompareReport} report
 * @param {(QuantileCell[]|null)[]} quantiles  each row's, for the count of moved tails
 * @returns {string}
 */
export function decisionLine (report, quantiles) {
  const { word, text } = decision(report, quantiles)
  return `**${word}**${text}`
}

/**
 * The gates' decision: its first word ("Passed", "Failed", "No gate"), which a page sets in bold, and
 * the rest of its line.
 * @param {CompareReport} report
 * @param {(QuantileCell[]|null)[]} quantiles  each row's, for the count of moved tails
 * @returns {{ word: string, text: string }}
 */
export function decision (report, quantiles) {
  const { rows, gate, capacity, failExit } = report
  const lines = [
    gate ? gateSummary(gate, rows, failExit) : null,
    capacity.gate ? capacityGateSummary(capacity.gate, capacity.rows, capacity.goal, failExit) : null,
    report.failIfBlocking ? blockingGateSummary(report.changes, failExit) : null
  ].filter((x) => x !== null)
  if (lines.length) return { word: report.exitCode === 0 ? 'Passed' : 'Failed', text: `: ${lines.join('; ')}` }
  const slower = rows.filter((r) => r.test.p < 0.05 && r.change < 0).length
  const faster = rows.filter((r) => r.test.p < 0.05 && r.change > 0).length
  const tails = quantiles.filter((q) => q?.some((c) => c.moved > 0)).length
  const n = rows.length
  return {
    word: 'No gate',
    text: ` (no --fail-if-slower): ${n} configuration${n === 1 ? '' : 's'} compared: ${slower} slower and ${faster} faster at p < 0.05; ` +
      `${tails} with a latency quantile worse beyond its interval`
  }
}

/**
 * Lines that warn the two sides are not like for like: another machine, Node.js version or transport.
 * @param {CompareReport} report
 * @returns {string[]}
 */
export function environmentWarnings (report) {
  return environmentDifferences(report).map((w) => `> **Warning**: ${w}.`)
}

/**
 * How the two sides' machines, Node.js versions or transports differ, a phrase each.
 * @param {CompareReport} report
 * @returns {string[]}
 */
export function environmentDifferences ({ a, b, versions }) {
  const [ea, eb] = [a.results.environment, b.results.environment]
  const out = []
  const machine = (/** @type {import('../types.js').Environment} */ e) => `${e.cpuModel}, ${e.cpuCount} CPU${e.cpuCount === 1 ? '' : 's'}`
  if (ea && eb && machine(ea) !== machine(eb)) {
    out.push(`different machines: a ran on ${machine(ea)}, b on ${machine(eb)}; the machines alone can explain a difference`)
  }
  if (!versions && ea && eb && ea.node !== eb.node) {
    out.push(`different Node.js versions: a ran on ${ea.node}, b on ${eb.node}; the change may be Node.js's, not the code's`)
  }
  const [ta, tb] = [describeTransports(a.results), describeTransports(b.results)]
  if (ta !== null && tb !== null && ta !== tb) {
    out.push(`different transports: a's load went through ${ta}, b's through ${tb}; their CPU per request differs`)
  }
  return out
}

/**
 * One quantile of a configuration, both sides, and b - a with its interval across runs.
 * @typedef {object} QuantileCell
 * @property {string} label     'p99.9'
 * @property {{ ms: number, isMax: boolean }} a
 * @property {{ ms: number, isMax: boolean }} b
 * @property {number} diff      b - a, ms
 * @property {number|null} low  95% bootstrap interval of b - a, ms; null without one
 * @property {number|null} high
 * @property {-1|0|1} moved     1: worse beyond the interval (low > 0), -1: better (high < 0), 0: within it or no interval
 */

/**
 * A configuration's quantiles: null when a side recorded no latency.
 * @param {CompareRow} row
 * @param {{ resamples?: number, percents?: readonly number[] }} [options]  percents: those compared
 *        (default SUMMARY_PERCENTS), each where both sides measured it
 * @returns {QuantileCell[]|null}
 */
export function quantileCells (row, { percents: wanted = SUMMARY_PERCENTS, ...options } = {}) {
  const [la, lb] = [row.latency.a, row.latency.b]
  if (la === null || lb === null) return null
  const percents = wanted.filter((p) => la.percentiles.some((q) => q.p === p) && lb.percentiles.some((q) => q.p === p))
  const intervals = bootstrapQuantileDifferences(row.runs.a, row.runs.b, percents, options)
  return percents.map((p, i) => {
    const qa = /** @type {import('../analysis/latency.js').LatencyPercentile} */ (la.percentiles.find((q) => q.p === p))
    const qb = /** @type {import('../analysis/latency.js').LatencyPercentile} */ (lb.percentiles.find((q) => q.p === p))
    // a quantile read as the maximum (too few requests for it) has no interval worth giving
    const interval = intervals && !qa.isMax && !qb.isMax ? intervals[i] : null
    const moved = interval === null ? 0 : interval.low > 0 ? 1 : interval.high < 0 ? -1 : 0
    return { label: qa.label, a: qa, b: qb, diff: qb.ms - qa.ms, low: interval?.low ?? null, high: interval?.high ?? null, moved }
  })
}

/**
 * A configuration's quantiles as a table: each side's, b - a, its interval and whether it moved.
 * @param {QuantileCell[]} cells
 * @param {string} [title]
 * @returns {import('./tables.js').Table}
 */
export function quantileTable (cells, title = '') {
  return {
    title,
    columns: ['quantile', 'a ms', 'b ms', 'b - a ms', '95% interval of b - a', 'change'],
    align: ['left', 'right', 'right', 'right', 'right', 'left'],
    rows: cells.map((c) => [c.label, quantileMs(c.a), quantileMs(c.b), signedMs(c.diff),
      c.low === null || c.high === null ? '' : `${signedMs(c.low)}..${signedMs(c.high)}`,
      c.moved > 0 ? 'worse' : c.moved < 0 ? 'better' : c.low === null ? 'no interval' : 'within noise'])
  }
}

/** @typedef {{ label: string, a: number, b: number, format: (x: number) => string }} CostCell */

/**
 * The server's own costs of a configuration, each side's; null when a side's runs have no server
 * metrics (a server syncbench did not start, a mix's route).
 * @param {CompareRow} row
 * @returns {CostCell[]|null}
 */
export function serverCosts (row) {
  const metrics = (/** @type {CompareRow['runs']['a']} */ runs) => runs.flatMap((r) => r.server ? [{ server: r.server, load: r.load }] : [])
  const [ma, mb] = [metrics(row.runs.a), metrics(row.runs.b)]
  if (ma.length === 0 || mb.length === 0) return null
  /** @param {typeof ma} m */
  const cpuPerRequest = (m) => mean(m.filter((x) => x.load.completeRequests > 0).map((x) => (x.server.cpu.userMs + x.server.cpu.systemMs) / x.load.completeRequests))
  /** @param {keyof typeof SERVER_FIGURES} key @param {typeof ma} m */
  const figure = (key, m) => combineValues(SERVER_FIGURES[key].combine, m.map((x) => SERVER_FIGURES[key].of(x.server)))
  return [
    { label: 'event-loop delay p99', a: figure('loopP99', ma), b: figure('loopP99', mb), format: (x) => `${x.toFixed(2)} ms` },
    { label: 'CPU per request', a: cpuPerRequest(ma), b: cpuPerRequest(mb), format: (x) => `${x.toFixed(3)} ms` },
    { label: 'peak RSS', a: figure('peakRssBytes', ma), b: figure('peakRssBytes', mb), format: formatBytes }
  ]
}

/** How serverCostTable's figures combine the runs'. */
export const SERVER_COSTS_RULE = 'Loop p99: the mean of the runs\'; CPU per request: the server\'s user + system CPU time over the ' +
  'requests completed, the mean of the runs\'; peak RSS: the largest of the runs\'.'

/**
 * The server's own costs of every configuration whose runs have them, a row each: each side's and the
 * change; null when none has.
 * @param {CompareRow[]} rows
 * @param {string} [title]
 * @returns {import('./tables.js').Table|null}
 */
export function serverCostTable (rows, title = '') {
  const body = rows.flatMap((r) => {
    const cells = serverCosts(r)
    return cells === null ? [] : [[`${r.experiment} ${r.label}`, ...cells.flatMap((c) => [c.format(c.a), c.format(c.b), signedPercent(c.b / c.a - 1)])]]
  })
  if (body.length === 0) return null
  const columns = ['Configuration', 'loop p99 a', 'loop p99 b', 'change', 'CPU/request a', 'CPU/request b', 'change', 'peak RSS a', 'peak RSS b', 'change']
  return { title, columns, align: columns.map((_, i) => i === 0 ? /** @type {const} */ ('left') : 'right'), rows: body }
}

/** "+5.00%", "-19.98%"; '' when undefined. @param {number} x */
function signedPercent (x) {
  return Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%` : ''
}

/** "+1.250", "-0.400": a difference of ms. @param {number} x */
function signedMs (x) {
  return `${x >= 0 ? '+' : ''}${x.toFixed(3)}`
}

/** "12.500", "12.500 (max)". @param {{ ms: number, isMax: boolean }} q */
function quantileMs (q) {
  return `${q.ms.toFixed(3)}${q.isMax ? ' (max)' : ''}`
}

/**
 * The verdict cell: the gate's words with --fail-if-slower, else what the test says.
 * @param {CompareRow|import('../analysis/capacity.js').CapacityComparison} row
 * @param {import('../analysis/gate.js').GateResult|undefined} gate
 * @param {number} i the row's index in the gate's decisions
 * @param {'runs'|'capacities'} noun
 */
function verdictCell (row, gate, i, noun) {
  if (gate) return gateText(gate.decisions[i], row, gate.threshold, noun)
  if (!(row.test.p >= 0)) return `no p-value: too few ${noun}`
  if (row.test.p >= 0.05) return 'no significant change'
  return row.change < 0 ? 'slower (p < 0.05)' : 'faster (p < 0.05)'
}

/**
 * The latency cell of the main table: the quantiles that moved beyond their interval, "p99 +12.300 ms".
 * @param {QuantileCell[]|null} cells
 */
function latencyCell (cells) {
  if (cells === null) return ''
  if (cells.every((c) => c.low === null)) return 'no interval'
  const moved = cells.filter((c) => c.moved !== 0)
  return moved.length ? moved.map((c) => `${c.label} ${signedMs(c.diff)} ms`).join(', ') : 'within noise'
}

/** The ratio cell: "1.023x (0.990x..1.050x)". @param {{ ratio: number, low: number, high: number }} ratio */
function ratioCell (ratio) {
  if (!Number.isFinite(ratio.ratio)) return ''
  const ci = formatRatioInterval(ratio)
  return `${ratio.ratio.toFixed(3)}x${ci ? ` (${ci})` : ''}`
}

/**
 * A part of the summary that can be cut item by item when the whole would pass the limit.
 * @typedef {object} Block
 * @property {string} open    before the items (a table's header, "<details>...")
 * @property {string[]} items
 * @property {string} close   after them
 * @property {(left: number, of: number) => string} leftOut  the line that replaces the items cut
 */

/**
 * The summary as markdown.
 * @param {CompareReport} report
 * @param {{ limit?: number, resamples?: number }} [options]  limit: the most characters (GitHub's
 *        comment limit); resamples: the bootstrap's (tests use fewer)
 * @returns {string}
 */
export function compareMarkdown (report, { limit = COMMENT_LIMIT, resamples } = {}) {
  const { rows, gate, capacity } = report
  const quantiles = rows.map((r) => quantileCells(r, resamples === undefined ? {} : { resamples }))
  // a blank line between paragraphs, and before the table (GitHub would read it as the paragraph's text)
  const head = [
    decisionLine(report, quantiles),
    // two spaces: a line break within the paragraph
    `${mdText(`a: ${report.names.a}`)}  \n${mdText(`b: ${report.names.b}`)}`,
    ...environmentWarnings(report).map(mdText)
  ].join('\n\n') + '\n\n'

  const main = renderMarkdownTable({
    title: '',
    columns: ['Configuration', 'a req/s', 'b req/s', 'b / a (95% CI)', 'p', 'verdict', 'latency beyond noise (b - a)'],
    align: ['left', 'right', 'right', 'right', 'right', 'left', 'left'],
    rows: [
      ...rows.map((r, i) => [`${r.experiment} ${r.label}`, r.a.mean.toFixed(2), r.b.mean.toFixed(2), ratioCell(r.ratio),
        `${formatPValue(r.test.p)} ${r.test.stars}`.trim(), verdictCell(r, gate, i, 'runs'), latencyCell(quantiles[i])]),
      ...capacity.rows.map((r, i) => [`${r.experiment} ${r.label} capacity at ${capacity.goal}`,
        r.a.n ? r.a.interval.geometricMean.toFixed(2) : 'none', r.b.n ? r.b.interval.geometricMean.toFixed(2) : 'none',
        ratioCell(r.ratio), `${formatPValue(r.test.p)} ${r.test.stars}`.trim(), verdictCell(r, capacity.gate, i, 'capacities'), ''])
    ]
  }).split('\n').filter(Boolean)
  /** @type {Block[]} */
  const blocks = [{
    open: main.slice(0, 2).join('\n') + '\n',
    items: main.slice(2).map((line) => line + '\n'),
    close: '',
    leftOut: (left, of) => `\n(${left} of ${of} rows left out: GitHub's comment limit is ${COMMENT_LIMIT} characters; syncbench compare prints them all as text)\n`
  }]

  const latency = rows.flatMap((r, i) => {
    const cells = quantiles[i]
    if (cells === null) return []
    const how = [describeLatencyCombine(/** @type {import('../analysis/latency.js').LatencySummary} */ (r.latency.a)),
      describeLatencyCombine(/** @type {import('../analysis/latency.js').LatencySummary} */ (r.latency.b))]
    const table = renderMarkdownTable(quantileTable(cells))
    return [`**${mdText(`${r.experiment} ${r.label}`)}** (a: ${how[0]}; b: ${how[1]})\n\n${table}\n`]
  })
  if (latency.length) {
    blocks.push({
      open: '<details><summary>Latency quantiles (ms), b - a with a 95% interval across runs</summary>\n\n' +
        `Each interval is a bootstrap over runs: both sides' runs resampled with replacement ${resamples ?? BOOTSTRAP_RESAMPLES} times ` +
        '(seeded), each quantile read from the resampled runs\' merged histograms (docs/ci.md). ' +
        'Three runs a side are needed for one.\n\n',
      items: latency,
      close: '</details>\n',
      leftOut: (left, of) => `(${left} of ${of} configurations left out: GitHub's comment limit is ${COMMENT_LIMIT} characters)\n\n`
    })
  }

  const costTable = serverCostTable(rows)
  if (costTable) {
    const [header, rule, ...costs] = renderMarkdownTable(costTable).split('\n').filter(Boolean)
    blocks.push({
      open: '<details><summary>The server\'s own costs: event-loop delay p99, CPU per request, peak RSS</summary>\n\n' +
        `${SERVER_COSTS_RULE}\n\n${header}\n${rule}\n`,
      items: costs.map((line) => line + '\n'),
      close: '\n</details>\n',
      leftOut: (left, of) => `\n(${left} of ${of} configurations left out: GitHub's comment limit is ${COMMENT_LIMIT} characters)\n`
    })
  }

  const notes = report.notes.length ? '\n' + report.notes.map((n) => mdText(n) + '\n').join('') : ''
  return head + fitBlocks(blocks, limit - head.length - notes.length) + notes
}

/**
 * The blocks, separated by blank lines, in at most `budget` characters: items are kept in order while
 * they fit (with room kept for the lines that say what was left out), then each block's rest is
 * replaced by its leftOut line.
 * @param {Block[]} blocks
 * @param {number} budget
 * @returns {string}
 */
function fitBlocks (blocks, budget) {
  const whole = blocks.map((b) => b.open + b.items.join('') + b.close).join('\n')
  if (whole.length <= budget) return whole
  // the room a block's leftOut line can take, kept for every block that may need one
  const reserve = (/** @type {Block} */ b) => b.leftOut(b.items.length, b.items.length).length
  let room = budget - blocks.reduce((n, b) => n + b.open.length + b.close.length + reserve(b) + 1, 0)
  const out = []
  let full = false
  for (const block of blocks) {
    let text = block.open
    let kept = 0
    for (const item of block.items) {
      if (full || item.length > room) { full = true; break }
      text += item
      room -= item.length
      kept++
    }
    if (kept < block.items.length) text += block.leftOut(block.items.length - kept, block.items.length)
    out.push(text + block.close)
  }
  return out.join('\n')
}
