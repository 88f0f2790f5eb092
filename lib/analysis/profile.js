// Where the event loop went: a CPU profile of a server's main thread over the measured window (written
// by lib/lab/instrument.js, V8's .cpuprofile format) reduced to the calls that held the thread.
// Self time is charged to a call the user can change: each sample's stack is walked up from its leaf to the
// entry of the leaf's package (where control entered bcryptjs: its `compareSync`) and to its caller (the first
// frame of the app's own code, outside node_modules; for an app that is itself a package under node_modules,
// the frame of the package that called). A sample whose leaf is inside Node (node:internal code, a native
// function such as pbkdf2's `run`) has Node as its package, entered at the function the app called
// (`pbkdf2Sync`); Node working for a package (bcryptjs asking crypto for bytes) is that package's time.
// The caller's line is the line of the call: V8 merges the calls of a function from one caller into one
// profile node whatever their lines, and gives lines (positionTicks) only for a node's own samples. So the
// line comes from the samples when the caller is the leaf (JSON.stringify has no frame of its own: its time
// is its caller's, at the line of the call) or calls native code directly (a native leaf's positionTicks
// are the line of its JavaScript caller); otherwise from the caller's source, the first line of its body
// that calls the function it called by name. A package whose work runs in slices from Node's timers or
// ticks (bcryptjs's async compare) has no caller on those stacks: the row says it is chunked and names the
// call that started it where a sampled stack shows that call (its first slice runs inside it).
// Each row names its hottest leaf (`_encipher`), the innermost JavaScript frame and the native function it
// was in, if any (`via`).
// A garbage-collection sample is charged as the sample before it (the code that allocated, most often).
// Time no JavaScript explains is counted apart in each entry's `nativeMs`: samples whose leaf is native
// code (a C++ function such as execSync's `spawn` or pbkdf2's `run`: the thread blocked in a system call
// or a library), garbage collection, and "(program)" (V8 or Node with no JavaScript on the stack); the
// report labels it "native code / GC, outside JavaScript" rather than as the caller's own JavaScript.
// Samples with no app or package frame at all (Node's HTTP parsing before a handler runs) are charged to
// the Node module they ran in. Inclusive time counts a function once per sample its stack holds it.
// Blocking: samples taken while the event loop was held past BLOCKING_DELAY_MS (the spans the metrics
// recorded, ServerMetrics.loopBlocks, lined up with the profile's clock) are summed apart, so the answer
// names what blocks the loop, not only what keeps it busy. A server without spans (a results file or an
// instrument from before them) falls back to the 100 ms series, an estimate: each late sample of it is
// taken as a block ending at the sample's end.
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { createRequire, builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import { roundTo } from '../format.js'
import { BLOCKING_DELAY_MS } from '../lab/loop-blocks.js'

export { BLOCKING_DELAY_MS }
/** syncbench's own code in the app's process (lib/lab/instrument.js, metrics.js): never the app's. */
const OWN_DIR = fileURLToPath(new URL('../lab/', import.meta.url))
/** How many functions a run keeps per list (the report shows fewer; runs are added before it cuts). */
const KEEP = 15
/** How far into a caller's source the line of its call is looked for (a function longer is cut there). */
export const SCAN_LINES = 400
/** Node's modules whose functions run work scheduled for later: a package entered from them runs in slices. */
const SCHEDULERS = new Set(['node:internal/timers', 'node:internal/process/task_queues'])
const require = createRequire(import.meta.url)

/** @typedef {import('../types.js').ProfileEntry} ProfileEntry */
/** @typedef {import('../types.js').ProfileSummary} ProfileSummary */
/** @typedef {{ name: string, location: string, via?: string }} Leaf */
/** @typedef {{ key: string, entry: Omit<ProfileEntry, 'ms'>, leaf?: Leaf }} Charge */

/**
 * @typedef {object} CpuProfileNode
 * @property {number} id
 * @property {{ functionName: string, url: string, lineNumber: number, columnNumber: number }} callFrame
 * @property {number[]} [children]
 * @property {{ line: number, ticks: number }[]} [positionTicks]  the node's own samples by line (1-based)
 */

/**
 * @typedef {object} CpuProfile  V8's Profiler.Profile
 * @property {CpuProfileNode[]} nodes
 * @property {number} startTime  microseconds
 * @property {number} endTime
 * @property {number[]} samples  node ids
 * @property {number[]} timeDeltas  microseconds before each sample
 */

/**
 * @typedef {object} TreeNode
 * @property {Frame} frame
 * @property {number|null} parent
 * @property {CpuProfileNode} node
 */

/**
 * @param {CpuProfile} whole
 * @param {object} options
 * @param {string} options.file         as the summary names it
 * @param {number} options.intervalUs
 * @param {string} [options.root]       the app's folder: locations are relative to it
 * @param {number} [options.startOffsetMs]  the profile's start minus the metrics window's start: negative when
 *        the profile started before the window (the runner starts it before the warm-up)
 * @param {number} [options.windowMs]  the window's length: samples after it are left out too (none: all after its start count)
 * @param {import('../types.js').LoopBlocks} [options.blocks]  when the loop was held (the metrics window's)
 * @param {import('../types.js').ServerMetricsSeries} [options.series]  without `blocks`: the estimate
 * @returns {ProfileSummary}
 */
export function summarizeProfile (whole, { file, intervalUs, root = process.cwd(), startOffsetMs: offsetMs = 0, windowMs, blocks, series }) {
  // Only the window's samples: not the warm-up's, nor the profiler's own start, before it.
  const { profile, startOffsetMs } = windowProfile(whole, { startOffsetMs: offsetMs, windowMs })
  /** @type {Map<number, TreeNode>} */
  const tree = new Map()
  for (const node of profile.nodes) tree.set(node.id, { frame: frameOf(node.callFrame, root), parent: null, node })
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      const entry = tree.get(child)
      if (entry) entry.parent = node.id
    }
  }
  const charge = charger(tree)
  const windows = blocks ? disjoint(blocks.spans) : series ? disjoint(blockingWindows(series)) : null
  const thresholdMs = blocks?.thresholdMs ?? BLOCKING_DELAY_MS
  /** @type {Map<string, Sum>} */ const self = new Map()
  /** @type {Map<string, Sum>} */ const inclusive = new Map()
  /** @type {Map<string, Sum>} */ const blocking = new Map()
  let idleMs = 0
  let blockingMs = 0
  let totalMs = 0
  /** @type {Charge|null} */
  let previous = null
  /** @type {Frame[]} */
  let previousStack = []
  let clockUs = 0
  const n = profile.samples.length
  for (let i = 0; i < n; i++) {
    clockUs += profile.timeDeltas[i] ?? 0
    // A sample stands for the time until the next one.
    const ms = Math.max(0, (i + 1 < n ? profile.timeDeltas[i + 1] : intervalUs) / 1000)
    totalMs += ms
    const sampled = stackOf(tree, profile.samples[i]).map((id) => /** @type {TreeNode} */ (tree.get(id)).frame)
    const leaf = sampled[0]
    if (!leaf || leaf.kind === 'idle') { idleMs += ms; previous = null; continue }
    // A collection is charged, self and inclusive, as the sample before it.
    /** @type {boolean} */
    const gc = leaf.kind === 'gc' && previous !== null
    const stack = gc ? previousStack : sampled
    /** @type {Charge} */
    const charged = gc && previous ? previous : charge(profile.samples[i])
    previous = charged
    previousStack = stack
    const outside = leaf.kind === 'gc' || leaf.kind === 'program' || (leaf.kind === 'internal' && leaf.location === 'native')
    add(self, charged, ms, outside)
    const at = startOffsetMs + clockUs / 1000
    if (windows && inside(windows, at)) {
      blockingMs += ms
      add(blocking, charged, ms, outside)
    }
    const seen = new Set()
    // The app's frames and the Node functions they call directly: not the framework of Node's own
    // dispatch (emit, parserOnIncoming) that holds every request.
    for (const [j, frame] of stack.entries()) {
      const called = frame.kind === 'internal' && stack[j + 1]?.kind === 'user'
      if ((frame.kind !== 'user' && !called) || seen.has(frame.key)) continue
      seen.add(frame.key)
      add(inclusive, { key: frame.key, entry: { name: frame.name, location: frame.location } }, ms)
    }
  }
  return {
    file,
    intervalUs,
    samples: n,
    totalMs: roundTo(totalMs),
    idleMs: roundTo(idleMs),
    self: top(self),
    inclusive: top(inclusive),
    blocking: windows ? { thresholdMs, ms: roundTo(blockingMs), self: top(blocking) } : null
  }
}

/**
 * A profile cut to the metrics window, on a clock that starts with it where it started before it (the
 * runner starts the profile before the warm-up, and stops it after the window's read). A sample is the
 * window's when its time, `startOffsetMs` plus its time since the profile's start, is from 0 to
 * `windowMs`. Each node's hitCount counts the samples kept; its positionTicks (V8 counts lines per node,
 * not per sample) stay the whole profile's.
 * @param {CpuProfile} profile
 * @param {{ startOffsetMs?: number, windowMs?: number }} window  startOffsetMs: the profile's start minus
 *        the window's (ms); windowMs: its length (none: every sample after its start)
 * @returns {{ profile: CpuProfile, startOffsetMs: number }}  startOffsetMs: the cut profile's, 0 unless it
 *        started after the window did
 */
export function windowProfile (profile, { startOffsetMs = 0, windowMs = Infinity }) {
  // the window on the profile's clock (microseconds)
  const fromUs = profile.startTime - startOffsetMs * 1000
  const toUs = fromUs + windowMs * 1000
  const startTime = Math.max(profile.startTime, fromUs)
  /** @type {number[]} */ const samples = []
  /** @type {number[]} */ const timeDeltas = []
  /** @type {Map<number, number>} */ const hits = new Map()
  let clockUs = profile.startTime
  let lastUs = startTime
  profile.samples.forEach((id, i) => {
    clockUs += profile.timeDeltas[i] ?? 0
    if (clockUs < fromUs || clockUs > toUs) return
    samples.push(id)
    timeDeltas.push(clockUs - lastUs)
    lastUs = clockUs
    hits.set(id, (hits.get(id) ?? 0) + 1)
  })
  const nodes = profile.nodes.map((node) => 'hitCount' in node ? { ...node, hitCount: hits.get(node.id) ?? 0 } : node)
  return {
    profile: { ...profile, nodes, startTime, endTime: Math.min(profile.endTime, toUs), samples, timeDeltas },
    startOffsetMs: Math.max(0, startOffsetMs)
  }
}

/**
 * Whether `at` lies in one of the spans (sorted, disjoint: a binary search; V8's samples are not
 * always in time order, a timeDelta can be negative).
 * @param {[number, number][]} spans
 * @param {number} at
 */
function inside (spans, at) {
  let lo = 0
  let hi = spans.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (spans[mid][1] < at) lo = mid + 1
    else if (spans[mid][0] > at) hi = mid - 1
    else return true
  }
  return false
}

/**
 * Spans sorted by start, the overlapping ones merged.
 * @param {[number, number][]} spans
 * @returns {[number, number][]}
 */
function disjoint (spans) {
  /** @type {[number, number][]} */
  const out = []
  for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1]
    if (last && from <= last[1]) last[1] = Math.max(last[1], to)
    else out.push([from, to])
  }
  return out
}

/**
 * Add up the summaries of several runs of one configuration.
 * @param {ProfileSummary[]} summaries
 * @returns {{ runs: number, totalMs: number, idleMs: number, self: ProfileEntry[], inclusive: ProfileEntry[], blocking: { thresholdMs: number, ms: number, self: ProfileEntry[] }|null, files: string[] }|null}
 */
export function combineProfiles (summaries) {
  if (summaries.length === 0) return null
  /** @param {(s: ProfileSummary) => ProfileEntry[]} pick */
  const sum = (pick) => {
    /** @type {Map<string, Sum>} */
    const map = new Map()
    for (const s of summaries) {
      for (const { nativeMs, ms, leafMs, ...e } of pick(s)) {
        const key = e.entry || e.caller ? callKey(e) : `${e.name}\0${e.location}\0${e.via ?? ''}`
        // a run's hottest leaf counts leafMs toward the leaf the rows keep, the rest of the row none
        const leaf = leafMs === undefined ? undefined : { name: e.name, location: e.location, ...(e.via ? { via: e.via } : {}) }
        add(map, { key, entry: e, leaf }, ms - (nativeMs ?? 0), false, leafMs)
        if (nativeMs) add(map, { key, entry: e }, nativeMs, true)
      }
    }
    return top(map)
  }
  const withBlocking = summaries.filter((s) => s.blocking)
  return {
    runs: summaries.length,
    totalMs: roundTo(summaries.reduce((a, s) => a + s.totalMs, 0)),
    idleMs: roundTo(summaries.reduce((a, s) => a + s.idleMs, 0)),
    self: sum((s) => s.self),
    inclusive: sum((s) => s.inclusive),
    blocking: withBlocking.length === 0
      ? null
      : { thresholdMs: withBlocking[0].blocking?.thresholdMs ?? BLOCKING_DELAY_MS, ms: roundTo(withBlocking.reduce((a, s) => a + (s.blocking?.ms ?? 0), 0)), self: sum((s) => s.blocking?.self ?? []) },
    files: summaries.map((s) => s.file)
  }
}

/**
 * The routes of several runs' blocking spans added up (LoopBlocks.routes), largest first; null when no
 * run followed its requests by route.
 * @param {(import('../types.js').RouteBlocks[]|undefined)[]} lists
 * @returns {import('../types.js').RouteBlocks[]|null}
 */
export function combineRoutes (lists) {
  if (lists.every((l) => l === undefined)) return null
  /** @type {Map<string, { ms: number, blocks: number }>} */
  const map = new Map()
  for (const list of lists) {
    for (const { route, ms, blocks } of list ?? []) {
      const found = map.get(route)
      if (found) {
        found.ms += ms
        found.blocks += blocks
      } else {
        map.set(route, { ms, blocks })
      }
    }
  }
  return [...map].map(([route, r]) => ({ route, ms: roundTo(r.ms, 1), blocks: r.blocks })).sort((a, b) => b.ms - a.ms || (a.route < b.route ? -1 : 1))
}

/**
 * @typedef {object} Frame
 * @property {string} key
 * @property {string} name
 * @property {string} location
 * @property {'user'|'internal'|'own'|'program'|'gc'|'idle'|'root'} kind
 * @property {string|null} [owner]  whose code: 'app' (outside node_modules), a package's name, 'node' (a
 *   node: module); null for native code (its caller's) and V8's own entries
 * @property {string} [url]
 * @property {number} [lineNumber]  0-based, of the function's start
 * @property {number} [columnNumber]
 */

/** @param {string} url */
function safePath (url) {
  try {
    return fileURLToPath(url)
  } catch {
    return url
  }
}

/**
 * @param {CpuProfileNode['callFrame']} callFrame
 * @param {string} root
 * @returns {Frame}
 */
export function frameOf ({ functionName, url, lineNumber, columnNumber }, root) {
  const special = { '(root)': 'root', '(program)': 'program', '(garbage collector)': 'gc', '(idle)': 'idle' }
  if (url === '' && Object.hasOwn(special, functionName)) {
    const kind = /** @type {Frame['kind']} */ (special[/** @type {keyof typeof special} */ (functionName)])
    return { key: functionName, name: functionName, location: '', kind, owner: null }
  }
  const name = functionName || '(anonymous)'
  if (url.startsWith('file:') && safePath(url).startsWith(OWN_DIR)) return { key: 'syncbench', name: 'syncbench', location: 'its metrics and profiler', kind: 'own', owner: null }
  if (url === '' || url.startsWith('node:')) {
    const location = url || 'native'
    return { key: `${name}\0${location}`, name, location, kind: 'internal', owner: url ? 'node' : null, url, lineNumber, columnNumber }
  }
  const location = `${shortPath(url, root)}:${lineNumber + 1}`
  return { key: `${name}\0${location}`, name, location, kind: 'user', owner: packageOf(url) ?? 'app', url, lineNumber, columnNumber }
}

/**
 * The package a file belongs to: the folder after its last node_modules ("@scope/name" for a scoped one);
 * undefined for the app's own files.
 * @param {string} url
 */
function packageOf (url) {
  const parts = safePath(url).split(path.sep)
  const at = parts.lastIndexOf('node_modules')
  if (at < 0 || at + 1 >= parts.length) return undefined
  return parts[at + 1].startsWith('@') ? parts.slice(at + 1, at + 3).join('/') : parts[at + 1]
}

/**
 * A file URL or path as a reader knows it: relative to the app's folder, or from the package's name on.
 * @param {string} url
 * @param {string} root
 */
function shortPath (url, root) {
  let file = url
  try {
    if (url.startsWith('file:')) file = fileURLToPath(url)
  } catch {
    return url
  }
  const inPackage = file.lastIndexOf(`${path.sep}node_modules${path.sep}`)
  if (inPackage >= 0) return file.slice(inPackage + '/node_modules/'.length).split(path.sep).join('/')
  const relative = path.relative(root, file)
  return (relative.startsWith('..') ? file : relative).split(path.sep).join('/')
}

/**
 * The node ids of a sample's stack, leaf first.
 * @param {Map<number, TreeNode>} tree
 * @param {number} id
 * @returns {number[]}
 */
function stackOf (tree, id) {
  const stack = []
  /** @type {number|null} */
  let at = id
  while (at !== null) {
    const node = tree.get(at)
    if (!node) break
    stack.push(at)
    at = node.parent
  }
  return stack
}

/**
 * Whom a sample's self time is charged to (see the top of this file), by its leaf's node id: the same
 * node always has the same stack, so each node is worked out once.
 * @param {Map<number, TreeNode>} tree
 * @returns {(id: number) => Charge}
 */
function charger (tree) {
  /** @type {Map<number, Charge>} */
  const done = new Map()
  /** @type {Map<string, string[]|null>} a file's lines, read once */
  const sources = new Map()
  /** @type {Map<string, ReturnType<typeof callLine>>} the line of a caller's call of a function */
  const lines = new Map()
  /** @type {Map<string, number[]>|null} node ids by function, for a chunk's first slice */
  let byFunction = null
  /** @type {Map<string, ReturnType<typeof firstSlice>>} a chunk's first slice by its function, found once */
  const slices = new Map()
  /** @param {number} id */
  const framesOf = (id) => {
    const ids = stackOf(tree, id)
    return { ids, frames: ids.map((i) => /** @type {TreeNode} */ (tree.get(i)).frame) }
  }

  /**
   * The caller's frame, with the line of its call when the samples or its source tell it, and the name
   * the source called the function by (zlib's syncBufferWrapper is called as gzipSync).
   * @param {number[]} ids
   * @param {Frame[]} frames
   * @param {number} at  the caller's index in the stack
   * @returns {{ caller: NonNullable<ProfileEntry['caller']>, calledAs?: string }}
   */
  function callerAt (ids, frames, at) {
    const frame = frames[at]
    const caller = { name: frame.name, location: frame.location }
    // the caller is the leaf, or only native code runs below it: the leaf's lines are the caller's
    if (frames.slice(0, at).every((f) => f.kind === 'internal' && f.location === 'native')) {
      const line = busiestLine(/** @type {TreeNode} */ (tree.get(ids[0])).node.positionTicks)
      if (line !== undefined) return { caller: { ...caller, line } }
    }
    if (at === 0) return { caller }
    // many nodes share a caller and what it called: their line is looked for once
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}\0${frames[at - 1].key}`
    if (!lines.has(key)) lines.set(key, callLine(sources, frame, callNames(frames[at - 1])))
    const found = lines.get(key)
    return found ? { caller: { ...caller, line: found.line }, calledAs: found.name } : { caller }
  }

  /**
   * @param {Frame} entry
   * @param {Leaf} leaf
   * @param {ReturnType<typeof callerAt>|null} by  the caller, and the name it called a Node function by
   * @param {boolean} [chunked]
   * @returns {Charge}
   */
  function call (entry, leaf, by, chunked = false) {
    const name = entry.owner === 'node' && by?.calledAs ? by.calledAs : entry.name
    /** @type {Omit<ProfileEntry, 'ms'>} */
    const row = { ...leaf, entry: { name, package: packageName(entry) } }
    if (by) row.caller = by.caller
    if (chunked) row.chunked = true
    return { key: callKey(row), entry: row, leaf }
  }

  /**
   * The first slice of a chunk's work, run inside the call that started it: another node of the chunk's
   * outermost function with the app (or another package) above it.
   * @param {Frame} entry  the chunk's outermost function in its package
   * @param {string} owner
   * @returns {{ entry: Frame, by: ReturnType<typeof callerAt> }|null}
   */
  function firstSlice (entry, owner) {
    const key = `${entry.url}:${entry.lineNumber}:${entry.columnNumber}`
    if (!slices.has(key)) slices.set(key, findSlice(key, owner))
    return slices.get(key) ?? null
  }

  /**
   * @param {string} key  the chunk's outermost function, by its place
   * @param {string} owner
   * @returns {{ entry: Frame, by: ReturnType<typeof callerAt> }|null}
   */
  function findSlice (key, owner) {
    if (!byFunction) {
      byFunction = new Map()
      for (const [id, { frame }] of tree) {
        const at = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`
        const ids = byFunction.get(at)
        if (ids) ids.push(id)
        else byFunction.set(at, [id])
      }
    }
    for (const id of byFunction.get(key) ?? []) {
      const { ids, frames } = framesOf(id)
      const owners = ownersOf(frames)
      const found = enter(owners, owner)
      if (found.called < 0) continue
      const app = owners.indexOf('app', found.entry + 1)
      return { entry: frames[found.entry], by: callerAt(ids, frames, app >= 0 ? app : found.called) }
    }
    return null
  }

  /** @param {number} id */
  function work (id) {
    const { ids, frames } = framesOf(id)
    const leaf = frames[0]
    const own = frames.find((f) => f.kind === 'own')
    if (own) return { key: own.key, entry: { name: own.name, location: own.location } }
    if (leaf.kind === 'program' || leaf.kind === 'gc') return { key: leaf.key, entry: { name: leaf.name, location: 'Node/V8, outside JavaScript' } }
    const owners = ownersOf(frames)
    const outer = owners.findIndex((o) => o !== null && o !== 'node')
    if (outer < 0) {
      // No app or package frame: Node's own work (parsing a request, writing a response), by the module it ran in.
      const module = frames.find((f) => f.kind === 'internal' && f.location !== 'native')?.location ?? 'native'
      return { key: `node\0${module}`, entry: { name: 'Node.js internals', location: module } }
    }
    const js = frames.findIndex((f) => f.url)
    /** @type {Leaf} */
    const shown = { name: frames[js].name, location: frames[js].location }
    if (js > 0) shown.via = leaf.name === '(anonymous)' ? 'native code' : leaf.name
    // Node's work for a package (bcryptjs asking crypto for bytes) is the package's; for the app, Node's.
    const owner = /** @type {string} */ (owners[0] === 'node' && owners[outer] !== 'app' ? owners[outer] : owners[0])
    if (owner !== 'app') {
      const found = enter(owners, owner)
      if (found.called >= 0) {
        const app = owners.indexOf('app', found.entry + 1)
        return call(frames[found.entry], shown, callerAt(ids, frames, app >= 0 ? app : found.called))
      }
      // Only Node above the package: its work scheduled from a timer or a tick (chunked), or the package is the app.
      if (SCHEDULERS.has(frames[found.entry + 1]?.location ?? '')) {
        const first = firstSlice(frames[found.entry], owner)
        return first ? call(first.entry, shown, first.by, true) : call(frames[found.entry], shown, null, true)
      }
    }
    // The app's own code (or the package that is the app): the caller is its innermost frame.
    const at = frames.findIndex((f) => f.owner === owner)
    const by = callerAt(ids, frames, at)
    // what it called, when that is Node (gzipSync): its entry; the package that is the app calls it too
    const called = frames[at - 1]
    if (called?.owner === 'node') return call(called, shown, by)
    const row = { ...shown, caller: by.caller }
    return { key: callKey(row), entry: row, leaf: shown }
  }

  return (id) => {
    let found = done.get(id)
    if (!found) done.set(id, found = work(id))
    return found
  }
}

/**
 * Each frame's owner, native code taking its caller's.
 * @param {Frame[]} frames leaf first
 * @returns {(string|null)[]}
 */
function ownersOf (frames) {
  const owners = frames.map((f) => f.owner ?? null)
  for (let i = owners.length - 2; i >= 0; i--) {
    if (owners[i] === null && frames[i].kind === 'internal') owners[i] = owners[i + 1]
  }
  return owners
}

/**
 * Where control entered `owner`'s code: up from the leaf through its frames (and Node's, which it may call
 * or be called back by), the outermost of its own; `called` is the next frame of other code above (the
 * app or another package), -1 when only Node is above.
 * @param {(string|null)[]} owners leaf first
 * @param {string} owner
 */
function enter (owners, owner) {
  let entry = -1
  let i = 0
  for (; i < owners.length && (owners[i] === owner || owners[i] === 'node'); i++) {
    if (owners[i] === owner) entry = i
  }
  if (owner === 'node') entry = i - 1
  const called = owners.findIndex((o, j) => j > entry && o !== null && o !== 'node')
  return { entry, called }
}

/**
 * A row's identity: the package's entry and the caller's line (the leaf is whichever is hottest).
 * @param {Omit<ProfileEntry, 'ms'>} e
 */
function callKey (e) {
  const caller = e.caller ? `${e.caller.location}\0${e.caller.line ?? ''}` : ''
  return `call\0${e.entry ? `${e.entry.name}\0${e.entry.package}` : ''}\0${caller}`
}

/**
 * A package's name as a reader knows it; a Node function's public module ("node:crypto" for
 * node:internal/crypto/pbkdf2), "node" when it has none.
 * @param {Frame} frame
 */
function packageName (frame) {
  if (frame.owner !== 'node') return frame.owner ?? 'native'
  return publicModule(frame.location) ?? 'node'
}

/** @param {string} location a node: URL */
function publicModule (location) {
  const [first, second] = location.replace(/^node:/, '').split('/')
  const name = first === 'internal' ? second : first
  return name && builtinModules.includes(name) ? `node:${name}` : undefined
}

/**
 * The names a caller's source calls a function by: its own ("compareSync"), and for a Node function
 * the names its public module exports it as (zlib's gzipSync is a function named syncBufferWrapper).
 * @param {Frame} frame
 * @returns {string[]}
 */
function callNames (frame) {
  const own = frame.name.replace(/^(bound|get|set|async) /, '').split('.').pop() ?? ''
  const names = /^[\w$]+$/.test(own) ? [own] : []
  const module = frame.owner === 'node' ? publicModule(frame.location) : undefined
  if (module && names.length) {
    for (const [key, value] of Object.entries(require(module))) {
      if (typeof value === 'function' && value.name === own && !names.includes(key)) names.push(key)
    }
  }
  return names
}

/**
 * The line (1-based) of the first call of one of `names` in the body of the function at `frame`, from its
 * source file, and the name called; undefined when the file cannot be read or no such call is found.
 * @param {Map<string, string[]|null>} sources
 * @param {Frame} frame
 * @param {string[]} names
 */
function callLine (sources, frame, names) {
  const { url = '', lineNumber = 0, columnNumber = 0 } = frame
  if (!url.startsWith('file:') || names.length === 0) return undefined
  let lines = sources.get(url)
  if (lines === undefined) {
    try {
      lines = readFileSync(fileURLToPath(url), 'utf8').split('\n')
    } catch {
      lines = null
    }
    sources.set(url, lines)
  }
  if (!lines) return undefined
  const calls = new RegExp(`(?:^|[^\\w$])(${names.join('|')})\\s*\\(`)
  // the function's body, from its parameters (V8's column) to its closing brace, counted roughly
  let depth = 0
  let opened = false
  for (let i = lineNumber; i < Math.min(lines.length, lineNumber + SCAN_LINES); i++) {
    const text = i === lineNumber ? lines[i].slice(columnNumber) : lines[i]
    const match = calls.exec(text)
    if (match) return { line: i + 1, name: match[1] }
    for (const c of text) {
      if (c === '{') {
        depth++
        opened = true
      } else if (c === '}') {
        depth--
      }
    }
    if (opened && depth <= 0) return undefined
  }
  return undefined
}

/**
 * The line with the most samples of a node's own.
 * @param {CpuProfileNode['positionTicks']} ticks
 */
function busiestLine (ticks) {
  let best
  for (const t of ticks ?? []) if (!best || t.ticks > best.ticks) best = t
  return best?.line
}

/**
 * @typedef {object} Sum  a row being added up
 * @property {Omit<ProfileEntry, 'ms'>} entry
 * @property {number} ms
 * @property {number} nativeMs
 * @property {Map<string, { leaf: Leaf, ms: number }>} leaves
 */

/**
 * @param {Map<string, Sum>} map
 * @param {Charge} charged
 * @param {number} ms
 * @param {boolean} [outside]  the time is native code or GC (counted in nativeMs too)
 * @param {number} [leafMs]  of ms, the leaf's (a run's row added to others); all of it when absent
 */
function add (map, { key, entry, leaf }, ms, outside = false, leafMs = ms) {
  let found = map.get(key)
  if (!found) map.set(key, found = { entry, ms: 0, nativeMs: 0, leaves: new Map() })
  found.ms += ms
  if (outside) found.nativeMs += ms
  if (entry.chunked) found.entry = { ...found.entry, chunked: true }
  if (!leaf) return
  const leafKey = `${leaf.name}\0${leaf.location}\0${leaf.via ?? ''}`
  const sum = found.leaves.get(leafKey)
  if (sum) sum.ms += leafMs
  else found.leaves.set(leafKey, { leaf, ms: leafMs })
}

/**
 * The rows, largest first; a call's row names its hottest leaf and that leaf's time.
 * @param {Map<string, Sum>} map
 * @returns {ProfileEntry[]}
 */
function top (map) {
  return [...map.values()].sort((a, b) => b.ms - a.ms).slice(0, KEEP).map(({ entry, ms, nativeMs, leaves }) => {
    /** @type {ProfileEntry} */
    const row = { ...entry, ms: roundTo(ms), ...(nativeMs ? { nativeMs: roundTo(nativeMs) } : {}) }
    if (leaves.size === 0 || !(entry.entry || entry.caller)) return row
    const hottest = [...leaves.values()].sort((a, b) => b.ms - a.ms)[0]
    delete row.via
    return { ...row, ...hottest.leaf, leafMs: roundTo(hottest.ms) }
  })
}

/**
 * For a server without loopBlocks: an estimate of the spans (ms from the window's start) when the loop was
 * late by more than BLOCKING_DELAY_MS. A sample of the series that saw a delay d ends at t, and the block
 * is taken to end there, from t - d - 10 to t, though it may have happened anywhere in the sample's
 * 100 ms (more once samples merged): it misplaces blocks, which is why the metrics record spans.
 * @param {import('../types.js').ServerMetricsSeries} series
 * @returns {[number, number][]}
 */
function blockingWindows (series) {
  /** @type {[number, number][]} */
  const spans = []
  series.t.forEach((t, i) => {
    const delay = series.loopDelayMaxMs[i]
    if (delay > BLOCKING_DELAY_MS) spans.push([t - delay - 10, t])
  })
  return spans
}
