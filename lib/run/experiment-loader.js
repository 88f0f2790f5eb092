// Where experiments come from: the built-in list, a user's --experiment file (.js default export or
// .json), or a --workload module of handlers (served by lib/lab/workload-host.js in the server child;
// the runner asks that child for the handler names). Every definition is validated here, so the
// runner only ever sees a well-formed one.
import path from 'node:path'
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { ExperimentError, InvalidOptionError, MissingArgumentError, firstLine, invalidOption, shown } from '../errors.js'
import { checkInputFile, readInputFile } from '../fs-input.js'
import { experiments as builtins } from './experiments.js'
import { workloadHandlerNames } from './runner.js'
import { LOAD_AXES, OFFERED_AXIS, expandExperiment } from './plan.js'
import { experimentSchemaProblem } from './experiment-schema.js'
import { checkHttp2, checkLoadOption, checkLoadOptions, checkRoutes, keySpelling, loadOptionRules } from '../load/options.js'
import { parseServeArgs } from '../lab/serve-args.js'
import { appRouteLabel } from './app-requests.js'

/**
 * A request an experiment sends: `request` of a variant, or of a route of its `mix`.
 * @typedef {object} RequestSpec
 * @property {string} path                 with optional query
 * @property {string} [method]             default GET, or POST with a body
 * @property {string[]} [headers]          header lines "Name: value", after the load section's
 * @property {string|Buffer} [body]        text in the file; a bodyFile's bytes once loaded
 * @property {string} [bodyFile]           a file of the body, found next to the experiment file (read when it is loaded)
 * @property {string} [contentType]        with a body (default text/plain, as ab)
 */

/**
 * @typedef {object} Variant
 * @property {string} label
 * @property {string} [path]               route with optional query, e.g. "/bcrypt/async?cost=4"; or:
 * @property {RequestSpec} [request]       a request of its own (method, headers, body)
 * @property {{ request: RequestSpec, weight?: number, name?: string }[]} [mix]  routes loaded together in each run,
 *                                         the connections shared out by weight (LoadOptions.routes)
 * @property {Record<string, string|number|boolean>} [config]
 * @property {Partial<ServerSpec>} [server] merged over the experiment's server
 * @property {boolean} [sweep]             false: run once, outside the axes (a reference beside the sweep, e.g.
 *                                         readFileSync beside fake async's delays); default true
 */

/**
 * @typedef {object} ServerSpec
 * @property {string} [app]                 a `syncbench serve` app: seed-bcrypt, seed-readfile, lab
 * @property {string} [workload]            absolute path of a --workload module (served by lib/lab/workload-host.js)
 * @property {string} [command]             a user's own server command (--app; lib/lab/app-host.js)
 * @property {string} [name]                with command: the app's name (--app NAME=COMMAND)
 * @property {string} [cwd]                 with command: where it runs
 * @property {number} [port]                with command: --port, the port to load (else found by the preload)
 * @property {boolean} [profile]            with command: record a CPU profile of the app's main thread
 * @property {number} [startTimeoutMs]      with command: how long it may take to listen
 * @property {string[]} [args]
 * @property {Record<string, string>} [env]
 */

/**
 * How a rate-sweep finds its rates and judges them.
 * @typedef {object} RateSweep
 * @property {number} stepSeconds          each step sends offered rate x stepSeconds intended requests
 * @property {number} capacitySeconds      the closed-loop run that measures a variant's capacity (req/s), -t
 * @property {number} capacityConcurrency  its connections
 * @property {number} sloP99Ms             the p99 a variant must stay under to sustain a rate (--slo-p99 overrides)
 */

/**
 * @typedef {object} Experiment
 * @property {string} name
 * @property {string} title
 * @property {string} description
 * @property {string} [table]            the kind that presents it (lib/report/kinds.js; the schema lists them): generic by default
 * @property {string} [baseline]           a variant label or config.strategy
 * @property {string} [reference]          seed-002: the 100% row
 * @property {number} [runs]             repeats of each configuration unless --runs says otherwise
 * @property {ServerSpec} server
 * @property {Record<string, any>} [load]  LoadOptions without url, checked by lib/load/options.js (a file's
 *                                         load section may carry notes of its own, so not Partial<LoadOptions>)
 * @property {{ requests: number, concurrency: number }} [warmup]
 * @property {Variant[]} variants
 * @property {Record<string, (string|number|boolean)[]>} [axes]
 * @property {Record<string, string>} [serverAxes]  axes the server takes as a `syncbench serve` option at spawn
 *                                         rather than in the query string: { delay: '--delay' } (a seed server reads no query)
 * @property {import('./calibrate.js').CalibrationSpec} [calibration]
 * @property {RateSweep} [rateSweep]      an open-loop sweep: axes.offered are fractions of each variant's capacity,
 *                                         measured first by a closed-loop run (lib/run/runner.js); builtin engine only
 * @property {boolean} [probe]             run the probe (lib/run/prober.js) beside every measured load unless
 *                                         --no-probe says otherwise (default false; --probe turns it on)
 * @property {import('../types.js').ScanInfo} [scan]  syncbench scan's plan, kept in results.json (lib/cli/scan-command.js)
 */

/** @returns {Experiment[]} */
export function listExperiments () {
  return builtins
}

/**
 * @param {string} name
 * @returns {Experiment}
 */
export function builtinExperiment (name) {
  const found = builtins.find((e) => e.name === name)
  if (!found) {
    throw new ExperimentError(`unknown experiment "${name}" (try: ${[...builtins.map((e) => e.name), 'all'].join(', ')}; see syncbench run --list)`)
  }
  return found
}

/** The files an --experiment may import; anything else but .json is refused before it could run. */
const MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs']

/**
 * Load a user's experiment file: a .json file, or a module whose default export is one experiment
 * or an array of them.
 * @param {string} file as given on the command line
 * @param {string} cwd
 * @returns {Promise<Experiment[]>}
 */
export async function loadExperimentFile (file, cwd) {
  const abs = await existingFile('--experiment', file, cwd)
  const ext = path.extname(abs).toLowerCase()
  // import() runs any file it is given (an extensionless one as CommonJS): only modules are imported
  if (ext !== '.json' && !MODULE_EXTENSIONS.includes(ext)) {
    throw new ExperimentError(`--experiment ${file}: must be a .json file or a module (${MODULE_EXTENSIONS.join(', ')})`)
  }
  let data
  try {
    // a UTF-8 byte order mark (Windows editors write one) is not part of the JSON
    if (ext === '.json') data = JSON.parse((await readInputFile(abs, { fail: inputFailure('--experiment', file) })).replace(/^\uFEFF/, ''))
    else data = (await import(pathToFileURL(abs).href)).default
  } catch (err) {
    if (err instanceof ExperimentError) throw err
    // JSON.parse quotes the text it refused, line breaks and all: its whole message, kept on one line
    const why = ext === '.json' && err instanceof SyntaxError ? `not JSON (${err.message.replace(/\n/g, '\\n')})` : firstLine(err)
    throw new ExperimentError(`--experiment ${file} cannot be loaded: ${why}`, { cause: err })
  }
  const list = Array.isArray(data) ? data : [data]
  if (list.length === 0) throw new ExperimentError(`--experiment ${file}: holds an empty array, no experiment`)
  const experiments = []
  for (const [i, e] of list.entries()) {
    const where = `--experiment ${file}${list.length > 1 ? ` [${i}]` : ''}`
    const v = validateExperiment(e, where)
    // A workload module named in the file is found next to the file, wherever syncbench runs from,
    // and must be there now, not when its run comes.
    /** @param {Partial<ServerSpec>|undefined} server @param {string} field */
    const resolveWorkload = async (server, field) => {
      if (server?.workload === undefined) return server
      const workload = path.resolve(path.dirname(abs), server.workload)
      await checkInputFile(workload, { fail: (message, cause) => new ExperimentError(`${where}: ${field} "${server.workload}": ${message} (looked for ${workload})`, { cause }) })
      return { ...server, workload }
    }
    /**
     * A request's bodyFile, found next to the experiment file, read now: its bytes are the body.
     * @param {RequestSpec} request @param {string} field
     * @returns {Promise<RequestSpec>}
     */
    const resolveBody = async (request, field) => {
      if (request.bodyFile === undefined) return request
      const { bodyFile, ...rest } = request
      const file = path.resolve(path.dirname(abs), bodyFile)
      const fail = (/** @type {string} */ message, /** @type {unknown} */ cause) => new ExperimentError(`${where}: ${field}.bodyFile "${bodyFile}": ${message} (looked for ${file})`, { cause })
      await checkInputFile(file, { fail })
      try {
        return { ...rest, body: await readFile(file) }
      } catch (err) {
        throw fail(firstLine(err), err)
      }
    }
    v.variants = await Promise.all(v.variants.map(async (variant, j) => variant.request
      ? { ...variant, request: await resolveBody(variant.request, `variants[${j}].request`) }
      : variant.mix
        ? { ...variant, mix: await Promise.all(variant.mix.map(async (m, k) => ({ ...m, request: await resolveBody(m.request, `variants[${j}].mix[${k}].request`) }))) }
        : variant))
    v.server = /** @type {ServerSpec} */ (await resolveWorkload(v.server, 'server.workload'))
    v.variants = await Promise.all(v.variants.map(async (variant, j) => variant.server ? { ...variant, server: await resolveWorkload(variant.server, `variants[${j}].server.workload`) } : variant))
    experiments.push(v)
  }
  return experiments
}

/**
 * Build the experiment that serves and compares a --workload module's handlers (one route per exported
 * function, named after it).
 * @param {string} file
 * @param {string} cwd
 * @param {{ baseline?: string }} [options] baseline: the handler the others are compared with (--baseline;
 *        default sync, else the first export); it must be one of the module's handlers
 * @returns {Promise<Experiment>}
 */
export async function loadWorkload (file, cwd, { baseline } = {}) {
  const abs = await existingFile('--workload', file, cwd)
  const exported = await workloadHandlerNames(abs, file)
  if (baseline !== undefined && !exported.includes(baseline)) {
    throw invalidOption('--baseline', baseline, `must be one of the handlers ${file} exports: ${exported.join(', ')}`)
  }
  const first = baseline ?? (exported.includes('sync') ? 'sync' : exported[0])
  // A module namespace lists its exports alphabetically: put the baseline (usually sync) first.
  const names = [...exported].sort((a, b) => Number(b === first) - Number(a === first))
  return validateExperiment({
    name: 'workload',
    title: `Your handlers: ${path.basename(abs)}`,
    description: `${names.join(', ')} from ${file}`,
    table: 'generic',
    baseline: first,
    server: { workload: abs },
    load: { requests: 200, concurrency: 10, keepAlive: true },
    variants: names.map((n) => ({ label: n, path: `/${encodeURIComponent(n)}`, config: { strategy: n, workload: path.basename(abs) } }))
  }, `--workload ${file}`)
}

/** The server fields that only a user's server, started by its command (run --app), takes. */
const COMMAND_ONLY = ['name', 'cwd', 'port', 'profile', 'startTimeoutMs']

/** The most configurations (variants x axis points) one experiment may expand to. */
export const MAX_CONFIGURATIONS = 10_000

/** The load options an experiment's `load` may set: those syncbench ab has a flag for (not url, callbacks or a signal). */
/** @type {string[]} */
const EXPERIMENT_LOAD_KEYS = loadOptionRules.filter((rule) => rule.flag !== null).map((rule) => rule.name)

/**
 * Build the experiment of `syncbench run --app`: every app at every route, each run a fresh process of
 * the app's command; with `mix`, every app's routes loaded together in each run instead. With several
 * apps the first one is the baseline at each route (before/after).
 * @param {object} options
 * @param {{ name: string, command: string }[]} options.apps  names unique (parseAppOption)
 * @param {import('./app-requests.js').AppRoute[]} options.routes
 * @param {boolean} [options.mix]  the routes loaded together, shared out by weight (--mix)
 * @param {import('./app-requests.js').SharedRequest} [options.shared]  -H, -C, -A, -p / -u, -T: for every route
 *        (a route's own are on the route: its headers, body and contentType)
 * @param {string} options.cwd     where the app runs (--cwd)
 * @param {Record<string, string>} [options.env]  for the app's process (--env)
 * @param {number} [options.port]
 * @param {boolean} [options.profile]  record each run's CPU profile (--profile)
 * @param {number} [options.startTimeoutMs]
 * @returns {Experiment}
 */
export function appExperiment ({ apps, routes, mix = false, shared = {}, cwd, env = {}, port, profile = false, startTimeoutMs }) {
  const several = apps.length > 1
  /** @param {{ name: string, command: string }} app */
  const serverOf = (app) => {
    /** @type {Partial<ServerSpec>} */
    const server = { command: app.command, name: app.name, cwd, profile }
    if (Object.keys(env).length) server.env = env
    if (port !== undefined) server.port = port
    if (startTimeoutMs !== undefined) server.startTimeoutMs = startTimeoutMs
    return server
  }
  // a route's own body comes later: the definition's schema takes a body as text, and -p's are bytes
  /** @param {import('./app-requests.js').AppRoute} r @returns {RequestSpec} */
  const requestOf = (r) => ({
    method: r.method,
    path: r.path,
    ...(r.headers === undefined ? {} : { headers: r.headers }),
    ...(r.contentType === undefined ? {} : { contentType: r.contentType })
  })
  const variants = mix
    ? apps.map((app) => ({
      label: several ? `${app.name} mix` : 'mix',
      mix: routes.map((r) => ({ request: requestOf(r), ...(r.weight === undefined ? {} : { weight: r.weight }), ...(r.name === undefined ? {} : { name: r.name }) })),
      config: { strategy: app.name, workload: 'mix' },
      server: serverOf(app)
    }))
    : apps.flatMap((app) => routes.map((r) => {
      const label = appRouteLabel(r)
      return { label: several ? `${app.name} ${label}` : label, request: requestOf(r), config: { strategy: app.name, workload: label }, server: serverOf(app) }
    }))
  const described = apps.map((a) => several ? `${a.name}: ${a.command}` : a.command).join('; ')
  const routeText = routes.map((r) => `${appRouteLabel(r)}${mix && r.weight !== undefined ? ` x${r.weight}` : ''}`).join(', ')
  const experiment = validateExperiment({
    name: 'app',
    title: several ? `Your server: ${apps.map((a) => a.name).join(' vs ')}` : `Your server: ${apps[0].name}`,
    description: `${described}, ${mix ? `a mix of ${routeText}` : `at ${routeText}`}`,
    table: 'app',
    baseline: apps[0].name,
    server: { command: apps[0].command },
    load: { requests: 200, concurrency: 10, keepAlive: true, ...shared },
    variants
  }, '--app')
  // the routes' own bodies, once the definition is checked (as an experiment file's bodyFile is read after)
  /** @param {RequestSpec} request @param {import('./app-requests.js').AppRoute} r @returns {RequestSpec} */
  const withBody = (request, r) => r.body === undefined ? request : { ...request, body: r.body }
  experiment.variants = experiment.variants.map((v, j) => v.mix
    ? { ...v, mix: v.mix.map((m, k) => ({ ...m, request: withBody(m.request, routes[k]) })) }
    // one variant per app and route, the routes in order within each app
    : { ...v, request: withBody(/** @type {RequestSpec} */ (v.request), routes[j % routes.length]) })
  return experiment
}

/**
 * --app as given: NAME=COMMAND, or a command alone (named after its script: "node server.js" -> server).
 * A NAME all in capitals is not a name but an environment assignment of the command ("PORT=0 node app.js").
 * @param {string[]} values
 * @returns {{ name: string, command: string }[]}
 */
export function parseAppOption (values) {
  /** @type {Set<string>} */
  const taken = new Set()
  return values.map((value) => {
    // An upper-case NAME=value is the shell's environment assignment ("PORT=0 node app.js"), not a name.
    const named = /^[A-Z0-9_]+=/.test(value) ? null : /^([A-Za-z0-9][\w.-]{0,31})=(.*)$/s.exec(value)
    const command = (named ? named[2] : value).trim()
    if (command === '') throw invalidOption('--app', value, 'needs a command, e.g. --app "node server.js" or --app before="node v1.js"')
    let name = named ? named[1] : defaultAppName(command)
    if (named && taken.has(name)) throw invalidOption('--app', value, `names "${name}" twice`)
    for (let i = 2; taken.has(name); i++) name = `${defaultAppName(command)}-${i}`
    taken.add(name)
    return { name, command }
  })
}

/**
 * "node server.js" -> server, "npm start" -> npm: the last word that looks like a file, else the first word.
 * @param {string} command
 */
function defaultAppName (command) {
  const words = command.split(/\s+/).filter(Boolean)
  const file = [...words].reverse().find((w) => /\.[cm]?[jt]s$/.test(w)) ?? words[0]
  return (path.basename(file).replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'app').slice(0, 32)
}

/**
 * Check an experiment definition completely and fill its defaults: its shape against
 * schemas/experiment.schema.json, then what a schema cannot say (load values by the load options'
 * rules, each configuration's server args by syncbench serve's, names that must match). Nothing runs
 * before this passes, so a bad file leaves nothing behind.
 * @param {any} e
 * @param {string} where names the source in error messages
 * @returns {Experiment}
 */
export function validateExperiment (e, where) {
  /** @param {string} what @param {unknown} [cause] */
  const bad = (what, cause) => new ExperimentError(`${where}: ${what}`, cause === undefined ? undefined : { cause })
  /**
   * The load options' own rules (lib/load/options.js), as the CLI and loadtest() apply them. The file
   * is what is wrong, so an ExperimentError, with the option's InvalidOptionError as its cause.
   * @param {() => void} check
   * @param {string} [prefix] what the option's message is about ("variants[1] (async c=5): ")
   */
  const checkWith = (check, prefix = '') => {
    try {
      check()
    } catch (err) {
      if (err instanceof InvalidOptionError || err instanceof MissingArgumentError) throw bad(prefix + err.message, err)
      throw err
    }
  }
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw bad('an experiment must be an object')
  // the name becomes file names (charts/<name>-throughput.png) and HTML ids: short, and of safe characters
  if (typeof e.name !== 'string' || !/^[\w.-]{1,64}$/.test(e.name)) throw bad(`name must be 1 to 64 letters, digits, "-", "_" or ".", got ${e.name === undefined ? 'nothing' : `"${shortened(e.name)}"`}`)
  const problem = experimentSchemaProblem(e)
  if (problem !== null) throw bad(problem)
  /** @type {Variant[]} */
  const variants = e.variants
  const kinds = ['app', 'workload', 'command'].filter((k) => e.server[k] !== undefined)
  if (kinds.length !== 1) throw bad(`server must have one of app (a syncbench serve app), workload (a module of handlers) and command (your own server), got ${kinds.length ? kinds.join(' and ') : 'none'}`)
  const labels = new Set()
  for (const [i, v] of variants.entries()) {
    const routes = /** @type {const} */ (['path', 'request', 'mix']).filter((k) => v[k] !== undefined)
    if (routes.length !== 1) throw bad(`variants[${i}] must have one of path, request and mix, got ${routes.length ? routes.join(' and ') : 'none'}`)
    /** @type {[string, RequestSpec][]} */
    const requests = v.request ? [[`variants[${i}].request`, v.request]] : (v.mix ?? []).map((m, k) => [`variants[${i}].mix[${k}].request`, m.request])
    for (const [field, r] of requests) if (r.body !== undefined && r.bodyFile !== undefined) throw bad(`${field} has body and bodyFile: give one of them`)
    if (labels.has(v.label)) throw bad(`variants[${i}].label "${v.label}" appears twice`)
    labels.add(v.label)
    const merged = { ...e.server, ...v.server }
    for (const key of COMMAND_ONLY) {
      if (merged[key] !== undefined && merged.command === undefined) throw bad(`variants[${i}].server.${key} applies to a server started by its command (run --app), not to ${merged.app !== undefined ? `app "${merged.app}"` : 'a workload module'}`)
    }
    const named = ['app', 'workload', 'command'].filter((k) => merged[k] !== undefined)
    if (named.length > 1) {
      throw bad(`variants[${i}].server: merged over the experiment's server it names ${named.map((k) => `${k} "${merged[k]}"`).join(' and ')}: a server is one of them`)
    }
  }
  if (e.baseline !== undefined && !variants.some((v) => v.label === e.baseline || v.config?.strategy === e.baseline)) {
    throw bad(`baseline "${e.baseline}" names no variant (labels: ${[...labels].join(', ')})`)
  }
  if (e.reference !== undefined && !labels.has(e.reference)) throw bad(`reference "${e.reference}" names no variant (labels: ${[...labels].join(', ')})`)
  const load = { ...e.load }
  // shards of one load over several machines (syncbench ab --segment, --start-at): not a run's, whose server is its own
  for (const [section, value] of [['load', load], ['warmup', e.warmup]]) {
    for (const key of ['segment', 'startAt']) {
      if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) throw bad(`${section}.${key} is for syncbench ab shards on several machines; syncbench run starts a server per run and loads it from here`)
    }
  }
  for (const key of Object.keys(load)) {
    if (key === 'url') throw bad('load.url cannot be set: each run loads its server\'s address and the variant\'s path')
    if (!EXPERIMENT_LOAD_KEYS.includes(key)) throw bad(`load has an unexpected key "${key}" (load options: ${EXPERIMENT_LOAD_KEYS.join(', ')})`)
  }
  checkWith(() => checkLoadOptions(load, keySpelling('load.')))
  // HTTP/2's combinations (load.streams needs load.http2; keepAlive changes nothing there)
  checkWith(() => checkHttp2(load, keySpelling('load.')))
  if (e.warmup !== undefined) {
    // -n's and -c's rules, except that 0 requests means no warm-up
    const { requests, ...rest } = e.warmup
    checkWith(() => checkLoadOptions(rest, keySpelling('warmup.')))
    if (requests !== 0) checkWith(() => checkLoadOption('requests', requests, keySpelling('warmup.')))
  }
  const axes = e.axes ?? {}
  for (const [name, values] of Object.entries(axes)) {
    // a sweep over a load option (concurrency, requests, keepAlive): every point must be a value it takes
    if (Object.hasOwn(LOAD_AXES, name)) checkWith(() => { for (const v of values) checkLoadOption(LOAD_AXES[name], v, keySpelling('axes.')) })
  }
  for (const name of Object.keys(e.serverAxes ?? {})) {
    if (!Object.hasOwn(axes, name)) throw bad(`serverAxes.${name} names no axis (axes: ${Object.keys(axes).join(', ') || 'none'})`)
  }
  if (e.rateSweep !== undefined) checkRateSweep(e, bad)
  else if (Object.hasOwn(e.axes ?? {}, OFFERED_AXIS)) throw bad(`axes.${OFFERED_AXIS} are fractions of a measured capacity: they need a rateSweep section`)
  if (e.probe !== undefined && typeof e.probe !== 'boolean') throw bad(`probe must be true or false, got ${shown(e.probe)}`)
  const { op, cost, bytes } = e.calibration ?? {}
  if (op === 'readfile' && cost !== undefined) throw bad(`calibration.cost applies to bcrypt and bcryptjs, not readfile (readfile takes bytes), got "${cost}"`)
  if (op !== 'readfile' && bytes !== undefined) throw bad(`calibration.bytes applies to readfile, not ${op} (${op} takes cost), got "${bytes}"`)
  const swept = variants.filter((v) => v.sweep !== false).length
  const configurations = swept * Object.values(axes).reduce((n, values) => n * values.length, 1) + (variants.length - swept)
  if (configurations > MAX_CONFIGURATIONS) throw bad(`variants x axes make ${configurations} configurations, at most ${MAX_CONFIGURATIONS}`)
  const experiment = {
    // a user's own server is answered by the app kind (the route that holds its loop); any other by comparison
    table: /** @type {string} */ (e.server.command !== undefined ? 'app' : 'generic'),
    description: '',
    ...e,
    title: e.title ?? e.name,
    baseline: e.baseline ?? variants[0].label,
    load,
    axes,
    warmup: { requests: 4, concurrency: 2, ...e.warmup }
  }
  // Every server a run will start, with the options it will get (the variant's args, the serverAxes'
  // values), checked as syncbench serve checks its command line: a bad one is refused now, not after
  // the runs before it.
  const seen = new Set()
  for (const c of expandExperiment(experiment)) {
    if (seen.has(c.label)) throw bad(`two configurations are labelled "${c.label}": rename a variant`)
    seen.add(c.label)
    // a mix: its routes by LoadOptions.routes' rules, a connection for every route
    if (c.load.routes !== undefined) {
      const routes = c.load.routes
      checkWith(() => {
        checkLoadOption('routes', routes, keySpelling('mix.'))
        checkRoutes(routes, c.load.concurrency, typeof c.load.workers === 'number' ? c.load.workers : 1, keySpelling('load.'))
      }, `configuration "${c.label}": `)
    }
    if (c.server.workload !== undefined || c.server.command !== undefined) {
      if (c.server.args.length > 0) throw bad(`${c.label}: server.args apply to server.app, not to a workload module or a command, got "${c.server.args.join(' ')}"`)
      continue
    }
    checkWith(() => {
      const app = /** @type {string} */ (c.server.app)
      const options = parseServeArgs([app, ...c.server.args])
      if (options.help) throw invalidOption('server.args', c.server.args.join(' '), 'must be syncbench serve options, not --help')
    }, `configuration "${c.label}": server.args: `)
  }
  return experiment
}

/**
 * A value for a message, at most 80 characters (a 300-character name need not be echoed whole).
 * @param {unknown} value
 */
function shortened (value) {
  const text = String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/**
 * Refuse two experiments of one run with the same name: their runs, charts and tables would mix.
 * @param {Experiment[]} experiments
 */
export function checkDistinctNames (experiments) {
  const seen = new Set()
  for (const { name } of experiments) {
    if (seen.has(name)) throw new ExperimentError(`two experiments are named "${name}": each experiment of a run needs its own name`)
    seen.add(name)
  }
}

/** The bounds of a rateSweep's numbers. */
/**
 * A rateSweep section's offered axis (its fields' types and bounds are the schema's): fractions of capacity.
 * @param {any} e
 * @param {(what: string) => Error} bad
 */
function checkRateSweep (e, bad) {
  const offered = e.axes?.[OFFERED_AXIS]
  if (!Array.isArray(offered) || offered.length === 0) throw bad(`a rateSweep needs axes.${OFFERED_AXIS}: the offered rates as fractions of each variant's capacity (0.1 ... 1.2)`)
  for (const f of offered) if (typeof f !== 'number' || !(f > 0) || f > 100) throw bad(`axes.${OFFERED_AXIS} must be fractions of capacity above 0 (1 = the capacity), got "${f}"`)
  if (e.load?.rate !== undefined) throw bad('load.rate cannot be given with a rateSweep: its rates come from the measured capacity')
}

/**
 * @param {string} flag
 * @param {string} file as given on the command line
 * @param {string} cwd
 * @returns {Promise<string>} its absolute path
 */
async function existingFile (flag, file, cwd) {
  const abs = path.resolve(cwd, file)
  // a module is read whole by import(): the same checks as a file read here (lib/fs-input.js)
  await checkInputFile(abs, { fail: inputFailure(flag, file) })
  return abs
}

/**
 * An input file's problem as an ExperimentError naming the option and the file as given.
 * @param {string} flag
 * @param {string} file
 * @returns {(message: string, cause?: unknown) => Error}
 */
function inputFailure (flag, file) {
  return (message, cause) => new ExperimentError(`${flag} ${file}: ${message}`, { cause })
}
