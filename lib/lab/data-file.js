// The file the readfile servers read: random bytes of a chosen size, generated once into a cache
// folder and reused while its size matches. Never a path taken from a request.
// The folder's data files total at most MAX_CACHE_BYTES: before a new file is written, the others
// are removed, oldest written first (mtime; a reused file is not rewritten), until it fits. A server that
// reads many sizes (the lab's `size` parameter) keeps one file, the largest, and reads a prefix of it.
import os from 'node:os'
import path from 'node:path'
import { randomFill } from 'node:crypto'
import { promisify } from 'node:util'
import { readdir, stat, unlink } from 'node:fs/promises'
import { makeDirectory } from '../fs-dir.js'
import { InvalidOptionError, ServerStartError, firstLine, systemCode } from '../errors.js'
import { writeFileAtomic } from '../fs-atomic.js'

export const DEFAULT_FILE_SIZE = 4 * 1024 * 1024
export const MAX_FILE_SIZE = 1024 * 1024 * 1024
/** The data files of one cache folder together: the largest file, so any one size still fits. */
export const MAX_CACHE_BYTES = MAX_FILE_SIZE
const DATA_FILE = /^data-\d+\.bin$/
const CHUNK = 1024 * 1024
const fill = promisify(randomFill)
/** @type {Record<string, number>} */
const units = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 }

/**
 * Bytes from "4194304", "4m", "4MiB", "512k", "1g" (binary units, as the file sizes in the seed are).
 * @param {string|number} raw
 * @param {number} [max] the largest accepted (default: a data file's, 1 GiB)
 * @returns {number|null} null when malformed or outside 0..max
 */
export function parseSize (raw, max = MAX_FILE_SIZE) {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw))
  if (!match || !Object.hasOwn(units, match[2].toLowerCase())) return null
  const bytes = Math.round(Number(match[1]) * units[match[2].toLowerCase()])
  return Number.isSafeInteger(bytes) && bytes <= max ? bytes : null
}

/**
 * The cache folder: --cache-dir, else $SYNCBENCH_CACHE_DIR, else <os.tmpdir()>/syncbench-cache.
 * A temporary folder because the data is random and regenerated in seconds, and a 1 GiB file
 * has no business in a project directory.
 * @param {{ cacheDir?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export function cacheDir ({ cacheDir, env = process.env } = {}) {
  return path.resolve(cacheDir || env.SYNCBENCH_CACHE_DIR || path.join(os.tmpdir(), 'syncbench-cache'))
}

/** @type {Map<string, Promise<string>>} */
const pending = new Map()

/**
 * Path of a file of exactly `size` random bytes in the cache folder, created if missing. Creation
 * writes a temporary name and renames it, so concurrent processes never read a half-written file;
 * concurrent calls in one process share one creation.
 * @param {number} size bytes, 0..1 GiB
 * @param {{ cacheDir?: string, env?: NodeJS.ProcessEnv, maxCacheBytes?: number, signal?: AbortSignal }} [options]
 *        maxCacheBytes: the folder's bound (default MAX_CACHE_BYTES; smaller in tests); signal: stop writing
 *        (serve got SIGTERM while it starts): the temporary file is removed and the promise rejects with
 *        the signal's reason
 * @returns {Promise<string>}
 */
export async function ensureDataFile (size, options = {}) {
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_FILE_SIZE) {
    throw new InvalidOptionError(`--file-size must be 0 to 1 GiB, got "${size}"`)
  }
  const dir = cacheDir(options)
  const file = path.join(dir, `data-${size}.bin`)
  const existing = pending.get(file)
  if (existing) return existing
  const creation = create(dir, file, size, options.maxCacheBytes ?? MAX_CACHE_BYTES, options.signal).finally(() => pending.delete(file))
  pending.set(file, creation)
  return creation
}

/**
 * @param {string} dir
 * @param {string} file
 * @param {number} size
 * @param {number} limit the folder's bound
 * @param {AbortSignal} [signal]
 * @returns {Promise<string>}
 */
async function create (dir, file, size, limit, signal) {
  try {
    const existing = await stat(file)
    if (existing.isFile() && existing.size === size) return file
  } catch (err) {
    if (systemCode(err) !== 'ENOENT') throw cacheError(dir, err)
  }
  try {
    await makeDirectory(dir, `--cache-dir ${dir}`)
    await evict(dir, file, size, limit)
    // streamed chunk by chunk: a 1 GiB file never sits whole in memory
    await writeFileAtomic(file, randomChunks(size, signal))
  } catch (err) {
    if (signal?.aborted) throw signal.reason
    // a kernel file system (makeDirectory) is already one line naming --cache-dir
    throw err instanceof InvalidOptionError ? err : cacheError(dir, err)
  }
  return file
}

/**
 * Remove the folder's other data files, oldest written first, until `size` more bytes keep the
 * total within `limit`. A process still reading a removed file by path regenerates it on its
 * next ensureDataFile; one holding it open reads on (POSIX keeps an unlinked open file).
 * @param {string} dir
 * @param {string} keep  the file about to be written
 * @param {number} size  its bytes
 * @param {number} limit
 */
async function evict (dir, keep, size, limit) {
  const names = (await readdir(dir)).filter((name) => DATA_FILE.test(name) && path.join(dir, name) !== keep)
  /** @type {{ file: string, size: number, written: number }[]} */
  const files = []
  for (const name of names) {
    try {
      const s = await stat(path.join(dir, name))
      if (s.isFile()) files.push({ file: path.join(dir, name), size: s.size, written: s.mtimeMs })
    } catch (err) {
      if (systemCode(err) !== 'ENOENT') throw err
    }
  }
  files.sort((a, b) => a.written - b.written)
  let total = files.reduce((sum, f) => sum + f.size, 0)
  for (const f of files) {
    if (total + size <= limit) break
    try {
      await unlink(f.file)
    } catch (err) {
      if (systemCode(err) !== 'ENOENT') throw err
    }
    total -= f.size
  }
}

/**
 * `size` random bytes in chunks of at most CHUNK, each a fresh buffer (the writer may still hold the
 * last); ends with the signal's reason once `signal` aborts (writeFileAtomic then removes its temporary file).
 * @param {number} size
 * @param {AbortSignal} [signal]
 */
async function * randomChunks (size, signal) {
  for (let left = size; left > 0; left -= CHUNK) {
    signal?.throwIfAborted()
    yield await fill(Buffer.allocUnsafe(Math.min(CHUNK, left)))
  }
}

/**
 * @param {string} dir
 * @param {unknown} err
 */
function cacheError (dir, err) {
  return new ServerStartError(`cannot create the data file in --cache-dir ${dir} (${systemCode(err) || firstLine(err)})`, { cause: err })
}
