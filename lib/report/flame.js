// A flame graph of a configuration's CPU profiles for report.html, drawn as an icicle (callers above the
// functions they call, each as wide as its share of the busy samples). Two steps kept apart: flameTree
// reduces V8's .cpuprofile files to one merged call tree with self and total time, frames narrower than
// a threshold folded into one "other" frame per caller so that a profile of a large app stays a few
// hundred frames; drawFlame draws that tree as inline SVG, plus a search box whose small script (the
// only one in the report, allowed by its hash in the page's CSP) marks the frames whose text matches.
// The functions "where the event loop went" names as blocking are drawn in their own colour; time no
// JavaScript explains (native code, garbage collection, "(program)") in another, so it is never read as
// the caller's JavaScript. Idle samples are not drawn: the graph is of the busy time.
import { createHash } from 'node:crypto'
import path from 'node:path'
import { frameOf } from '../analysis/profile.js'
import { isMeasured } from '../analysis/summarize.js'
import { escapeXml as esc } from './svg.js'

/** A frame narrower than this share of the busy time is folded into its caller's "other" frame. */
export const FOLD_SHARE = 0.004
/** Past this many frames the threshold doubles until the graph fits. */
export const MAX_FRAMES = 600
const ROW = 18

/**
 * @typedef {object} FlameNode
 * @property {string} name
 * @property {string} location   "file:line" (absolute or relative to the folder the report ran in), a node: module, "native"
 * @property {'js'|'node'|'native'|'outside'|'own'|'other'|'root'} kind
 *   js: the app's or a package's; node: Node's own JavaScript; native: a C++ function; outside: GC or "(program)"
 * @property {number} selfMs
 * @property {number} totalMs
 * @property {FlameNode[]} children  largest first
 */

/**
 * The profiles' samples as one call tree (idle samples left out), folded below FOLD_SHARE.
 * @param {import('../analysis/profile.js').CpuProfile[]} profiles
 * @param {{ root?: string, foldShare?: number, maxFrames?: number }} [options]  root: locations are relative to it
 * @returns {FlameNode}
 */
export function flameTree (profiles, { root = process.cwd(), foldShare = FOLD_SHARE, maxFrames = MAX_FRAMES } = {}) {
  /** @type {FlameNode} */
  const top = { name: 'all', location: '', kind: 'root', selfMs: 0, totalMs: 0, children: [] }
  /** @type {WeakMap<FlameNode, Map<string, FlameNode>>} */
  const index = new WeakMap()
  /** @type {Map<string, ReturnType<typeof frameOf>>} one description per function, however many nodes name it */
  const described = new Map()
  /**
   * @param {FlameNode} parent
   * @param {import('../analysis/profile.js').CpuProfile['nodes'][number]['callFrame']} callFrame
   */
  const childOf = (parent, callFrame) => {
    const id = `${callFrame.functionName}\0${callFrame.url}\0${callFrame.lineNumber}`
    let frame = described.get(id)
    if (!frame) described.set(id, frame = frameOf(callFrame, root))
    const kind = frame.kind === 'user' ? 'js' : frame.kind === 'own' ? 'own' : frame.kind === 'gc' || frame.kind === 'program' ? 'outside' : frame.location === 'native' ? 'native' : 'node'
    const location = frame.location
    const key = `${frame.name}\0${location}`
    let map = index.get(parent)
    if (!map) index.set(parent, map = new Map())
    let child = map.get(key)
    if (!child) {
      child = { name: frame.name, location, kind, selfMs: 0, totalMs: 0, children: [] }
      map.set(key, child)
      parent.children.push(child)
    }
    return child
  }
  for (const profile of profiles) {
    /** @type {Map<number, import('../analysis/profile.js').CpuProfile['nodes'][number]>} */
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    /** @type {Map<number, number>} */
    const parentOf = new Map()
    for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
    /** @type {Map<number, FlameNode|null>} where each profile node lands in the merged tree (null: idle) */
    const placed = new Map()
    /** @param {number} id @returns {FlameNode|null} */
    const place = (id) => {
      const known = placed.get(id)
      if (known !== undefined) return known
      const node = byId.get(id)
      const parentId = parentOf.get(id)
      /** @type {FlameNode|null} */
      let at
      if (!node) at = top
      else if (parentId === undefined) at = top // V8's "(root)"
      else if (node.callFrame.functionName === '(idle)' && node.callFrame.url === '') at = null
      else {
        const parent = place(parentId)
        at = parent && childOf(parent, node.callFrame)
      }
      placed.set(id, at)
      return at
    }
    const n = profile.samples.length
    for (let i = 0; i < n; i++) {
      const ms = Math.max(0, (i + 1 < n ? profile.timeDeltas[i + 1] : profile.timeDeltas[i] ?? 0) / 1000)
      const at = place(profile.samples[i])
      if (at) at.selfMs += ms
    }
  }
  total(top)
  let share = foldShare
  let folded = fold(top, top.totalMs * share)
  while (count(folded) > maxFrames) {
    share *= 2
    folded = fold(top, top.totalMs * share)
  }
  return folded
}

/** @param {FlameNode} node */
function total (node) {
  node.totalMs = node.selfMs
  for (const c of node.children) node.totalMs += total(c)
  node.children.sort((a, b) => b.totalMs - a.totalMs)
  return node.totalMs
}

/**
 * A copy of the tree in which each caller's children narrower than minMs are one "other" frame.
 * @param {FlameNode} node
 * @param {number} minMs
 * @returns {FlameNode}
 */
function fold (node, minMs) {
  const kept = node.children.filter((c) => c.totalMs >= minMs).map((c) => fold(c, minMs))
  const small = node.children.filter((c) => c.totalMs < minMs)
  const smallMs = small.reduce((a, c) => a + c.totalMs, 0)
  if (smallMs >= minMs) {
    kept.push({ name: `other (${small.length} functions)`, location: '', kind: 'other', selfMs: smallMs, totalMs: smallMs, children: [] })
  }
  return { ...node, children: kept }
}

/** @param {FlameNode} node @returns {number} */
function count (node) {
  return 1 + node.children.reduce((a, c) => a + count(c), 0)
}

/**
 * Whether a frame is one the profile's blocking list names: the same function at the same place (the
 * list's locations may be relative to the app's folder, the tree's to another: one ends the other).
 * @param {FlameNode} node
 * @param {Pick<import('../types.js').ProfileEntry, 'name'|'location'>[]} entries
 */
export function isNamed (node, entries) {
  return entries.some((e) => e.name === node.name && (e.location === node.location ||
    (node.location.endsWith(e.location) && '/\\'.includes(node.location[node.location.length - e.location.length - 1]))))
}

/** @param {FlameNode} node */
function frameText (node) {
  return node.location && node.kind !== 'outside' ? `${node.name} (${node.location})` : node.name
}

/**
 * The tree as an icicle in SVG (x and widths in percent, so it fills any width), with its search box.
 * @param {FlameNode} tree
 * @param {object} options
 * @param {string} options.id   unique in the page
 * @param {string} options.title
 * @param {Pick<import('../types.js').ProfileEntry, 'name'|'location'>[]} options.blocking  the functions drawn as blocking
 * @returns {string}
 */
export function drawFlame (tree, { id, title, blocking }) {
  if (tree.totalMs <= 0) return ''
  /** @type {string[]} */
  const frames = []
  let depth = 0
  /**
   * @param {FlameNode} node
   * @param {number} x  ms from the left
   * @param {number} level
   */
  const draw = (node, x, level) => {
    depth = Math.max(depth, level)
    const w = node.totalMs / tree.totalMs * 100
    const cls = node.kind === 'root' ? 'root' : isNamed(node, blocking) ? 'hot' : node.kind
    const text = frameText(node)
    const share = (node.totalMs / tree.totalMs * 100).toFixed(1)
    const tip = `${text}: ${node.totalMs.toFixed(1)} ms (${share}% of the busy time), ${node.selfMs.toFixed(1)} ms in itself` +
      (node.kind === 'native' || node.kind === 'outside' ? '; native code / GC, outside JavaScript' : '')
    frames.push(`<svg x="${(x / tree.totalMs * 100).toFixed(3)}%" y="${level * ROW}" width="${w.toFixed(3)}%" height="${ROW - 1}" class="${cls}" data-s="${esc(text.toLowerCase())}">` +
      `<title>${esc(tip)}</title><rect width="100%" height="100%"/>${w >= 1.5 ? `<text x="3" y="12.5">${esc(text.length > 90 ? text.slice(0, 89) + '…' : text)}</text>` : ''}</svg>`)
    let at = x
    for (const c of node.children) {
      draw(c, at, level + 1)
      at += c.totalMs
    }
  }
  draw(tree, 0, 0)
  const height = (depth + 1) * ROW
  return `<figure class="flame" id="${esc(id)}"><figcaption>${esc(title)}</figcaption>` +
    `<p class="flame-search"><input type="search" data-flame="${esc(id)}" placeholder="Search functions" aria-label="Search the flame graph"> <output></output></p>` +
    `<svg class="flame-graph" width="100%" height="${height}" role="img" aria-label="${esc(title)}">${frames.join('')}</svg>` +
    '<figcaption><span class="key hot">held the loop (where the event loop went)</span> <span class="key js">the app\'s code and its packages</span> ' +
    '<span class="key node">Node\'s JavaScript</span> <span class="key native">native code / GC, outside JavaScript</span> ' +
    `<span class="key match">matches the search</span>. Each frame's width is its share of the busy samples (${tree.totalMs.toFixed(0)} ms), callers above; ` +
    `frames under ${(FOLD_SHARE * 100).toFixed(1)}% are folded into "other".</figcaption></figure>`
}

/** The styles of the flame graphs (in the page only when it has one). */
export const FLAME_CSS = '.flame-graph{display:block;font:11px system-ui,sans-serif}' +
  '.flame-graph rect{fill:#f2c48d;stroke:#fff;stroke-width:.5}.flame-graph text{fill:#1b1e23;pointer-events:none}' +
  '.flame-graph .root rect{fill:#d9dde3}.flame-graph .node rect,.key.node{background:#c9d3df;fill:#c9d3df}' +
  '.flame-graph .native rect,.flame-graph .outside rect,.key.native{background:#a9b4e0;fill:#a9b4e0}' +
  '.flame-graph .own rect,.flame-graph .other rect{fill:#e8eaee}.key.js{background:#f2c48d}' +
  '.flame-graph .hot rect,.key.hot{background:#d62728;fill:#d62728;color:#fff}.flame-graph .hot text{fill:#fff;font-weight:600}' +
  '.flame-graph .match rect,.key.match{background:#ffe45c;fill:#ffe45c;stroke:#1b1e23;stroke-width:1.5}.flame-graph .match text{fill:#1b1e23}' +
  '.key{padding:0 .3rem;border-radius:3px;white-space:nowrap}.flame-search input{font:inherit;padding:.2rem .4rem;width:16rem;max-width:100%}'

/** The search: marks the frames whose text holds the query and says how many. */
export const FLAME_SCRIPT = "for(const input of document.querySelectorAll('input[data-flame]')){" +
  'const figure=document.getElementById(input.dataset.flame);const output=figure.querySelector(\'output\');' +
  "input.addEventListener('input',()=>{const q=input.value.trim().toLowerCase();let n=0;" +
  "for(const frame of figure.querySelectorAll('svg[data-s]')){const hit=q!==''&&frame.dataset.s.includes(q);frame.classList.toggle('match',hit);if(hit)n++}" +
  "output.textContent=q?n+' frame'+(n===1?'':'s')+' match':''})}"

/** The CSP source that allows FLAME_SCRIPT and no other script. */
export const FLAME_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(FLAME_SCRIPT).digest('base64')}'`

/**
 * The flame graphs of a results file's profiled configurations, read from the .cpuprofile files its runs
 * name (relative to `dir`, the results folder); a configuration whose files are all missing has none.
 * @param {import('../types.js').RunRecord[]} runs
 * @param {string} dir
 * @param {(file: string) => Promise<string>} read
 * @returns {Promise<Map<string, FlameNode>>}  by `${experiment}\0${label}`
 */
export async function flameTrees (runs, dir, read) {
  /** @type {Map<string, string[]>} */
  const files = new Map()
  for (const run of runs) {
    // the runs the tables count (lib/analysis/summarize.js combinedProfile)
    if (!run.profile || !isMeasured(run)) continue
    const key = `${run.experiment}\0${run.label}`
    files.set(key, [...files.get(key) ?? [], run.profile.file])
  }
  /** @type {Map<string, FlameNode>} */
  const out = new Map()
  for (const [key, list] of files) {
    /** @type {import('../analysis/profile.js').CpuProfile[]} */
    const profiles = []
    for (const file of list) {
      try {
        profiles.push(JSON.parse(await read(path.resolve(dir, file))))
      } catch {
        // a missing or unreadable profile: the tables above still hold its reduction
      }
    }
    const valid = profiles.filter((p) => Array.isArray(p?.nodes) && Array.isArray(p?.samples) && Array.isArray(p?.timeDeltas))
    if (valid.length > 0) out.set(key, flameTree(valid))
  }
  return out
}
