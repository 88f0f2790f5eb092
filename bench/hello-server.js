// The server every generator is pointed at: node:http, a fixed body with Content-Length so that
// HTTP/1.0 keep-alive (ab -k) works. It runs in its own process so its CPU never counts as a generator's.
import http from 'node:http'

const body = Buffer.from('hello world\n')
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length })
  res.end(body)
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port })
})
process.on('disconnect', () => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
