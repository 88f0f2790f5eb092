// The HTTP/2 server bench/h2-frames.js points its generators at: node:http2 over cleartext (h2c by
// prior knowledge), the same 12-byte body as bench/hello-server.js. Its own process, so its CPU
// never counts as a generator's.
import http2 from 'node:http2'

const body = Buffer.from('hello world\n')
const server = http2.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length })
  res.end(body)
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 })
})
process.on('disconnect', () => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
