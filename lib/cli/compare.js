// syncbench compare a.json b.json: every configuration measured in both results files, requests per
// second of b against a, with a Welch t-test and stars, as Node core's benchmark/compare.R prints;
// --json for scripts (lib/report/compare-json.js). A results folder stands for its results.json.
import { parseCommandArgs } from '../args.js'
import { InvalidOptionError, MissingArgumentError, ResultsError } from '../errors.js'
import { readResultsFile } from '../run/results-writer.js'
import { compareResults, invalidReason } from '../run/summarize.js'
import { describeRuns } from '../report/verdicts.js'
import { compareTable, compareLatencyTable, renderText } from '../report/tables.js'
import { renderMarkdownTable } from '../report/markdown.js'
import { compareJson } from '../report/compare-json.js'
import { resultsFileOf } from '../run/results-path.js'

export const help = `Usage: syncbench compare <a> <b> [options]

a and b are results.json files or the folders syncbench run wrote (results/<timestamp>/).
Compare two results (for example the same experiments on two Node versions): for every
configuration present in both, the mean requests per second of each, the change of b against a,
and the two-sided Welch t-test p-value over the runs, with compare.R's stars:
*** p < 0.001, ** p < 0.01, * p < 0.05. Each side needs --runs 2 or more for a p-value.
Then the p99 and p50 latency of each side, read from its runs' merged histograms ("(max)" where a
side has too few requests for p99; runs of an external engine have no histogram: the mean of their
percentiles, labelled so).

Options:
  --markdown   print the table as markdown
  --json       print one JSON object instead (schema syncbench/compare@1):
                 { schema, a: { file, node, syncbench, createdAt }, b: { ... },
                   rows: [{ experiment, label, a: { n, mean, sd, ciLow, ciHigh }, b: { ... },
                            change, p, stars, significant }] }
               change is b / a - 1; p, sd and the CI are null where fewer than 2 runs give none
  -h, --help   show this help
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const parsed = parseCommandArgs('compare', argv, { markdown: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } })
  if (parsed.values.help) {
    io.stdout.write(help)
    return 0
  }
  if (parsed.positionals.length !== 2) {
    throw new MissingArgumentError(`two results files expected, got ${parsed.positionals.length} (see syncbench compare --help)`)
  }
  if (parsed.values.json && parsed.values.markdown) throw new InvalidOptionError('--json and --markdown exclude each other: give one of them')
  const [fileA, fileB] = [await resultsFileOf(parsed.positionals[0]), await resultsFileOf(parsed.positionals[1])]
  const [a, b] = [await readResultsFile(fileA), await readResultsFile(fileB)]
  const rows = compareResults(a, b)
  const invalid = [...a.runs, ...b.runs].filter((r) => invalidReason(r) !== null).length
  const leftOut = invalid ? ` (${invalid} invalid run${invalid === 1 ? '' : 's'} left out)` : ''
  if (rows.length === 0) throw new ResultsError(`${fileA} and ${fileB} have no successful configuration in common${leftOut}`)
  if (parsed.values.json) {
    io.stdout.write(JSON.stringify(compareJson(rows, { file: fileA, results: a }, { file: fileB, results: b }), null, 2) + '\n')
    return 0
  }
  /** @type {(r: import('../types.js').ResultsFile, f: string) => string} */
  const describe = (r, f) => `${f}: Node ${r.environment?.node ?? '?'}, ${describeRuns(r)} run(s)`
  const names = { a: describe(a, fileA), b: describe(b, fileB) }
  const table = compareTable(rows, names)
  const latency = compareLatencyTable(rows, names)
  for (const t of latency ? [table, latency] : [table]) {
    io.stdout.write(parsed.values.markdown ? `**${t.title}**\n\n${renderMarkdownTable(t)}` : renderText(t))
  }
  if (invalid) io.stdout.write(`(${invalid} invalid run${invalid === 1 ? '' : 's'} left out: failed requests or non-2xx responses)\n`)
  if (!rows.some((r) => r.test.p >= 0)) io.stdout.write('(no p-values: each side needs 2 or more runs of a configuration, syncbench run --runs N)\n')
  return 0
}
