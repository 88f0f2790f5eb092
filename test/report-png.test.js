// PNGs through resvg: a real PNG at twice the SVG's width, with the chart's text really drawn (resvg
// draws text only with a font it can load from the system).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { inflateSync } from 'node:zlib'
import { chartsFor } from '../lib/report/charts.js'
import { renderChartSvg } from '../lib/report/svg.js'
import { svgToPng, svgToPngAsync, pngHasFonts } from '../lib/report/png.js'
import { loadFixture } from './fixtures/report-helpers.js'

const spec = chartsFor(loadFixture()).find((s) => s.id === 'seed-bcrypt-throughput')
const svg = renderChartSvg(spec)

/**
 * Width, height, dark pixels and the top-left pixel of an 8-bit RGBA, non-interlaced PNG (what resvg
 * writes). No PNG decoder is installed; this small one is enough for a test.
 */
function decodePng (buf) {
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature')
  let offset = 8
  let width = 0
  let height = 0
  const idat = []
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset)
    const type = buf.toString('latin1', offset + 4, offset + 8)
    const data = buf.subarray(offset + 8, offset + 8 + length)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      assert.equal(data[8], 8, 'bit depth')
      assert.equal(data[9], 6, 'RGBA')
    }
    if (type === 'IDAT') idat.push(data)
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * 4
  const pixels = Buffer.alloc(height * stride)
  // undo the PNG row filters (none, sub, up, average, paeth)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let x = 0; x < stride; x++) {
      const a = x >= 4 ? pixels[y * stride + x - 4] : 0
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0
      const c = x >= 4 && y > 0 ? pixels[(y - 1) * stride + x - 4] : 0
      const p = a + b - c
      const pred = [0, a, b, (a + b) >> 1, Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c][filter]
      pixels[y * stride + x] = (row[x] + pred) & 0xff
    }
  }
  let dark = 0
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 100 && pixels[i + 1] < 100 && pixels[i + 2] < 100) dark++
  return { width, height, dark, corner: [...pixels.subarray(0, 4)] }
}

test('a chart becomes a PNG twice as wide as its SVG, on a white background', async () => {
  const png = svgToPng(svg)
  const { width, height, corner } = decodePng(png)
  assert.deepEqual(corner, [255, 255, 255, 255])
  const [, , w, h] = /viewBox="([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg).slice(1).map(Number)
  assert.equal(width, w * 2)
  assert.equal(height, Math.round(h * 2))
  const async = await svgToPngAsync(svg)
  assert.deepEqual(async, png, 'the off-thread renderer gives the same bytes')
  assert.equal(decodePng(svgToPng(svg, { width: 360 })).width, 360)
})

test('the text of a chart is drawn (a system font is found)', (t) => {
  if (!pngHasFonts()) {
    t.skip('no system font on this machine: PNG charts have no text (install fonts-dejavu-core)')
    return
  }
  const withText = decodePng(svgToPng(svg))
  const withoutText = decodePng(svgToPng(svg.replace(/<text\b[^>]*>[^<]*<\/text>/g, '')))
  // the title alone is dozens of glyphs of near-black ink at 34 px
  t.diagnostic(`dark pixels: ${withText.dark} with text, ${withoutText.dark} without`)
  assert.ok(withText.dark > withoutText.dark + 5000, `text ink: ${withText.dark} dark pixels with text, ${withoutText.dark} without`)
})
