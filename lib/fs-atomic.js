// Atomic file writes for everything syncbench leaves on disk (results.json, summary.md, report.html,
// charts/*.png, ab's -g/-e files, the lab's data file): the data goes to a temporary name in the same
// folder (so the rename never crosses a file system), then is renamed over the target. A reader sees
// the old file or the new one, never half of one; a failed write removes its temporary file.
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { systemCode } from './errors.js'

const TEMP = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/

/**
 * The temporary name of one write: hidden, beside the target, unique per call (pid + random), so two
 * processes or two concurrent calls in one process never share one.
 * @param {string} file
 */
export function tempNameFor (file) {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
}

/**
 * Write `data` to `file` atomically. Throws the file system's error (ENOENT, EACCES, EISDIR...) after
 * removing the temporary file: callers turn it into their own SyncbenchError, naming their option.
 * @param {string} file
 * @param {string | Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>} data
 *        an (async) iterable is written chunk by chunk: large generated files never sit whole in memory
 * @returns {Promise<void>}
 */
export async function writeFileAtomic (file, data) {
  // A device or a FIFO (ab -g /dev/stdout, -e /dev/null) is written through, as ab writes it: a rename
  // would replace the device node itself with a regular file (root may; others get EACCES in /dev).
  const target = await stat(file).catch(() => null)
  if (target && !target.isFile() && !target.isDirectory()) return writeFile(file, data)
  const temp = tempNameFor(file)
  let ours = true
  try {
    // 'wx': a temporary name that exists already belongs to another writer; never write into it
    await writeFile(temp, data, { flag: 'wx' }).catch((err) => {
      if (err.code === 'EEXIST') ours = false
      throw err
    })
    await rename(temp, file)
  } catch (err) {
    if (ours) await rm(temp, { force: true }).catch(() => {})
    throw err
  }
}

/**
 * Remove the temporary files writeFileAtomic left in `dir` when its process was killed mid-write
 * (kill -9, Ctrl-C without a handler). Only those of processes that no longer exist: a live process
 * may be writing its own right now.
 * @param {string} dir
 * @returns {Promise<string[]>} the names removed
 */
export async function removeStaleTemps (dir) {
  let names
  try {
    names = await readdir(dir)
  } catch (err) {
    const code = systemCode(err)
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw err
  }
  const stale = names.filter((name) => {
    const match = TEMP.exec(name)
    return match && !isAlive(Number(match[1]))
  })
  await Promise.all(stale.map((name) => rm(path.join(dir, name), { force: true })))
  return stale
}

/** @param {number} pid */
function isAlive (pid) {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the pid exists but belongs to another user
    return systemCode(err) === 'EPERM'
  }
}
