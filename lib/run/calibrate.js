// The physical ceiling of an experiment: one operation's time measured alone (in a short child,
// lib/run/calibrate-child.js) times the cores that can run it at once. No server strategy can beat
// cores x (1000 / opMs) requests per second on CPU-bound work; the verdict line says how close each gets.
import os from 'node:os'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ExperimentError } from '../errors.js'
import { track } from './children.js'

const childPath = fileURLToPath(new URL('./calibrate-child.js', import.meta.url))
/** @typedef {{ op: 'bcrypt'|'bcryptjs'|'readfile', cost?: number, bytes?: number }} CalibrationSpec */

/** @type {Record<CalibrationSpec['op'], string>} */
const UNITS = { bcrypt: 'hash/s', bcryptjs: 'hash/s', readfile: 'read/s' }

/**
 * @typedef {object} Calibration
 * @property {number} opMs         time of one operation alone: the 10th percentile of repeated calls
 * @property {number} usableCores  os.availableParallelism()
 * @property {number} ceilingRps   usableCores * 1000 / opMs
 * @property {string} op
 * @property {string} unit         "hash/s", "read/s"
 * @property {number} samples
 */

/**
 * @param {CalibrationSpec} spec
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, signal?: AbortSignal }} [options]
 *   signal: ends the child (the error is then an AbortError)
 * @returns {Promise<Calibration>} rejects with an ExperimentError whose `signal` names what ended the child
 */
export async function calibrate (spec, options = {}) {
  const param = spec.op === 'readfile' ? String(spec.bytes ?? 4 * 1024 * 1024) : String(spec.cost ?? 10)
  /** @type {string} */
  const stdout = await new Promise((resolve, reject) => {
    const execOptions = {
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 60_000,
      signal: options.signal,
      // Its own process group: a terminal's Ctrl-C goes to the runner only, which ends this child
      // through `signal`; a crash of the child is then never confused with the interrupt.
      detached: true
    }
    track(execFile(process.execPath, [childPath, spec.op, param], execOptions, (err, out, errOut) => {
      if (err?.name === 'AbortError') return reject(err)
      if (!err) return resolve(out)
      // `signal`: the runner tells a child ended by SIGINT (an interrupt) from a crash by it.
      reject(new ExperimentError(`calibration of ${spec.op} failed: ${(errOut || err.message).trim().split('\n').pop()}`, { cause: err, signal: err.signal ?? null }))
    }))
  })
  // calibrate-child.js's one line of JSON
  const { opMs, samples } = /** @type {{ opMs: number, samples: number }} */ (JSON.parse(stdout))
  const usableCores = os.availableParallelism()
  return { opMs, usableCores, ceilingRps: usableCores * 1000 / opMs, op: spec.op, unit: UNITS[spec.op], samples }
}

/**
 * A cache key so experiments with the same operation share one calibration.
 * @param {CalibrationSpec} spec
 */
export function calibrationKey (spec) {
  return `${spec.op}:${spec.cost ?? ''}:${spec.bytes ?? ''}`
}
