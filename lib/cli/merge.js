// `syncbench merge a.json b.json ...`: the ab-format report (or, with --json, the LoadResult) of the union
// of several `syncbench ab --json` results: the shards of one run (--segment) or generators started together.
import { MissingArgumentError, ResultsError, UnknownOptionError } from '../errors.js'
import { INPUT_FILE_LIMIT, readInputFile } from '../fs-input.js'
import { formatBytes } from '../format.js'
import { version } from '../version.js'

export function helpText () {
  return `syncbench merge ${version}: add up the --json results of several syncbench ab runs

Usage: syncbench merge [--json] a.json b.json ...

Each file is what syncbench ab --json printed (one shard of a run with
--segment i/N, or any run against the same URL with the same request options).
Prints ab's report of the union:
  - counts and bytes summed; Concurrency Level the sum of the connections;
  - Time taken from the first start to the last end (the files' startedAt and
    endedAt, wall clock: the machines' clocks must agree, as NTP keeps them),
    and the rates over that time;
  - every percentile and median from the sum of the files' HdrHistograms,
    never averaged;
  - under -R, target and achieved rates summed, late requests summed, the
    corrected latency from the summed corrected histograms.
Refused, naming the first difference (exit 2): files that measured different
requests (URL, method, -k, headers, -p body, -t, -R or not, the shards of
different runs) or the same run twice (its runId). Refused (exit 1): a file
that cannot be read, is not a regular file, is over ${formatBytes(INPUT_FILE_LIMIT)} or is not a
LoadResult. Inputs may be merged results themselves; - reads standard input.

Options:
  --json         print the merged LoadResult (schema syncbench/load-result@1,
                 with "merged": the parts' windows and shards) instead of the
                 report; it merges further
  -h, --help     show this help
  -V, --version  print the version
`
}

/**
 * merge's command line: the files and --json; help and version stop the parse.
 * @param {string[]} argv
 * @returns {{ help: boolean, version: boolean, json: boolean, files: string[] }}
 */
export function parseMergeArgs (argv) {
  const parsed = { help: false, version: false, json: false, files: /** @type {string[]} */ ([]) }
  let flagsDone = false
  for (const arg of argv) {
    if (!flagsDone && arg === '--') { flagsDone = true; continue }
    if (!flagsDone && (arg === '-h' || arg === '--help')) return { ...parsed, help: true }
    if (!flagsDone && (arg === '-V' || arg === '--version')) return { ...parsed, version: true }
    if (!flagsDone && arg === '--json') { parsed.json = true; continue }
    if (!flagsDone && arg.startsWith('-') && arg !== '-') throw new UnknownOptionError(`unknown option "${arg}" (see syncbench merge --help)`)
    parsed.files.push(arg)
  }
  if (parsed.files.length === 0) throw new MissingArgumentError('missing the files to merge, as in syncbench merge shard-0.json shard-1.json')
  return parsed
}

/**
 * @param {string[]} argv
 * @param {import('./output.js').Io} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  const { help, version: showVersion, json, files } = parseMergeArgs(argv)
  if (help) { io.stdout.write(helpText()); return 0 }
  if (showVersion) { io.stdout.write(`syncbench ${version}\n`); return 0 }
  const results = await Promise.all(files.map(readLoadResult))
  const { mergeLoadResults } = await import('../load/merge-results.js')
  const merged = mergeLoadResults(results, files)
  if (json) {
    io.stdout.write(JSON.stringify(merged, null, 2) + '\n')
    return 0
  }
  const { formatAbReport } = await import('../ab/ab-report.js')
  const parts = /** @type {NonNullable<import('../types.js').LoadResult['merged']>} */ (merged.merged).parts
  const shards = parts.map((p) => p.segment).filter((s) => s !== null)
  io.stdout.write(`Merged ${parts.length} result${parts.length === 1 ? '' : 's'}${shards.length ? ` (shards ${shards.join(', ')})` : ''}: ${merged.startedAt} to ${merged.endedAt}\n`)
  io.stdout.write(formatAbReport(merged))
  const missing = missingShards(shards)
  if (missing.length > 0) io.stderr.write(`syncbench merge: note: shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} not given: the figures are those of the shards given\n`)
  return 0
}

/**
 * Shards of a run ("i/N") the merge was not given.
 * @param {string[]} shards
 */
function missingShards (shards) {
  if (shards.length === 0) return []
  const count = Number(shards[0].split('/')[1])
  const given = new Set(shards)
  return Array.from({ length: count }, (_, i) => `${i}/${count}`).filter((s) => !given.has(s))
}

/**
 * A file of `syncbench ab --json`, checked against schemas/load-result.schema.json.
 * @param {string} file
 * @returns {Promise<import('../types.js').LoadResult>}
 */
async function readLoadResult (file) {
  // a named file must be a regular file within the input limit; `-` (stdin) may be a pipe, read up to the limit
  const text = await readInputFile(file === '-' ? '/dev/stdin' : file, {
    stream: file === '-',
    fail: (message, cause) => new ResultsError(`${file}: ${message}`, { cause })
  })
  let data
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new ResultsError(`${file}: not JSON (${err instanceof Error ? err.message : err}); give what syncbench ab --json printed`)
  }
  const { loadResultProblem } = await import('../run/results-schema.js')
  const problem = loadResultProblem(data)
  if (problem !== null) throw new ResultsError(`${file}: not a syncbench ab --json result: ${problem}`)
  return /** @type {import('../types.js').LoadResult} */ (data)
}
