// syncbench report <results.json|folder>: report.html, charts/*.png and summary.md from a results file,
// with no network and no browser; the sweeps' text charts on stdout.
import path from 'node:path'
import { version } from '../version.js'
import { parseCommandArgs } from '../args.js'
import { InvalidOptionError, MissingArgumentError, invalidOption } from '../errors.js'
import { painter } from './output.js'
import { readResultsFile } from '../run/results-writer.js'
import { resultsFileOf } from '../run/results-path.js'
import { checkResults } from '../report/check-results.js'
import { textCharts } from '../report/text-chart.js'

export const help = `Usage: syncbench report <results.json> [options]

Render the report of a results file (what syncbench run wrote, or any file of
the same schema; the folder syncbench run wrote stands for its results.json):
  report.html    one self-contained page: the machine, the seeds' tables, every
                 chart and every run's details; no script, no external
                 request, readable on a phone
  charts/*.png   each chart as a PNG for READMEs and blog posts
  summary.md     the tables as markdown
No network and no browser are needed. The text charts of the sweeps are printed
on stdout.

Options:
  --out <dir>    where to write (default: the results file's folder)
  --no-png       write report.html and summary.md only
  --text         print the tables and verdicts as syncbench run printed them,
                 and write nothing
  -q, --quiet    print only the paths written
  -h, --help     show this help
  -V, --version  print the version
`

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  // Ctrl-C stops before the next file: every file already written is whole, none is half-written.
  const controller = new AbortController()
  const onSigint = () => controller.abort()
  process.once('SIGINT', onSigint)
  try {
    return await report(argv, io, controller.signal)
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @param {AbortSignal} signal
 */
async function report (argv, io, signal) {
  const options = parseReportArgs(argv)
  if (options.help) {
    io.stdout.write(help)
    return 0
  }
  if (options.version) {
    io.stdout.write(`syncbench ${version}\n`)
    return 0
  }
  const file = await resultsFileOf(options.file)
  const results = await readResultsFile(file)
  checkResults(results, file)
  const paint = painter(io.stdout, io.env)
  if (options.text) {
    const [{ answerText }, { summarizeResults }] = await Promise.all([import('./run.js'), import('../report/model.js')])
    io.stdout.write(answerText(results, summarizeResults(results), paint))
    return 0
  }
  const outDir = path.resolve(options.out ?? path.dirname(file))
  if (!options.quiet) {
    const text = textCharts(results)
    if (text) io.stdout.write(text + '\n')
  }
  // Plot, linkedom and resvg load only once the input is known to be good
  const { writeReport } = await import('../report/write-report.js')
  let report
  try {
    report = await writeReport(results, outDir, { png: options.png, signal, resultsDir: path.dirname(file) })
    if (report.error) throw report.error
  } catch (err) {
    if (!signal.aborted) throw err
    io.stderr.write('syncbench report: interrupted; the files written so far are complete\n')
    return 130
  }
  for (const w of report.warnings) io.stderr.write(`syncbench report: warning: ${w}\n`)
  /** @param {string} file */
  const show = (file) => {
    const rel = path.relative(process.cwd(), file)
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file
  }
  // html is null only with html: false or with an error, thrown above
  io.stdout.write(`${paint('bold', 'report')}   ${show(/** @type {string} */ (report.html))}\n`)
  io.stdout.write(`${paint('bold', 'summary')}  ${show(report.summary)}\n`)
  if (report.charts.length) io.stdout.write(`${paint('bold', 'charts')}   ${report.charts.length} PNG in ${show(path.dirname(report.charts[0]))}${path.sep}\n`)
  return 0
}

/**
 * @param {string[]} argv
 * @returns {{ help: boolean, version: boolean, file: string, out?: string, png: boolean, quiet: boolean, text: boolean }}
 */
export function parseReportArgs (argv) {
  const parsed = parseCommandArgs('report', argv, {
    out: { type: 'string' },
    'no-png': { type: 'boolean' },
    text: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'V' }
  })
  const { values, positionals } = parsed
  if (values.help || values.version) return { help: Boolean(values.help), version: !values.help, file: '', png: true, quiet: false, text: false }
  if (positionals.length === 0) throw new MissingArgumentError('a results file is needed: syncbench report <results.json> (see syncbench report --help)')
  if (positionals.length > 1) throw new InvalidOptionError(`one results file expected, got ${positionals.length}: ${positionals.join(' ')}`)
  if (values.out === '') throw invalidOption('--out', '', 'must be a folder')
  if (values.text && (values.out !== undefined || values['no-png'])) throw new InvalidOptionError('--text writes nothing: it goes with neither --out nor --no-png')
  return { help: false, version: false, file: positionals[0], out: values.out, png: !values['no-png'], quiet: Boolean(values.quiet), text: Boolean(values.text) }
}
