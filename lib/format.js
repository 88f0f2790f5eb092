// Numbers as people read them, shared by the lab's messages, the terminal output, the tables and the
// charts, so the same figure never reads two ways in one report. Fixed-decimal table columns (ab's
// "%.2f" rows, "Req/s" columns) keep their own toFixed: there the alignment is the point.

/** Bytes in a mebibyte: the unit of the memory columns and axes. */
export const MIB = 1024 ** 2

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB']

/**
 * Binary units with at most one decimal:
 * 4194304 -> "4 MiB", 65536 -> "64 KiB", 1000 -> "1000 B", 8326176768 -> "7.8 GiB".
 * @param {number} bytes
 * @returns {string}
 */
export function formatBytes (bytes) {
  if (!Number.isFinite(bytes)) return '–'
  let v = bytes
  let i = 0
  while (Math.abs(v) >= 1024 && i < UNITS.length - 1) {
    v /= 1024
    i++
  }
  return `${Number(v.toFixed(1))} ${UNITS[i]}`
}

/**
 * Three significant figures, trailing zeros kept so columns line up, no exponent, whole numbers from
 * 100 up: 2250, 30.8, 14.0, 2.50, 0.523. For values whose precision the reader should not over-read
 * (means, ceilings, CI half widths), in the verdicts, the text charts and the chart labels.
 * @param {number} v
 * @returns {string}
 */
export function formatNumber (v) {
  if (!Number.isFinite(v)) return '–'
  if (Math.abs(v) >= 100) return String(Math.round(v))
  if (v === 0) return '0'
  const text = v.toPrecision(3)
  if (!text.includes('e')) return text
  // below 1e-6 toPrecision switches to 1.23e-7 notation: spell the digits out instead
  return v.toFixed(Math.min(100, 2 - Math.floor(Math.log10(Math.abs(Number(text))))))
}

/**
 * Round to a number of decimals, for JSON figures: 1.2345678 -> 1.235 (digits 3).
 * @param {number} value
 * @param {number} [digits=3]
 * @returns {number}
 */
export function roundTo (value, digits = 3) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
