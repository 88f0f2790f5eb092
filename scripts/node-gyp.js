// node-gyp for the native TCP transport's two builds: at install (build-native.js) and for the
// package's prebuilt binary (prebuild.js). Both compile against the headers of the Node.js that runs
// them when they are installed beside it, so nothing is downloaded; else node-gyp goes where npm's
// configuration says.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * `node-gyp rebuild` in `cwd` (a folder with binding.gyp), with npm's own node-gyp: the one npm names
 * to the scripts it runs (npm_config_node_gyp), else the one beside this Node.js's npm, else the one
 * on the PATH.
 * @param {string} cwd
 * @returns {{ ok: true } | { ok: false, why: string }} why: the line that says why it failed
 */
export function nodeGypRebuild (cwd) {
  const prefix = resolve(dirname(process.execPath), '..')
  const args = ['rebuild']
  if (existsSync(join(prefix, 'include/node/node_api.h'))) args.push(`--nodedir=${prefix}`)
  const bundled = join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js')
  const script = process.env.npm_config_node_gyp || (existsSync(bundled) ? bundled : null)
  const build = script
    ? spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8' })
    : spawnSync('node-gyp', args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' })
  if (build.status === 0) return { ok: true }
  const why = build.error
    ? build.error.message
    : (build.stderr || build.stdout || '').trim().split('\n').filter((l) => /error/i.test(l)).slice(-1)[0] ?? `node-gyp exit ${build.status ?? build.signal}`
  return { ok: false, why: why.trim() }
}
