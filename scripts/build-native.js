// npm install's step for the native TCP transport (native/io.c). An installed package whose prebuilt
// addon (prebuilds/, scripts/prebuild.js) loads in this Node.js compiles nothing. Otherwise, and
// always in a git checkout (its sources may be newer than a prebuild lying in prebuilds/), or when
// asked (npm install --build-from-source, node-gyp-build's flag), it is built from source with
// node-gyp (scripts/node-gyp.js). A build that fails is not an install that fails: syncbench then
// uses the prebuild if one loads, else node:net for every socket (slower: see docs/benchmarks.md),
// and says so here in one line. SYNCBENCH_NO_NATIVE=1 skips the build.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { nodeGypRebuild } from './node-gyp.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Whether the addon loads as syncbench will load it (lib/load/native-addon.js), in another process:
 * an addon that crashes as it loads must not take the install down with it.
 */
function addonLoads () {
  const loader = pathToFileURL(join(root, 'lib/load/native-addon.js')).href
  const env = { ...process.env }
  delete env.SYNCBENCH_ADDON
  delete env.SYNCBENCH_IO
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e',
    `const { addonStatus } = await import(${JSON.stringify(loader)}); process.exitCode = addonStatus.state === 'loaded' ? 0 : 1`], { env, stdio: 'ignore' })
  return probe.status === 0
}

if (process.env.SYNCBENCH_NO_NATIVE !== '1') {
  const checkout = existsSync(join(root, '.git'))
  const fromSource = process.env.npm_config_build_from_source === 'true'
  if (checkout || fromSource || !addonLoads()) {
    const build = nodeGypRebuild(root)
    if (!build.ok) {
      const instead = addonLoads() ? 'the prebuilt one will be used' : 'node:net will be used, at more CPU per request'
      console.warn(`syncbench: native TCP transport not built (${build.why}); ${instead}`)
    }
  }
}
