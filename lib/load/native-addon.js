// Finding and loading the native transport's addon (native/io.c), once per thread. It is N-API, so
// one binary loads in every Node.js version that has N-API 8.
//
// Where it comes from, first found first:
//   SYNCBENCH_ADDON=<file.node>   a build of one's own (the sanitizer build: scripts/sanitize.sh)
//   build/Release/syncbench_io.node   built from source at install (scripts/build-native.js)
//   prebuilds/<platform>-<arch>/node.napi[.glibc|.musl].node   shipped in the package
//                                 (scripts/prebuild.js), for installs that run no scripts or have no
//                                 compiler
// The last two are node-gyp-build's order and its reading of prebuildify's names (platform, arch,
// libc: musl where /etc/alpine-release is, else glibc; LIBC=musl says otherwise).
// What SYNCBENCH_IO says: unset or "auto" uses the addon when it loads and node:net otherwise; "net"
// never loads it; "native" insists (the engine refuses to run without it, NativeIoError). Any other
// value is refused by the CLI (checkIoChoice) and loads nothing here.
//
// A missing addon is the normal case without a compiler or a prebuild for this platform: the status
// says "absent" and node:net is used quietly. An addon that is there but does not load (ABI mismatch,
// a missing symbol, a file for another platform or libc) is a fault worth one line: the status says
// "failed" with the loader's reason, and the CLI prints it once (the library never prints).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { InvalidOptionError } from '../errors.js'

const require = createRequire(import.meta.url)
/** @type {{ path (dir: string): string }} node-gyp-build: the build from source, else the prebuild that fits (throws when neither is there) */
const nodeGypBuild = require('node-gyp-build')

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

/** The package's folder: build/ and prebuilds/ are in it. */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url))

/** SYNCBENCH_IO's value when it is none of IO_CHOICES, else null. @param {NodeJS.ProcessEnv} env */
function badIoChoice (env) {
  const raw = env.SYNCBENCH_IO ?? ''
  return raw === '' || IO_CHOICES.includes(raw) ? null : raw
}

/**
 * Refuse a SYNCBENCH_IO that is none of auto, native, net: a misspelt "net" would otherwise measure
 * the native transport, and a misspelt "native" node:net, under the name of the other.
 * @param {NodeJS.ProcessEnv} [env]
 * @throws {InvalidOptionError}
 */
export function checkIoChoice (env = process.env) {
  const raw = badIoChoice(env)
  if (raw !== null) throw new InvalidOptionError(ioChoiceMessage(raw))
}

/** @param {string} raw */
function ioChoiceMessage (raw) {
  return `SYNCBENCH_IO must be one of ${IO_CHOICES.join(', ')}, got ${JSON.stringify(raw)}`
}

/**
 * Find and load the addon as `env` says (see the top of this file).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ addon: Addon|null, status: AddonStatus }}
 */
export function loadAddon (env = process.env) {
  const bad = badIoChoice(env)
  const wanted = /** @type {AddonStatus['wanted']} */ (bad === null && env.SYNCBENCH_IO ? env.SYNCBENCH_IO : 'auto')
  if (bad !== null) return { addon: null, status: { state: 'failed', wanted, path: null, reason: ioChoiceMessage(bad) } }
  if (wanted === 'net') return { addon: null, status: { state: 'disabled', wanted, path: null, reason: 'SYNCBENCH_IO=net' } }
  const path = addonCandidates(env).find((file) => existsSync(file))
  if (path === undefined) {
    const where = env.SYNCBENCH_ADDON ? `SYNCBENCH_ADDON=${env.SYNCBENCH_ADDON}: no such file` : `no build from source and no prebuild for ${process.platform}-${process.arch}`
    return { addon: null, status: { state: 'absent', wanted, path: null, reason: where } }
  }
  try {
    // dlopen, not require: a file of another extension is never run as JavaScript
    const module = { exports: {} }
    process.dlopen(module, path)
    const addon = /** @type {Addon} */ (module.exports)
    return { addon, status: { state: 'loaded', wanted, path, reason: null } }
  } catch (err) {
    const message = String(/** @type {Error} */ (err)?.message ?? err).split('\n')[0]
    // dlopen's message starts with the file's name, which the status has already
    return { addon: null, status: { state: 'failed', wanted, path, reason: message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message } }
  }
}

/**
 * Where the addon is looked for, in the order tried (see the top of this file): SYNCBENCH_ADDON
 * alone when set; else the file node-gyp-build picks, the build from source before the prebuild
 * (none when neither is there).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string[]}
 */
export function addonCandidates (env = process.env) {
  if (env.SYNCBENCH_ADDON) return [env.SYNCBENCH_ADDON]
  try {
    return [nodeGypBuild.path(PACKAGE_DIR)]
  } catch {
    return []
  }
}

const loaded = loadAddon()

/** This thread's addon, or null (node:net is used). */
export const addon = loaded.addon

/** Why the addon is or is not in use: the CLI says it once when it failed to load. */
export const addonStatus = Object.freeze(loaded.status)

/**
 * The one line the CLI prints when the addon is there but unusable (or SYNCBENCH_IO is misspelt, which
 * the CLI refuses first); null when there is nothing to say (loaded, absent, or node:net chosen).
 * @returns {string|null}
 */
export function addonNotice () {
  if (addonStatus.state !== 'failed') return null
  const where = addonStatus.path === null ? '' : ` ${addonStatus.path}`
  return `native transport${where} not loaded (${addonStatus.reason}); node:net is used, at more CPU per request`
}
