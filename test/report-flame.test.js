// lib/report/flame.js on a hand-made V8 profile: the samples merged into one call tree with self and
// total time (idle left out, the same function under the same caller once), frames under the threshold
// folded into "other", kinds that tell the app's JavaScript from Node's and from native code; the drawing
// marks the blocking functions, escapes what it prints, and its one script is the one the CSP allows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { flameTree, drawFlame, isNamed, FLAME_SCRIPT, FLAME_SCRIPT_SOURCE } from '../lib/report/flame.js'

const app = pathToFileURL('/srv/app/server.js').href
const frame = (functionName, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: '0' })

// (root) -> handler (app) -> hash (app) -> pbkdf2Sync (node:) -> run (native)
//                         -> hash (app, a second node of the same function: another column)
//                         -> tiny (app)
//        -> (idle), (garbage collector)
const nodes = [
  { id: 1, callFrame: frame('(root)'), children: [2, 7, 8] },
  { id: 2, callFrame: frame('handler', app, 9), children: [3, 6, 9] },
  { id: 3, callFrame: frame('hash', app, 3), children: [4] },
  { id: 4, callFrame: frame('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 40), children: [5] },
  { id: 5, callFrame: frame('run'), children: [] },
  { id: 6, callFrame: { ...frame('hash', app, 3), columnNumber: 7 }, children: [] },
  { id: 7, callFrame: frame('(idle)'), children: [] },
  { id: 8, callFrame: frame('(garbage collector)'), children: [] },
  { id: 9, callFrame: frame('tiny<script>', app, 50), children: [] }
]
// 1 ms each: 60 in run, 20 in the second hash node, 1 in tiny, 10 idle, 19 GC
const samples = [...Array(60).fill(5), ...Array(20).fill(6), 9, ...Array(10).fill(7), ...Array(19).fill(8)]
const profile = { nodes, startTime: 0, endTime: 110_000, samples, timeDeltas: samples.map(() => 1000) }

test('the profile as one call tree: idle left out, a function under one caller once, tiny frames folded', () => {
  const tree = flameTree([profile], { root: '/srv/app', foldShare: 0.02 })
  assert.equal(tree.totalMs, 100, 'the busy samples: 110 minus 10 idle')
  const [handler, gc] = tree.children
  assert.deepEqual([handler.name, handler.location, handler.kind, handler.totalMs], ['handler', 'server.js:10', 'js', 81])
  assert.deepEqual([gc.name, gc.kind, gc.totalMs, gc.selfMs], ['(garbage collector)', 'outside', 19, 19])
  const [hash, other] = handler.children
  assert.deepEqual([hash.name, hash.totalMs, hash.selfMs], ['hash', 80, 20], 'both nodes of hash, one frame')
  assert.deepEqual(hash.children.map((c) => [c.name, c.kind, c.totalMs]), [['pbkdf2Sync', 'node', 60]])
  assert.deepEqual(hash.children[0].children.map((c) => [c.name, c.kind, c.totalMs]), [['run', 'native', 60]])
  // tiny (1 ms of 100) is under the 2% threshold: folded, and since the fold is under it too, dropped
  assert.equal(other, undefined)
  const unfolded = flameTree([profile, profile], { root: '/srv/app', foldShare: 0.001 })
  assert.equal(unfolded.totalMs, 200, 'two runs add up')
  assert.deepEqual(unfolded.children[0].children.map((c) => c.name), ['hash', 'tiny<script>'])
  // A bound on frames raises the threshold until the tree fits.
  assert.ok(countFrames(flameTree([profile], { root: '/srv/app', foldShare: 0.001, maxFrames: 4 })) <= 4)
})

function countFrames (node) {
  return 1 + node.children.reduce((a, c) => a + countFrames(c), 0)
}

test('the drawing marks the blocking functions (whatever folder their locations are relative to) and escapes names', () => {
  const tree = flameTree([profile], { root: '/', foldShare: 0.001 })
  assert.equal(tree.children[0].location, 'srv/app/server.js:10')
  assert.ok(isNamed(tree.children[0], [{ name: 'handler', location: 'server.js:10' }]))
  assert.ok(!isNamed(tree.children[0], [{ name: 'handler', location: 'er.js:10' }]), 'a whole path segment, not any suffix')
  const html = drawFlame(tree, { id: 'app-flame-1', title: '/hash: flame graph', blocking: [{ name: 'hash', location: 'server.js:4' }] })
  assert.match(html, /<svg [^>]*class="hot" data-s="hash \(srv\/app\/server\.js:4\)">/)
  assert.match(html, /class="native" data-s="run \(native\)">/)
  assert.match(html, /class="outside" data-s="\(garbage collector\)">/)
  assert.match(html, /tiny&lt;script&gt;/)
  assert.doesNotMatch(html, /tiny<script>/)
  assert.match(html, /<input type="search" data-flame="app-flame-1"/)
  assert.equal(drawFlame(flameTree([]), { id: 'x', title: 'x', blocking: [] }), '', 'no busy sample, no graph')
  assert.equal(FLAME_SCRIPT_SOURCE, `'sha256-${createHash('sha256').update(FLAME_SCRIPT).digest('base64')}'`)
})
