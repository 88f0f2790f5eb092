// The server side of a measurement: one window of event-loop delay, utilization, CPU, memory and
// threads for this process, and the environment it runs in (ServerMetrics and Environment in lib/types.js).
import os from 'node:os'
import { readFileSync } from 'node:fs'
import { createHistogram, performance } from 'node:perf_hooks'
import { roundTo } from '../format.js'
import { createSeries, SERIES_INTERVAL_MS } from './metrics-series.js'
import { createLoopBlocks, BLOCKING_DELAY_MS } from './loop-blocks.js'

// 10 ms is monitorEventLoopDelay's default resolution: fine enough to see a 65 ms hash, cheap enough to leave on.
const LOOP_RESOLUTION_MS = 10
// RSS is sampled this often so a peak that comes and goes inside a window is still seen (see peakRss);
// the same timer takes the series' samples (lib/lab/metrics-series.js).
const RSS_SAMPLE_MS = SERIES_INTERVAL_MS

/**
 * Start watching this process. `requests` is a plain counter the servers increment once per request
 * (the only per-request work metrics add); `read()` returns the window since the last reset, whose
 * times (loopBlocks' spans, the series' t) count from `windowStart()`, a performance.now() reading.
 * @returns {{ requests: number, read: (options?: { reset?: boolean }) => import('../types.js').ServerMetrics, reset: () => void, windowStart: () => number, close: () => void }}
 */
export function createServerMetrics () {
  // The sampler of perf_hooks.monitorEventLoopDelay, in JS: the native one forgets its last tick on
  // reset(), so a block starting within 10 ms of a reset went unseen. Each tick records the time
  // since the previous one; the part beyond the interval is the loop's delay.
  const histogram = createHistogram()
  let lastTick = performance.now()
  // The largest loop delay the ticker saw since the series' last sample.
  let intervalDelay = 0
  // When the loop was held past the blocking threshold: [previous tick, this tick] (lib/lab/loop-blocks.js).
  const blocks = createLoopBlocks()
  const ticker = setInterval(() => {
    const now = performance.now()
    histogram.record(Math.max(1, Math.round((now - lastTick) * 1e6)))
    const delay = now - lastTick - LOOP_RESOLUTION_MS
    intervalDelay = Math.max(intervalDelay, delay)
    if (delay > BLOCKING_DELAY_MS) blocks.add(lastTick - start, now - start)
    lastTick = now
  }, LOOP_RESOLUTION_MS).unref()
  let start = performance.now()
  let elu = performance.eventLoopUtilization()
  let cpu = process.cpuUsage()
  let usage = process.resourceUsage()
  let maxRssKb = usage.maxRSS
  let sampledPeak = process.memoryUsage.rss()
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

  /** @type {{ requests: number, read: (options?: { reset?: boolean }) => import('../types.js').ServerMetrics, reset: () => void, windowStart: () => number, close: () => void }} */
  const state = {
    requests: 0,
    read (options = {}) {
      const metrics = snapshot()
      if (options.reset) state.reset()
      return metrics
    },
    reset () {
      histogram.reset()
      start = performance.now()
      elu = performance.eventLoopUtilization()
      cpu = process.cpuUsage()
      usage = process.resourceUsage()
      maxRssKb = usage.maxRSS
      sampledPeak = process.memoryUsage.rss()
      series.reset()
      blocks.reset()
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
      memory: { rssBytes: memory.rss, peakRssBytes: peakRss(memory.rss), heapUsedBytes: memory.heapUsed },
      threads: threadCount(),
      activeHandles: process.getActiveResourcesInfo().length,
      // getrusage(RUSAGE_SELF): every thread of the process, worker threads and libuv's pool included.
      contextSwitches: { voluntary, involuntary, voluntaryPerRequest: perRequest(voluntary), involuntaryPerRequest: perRequest(involuntary) },
      series: series.snapshot(),
      // A block the read itself waited for (no tick since) is the last span.
      loopBlocks: blocks.snapshot(now - lastTick - LOOP_RESOLUTION_MS > BLOCKING_DELAY_MS ? { from: lastTick - start, to: now - start } : undefined)
    }
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
 * @param {import('node:perf_hooks').RecordableHistogram} h  intervals between ticks, ns
 * @param {number} pendingMs  time since the last tick
 */
function loopDelay (h, pendingMs) {
  const pending = Math.max(0, pendingMs - LOOP_RESOLUTION_MS)
  // An empty histogram reports min as 2^63 and mean as NaN: a window without ticks reads as zeros.
  if (h.count === 0) return { min: 0, mean: 0, p50: 0, p99: 0, max: roundTo(pending), stddev: 0 }
  // Delay is what exceeds the interval (as @fastify/under-pressure and clinic report it), so an
  // idle loop reads about 0, not 10.
  const ms = (/** @type {number} */ ns) => roundTo(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS))
  return { min: ms(h.min), mean: ms(h.mean), p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: Math.max(ms(h.max), roundTo(pending)), stddev: roundTo(h.stddev / 1e6) }
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
    uvThreadpoolSize: env.UV_THREADPOOL_SIZE ?? null,
    uvUseIoUring: env.UV_USE_IO_URING ?? null,
    cpuModel: cpus.length > 0 ? cpus[0].model.trim() : 'unknown',
    cpuCount: os.availableParallelism(),
    platform: process.platform,
    arch: process.arch,
    totalMemoryBytes: os.totalmem()
  }
}
