// The app for `syncbench run --workload ./handlers.js`: each exported handler `name(req)` is served at
// GET /<name>; what it returns (or resolves to) is the body. It runs only inside the server child
// (lib/lab/server-child.js), hosted and measured by http-host.js and metrics.js like the other apps, so
// the runner treats it like any other server; the runner's own process never imports the user's module.
import { pathToFileURL } from 'node:url'
import { ExperimentError, firstLine } from '../errors.js'
import { hostServer } from './http-host.js'
import { createServerMetrics, collectEnvironment } from './metrics.js'

/**
 * Import a workload module and return its handler functions (named exports, or the properties of a
 * default-exported object).
 * @param {string} abs absolute path of the module
 * @param {string} what how messages name it ("--workload handlers.js")
 * @returns {Promise<Record<string, Function>>}
 */
export async function importWorkload (abs, what) {
  let mod
  try {
    mod = await import(pathToFileURL(abs).href)
  } catch (err) {
    throw new ExperimentError(`${what} threw while loading: ${firstLine(err)}`, { cause: err })
  }
  const source = mod.default && typeof mod.default === 'object' ? { ...mod.default, ...mod } : mod
  /** @type {Record<string, Function>} */
  const handlers = {}
  for (const [name, value] of Object.entries(source)) {
    if (name !== 'default' && typeof value === 'function') handlers[name] = value
  }
  if (Object.keys(handlers).length === 0) {
    throw new ExperimentError(`${what} exports no handler functions (export e.g. sync(req) and async(req))`)
  }
  return handlers
}

/**
 * Serve `handlers` on 127.0.0.1:0 in this process.
 * @param {Record<string, Function>} handlers from importWorkload
 * @param {{ http2?: boolean }} [options]  http2: serve HTTP/2 in cleartext (h2c), as syncbench run --http2 loads it
 * @returns {Promise<import('./serve-app.js').ServedApp>}
 */
export async function hostWorkload (handlers, { http2 = false } = {}) {
  const metrics = createServerMetrics()
  const env = collectEnvironment()
  let hosted
  try {
    hosted = await hostServer({ name: 'workload', handler: route(handlers), metrics, env, port: 0, host: '127.0.0.1', protocol: http2 ? 'h2c' : 'http1' })
  } catch (err) {
    metrics.close()
    throw err
  }
  const names = Object.keys(handlers)
  return {
    servers: [{ ...hosted, routes: names.map((n) => `GET /${n}`) }],
    env,
    read: (request) => metrics.read(request),
    live: () => metrics.live(),
    close: () => hosted.close().finally(() => metrics.close())
  }
}

/**
 * @param {Record<string, Function>} handlers
 * @returns {import('node:http').RequestListener}
 */
function route (handlers) {
  return async (req, res) => {
    let name
    try {
      name = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname.slice(1))
    } catch {
      // A malformed escape (/%E0%A4%A) names no handler; answered here so it never becomes an unhandled rejection.
      send(res, 400, `bad request path ${JSON.stringify(req.url)}\n`)
      return
    }
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : null
    if (!handler) {
      send(res, 404, `no handler "${name}" (handlers: ${Object.keys(handlers).join(', ')})\n`)
      return
    }
    let body
    try {
      body = await handler(req)
    } catch (e) {
      const err = /** @type {any} */ (e)
      send(res, 500, `${name} threw: ${err && err.message ? err.message : err}\n`)
      return
    }
    send(res, 200, body)
  }
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function send (res, status, body) {
  const isText = typeof body === 'string' || Buffer.isBuffer(body)
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(isText ? /** @type {string|Buffer} */ (body) : JSON.stringify(body))
  // Content-Length keeps HTTP/1.0 keep-alive (-k) working, as Express's res.send does.
  res.writeHead(status, { 'Content-Type': isText ? 'text/plain' : 'application/json', 'Content-Length': bytes.length })
  res.end(bytes)
}
