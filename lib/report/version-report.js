// The Node.js versions of a `syncbench run --node` results file, in words and tables: each
// configuration's req/s on every version side by side with the ratio to the baseline version (the
// first --node: its 95% CI and Welch p-value), each comparison of the experiment (readFile /
// readFileSync) as it moved between versions, and a verdict per seed article: whether its conclusion
// holds on every version or changed between two. The figures are lib/analysis/versions.js's, computed
// once per results file (versionsOf); the chart is chart-versions.js's.
import { summarizeVersions } from '../analysis/versions.js'
import { ratioChange } from '../analysis/stats.js'
import { rps } from '../analysis/summarize.js'
import { compareWithArticles, ALPHA } from './articles.js'
import { formatP, formatRateInterval } from './phrases.js'

/**
 * @typedef {object} VersionsModel
 * @property {import('../analysis/versions.js').VersionsSummary} summary
 * @property {{ node: string, articles: import('./articles.js').ArticleComparison[] }[]} articles  each version's seed articles
 * @property {SeedVerdict[]} verdicts
 */

/**
 * @typedef {object} SeedVerdict
 * @property {string} experiment
 * @property {string} seed
 * @property {boolean} changed   some claim holds on one version and not on another
 * @property {string} line
 */

/** @type {WeakMap<object, VersionsModel|null>} */
const computed = new WeakMap()

/**
 * The versions of a results file, computed once per file object (the terminal, summary.md, report.html
 * and the chart all read it); null without two --node binaries.
 * @param {import('../types.js').ResultsFile} results
 * @returns {VersionsModel|null}
 */
export function versionsOf (results) {
  if (computed.has(results)) return /** @type {VersionsModel|null} */ (computed.get(results))
  const summary = summarizeVersions(results)
  /** @type {VersionsModel|null} */
  let model = null
  if (summary) {
    const articles = summary.versions.map((v) => ({ node: v.node.name, articles: compareWithArticles(v.results, v.summaries) }))
    model = { summary, articles, verdicts: seedVerdicts(summary, articles) }
  }
  computed.set(results, model)
  return model
}

/** "20, 24 and 26". @param {string[]} names */
export function listNames (names) {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/** "0.66x" @param {number} x */
const times = (x) => Number.isFinite(x) ? `${x.toFixed(2)}x` : 'n/a'

/**
 * A seed's conclusion on every version: "seed 002 (..., 2012): the article's conclusion holds on 20, 24
 * and 26", or "... changed between 20 and 24 (readFile / readFileSync 0.66x -> 1.08x, p = 0.00121 **):
 * it holds on 20, not on 24 and 26".
 * @param {import('../analysis/versions.js').VersionsSummary} summary
 * @param {VersionsModel['articles']} articles
 * @returns {SeedVerdict[]}
 */
function seedVerdicts (summary, articles) {
  const [base] = articles
  return base.articles.map((first) => {
    const experiment = first.experiment
    const { article } = first
    const byVersion = articles.map((v) => ({ node: v.node, comparison: v.articles.find((a) => a.experiment === experiment) ?? null }))
    const head = `seed ${article.seed} (${article.author}, ${article.year}) on Node ${listNames(byVersion.map((v) => v.node))}`
    const holds = (/** @type {import('./articles.js').ArticleComparison|null} */ c) => c === null ? 'not measured' : c.outcome
    const changedAt = byVersion.findIndex((v) => holds(v.comparison) !== holds(byVersion[0].comparison))
    if (changedAt === -1) {
      const outcome = holds(first)
      const verb = outcome === 'reproduces' ? 'holds' : outcome === 'partly' ? 'partly holds' : 'does not hold'
      const ratios = first.claims.map((c) => `${c.subject} / ${c.baseline} ${byVersion.map((v) => times(v.comparison?.claims.find((x) => x.subject === c.subject)?.ratio ?? NaN)).join(', ')}`)
      return { experiment, seed: article.seed, changed: false, line: `${head}: the article's conclusion ${verb} on ${listNames(byVersion.map((v) => v.node))} (${ratios.join('; ')})` }
    }
    const to = byVersion[changedAt]
    const versions = summary.versions
    const moved = first.claims.flatMap((claim) => {
      const other = to.comparison?.claims.find((c) => c.subject === claim.subject)
      if (!other || other.reproduces === claim.reproduces) return []
      const rowsOf = (/** @type {number} */ i) => ({
        s: versions[i].summaries.find((s) => s.name === experiment)?.rows.find((r) => r.label === claim.subject),
        b: versions[i].summaries.find((s) => s.name === experiment)?.rows.find((r) => r.label === claim.baseline)
      })
      const [a, b] = [rowsOf(0), rowsOf(changedAt)]
      const change = a.s && a.b && b.s && b.b ? ratioChange(rps(a.s.runs), rps(a.b.runs), rps(b.s.runs), rps(b.b.runs)) : null
      return [{ text: `${claim.subject} / ${claim.baseline} ${times(claim.ratio)} -> ${times(other.ratio)}${change ? `, ${formatP(change)}` : ''}`, p: change?.p ?? NaN }]
    })
    // the outcome can flip on a ratio that moved within the noise (significant on one version only): say so
    const noise = moved.length > 0 && moved.every((m) => !(m.p < ALPHA)) ? `; the change itself is not significant (p >= ${ALPHA}): more runs would tell` : ''
    const where = byVersion.map((v) => `${holds(v.comparison) === 'reproduces' ? 'holds' : holds(v.comparison) === 'partly' ? 'partly holds' : 'does not hold'} on ${v.node}`)
    return {
      experiment,
      seed: article.seed,
      changed: true,
      line: `${head}: changed between ${byVersion[0].node} and ${to.node} (${moved.map((m) => m.text).join('; ') || 'the claims\' outcomes differ'}): the article's conclusion ${where.join(', ')}${noise}`
    }
  })
}

/**
 * The tables of one experiment across versions (lib/report/tables.js's Table shape): req/s per version
 * with the ratio to the baseline version, then its comparisons per version with how far each moved.
 * @param {VersionsModel} model
 * @param {string} name  the experiment
 * @returns {import('./tables.js').Table[]}
 */
export function versionTables (model, name) {
  const { summary } = model
  const e = summary.experiments.find((x) => x.name === name)
  if (!e) return []
  const [base, ...others] = summary.nodes.map((n) => n.name)
  /** @type {import('./tables.js').Table[]} */
  const tables = []
  const perVersion = {
    title: `${name}: requests per second by Node.js version (${base} is the baseline)`,
    columns: ['Configuration', ...summary.nodes.flatMap((n) => [`${n.name} req/s`, `${n.name} 95% CI`]), ...others.map((o) => `${o} / ${base}`)],
    align: /** @type {import('./tables.js').Table['align']} */ (['left', ...summary.nodes.flatMap(() => /** @type {const} */ (['right', 'right'])), ...others.map(() => /** @type {const} */ ('right'))]),
    rows: e.rows.map((r) => [
      r.label,
      ...r.byVersion.flatMap(({ row }) => row.runs.length ? [row.figures.requestsPerSecond.mean.toFixed(2), formatRateInterval(row, 2)] : ['n/a', '']),
      ...r.vsBaseline.map(({ ratio, interval, test }) => ratioCell(ratio, interval, test))
    ])
  }
  tables.push(perVersion)
  if (e.comparisons.length) {
    tables.push({
      title: `${name}: each comparison by Node.js version (req/s ratio, 95% CI)`,
      columns: ['Comparison', ...summary.nodes.map((n) => n.name), ...others.map((o) => `change ${base} -> ${o}`)],
      align: /** @type {import('./tables.js').Table['align']} */ (['left', ...summary.nodes.map(() => /** @type {const} */ ('right')), ...others.map(() => /** @type {const} */ ('right'))]),
      rows: e.comparisons.map((c) => [
        `${c.label} / ${c.baseline}`,
        ...c.byVersion.map(({ comparison }) => comparison ? ratioCell(comparison.ratio, comparison.interval, comparison.test) : 'n/a'),
        ...c.changes.map(({ change }) => changeCell(change))
      ])
    })
  }
  return tables
}

/**
 * "1.08x (0.81x..1.40x), p = 0.41": the ratio of the means, the log-scale 95% CI; without an interval
 * (fewer than 3 runs) the ratio and p alone.
 * @param {number} ratio
 * @param {import('../analysis/stats.js').RatioInterval} ci
 * @param {import('../analysis/stats.js').WelchResult} test
 */
function ratioCell (ratio, ci, test) {
  if (!Number.isFinite(ratio)) return 'n/a'
  return `${times(ratio)}${interval(ci)}, ${formatP(test)}`
}

/**
 * " (0.81x..1.40x)", or '' without an interval.
 * @param {{ low: number, high: number }} i
 */
function interval ({ low, high }) {
  return Number.isFinite(low) && Number.isFinite(high) ? ` (${times(low)}..${times(high)})` : ''
}

/**
 * "x1.64 (1.21x..2.22x), p = 0.00121 **": how far a comparison's ratio moved from the baseline version
 * to another (ratioChange: the ratio of the two ratios, on the geometric means).
 * @param {import('../analysis/stats.js').RatioChange} change
 */
function changeCell (change) {
  if (!Number.isFinite(change.change)) return 'n/a'
  return `x${change.change.toFixed(2)}${interval(change)}, ${formatP(change)}`
}

/**
 * The binaries, one line each: "20: Node 20.20.2 (V8 11.3.244.8, libuv 1.46.0, OpenSSL 3.0.19) /usr/bin/node".
 * @param {VersionsModel} model
 * @returns {string[]}
 */
export function binaryLines (model) {
  return model.summary.nodes.map((n, i) => `${n.name}: Node ${n.versions.node} (V8 ${n.versions.v8}, libuv ${n.versions.uv}, OpenSSL ${n.versions.openssl})${i === 0 ? ', the baseline' : ''}: ${n.path}`)
}

/** What the tables of the experiments show under --node: the baseline version's runs. */
export const BASELINE_NOTE = 'The tables above are the baseline version\'s runs; every version side by side follows.'
