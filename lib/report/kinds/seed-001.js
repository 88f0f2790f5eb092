// Seed 001's kind (`table: 'seed-001'`): Jino Antony's article, "Async vs Sync NodeJs: A Simple
// Benchmark" (bcrypt's hashSync against hash in Express). Its table is the article's, ab's own rows
// side by side per configuration; its article (figures, claims, and why its claim holds or not on a
// machine) is judged by lib/report/articles.js. The verdict and the charts are the comparison kind's.
import { generic } from './generic.js'
import { formatRateInterval, invalidCell, flagsText, leftOut, tableTitle } from '../phrases.js'

/** @typedef {import('../../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../../analysis/summarize.js').Row} Row */

/** @type {import('../kinds.js').ExperimentKind} */
export const seed001 = {
  ...generic,
  name: 'seed-001',
  table: seed001Table,
  article: {
    seed: '001',
    author: 'Jino Antony',
    year: 2020,
    title: 'Async vs Sync NodeJs: A Simple Benchmark',
    url: 'https://jinoantony.com/blog/async-vs-sync-nodejs-a-simple-benchmark',
    load: { requests: 250, concurrency: 20, keepAlive: true },
    figures: { sync: 10.75, async: 24.65 },
    claims: [
      { kind: 'faster', subject: 'async', baseline: 'sync', text: 'async mode performs better than sync mode' }
    ],
    reasons: {
      async: (c, m) => {
        const lanes = Math.min(m.pool, m.cores)
        const gain = `the gain is the cores async lets bcrypt use, not "async is faster": hashSync hashes one at a time on the main thread, hash runs min(${m.pool} pool threads, ${m.cores} cores) = ${lanes} at once`
        if (c.reproduces) return `${gain}, so at most ${lanes}x here; the article's ${c.articleRatio.toFixed(2)}x fits a machine with 3 or more cores`
        if (lanes < 2) return `${gain}: with one lane async keeps the event loop responsive but adds no throughput`
        return `${gain}, so up to ${lanes}x is possible here; a busy machine starves the async runs most (they need the second core): run again, with more --runs`
      }
    }
  }
}

/**
 * The seed 001 comparison rows, labels as the article prints them (ab's own labels): label, figure
 * (lib/analysis/summarize.js FIGURES), format of its mean. Requests per second is the mean over the runs; the
 * figures ab derives from it (time per request, transfer rate) are derived again from that mean (DERIVED).
 * A fourth element is the format on a terminal, where ab's own is too wide for two configurations side by side.
 * @type {[string, string, (x: number) => string, ((x: number) => string)?][]}
 */
const SEED_001_ROWS = [
  ['Concurrency Level', 'concurrency', (x) => int(x)],
  ['Time taken for tests:', 'timeTakenSeconds', (x) => `${x.toFixed(3)} seconds`],
  ['Complete requests:', 'completeRequests', (x) => int(x)],
  ['Failed requests:', 'failedRequests', (x) => int(x)],
  ['Keep-Alive requests:', 'keepAliveRequests', (x) => int(x)],
  ['Total transferred:', 'totalTransferredBytes', (x) => `${int(x)} bytes`],
  ['HTML transferred:', 'htmlTransferredBytes', (x) => `${int(x)} bytes`],
  ['Requests per second:', 'requestsPerSecond', (x) => `${x.toFixed(2)} [#/sec] (mean)`],
  ['Time per request:', 'timePerRequestMs', (x) => `${x.toFixed(3)} [ms] (mean)`],
  ['Time per request:', 'timePerRequestAcrossMs', (x) => `${x.toFixed(3)} [ms] (mean, across all concurrent requests)`, (x) => `${x.toFixed(3)} [ms] (mean, across all)`],
  ['Transfer rate:', 'transferRateKBps', (x) => `${x.toFixed(2)} [Kbytes/sec] received`]
]

/**
 * @param {ExperimentSummary} s
 * @param {Row[]} rows  the configurations shown: measured, or all of whose runs are invalid
 * @returns {import('../tables.js').Table}
 */
function seed001Table (s, rows) {
  /** @param {boolean} terminal  a terminal's format where the row has one, else ab's */
  const figures = (terminal) => SEED_001_ROWS.map(([name, figure, ab, short]) => {
    const format = (terminal && short) || ab
    return [name, ...rows.map((r) => r.runs.length === 0
      ? (figure === 'requestsPerSecond' ? invalidCell(r) : '')
      : format(figureOf(r, figure)))]
  })
  const more = []
  if (rows.some((r) => r.runs.length > 1)) {
    more.push(['Runs', ...rows.map((r) => String(r.runs.length))])
    more.push(['Req/s 95% CI', ...rows.map((r) => r.runs.length ? formatRateInterval(r, 2) : '')])
  }
  if (rows.some((r) => r.flags?.length)) more.push(['Flags', ...rows.map(flagsText)])
  if (rows.some((r) => leftOut(r) !== '')) more.push(['Invalid runs', ...rows.map(leftOut)])
  return {
    title: tableTitle(s),
    columns: ['Metrics', ...rows.map((r) => r.label)],
    align: ['left', ...rows.map(() => /** @type {const} */ ('left'))],
    rows: [...figures(false), ...more],
    textRows: [...figures(true), ...more]
  }
}

/** @type {Record<string, keyof import('../../analysis/summarize.js').Derived>} */
const DERIVED = { requestsPerSecond: 'requestsPerSecond', timePerRequestMs: 'timePerRequestMs', timePerRequestAcrossMs: 'timePerRequestAcrossMs', transferRateKBps: 'transferRateKBps' }

/**
 * A seed 001 figure: derived from the mean req/s where ab derives it, else the mean over the runs.
 * @param {Row} r
 * @param {string} figure
 */
function figureOf (r, figure) {
  return figure in DERIVED ? r.derived[DERIVED[figure]] : r.figures[figure].mean
}

/** @param {number} x */
function int (x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1)
}
