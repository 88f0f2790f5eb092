// Seed 002's kind (`table: 'seed-002'`): naholyr's article, "Benchmark Node.JS: méthodes synchrones ou
// asynchrones ?" (readFile, readFileSync and setTimeout(readFileSync) on node:http). Its table is the
// article's: each mode's req/s as a share of one baseline; its article (figures, claims, and why each
// holds or not on a machine) is judged by lib/report/articles.js. The verdict and the charts are the
// comparison kind's.
import { MIB } from '../../format.js'
import { generic, comparisonTerminal } from './generic.js'
import { formatRateInterval, invalidCell, flagsText, leftOut, significance, tableTitle } from '../phrases.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */

const YEAR = 2012

/** @type {import('../kinds.js').ExperimentKind} */
export const seed002 = {
  ...generic,
  name: 'seed-002',
  table: seed002Table,
  article: {
    seed: '002',
    author: 'naholyr',
    year: YEAR,
    title: 'Benchmark Node.JS: méthodes synchrones ou asynchrones ?',
    load: { requests: 1000, concurrency: 100, keepAlive: false },
    figures: { readFile: 71.15, readFileSync: 26.50, 'fake async': 27.10 },
    claims: [
      { kind: 'faster', subject: 'readFile', baseline: 'readFileSync', text: 'readFile serves about 3 times what readFileSync does' },
      { kind: 'no-gain', subject: 'fake async', baseline: 'readFileSync', text: 'setTimeout(readFileSync) gains nothing over readFileSync' }
    ],
    reasons: {
      readFile: (c, m) => {
        const read = m.opMs === null ? 'a read is a memory copy' : `a read is a ${formatMs(m.opMs)} ms memory copy (timed alone)`
        const rssA = m.peakRss.get('readFile')
        const rssS = m.peakRss.get('readFileSync')
        const memory = rssA !== undefined && rssS !== undefined ? ` (peak RSS ${Math.round(rssA / MIB)} MiB against ${Math.round(rssS / MIB)} MiB)` : ''
        if (c.reproduces) return `the thread pool overlaps the reads (and any disk waits) that readFileSync does one at a time on the main thread, here with ${m.cores} cores`
        return `in ${YEAR} a disk was the bottleneck and the thread pool overlapped its waits; here the file sits in the page cache, ${read}, the CPU is the bottleneck, and each fs.readFile costs several thread-pool reads and callbacks and holds its own buffer${memory}`
      },
      'fake async': (c, m) => {
        const noise = c.ratio >= 1 + m.noGainMargin ? ` (the ${Math.round((c.ratio - 1) * 100)}% here is within the noise)` : ''
        if (c.reproduces) return `setTimeout(fn, 0) runs the same readFileSync on the same main thread a moment later: the work on that thread, and so the throughput, are unchanged${noise}`
        return 'setTimeout only defers the same read on the same thread, so a gain this size is unexpected: short runs vary by up to ±20%, run again with more --runs'
      }
    }
  }
}

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the configurations shown: measured, or all of whose runs are invalid
 * @returns {import('../tables.js').Table}
 */
function seed002Table (s, rows) {
  // One baseline for the whole table: the percentages and the ratios are both against the experiment's
  // baseline (the row its Welch tests compare with), named in the column titles.
  const valid = rows.filter((r) => r.runs.length > 0)
  const ref = valid.find((r) => r.label === s.baseline) ?? valid[0]
  const refLabel = ref?.label ?? s.baseline ?? 'baseline'
  const body = rows.map((r) => r.runs.length === 0 || !ref
    ? [r.label, invalidCell(r), '', '', '', '', '', '', '']
    : [r.label,
        r.derived.requestsPerSecond.toFixed(2),
        `${Math.round(r.derived.requestsPerSecond / ref.derived.requestsPerSecond * 100)}%`,
        r.derived.timePerRequestMs.toFixed(3),
        r.derived.timePerRequestAcrossMs.toFixed(3),
        formatRateInterval(r, 2),
        flagsText(r),
        significance(r, rows),
        leftOut(r)])
  const columns = ['Mode', 'Req/s', `% of ${refLabel}`, 'Time/req ms', 'across ms', 'Req/s 95% CI', 'Flags', `vs ${refLabel}`, 'invalid runs']
  return {
    title: tableTitle(s),
    columns,
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left', 'left'],
    rows: body,
    ...comparisonTerminal(rows, body, columns, 7)
  }
}

/** "5.9", "12", "0.42": a time in ms to the digits a read's cost needs. @param {number} ms */
function formatMs (ms) {
  return ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2)
}
