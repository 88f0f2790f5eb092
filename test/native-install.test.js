// The native transport where no install script runs and no compiler is: `npm pack` (its prepack
// builds prebuilds/, scripts/prebuild.js) of a copy of this checkout, installed from the tarball with
// --ignore-scripts in an empty folder, runs `syncbench ab` on the prebuilt addon. The same install
// without its prebuild, or with one that does not load, falls back to node:net (quietly, or in one
// line); a build from source comes first; the install script compiles nothing when the prebuild
// loads. And the checkout's CLI: a corrupt addon is one line and a run on node:net, a misspelt
// SYNCBENCH_IO a usage error.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli, runCommand, startHttpServer } from './helper.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const prefix = resolve(dirname(process.execPath), '..')

/** Why the packing tests cannot run here, or false. */
function packSkip () {
  const missing = ['npm', 'make', 'python3', process.env.CC ?? 'cc'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error)
  if (missing.length > 0) return `needs ${missing.join(', ')} (npm pack builds the prebuild with node-gyp)`
  if (!existsSync(join(prefix, 'include/node/node_api.h'))) return `needs Node.js's headers in ${join(prefix, 'include/node')} (node-gyp would download them)`
  return false
}

/**
 * This process's environment without npm's variables (npm test sets its own run's) and without the
 * ones that choose the addon.
 * @param {Record<string, string>} [extra]
 */
function cleanEnv (extra = {}) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== 'SYNCBENCH_ADDON' && k !== 'SYNCBENCH_IO') env[k] = v
  return { ...env, NO_COLOR: '1', ...extra }
}

/**
 * Run a command to its end, bounded in time, in this process's environment cleaned (cleanEnv) or the one given.
 * @param {string} cmd @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, timeoutMs?: number }} [options]
 */
function exec (cmd, args, options = {}) {
  return runCommand(cmd, args, { ...options, env: options.env ?? cleanEnv(), exactEnv: true })
}

/** Folders of a checkout that are made, not written: left out of the copy that is packed. */
const MADE = new Set(['node_modules', '.git', 'build', 'prebuilds', 'results', '.cache', 'coverage', 'test-results'])

describe('installed from npm pack\'s tarball with --ignore-scripts', { skip: packSkip() }, () => {
  const work = mkdtempSync(join(tmpdir(), 'syncbench-pack-'))
  const app = join(work, 'app')
  const installed = join(app, 'node_modules/syncbench')
  const prebuild = join(installed, 'prebuilds', `${process.platform}-${process.arch}`, `node.napi${process.platform === 'linux' ? '.glibc' : ''}.node`)
  /** @type {string[]} the tarball's files */
  let packed = []
  /** @type {Awaited<ReturnType<typeof startHttpServer>>} */
  let server

  before(async () => {
    // a copy, so that prepack's prebuilds/ lands there and not under the other tests
    const source = join(work, 'source')
    cpSync(repo, source, { recursive: true, filter: (src) => !MADE.has(relative(repo, src).split(/[\\/]/)[0]) })
    symlinkSync(join(repo, 'node_modules'), join(source, 'node_modules'), 'dir')
    // prepack runs as it is, but its type declarations step is made a no-op in the copy: they are
    // test/api-types.test.js's subject, and tsc would be half of this file's time (the file is bounded
    // by node --test's --test-timeout as a whole)
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'))
    assert.match(manifest.scripts.prepack, /npm run prebuild/)
    manifest.scripts.types = 'node -e ""'
    writeFileSync(join(source, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
    const pack = await exec('npm', ['pack', '--json', '--pack-destination', work], { cwd: source, timeoutMs: 240_000 })
    assert.equal(pack.code, 0, pack.stderr)
    const [{ filename, files }] = JSON.parse(pack.stdout)
    packed = files.map((/** @type {{ path: string }} */ f) => f.path)
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n')
    const install = await exec('npm', ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename)], { cwd: app, timeoutMs: 240_000 })
    assert.equal(install.code, 0, install.stderr)
    server = await startHttpServer((req, res) => res.end('ok'))
  }, { timeout: 500_000 })

  after(async () => {
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  /** The installed copy's `syncbench ab --json -n 20 -c 2`. @param {Record<string, string>} [env] */
  async function ab (env) {
    const bin = realpathSync(join(app, 'node_modules/.bin/syncbench'))
    return exec(process.execPath, [bin, 'ab', '--json', '-n', '20', '-c', '2', server.url], { env: cleanEnv(env), timeoutMs: 30_000 })
  }

  /** The installed copy's addon status (lib/load/native-addon.js). @param {Record<string, string>} [env] */
  async function addonStatus (env) {
    const loader = join(installed, 'lib/load/native-addon.js')
    const r = await exec(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(loader)}); console.log(JSON.stringify(m.addonStatus))`], { env: cleanEnv(env) })
    assert.equal(r.code, 0, r.stderr)
    return JSON.parse(r.stdout)
  }

  /**
   * Run `fn` with a file of the installed copy replaced (or removed: null), then put back.
   * @param {string} file @param {Buffer|null} content @param {() => Promise<void>} fn
   */
  async function withFile (file, content, fn) {
    const saved = existsSync(file) ? readFileSync(file) : null
    try {
      if (content === null) rmSync(file)
      else { mkdirSync(dirname(file), { recursive: true }); writeFileSync(file, content) }
      await fn()
    } finally {
      if (saved === null) rmSync(file, { force: true })
      else writeFileSync(file, saved)
    }
  }

  test('npm pack carries the prebuild for this platform (prepack builds it), and the install script', () => {
    assert.ok(packed.includes(relative(installed, prebuild)), `${relative(installed, prebuild)} is not in the tarball: ${packed.filter((f) => !f.startsWith('lib/')).join(', ')}`)
    for (const file of ['scripts/build-native.js', 'scripts/node-gyp.js', 'binding.gyp', 'native/io.c']) assert.ok(packed.includes(file), file)
    assert.ok(!packed.some((f) => f.startsWith('build/')), 'no build from source in the package')
  })

  test('syncbench ab runs on the prebuilt native transport: nothing compiled, nothing said', async () => {
    assert.ok(!existsSync(join(installed, 'build')), 'nothing was compiled')
    const status = await addonStatus()
    assert.equal(status.state, 'loaded')
    assert.equal(status.path, prebuild)
    const r = await ab()
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
    const result = JSON.parse(r.stdout)
    assert.equal(result.transport, 'native')
    assert.equal(result.completeRequests, 20)
    assert.equal(result.failedRequests, 0)
  })

  test('the same install without its prebuild (a tarball made without one): node:net, quietly', async () => {
    const shelf = join(work, 'prebuilds-aside')
    renameSync(join(installed, 'prebuilds'), shelf)
    try {
      const status = await addonStatus()
      assert.equal(status.state, 'absent')
      const r = await ab()
      assert.equal(r.code, 0, r.stderr)
      assert.equal(r.stderr, '', 'an addon that is not there is the expected case: nothing to say')
      assert.deepEqual([JSON.parse(r.stdout).transport, JSON.parse(r.stdout).completeRequests], ['node:net', 20])
    } finally {
      renameSync(shelf, join(installed, 'prebuilds'))
    }
  })

  test('a prebuild that does not load: one line naming it, the run on node:net, exit 0', async () => {
    await withFile(prebuild, Buffer.from('not an ELF file\n'.repeat(64)), async () => {
      const status = await addonStatus()
      assert.equal(status.state, 'failed')
      const r = await ab()
      assert.equal(r.code, 0, r.stderr)
      const lines = r.stderr.split('\n').filter(Boolean)
      assert.equal(lines.length, 1, r.stderr)
      assert.equal(lines[0], `syncbench ab: native transport ${prebuild} not loaded (${status.reason}); node:net is used, at more CPU per request`)
      assert.deepEqual([JSON.parse(r.stdout).transport, JSON.parse(r.stdout).completeRequests], ['node:net', 20])
    })
  })

  test('a build from source (build/Release) comes before the prebuild, and SYNCBENCH_ADDON before both', async () => {
    const built = join(installed, 'build/Release/syncbench_io.node')
    try {
      await withFile(built, readFileSync(prebuild), async () => {
        assert.equal((await addonStatus()).path, built)
        assert.equal((await addonStatus({ SYNCBENCH_ADDON: prebuild })).path, prebuild)
      })
      // a build from source that is there but does not load is said, not passed over
      await withFile(built, Buffer.from('garbage'), async () => {
        const status = await addonStatus()
        assert.deepEqual([status.state, status.path], ['failed', built])
      })
    } finally {
      rmSync(join(installed, 'build'), { recursive: true, force: true })
    }
  })

  test('the install script: compiles nothing when the prebuild loads; without one, a failed build is one line and exit 0', async () => {
    const script = join(installed, 'scripts/build-native.js')
    const quiet = await exec(process.execPath, [script], { cwd: installed })
    assert.equal(quiet.code, 0, quiet.stderr)
    assert.equal(quiet.stderr, '')
    assert.ok(!existsSync(join(installed, 'build')), 'the prebuild loads: no compiler run')
    const shelf = join(work, 'prebuilds-aside')
    renameSync(join(installed, 'prebuilds'), shelf)
    try {
      // no compiler (CC names none): node-gyp fails, the install does not
      const failed = await exec(process.execPath, [script], { cwd: installed, env: cleanEnv({ CC: '/nonexistent/cc', CXX: '/nonexistent/c++' }), timeoutMs: 120_000 })
      assert.equal(failed.code, 0, failed.stderr)
      const lines = failed.stderr.split('\n').filter(Boolean)
      assert.equal(lines.length, 1, failed.stderr)
      assert.match(lines[0], /^syncbench: native TCP transport not built \(.+\); node:net will be used, at more CPU per request$/)
    } finally {
      rmSync(join(installed, 'build'), { recursive: true, force: true })
      renameSync(shelf, join(installed, 'prebuilds'))
    }
  })
})

test('a corrupt addon (SYNCBENCH_ADDON=<garbage>): one line on stderr from ab and from run, the load on node:net, exit 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncbench-addon-'))
  const server = await startHttpServer((req, res) => res.end('ok'))
  try {
    const garbage = join(dir, 'garbage.node')
    writeFileSync(garbage, Buffer.alloc(4096, 0x5a))
    const r = await runCli(['ab', '--json', '-n', '20', '-c', '2', server.url], { env: { SYNCBENCH_ADDON: garbage, SYNCBENCH_IO: '' }, timeoutMs: 30_000 })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stderr, new RegExp(`^syncbench ab: native transport ${garbage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} not loaded \\([^\\n]+\\); node:net is used, at more CPU per request\\n$`))
    assert.deepEqual([JSON.parse(r.stdout).transport, JSON.parse(r.stdout).completeRequests], ['node:net', 20])
    // syncbench run says it once too, whatever its runs load
    const app = join(dir, 'app.cjs')
    writeFileSync(app, "require('node:http').createServer((req, res) => res.end('ok')).listen(process.env.PORT, '127.0.0.1')\n")
    const out = join(dir, 'out')
    const run = await runCli(['run', '--app', `node ${app}`, '-n', '20', '-c', '2', '--runs', '1', '--out', out], { env: { SYNCBENCH_ADDON: garbage, SYNCBENCH_IO: '' }, timeoutMs: 60_000 })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stderr.split('\n').filter((l) => l.includes('native transport')).length, 1, run.stderr)
    assert.match(run.stderr, /^syncbench run: native transport .+ not loaded \(.+\); node:net is used, at more CPU per request\n/)
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    assert.deepEqual(results.runs.map((/** @type {{ load: { transport: string } }} */ x) => x.load.transport), ['node:net'])
  } finally {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SYNCBENCH_IO=bogus is a usage error: one line naming it, exit 2, nothing sent or written', async () => {
  let requests = 0
  const server = await startHttpServer((req, res) => { requests++; res.end('ok') })
  const dir = mkdtempSync(join(tmpdir(), 'syncbench-io-'))
  try {
    const line = 'SYNCBENCH_IO must be one of auto, native, net, got "bogus"\n'
    const ab = await runCli(['ab', '--json', '-n', '5', server.url], { env: { SYNCBENCH_IO: 'bogus' }, timeoutMs: 30_000 })
    assert.deepEqual([ab.code, ab.stdout, ab.stderr], [2, '', `syncbench ab: ${line}`])
    const out = join(dir, 'out')
    const run = await runCli(['run', 'seed-bcrypt', '--runs', '1', '-n', '10', '-c', '1', '--out', out], { env: { SYNCBENCH_IO: 'bogus' }, timeoutMs: 60_000 })
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, '', `syncbench run: ${line}`])
    assert.ok(!existsSync(out), 'no results folder')
    assert.equal(requests, 0)
  } finally {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
