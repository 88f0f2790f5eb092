/**
 * Errors with stable codes a caller can branch on. The CLI prints `message` on one line and exits
 * non-zero; library code throws these and never prints.
 *
 * Codes in use (thrown by the library, or sent by the lab servers in JSON error bodies):
 *   SB_ERR_INVALID_OPTION   a flag's value is out of range or malformed (message names flag and value)
 *   SB_ERR_UNKNOWN_OPTION   a flag syncbench does not know
 *   SB_ERR_MISSING_ARGUMENT a required positional argument (URL, file, app) is missing
 *   SB_ERR_INVALID_URL      the URL cannot be parsed or has another scheme than http
 *   SB_ERR_CONNECT          the run was aborted as ab aborts it: connection refused or reset, too many connect failures
 *   SB_ERR_TIMEOUT          no response byte for -s seconds (ab's inactivity timeout)
 *   SB_ERR_SERVER_START     a server under test did not start (or its data file could not be made)
 *   SB_ERR_SERVER_EXITED    a server under test exited while the runner still needed it
 *   SB_ERR_SERVER_METRICS   a server under test did not answer a metrics request
 *   SB_ERR_EXPERIMENT       an experiment definition or workload module is unusable
 *   SB_ERR_RESULTS          a results file is missing or unreadable
 * In the lab's HTTP error bodies only: SB_ERR_NOT_FOUND (404), SB_ERR_BAD_PARAMETER (400, names the
 * parameter), SB_ERR_METHOD (405), SB_ERR_WORKLOAD (500, the workload threw).
 * An unknown command is reported by bin/syncbench.js itself (exit 2).
 */
export class SyncbenchError extends Error {
  /**
   * @param {string} code stable machine-readable code, `SB_ERR_*`
   * @param {string} message one line, naming the option and the value at fault
   * @param {{ cause?: unknown }} [options]
   */
  constructor (code, message, options) {
    super(message, options)
    this.name = 'SyncbenchError'
    this.code = code
  }
}

/**
 * A server child that failed to start (SB_ERR_SERVER_START, or SB_ERR_EXPERIMENT for an unusable
 * workload module): `message` is one line; `stderr` holds the child's last stderr lines, oldest first,
 * for a caller that wants more than that line (a stack trace, a user's server explaining itself).
 */
export class ServerChildError extends SyncbenchError {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ stderr?: string[], cause?: unknown }} [options]
   */
  constructor (code, message, { stderr = [], cause } = {}) {
    super(code, message, cause === undefined ? undefined : { cause })
    /** @type {string[]} */
    this.stderr = stderr
  }
}

/**
 * @param {string} flag
 * @param {unknown} value
 * @param {string} expected what a good value looks like
 */
export function invalidOption (flag, value, expected) {
  return new SyncbenchError('SB_ERR_INVALID_OPTION', `${flag} ${expected}, got "${value}"`)
}

/**
 * The first line of an error's message (or of the thrown value), for one-line CLI messages about
 * errors that come from user code, such as a workload module that throws while loading.
 * @param {unknown} err
 * @returns {string}
 */
export function firstLine (err) {
  const e = /** @type {Error} */ (err)
  return String(e && e.message ? e.message : err).split('\n')[0]
}
