// One node:http server around an app's request handler: the request counter, the
// /__syncbench/* routes, listening with a clear error for a busy port, and a close that ends
// keep-alive connections instead of waiting for them.
import http from 'node:http'
import { once } from 'node:events'
import { SyncbenchError } from '../errors.js'

export const METRICS_PATH = '/__syncbench/metrics'
export const ENV_PATH = '/__syncbench/env'
const PREFIX = '/__syncbench/'

/**
 * @typedef {object} HostedServer
 * @property {string} name
 * @property {string} url      http://host:port (no trailing slash)
 * @property {string} host     the address bound, as given (127.0.0.1, ::1, ...)
 * @property {number} port
 * @property {http.Server} server
 * @property {() => Promise<void>} close
 */

/**
 * @param {object} options
 * @param {string} options.name
 * @param {http.RequestListener} options.handler   the app, untouched (a seed handler or an Express app)
 * @param {ReturnType<import('./metrics.js').createServerMetrics>} options.metrics
 * @param {import('../types.js').Environment} options.env
 * @param {number} options.port
 * @param {string} options.host
 * @returns {Promise<HostedServer>}
 */
export async function hostServer ({ name, handler, metrics, env, port, host }) {
  // The only per-request work added to an app: one counter and one prefix test.
  const server = http.createServer((req, res) => {
    if (req.url.startsWith(PREFIX)) return syncbenchRoute(req, res, metrics, env)
    metrics.requests++
    handler(req, res)
  })
  server.listen(port, host)
  try {
    // once() rejects on 'error' and unsubscribes from both events when either comes, so a later
    // server error is not swallowed by a leftover listener.
    await once(server, 'listening')
  } catch (err) {
    server.close()
    throw listenError(err, name, port, host)
  }
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    name,
    url: `http://${formatHost(host)}:${address.port}`,
    host,
    port: address.port,
    server,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      // Idle keep-alive sockets would hold close() open until they time out.
      server.closeAllConnections()
    })
  }
}

/**
 * GET /__syncbench/metrics -> ServerMetrics of the window; ?reset=1 also starts a new window.
 * GET /__syncbench/env -> Environment. These requests are not counted in `requests`.
 */
function syncbenchRoute (req, res, metrics, env) {
  const url = new URL(req.url, 'http://localhost')
  let status = 200
  let body
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    status = 405
    body = { error: { code: 'SB_ERR_METHOD', message: `${req.method} ${url.pathname}: only GET is allowed` } }
  } else if (url.pathname === METRICS_PATH) {
    const reset = url.searchParams.get('reset')
    if (reset !== null && !['', '1', 'true', '0', 'false'].includes(reset)) {
      status = 400
      body = { error: { code: 'SB_ERR_BAD_PARAMETER', parameter: 'reset', message: `reset must be 1, true, 0 or false, got "${reset}"` } }
    } else {
      body = metrics.read({ reset: reset === '' || reset === '1' || reset === 'true' })
    }
  } else if (url.pathname === ENV_PATH) {
    body = env
  } else {
    status = 404
    body = { error: { code: 'SB_ERR_NOT_FOUND', message: `no route ${url.pathname} (try ${METRICS_PATH} or ${ENV_PATH})` } }
  }
  const text = JSON.stringify(body, null, 2) + '\n'
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' })
  res.end(req.method === 'HEAD' ? undefined : text)
}

function listenError (err, name, port, host) {
  if (err.code === 'EADDRINUSE') {
    return new SyncbenchError('SB_ERR_SERVER_START', `${name}: --port ${port} is already in use on ${host} (EADDRINUSE)`, { cause: err })
  }
  if (err.code === 'EACCES') {
    return new SyncbenchError('SB_ERR_SERVER_START', `${name}: --port ${port} needs privileges on ${host} (EACCES)`, { cause: err })
  }
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
    return new SyncbenchError('SB_ERR_SERVER_START', `${name}: --host ${host} is not an address of this machine (${err.code})`, { cause: err })
  }
  return new SyncbenchError('SB_ERR_SERVER_START', `${name}: cannot listen on ${host}:${port} (${err.code || err.message})`, { cause: err })
}

function formatHost (host) {
  return host.includes(':') ? `[${host}]` : host
}
