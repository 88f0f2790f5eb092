// results/<timestamp>/results.json, rewritten after every run to a temporary name and renamed over
// the old one (lib/fs-atomic.js): a crash or Ctrl-C at any moment leaves the last complete file, never
// a half-written one.
import path from 'node:path'
import { mkdir } from 'node:fs/promises'
import { InvalidOptionError, ResultsError, systemCode, systemReason, shown } from '../errors.js'
import { writeFileAtomic } from '../fs-atomic.js'
import { checkDirectory, makeDirectory } from '../fs-dir.js'
import { readInputFile } from '../fs-input.js'
import { validateResults } from './results-schema.js'

export const RESULTS_SCHEMA = 'syncbench/results@1'

/**
 * A folder name that sorts by time and is valid on every OS (no colons): 2026-11-22T19-30-05Z.
 * @param {Date} [date]
 */
export function timestampName (date = new Date()) {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')
}

/**
 * Whether createOutDir can create the output folder, creating nothing: its errors, before the work
 * whose results it would hold.
 * @param {{ out?: string, cwd: string }} options
 * @returns {Promise<void>}
 */
export async function checkOutDir ({ out, cwd }) {
  if (out) {
    await checkDirectory(path.resolve(cwd, out), `--out ${out}`).catch((err) => { throw err instanceof InvalidOptionError ? err : outError(out, err) })
    return
  }
  const parent = path.join(cwd, 'results')
  await checkDirectory(parent, parent).catch((err) => { throw err instanceof InvalidOptionError ? err : outError('results', err) })
}

/**
 * Create the output folder (results/<timestamp> under cwd unless `out` is given).
 * @param {{ out?: string, cwd: string, now?: Date }} options
 * @returns {Promise<string>} absolute folder path
 */
export async function createOutDir ({ out, cwd, now }) {
  if (out) {
    const dir = path.resolve(cwd, out)
    await makeDirectory(dir, `--out ${out}`).catch((err) => { throw err instanceof InvalidOptionError ? err : outError(out, err) })
    return dir
  }
  const parent = path.join(cwd, 'results')
  await makeDirectory(parent, parent).catch((err) => { throw err instanceof InvalidOptionError ? err : outError('results', err) })
  const base = path.join(parent, timestampName(now))
  // Two runs started within the same second get -2, -3... rather than sharing a folder: the leaf is
  // made without `recursive`, so exactly one process creates it and every other one gets EEXIST.
  for (let i = 1; ; i++) {
    const dir = i === 1 ? base : `${base}-${i}`
    try {
      await mkdir(dir)
      return dir
    } catch (err) {
      if (systemCode(err) !== 'EEXIST') throw outError(path.relative(cwd, dir), err)
    }
  }
}

/**
 * Write text to `file` atomically (lib/fs-atomic.js), failures as a ResultsError.
 * @param {string} file
 * @param {string} text
 */
export async function writeAtomic (file, text) {
  try {
    await writeFileAtomic(file, text)
  } catch (err) {
    throw new ResultsError(`cannot write ${file}: ${reason(err)}`, { cause: err })
  }
}

/**
 * Read a results.json (a regular file within lib/fs-input.js's INPUT_FILE_LIMIT) and check it against
 * schemas/results.schema.json (syncbench compare, syncbench report), before anything else reads it: a
 * malformed file is one ResultsError naming the field.
 * @param {string} file
 * @returns {Promise<import('../types.js').ResultsFile>}
 */
export async function readResultsFile (file) {
  // not a regular file (a device, a FIFO) or over the input limit: refused before a byte is read
  const text = await readInputFile(file, { fail: (message, cause) => new ResultsError(`${file}: ${message}`, { cause }) })
  let data
  try {
    // a UTF-8 BOM, as editors on Windows save a file, is no part of the JSON: JSON.parse refuses it
    data = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch {
    // JSON.parse of a string throws nothing but a SyntaxError
    throw new ResultsError(`${file}: not JSON`)
  }
  // another file altogether; one that claims to be a results file is the schema's to describe (a missing runs array...)
  if (!data || typeof data !== 'object' || data.schema !== RESULTS_SCHEMA) {
    const schema = data && typeof data === 'object' && 'schema' in data ? `schema ${shown(data.schema)}` : 'no schema field'
    throw new ResultsError(`${file}: not a syncbench results file (${schema}, expected "${RESULTS_SCHEMA}")`)
  }
  validateResults(data, file)
  return data
}

/**
 * @param {string} out
 * @param {unknown} err
 */
function outError (out, err) {
  return new InvalidOptionError(`--out ${out} cannot be created: ${reason(err)}`, { cause: err })
}

/**
 * What a file system call's error says: its code (ENOENT, EACCES...), else its message.
 * @param {unknown} err
 * @returns {string}
 */
function reason (err) {
  const code = systemCode(err)
  return code ? systemReason(code, 'write') : err instanceof Error ? err.message : String(err)
}
