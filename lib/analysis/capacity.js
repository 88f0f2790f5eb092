// The capacity search: the highest open-loop rate at which a server meets a goal (lib/analysis/slo.js),
// found by trying rates, whatever runs a step. `measure(rate)` offers that rate for one step and returns
// its figures (types.js StepFigures); this module only decides which rate to try next and when to stop.
//
// Growth, then bisection. From `startRate` the rate is multiplied by `growth` (2) after every passing
// step until a step fails: the capacity is then bracketed between the last pass and that failure in
// log2(capacity / start) + 1 steps, whatever the scale. Between the two, each step tries their geometric
// mean (the midpoint of a relative tolerance: each halves log(fail / pass)) until
// (fail - pass) / pass <= tolerance (5%): from a bracket of 2x that is 4 steps. The capacity is the last
// pass, so with a monotone server it lies within the tolerance below the truth. When the start itself
// fails, the rate is divided by `growth` down to `minRate` (1 req/s) before the search gives up
// ('no-rate-meets'): a start that was not as safe as hoped costs steps, not the answer. The start is
// the caller's to choose, a rate the server surely holds (a fraction of the bound lib/analysis/bounds.js
// predicts, or of the closed loop's req/s). Rates are kept to four significant figures: a rounding of
// 0.05% at most, well inside the 2.4% a bisection's midpoint keeps from either end.
//
// A step fails when its figures miss the goal (meetsSlo), or when its backlog grows: at saturation the
// queue grows with time, so the step's p99 can still look fine for its first seconds and its whole, while
// the late requests per second (sent later than their schedule: their connection still busy) climb.
// The rule: the least-squares line through `late` (one entry per whole second, at least
// BACKLOG_MIN_SECONDS of them) rises over the step, from its first second to its last, by more than
// BACKLOG_SHARE (10%) of the offered rate, and by more than BACKLOG_MIN_RISE (2 requests per second).
// Below capacity the share of late requests is steady (a per-connection schedule meets a busy
// connection at a steady rate), so the line is flat however high it sits; fitted to every second
// rather than drawn between the step's ends, a burst in mid-step moves it little; the floor keeps a low
// rate's one or two late requests from counting as a trend. A step saturated from its first second has
// a flat late count too (all of its requests late): its corrected latency, growing with the queue,
// fails the goal instead.
//
// Late requests show a backlog only where it waits in the generator, for a busy connection. With more
// connections than requests in flight, it waits in the server instead, and every answer comes later
// than the one before: the step fails too when the least-squares line through each second's corrected
// p50 (`latencyRiseMs`) rises by more than LATENCY_RISE_SHARE (a quarter) of the goal's smallest latency
// bound. Below capacity the queue does not grow and the line is flat, up to noise far below that share.
//
// A step that meets the goal and has no growing backlog, yet was sent at less than GENERATOR_SHARE
// (90%) of the offered rate (`sentRate`; a caller that records none: `achievedRate`), was bound by the
// generator, not the server: the search stops there ('generator-bound') with the last pass as a lower
// bound.
//
// `budgetMs` bounds the whole search on the clock `now`: a step is started only when the time used so
// far plus the longest step so far fits in the budget, so a search ends within it rather than one step
// past. `maxSteps` bounds the count. Either ends the search with 'budget' and the best rate so far.
// A step whose `measure` throws ends the search with that error; `onStep` has seen every step before it.
import { latencyBounds, meetsSlo, sloText } from './slo.js'
import { rateInterval, ratioInterval, welchTTest } from './stats.js'

/** @typedef {import('../types.js').StepFigures} StepFigures */
/** @typedef {import('../types.js').CapacityStep} CapacityStep */
/** @typedef {import('../types.js').CapacitySearch} CapacitySearch */

/** Bisection stops once (fail - pass) / pass is at most this. */
export const DEFAULT_TOLERANCE = 0.05
/** Each passing step of the growth multiplies the rate by this. */
export const DEFAULT_GROWTH = 2
/** The lowest rate tried, req/s, when the start fails (or the start, when lower). */
export const DEFAULT_MIN_RATE = 1
/** A failing rate this close above `minRate` counts as the floor: the four-figure rounding of each halving
 * (0.05% at most) can leave the last one a hair above it, and a step there would measure the floor again. */
export const FLOOR_SLACK = 0.005
/** The most steps of one search when the caller names none. */
export const DEFAULT_MAX_STEPS = 40
/** A backlog grows when its late requests per second rise by more than this share of the offered rate... */
export const BACKLOG_SHARE = 0.1
/** ...and by more than this many requests per second. */
export const BACKLOG_MIN_RISE = 2
/** The fewest whole seconds in which a step's backlog trend is judged. */
export const BACKLOG_MIN_SECONDS = 3
/** A step sent at less than this share of its offered rate, its goal met, was bound by the generator. */
export const GENERATOR_SHARE = 0.9
/** A backlog grows, too, when the corrected p50 rises through the step by more than this share of the goal's
 * smallest latency bound... */
export const LATENCY_RISE_SHARE = 0.25
/** ...or of this, ms, when the goal names no latency. */
const LATENCY_RISE_DEFAULT_BOUND_MS = 1000
/** The least rise that counts, ms: a tight goal's quarter (1.25 ms of p99<5ms) is within a few ms of a
 * collection's or a scheduler's jitter, which a server below capacity shows too. */
export const LATENCY_RISE_MIN_MS = 5

/**
 * How much the late requests per second rose through a step: the least-squares line through `late`
 * (one entry per second), from its first second to its last. NaN with fewer than BACKLOG_MIN_SECONDS.
 * @param {number[]} late
 * @returns {number}
 */
export function backlogRise (late) {
  const n = late.length
  if (n < BACKLOG_MIN_SECONDS) return NaN
  const meanT = (n - 1) / 2
  let meanY = 0
  for (const y of late) meanY += y / n
  let sxy = 0
  let sxx = 0
  for (let t = 0; t < n; t++) {
    sxy += (t - meanT) * (late[t] - meanY)
    sxx += (t - meanT) ** 2
  }
  return sxy / sxx * (n - 1)
}

/**
 * The rise of late requests per second beyond which a step at `rate` has a growing backlog.
 * @param {number} rate  offered req/s
 */
export function backlogLimit (rate) {
  return Math.max(BACKLOG_MIN_RISE, BACKLOG_SHARE * rate)
}

/**
 * A step's verdict and its reasons: 'fail' when the figures miss the goal or the backlog grows,
 * else 'generator-bound' when the achieved rate fell short of GENERATOR_SHARE of the offered one,
 * else 'pass' (no reason).
 * @param {import('../types.js').Slo} slo
 * @param {number} rate  offered req/s
 * @param {StepFigures} figures
 * @returns {{ verdict: CapacityStep['verdict'], why: string[] }}
 */
export function judgeStep (slo, rate, figures) {
  const why = meetsSlo(slo, figures).failed
  const rise = backlogRise(figures.late)
  const limit = backlogLimit(rate)
  if (rise > limit) {
    why.push(`backlog growing: late requests rose ${rounded(rise)}/s over the step's ${figures.late.length} s (limit ${rounded(limit)}/s)`)
  }
  const riseMs = figures.latencyRiseMs ?? NaN
  const limitMs = latencyRiseLimit(slo)
  if (riseMs > limitMs) why.push(`backlog growing: the corrected p50 rose ${rounded(riseMs)} ms through the step (limit ${rounded(limitMs)} ms)`)
  const unanswered = (figures.scheduled ?? 0) - (figures.completed ?? 0)
  if (why.length > 0 && unanswered > 0) {
    why.push(`${unanswered} of the ${figures.scheduled} requests unanswered when the step ended, counted slower than every bound`)
  }
  if (why.length > 0) return { verdict: 'fail', why }
  // the rate the generator sent where the step records it; a caller's figures without it, what was answered
  const sent = figures.sentRate ?? figures.achievedRate
  if (!(sent >= GENERATOR_SHARE * rate)) {
    const verb = figures.sentRate === undefined ? 'achieved' : 'sent'
    return {
      verdict: 'generator-bound',
      why: [`${verb} ${rounded(sent)} of the ${rounded(rate)} req/s offered with the goal met: the generator, not the server, was the bound`]
    }
  }
  return { verdict: 'pass', why: [] }
}

/**
 * The rise of a step's corrected p50 beyond which its backlog grows: LATENCY_RISE_SHARE of the goal's
 * smallest latency bound, LATENCY_RISE_MIN_MS at least. A queue that grows through the step raises every answer's latency with it,
 * whether it waits in the server (plenty of connections) or in the generator (late requests).
 * @param {import('../types.js').Slo} slo
 */
export function latencyRiseLimit (slo) {
  const bounds = latencyBounds(slo)
  return Math.max(LATENCY_RISE_MIN_MS, LATENCY_RISE_SHARE * (bounds.length > 0 ? Math.min(...bounds) : LATENCY_RISE_DEFAULT_BOUND_MS))
}

/** Three significant figures, whole numbers from 100 up. @param {number} x */
function rounded (x) {
  return Math.abs(x) >= 100 ? Math.round(x) : Number(x.toPrecision(3))
}

/**
 * A rate as the search offers it: four significant figures, within the bounds (a bound itself kept
 * as given, so that rounding never steps over it, nor repeats a step just below it).
 * @param {number} rate
 * @param {number} min
 * @param {number} max
 */
function rateWithin (rate, min, max) {
  if (rate >= max) return max
  if (rate <= min) return min
  return Math.min(max, Math.max(min, Number(rate.toPrecision(4))))
}

/**
 * @typedef {object} SearchOptions
 * @property {(rate: number) => Promise<StepFigures>} measure  runs one open-loop step at `rate` req/s
 * @property {import('../types.js').Slo} slo
 * @property {number} startRate          req/s, below the capacity expected (a step that fails it costs a descent)
 * @property {number} [tolerance=0.05]   bisect until (fail - pass) / pass is at most this (0 < tolerance < 1)
 * @property {number} [growth=2]         the factor of the growth (> 1)
 * @property {number} [minRate]          the lowest rate tried, DEFAULT_MIN_RATE or startRate when lower
 * @property {number} [maxRate=Infinity] the highest rate tried ('max-rate' when it passes)
 * @property {number} [maxSteps=40]
 * @property {number} [budgetMs=Infinity]
 * @property {() => number} [now=Date.now]  the clock of the budget, ms
 * @property {(step: CapacityStep) => void} [onStep]  called after each step, in order
 */

/**
 * Search for the highest rate that meets `slo` (the module's header says how).
 * @param {SearchOptions} options
 * @returns {Promise<CapacitySearch>}
 */
export async function searchCapacity (options) {
  const { measure, slo, startRate, tolerance = DEFAULT_TOLERANCE, growth = DEFAULT_GROWTH, maxRate = Infinity } = options
  const { minRate = Math.min(DEFAULT_MIN_RATE, startRate), maxSteps = DEFAULT_MAX_STEPS, budgetMs = Infinity, now = Date.now, onStep } = options
  checkOptions({ startRate, tolerance, growth, minRate, maxRate, maxSteps, budgetMs })
  const started = now()
  /** @type {CapacityStep[]} */
  const steps = []
  /** @type {number|null} */
  let pass = null
  /** @type {number|null} */
  let fail = null
  let longestMs = 0

  /** @param {number} rate @param {CapacityStep['phase']} phase */
  const step = async (rate, phase) => {
    const begun = now()
    const figures = await measure(rate)
    longestMs = Math.max(longestMs, now() - begun)
    const s = { rate, phase, ...judgeStep(slo, rate, figures), figures }
    steps.push(s)
    onStep?.(s)
    return s.verdict
  }
  const outOfBudget = () => steps.length >= maxSteps || now() - started + longestMs > budgetMs
  /** @param {CapacitySearch['reason']} reason @returns {CapacitySearch} */
  const end = (reason) => ({ capacity: pass, lastFail: fail, reason, tolerance, elapsedMs: now() - started, steps })

  for (let rate = rateWithin(startRate, minRate, maxRate); ; rate = rateWithin(rate * growth, minRate, maxRate)) {
    if (outOfBudget()) return end('budget')
    const verdict = await step(rate, 'grow')
    if (verdict === 'generator-bound') return end('generator-bound')
    if (verdict === 'fail') {
      fail = rate
      break
    }
    pass = rate
    if (rate >= maxRate) return end('max-rate')
  }

  while (pass === null) {
    // the floor reached, or within the rounding of the rates on the way down (12.67, 6.335, 3.168 against 3.166)
    if (fail <= minRate * (1 + FLOOR_SLACK)) return end('no-rate-meets')
    if (outOfBudget()) return end('budget')
    const rate = rateWithin(fail / growth, minRate, maxRate)
    const verdict = await step(rate, 'descend')
    if (verdict === 'generator-bound') return end('generator-bound')
    if (verdict === 'fail') fail = rate
    else pass = rate
  }

  while ((fail - pass) / pass > tolerance) {
    if (outOfBudget()) return end('budget')
    const rate = rateWithin(Math.sqrt(pass * fail), minRate, maxRate)
    const verdict = await step(rate, 'bisect')
    if (verdict === 'generator-bound') return end('generator-bound')
    if (verdict === 'fail') fail = rate
    else pass = rate
  }
  return end('found')
}

/**
 * The search's bounds are the caller's to validate as options (the CLI names its flags); a value out
 * of range here is a bug, thrown as one.
 * @param {{ startRate: number, tolerance: number, growth: number, minRate: number, maxRate: number, maxSteps: number, budgetMs: number }} o
 */
function checkOptions (o) {
  const bad = [
    !(o.startRate > 0 && Number.isFinite(o.startRate)) && `startRate must be a positive number, got ${o.startRate}`,
    !(o.tolerance > 0 && o.tolerance < 1) && `tolerance must be above 0 and below 1, got ${o.tolerance}`,
    !(o.growth > 1 && Number.isFinite(o.growth)) && `growth must be a number above 1, got ${o.growth}`,
    !(o.minRate > 0 && o.minRate <= o.startRate) && `minRate must be above 0 and at most startRate, got ${o.minRate}`,
    !(o.maxRate >= o.startRate) && `maxRate must be at least startRate, got ${o.maxRate}`,
    !(Number.isInteger(o.maxSteps) && o.maxSteps >= 1) && `maxSteps must be a whole number from 1, got ${o.maxSteps}`,
    !(o.budgetMs > 0) && `budgetMs must be above 0, got ${o.budgetMs}`
  ].find(Boolean)
  if (bad) throw new RangeError(`searchCapacity: ${bad}`)
}

/**
 * @typedef {import('./stats.js').RateInterval & { median: number, missing: number }} CapacityInterval
 */

/**
 * A configuration's capacity over `--runs` searches: the geometric mean with its 95% interval on the
 * log scale (stats.js rateInterval: a capacity is a rate, its noise multiplicative), the median, and
 * how many searches found none (null: no rate met the goal, or the budget ran out first), left out of
 * the rest. The ratio between two configurations is stats.js ratioInterval of their found capacities.
 * @param {(number|null)[]} capacities
 * @returns {CapacityInterval}
 */
export function capacityInterval (capacities) {
  const found = capacities.filter(/** @returns {c is number} */ (c) => c !== null)
  return { ...rateInterval(found), median: median(found), missing: capacities.length - found.length }
}

/** @param {number[]} xs @returns {number} NaN when empty */
function median (xs) {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/**
 * @typedef {object} CapacityRow
 * @property {string} label
 * @property {import('../types.js').RunNode['name']|null} node  under --node: the binary (null without)
 * @property {(number|null)[]} capacities  each search's capacity, in repeat order (null: none found)
 * @property {CapacityInterval} interval
 * @property {(CapacitySearch['reason']|'error')[]} reasons  each search's outcome, in repeat order ('error': no
 *           search ran, or a step could not run: the record's error says why)
 * @property {import('../types.js').CapacityRecord[]} searches
 * @property {string|null} baseline   the label this row is compared with (the experiment's comparisons)
 * @property {(import('./stats.js').RatioInterval & { p: number })|null} ratio  capacity / the baseline's: the
 *           ratio of the geometric means with its 95% interval and Welch's p on the log scale (NaN with
 *           fewer than 2 searches a side); null for the baseline itself or when either side found none
 */

/**
 * An experiment's capacities, a row per configuration (and binary, under --node) in the experiment's
 * label order: every search's capacity, their interval, and the ratio to the configuration's baseline.
 * @param {import('../types.js').ResultsFile} results
 * @param {string} experiment
 * @returns {CapacityRow[]}
 */
export function capacityRows (results, experiment) {
  const searches = (results.capacity?.searches ?? []).filter((s) => s.experiment === experiment)
  const meta = results.experiments.find((e) => e.name === experiment)
  if (!meta || searches.length === 0) return []
  const nodes = [...new Set(searches.map((s) => s.node?.name ?? null))]
  /** @param {string} label @param {string|null} node */
  const of = (label, node) => searches.filter((s) => s.label === label && (s.node?.name ?? null) === node).sort((a, b) => a.repeat - b.repeat)
  /** @param {import('../types.js').CapacityRecord[]} list */
  const found = (list) => list.flatMap((s) => s.search?.capacity != null ? [s.search.capacity] : [])
  return meta.labels.flatMap((label) => nodes.flatMap((node) => {
    const list = of(label, node)
    if (list.length === 0) return []
    const capacities = list.map((s) => s.search?.capacity ?? null)
    const baseline = meta.comparisons[label] ?? null
    const base = baseline === null ? [] : found(of(baseline, node))
    const mine = found(list)
    const ratio = baseline === null || base.length === 0 || mine.length === 0
      ? null
      : { ...ratioInterval(mine, base), p: welchTTest(mine.map(Math.log), base.map(Math.log)).p }
    return [{ label, node, capacities, interval: capacityInterval(capacities), reasons: list.map((s) => s.error || !s.search ? 'error' : s.search.reason), searches: list, baseline, ratio }]
  }))
}

/**
 * Whether two results files' capacities compare: 'same' when both hold searches at one goal;
 * 'neither', 'only-a', 'only-b' when not both hold searches; 'goals-differ' when their goals differ (a
 * capacity is the highest rate meeting its goal: at another goal it is another quantity). Goals are
 * compared as written back by sloText, which is canonical.
 * @param {import('../types.js').ResultsFile} a
 * @param {import('../types.js').ResultsFile} b
 * @returns {'same'|'neither'|'only-a'|'only-b'|'goals-differ'}
 */
export function capacityPairing (a, b) {
  const [ha, hb] = [hasCapacity(a), hasCapacity(b)]
  if (!ha || !hb) return ha ? 'only-a' : hb ? 'only-b' : 'neither'
  return sloText(/** @type {import('../types.js').CapacityRuns} */ (a.capacity).slo) === sloText(/** @type {import('../types.js').CapacityRuns} */ (b.capacity).slo) ? 'same' : 'goals-differ'
}

/** @param {import('../types.js').ResultsFile} results */
function hasCapacity (results) {
  return (results.capacity?.searches.length ?? 0) > 0
}

/**
 * One side of a configuration's capacity comparison.
 * @typedef {object} CapacitySide
 * @property {number} n                   searches that found a capacity (what the interval is over)
 * @property {(number|null)[]} capacities  each search's, in repeat order (null: none found)
 * @property {(CapacitySearch['reason']|'error')[]} reasons
 * @property {CapacityInterval} interval
 */

/**
 * A configuration's capacity in b against a (syncbench compare).
 * @typedef {object} CapacityComparison
 * @property {string} experiment
 * @property {string} label        the configuration, and under --node its binary after an at sign, as compareResults names it
 * @property {CapacitySide} a
 * @property {CapacitySide} b
 * @property {number} change       b / a of the geometric means - 1; NaN where a side found none
 * @property {import('./stats.js').RatioInterval} ratio  b / a over the found capacities (stats.js ratioInterval)
 * @property {import('./stats.js').WelchResult} test     Welch's t-test of b's log capacities against a's
 * @property {boolean} noneFound   a search of b found no rate that meets the goal ('no-rate-meets') where a
 *                                 search of a found one: the goal is no longer met at any rate
 */

/**
 * Every configuration with capacity searches in both files (and binary, under --node), in a's order: the
 * capacities found on each side and b / a, as compareResults compares their req/s (Welch on the logs).
 * Searches that found none are left out of the interval, and counted.
 * @param {import('../types.js').ResultsFile} a
 * @param {import('../types.js').ResultsFile} b
 * @returns {CapacityComparison[]}
 */
export function compareCapacities (a, b) {
  const key = (/** @type {CapacityRow} */ r) => `${r.label}\0${r.node ?? ''}`
  return a.experiments.flatMap((e) => {
    const theirs = new Map(capacityRows(b, e.name).map((r) => [key(r), r]))
    return capacityRows(a, e.name).flatMap((ra) => {
      const rb = theirs.get(key(ra))
      if (!rb) return []
      const [sa, sb] = [capacitySide(ra), capacitySide(rb)]
      const [fa, fb] = [foundOf(ra), foundOf(rb)]
      const ratio = ratioInterval(fb, fa)
      return [{
        experiment: e.name,
        label: ra.node === null ? ra.label : `${ra.label} @${ra.node}`,
        a: sa,
        b: sb,
        change: ratio.ratio - 1,
        ratio,
        test: welchTTest(fb.map(Math.log), fa.map(Math.log)),
        noneFound: fa.length > 0 && rb.reasons.includes('no-rate-meets')
      }]
    })
  })
}

/** @param {CapacityRow} row @returns {CapacitySide} */
function capacitySide (row) {
  return { n: foundOf(row).length, capacities: row.capacities, reasons: row.reasons, interval: row.interval }
}

/** @param {CapacityRow} row @returns {number[]} */
function foundOf (row) {
  return row.capacities.filter(/** @returns {c is number} */ (c) => c !== null)
}
