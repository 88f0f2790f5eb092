// One server around an app's request handler: the request counter, the /__syncbench/* routes
// (metrics, env, health: beside the app's handlers, which stay as published), listening with a clear
// error for a busy port, and a close that ends keep-alive connections instead of waiting for them.
// node:http by default; node:http2 with `protocol` h2c (cleartext, prior knowledge) or h2 (TLS, ALPN
// h2 with HTTP/1.1 as fallback), through its compatibility API, so the same handlers serve both.
import http from 'node:http'
import http2 from 'node:http2'
import { once } from 'node:events'
import { ServerStartError, errorCodes, firstLine, systemCode } from '../errors.js'
import { followRoutes } from './route-blocks.js'
import { http2Listener } from './express-http2.js'

export const METRICS_PATH = '/__syncbench/metrics'
export const ENV_PATH = '/__syncbench/env'
/** The cheap route syncbench run's probe loads beside the app's own (lib/run/prober.js): what a blocked loop does to everyone else. */
export const HEALTH_PATH = '/__syncbench/health'
const PREFIX = '/__syncbench/'
const HEALTH_BODY = 'ok\n'
const HEALTH_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(HEALTH_BODY)), 'Cache-Control': 'no-store' }

/**
 * What a server speaks: HTTP/1.1, HTTP/2 in cleartext by prior knowledge, or HTTP/2 over TLS
 * negotiated by ALPN (HTTP/1.1 for a client that offers no h2).
 * @typedef {'http1'|'h2c'|'h2'} ServerProtocol
 */

/**
 * @typedef {object} HostedServer
 * @property {string} name
 * @property {string} url      http://host:port, https:// for h2 (no trailing slash)
 * @property {string} host     the address bound, as given (127.0.0.1, ::1, ...)
 * @property {number} port
 * @property {ServerProtocol} protocol
 * @property {import('node:net').Server} server
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
 * @param {ServerProtocol} [options.protocol='http1']
 * @param {{ key: string|Buffer, cert: string|Buffer }} [options.tls]  the h2 server's key and certificate (PEM)
 * @returns {Promise<HostedServer>}
 */
export async function hostServer ({ name, handler, metrics, env, port, host, protocol = 'http1', tls }) {
  const app = protocol === 'http1' ? handler : http2Listener(handler)
  // The only per-request work added to an app: one counter and one prefix test.
  /** @param {http.IncomingMessage|http2.Http2ServerRequest} req @param {http.ServerResponse|http2.Http2ServerResponse} res */
  const listener = (req, res) => {
    // A server's request always has a url (only a client's message has none). node:http2's
    // compatibility objects answer to the same calls as node:http's (url, method, writeHead, end),
    // which is what the handlers and syncbench's own routes use: typed as node:http's.
    if (/** @type {string} */ (req.url).startsWith(PREFIX)) return syncbenchRoute(/** @type {any} */ (req), /** @type {any} */ (res), metrics, env)
    metrics.requests++
    app(/** @type {any} */ (req), /** @type {any} */ (res))
  }
  /** @type {http.Server|http2.Http2Server|http2.Http2SecureServer} */
  let server
  if (protocol === 'http1') {
    const h1 = http.createServer(listener)
    server = h1
    // Which of the app's routes were in progress while the loop was held; syncbench's own are not the
    // app's. node:http publishes its requests on diagnostics_channel; node:http2's compatibility API
    // does not (Node 20), so over HTTP/2 the metrics leave routes out rather than show none.
    const unfollow = followRoutes(h1, metrics.routes, (req) => Boolean(req.url?.startsWith(PREFIX)))
    h1.once('close', unfollow)
  } else if (protocol === 'h2c') {
    server = http2.createServer(listener)
  } else {
    if (!tls) throw new ServerStartError(`${name}: HTTP/2 over TLS needs a key and a certificate`)
    server = http2.createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: true }, listener)
  }
  // node:http2 has no closeAllConnections(): its connections (sessions, and HTTP/1.1 fallback ones) are
  // kept here to be ended at close.
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set()
  if (protocol !== 'http1') {
    server.on('connection', (/** @type {import('node:net').Socket} */ socket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
  }
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
    url: `${protocol === 'h2' ? 'https' : 'http'}://${formatHost(host)}:${address.port}`,
    host,
    port: address.port,
    protocol,
    server,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      // Idle keep-alive sockets would hold close() open until they time out.
      if ('closeAllConnections' in server) server.closeAllConnections()
      for (const socket of sockets) socket.destroy()
    })
  }
}

/**
 * GET /__syncbench/metrics -> ServerMetrics of the window; ?reset=1 also starts a new window.
 * GET /__syncbench/env -> Environment.
 * GET /__syncbench/health -> "ok": the cheapest answer the server can give, served by the same event
 * loop as the app, so its latency is the time any request waits for that loop (the probe's route).
 * These requests are not counted in `requests`.
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {ReturnType<import('./metrics.js').createServerMetrics>} metrics
 * @param {import('../types.js').Environment} env
 */
function syncbenchRoute (req, res, metrics, env) {
  if ((req.url === HEALTH_PATH || req.url?.startsWith(HEALTH_PATH + '?')) && (req.method === 'GET' || req.method === 'HEAD')) {
    // no JSON, no allocation beyond the response: its cost must stay negligible beside the app's
    res.writeHead(200, HEALTH_HEADERS)
    res.end(req.method === 'HEAD' ? undefined : HEALTH_BODY)
    return
  }
  const url = new URL(/** @type {string} */ (req.url), 'http://localhost')
  let status = 200
  /** @type {object} */
  let body
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    status = 405
    body = { error: { code: errorCodes.METHOD, message: `${req.method} ${url.pathname}: only GET is allowed` } }
  } else if (url.pathname === METRICS_PATH) {
    const reset = url.searchParams.get('reset')
    if (reset !== null && !['', '1', 'true', '0', 'false'].includes(reset)) {
      status = 400
      body = { error: { code: errorCodes.BAD_PARAMETER, parameter: 'reset', message: `reset must be 1, true, 0 or false, got "${reset}"` } }
    } else {
      body = metrics.read({ reset: reset === '' || reset === '1' || reset === 'true' })
    }
  } else if (url.pathname === ENV_PATH) {
    body = env
  } else {
    status = 404
    body = { error: { code: errorCodes.NOT_FOUND, message: `no route ${url.pathname} (try ${METRICS_PATH}, ${ENV_PATH} or ${HEALTH_PATH})` } }
  }
  const text = JSON.stringify(body, null, 2) + '\n'
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' })
  res.end(req.method === 'HEAD' ? undefined : text)
}

/**
 * @param {unknown} err what the server's 'error' event gave
 * @param {string} name
 * @param {number} port
 * @param {string} host
 */
function listenError (err, name, port, host) {
  const code = systemCode(err)
  if (code === 'EADDRINUSE') {
    return new ServerStartError(`${name}: --port ${port} is already in use on ${host} (EADDRINUSE)`, { cause: err })
  }
  if (code === 'EACCES') {
    return new ServerStartError(`${name}: --port ${port} needs privileges on ${host} (EACCES)`, { cause: err })
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new ServerStartError(`${name}: --host ${host} is not an address of this machine (${code})`, { cause: err })
  }
  return new ServerStartError(`${name}: cannot listen on ${host}:${port} (${code || firstLine(err)})`, { cause: err })
}

/** @param {string} host */
function formatHost (host) {
  return host.includes(':') ? `[${host}]` : host
}
