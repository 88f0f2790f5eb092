// Express's routes, read from its router's layers (Express has no API that lists them).
// Tested on Express 4.22 (its own router, path-to-regexp 0.1) and Express 5.3 (router 2.3,
// path-to-regexp 8). A route's layer keeps its path (`route.path`); a mounted router's layer does not
// always: router 2.3 keeps it as `rawPath`; Express 4 keeps only the regexp it compiled, from which
// the path is read back; router 2.0-2.2 keeps it nowhere but in its matchers' closures (the compiled
// regexp, read back the same way). A path that cannot be read back is a note, never a guess.
// Discovery runs when asked, so routes added after listen are seen.
import { dataProperty } from '../self-inspect.js'

/** Routers nested deeper than this are not followed (a router mounted in itself would loop). */
const MAX_NESTING = 32

/** @type {import('../frameworks.js').FrameworkAdapter} */
export default {
  name: 'express',
  packageName: 'express',
  recognise: isExpressApp,
  async list (app, tools) {
    /** @type {import('../frameworks.js').FrameworkListing} */
    const listing = { routes: [], notes: [] }
    await listApp(app, '', tools, listing, 0)
    return listing
  }
}

/** @param {unknown} value */
function isExpressApp (value) {
  const settings = typeof value === 'function' ? dataProperty(value, 'settings') : undefined
  return ['handle', 'set', 'enabled'].every((name) => typeof dataProperty(value, name) === 'function') &&
    settings !== null && typeof settings === 'object'
}

/**
 * @param {any} app
 * @param {string} prefix
 * @param {import('../frameworks.js').ListTools} tools
 * @param {import('../frameworks.js').FrameworkListing} listing
 * @param {number} depth
 */
async function listApp (app, prefix, tools, listing, depth) {
  // Express 4 creates its router with the first route (`_router`), Express 5 on first read (`router`):
  // an app with no router yet has no routes, and none is created here.
  const own = Object.getOwnPropertyDescriptor(app, 'router')
  const router = '_router' in app ? app._router : own && 'value' in own ? own.value : own?.get ? own.get.call(app) : undefined
  if (router && Array.isArray(router.stack)) await listStack(router.stack, prefix, tools, listing, depth)
}

/**
 * @param {any[]} stack
 * @param {string} prefix
 * @param {import('../frameworks.js').ListTools} tools
 * @param {import('../frameworks.js').FrameworkListing} listing
 * @param {number} depth
 */
async function listStack (stack, prefix, tools, listing, depth) {
  if (depth > MAX_NESTING) {
    listing.notes.push(`express: routers nested deeper than ${MAX_NESTING} under ${prefix || '/'} were not followed`)
    return
  }
  for (const layer of stack) {
    if (layer.route) {
      listRoute(layer.route, prefix, listing)
      continue
    }
    const handle = layer.handle
    const sub = typeof handle === 'function' && Array.isArray(handle.stack) ? handle : null
    const app = sub ? null : await mountedApp(handle, tools)
    if (!sub && !app) continue
    const mounts = await mountPaths(layer, tools)
    if (typeof mounts === 'string') {
      listing.notes.push(`express: a router mounted under ${prefix || '/'} at a path that cannot be read back (${mounts}): its routes are not listed`)
      continue
    }
    for (const mount of mounts) {
      const at = joinPaths(prefix, mount)
      if (sub) await listStack(sub.stack, at, tools, listing, depth + 1)
      else await listApp(app, at, tools, listing, depth + 1)
    }
  }
}

/**
 * An Express app mounted with `app.use(path, subApp)`: Express wraps it in a function
 * (`mounted_app`) that closes over it.
 * @param {unknown} handle
 * @param {import('../frameworks.js').ListTools} tools
 */
async function mountedApp (handle, tools) {
  if (typeof handle !== 'function' || handle.name !== 'mounted_app') return null
  for (const scope of await tools.closure(handle)) {
    for (const value of Object.values(scope)) {
      if (isExpressApp(value)) return value
    }
  }
  return null
}

/**
 * @param {any} route
 * @param {string} prefix
 * @param {import('../frameworks.js').FrameworkListing} listing
 */
function listRoute (route, prefix, listing) {
  /** @type {unknown[]} */
  const paths = Array.isArray(route.path) ? route.path.flat(Infinity) : [route.path]
  /** @type {any[]} */
  const stack = Array.isArray(route.stack) ? route.stack : []
  for (const method of Object.keys(route.methods ?? {})) {
    if (!route.methods[method]) continue
    // Express answers HEAD with the GET handler: a HEAD declared beside a GET is the same route.
    if (method === 'head' && route.methods.get) continue
    const all = method === '_all'
    const handlers = stack.filter((l) => all ? l.method === undefined : l.method === method || l.method === undefined)
      .map((l) => l.handle).filter((h) => typeof h === 'function')
    for (const p of paths) {
      if (typeof p !== 'string') {
        listing.notes.push(`express: ${all ? 'ALL' : method.toUpperCase()} ${String(p)} under ${prefix || '/'} is a regular expression: not listed`)
        continue
      }
      listing.routes.push({ method: all ? 'ALL' : method.toUpperCase(), path: expressPattern(joinPaths(prefix, p)), handlers })
    }
  }
}

/**
 * The paths a router is mounted at ('' for the root), or why they cannot be read.
 * @param {any} layer
 * @param {import('../frameworks.js').ListTools} tools
 * @returns {Promise<string[]|string>}
 */
async function mountPaths (layer, tools) {
  // router 2.3 and later
  if ('rawPath' in layer) {
    /** @type {unknown[]} */
    const raw = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath]
    const paths = raw.map((p) => typeof p === 'string' ? p : p instanceof RegExp ? pathFromRegExp(p, []) : null)
    const unread = raw.find((p, i) => paths[i] === null)
    return unread === undefined ? /** @type {string[]} */ (paths) : String(unread)
  }
  // Express 4
  if (layer.regexp instanceof RegExp) {
    if (layer.regexp.fast_slash) return ['']
    const p = pathFromRegExp(layer.regexp, Array.isArray(layer.keys) ? layer.keys : [])
    return p === null ? String(layer.regexp) : [p]
  }
  // router 2.0 to 2.2: the path went into path-to-regexp's matcher, which keeps the regexp it compiled.
  if (layer.slash) return ['']
  if (Array.isArray(layer.matchers)) {
    const paths = []
    for (const matcher of layer.matchers) {
      let found = null
      /** @type {RegExp|null} */
      let regexp = null
      for (const scope of typeof matcher === 'function' ? await tools.closure(matcher) : []) {
        regexp = scope.regexp instanceof RegExp ? scope.regexp : scope._path instanceof RegExp ? scope._path : null
        if (regexp) found = pathFromRegExp(regexp, Array.isArray(scope.keys) ? scope.keys : [])
        if (regexp) break
      }
      if (found === null) return regexp ? String(regexp) : 'its matcher keeps no path'
      paths.push(found)
    }
    return paths
  }
  return 'an unknown router layer'
}

/**
 * A mount path read back from the regexp path-to-regexp compiled it to, or null when the regexp is
 * more than literal segments and named parameters (a user's own regexp, optional groups).
 * @param {RegExp} regexp
 * @param {{ name?: string|number }[]} keys
 */
export function pathFromRegExp (regexp, keys) {
  let s = regexp.source
  // The ends both versions add: '^', the optional trailing slash, and "then a slash or the end".
  s = s.replace(/^\^/, '')
    .replace(/(?:\\\/\?)?(?:\(\?=\\\/\|\$\)|\(\?:\\\/\|\$\)|\$)$/, '')
    .replace(/\(\?:\\\/\$\)\?$/, '')
  // path-to-regexp 8 wraps the path in one group
  if (s.startsWith('(?:') && s.endsWith(')') && !s.includes('|')) s = s.slice(3, -1)
  let k = 0
  const name = () => {
    const key = keys[k++]
    return key && typeof key.name === 'string' ? key.name : null
  }
  let unnamed = false
  // Parameters: Express 4's "(?:\/([^\/]+?))" (its "?" after makes it optional), path-to-regexp 8's "([^\/]+)".
  // (a RegExp's source writes the class's slash escaped or not, depending on how it was built)
  s = s.replace(/\(\?:\\\/\(\[\^\\?\/\]\+\?\)\)(\?)?|\(\[\^\\?\/\]\+\)/g, (match, optional) => {
    const n = name()
    if (n === null) unnamed = true
    return match.startsWith('(?:') ? `/:${n}${optional ?? ''}` : `:${n}`
  })
  if (unnamed) return null
  s = s.replace(/\\([/.-])/g, '$1')
  if (/[\\()[\]|?+*^$]/.test(s.replace(/:\w+\?/g, ''))) return null
  return s === '/' ? '' : s
}

/**
 * @param {string} prefix
 * @param {string} p
 */
function joinPaths (prefix, p) {
  if (p === '' || p === '/') return prefix === '' ? '/' : prefix
  const start = p.startsWith('/') ? p : `/${p}`
  return prefix.replace(/\/$/, '') + start
}

/**
 * Express 5's named wildcards ('/files/*path', '/files/{*path}') as the shared shape writes
 * wildcards: '*'.
 * @param {string} p
 */
function expressPattern (p) {
  return p.replace(/\{\*\w+\}|\*\w+/g, '*')
}
