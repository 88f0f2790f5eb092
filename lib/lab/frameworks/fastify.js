// Fastify's routes, seen through its documented `onRoute` hook. Tested on Fastify 4.29 and 5.12.
// A route is final once Fastify listens (it refuses routes after), so the hook must be there before
// the app declares any: Fastify publishes each new instance on the diagnostics channel
// 'fastify.initialization' (both versions, before the app can add a route), and the preload subscribes
// to it from its start. That subscription is the one thing discovery costs an app nobody asks: one
// hook per instance that keeps, per route, its method, full path (plugin prefixes joined by Fastify)
// and handler. Fastify declares a HEAD route for each GET: it is listed as the GET.
import dc from 'node:diagnostics_channel'

const INIT = 'fastify.initialization'

/** @type {WeakMap<object, { method: string, url: string, handler: unknown }[]>} */
const seen = new WeakMap()
/** @type {WeakRef<object>[]} every instance created, for roots() */
const instances = []

/** @param {unknown} message */
function onInit (message) {
  const fastify = /** @type {any} */ (message)?.fastify
  if (!fastify || typeof fastify.addHook !== 'function' || seen.has(fastify)) return
  /** @type {{ method: string, url: string, handler: unknown }[]} */
  const routes = []
  try {
    fastify.addHook('onRoute', (/** @type {any} */ options) => {
      for (const method of [options.method].flat()) routes.push({ method: String(method), url: String(options.url), handler: options.handler })
    })
  } catch {
    // A Fastify that refuses the hook: its app must run as it would without syncbench; the routes
    // request then names Fastify in a note (lib/lab/route-reader.js).
    return
  }
  seen.set(fastify, routes)
  instances.push(new WeakRef(fastify))
}

/** @type {import('../frameworks.js').FrameworkAdapter} */
export default {
  name: 'fastify',
  packageName: 'fastify',
  watch () { dc.subscribe(INIT, onInit) },
  roots (server) {
    return instances.map((ref) => ref.deref()).filter((f) => f && /** @type {any} */ (f).server === server)
  },
  recognise (value) {
    return value !== null && typeof value === 'object' && seen.has(value)
  },
  async list (fastify) {
    const routes = seen.get(fastify) ?? []
    const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url))
    return {
      version: typeof fastify.version === 'string' ? fastify.version : undefined,
      // With a prefix, Fastify declares '/v1' and '/v1/' for a plugin's '/': its HEAD for '/v1/' too.
      routes: routes.filter((r) => !(r.method === 'HEAD' && (gets.has(r.url) || gets.has(r.url.replace(/(.)\/$/, '$1')))))
        .map((r) => ({ method: r.method, path: r.url, handlers: typeof r.handler === 'function' ? [r.handler] : [] })),
      notes: []
    }
  }
}
