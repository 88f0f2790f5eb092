// When the event loop was held (ServerMetrics.loopBlocks, lib/lab/loop-blocks.js): spans that touch are
// one, the list stays within its bound by merging the closest neighbours and says how much gap that
// took in, a block the read itself waited for is counted once; a real server that busy-waits 200 ms in
// a handler has a span covering it (in-process, on one clock), and so does a real server child over IPC.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { createLoopBlocks, BLOCKING_DELAY_MS, LOOP_BLOCKS_MAX_SPANS } from '../lib/lab/loop-blocks.js'
import { createServerMetrics } from '../lib/lab/metrics.js'
import { spawnServer } from '../lib/lab/spawn.js'
import { httpGet } from './helper.js'

/** How far a span's ends may be from the block's: the 10 ms ticker, plus a loaded machine's slack. */
const SLACK_MS = 15

test('spans that touch are one; a span before the window starts at 0', () => {
  const blocks = createLoopBlocks()
  blocks.add(-5, 40)
  // the next tick after a block is late again: its span starts where the last ended
  blocks.add(40, 100)
  blocks.add(130, 170)
  assert.deepEqual(blocks.snapshot(), { thresholdMs: BLOCKING_DELAY_MS, spans: [[0, 100], [130, 170]], mergedGapMs: 0 })
  blocks.reset()
  assert.deepEqual(blocks.snapshot().spans, [])
})

test('past the bound the two closest neighbours merge, and the gap they took in is counted', () => {
  assert.equal(LOOP_BLOCKS_MAX_SPANS, 500, 'the bound documented in lib/types.js and the schema')
  const blocks = createLoopBlocks({ maxSpans: 3 })
  blocks.add(0, 30)
  blocks.add(100, 130)
  blocks.add(135, 170) // 5 ms after the last: the closest pair once a fourth comes
  blocks.add(300, 340)
  assert.deepEqual(blocks.snapshot(), { thresholdMs: BLOCKING_DELAY_MS, spans: [[0, 30], [100, 170], [300, 340]], mergedGapMs: 5 })
  blocks.add(350, 390) // 10 ms gap, the closest now
  assert.deepEqual(blocks.snapshot(), { thresholdMs: BLOCKING_DELAY_MS, spans: [[0, 30], [100, 170], [300, 390]], mergedGapMs: 15 })
  for (let i = 0; i < 1000; i++) blocks.add(1000 + i * 100, 1000 + i * 100 + 40)
  assert.equal(blocks.snapshot().spans.length, 3, 'never more than the bound')
})

test('a block still in progress at a read is its last span, counted once when its tick comes', () => {
  const blocks = createLoopBlocks()
  blocks.add(0, 50)
  const pending = blocks.snapshot({ from: 200, to: 260 })
  assert.deepEqual(pending.spans, [[0, 50], [200, 260]])
  // the read does not keep it: the tick that ends the block records it
  assert.deepEqual(blocks.snapshot().spans, [[0, 50]])
  blocks.add(200, 262)
  assert.deepEqual(blocks.snapshot({ from: 200, to: 262 }).spans, [[0, 50], [200, 262]])
})

/** @param {number} ms */
function busyWait (ms) {
  const end = performance.now() + ms
  while (performance.now() < end);
}

test('a server that busy-waits 200 ms in a handler: a span covers the block, within the ticker\'s 10 ms', async () => {
  /** @type {{ from: number, to: number }|null} */
  let block = null
  const server = http.createServer((req, res) => {
    if (req.url === '/block') {
      const from = performance.now()
      busyWait(200)
      block = { from, to: performance.now() }
    }
    res.end('ok')
  })
  await once(server.listen(0, '127.0.0.1'), 'listening')
  const metrics = createServerMetrics()
  // When the loop really ran its timers, every 1 ms: on a busy machine the process may not run for a
  // while before or after the block, and the loop is held then too.
  /** @type {number[]} */
  const turns = []
  const watcher = setInterval(() => turns.push(performance.now()), 1)
  try {
    const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
    await httpGet(url + '/warm-up')
    await delay(50)
    metrics.read({ reset: true })
    // the window's clock (a reading taken here could come late on a busy machine)
    const start = metrics.windowStart()
    await delay(50)
    await httpGet(url + '/block')
    await delay(50)
    const window = metrics.read()
    assert.ok(block)
    const [from, to] = [block.from - start, block.to - start]
    const lastTurn = Math.max(...turns.filter((t) => t < block.from)) - start
    const firstTurn = Math.min(...turns.filter((t) => t > block.to)) - start
    const blocks = /** @type {import('../lib/types.js').LoopBlocks} */ (window.loopBlocks)
    // (spans are rounded to 0.1 ms)
    const covering = blocks.spans.find(([a, b]) => a <= from + 0.1 && b >= to - 0.1)
    assert.ok(covering, `a span covers the block [${from}, ${to}]: ${JSON.stringify(blocks.spans)}`)
    // It starts at the metrics' last tick before the block, one 10 ms tick at most: no more turns of the
    // loop in between than a 1 ms timer makes in 10 ms; it ends at the tick after the block, in the
    // loop's first turn after it (a busy machine may stop the process inside that turn: counted in turns,
    // not in ms).
    const turnsIn = (/** @type {number} */ a, /** @type {number} */ b) => turns.filter((t) => t - start > a && t - start < b).length
    const around = `the loop's last turn before the block at ${lastTurn}, first after at ${firstTurn}`
    assert.ok(turnsIn(covering[0] + 0.1, from) <= 10 + 2, `starts ${from - covering[0]} ms before the block, ${turnsIn(covering[0] + 0.1, from)} turns: ${covering}; ${around}`)
    assert.ok(turnsIn(to, covering[1] - 0.1) <= 1, `ends ${covering[1] - to} ms after the block, ${turnsIn(to, covering[1] - 0.1)} turns: ${covering}; ${around}`)
    // The machine let the loop run right up to the block and right after it: the span is the block's, within 15 ms.
    if (lastTurn > from - 3 && firstTurn < to + 3 && turnsIn(to, to + SLACK_MS) > 1) {
      assert.ok(from - covering[0] <= SLACK_MS && covering[1] - to <= SLACK_MS, `${covering} for [${from}, ${to}]; ${around}`)
    }
    // The loop-delay figures are as they were: the ticker reads a 200 ms block as 190 to 200 ms of delay.
    assert.ok(window.eventLoopDelay.max >= 190 - 1, `max ${window.eventLoopDelay.max}`)
  } finally {
    clearInterval(watcher)
    metrics.close()
    server.close()
  }
})

test('a block the read waited for (no tick since) is in the window read right after it', () => {
  const metrics = createServerMetrics()
  try {
    metrics.reset()
    busyWait(100)
    const window = metrics.read()
    const spans = window.loopBlocks?.spans ?? []
    assert.equal(spans.length, 1, JSON.stringify(spans))
    assert.equal(spans[0][0], 0, 'the block began before the window: from its start')
    assert.ok(spans[0][1] >= 100 && spans[0][1] <= window.windowMs + 0.1, JSON.stringify({ spans, windowMs: window.windowMs }))
  } finally {
    metrics.close()
  }
})

test('a real server child over IPC: a 200 ms block in a handler is one span of its length, where the request was', async () => {
  const server = await spawnServer({ app: 'lab', args: ['--framework', 'http'] })
  try {
    const url = server.servers[0].url
    await httpGet(url + '/wait/sync?ms=1')
    // A busy machine can stop the child just before the request: the loop then has no turn from there
    // on, and the span starts that much early (seen in CI: [29.5, 262] for a request from 54.1). So the
    // span is placed within 15 ms in one of three tries; every try has the one span, ending in the request.
    /** @type {string[]} */
    const tries = []
    for (let i = 0; i < 3; i++) {
      const asked = performance.now()
      const reset = await server.metrics({ reset: true })
      assert.equal(reset.loopBlocks?.thresholdMs, BLOCKING_DELAY_MS)
      const answered = performance.now()
      await delay(50)
      const sent = performance.now()
      assert.equal((await httpGet(url + '/wait/sync?ms=200')).body, 'waited 200 ms')
      const received = performance.now()
      await delay(50)
      const window = await server.metrics()
      const spans = window.loopBlocks?.spans ?? []
      // On the child's clock the window began between `asked` and `answered`; the block lies in the request.
      const [earliest, latest] = [sent - answered, received - asked]
      const long = spans.filter(([a, b]) => b - a >= 199.8)
      assert.equal(long.length, 1, JSON.stringify(spans))
      const [from, to] = long[0]
      assert.ok(to >= earliest + 200 && to <= latest + SLACK_MS, `[${from}, ${to}] ends within the request's time on the window's clock [${earliest}, ${latest}]`)
      // 200 ms, one tick more at most, and what a busy machine added to the request as the client saw it
      const took = received - sent
      const placed = to - from <= Math.max(200, took) + 10 + SLACK_MS && from >= earliest - SLACK_MS
      tries.push(`a span [${from}, ${to}] (${(to - from).toFixed(1)} ms) for the request's [${earliest}, ${latest}] (${took} ms)`)
      if (placed) return
    }
    assert.fail(`no try placed the block within ${SLACK_MS} ms:\n${tries.join('\n')}`)
  } finally {
    await server.stop()
  }
})

/**
 * A window of the real metrics holding one block that makes the ticker's next tick `lateMs` late. The
 * metrics' ticker and an interval created right after it share Node's 10 ms timer list, so the interval
 * runs right after each tick: there the window opens and the loop is held up to `lateMs` past the tick's
 * due time (the window's start + 10 ms), and the next run of the interval, right after the late tick,
 * reads the window. How late the tick came is the window's eventLoopDelay.max: the hold's end is a floor,
 * and a busy machine may add to it.
 * @param {number} lateMs
 * @returns {Promise<{ late: number, spans: [number, number][] }>}
 */
async function windowWithLateTick (lateMs) {
  const metrics = createServerMetrics()
  let runs = 0
  /** @type {(window: import('../lib/types.js').ServerMetrics) => void} */
  let done = () => {}
  const read = /** @type {Promise<import('../lib/types.js').ServerMetrics>} */ (new Promise((resolve) => { done = resolve }))
  const follower = setInterval(() => {
    runs++
    // a few ticks first: the ticker's and this interval's order settled, the code warm
    if (runs === 3) {
      metrics.reset()
      busyWait(metrics.windowStart() + 10 + lateMs - performance.now())
    } else if (runs === 4) {
      done(metrics.read())
    }
  }, 10)
  try {
    const window = await read
    return { late: window.eventLoopDelay.max, spans: /** @type {import('../lib/types.js').LoopBlocks} */ (window.loopBlocks).spans }
  } finally {
    clearInterval(follower)
    metrics.close()
  }
}

// The rule's edge (BLOCKING_DELAY_MS): a tick later than 20 ms makes a span, one 20 ms late or less does
// not. A block of B ms makes the tick B - 10 to B ms late, by where in the 10 ms between ticks it began
// (docs/run.md: a block of B ms is a span of B to B + 10 ms); these blocks begin at a tick's due time, so
// the tick is as late as the block's end. A try whose tick a busy machine made later than its band (a
// 19 ms tick that came 20.5 ms late) says nothing of the edge: on a 2-core machine running a dozen
// processes a third of the tries came late, so up to eight tries (each some 60 ms). Each band ends below
// the next threshold a wrong rule could have: 20, 25, 40 ms.
const TRIES = 8
for (const { lateMs, below, spans } of [
  { lateMs: 19, below: 20, spans: 0 },
  { lateMs: 21, below: 24.5, spans: 1 },
  { lateMs: 30, below: 39.5, spans: 1 }
]) {
  test(`a tick ${lateMs} ms late (the real metrics' ticker, a busy-wait in-process) makes ${spans ? 'a blocking span' : 'no blocking span'}`, async () => {
    assert.ok(lateMs < below)
    /** @type {{ late: number, spans: [number, number][] }[]} */
    const tries = []
    for (let i = 0; i < TRIES; i++) {
      const window = await windowWithLateTick(lateMs)
      tries.push(window)
      if (window.late >= lateMs - 0.01 && window.late < below) break
    }
    const { late, spans: found } = tries[tries.length - 1]
    assert.ok(late >= lateMs - 0.01 && late < below, `the tick came ${lateMs} to ${below} ms late in one of ${TRIES} tries: ${JSON.stringify(tries)}`)
    assert.equal(found.length, spans, `a tick ${late} ms late: ${JSON.stringify(found)}`)
    if (spans) assert.ok(found[0][1] - found[0][0] >= lateMs + 10 - 0.1, `the span covers the hold from the window's start: ${JSON.stringify(found)}`)
  })
}

test('the read that opens a window is not in it: a hold just before a reset makes no span after it', async () => {
  // The first read of a cold process (the runner's reset before the measured load) took 30-60 ms; its
  // tick interval straddled the reset, and the window began with a span from 0.
  /** @type {[number, number][][]} */
  const tries = []
  for (let i = 0; i < 3; i++) {
    const metrics = createServerMetrics()
    try {
      await delay(30)
      busyWait(45)
      metrics.reset()
      await delay(30)
      const spans = /** @type {import('../lib/types.js').LoopBlocks} */ (metrics.read().loopBlocks).spans
      tries.push(spans)
      if (spans.length === 0) break
    } finally {
      metrics.close()
    }
  }
  assert.deepEqual(tries[tries.length - 1], [], `a span in each of three tries: ${JSON.stringify(tries)}`)
})
