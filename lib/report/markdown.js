// summary.md: the run's tables as markdown pipe tables, with the verdicts and the machine, ready to
// paste into a blog post. The tables are lib/report/tables.js's, so terminal and markdown never differ.
import { loopSections, loopTable, routeTable, loopNote, ROUTE_NOTE } from './event-loop.js'
import { experimentTables } from './tables.js'
import { describeRuns, describeTransports, measuredAt } from './phrases.js'
import { articleTable, REPRODUCE_RULE } from './articles.js'
import { versionsOf, versionTables, binaryLines, BASELINE_NOTE } from './version-report.js'

/**
 * Text from a results file as markdown text, never markup: CommonMark reads "<" before a letter, "/",
 * "!" or "?" as raw HTML and "&name;" as an entity, so those are escaped; "p < 0.05" stays as it is.
 * @param {unknown} text
 * @returns {string}
 */
export function mdText (text) {
  return String(text ?? '').replace(/&(?=#?[0-9A-Za-z]+;)/g, '&amp;').replace(/<(?=[A-Za-z/!?])/g, '&lt;')
}

/**
 * @param {import('./tables.js').Table} table
 * @returns {string}
 */
export function renderMarkdownTable (table) {
  if (table.columns.length === 0) return ''
  const esc = (/** @type {string|undefined} */ cell) => mdText(cell).replace(/\|/g, '\\|')
  const head = `| ${table.columns.map(esc).join(' | ')} |`
  const rule = `|${table.align.map((a) => a === 'right' ? '---:' : ':---').join('|')}|`
  const rows = table.rows.map((r) => `| ${table.columns.map((_, i) => esc(r[i])).join(' | ')} |`)
  return [head, rule, ...rows].join('\n') + '\n'
}

/** ' (transport native)', or nothing when the runs recorded none. @param {import('../types.js').ResultsFile} results */
function transportText (results) {
  const t = describeTransports(results)
  return t === null ? '' : ` (transport ${t})`
}

/**
 * @param {import('../types.js').ResultsFile} results
 * @param {import('./model.js').ReportSummary[]} summaries
 * @returns {string}
 */
export function renderSummaryMarkdown (results, summaries) {
  const env = results.environment
  const out = ['# syncbench results', '']
  out.push(mdText(`Node ${env.node} (V8 ${env.v8}, libuv ${env.uv}) on ${env.cpuModel}, ${env.cpuCount} usable cores, ${env.platform}/${env.arch}; ` +
    `UV_THREADPOOL_SIZE ${env.uvThreadpoolSize ?? 'default (4)'}; syncbench ${results.syncbench}, engine ${results.options?.engine ?? 'builtin'}${transportText(results)}, ` +
    `${describeRuns(results)} run(s) per configuration; ${results.createdAt}${results.finishedAt ? '' : ' (interrupted: partial results)'}.`), '')
  for (const s of summaries) {
    const tables = experimentTables(s)
    if (tables.length === 0) continue
    out.push(`## ${mdText(s.title)}`, '', `\`${s.name}\`${s.description ? `: ${mdText(s.description)}` : ''}`, '')
    if (s.target) out.push(`Measured ${mdText(measuredAt(s))}.`, '')
    if (s.rounds) out.push(`${mdText(s.rounds)}.`, '')
    // The heading already names the comparison table; the server table gets its caption.
    for (const [i, t] of tables.entries()) out.push(...(i === 0 ? [] : [`**${mdText(t.title)}**`, '']), renderMarkdownTable(t))
    out.push(`> ${mdText(s.verdict)}`, '')
    const loops = loopSections(s)
    if (loops.length) {
      out.push('### Where the event loop went', '')
      for (const section of loops) {
        for (const t of [routeTable(section), loopTable(section)]) if (t) out.push(`**${mdText(t.title)}**`, '', renderMarkdownTable(t))
      }
      out.push(`_${mdText(loopNote(loops))}${loops.some((l) => l.profile.routes) ? ` ${mdText(ROUTE_NOTE)}` : ''}_`, '')
    }
    // the seed article this experiment reproduces: its figures beside these, and whether it holds here
    for (const seed of s.articles) {
      const t = articleTable(seed)
      out.push(`**${mdText(t.title)}**`, '', renderMarkdownTable(t), `> ${mdText(seed.line)}`, '')
    }
  }
  if (summaries.some((s) => s.articles.length)) out.push(`_${mdText(REPRODUCE_RULE)}_`, '')
  const versions = versionsOf(results)
  if (versions) out.push(...versionsMarkdown(versions))
  return out.join('\n')
}

/**
 * The versions section of summary.md (run --node): the binaries, each experiment's tables across
 * versions, the seeds' verdicts.
 * @param {import('./version-report.js').VersionsModel} versions
 * @returns {string[]}
 */
function versionsMarkdown (versions) {
  const out = ['## Node.js versions', '', mdText(BASELINE_NOTE), '', ...binaryLines(versions).map((l) => `- ${mdText(l)}`), '']
  for (const e of versions.summary.experiments) {
    for (const t of versionTables(versions, e.name)) out.push(`**${mdText(t.title)}**`, '', renderMarkdownTable(t))
  }
  for (const v of versions.verdicts) out.push(`> ${mdText(v.line)}`, '')
  return out
}
