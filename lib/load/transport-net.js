// The node:net transport: a net.Socket per connection, TCP or a unix socket. The socket listeners are
// shared by every socket (`this` is the socket, which points at its connection), so that no closure
// is created per socket or per request; each calls one Engine handler. `onread` (public net API,
// honoured by TLS sockets too) reads every socket into one shared buffer: no Buffer and no stream
// machinery per read; each read is consumed synchronously.
import net from 'node:net'
import { performance } from 'node:perf_hooks'

export const kConn = Symbol('syncbench.connection')

/**
 * A socket of the transport, pointing at its connection until the connection drops it.
 * @typedef {net.Socket & { [kConn]?: import('./connection.js').Connection|null }} ConnSocket
 */

/** @this {ConnSocket} */
function onSocketConnect () { const c = this[kConn]; if (c) c.engine.connected(c) }
/** @this {ConnSocket} @param {number} nread @param {Buffer} buf the shared read buffer */
function onSocketRead (nread, buf) { const c = this[kConn]; if (c) c.engine.data(c, buf, nread) }
/** @this {ConnSocket} */
function onSocketEnd () { const c = this[kConn]; if (c) c.engine.eof(c) }
/** @this {ConnSocket} @param {NodeJS.ErrnoException} err */
export function onSocketError (err) { const c = this[kConn]; if (c) c.engine.error(c, err) }
// ab's end of write is when the last request byte is written, as here for a request that had to wait.
/** @this {ConnSocket} */
function onSocketDrain () { const c = this[kConn]; if (c) c.endwrite = performance.now() }

/**
 * net.connect options for an address (or a unix socket), reading into the one shared buffer.
 * @param {string} address @param {number} port @param {string|null} socketPath
 * @returns {net.NetConnectOpts}
 */
function connectOptions (address, port, socketPath) {
  // The callback returns nothing: only `false` would pause the socket.
  const callback = /** @type {(nread: number, buf: Uint8Array) => boolean} */ (/** @type {unknown} */ (onSocketRead))
  const onread = { buffer: Buffer.allocUnsafe(65536), callback }
  return socketPath !== null ? { path: socketPath, onread } : { host: address, port, noDelay: true, onread }
}

/** @typedef {import('./transport.js').Transport} Transport */

/** @implements {Transport} */
export class NetTransport {
  /** @param {string} address @param {number} port @param {string|null} socketPath */
  constructor (address, port, socketPath) {
    this.port = port
    this.socketPath = socketPath
    /** @type {import('./transport.js').TransportName} */
    this.name = socketPath === null ? 'node:net' : 'node:net-unix'
    /** @type {net.NetConnectOpts} */
    this.options = connectOptions(address, port, socketPath)
  }

  /** @param {string} address */
  useAddress (address) {
    this.options = connectOptions(address, this.port, this.socketPath)
  }

  /** @param {import('./connection.js').Connection} c @returns {ConnSocket} */
  connect (c) {
    const socket = /** @type {ConnSocket} */ (net.connect(this.options))
    socket.on('connect', onSocketConnect)
    return socket
  }

  /** @param {import('./connection.js').Connection} c */
  open (c) {
    const socket = this.connect(c)
    socket[kConn] = c
    socket.on('end', onSocketEnd)
    socket.on('error', onSocketError)
    c.socket = socket
  }

  /** @param {import('./connection.js').Connection} c @param {Buffer} data */
  write (c, data) {
    const socket = /** @type {ConnSocket} */ (c.socket)
    if (socket.write(data)) return true
    socket.once('drain', onSocketDrain)
    return false
  }

  /** @param {import('./connection.js').Connection} c */
  close (c) {
    const socket = /** @type {ConnSocket|null} */ (c.socket)
    if (socket !== null) {
      socket[kConn] = null
      socket.destroy()
      c.socket = null
    }
  }

  /** @param {import('./connection.js').Connection} c */
  release (c) {
    this.close(c)
  }

  /**
   * A socket whose connect failed for want of a descriptor is destroyed before its error is
   * emitted (both on later ticks), so while errors are handled the live ones are those that got one.
   * @param {import('./connection.js').Connection} c
   */
  holdsDescriptor (c) {
    const socket = /** @type {ConnSocket|null} */ (c.socket)
    return socket !== null && !socket.destroyed
  }

  /** @returns {import('../types.js').TlsInfo|null} */
  tlsInfo () {
    return null
  }
}
