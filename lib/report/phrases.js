// How a figure is worded, the same in every output (the terminal, summary.md, report.html, compare):
// p-values as compare.R prints them, a ratio with what it rests on, a rate's interval, the efficiency
// against the ceiling, a row's flags, the invalid runs, the number of runs in words.
import { ceilingSpread } from '../analysis/summarize.js'
import { formatNumber } from '../format.js'
import { FIRST_LOOK_ROUND } from '../analysis/sequential.js'

/** @typedef {import('../analysis/summarize.js').ExperimentSummary} ExperimentSummary */
/** @typedef {import('../analysis/summarize.js').Row} Row */

/**
 * What a ratio rests on: "95% CI 1.90x..2.04x, p = 0.00312 **", "2 runs: no interval, p = 0.0794",
 * "one run: not a result".
 * @param {Row & { comparison: NonNullable<Row['comparison']> }} r
 * @param {Row[]} rows  the experiment's rows, to find the baseline's run count
 * @returns {string}
 */
export function formatComparison (r, rows) {
  const base = rows.find((b) => b.label === r.comparison.baseline)
  const n = Math.min(r.runs.length, base?.runs.length ?? 0)
  if (n < 2) return 'one run: not a result'
  const { low, high } = r.comparison.interval ?? { low: NaN, high: NaN }
  const interval = Number.isFinite(low) && Number.isFinite(high) ? `95% CI ${low.toFixed(2)}x..${high.toFixed(2)}x` : `${n} runs: no interval`
  return `${interval}, ${formatP(r.comparison.test)}`
}

/**
 * A configuration's req/s 95% CI (log scale, never negative): "488.00..685.28", "2 runs: no interval",
 * '' for a single run (the verdict says it is one run).
 * @param {Pick<Row, 'rate'>} r
 * @param {number} digits
 * @returns {string}
 */
export function formatRateInterval ({ rate }, digits) {
  if (!rate || rate.n < 2) return ''
  if (!(Number.isFinite(rate.low) && Number.isFinite(rate.high))) return `${rate.n} runs: no interval`
  return `${rate.low.toFixed(digits)}..${rate.high.toFixed(digits)}`
}

/**
 * The efficiency against the ceiling, never above 100% without saying why: "46%", "101% (within the
 * calibration's spread)", "112% (above the ceiling's spread!)"; '' without a ceiling.
 * @param {Pick<Row, 'efficiency'|'ceiling'>} r
 * @returns {string}
 */
export function formatEfficiency (r) {
  if (r.efficiency === null) return ''
  const pct = `${Math.round(r.efficiency * 100)}%`
  if (!r.ceiling || r.efficiency <= 1) return pct
  if (r.ceiling.above) return `${pct} (above the ceiling${r.ceiling.timings > 1 ? "'s spread" : ', 1 timing'}!)`
  return `${pct} (within the calibration's spread)`
}

/**
 * "5 timings: 30.1..31.5" or "1 timing: no spread" (a results file from before the repeats).
 * @param {NonNullable<ExperimentSummary['calibration']>} calibration
 */
export function formatCeilingSpread (calibration) {
  const n = calibration.timings?.length ?? 1
  if (n < 2) return '1 timing: no spread'
  const { low, high } = ceilingSpread(calibration)
  return `${n} timings: ${formatNumber(low)}..${formatNumber(high)}`
}

/**
 * One flag in words, for the tables' Flags cells and the verdict line.
 * @param {import('../analysis/summarize.js').RowFlag} f
 * @returns {string}
 */
export function formatFlag (f) {
  if (f.kind === 'spread') return `runs disagree (CV ${Math.round(f.cv * 100)}% over ${f.n} runs)`
  if (f.kind === 'cpu') return `CPU time ${formatMs(f.cpuMs)} < the ${formatMs(f.neededMs)} its ${f.requests} requests need`
  return `${f.strategy} with an idle loop (busy ${formatMs(f.busyMs)} < the ${formatMs(f.neededMs)} its ${f.requests} requests need)`
}

/** "850 ms", "12.3 s" @param {number} ms */
function formatMs (ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${formatNumber(ms / 1000)} s`
}

/**
 * How many runs each configuration had, in words: "3", or "2 (seed-bcrypt), 5 (seed-readfile)" when the
 * experiments' own defaults differ.
 * @param {import('../types.js').ResultsFile} results
 * @returns {string}
 */
export function describeRuns (results) {
  const per = results.experiments.map((e) => [e.name, e.runs])
  const distinct = new Set(per.map(([, n]) => n))
  if (distinct.size <= 1) return String(distinct.values().next().value ?? 1)
  return per.map(([name, n]) => `${n} (${name})`).join(', ')
}

/** 0.983 -> "98.3%", 0.05 -> "5%": a level or a threshold as a reader says it. @param {number} x */
const percentText = (x) => `${Number((x * 100).toPrecision(3))}%`

/**
 * How --runs auto's rounds of an experiment ended, in one line; null for an experiment whose runs were
 * fixed (no `sequential` record). "Runs: auto, stopped after 5 of up to 10 rounds: every comparison
 * decided at the 98.3% level (Bonferroni over the looks, threshold 5%)", "Runs: auto, reached --max-runs
 * 10 undecided at the 97.5% level (threshold 5%): readFile vs readFileSync (interval 0.93x..1.01x)", or
 * interrupted before either.
 * @param {import('../types.js').SequentialRecord|undefined} record
 * @returns {string|null}
 */
export function roundsSentence (record) {
  if (!record) return null
  const { rounds, maxRuns, decisions } = record
  const rule = `Bonferroni over the looks, threshold ${percentText(record.threshold)}`
  if (record.decided) {
    const what = decisions.length ? `every comparison decided at the ${percentText(record.level)} level` : 'nothing to compare'
    return `Runs: auto, stopped after ${rounds} of up to ${maxRuns} rounds: ${what} (${rule})`
  }
  if (rounds < FIRST_LOOK_ROUND) return `Runs: auto, interrupted after ${rounds} of up to ${maxRuns} rounds, before the first look (round ${FIRST_LOOK_ROUND})`
  const open = decisions.filter((d) => !d.decided).map((d) =>
    `${d.label} vs ${d.baseline} (${d.low === null || d.high === null ? 'no interval' : `interval ${formatNumber(d.low)}x..${formatNumber(d.high)}x`})`)
  const how = rounds >= maxRuns ? `reached --max-runs ${maxRuns}` : `interrupted after ${rounds} of up to ${maxRuns} rounds,`
  return `Runs: auto, ${how} undecided at the ${percentText(record.level)} level (${rule}): ${open.join(', ')}`
}

/**
 * The I/O paths the runs' load went through ("native", "node:net, native"), or null when no run
 * recorded one (results written before syncbench kept it).
 * @param {import('../types.js').ResultsFile} results
 * @returns {string|null}
 */
export function describeTransports (results) {
  const names = [...new Set(results.runs.flatMap((r) => r.load?.transport === undefined ? [] : r.load.transport.split('+')))]
  return names.length === 0 ? null : names.sort().join(', ')
}

/**
 * compare's note when the two sides were loaded through different I/O paths: their generators spent
 * different CPU per request, which can move req/s on a machine whose cores the server shares. Null
 * when they match or either is unknown.
 * @param {import('../types.js').ResultsFile} a
 * @param {import('../types.js').ResultsFile} b
 * @returns {string|null}
 */
export function transportNote (a, b) {
  const [ta, tb] = [describeTransports(a), describeTransports(b)]
  if (ta === null || tb === null || ta === tb) return null
  return `(the load went through ${ta} in the first file and ${tb} in the second: their CPU per request differs, which alone can move req/s where the generator shares the server's cores)`
}

/**
 * A p-value as compare.R prints it: 3 significant digits ("0.0794", "0.00312"), in exponent form
 * below 0.0001 ("2.43e-7"), "< 2.2e-16" below what a double resolves next to 1 (R's format.pval),
 * "n/a" without one. The one format of the verdict lines and the compare table.
 * @param {number} p
 * @returns {string}
 */
export function formatPValue (p) {
  if (!(p >= 0)) return 'n/a'
  if (p < 2.2e-16) return '< 2.2e-16'
  if (p < 0.0001) return p.toExponential(2)
  return String(Number(p.toPrecision(3)))
}

/**
 * "p = 0.00312 **" / "p = 2.43e-7 ***" / "p < 2.2e-16 ***" / "p n/a" for one-line verdicts.
 * @param {Pick<import('../analysis/stats.js').WelchResult, 'p'|'stars'>} r
 * @returns {string}
 */
export function formatP (r) {
  if (!(r.p >= 0)) return 'p n/a'
  const s = r.stars ? ` ${r.stars}` : ''
  const p = formatPValue(r.p)
  return `p ${p.startsWith('<') ? p : `= ${p}`}${s}`
}

/**
 * The cell of a configuration with no valid run: "invalid: 20 of 20 non-2xx" (each distinct reason once).
 * @param {import('../analysis/summarize.js').Row} r
 */
export function invalidCell (r) {
  const reasons = [...new Set(r.invalid.map((i) => i.reason))]
  return `invalid: ${reasons.join('; ')}${r.invalid.length > 1 ? ` (${r.invalid.length} runs)` : ''}`
}

/**
 * A comparison table's title: "seed-bcrypt: Seed 001: ...", and where it was measured when that was
 * not a server syncbench started.
 * @param {ExperimentSummary} s
 */
export function tableTitle (s) {
  return `${s.name}: ${s.title}${s.target ? `, ${measuredAt(s)}` : ''}`
}

/**
 * "at --target http://127.0.0.1:8080/ (Server: nginx/1.24.0), not a server syncbench started" for an
 * experiment measured against --target (its titles name strategies that server may not have), else ''.
 * @param {ExperimentSummary} s
 * @returns {string}
 */
export function measuredAt (s) {
  if (!s.target) return ''
  const software = s.rows.flatMap((r) => r.runs.map((run) => run.load.server?.software)).find((x) => x)
  return `at --target ${s.target}${software ? ` (Server: ${software})` : ''}, not a server syncbench started`
}

/**
 * "1.97x sync, 95% CI 1.90x..2.04x, p = 0.00312 **", "1.51x sync, one run: not a result", or '' for a baseline.
 * @param {Row} r
 * @param {Row[]} rows  the measured rows, the baseline among them
 */
export function significance (r, rows) {
  if (!r.comparison) return ''
  return `${r.comparison.ratio.toFixed(2)}x ${r.comparison.baseline}, ${formatComparison({ ...r, comparison: r.comparison }, rows)}`
}

/**
 * significance's cell as a terminal shows it, under a header that names the baseline (sharedBaseline):
 * "1.97x (1.90x..2.04x), p = 0.00312 **", "1.02x (2 runs), p = 0.0794", "1.02x (one run)".
 * @param {Row} r
 * @param {Row[]} rows
 */
export function shortSignificance (r, rows) {
  if (!r.comparison) return ''
  const base = rows.find((b) => b.label === r.comparison?.baseline)
  const n = Math.min(r.runs.length, base?.runs.length ?? 0)
  const ratio = `${r.comparison.ratio.toFixed(2)}x`
  if (n < 2) return `${ratio} (one run)`
  const { low, high } = r.comparison.interval ?? { low: NaN, high: NaN }
  const interval = Number.isFinite(low) && Number.isFinite(high) ? `${low.toFixed(2)}x..${high.toFixed(2)}x` : `${n} runs`
  return `${ratio} (${interval}), ${formatP(r.comparison.test)}`
}

/**
 * The one baseline every compared row is compared with, null when they have several (a sweep's
 * configurations each against their own) or none.
 * @param {Row[]} rows
 * @returns {string|null}
 */
export function sharedBaseline (rows) {
  const names = new Set(rows.flatMap((r) => r.comparison ? [r.comparison.baseline] : []))
  return names.size === 1 ? [...names][0] : null
}

/**
 * A row's flags in words, '' when none (the Flags column is then left out).
 * @param {Row} r
 */
export function flagsText (r) {
  return (r.flags ?? []).map(formatFlag).join('; ')
}

/**
 * The invalid runs of a configuration that has valid ones too: "1 of 4 left out (#2: 3 of 100 failed (length 3))", else ''.
 * @param {Row} r
 */
export function leftOut (r) {
  if (r.invalid.length === 0 || r.runs.length === 0) return ''
  return `${r.invalid.length} of ${r.invalid.length + r.runs.length} left out (${r.invalid.map((i) => `#${i.repeat}: ${i.reason}`).join(', ')})`
}

/**
 * A bound's cells in the server table: its name ("4 pool threads", "—" without one, "(uncertain)" when
 * its calibration disagrees with itself), the rate it predicts and the measured share of it ("(above it!)"
 * past 100%: a bound is the most its measured costs allow).
 * @param {Pick<Row, 'bound'>} r
 * @returns {[string, string, string]}
 */
export function boundCells ({ bound }) {
  if (!bound?.bound) return ['—', '', '']
  const name = `${bound.bound.name}${bound.doubts.length ? ' (uncertain)' : ''}`
  return [name, formatNumber(bound.bound.predictedRps), bound.ofBound === null ? '' : `${Math.round(bound.ofBound * 100)}%${bound.ofBound > 1 ? ' (above it!)' : ''}`]
}

/**
 * Why some of an experiment's rows have no bound or an uncertain one: "no bound for delay=0, delay=1:
 * the HTTP work ... was not measured"; "uncertain bound for sync, async: work timings 2.3x apart"; ''
 * when every bound stands.
 * @param {Row[]} rows
 * @returns {string}
 */
export function boundNotes (rows) {
  /** @type {Map<string, string[]>} */
  const by = new Map()
  for (const r of rows) {
    const key = r.bound?.bound ? (r.bound.doubts.length ? `uncertain bound\0${r.bound.doubts.join(', ')}` : '') : `no bound\0${r.bound?.why ?? 'nothing measured'}`
    if (key) by.set(key, [...by.get(key) ?? [], r.label])
  }
  return [...by].map(([key, labels]) => {
    const [what, why] = key.split('\0')
    return `${what} for ${labels.join(', ')}: ${why}`
  }).join('; ')
}

/**
 * A row's binding constraint and its lever, in words: "async is bound by UV_THREADPOOL_SIZE (4 of 16
 * cores): raise it to use more cores", "sync is bound by the main thread: move the work off the event
 * loop"; '' without a bound.
 * @param {Row} r
 * @returns {string}
 */
export function boundSentence (r) {
  const b = r.bound?.bound
  const shape = r.bound?.shape
  if (!b || !shape) return ''
  const of = r.bound?.ofBound ?? null
  // Above its bound, the run served more than its measured costs allow: one of them is overstated.
  const share = of === null ? '' : `${Math.round(of * 100)}% of its ${formatNumber(b.predictedRps)} req/s${of > 1 ? ', above it: its calibration or its HTTP figure overstates a cost' : ''}`
  /** @param {string} what @param {string} detail @param {string} lever */
  const say = (what, detail, lever) => `${r.label} is bound by ${what}${[detail, share].some(Boolean) ? ` (${[detail, share].filter(Boolean).join('; ')})` : ''}${lever ? `: ${lever}` : ''}`
  const cores = `${shape.cores} core${shape.cores === 1 ? '' : 's'}`
  switch (b.kind) {
    case 'pool':
      return b.lever === null
        ? say('UV_THREADPOOL_SIZE', `${shape.pool}, as many as the ${cores}`, '')
        : say('UV_THREADPOOL_SIZE', `${shape.pool} of ${cores}`, 'raise it to use more cores')
    case 'workers':
      return say(`its ${b.name}`, `of ${cores}`, b.lever === null ? '' : 'more workers to use more cores')
    case 'in-flight':
      return say(`its ${b.name}`, '', 'more concurrent requests to use more cores')
    case 'cores':
      return say(`the ${cores}`, '', 'only more cores raise it')
    default:
      return isOnLoop(r)
        ? say('the main thread', '', 'move the work off the event loop')
        : say('the HTTP work on the main thread', `${formatNumber(r.bound?.httpMs ?? NaN)} ms a request`, 'more processes to use more cores')
  }
}

/** @param {Row} r */
function isOnLoop (r) {
  return /off the event loop/.test(r.bound?.bound?.lever ?? '')
}

/** The constraint a kind of bound names, for a verdict that groups rows by it. @type {Record<string, string>} */
const BOUND_KINDS = { main: 'the main thread', pool: 'UV_THREADPOOL_SIZE', workers: 'the worker pool', cores: 'the cores', 'in-flight': 'the requests in flight' }

/**
 * The verdict's part on bounds: each row's binding constraint and lever (boundSentence), or with more
 * than three rows, the rows grouped by the kind of constraint that binds them with the range of their
 * share of it; then a calibration that disagrees with itself. '' when no row has a bound.
 * @param {Row[]} rows  the measured ones
 * @returns {string}
 */
export function boundsVerdict (rows) {
  const bound = rows.filter((r) => r.bound?.bound)
  if (bound.length === 0) return ''
  let text
  if (bound.length <= 3) {
    text = bound.map(boundSentence).join('; ')
  } else {
    /** @type {Map<string, Row[]>} */
    const by = new Map()
    for (const r of bound) {
      const b = /** @type {import('../analysis/bounds.js').Bound} */ (r.bound?.bound)
      const key = b.kind === 'main' && !/off the event loop/.test(b.lever ?? '') ? 'http' : b.kind
      by.set(key, [...by.get(key) ?? [], r])
    }
    text = [...by].map(([kind, group]) => {
      const shares = group.map((r) => r.bound?.ofBound ?? NaN).filter(Number.isFinite)
      const [lo, hi] = [Math.round(Math.min(...shares) * 100), Math.round(Math.max(...shares) * 100)]
      const range = shares.length ? ` (${lo === hi ? lo : `${lo}%..${hi}`}% of it)` : ''
      const what = kind === 'http' ? 'the HTTP work on the main thread' : BOUND_KINDS[kind]
      return `${group.map((r) => r.label).join(', ')} bound by ${what}${range}`
    }).join('; ')
  }
  const doubts = bound.find((r) => r.bound?.doubts.length)?.bound?.doubts ?? []
  return `bounds: ${text}${doubts.length ? `; the calibration disagrees with itself (${doubts.join(', ')}): these bounds are uncertain` : ''}`
}

/**
 * The command that wrote a results file, as its argv follows it: syncbench scan records itself in
 * its options (`command: 'scan'`); every other file is syncbench run's.
 * @param {Pick<import('../types.js').ResultsFile, 'options'>} results
 * @returns {string}
 */
export function commandOf (results) {
  return typeof results.options?.command === 'string' ? results.options.command : 'run'
}
