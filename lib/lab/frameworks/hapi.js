// Hapi's routes, from its documented `server.table()`. Tested on @hapi/hapi 21.4. Hapi's listener is
// a closure over its core that V8 does not show (an arrow function's `this`); the core is reached from
// the listener's 'connection' handler instead, whose closure keeps it as `self` (cleanStop, Hapi's
// default). Hapi's '{id}' parameters are written ':id' ('{id?}' ':id?'), its '{p*}' wildcards '*'.

/** @type {import('../frameworks.js').FrameworkAdapter} */
export default {
  name: 'hapi',
  packageName: '@hapi/hapi',
  recognise (value) {
    const server = /** @type {any} */ (value)
    return server !== null && typeof server === 'object' && ['table', 'route'].every((name) => typeof server[name] === 'function') &&
      server.realm !== null && typeof server.realm === 'object' && '_core' in server
  },
  async list (server) {
    /** @type {any[]} */
    const table = server.table()
    return {
      version: typeof server.version === 'string' ? server.version : undefined,
      routes: table.map((route) => ({
        method: route.method === '*' ? 'ALL' : String(route.method).toUpperCase(),
        path: hapiPattern(String(route.path)),
        handlers: typeof route.settings?.handler === 'function' ? [route.settings.handler] : []
      })),
      notes: []
    }
  }
}

/**
 * @param {string} p
 */
export function hapiPattern (p) {
  return p.replace(/\{(\w+)\*\d*\}/g, '*').replace(/\{(\w+)(\??)\}/g, ':$1$2')
}
