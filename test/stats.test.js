import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mean, sd, summarize, tCdf, tQuantile, welchTTest, stars, incompleteBeta, rateInterval, ratioInterval, coefficientOfVariation } from '../lib/analysis/stats.js'
import { formatP } from '../lib/report/phrases.js'

const close = (actual, expected, tolerance, what) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`)

// R's own example in ?t.test: t.test(extra ~ group, data = sleep) prints
// "t = -1.8608, df = 17.776, p-value = 0.07939"; the full-precision values below are from
// scipy 1.17.1: scipy.stats.ttest_ind(a, b, equal_var=False).
const sleep1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
const sleep2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]

test('Welch t-test matches R\'s sleep example', () => {
  const r = welchTTest(sleep1, sleep2)
  close(r.t, -1.8608134674868526, 1e-12, 't')
  close(r.df, 17.776473516178488, 1e-9, 'df')
  close(r.p, 0.0793941401873583, 1e-8, 'p')
  assert.equal(r.stars, '')
})

test('Welch t-test on unequal sizes and variances (scipy reference values)', () => {
  // scipy.stats.ttest_ind([1,2,3,4,5], [2,4,6,8,10], equal_var=False)
  const r = welchTTest([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
  close(r.t, -1.8973665961010275, 1e-12, 't')
  close(r.df, 5.882352941176471, 1e-9, 'df')
  close(r.p, 0.10753119493062728, 1e-8, 'p')
  // scipy.stats.ttest_ind([10.75,11.2,10.9], [24.65,25.1,24.0,24.9], equal_var=False): seed 001's req/s, made up repeats
  const s = welchTTest([10.75, 11.2, 10.9], [24.65, 25.1, 24.0, 24.9])
  close(s.t, -50.15812626745562, 1e-9, 't')
  close(s.df, 4.485856609144276, 1e-9, 'df')
  close(s.p, 2.4271195435415403e-07, 1e-12, 'p')
  assert.equal(s.stars, '***')
  assert.equal(formatP(s), 'p = 2.43e-7 ***')
})

test('the test is symmetric: swapping sides flips t and keeps p', () => {
  const a = welchTTest(sleep1, sleep2)
  const b = welchTTest(sleep2, sleep1)
  close(a.t, -b.t, 1e-12, 't')
  close(a.p, b.p, 1e-12, 'p')
})

test('fewer than two values per side gives no p-value rather than a wrong one', () => {
  const r = welchTTest([1], [2, 3])
  assert.ok(Number.isNaN(r.p))
  assert.equal(r.stars, '')
  assert.equal(formatP(r), 'p n/a')
})

test('constant samples: equal means are p = 1, different means p = 0', () => {
  assert.equal(welchTTest([5, 5], [5, 5, 5]).p, 1)
  assert.equal(welchTTest([5, 5], [6, 6]).p, 0)
})

test('t quantiles match scipy.stats.t.ppf(0.975, df)', () => {
  const expected = { 1: 12.706204736174694, 2: 4.302652729749462, 4: 2.7764451051977934, 9: 2.262157162798205, 30: 2.0422724563012378 }
  for (const [df, q] of Object.entries(expected)) close(tQuantile(0.975, Number(df)), q, 1e-6, `df ${df}`)
  close(tQuantile(0.025, 9), -2.262157162798205, 1e-6, 'lower tail')
})

test('t CDF and incomplete beta at known points', () => {
  close(tCdf(0, 7), 0.5, 1e-15, 'median')
  // df = 1 is the Cauchy distribution: P(T <= 1) = 3/4
  close(tCdf(1, 1), 0.75, 1e-12, 'cauchy')
  // I_x(1, 1) = x; I_x(2, 1) = x^2
  close(incompleteBeta(0.3, 1, 1), 0.3, 1e-12, 'uniform')
  close(incompleteBeta(0.3, 2, 1), 0.09, 1e-12, 'x^2')
})

test('mean, sd and the 95% confidence interval', () => {
  assert.equal(mean([1, 2, 3, 4, 5]), 3)
  close(sd([1, 2, 3, 4, 5]), Math.sqrt(2.5), 1e-12, 'sd')
  const s = summarize([1, 2, 3, 4, 5])
  assert.equal(s.n, 5)
  // R: t.test(1:5)$conf.int = 1.036757 4.963243
  close(s.ciLow, 1.036757, 1e-6, 'ci low')
  close(s.ciHigh, 4.963243, 1e-6, 'ci high')
  const one = summarize([42])
  assert.equal(one.mean, 42)
  assert.ok(Number.isNaN(one.ciHalfWidth))
})

test('stars follow compare.R', () => {
  assert.equal(stars(0.0005), '***')
  assert.equal(stars(0.005), '**')
  assert.equal(stars(0.04), '*')
  assert.equal(stars(0.05), '')
  assert.equal(stars(NaN), '')
  assert.equal(formatP({ t: 1, df: 3, p: 0.0031, stars: '**' }), 'p = 0.0031 **')
})

test('a rate\'s 95% CI is the t-interval of ln x, back-transformed (scipy reference values)', () => {
  // l = np.log(xs); np.exp(scipy.stats.t.interval(0.95, len(l) - 1, loc=l.mean(), scale=scipy.stats.sem(l)))
  // scipy 1.17.1; cv: np.std(xs, ddof=1) / np.mean(xs)
  const r = rateInterval([15.2, 16.1, 14.7, 15.9])
  close(r.geometricMean, 15.464859571885802, 1e-9, 'geometric mean')
  close(r.low, 14.467919023897984, 1e-6, 'low')
  close(r.high, 16.530496278220966, 1e-6, 'high')
  close(r.cv, 0.041670526919015904, 1e-12, 'cv')
  const wide = rateInterval([1, 2, 3, 4, 5])
  close(wide.geometricMean, 2.6051710846973517, 1e-9, 'geometric mean')
  close(wide.low, 1.183420717593544, 1e-6, 'low')
  close(wide.high, 5.734998787535339, 1e-6, 'high')
  close(coefficientOfVariation([1, 2, 3, 4, 5]), 0.5270462766947299, 1e-12, 'cv')
})

test('a rate\'s interval is never negative, and two runs give none (the issue\'s -26568.18..41322.91 req/s)', () => {
  // summarize() of the same two runs is the t-interval of the mean with 1 df: it goes below zero
  assert.ok(summarize([4706, 10048.7]).ciLow < 0)
  const two = rateInterval([4706, 10048.7])
  assert.ok(Number.isNaN(two.low) && Number.isNaN(two.high), 'no interval from 2 runs')
  close(two.cv, 0.5120889479074963, 1e-9, 'cv') // numpy: np.std(x, ddof=1) / np.mean(x)
  const three = rateInterval([4706, 10048.7, 100])
  assert.ok(three.low > 0 && three.low < three.geometricMean && three.high > three.geometricMean)
  assert.ok(Number.isNaN(rateInterval([0, 5, 6]).low), 'a zero rate has no log-scale interval')
})

test('the 95% CI of a ratio of rates: Welch\'s t-interval of the log difference (scipy reference values)', () => {
  // r = scipy.stats.ttest_ind(np.log(b), np.log(a), equal_var=False) (scipy 1.17.1);
  // np.exp(r.confidence_interval(0.95)) = (2.1596326347422843, 2.3489228109733924), r.df = 4.263102351443348
  const a = [10.75, 11.2, 10.9]
  const b = [24.65, 25.1, 24.0, 24.9]
  const r = ratioInterval(b, a)
  close(r.ratio, 2.252290025522628, 1e-12, 'ratio of geometric means')
  close(r.low, 2.1596326347422843, 1e-6, 'low')
  close(r.high, 2.3489228109733924, 1e-6, 'high')
  close(r.df, 4.263102351443348, 1e-9, 'df')
  // swapping the sides inverts the interval
  const inv = ratioInterval(a, b)
  close(inv.low, 1 / r.high, 1e-9, 'inverse low')
  close(inv.high, 1 / r.low, 1e-9, 'inverse high')
  // fewer than 3 runs a side: the ratio, no interval
  const short = ratioInterval([1, 2], [1, 2, 3])
  assert.ok(short.ratio > 0 && Number.isNaN(short.low) && Number.isNaN(short.high))
})
