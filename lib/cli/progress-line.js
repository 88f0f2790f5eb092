// The terminal's view of `syncbench run`'s progress (lib/run/progress.js) on stderr: which run, how many
// are left, an ETA. On a terminal one line rewritten in place; into a pipe or a log one line per finished
// run (its req/s), so a CI log shows that the run is alive without the carriage returns. Never with
// --quiet. The plan, the heartbeats and the end are for other views.
import { formatNumber } from '../format.js'
import { fitLine } from '../report/text-table.js'

/** @typedef {import('../types.js').RunEvent} RunEvent */

/**
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} stream
 * @param {{ quiet?: boolean, command?: string }} [options]  command: how the lines name it (run, scan)
 * @returns {{ event: (event: RunEvent) => void, done: () => void }}
 */
export function createProgress (stream, { quiet = false, command = 'run' } = {}) {
  if (quiet) return { event: () => {}, done: () => {} }
  if (!stream.isTTY) {
    return {
      event (e) {
        if (e.type === 'calibrate') stream.write(`syncbench ${command}: timing one ${e.op} operation alone for ${e.experiment}\n`)
        if (e.type === 'capacity') stream.write(`syncbench ${command}: ${capacityLine(e)}\n`)
        if (e.type === 'run-end') stream.write(`syncbench ${command}: run ${e.index}/${e.total} ${e.record.id}: ${runOutcome(e.record)}\n`)
        if (e.type === 'capacity-step') stream.write(`${fitLine(`syncbench ${command}: ${stepLine(e)}`)}\n`)
      },
      done () {}
    }
  }
  let shown = false
  /** @param {string} text */
  const show = (text) => {
    stream.write(`\r\x1b[K${text}`)
    shown = true
  }
  return {
    event (e) {
      if (e.type === 'calibrate') show(`syncbench ${command}: timing one ${e.op} operation alone for ${e.experiment}...`)
      if (e.type === 'capacity') show(`syncbench ${command}: ${capacityLine(e)}...`)
      if (e.type === 'capacity-step') show(fitLine(`syncbench ${command}: ${stepLine(e)}`))
      if (e.type === 'run-start') {
        const left = e.total - e.index
        show(`syncbench ${command}: run ${e.index}/${e.total} ${e.experiment} ${e.label} #${e.repeat}, ${left} left${e.etaMs === null ? '' : `, ETA ${formatDuration(e.etaMs)}`}`)
      }
      // With --verbose the per-run ab report goes to stdout: clear our line so a shared terminal stays readable.
      if (e.type === 'run-end' && shown) {
        stream.write('\r\x1b[K')
        shown = false
      }
    },
    done () {
      if (shown) stream.write('\r\x1b[K')
      shown = false
    }
  }
}

/**
 * What one finished run measured, in a few words: "29.93 req/s", "29.93 req/s, 3 failed requests",
 * "failed: <its error code>", "interrupted".
 * @param {import('../types.js').RunRecord} record
 * @returns {string}
 */
export function runOutcome (record) {
  if (record.error) return `failed: ${record.error.code}`
  if (!record.load) return 'nothing measured'
  if (record.load.aborted) return 'interrupted'
  const failed = record.load.failedRequests
  return `${formatNumber(record.load.requestsPerSecond)} req/s${failed ? `, ${failed} failed requests` : ''}`
}

/**
 * 83000 -> "1:23", 3725000 -> "1:02:05"
 * @param {number} ms
 * @returns {string}
 */
export function formatDuration (ms) {
  const s = Math.max(0, Math.round(ms / 1000))
  const hh = Math.floor(s / 3600)
  const mm = Math.floor(s / 60) % 60
  const ss = String(s % 60).padStart(2, '0')
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`
}

/**
 * @param {{ experiment: string, label: string, seconds: number }} e
 */
function capacityLine (e) {
  return `measuring the capacity of ${e.label} for ${e.experiment} (closed loop, ${Number(e.seconds.toPrecision(3))} s)`
}

/**
 * A capacity search's step: "seed-bcrypt sync #1: 24 req/s pass (p99 412 ms)", "... 48 req/s fail (p99
 * 2 s >= 1 s)"; the caller fits it to the terminal (a long reason loses its end).
 * @param {{ experiment: string, label: string, repeat: number, step: import('../types.js').CapacityStep }} e
 */
function stepLine ({ experiment, label, repeat, step }) {
  const p99 = step.figures.p99Ms
  const why = step.verdict === 'pass' ? (p99 === null ? '' : ` (p99 ${formatNumber(p99)} ms)`) : ` (${step.why[0]})`
  return `capacity of ${experiment} ${label} #${repeat}: ${formatNumber(step.rate)} req/s ${step.verdict}${why}`
}
