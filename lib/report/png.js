// SVG to PNG with resvg (a Rust renderer shipped as an npm prebuild: no browser, no network).
// resvg draws text only with a font it can load from the system, and its "sans-serif" means Arial
// unless told otherwise.
import { Resvg, renderAsync } from '@resvg/resvg-js'

/**
 * What generic "sans-serif" means in our SVG: DejaVu Sans is on every Debian/Ubuntu with fontconfig
 * (fontconfig-config depends on fonts-dejavu-core first). The SVG's font-family list names Liberation
 * Sans and Arial too, and resvg falls back to any loaded font that has the glyphs.
 */
const SANS = 'DejaVu Sans'

/** @type {boolean|undefined} */
let cached

/**
 * Whether resvg finds any font on this machine. Without one (a slim container) PNGs have lines and
 * no text, and the caller says so.
 * @returns {boolean}
 */
export function pngHasFonts () {
  if (cached !== undefined) return cached
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30"><rect width="120" height="30" fill="white"/>' +
    '<text x="4" y="22" font-size="20" fill="black">Ag 42</text></svg>'
  const px = new Resvg(svg, { font: { loadSystemFonts: true, sansSerifFamily: SANS }, logLevel: 'off' }).render().pixels
  let dark = 0
  for (let i = 0; i < px.length; i += 4) if (px[i] < 128) dark++
  cached = dark > 0
  return cached
}

/** @param {string} svg @param {{ width?: number }} options */
function renderOptions (svg, options) {
  const viewWidth = Number(/viewBox="[\d.]+ [\d.]+ ([\d.]+)/.exec(svg)?.[1] ?? 720)
  return {
    fitTo: /** @type {const} */ ({ mode: 'width', value: options.width ?? Math.round(viewWidth * 2) }),
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: SANS, sansSerifFamily: SANS },
    // Plot's stylesheet uses :where(), which resvg's CSS parser skips with a warning; nothing is lost
    logLevel: /** @type {const} */ ('off')
  }
}

/**
 * Render a standalone SVG string to PNG bytes, on this thread.
 * @param {string} svg
 * @param {{ width?: number }} [options]  output width in pixels (default: twice the SVG's, for sharp text)
 * @returns {Buffer}
 */
export function svgToPng (svg, options = {}) {
  return new Resvg(svg, renderOptions(svg, options)).render().asPng()
}

/**
 * The same, rendered on a libuv thread so the event loop stays free.
 * @param {string} svg
 * @param {{ width?: number }} [options]
 * @returns {Promise<Buffer>}
 */
export async function svgToPngAsync (svg, options = {}) {
  return (await renderAsync(svg, renderOptions(svg, options))).asPng()
}
