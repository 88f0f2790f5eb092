// The native transport over a unix socket (--unix): transport-native.js's, connecting each socket to
// the one path, as a libuv pipe.
import { NativeTransport } from './transport-native.js'

/** @typedef {import('./transport.js').Transport} Transport */

/** @implements {Transport} */
export class NativeUnixTransport extends NativeTransport {
  /**
   * @param {import('./native-io.js').NativeIo} io
   * @param {number} target the NativeIo's number for the unix socket (targetPipe())
   */
  constructor (io, target) {
    super(io, target, 0)
    /** @type {import('./transport.js').TransportName} */
    this.name = 'native-unix'
  }

  /** A unix socket has one path: nothing to move to. @param {string} _address */
  useAddress (_address) {}
}
