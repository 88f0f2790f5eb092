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
