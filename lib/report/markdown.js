// summary.md: the run's tables as markdown pipe tables, with the verdicts and the machine, ready to
// paste into a blog post. The tables are lib/report/tables.js's, so terminal and markdown never differ.
import { experimentTables, measuredAt } from './tables.js'
import { describeRuns } from './verdicts.js'
import { compareWithArticles, articleTable, REPRODUCE_RULE } from './articles.js'

/**
 * @param {import('./tables.js').Table} table
 * @returns {string}
 */
export function renderMarkdownTable (table) {
  if (table.columns.length === 0) return ''
  const esc = (/** @type {string|undefined} */ cell) => String(cell ?? '').replace(/\|/g, '\\|')
  const head = `| ${table.columns.map(esc).join(' | ')} |`
  const rule = `|${table.align.map((a) => a === 'right' ? '---:' : ':---').join('|')}|`
  const rows = table.rows.map((r) => `| ${table.columns.map((_, i) => esc(r[i])).join(' | ')} |`)
  return [head, rule, ...rows].join('\n') + '\n'
}

/**
 * @param {import('../types.js').ResultsFile} results
 * @param {import('./verdicts.js').ReportSummary[]} summaries
 * @returns {string}
 */
export function renderSummaryMarkdown (results, summaries) {
  const env = results.environment
  const out = ['# syncbench results', '']
  out.push(`Node ${env.node} (V8 ${env.v8}, libuv ${env.uv}) on ${env.cpuModel}, ${env.cpuCount} usable cores, ${env.platform}/${env.arch}; ` +
    `UV_THREADPOOL_SIZE ${env.uvThreadpoolSize ?? 'default (4)'}; syncbench ${results.syncbench}, engine ${results.options?.engine ?? 'builtin'}, ` +
    `${describeRuns(results)} run(s) per configuration; ${results.createdAt}${results.finishedAt ? '' : ' (interrupted: partial results)'}.`, '')
  const articles = compareWithArticles(results, summaries)
  for (const s of summaries) {
    const tables = experimentTables(s)
    if (tables.length === 0) continue
    out.push(`## ${s.title}`, '', `\`${s.name}\`${s.description ? `: ${s.description}` : ''}`, '')
    if (s.target) out.push(`Measured ${measuredAt(s)}.`, '')
    // The heading already names the comparison table; the server table gets its caption.
    for (const [i, t] of tables.entries()) out.push(...(i === 0 ? [] : [`**${t.title}**`, '']), renderMarkdownTable(t))
    out.push(`> ${s.verdict}`, '')
    // the seed article this experiment reproduces: its figures beside these, and whether it holds here
    for (const seed of articles.filter((a) => a.experiment === s.name)) {
      const t = articleTable(seed)
      out.push(`**${t.title}**`, '', renderMarkdownTable(t), `> ${seed.line}`, '')
    }
  }
  if (articles.length) out.push(`_${REPRODUCE_RULE}_`, '')
  return out.join('\n')
}
