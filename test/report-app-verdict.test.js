// The app verdict names the route that held the event loop most by what it prints: the share of the
// window the loop was late, as shown (whole percents), then the loop's p99. Two routes both "late 51%"
// on a loaded machine rank by their p99, not by a difference of a few tenths the reader is not shown.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { appVerdict } from '../lib/report/kinds/app.js'

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
