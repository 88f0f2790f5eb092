// A minimal closed-loop load generator built on node:http's client (keep-alive agent). It is the
// yardstick that shows why syncbench's engine parses responses by hand: same job, Node's own client.
// Usage: node bench/http-client-peer.js URL REQUESTS CONCURRENCY
import http from 'node:http'

const [url, nArg, cArg] = process.argv.slice(2)
const total = Number(nArg)
const concurrency = Number(cArg)
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
let started = 0
let done = 0
let failed = 0
const t0 = process.hrtime.bigint()

function next () {
  if (started >= total) return
  started++
  http.get(url, { agent }, (res) => {
    res.on('data', () => {})
    res.on('end', finish)
  }).on('error', () => { failed++; finish() })
}

function finish () {
  done++
  if (done === total) {
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9
    console.log(`Complete requests:      ${done - failed}`)
    console.log(`Requests per second:    ${(total / seconds).toFixed(2)} [#/sec] (mean)`)
    agent.destroy()
  } else {
    next()
  }
}

for (let i = 0; i < concurrency; i++) next()
