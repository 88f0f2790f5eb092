// Finding and loading the native transport's addon (native/io.c), once per thread. It is N-API, so
// one binary loads in every Node.js version that has N-API 8.
//
// Where it comes from, first found first:
//   SYNCBENCH_ADDON=<file.node>   a build of one's own (the sanitizer build: scripts/sanitize.sh)
//   build/Release/syncbench_io.node   built from source at install (scripts/build-native.js)
// What SYNCBENCH_IO says: unset or "auto" uses the addon when it loads and node:net otherwise; "net"
// never loads it; "native" insists (the engine refuses to run without it, NativeIoError).
//
// A missing addon is the normal case without a compiler: the status says "absent" and node:net is
// used quietly. An addon that is there but does not load (ABI mismatch, a missing symbol, a file for
// another platform) is a fault worth one line: the status says "failed" with the loader's reason,
// and the CLI prints it once (the library never prints).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

/**
 * @typedef {object} Addon
 * @property {(callback: (count: number) => void) => [ArrayBuffer, ArrayBuffer, ArrayBuffer]} init
 * @property {() => number} now
 * @property {(address: string, port: number, ipv6: boolean) => number} target
 * @property {(path: string) => number|null} targetPipe
 * @property {(slot: number, target: number, nodelay: boolean) => number} connect
 * @property {(slot: number, data: Buffer) => boolean} write
 * @property {(slot: number) => void} close
 * @property {() => Record<string, number>} [stats]
 */

/**
 * @typedef {object} AddonStatus
 * @property {'loaded'|'absent'|'failed'|'disabled'} state
 * @property {'auto'|'native'|'net'} wanted what SYNCBENCH_IO asked for
 * @property {string|null} path the file loaded, or the one that failed
 * @property {string|null} reason why it is not loaded ("absent", "failed", "disabled")
 */

const IO_CHOICES = ['auto', 'native', 'net']

/** The build from source at install. */
export const BUILT_ADDON = fileURLToPath(new URL('../../build/Release/syncbench_io.node', import.meta.url))

/**
 * Find and load the addon as `env` says (see the top of this file).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ addon: Addon|null, status: AddonStatus }}
 */
export function loadAddon (env = process.env) {
  const raw = env.SYNCBENCH_IO ?? ''
  const wanted = /** @type {AddonStatus['wanted']} */ (IO_CHOICES.includes(raw) ? raw : 'auto')
  if (raw !== '' && raw !== wanted) return { addon: null, status: { state: 'failed', wanted, path: null, reason: `SYNCBENCH_IO must be one of ${IO_CHOICES.join(', ')}, got ${JSON.stringify(raw)}` } }
  if (wanted === 'net') return { addon: null, status: { state: 'disabled', wanted, path: null, reason: 'SYNCBENCH_IO=net' } }
  const candidates = env.SYNCBENCH_ADDON ? [env.SYNCBENCH_ADDON] : addonCandidates()
  const path = candidates.find((file) => existsSync(file))
  if (path === undefined) {
    const where = env.SYNCBENCH_ADDON ? `SYNCBENCH_ADDON=${env.SYNCBENCH_ADDON}: no such file` : 'not built at install (no compiler, or install scripts skipped)'
    return { addon: null, status: { state: 'absent', wanted, path: null, reason: where } }
  }
  try {
    const addon = /** @type {Addon} */ (createRequire(import.meta.url)(path))
    return { addon, status: { state: 'loaded', wanted, path, reason: null } }
  } catch (err) {
    const message = String(/** @type {Error} */ (err)?.message ?? err).split('\n')[0]
    return { addon: null, status: { state: 'failed', wanted, path, reason: message } }
  }
}

/** Where an addon may be, in the order tried. @returns {string[]} */
export function addonCandidates () {
  return [BUILT_ADDON]
}

const loaded = loadAddon()

/** This thread's addon, or null (node:net is used). */
export const addon = loaded.addon

/** Why the addon is or is not in use: the CLI says it once when it failed to load. */
export const addonStatus = Object.freeze(loaded.status)

/**
 * The one line the CLI prints when the addon is there but unusable, or SYNCBENCH_IO is misspelt;
 * null when there is nothing to say (loaded, absent, or node:net chosen).
 * @returns {string|null}
 */
export function addonNotice () {
  if (addonStatus.state !== 'failed') return null
  const where = addonStatus.path === null ? '' : ` ${addonStatus.path}`
  return `native transport${where} not loaded (${addonStatus.reason}); node:net is used, at more CPU per request`
}
