// syncbench compare a.json b.json: every configuration measured in both results files, requests per
// second of b against a, with a Welch t-test and stars, as Node core's benchmark/compare.R prints;
// --format json for scripts (lib/report/compare-json.js), markdown for a pull request's comment
// (compare-markdown.js), junit for CI's test reports (compare-junit.js). A results folder stands for
// its results.json.
import { parseCommandArgs } from '../args.js'
import { version } from '../version.js'
import path from 'node:path'
import { appendFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { InvalidOptionError, MissingArgumentError, ResultsError, SyncbenchError, invalidOption, systemCode, systemReason, firstLine } from '../errors.js'
import { makeDirectory } from '../fs-dir.js'
import { tempNameFor } from '../fs-atomic.js'
import { LATENCY_PERCENTILES } from '../analysis/latency.js'
import { readResultsFile } from '../run/results-writer.js'
import { compareResults, invalidReason } from '../analysis/summarize.js'
import { describeRuns, transportNote } from '../report/phrases.js'
import { compareTable, compareLatencyTable, capacityCompareTable } from '../report/tables.js'
import { renderTerminal } from '../report/text-table.js'
import { wrap } from '../report/wrap.js'
import { compareJson } from '../report/compare-json.js'
import { compareMarkdown, quantileCells } from '../report/compare-markdown.js'
import { renderCompareHtml } from '../report/compare-html.js'
import { compareJunit } from '../report/compare-junit.js'
import { resultsFileOf } from '../run/results-path.js'
import { evaluateGate, evaluateCapacityGate } from '../analysis/gate.js'
import { gateSummary, blockingGateSummary, capacityGateSummary, capacityPairingNote } from '../report/compare-gate.js'
import { compareScans, scanChangeLines } from '../report/kinds/scan.js'
import { compareVersions, compareCapacityVersions, resultsNodes, resultsOfNode } from '../analysis/versions.js'
import { capacityPairing, compareCapacities } from '../analysis/capacity.js'
import { compareApps, compareCapacityApps, resultsApps, resultsOfApp } from '../report/kinds/app.js'

/** The exit code of a failed gate (--fail-if-slower, --fail-if-blocking): apart from 1 (an error) and 2 (a bad command line). */
export const EXIT_SLOWER = 3

export const help = `Usage: syncbench compare <a> <b> [options]
       syncbench compare <results> [options]

a and b are results.json files or the folders syncbench run wrote (results/
<timestamp>/). For every configuration measured in both (for example the same
experiments on two Node versions): the mean requests per second of each, the
change of b against a, and the two-sided Welch t-test p-value over the runs,
with compare.R's stars: *** p < 0.001, ** p < 0.01, * p < 0.05. Each side needs
--runs 2 or more for a p-value; with 3 or more runs a side, the 95% CI of the
ratio b / a of the req/s (Welch's t-interval on the log of the runs' req/s,
back-transformed). Then the p99 and p50 latency of each side, from its runs'
merged histograms ("(max)" where a side has too few requests for p99; an
external engine's runs have no histogram: the mean of their percentiles,
labelled so).

One results file of syncbench run --node with two or more binaries compares
its versions: a is the baseline binary (the first --node), b each other one,
configuration by configuration ("readFile (24 vs 20)"); the gate then fails
when a Node.js upgrade makes a configuration slower. Two such files are
compared binary by binary ("readFile @24"). Otherwise one results file of
syncbench run --app with two or more apps compares its apps: a is the first
--app (the baseline), b each other one, route by route ("/report (after vs
before)"); the gate then fails when the new version of an app is slower: a
pull request against its base, their runs interleaved in one run on one
machine (docs/ci.md).

Two results of syncbench run --capacity searched at the same goal also
compare each configuration's capacity (the highest rate that met the goal):
the capacities found in a and in b, b / a with its 95% CI and p-value, as for
req/s. --fail-if-slower applies its rule to them too, and fails where a search
of b met the goal at no rate while a's found one. Files searched at different
goals, or one without searches, compare req/s alone, and say so in a line.

Two results of syncbench scan are compared route by route (matched by their
key, "GET /users/:id"): each route that started holding the event loop in b
(its loop p99 past 20 ms, not in a) is named in a line, with its loop p99 in a
and in b, so is each route that stopped, and the routes measured on one side
only are listed.

Options:
  --fail-if-blocking
                 the scans' CI gate: exit 3 when some route holds the event
                 loop in b and did not in a ("GET /report started blocking");
                 a and b must hold scans of the same name
  --fail-if-slower <pct>
                 the CI gate: exit 3 when, for any configuration, the 95% CI of
                 b / a lies entirely below 1 - pct (b is slower by more than
                 pct, beyond the runs' noise). pct is above 0 and below 100:
                 5%, 5 (the same) or 0.5%. Each row then says "slower: ..."
                 (fails), "slower by ..., not surely beyond pct", "equivalent
                 within pct" (the CI inside 1 +/- pct), "no significant change"
                 (the CI holds 1), "faster: ...", or "too few runs to decide"
                 (fewer than 3 runs a side: never fails)
  --format <text|markdown|json|junit>
                 what to print (default text, the tables above). markdown: a
                 pull request's comment: the gates' decision first, a row per
                 configuration, then collapsed the p50, p90, p99 and p99.9 of
                 each side with b - a and its 95% interval (a bootstrap over
                 runs), and the server's loop p99, CPU per request and peak
                 RSS; at most 65,536 characters (docs/ci.md). json: one object
                 (schema syncbench/compare@1, docs/formats.md): change is
                 b / a - 1, ratio b / a of the geometric means, gate null
                 without --fail-if-slower. junit: JUnit XML, a testsuite per
                 experiment, a testcase per configuration, a failure where a
                 gate fails; needs --out
  --markdown     the same as --format markdown
  --json         the same as --format json
  --out <file|dir>
                 write the output to file instead of stdout. A folder (one
                 that exists, or a path ending in "/", then created) gets
                 two files: report.html, a page with the tables and, per
                 configuration, a chart of each latency quantile's b - a
                 with its 95% interval and the zero line; and the output as
                 compare.txt, compare.md, compare.json or compare.xml
  --step-summary also append the markdown to the file $GITHUB_STEP_SUMMARY
                 names (GitHub Actions' job summary), whatever --format
  -h, --help     show this help
  -V, --version  print the version

Exit codes:
  0   compared (and the gate, if any, passed)
  1   a results file is missing, unreadable or malformed, nothing was
      measured in both, or --out (a file or a folder) cannot be written
  2   a bad command line (an unknown option, a bad --fail-if-slower or
      --format value, --format junit without --out, not two files)
  3   --fail-if-slower failed: some configuration is slower beyond the
      threshold (its req/s or its capacity); or --fail-if-blocking failed:
      some route started blocking
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const parsed = parseCompareArgs(argv)
  if (parsed.help) {
    io.stdout.write(help)
    return 0
  }
  if (parsed.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  const { threshold } = parsed
  const sides = parsed.files.length === 1 ? await oneFileSides(parsed.files[0]) : await fileSides(parsed.files[0], parsed.files[1])
  const { a, b, fileA, fileB, rows } = sides
  const invalid = sides.runs.filter((r) => invalidReason(r) !== null).length
  const leftOut = invalid ? ` (${invalid} invalid run${invalid === 1 ? '' : 's'} left out)` : ''
  if (rows.length === 0) throw new ResultsError(`${fileA} and ${fileB} have no successful configuration in common${leftOut}`)
  const gate = threshold === undefined ? undefined : evaluateGate(rows, threshold)
  const capacity = sides.capacity
  const capacityGate = threshold === undefined || capacity.rows.length === 0 ? undefined : evaluateCapacityGate(capacity.rows, threshold)
  const capacityNote = capacityPairingNote(capacity.pairing, capacity.rows.length, { file: fileA, results: a }, { file: fileB, results: b })
  const goal = a.capacity?.goal ?? ''
  const changes = compareScans(a, b)
  if (parsed.failIfBlocking && changes.length === 0) {
    throw new ResultsError(`${fileA} and ${fileB} hold no scan in common: --fail-if-blocking compares the routes of two syncbench scan results`)
  }
  const blocking = parsed.failIfBlocking ? { started: changes.filter((c) => c.change === 'started') } : undefined
  const exitCode = gate?.failed || capacityGate?.failed || blocking?.started.length ? EXIT_SLOWER : 0
  /** @type {(r: import('../types.js').ResultsFile, f: string) => string} */
  const describe = (r, f) => `${f}: Node ${r.environment?.node ?? '?'}, ${describeRuns(r)} run(s)`
  const names = sides.versions ?? { a: describe(a, fileA), b: describe(b, fileB) }
  const invalidNote = invalid ? `(${invalid} invalid run${invalid === 1 ? '' : 's'} left out: failed requests or non-2xx responses)` : null
  const noPNote = rows.some((r) => r.test.p >= 0) ? null : '(no p-values: each side needs 2 or more runs of a configuration, syncbench run --runs N)'
  /** @type {import('../report/compare-markdown.js').CompareReport} */
  const report = {
    a: { file: fileA, results: a },
    b: { file: fileB, results: b },
    names,
    versions: sides.versions !== null,
    rows,
    gate,
    capacity: { rows: capacity.rows, goal, gate: capacityGate },
    changes,
    failIfBlocking: parsed.failIfBlocking,
    notes: [invalidNote, noPNote, capacityNote, ...scanChangeLines(changes)].filter((x) => x !== null),
    exitCode,
    failExit: EXIT_SLOWER
  }
  /** @type {Record<CompareFormat, () => string>} */
  const renderers = {
    json: () => {
      const scan = changes.length ? { changes, gate: blocking ? { failed: blocking.started.length > 0, exitCode: blocking.started.length ? EXIT_SLOWER : 0, started: blocking.started.length } : null } : null
      const capacityOut = capacity.pairing === 'neither' ? null : { ...capacity, note: capacityNote, gate: capacityGate && { result: capacityGate, exitCode: EXIT_SLOWER } }
      const json = compareJson(rows, report.a, report.b, gate && { result: gate, exitCode: EXIT_SLOWER }, scan, capacityOut)
      return JSON.stringify(json, null, 2) + '\n'
    },
    markdown: () => compareMarkdown(report),
    junit: () => compareJunit(report),
    text: () => {
      const { tables, notes } = textParts()
      // the notes under the tables, wrapped on a terminal like the tables' own
      return tables.map((t) => renderTerminal(t, { whole: 'syncbench compare --markdown', keys: 2 })).join('') +
        notes.map((note) => wrap(note, undefined, '  ') + '\n').join('')
    }
  }
  /** The text format's tables and the notes under them, which report.html shows too. */
  const textParts = () => {
    const table = compareTable(rows, names, gate)
    const latency = compareLatencyTable(rows, names)
    const capacities = capacity.rows.length ? capacityCompareTable(capacity.rows, names, goal, capacityGate) : null
    const notes = [
      transportNote(a, b),
      invalidNote,
      noPNote,
      gate ? gateSummary(gate, rows, EXIT_SLOWER) : null,
      capacityNote,
      capacityGate ? capacityGateSummary(capacityGate, capacity.rows, goal, EXIT_SLOWER) : null,
      // two scans: the routes that started or stopped holding the event loop, and the gate on them
      ...scanChangeLines(changes),
      blocking ? blockingGateSummary(changes, EXIT_SLOWER) : null
    ].filter((x) => x !== null)
    return { tables: [table, latency, capacities].filter((x) => x !== null), notes }
  }
  const output = renderers[parsed.format]()
  if (parsed.out === undefined) {
    io.stdout.write(output)
  } else if (await isFolder(parsed.out)) {
    const name = OUTPUT_FILES[parsed.format]
    // every quantile both sides measured, for the charts: the tail past p99.9 too where the runs reach it
    const quantiles = rows.map((r) => quantileCells(r, { percents: LATENCY_PERCENTILES.map((q) => q.p) }))
    const html = renderCompareHtml(report, { ...textParts(), quantiles, output: { name, format: parsed.format }, version })
    await writeFolder(parsed.out, [[name, output], [REPORT_FILE, html]])
    io.stderr.write(`syncbench compare: wrote ${REPORT_FILE} and ${name} in ${parsed.out}\n`)
  } else {
    await writeOut(parsed.out, output)
  }
  if (parsed.stepSummary) await appendStepSummary(io, parsed.format === 'markdown' ? output : renderers.markdown())
  return exitCode
}

/** --out DIR: the page, and the --format output beside it under these names. */
export const REPORT_FILE = 'report.html'
/** @type {Readonly<Record<CompareFormat, string>>} */
export const OUTPUT_FILES = Object.freeze({ text: 'compare.txt', markdown: 'compare.md', json: 'compare.json', junit: 'compare.xml' })

/**
 * Whether --out names a folder: one that exists, or a path ending in a slash (created). Anything else
 * is a file, written as it always was.
 * @param {string} out
 */
async function isFolder (out) {
  if (out.endsWith('/') || out.endsWith(path.sep)) return true
  return (await stat(out).catch(() => null))?.isDirectory() ?? false
}

/**
 * --out DIR: the folder made if missing, then every file written whole or none: each goes to a
 * temporary name first, and only once all are written are they renamed into place (a failure removes
 * the temporary files, and leaves no file of this comparison beside an older one of another).
 * @param {string} dir
 * @param {[name: string, text: string][]} files
 */
async function writeFolder (dir, files) {
  /** @param {unknown} err */
  const cannot = (err) => {
    if (err instanceof SyncbenchError) return err
    const code = systemCode(err)
    return new ResultsError(`--out cannot write in the folder "${dir}": ${code ? systemReason(code, 'write') : firstLine(err)}`)
  }
  try {
    await makeDirectory(path.resolve(dir), `--out ${dir}`)
  } catch (err) {
    throw cannot(err)
  }
  // a name taken by a folder would fail its rename after the others were renamed: refused first
  for (const [name] of files) {
    const file = path.join(dir, name)
    if ((await stat(file).catch(() => null))?.isDirectory()) throw new ResultsError(`--out cannot write "${file}": ${systemReason('EISDIR', 'write')}`)
  }
  const temps = files.map(([name]) => tempNameFor(path.join(dir, name)))
  try {
    for (const [i, [, text]] of files.entries()) await writeFile(temps[i], text, { flag: 'wx' })
    for (const [i, [name]] of files.entries()) await rename(temps[i], path.join(dir, name))
  } catch (err) {
    await Promise.all(temps.map((t) => rm(t, { force: true })))
    throw cannot(err)
  }
}

/**
 * --out: the output in FILE instead of on stdout.
 * @param {string} file
 * @param {string} text
 */
async function writeOut (file, text) {
  try {
    await writeFile(file, text)
  } catch (err) {
    const code = systemCode(err)
    throw new ResultsError(`--out cannot write "${file}": ${code ? systemReason(code, 'write') : firstLine(err)}`)
  }
}

/**
 * --step-summary: the markdown appended to the file GitHub Actions names in $GITHUB_STEP_SUMMARY (the
 * job's summary page), and one line on stderr saying so. Whatever happens, the exit code stays the
 * comparison's: a summary that could not be written must not turn a passed gate into a failed job.
 * @param {import('./output.js').Io} io
 * @param {string} markdown
 */
async function appendStepSummary (io, markdown) {
  const file = io.env.GITHUB_STEP_SUMMARY
  if (!file) {
    io.stderr.write('syncbench compare: --step-summary: $GITHUB_STEP_SUMMARY is not set (outside GitHub Actions); nothing appended\n')
    return
  }
  try {
    // a blank line first: the step's summary may already end in a paragraph or a table
    await appendFile(file, '\n' + markdown)
    io.stderr.write(`syncbench compare: --step-summary: appended the markdown summary to $GITHUB_STEP_SUMMARY (${file})\n`)
  } catch (err) {
    const code = systemCode(err)
    io.stderr.write(`syncbench compare: --step-summary: cannot append to $GITHUB_STEP_SUMMARY (${file}): ${code ? systemReason(code, 'write') : firstLine(err)}\n`)
  }
}

/**
 * Two results files, compared configuration by configuration (and binary by binary, under --node).
 * @param {string} pathA
 * @param {string} pathB
 */
async function fileSides (pathA, pathB) {
  const [fileA, fileB] = [await resultsFileOf(pathA), await resultsFileOf(pathB)]
  const [a, b] = [await readResultsFile(fileA), await readResultsFile(fileB)]
  const pairing = capacityPairing(a, b)
  const capacity = { pairing, rows: pairing === 'same' ? compareCapacities(a, b) : [] }
  return { a, b, fileA, fileB, rows: compareResults(a, b), versions: null, runs: [...a.runs, ...b.runs], capacity }
}

/**
 * One results file: its Node.js versions (run --node with two or more binaries), else its apps (run
 * --app with two or more), each other one against the first. a and b are the baseline's runs and the
 * next one's (what --json says of each side; its rows name the versions or apps compared).
 * @param {string} given
 */
async function oneFileSides (given) {
  const alone = (/** @type {string} */ why) => new MissingArgumentError(`two results files expected, got 1 (one file compares its Node.js versions when syncbench run --node ran two or more binaries, or its apps when syncbench run --app ran two or more; ${why})`)
  const file = await resultsFileOf(given).catch((err) => { throw err instanceof ResultsError ? alone(err.message) : err })
  const results = await readResultsFile(file).catch((err) => { throw err instanceof ResultsError ? alone(err.message) : err })
  // one file's versions (or apps) searched at one goal
  const capacity = { pairing: capacityPairing(results, results), rows: /** @type {import('../analysis/capacity.js').CapacityComparison[]} */ ([]) }
  const nodes = resultsNodes(results)
  if (nodes.length >= 2) {
    const [base, ...others] = nodes
    const describe = (/** @type {typeof base} */ n) => `Node ${n.versions.node} (--node ${n.name})`
    const versions = { a: `${file}: ${describe(base)}, the baseline`, b: others.map(describe).join(', ') }
    capacity.rows = compareCapacityVersions(results)
    return { a: resultsOfNode(results, base), b: resultsOfNode(results, others[0]), fileA: file, fileB: file, rows: compareVersions(results), versions, runs: results.runs, capacity }
  }
  const { experiment, apps } = resultsApps(results)
  if (experiment === null) throw alone(`${file} holds neither`)
  const [base, ...others] = apps
  const versions = { a: `${file}: app ${base}, the baseline`, b: others.map((app) => `app ${app}`).join(', ') }
  capacity.rows = compareCapacityApps(results)
  const runs = results.runs.filter((r) => r.experiment === experiment.name)
  return { a: resultsOfApp(results, experiment, base), b: resultsOfApp(results, experiment, others[0]), fileA: file, fileB: file, rows: compareApps(results), versions, runs, capacity }
}

/** @typedef {'text'|'markdown'|'json'|'junit'} CompareFormat */

/** --format's values, in the order the help lists them. */
const FORMATS = /** @type {const} */ (['text', 'markdown', 'json', 'junit'])

/**
 * compare's command line, checked whole before any file is read.
 * @param {string[]} argv
 */
export function parseCompareArgs (argv) {
  const { values, positionals } = parseCommandArgs('compare', argv, {
    format: { type: 'string' },
    out: { type: 'string' },
    'step-summary': { type: 'boolean' },
    markdown: { type: 'boolean' },
    json: { type: 'boolean' },
    'fail-if-slower': { type: 'string' },
    'fail-if-blocking': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  const parsed = {
    help: Boolean(values.help),
    version: Boolean(values.version),
    /** @type {CompareFormat} */
    format: 'text',
    out: values.out,
    stepSummary: Boolean(values['step-summary']),
    threshold: /** @type {number|undefined} */ (undefined),
    failIfBlocking: Boolean(values['fail-if-blocking']),
    files: positionals
  }
  if (parsed.help || parsed.version) return parsed
  parsed.threshold = percentOption('--fail-if-slower', values['fail-if-slower'])
  if (positionals.length !== 2 && positionals.length !== 1) {
    throw new MissingArgumentError(`two results files expected, got ${positionals.length} (see syncbench compare --help)`)
  }
  if (values.json && values.markdown) throw new InvalidOptionError('--json and --markdown exclude each other: give one of them')
  const raw = values.format
  if (raw !== undefined && !FORMATS.includes(/** @type {CompareFormat} */ (raw))) throw invalidOption('--format', raw, `must be one of ${FORMATS.join(', ')}`)
  // --markdown and --json: the older spellings of --format markdown and --format json
  const alias = values.json ? 'json' : values.markdown ? 'markdown' : undefined
  if (alias && raw !== undefined && raw !== alias) throw new InvalidOptionError(`--${alias} and --format ${raw} exclude each other: give one of them`)
  parsed.format = /** @type {CompareFormat} */ (raw ?? alias ?? 'text')
  if (parsed.out === '') throw invalidOption('--out', parsed.out, 'must name a file or a folder')
  if (parsed.format === 'junit' && parsed.out === undefined) throw new MissingArgumentError('--format junit writes to a file: give --out FILE')
  return parsed
}

/**
 * A percentage option: "5%", "5" (the same) or "0.5%", above 0 and below 100, as a fraction (0.05);
 * undefined when not given. Plain decimals only: "1e1" or "5 %" are typos more often than intent.
 * @param {string} flag as the user typed it, for the message
 * @param {string|undefined} raw
 * @returns {number|undefined}
 */
export function percentOption (flag, raw) {
  if (raw === undefined) return undefined
  const m = /^(\d+(?:\.\d+)?|\.\d+)%?$/.exec(raw)
  const value = m ? Number(m[1]) : NaN
  if (!(value > 0 && value < 100)) throw invalidOption(flag, raw, 'must be a percentage above 0 and below 100 (5%, 5 or 0.5%)')
  return value / 100
}
