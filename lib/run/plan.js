// An experiment's configuration matrix (variants x sweep axes) and the order runs happen in:
// repeat 1 of every configuration, then repeat 2 of every configuration, ... so a slow drift of the
// machine (thermal, another process) spreads over all configurations instead of biasing one, as
// Node core's benchmark/compare.js interleaves its runs.
import { DEFAULT_RESPONSE_TIMEOUT } from './run-deadline.js'
import { defaultRequests } from '../load/options.js'
import { BODY_METHODS, routeMethod } from '../load/routes.js'

/**
 * Axes that change the load rather than the route: axis name -> LoadOptions property.
 * @type {Readonly<Record<string, 'concurrency'|'requests'|'keepAlive'|'rate'>>}
 */
export const LOAD_AXES = { concurrency: 'concurrency', requests: 'requests', keepAlive: 'keepAlive', rate: 'rate' }
/**
 * The rate-sweep's axis: the offered rate as a fraction of the variant's measured capacity (1 = the
 * capacity). Its rate is known only once the capacity was measured: the runner sets load.rate then.
 */
export const OFFERED_AXIS = 'offered'
/**
 * The axis that puts the probe (lib/run/prober.js) on the measured load's own HTTP/2 connection
 * ('load') or on connections of its own ('own', as without the axis).
 */
export const PROBE_CONNECTION_AXIS = 'probeConnection'

/**
 * How labels name an axis value: "async c=20", "async pool=4".
 * @type {Readonly<Record<string, string>>}
 */
const SHORT = { concurrency: 'c', requests: 'n', threadpoolSize: 'pool', poolSize: 'pool', keepAlive: 'k', rate: 'R', probeConnection: 'probe' }

/** @typedef {string|number|boolean} AxisValue */

/**
 * @typedef {object} Configuration
 * @property {string} experiment
 * @property {string} label              unique within the experiment
 * @property {string} variant            the variant's label
 * @property {string} group              configurations compared with each other share a group (same axis point and workload)
 * @property {Record<string, string|number|boolean>} config
 * @property {string} path               route with the query the axes add
 * @property {Record<string, any> & { requests: number, concurrency: number }} load  LoadOptions without url
 *   (as the experiment's load section, checked by lib/load/options.js; see Experiment.load)
 * @property {import('./experiment-loader.js').ServerSpec & { args: string[], env: Record<string, string> }} server
 *   with env merged (UV_THREADPOOL_SIZE)
 * @property {'load'|'own'} probeConnection  where the probe's requests go: the load's HTTP/2 connection, or their own
 */

/**
 * The load options the command line sets for every configuration, over the experiments' own.
 * @typedef {{ requests?: number, concurrency?: number, keepAlive?: boolean, rate?: number, responseTimeout?: number, workers?: number, secretHeaders?: string[], http2?: boolean, streams?: number }} LoadOverrides
 */

/**
 * Every configuration of an experiment. Its load is the experiment's, over syncbench run's default
 * per-response deadline (DEFAULT_RESPONSE_TIMEOUT), under the command line's overrides.
 * @param {import('./experiment-loader.js').Experiment} experiment
 * @param {LoadOverrides} [overrides] command-line -n / -c / -k / -R / --response-timeout / --workers /
 *   --http2 / --streams; --secret-header adds to the experiment's own secretHeaders
 * @returns {Configuration[]}
 */
export function expandExperiment (experiment, overrides = {}) {
  const points = cartesian(Object.entries(experiment.axes ?? {}))
  /** @type {Configuration[]} */
  const out = []
  // A variant with `sweep: false` runs once, outside the axes, after the sweep: a reference line.
  const swept = experiment.variants.filter((v) => v.sweep !== false)
  const fixed = experiment.variants.filter((v) => v.sweep === false)
  const pairs = [...points.flatMap((point) => swept.map((variant) => ({ point, variant }))), ...fixed.map((variant) => ({ point: {}, variant }))]
  for (const { point, variant } of pairs) {
    /** @type {Configuration['load']} */
    const load = { concurrency: 1, requests: NaN, responseTimeout: DEFAULT_RESPONSE_TIMEOUT, ...experiment.load }
    for (const key of /** @type {const} */ (['requests', 'concurrency', 'keepAlive', 'rate', 'responseTimeout', 'workers', 'http2', 'streams'])) if (overrides[key] !== undefined) load[key] = overrides[key]
    if (overrides.secretHeaders?.length) load.secretHeaders = [...(load.secretHeaders ?? []), ...overrides.secretHeaders]
    const server = {
      ...experiment.server,
      ...variant.server,
      args: [...(variant.server?.args ?? experiment.server.args ?? [])],
      env: { ...experiment.server.env, ...variant.server?.env }
    }
    const query = new URLSearchParams()
    /** @type {Record<string, AxisValue>} */
    const config = { ...variant.config }
    for (const [axis, value] of Object.entries(point)) {
      config[axis] = value
      if (Object.hasOwn(LOAD_AXES, axis)) load[LOAD_AXES[axis]] = value
      else if (axis === OFFERED_AXIS || axis === PROBE_CONNECTION_AXIS) continue
      else if (axis === 'threadpoolSize') server.env.UV_THREADPOOL_SIZE = String(value)
      else if (experiment.serverAxes?.[axis]) server.args.push(experiment.serverAxes[axis], String(value))
      else query.set(axis, String(value))
    }
    if (load.http2 === true) {
      // An HTTP/2 connection always carries the next request: -k says nothing there (and lib/load
      // refuses it), so the seeds' keepAlive gives way to --http2. syncbench's own servers are started
      // speaking h2c (serve --http2; a workload's server child is told so by the runner); a user's app
      // (--app, --target) must speak it already.
      delete load.keepAlive
      if (server.app !== undefined && !server.args.includes('--http2')) server.args.push('--http2')
      config.http2 = true
      config.streams = load.streams ?? 1
    }
    // ab (and lib/load) refuse -c above -n; a sweep point at c=100 needs at least 100 requests anyway.
    // no request count: ab's 1, or with -t what -t implies (ab's 50000; in an open loop, the requests
    // due within it; on a ramp without -t, those it schedules)
    if (Number.isNaN(load.requests)) load.requests = defaultRequests(/** @type {import('../types.js').LoadOptions} */ (load))
    if (load.concurrency > load.requests) load.requests = load.concurrency
    // workers (--workers or the load section) mean "up to n": a sweep point with fewer connections
    // runs on as many threads as it has connections (lib/load refuses more workers than connections)
    if (typeof load.workers === 'number' && load.workers > load.concurrency) load.workers = load.concurrency
    config.requests = load.requests
    config.concurrency = load.concurrency
    config.keepAlive = Boolean(load.keepAlive)
    // an open loop (LoadOptions.rate): its target rate, requests per second
    if (load.rate !== undefined) config.rate = load.rate
    const suffix = Object.entries(point).map(([axis, value]) => axis === OFFERED_AXIS ? `${Number((Number(value) * 100).toPrecision(4))}%` : `${SHORT[axis] ?? axis}=${value}`).join(' ')
    const pointKey = Object.entries(point).map(([axis, value]) => `${axis}=${value}`).join('&')
    out.push({
      experiment: experiment.name,
      label: suffix ? `${variant.label} ${suffix}` : variant.label,
      variant: variant.label,
      group: `${config.workload ?? ''}|${pointKey}`,
      config,
      path: withQuery(requestOf(variant, load), query),
      load,
      server,
      probeConnection: /** @type {Record<string, AxisValue>} */ (point)[PROBE_CONNECTION_AXIS] === 'load' ? 'load' : 'own'
    })
  }
  return out
}

/**
 * The configuration each one is compared with: the baseline variant at the same axis point and
 * workload; a baseline that runs outside the sweep (sweep: false), for every point; with a single
 * swept variant, the first point of the sweep (a reference beside it is compared with nothing).
 * @param {import('./experiment-loader.js').Experiment} experiment
 * @param {Configuration[]} configurations
 * @returns {Map<string, string>} label -> baseline label (absent: it is a baseline itself)
 */
export function baselines (experiment, configurations) {
  /** @type {Map<string, string>} */
  const map = new Map()
  const swept = experiment.variants.filter((v) => v.sweep !== false)
  const fixedBase = experiment.variants.find((v) => v.sweep === false && v.label === experiment.baseline)
  // The baseline runs once outside the sweep (one event loop against pools of threads): every swept point is compared with it.
  if (fixedBase) {
    for (const c of configurations) if (c.variant !== fixedBase.label) map.set(c.label, fixedBase.label)
    return map
  }
  if (swept.length === 1) {
    const points = configurations.filter((c) => c.variant === swept[0].label)
    for (const c of points.slice(1)) map.set(c.label, points[0].label)
    return map
  }
  const isBase = (/** @type {Configuration} */ c) => c.variant === experiment.baseline || c.config.strategy === experiment.baseline
  for (const c of configurations) {
    if (isBase(c)) continue
    const base = configurations.find((b) => b.group === c.group && isBase(b))
    if (base) map.set(c.label, base.label)
  }
  return map
}

/**
 * The configurations that run an open loop (a rate: -R, load.rate, a rate axis) and the experiments
 * whose rates are measured at run time (rateSweep), for the tool check (lib/run/tools.js).
 * @param {import('./experiment-loader.js').Experiment[]} experiments
 * @param {Parameters<typeof expandExperiment>[1]} [overrides]
 * @returns {{ experiment: string, rate?: number }[]}
 */
export function openLoops (experiments, overrides) {
  return experiments.flatMap((e) => e.rateSweep
    ? [{ experiment: e.name }]
    : expandExperiment(e, overrides).flatMap((c) => c.load.rate === undefined ? [] : [{ experiment: e.name, rate: c.load.rate }]))
}

/**
 * Runs in interleaved order, experiment by experiment. With several Node.js binaries (--node), each
 * configuration runs under each of them in turn (A B A B ...), as compare.js alternates its old and new
 * binaries: the binaries of one configuration run next to each other, so a drift of the machine hits
 * them alike.
 * @template {{ name: string }} N
 * @param {Configuration[]} configurations
 * @param {number} runs
 * @param {N[]} [nodes]  the binaries, the baseline first (none: the one running syncbench)
 * @returns {{ configuration: Configuration, repeat: number, node?: N }[]}
 */
export function schedule (configurations, runs, nodes = []) {
  /** @type {{ configuration: Configuration, repeat: number, node?: N }[]} */
  const order = []
  for (let repeat = 1; repeat <= runs; repeat++) {
    for (const configuration of configurations) {
      if (nodes.length === 0) order.push({ configuration, repeat })
      else for (const node of nodes) order.push({ configuration, repeat, node })
    }
  }
  return order
}

/**
 * A schedule's runs round by round (--runs auto), asking after each round whether to go on: once
 * `afterRound(repeat)` says the rounds so far are enough, no run of a later round is handed out. Lazy,
 * so the question is asked when the round's last run has ended, before the next one starts.
 * @template {{ repeat: number }} T
 * @param {T[]} order  schedule()'s, as far as the most rounds allowed
 * @param {(repeat: number) => boolean} afterRound  true: stop
 * @returns {Generator<T, void, undefined>}
 */
export function * roundsUntil (order, afterRound) {
  for (const [i, item] of order.entries()) {
    yield item
    const next = order[i + 1]
    if ((next === undefined || next.repeat !== item.repeat) && afterRound(item.repeat)) return
  }
}

/**
 * Every combination of one value per axis (one empty point without axes).
 * @param {[string, AxisValue[]][]} entries
 * @returns {Record<string, AxisValue>[]}
 */
function cartesian (entries) {
  /** @type {Record<string, AxisValue>[]} */
  let points = [{}]
  for (const [axis, values] of entries) {
    points = points.flatMap((p) => values.map((v) => ({ ...p, [axis]: v })))
  }
  return points
}

/**
 * A variant's requests set into its load: a `request` gives the method, its headers after the run's,
 * its body (else the run's body goes with a POST, PUT or PATCH only); a `mix` gives the routes loaded
 * together (LoadOptions.routes, the run's body going as lib/load says). The path the URL takes.
 * @param {import('./experiment-loader.js').Variant} variant
 * @param {Configuration['load']} load  changed in place
 * @returns {string}
 */
function requestOf (variant, load) {
  if (variant.mix) {
    load.routes = variant.mix.map((m) => ({ ...routeOf(m.request), ...(m.name === undefined ? {} : { name: m.name }), ...(m.weight === undefined ? {} : { weight: m.weight }) }))
    // the URL names the server; each route its own path
    return variant.mix[0].request.path
  }
  const request = variant.request
  if (!request) return /** @type {string} */ (variant.path)
  const route = routeOf(request)
  const method = routeMethod(route)
  load.method = method
  if (route.headers) load.headers = [...(load.headers ?? []), ...route.headers]
  if (route.body !== undefined) {
    load.body = route.body
    if (route.contentType !== undefined) load.contentType = route.contentType
    else load.contentType ??= 'text/plain'
  } else if (!BODY_METHODS.has(method)) {
    delete load.body
    delete load.contentType
  }
  return request.path
}

/**
 * An experiment's request as LoadOptions.routes takes it: its body (text, or a bodyFile's bytes read
 * by the loader) as bytes.
 * @param {import('./experiment-loader.js').RequestSpec} r
 * @returns {import('../types.js').Route}
 */
function routeOf (r) {
  /** @type {import('../types.js').Route} */
  const route = { path: r.path }
  if (r.method !== undefined) route.method = r.method.toUpperCase()
  if (r.headers !== undefined) route.headers = r.headers
  if (r.body !== undefined) route.body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body
  if (r.contentType !== undefined) route.contentType = r.contentType
  return route
}

/**
 * @param {string} route
 * @param {URLSearchParams} query
 */
function withQuery (route, query) {
  const extra = query.toString()
  if (!extra) return route
  return route + (route.includes('?') ? '&' : '?') + extra
}
