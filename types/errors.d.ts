// syncbench's errors: one class per code; every one has `name === 'SyncbenchError'` and its `code`.
// Library functions throw these and never print; the CLI prints `message` on one line.

/** Every code syncbench uses. The first group is thrown; the second only appears in the lab servers' JSON error bodies. */
export declare const errorCodes: Readonly<{
  /** a flag's or option's value is out of range or malformed (the message names option and value) */
  INVALID_OPTION: 'SB_ERR_INVALID_OPTION'
  /** a flag syncbench does not know */
  UNKNOWN_OPTION: 'SB_ERR_UNKNOWN_OPTION'
  /** a required positional argument (URL, file, app) is missing */
  MISSING_ARGUMENT: 'SB_ERR_MISSING_ARGUMENT'
  /** the URL cannot be parsed or has another scheme than http */
  INVALID_URL: 'SB_ERR_INVALID_URL'
  /** the run was aborted as ab aborts it (`result`: the partial LoadResult) */
  CONNECT: 'SB_ERR_CONNECT'
  /** no response byte for -s seconds (`result`: the partial LoadResult) */
  TIMEOUT: 'SB_ERR_TIMEOUT'
  /** a server under test did not start (`stderr`: its last lines) */
  SERVER_START: 'SB_ERR_SERVER_START'
  /** a server under test exited while the runner still needed it (`stderr`: its last lines) */
  SERVER_EXITED: 'SB_ERR_SERVER_EXITED'
  /** a server under test did not answer a metrics request */
  SERVER_METRICS: 'SB_ERR_SERVER_METRICS'
  /** an experiment definition or a workload module is unusable */
  EXPERIMENT: 'SB_ERR_EXPERIMENT'
  /** a results file is missing, unreadable or malformed, or cannot be written */
  RESULTS: 'SB_ERR_RESULTS'
  /** the native transport was required but cannot be used, or the addon refused a call */
  NATIVE_IO: 'SB_ERR_NATIVE_IO'
  /** lab HTTP body, status 404 */
  NOT_FOUND: 'SB_ERR_NOT_FOUND'
  /** lab HTTP body, status 400 */
  BAD_PARAMETER: 'SB_ERR_BAD_PARAMETER'
  /** lab HTTP body, status 503 */
  MEMORY_BUDGET: 'SB_ERR_MEMORY_BUDGET'
  /** lab HTTP body, status 405 */
  METHOD: 'SB_ERR_METHOD'
  /** lab HTTP body, status 500 */
  WORKLOAD: 'SB_ERR_WORKLOAD'
}>

export type ErrorCode = typeof errorCodes[keyof typeof errorCodes]

export interface ErrorOptions { cause?: unknown }

export declare class SyncbenchError extends Error {
  constructor (code: ErrorCode, message: string, options?: ErrorOptions)
  code: ErrorCode
}
export declare class InvalidOptionError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
export declare class UnknownOptionError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
export declare class MissingArgumentError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
export declare class InvalidUrlError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
/** The run was aborted as ab aborts it; `result` is what was measured until then. */
export declare class ConnectError extends SyncbenchError {
  constructor (message: string, options?: ErrorOptions)
  result: import('./load.js').LoadResult | undefined
}
/** No response byte for -s seconds; `result` is what was measured until then. */
export declare class TimeoutError extends SyncbenchError {
  constructor (message: string, options?: ErrorOptions)
  result: import('./load.js').LoadResult | undefined
}
/** A server under test did not start; `stderr` holds its last lines, oldest first. */
export declare class ServerStartError extends SyncbenchError {
  constructor (message: string, options?: ErrorOptions & { stderr?: string[] })
  stderr: string[]
}
/** A server under test exited while it was still needed; `stderr` holds its last lines. */
export declare class ServerExitedError extends SyncbenchError {
  constructor (message: string, options?: ErrorOptions & { stderr?: string[] })
  stderr: string[]
}
export declare class ServerMetricsError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
/** An experiment or workload is unusable; a child that failed says by which signal and with which last lines. */
export declare class ExperimentError extends SyncbenchError {
  constructor (message: string, options?: ErrorOptions & { signal?: NodeJS.Signals | null, stderr?: string[] })
  signal: NodeJS.Signals | null
  stderr: string[]
}
export declare class ResultsError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
/** The native transport was required (SYNCBENCH_IO=native) but cannot be used, or the addon refused a call. */
export declare class NativeIoError extends SyncbenchError { constructor (message: string, options?: ErrorOptions) }
