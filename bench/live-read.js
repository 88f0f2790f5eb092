// What a live read costs the server under test's main thread: the `syncbench:live` request of
// lib/lab/ipc.js, which `syncbench run --dashboard` sends once a second during a measured run.
//
// Two figures:
// - in process: the server side of one read (serveIpc's handler, lib/lab/metrics.js live(), and the
//   answer serialized as Node's IPC channel serializes it, JSON), over many reads, median of rounds;
// - through a real server child (the lab app, forked as the runner forks it): its main thread's CPU time
//   (Linux's /proc/<pid>/task/<pid>/schedstat) over N live reads sent one after another, less what the
//   same thread used over an idle stretch as long (the metrics' own 10 ms ticker and 100 ms sampler).
//   The pipe's system calls are in it; it is noisier on a shared machine.
//
// Usage: node bench/live-read.js [--reads 1000] [--rounds 7]
import { readFileSync } from 'node:fs'
import { EventEmitter } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { createServerMetrics } from '../lib/lab/metrics.js'
import { serveIpc, LIVE } from '../lib/lab/ipc.js'
import { spawnServer } from '../lib/lab/spawn.js'

const { values } = parseArgs({ options: { reads: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '7' } } })
const reads = Number(values.reads)
const rounds = Number(values.rounds)

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** The server side of `reads` live requests, in this process: µs per read. */
async function inProcess () {
  const metrics = createServerMetrics()
  const channel = Object.assign(new EventEmitter(), {
    connected: true,
    /** @type {(() => void)|null} */
    answered: null,
    /** @param {object} message @param {() => void} [callback] */
    send (message, callback) {
      // what child_process's 'json' serialization does with an answer before it writes it
      JSON.stringify(message)
      callback?.()
      channel.answered?.()
      return true
    }
  })
  serveIpc(/** @type {any} */ (channel), { servers: [{ name: 'bench', url: 'http://127.0.0.1:1', port: 1 }], env: /** @type {any} */ ({}), read: () => metrics.read(), live: () => metrics.live() })
  const perRead = []
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint()
    for (let id = 0; id < reads; id++) {
      const answered = new Promise((resolve) => { channel.answered = () => resolve(undefined) })
      channel.emit('message', { type: LIVE, id })
      await answered
    }
    perRead.push(Number(process.hrtime.bigint() - start) / 1000 / reads)
  }
  metrics.close()
  // the first round warms V8 up
  return median(perRead.slice(1))
}

/** @param {number} pid @returns {number} the main thread's CPU time so far, µs */
function mainThreadUs (pid) {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'latin1').split(' ')[0]) / 1000
}

/** `reads` live requests to a lab server child: its main thread's µs per read, idle time taken off. */
async function throughChild () {
  const server = await spawnServer({ app: 'lab', args: ['--framework', 'http'] })
  try {
    await server.metrics({ reset: true })
    const perRead = []
    for (let round = 0; round < rounds; round++) {
      let t0 = performance.now()
      let c0 = mainThreadUs(server.pid)
      for (let i = 0; i < reads; i++) await server.live()
      const busyMs = performance.now() - t0
      const busyUs = mainThreadUs(server.pid) - c0
      t0 = performance.now()
      c0 = mainThreadUs(server.pid)
      await delay(busyMs)
      const idleUs = (mainThreadUs(server.pid) - c0) / (performance.now() - t0) * busyMs
      perRead.push((busyUs - idleUs) / reads)
    }
    return median(perRead.slice(1))
  } finally {
    await server.stop()
  }
}

const local = await inProcess()
process.stdout.write(`live read, server side in process: ${local.toFixed(1)} µs per read (median of ${rounds - 1} rounds of ${reads})\n`)
if (process.platform === 'linux') {
  const child = await throughChild()
  process.stdout.write(`live read, a lab server child's main thread (IPC included): ${child.toFixed(1)} µs per read (median of ${rounds - 1} rounds of ${reads})\n`)
}
