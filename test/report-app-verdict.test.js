// The app verdict names the route that held the event loop most by what it prints: the share of the
// window the loop was late, as shown (whole percents), then the loop's p99. Two routes both "late 51%"
// on a loaded machine rank by their p99, not by a difference of a few tenths the reader is not shown.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { appVerdict } from '../lib/report/kinds/app.js'
import { loopTable } from '../lib/report/event-loop.js'
import { combinedProfile } from '../lib/analysis/summarize.js'

/**
 * A route measured once, as summarize.js makes its row: late `lateMs` of a 10 s window, loop p99 `p99`.
 * @param {string} label @param {number} lateMs @param {number} p99
 */
function row (label, lateMs, p99) {
  return {
    label,
    runs: [{ config: {}, server: { windowMs: 10_000, loopBlocks: { spans: [[0, lateMs]] } } }],
    invalid: [],
    figures: { requestsPerSecond: { mean: 100 } },
    server: { loopP99: p99 },
    latency: null,
    profile: null,
    routes: null,
    probe: null,
    comparison: null
  }
}

/** @param {ReturnType<typeof row>[]} rows */
const verdict = (rows) => appVerdict(/** @type {any} */ ({ name: 'app', rows }))

test('app verdict: two routes late the same shown share rank by their loop p99', () => {
  // 51.2% and 50.9% both print as "late 51%": POST /login's p99 is the larger
  const line = verdict([row('POST /login', 5090, 46.1), row('/me', 5120, 34.7)])
  assert.match(line, /^app: POST \/login holds the event loop most: loop p99 46\.1 ms, late 51% of the window/)
  assert.match(line, /\/me alone: loop p99 34\.7 ms, late 51% of the window/)
})

test('app verdict: a larger shown share ranks first whatever the p99', () => {
  const line = verdict([row('GET /health', 1000, 90), row('POST /login', 8700, 40)])
  assert.match(line, /^app: POST \/login holds the event loop most: loop p99 40 ms, late 87% of the window/)
})

test('app verdict and "where the event loop went" give one figure for the time the loop was late', () => {
  // The loop held 240 ms of a 1 s window (a span at its start), while only 23 ms of the profile's samples
  // fell inside that span (the rest was before the profile, or idle): the spans' share is the figure.
  const blocking = { thresholdMs: 20, ms: 23, self: [{ name: 'f', location: 'a.js:1', ms: 23 }] }
  const profile = { file: 'p', intervalUs: 1000, samples: 1000, totalMs: 1000, idleMs: 900, self: [{ name: 'f', location: 'a.js:1', ms: 100 }], inclusive: [], blocking }
  const server = { windowMs: 1000, loopBlocks: { thresholdMs: 20, spans: [[0, 240]], mergedGapMs: 0 } }
  const run = { id: 'app/#1', label: '/', config: {}, error: null, invalid: null, load: { aborted: false, completeRequests: 200 }, profile, server }
  const r = { ...row('/', 0, 89), runs: [run], profile: combinedProfile(/** @type {any} */ ([run])) }
  assert.match(verdict([r]), /late 24% of the window/)
  assert.match(loopTable(/** @type {any} */ ({ label: '/', profile: r.profile })).title, /the loop was late by more than 20 ms for 24\.0% of it$/)
  // A file from before the spans: both fall back to the profile's samples.
  const old = { ...run, server: { windowMs: 1000 } }
  const r2 = { ...row('/', 0, 89), runs: [old], profile: combinedProfile(/** @type {any} */ ([old])) }
  assert.match(verdict([r2]), /late 2\.3% of the window/)
  assert.match(loopTable(/** @type {any} */ ({ label: '/', profile: r2.profile })).title, /for 2\.3% of it$/)
})
