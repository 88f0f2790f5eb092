// The terminal's view of `syncbench run`'s progress (lib/run/progress.js) on stderr: which run, how many
// are left, an ETA. On a terminal one line rewritten in place; into a pipe or a log one line per finished
// run (its req/s), so a CI log shows that the run is alive without the carriage returns. Never with
// --quiet. The plan, the heartbeats and the end are for other views.
import { formatNumber } from '../format.js'
import { fitLine } from '../report/text-table.js'
import { wrap } from '../report/wrap.js'

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
        if (e.type === 'run-end') stream.write(`syncbench ${command}: run ${e.index}/${upTo(e)}${e.total} ${e.record.id}: ${runOutcome(e.record)}\n`)
        if (e.type === 'rounds-end') stream.write(`${roundsLine(e, command)}\n`)
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
        show(`syncbench ${command}: run ${e.index}/${upTo(e)}${e.total} ${e.experiment} ${e.label} #${e.repeat}, ${upTo(e)}${left} left${e.etaMs === null ? '' : `, ETA ${upTo(e)}${formatDuration(e.etaMs)}`}`)
      }
      // a line that stays: the decision is worth keeping in the terminal's scrollback
      if (e.type === 'rounds-end') {
        stream.write(`\r\x1b[K${roundsLine(e, command)}\n`)
        shown = false
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
 * --runs auto: the totals are the most the rounds may take.
 * @param {{ upTo?: true }} e
 */
function upTo (e) {
  return e.upTo ? 'up to ' : ''
}

/**
 * --runs auto's decision for an experiment, wrapped: "syncbench run: workload: decided in 3 of up to 5
 * rounds (98.3% CIs): slow/sync slower 0.195x..0.207x", or "undecided after 5 rounds (...)": only the
 * most rounds end undecided.
 * @param {Extract<RunEvent, { type: 'rounds-end' }>} e
 * @param {string} command
 */
export function roundsLine (e, command) {
  const decided = e.decisions.every((d) => d.decided)
  const how = decided ? `decided in ${e.rounds} of up to ${e.maxRuns} rounds` : `undecided after ${e.rounds} rounds`
  const pairs = e.decisions.map((d) => `${d.label}/${d.baseline} ${d.verdict}${d.low === null || d.high === null ? '' : ` ${formatNumber(d.low)}x..${formatNumber(d.high)}x`}`)
  const level = `${Number((e.level * 100).toPrecision(3))}% CIs`
  return wrap(`syncbench ${command}: ${e.experiment}: ${how} (${level}): ${pairs.length ? pairs.join(', ') : 'nothing compared'}`, undefined, '  ')
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
