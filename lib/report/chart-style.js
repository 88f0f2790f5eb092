// Colours and small print shared by every chart, so "sync" is the same red in every chart of a report.
// Each strategy keeps its colour in every chart: the colours are the lab's (lib/lab/strategies.js).
import { strategyStyles } from '../lab/strategies.js'

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf']

/** The wide layout: report.html on a desktop and the PNGs. The narrow one (phones) passes width. */
export const WIDTH = 720

export const REFERENCE_COLOR = '#6b7280'
export const INK = '#1b1e23'

/**
 * A colour per series: its strategy's fixed colour, then palette colours not taken yet, in order.
 * Lines need one colour each (unique); bars may share their strategy's colour across workloads.
 * @param {string[]} names
 * @param {(name: string) => string} [strategyOf]
 * @param {{ unique?: boolean }} [options]
 * @returns {Map<string, string>}
 */
export function colorsFor (names, strategyOf = (n) => n, { unique = true } = {}) {
  const colors = new Map()
  const taken = new Set()
  for (const name of names) {
    const fixed = strategyStyles.get(strategyOf(name))?.color ?? strategyStyles.get(name)?.color
    if (fixed && !(unique && taken.has(fixed))) { colors.set(name, fixed); taken.add(fixed) }
  }
  const free = PALETTE.filter((c) => !taken.has(c))
  let i = 0
  for (const name of names) {
    if (!colors.has(name)) colors.set(name, free.length ? free[i++ % free.length] : PALETTE[i++ % PALETTE.length])
  }
  return colors
}

/**
 * One line saying where the numbers come from, printed under each chart.
 * @param {import('../types.js').Environment|undefined} env
 * @param {string} [createdAt]
 */
export function environmentNote (env, createdAt) {
  if (!env) return 'syncbench'
  const cpu = String(env.cpuModel ?? 'unknown CPU').replace(/\s+/g, ' ').replace(/\(R\)|\(TM\)/g, '').trim()
  const parts = [`${cpu} × ${env.cpuCount}`, `${env.platform} ${env.arch}`, `Node ${env.node}`]
  if (env.uvThreadpoolSize) parts.push(`UV_THREADPOOL_SIZE=${env.uvThreadpoolSize}`)
  if (createdAt) parts.push(createdAt.slice(0, 10))
  return `syncbench · ${parts.join(' · ')}`
}

/**
 * Ticks for a log axis that a reader can say aloud: 1, 2, 5, 10, 20, 50 ... inside [lo, hi], thinned to
 * powers of ten when the range spans many decades.
 * @param {number} lo > 0
 * @param {number} hi
 */
export function niceLogTicks (lo, hi) {
  const decades = Math.log10(hi / lo)
  const ladders = [[1], [1, 3], [1, 2, 5], [1, 1.5, 2, 3, 5, 7]]
  let i = decades > 3 ? 0 : decades > 1.5 ? 1 : decades > 0.6 ? 2 : 3
  let ticks = ticksOf(lo, hi, ladders[i])
  // a short range may hold fewer than three ticks of the chosen ladder: take the next, finer one
  while (ticks.length < 3 && i < ladders.length - 1) ticks = ticksOf(lo, hi, ladders[++i])
  return ticks
}

/**
 * @param {number} lo
 * @param {number} hi
 * @param {number[]} steps  the mantissas of one decade's ticks
 */
function ticksOf (lo, hi, steps) {
  const ticks = []
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const s of steps) {
      const v = s * 10 ** e
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(Number(v.toPrecision(6)))
    }
  }
  return ticks
}

/** 0.5 -> "0.5 ms", 2500 -> "2.5 s". @param {number} ms */
export function formatMs (ms) {
  if (ms >= 1000) return `${Number((ms / 1000).toPrecision(3))} s`
  if (ms >= 1) return `${Number(ms.toPrecision(3))} ms`
  return `${Number(ms.toPrecision(2))} ms`
}
