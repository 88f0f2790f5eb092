// The dashboard's page and its script (lib/cli/dashboard.js serves both). The script runs in the
// browser: it reads the state the server pushes over Server-Sent Events (then, while a load runs, ticks
// with only the new seconds, appended to it) and redraws the page from it,
// the charts with Observable Plot and the report's own marks (lib/report/chart-timeseries-plot.js).
// Readable at 390 px: the charts take the width they are given and switch to the report's narrow
// layout below 500 px, the table of runs scrolls in its own box.

const CSS = `
:root{--ink:#1b1e23;--muted:#5b6270;--line:#d9dde3;--soft:#f4f6f8;--accent:#1f77b4;--bad:#b42318;--ok:#067647}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:#fff;overflow-wrap:anywhere}
main{max-width:62rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.25rem 0}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}
#status{background:var(--soft);border-left:4px solid var(--accent);padding:.5rem .75rem;font-weight:600}
#status.ended{border-left-color:var(--ok)}#status.interrupted{border-left-color:var(--bad)}
.bar{height:.5rem;background:var(--soft);border-radius:.25rem;overflow:hidden;margin:.5rem 0}
.bar>div{height:100%;background:var(--accent);width:0}
dl.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(8.5rem,1fr));gap:.5rem;margin:.5rem 0}
dl.figures div{background:var(--soft);padding:.35rem .5rem;border-radius:4px}
dl.figures dt{font-size:.75rem;color:var(--muted)}dl.figures dd{margin:0;font-size:1.1rem;font-variant-numeric:tabular-nums}
figure{margin:.75rem 0;border:1px solid var(--line);border-radius:6px;padding:.25rem;background:#fff;min-height:2rem}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.8rem;color:var(--muted);padding:.25rem .5rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.85rem;font-variant-numeric:tabular-nums;width:100%}
th,td{padding:.25rem .45rem;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td.r,th.r{text-align:right}
tr.running td{background:#eaf2fb;font-weight:600}tr.failed td,tr.invalid td,tr.interrupted td{color:var(--bad)}
.verdict{background:var(--soft);border-left:4px solid var(--accent);padding:.4rem .75rem;margin:.4rem 0}
.experiment h3{font-size:1rem;margin:.9rem 0 .2rem}.experiment p{margin:.2rem 0}.experiment .verdict p{margin:0}
@media (max-width:40rem){main{padding:.5rem}h1{font-size:1.15rem}figure{margin:.5rem -.25rem;padding:0}}
`

/**
 * The page: the structure the script fills; no data of its own (the first push brings the state).
 * @param {string} token
 * @returns {string}
 */
export function dashboardPage (token) {
  const q = `?token=${encodeURIComponent(token)}`
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    // no favicon request (it would carry no token)
    '<link rel="icon" href="data:,">' +
    `<title>syncbench live</title><style>${CSS}</style>` +
    `<script src="/d3.js${q}" defer></script><script src="/plot.js${q}" defer></script>` +
    `<script type="module" src="/dashboard.js${q}"></script></head>\n<body><main>` +
    '<header><h1 id="title">syncbench live</h1><p class="muted">A live view of this run, read-only. The figures and charts update as it goes.</p></header>' +
    '<p id="status" role="status" aria-live="polite">Connecting…</p>' +
    '<div class="bar" aria-hidden="true"><div id="bar"></div></div>' +
    '<section id="end" hidden></section>' +
    '<section id="now"><h2>Running now</h2><p id="now-what" class="muted">Nothing is running.</p><dl class="figures" id="now-figures"></dl>' +
    '<figure id="now-chart" aria-label="the running run over time"><figcaption>Each second of the running run: throughput, p99 latency and, where the probe runs, what any other request waited.</figcaption></figure>' +
    '<figure id="now-server" aria-label="the running run\'s server over time" hidden><figcaption>The server under test each second of the running run: its event-loop delay (the largest), event-loop utilization, CPU and RSS, read live without touching its measurement window.</figcaption></figure></section>' +
    '<section id="experiments" hidden><h2>Experiments</h2><div id="experiment-list"></div></section>' +
    '<section id="last" hidden><h2 id="last-title">Last finished run</h2>' +
    '<figure id="last-chart" aria-label="the last finished run over time"><figcaption>The last finished run: the load each second above the server\'s event-loop delay, CPU and RSS.</figcaption></figure></section>' +
    '<section><h2>Runs</h2><div class="scroll"><table id="runs"><thead><tr><th class="r">#</th><th>experiment</th><th>configuration</th>' +
    '<th>state</th><th class="r">req/s</th><th class="r">p99 ms</th><th class="r">errors</th></tr></thead><tbody></tbody></table></div></section>' +
    '</main></body></html>\n'
}

/**
 * The page's script, an ES module. It imports the chart marks with the token (every request needs it).
 * Written for the browser: no Node API, nothing fetched but this server's event stream.
 * @param {string} token
 * @returns {string}
 */
export function dashboardScript (token) {
  const q = `?token=${encodeURIComponent(token)}`
  return `import { LOAD_PANELS, PROBE_PANEL, SERVER_PANELS, ELU_PANEL, timeSeriesRows, timeSeriesPlot } from ${JSON.stringify(`./chart-timeseries-plot.js${q}`)}\n` +
    `${CLIENT}\nstart(${JSON.stringify(q)})\n`
}

/** The client, after its import line: runs in the page. */
const CLIENT = String.raw`
const INK = '#1b1e23'
const COLOR = '#1f77b4'
const $ = (id) => document.getElementById(id)

function fmt (v, digits = 3) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–'
  return Number(v.toPrecision(digits)).toLocaleString('en-US')
}

function duration (ms) {
  const s = Math.max(0, Math.round(ms / 1000))
  const m = Math.floor(s / 60)
  const h = Math.floor(m / 60)
  const ss = String(s % 60).padStart(2, '0')
  return h ? h + ':' + String(m % 60).padStart(2, '0') + ':' + ss : m + ':' + ss
}

// seconds as pushed (one object each) -> a LoadSeries's parallel arrays
function seriesOf (seconds) {
  if (!seconds || seconds.length === 0) return null
  const pick = (k) => seconds.map((s) => s[k])
  return { intervalMs: 1000, t: pick('t'), requests: pick('requests'), errors: pick('errors'), p50Ms: pick('p50Ms'), p90Ms: pick('p90Ms'), p99Ms: pick('p99Ms'), maxMs: pick('maxMs') }
}

// the server's live reads -> a ServerMetricsSeries (t in ms), with their ELU beside it; a point at
// the start of the first read's interval too, so the step-before line draws that interval as it does the others
function serverSeriesOf (seconds) {
  if (!seconds || seconds.length === 0) return null
  const pick = (k) => [seconds[0][k], ...seconds.map((s) => s[k])]
  const t = [Math.max(0, seconds[0].t - seconds[0].intervalMs), ...seconds.map((s) => s.t)]
  return { intervalMs: 1000, t, loopDelayMaxMs: pick('loopDelayMaxMs'), cpuPercent: pick('cpuPercent'), rssBytes: pick('rssBytes'), elu: pick('elu') }
}

// loop delay, ELU, CPU, RSS: the report's server panels with the live reads' ELU second
const LIVE_SERVER_PANELS = [SERVER_PANELS[0], ELU_PANEL, ...SERVER_PANELS.slice(1)]

// the drawn figure's key: redraw only when its data or its width changed
const drawn = new Map()

function draw (figure, run, panels) {
  const rows = timeSeriesRows([run], panels).filter((r) => Number.isFinite(r.value))
  const width = Math.max(280, Math.floor(figure.clientWidth - 8))
  const key = width + ':' + rows.length + ':' + (rows.length ? rows[rows.length - 1].t + ':' + rows[rows.length - 1].value : '')
  if (drawn.get(figure.id) === key) return
  drawn.set(figure.id, key)
  figure.dataset.points = String(rows.length)
  const old = figure.querySelector('svg')
  if (rows.length === 0) { if (old) old.remove(); return }
  const used = panels.filter((p) => rows.some((r) => r.metric === p.metric))
  const svg = window.Plot.plot({ marginTop: 24, ...timeSeriesPlot(window.Plot, { rows, panels: used, color: () => COLOR, ink: INK }, width), style: { fontSize: '12px', color: INK, background: 'white' } })
  if (old) old.replaceWith(svg)
  else figure.prepend(svg)
}

function text (el, value) { if (el.textContent !== value) el.textContent = value }

function render (state) {
  text($('title'), state.title)
  const done = state.runs.filter((r) => r.state !== 'planned' && r.state !== 'running').length
  const total = state.plan ? state.plan.total : state.runs.length
  $('bar').style.width = (total ? Math.round(done / total * 100) : 0) + '%'
  const status = $('status')
  status.className = state.status === 'ended' ? (state.end && state.end.interrupted ? 'ended interrupted' : 'ended') : ''
  const c = state.current
  if (state.status === 'ended') {
    text(status, (state.end && state.end.interrupted ? 'Interrupted: ' : 'Finished: ') + done + ' of ' + total + ' runs. syncbench has ended; this page no longer updates.')
  } else if (c) {
    text(status, 'Run ' + c.index + ' of ' + total + ': ' + c.experiment + ' ' + c.label + ' #' + c.repeat + ', ' + (total - c.index) + ' left' + (c.etaMs === null ? '' : ', ETA ' + duration(c.etaMs)))
  } else {
    text(status, state.activity ? state.activity + '…' : (state.plan ? 'Between runs…' : 'Starting…'))
  }
  // the running run
  const figures = $('now-figures')
  if (c) {
    const last = c.load[c.load.length - 1]
    const probe = c.probe[c.probe.length - 1]
    const interval = last ? Math.max(0.001, last.t - (c.load.length > 1 ? c.load[c.load.length - 2].t : 0)) : 1
    text($('now-what'), c.experiment + ' · ' + c.label + ' · repeat ' + c.repeat + (c.requests ? ' · ' + fmt(c.done, 6) + ' of ' + fmt(c.requests, 6) + ' requests' : ''))
    const items = [
      ['req/s', last ? fmt(last.requests / interval) : '–'],
      ['p50 ms', last ? fmt(last.p50Ms) : '–'],
      ['p99 ms', last ? fmt(last.p99Ms) : '–'],
      ['errors/s', last ? fmt(last.errors / interval) : '–'],
      ['seconds', last ? fmt(last.t) : '0']
    ]
    if (probe) items.push(['probe wait p99 ms', fmt(probe.p99Ms)])
    const server = c.server[c.server.length - 1]
    if (server) {
      items.push(['loop delay max ms', fmt(server.loopDelayMaxMs)], ['ELU %', fmt(server.elu * 100)],
        ['server CPU %', fmt(server.cpuPercent)], ['RSS MiB', fmt(server.rssBytes / 1048576)])
    }
    figures.replaceChildren(...items.map(([k, v]) => {
      const div = document.createElement('div')
      const dt = document.createElement('dt')
      const dd = document.createElement('dd')
      dt.textContent = k
      dd.textContent = v
      div.append(dt, dd)
      return div
    }))
    const run = { label: c.label, config: {}, load: { series: seriesOf(c.load) }, probe: { load: { series: seriesOf(c.probe) } } }
    draw($('now-chart'), run, [...LOAD_PANELS, PROBE_PANEL])
    $('now-server').hidden = c.server.length === 0
    draw($('now-server'), { label: c.label, config: {}, server: { series: serverSeriesOf(c.server) } }, LIVE_SERVER_PANELS)
  } else {
    text($('now-what'), state.status === 'ended' ? 'Nothing: the run has ended.' : 'Nothing is running.')
    figures.replaceChildren()
    draw($('now-chart'), { label: '', load: null }, LOAD_PANELS)
    $('now-server').hidden = true
    draw($('now-server'), { label: '', load: null }, LIVE_SERVER_PANELS)
  }
  // each experiment, with its verdict once its last run ended
  const experiments = state.plan ? state.plan.experiments : []
  $('experiments').hidden = experiments.length === 0
  const verdicts = new Map(state.verdicts.map((v) => [v.experiment, v.lines]))
  $('experiment-list').replaceChildren(...experiments.map((e) => {
    const div = document.createElement('div')
    div.className = 'experiment'
    div.dataset.experiment = e.name
    const h = document.createElement('h3')
    h.textContent = e.title === e.name ? e.name : e.title + ' (' + e.name + ')'
    const ended = state.runs.filter((r) => r.experiment === e.name && r.state !== 'planned' && r.state !== 'running').length
    const count = document.createElement('p')
    count.className = 'muted'
    const lines = verdicts.get(e.name)
    count.textContent = ended + ' of ' + e.runs + ' runs ended' + (lines ? '' : '; its verdict comes when its last run ends')
    div.append(h, count)
    if (lines) {
      // a line per subject, as the terminal prints them
      const verdict = document.createElement('div')
      verdict.className = 'verdict'
      for (const line of lines) {
        const p = document.createElement('p')
        p.textContent = line
        verdict.append(p)
      }
      div.append(verdict)
    }
    return div
  }))
  // the last finished run, with the server's series
  const l = state.last
  $('last').hidden = !l
  if (l) {
    text($('last-title'), 'Last finished run: ' + l.experiment + ' ' + l.label + ' #' + l.repeat)
    const run = { label: l.label, config: {}, load: { series: l.load }, server: { series: l.server }, probe: { load: { series: l.probe } } }
    draw($('last-chart'), run, [...LOAD_PANELS, PROBE_PANEL, ...SERVER_PANELS])
  }
  // every run of the plan
  const body = $('runs').tBodies[0]
  const rows = state.runs.map((r) => {
    const tr = document.createElement('tr')
    tr.className = r.state
    const cells = [[r.index, 'r'], [r.experiment], [r.label + (r.repeat ? ' #' + r.repeat : '')], [r.state === 'done' ? 'done' : r.state + (r.outcome && r.state !== 'done' ? ': ' + r.outcome : '')],
      [r.rps === undefined ? '' : fmt(r.rps, 4), 'r'], [r.p99Ms === undefined ? '' : fmt(r.p99Ms), 'r'], [r.errors === undefined ? '' : String(r.errors), 'r']]
    for (const [v, cls] of cells) {
      const td = document.createElement('td')
      td.textContent = String(v)
      if (cls) td.className = cls
      tr.append(td)
    }
    return tr
  })
  body.replaceChildren(...rows)
  // the end: verdicts and the report
  const end = $('end')
  end.hidden = state.status !== 'ended'
  if (state.status === 'ended' && state.end && !end.dataset.done) {
    end.dataset.done = '1'
    const h = document.createElement('h2')
    h.textContent = 'The run has ended'
    end.append(h)
    const paragraphs = (texts, className) => {
      for (const text of texts) {
        const p = document.createElement('p')
        p.className = className
        p.textContent = text
        end.append(p)
      }
    }
    paragraphs(state.end.verdicts, 'verdict')
    if (state.end.reportUrl) {
      const p = document.createElement('p')
      const a = document.createElement('a')
      a.id = 'report-link'
      a.href = state.end.reportUrl
      a.textContent = 'report.html'
      p.append('The report: ', a, ' (' + state.end.report + ')')
      end.append(p)
    }
    paragraphs(state.end.lines, 'muted')
  }
}

function start (query) {
  const events = new EventSource('/events' + query)
  let latest = null
  events.addEventListener('state', (e) => {
    latest = JSON.parse(e.data)
    // Plot arrives with the deferred scripts: draw once it is there
    if (window.Plot) render(latest)
    if (latest.status === 'ended') events.close()
  })
  // the running run's progress and its new seconds: appended to the state the page holds
  events.addEventListener('tick', (e) => {
    const tick = JSON.parse(e.data)
    const c = latest && latest.current
    if (!c || c.index !== tick.index) return
    c.done = tick.done
    c.requests = tick.requests
    for (const name of ['load', 'probe', 'server']) {
      const list = c[name]
      // a page that connected between two pushes has some of them already: the seconds' t grows
      const last = list.length ? list[list.length - 1].t : -Infinity
      for (const second of tick[name]) if (second.t > last) list.push(second)
      if (list.length > tick.keep) list.splice(0, list.length - tick.keep)
    }
    if (window.Plot) render(latest)
  })
  events.addEventListener('error', () => {
    if (latest && latest.status === 'ended') return
    text($('status'), 'Connection to syncbench lost: it has ended or is unreachable.')
  })
  window.addEventListener('load', () => { if (latest) render(latest) })
  window.addEventListener('resize', () => { if (latest && window.Plot) render(latest) })
}
`
