// The files a user names as input and syncbench reads whole (results.json for report and compare, ab
// --json results for merge, --experiment files and the modules they name), checked before a byte is
// read: `syncbench report /dev/zero` used to read 600 MB for 1.6 s before V8 refused the string, and a
// FIFO would have waited for a writer for ever. A path that is not a regular file is refused naming
// what it is; a regular file over INPUT_FILE_LIMIT is refused with its size.
import { constants } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { systemCode } from './errors.js'
import { formatBytes } from './format.js'

/**
 * The largest input file syncbench reads: 256 MiB. The biggest results.json `syncbench run all` writes
 * is 1.0 MB (115 runs, about 9 KB each), so this holds some 29000 runs; it stays under half of V8's
 * longest string (2^29 - 24 characters), past which no file can be parsed at all.
 */
export const INPUT_FILE_LIMIT = 256 * 1024 * 1024

/**
 * What a path is, in a few words: "a folder", "a character device", "a named pipe"...
 * @param {import('node:fs').Stats} info from stat (links followed)
 * @returns {string}
 */
export function fileKind (info) {
  if (info.isFile()) return 'a regular file'
  if (info.isDirectory()) return 'a folder'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isFIFO()) return 'a named pipe'
  if (info.isSocket()) return 'a socket'
  return 'not a regular file'
}

/**
 * Why a path cannot be read as an input file, or null when it can: not a regular file (naming what it
 * is), or bigger than the limit.
 * @param {import('node:fs').Stats} info
 * @param {number} [limit]
 * @returns {string|null}
 */
export function inputFileProblem (info, limit = INPUT_FILE_LIMIT) {
  if (!info.isFile()) return `${fileKind(info)}, not a regular file`
  if (info.size > limit) return `${size(info.size)}, over the ${size(limit)} limit of an input file`
  return null
}

/**
 * @typedef {object} InputFileOptions
 * @property {(message: string, cause?: unknown) => Error} fail the caller's error (ResultsError,
 *           ExperimentError...) for a message that starts with the path's problem: "no such file",
 *           "a folder, not a regular file", "cannot read it (EACCES)"
 * @property {number} [limit] bytes, INPUT_FILE_LIMIT by default
 */

/**
 * Stat `file` and refuse what inputFileProblem refuses, before any read.
 * @param {string} file
 * @param {InputFileOptions} options
 * @returns {Promise<import('node:fs').Stats>}
 */
export async function checkInputFile (file, { fail, limit = INPUT_FILE_LIMIT }) {
  let info
  try {
    info = await stat(file)
  } catch (err) {
    throw failure(err, fail)
  }
  const problem = inputFileProblem(info, limit)
  if (problem !== null) throw fail(problem)
  return info
}

/**
 * Read an input file whole as UTF-8 after checkInputFile's checks. The file is opened without
 * blocking (a FIFO put in its place after the stat would otherwise wait for a writer), checked again
 * on the open descriptor, and read to at most `limit` bytes whatever it grows to meanwhile.
 * `stream: true` reads a stream the user gave on purpose (merge's `-`, /dev/stdin): any kind of file,
 * read until its end or the limit.
 * @param {string} file
 * @param {InputFileOptions & { stream?: boolean }} options
 * @returns {Promise<string>}
 */
export async function readInputFile (file, { fail, limit = INPUT_FILE_LIMIT, stream = false }) {
  if (!stream) await checkInputFile(file, { fail, limit })
  let handle
  try {
    // O_NONBLOCK only matters for a FIFO or a device; it is not defined on Windows
    handle = await open(file, stream ? constants.O_RDONLY : constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (err) {
    throw failure(err, fail)
  }
  try {
    if (!stream) {
      const problem = inputFileProblem(await handle.stat(), limit)
      if (problem !== null) throw fail(problem)
    }
    /** @type {Buffer[]} */
    const chunks = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limit + 1 - total))
      let bytesRead
      try {
        ({ bytesRead } = await handle.read(chunk, 0, chunk.length, null))
      } catch (err) {
        throw failure(err, fail)
      }
      if (bytesRead === 0) break
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead))
      total += bytesRead
      if (total > limit) throw fail(`more than ${size(limit)}, the limit of an input file`)
    }
    return Buffer.concat(chunks, total).toString('utf8')
  } finally {
    await handle.close()
  }
}

/**
 * A file system refusal as the caller's error; anything else (a bug) as it is.
 * @param {unknown} err
 * @param {InputFileOptions['fail']} fail
 */
function failure (err, fail) {
  const code = systemCode(err)
  if (code === undefined) return err
  return fail(code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`, err)
}

/**
 * Bytes as formatBytes writes them, with the exact count where it rounds ("256 MiB (268435457 bytes)"),
 * so a file just over the limit never reads as the limit itself.
 * @param {number} bytes
 */
function size (bytes) {
  const text = formatBytes(bytes)
  const unit = 1024 ** Math.min(4, Math.floor(Math.log(Math.max(bytes, 1)) / Math.log(1024)))
  return Number((bytes / unit).toFixed(1)) * unit === bytes ? text : `${text} (${bytes} bytes)`
}
