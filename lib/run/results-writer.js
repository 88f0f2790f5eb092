// results/<timestamp>/results.json, rewritten after every run to a temporary name and renamed over
// the old one (lib/fs-atomic.js): a crash or Ctrl-C at any moment leaves the last complete file, never
// a half-written one.
import path from 'node:path'
import { mkdir, readFile } from 'node:fs/promises'
import { SyncbenchError } from '../errors.js'
import { writeFileAtomic } from '../fs-atomic.js'

export const RESULTS_SCHEMA = 'syncbench/results@1'

/**
 * A folder name that sorts by time and is valid on every OS (no colons): 2026-11-22T19-30-05Z.
 * @param {Date} [date]
 */
export function timestampName (date = new Date()) {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')
}

/**
 * Create the output folder (results/<timestamp> under cwd unless `out` is given).
 * @param {{ out?: string, cwd: string, now?: Date }} options
 * @returns {Promise<string>} absolute folder path
 */
export async function createOutDir ({ out, cwd, now }) {
  if (out) {
    const dir = path.resolve(cwd, out)
    await mkdir(dir, { recursive: true }).catch((err) => { throw outError(out, err) })
    return dir
  }
  const parent = path.join(cwd, 'results')
  await mkdir(parent, { recursive: true }).catch((err) => { throw outError('results', err) })
  const base = path.join(parent, timestampName(now))
  // Two runs started within the same second get -2, -3... rather than sharing a folder: the leaf is
  // made without `recursive`, so exactly one process creates it and every other one gets EEXIST.
  for (let i = 1; ; i++) {
    const dir = i === 1 ? base : `${base}-${i}`
    try {
      await mkdir(dir)
      return dir
    } catch (err) {
      if (err.code !== 'EEXIST') throw outError(path.relative(cwd, dir), err)
    }
  }
}

/**
 * Write text to `file` atomically (lib/fs-atomic.js), failures as SB_ERR_RESULTS.
 * @param {string} file
 * @param {string} text
 */
export async function writeAtomic (file, text) {
  try {
    await writeFileAtomic(file, text)
  } catch (err) {
    throw new SyncbenchError('SB_ERR_RESULTS', `cannot write ${file} (${err.code || err.message})`, { cause: err })
  }
}

/**
 * Read and check a results.json (syncbench compare, syncbench report).
 * @param {string} file
 * @returns {Promise<import('../types.js').ResultsFile>}
 */
export async function readResultsFile (file) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new SyncbenchError('SB_ERR_RESULTS', `${file}: ${err.code === 'ENOENT' ? 'no such file' : `cannot read (${err.code || err.message})`}`)
  }
  let data
  try {
    data = JSON.parse(text)
  } catch {
    throw new SyncbenchError('SB_ERR_RESULTS', `${file}: not JSON`)
  }
  if (!data || data.schema !== RESULTS_SCHEMA || !Array.isArray(data.runs)) {
    throw new SyncbenchError('SB_ERR_RESULTS', `${file}: not a syncbench results file (schema "${data?.schema}", expected "${RESULTS_SCHEMA}")`)
  }
  return data
}

function outError (out, err) {
  return new SyncbenchError('SB_ERR_INVALID_OPTION', `--out ${out} cannot be created (${err.code || err.message})`, { cause: err })
}
