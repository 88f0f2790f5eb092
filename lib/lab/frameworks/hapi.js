// Hapi's routes, from its documented `server.table()`. Tested on @hapi/hapi 21.4. Hapi's listener is
// a closure over its core that V8 does not show (an arrow function's `this`); the core is reached from
// the listener's 'connection' handler instead, whose closure keeps it as `self` (cleanStop, Hapi's
// default). Hapi's '{id}' parameters are written ':id' ('{id?}' ':id?'), its '{p*}' wildcards '*'.
import { dataProperty } from '../self-inspect.js'

/** @type {import('../frameworks.js').FrameworkAdapter} */
export default {
  name: 'hapi',
  packageName: '@hapi/hapi',
  recognise (value) {
    const realm = dataProperty(value, 'realm')
    return typeof value === 'object' && ['table', 'route'].every((name) => typeof dataProperty(value, name) === 'function') &&
      realm !== null && typeof realm === 'object' && dataProperty(value, '_core') !== undefined
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
