// The load generator bench/h2-frames.js measures: lib/load/h2-frames.js over one of syncbench's byte
// transports (the native one, native/io.c, or node:net), -c connections of -m streams each, closed
// loop until -n responses have ended. A sketch of the engine that would drive the framer: a seat
// issues its next request from the streamEnd() of its last one, so each read's responses and the
// requests they free leave in one write. It prints one JSON line: requests ended and good, and the
// CPU time of this process (process.cpuUsage) from the first connect to the last response.
// Usage: node bench/h2-frames-client.js native|net PORT PATH N C M
import { performance } from 'node:perf_hooks'
import { Connection } from '../lib/load/connection.js'
import { H2Session, ENDED } from '../lib/load/h2-frames.js'
import { encodeRequestBlock } from '../lib/load/hpack.js'
import { NetTransport } from '../lib/load/transport-net.js'
import { NativeTransport } from '../lib/load/transport-native.js'
import { nativeIo } from '../lib/load/native-io.js'

const [kind, portArg, path, nArg, cArg, mArg] = process.argv.slice(2)
const port = Number(portArg)
const total = Number(nArg)
const concurrency = Number(cArg)
const streams = Number(mArg)
const address = '127.0.0.1'

/** @returns {import('../lib/load/transport.js').Transport} */
function transport () {
  if (kind === 'net') return new NetTransport(address, port, null)
  const io = nativeIo()
  if (io === null) throw new Error('the native transport is not built (build/)')
  return new NativeTransport(io, io.target(address, port), port)
}

const block = encodeRequestBlock({ method: 'GET', scheme: 'http', authority: `${address}:${port}`, path, headers: [['user-agent', 'syncbench']] })
let issued = 0
let ended = 0
let good = 0
let bytesRead = 0
/** @type {Map<string, number>} */
const failures = new Map()
let cpu0 = process.cpuUsage()
let t0 = performance.now()

/** One connection: its transport Connection, its session, and the session's handler. */
class Client {
  /** @param {Run} run */
  constructor (run) {
    this.run = run
    this.c = new Connection(/** @type {any} */ (run))
    this.c.client = this
    this.session = new H2Session(this, { seats: streams })
  }

  /** @param {Buffer} data */
  write (data) { this.run.transport.write(this.c, data) }

  ready () {
    const s = this.session
    for (let seat = 0, n = s.capacity(); seat < n && issued < total; seat++) {
      s.request(seat, block)
      issued++
    }
    s.flush()
  }

  streamHeaders () {}

  /** @param {number} seat @param {number} outcome */
  streamEnd (seat, outcome) {
    ended++
    const s = this.session
    // good: a 200 whose body is as long as its content-length said (when it said)
    const length = s.contentLength[seat]
    if (outcome === ENDED && s.status[seat] === 200 && (length < 0 || s.dataBytes[seat] === length)) {
      good++
    } else {
      const what = `outcome ${outcome} status ${s.status[seat]} body ${s.dataBytes[seat]} of ${length}`
      failures.set(what, (failures.get(what) ?? 0) + 1)
    }
    if (issued < total && s.capacity() > 0) {
      s.request(seat, block)
      issued++
    }
    if (ended === total) this.run.finish()
  }

  /** @param {number} last @param {number} code */
  goaway (last, code) { failures.set(`goaway ${code}`, (failures.get(`goaway ${code}`) ?? 0) + 1) }

  /** @param {number} code @param {string} reason */
  sessionError (code, reason) {
    failures.set(reason, (failures.get(reason) ?? 0) + 1)
    this.c.drop()
  }
}

/** What the transports call (the engine's four handlers), and the end of the run. */
class Run {
  constructor () {
    this.transport = transport()
    this.request = null
    this.nodelay = true
    this.socketPath = null
    this.addresses = [address]
    this.addressIndex = 0
    this.port = port
    /** @type {Client[]} */
    this.clients = []
  }

  start () {
    cpu0 = process.cpuUsage()
    t0 = performance.now()
    for (let i = 0; i < concurrency; i++) {
      const client = new Client(this)
      this.clients.push(client)
      client.c.open()
    }
  }

  /** @param {Connection & { client: Client }} c */
  connected (c) { c.client.session.start() }
  /** @param {Connection & { client: Client }} c @param {Buffer} buf @param {number} r */
  data (c, buf, r) {
    bytesRead += r
    c.client.session.data(buf, r)
  }

  /** @param {Connection & { client: Client }} c */
  eof (c) { c.client.session.close() }
  /** @param {Connection & { client: Client }} c @param {Error} err */
  error (c, err) {
    failures.set(err.message, (failures.get(err.message) ?? 0) + 1)
    c.client.session.close()
  }

  finish () {
    const cpu = process.cpuUsage(cpu0)
    const wall = performance.now() - t0
    for (const client of this.clients) client.c.release()
    console.log(JSON.stringify({ transport: this.transport.name, ended, good, bytesRead, cpuUs: cpu.user + cpu.system, wallMs: wall, failures: Object.fromEntries(failures) }))
  }
}

new Run().start()
