// Errors with stable codes a caller can branch on: one class per code, each code documented once,
// here (undici's lib/core/errors.js is the model). Library code throws these and never prints; the
// CLI prints `message` on one line (lib/cli/output.js) and exits 2 for a usage error, 1 otherwise.
//
//   import { errorCodes, InvalidOptionError } from 'syncbench'
//   try { await loadtest(options) } catch (err) { if (err.code === errorCodes.CONNECT) use(err.result) }
//
// Every error keeps `name === 'SyncbenchError'` (so `String(err)` and `instanceof SyncbenchError`
// read the same for all of them); the class tells them apart, and so does `code`.

/**
 * Every code syncbench uses, documented once. The first group is thrown by the library; the second
 * appears only in the JSON error bodies the lab servers answer with.
 */
export const errorCodes = Object.freeze({
  /** a flag's, option's or argument's value is out of range or malformed (the message names option and value) */
  INVALID_OPTION: 'SB_ERR_INVALID_OPTION',
  /** a flag syncbench does not know */
  UNKNOWN_OPTION: 'SB_ERR_UNKNOWN_OPTION',
  /** a required positional argument (URL, file, app) is missing */
  MISSING_ARGUMENT: 'SB_ERR_MISSING_ARGUMENT',
  /** the URL cannot be parsed, has a scheme other than http:// and https://, or carries credentials */
  INVALID_URL: 'SB_ERR_INVALID_URL',
  /** the run was aborted as ab aborts it: connection refused or reset, too many failures (`result`: the partial LoadResult) */
  CONNECT: 'SB_ERR_CONNECT',
  /** no response byte for -s seconds, ab's inactivity timeout (`result`: the partial LoadResult) */
  TIMEOUT: 'SB_ERR_TIMEOUT',
  /** a server under test did not start, or its data file could not be made (`stderr`: its last lines) */
  SERVER_START: 'SB_ERR_SERVER_START',
  /** a server under test exited while the runner still needed it (`stderr`: its last lines) */
  SERVER_EXITED: 'SB_ERR_SERVER_EXITED',
  /** a server under test did not answer a metrics request */
  SERVER_METRICS: 'SB_ERR_SERVER_METRICS',
  /** an experiment definition or a workload module is unusable */
  EXPERIMENT: 'SB_ERR_EXPERIMENT',
  /** a results file is missing, unreadable or malformed, or cannot be written */
  RESULTS: 'SB_ERR_RESULTS',
  /** the native transport was required (SYNCBENCH_IO=native) but cannot be used, or the addon refused a call (native/io.c) */
  NATIVE_IO: 'SB_ERR_NATIVE_IO',

  /** lab HTTP body, status 404: no such route */
  NOT_FOUND: 'SB_ERR_NOT_FOUND',
  /** lab HTTP body, status 400: a query parameter is out of range (the body names `parameter`) */
  BAD_PARAMETER: 'SB_ERR_BAD_PARAMETER',
  /** lab HTTP body, status 503: a readfile request would take the bytes read at once over `serve --memory-budget` (the body names `budget`) */
  MEMORY_BUDGET: 'SB_ERR_MEMORY_BUDGET',
  /** lab HTTP body, status 405: only GET (and HEAD) are served */
  METHOD: 'SB_ERR_METHOD',
  /** lab HTTP body, status 500: the workload threw */
  WORKLOAD: 'SB_ERR_WORKLOAD'
})

/** @typedef {typeof errorCodes[keyof typeof errorCodes]} ErrorCode */

/**
 * Codes of a bad command line: the CLI exits 2 for these, as usage errors do by convention.
 * @type {ReadonlySet<string>}
 */
export const USAGE_CODES = new Set([errorCodes.INVALID_OPTION, errorCodes.UNKNOWN_OPTION, errorCodes.MISSING_ARGUMENT, errorCodes.INVALID_URL])

/** The base class: `code` tells what went wrong, `message` is one line naming the option and value at fault. */
export class SyncbenchError extends Error {
  /**
   * @param {ErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor (code, message, options) {
    super(message, options)
    this.name = 'SyncbenchError'
    /** @type {ErrorCode} */
    this.code = code
  }
}

export class InvalidOptionError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.INVALID_OPTION, message, options) }
}

export class UnknownOptionError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.UNKNOWN_OPTION, message, options) }
}

export class MissingArgumentError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.MISSING_ARGUMENT, message, options) }
}

export class InvalidUrlError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.INVALID_URL, message, options) }
}

/** A load run ended where ab would exit. `result` is what was measured until then, once known. */
export class ConnectError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) {
    super(errorCodes.CONNECT, message, options)
    /** @type {import('./types.js').LoadResult|undefined} the partial result, set by loadtest() */
    this.result = undefined
  }
}

/** No response byte for -s seconds. `result` is what was measured until then, once known. */
export class TimeoutError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) {
    super(errorCodes.TIMEOUT, message, options)
    /** @type {import('./types.js').LoadResult|undefined} the partial result, set by loadtest() */
    this.result = undefined
  }
}

/**
 * A server under test did not start. `message` is one line; `stderr` holds the child's last stderr
 * lines, oldest first, for a caller that wants more (a stack trace, a user's server explaining itself).
 */
export class ServerStartError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown, stderr?: string[] }} [options] */
  constructor (message, { cause, stderr = [] } = {}) {
    super(errorCodes.SERVER_START, message, cause === undefined ? undefined : { cause })
    /** @type {string[]} */
    this.stderr = stderr
  }
}

/** A server under test exited while it was still needed. `stderr` holds its last stderr lines. */
export class ServerExitedError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown, stderr?: string[] }} [options] */
  constructor (message, { cause, stderr = [] } = {}) {
    super(errorCodes.SERVER_EXITED, message, cause === undefined ? undefined : { cause })
    /** @type {string[]} */
    this.stderr = stderr
  }
}

export class ServerMetricsError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.SERVER_METRICS, message, options) }
}

/**
 * An experiment or workload module is unusable. From a child (a calibration, a workload host),
 * `signal` is the signal that ended it, so an interrupt is told from a crash; `stderr` its last lines.
 */
export class ExperimentError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown, signal?: NodeJS.Signals|null, stderr?: string[] }} [options] */
  constructor (message, { cause, signal = null, stderr = [] } = {}) {
    super(errorCodes.EXPERIMENT, message, cause === undefined ? undefined : { cause })
    /** @type {NodeJS.Signals|null} */
    this.signal = signal
    /** @type {string[]} */
    this.stderr = stderr
  }
}

export class ResultsError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.RESULTS, message, options) }
}

/** The native transport cannot be used where it was required, or the addon (native/io.c) refused a call. */
export class NativeIoError extends SyncbenchError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor (message, options) { super(errorCodes.NATIVE_IO, message, options) }
}

/**
 * The class for each code that is thrown, for code that receives a code over IPC and rebuilds the error.
 * @type {Record<string, new (message: string, options?: { cause?: unknown, stderr?: string[] }) => SyncbenchError>}
 */
const classes = {
  [errorCodes.INVALID_OPTION]: InvalidOptionError,
  [errorCodes.UNKNOWN_OPTION]: UnknownOptionError,
  [errorCodes.MISSING_ARGUMENT]: MissingArgumentError,
  [errorCodes.INVALID_URL]: InvalidUrlError,
  [errorCodes.CONNECT]: ConnectError,
  [errorCodes.TIMEOUT]: TimeoutError,
  [errorCodes.SERVER_START]: ServerStartError,
  [errorCodes.SERVER_EXITED]: ServerExitedError,
  [errorCodes.SERVER_METRICS]: ServerMetricsError,
  [errorCodes.EXPERIMENT]: ExperimentError,
  [errorCodes.RESULTS]: ResultsError,
  [errorCodes.NATIVE_IO]: NativeIoError
}

/**
 * Rebuild an error from a code and a message (a server child reports its failure over IPC this way);
 * an unknown or missing code becomes `fallback`.
 * @param {unknown} code
 * @param {string} message
 * @param {ErrorCode} fallback
 * @param {{ cause?: unknown, stderr?: string[] }} [options] `stderr` is kept by the classes that declare it
 * @returns {SyncbenchError}
 */
export function errorFromCode (code, message, fallback, options = {}) {
  const key = /** @type {keyof typeof classes} */ (Object.hasOwn(classes, String(code)) ? String(code) : fallback)
  const Class = classes[key]
  return Class ? new Class(message, options) : new SyncbenchError(fallback, message, options)
}

/**
 * @param {string} flag
 * @param {unknown} value
 * @param {string} expected what a good value looks like
 */
export function invalidOption (flag, value, expected) {
  return new InvalidOptionError(`${flag} ${expected}, got ${shown(value)}`)
}

/**
 * A value as a message quotes it: text and numbers in double quotes, as typed; a missing value as
 * "nothing", never "undefined"; anything else as JSON writes it (null, true, [1,2]).
 * @param {unknown} value
 * @returns {string}
 */
export function shown (value) {
  if (value === undefined) return 'nothing'
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return `"${value}"`
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** What the common system error codes of a file or folder mean, as the messages word them. */
const SYSTEM_WORDS = /** @type {Record<string, string>} */ ({
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EEXIST: 'already exists',
  EMFILE: 'too many open files'
})

/**
 * A system error code in words, the code after them: "no such file (ENOENT)"; a code without words as it is.
 * @param {string} code
 * @param {'read'|'write'} [access] a write's ENOENT is a missing folder on the way, not the file
 * @returns {string}
 */
export function systemReason (code, access = 'read') {
  if (code === 'ENOENT' && access === 'write') return `no such folder (${code})`
  return Object.hasOwn(SYSTEM_WORDS, code) ? `${SYSTEM_WORDS[code]} (${code})` : code
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

/**
 * The `code` of a Node system error (`ENOENT`, `EADDRINUSE`, ...) caught as `unknown`, else undefined.
 * @param {unknown} err
 * @returns {string|undefined}
 */
export function systemCode (err) {
  return err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string' ? err.code : undefined
}
