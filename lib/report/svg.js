// A chart spec to one standalone SVG string: Observable Plot draws the plot in a linkedom document (no
// browser), and this module frames it with a title, subtitle, legend and note, all in SVG, so the same
// string works inline in report.html and, through resvg, as a PNG (resvg knows nothing of HTML legends).
import * as Plot from '@observablehq/plot'
import { parseHTML } from 'linkedom'

/** Fonts a clean Debian with chromium has (fonts-dejavu-core via fontconfig), then common elsewhere. */
export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif'

const PAD = 16
const TITLE_SIZE = 17
const SUB_SIZE = 12.5
const NOTE_SIZE = 11
const INK = '#1b1e23'
const MUTED = '#5b6270'

/**
 * @typedef {object} LegendItem
 * @property {string} label
 * @property {string} color
 * @property {'line'|'dash'|'dot'|'ring'|'tick'|'bar'} [shape]  default 'line'
 */

/**
 * @typedef {object} ChartSpec what charts.js decides, what this module draws
 * @property {string} id             file-name safe, unique within a report
 * @property {string} experiment
 * @property {string} kind           throughput | latency | event-loop | cpu | memory | timeseries (| thread-cost | probe | rate-sweep)
 * @property {string} title
 * @property {string} [subtitle]
 * @property {string} [note]         small print under the plot (machine, how the numbers were made)
 * @property {LegendItem[]} [legend]
 * @property {import('@observablehq/plot').PlotOptions} plot  Observable Plot options (marks, scales, width, height); no document
 */

/** @type {Record<string, string>} */
const XML_ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** @param {unknown} s */
export function escapeXml (s) {
  return String(s).replace(/[&<>"']/g, (c) => XML_ENTITIES[c])
}

/**
 * Greedy word wrap by an estimated glyph width (DejaVu Sans, the widest likely font: about 0.58 em
 * a character, 0.66 em in bold): good enough to keep titles inside the frame.
 * @param {string} text
 * @param {number} width    px
 * @param {number} fontSize px
 * @param {boolean} [bold]
 */
export function wrap (text, width, fontSize, bold = false) {
  const perLine = Math.max(10, Math.floor(width / (fontSize * (bold ? 0.66 : 0.58))))
  const lines = []
  let line = ''
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    if (line && (line + ' ' + word).length > perLine) { lines.push(line); line = word } else line = line ? line + ' ' + word : word
  }
  if (line) lines.push(line)
  return lines
}

/**
 * Run Observable Plot without a browser.
 * @param {import('@observablehq/plot').PlotOptions} options Plot options
 * @returns {string} the <svg> element's markup
 */
export function plotToSvg (options) {
  const { document } = parseHTML('<!doctype html><html><body></body></html>')
  const node = Plot.plot({ ...options, document })
  if (node.tagName.toLowerCase() !== 'svg') throw new Error('chart specs must not ask Plot for HTML legends or captions')
  return node.outerHTML
}

/**
 * Plot numbers its marker ids per process (plot-marker-7): rename them after the chart so that many
 * charts inline in one HTML page never share an id, and the same results always give the same bytes.
 * @param {string} svg
 * @param {string} prefix
 */
function scopeIds (svg, prefix) {
  const ids = [...svg.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])
  if (ids.length === 0) return svg
  const rename = new Map(ids.map((id, i) => [id, `${prefix}-${i + 1}`]))
  return svg
    .replace(/ id="([^"]+)"/g, (m, id) => ` id="${rename.get(id)}"`)
    .replace(/url\(#([^)]+)\)/g, (m, id) => rename.has(id) ? `url(#${rename.get(id)})` : m)
    .replace(/href="#([^"]+)"/g, (m, id) => rename.has(id) ? `href="#${rename.get(id)}"` : m)
}

/**
 * @param {LegendItem[]} items
 * @param {number} y
 * @param {number} width
 */
function legendSvg (items, y, width) {
  const parts = []
  let x = PAD
  let row = 0
  for (const item of items) {
    const w = 26 + item.label.length * 12 * 0.6 + 18
    if (x + w > width - PAD && x > PAD) { x = PAD; row++ }
    const cy = y + row * 20
    parts.push(swatch(item, x, cy))
    parts.push(`<text x="${x + 26}" y="${cy}" dy="0.35em" font-size="12" fill="${INK}">${escapeXml(item.label)}</text>`)
    x += w
  }
  return { svg: parts.join(''), height: items.length ? (row + 1) * 20 : 0 }
}

/**
 * @param {LegendItem} item
 * @param {number} x
 * @param {number} y
 */
function swatch ({ shape = 'line', color }, x, y) {
  const c = escapeXml(color)
  switch (shape) {
    case 'dash': return `<line x1="${x}" x2="${x + 20}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="1.5" stroke-dasharray="4,3"/>`
    case 'dot': return `<circle cx="${x + 10}" cy="${y}" r="4.5" fill="${c}"/>`
    case 'ring': return `<circle cx="${x + 10}" cy="${y}" r="4" fill="white" stroke="${c}" stroke-width="1.5"/>`
    case 'tick': return `<line x1="${x + 10}" x2="${x + 10}" y1="${y - 6}" y2="${y + 6}" stroke="${c}" stroke-width="2"/>`
    case 'bar': return `<rect x="${x + 2}" y="${y - 6}" width="16" height="12" fill="${c}"/>`
    default: return `<line x1="${x}" x2="${x + 20}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="2.5"/><circle cx="${x + 10}" cy="${y}" r="3.5" fill="${c}"/>`
  }
}

/**
 * One chart spec to a standalone SVG document (xmlns set, white background, fonts named).
 * @param {ChartSpec} spec
 * @returns {string}
 */
export function renderChartSvg (spec) {
  const width = spec.plot.width ?? 720
  const plotSvg = plotToSvg({ marginTop: 24, ...spec.plot, width, style: { fontSize: '12px', fontFamily: FONT_FAMILY, color: INK, background: 'white' } })
  const plotHeight = Number(/height="([\d.]+)"/.exec(plotSvg)?.[1])
  const layout = width < 500 ? 'narrow' : 'wide'
  const body = scopeIds(plotSvg, `${spec.id}-${layout}`)
  const out = []
  let y = PAD + TITLE_SIZE
  for (const line of wrap(spec.title, width - 2 * PAD, TITLE_SIZE, true)) {
    out.push(`<text x="${PAD}" y="${y}" font-size="${TITLE_SIZE}" font-weight="bold" fill="${INK}">${escapeXml(line)}</text>`)
    y += TITLE_SIZE + 5
  }
  if (spec.subtitle) {
    y += 1
    for (const line of wrap(spec.subtitle, width - 2 * PAD, SUB_SIZE)) {
      out.push(`<text x="${PAD}" y="${y}" font-size="${SUB_SIZE}" fill="${MUTED}">${escapeXml(line)}</text>`)
      y += SUB_SIZE + 5
    }
  }
  if (spec.legend?.length) {
    const legend = legendSvg(spec.legend, y + 6, width)
    out.push(`<g aria-label="legend">${legend.svg}</g>`)
    y += legend.height + 4
  }
  out.push(`<g transform="translate(0,${y})">${body}</g>`)
  y += plotHeight
  if (spec.note) {
    y += 4
    for (const line of wrap(spec.note, width - 2 * PAD, NOTE_SIZE)) {
      y += NOTE_SIZE + 3
      out.push(`<text x="${PAD}" y="${y}" font-size="${NOTE_SIZE}" fill="${MUTED}">${escapeXml(line)}</text>`)
    }
  }
  const height = Math.ceil(y + PAD - 4)
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" class="chart-${layout}" ` +
    `font-family="${escapeXml(FONT_FAMILY)}" role="img" aria-label="${escapeXml(spec.title)}" data-chart="${escapeXml(spec.id)}">` +
    `<title>${escapeXml(spec.title)}</title><rect width="100%" height="100%" fill="white"/>${out.join('')}</svg>`
}
