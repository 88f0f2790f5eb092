// The native transport (native/io.c through this thread's NativeIo, native-io.js): a libuv stream
// per connection, no net.Socket. A connection holds a slot of the NativeIo while the run lasts, and
// the serial of its open socket; the NativeIo hands the socket's events to the engine. Over a unix
// socket: transport-native-unix.js.
//
// What is written must stay alive until libuv has written it: a write the kernel could not take at
// once keeps its Buffer in c.unwritten until its EV_DRAIN (or EV_ERROR), or until the socket closes
// (libuv stops all I/O of a closed socket at once).

/** @typedef {import('./transport.js').Transport} Transport */

/** @implements {Transport} */
export class NativeTransport {
  /**
   * @param {import('./native-io.js').NativeIo} io this thread's
   * @param {number} target the NativeIo's number for the address and port (NativeIo.target())
   * @param {number} port
   */
  constructor (io, target, port) {
    this.io = io
    /** @type {import('./transport.js').TransportName} */
    this.name = 'native'
    this.port = port
    this.target = target
  }

  /** @param {string} address numeric */
  useAddress (address) {
    this.target = this.io.target(address, this.port)
  }

  /** @param {import('./connection.js').Connection} c */
  open (c) {
    if (c.slot < 0) c.slot = this.io.slot(c)
    const serial = this.io.connect(c.slot, this.target, c.engine.nodelay)
    // a negative serial: the socket could not even be made (no descriptor); its error follows
    c.serial = serial < 0 ? -serial : serial
    c.descriptor = serial > 0
  }

  /** @param {import('./connection.js').Connection} c @param {Buffer} data */
  write (c, data) {
    if (this.io.write(c.slot, data)) return true
    c.unwritten.push(data)
    return false
  }

  /** @param {import('./connection.js').Connection} c */
  close (c) {
    if (c.serial !== 0) {
      this.io.close(c.slot)
      c.serial = 0
      c.descriptor = false
      c.unwritten.length = 0
    }
  }

  /** @param {import('./connection.js').Connection} c */
  release (c) {
    this.close(c)
    if (c.slot >= 0) {
      this.io.release(c.slot)
      c.slot = -1
    }
  }

  /** @param {import('./connection.js').Connection} c */
  holdsDescriptor (c) {
    return c.descriptor
  }

  /** @returns {import('../types.js').TlsInfo|null} */
  tlsInfo () {
    return null
  }
}
