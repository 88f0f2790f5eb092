// The physical ceiling of an experiment: one operation's time measured alone (in a short child,
// lib/run/calibrate-child.js) times the cores that can run it at once. No server strategy can beat
// cores x (1000 / opMs) requests per second on CPU-bound work; the verdict line says how close each gets.
// One timing is noise (17.8 to 19.4 hash/s across invocations on one machine): the operation is timed
// in several fresh children one after the other, and the ceiling is their median with their range.
import os from 'node:os'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ExperimentError } from '../errors.js'
import { track } from './children.js'

const childPath = fileURLToPath(new URL('./calibrate-child.js', import.meta.url))
/** @typedef {{ op: 'bcrypt'|'bcryptjs'|'readfile', cost?: number, bytes?: number }} CalibrationSpec */

/** @type {Record<CalibrationSpec['op'], string>} */
const UNITS = { bcrypt: 'hash/s', bcryptjs: 'hash/s', readfile: 'read/s' }

/** Independent timings (fresh children) of a calibration, by default. */
export const CALIBRATION_REPEATS = 5

/**
 * @typedef {object} Calibration
 * @property {number} opMs            time of one operation alone: the median of the timings
 * @property {number} usableCores     os.availableParallelism()
 * @property {number} ceilingRps      usableCores * 1000 / opMs
 * @property {string} op
 * @property {string} unit            "hash/s", "read/s"
 * @property {number} samples         timed calls over all timings
 * @property {{ opMs: number, cpuMs: number, samples: number }[]} timings  each child's figures: opMs its calls' 10th
 *                                   percentile of wall time, cpuMs its mean CPU time per call
 * @property {number} opMsMin         the fastest timing
 * @property {number} opMsMax         the slowest timing
 * @property {number} ceilingLowRps   usableCores * 1000 / opMsMax
 * @property {number} ceilingHighRps  usableCores * 1000 / opMsMin
 * @property {number} opCpuMsMin      the least CPU time of one call over the timings: the work a request costs at least
 */

/**
 * @param {CalibrationSpec} spec
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, signal?: AbortSignal, repeats?: number }} [options]
 *   signal: ends the child (the error is then an AbortError); repeats: independent timings (CALIBRATION_REPEATS);
 *   timeoutMs: per child
 * @returns {Promise<Calibration>} rejects with an ExperimentError whose `signal` names what ended the child
 */
export async function calibrate (spec, options = {}) {
  const repeats = options.repeats ?? CALIBRATION_REPEATS
  /** @type {{ opMs: number, cpuMs: number, samples: number }[]} */
  const timings = []
  // One after the other: children timed side by side would share the cores and slow each other down.
  for (let i = 0; i < repeats; i++) timings.push(await timeOnce(spec, options))
  const sorted = timings.map((t) => t.opMs).sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const opMs = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  const usableCores = os.availableParallelism()
  const [opMsMin, opMsMax] = [sorted[0], sorted[sorted.length - 1]]
  return {
    opMs,
    usableCores,
    ceilingRps: usableCores * 1000 / opMs,
    op: spec.op,
    unit: UNITS[spec.op],
    samples: timings.reduce((n, t) => n + t.samples, 0),
    timings,
    opMsMin,
    opMsMax,
    ceilingLowRps: usableCores * 1000 / opMsMax,
    ceilingHighRps: usableCores * 1000 / opMsMin,
    opCpuMsMin: Math.min(...timings.map((t) => t.cpuMs))
  }
}

/**
 * One timing in a fresh child.
 * @param {CalibrationSpec} spec
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, signal?: AbortSignal }} options
 * @returns {Promise<{ opMs: number, cpuMs: number, samples: number }>}
 */
async function timeOnce (spec, options) {
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
    track(execFile(process.execPath, [childPath, spec.op, param, String(process.pid)], execOptions, (err, out, errOut) => {
      if (err?.name === 'AbortError') return reject(err)
      if (!err) return resolve(out)
      // `signal`: the runner tells a child ended by SIGINT (an interrupt) from a crash by it.
      reject(new ExperimentError(`calibration of ${spec.op} failed: ${(errOut || err.message).trim().split('\n').pop()}`, { cause: err, signal: err.signal ?? null }))
    }))
  })
  // calibrate-child.js's one line of JSON
  const { opMs, cpuMs, samples } = /** @type {{ opMs: number, cpuMs: number, samples: number }} */ (JSON.parse(stdout))
  return { opMs, cpuMs, samples }
}

/**
 * A cache key so experiments with the same operation share one calibration.
 * @param {CalibrationSpec} spec
 */
export function calibrationKey (spec) {
  return `${spec.op}:${spec.cost ?? ''}:${spec.bytes ?? ''}`
}
