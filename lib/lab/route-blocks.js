// Which route's requests were in progress while the event loop was held (LoopBlocks.routes in
// lib/types.js). Node publishes 'http.server.request.start' before a server emits 'request' and
// 'http.server.response.finish' once the response is handed to the OS (both since Node 18.7, so in
// every Node syncbench supports); a subscriber sees every request of any framework, and no prototype is
// patched. A request is in progress from one to the other. When the metrics' ticker sees a block
// (lib/lab/loop-blocks.js: the span from the tick before to the late tick), each route is charged the
// part of the span its requests covered, counted once however many of them were in progress at once.
//
// What this can and cannot tell apart: a handler that holds the loop (a synchronous hash, an
// execSync) is in progress for the whole block, so its route is charged it all. A request that merely
// waited through another's block (its handler awaited a timer, a file, a database) is in progress too,
// and its route is charged the same; a request that starts and finishes within a loop turn, as cheap
// routes do, covers a few microseconds of the span and is charged that much. So the route charged
// most is the one whose handler held the loop unless another route's requests all wait across it.
//
// Per request: two clock reads and a Map insert and delete. A request that finished in under
// SHORT_MS is dropped at once (it can cover no more than that of any span); the longer ones are kept
// until the next tick, the only moment a span that covers them can be seen. A response whose socket
// closed before it finished (no finish is published) is dropped when next looked at.
import dc from 'node:diagnostics_channel'
import { performance } from 'node:perf_hooks'
import { roundTo } from '../format.js'

export const REQUEST_START = 'http.server.request.start'
export const RESPONSE_FINISH = 'http.server.response.finish'
/** Past this many distinct routes (paths with ids in them), the rest are counted as one. */
export const MAX_ROUTES = 40
export const OTHER_ROUTES = 'other routes'
/** A request shorter than this (ms) is not kept for the next tick. */
const SHORT_MS = 1
/** Finished requests kept for the next tick, at most (a tick comes every 10 ms; a blocked loop finishes few). */
const MAX_FINISHED = 10_000
/** A route label longer than this is cut: a path is a label, not a payload. */
const MAX_LABEL = 120

/**
 * "METHOD /path", the query string left out.
 * @param {{ method?: string, url?: string }} request
 */
export function routeLabel ({ method = 'GET', url = '/' }) {
  const q = url.indexOf('?')
  const label = `${method} ${q < 0 ? url : url.slice(0, q)}`
  return label.length > MAX_LABEL ? label.slice(0, MAX_LABEL) + '...' : label
}

/**
 * @typedef {object} InProgress
 * @property {string} route
 * @property {number} start  performance.now()
 * @property {{ destroyed?: boolean }} response
 */

/**
 * @param {{ now?: () => number, maxRoutes?: number }} [options]  now: the clock (performance.now by default)
 */
export function createRouteBlocks ({ now = () => performance.now(), maxRoutes = MAX_ROUTES } = {}) {
  /** @type {Map<object, InProgress>} */
  const inProgress = new Map()
  /** finished since the last tick, lasting SHORT_MS or more: [route, start, end] */
  /** @type {[string, number, number][]} */
  let finished = []
  /** @type {Map<string, { ms: number, blocks: number }>} */
  let routes = new Map()
  /** @type {Set<string>} every label met, so the bound holds across windows */
  const known = new Set()

  /** @param {string} label */
  function bounded (label) {
    if (known.has(label)) return label
    if (known.size >= maxRoutes) return OTHER_ROUTES
    known.add(label)
    return label
  }

  /**
   * Per route, the length of the union of its requests' parts inside [from, to].
   * @param {number} from
   * @param {number} to
   * @returns {Map<string, number>}
   */
  function covered (from, to) {
    /** @type {Map<string, [number, number][]>} */
    const parts = new Map()
    const put = (/** @type {string} */ route, /** @type {number} */ a, /** @type {number} */ b) => {
      const lo = Math.max(a, from)
      const hi = Math.min(b, to)
      if (hi <= lo) return
      const list = parts.get(route)
      if (list) list.push([lo, hi])
      else parts.set(route, [[lo, hi]])
    }
    for (const [response, entry] of inProgress) {
      if (entry.response.destroyed) inProgress.delete(response)
      else put(entry.route, entry.start, to)
    }
    for (const [route, start, end] of finished) put(route, start, end)
    /** @type {Map<string, number>} */
    const out = new Map()
    for (const [route, list] of parts) {
      list.sort((x, y) => x[0] - y[0])
      let total = 0
      let [lo, hi] = list[0]
      for (const [a, b] of list.slice(1)) {
        if (a > hi) {
          total += hi - lo
          lo = a
        }
        hi = Math.max(hi, b)
      }
      out.set(route, total + hi - lo)
    }
    return out
  }

  /**
   * @param {Map<string, { ms: number, blocks: number }>} into
   * @param {number} from
   * @param {number} to
   */
  function charge (into, from, to) {
    for (const [route, ms] of covered(from, to)) {
      const found = into.get(route)
      if (found) {
        found.ms += ms
        found.blocks++
      } else {
        into.set(route, { ms, blocks: 1 })
      }
    }
  }

  return {
    /** whether a server's requests are followed (followRoutes): without, the metrics leave routes out */
    followed: false,
    /**
     * A request started ('http.server.request.start').
     * @param {{ method?: string, url?: string }} request
     * @param {object & { destroyed?: boolean }} response
     */
    started (request, response) {
      inProgress.set(response, { route: bounded(routeLabel(request)), start: now(), response })
    },
    /**
     * Its response finished ('http.server.response.finish').
     * @param {object} response
     */
    finished (response) {
      const entry = inProgress.get(response)
      if (!entry) return
      inProgress.delete(response)
      const end = now()
      if (end - entry.start < SHORT_MS) return
      // Bounded even with no ticker (metrics closed while the server still serves): the oldest go first.
      if (finished.length >= MAX_FINISHED) finished = finished.slice(MAX_FINISHED / 2)
      finished.push([entry.route, entry.start, end])
    },
    /**
     * The metrics' ticker ran; `block` when it was late past the threshold: the span, on the same
     * clock as `now`.
     * @param {{ from: number, to: number }} [block]
     */
    tick (block) {
      if (block) charge(routes, block.from, block.to)
      finished = []
    },
    /**
     * The window's routes, largest first, with a block still in progress (no tick has run since) counted.
     * @param {{ from: number, to: number }} [pending]
     * @returns {import('../types.js').RouteBlocks[]}
     */
    snapshot (pending) {
      /** @type {Map<string, { ms: number, blocks: number }>} */
      const out = new Map([...routes].map(([route, r]) => [route, { ...r }]))
      if (pending) charge(out, pending.from, pending.to)
      return [...out].map(([route, r]) => ({ route, ms: roundTo(r.ms, 1), blocks: r.blocks }))
        .filter((r) => r.ms > 0)
        .sort((a, b) => b.ms - a.ms || (a.route < b.route ? -1 : 1))
    },
    reset () {
      routes = new Map()
      finished = []
      for (const [response, entry] of inProgress) if (entry.response.destroyed) inProgress.delete(response)
    }
  }
}

/**
 * Follow `server`'s requests through diagnostics_channel into `routes`.
 * @param {object} server  the http.Server or https.Server measured
 * @param {ReturnType<typeof createRouteBlocks>} routes
 * @param {(request: { url?: string }) => boolean} [skip]  requests not to count (syncbench's own routes)
 * @returns {() => void}  stops following
 */
export function followRoutes (server, routes, skip) {
  /** @param {unknown} message */
  const onStart = (message) => {
    const m = /** @type {{ server?: unknown, request: { method?: string, url?: string }, response: object }} */ (message)
    if (m.server === server && !skip?.(m.request)) routes.started(m.request, m.response)
  }
  /** @param {unknown} message */
  const onFinish = (message) => {
    const m = /** @type {{ server?: unknown, response: object }} */ (message)
    if (m.server === server) routes.finished(m.response)
  }
  dc.subscribe(REQUEST_START, onStart)
  dc.subscribe(RESPONSE_FINISH, onFinish)
  routes.followed = true
  return () => {
    dc.unsubscribe(REQUEST_START, onStart)
    dc.unsubscribe(RESPONSE_FINISH, onFinish)
  }
}
