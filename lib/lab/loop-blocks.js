// When the event loop was held (ServerMetrics.loopBlocks in lib/types.js): the spans of a metrics window
// during which the loop did not come back to its timers for longer than the blocking threshold, as the
// 10 ms ticker of lib/lab/metrics.js sees them. A tick that runs at `now`, later than its interval by
// more than BLOCKING_DELAY_MS, adds the span [previous tick, now]: the loop last ran its timers at the
// previous tick and ran none until now. The span starts at the previous tick rather than at the tick's
// due time (10 ms later) because the block may have started anywhere in those 10 ms (a request handled
// right after a tick); an idle loop's part of it is idle in a CPU profile, and what ran before the block
// in the same loop turn (at most those 10 ms) is counted with it. So a block of B ms is a span of B to
// B + 10 ms, while the loop-delay figures read it as B - 10 to B.
//
// Bounded: spans that touch (one starts where the last ended: back-to-back blocks, one loop turn apart)
// are one span; past LOOP_BLOCKS_MAX_SPANS the two neighbours closest together are merged, and the gap
// between them, time the loop was not known to be held, is added to `mergedGapMs`: the only error the
// bound introduces, and it says how large it is.
import { roundTo } from '../format.js'

/** A loop later than this (ms) is blocked: twice the metrics' 10 ms tick, well above timer jitter. */
export const BLOCKING_DELAY_MS = 20
/** 500 spans (about 10 KB of JSON): 15 s of 30 ms blocks each a loop turn apart before the first merge. */
export const LOOP_BLOCKS_MAX_SPANS = 500

/**
 * @param {{ maxSpans?: number }} [options]
 */
export function createLoopBlocks ({ maxSpans = LOOP_BLOCKS_MAX_SPANS } = {}) {
  const cap = Math.max(1, maxSpans)
  /** @type {[number, number][]} */
  let spans = []
  let mergedGapMs = 0

  /**
   * @param {[number, number][]} list  sorted, disjoint; changed in place
   * @param {number} from
   * @param {number} to
   * @returns {number} the gap a merge past the cap folded in (0 if none)
   */
  function insert (list, from, to) {
    const last = list[list.length - 1]
    // A tick never runs before the previous one: spans arrive in order, and one that starts where the
    // last ended (or inside it: the end of a window counted a block still in progress) extends it.
    if (last && from <= last[1]) {
      last[1] = Math.max(last[1], to)
      return 0
    }
    list.push([from, to])
    if (list.length <= cap) return 0
    let at = 0
    for (let i = 1; i < list.length - 1; i++) if (list[i + 1][0] - list[i][1] < list[at + 1][0] - list[at][1]) at = i
    const gap = list[at + 1][0] - list[at][1]
    list[at][1] = list[at + 1][1]
    list.splice(at + 1, 1)
    return gap
  }

  return {
    /**
     * The loop ran no timer from `from` to `to` (ms since the window started; `from` is clamped to 0).
     * @param {number} from
     * @param {number} to
     */
    add (from, to) {
      mergedGapMs += insert(spans, Math.max(0, from), to)
    },
    /**
     * The window's spans, with a block still in progress (no tick has run since `pendingFrom`) as its last.
     * @param {{ from: number, to: number }} [pending]
     * @returns {import('../types.js').LoopBlocks}
     */
    snapshot (pending) {
      /** @type {[number, number][]} */
      const list = spans.map(([a, b]) => [a, b])
      const gap = pending ? insert(list, Math.max(0, pending.from), pending.to) : 0
      return {
        thresholdMs: BLOCKING_DELAY_MS,
        spans: list.map(([a, b]) => [roundTo(a, 1), roundTo(b, 1)]),
        mergedGapMs: roundTo(mergedGapMs + gap, 1)
      }
    },
    reset () {
      spans = []
      mergedGapMs = 0
    }
  }
}
