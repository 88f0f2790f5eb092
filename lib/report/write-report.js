// From a ResultsFile to results/<timestamp>/summary.md, report.html and charts/*.png (writeReport, the
// one writer that `syncbench run` and `syncbench report` share), written so that a crash or Ctrl-C
// never leaves a half-written file: summary.md, each PNG and the HTML go to a temporary name renamed over
// the old one (lib/fs-atomic.js). charts/ always exists while a report is rewritten; the PNGs of an
// older report that this one no longer draws are deleted once the new ones are in place.
import path from 'node:path'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { makeDirectory } from '../fs-dir.js'
import { SyncbenchError, ResultsError, systemCode, systemReason } from '../errors.js'
import { writeFileAtomic, removeStaleTemps } from '../fs-atomic.js'
import { chartDrawings } from './charts.js'
import { renderChartSvg } from './svg.js'
import { svgToPngAsync, pngHasFonts } from './png.js'
import { renderHtml } from './html.js'
import { flameTrees } from './flame.js'
import { renderSummaryMarkdown } from './markdown.js'
import { summarizeResults, summariesOf } from './model.js'

export { checkResults } from './check-results.js'

const NARROW = 420

/**
 * @typedef {object} RenderedReport
 * @property {string} html        absolute path of report.html
 * @property {string[]} charts    absolute paths of the PNGs, in report order
 * @property {string[]} warnings  things the reader should know (no font for PNG text)
 */

/**
 * @typedef {object} WrittenReport
 * @property {string} summary        absolute path of summary.md
 * @property {string|null} html      absolute path of report.html; null with html: false or when it failed
 * @property {string[]} charts       absolute paths of the PNGs, in report order
 * @property {string[]} warnings     things the reader should know (no font for PNG text)
 * @property {SyncbenchError|null} error  report.html or a chart could not be written (summary.md was)
 */

/**
 * Write a results file's report into outDir: summary.md first (cheap, and the tables a reader wants
 * most), then, unless html is false, report.html and charts/*.png. The summaries are computed once
 * here, or taken from the caller that already printed them.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} outDir
 * @param {{ summaries?: import('./model.js').ReportSummary[], html?: boolean, png?: boolean, signal?: AbortSignal, resultsDir?: string }} [options]
 *        html: false writes summary.md only; png, signal and resultsDir as renderReport's
 * @returns {Promise<WrittenReport>}  a failure to write summary.md (or a bug) is thrown; a failure to
 *        write report.html or a chart is returned as `error`, so a caller can still name summary.md
 */
export async function writeReport (results, outDir, options = {}) {
  const { summaries = summarizeResults(results), html = true, png, signal, resultsDir } = options
  await makeDirectory(outDir, `--out ${outDir}`).catch(rethrowAsWriteError(outDir))
  const summary = path.join(outDir, 'summary.md')
  await writeFileAtomic(summary, renderSummaryMarkdown(results, summaries)).catch(rethrowAsWriteError(summary))
  if (!html) return { summary, html: null, charts: [], warnings: [], error: null }
  try {
    return { summary, ...await renderReport(results, outDir, { png, signal, summaries, resultsDir }), error: null }
  } catch (err) {
    if (!(err instanceof SyncbenchError)) throw err
    return { summary, html: null, charts: [], warnings: [], error: err }
  }
}

/**
 * Render every chart the results call for, then write report.html and charts/*.png into outDir.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} outDir
 * @param {{ png?: boolean, signal?: AbortSignal, summaries?: import('./model.js').ReportSummary[]|null, resultsDir?: string }} [options]
 *        png: false skips the PNGs (report.html only, charts/ left as it is); signal: stop before the
 *        next file (the files written so far are whole); summaries: the model (summarizeResults), which
 *        the tables, the charts and the verdicts read (computed here when not given; null: no tables);
 *        resultsDir: the folder of results.json, where the runs' profiles/*.cpuprofile are (default outDir)
 * @returns {Promise<RenderedReport>}
 */
export async function renderReport (results, outDir, options = {}) {
  const { signal } = options
  const summaries = options.summaries === undefined ? summariesOf(results) : options.summaries
  const charts = chartDrawings(results, summaries).map((draw) => {
    const spec = draw()
    return {
      spec,
      svg: renderChartSvg(spec),
      // phones get their own layout of the same figures: the wide one scaled to 360 px would print 6 px text
      narrowSvg: renderChartSvg(draw(NARROW)),
      png: `charts/${spec.id}.png`
    }
  })
  /** @type {string[]} */
  const warnings = []
  await mkdir(outDir, { recursive: true }).catch(rethrowAsWriteError(outDir))
  await removeStaleTemps(outDir).catch(rethrowAsWriteError(outDir))
  const chartsDir = path.join(outDir, 'charts')
  /** @type {string[]} */
  const written = []
  if (options.png !== false) {
    if (charts.length > 0 && !pngHasFonts()) warnings.push('no system font found: the PNG charts have no text (install fonts-dejavu-core); report.html is not affected')
    const files = charts.map(({ spec }) => `${spec.id}.png`)
    try {
      await mkdir(chartsDir, { recursive: true })
      await removeStaleTemps(chartsDir)
      // resvg renders off the main thread; two at a time keeps a 2-core machine busy without queueing all
      await mapLimit(charts, 2, async ({ svg }, i) => {
        signal?.throwIfAborted()
        await writeFileAtomic(path.join(chartsDir, files[i]), await svgToPngAsync(svg))
      })
      const keep = new Set(files)
      const stale = (await readdir(chartsDir)).filter((name) => name.endsWith('.png') && !keep.has(name))
      await Promise.all(stale.map((name) => rm(path.join(chartsDir, name), { force: true })))
    } catch (err) {
      if (err instanceof SyncbenchError || err === signal?.reason) throw err
      rethrowAsWriteError(chartsDir)(err)
    }
    for (const file of files) written.push(path.join(chartsDir, file))
  }
  signal?.throwIfAborted()
  const htmlFile = path.join(outDir, 'report.html')
  // The flame graphs are drawn from the profiles themselves, read only when some run has one.
  const flames = results.runs.some((r) => r.profile) ? await flameTrees(results.runs, options.resultsDir ?? outDir, (file) => readFile(file, 'utf8')) : new Map()
  signal?.throwIfAborted()
  const html = renderHtml(results, options.png === false ? charts.map(({ png, ...c }) => c) : charts, summaries, flames)
  await writeFileAtomic(htmlFile, html).catch(rethrowAsWriteError(htmlFile))
  return { html: htmlFile, charts: written, warnings }
}

/**
 * fn over items, `limit` at a time; rejects only once every started call has settled (no write left running).
 * @template T
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T, index: number) => Promise<void>} fn
 */
async function mapLimit (items, limit, fn) {
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++
      try {
        await fn(items[i], i)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker))
  const rejected = settled.find((s) => s.status === 'rejected')
  if (rejected) throw rejected.reason
}

/**
 * A file system error while writing `file` (EACCES, EISDIR, ENOSPC...) becomes a ResultsError naming
 * the file; anything else, Node's ERR_* argument errors included, is a bug and is thrown as it is.
 * @param {string} file
 * @returns {(err: unknown) => never}
 */
function rethrowAsWriteError (file) {
  return (err) => {
    const code = systemCode(err)
    if (code === undefined || !/^E[A-Z0-9]+$/.test(code)) throw err
    throw new ResultsError(`cannot write ${file}: ${systemReason(code, 'write')}`, { cause: err })
  }
}
