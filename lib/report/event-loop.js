// "Where the event loop went": per configuration of a user's app (--app), the functions that held its
// main thread during the measured windows, from its runs' CPU profiles added up (Row.profile,
// lib/analysis/summarize.js): self time charged to the app's code first, the part of it inside blocking
// windows (the loop late by more than the threshold), and inclusive time. Shared by the terminal (top
// three), summary.md and report.html (top functions), as tables (lib/report/tables.js renders them everywhere).
import { combinedProfile } from '../analysis/summarize.js'

/** How many functions summary.md and report.html list per configuration; the terminal shows three. */
export const REPORT_TOP = 8
export const TERMINAL_TOP = 3

/**
 * @typedef {object} LoopSection
 * @property {string} experiment
 * @property {string} label
 * @property {import('../analysis/summarize.js').ConfigurationProfile} profile
 */

/**
 * The configurations of an experiment with profiles, in table order.
 * @param {Pick<import('../analysis/summarize.js').ExperimentSummary, 'name'|'rows'>} summary
 * @returns {LoopSection[]}
 */
export function loopSections (summary) {
  return summary.rows.flatMap((r) => r.profile ? [{ experiment: summary.name, label: r.label, profile: r.profile }] : [])
}

/**
 * The same from the runs, for an experiment the model could not summarize (report.html of a
 * hand-written file without its baselines).
 * @param {string} experiment
 * @param {string[]} labels  its configurations in table order
 * @param {import('../types.js').RunRecord[]} runs  its runs
 * @returns {LoopSection[]}
 */
export function loopSectionsOfRuns (experiment, labels, runs) {
  return labels.flatMap((label) => {
    const profile = combinedProfile(runs.filter((r) => r.experiment === experiment && r.label === label))
    return profile ? [{ experiment, label, profile }] : []
  })
}

/**
 * A function as the report names it: "hashPasswordSlowly (app.js:12) -> pbkdf2Sync".
 * @param {import('../types.js').ProfileEntry} e
 */
export function functionText (e) {
  return `${e.name} (${e.location})${e.via ? ` -> ${e.via}` : ''}`
}

/**
 * @param {number} ms
 * @param {number} totalMs
 */
function percent (ms, totalMs) {
  return totalMs > 0 ? `${(ms / totalMs * 100).toFixed(1)}%` : '-'
}

/**
 * The share of the measured windows the loop was late past the threshold: the metrics' spans over the
 * windows (heldShare); else, for a file from before the spans, the profile's samples inside its
 * blocking windows; null without either. The verdict and the section's title give this one figure.
 * @param {number|null|undefined} held  heldShare of the runs
 * @param {{ totalMs: number, blocking: { ms: number }|null }|null} profile
 * @returns {number|null}
 */
export function lateShareOf (held, profile) {
  if (held !== null && held !== undefined) return held
  return profile?.blocking && profile.totalMs > 0 ? profile.blocking.ms / profile.totalMs : null
}

/**
 * One table per configuration: its top functions by self time, with the share of the window, the
 * share of the blocking time and inclusive time of the same function.
 * @param {LoopSection} section
 * @param {number} [limit]
 * @returns {import('./tables.js').Table}
 */
export function loopTable ({ label, profile }, limit = REPORT_TOP) {
  const busy = profile.totalMs - profile.idleMs
  const blocking = profile.blocking
  const inclusive = new Map(profile.inclusive.map((e) => [`${e.name}\0${e.location}`, e.ms]))
  const shown = profile.self.slice(0, limit)
  // Profiles from before nativeMs have no such column (and read as they did).
  const native = shown.some((e) => e.nativeMs !== undefined)
  const rows = shown.map((e) => {
    const blocked = blocking?.self.find((b) => b.name === e.name && b.location === e.location && b.via === e.via)
    const incl = inclusive.get(`${e.name}\0${e.location}`)
    const row = [functionText(e), percent(e.ms, profile.totalMs), blocking ? percent(blocked?.ms ?? 0, blocking.ms) : '-', incl === undefined ? '' : percent(incl, profile.totalMs)]
    return native ? [...row, nativeText(e)] : row
  })
  rows.push(['(idle: waiting for events)', percent(profile.idleMs, profile.totalMs), '', '', ...(native ? [''] : [])])
  const late = lateShareOf(profile.heldShare, profile)
  const blockedShare = blocking && late !== null ? `; the loop was late by more than ${blocking.thresholdMs} ms for ${percent(late, 1)} of it` : ''
  return {
    title: `${label}: main thread ${percent(busy, profile.totalMs)} busy over ${(profile.totalMs / 1000).toFixed(2)} s measured (${profile.runs} run${profile.runs === 1 ? '' : 's'})${blockedShare}`,
    columns: ['function (self time; Node/V8 time charged to the caller)', 'of the window', 'of blocking time', 'inclusive', ...(native ? [NATIVE_COLUMN] : [])],
    align: ['left', 'right', 'right', 'right', ...(native ? /** @type {const} */ (['left']) : [])],
    rows
  }
}

/** The column that says how much of a function's time no JavaScript explains. */
export const NATIVE_COLUMN = 'of it outside JavaScript'

/**
 * "native code / GC, outside JavaScript: 98%" for a row whose time was mostly there; the share otherwise.
 * @param {import('../types.js').ProfileEntry} e
 */
export function nativeText (e) {
  if (!e.nativeMs || e.ms <= 0) return ''
  const share = e.nativeMs / e.ms
  return share >= 0.5 ? `${percent(e.nativeMs, e.ms)} native code / GC (outside JavaScript)` : percent(e.nativeMs, e.ms)
}

/**
 * The routes whose requests were in progress while the loop was held (ServerMetrics.loopBlocks.routes,
 * the runs' added up), the one charged most first; null when the runs did not follow routes.
 * @param {LoopSection} section
 * @returns {import('./tables.js').Table|null}
 */
export function routeTable ({ label, profile }) {
  if (!profile.routes) return null
  const blocked = profile.spansMs ?? 0
  const rows = profile.routes.map((r) => [r.route, percent(r.ms, profile.totalMs), blocked > 0 ? percent(r.ms, blocked) : '-', String(r.blocks)])
  if (rows.length === 0) rows.push(['(no request was in progress while the loop was held)', '', '', ''])
  return {
    title: `${label}: routes whose requests were in progress while the loop was held`,
    columns: ['route', 'of the window', 'of the time the loop was held', 'blocks'],
    align: ['left', 'right', 'right', 'right'],
    rows
  }
}

/**
 * The terminal's lines: each configuration's top three functions, one line each.
 * @param {LoopSection[]} sections
 * @returns {string[]}
 */
export function loopLines (sections) {
  if (sections.length === 0) return []
  const width = Math.max(...sections.map((s) => s.label.length))
  const lines = ['Where the event loop went (self time, share of the measured window):']
  for (const { label, profile } of sections) {
    profile.self.slice(0, TERMINAL_TOP).forEach((e, i) => {
      lines.push(`  ${(i === 0 ? label : '').padEnd(width)}  ${percent(e.ms, profile.totalMs).padStart(6)}  ${functionText(e)}`)
    })
    const route = profile.routes?.[0]
    if (route) lines.push(`  ${''.padEnd(width)}  ${percent(route.ms, profile.totalMs).padStart(6)}  loop held while ${route.route} was in progress`)
  }
  return lines
}

/** The note under the section: what the figures mean and where the raw profiles are. */
export const LOOP_NOTE = 'Self time: a sample inside Node or V8 (a native call, node:internal code) is charged to the nearest function of the app or of a package it calls, "-> " naming what it called; garbage collection is charged as the sample before it. "Of blocking time": the samples taken while the event loop was late. The raw profiles (profiles/*.cpuprofile) open in Chrome DevTools and speedscope.'

/** The note under the route table, where there is one. */
export const ROUTE_NOTE = 'Routes: the part of the time the loop was held (the spans from the tick before a late tick to it, so a block of B ms is B to B + 10 ms) during which a request of the route was in progress (from its start to its response\'s finish, from Node\'s diagnostics_channel). A handler that holds the loop is in progress for all of its block; a request that only waits through another\'s block (its handler awaiting I/O) is counted too, so the shares can add up to more than 100%. "Outside JavaScript": samples in native code (a synchronous system call such as execSync, a C++ library such as pbkdf2), in garbage collection or in "(program)".'
