// The node:tls transport, for https:// (over TCP, or a unix socket with --unix): node:net's, with each
// socket made by tls.connect and opened once its handshake is done (ab stamps c->connect at the first
// write, after the handshake). It keeps what the run's first completed handshake said, as ab reports
// it. The context (-Z, -f) and the SNI come from tls.js.
import tls from 'node:tls'
import { NetTransport, kConn } from './transport-net.js'
import { handshakeInfo } from './tls.js'

/**
 * What a run's TLS is made of: its context, the SNI name (null: none) and the protocols offered in
 * ALPN (none: HTTP/1 runs offer none, as ab; --http2 offers h2, the engine checking each connection's).
 * @typedef {{ context: tls.SecureContext, servername: string|null, alpn?: string[] }} TlsOptions
 */

/** @this {import('./transport-net.js').ConnSocket} */
function onSocketSecureConnect () {
  const c = this[kConn]
  if (c) {
    const transport = /** @type {TlsTransport} */ (c.transport)
    if (transport.info === null) transport.info = handshakeInfo(/** @type {tls.TLSSocket} */ (/** @type {unknown} */ (this)))
    c.engine.connected(c)
  }
}

/** @typedef {import('./transport.js').Transport} Transport */

/** @implements {Transport} */
export class TlsTransport extends NetTransport {
  /** @param {string} address @param {number} port @param {string|null} socketPath @param {TlsOptions} o */
  constructor (address, port, socketPath, o) {
    super(address, port, socketPath)
    /** @type {import('./transport.js').TransportName} */
    this.name = socketPath === null ? 'node:tls' : 'node:tls-unix'
    /** tls.connect options besides the address: no verification, as ab */
    /** @type {tls.ConnectionOptions} */
    this.tlsOptions = o.servername === null
      ? { secureContext: o.context, rejectUnauthorized: false }
      : { secureContext: o.context, rejectUnauthorized: false, servername: o.servername }
    if (o.alpn !== undefined) this.tlsOptions.ALPNProtocols = o.alpn
    this.servername = o.servername
    /** @type {Omit<import('../types.js').TlsInfo, 'serverName'>|null} the first handshake's, as ab keeps it */
    this.info = null
  }

  /** @param {import('./connection.js').Connection} c @returns {import('./transport-net.js').ConnSocket} */
  connect (c) {
    const socket = /** @type {import('./transport-net.js').ConnSocket} */ (/** @type {unknown} */ (tls.connect({ ...this.options, ...this.tlsOptions })))
    socket.on('secureConnect', onSocketSecureConnect)
    return socket
  }

  /** LoadResult.tls. @returns {import('../types.js').TlsInfo} */
  tlsInfo () {
    const info = this.info ?? { protocol: '', cipher: '', certificateBits: 0, cipherBits: 0, serverTempKey: '' }
    return { ...info, serverName: this.servername }
  }
}
