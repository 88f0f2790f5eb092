// Koa's routes, from @koa/router's routers among the app's middleware. Tested on Koa 3.3 with
// @koa/router 15.7. Koa has no router of its own: a router's `routes()` middleware carries the router
// (`.router`), whose layers hold full paths (a nested router's layers are copied into its parent with
// the prefix joined). The app is reached from the server's listener (Koa's `callback()` closes over
// the composed middleware) or wherever the app object itself is found.
import { dataProperty } from '../self-inspect.js'
/** @type {import('../frameworks.js').FrameworkAdapter} */
export default {
  name: 'koa',
  packageName: 'koa',
  recognise (value) {
    return isRouterMiddleware(value) || isKoaApp(value)
  },
  async list (value) {
    /** @type {import('../frameworks.js').FrameworkListing} */
    const listing = { routes: [], notes: [] }
    const middleware = isKoaApp(value) ? /** @type {any} */ (value).middleware : [value]
    for (const fn of middleware) {
      if (isRouterMiddleware(fn)) listRouter(fn.router, listing)
    }
    return listing
  }
}

/** @param {unknown} value */
function isKoaApp (value) {
  return typeof value === 'object' && Array.isArray(dataProperty(value, 'middleware')) &&
    typeof dataProperty(value, 'callback') === 'function' && typeof dataProperty(value, 'createContext') === 'function'
}

/** @param {unknown} value */
function isRouterMiddleware (value) {
  const router = typeof value === 'function' ? dataProperty(value, 'router') : undefined
  return typeof router === 'object' && Array.isArray(dataProperty(router, 'stack')) && typeof dataProperty(router, 'routes') === 'function'
}

/**
 * @param {any} router
 * @param {import('../frameworks.js').FrameworkListing} listing
 */
function listRouter (router, listing) {
  for (const layer of router.stack) {
    const methods = Array.isArray(layer.methods) ? layer.methods.map(String) : []
    if (methods.length === 0) continue
    if (typeof layer.path !== 'string') {
      listing.notes.push(`koa: a route at ${String(layer.path)} is a regular expression: not listed`)
      continue
    }
    const handlers = Array.isArray(layer.stack) ? layer.stack.filter((/** @type {unknown} */ f) => typeof f === 'function') : []
    // A GET answers HEAD too: the router's HEAD beside it is the same route.
    const listed = [...new Set(methods)].filter((m) => !(m === 'HEAD' && methods.includes('GET')))
    for (const method of listed) listing.routes.push({ method, path: layer.path, handlers })
  }
}
