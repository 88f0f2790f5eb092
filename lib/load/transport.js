// The seam between the engine and its sockets. The Engine (engine.js) decides what to send and
// counts what comes back; a Transport opens, writes and closes the sockets of its connections and
// reports what they do by calling the engine's four handlers, whichever I/O path carries them:
//   engine.connected(c, now?)  the connection is open (for TLS: the handshake is done)
//   engine.data(c, buf, r, now?)  r bytes were read into buf, which is only valid during the call
//   engine.eof(c, now?)        the peer closed its side
//   engine.error(c, err)       a system or TLS error, err.syscall 'connect' | 'read' | 'write'
// and by stamping c.endwrite when a write that had to wait is done (ab's end of write).
//
// One file per I/O path: transport-net.js (node:net, TCP or unix socket), transport-tls.js
// (node:tls), transport-native.js (native/io.c, TCP and unix sockets). createTransport() picks one
// for a run. The HTTP/2 engine (h2-engine.js) drives the same transports with the same four handlers.
import { isIP } from 'node:net'
import { NativeIoError } from '../errors.js'
import { NetTransport } from './transport-net.js'
import { NativeTransport } from './transport-native.js'
import { NativeUnixTransport } from './transport-native-unix.js'
import { nativeIo } from './native-io.js'
import { addonStatus } from './native-addon.js'

/**
 * What the engine needs of a transport. `name` goes into the LoadResult (`transport`): it contains
 * "native" for native/io.c and "net" or "tls" for Node's modules, so results measured on different
 * paths (whose CPU per request differs) can be told apart.
 * @typedef {object} Transport
 * @property {TransportName} name
 * @property {(c: import('./connection.js').Connection) => void} open  a new socket for c (connecting)
 * @property {(c: import('./connection.js').Connection, data: Buffer) => boolean} write  false when the
 *           kernel could not take it all at once (c.endwrite is stamped when it is written); `data` must
 *           stay unchanged until then
 * @property {(c: import('./connection.js').Connection) => void} close  close c's socket; nothing more of it is reported
 * @property {(c: import('./connection.js').Connection) => void} release  the run is over for c (its socket closed)
 * @property {(c: import('./connection.js').Connection) => boolean} holdsDescriptor  c's socket got a file descriptor
 *           (for the message when descriptors run out)
 * @property {(address: string) => void} useAddress  connect from now on to this address of the host (ab's fallback)
 * @property {() => import('../types.js').TlsInfo|null} tlsInfo  https: what the run's first handshake said
 */

/**
 * An HTTP/2 run's too (LoadResult.protocol says h2). node:http2, node:http2-tls and their -unix variants named
 * the runs of an earlier HTTP/2 engine over node:http2's client: results files may still hold them.
 * @typedef {'native'|'native-unix'|'node:net'|'node:net-unix'|'node:tls'|'node:tls-unix'|'node:http2'|'node:http2-tls'|'node:http2-unix'|'node:http2-tls-unix'} TransportName
 */

/**
 * The transport of one run: node:tls for https, else the native transport when its addon is loaded
 * (plain TCP to IP addresses, or a unix socket whose path fits a socket address), else node:net.
 * SYNCBENCH_IO=native refuses node:net where the native transport could carry the run.
 * @param {{ addresses: string[], port: number, socketPath: string|null, tls: import('./transport-tls.js').TlsOptions|null }} o
 * @returns {Promise<Transport>}
 */
export async function createTransport (o) {
  if (o.tls !== null) {
    const { TlsTransport } = await import('./transport-tls.js')
    return new TlsTransport(o.addresses[0], o.port, o.socketPath, o.tls)
  }
  if (o.socketPath !== null || o.addresses.every(isIP)) {
    const io = nativeIo()
    if (io !== null && o.socketPath === null) return new NativeTransport(io, io.target(o.addresses[0], o.port), o.port)
    // a unix socket path too long for a socket address: node:net says why
    const pipe = io === null || o.socketPath === null ? null : io.targetPipe(o.socketPath)
    if (pipe !== null) return new NativeUnixTransport(/** @type {import('./native-io.js').NativeIo} */ (io), pipe)
    if (addonStatus.wanted === 'native') throw new NativeIoError(nativeUnavailable(o.socketPath))
  }
  return new NetTransport(o.addresses[0], o.port, o.socketPath)
}

/** @param {string|null} socketPath */
function nativeUnavailable (socketPath) {
  if (addonStatus.state === 'loaded') return `SYNCBENCH_IO=native: the unix socket path is too long for a socket address (${socketPath?.length} bytes)`
  return `SYNCBENCH_IO=native: the native transport is not available (${addonStatus.reason})`
}
