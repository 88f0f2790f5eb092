// A run's latency histogram in HdrHistogram's own interchange format (the V2 compressed base64
// encoding that HdrHistogram's Java, C, Go and JS ports all read), made and read with hdr-histogram-js.
// The engine counts times in stats.js's integer layout during the run (the hot path); this module turns
// those counts into the package's histogram once, at the end, and decodes the strings back for merging.
//
// Loaded on demand: hdr-histogram-js is CommonJS and its encoding module pulls in pako, ~20 ms of CPU
// to load (measured with process.cpuUsage), so a plain `syncbench ab` that never reads the encoding
// never pays it. Only its encoding and Int32Histogram modules are loaded: the package's index also
// loads the WebAssembly build (~57 ms in all).
import { createRequire } from 'node:module'
import { valueAtIndex, HIGHEST_US } from './request-times.js'

/** The histogram's range and precision, as HdrHistogram's constructor takes them: microseconds, 1 us to 1 hour, 3 digits. */
export const HISTOGRAM_LAYOUT = Object.freeze({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3 })

/** @typedef {import('hdr-histogram-js').Histogram} Histogram */

/**
 * @type {{ encoding: typeof import('hdr-histogram-js/dist/encoding.js'),
 *          Int32Histogram: new (lowest: number, highest: number, digits: number) => Histogram }|null}
 */
let hdr = null

function load () {
  if (hdr === null) {
    const require = createRequire(import.meta.url)
    hdr = {
      encoding: require('hdr-histogram-js/dist/encoding.js'),
      Int32Histogram: require('hdr-histogram-js/dist/Int32Histogram.js').default
    }
  }
  return hdr
}

/**
 * hdr-histogram-js's HistogramLogWriter (HdrHistogram's interval log format, as the Java
 * HistogramLogWriter writes it), loaded on demand as the rest.
 * @returns {typeof import('hdr-histogram-js/dist/HistogramLogWriter.js').default}
 */
export function logWriterClass () {
  return createRequire(import.meta.url)('hdr-histogram-js/dist/HistogramLogWriter.js').default
}

/** An empty hdr-histogram-js histogram of the engine's layout. @returns {Histogram} */
export function createHistogram () {
  const { lowestDiscernibleValue: lo, highestTrackableValue: hi, numberOfSignificantValueDigits: digits } = HISTOGRAM_LAYOUT
  return new (load().Int32Histogram)(lo, hi, digits)
}

/**
 * The engine's bucket counts (stats.js Row.counts) as an hdr-histogram-js histogram: one
 * recordValueWithCount per non-empty bucket, at the bucket's lowest value (the same bucket in HDR's
 * identical layout, so every percentile HDR reads from it is the one the engine read).
 * @param {Float64Array} counts
 * @returns {Histogram}
 */
export function histogramOfCounts (counts) {
  const h = createHistogram()
  for (let i = 0; i < counts.length; i++) if (counts[i] > 0) h.recordValueWithCount(valueAtIndex(i), counts[i])
  return h
}

/**
 * HdrHistogram's compressed base64 encoding of the engine's counts (LoadResult.latencyHistogram).
 * @param {Float64Array} counts
 * @returns {string}
 */
export function encodeCounts (counts) {
  return load().encoding.encodeIntoCompressedBase64(histogramOfCounts(counts))
}

/**
 * A histogram from HdrHistogram's compressed base64 encoding. Throws the package's own Error when the
 * string is not one (the caller names the field).
 * @param {string} base64
 * @returns {Histogram}
 */
export function decodeHistogram (base64) {
  return load().encoding.decodeFromCompressedBase64(base64, 32)
}

/**
 * The inverse of histogramOfCounts: a histogram's counts in stats.js's layout (Row.counts), after
 * adding it into one of the engine's layout (HDR's own add, so a histogram of another layout is
 * re-bucketed as HdrHistogram does it).
 * @param {Histogram} histogram
 * @param {number} length  Row.counts' length
 * @returns {Float64Array}
 */
export function countsOfHistogram (histogram, length) {
  const h = /** @type {Histogram & { getCountAtIndex: (index: number) => number, countsArrayLength: number }} */ (createHistogram())
  h.add(histogram)
  const counts = new Float64Array(length)
  const n = Math.min(length, h.countsArrayLength)
  for (let i = 0; i < n; i++) counts[i] = h.getCountAtIndex(i)
  return counts
}
