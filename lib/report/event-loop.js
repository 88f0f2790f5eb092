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
  const rows = profile.self.slice(0, limit).map((e) => {
    const blocked = blocking?.self.find((b) => b.name === e.name && b.location === e.location && b.via === e.via)
    const incl = inclusive.get(`${e.name}\0${e.location}`)
    return [functionText(e), percent(e.ms, profile.totalMs), blocking ? percent(blocked?.ms ?? 0, blocking.ms) : '-', incl === undefined ? '' : percent(incl, profile.totalMs)]
  })
  rows.push(['(idle: waiting for events)', percent(profile.idleMs, profile.totalMs), '', ''])
  const blockedShare = blocking ? `; the loop was late by more than ${blocking.thresholdMs} ms for ${percent(blocking.ms, profile.totalMs)} of it` : ''
  return {
    title: `${label}: main thread ${percent(busy, profile.totalMs)} busy over ${(profile.totalMs / 1000).toFixed(2)} s measured (${profile.runs} run${profile.runs === 1 ? '' : 's'})${blockedShare}`,
    columns: ['function (self time; Node/V8 time charged to the caller)', 'of the window', 'of blocking time', 'inclusive'],
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
  }
  return lines
}

/** The note under the section: what the figures mean and where the raw profiles are. */
export const LOOP_NOTE = 'Self time: a sample inside Node or V8 (a native call, node:internal code) is charged to the nearest function of the app or of a package it calls, "-> " naming what it called; garbage collection is charged as the sample before it. "Of blocking time": the samples taken while the event loop was late. The raw profiles (profiles/*.cpuprofile) open in Chrome DevTools and speedscope.'
