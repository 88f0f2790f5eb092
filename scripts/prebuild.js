// npm run prebuild (and npm pack's prepack step): the native TCP transport (native/io.c) built for
// this platform and put where an install that runs no scripts, or has no compiler, finds it:
// prebuilds/<platform>-<arch>/node.napi[.<libc>].node, the names prebuildify gives and node-gyp-build
// (lib/load/native-addon.js) reads. The addon is N-API 8, so this one file loads in every Node.js
// from 12.22 on; on Linux it is tagged glibc or musl, since a glibc build does not load on musl.
// A glibc build needs the glibc it was linked against or a newer one: the line printed at the end
// says which (the newest GLIBC_ symbol version the file asks for).
//
// The build runs in a temporary copy of binding.gyp and native/, so the checkout's own build from
// source (build/Release, what npm install made) is left as it is. A build that fails, or a file that
// then does not load in this Node.js, fails the script: a package must not be packed without it.
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nodeGypRebuild } from './node-gyp.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** This machine's libc, as a prebuild's tag: glibc or musl on Linux, none elsewhere. */
function libcTag () {
  if (process.platform !== 'linux') return null
  const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport())
  return report.header.glibcVersionRuntime ? 'glibc' : 'musl'
}

/**
 * The newest glibc symbol version a binary asks for ("2.14"), or null for none.
 * @param {Buffer} binary
 */
function glibcNeeded (binary) {
  const versions = [...binary.toString('latin1').matchAll(/GLIBC_(\d+(?:\.\d+)+)/g)].map((m) => m[1].split('.').map(Number))
  versions.sort((a, b) => { for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0); return 0 })
  return versions.length === 0 ? null : versions[versions.length - 1].join('.')
}

const libc = libcTag()
const dir = join(root, 'prebuilds', `${process.platform}-${process.arch}`)
const file = join(dir, `node.napi${libc ? `.${libc}` : ''}.node`)
const work = mkdtempSync(join(tmpdir(), 'syncbench-prebuild-'))
try {
  copyFileSync(join(root, 'binding.gyp'), join(work, 'binding.gyp'))
  cpSync(join(root, 'native'), join(work, 'native'), { recursive: true })
  const build = nodeGypRebuild(work)
  if (!build.ok) throw new Error(`the build failed (${build.why})`)
  // next to the file it replaces, then renamed over it: a reader never sees half a binary
  mkdirSync(dir, { recursive: true })
  const partial = `${file}.${process.pid}.tmp`
  copyFileSync(join(work, 'build/Release/syncbench_io.node'), partial)
  renameSync(partial, file)
  // in another process: an addon that crashes as it loads must not take this script's message with it
  const load = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', file], { encoding: 'utf8' })
  if (load.status !== 0) throw new Error(`${relative(root, file)} does not load in Node.js ${process.version}: ${(load.stderr.trim().split('\n').find((l) => /Error/.test(l)) ?? `exit ${load.status ?? load.signal}`).trim()}`)
  const binary = readFileSync(file)
  const glibc = libc === 'glibc' ? glibcNeeded(binary) : null
  console.error(`syncbench: ${relative(root, file)} (${Math.ceil(binary.length / 1024)} KiB, N-API 8: one file for every Node.js version${glibc ? `; glibc ${glibc} or newer` : ''})`)
} catch (err) {
  console.error(`syncbench: no prebuilt native transport: ${/** @type {Error} */ (err).message}`)
  process.exitCode = 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
