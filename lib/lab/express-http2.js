// Express on node:http2's compatibility API, its handlers untouched. Express 5 gives every request and
// response its own prototypes (app.request, app.response), which inherit from node:http's
// IncomingMessage and ServerResponse: set on an Http2ServerRequest, they hide its url, headers and
// stream, and the first read of the body throws. Here the app gets a second pair of prototypes that
// carry the same Express methods over Http2ServerRequest and Http2ServerResponse, and an HTTP/2
// request is handed to the app through a view of it holding that pair; an HTTP/1.1 request (TLS's
// fallback) goes to the app as it would without HTTP/2.
import http from 'node:http'
import http2 from 'node:http2'

/**
 * The part of an Express application this needs (express ships no types).
 * @typedef {import('node:http').RequestListener & { request: object, response: object, handle: (req: object, res: object) => void }} ExpressShape
 */

/**
 * Is `handler` an Express application (recognised by shape, as lib/lab/frameworks/express.js does)?
 * @param {unknown} handler
 * @returns {handler is ExpressShape}
 */
export function isExpressApp (handler) {
  const app = /** @type {any} */ (handler)
  return typeof app === 'function' && typeof app.handle === 'function' && app.request instanceof http.IncomingMessage && app.response instanceof http.ServerResponse
}

/**
 * A request listener for a node:http2 server: an Express app served through HTTP/2 prototypes, any
 * other handler (node:http style, which the compatibility API serves as is) unchanged.
 * @param {import('node:http').RequestListener} handler
 * @returns {(req: any, res: any) => void}
 */
export function http2Listener (handler) {
  if (!isExpressApp(handler)) return handler
  const view = Object.create(handler, {
    request: { value: rebase(handler.request, http.IncomingMessage.prototype, http2.Http2ServerRequest.prototype) },
    response: { value: rebase(handler.response, http.ServerResponse.prototype, http2.Http2ServerResponse.prototype) }
  })
  return (req, res) => {
    if (req instanceof http2.Http2ServerRequest) handler.handle.call(view, req, res)
    else handler(req, res)
  }
}

/**
 * A copy of `proto`'s chain down to `from` (excluded: node:http's class), stood on `to` instead. The
 * properties are copied as they are defined (getters stay getters), nearest last so it wins.
 * @param {object} proto  app.request or app.response
 * @param {object} from   node:http's prototype the chain ends on
 * @param {object} to     node:http2's prototype to stand on
 */
function rebase (proto, from, to) {
  /** @type {object[]} */
  const chain = []
  for (let p = proto; p !== null && p !== from; p = Object.getPrototypeOf(p)) chain.unshift(p)
  const copy = Object.create(to)
  for (const p of chain) Object.defineProperties(copy, Object.getOwnPropertyDescriptors(p))
  return copy
}
