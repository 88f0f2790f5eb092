// The folders syncbench creates (run --out, results/, report --out, serve --cache-dir), made only where a
// folder can be: Node 20's recursive mkdir never returns under /proc (it retries the ENOENT for ever), and
// on a read-only file system it reports ENOENT for the missing leaf instead of EROFS. So the nearest
// folder that exists is checked first: a writable directory on a file system that holds files.
import path from 'node:path'
import { constants } from 'node:fs'
import { access, mkdir, stat, statfs } from 'node:fs/promises'
import { InvalidOptionError, systemCode } from './errors.js'

/** Linux's kernel file systems (statfs f_type): they hold no files of ours, and mkdir may hang there. */
const PSEUDO_FS = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore']
])

/**
 * `mkdir -p dir`, after checking that the nearest existing ancestor is a writable directory on a normal
 * file system (checkDirectory).
 * @param {string} dir absolute
 * @param {string} what the option that named it, for the message ("--out /proc/x")
 * @returns {Promise<void>}
 */
export async function makeDirectory (dir, what) {
  await checkDirectory(dir, what)
  await mkdir(path.resolve(dir), { recursive: true })
}

/**
 * Whether `mkdir -p dir` can be done, without doing it: the nearest existing ancestor is a writable
 * directory on a normal file system. A kernel file system is refused as a bad option, naming it; any
 * other failure is the file system's error with its code (ENOTDIR, EACCES, EROFS...), which callers
 * word as their own. A command that starts work before it writes checks here first (syncbench scan:
 * its app, before a results folder it could not create).
 * @param {string} dir absolute
 * @param {string} what the option that named it, for the message ("--out /proc/x")
 * @returns {Promise<void>}
 */
export async function checkDirectory (dir, what) {
  const target = path.resolve(dir)
  let existing = target
  /** @type {import('node:fs').Stats} */
  let info
  for (;;) {
    try {
      info = await stat(existing)
      break
    } catch (err) {
      if (systemCode(err) !== 'ENOENT' || path.dirname(existing) === existing) throw err
      existing = path.dirname(existing)
    }
  }
  if (!info.isDirectory()) throw Object.assign(new Error(`${existing} is not a folder`), { code: 'ENOTDIR' })
  const kind = PSEUDO_FS.get((await statfs(existing)).type)
  if (kind !== undefined) throw new InvalidOptionError(`${what} cannot be created: ${existing} is on ${kind}, a kernel file system`)
  // a read-only file system says EROFS here; mkdir would say ENOENT for the missing leaf
  if (existing !== target) await access(existing, constants.W_OK)
}
