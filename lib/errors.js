/**
 * Errors with stable codes a caller can branch on. The CLI prints `message` on one line and exits
 * non-zero; library code throws these and never prints.
 *
 * Codes in use:
 *   SB_ERR_INVALID_OPTION   a flag's value is out of range or malformed (message names flag and value)
 *   SB_ERR_UNKNOWN_OPTION   a flag syncbench does not know
 *   SB_ERR_MISSING_ARGUMENT a required positional argument (URL, file) is missing
 *   SB_ERR_INVALID_URL      the URL cannot be parsed or has another scheme than http
 *   SB_ERR_UNKNOWN_COMMAND  `syncbench <command>` with an unknown command
 *   SB_ERR_CONNECT          the run was aborted as ab aborts it: connection refused or reset, too many connect failures
 *   SB_ERR_TIMEOUT          a connection stayed silent longer than -s (ab's inactivity timeout)
 *   SB_ERR_SERVER_START     a server under test did not start
 *   SB_ERR_EXPERIMENT       an experiment definition or workload module is unusable
 *   SB_ERR_RESULTS          a results file is missing or unreadable
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
 * @param {string} flag
 * @param {unknown} value
 * @param {string} expected what a good value looks like
 */
export function invalidOption (flag, value, expected) {
  return new SyncbenchError('SB_ERR_INVALID_OPTION', `${flag} ${expected}, got "${value}"`)
}
