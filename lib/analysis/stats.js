// Statistics for repeated runs, shaped like Node core's benchmark/compare.R: mean, a 95% confidence
// interval from the t distribution, and Welch's two-sample t-test (unequal variances) with stars.
// No kept npm package covers Welch + the Student t CDF without pulling a large stats library, so the
// t CDF is computed here from the regularized incomplete beta function (Lentz's continued fraction).

/**
 * @typedef {object} Summary
 * @property {number} n
 * @property {number} mean
 * @property {number} sd            sample standard deviation (n - 1); NaN when n < 2
 * @property {number} ciLow         95% confidence interval of the mean; NaN when n < 2
 * @property {number} ciHigh
 * @property {number} ciHalfWidth
 */

/**
 * @typedef {object} WelchResult
 * @property {number} t
 * @property {number} df   Welch–Satterthwaite degrees of freedom
 * @property {number} p    two-sided p-value; NaN when either side has fewer than 2 values
 * @property {string} stars '***' p<0.001, '**' p<0.01, '*' p<0.05, '' otherwise (compare.R's legend)
 */

/** @param {number[]} xs */
export function mean (xs) {
  if (xs.length === 0) return NaN
  let s = 0
  for (const x of xs) s += x
  return s / xs.length
}

/** Sample variance (n - 1). @param {number[]} xs */
export function variance (xs) {
  if (xs.length < 2) return NaN
  const m = mean(xs)
  let s = 0
  for (const x of xs) s += (x - m) ** 2
  return s / (xs.length - 1)
}

/** @param {number[]} xs */
export function sd (xs) {
  return Math.sqrt(variance(xs))
}

/**
 * ln Γ(x) for x > 0: shift x above 15 with Γ(x + 1) = xΓ(x), then Stirling's series (Bernoulli terms
 * up to B10), which is accurate to about 1e-15 there.
 * @param {number} x
 */
function logGamma (x) {
  let shift = 0
  while (x < 15) {
    shift += Math.log(x)
    x += 1
  }
  const x2 = x * x
  const series = 1 / (12 * x) - 1 / (360 * x * x2) + 1 / (1260 * x * x2 * x2) -
    1 / (1680 * x * x2 * x2 * x2) + 1 / (1188 * x * x2 * x2 * x2 * x2)
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift
}

/**
 * Continued fraction of the incomplete beta function, evaluated with the modified Lentz method.
 * @param {number} x
 * @param {number} a
 * @param {number} b
 */
function betaContinuedFraction (x, a, b) {
  const tiny = 1e-300
  let c = 1
  let d = 1 - (a + b) * x / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < 1e-15) break
  }
  return h
}

/**
 * Regularized incomplete beta function I_x(a, b).
 * @param {number} x 0..1
 * @param {number} a > 0
 * @param {number} b > 0
 */
export function incompleteBeta (x, a, b) {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  // The continued fraction converges fast only below the mean of the beta distribution; use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * betaContinuedFraction(x, a, b) / a
  return 1 - front * betaContinuedFraction(1 - x, b, a) / b
}

/**
 * Student t cumulative distribution function P(T <= t) with `df` degrees of freedom (df may be fractional).
 * @param {number} t
 * @param {number} df
 */
export function tCdf (t, df) {
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t > 0 ? 1 - tail : tail
}

/**
 * Quantile of the Student t distribution: the t with P(T <= t) = p (bisection on tCdf; only used
 * for confidence intervals, never on a hot path).
 * @param {number} p 0..1
 * @param {number} df
 * @returns {number}
 */
export function tQuantile (p, df) {
  if (p <= 0) return -Infinity
  if (p >= 1) return Infinity
  if (p < 0.5) return -tQuantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (tCdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2
    if (tCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/**
 * n, mean, sd and the 95% confidence interval of the mean (t distribution, n - 1 df).
 * @param {number[]} xs
 * @returns {Summary}
 */
export function summarize (xs) {
  const n = xs.length
  const m = mean(xs)
  const s = sd(xs)
  const half = n >= 2 ? tQuantile(0.975, n - 1) * s / Math.sqrt(n) : NaN
  return { n, mean: m, sd: s, ciLow: m - half, ciHigh: m + half, ciHalfWidth: half }
}

/**
 * compare.R's significance stars.
 * @param {number} p
 */
export function stars (p) {
  if (!(p >= 0)) return ''
  if (p < 0.001) return '***'
  if (p < 0.01) return '**'
  if (p < 0.05) return '*'
  return ''
}

/**
 * Welch's two-sample t-test of mean(a) - mean(b), two-sided.
 * @param {number[]} a
 * @param {number[]} b
 * @returns {WelchResult}
 */
export function welchTTest (a, b) {
  if (a.length < 2 || b.length < 2) return { t: NaN, df: NaN, p: NaN, stars: '' }
  const va = variance(a) / a.length
  const vb = variance(b) / b.length
  const diff = mean(a) - mean(b)
  if (va + vb === 0) {
    // Identical values on each side: no spread to test against; equal means are not different at all.
    const p = diff === 0 ? 1 : 0
    return { t: diff === 0 ? 0 : Math.sign(diff) * Infinity, df: a.length + b.length - 2, p, stars: stars(p) }
  }
  const t = diff / Math.sqrt(va + vb)
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1))
  const p = Math.min(1, 2 * tCdf(-Math.abs(t), df))
  return { t, df, p, stars: stars(p) }
}

// Intervals for rates. A throughput is never negative and its noise is multiplicative (a busy neighbour
// slows every request by a factor), so its intervals are computed on the log scale and back-transformed:
// they stay positive and are asymmetric, as a rate's uncertainty is. With fewer than MIN_RUNS_FOR_INTERVAL
// runs a t-interval exists but means nothing (2 runs: 1 df, t = 12.7 multiplies whatever spread the two
// happened to have), so none is given; the words for that are lib/report's.

/** The fewest runs of a configuration (of each side of a ratio) for which a 95% interval is given. */
export const MIN_RUNS_FOR_INTERVAL = 3

/**
 * @typedef {object} RateInterval
 * @property {number} n
 * @property {number} geometricMean  exp(mean(ln x))
 * @property {number} cv             coefficient of variation sd / mean of the values (NaN when n < 2)
 * @property {number} low            95% CI of the geometric mean: t-interval of ln x (n - 1 df), back-transformed;
 *                                   NaN when n < MIN_RUNS_FOR_INTERVAL or a value is not positive
 * @property {number} high
 */

/**
 * The 95% confidence interval of a positive rate (req/s) over repeated runs, on the log scale:
 * exp(mean(ln x) ± t(0.975, n - 1) · sd(ln x) / √n). Never negative, whatever the spread.
 * @param {number[]} xs
 * @returns {RateInterval}
 */
export function rateInterval (xs) {
  const n = xs.length
  const positive = n > 0 && xs.every((x) => x > 0)
  const logs = positive ? xs.map(Math.log) : []
  const m = positive ? mean(logs) : NaN
  const half = positive && n >= MIN_RUNS_FOR_INTERVAL ? tQuantile(0.975, n - 1) * sd(logs) / Math.sqrt(n) : NaN
  return { n, geometricMean: Math.exp(m), cv: coefficientOfVariation(xs), low: Math.exp(m - half), high: Math.exp(m + half) }
}

/**
 * sd / mean (sample sd, n - 1): how far repeats of one configuration disagree. NaN when n < 2.
 * @param {number[]} xs
 */
export function coefficientOfVariation (xs) {
  return sd(xs) / mean(xs)
}

/**
 * @typedef {object} RatioInterval
 * @property {number} ratio  exp(mean(ln a) - mean(ln b)): the ratio of the geometric means
 * @property {number} low    95% CI of that ratio (or at the level asked); NaN when a side has fewer than
 *                           MIN_RUNS_FOR_INTERVAL runs
 * @property {number} high
 * @property {number} df     Welch–Satterthwaite degrees of freedom of the log-scale difference
 */

/**
 * The 95% confidence interval of the ratio a / b of two rates: Welch's t-interval of the difference
 * of the mean log rates, back-transformed (the log-scale counterpart of compare.R's t-test; Fieller's
 * interval of a ratio of arithmetic means would need equal-variance or normal-rate assumptions that
 * multiplicative noise breaks). Equals exp(scipy.stats.ttest_ind(ln a, ln b, equal_var=False)
 * .confidence_interval()). Another level (confidence_interval(level)) is for a rule that looks at the
 * runs several times (lib/analysis/sequential.js) and must spend its error rate over the looks.
 * @param {number[]} a
 * @param {number[]} b
 * @param {number} [level=0.95]  the interval's confidence level, 0 < level < 1
 * @returns {RatioInterval}
 */
export function ratioInterval (a, b, level = 0.95) {
  const none = { ratio: NaN, low: NaN, high: NaN, df: NaN }
  if (a.length === 0 || b.length === 0 || !a.every((x) => x > 0) || !b.every((x) => x > 0)) return none
  const la = a.map(Math.log)
  const lb = b.map(Math.log)
  const diff = mean(la) - mean(lb)
  const ratio = Math.exp(diff)
  if (a.length < MIN_RUNS_FOR_INTERVAL || b.length < MIN_RUNS_FOR_INTERVAL) return { ...none, ratio }
  const va = variance(la) / la.length
  const vb = variance(lb) / lb.length
  if (va + vb === 0) return { ratio, low: ratio, high: ratio, df: la.length + lb.length - 2 }
  const df = (va + vb) ** 2 / (va ** 2 / (la.length - 1) + vb ** 2 / (lb.length - 1))
  const half = tQuantile(1 - (1 - level) / 2, df) * Math.sqrt(va + vb)
  return { ratio, low: Math.exp(diff - half), high: Math.exp(diff + half), df }
}

/**
 * @typedef {object} RatioChange
 * @property {number} from    the ratio a1 / b1 (geometric means)
 * @property {number} to      the ratio a2 / b2
 * @property {number} change  to / from
 * @property {number} low     95% CI of `change`; NaN when a group has fewer than MIN_RUNS_FOR_INTERVAL runs
 * @property {number} high
 * @property {number} p       two-sided p-value of "the ratio did not change"; NaN when a group has fewer than 2 runs
 * @property {string} stars
 */

/**
 * Whether the ratio of two rates changed between two settings (a comparison measured on two Node.js
 * versions: readFile / readFileSync on 20, then on 24): the difference of the two log-scale differences,
 * (mean ln a2 - mean ln b2) - (mean ln a1 - mean ln b1), with Welch's t on its four independent groups
 * (Satterthwaite's degrees of freedom over four variances), back-transformed as ratioInterval is.
 * @param {number[]} a1
 * @param {number[]} b1
 * @param {number[]} a2
 * @param {number[]} b2
 * @returns {RatioChange}
 */
export function ratioChange (a1, b1, a2, b2) {
  const groups = [a1, b1, a2, b2]
  const none = { from: NaN, to: NaN, change: NaN, low: NaN, high: NaN, p: NaN, stars: '' }
  if (!groups.every((g) => g.length > 0 && g.every((x) => x > 0))) return none
  const logs = groups.map((g) => g.map(Math.log))
  const [m1, n1, m2, n2] = logs.map(mean)
  const diff = (m2 - n2) - (m1 - n1)
  const out = { ...none, from: Math.exp(m1 - n1), to: Math.exp(m2 - n2), change: Math.exp(diff) }
  if (!logs.every((g) => g.length >= 2)) return out
  const v = logs.map((g) => variance(g) / g.length)
  const total = v.reduce((s, x) => s + x, 0)
  if (total === 0) {
    const p = diff === 0 ? 1 : 0
    return { ...out, p, stars: stars(p), ...logs.every((g) => g.length >= MIN_RUNS_FOR_INTERVAL) && { low: out.change, high: out.change } }
  }
  const df = total ** 2 / v.reduce((s, x, i) => s + x ** 2 / (logs[i].length - 1), 0)
  const se = Math.sqrt(total)
  const p = Math.min(1, 2 * tCdf(-Math.abs(diff / se), df))
  const withInterval = logs.every((g) => g.length >= MIN_RUNS_FOR_INTERVAL)
  const half = withInterval ? tQuantile(0.975, df) * se : NaN
  return { ...out, p, stars: stars(p), low: Math.exp(diff - half), high: Math.exp(diff + half) }
}
