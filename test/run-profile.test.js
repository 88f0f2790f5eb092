// lib/analysis/profile.js on a hand-made V8 profile: self time charged to a call (the Node function the app's
// frame called, and that frame), a garbage collection charged as the sample before it, Node's own work by
// module, idle time apart, inclusive time once per sample, samples inside blocking windows apart, and
// the runs of a configuration added up; time in native code or GC counted apart as outside JavaScript.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { summarizeProfile, combineProfiles, windowProfile, BLOCKING_DELAY_MS, SCAN_LINES } from '../lib/analysis/profile.js'
import { combinedProfile } from '../lib/analysis/summarize.js'

const root = '/srv/app'
const app = pathToFileURL('/srv/app/server.js').href
const express = pathToFileURL('/srv/app/node_modules/express/lib/router/layer.js').href
const instrument = pathToFileURL(fileURLToPath(new URL('../lib/lab/metrics.js', import.meta.url))).href
const frame = (functionName, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: '0' })

// (root) -> layer handle (express) -> handler (app) -> hashPasswordSlowly (app) -> pbkdf2Sync (node:) -> run (native)
//        -> (idle), (garbage collector), (program)
//        -> parserOnIncoming (node:_http_server) -> emit (node:events)
//        -> listOnTimeout (node:internal/timers) -> sample (syncbench's metrics)
const nodes = [
  { id: 1, callFrame: frame('(root)'), children: [2, 7, 8, 9, 10, 12] },
  { id: 2, callFrame: frame('handle', express, 94), children: [3] },
  { id: 3, callFrame: frame('', app, 19), children: [4] },
  { id: 4, callFrame: frame('hashPasswordSlowly', app, 11), children: [5] },
  { id: 5, callFrame: frame('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 40), children: [6] },
  { id: 6, callFrame: frame('run'), children: [] },
  { id: 7, callFrame: frame('(idle)'), children: [] },
  { id: 8, callFrame: frame('(garbage collector)'), children: [] },
  { id: 9, callFrame: frame('(program)'), children: [] },
  { id: 10, callFrame: frame('parserOnIncoming', 'node:_http_server', 1000), children: [11] },
  { id: 11, callFrame: frame('emit', 'node:events', 500), children: [] },
  { id: 12, callFrame: frame('listOnTimeout', 'node:internal/timers', 500), children: [13] },
  { id: 13, callFrame: frame('sample', instrument, 40), children: [] }
]
// one sample per ms: 6 x hash (the 4th a GC after it), 2 x idle, 1 x Node's http, 1 x program, 1 x metrics
const samples = [6, 6, 6, 8, 6, 6, 7, 7, 11, 9, 13]
const profile = { nodes, startTime: 0, endTime: 11000, samples, timeDeltas: samples.map(() => 1000) }
// the hash's row: pbkdf2Sync (Node's crypto) called by hashPasswordSlowly, its leaf the native run under
// pbkdf2Sync; /srv/app/server.js is not there to read, so the line of the call is not known
const hash = {
  name: 'pbkdf2Sync',
  location: 'node:internal/crypto/pbkdf2',
  via: 'run',
  entry: { name: 'pbkdf2Sync', package: 'node:crypto' },
  caller: { name: 'hashPasswordSlowly', location: 'server.js:12' }
}

test('self time is charged to the Node function the app called and the app\'s frame that called it', () => {
  const s = summarizeProfile(profile, { file: 'profiles/x.cpuprofile', intervalUs: 1000, root })
  assert.equal(s.samples, 11)
  assert.equal(s.totalMs, 11)
  assert.equal(s.idleMs, 2)
  assert.deepEqual(s.self, [
    // 5 samples in run (native) under pbkdf2Sync, and the GC right after one of them: all outside JavaScript
    { ...hash, ms: 6, nativeMs: 6, leafMs: 6 },
    { name: 'Node.js internals', location: 'node:events', ms: 1 },
    { name: '(program)', location: 'Node/V8, outside JavaScript', ms: 1, nativeMs: 1 },
    { name: 'syncbench', location: 'its metrics and profiler', ms: 1 }
  ])
  // inclusive: the app's frames (a package's from its name on) and what they call directly, once per sample
  // (ties keep the order met, leaf first); Node's dispatch (emit under parserOnIncoming) is not listed
  assert.deepEqual(s.inclusive.map((e) => [e.name, e.location, e.ms]), [
    ['pbkdf2Sync', 'node:internal/crypto/pbkdf2', 6],
    ['hashPasswordSlowly', 'server.js:12', 6],
    ['(anonymous)', 'server.js:20', 6],
    ['handle', 'express/lib/router/layer.js:95', 6]
  ])
  assert.equal(s.blocking, null, 'no series, no blocking windows')
})

test('samples inside a blocking window (the loop late by more than the threshold) are summed apart', () => {
  // series: the sample ending at 7 ms saw the loop 5 ms late (not blocking), the one ending at 100 ms... and
  // the first one, ending at 6 ms, saw it 30 ms late: blocked from before the profile's start up to 6 ms.
  const series = { intervalMs: 100, t: [6, 100], loopDelayMaxMs: [BLOCKING_DELAY_MS + 10, 5], cpuPercent: [100, 10], rssBytes: [1, 1] }
  const s = summarizeProfile(profile, { file: 'x', intervalUs: 1000, root, series, startOffsetMs: 0 })
  // samples at 1..6 ms are in [6 - 30 - 10, 6]: the five hash samples and the GC
  assert.deepEqual(s.blocking, { thresholdMs: BLOCKING_DELAY_MS, ms: 6, self: [{ ...hash, ms: 6, nativeMs: 6, leafMs: 6 }] })
  // the same samples, shifted 50 ms later on the window's clock, are outside it
  assert.equal(summarizeProfile(profile, { file: 'x', intervalUs: 1000, root, series, startOffsetMs: 50 }).blocking?.ms, 0)
})

test('a busy thread whose loop was never late past the threshold has no blocking time', () => {
  // Hashes of 20 ms back to back, one per loop turn: the 10 ms ticker sees them about 10 ms late, at
  // most the threshold itself. Blocking is the loop's lateness, not the thread's busyness.
  const series = { intervalMs: 100, t: [5, 11], loopDelayMaxMs: [BLOCKING_DELAY_MS, 10], cpuPercent: [100, 100], rssBytes: [1, 1] }
  const s = summarizeProfile(profile, { file: 'x', intervalUs: 1000, root, series })
  assert.equal(s.self[0].ms, 6, 'the hash still holds the thread')
  assert.deepEqual(s.blocking, { thresholdMs: BLOCKING_DELAY_MS, ms: 0, self: [] })
})

test('blocking samples are those inside the spans the metrics recorded, not a guess from the 100 ms series', () => {
  // 100 samples of 1 ms: the loop idle up to 10 ms, a 60 ms hash from 10 to 70 ms, then 30 ms of Node's
  // HTTP work in short loop turns (never late). The ticker ran at 9.5 ms, then not until the hash ended:
  // the span [9.5, 70.3]. The series' one sample, ending at 100 ms, saw a delay of about 50 ms (a block of
  // B ms reads as about B - 10): the old estimate put the block at [40, 100], half the hash and all the
  // HTTP work.
  const timeline = [...Array(10).fill(7), ...Array(60).fill(6), ...Array(30).fill(11)]
  const long = { nodes, startTime: 0, endTime: 100_000, samples: timeline, timeDeltas: timeline.map(() => 1000) }
  const series = { intervalMs: 100, t: [100], loopDelayMaxMs: [50.3], cpuPercent: [90], rssBytes: [1] }
  const blocks = { thresholdMs: BLOCKING_DELAY_MS, spans: [[9.5, 70.3]], mergedGapMs: 0 }
  const s = summarizeProfile(long, { file: 'x', intervalUs: 1000, root, series, blocks })
  assert.deepEqual(s.blocking, { thresholdMs: BLOCKING_DELAY_MS, ms: 60, self: [{ ...hash, ms: 60, nativeMs: 60, leafMs: 60 }] })
  // Lined up by the profile's start on the window's clock: a profile started 40 ms later has the hash at
  // 51 to 110 ms of the window, 20 ms of it inside the span.
  assert.equal(summarizeProfile(long, { file: 'x', intervalUs: 1000, root, series, blocks, startOffsetMs: 40 }).blocking?.ms, 20)
  // Without spans (a file from before them) the series' estimate is what there is.
  assert.deepEqual(summarizeProfile(long, { file: 'x', intervalUs: 1000, root, series }).blocking,
    { thresholdMs: BLOCKING_DELAY_MS, ms: 61, self: [{ name: 'Node.js internals', location: 'node:events', ms: 30 }, { ...hash, ms: 31, nativeMs: 31, leafMs: 31 }].sort((a, b) => b.ms - a.ms) })
  // Spans in any order, overlapping, are counted once.
  const messy = { thresholdMs: BLOCKING_DELAY_MS, spans: [[60, 70.3], [9.5, 40], [30, 65]], mergedGapMs: 0 }
  assert.equal(summarizeProfile(long, { file: 'x', intervalUs: 1000, root, blocks: messy }).blocking?.ms, 60)
})

test('the runs of a configuration add up', () => {
  const one = summarizeProfile(profile, { file: 'a', intervalUs: 1000, root })
  const both = combineProfiles([one, { ...one, file: 'b' }])
  assert.equal(both?.runs, 2)
  assert.equal(both?.totalMs, 22)
  assert.deepEqual(both?.self[0], { ...hash, ms: 12, nativeMs: 12, leafMs: 12 })
  assert.deepEqual(both?.files, ['a', 'b'])
  assert.equal(combineProfiles([]), null)
})

test('time in native code is counted apart from the caller\'s JavaScript (execSync waiting for its child)', () => {
  // (root) -> handler (app) -> execSync (node:child_process) -> spawnSync (node:internal) -> spawn (native)
  //                          -> parse (app)
  const n = [
    { id: 1, callFrame: frame('(root)'), children: [2] },
    { id: 2, callFrame: frame('runShellCommand', app, 4), children: [3, 6] },
    { id: 3, callFrame: frame('execSync', 'node:child_process', 900), children: [4] },
    { id: 4, callFrame: frame('spawnSync', 'node:internal/child_process', 1100), children: [5] },
    { id: 5, callFrame: frame('spawn'), children: [] },
    { id: 6, callFrame: frame('parse', app, 30), children: [] }
  ]
  // 8 samples waiting in spawn, 1 in execSync's own JavaScript, 2 in the app's parse
  const timeline = [5, 5, 5, 5, 5, 5, 5, 5, 3, 6, 6]
  const s = summarizeProfile({ nodes: n, startTime: 0, endTime: 11000, samples: timeline, timeDeltas: timeline.map(() => 1000) }, { file: 'x', intervalUs: 1000, root })
  assert.deepEqual(s.self, [
    // the hottest leaf is spawnSync waiting in spawn (8 ms); execSync's own JavaScript (1 ms) is the same call
    { name: 'spawnSync', location: 'node:internal/child_process', via: 'spawn', entry: { name: 'execSync', package: 'node:child_process' }, caller: { name: 'runShellCommand', location: 'server.js:5' }, ms: 9, nativeMs: 8, leafMs: 8 },
    // the app's own code: its own caller, no entry
    { name: 'parse', location: 'server.js:31', caller: { name: 'parse', location: 'server.js:31' }, ms: 2, leafMs: 2 }
  ])
})

test('a configuration\'s routes: its runs\' added up, a mix route named by the user shown by its name', () => {
  const one = summarizeProfile(profile, { file: 'a', intervalUs: 1000, root })
  const run = (routes) => ({
    error: null,
    invalid: null,
    profile: one,
    load: { aborted: false, routes: [{ name: 'login', method: 'POST', path: '/login?next=/', weight: 1 }, { name: 'GET /health', method: 'GET', path: '/health', weight: 9 }] },
    server: { loopBlocks: { thresholdMs: BLOCKING_DELAY_MS, spans: [[0, 50], [60, 100]], mergedGapMs: 0, routes } }
  })
  const combined = combinedProfile([run([{ route: 'POST /login', ms: 80, blocks: 2 }, { route: 'GET /health', ms: 1, blocks: 1 }]), run([{ route: 'POST /login', ms: 40, blocks: 1 }])])
  assert.deepEqual(combined?.routes, [{ route: 'login (POST /login)', ms: 120, blocks: 3 }, { route: 'GET /health', ms: 1, blocks: 1 }])
  assert.equal(combined?.spansMs, 180)
  // runs that did not follow their routes (older files, a server without the preload): no routes at all
  assert.equal(combinedProfile([{ ...run([]), server: { loopBlocks: { thresholdMs: 20, spans: [], mergedGapMs: 0 } } }])?.routes, undefined)
})

/**
 * A profile of one sample a millisecond per stack, the stacks given root first (their frames merged into
 * one tree, as V8 merges them), each `count` times.
 * @param {[object[], number][]} stacks
 * @param {Record<number, { line: number, ticks: number }[]>} [ticks]  positionTicks by the stack's index
 */
function profileOf (stacks, ticks = {}) {
  const nodes = [{ id: 1, callFrame: frame('(root)'), children: [] }]
  const samples = []
  for (const [i, [frames, count]] of stacks.entries()) {
    let at = nodes[0]
    for (const f of frames) {
      let next = at.children.map((id) => nodes[id - 1]).find((n) => JSON.stringify(n.callFrame) === JSON.stringify(f))
      if (!next) {
        next = { id: nodes.length + 1, callFrame: f, children: [] }
        nodes.push(next)
        at.children.push(next.id)
      }
      at = next
    }
    if (ticks[i]) at.positionTicks = ticks[i]
    for (let k = 0; k < count; k++) samples.push(at.id)
  }
  return { nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) }
}

test('the line of a call is read from the caller\'s body: by name, within the function, from V8\'s column on', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-call-line-'))
  after(() => rm(dir, { recursive: true, force: true }))
  const source = [
    'function compareSync (password) {', //      1: a wrapper named as what it calls; V8's column is at "("
    '  const x = xcompareSync(password)', //     2: another name that ends the same
    '  const y = compareSyncAll(password)', //   3: one that starts the same
    '  return bcrypt.compareSync(password, x + y)', // 4: the call
    '}',
    'function other () {', //                    6: calls it only after its body's end
    '  return 1',
    '}',
    'bcrypt.compareSync("outside", "")', //      9
    'function long () {', //                    10: a body longer than SCAN_LINES
    ...Array(SCAN_LINES - 1).fill('  noop()'),
    '  bcrypt.compareSync("far", "")', //        10 + SCAN_LINES: past the scan
    '}'
  ]
  const file = path.join(dir, 'server.js')
  await writeFile(file, source.join('\n'))
  const url = pathToFileURL(file).href
  const bcrypt = pathToFileURL(path.join(dir, 'node_modules/bcryptjs/index.js')).href
  const enc = frame('_encipher', bcrypt, 800)
  const cmp = frame('compareSync', bcrypt, 270)
  const at = (name, line, column) => ({ ...frame(name, url, line - 1), columnNumber: column })
  const lineOf = (caller) => summarizeProfile(profileOf([[[caller, cmp, enc], 1]]), { file: 'x', intervalUs: 1000, root: dir }).self[0].caller
  assert.deepEqual(lineOf(at('compareSync', 1, 20)), { name: 'compareSync', location: 'server.js:1', line: 4 })
  assert.deepEqual(lineOf(at('other', 6, 14)), { name: 'other', location: 'server.js:6' }, 'no call in its body: no line')
  // the scan's edge: a call on the body's last scanned line is found, one line further is not
  const long = at('long', 10, 13)
  assert.equal(lineOf(long).line, undefined)
  source.splice(10 + SCAN_LINES - 2, 0, '  bcrypt.compareSync("near", "")')
  await writeFile(file, source.join('\n'))
  assert.equal(lineOf(long).line, 10 + SCAN_LINES - 1)
})

test('Node working for a package is the package\'s time; a caller that is the leaf, or calls native code, has its line from the samples', () => {
  const pkg = pathToFileURL('/srv/app/node_modules/etag/index.js').href
  // handler (app) -> etag (package) -> createHash (node:crypto) -> Hash (native): the package's call, from the app
  const handler = frame('handler', app, 9)
  const s = summarizeProfile(profileOf([
    [[handler, frame('etag', pkg, 20), frame('createHash', 'node:crypto', 130), frame('Hash')], 3],
    // the handler itself (JSON.stringify, no frame of its own), its samples at lines 11 and 12
    [[handler], 2],
    // an addon's native function called by the handler directly: the leaf's lines are the handler's
    [[handler, frame('work')], 1]
  ], { 1: [{ line: 11, ticks: 1 }, { line: 12, ticks: 3 }], 2: [{ line: 14, ticks: 1 }] }), { file: 'x', intervalUs: 1000, root })
  assert.deepEqual(s.self.map((e) => [e.entry?.name, e.entry?.package, e.caller?.line, e.via, e.ms]), [
    ['etag', 'etag', undefined, 'Hash', 3],
    [undefined, undefined, 12, undefined, 2],
    [undefined, undefined, 14, 'work', 1]
  ])
})

test('only the window\'s samples count: those before it (the warm-up, the profiler\'s own start) and after it are left out', () => {
  // 100 samples of 1 ms: 40 of a hash before the window (the profile starts before the warm-up), then
  // 50 idle inside it, then 10 of Node's HTTP work after its end (the profile stops after the window's read).
  const timeline = [...Array(40).fill(6), ...Array(50).fill(7), ...Array(10).fill(11)]
  const long = { nodes, startTime: 0, endTime: 100_000, samples: timeline, timeDeltas: timeline.map(() => 1000) }
  // the profile's first sample is at 1 ms of its clock: 41 ms on it is the window's 0.5 ms
  const blocks = { thresholdMs: BLOCKING_DELAY_MS, spans: [], mergedGapMs: 0 }
  const s = summarizeProfile(long, { file: 'x', intervalUs: 1000, root, startOffsetMs: -40.5, windowMs: 50, blocks })
  assert.equal(s.samples, 50)
  assert.equal(s.totalMs, 50)
  assert.equal(s.idleMs, 50)
  assert.deepEqual(s.self, [])
  assert.deepEqual(s.inclusive, [])
  assert.deepEqual(s.blocking, { thresholdMs: BLOCKING_DELAY_MS, ms: 0, self: [] })
  // Without a window's length, what follows its start counts.
  const open = summarizeProfile(long, { file: 'x', intervalUs: 1000, root, startOffsetMs: -40.5 })
  assert.equal(open.samples, 60)
  assert.deepEqual(open.self, [{ name: 'Node.js internals', location: 'node:events', ms: 10 }])
})

test('the profile file keeps the window\'s samples, on a clock that starts with the window', () => {
  const timeline = [...Array(40).fill(6), ...Array(50).fill(7), ...Array(10).fill(11)]
  const counted = nodes.map((n) => ({ ...n, hitCount: timeline.filter((id) => id === n.id).length }))
  const long = { nodes: counted, startTime: 5_000_000, endTime: 5_100_000, samples: timeline, timeDeltas: timeline.map(() => 1000) }
  const { profile: cut, startOffsetMs } = windowProfile(long, { startOffsetMs: -40.5, windowMs: 50 })
  assert.equal(startOffsetMs, 0)
  // the window opened 40.5 ms after the profile started, and lasted 50 ms
  assert.equal(cut.startTime, 5_040_500)
  assert.equal(cut.endTime, 5_090_500)
  assert.deepEqual(cut.samples, Array(50).fill(7))
  assert.deepEqual(cut.timeDeltas, [500, ...Array(49).fill(1000)])
  assert.deepEqual(cut.nodes.map((n) => [n.id, n.hitCount]).filter(([, hits]) => hits > 0), [[7, 50]])
  // cutting again changes nothing; a profile that started after the window opened keeps its offset
  assert.deepEqual(windowProfile(cut, { startOffsetMs: 0, windowMs: 50 }), { profile: cut, startOffsetMs: 0 })
  assert.equal(windowProfile(long, { startOffsetMs: 3 }).startOffsetMs, 3)
  assert.equal(windowProfile(long, { startOffsetMs: 3 }).profile.samples.length, 100)
})
