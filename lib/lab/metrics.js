// The server side of a measurement: one window of event-loop delay, utilization, CPU, memory and
// threads for this process, and the environment it runs in (ServerMetrics and Environment in lib/types.js);
// and, for a live view, the figures of the last interval (ServerSecond), read without touching the window.
import os from 'node:os'
import { readFileSync } from 'node:fs'
import { createHistogram, performance } from 'node:perf_hooks'
import { roundTo } from '../format.js'
import { createSeries, SERIES_INTERVAL_MS } from './metrics-series.js'
import { createLoopBlocks, BLOCKING_DELAY_MS } from './loop-blocks.js'
import { createRouteBlocks } from './route-blocks.js'

// 10 ms is monitorEventLoopDelay's default resolution: fine enough to see a 65 ms hash, cheap enough to leave on.
const LOOP_RESOLUTION_MS = 10
// RSS is sampled this often so a peak that comes and goes inside a window is still seen (see peakRss);
// the same timer takes the series' samples (lib/lab/metrics-series.js).
const RSS_SAMPLE_MS = SERIES_INTERVAL_MS
// The ticks a live interval keeps for its p99: 10 s of them (a live read comes every second); past
// that the p99 is the first 10 s's, the max still every tick's. A sort of at most this many is cheaper
// than a histogram's percentile, and live reads come while the server is measured.
const LIVE_TICKS_MAX = 1000

/**
 * Start watching this process. `requests` is a plain counter the servers increment once per request
 * (the only per-request work metrics add); `read()` returns the window since the last reset, whose
 * times (loopBlocks' spans, the series' t) count from `windowStart()`, a performance.now() reading.
 * `routes` follows a server's requests by route (lib/lab/route-blocks.js followRoutes). `live()`
 * returns the figures since the previous live() (the first: since the window's start) and leaves the
 * window as it was: its histogram, series, ELU and CPU baselines are only read.
 * @returns {ServerMetricsState}
 */
export function createServerMetrics () {
  // The sampler of perf_hooks.monitorEventLoopDelay, in JS: the native one forgets its last tick on
  // reset(), so a block starting within 10 ms of a reset went unseen; here the first tick of a window
  // counts from the reset. Each tick records the time since the previous one; the part beyond the
  // interval is the loop's delay.
  const histogram = createHistogram()
  let lastTick = performance.now()
  // The largest loop delay the ticker saw since the series' last sample.
  let intervalDelay = 0
  // When the loop was held past the blocking threshold: [previous tick, this tick] (lib/lab/loop-blocks.js).
  const blocks = createLoopBlocks()
  // Which routes' requests were in progress during those spans (lib/lab/route-blocks.js), once a
  // server's requests are followed (followRoutes).
  const routes = createRouteBlocks()
  // The live reads' own baselines and histogram: none until the first live read, so a server nobody
  // watches live does per tick exactly what it did before.
  /** @type {{ ticks: ReturnType<typeof createTickDelays>, since: number, elu: import('node:perf_hooks').EventLoopUtilization, cpu: NodeJS.CpuUsage, requests: number }|null} */
  let live = null
  const ticker = setInterval(() => {
    const now = performance.now()
    histogram.record(Math.max(1, Math.round((now - lastTick) * 1e6)))
    // from the last live read when it came after the last tick: a block it already reported is not reported again
    if (live) live.ticks.add(now - Math.max(lastTick, live.since) - LOOP_RESOLUTION_MS)
    const delay = now - lastTick - LOOP_RESOLUTION_MS
    intervalDelay = Math.max(intervalDelay, delay)
    const blocked = delay > BLOCKING_DELAY_MS
    if (blocked) blocks.add(lastTick - start, now - start)
    routes.tick(blocked ? { from: lastTick, to: now } : undefined)
    lastTick = now
  }, LOOP_RESOLUTION_MS).unref()
  let start = performance.now()
  let elu = performance.eventLoopUtilization()
  let cpu = process.cpuUsage()
  let mainCpuNs = mainThreadCpuNs()
  let usage = process.resourceUsage()
  let maxRssKb = usage.maxRSS
  let sampledPeak = process.memoryUsage.rss()
  // The memory at the window's start: the end's minus it is what the window's load left behind (a leak grows it).
  let startMemory = process.memoryUsage()
  const series = createSeries()
  let lastSample = start
  let sampleCpu = cpu
  // A sample cannot run while the loop is blocked: it records the gap it sees instead, so a 1 s block
  // is one sample of 1000 ms delay (and the interval it closes lasted that long), not a missing point.
  /** @param {number} now */
  const sample = (now) => {
    const rss = process.memoryUsage.rss()
    if (rss > sampledPeak) sampledPeak = rss
    const durationMs = now - lastSample
    const used = process.cpuUsage(sampleCpu)
    sampleCpu = process.cpuUsage()
    const lateness = Math.max(intervalDelay, durationMs - RSS_SAMPLE_MS, now - lastTick - LOOP_RESOLUTION_MS)
    series.add({ t: now - start, durationMs, loopDelayMs: Math.max(0, lateness), cpuMs: (used.user + used.system) / 1000, rssBytes: rss })
    intervalDelay = 0
    lastSample = now
  }
  const sampler = setInterval(() => sample(performance.now()), RSS_SAMPLE_MS).unref()

  /** @type {ServerMetricsState} */
  const state = {
    requests: 0,
    routes,
    read (options = {}) {
      const metrics = snapshot()
      if (options.reset) state.reset()
      return metrics
    },
    live () {
      const now = performance.now()
      const since = live ? live.since : start
      // the first live read covers the window so far: the window's own histogram and baselines, only read
      const pendingMs = now - Math.max(lastTick, since)
      const delay = live ? live.ticks.take(pendingMs) : loopDelayPeak(histogram, pendingMs)
      const eluNow = performance.eventLoopUtilization()
      const cpuNow = process.cpuUsage()
      const cpuBase = live ? live.cpu : cpu
      const intervalMs = now - since
      const cpuMs = (cpuNow.user - cpuBase.user + cpuNow.system - cpuBase.system) / 1000
      /** @type {import('../types.js').ServerSecond} */
      const second = {
        t: roundTo(now - start, 1),
        intervalMs: roundTo(intervalMs, 1),
        requests: state.requests - (live ? live.requests : 0),
        loopDelayMaxMs: delay.max,
        loopDelayP99Ms: delay.p99,
        elu: roundTo(performance.eventLoopUtilization(eluNow, live ? live.elu : elu).utilization, 4),
        cpuPercent: intervalMs > 0 ? roundTo(cpuMs / intervalMs * 100, 1) : 0,
        rssBytes: process.memoryUsage.rss()
      }
      live = { ticks: live ? live.ticks : createTickDelays(), since: now, elu: eluNow, cpu: cpuNow, requests: state.requests }
      return second
    },
    reset () {
      // the live reads count requests across windows: the count the reset zeroes stays counted
      if (live) live.requests -= state.requests
      histogram.reset()
      start = performance.now()
      // The window's first tick counts from its start: what the loop did since the tick before (the read
      // that asked for this reset, cold on its first call; the warm-up's last requests) is the last window's.
      lastTick = start
      elu = performance.eventLoopUtilization()
      cpu = process.cpuUsage()
      mainCpuNs = mainThreadCpuNs()
      usage = process.resourceUsage()
      maxRssKb = usage.maxRSS
      sampledPeak = process.memoryUsage.rss()
      startMemory = process.memoryUsage()
      series.reset()
      blocks.reset()
      routes.reset()
      lastSample = start
      sampleCpu = cpu
      intervalDelay = 0
      state.requests = 0
    },
    windowStart () {
      return start
    },
    close () {
      clearInterval(ticker)
      clearInterval(sampler)
    }
  }

  function snapshot () {
    const now = performance.now()
    const windowMs = now - start
    const used = process.cpuUsage(cpu)
    const mainNow = mainThreadCpuNs()
    const memory = process.memoryUsage()
    const userMs = used.user / 1000
    const systemMs = used.system / 1000
    // The end of the window is a sample of its own: the block that delayed this read is in it.
    if (now > lastSample) sample(now)
    const after = process.resourceUsage()
    const voluntary = after.voluntaryContextSwitches - usage.voluntaryContextSwitches
    const involuntary = after.involuntaryContextSwitches - usage.involuntaryContextSwitches
    /** @param {number} n */
    const perRequest = (n) => state.requests > 0 ? roundTo(n / state.requests, 3) : null
    return {
      windowMs: roundTo(windowMs),
      requests: state.requests,
      // A block still unsampled (the tick after it has not run yet) counts toward max, up to the
      // window's end (`now`: what this read does after it is not the loop's delay) and from its start
      eventLoopDelay: loopDelay(histogram, now - Math.max(lastTick, start)),
      elu: roundTo(performance.eventLoopUtilization(elu).utilization, 4),
      cpu: { userMs: roundTo(userMs), systemMs: roundTo(systemMs), percent: windowMs > 0 ? roundTo((userMs + systemMs) / windowMs * 100, 2) : 0 },
      mainThreadCpuMs: mainNow === null || mainCpuNs === null ? null : roundTo(Number(mainNow - mainCpuNs) / 1e6),
      memory: { rssBytes: memory.rss, peakRssBytes: peakRss(memory.rss), heapUsedBytes: memory.heapUsed, startRssBytes: startMemory.rss, startHeapUsedBytes: startMemory.heapUsed },
      threads: threadCount(),
      activeHandles: process.getActiveResourcesInfo().length,
      // getrusage(RUSAGE_SELF): every thread of the process, worker threads and libuv's pool included.
      contextSwitches: { voluntary, involuntary, voluntaryPerRequest: perRequest(voluntary), involuntaryPerRequest: perRequest(involuntary) },
      series: series.snapshot(),
      // A block the read itself waited for (no tick since) is the last span.
      loopBlocks: loopBlocks(now - lastTick - LOOP_RESOLUTION_MS > BLOCKING_DELAY_MS, now)
    }
  }

  /**
   * @param {boolean} pending  a block the read waited for
   * @param {number} now
   * @returns {import('../types.js').LoopBlocks}
   */
  function loopBlocks (pending, now) {
    const spans = blocks.snapshot(pending ? { from: lastTick - start, to: now - start } : undefined)
    return routes.followed ? { ...spans, routes: routes.snapshot(pending ? { from: lastTick, to: now } : undefined) } : spans
  }

  // The kernel's lifetime peak is exact when it rose during the window (the new peak happened in it);
  // otherwise the window's peak is below it and the sampled maximum is the best estimate.
  /** @param {number} rss */
  function peakRss (rss) {
    const nowKb = process.resourceUsage().maxRSS
    const sampled = Math.max(sampledPeak, rss)
    return nowKb > maxRssKb ? Math.max(nowKb * 1024, sampled) : sampled
  }

  return state
}

/**
 * @typedef {object} ServerMetricsState
 * @property {number} requests
 * @property {ReturnType<typeof createRouteBlocks>} routes
 * @property {(options?: { reset?: boolean }) => import('../types.js').ServerMetrics} read
 * @property {() => import('../types.js').ServerSecond} live
 * @property {() => void} reset
 * @property {() => number} windowStart
 * @property {() => void} close
 */

/**
 * The CPU time the calling thread (the main thread: metrics are read on it) has run, in ns, from Linux's
 * schedstat; null elsewhere. ELU counts the loop busy while the thread waits for a core, which on a
 * machine whose cores the pool and the load generator share is not the main thread's cost.
 * @returns {bigint|null}
 */
function mainThreadCpuNs () {
  try {
    return BigInt(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0])
  } catch {
    return null
  }
}

/**
 * @param {import('node:perf_hooks').RecordableHistogram} h  intervals between ticks, ns
 * @param {number} pendingMs  time since the last tick
 */
function loopDelay (h, pendingMs) {
  const pending = Math.max(0, pendingMs - LOOP_RESOLUTION_MS)
  // An empty histogram reports min as 2^63 and mean as NaN: a window without ticks reads as zeros.
  if (h.count === 0) return { min: 0, mean: 0, p50: 0, p99: 0, max: roundTo(pending), stddev: 0 }
  return { min: delayMs(h.min), mean: delayMs(h.mean), p50: delayMs(h.percentile(50)), p99: delayMs(h.percentile(99)), max: Math.max(delayMs(h.max), roundTo(pending)), stddev: roundTo(h.stddev / 1e6) }
}

/**
 * The largest delay and the p99 of a window's histogram, as loopDelay reads them: the live view's first
 * read (percentile(99) alone: the histogram's mean and stddev cost a millisecond).
 * @param {import('node:perf_hooks').RecordableHistogram} h
 * @param {number} pendingMs
 */
function loopDelayPeak (h, pendingMs) {
  const pending = roundTo(Math.max(0, pendingMs - LOOP_RESOLUTION_MS))
  if (h.count === 0) return { max: pending, p99: 0 }
  return { max: Math.max(delayMs(h.max), pending), p99: delayMs(h.percentile(99)) }
}

/**
 * A tick's interval (ns) as a delay in ms: what exceeds the ticker's interval (as
 * @fastify/under-pressure and clinic report it), so an idle loop reads about 0, not 10.
 * @param {number} ns
 */
function delayMs (ns) {
  return roundTo(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS))
}

/**
 * The delays (ms beyond the ticker's interval) of the ticks since the last live read: their largest
 * and their p99, taken once per read.
 */
function createTickDelays () {
  const delays = new Float64Array(LIVE_TICKS_MAX)
  let count = 0
  let max = 0
  return {
    /** @param {number} ms */
    add (ms) {
      if (ms > max) max = ms
      if (count < delays.length) delays[count++] = ms
    },
    /**
     * The ticks' figures, a block still going (no tick since it began: `pendingMs` since the last one)
     * counted in the max; then a new interval starts.
     * @param {number} pendingMs
     * @returns {{ max: number, p99: number }}
     */
    take (pendingMs) {
      const sorted = delays.subarray(0, count).sort()
      const p99 = count > 0 ? sorted[Math.ceil(count * 0.99) - 1] : 0
      const figures = { max: roundTo(Math.max(0, max, pendingMs - LOOP_RESOLUTION_MS)), p99: roundTo(Math.max(0, p99)) }
      count = 0
      max = 0
      return figures
    }
  }
}

/** OS threads of this process (libuv pool, V8 platform workers, worker threads); 0 where /proc is absent. */
export function threadCount () {
  try {
    const match = /^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}

/**
 * Where this process runs. UV_* are read from the environment the process started with: libuv reads
 * UV_THREADPOOL_SIZE once, when its pool first starts, so later changes have no effect.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {import('../types.js').Environment}
 */
export function collectEnvironment (env = process.env) {
  const cpus = os.cpus()
  return {
    node: process.versions.node,
    v8: process.versions.v8,
    uv: process.versions.uv,
    openssl: process.versions.openssl,
    uvThreadpoolSize: env.UV_THREADPOOL_SIZE ?? null,
    uvUseIoUring: env.UV_USE_IO_URING ?? null,
    cpuModel: cpus.length > 0 ? cpus[0].model.trim() : 'unknown',
    cpuCount: os.availableParallelism(),
    platform: process.platform,
    arch: process.arch,
    totalMemoryBytes: os.totalmem()
  }
}
