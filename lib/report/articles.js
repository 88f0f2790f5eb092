// The seed articles' own published figures beside this machine's, and whether each article's
// conclusion reproduces here, with the reason where it does not (docs/seeds.md's "What the numbers mean",
// worded from this results file: its cores, its calibration, its memory figures). A pure function of a
// ResultsFile, for the terminal, summary.md and report.html alike.
//
// The rule for "reproduces" (REPRODUCE_RULE below says it in one sentence for the outputs):
//   - a "faster" claim (the article measured X at r times Y, r > 1) reproduces when X's mean req/s is
//     above Y's here and the two-sided Welch t-test over the runs gives p < 0.05: same direction,
//     and not noise. Its size is shown, not judged: it depends on the cores (see the reasons).
//     Without a p-value (one run each) it is "not shown", never "reproduces".
//   - a "no gain" claim (the article measured X at about Y: fake async's 27.10 vs 26.50) reproduces
//     unless X is faster here by 10% or more with p < 0.05: 10% is the article's own scale of a
//     difference that matters ("ce n'est pas juste 10% de différence"), and a gain that noise can
//     explain is no gain. Without a p-value the 10% alone decides.
// When lib/analysis/stats.js gives the ratio's confidence interval, "faster" can move to "the ratio's 95% CI
// lies above 1" and "no gain" to "the CI lies below 1.10"; the outcomes will rarely differ.
//
// Every figure here is the summary row's (lib/analysis/summarize.js), never computed again: the mean req/s,
// its interval (Row.rate: log scale, none below 3 runs), the ratio, its p-value and its 95% CI
// (Row.comparison, compareRows), worded by lib/report/phrases.js, so this table and the experiment's
// own table agree to the last digit.
import { compareRows } from '../analysis/summarize.js'
import { formatP, formatComparison, formatRateInterval } from './phrases.js'
import { KINDS, kindOf } from './kinds.js'

/** The significance level of a "faster" claim. */
export const ALPHA = 0.05
/** A "no gain" claim holds while X stays below (1 + NO_GAIN_MARGIN) x Y. */
export const NO_GAIN_MARGIN = 0.10

/** The rule above in one sentence, for the outputs that show the reproduce lines. */
export const REPRODUCE_RULE = 'How "reproduces" is decided: a "faster" conclusion reproduces when the same side is faster here ' +
  `with a Welch p < ${ALPHA}; a "no gain" one unless the gain here is ${Math.round(NO_GAIN_MARGIN * 100)}% or more with p < ${ALPHA}.`

/**
 * @typedef {object} Claim
 * @property {'faster'|'no-gain'} kind
 * @property {string} subject    the configuration the claim is about (a label of the experiment)
 * @property {string} baseline   the one it is measured against
 * @property {string} text       the conclusion, in the article's words where it has some
 */

/**
 * A seed article, held by the kind that reproduces it (lib/report/kinds/seed-*.js).
 * @typedef {object} Article
 * @property {string} seed       '001', '002': the file in the seeds folder
 * @property {string} author
 * @property {number} year
 * @property {string} title
 * @property {string} [url]
 * @property {{ requests: number, concurrency: number, keepAlive: boolean }} load   the article's ab command
 * @property {Record<string, number>} figures   label -> the article's "Requests per second"
 * @property {Claim[]} claims
 * @property {Record<string, (c: ClaimResult, m: Machine) => string>} [reasons]  by a claim's subject: why
 *           it holds or not on this machine, in docs/seeds.md's words (a claim without one: its status says it)
 */

/**
 * The articles, their figures as published (ab's "Requests per second" lines), in the kinds' order.
 * @type {Article[]}
 */
export const ARTICLES = KINDS.flatMap((k) => k.article ? [k.article] : [])

/**
 * @typedef {object} ClaimResult
 * @property {Claim['kind']} kind
 * @property {string} subject
 * @property {string} baseline
 * @property {string} text
 * @property {number} articleRatio    the article's subject / baseline req/s
 * @property {number} ratio           this machine's mean req/s ratio; NaN when a side has no measured run
 * @property {number} p               two-sided Welch p-value of the runs' req/s; NaN with fewer than 2 runs a side
 * @property {string} stars
 * @property {string} evidence        what the ratio rests on, as the experiment's table words it
 *                                    ("95% CI 1.90x..2.04x, p = 0.00312 **", "2 runs: no interval, p = 0.0794"); '' unmeasured
 * @property {boolean} reproduces
 * @property {'reproduces'|'opposite'|'no-difference'|'no-p-value'|'gain'|'not-measured'} status
 *           why not, when it does not: 'opposite' the baseline is significantly faster, 'no-difference'
 *           p >= ALPHA, 'no-p-value' fewer than 2 runs a side, 'gain' (no-gain claims) 10% or more faster
 *           with p < ALPHA (or without a p-value)
 * @property {string} why             the reason, from this machine's figures
 */

/**
 * @typedef {object} ArticleComparison
 * @property {string} experiment        the experiment of this results file that reproduces the article
 * @property {Article} article
 * @property {{ label: string, article: number, here: { mean: number, runs: number, interval: string }|null }[]} rows
 *           here: the summary row's mean req/s and its "Req/s 95% CI" cell (formatRateInterval), null unmeasured
 * @property {ClaimResult[]} claims
 * @property {'reproduces'|'partly'|'does not reproduce'} outcome
 * @property {string|null} loadNote     set when this machine's load differs from the article's command
 * @property {string} line              one line: whether the conclusion reproduces here, and why not where it does not
 */

/**
 * For every experiment of `results` that reproduces a seed article (its `table` is the article's and it
 * has the article's configurations), the article's figures, this machine's, and whether each of the
 * article's conclusions reproduces here.
 * @param {import('../types.js').ResultsFile} results
 * @param {import('../analysis/summarize.js').ExperimentSummary[]} summaries  summarizeExperiments(results) (or summarizeResults)
 * @returns {ArticleComparison[]}
 */
export function compareWithArticles (results, summaries) {
  /** @type {ArticleComparison[]} */
  const out = []
  for (const summary of summaries) {
    const article = kindOf(summary.table).article
    if (!article) continue
    const byLabel = new Map(summary.rows.map((r) => [r.label, r]))
    if (!Object.keys(article.figures).every((label) => byLabel.has(label))) continue
    const rows = Object.entries(article.figures).map(([label, figure]) => {
      const row = /** @type {import('../analysis/summarize.js').Row} */ (byLabel.get(label))
      return { label, article: figure, here: row.runs.length ? { mean: row.derived.requestsPerSecond, runs: row.runs.length, interval: formatRateInterval(row, 2) } : null }
    })
    if (rows.every((r) => r.here === null)) continue
    const context = machine(results, summary)
    const claims = article.claims.map((claim) => judge(claim, article, summary, context))
    const held = claims.filter((c) => c.reproduces).length
    /** @type {ArticleComparison['outcome']} */
    const outcome = held === claims.length ? 'reproduces' : held === 0 ? 'does not reproduce' : 'partly'
    const loadNote = describeLoad(summary, article)
    out.push({ experiment: summary.name, article, rows, claims, outcome, loadNote, line: line(article, outcome, claims, loadNote) })
  }
  return out
}

/**
 * The comparison as a table (lib/report/tables.js's shape: renderText for the terminal,
 * renderMarkdownTable for summary.md): one row per configuration, then one per claim's ratio.
 * @param {ArticleComparison} c
 * @returns {import('./tables.js').Table}
 */
export function articleTable (c) {
  const { article } = c
  // the column exists once a configuration was repeated, as the experiment's table's "Req/s 95% CI"
  const withCi = c.rows.some((r) => r.here && r.here.runs > 1)
  const rows = c.rows.map((r) => [
    r.label,
    r.article.toFixed(2),
    r.here ? r.here.mean.toFixed(2) : 'n/a',
    ...(withCi ? [r.here ? r.here.interval : ''] : [])
  ])
  for (const claim of c.claims) {
    rows.push([
      `${claim.subject} / ${claim.baseline}`,
      `${claim.articleRatio.toFixed(2)}x`,
      Number.isFinite(claim.ratio) ? `${claim.ratio.toFixed(2)}x` : 'n/a',
      ...(withCi ? [claim.evidence] : [])
    ])
  }
  return {
    title: `${c.experiment}: seed ${article.seed} (${article.author}, ${article.year}) beside this machine, requests per second`,
    columns: ['Configuration', 'article', 'here', ...(withCi ? ['here 95% CI / p'] : [])],
    align: ['left', 'right', 'right', ...(withCi ? /** @type {const} */ (['right']) : [])],
    rows
  }
}

/**
 * What the reasons need to know about this machine and this run.
 * @typedef {object} Machine
 * @property {number} cores               usable cores (the calibration's, else os.availableParallelism())
 * @property {number} pool                libuv threads (UV_THREADPOOL_SIZE, default 4)
 * @property {number|null} opMs           one operation timed alone, when calibrated
 * @property {Map<string, number>} peakRss  label -> peak RSS in bytes, where server metrics exist
 * @property {number} noGainMargin        the rule's margin of a "no gain" claim (NO_GAIN_MARGIN)
 */

/**
 * @param {import('../types.js').ResultsFile} results
 * @param {import('../analysis/summarize.js').ExperimentSummary} summary
 * @returns {Machine}
 */
function machine (results, summary) {
  const run = summary.rows.flatMap((r) => r.runs).find((r) => r.serverEnv)
  const poolEnv = run?.serverEnv?.uvThreadpoolSize ?? results.environment?.uvThreadpoolSize ?? null
  const pool = Number(poolEnv) > 0 ? Number(poolEnv) : 4
  /** @type {Map<string, number>} */
  const peakRss = new Map()
  for (const r of summary.rows) if (r.server) peakRss.set(r.label, r.server.peakRssBytes)
  return {
    cores: summary.calibration?.usableCores ?? results.environment?.cpuCount ?? 1,
    pool,
    opMs: summary.calibration?.opMs ?? null,
    peakRss,
    noGainMargin: NO_GAIN_MARGIN
  }
}

/**
 * @param {Claim} claim
 * @param {Article} article
 * @param {import('../analysis/summarize.js').ExperimentSummary} summary
 * @param {Machine} m
 * @returns {ClaimResult}
 */
function judge (claim, article, summary, m) {
  const subject = summary.rows.find((r) => r.label === claim.subject)
  const base = summary.rows.find((r) => r.label === claim.baseline)
  const articleRatio = article.figures[claim.subject] / article.figures[claim.baseline]
  // the experiment's own comparison when it has this baseline (both seed experiments do), else the same rule
  const comparison = !subject || !base ? null : subject.comparison?.baseline === base.label ? subject.comparison : compareRows(subject, base)
  const measured = comparison !== null
  const ratio = comparison ? comparison.ratio : NaN
  const test = comparison ? comparison.test : { p: NaN, stars: '' }
  const evidence = subject && comparison ? formatComparison({ ...subject, comparison }, summary.rows) : ''
  /** @type {ClaimResult['status']} */
  let status
  if (!measured) status = 'not-measured'
  else if (claim.kind === 'no-gain') status = ratio < 1 + NO_GAIN_MARGIN || test.p >= ALPHA ? 'reproduces' : 'gain'
  else if (!(test.p >= 0)) status = 'no-p-value'
  else if (test.p >= ALPHA) status = 'no-difference'
  else status = ratio > 1 ? 'reproduces' : 'opposite'
  const result = { ...claim, articleRatio, ratio, p: test.p, stars: test.stars, evidence, reproduces: status === 'reproduces', status, why: '' }
  result.why = reason(result, article, m)
  return result
}

/**
 * The reason, in docs/seeds.md's words, from this machine's figures: the article's own for its claim
 * (Article.reasons), else what the status says.
 * @param {ClaimResult} c
 * @param {Article} article
 * @param {Machine} m
 * @returns {string}
 */
function reason (c, article, m) {
  if (c.status === 'not-measured') return `no run of ${c.subject} or ${c.baseline} was measured`
  if (c.status === 'no-p-value') return 'one run each gives no p-value: run with --runs 2 or more'
  const own = article.reasons?.[c.subject]
  if (own) return own(c, m)
  // A claim without its own explanation: the status says it all.
  return c.status === 'reproduces' ? '' : c.status === 'opposite' ? `${c.baseline} is significantly faster here` : 'no significant difference here'
}

/**
 * "seed 001 (Jino Antony, 2020) reproduces: async performs better than sync here too (1.98x, p = 0.000282 ***;
 * the article 2.29x): the gain is the cores..."
 * @param {Article} article
 * @param {ArticleComparison['outcome']} outcome
 * @param {ClaimResult[]} claims
 * @param {string|null} loadNote
 */
function line (article, outcome, claims, loadNote) {
  const parts = claims.map((c) => {
    const here = Number.isFinite(c.ratio) ? `${c.ratio.toFixed(2)}x here, ${formatP(c)}` : 'not measured here'
    const verb = c.reproduces ? 'holds' : c.status === 'no-p-value' ? 'is not shown' : 'does not hold'
    return `"${c.text}" ${verb} (${here}; ${c.articleRatio.toFixed(2)}x in the article)${c.why ? `: ${c.why}` : ''}`
  })
  return `seed ${article.seed} (${article.author}, ${article.year}) ${outcome === 'partly' ? 'partly reproduces' : outcome}: ${parts.join('. ')}.${loadNote ? ` ${loadNote}` : ''}`
}

/**
 * A note when this machine's load is not the article's command (-n, -c, -k): the figures are then not
 * like for like, although the conclusions may still be compared.
 * @param {import('../analysis/summarize.js').ExperimentSummary} summary
 * @param {Article} article
 * @returns {string|null}
 */
function describeLoad (summary, article) {
  const run = summary.rows.flatMap((r) => r.runs)[0]
  if (!run) return null
  const here = { requests: run.load.options.requests ?? run.load.completeRequests, concurrency: run.load.concurrency, keepAlive: Boolean(run.load.options.keepAlive) }
  const a = article.load
  if (here.requests === a.requests && here.concurrency === a.concurrency && here.keepAlive === a.keepAlive) return null
  /** @param {typeof a} l */
  const ab = (l) => `ab${l.keepAlive ? ' -k' : ''} -c ${l.concurrency} -n ${l.requests}`
  return `(Measured with ${ab(here)}, the article with ${ab(a)}: the req/s are not like for like.)`
}
