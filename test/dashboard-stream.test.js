// The dashboard's event stream as a page reads it: the whole state on connect and at each change of the
// plan or the runs; while a load runs, ticks that carry only the seconds added since the previous push,
// so that what each second costs the generator (and the page) does not grow with the run's length. A
// page that connects between two pushes gets those seconds in its state and again in the next tick: the
// page's script appends only seconds newer than its last (checked here with the script's own rule).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { startDashboard, MAX_SECONDS } from '../lib/cli/dashboard.js'

/**
 * An SSE client: the messages it received so far, parsed.
 * @param {string} url the dashboard's URL
 */
async function connect (url) {
  const u = new URL(url)
  /** @type {{ event: string, data: any, bytes: number }[]} */
  const messages = []
  let buffer = ''
  const res = await new Promise((resolve, reject) => http.get(`${u.origin}/events${u.search}`, resolve).on('error', reject))
  res.setEncoding('utf8')
  res.on('data', (/** @type {string} */ chunk) => {
    buffer += chunk
    let end
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event && data) messages.push({ event, data: JSON.parse(data), bytes: data.length })
    }
  })
  return { messages, close: () => res.destroy() }
}

/** @param {() => boolean} ok */
async function until (ok) {
  for (let i = 0; i < 2000 && !ok(); i++) await delay(1)
  assert.ok(ok(), 'timed out waiting for the stream')
}

/** A second of load at t. @param {number} t */
const second = (t) => ({ t, requests: 1000, errors: 0, p50Ms: 1, p90Ms: 2, p99Ms: 3, maxMs: 4 })

/**
 * What the page holds after a state and the ticks after it (dashboard-page.js's rule: a tick's seconds
 * newer than the last one held are appended).
 * @param {{ event: string, data: any }[]} messages
 */
function pageView (messages) {
  let state = null
  for (const { event, data } of messages) {
    if (event === 'state') state = structuredClone(data)
    else if (event === 'tick' && state?.current?.index === data.index) {
      const list = state.current.load
      const last = list.length ? list.at(-1).t : -Infinity
      for (const s of data.load) if (s.t > last) list.push(s)
      state.current.done = data.done
    }
  }
  return state
}

test('dashboard stream: the whole state on connect and at a run\'s start and end; ticks with only the new seconds in between, the same size after 1,000 seconds as after 10', async (t) => {
  const d = await startDashboard({ title: 'stream', pushMs: 1 })
  t.after(() => d.close())
  d.event({ type: 'plan', total: 1, runs: [{ experiment: 'x', label: 'y' }], experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 1 }] })
  const page = await connect(d.url)
  t.after(page.close)
  await until(() => page.messages.length === 1)
  assert.equal(page.messages[0].event, 'state')

  d.event({ type: 'run-start', index: 1, total: 1, experiment: 'x', label: 'y', repeat: 1, etaMs: null })
  await until(() => page.messages.length === 2)
  assert.equal(page.messages[1].event, 'state')
  assert.equal(page.messages[1].data.current.index, 1)

  /** @type {number[]} */
  const tickBytes = []
  for (let s = 1; s <= 1000; s++) {
    const before = page.messages.length
    d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: second(s) })
    d.event({ type: 'heartbeat', index: 1, total: 1, experiment: 'x', label: 'y', done: s * 1000, requests: 1_000_000 })
    await until(() => page.messages.length === before + 1)
    const m = /** @type {{ event: string, data: any, bytes: number }} */ (page.messages.at(-1))
    assert.equal(m.event, 'tick')
    assert.deepEqual(m.data.load.map((/** @type {{ t: number }} */ x) => x.t), [s], 'a tick carries the new second only')
    assert.equal(m.data.done, s * 1000)
    assert.equal(m.data.keep, MAX_SECONDS)
    tickBytes.push(m.bytes)
  }
  // the size does not grow with the seconds shown (digits of t and done aside)
  assert.ok(/** @type {number} */ (tickBytes.at(-1)) - tickBytes[9] <= 8, `tick of second 10: ${tickBytes[9]} bytes, of second 1000: ${tickBytes.at(-1)}`)
  const view = pageView(page.messages)
  assert.equal(view.current.load.length, 1000)
  assert.deepEqual(view.current.load.map((/** @type {{ t: number }} */ x) => x.t), Array.from({ length: 1000 }, (_, i) => i + 1))

  d.event({ type: 'run-end', index: 1, total: 1, record: { id: 'r', experiment: 'x', label: 'y', config: {}, repeat: 1, engine: 'builtin', load: null, server: null, serverEnv: null, startedAt: new Date().toISOString(), error: null, probe: null, invalid: null } })
  await until(() => page.messages.at(-1)?.event === 'state')
  assert.equal(page.messages.at(-1)?.data.current, null)
  assert.equal(page.messages.at(-1)?.data.runs[0].state, 'done')
})

test('dashboard stream: a page that connects between two pushes holds every second once', async (t) => {
  // a push at most every 200 ms: seconds arrive before the next one
  const d = await startDashboard({ title: 'join', pushMs: 200 })
  t.after(() => d.close())
  d.event({ type: 'plan', total: 1, runs: [{ experiment: 'x', label: 'y' }], experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 1 }] })
  const first = await connect(d.url)
  t.after(first.close)
  d.event({ type: 'run-start', index: 1, total: 1, experiment: 'x', label: 'y', repeat: 1, etaMs: null })
  for (let s = 1; s <= 3; s++) d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: second(s) })
  // connects after seconds 1..3 were added, before they were pushed: its state has them
  const late = await connect(d.url)
  t.after(late.close)
  await until(() => late.messages.length === 1)
  assert.deepEqual(late.messages[0].data.current.load.map((/** @type {{ t: number }} */ x) => x.t), [1, 2, 3])
  await until(() => first.messages.some((m) => m.event === 'tick'))
  await until(() => late.messages.some((m) => m.event === 'tick'))
  // the tick repeats 1..3 for the late page, which keeps each once
  assert.deepEqual(late.messages.find((m) => m.event === 'tick')?.data.load.map((/** @type {{ t: number }} */ x) => x.t), [1, 2, 3])
  d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: second(4) })
  await until(() => late.messages.filter((m) => m.event === 'tick').length === 2)
  for (const page of [first, late]) {
    assert.deepEqual(pageView(page.messages).current.load.map((/** @type {{ t: number }} */ x) => x.t), [1, 2, 3, 4])
  }
})

test('dashboard stream: past an hour the oldest seconds go, and a tick still carries only the new one', async (t) => {
  const d = await startDashboard({ title: 'hour', pushMs: 1 })
  t.after(() => d.close())
  d.event({ type: 'plan', total: 1, runs: [{ experiment: 'x', label: 'y' }], experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 1 }] })
  d.event({ type: 'run-start', index: 1, total: 1, experiment: 'x', label: 'y', repeat: 1, etaMs: null })
  // MAX_SECONDS + 5 seconds before any page: none is pushed
  for (let s = 1; s <= MAX_SECONDS + 5; s++) d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: second(s) })
  const page = await connect(d.url)
  t.after(page.close)
  await until(() => page.messages.length === 1)
  const load = page.messages[0].data.current.load
  assert.equal(load.length, MAX_SECONDS)
  assert.equal(load[0].t, 6)
  d.event({ type: 'second', index: 1, experiment: 'x', label: 'y', source: 'load', second: second(MAX_SECONDS + 6) })
  await until(() => page.messages.length === 2)
  assert.deepEqual(page.messages[1].data.load.map((/** @type {{ t: number }} */ x) => x.t), [MAX_SECONDS + 6])
})

test('dashboard stream: --runs auto, an experiment decided early drops its planned runs, and the next experiment\'s move up', async (t) => {
  const d = await startDashboard({ title: 'auto', pushMs: 1 })
  t.after(() => d.close())
  const runs = [...['a', 'a', 'a', 'a'].map((label) => ({ experiment: 'x', label })), ...['b', 'b'].map((label) => ({ experiment: 'y', label }))]
  d.event({ type: 'plan', total: 6, upTo: true, runs, experiments: [{ name: 'x', title: 'x', configurations: 1, runs: 4 }, { name: 'y', title: 'y', configurations: 1, runs: 2 }] })
  for (const index of [1, 2, 3]) {
    d.event({ type: 'run-start', index, total: 6, upTo: true, experiment: 'x', label: 'a', repeat: index, etaMs: null })
    d.event({ type: 'run-end', index, total: 6, upTo: true, record: /** @type {any} */ ({ id: `x/a#${index}`, experiment: 'x', label: 'a', repeat: index, error: null, invalid: null, load: null }) })
  }
  d.event({ type: 'rounds-end', experiment: 'x', rounds: 3, maxRuns: 4, level: 0.975, decisions: [] })
  const page = await connect(d.url)
  t.after(page.close)
  await until(() => page.messages.length === 1)
  const state = page.messages[0].data
  assert.deepEqual(state.runs.map((/** @type {any} */ r) => [r.index, r.experiment, r.state]), [[1, 'x', 'done'], [2, 'x', 'done'], [3, 'x', 'done'], [4, 'y', 'planned'], [5, 'y', 'planned']])
  assert.equal(state.plan.total, 5)
  assert.deepEqual(state.plan.experiments.map((/** @type {any} */ e) => [e.name, e.runs]), [['x', 3], ['y', 2]])
})
