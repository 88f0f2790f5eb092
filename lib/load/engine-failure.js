// Engine methods (installed on Engine.prototype by engine.js, `this` is the Engine): what ends a
// run the way ab's error paths do: socket errors (connect failures, receive errors with and
// without -r, write errors), the inactivity watchdog (-s), an abort, and apr_err()'s exit.
import { performance } from 'node:perf_hooks'
import { SyncbenchError } from '../errors.js'
import { CONNECTING, SYNC_CONNECT_ERRORS, describeError } from './connection.js'

/** setTimeout's longest delay; a longer -s is waited for in several turns. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** @typedef {import('./connection.js').Connection} Connection */

export const failing = {
  /** @param {Connection} c @param {NodeJS.ErrnoException} err */
  error (c, err) {
    this.lastActivity = performance.now()
    const code = err.code ?? 'ERROR'
    this.errors[code] = (this.errors[code] ?? 0) + 1
    if (c.state === CONNECTING && this.good === 0 && this.addressIndex + 1 < this.o.addresses.length) {
      this.nextAddress(c, code)
    } else if (c.state === CONNECTING && SYNC_CONNECT_ERRORS.has(code)) {
      c.drop()
      if (this.bad++ > 10) {
        return this.fail('SB_ERR_CONNECT', `${this.target()}: test aborted after 10 failures: connect ${describeError(err)}`)
      }
      this.errConn++
      this.startConnect(c)
    } else if (c.state !== CONNECTING && err.syscall === 'write') {
      this.epipe++
      this.closeConnection(c, this.lastActivity)
    } else {
      this.receiveError(c, err)
    }
    this.checkEnd()
  },

  /**
   * ab's receive-error path. Without -r it exits. With -r the response counts as complete and failed
   * (Receive), and poll's POLLERR adds an Exception; after a refused connect ab reads the next,
   * already refused socket in the same turn, which adds a Receive without an Exception.
   * @param {Connection} c @param {NodeJS.ErrnoException} err
   */
  receiveError (c, err) {
    if (!this.o.continueOnReceiveError) {
      this.errRecv++
      const connecting = c.state === CONNECTING
      c.drop()
      if (connecting) return this.fail('SB_ERR_CONNECT', `${this.target()}: ${describeError(err)}`)
      return this.fail('SB_ERR_CONNECT', `${this.target()}: receive failed: ${describeError(err)}; -r continues past receive errors`)
    }
    this.errRecv++
    this.bad++
    const refused = c.state === CONNECTING
    const skip = c.skipException
    this.closeConnection(c, this.lastActivity)
    if (skip) {
      c.skipException = false
    } else {
      this.errExcept++
      this.bad++
      c.skipException = refused
      // The refused partner ab reads in the same turn still counts when this one ended the run.
      if (refused && this.done >= this.requests) {
        this.errRecv++
        this.bad++
      }
    }
  },

  watchdog () {
    this.timer = null
    if (this.finished) return
    const idle = performance.now() - this.lastActivity
    const timeoutMs = this.o.timeoutMs
    if (idle >= timeoutMs - 1) {
      this.errors.ETIMEDOUT = (this.errors.ETIMEDOUT ?? 0) + 1
      this.fail('SB_ERR_TIMEOUT', `${this.target()}: no response within ${timeoutMs / 1000} s (-s ${timeoutMs / 1000}): the timeout specified has expired`)
      return
    }
    this.timer = setTimeout(this.onWatchdog, Math.min(timeoutMs - idle, MAX_TIMER_MS))
  },

  abort () {
    if (this.finished) return
    this.lastTime = performance.now()
    this.aborted = true
    this.finish()
  },

  /** What ab does with apr_err(): stop everything; the caller throws with the partial result. */
  fail (code, message) {
    if (this.finished) return -1
    this.failure = new SyncbenchError(code, message)
    this.aborted = true
    this.finish()
    return -1
  }
}
