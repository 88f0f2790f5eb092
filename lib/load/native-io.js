// The JavaScript half of the native transport (native/io.c): one per thread, shared by the runs of the
// thread (transport-native.js, one per run), it numbers their connections (slots) and hands each
// batch of socket events to their engines, in the order libuv reported them. A read arrives as a view
// of the shared arena, consumed synchronously as the node:net path's shared read buffer is.
import { performance } from 'node:perf_hooks'
import { getSystemErrorName } from 'node:util'
import { addon } from './native-addon.js'

/** @typedef {import('./native-addon.js').Addon} Addon */

const EV_CONNECT = 1
const EV_READ = 2
const EV_EOF = 3
const EV_ERROR = 4
const EV_DRAIN = 5
const EV_FIELDS = 5
const SYSCALLS = ['', 'connect', 'read', 'write']

export class NativeIo {
  /** @param {Addon} native */
  constructor (native) {
    this.native = native
    /** @type {(import('./connection.js').Connection|null)[]} by slot */
    this.conns = []
    /** @type {number[]} */
    this.freeSlots = []
    const [events, times, arena] = native.init(this.dispatch.bind(this))
    this.events = new Int32Array(events)
    this.times = new Float64Array(times)
    this.arena = Buffer.from(arena)
    // The events' times are libuv's clock in ms; performance.now() is the same clock from another
    // origin. Read back to back, the two differ by that constant less the time between the reads:
    // the largest of a few differences is the closest.
    let origin = -Infinity
    for (let i = 0; i < 8; i++) origin = Math.max(origin, native.now() - performance.now())
    this.origin = origin
  }

  /** A slot for a connection, until release(). @param {import('./connection.js').Connection} c */
  slot (c) {
    const slot = this.freeSlots.length > 0 ? /** @type {number} */ (this.freeSlots.pop()) : this.conns.length
    this.conns[slot] = c
    return slot
  }

  /** Give a slot back; its socket is closed already (Connection.release drops it first). @param {number} slot */
  release (slot) {
    this.conns[slot] = null
    this.freeSlots.push(slot)
  }

  /** The number connect() takes for this address and port. @param {string} address numeric @param {number} port */
  target (address, port) {
    return this.native.target(address, port, address.includes(':'))
  }

  /** The number connect() takes for this unix socket; null when its path is too long for one. @param {string} path */
  targetPipe (path) {
    return this.native.targetPipe(path)
  }

  /**
   * Open a socket for the slot to the target; its serial, negated when the socket could not be made
   * (no descriptor: its error follows as an event). TCP_NODELAY only when asked.
   * @param {number} slot @param {number} target @param {boolean} nodelay
   */
  connect (slot, target, nodelay) {
    return this.native.connect(slot, target, nodelay)
  }

  /** @param {number} slot @param {Buffer} data kept unchanged until written */
  write (slot, data) {
    return this.native.write(slot, data)
  }

  /** @param {number} slot */
  close (slot) {
    this.native.close(slot)
  }

  /** A batch of `count` events from native/io.c. @param {number} count */
  dispatch (count) {
    const ev = this.events
    const times = this.times
    const origin = this.origin
    const conns = this.conns
    for (let i = 0, k = 0; i < count; i++, k += EV_FIELDS) {
      const c = conns[ev[k + 1]]
      // a socket the connection has closed since (or a slot released): nothing more of it counts
      if (c == null || c.serial !== ev[k + 2]) continue
      switch (ev[k]) {
        case EV_READ: {
          const at = ev[k + 3]
          const r = ev[k + 4]
          c.engine.data(c, this.arena.subarray(at, at + r), r, times[i] - origin)
          break
        }
        case EV_CONNECT: c.engine.connected(c, times[i] - origin); break
        case EV_EOF: c.engine.eof(c, times[i] - origin); break
        case EV_ERROR: c.engine.error(c, systemError(ev[k + 3], SYSCALLS[ev[k + 4]], c.engine)); break
        case EV_DRAIN:
          // the oldest write that had to wait is done: its Buffer may go
          c.unwritten.shift()
          c.endwrite = times[i] - origin
          break
      }
    }
  }
}

/**
 * An error as node:net makes it: code, errno, syscall, and its message ("connect EACCES 10.0.0.1:80",
 * "connect ENOENT /run/app.sock", "read ECONNRESET").
 * @param {number} errno libuv's (negative) @param {string} syscall @param {import('./engine.js').Engine} engine
 * @returns {NodeJS.ErrnoException}
 */
function systemError (errno, syscall, engine) {
  const code = getSystemErrorName(errno)
  const where = syscall !== 'connect' ? '' : ` ${engine.socketPath ?? `${engine.addresses[engine.addressIndex]}:${engine.port}`}`
  return Object.assign(new Error(`${syscall} ${code}${where}`), { errno, code, syscall })
}

/** @type {NativeIo|null} */
let io = null

/** This thread's native transport, or null when the addon is not there. @returns {NativeIo|null} */
export function nativeIo () {
  if (io === null && addon !== null) io = new NativeIo(addon)
  return io
}
