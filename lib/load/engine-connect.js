// Engine methods (installed on Engine.prototype by engine.js, `this` is the Engine): starting a
// connection, writing its request, opening the other connections after the first header, and
// moving to the next address of the host, the way ab's start_connect() and write_request() do.
import { performance } from 'node:perf_hooks'
import { connectOptions, CONNECTED, READING, SYNC_CONNECT_ERRORS } from './connection.js'

/** @typedef {import('./connection.js').Connection} Connection */

export const connecting = {
  /** @param {Connection} c */
  startConnect (c) {
    if (this.finished || this.started >= this.requests) return
    c.read = 0
    c.bread = 0
    c.keepalive = false
    c.cbx = 0
    c.gotHeader = false
    c.start = this.lastTime = performance.now()
    c.open(this.connectOptions)
  },

  /** @param {Connection} c */
  connected (c) {
    const now = this.lastActivity = performance.now()
    c.state = CONNECTED
    c.skipException = false
    this.writeRequest(c, now)
    this.checkEnd()
  },

  /** @param {Connection} c @param {number} now */
  writeRequest (c, now) {
    if (this.started >= this.requests) return
    c.connect = this.lastTime = now
    // A request the kernel cannot take at once (a big -p body) is written when 'drain' says so.
    if (!c.socket.write(this.request)) c.awaitDrain()
    c.endwrite = this.lastTime = performance.now()
    this.started++
    this.totalPosted += this.request.length
    c.state = READING
  },

  /** ab connects one socket first and opens the others once a response header has arrived. */
  startOthers () {
    if (!this.requestsInitialized) {
      this.requestsInitialized = true
      for (let i = 1; i < this.conns.length; i++) this.startConnect(this.conns[i])
    }
  },

  /**
   * ab's fallback while nothing has succeeded yet: a connection to one address of the host fails, so
   * the run moves to its next address (localhost as ::1, then 127.0.0.1). A failure connect() reports
   * at once also clears the connect failures; one reported through recv() counts as usual under -r.
   * @param {Connection} c @param {string} code
   */
  nextAddress (c, code) {
    if (SYNC_CONNECT_ERRORS.has(code)) {
      this.errConn = 0
    } else if (this.o.continueOnReceiveError) {
      this.errRecv++
      this.bad++
      this.closeConnection(c, this.lastActivity)
      if (this.finished) return
    }
    c.drop()
    this.addressIndex++
    this.connectOptions = connectOptions(this.o.addresses[this.addressIndex], this.o.port)
    this.startConnect(c)
  }
}
