// The connection engine: `concurrency` sockets driven by their events, counting exactly as ab 2.3's
// read_connection() / close_connection() / start_connect() do (support/ab.c), so every figure of the
// report means what it means in ab. The HTTP/1.1 mode (--http1.1) frames responses properly instead.
// This module holds the run's state and its start and end; the methods for each job live beside it
// (engine-connect.js, engine-read.js, engine-count.js, engine-failure.js) and are installed on
// Engine.prototype below, so every call stays a plain method call on one object.
import { performance } from 'node:perf_hooks'
import { Connection, connectOptions } from './connection.js'
import { RequestTimes } from './stats.js'
import { HeaderCache } from './header-cache.js'
import { connecting } from './engine-connect.js'
import { reading } from './engine-read.js'
import { counting } from './engine-count.js'
import { failing, MAX_TIMER_MS } from './engine-failure.js'

/**
 * @typedef {object} EngineOptions
 * @property {string[]} addresses IP addresses of the host, in resolver order (resolved once, as ab does)
 * @property {string} hostname     for messages
 * @property {number} port
 * @property {Buffer} request
 * @property {number} requests
 * @property {number} concurrency
 * @property {boolean} keepAlive
 * @property {typeof import('./http11.js')|null} http11 the HTTP/1.1 framing module under --http1.1 (loaded
 *   by loadtest() only then: a plain ab run skips two modules), else null
 * @property {boolean} head
 * @property {boolean} variableLength
 * @property {boolean} continueOnReceiveError
 * @property {number} timeoutMs
 * @property {number} timelimitMs  0: none
 * @property {number} heartbeat
 * @property {((done: number) => void)|null} onProgress
 * @property {((record: import('../types.js').RequestRecord) => void)|null} onRequest
 * @property {AbortSignal|null} signal
 */

export class Engine {
  /** @param {EngineOptions} o */
  constructor (o) {
    this.o = o
    this.request = o.request
    this.requests = o.requests
    this.keepAlive = o.keepAlive
    this.http11 = o.http11 !== null
    this.framing = o.http11
    this.head = o.head
    this.variableLength = o.variableLength
    this.heartbeat = o.onProgress ? o.heartbeat : 0
    this.onProgress = o.onProgress
    this.onRequest = o.onRequest
    this.addressIndex = 0
    this.connectOptions = connectOptions(o.addresses[0], o.port)

    // ab's counters, named as in ab.c.
    this.started = 0
    this.done = 0
    this.good = 0
    this.bad = 0
    this.doneka = 0
    this.doclen = 0
    this.errConn = 0
    this.errRecv = 0
    this.errLength = 0
    this.errExcept = 0
    this.errResponse = 0
    this.epipe = 0
    this.totalRead = 0
    this.totalBread = 0
    this.totalPosted = 0
    this.servername = ''
    this.statusCounts = new Float64Array(1000)
    /** @type {Record<string, number>} status "codes" that are not three digits */
    this.oddStatus = {}
    /** @type {Record<string, number>} */
    this.errors = {}
    this.times = new RequestTimes()

    this.requestsInitialized = false
    this.startTime = 0
    this.lastTime = 0
    this.stopAt = Infinity
    this.lastActivity = 0
    this.finished = false
    this.aborted = false
    /** @type {Error|null} SyncbenchError where ab would exit, or what a callback threw */
    this.failure = null
    /** @type {NodeJS.Timeout|null} */
    this.timer = null
    this.found = { length: 0 }
    this.where = { at: 0 }
    this.headerCache = new HeaderCache()
    this.resolve = () => {}
    this.onWatchdog = this.watchdog.bind(this)
    this.onAbort = this.abort.bind(this)
    this.conns = Array.from({ length: o.concurrency }, () => new Connection(this))
  }

  /** Resolves when the run ends (done, time limit, abort); `failure` is set when ab would have exited. */
  run () {
    return new Promise((resolve) => {
      this.resolve = resolve
      this.startTime = this.lastTime = this.lastActivity = performance.now()
      if (this.o.timelimitMs > 0) this.stopAt = this.startTime + this.o.timelimitMs
      const signal = this.o.signal
      if (signal) {
        if (signal.aborted) return this.abort()
        signal.addEventListener('abort', this.onAbort, { once: true })
      }
      this.timer = setTimeout(this.onWatchdog, Math.min(this.o.timeoutMs, MAX_TIMER_MS))
      // ab connects one socket first and opens the others once a response header has arrived.
      this.startConnect(this.conns[0])
    })
  }

  checkEnd () {
    if (!this.finished && (this.done >= this.requests || this.lastTime >= this.stopAt)) this.finish()
  }

  finish () {
    this.finished = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    if (this.o.signal) this.o.signal.removeEventListener('abort', this.onAbort)
    for (const c of this.conns) c.drop()
    this.resolve()
  }

  target () {
    const h = this.o.hostname
    return `${h.includes(':') ? `[${h}]` : h}:${this.o.port}`
  }

  /** status code -> count, for LoadResult.statusCodes */
  statusCodes () {
    /** @type {Record<string, number>} */
    const out = {}
    for (let i = 0; i < 1000; i++) if (this.statusCounts[i] > 0) out[String(i).padStart(3, '0')] = this.statusCounts[i]
    for (const [k, v] of Object.entries(this.oddStatus)) out[k] = v
    return out
  }
}

// Installed once at load, non-enumerable like class methods: `this.data(...)` and the others are
// looked up on the prototype exactly as if written in the class body (nothing added per request).
for (const methods of [connecting, reading, counting, failing]) {
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(methods))) {
    if (Object.hasOwn(Engine.prototype, name)) throw new Error(`Engine.prototype.${name} is defined twice`)
    Object.defineProperty(Engine.prototype, name, { ...descriptor, enumerable: false })
  }
}
