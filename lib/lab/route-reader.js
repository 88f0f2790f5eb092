// An app's routes, read inside its own process (lib/lab/instrument.js answers `syncbench:routes` with
// them). The framework is found from the server the instrument measures, the app left as it is: the
// server's listeners are the way in (Express's `app.listen()` listens with the app itself; Koa's
// `callback()`, an app wrapped in `http.createServer((req, res) => app(req, res))`, Hapi's dispatcher
// are closures), and the variables they close over are walked through node:inspector
// (lib/lab/self-inspect.js), breadth first, bounded in depth and in values looked at. Every value is
// offered to each adapter of lib/lab/frameworks.js, which recognises its framework by shape: nothing
// here imports a framework, so one loaded from the app's own node_modules, or loaded twice, is seen.
// Objects are walked through their own data properties only: no getter is called.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { types } from 'node:util'
import { frameworks } from './frameworks.js'
import { openSelfInspector } from './self-inspect.js'

/** How far from a listener the walk goes: listener -> closure -> object -> property -> ... */
const MAX_DEPTH = 6
/** Values looked at, at most, per discovery. */
const MAX_VALUES = 5000
/** An object's or array's first so many values are looked at. */
const MAX_FANOUT = 200
/** Packages up from a file to look for its package.json. */
const MAX_PACKAGE_UP = 12

/** `app.all()` (Express, @koa/router) declares a route on every method Node knows (over 30): a path
 * declared on these and on at least ALL_COUNT methods is listed once, as ALL. */
const ALL = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']
const ALL_COUNT = 20

const PLAIN_HTTP = 'a node:http server with no framework syncbench reads: its routes cannot be listed; give --openapi or --har'

/**
 * @param {import('node:net').Server} server  the server the instrument measures
 * @returns {Promise<{ frameworks: import('../types.js').FrameworkInfo[], routes: import('../types.js').FoundRoute[], notes: string[] }>}
 */
export async function readRoutes (server) {
  const inspector = await openSelfInspector()
  try {
    return await read(server, inspector)
  } finally {
    await inspector.close()
  }
}

/**
 * @param {import('node:net').Server} server
 * @param {import('./self-inspect.js').SelfInspector} inspector
 */
async function read (server, inspector) {
  const listeners = [...server.listeners('request'), ...server.listeners('connection')]
  /** @type {unknown[]} */
  const roots = [...listeners]
  for (const adapter of frameworks) roots.push(...(adapter.roots?.(server) ?? []))
  /** @type {{ adapter: import('./frameworks.js').FrameworkAdapter, value: unknown, file?: string }[]} */
  const found = []
  /** @type {string[]} files of the functions walked: where a framework's package.json is looked for */
  const files = []
  const seen = new Set()
  /** @type {[unknown, number][]} */
  let queue = roots.map((r) => [r, 0])
  let looked = 0
  while (queue.length && looked < MAX_VALUES) {
    /** @type {[unknown, number][]} */
    const next = []
    for (const [value, depth] of queue) {
      // A Proxy's traps are the app's code: it is not looked into.
      if (seen.has(value) || looked >= MAX_VALUES || types.isProxy(value)) continue
      seen.add(value)
      looked++
      const adapter = frameworks.find((a) => a.recognise(value))
      if (adapter) {
        // A function recognised (an Express app) is written in its framework's files: its own
        // package.json names the version of this copy, when the app loads two.
        const where = typeof value === 'function' ? await inspector.locate(value) : null
        found.push({ adapter, value, file: where?.file })
        continue
      }
      if (depth >= MAX_DEPTH) continue
      for (const child of await children(value, inspector, files)) {
        if (child !== null && (typeof child === 'object' || typeof child === 'function') && !seen.has(child)) next.push([child, depth + 1])
      }
    }
    queue = next
  }

  /** @type {import('../types.js').FrameworkInfo[]} */
  const infos = []
  /** @type {import('../types.js').FoundRoute[]} */
  const routes = []
  /** @type {string[]} */
  const notes = []
  /** @type {{ framework: import('../types.js').FrameworkName, from: number, method: string, path: string, handlers: Function[] }[]} */
  const listed = []
  for (const [from, { adapter, value, file }] of found.entries()) {
    const listing = await adapter.list(value, { closure: (fn) => inspector.closure(fn) })
    const version = listing.version ?? versionFrom(adapter.packageName, file ? [file, ...files] : files)
    if (!infos.some((f) => f.name === adapter.name && f.version === version)) infos.push({ name: adapter.name, ...(version ? { version } : {}) })
    notes.push(...listing.notes)
    for (const route of everyMethodOnce(listing.routes)) listed.push({ framework: adapter.name, from, ...route })
  }
  const keys = new Set()
  for (const route of listed) {
    const key = `${route.framework} ${route.method} ${route.path}`
    if (keys.has(key) || mountedElsewhere(route, listed)) continue
    keys.add(key)
    routes.push({ method: route.method, path: route.path, framework: route.framework, ...await declared(route.handlers, inspector) })
  }
  if (found.length === 0) notes.push(await nothingFound(listeners, inspector))
  if (looked >= MAX_VALUES) notes.push(`the search for a framework stopped after ${MAX_VALUES} values: some routes may be missing`)
  return { frameworks: infos, routes, notes }
}

/**
 * Is this route another's seen without its mount path? A sub-app or a router the walk reached on its
 * own (a module-level constant) as well as through the app that mounts it lists its routes twice:
 * from itself ('/stats') and from the app ('/admin/stats'), with the same handler. Only the mounted
 * one is the app's route.
 * @param {{ framework: string, from: number, method: string, path: string, handlers: Function[] }} route
 * @param {{ framework: string, from: number, method: string, path: string, handlers: Function[] }[]} listed
 */
function mountedElsewhere (route, listed) {
  const handler = route.handlers.at(-1)
  if (!handler) return false
  const tail = route.path.replace(/\/$/, '')
  return listed.some((other) => other.from !== route.from && other.framework === route.framework && other.method === route.method &&
    other.handlers.at(-1) === handler && other.path.length > route.path.length && other.path.endsWith(tail))
}

/**
 * The routes, each path declared on every method listed once as ALL (where its GET was).
 * @param {import('./frameworks.js').FrameworkListing['routes']} routes
 */
function everyMethodOnce (routes) {
  /** @type {Map<string, Set<string>>} */
  const methods = new Map()
  for (const route of routes) methods.set(route.path, (methods.get(route.path) ?? new Set()).add(route.method))
  const all = new Set([...methods].filter(([, m]) => m.size >= ALL_COUNT && ALL.every((x) => m.has(x))).map(([p]) => p))
  return routes.flatMap((route) => {
    if (!all.has(route.path)) return [route]
    return route.method === 'GET' ? [{ ...route, method: 'ALL' }] : []
  })
}

/**
 * The values a walk goes on to: a function's closure variables (not for Node's own functions: no
 * framework lives there), an object's own data properties, an array's elements.
 * @param {unknown} value
 * @param {import('./self-inspect.js').SelfInspector} inspector
 * @param {string[]} files
 * @returns {Promise<unknown[]>}
 */
async function children (value, inspector, files) {
  if (typeof value === 'function') {
    const where = await inspector.locate(value)
    if (!where) return []
    files.push(where.file)
    const values = []
    for (const scope of await inspector.closure(value)) values.push(...Object.values(scope).slice(0, MAX_FANOUT))
    return values
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return []
  if (Array.isArray(value)) return value.slice(0, MAX_FANOUT)
  if (value instanceof Map) return [...value.values()].slice(0, MAX_FANOUT)
  const values = []
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(value)).slice(0, MAX_FANOUT)) {
    if ('value' in descriptor) values.push(descriptor.value)
  }
  return values
}

/**
 * Where a route was declared: the last of its functions outside node_modules (the handler that
 * answers comes after the middleware a route lists before it, `app.post('/x', auth, handler)`, and a
 * library's middleware is not the user's line). When all are a library's (json-server's
 * `.post(create, write)`), none is the user's: the first, the route's own entry in the library.
 * @param {Function[]} handlers
 * @param {import('./self-inspect.js').SelfInspector} inspector
 * @returns {Promise<{ file?: string, line?: number }>}
 */
async function declared (handlers, inspector) {
  /** @type {{ file: string, line: number }|null} */
  let first = null
  for (let i = handlers.length - 1; i >= 0; i--) {
    const where = await inspector.locate(handlers[i])
    if (!where) continue
    if (!where.file.split(path.sep).includes('node_modules')) return where
    first = where
  }
  return first ?? {}
}

/**
 * The version in the package.json of `name` above one of `files`.
 * @param {string} name
 * @param {string[]} files
 */
function versionFrom (name, files) {
  for (const file of files) {
    const pkg = packageOf(file)
    if (pkg?.name === name && typeof pkg.version === 'string') return pkg.version
  }
  return undefined
}

/**
 * The nearest package.json above a file.
 * @param {string} file
 * @returns {{ name?: string, version?: string }|null}
 */
function packageOf (file) {
  let dir = path.dirname(file)
  for (let i = 0; i < MAX_PACKAGE_UP; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
      if (pkg && typeof pkg.name === 'string') return pkg
    } catch {
      // no package.json here, or not one that names a package: go up
    }
    const up = path.dirname(dir)
    if (up === dir) break
    dir = up
  }
  return null
}

/**
 * Why no framework was found: a listener from a framework's own package (a version whose shape no
 * adapter knows) is named; else the server is taken for plain node:http.
 * @param {Function[]} listeners
 * @param {import('./self-inspect.js').SelfInspector} inspector
 */
async function nothingFound (listeners, inspector) {
  for (const listener of listeners) {
    const where = await inspector.locate(listener)
    const pkg = where && packageOf(where.file)
    const adapter = pkg && frameworks.find((a) => a.packageName === pkg.name)
    if (adapter && pkg) return `${pkg.name} ${pkg.version ?? '(no version)'} serves this app, but its routes are not where syncbench reads them: give --openapi or --har`
  }
  return PLAIN_HTTP
}
