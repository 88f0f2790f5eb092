// Where the event loop went: a CPU profile of a server's main thread over the measured window (written
// by lib/lab/instrument.js, V8's .cpuprofile format) reduced to the functions that held the thread.
// Self time names the user's code first: a sample whose leaf is inside Node or V8 (a node:internal frame,
// a native function such as pbkdf2's `run`) is charged to the nearest frame of the app or of a package it
// calls, with the first internal function it called ("hashPasswordSlowly (app.js:12) -> pbkdf2Sync").
// A garbage-collection sample is charged as the sample before it (the code that allocated, most often).
// Time no JavaScript explains is counted apart in each entry's `nativeMs`: samples whose leaf is native
// code (a C++ function such as execSync's `spawn` or pbkdf2's `run`: the thread blocked in a system call
// or a library), garbage collection, and "(program)" (V8 or Node with no JavaScript on the stack); the
// report labels it "native code / GC, outside JavaScript" rather than as the caller's own JavaScript.
// Samples with no app frame at all (Node's HTTP parsing before a handler runs) are charged to the Node
// module they ran in. Inclusive time counts a function once per sample its stack holds it.
// Blocking: samples taken while the event loop was held past BLOCKING_DELAY_MS (the spans the metrics
// recorded, ServerMetrics.loopBlocks, lined up with the profile's clock) are summed apart, so the answer
// names what blocks the loop, not only what keeps it busy. A server without spans (a results file or an
// instrument from before them) falls back to the 100 ms series, an estimate: each late sample of it is
// taken as a block ending at the sample's end.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { roundTo } from '../format.js'
import { BLOCKING_DELAY_MS } from '../lab/loop-blocks.js'

export { BLOCKING_DELAY_MS }
/** syncbench's own code in the app's process (lib/lab/instrument.js, metrics.js): never the app's. */
const OWN_DIR = fileURLToPath(new URL('../lab/', import.meta.url))
/** How many functions a run keeps per list (the report shows fewer; runs are added before it cuts). */
const KEEP = 15

/** @typedef {import('../types.js').ProfileEntry} ProfileEntry */
/** @typedef {import('../types.js').ProfileSummary} ProfileSummary */

/**
 * @typedef {object} CpuProfile  V8's Profiler.Profile
 * @property {{ id: number, callFrame: { functionName: string, url: string, lineNumber: number, columnNumber: number }, children?: number[] }[]} nodes
 * @property {number} startTime  microseconds
 * @property {number} endTime
 * @property {number[]} samples  node ids
 * @property {number[]} timeDeltas  microseconds before each sample
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
  /** @type {Map<number, { frame: Frame, parent: number|null }>} */
  const nodes = new Map()
  for (const node of profile.nodes) nodes.set(node.id, { frame: frameOf(node.callFrame, root), parent: null })
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      const entry = nodes.get(child)
      if (entry) entry.parent = node.id
    }
  }
  const windows = blocks ? disjoint(blocks.spans) : series ? disjoint(blockingWindows(series)) : null
  const thresholdMs = blocks?.thresholdMs ?? BLOCKING_DELAY_MS
  /** @type {Map<string, ProfileEntry>} */ const self = new Map()
  /** @type {Map<string, ProfileEntry>} */ const inclusive = new Map()
  /** @type {Map<string, ProfileEntry>} */ const blocking = new Map()
  let idleMs = 0
  let blockingMs = 0
  let totalMs = 0
  /** @type {{ key: string, entry: Omit<ProfileEntry, 'ms'> }|null} */
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
    const sampled = stackOf(nodes, profile.samples[i])
    const leaf = sampled[0]
    if (!leaf || leaf.kind === 'idle') { idleMs += ms; previous = null; continue }
    // A collection is charged, self and inclusive, as the sample before it.
    const gc = leaf.kind === 'gc' && previous !== null
    const stack = gc ? previousStack : sampled
    /** @type {{ key: string, entry: Omit<ProfileEntry, 'ms'> }} */
    const charged = gc && previous ? previous : charge(stack)
    previous = charged
    previousStack = stack
    const outside = leaf.kind === 'gc' || leaf.kind === 'program' || (leaf.kind === 'internal' && leaf.location === 'native')
    add(self, charged.key, charged.entry, ms, outside)
    const at = startOffsetMs + clockUs / 1000
    if (windows && inside(windows, at)) {
      blockingMs += ms
      add(blocking, charged.key, charged.entry, ms, outside)
    }
    const seen = new Set()
    // The app's frames and the Node functions they call directly: not the framework of Node's own
    // dispatch (emit, parserOnIncoming) that holds every request.
    for (const [j, frame] of stack.entries()) {
      const called = frame.kind === 'internal' && stack[j + 1]?.kind === 'user'
      if ((frame.kind !== 'user' && !called) || seen.has(frame.key)) continue
      seen.add(frame.key)
      add(inclusive, frame.key, { name: frame.name, location: frame.location }, ms)
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
    /** @type {Map<string, ProfileEntry>} */
    const map = new Map()
    for (const s of summaries) {
      for (const { nativeMs, ...e } of pick(s)) {
        const key = `${e.name}\0${e.location}\0${e.via ?? ''}`
        add(map, key, e, e.ms - (nativeMs ?? 0))
        if (nativeMs) add(map, key, e, nativeMs, true)
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
 * @param {CpuProfile['nodes'][number]['callFrame']} callFrame
 * @param {string} root
 * @returns {Frame}
 */
export function frameOf ({ functionName, url, lineNumber }, root) {
  const special = { '(root)': 'root', '(program)': 'program', '(garbage collector)': 'gc', '(idle)': 'idle' }
  if (url === '' && Object.hasOwn(special, functionName)) {
    const kind = /** @type {Frame['kind']} */ (special[/** @type {keyof typeof special} */ (functionName)])
    return { key: functionName, name: functionName, location: '', kind }
  }
  const name = functionName || '(anonymous)'
  if (url.startsWith('file:') && safePath(url).startsWith(OWN_DIR)) return { key: 'syncbench', name: 'syncbench', location: 'its metrics and profiler', kind: 'own' }
  if (url === '' || url.startsWith('node:')) {
    const location = url || 'native'
    return { key: `${name}\0${location}`, name, location, kind: 'internal' }
  }
  const location = `${shortPath(url, root)}:${lineNumber + 1}`
  return { key: `${name}\0${location}`, name, location, kind: 'user' }
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
 * The frames of a sample, leaf first.
 * @param {Map<number, { frame: Frame, parent: number|null }>} nodes
 * @param {number} id
 * @returns {Frame[]}
 */
function stackOf (nodes, id) {
  const stack = []
  /** @type {number|null} */
  let at = id
  while (at !== null) {
    const node = nodes.get(at)
    if (!node) break
    stack.push(node.frame)
    at = node.parent
  }
  return stack
}

/**
 * Whom a sample's self time is charged to (see the top of this file).
 * @param {Frame[]} stack leaf first
 * @returns {{ key: string, entry: Omit<ProfileEntry, 'ms'> }}
 */
function charge (stack) {
  const leaf = stack[0]
  const own = stack.find((f) => f.kind === 'own')
  if (own) return { key: own.key, entry: { name: own.name, location: own.location } }
  if (leaf.kind === 'user') return { key: leaf.key, entry: { name: leaf.name, location: leaf.location } }
  const userAt = stack.findIndex((f) => f.kind === 'user')
  if (userAt > 0) {
    const user = stack[userAt]
    const via = stack[userAt - 1]
    return { key: `${user.key}\0${via.name}`, entry: { name: user.name, location: user.location, via: via.name } }
  }
  if (leaf.kind === 'program' || leaf.kind === 'gc') return { key: leaf.key, entry: { name: leaf.name, location: 'Node/V8, outside JavaScript' } }
  // No app frame: Node's own work (parsing a request, writing a response), by the module it ran in.
  const module = stack.find((f) => f.kind === 'internal' && f.location !== 'native')?.location ?? 'native'
  return { key: `node\0${module}`, entry: { name: 'Node.js internals', location: module } }
}

/**
 * @param {Map<string, ProfileEntry>} map
 * @param {string} key
 * @param {Omit<ProfileEntry, 'ms'>} entry
 * @param {number} ms
 * @param {boolean} [outside]  the time is native code or GC (counted in nativeMs too)
 */
function add (map, key, entry, ms, outside = false) {
  let found = map.get(key)
  if (found) found.ms += ms
  else map.set(key, found = { ...entry, ms })
  if (outside) found.nativeMs = (found.nativeMs ?? 0) + ms
}

/** @param {Map<string, ProfileEntry>} map */
function top (map) {
  return [...map.values()].sort((a, b) => b.ms - a.ms).slice(0, KEEP).map(({ nativeMs, ...e }) => ({ ...e, ms: roundTo(e.ms), ...(nativeMs ? { nativeMs: roundTo(nativeMs) } : {}) }))
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
