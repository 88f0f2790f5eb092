// From a ResultsFile to results/<timestamp>/report.html and charts/*.png, written so that a crash or
// Ctrl-C never leaves a half-written report: PNGs go to a temporary folder swapped in whole, the HTML
// to a temporary name renamed over the old one.
import path from 'node:path'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { SyncbenchError } from '../errors.js'
import { chartsFor } from './charts.js'
import { renderChartSvg } from './svg.js'
import { svgToPngAsync, pngHasFonts } from './png.js'
import { renderHtml } from './html.js'

export { checkResults } from './check-results.js'

const NARROW = 420

/**
 * @typedef {object} RenderedReport
 * @property {string} html        absolute path of report.html
 * @property {string[]} charts    absolute paths of the PNGs, in report order
 * @property {string[]} warnings  things the reader should know (no font for PNG text)
 */

/**
 * Render every chart the results call for, then write report.html and charts/*.png into outDir.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} outDir
 * @param {{ png?: boolean }} [options]  png: false skips the PNGs (report.html only)
 * @returns {Promise<RenderedReport>}
 */
export async function renderReport (results, outDir, options = {}) {
  const specs = chartsFor(results)
  // phones get their own layout: the wide one scaled to 360 px would print 6 px text
  const narrow = new Map(chartsFor(results, { width: NARROW }).map((spec) => [spec.id, spec]))
  const charts = specs.map((spec) => ({
    spec,
    svg: renderChartSvg(spec),
    narrowSvg: narrow.has(spec.id) ? renderChartSvg(narrow.get(spec.id)) : undefined,
    png: `charts/${spec.id}.png`
  }))
  const warnings = []
  await mkdir(outDir, { recursive: true }).catch((err) => { throw writeError(outDir, err) })
  const chartsDir = path.join(outDir, 'charts')
  const written = []
  if (options.png !== false) {
    if (charts.length > 0 && !pngHasFonts()) warnings.push('no system font found: the PNG charts have no text (install fonts-dejavu-core); report.html is not affected')
    const temp = path.join(outDir, `.charts.${process.pid}.tmp`)
    const old = path.join(outDir, `.charts.${process.pid}.old`)
    try {
      await rm(temp, { recursive: true, force: true })
      await mkdir(temp)
      // resvg renders off the main thread; two at a time keeps a 2-core machine busy without queueing all
      await mapLimit(charts, 2, async ({ spec, svg }) => {
        await writeFile(path.join(temp, `${spec.id}.png`), await svgToPngAsync(svg))
      })
      await rename(chartsDir, old).catch((err) => { if (err.code !== 'ENOENT') throw err })
      await rename(temp, chartsDir)
      await rm(old, { recursive: true, force: true })
    } catch (err) {
      await rm(temp, { recursive: true, force: true }).catch(() => {})
      if (err instanceof SyncbenchError) throw err
      throw writeError(chartsDir, err)
    }
    for (const c of charts) written.push(path.join(chartsDir, `${c.spec.id}.png`))
  }
  const htmlFile = path.join(outDir, 'report.html')
  const html = renderHtml(results, options.png === false ? charts.map(({ png, ...c }) => c) : charts)
  const temp = `${htmlFile}.${process.pid}.tmp`
  try {
    await writeFile(temp, html)
    await rename(temp, htmlFile)
  } catch (err) {
    await rm(temp, { force: true }).catch(() => {})
    throw writeError(htmlFile, err)
  }
  return { html: htmlFile, charts: written, warnings }
}

async function mapLimit (items, limit, fn) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

function writeError (file, err) {
  return new SyncbenchError('SB_ERR_RESULTS', `cannot write ${file} (${err.code || err.message})`, { cause: err })
}
