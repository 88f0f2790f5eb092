// The scan kind (`table: 'scan'`, `syncbench scan`: every route of a user's app loaded alone, one
// configuration per route, labelled with its key "GET /users/:id"; experiments[].scan holds the plan).
// Its table ranks the routes by what each did to everyone else while it was loaded: the event loop's
// p99 and max delay, the share of the window the loop was late past the blocking threshold, the main
// thread's CPU per request; beside them req/s, latency p99, heap and RSS growth over the load (a leak
// signal) and errors, with each route's line. Routes whose every run is invalid (non-2xx, crashed, cut)
// follow the measured ones, never ranked; the skipped routes follow in a table of their own with the
// flag that would send them. Its verdict says which routes hold the loop, which do not, which were
// skipped; its chart ranks the routes by loop p99; "where the event loop went" (and report.html's
// flame graphs) show the blocking routes only, most blocking first.
//
// The rule: a route holds the event loop when its loop p99 passes BLOCKING_DELAY_MS (20 ms, the
// threshold of lib/lab/loop-blocks.js: a tick later than that is a span of held loop). The p99 rather
// than the max: one late tick (the machine's scheduler on a shared core, a major GC) is not the route's
// habit, and the rule also decides compare's gate (compareScans), which must not flip on one tick. A
// route that blocks rarely but long stays visible: its loop max and late share are in the table and
// rank it first among the routes that do not hold the loop.
import { BLOCKING_DELAY_MS } from '../../lab/loop-blocks.js'
import { heldShare, summarizeExperiments } from '../../analysis/summarize.js'
import { callText, lateShareOf } from '../event-loop.js'
import { formatMs, REFERENCE_COLOR, INK, WIDTH } from '../chart-style.js'
import { joinTitle, shortTitle } from '../chart-data.js'
import { invalidCell } from '../phrases.js'
import { MIB } from '../../format.js'
import { generic } from './generic.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */
/** @typedef {import('../../types.js').PlannedRoute} PlannedRoute */

/** @type {import('../kinds.js').ExperimentKind} */
export const scan = {
  ...generic,
  name: 'scan',
  table: scanTables,
  verdict: scanVerdict,
  // the ranked table has the latency p99 and the server's figures
  latencyTable: false,
  serverTable: false,
  textChart: false,
  wholeCharts: true,
  charts: (ctx, kit) => [rankedChart(ctx, kit), kit.probeChart(ctx)],
  loopRows: (s) => rankRoutes(s).filter((f) => f.blocks).map((f) => f.row)
}

/**
 * One route's figures, as the table, the verdict, the chart and compare read them.
 * @typedef {object} RouteFigures
 * @property {Row} row
 * @property {PlannedRoute|null} route      its plan (null: a file without experiments[].scan)
 * @property {boolean} measured             some run of it is valid
 * @property {boolean} blocks               its loop p99 passes BLOCKING_DELAY_MS
 * @property {number|null} loopP99          ms, mean of its runs (null: no server metrics)
 * @property {number|null} loopMax          ms, max of its runs
 * @property {number|null} late             the share of its windows the loop was late past the threshold
 * @property {number|null} cpuMsPerRequest  main-thread CPU ms per request (the process's where the main thread's is unknown)
 * @property {number|null} p99Ms            latency p99 of its runs' merged histograms
 * @property {number|null} heapGrowthBytes  heap used at the window's end minus at its start, mean of runs (null: files from before)
 * @property {number|null} rssGrowthBytes   the same of the RSS
 * @property {number} errors                failed requests and non-2xx responses in its valid runs (--allow-errors counts them)
 * @property {string} line                  where it lives: its declared file:line, else the profile's first call from the app's code
 * @property {import('../../types.js').ProfileEntry|null} call  the profile's first call from the app's code
 */

/**
 * Whether a loop p99 holds the event loop by the rule above.
 * @param {number|null|undefined} loopP99Ms
 */
export function holdsLoop (loopP99Ms) {
  return typeof loopP99Ms === 'number' && loopP99Ms > BLOCKING_DELAY_MS
}

/**
 * @param {Row} r
 * @param {PlannedRoute|null} route
 * @returns {RouteFigures}
 */
function figuresOf (r, route) {
  const servers = r.runs.flatMap((run) => run.server ? [run.server] : [])
  const requests = servers.reduce((n, s) => n + s.requests, 0)
  const cpuMs = servers.reduce((n, s) => n + (s.mainThreadCpuMs ?? s.cpu.userMs + s.cpu.systemMs), 0)
  /** @param {(m: import('../../types.js').ServerMetrics['memory']) => number|undefined} pick */
  const growth = (pick) => {
    const values = servers.flatMap((s) => {
      const v = pick(s.memory)
      return typeof v === 'number' && Number.isFinite(v) ? [v] : []
    })
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
  }
  const call = r.profile?.self.find((e) => e.caller?.line !== undefined) ?? null
  const callLine = call?.caller ? `${call.caller.location.replace(/:\d+$/, '')}:${call.caller.line}` : ''
  const loopP99 = r.server ? r.server.loopP99 : null
  const p99 = r.latency?.percentiles.find((q) => q.key === 'p99')
  return {
    row: r,
    route,
    measured: r.runs.length > 0,
    blocks: r.runs.length > 0 && holdsLoop(loopP99),
    loopP99,
    loopMax: r.server ? r.server.loopMax : null,
    late: r.runs.length ? lateShareOf(heldShare(r.runs), r.profile) : null,
    cpuMsPerRequest: requests > 0 ? cpuMs / requests : null,
    p99Ms: p99 ? p99.ms : null,
    heapGrowthBytes: growth((m) => m.startHeapUsedBytes === undefined ? undefined : m.heapUsedBytes - m.startHeapUsedBytes),
    rssGrowthBytes: growth((m) => m.startRssBytes === undefined ? undefined : m.rssBytes - m.startRssBytes),
    errors: r.runs.reduce((n, run) => n + run.load.failedRequests + run.load.non2xxResponses, 0),
    line: route?.declared ? `${route.declared.file}:${route.declared.line}` : callLine,
    call
  }
}

/** A share as the table and the verdict print it: whole percents, tenths below 10%. @param {number} share */
const percent = (share) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`

/**
 * The routes with a run: measured, or whose every run is invalid, crashed or was cut (the tables'
 * rows leave out the last two: a route the scan tried is never left out).
 * @param {ExperimentSummary} s
 */
function triedRows (s) {
  return s.rows.filter((r) => r.runs.length > 0 || r.failed > 0)
}

/**
 * The routes tried, most blocking first: those that hold the loop, then by the loop's p99 (how long
 * every other request waits behind the route: a share of the window late saturates at 100% for every
 * route that holds the loop, and on a machine busy with other work for a cheap one too), the share of
 * the window it was late (as printed), its max, the CPU per request; the routes with no valid run after
 * them all, in plan order.
 * @param {ExperimentSummary} s
 * @returns {RouteFigures[]}
 */
export function rankRoutes (s) {
  const rows = triedRows(s)
  const plan = new Map((s.scan?.routes ?? []).map((route) => [route.key, route]))
  const all = rows.map((r) => figuresOf(r, plan.get(r.label) ?? null))
  /** @param {number|null} x */
  const n = (x) => x ?? -1
  const key = (/** @type {RouteFigures} */ f) => [f.blocks ? 1 : 0, n(f.loopP99), f.late === null ? -1 : Number((f.late * 100).toFixed(f.late < 0.1 ? 1 : 0)), n(f.loopMax), n(f.cpuMsPerRequest)]
  const measured = all.filter((f) => f.measured).sort((a, b) => {
    const [ka, kb] = [key(a), key(b)]
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i]
    return 0
  })
  return [...measured, ...all.filter((f) => !f.measured)]
}

/** @param {number|null} x @param {number} digits */
const fixed = (x, digits) => x === null ? '' : x.toFixed(digits)

/** A growth in MiB with its sign, '-' where the file has no start. @param {number|null} bytes */
const growthText = (bytes) => bytes === null ? '-' : `${bytes >= 0 ? '+' : ''}${(bytes / MIB).toFixed(1)}`

/**
 * Why a route has no valid run: "invalid: 200 of 200 non-2xx: 404 x200", "1 run failed (crashed, cut
 * or interrupted)", or both.
 * @param {Row} r
 */
function notMeasured (r) {
  const failed = r.failed - r.invalid.length
  return [r.invalid.length ? invalidCell(r) : '', failed > 0 ? `${failed} run${failed === 1 ? '' : 's'} failed (crashed, cut or interrupted)` : ''].filter(Boolean).join('; ')
}

/**
 * The ranked table (every route tried: the rows the tables pass leave out those whose runs all
 * failed), then the skipped routes, then what discovery found.
 * @param {ExperimentSummary} s
 * @returns {import('../tables.js').Table[]}
 */
function scanTables (s) {
  const ranked = rankRoutes(s)
  const body = ranked.map((f, i) => f.measured
    ? [String(i + 1), f.row.label, f.blocks ? 'yes' : 'no', fixed(f.loopP99, 1), fixed(f.loopMax, 1), f.late === null ? '' : percent(f.late),
        fixed(f.cpuMsPerRequest, 2), f.row.figures.requestsPerSecond.mean.toFixed(1), fixed(f.p99Ms, 1), growthText(f.heapGrowthBytes), growthText(f.rssGrowthBytes),
        errorsText(f), f.line]
    : ['-', f.row.label, 'not measured', '', '', '', '', '', '', '', '', notMeasured(f.row), f.line])
  const columns = ['#', 'Route', 'holds the loop', 'loop p99 ms', 'loop max ms', 'late', 'CPU ms/req', 'req/s', 'p99 ms', 'heap growth MiB', 'RSS growth MiB', 'errors', 'line']
  /** @type {import('../tables.js').Table[]} */
  const tables = [{
    title: `${s.name}: routes, most blocking first (each loaded alone)`,
    columns,
    align: columns.map((c) => ['Route', 'holds the loop', 'errors', 'line'].includes(c) ? 'left' : 'right'),
    rows: body,
    short: ['#', 'Route', 'holds', 'loop p99', 'loop max', 'late', 'CPU/req', 'req/s', 'p99', 'heap +', 'RSS +', 'errors', 'line'],
    // the figures of the loop first; a terminal too narrow splits before the memory
    parts: columns.map((c) => c === 'heap growth MiB'),
    note: `loop p99, max: event-loop delay while the route was loaded, ms; late: share of the window the loop was late past ${BLOCKING_DELAY_MS} ms; ` +
      'CPU/req: main-thread CPU ms per request (the process\'s off Linux); p99: latency, ms; heap +, RSS +: growth over the load, MiB (a leak grows them); ' +
      `a route holds the loop when its loop p99 passes ${BLOCKING_DELAY_MS} ms; line: where it was declared, else its first call in the profile.`
  }]
  const skipped = skippedRoutes(s)
  if (skipped.length) {
    tables.push({
      title: `${s.name}: routes not sent`,
      columns: ['Route', 'why', 'to send it', 'line'],
      align: ['left', 'left', 'left', 'left'],
      rows: skipped.map((route) => [route.key, route.skipped?.reason ?? '', route.skipped?.flag ?? '', route.declared ? `${route.declared.file}:${route.declared.line}` : '']),
      // a terminal shows the flag to copy, whole (the verdict under it says why, wrapped); summary.md and
      // report.html show why and the line too
      hidden: [false, true, false, true]
    })
  }
  if (s.scan) tables.push({ title: `${s.name}: ${discoveryText(s.scan)}`, columns: [], align: [], rows: [] })
  return tables
}

/**
 * "routes read in the app's process from express 5.1.0; budget 90 s; ...notes": what discovery found.
 * @param {import('../../types.js').ScanInfo} scan
 */
function discoveryText ({ frameworks, tried, notes, budgetMs }) {
  const found = frameworks.length
    ? `routes read in the app's process from ${frameworks.map((f) => `${f.name} ${f.version}`).join(', ')}`
    : `no framework's routes read in the app's process${tried.length ? ` (tried ${tried.join(', ')})` : ''}`
  return [found, `budget ${formatMs(budgetMs)}`, ...notes].join('; ')
}

/**
 * "0", "3", "3; 1 invalid run": a measured route's errors.
 * @param {RouteFigures} f
 */
function errorsText (f) {
  const invalid = f.row.invalid.length
  return `${f.errors}${invalid ? `; ${invalid} invalid run${invalid === 1 ? '' : 's'}` : ''}`
}

/**
 * The routes of the plan that were not sent.
 * @param {Pick<ExperimentSummary, 'scan'>} s
 * @returns {PlannedRoute[]}
 */
function skippedRoutes (s) {
  return (s.scan?.routes ?? []).filter((route) => route.skipped !== null)
}

/**
 * "pbkdf2Sync (node:crypto)", or the function of the app's own code that held the loop; '' when the
 * profile names none.
 * @param {import('../../types.js').ProfileEntry|null} call
 */
function callName (call) {
  if (!call) return ''
  if (call.entry) return `${call.entry.name} (${call.entry.package})`
  return call.caller && call.caller.name !== '(anonymous)' ? call.caller.name : ''
}

/**
 * "GET /report at shop.js:23 (JSON.stringify from shop.js:25): loop p99 84 ms, max 120 ms, late 40% of
 * the window".
 * @param {RouteFigures} f
 */
function blockingClause (f) {
  const at = f.line ? ` at ${f.line}` : ''
  // the call's own line where it differs from the route's
  const call = f.call ? (f.route?.declared && !f.line.endsWith(`:${f.call.caller?.line}`) ? callText(f.call) : callName(f.call)) : ''
  const figures = [`loop p99 ${formatMs(f.loopP99 ?? 0)}`, f.loopMax === null ? '' : `max ${formatMs(f.loopMax)}`, f.late === null ? '' : `late ${percent(f.late)} of the window`].filter(Boolean)
  return `${f.row.label}${at}${call ? ` (${call})` : ''}: ${figures.join(', ')}`
}

/**
 * ["scan: 3 of 9 routes hold the event loop (loop p99 past 20 ms): GET /report at shop.js:23 (...): loop
 * p99 84 ms, ...", "5 do not (loop p99 at most 4.1 ms)", "1 skipped: GET /users/:id (needs :id:
 * --param id=VALUE)", "1 not measured, no valid run: GET /admin (200 of 200 non-2xx: 401 x200)"]
 * @param {ExperimentSummary} s
 * @returns {string[]}
 */
export function scanVerdict (s) {
  const ranked = rankRoutes(s)
  const skipped = skippedRoutes(s)
  // the plan's routes, or (a file without one) the configurations
  const total = s.scan ? Math.max(s.scan.routes.length, ranked.length + skipped.length) : s.rows.length
  const routes = (/** @type {number} */ n) => `${n} route${n === 1 ? '' : 's'}`
  const blocking = ranked.filter((f) => f.blocks)
  const clear = ranked.filter((f) => f.measured && !f.blocks)
  const invalid = ranked.filter((f) => !f.measured)
  const rule = `loop p99 past ${BLOCKING_DELAY_MS} ms`
  const parts = [blocking.length
    ? `${s.name}: ${blocking.length} of ${routes(total)} ${blocking.length === 1 ? 'holds' : 'hold'} the event loop (${rule}): ${blocking.map(blockingClause).join('; ')}`
    : `${s.name}: none of ${routes(total)} holds the event loop (${rule})`]
  if (clear.length) {
    const worst = Math.max(...clear.map((f) => f.loopP99 ?? 0))
    const subject = blocking.length ? `${clear.length}` : `${clear.length} measured`
    parts.push(`${subject} ${clear.length === 1 ? 'does' : 'do'} not hold it (loop p99 at most ${formatMs(worst)})`)
  }
  if (invalid.length) {
    const why = (/** @type {Row} */ r) => notMeasured(r).replace(/^invalid: /, '')
    parts.push(`${invalid.length} not measured, no valid run: ${invalid.map((f) => `${f.row.label} (${why(f.row)})`).join(', ')}`)
  }
  if (skipped.length) {
    parts.push(`${skipped.length} skipped: ${skipped.map((route) => `${route.key} (${[route.skipped?.reason, route.skipped?.flag].filter(Boolean).join(': ')})`).join(', ')}`)
  }
  return parts
}

/**
 * The routes ranked by loop p99, a bar each, those that hold the loop in red, the 20 ms rule a dashed
 * line; each bar's p99 and late share printed beside it.
 * @param {import('../charts.js').ChartContext} ctx
 * @param {import('../charts.js').ChartKit} kit
 * @returns {import('../charts.js').Drawing|null}
 */
function rankedChart (ctx, { Plot }) {
  if (!ctx.summary) return null
  const data = rankRoutes(ctx.summary).filter((f) => f.measured && f.loopP99 !== null).map((f) => ({
    route: f.row.label,
    p99: /** @type {number} */ (f.loopP99),
    blocks: f.blocks,
    text: `${formatMs(/** @type {number} */ (f.loopP99))}${f.late ? `, late ${percent(f.late)}` : ''}`
  }))
  if (data.length === 0) return null
  const names = data.map((d) => d.route)
  const longest = Math.max(...names.map((n) => n.length))
  return (width = WIDTH) => {
    const marginLeft = Math.min(width * 0.4, 16 + longest * 7.2)
    const top = Math.max(BLOCKING_DELAY_MS, ...data.map((d) => d.p99))
    // room right of the longest bar for its printed figures (about 7 px a character)
    const room = Math.min(0.6, (Math.max(...data.map((d) => d.text.length)) * 7 + 12) / (width - marginLeft - 24))
    return {
      id: `${ctx.id}-routes`,
      experiment: ctx.name,
      kind: 'scan',
      title: joinTitle(shortTitle(ctx.experiment), 'routes by event-loop delay'),
      subtitle: `The event loop's p99 delay while each route was loaded alone, most blocking first; red: the route holds the loop (its p99 past ${BLOCKING_DELAY_MS} ms, dashed).`,
      note: ctx.note,
      plot: {
        width,
        height: 56 + names.length * 30,
        marginLeft,
        marginRight: 24,
        marginBottom: 40,
        x: { domain: [0, top / (1 - room)], grid: true, label: 'loop p99 (ms) →', labelAnchor: 'center' },
        y: { domain: names, label: null, tickSize: 0, padding: 0.2 },
        marks: [
          Plot.ruleX([0], { stroke: INK, strokeOpacity: 0.5 }),
          Plot.barX(data, { y: 'route', x: 'p99', fill: (d) => d.blocks ? '#d62728' : '#9aa5b1', insetTop: 3, insetBottom: 3, title: (d) => `${d.route}: ${d.text}` }),
          Plot.ruleX([BLOCKING_DELAY_MS], { stroke: REFERENCE_COLOR, strokeDasharray: '6,4', strokeWidth: 1.5 }),
          Plot.text(data, { y: 'route', x: 'p99', text: 'text', textAnchor: 'start', dx: 6, fill: INK, fontSize: 12, stroke: 'white', strokeWidth: 4, paintOrder: 'stroke' })
        ]
      }
    }
  }
}

/**
 * One route of two scans compared: whether it holds the loop on each side.
 * @typedef {object} ScanChange
 * @property {string} experiment
 * @property {string} label
 * @property {'started'|'stopped'|'still'|'clear'|'only-a'|'only-b'} change
 *   started: holds the loop in b, not in a (fails compare --fail-if-blocking); stopped: the reverse;
 *   still / clear: holds it on both sides / on neither; only-a / only-b: measured on one side only
 * @property {number|null} a  loop p99 ms in a (null: not measured there)
 * @property {number|null} b
 */

/**
 * The routes of the scans two results files hold (experiments of table 'scan' by name), matched by key:
 * those measured validly on both sides, then those measured on one side only; [] when neither holds a scan.
 * @param {import('../../types.js').ResultsFile} a
 * @param {import('../../types.js').ResultsFile} b
 * @returns {ScanChange[]}
 */
export function compareScans (a, b) {
  const scans = (/** @type {import('../../types.js').ResultsFile} */ r) => new Map(summarizeExperiments(r).filter((s) => s.table === 'scan').map((s) => [s.name, s]))
  const [sa, sb] = [scans(a), scans(b)]
  /** @type {ScanChange[]} */
  const out = []
  for (const [name, ea] of sa) {
    const eb = sb.get(name)
    if (!eb) continue
    const measured = (/** @type {ExperimentSummary} */ s) => new Map(rankRoutes(s).filter((f) => f.measured).map((f) => [f.row.label, f]))
    const [ma, mb] = [measured(ea), measured(eb)]
    for (const [label, fa] of ma) {
      const fb = mb.get(label)
      if (!fb) {
        out.push({ experiment: name, label, change: 'only-a', a: fa.loopP99, b: null })
        continue
      }
      const change = fb.blocks ? (fa.blocks ? 'still' : 'started') : fa.blocks ? 'stopped' : 'clear'
      out.push({ experiment: name, label, change, a: fa.loopP99, b: fb.loopP99 })
    }
    for (const [label, fb] of mb) if (!ma.has(label)) out.push({ experiment: name, label, change: 'only-b', a: null, b: fb.loopP99 })
  }
  return out
}

/**
 * compare's lines of two scans: "GET /report started blocking: loop p99 3.1 ms -> 84 ms", "... stopped
 * blocking: ...", the routes measured on one side only; [] when nothing changed.
 * @param {ScanChange[]} changes
 * @returns {string[]}
 */
export function scanChangeLines (changes) {
  const ms = (/** @type {number|null} */ x) => x === null ? '?' : formatMs(x)
  const lines = []
  for (const c of changes) {
    if (c.change === 'started') lines.push(`${c.label} started blocking: loop p99 ${ms(c.a)} -> ${ms(c.b)} (past ${BLOCKING_DELAY_MS} ms)`)
    if (c.change === 'stopped') lines.push(`${c.label} stopped blocking: loop p99 ${ms(c.a)} -> ${ms(c.b)}`)
  }
  const only = (/** @type {'only-a'|'only-b'} */ side) => changes.filter((c) => c.change === side).map((c) => c.label)
  if (only('only-a').length) lines.push(`measured in a only: ${only('only-a').join(', ')}`)
  if (only('only-b').length) lines.push(`measured in b only: ${only('only-b').join(', ')}`)
  return lines
}
