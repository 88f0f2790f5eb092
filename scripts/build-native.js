// npm install's step for the native TCP transport (native/io.c): build it with node-gyp, against the
// headers of the Node.js that runs this when they are installed beside it (no download), else where
// npm's configuration says. A build that fails is not an install that fails: syncbench then uses
// node:net for every socket (slower: see README, "Benchmarks"), and says so here in
// one line. SYNCBENCH_NO_NATIVE=1 skips the build.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
if (process.env.SYNCBENCH_NO_NATIVE === '1') process.exit(0)

const prefix = resolve(dirname(process.execPath), '..')
const args = ['rebuild']
if (existsSync(join(prefix, 'include/node/node_api.h'))) args.push(`--nodedir=${prefix}`)
// npm puts its own node-gyp on the PATH of install scripts
const build = spawnSync('node-gyp', args, { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' })
if (build.status !== 0) {
  const why = build.error ? build.error.message : (build.stderr || build.stdout).trim().split('\n').filter((l) => /error/i.test(l)).slice(-1)[0] ?? `exit ${build.status}`
  console.warn(`syncbench: native TCP transport not built (${why.trim()}); node:net will be used, at more CPU per request`)
}
