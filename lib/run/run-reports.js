// results/<timestamp>/runs/<run>.txt: the ab-format report of every run of `syncbench run`, one file
// per run, written atomically as the run ends, so the terminal can show the answer instead of 750 lines
// of reports (printed only with --verbose). A run that measured nothing (its server did not start)
// gets a file with its error, so runs/ lists every run.
import path from 'node:path'
import { mkdir } from 'node:fs/promises'
import { formatAbReport } from '../ab/ab-report.js'
import { writeAtomic } from './results-writer.js'
import { ResultsError, systemCode } from '../errors.js'

/** The folder of the per-run reports inside a results folder. */
export const RUNS_DIR = 'runs'

/**
 * A file name for a run: experiment, label and repeat, every character outside [A-Za-z0-9._-] made a
 * "-" ("seed-readfile/fake async#2" -> "seed-readfile-fake-async-2.txt"). Two runs whose names meet
 * once made safe ("a b" and "a-b") get -2, -3... from `taken`, which this call updates.
 * @param {{ experiment: string, label: string, repeat: number, node?: { name: string } | null }} run  node: the
 *   binary of a run under --node ("seed-readfile-readFile-node24-1.txt")
 * @param {Set<string>} taken names already given in this folder
 * @returns {string}
 */
export function runFileName ({ experiment, label, repeat, node }, taken) {
  const safe = `${experiment}-${label}${node ? `-node${node.name}` : ''}-${repeat}`.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 120) || 'run'
  let name = `${safe}.txt`
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${safe}-${i}.txt`
  // lower case: two names differing by case only would be one file on macOS and Windows
  taken.add(name.toLowerCase())
  return name
}

/**
 * The text of a run's file: a header line naming the run and its load, then ab's report (or the error).
 * @param {import('../types.js').RunRecord} record
 * @returns {string}
 */
export function runReportText (record) {
  const load = record.load
  const head = load
    ? `=== ${record.id}: ${load.document.path} -c ${load.concurrency} -n ${load.options.requests}${load.options.keepAlive ? ' -k' : ''} (${record.engine}) ===\n`
    : `=== ${record.id} (${record.engine}) ===\n`
  // Runs never send a body: ab prints no "Total body sent" lines then.
  const body = load ? formatAbReport(load, { sendBody: false }).replace(/^\n+/, '') : ''
  const error = record.error ? `${body ? '\n' : ''}error: ${record.error.code}: ${record.error.message}\n` : ''
  return head + body + error
}

/**
 * The writer of one results folder's runs/: `write(record)` names the run's file, writes it atomically
 * and resolves to its path and text. Writes never overlap one another (they are chained), and a name is
 * given in the order runs end, so names are stable for a given run order.
 * @param {string} outDir the results folder
 * @returns {{ dir: string, write: (record: import('../types.js').RunRecord) => Promise<{ file: string, text: string }> }}
 */
export function createRunReports (outDir) {
  const dir = path.join(outDir, RUNS_DIR)
  /** @type {Set<string>} */
  const taken = new Set()
  /** @type {Promise<unknown>|null} */
  let made = null
  return {
    dir,
    async write (record) {
      const name = runFileName(record, taken)
      const text = runReportText(record)
      made ??= mkdir(dir, { recursive: true }).catch((err) => {
        throw new ResultsError(`cannot create ${dir} (${systemCode(err) || err.message})`, { cause: err })
      })
      await made
      const file = path.join(dir, name)
      await writeAtomic(file, text)
      return { file, text }
    }
  }
}
