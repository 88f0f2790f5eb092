// report.html: one self-contained file (inline CSS and SVG, no script, no external request, a CSP that
// forbids any) with the machine, the seeds' tables, the charts and every run's details. Readable on a
// phone: the charts scale to the width, wide tables scroll inside their own box (at 1280 px none needs
// to: headers and text cells wrap, numbers never do). It opens with the answer in a few sentences.
import { loopSections, loopSectionsOfRuns, loopTable, routeTable, loopNote, ROUTE_NOTE } from './event-loop.js'
import { drawFlame, FLAME_CSS, FLAME_SCRIPT, FLAME_SCRIPT_SOURCE } from './flame.js'
import { summariesOf } from './model.js'
import { describeRuns, describeTransports, commandOf } from './phrases.js'
import { experimentTables } from './tables.js'
import { experimentsOf, slug } from './chart-data.js'
import { formatBytes, MIB } from '../format.js'
import { formatAbReport } from '../ab/ab-report.js'
import { escapeXml as esc } from './svg.js'
import { invalidReason } from '../analysis/summarize.js'
import { samplesFor } from '../analysis/latency.js'
import { articleTable, REPRODUCE_RULE } from './articles.js'
import { versionsOf, versionTables, binaryLines, BASELINE_NOTE } from './version-report.js'
import { redactArgv } from '../redact.js'

// A table header breaks between its words only (th's overflow-wrap): body's overflow-wrap:anywhere, which
// keeps long paths in prose from widening the page, would break a narrow column's header inside a word.
const CSS = `
:root{--ink:#1b1e23;--muted:#5b6270;--line:#d9dde3;--soft:#f4f6f8;--accent:#1f77b4}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:#fff;overflow-wrap:anywhere}
main{max-width:62rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;margin:2.5rem 0 .5rem;padding-top:.5rem;border-top:2px solid var(--line)}
h3{font-size:1.05rem;margin:1.5rem 0 .5rem}
p,li{max-width:48rem}.muted{color:var(--muted)}
.verdict{background:var(--soft);border-left:4px solid var(--accent);padding:.5rem .75rem;font-weight:600}
nav ol{padding-left:1.25rem;margin:.25rem 0}
dl.env{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}dl.env dt{color:var(--muted)}dl.env dd{margin:0}
.scroll{overflow-x:auto;max-width:100%;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;font-size:.85rem;font-variant-numeric:tabular-nums;margin:.25rem 0 1rem}
caption{text-align:left;font-weight:600;padding:.25rem 0;caption-side:top}
th,td{padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);text-align:left;font-weight:600;line-height:1.25;vertical-align:bottom;overflow-wrap:normal}td.r,th.r{text-align:right}
td.r{white-space:nowrap}td{min-width:4.5rem}td:first-child{overflow-wrap:normal}
.answer{background:var(--soft);border-left:4px solid var(--accent);padding:.25rem 1rem .5rem;margin-top:1rem}
.answer h2{border:0;margin-top:.5rem}.answer li{margin:.2rem 0}
.reproduce{background:var(--soft);border-left:4px solid var(--muted);padding:.5rem .75rem}.rule{font-size:.85rem;color:var(--muted)}
figure{margin:1.25rem 0;border:1px solid var(--line);border-radius:6px;padding:.25rem;background:#fff}
figure svg{display:block;width:100%;height:auto}.chart-narrow{display:none}
figcaption{font-size:.8rem;color:var(--muted);padding:.25rem .5rem}
details{margin:.35rem 0}details details{margin-left:1rem}summary{cursor:pointer}
pre{font-size:.75rem;line-height:1.35;background:var(--soft);padding:.5rem;overflow-x:auto;max-width:100%}
.error{color:#b42318;font-weight:600}.partial{color:#b54708;font-weight:600}
@media (max-width:40rem){main{padding:.6rem}h1{font-size:1.3rem}figure{margin:1rem -.3rem;padding:0}
figure svg.chart-wide{display:none}figure svg.chart-narrow{display:block}}
`

/** @typedef {import('../types.js').ResultsFile} ResultsFile */
/** @typedef {import('../types.js').RunRecord} RunRecord */
/** @typedef {import('../types.js').LoadResult} LoadResult */
/** @typedef {{ spec: import('./svg.js').ChartSpec, svg: string, narrowSvg?: string, png?: string }} RenderedChart */

/**
 * @param {ResultsFile} results
 * @param {RenderedChart[]} charts
 *        svg: the wide layout; narrowSvg: the phone layout; png: path relative to report.html
 * @param {import('./model.js').ReportSummary[]|null} [summaries]  summarizeResults(results), when the
 *        caller has them; null: no tables
 * @param {Map<string, import('./flame.js').FlameNode>} [flames]  the profiled configurations' call trees, by
 *        `${experiment}\0${label}` (lib/report/flame.js flameTrees)
 * @returns {string}
 */
export function renderHtml (results, charts, summaries = summariesOf(results), flames = new Map()) {
  const groups = experimentsOf(results)
  const articles = summaries ? summaries.flatMap((s) => s.articles) : []
  const body = [
    `<header><h1>syncbench report</h1><p class="muted">${esc(headline(results))}</p></header>`,
    answerSection(results, groups.length, summaries, articles),
    `<nav aria-label="Contents"><ol>${['<li><a href="#environment">Environment</a></li>',
      ...groups.map(({ experiment }) => `<li><a href="#${anchor(experiment.name)}">${esc(experiment.title || experiment.name)}</a></li>`),
      ...versionsOf(results) ? ['<li><a href="#node-versions">Node.js versions</a></li>'] : []].join('')}</ol></nav>`,
    environmentSection(results)
  ]
  for (const { experiment, runs } of groups) {
    const summary = summaries?.find((s) => s.name === experiment.name)
    body.push(experimentSection(experiment, runs, summary, charts.filter((c) => c.spec.experiment === experiment.name && c.spec.kind !== 'versions'), flames))
  }
  const versions = versionsOf(results)
  if (versions) body.push(versionsSection(results, versions, charts.filter((c) => c.spec.kind === 'versions')))
  // The one script a report can hold: a flame graph's search, allowed by its hash and nothing else.
  const flame = body.some((part) => part.includes('<figure class="flame"'))
  body.push(`<footer><p class="muted">Generated by syncbench ${esc(results.syncbench ?? '')} from results.json. ` +
    'Charts are inline SVG; the same charts are in charts/*.png.</p></footer>')
  return htmlPage(`syncbench report ${results.createdAt ?? ''}`, body, flame ? { css: FLAME_CSS, script: FLAME_SCRIPT, scriptSource: FLAME_SCRIPT_SOURCE } : {})
}

/**
 * The page every syncbench HTML report is (run's report.html, compare's): its head, styles and security
 * policy around the sections given.
 * @param {string} title  the page's title, plain text
 * @param {string[]} sections  HTML, in order
 * @param {{ css?: string, script?: string, scriptSource?: string }} [extra]  a script allowed by its
 *        hash (scriptSource, the CSP's source expression) and the styles it needs
 * @returns {string}
 */
export function htmlPage (title, sections, { css = '', script, scriptSource } = {}) {
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    // no script, no fetch: a report opened from disk or a mail attachment makes no request at all
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:${scriptSource ? `; script-src ${scriptSource}` : ''}">` +
    `<title>${esc(title)}</title><style>${CSS}${css}</style></head>\n` +
    `<body><main>\n${sections.join('\n')}\n</main>${script ? `<script>${script}</script>` : ''}</body></html>\n`
}

/**
 * A chart in its figure: the wide layout and the phone's, and the PNG's link when there is one.
 * @param {RenderedChart} chart
 */
export function figureHtml ({ spec, svg, narrowSvg, png }) {
  return `<figure id="chart-${spec.id}">${svg}${narrowSvg ?? ''}` +
    (png ? `<figcaption><a href="${esc(png)}">${esc(png)}</a></figcaption>` : '') + '</figure>'
}

/**
 * The functions a flame graph draws as blocking: those "where the event loop went" names with 5% of the
 * blocking time or more, a call's leaf and its caller (syncbench's own frames and Node's, named by module,
 * are no function of the graph).
 * @param {import('../analysis/summarize.js').ConfigurationProfile} profile
 * @returns {Pick<import('../types.js').ProfileEntry, 'name'|'location'>[]}
 */
function blockingFunctions (profile) {
  const blocking = profile.blocking
  if (!blocking || blocking.ms <= 0) return []
  return blocking.self.filter((e) => e.ms >= 0.05 * blocking.ms && e.name !== 'syncbench' && e.name !== 'Node.js internals')
    .flatMap((e) => e.caller ? [e, e.caller] : [e])
}

/**
 * The run's line: its command starred again, for a results.json written before syncbench starred it.
 * @param {ResultsFile} r
 */
function headline (r) {
  const state = r.finishedAt ? `finished ${r.finishedAt}` : 'did not finish (partial results)'
  return `Started ${r.createdAt}, ${state}. ${r.runs.length} runs. Command: ${[`syncbench ${commandOf(r)}`, ...redactArgv(r.argv ?? [])].join(' ')}`
}

/**
 * The answer in a few sentences, before any table: what was measured, whether each seed article's
 * conclusion reproduces here, and every experiment's verdict, linked to its section.
 * @param {ResultsFile} r
 * @param {number} experiments  how many experiments have runs
 * @param {import('./model.js').ReportSummary[]|null} summaries
 * @param {import('./articles.js').ArticleComparison[]} articles
 */
function answerSection (r, experiments, summaries, articles) {
  const e = /** @type {Partial<import('../types.js').Environment>} */ (r.environment ?? {})
  const runs = describeRuns(r)
  // with --target syncbench started no server: say where it measured
  const target = summaries?.find((s) => s.target)?.target
  const where = target ? `against --target ${esc(target)}` : 'each against a fresh server process'
  const out = ['<section id="answer" class="answer"><h2>The answer</h2>',
    `<p>syncbench measured ${experiments} experiment${experiments === 1 ? '' : 's'} on this machine (${esc(e.cpuModel)}, ${esc(e.cpuCount)} usable cores, ` +
    `Node ${esc(e.node)}): ${esc(runs)} run${runs === '1' ? '' : 's'} per configuration, ${where}, measuring requests per second ` +
    '(with 95% confidence intervals where runs repeat), the latency of each request and the server\'s event loop, CPU and memory.' +
    `${r.finishedAt ? '' : ' <span class="partial">The run did not finish: these are partial results.</span>'}</p>`]
  if (r.runs?.some((run) => run.load?.openLoop || run.probe?.load)) out.push(coordinatedOmission())
  for (const a of articles) out.push(`<p>${esc(seedSentence(a))}</p>`)
  // under --node the sentences above are the baseline version's: each seed on every version
  for (const v of versionsOf(r)?.verdicts ?? []) out.push(`<p><a href="#node-versions">${esc(v.line)}</a></p>`)
  if (summaries?.length) {
    out.push('<p>The verdict of each experiment:</p><ul>' +
      summaries.map((s) => {
        // the verdict starts with the experiment's name: that name links to its section
        const rest = s.verdict.startsWith(s.name) ? s.verdict.slice(s.name.length) : `: ${s.verdict}`
        return `<li><a href="#${anchor(s.name)}">${esc(s.name)}</a>${esc(rest)}</li>`
      }).join('') + '</ul>')
  }
  out.push('</section>')
  return out.join('\n')
}

/** wrk2's README: where the correction for coordinated omission is explained by its author. */
export const WRK2_README = 'https://github.com/giltene/wrk2'

/**
 * Coordinated omission in two sentences, for a report with open-loop figures (a rate, the probe).
 */
function coordinatedOmission () {
  return '<p><strong>Coordinated omission.</strong> A closed-loop client (ab, -c connections each waiting for its answer) ' +
    'stops asking while the server stalls, so the requests real users would have sent during the stall never happen and never ' +
    'show in its percentiles. The open-loop figures here (a request rate, the probe) send on a fixed schedule and measure each ' +
    'request from the moment it was due, as ' +
    `<a href="${WRK2_README}">wrk2 does (its README explains the correction)</a>, so a stall counts for every request that waited through it.</p>`
}

/**
 * 'Seed 001 (Jino Antony, 2020, "Async vs Sync NodeJs: A Simple Benchmark") reproduces here: async mode
 * performs better than sync mode (2.02x here, 2.29x in the article).' A claim that does not hold says why.
 * @param {import('./articles.js').ArticleComparison} c
 */
function seedSentence ({ article, outcome, claims }) {
  const verb = outcome === 'reproduces' ? 'reproduces here' : outcome === 'partly' ? 'partly reproduces here' : 'does not reproduce here'
  const parts = claims.map((c) => {
    const here = Number.isFinite(c.ratio) ? `${c.ratio.toFixed(2)}x here` : 'not measured here'
    return `${c.text} (${here}, ${c.articleRatio.toFixed(2)}x in the article)${c.reproduces ? '' : `, which does not hold here: ${c.why}`}`
  })
  return `Seed ${article.seed} (${article.author}, ${article.year}, "${article.title}") ${verb}: ${parts.join('; ')}.`
}

/** @param {ResultsFile} r */
function environmentSection (r) {
  // a results file whose runner died before it wrote the machine still renders, with "undefined"s
  const e = /** @type {Partial<import('../types.js').Environment>} */ (r.environment ?? {})
  /** @type {[string, string][]} */
  const rows = [
    ['Node.js', `${e.node} (V8 ${e.v8}, libuv ${e.uv})`],
    ['CPU', `${e.cpuModel}, ${e.cpuCount} usable cores`],
    ['Platform', `${e.platform} ${e.arch}`],
    ['Memory', e.totalMemoryBytes ? formatBytes(e.totalMemoryBytes) : '?'],
    ['UV_THREADPOOL_SIZE', e.uvThreadpoolSize ?? 'default (4)'],
    ['UV_USE_IO_URING', e.uvUseIoUring ?? 'default'],
    ['Runs per configuration', describeRuns(r)],
    ['Load engine', String(r.options?.engine ?? 'builtin')]
  ]
  const transports = describeTransports(r)
  if (transports !== null) rows.push(['Load transport', transports])
  return '<section id="environment"><h2>Environment</h2><dl class="env">' +
    rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('') + '</dl></section>'
}

/**
 * @param {import('./chart-data.js').ExperimentInfo} experiment
 * @param {RunRecord[]} runs
 * @param {import('./model.js').ReportSummary|undefined} summary
 * @param {RenderedChart[]} charts
 * @param {Map<string, import('./flame.js').FlameNode>} flames
 */
function experimentSection (experiment, runs, summary, charts, flames) {
  const out = [`<section id="${anchor(experiment.name)}"><h2>${esc(experiment.title || experiment.name)}</h2>`]
  if (experiment.description) out.push(`<p class="muted">${esc(experiment.description)}</p>`)
  if (summary?.verdict) out.push(`<p class="verdict">${esc(summary.verdict)}</p>`)
  if (summary?.rounds) out.push(`<p class="rule">${esc(summary.rounds)}.</p>`)
  if (summary) for (const t of experimentTables(summary)) out.push(tableHtml(t))
  const loops = summary ? loopSections(summary) : loopSectionsOfRuns(experiment.name, experiment.labels ?? [], runs)
  if (loops.length) {
    out.push(`<h3 id="${anchor(experiment.name)}-event-loop">Where the event loop went</h3>`)
    for (const [i, section] of loops.entries()) {
      const routes = routeTable(section)
      if (routes) out.push(tableHtml(routes))
      out.push(tableHtml(loopTable(section)))
      const tree = flames.get(`${experiment.name}\0${section.label}`)
      if (tree) out.push(drawFlame(tree, { id: `${anchor(experiment.name)}-flame-${i + 1}`, title: `${section.label}: flame graph of the main thread's busy time`, blocking: blockingFunctions(section.profile) }))
    }
    out.push(`<p class="rule">${esc(loopNote(loops))}${loops.some((s) => s.profile.routes) ? ` ${esc(ROUTE_NOTE)}` : ''}</p>`)
  }
  for (const seed of summary?.articles ?? []) {
    out.push(tableHtml(articleTable(seed), 'article'), `<p class="reproduce">${esc(seed.line)}</p>`, `<p class="rule">${esc(REPRODUCE_RULE)}</p>`)
  }
  for (const chart of charts) out.push(figureHtml(chart))
  out.push(`<h3>Runs</h3>${runsTable(runs)}`)
  out.push(`<details><summary>Each run's ab report and server metrics</summary>${runs.map(runDetails).join('')}</details>`)
  out.push('</section>')
  return out.join('\n')
}

/**
 * Under --node: the binaries, each experiment's tables across versions and its chart, the seeds'
 * verdicts, and the runs of the versions after the baseline (the experiments' sections hold the baseline's).
 * @param {ResultsFile} results
 * @param {import('./version-report.js').VersionsModel} versions
 * @param {RenderedChart[]} charts
 */
function versionsSection (results, versions, charts) {
  const out = ['<section id="node-versions"><h2>Node.js versions</h2>', `<p class="muted">${esc(BASELINE_NOTE)}</p>`,
    `<ul>${binaryLines(versions).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`]
  for (const v of versions.verdicts) out.push(`<p class="reproduce">${esc(v.line)}</p>`)
  for (const e of versions.summary.experiments) for (const t of versionTables(versions, e.name)) out.push(tableHtml(t))
  for (const chart of charts) out.push(figureHtml(chart))
  const base = versions.summary.nodes[0].name
  out.push(`<h3>Runs on the other versions</h3>${runsTable(results.runs.filter((r) => r.node && r.node.name !== base))}`)
  out.push('</section>')
  return out.join('\n')
}

/**
 * @param {import('./tables.js').Table} t
 * @param {string} [className]  the table's class
 */
export function tableHtml (t, className) {
  if (t.columns.length === 0) return `<p class="muted">${esc(t.title)}</p>`
  const cls = (/** @type {number} */ i) => t.align?.[i] === 'right' ? ' class="r"' : ''
  return `<div class="scroll"><table${className ? ` class="${esc(className)}"` : ''}><caption>${esc(t.title)}</caption><thead><tr>` +
    t.columns.map((c, i) => `<th${cls(i)}>${esc(c)}</th>`).join('') + '</tr></thead><tbody>' +
    t.rows.map((r) => '<tr>' + t.columns.map((_, i) => `<td${cls(i)}>${esc(r[i] ?? '')}</td>`).join('') + '</tr>').join('') +
    '</tbody></table></div>'
}

/**
 * The runs table: a column's title and its cell (null or undefined: empty).
 * @type {[string, (r: RunRecord) => string|null|undefined][]}
 */
const RUN_COLUMNS = [
  ['Run', (r) => isPartial(r) ? `${r.id} (partial)` : invalidReason(r) !== null ? `${r.id} (invalid: ${invalidReason(r)})` : r.id],
  ['Req/s', (r) => r.load && r.load.requestsPerSecond.toFixed(2)],
  ['Time/req ms', (r) => r.load && r.load.timePerRequestMs.toFixed(1)],
  ['p50 ms', (r) => r.load && r.load.latency.p50.toFixed(1)],
  // with fewer than 100 requests a run's p99 is its slowest request (lib/analysis/latency.js): say so
  ['p99 ms', (r) => r.load && `${r.load.latency.p99.toFixed(1)}${r.load.completeRequests < samplesFor(99) ? ' (max)' : ''}`],
  ['max ms', (r) => r.load && r.load.latency.max.toFixed(1)],
  ['Failed', (r) => r.load && String(r.load.failedRequests)],
  ['Loop p99 ms', (r) => r.server && r.server.eventLoopDelay.p99.toFixed(1)],
  ['CPU %', (r) => r.server && r.server.cpu.percent.toFixed(0)],
  ['Peak RSS MiB', (r) => r.server && (r.server.memory.peakRssBytes / MIB).toFixed(1)],
  ['Threads', (r) => r.server && String(r.server.threads)]
]

/** @param {RunRecord[]} runs */
function runsTable (runs) {
  return tableHtml({
    title: `${runs.length} run${runs.length === 1 ? '' : 's'}`,
    columns: RUN_COLUMNS.map(([c]) => c),
    align: RUN_COLUMNS.map((_, i) => i === 0 ? /** @type {const} */ ('left') : 'right'),
    rows: runs.map((r) => RUN_COLUMNS.map(([, f], i) => i > 0 && r.error ? (i === 1 ? 'failed' : '') : (f(r) ?? '')))
  })
}

/** @param {import('../types.js').RunRecord} r */
function runDetails (r) {
  const invalid = invalidReason(r)
  const mark = r.error ? ' <span class="error">failed</span>' : isPartial(r) ? ' <span class="partial">partial</span>' : invalid !== null ? ` <span class="error">invalid: ${esc(invalid)}</span>` : ''
  const parts = [`<details><summary>${esc(r.id)}${mark}</summary>`]
  parts.push(`<p class="muted">${esc(Object.entries(r.config ?? {}).map(([k, v]) => `${k}=${v}`).join(' · '))} · engine ${esc(r.engine)} · started ${esc(r.startedAt)}</p>`)
  if (r.error) parts.push(`<p class="error">${esc(r.error.code)}: ${esc(r.error.message)}</p>`)
  if (r.load && isPartial(r)) {
    const of = r.load.options?.requests ? ` of ${r.load.options.requests}` : ''
    parts.push(`<p class="partial">Interrupted after ${esc(r.load.completeRequests)}${esc(of)} requests: a partial run, left out of the tables, verdicts and charts.</p>`)
  }
  if (invalid !== null) parts.push(`<p class="error">Invalid: ${esc(invalid)}. Left out of the tables, verdicts, ratios and charts (syncbench run --allow-errors counts such runs).</p>`)
  if (r.load) parts.push(`<pre>${esc(abReportOrJson(r.load).replace(/^\n+/, ''))}</pre>`)
  if (r.server) {
    const s = r.server
    parts.push(`<pre>${esc([
      `Server window:          ${s.windowMs.toFixed(0)} ms, ${s.requests} requests`,
      `Event-loop delay (ms):  p50 ${s.eventLoopDelay.p50.toFixed(2)}, p99 ${s.eventLoopDelay.p99.toFixed(2)}, max ${s.eventLoopDelay.max.toFixed(2)}`,
      `Event-loop utilization: ${s.elu.toFixed(2)}`,
      `CPU:                    ${s.cpu.percent.toFixed(0)}% of one core (user ${s.cpu.userMs.toFixed(0)} ms, system ${s.cpu.systemMs.toFixed(0)} ms)`,
      `Memory:                 peak RSS ${formatBytes(s.memory.peakRssBytes)}, heap used ${formatBytes(s.memory.heapUsedBytes)}`,
      `Threads:                ${s.threads}`
    ].join('\n'))}</pre>`)
  }
  parts.push('</details>')
  return parts.join('')
}

/**
 * Interrupted mid-measurement (Ctrl-C): its load result covers part of the requests (not isMeasured).
 * @param {RunRecord} r
 */
function isPartial (r) {
  return !r.error && Boolean(r.load?.aborted)
}

/** @param {unknown} v */
const isObject = (v) => v !== null && typeof v === 'object'

/**
 * A run's ab report, or its load result as JSON when the result lacks a part ab's report reads (a
 * hand-edited file): the details of that run stay readable. A result that has them all and still
 * fails to format is a bug and surfaces.
 * @param {LoadResult} load
 */
function abReportOrJson (load) {
  const times = /** @type {Partial<LoadResult['connectionTimes']>} */ (isObject(load.connectionTimes) ? load.connectionTimes : {})
  const complete = isObject(load.server) && isObject(load.document) && isObject(load.failures) && isObject(load.percentiles) &&
    isObject(times.connect) && isObject(times.processing) && isObject(times.waiting) && isObject(times.total)
  return complete ? formatAbReport(load) : JSON.stringify(load, null, 2)
}

/** @param {string} s */
function anchor (s) {
  // the charts' one-to-one ids: two experiments never share a section id
  return slug(s)
}
