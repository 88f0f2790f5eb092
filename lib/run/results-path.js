// A results argument as people give it: the results.json itself, or the folder `syncbench run` wrote
// (results/<timestamp>/), which holds it. `syncbench report` and `syncbench compare` accept both.
import path from 'node:path'
import { stat } from 'node:fs/promises'
import { ResultsError } from '../errors.js'

/** The results file's name inside a results folder. */
export const RESULTS_FILE = 'results.json'

/**
 * The results file an argument names: a folder becomes its results.json (as given: `results/x` ->
 * `results/x/results.json`, for the messages); anything else is returned unchanged, for
 * readResultsFile to read or report as missing.
 * @param {string} arg a file or folder, as given on the command line
 * @returns {Promise<string>}
 */
export async function resultsFileOf (arg) {
  const info = await stat(arg).catch(() => null)
  if (!info?.isDirectory()) return arg
  const file = path.join(arg, RESULTS_FILE)
  const inside = await stat(file).catch(() => null)
  // one that is there but is not a regular file (a folder, a FIFO) is readResultsFile's to name
  if (!inside) throw new ResultsError(`${arg}: a folder without ${RESULTS_FILE} (give a results.json or the folder syncbench run wrote)`)
  return file
}
