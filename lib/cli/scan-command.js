// syncbench scan: every route of a user's app, each loaded alone, ranked by what it does to the event
// loop. The routes come from the app's own process (lib/scan/discover.js: the preload reads the
// framework's route table), from documents (--openapi, --har) and from the command line (--request,
// --path); lib/scan/plan.js says what each will be sent, or why it is skipped. The plan prints before
// anything is sent. Then each route is measured as `syncbench run --app --profile` measures one: a fresh
// process of the app per route (no route's heap, JIT state or caches colour the next one's figures), a
// warm-up, a load bounded by the route's share of --budget, the server's figures and a CPU profile of
// the window. The report kind lib/report/kinds/scan.js ranks the routes.
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { parseCommandArgs, integerOption, durationOption } from '../args.js'
import { version } from '../version.js'
import { InvalidOptionError, MissingArgumentError, invalidOption } from '../errors.js'
import { appExperiment, parseAppOption } from '../run/experiment-loader.js'
import { parseCommand } from '../lab/command.js'
import { parseAppRequests, parseEnvOption } from '../run/app-requests.js'
import { parseLoadArg } from '../load/options.js'
import { getTool } from '../run/tools.js'
import { checkNativeTransport } from './output.js'
import { dashboardOptions } from './dashboard-options.js'
import { runAndReport, existingFolder } from './run.js'
import { redactHeader, redactUrl, redactValue, secretHeaderSet } from '../redact.js'
import { checkOutDir } from '../run/results-writer.js'
import { wrap } from '../report/wrap.js'
import { discoverRoutes } from '../scan/discover.js'
import { readOpenapi } from '../scan/openapi.js'
import { readHar } from '../scan/har.js'
import { planScan, planText, parseParamOption } from '../scan/scan-plan.js'
import { rankRoutes } from '../report/kinds/scan.js'
import { summarizeResults } from '../report/model.js'

/**
 * Each route's share of the default budget: about a minute for 20 routes on 2 cores, or, for an app
 * slow to start, what its start, the run's overhead and DEFAULT_LOAD_SECONDS of load need.
 */
export const DEFAULT_SECONDS_PER_ROUTE = 3
/** The load the default budget gives each route at least. */
export const DEFAULT_LOAD_SECONDS = 1
/** The least load a route gets: below it a route's figures are a handful of requests. */
export const MIN_LOAD_SECONDS = 0.5
/**
 * The share of a route's time its run is planned on; the rest is its margin (an app slower to start
 * than when its routes were read, a busy machine), left to the routes after it when unused.
 */
export const PLANNED_SHARE = 0.85
/** The most load a route gets, whatever the budget: longer adds little to what blocks and how much. */
export const MAX_LOAD_SECONDS = 10
/**
 * What a run costs beside the app's start and the load: a warm-up of a request per connection, the
 * profiler's start and the profile's write, the metrics' reads, the stop. Measured on the shop example
 * (2 cores, a route holding the loop 130 ms): 0.8 to 1.1 s.
 */
export const RUN_OVERHEAD_SECONDS = 1.2
/**
 * What a run keeps of its deadline for the reads after its load (the metrics, the profile's write):
 * measured on json-server with 40,000 records (2 cores, quiet), 0.1 s for a small route, up to 0.9 s
 * after a route that serialises megabytes.
 */
export const READS_SECONDS = 1
/** What the scan keeps of its budget for the report at its end. */
export const REPORT_SECONDS = 2
/** Connections per route unless -c says otherwise: enough to keep a blocked loop busy, few enough for 2 cores. */
const DEFAULT_CONCURRENCY = 4
/** --budget's bounds. */
const MIN_BUDGET = 1
const MAX_BUDGET = 86400

export const help = `Usage: syncbench scan --app [NAME=]COMMAND [options]

Find your app's routes, load each alone, and rank them by what they do to the
event loop: which routes block every other request, and at which line.

The routes come from your app's own process (Express 4 and 5, Fastify 4 and
5, Koa with @koa/router, Hapi: read without changing the app), from
--openapi and --har, and from --request / --path. The plan (each route and
what will be sent, or why it is skipped) prints before anything is sent.
Each route then gets a fresh process of the app, a warm-up, a load bounded by
its share of --budget, the server's figures and a CPU profile of its window.

Your app:
  --app [NAME=]COMMAND   the command that starts it ("node server.js", "npm
                         start"); its port found by a preload (or --port), its
                         output in <out>/apps/NAME.log
  --cwd <dir>            the folder the command runs in (default: here)
  --env NAME=value       an environment variable of the app, repeatable
  --port <n>             load this port (the app gets PORT=<n>; default
                         PORT=0: a free port found by the preload)
  --start-timeout <s>    seconds the app may take to listen (default 20)

Which routes:
  --openapi <file>       routes from an OpenAPI 3.0 or 3.1 document (JSON or
                         YAML): paths, parameters and bodies from its examples
  --har <file>           routes from a browser's HAR export, its requests sent
                         as they were, grouped by route
  --param NAME=VALUE     fills :NAME (or {NAME}) in every route, repeatable; a
                         route left unfilled is skipped, the flag named
  --request "METHOD /path", --path <path>
                         a route to load beside the ones found, repeatable; -m
                         -p -u -T -H -C -A after it are its own (as in run)
  -m, -p, -u, -T, -H, -C, -A
                         syncbench ab's method, body file, content type,
                         header, cookie and basic auth: before any route, for
                         every route; after a --request, for it alone
  --allow-writes         also send POST, PUT and PATCH (each needs a body: a
                         document's example, the HAR's, or its own -p); DELETE
                         is sent only to a route named by --request
  --dry-run              print the plan and stop: nothing is sent

How long:
  --budget <t>           the whole scan's time (seconds, or 90s, 2m; default
                         ${DEFAULT_SECONDS_PER_ROUTE} s per route), divided among the routes; a route
                         that needs more may borrow a share from the routes
                         after it; one that hangs is cut there and counted
  -c, --concurrency <n>  connections per route (default ${DEFAULT_CONCURRENCY})
  --secret-header <name> a header whose value is a credential, repeatable
                         (starred wherever written or printed, as run's)

Output:
  --out <dir>            where results.json, summary.md, report.html, runs/,
                         profiles/ go (default results/<timestamp>)
  --no-report            write only results.json and summary.md
  --json                 the ranking as JSON on stdout (the plan on stderr)
  -q, --quiet            print only the ranking and the verdict
  --dashboard            watch the scan live in a browser (as run's)
  --dashboard-port <n>, --dashboard-host <a>
  -h, --help             show this help
  -V, --version          print the version

Exit codes: 0 the scan ran (a route that answers non-2xx or crashes the app is
a finding, named in the ranking); 1 no route to send (what was tried is
said), no route measured, or an app that does not start (it never listens
or exits first); 2 a bad command line or document; 130 Ctrl-C (the routes
measured so far are kept in results.json).
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const options = parseScanArgs(argv)
  if (options.help) {
    io.stdout.write(help)
    return 0
  }
  if (options.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  const cwd = process.cwd()
  const appCwd = options.appCwd ?? cwd
  // the documents first: a file that does not parse is refused before the app starts
  /** @type {import('../types.js').DocumentRoute[]} */
  const documents = []
  /** @type {string[]} what reading them noted (a prefix applied, requests to other origins left out) */
  const documentNotes = []
  for (const [read, files] of /** @type {const} */ ([[readOpenapi, options.openapi], [readHar, options.har]])) {
    for (const file of files) {
      const { routes, notes } = await read(path.resolve(cwd, file))
      documents.push(...routes)
      documentNotes.push(...notes)
    }
  }
  // a results folder that cannot be created is refused before the app starts
  await checkOutDir({ out: options.out, cwd })
  const app = options.app
  const started = Date.now()
  const discovered = await discover({ app, cwd: appCwd, env: options.appEnv, port: options.port, startTimeoutMs: options.startTimeout * 1000 })
  const found = { ...discovered, notes: [...discovered.notes, ...documentNotes] }
  const plan = planScan({ found: found.routes, documents, params: options.params, allowWrites: options.allowWrites, named: options.named })
  // --json keeps stdout for the ranking; a dry run has no ranking, its plan is its answer
  const planOut = options.json && !options.dryRun ? io.stderr : io.stdout
  if (!options.quiet || options.dryRun) planOut.write(planLines({ app, found, plan, documents: documents.length }).join('\n') + '\n')
  const sent = plan.filter((r) => r.skipped === null)
  if (sent.length === 0) {
    io.stderr.write(wrap(`syncbench scan: ${nothingToSend({ found, plan, documents: documents.length })}`, undefined, '  ') + '\n')
    return 1
  }
  if (options.dryRun) return 0
  const discoverySeconds = (Date.now() - started) / 1000
  const budget = shareBudget({ budget: options.budget, routes: sent.length, startSeconds: found.startMs / 1000, spentSeconds: discoverySeconds })
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY
  const experiment = scanExperiment({ app, plan, sent, options, cwd: appCwd, budget, concurrency, found })
  await checkNativeTransport('scan', io, { notice: true })
  const dashboard = options.dashboard ? await (await import('./dashboard.js')).openDashboard(`syncbench scan ${app.name}`, options, io, 'syncbench scan') : null
  try {
    return await runAndReport({
      options: runArgs(options),
      experiments: [experiment],
      engine: getTool('builtin'),
      argv,
      io,
      cwd,
      nodes: [],
      dashboard,
      command: 'scan',
      invalidFails: false,
      runner: { isolateErrors: true, runDeadline: routeDeadlines({ startedAt: started, budget, routes: sent.length }), fitLoad: FIT_LOAD, deadlineFlag: '--budget' },
      failure: (/** @type {import('../types.js').ResultsFile} */ results) => scanJson(results).routes.some((r) => r.measured) ? null : `no route was measured (${sent.length === 1 ? 'its reason is' : 'each one\'s reason is'} in the ranking)`,
      ...(options.json ? { answer: (/** @type {import('../types.js').ResultsFile} */ results) => JSON.stringify(scanJson(results), null, 2) + '\n' } : {})
    })
  } finally {
    await dashboard?.close()
  }
}

/**
 * The app started once to be asked its routes, then stopped; its output goes to a log of its own,
 * removed after (a dry run writes nothing).
 * @param {{ app: { name: string, command: string }, cwd: string, env: Record<string, string>, port?: number, startTimeoutMs: number }} o
 * @returns {Promise<import('../types.js').RouteDiscovery>}
 */
async function discover ({ app, cwd, env, port, startTimeoutMs }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-scan-'))
  try {
    return await discoverRoutes({ name: app.name, command: app.command, cwd, env, log: path.join(dir, 'app.log'), startTimeoutMs, ...(port === undefined ? {} : { port }) })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * What prints before anything is sent: where the routes came from, then the plan.
 * @param {{ app: { name: string }, found: import('../types.js').RouteDiscovery, plan: import('../types.js').PlannedRoute[], documents: number }} o
 * @returns {string[]}
 */
function planLines ({ app, found, plan, documents }) {
  const frameworks = found.frameworks.map((f) => `${f.name} ${f.version ?? '(version unknown)'}`).join(', ')
  const head = `syncbench scan: ${app.name}: ${frameworks ? `${frameworks}, ` : ''}${found.routes.length} route${found.routes.length === 1 ? '' : 's'} found in the app` +
    `${documents ? `, ${documents} from documents` : ''}`
  return [wrap(head, undefined, '  '), ...found.notes.map((n) => wrap(`  ${n}`, undefined, '    ')), ...planText(plan)]
}

/**
 * Why there is nothing to send, saying what was tried.
 * @param {{ found: import('../types.js').RouteDiscovery, plan: import('../types.js').PlannedRoute[], documents: number }} o
 */
export function nothingToSend ({ found, plan, documents }) {
  if (plan.length > 0) return `nothing to send: all ${plan.length} routes were skipped (the plan above says why, and the flag that would send each)`
  const tried = `the app's process was asked for its routes (Express, Fastify, Koa with @koa/router, Hapi)${documents ? ' and the documents given' : ''}`
  // discovery's notes end with their own advice (give --openapi or --har): said once here, --request beside
  const notes = found.notes.map((n) => n.replace(/[:;] give --openapi or --har$/, ''))
  return `no routes found: ${tried}; ${notes.length ? `${notes.join('; ')}; ` : ''}give --openapi, --har or --request "GET /path"`
}

/**
 * Each route's share of the budget: what is left once the app was asked its routes and the report's
 * time is set aside, divided evenly. A budget too short for the app's start and the least load a route
 * gets is refused before anything is sent. Reckoned in whole milliseconds: in seconds, float sums put
 * a budget of exactly the least (the default's, for an app slow to start) a hair below it.
 * @param {{ budget?: number, routes: number, startSeconds: number, spentSeconds: number }} o
 * @returns {{ budgetSeconds: number, shareSeconds: number, loadSeconds: number, leastShareSeconds: number }}
 *          leastShareSeconds: what a route needs for the least load (MIN_LOAD_SECONDS), its margin included
 */
export function shareBudget ({ budget, routes, startSeconds, spentSeconds }) {
  const ms = (/** @type {number} */ seconds) => Math.round(seconds * 1000)
  const perRouteMs = ms(startSeconds) + ms(RUN_OVERHEAD_SECONDS)
  /** @param {number} loadMs @returns {number} the share a route needs for this load, its margin included */
  const shareFor = (loadMs) => Math.ceil((perRouteMs + loadMs) / PLANNED_SHARE)
  const fixedMs = ms(spentSeconds) + ms(REPORT_SECONDS)
  const leastMs = fixedMs + routes * shareFor(ms(MIN_LOAD_SECONDS))
  const budgetMs = budget === undefined ? fixedMs + routes * Math.max(ms(DEFAULT_SECONDS_PER_ROUTE), shareFor(ms(DEFAULT_LOAD_SECONDS))) : ms(budget)
  if (budgetMs < leastMs) {
    throw invalidOption('--budget', `${budget}s`, `is too short for ${routes} route${routes === 1 ? '' : 's'}: each needs the app's start (${startSeconds.toFixed(1)} s here), about ${RUN_OVERHEAD_SECONDS} s of warm-up and reads, ${MIN_LOAD_SECONDS} s of load and a margin of ${Math.round((1 - PLANNED_SHARE) * 100)}%: give at least ${Math.ceil(leastMs / 1000)}s`)
  }
  const shareMs = Math.floor((budgetMs - fixedMs) / routes)
  const loadMs = Math.min(ms(MAX_LOAD_SECONDS), Math.floor(shareMs * PLANNED_SHARE) - perRouteMs)
  return { budgetSeconds: budgetMs / 1000, shareSeconds: shareMs / 1000, loadSeconds: loadMs / 1000, leastShareSeconds: shareFor(ms(MIN_LOAD_SECONDS)) / 1000 }
}

/**
 * Each route's deadline, asked as its run starts: its share and whatever the routes before it left (an
 * app slower to start than when its routes were read, a busy moment, then cost none of its load), and
 * when it needs more, up to one share more borrowed from the routes after it, each of which keeps at
 * least the least share (its load then shortened to fit: fitLoad below). A heavy route's warm-up and
 * reads (a cold serialisation of megabytes, a large profile) on a busy machine take well past the
 * overhead planned for (RUN_OVERHEAD_SECONDS); cut at its share, the route that holds the loop longest
 * would be the one left unmeasured. One that hangs is cut at its deadline, the routes after it lose a
 * share between them, and the whole scan stays within its budget.
 * @param {{ startedAt: number, budget: ReturnType<typeof shareBudget>, routes: number }} o
 *        startedAt: Date.now() when the scan started (its discovery counts against the budget)
 * @param {() => number} [now]
 * @returns {() => number} seconds
 */
export function routeDeadlines ({ startedAt, budget, routes }, now = Date.now) {
  const endsAt = startedAt + (budget.budgetSeconds - REPORT_SECONDS) * 1000
  let left = routes
  return () => {
    left = Math.max(1, left)
    const after = left - 1
    left--
    const leftSeconds = (endsAt - now()) / 1000
    const owed = leftSeconds - after * budget.shareSeconds
    const seconds = Math.min(owed + budget.shareSeconds, leftSeconds - after * budget.leastShareSeconds)
    return Math.round(Math.max(MIN_LOAD_SECONDS, seconds) * 1000) / 1000
  }
}

/**
 * The runner's fitLoad for a scan: a route's load ends early enough for the reads after it (the
 * metrics, the profile's write) before its deadline, however long its app's start and warm-up took,
 * and never shorter than the least load.
 */
export const FIT_LOAD = { readsSeconds: READS_SECONDS, minSeconds: MIN_LOAD_SECONDS }

/**
 * The plan as an app experiment (what run --app builds), one configuration per route sent, labelled by
 * its route key, shown by the scan kind; every route of the plan, skipped ones too, in `scan`.
 * @param {object} o
 * @param {{ name: string, command: string }} o.app
 * @param {import('../types.js').PlannedRoute[]} o.plan
 * @param {import('../types.js').PlannedRoute[]} o.sent
 * @param {ScanArgs} o.options
 * @param {string} o.cwd
 * @param {ReturnType<typeof shareBudget>} o.budget
 * @param {number} o.concurrency
 * @param {import('../types.js').RouteDiscovery} o.found
 */
function scanExperiment ({ app, plan, sent, options, cwd, budget, concurrency, found }) {
  /** @type {import('../run/app-requests.js').AppRoute[]} */
  const routes = sent.map((r) => ({
    name: r.key,
    method: r.method,
    path: /** @type {string} */ (r.path),
    ...(r.headers?.length ? { headers: r.headers } : {}),
    ...(r.body ? { body: Buffer.from(r.body.text), contentType: r.body.contentType } : {})
  }))
  const experiment = appExperiment({ apps: [app], routes, shared: options.shared, cwd, env: options.appEnv, port: options.port, profile: true, startTimeoutMs: options.startTimeout * 1000 })
  const { requests, ...load } = experiment.load ?? {}
  const secret = secretHeaderSet(options.secretHeaders)
  // a route that never answers is counted failed within its share, not waited for
  const responseTimeout = Math.min(options.responseTimeout ?? budget.loadSeconds, budget.loadSeconds)
  return {
    ...experiment,
    name: 'scan',
    title: `Scan: ${app.name}`,
    description: `${app.command}: ${sent.length} route${sent.length === 1 ? '' : 's'} loaded one at a time, ${budget.loadSeconds} s each`,
    table: 'scan',
    load: { ...load, concurrency, timelimit: budget.loadSeconds, responseTimeout },
    // two requests one after the other: the route's code compiled and its caches filled, without a
    // queue of -c requests behind a route that holds the loop (4 x 500 ms of a large serialisation)
    warmup: { requests: 2, concurrency: 1 },
    scan: {
      budgetMs: Math.round(budget.budgetSeconds * 1000),
      // a version the framework does not say is 'unknown', as the plan prints it
      frameworks: found.frameworks.map((f) => ({ name: f.name, version: f.version ?? 'unknown' })),
      tried: found.frameworks.length ? [] : ['express', 'fastify', 'koa', 'hapi'],
      notes: found.notes,
      routes: plan.map((r) => savedRoute(r, cwd, secret))
    }
  }
}

/**
 * A planned route as results.json keeps it: its credentials starred with their digests, as a load's
 * options are (the query's, the credential headers' values: -A, -C, Authorization, --secret-header's),
 * its body's text too (a HAR's login, a -p file: it may hold a password; its size and type are in the
 * run's load options); its handler's file as the ranking names it.
 * @param {import('../types.js').PlannedRoute} r
 * @param {string} cwd the app's folder
 * @param {Set<string>} secret the credential headers' names (secretHeaderSet)
 * @returns {import('../types.js').PlannedRoute}
 */
function savedRoute (r, cwd, secret) {
  return {
    ...r,
    ...(r.path === null ? {} : { path: redactUrl(r.path, true) }),
    ...(r.headers === undefined ? {} : { headers: r.headers.map((h) => redactHeader(h, secret, true)) }),
    ...(r.body === undefined ? {} : { body: { contentType: r.body.contentType, text: redactValue(r.body.text, true) } }),
    declared: r.declared && { ...r.declared, file: shownFile(r.declared.file, cwd) }
  }
}

/**
 * A handler's file as the ranking names it: relative to the app's folder when it is inside it (a
 * package's file under its node_modules too), else whole.
 * @param {string} file absolute
 * @param {string} cwd
 */
function shownFile (file, cwd) {
  const rel = path.relative(cwd, file)
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? file : rel
}

/**
 * The options runAndReport takes (run's), as scan sets them.
 * @param {ScanArgs} options
 * @returns {import('./run.js').RunArgs}
 */
function runArgs (options) {
  return /** @type {import('./run.js').RunArgs} */ (/** @type {unknown} */ ({
    out: options.out,
    quiet: options.quiet,
    verbose: false,
    report: options.report,
    runs: 1,
    allowErrors: false,
    calibrate: false,
    probe: false,
    secretHeaders: options.secretHeaders,
    dashboard: options.dashboard,
    dashboardPort: options.dashboardPort,
    dashboardHost: options.dashboardHost
  }))
}

/**
 * --json: the ranking, most blocking first, each route's figures as the table shows them (ms, bytes),
 * then the routes not sent; the whole of it is in results.json.
 * @param {import('../types.js').ResultsFile} results
 */
export function scanJson (results) {
  const summary = summarizeResults(results).find((s) => s.name === 'scan')
  const ranked = summary ? rankRoutes(summary) : []
  const routes = ranked.map((f) => ({
    route: f.row.label,
    measured: f.measured,
    blocks: f.blocks,
    loopP99Ms: f.loopP99,
    loopMaxMs: f.loopMax,
    lateShare: f.late,
    cpuMsPerRequest: f.cpuMsPerRequest,
    requestsPerSecond: f.measured ? f.row.figures.requestsPerSecond?.mean ?? null : null,
    p99Ms: f.p99Ms,
    heapGrowthBytes: f.heapGrowthBytes,
    rssGrowthBytes: f.rssGrowthBytes,
    errors: f.errors,
    line: f.line || null,
    ...(f.measured ? {} : { reason: f.row.invalid.map((i) => i.reason).join('; ') || 'no valid run (crashed, cut or interrupted)' })
  }))
  const scan = results.experiments.find((e) => e.name === 'scan')?.scan
  const skipped = (scan?.routes ?? []).flatMap((r) => r.skipped ? [{ route: r.key, reason: r.skipped.reason, ...(r.skipped.flag ? { flag: r.skipped.flag } : {}) }] : [])
  return { schema: 'syncbench/scan@1', verdict: summary?.verdictParts ?? [], routes, skipped, frameworks: scan?.frameworks ?? [] }
}

/** @typedef {ReturnType<typeof parseScanArgs>} ScanArgs */

/**
 * @param {string[]} argv
 */
export function parseScanArgs (argv) {
  const parsed = parseCommandArgs('scan', argv, {
    app: { type: 'string', multiple: true },
    cwd: { type: 'string' },
    env: { type: 'string', multiple: true },
    port: { type: 'string' },
    'start-timeout': { type: 'string' },
    openapi: { type: 'string', multiple: true },
    har: { type: 'string', multiple: true },
    param: { type: 'string', multiple: true },
    path: { type: 'string', multiple: true },
    request: { type: 'string', multiple: true },
    method: { type: 'string', short: 'm' },
    'body-file': { type: 'string', short: 'p' },
    'put-file': { type: 'string', short: 'u' },
    'content-type': { type: 'string', short: 'T' },
    header: { type: 'string', short: 'H', multiple: true },
    cookie: { type: 'string', short: 'C', multiple: true },
    auth: { type: 'string', short: 'A' },
    'secret-header': { type: 'string', multiple: true },
    'allow-writes': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    budget: { type: 'string' },
    concurrency: { type: 'string', short: 'c' },
    'response-timeout': { type: 'string' },
    out: { type: 'string' },
    'no-report': { type: 'boolean' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    dashboard: { type: 'boolean' },
    'dashboard-port': { type: 'string' },
    'dashboard-host': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  const { values, positionals, tokens } = parsed
  const base = { help: Boolean(values.help), version: Boolean(values.version) }
  if (base.help || base.version) return /** @type {any} */ (base)
  if (positionals.length > 0) throw new InvalidOptionError(`no argument expected, got "${positionals[0]}" (the app is --app "COMMAND")`)
  const apps = parseAppOption(values.app ?? [])
  if (apps.length === 0) throw new MissingArgumentError('an app is needed: --app "COMMAND", the command that starts your server, e.g. --app "node server.js" (see syncbench scan --help)')
  if (apps.length > 1) throw invalidOption('--app', values.app?.[1] ?? '', 'is given twice: syncbench scan scans one app (compare two scans with syncbench compare)')
  parseCommand(apps[0].command, `--app ${apps[0].name}`)
  const named = tokens.some((t) => t.kind === 'option' && (t.name === 'request' || t.name === 'path'))
  // run's parsing of the routes and their request options; with no route named, its default GET / is not one
  const requests = parseAppRequests(tokens, { mix: false })
  const options = {
    ...base,
    app: apps[0],
    appCwd: values.cwd === undefined ? undefined : existingFolder('--cwd', values.cwd),
    appEnv: parseEnvOption(values.env ?? []),
    port: integerOption('--port', values.port, 1, 65535),
    startTimeout: durationOption('--start-timeout', values['start-timeout'], 1, 600) ?? 20,
    openapi: values.openapi ?? [],
    har: values.har ?? [],
    params: parseParamOption(values.param ?? []),
    named: named ? requests.routes : [],
    shared: requests.shared,
    secretHeaders: values['secret-header']?.map((name) => parseLoadArg('secretHeaders', '--secret-header', name)),
    allowWrites: Boolean(values['allow-writes']),
    dryRun: Boolean(values['dry-run']),
    budget: durationOption('--budget', values.budget, MIN_BUDGET, MAX_BUDGET),
    concurrency: integerOption('-c', values.concurrency, 1, 1000),
    responseTimeout: values['response-timeout'] === undefined ? undefined : parseLoadArg('responseTimeout', '--response-timeout', values['response-timeout']),
    out: values.out,
    report: !values['no-report'],
    json: Boolean(values.json),
    quiet: Boolean(values.quiet),
    ...dashboardOptions(values)
  }
  if (options.out === '') throw invalidOption('--out', '', 'must be a folder')
  return options
}
