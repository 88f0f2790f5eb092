// Engine methods (installed on Engine.prototype by engine.js, `this` is the Engine): ab's
// bookkeeping of a finished response or a closed connection (close_connection()): the completed
// and kept-alive counts, the Length check, the request times, and the caller's callbacks.
import { performance } from 'node:perf_hooks'
import { CONNECTED } from './connection.js'

/** @typedef {import('./connection.js').Connection} Connection */

export const counting = {
  /**
   * A response complete by its framing (ab: a keep-alive response that reached its Content-Length).
   * @param {Connection} c @param {boolean} reuse @param {number} now when its last byte was read
   */
  responseDone (c, reuse, now) {
    this.good++
    this.checkLength(c)
    if (this.done < this.requests) this.record(c, now, reuse)
    // record() runs the caller's callbacks, which may have aborted the run.
    if (this.finished) return
    c.keepalive = false
    c.length = 0
    c.gotHeader = false
    c.cbx = 0
    c.read = c.bread = 0
    if (reuse) {
      // ab: zero connect time with keep-alive.
      c.start = c.connect = this.lastTime = now
      c.state = CONNECTED
      this.writeRequest(c, now)
    } else {
      this.lastTime = now
      c.drop()
      this.startConnect(c)
    }
    this.checkEnd()
  },

  /** ab's "Length" failure: a body length other than the first good response's. */
  checkLength (c) {
    if (this.good === 1) this.doclen = c.bread
    else if (c.bread !== this.doclen && !this.variableLength) {
      this.bad++
      this.errLength++
    }
  },

  /** @param {Connection} c */
  eof (c) {
    this.lastActivity = performance.now()
    this.good++
    this.closeConnection(c, this.lastActivity)
    this.checkEnd()
  },

  /**
   * ab's close_connection(): the response ends with its connection and counts as complete, with the
   * length check, whatever came before (EOF, a receive error under -r, a failed write). ab's branch
   * for "an idle keep-alive connection the server legitimately closed" cannot trigger (it clears its
   * keep-alive flag after each response), so a server closing a reused connection before answering
   * costs a completed request and a Length failure, as in ab; we keep that on purpose.
   * @param {Connection} c @param {number} now
   */
  closeConnection (c, now) {
    this.checkLength(c)
    if (this.done < this.requests) this.record(c, now, false)
    if (this.finished) return
    this.lastTime = now
    c.drop()
    this.startConnect(c)
  },

  /** @param {Connection} c @param {number} now @param {boolean} keptAlive */
  record (c, now, keptAlive) {
    this.done++
    if (keptAlive) this.doneka++
    const ctime = c.connect > c.start ? c.connect - c.start : 0
    const time = now > c.start ? now - c.start : 0
    const wait = c.beginread > c.endwrite ? c.beginread - c.endwrite : 0
    this.times.record(ctime, time, wait)
    if (this.onRequest !== null) {
      try {
        this.onRequest({ start: performance.timeOrigin + c.start, connect: ctime, waiting: wait, total: time })
      } catch (err) {
        this.callbackFailed(err)
      }
    }
    if (this.heartbeat > 0 && this.done % this.heartbeat === 0) {
      try {
        this.onProgress(this.done)
      } catch (err) {
        this.callbackFailed(err)
      }
    }
  },

  /** A caller's callback threw inside a socket event: end the run and hand its error to loadtest(). */
  callbackFailed (err) {
    if (this.finished) return
    this.failure = err
    this.aborted = true
    this.finish()
  }
}
