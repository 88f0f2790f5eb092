// The goal of a capacity search (`--slo EXPR`): what a step of open-loop load must meet for its rate to
// count as held. EXPR is one or more terms joined by commas, spaces optional:
//
//   p50|p90|p99|p99.9 < DURATION   the latency percentile, corrected for coordinated omission
//   loop p99 < DURATION            the server's event-loop delay p99
//   errors < PERCENT               the share of requests that failed or were not 2xx
//
// e.g. "p99<1s, loop p99<50ms, errors<1%". A DURATION is a number with its unit (300ms, 1s, 1.5s; the
// units of every option that takes a time, lib/args.js): a bare "300" is refused rather than read as the
// 300 seconds a plain number means elsewhere, since a goal of 300 s is nearly always a typo for 300 ms.
// Bounds are strict: p99 999.9 ms meets "p99<1s", 1000 ms does not. A goal that names no error rate
// still fails a step where DEFAULT_MAX_ERROR_RATE or more of the requests failed: a server refusing
// connections answers the rest quickly, and its rate would otherwise count as held.
import { durationSeconds } from '../args.js'
import { InvalidOptionError, shown } from '../errors.js'

/** @typedef {import('../types.js').Slo} Slo */
/** @typedef {import('../types.js').SloTerm} SloTerm */
/** @typedef {SloTerm['measure']} Measure */

/** The percentiles a goal may name. */
const PERCENTILES = Object.freeze(['p50', 'p90', 'p99', 'p99.9'])

/** Every measure, in the order a goal's terms are kept and written. @type {readonly Measure[]} */
const MEASURES = Object.freeze(['p50', 'p90', 'p99', 'p99.9', 'loop p99', 'errors'])

/** The share of failed requests that fails a step when the goal names no error rate. */
export const DEFAULT_MAX_ERROR_RATE = 0.01

/**
 * The figure of a step each measure reads.
 * @type {Record<Measure, 'p50Ms'|'p90Ms'|'p99Ms'|'p999Ms'|'loopP99Ms'|'errorRate'>}
 */
const FIGURE = { p50: 'p50Ms', p90: 'p90Ms', p99: 'p99Ms', 'p99.9': 'p999Ms', 'loop p99': 'loopP99Ms', errors: 'errorRate' }

/**
 * Parse `--slo EXPR`. Throws an InvalidOptionError (the CLI exits 2) whose one line quotes the
 * expression and names the token that does not parse.
 * @param {string} expr
 * @returns {Slo}
 */
export function parseSlo (expr) {
  /** @param {string} why */
  const refuse = (why) => new InvalidOptionError(`--slo ${shown(expr)}: ${why}`)
  if (expr.trim() === '') throw refuse('no goal (write one such as "p99<1s", "loop p99<50ms" or "errors<1%")')
  /** @type {Map<Measure, number>} */
  const bounds = new Map()
  for (const part of expr.split(',')) {
    const term = part.trim()
    if (term === '') throw refuse('an empty goal between commas')
    const at = term.indexOf('<')
    if (at < 0) throw refuse(`"${term}" is not a goal (a measure, "<" and a bound: "p99<1s")`)
    const name = term.slice(0, at).trim().replace(/\s+/g, ' ')
    const bound = term.slice(at + 1).trim()
    const measure = measureOf(name, refuse)
    if (bound.startsWith('=')) throw refuse(`"${term}": a bound is strict, written "<" ("${name}<${bound.slice(1).trim()}")`)
    if (bounds.has(measure)) throw refuse(`"${measure}" is given twice`)
    bounds.set(measure, measure === 'errors' ? errorBound(bound, refuse) : durationBound(bound, refuse))
  }
  return { terms: MEASURES.filter((m) => bounds.has(m)).map((measure) => ({ measure, below: /** @type {number} */ (bounds.get(measure)) })) }
}

/**
 * The measure a term names, or the refusal that says what it should have named.
 * @param {string} name  as typed, its spaces collapsed
 * @param {(why: string) => Error} refuse
 * @returns {Measure}
 */
function measureOf (name, refuse) {
  const known = MEASURES.find((m) => m === name)
  if (known) return known
  if (name === '') throw refuse('a bound without a measure before its "<" (p50, p90, p99, p99.9, loop p99, errors)')
  if (/^p\d/.test(name)) throw refuse(`"${name}" is not a percentile (${PERCENTILES.join(', ')})`)
  if (/^loop\b/.test(name)) throw refuse(`"${name}": the loop's goal is its p99 ("loop p99<50ms")`)
  throw refuse(`"${name}" is not a measure (${MEASURES.join(', ')})`)
}

/**
 * A latency bound in ms: a number and its unit, a space between them allowed ("1.5s", "300 ms").
 * @param {string} text
 * @param {(why: string) => Error} refuse
 * @returns {number}
 */
function durationBound (text, refuse) {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(text)
  if (m !== null && m[2] === '') throw refuse(`"${text}" needs a unit (${m[1]}ms or ${m[1]}s)`)
  const seconds = m === null ? NaN : durationSeconds(m[1] + m[2])
  if (Number.isNaN(seconds)) throw refuse(`"${text}" is not a duration (300ms, 1s, 1.5s)`)
  if (seconds === 0) throw refuse(`"${text}" must be above 0`)
  // durationSeconds keeps whole microseconds; so does the bound, in ms, without float noise
  return Math.round(seconds * 1e6) / 1e3
}

/**
 * An error-rate bound as a fraction: a percentage above 0 and at most 100 ("1%", "0.5 %").
 * @param {string} text
 * @param {(why: string) => Error} refuse
 * @returns {number}
 */
function errorBound (text, refuse) {
  const m = /^(\d+(?:\.\d+)?)\s*%$/.exec(text)
  if (m === null) throw refuse(`"${text}" is not a percentage (1%, 0.5%)`)
  const percent = Number(m[1])
  if (percent === 0) throw refuse(`"${text}" must be above 0%`)
  if (percent > 100) throw refuse(`"${text}" is over 100%`)
  return percent / 100
}

/**
 * A goal's canonical text, which parseSlo reads back to the same goal: "p99 < 1 s, loop p99 < 50 ms,
 * errors < 1%", its terms in the fixed order.
 * @param {Slo} slo
 * @returns {string}
 */
export function sloText (slo) {
  return slo.terms.map((t) => `${t.measure} < ${boundText(t.measure, t.below)}`).join(', ')
}

/**
 * A bound or a figure in its measure's unit: "1.5 s", "300 ms", "1%".
 * @param {Measure} measure
 * @param {number} value  ms, or a fraction for errors
 */
function boundText (measure, value) {
  if (measure === 'errors') return `${exact(value * 100)}%`
  return value >= 1000 ? `${exact(value / 1000)} s` : `${exact(value)} ms`
}

/** A number without the float noise of a unit's conversion: 0.1 * 3 -> 0.3. @param {number} x */
function exact (x) {
  return Number(x.toPrecision(12))
}

/**
 * The goal's bounds on a request's latency, ms (its percentile terms; not the loop's delay, not errors).
 * @param {Slo} slo
 * @returns {number[]}
 */
export function latencyBounds (slo) {
  return slo.terms.filter((t) => PERCENTILES.includes(t.measure)).map((t) => t.below)
}

/**
 * Whether a step's figures meet the goal, and the terms they fail with their figure and bound
 * ("p99 1.42 s >= 1 s"). A figure the step has not got (no request completed; the server's loop not
 * measured) fails its term: the step cannot be shown to meet it. A goal without an `errors` term
 * fails at DEFAULT_MAX_ERROR_RATE and above.
 * @param {Slo} slo
 * @param {Omit<import('../types.js').StepFigures, 'late'|'achievedRate'>} figures
 * @returns {{ ok: boolean, failed: string[] }}
 */
export function meetsSlo (slo, figures) {
  const terms = slo.terms.some((t) => t.measure === 'errors')
    ? slo.terms
    : [...slo.terms, { measure: /** @type {const} */ ('errors'), below: DEFAULT_MAX_ERROR_RATE, implied: true }]
  /** @type {string[]} */
  const failed = []
  for (const term of terms) {
    const value = figures[FIGURE[term.measure]]
    if (typeof value !== 'number' || Number.isNaN(value)) {
      failed.push(`${term.measure} not measured`)
    } else if (!(value < term.below)) {
      const implied = 'implied' in term ? ' (the bound when the goal names no error rate)' : ''
      failed.push(`${term.measure} ${boundText(term.measure, shownAtLeast(value, term.below))} >= ${boundText(term.measure, term.below)}${implied}`)
    }
  }
  return { ok: failed.length === 0, failed }
}

/**
 * A failing figure to three significant figures, or as many more as it takes not to read below the
 * bound it failed (1004.6 ms against 1004.5 ms is not written "1 s >= 1.0045 s").
 * @param {number} value  at least `bound`
 * @param {number} bound
 */
function shownAtLeast (value, bound) {
  if (!Number.isFinite(value)) return value
  for (let digits = 3; digits <= 15; digits++) {
    const rounded = Number(value.toPrecision(digits))
    if (rounded >= bound) return rounded
  }
  return value
}
