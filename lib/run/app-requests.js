// What `syncbench run --app` sends: the routes given on the command line (--path, --request, their
// name= labels and --weight), in the order given, and syncbench ab's request options (-m, -p, -u, -T,
// -H, -C, -A) with ab's meaning, checked by the load options' own rules (lib/load/options.js). Request
// options given before any route go with every route (the body with the routes whose method carries
// one); given after a route, with that route alone, replacing a shared one of the same name.
import { InvalidOptionError, invalidOption } from '../errors.js'
import { parseLoadArg } from '../load/options.js'
import { BODY_METHODS, isRequestPath } from '../load/routes.js'
import { basicAuth } from '../load/request.js'
import { readBody } from '../ab/ab-args.js'
import { redactUrl } from '../redact.js'

/**
 * One route of an app, as the command line gave it, with the request options that are its own.
 * @typedef {object} AppRoute
 * @property {string} method
 * @property {string} path
 * @property {string} [name]    its name= label
 * @property {number} [weight]  --weight (a mix's share of the connections)
 * @property {string[]} [headers]  header lines sent after the shared ones (LoadOptions.routes' headers):
 *                              its own -H, its -A and -C as Authorization and Cookie lines, and the
 *                              shared ones that not every route sends
 * @property {Buffer} [body]    its own -p / -u (or the shared body, given a type of its own by -T)
 * @property {string} [contentType]  with body
 */

/**
 * The request options every route of the run shares (LoadOptions' names): the experiment's load section.
 * @typedef {{ headers?: string[], cookies?: string[], auth?: string, body?: Buffer, contentType?: string }} SharedRequest
 */

/**
 * The request flags given in one place: before any route (every route's) or after one (its own).
 * @typedef {object} RequestFlags
 * @property {string|null} method     -m, -p (POST) or -u (PUT)
 * @property {string|null} methodFlag the flag that chose it
 * @property {Buffer} [body]
 * @property {string} bodyGiven       the flag and file that gave the body, as messages name it
 * @property {string} [contentType]
 * @property {string} contentTypeGiven
 * @property {string[]} headers
 * @property {string[]} cookies
 * @property {string} [auth]
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

/** @returns {RequestFlags} none given yet */
function noFlags () {
  return { method: null, methodFlag: null, bodyGiven: '', contentTypeGiven: '', headers: [], cookies: [] }
}

/**
 * A route as messages name it: "GET /health", or "health (GET /health)".
 * @param {AppRoute} r
 */
function routeShown (r) {
  return r.name === undefined ? `${r.method} ${r.path}` : `${r.name} (${r.method} ${r.path})`
}

/** The name of a header line "Name: value", in lower case (header names are case-insensitive). @param {string} line */
function headerName (line) {
  return line.slice(0, line.indexOf(':')).trim().toLowerCase()
}

/** The name of a cookie "name=value". @param {string} cookie */
function cookieName (cookie) {
  const eq = cookie.indexOf('=')
  return (eq === -1 ? cookie : cookie.slice(0, eq)).trim()
}

/** @param {readonly string[]} a @param {readonly string[]} b */
function sameList (a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/**
 * The routes and the request options of a run --app command line. A request flag given before any
 * route is every route's; given after a --path or --request, that route's alone: its -H replaces a
 * shared header of the same name and adds the others, its -C a shared cookie of the same name, its -A
 * the shared -A (and a shared Authorization header); its -p / -u is its body, and makes a --path route
 * POST / PUT as in ab (a --request names its method).
 * @param {{ kind: string, name?: string, rawName?: string, value?: string }[]} tokens  parseArgs' tokens, in order
 * @param {{ mix: boolean }} o
 * @returns {{ routes: AppRoute[], shared: SharedRequest }}
 */
export function parseAppRequests (tokens, { mix }) {
  /** @type {{ route: AppRoute, byPath: boolean, own: RequestFlags, flag: string, value: string }[]} */
  const given = []
  /** @type {Set<AppRoute>} */
  const weighed = new Set()
  const shared = noFlags()
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue
    const flag = /** @type {string} */ (token.rawName)
    const value = token.value
    const last = given.at(-1)
    // after a route, a request flag is that route's own; before any, every route's
    const flags = last?.own ?? shared
    // ab's rule, in each place: one method flag
    /** @param {string} name */
    const setMethod = (name) => {
      if (flags.method !== null) throw new InvalidOptionError(`${flag} cannot be combined with ${flags.methodFlag}: one method (${flags.method} already chosen${last ? ` for ${routeShown(last.route)}` : ''})`)
      flags.method = name
      flags.methodFlag = flag
    }
    switch (token.name) {
      case 'path': {
        const { name, rest } = splitLabel(value)
        const problem = pathProblem(rest)
        if (problem !== null) throw invalidOption('--path', value, problem)
        given.push({ route: { method: 'GET', path: rest, ...(name === undefined ? {} : { name }) }, byPath: true, own: noFlags(), flag, value })
        break
      }
      case 'request': given.push({ route: parseRequestOption(value), byPath: false, own: noFlags(), flag, value }); break
      case 'weight': {
        const route = last?.route
        if (route === undefined) throw invalidOption('--weight', value, 'must follow the route it weighs (--path or --request)')
        if (weighed.has(route)) throw invalidOption('--weight', value, `weighs ${route.name ?? `${route.method} ${route.path}`} a second time`)
        const weight = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN
        if (!(weight > 0 && weight <= MAX_WEIGHT)) throw invalidOption('--weight', value, `must be a positive number up to ${MAX_WEIGHT}`)
        route.weight = weight
        weighed.add(route)
        break
      }
      case 'method': {
        const method = parseLoadArg('method', flag, value)
        if (last !== undefined && !last.byPath) throw invalidOption(flag, value, `cannot follow --request "${last.route.method} ${last.route.path}", which names its method (-m before any route sets the --path routes')`)
        setMethod(method)
        break
      }
      // after a --request, the body only: the --request names the method
      case 'body-file': setMethod('POST'); flags.body = readBody(flag, value); flags.bodyGiven = `${flag} ${value}`; break
      case 'put-file': setMethod('PUT'); flags.body = readBody(flag, value); flags.bodyGiven = `${flag} ${value}`; break
      case 'content-type': flags.contentType = parseLoadArg('contentType', flag, value); flags.contentTypeGiven = `${flag} ${value}`; break
      case 'header': flags.headers.push(parseLoadArg('headers', flag, value)); break
      case 'cookie': flags.cookies.push(parseLoadArg('cookies', flag, value)); break
      // ab skips leading blanks of the credentials
      case 'auth': flags.auth = parseLoadArg('auth', flag, value.trimStart()); break
    }
  }
  if (weighed.size > 0 && !mix) throw invalidOption('--weight', String([...weighed][0].weight), 'applies to --mix only (without it each route is loaded in a run of its own)')
  if (mix && given.length < 2) throw invalidOption('--mix', given.length === 0 ? 'no route' : `${given[0].route.method} ${given[0].route.path} alone`, 'needs two routes or more (--path, --request) to load together')
  // no route given: the app's root, as before routes had methods
  if (given.length === 0) given.push({ route: { method: 'GET', path: '/' }, byPath: true, own: noFlags(), flag: '', value: '' })
  // --path routes: their own -m, -p or -u, else GET unless a shared -m says otherwise; with a shared
  // -p / -u and no --request, POST / PUT as in ab
  const explicit = given.some((g) => !g.byPath)
  for (const { route, byPath, own } of given) {
    if (!byPath) continue
    if (own.method !== null) route.method = own.method
    else if (shared.method !== null && (shared.methodFlag === '-m' || !explicit)) route.method = shared.method
  }
  // the same route twice (with other credentials, say): tables and results.json tell routes apart by label
  /** @type {Set<string>} */
  const names = new Set()
  for (const { route, flag, value } of given) {
    const name = route.name ?? `${route.method} ${route.path}`
    if (names.has(name)) throw invalidOption(flag, value, `names ${name} a second time: give each its own label (${flag} "NAME=${flag === '--path' ? route.path : `${route.method} ${route.path}`}")`)
    names.add(name)
  }
  const out = bodies(given, shared)
  headerOptions(given, shared, out)
  return { routes: given.map((g) => g.route), shared: out }
}

/**
 * The shared body and each route's own (set on the route), checked against the routes' methods.
 * @param {{ route: AppRoute, own: RequestFlags }[]} given  the routes, their methods final
 * @param {RequestFlags} shared
 * @returns {SharedRequest} the shared body and type
 */
function bodies (given, shared) {
  /** @type {SharedRequest} */
  const out = {}
  if (shared.body !== undefined) {
    if (!given.some((g) => BODY_METHODS.has(g.route.method))) {
      throw new InvalidOptionError(`${shared.bodyGiven}: a body goes with a POST, PUT or PATCH route, and no route given is one (--request "POST /login")`)
    }
    if (!given.some((g) => BODY_METHODS.has(g.route.method) && g.own.body === undefined)) {
      throw new InvalidOptionError(`${shared.bodyGiven}: given before any route, it goes with the POST, PUT and PATCH routes without a body of their own, and there is none`)
    }
    out.body = shared.body
    // ab's default type of a body
    out.contentType = shared.contentType ?? 'text/plain'
  } else if (shared.contentType !== undefined) {
    out.contentType = shared.contentType
  }
  for (const { route, own } of given) {
    if (own.body !== undefined) {
      if (!BODY_METHODS.has(route.method)) throw new InvalidOptionError(`${own.bodyGiven}: a body goes with a POST, PUT or PATCH route, and ${routeShown(route)} is not one (--request "POST /login")`)
      route.body = own.body
      route.contentType = own.contentType ?? shared.contentType ?? 'text/plain'
    } else if (own.contentType !== undefined) {
      // the shared body, sent to this route with a type of its own
      if (shared.body === undefined || !BODY_METHODS.has(route.method)) {
        throw new InvalidOptionError(`${own.contentTypeGiven}: a content type goes with a body, and ${routeShown(route)} sends none (-p after the route gives it one)`)
      }
      route.body = shared.body
      route.contentType = own.contentType
    }
  }
  return out
}

/**
 * Each route's headers, cookies and auth: the shared ones it does not replace, then its own. What
 * every route sends alike stays shared (the load section, as ab sends it); the rest goes on the
 * routes as header lines, -A and -C written as ab writes them.
 * @param {{ route: AppRoute, own: RequestFlags }[]} given
 * @param {RequestFlags} shared
 * @param {SharedRequest} out  the shared options, added to
 */
function headerOptions (given, shared, out) {
  const effective = given.map(({ own }) => {
    const replaced = new Set(own.headers.map(headerName))
    if (own.auth !== undefined) replaced.add('authorization')
    if (own.cookies.length > 0) replaced.add('cookie')
    const ownCookies = new Set(own.cookies.map(cookieName))
    return {
      headers: shared.headers.filter((h) => !replaced.has(headerName(h))),
      // its own Cookie header replaces the shared cookies; its own -C, the shared cookies of their names
      cookies: own.headers.some((h) => headerName(h) === 'cookie') ? [] : [...shared.cookies.filter((c) => !ownCookies.has(cookieName(c))), ...own.cookies],
      auth: own.auth ?? (replaced.has('authorization') ? undefined : shared.auth)
    }
  })
  const common = shared.headers.filter((h) => effective.every((e) => e.headers.includes(h)))
  const commonCookies = effective.every((e) => sameList(e.cookies, shared.cookies))
  const commonAuth = effective.every((e) => e.auth === shared.auth)
  if (common.length > 0) out.headers = common
  if (commonCookies && shared.cookies.length > 0) out.cookies = shared.cookies
  if (commonAuth && shared.auth !== undefined) out.auth = shared.auth
  for (const [i, { route, own }] of given.entries()) {
    const e = effective[i]
    const lines = e.headers.filter((h) => !common.includes(h))
    // one Cookie line, as -C's are joined (lib/load/request.js)
    if (!commonCookies && e.cookies.length > 0) lines.push(`Cookie: ${e.cookies.join('; ')}`)
    if (!commonAuth && e.auth !== undefined) lines.push(`Authorization: ${basicAuth(e.auth)}`)
    lines.push(...own.headers)
    if (lines.length > 0) route.headers = lines
  }
}

/**
 * The label of a route run on its own: its name, else its path for a GET (as before methods were
 * given), else "METHOD /path".
 * @param {AppRoute} r
 */
export function appRouteLabel (r) {
  // a label is shown and saved everywhere: a credential in the query starred (lib/redact.js)
  return r.name ?? redactUrl(r.method === 'GET' ? r.path : `${r.method} ${r.path}`)
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
