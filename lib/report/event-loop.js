// "Where the event loop went": per configuration of a user's app (--app), the calls that held its
// main thread during the measured windows, from its runs' CPU profiles added up (Row.profile,
// lib/analysis/summarize.js): self time by call, the user's line first ("compareSync (bcryptjs) from login
// at server.js:3") with the hottest leaf beneath, and the part of it inside blocking windows (the loop late
// by more than the threshold). Results files from before calls have a function per row and its inclusive
// time, shown as they were. Shared by the terminal (top three), summary.md and report.html (top rows), as
// tables (lib/report/tables.js renders them everywhere).
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
 * The configurations of an experiment with profiles: those its kind shows (ReportSummary.loopLabels), in
 * that order, else all in table order.
 * @param {Pick<import('../analysis/summarize.js').ExperimentSummary, 'name'|'rows'> & { loopLabels?: string[] }} summary
 * @returns {LoopSection[]}
 */
export function loopSections (summary) {
  const rows = summary.loopLabels ? summary.loopLabels.flatMap((label) => summary.rows.filter((r) => r.label === label)) : summary.rows
  return rows.flatMap((r) => r.profile ? [{ experiment: summary.name, label: r.label, profile: r.profile }] : [])
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

/** @param {import('../types.js').ProfileEntry} e */
const isCall = (e) => e.entry !== undefined || e.caller !== undefined

/**
 * A row as the report leads with it: the user's line for a call ("compareSync (bcryptjs) from login at
 * server.js:3"; "shop at shop.js:23" for the app's own code), the function for a row from before calls.
 * @param {import('../types.js').ProfileEntry} e
 */
export function callText (e) {
  if (!isCall(e)) return functionText(e)
  const { entry, caller } = e
  const chunked = e.chunked ? ', chunked' : ''
  if (!caller) return `${entry ? `${entry.name} (${entry.package})` : e.name}, chunked; no sample shows its caller`
  const file = caller.location.replace(/:\d+$/, '')
  const named = caller.name === '(anonymous)' ? '' : caller.name
  const at = caller.line === undefined ? `${caller.name} (${caller.location})` : `${named ? `${named} at ` : ''}${file}:${caller.line}`
  return entry ? `${entry.name} (${entry.package}) from ${at}${chunked}` : at
}

/**
 * The leaf beneath a call: "_encipher (bcryptjs/dist/bcrypt.js:959)"; null for a row from before calls,
 * or one whose leaf is its caller (a handler's own code, JSON.stringify's time).
 * @param {import('../types.js').ProfileEntry} e
 */
export function leafText (e) {
  if (!isCall(e)) return null
  if (!e.entry && !e.via && e.caller?.name === e.name && e.caller.location === e.location) return null
  return `leaf: ${functionText(e)}`
}

/**
 * Whether two rows are the same call (or, from before calls, the same function).
 * @param {import('../types.js').ProfileEntry} a
 * @param {import('../types.js').ProfileEntry} b
 */
function sameRow (a, b) {
  if (isCall(a) || isCall(b)) {
    return a.entry?.name === b.entry?.name && a.entry?.package === b.entry?.package && a.caller?.location === b.caller?.location && a.caller?.line === b.caller?.line
  }
  return a.name === b.name && a.location === b.location && a.via === b.via
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
 * One table per configuration: its top rows by self time, with the share of the window and the share of
 * the blocking time. A call's row has its leaf beneath; its share counts every sample beneath the call,
 * so it has no inclusive column. Rows from before calls (a function each) keep the inclusive time of the
 * same function.
 * @param {LoopSection} section
 * @param {number} [limit]
 * @returns {import('./tables.js').Table}
 */
export function loopTable ({ label, profile }, limit = REPORT_TOP) {
  const busy = profile.totalMs - profile.idleMs
  const blocking = profile.blocking
  const shown = profile.self.slice(0, limit)
  const calls = shown.some(isCall)
  const inclusive = new Map(profile.inclusive.map((e) => [`${e.name}\0${e.location}`, e.ms]))
  // Profiles from before nativeMs have no such column (and read as they did).
  const native = shown.some((e) => e.nativeMs !== undefined)
  const rows = shown.flatMap((e) => {
    const blocked = blocking?.self.find((b) => sameRow(b, e))
    const row = [callText(e), percent(e.ms, profile.totalMs), blocking ? percent(blocked?.ms ?? 0, blocking.ms) : '-']
    if (!calls) {
      const incl = inclusive.get(`${e.name}\0${e.location}`)
      row.push(incl === undefined ? '' : percent(incl, profile.totalMs))
    }
    if (native) row.push(nativeText(e))
    const leaf = leafText(e)
    if (!leaf) return [row]
    return [row, [`  ${leaf}`, percent(e.leafMs ?? e.ms, profile.totalMs), '', ...(native ? [''] : [])]]
  })
  rows.push(['(idle: waiting for events)', percent(profile.idleMs, profile.totalMs), '', ...(calls ? [] : ['']), ...(native ? [''] : [])])
  const late = lateShareOf(profile.heldShare, profile)
  const blockedShare = blocking && late !== null ? `; the loop was late by more than ${blocking.thresholdMs} ms for ${percent(late, 1)} of it` : ''
  const columns = calls
    ? ['call (its hottest leaf beneath)', 'of the window', 'of blocking time']
    : ['function (self time; Node/V8 time charged to the caller)', 'of the window', 'of blocking time', 'inclusive']
  return {
    title: `${label}: main thread ${percent(busy, profile.totalMs)} busy over ${(profile.totalMs / 1000).toFixed(2)} s measured (${profile.runs} run${profile.runs === 1 ? '' : 's'})${blockedShare}`,
    columns: [...columns, ...(native ? [NATIVE_COLUMN] : [])],
    align: [...columns.map((_, i) => i === 0 ? /** @type {const} */ ('left') : /** @type {const} */ ('right')), ...(native ? /** @type {const} */ (['left']) : [])],
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
 * The terminal's lines: each configuration's top three rows, one line each, a call's leaf beneath it.
 * @param {LoopSection[]} sections
 * @returns {string[]}
 */
export function loopLines (sections) {
  if (sections.length === 0) return []
  const width = Math.max(...sections.map((s) => s.label.length))
  const calls = sections.some((s) => s.profile.self.some(isCall))
  const lines = [calls ? 'Where the event loop went (self time by call, your line first; share of the measured window):' : 'Where the event loop went (self time, share of the measured window):']
  for (const { label, profile } of sections) {
    profile.self.slice(0, TERMINAL_TOP).forEach((e, i) => {
      lines.push(`  ${(i === 0 ? label : '').padEnd(width)}  ${percent(e.ms, profile.totalMs).padStart(6)}  ${callText(e)}`)
      const leaf = leafText(e)
      if (leaf) lines.push(`  ${''.padEnd(width)}  ${percent(e.leafMs ?? e.ms, profile.totalMs).padStart(6)}    ${leaf}`)
    })
    const route = profile.routes?.[0]
    if (route) lines.push(`  ${''.padEnd(width)}  ${percent(route.ms, profile.totalMs).padStart(6)}  loop held while ${route.route} was in progress`)
  }
  return lines
}

/** The note under the section for results from before calls: what the figures mean and where the raw profiles are. */
export const LOOP_NOTE = 'Self time: a sample inside Node or V8 (a native call, node:internal code) is charged to the nearest function of the app or of a package it calls, "-> " naming what it called; garbage collection is charged as the sample before it. "Of blocking time": the samples taken while the event loop was late. The raw profiles (profiles/*.cpuprofile) open in Chrome DevTools and speedscope.'

/** The same for rows that are calls. */
export const CALL_NOTE = 'Self time by call: each sample is charged to the function where control entered the package it ran in (bcryptjs\'s compareSync, or Node\'s pbkdf2Sync) and to the app\'s line that called it (the calling package\'s, for an app that is itself a package), its hottest leaf beneath; a built-in with no frame of its own (JSON.stringify) is its caller\'s time at the line of the call. The line comes from the profile\'s per-line samples where the caller is the leaf, else from the caller\'s source (the first line of its body calling that function by name). "Chunked": the package ran its work in slices from Node\'s timers; the call named is the one whose first slice the profile shows ("no sample shows its caller" when none does). Garbage collection is charged as the sample before it. "Of blocking time": the samples taken while the event loop was late. The raw profiles (profiles/*.cpuprofile) open in Chrome DevTools and speedscope.'

/**
 * The note for these sections: CALL_NOTE once any row is a call.
 * @param {LoopSection[]} sections
 */
export function loopNote (sections) {
  return sections.some((s) => s.profile.self.some(isCall)) ? CALL_NOTE : LOOP_NOTE
}

/** The note under the route table, where there is one. */
export const ROUTE_NOTE = 'Routes: the part of the time the loop was held (the spans from the tick before a late tick to it, so a block of B ms is B to B + 10 ms) during which a request of the route was in progress (from its start to its response\'s finish, from Node\'s diagnostics_channel). A handler that holds the loop is in progress for all of its block; a request that only waits through another\'s block (its handler awaiting I/O) is counted too, so the shares can add up to more than 100%. "Outside JavaScript": samples in native code (a synchronous system call such as execSync, a C++ library such as pbkdf2), in garbage collection or in "(program)".'
