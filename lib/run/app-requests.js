// What `syncbench run --app` sends: the routes given on the command line (--path, --request, their
// name= labels and --weight), in the order given, and syncbench ab's request options (-m, -p, -u, -T,
// -H, -C, -A) with ab's meaning, checked by the load options' own rules (lib/load/options.js). Headers,
// cookies and auth go with every route; the body with the routes whose method carries one.
import { InvalidOptionError, invalidOption } from '../errors.js'
import { parseLoadArg } from '../load/options.js'
import { BODY_METHODS, isRequestPath } from '../load/routes.js'
import { readBody } from '../ab/ab-args.js'

/**
 * One route of an app, as the command line gave it.
 * @typedef {object} AppRoute
 * @property {string} method
 * @property {string} path
 * @property {string} [name]    its name= label
 * @property {number} [weight]  --weight (a mix's share of the connections)
 */

/**
 * The request options every route of the run shares (LoadOptions' names): the experiment's load section.
 * @typedef {{ headers?: string[], cookies?: string[], auth?: string, body?: Buffer, contentType?: string }} SharedRequest
 */

/** The request options of syncbench ab that run --app takes, by parseArgs' names. */
export const REQUEST_FLAGS = Object.freeze(['method', 'body-file', 'put-file', 'content-type', 'header', 'cookie', 'auth'])

/** A name= label: what tables and results.json call the route. */
const LABEL = /^([A-Za-z0-9_][\w .:-]{0,63})=(.*)$/s
/** "METHOD /path": a method token, one space, the path. */
const REQUEST = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+)$/
/** --weight's bound: a share, not a count; larger is a typo. */
const MAX_WEIGHT = 1_000_000

/** --path's rule, a --request's path's and --probe-path's (a route's: isRequestPath). @param {string} p */
export function pathProblem (p) {
  return isRequestPath(p) ? null : 'must be a path such as /report (starting with one "/", no spaces)'
}

/**
 * A name= label split off a --path or --request value.
 * @param {string} value
 * @returns {{ name?: string, rest: string }}
 */
function splitLabel (value) {
  // a path starts with "/": "/search?q=a" has no label, "search=/search?q=a" has one
  if (value.startsWith('/')) return { rest: value }
  const m = LABEL.exec(value)
  return m ? { name: m[1].trim(), rest: m[2] } : { rest: value }
}

/**
 * --request's value: "METHOD /path" or "name=METHOD /path".
 * @param {string} value
 * @returns {AppRoute}
 */
export function parseRequestOption (value) {
  const { name, rest } = splitLabel(value)
  const m = REQUEST.exec(rest)
  if (m === null) throw invalidOption('--request', value, 'must be "METHOD /path", as in --request "POST /login" (or "login=POST /login")')
  const problem = pathProblem(m[2])
  if (problem !== null) throw invalidOption('--request', value, `has a path that ${problem}`)
  return { method: m[1].toUpperCase(), path: m[2], ...(name === undefined ? {} : { name }) }
}

/**
 * The routes and the shared request options of a run --app command line.
 * @param {{ kind: string, name?: string, rawName?: string, value?: string }[]} tokens  parseArgs' tokens, in order
 * @param {{ mix: boolean }} o
 * @returns {{ routes: AppRoute[], shared: SharedRequest }}
 */
export function parseAppRequests (tokens, { mix }) {
  /** @type {(AppRoute & { byPath: boolean })[]} */
  const routes = []
  /** @type {Set<AppRoute>} */
  const weighed = new Set()
  /** @type {string|null} -m, -p or -u: the method of the --path routes */
  let method = null
  /** @type {string|null} */
  let methodFlag = null
  /** @type {Buffer|undefined} */
  let body
  /** the flag and file that gave it */
  let bodyGiven = ''
  /** @type {string|undefined} */
  let contentType
  /** @type {SharedRequest} */
  const shared = {}
  // ab's rule: one method flag, except -m which may replace an earlier one
  /** @param {string} flag @param {string} name */
  const setMethod = (flag, name) => {
    if (method !== null) throw new InvalidOptionError(`${flag} cannot be combined with ${methodFlag}: one method (${method} already chosen)`)
    method = name
    methodFlag = flag
  }
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue
    const flag = /** @type {string} */ (token.rawName)
    const value = token.value
    switch (token.name) {
      case 'path': {
        const { name, rest } = splitLabel(value)
        const problem = pathProblem(rest)
        if (problem !== null) throw invalidOption('--path', value, problem)
        routes.push({ method: 'GET', path: rest, ...(name === undefined ? {} : { name }), byPath: true })
        break
      }
      case 'request': routes.push({ ...parseRequestOption(value), byPath: false }); break
      case 'weight': {
        const route = routes.at(-1)
        if (route === undefined) throw invalidOption('--weight', value, 'must follow the route it weighs (--path or --request)')
        if (weighed.has(route)) throw invalidOption('--weight', value, `weighs ${route.name ?? `${route.method} ${route.path}`} a second time`)
        const weight = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN
        if (!(weight > 0 && weight <= MAX_WEIGHT)) throw invalidOption('--weight', value, `must be a positive number up to ${MAX_WEIGHT}`)
        route.weight = weight
        weighed.add(route)
        break
      }
      case 'method': setMethod(flag, parseLoadArg('method', flag, value)); break
      case 'body-file': setMethod(flag, 'POST'); body = readBody(flag, value); bodyGiven = `${flag} ${value}`; break
      case 'put-file': setMethod(flag, 'PUT'); body = readBody(flag, value); bodyGiven = `${flag} ${value}`; break
      case 'content-type': contentType = parseLoadArg('contentType', flag, value); break
      case 'header': (shared.headers ??= []).push(parseLoadArg('headers', flag, value)); break
      case 'cookie': (shared.cookies ??= []).push(parseLoadArg('cookies', flag, value)); break
      // ab skips leading blanks of the credentials
      case 'auth': shared.auth = parseLoadArg('auth', flag, value.trimStart()); break
    }
  }
  if (weighed.size > 0 && !mix) throw invalidOption('--weight', String([...weighed][0].weight), 'applies to --mix only (without it each route is loaded in a run of its own)')
  if (mix && routes.length < 2) throw invalidOption('--mix', routes.length === 0 ? 'no route' : `${routes[0].method} ${routes[0].path} alone`, 'needs two routes or more (--path, --request) to load together')
  // no route given: the app's root, as before routes had methods
  if (routes.length === 0) routes.push({ method: 'GET', path: '/', byPath: true })
  // --path routes: GET unless -m says otherwise; with -p / -u and no --request, POST / PUT as in ab
  const explicit = routes.some((r) => !r.byPath)
  for (const r of routes) {
    if (!r.byPath) continue
    if (method === null) continue
    if (methodFlag === '-m' || !explicit) r.method = method
  }
  if (body !== undefined) {
    if (!routes.some((r) => BODY_METHODS.has(r.method))) {
      throw new InvalidOptionError(`${bodyGiven}: a body goes with a POST, PUT or PATCH route, and no route given is one (--request "POST /login")`)
    }
    shared.body = body
    // ab's default type of a body
    shared.contentType = contentType ?? 'text/plain'
  } else if (contentType !== undefined) {
    shared.contentType = contentType
  }
  return { routes: routes.map(({ byPath, ...r }) => r), shared }
}

/**
 * The label of a route run on its own: its name, else its path for a GET (as before methods were
 * given), else "METHOD /path".
 * @param {AppRoute} r
 */
export function appRouteLabel (r) {
  return r.name ?? (r.method === 'GET' ? r.path : `${r.method} ${r.path}`)
}

/** Environment variables syncbench sets for the app itself. */
const OWN_ENV = new Set(['PORT', 'SYNCBENCH_CONTROL', 'SYNCBENCH_PARENT_PID'])

/**
 * --env's values: NAME=value each, for the app's process.
 * @param {string[]} values
 * @returns {Record<string, string>}
 */
export function parseEnvOption (values) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const value of values) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value)
    if (m === null) throw invalidOption('--env', value, 'must be NAME=value, as in --env NODE_ENV=production')
    if (OWN_ENV.has(m[1])) throw invalidOption('--env', value, `cannot set ${m[1]}: syncbench sets it for the app${m[1] === 'PORT' ? ' (PORT=0, or --port)' : ''}`)
    if (/[\0\r\n]/.test(m[2])) throw invalidOption('--env', value.replace(/\r/g, '\\r').replace(/\n/g, '\\n'), 'must hold its value on one line')
    env[m[1]] = m[2]
  }
  return env
}
