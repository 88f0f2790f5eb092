// The server every generator is pointed at: node:http, a fixed body with Content-Length so that
// HTTP/1.0 keep-alive (ab -k) works; with --http2, node:http2 (h2c, prior knowledge) answering the
// same body, for the HTTP/2 generators. It runs in its own process so its CPU never counts as a
// generator's.
import http from 'node:http'
import http2 from 'node:http2'

const body = Buffer.from('hello world\n')
const headers = { 'Content-Type': 'text/plain', 'Content-Length': body.length }
/** @param {http.IncomingMessage|http2.Http2ServerRequest} req @param {http.ServerResponse|http2.Http2ServerResponse} res */
const hello = (req, res) => {
  res.writeHead(200, headers)
  res.end(body)
}
const server = process.argv.includes('--http2')
  // as many streams at once as a client asks (h2load -m, syncbench --streams): node's default is 100 already
  ? http2.createServer(hello)
  : http.createServer(hello)
if (server instanceof http.Server) server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })
})
process.on('disconnect', () => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
