// One HTTP/2 connection that several runs share (LoadOptions.http2Session): syncbench run's probe on
// the measured load's own connection (lib/run/prober.js), so that what a sync handler does to one
// connection's streams shows in both. It is an H2Session (h2-frames.js) over a transport of its own
// (transport.js, as a run's connections), whose seats are leased in blocks: each run that borrows it
// gets `count` seats from a base, and the session's callbacks for a seat go to the run that holds it.
// GOAWAY, a protocol error and the connection's loss go to every run holding seats. The connection
// belongs to whoever opened it: a run that ends cancels its own streams still open (RST_STREAM
// CANCEL), gives its seats back and leaves the connection open; close() ends it.
import { isIP } from 'node:net'
import { ConnectError } from '../errors.js'
import { Connection, describeError } from './connection.js'
import { H2Session } from './h2-frames.js'
import { parseTarget } from './request.js'
import { createTransport } from './transport.js'

/**
 * A run holding seats: its handler of the session's callbacks (h2-frames.js H2Handler, its seats
 * numbered as the session numbers them), and what it is told when the connection goes.
 * @typedef {Omit<import('./h2-frames.js').H2Handler, 'write'|'ready'> & { connectionLost: (fault: string) => void }} H2Lessee
 */

/** @typedef {{ base: number, count: number, user: H2Lessee }} Lease */

export class H2SharedConnection {
  /**
   * Use openSharedConnection().
   * @param {import('./transport.js').Transport} transport @param {{ address: string, port: number, seats: number, tls: boolean }} o
   */
  constructor (transport, o) {
    // What a Connection and the transports read of their engine (connection.js, native-io.js).
    this.transport = transport
    this.request = null
    this.nodelay = true
    this.socketPath = null
    this.addresses = [o.address]
    this.addressIndex = 0
    this.port = o.port
    this.tls = o.tls
    this.c = new Connection(/** @type {import('./engine.js').Engine} */ (/** @type {unknown} */ (this)))
    this.h2 = new H2Session(this, { seats: o.seats })
    /** @type {Lease[]} */
    this.leases = []
    /** every byte read and written: a run counts those of the time it held seats */
    this.bytesRead = 0
    this.bytesWritten = 0
    this.closed = false
    /** why the connection went: a socket error's code, CONNECTION_CLOSED */
    this.fault = ''
    /** @type {(err: Error|null) => void} settles openSharedConnection() */
    this.settle = () => {}
  }

  /**
   * Seats for a run: the session's seats base .. base + count - 1, until giveBack().
   * @param {number} count @param {H2Lessee} user
   * @returns {number} the base, -1 when the connection has too few seats left or is closed
   */
  lease (count, user) {
    if (this.closed) return -1
    let base = 0
    for (const l of [...this.leases].sort((a, b) => a.base - b.base)) {
      if (l.base - base >= count) break
      base = l.base + l.count
    }
    if (base + count > this.h2.seats) return -1
    this.leases.push({ base, count, user })
    return base
  }

  /** A run is done with its seats (its streams cancelled already). @param {H2Lessee} user */
  giveBack (user) {
    this.leases = this.leases.filter((l) => l.user !== user)
  }

  /** End the connection: the streams still open on it are lost. */
  close () {
    this.lost('CONNECTION_CLOSED')
  }

  /** @param {number} seat @returns {H2Lessee|null} */
  owner (seat) {
    for (const l of this.leases) if (seat >= l.base && seat < l.base + l.count) return l.user
    return null
  }

  /** @param {string} fault */
  lost (fault) {
    if (this.closed) return
    this.closed = true
    this.fault = fault
    this.c.release()
    // the open streams end LOST (each run's streamEnd reads `fault`), then each run is told
    this.h2.close()
    for (const l of [...this.leases]) l.user.connectionLost(fault)
    this.settle(new Error(fault))
  }

  // The transport's handlers.

  /** @param {Connection} _c */
  connected (_c) {
    if (this.tls && /** @type {import('node:tls').TLSSocket|null} */ (/** @type {unknown} */ (this.c.socket))?.alpnProtocol !== 'h2') {
      this.lost('the server did not choose h2 in TLS ALPN')
      return
    }
    this.h2.start()
  }

  /** @param {Connection} _c @param {Buffer} buf @param {number} r */
  data (_c, buf, r) {
    this.bytesRead += r
    this.h2.data(buf, r)
  }

  /** @param {Connection} _c */
  eof (_c) { this.lost('CONNECTION_CLOSED') }

  /** @param {Connection} _c @param {NodeJS.ErrnoException} err */
  error (_c, err) {
    // (before SETTINGS: why openSharedConnection() fails; after, a no-op)
    this.settle(new Error(describeError(err)))
    this.lost(err.code ?? 'ERROR')
  }

  // The session's handler (h2-frames.js H2Handler).

  /** @param {Buffer} data */
  write (data) {
    if (this.closed) return
    this.bytesWritten += data.length
    this.c.write(data)
  }

  ready () { this.settle(null) }

  /** @param {number} seat */
  streamHeaders (seat) { this.owner(seat)?.streamHeaders(seat) }

  /** @param {number} seat @param {number} outcome */
  streamEnd (seat, outcome) { this.owner(seat)?.streamEnd(seat, outcome) }

  /** @param {number} last @param {number} code */
  goaway (last, code) {
    for (const l of [...this.leases]) l.user.goaway(last, code)
  }

  /** @param {number} code @param {string} reason */
  sessionError (code, reason) {
    for (const l of [...this.leases]) l.user.sessionError(code, reason)
    this.lost(reason)
  }
}

/**
 * Open an HTTP/2 connection to `url`'s origin (h2c for http://, ALPN h2 for https://, its certificate
 * unchecked as ab leaves it) and resolve once the server's SETTINGS came: runs may lease its seats.
 * @param {string} url
 * @param {{ seats: number, signal?: AbortSignal }} o  seats: the most streams all its runs will hold at once
 * @returns {Promise<import('../types.js').SharedHttp2Connection>} an H2SharedConnection
 */
export async function openSharedConnection (url, o) {
  const target = parseTarget(url)
  let address = target.hostname
  if (!isIP(address)) {
    const { lookup } = await import('node:dns/promises')
    address = (await lookup(address)).address
  }
  let tls = null
  if (target.tls) {
    const { secureContext, serverName } = await import('./tls.js')
    tls = { context: secureContext({}, { ciphers: '', tlsProtocol: '' }), servername: serverName(target.hostname, []), alpn: ['h2'] }
  }
  const transport = await createTransport({ addresses: [address], port: target.port, socketPath: null, tls })
  const shared = new H2SharedConnection(transport, { address, port: target.port, seats: o.seats, tls: target.tls })
  const signal = o.signal
  await new Promise((resolve, reject) => {
    const onAbort = () => shared.lost('aborted')
    shared.settle = (err) => {
      shared.settle = () => {}
      signal?.removeEventListener('abort', onAbort)
      if (err === null) resolve(undefined)
      else reject(new ConnectError(`${target.hostname}:${target.port}: ${err.message}`))
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    shared.c.open()
  })
  return shared
}
