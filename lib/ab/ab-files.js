// ab's -g (gnuplot TSV) and -e (CSV of percentages served) files, from the per-request records,
// written atomically (lib/fs-atomic.js: a temp name in the same directory, then rename).
import { InvalidOptionError, systemCode, systemReason } from '../errors.js'
import { writeFileAtomic as writeAtomic } from '../fs-atomic.js'
import { abRoundMs, printfFixed } from './ab-report.js'

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (/** @type {number} */ n) => String(n).padStart(2, '0')

/**
 * ctime()-style local time without the newline, zero-padded day: "Sun Nov 02 19:24:24 2026" (APR's apr_ctime).
 * @param {number} epochMs
 */
export function abCtime (epochMs) {
  const t = new Date(epochMs)
  return `${DAYS[t.getDay()]} ${MONTHS[t.getMonth()]} ${two(t.getDate())} ${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())} ${t.getFullYear()}`
}

/**
 * ab's gnuplot file: a header, then one line per request sorted by total time (the order ab's
 * last sort leaves them in), times rounded to ms as ab rounds them.
 * @param {import('../types.js').RequestTiming[]} records
 */
export function formatAbGnuplot (records) {
  const sorted = [...records].sort((a, b) => a.total - b.total)
  let out = 'starttime\tseconds\tctime\tdtime\tttime\twait\n'
  for (const r of sorted) {
    out += `${abCtime(r.start)}\t${Math.floor(r.start / 1000)}\t${abRoundMs(r.connect)}\t${abRoundMs(r.total - r.connect)}\t${abRoundMs(r.total)}\t${abRoundMs(r.waiting)}\n`
  }
  return out
}

/**
 * ab's CSV: for each percentage 0..100, the total time (ms, 3 decimals) within which that share of
 * requests was served. ab picks index round(done * p / 100), unlike its report table (which truncates);
 * reproduced on purpose, except that the index is kept inside the array (ab reads past its end for small runs).
 * @param {number[]} totals total time per request, ms
 */
export function formatAbCsv (totals) {
  const sorted = Float64Array.from(totals).sort()
  const n = sorted.length
  let out = 'Percentage served,Time in ms\n'
  if (n === 0) return out
  for (let p = 0; p <= 100; p++) {
    let i
    if (p === 0) i = 0
    else if (p === 100) i = n - 1
    else i = Math.min(n - 1, Math.trunc(0.5 + n * p / 100))
    out += `${p},${printfFixed(sorted[i], 3)}\n`
  }
  return out
}

/**
 * Write a -g / -e file atomically (lib/fs-atomic.js); a failure names the option it came from.
 * @param {string} flag the option the file came from, for the error message
 * @param {string} file
 * @param {string} text
 */
export async function writeAbFile (flag, file, text) {
  try {
    await writeAtomic(file, text)
  } catch (err) {
    // the file system's refusal (ENOENT, EACCES, EISDIR...) is the user's; anything else is a bug
    const code = systemCode(err)
    if (code === undefined) throw err
    throw new InvalidOptionError(`${flag} cannot write "${file}": ${systemReason(code, 'write')}`, { cause: err })
  }
}

/**
 * Collects what -g / -e need from the engine's per-request callback.
 * @returns {{ onRequest: (r: import('../types.js').RequestTiming) => void, records: import('../types.js').RequestTiming[] }}
 */
export function createRequestLog () {
  /** @type {import('../types.js').RequestTiming[]} */
  const records = []
  return {
    records,
    onRequest (r) { records.push({ start: r.start, connect: r.connect, waiting: r.waiting, total: r.total, latency: r.latency }) }
  }
}
