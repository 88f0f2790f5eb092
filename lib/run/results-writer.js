// results/<timestamp>/results.json, rewritten after every run to a temporary name and renamed over
// the old one: a crash or Ctrl-C at any moment leaves the last complete file, never a half-written one.
import path from 'node:path'
import { mkdir, readdir, readFile, rename, writeFile, unlink } from 'node:fs/promises'
import { SyncbenchError } from '../errors.js'

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
  const base = path.join(cwd, 'results', timestampName(now))
  // Two runs started within the same second get -2, -3... rather than sharing a folder.
  for (let i = 1; ; i++) {
    const dir = i === 1 ? base : `${base}-${i}`
    try {
      await mkdir(dir, { recursive: true })
      if ((await readdir(dir)).length === 0) return dir
    } catch (err) {
      throw outError(path.relative(cwd, dir), err)
    }
  }
}

/**
 * Write text to `file` atomically.
 * @param {string} file
 * @param {string} text
 */
export async function writeAtomic (file, text) {
  const temp = `${file}.${process.pid}.tmp`
  try {
    await writeFile(temp, text)
    await rename(temp, file)
  } catch (err) {
    await unlink(temp).catch(() => {})
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
