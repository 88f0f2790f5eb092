// The built-in experiments, as plain data: which server to start, which routes to load, with which
// options, along which sweep axes. A user's --experiment file has exactly this shape (docs/run.md: "Your own experiment").
//
// Fields of an experiment:
//   name, title, description   what --list shows; a built-in's description names the seed claim it
//                tests and the server it runs on
//   table        'seed-001' | 'seed-002' | 'generic' | 'thread-cost' | 'rate-sweep' | 'h2-head-of-line': which comparison table the terminal and summary.md print
//   baseline     the variant label (or config.strategy) the others are compared with, at the same axis
//                point and config.workload (ratio, Welch t-test); a one-variant sweep compares with its first point
//   reference    seed-002 only: the row that is 100% (the article's "Asynchrone")
//   server       { app, args?, env? } started fresh for every run (lib/lab/spawn.js), or { workload } for a
//                handlers module (lib/lab/workload-host.js); a variant may override it
//   runs         how many times each configuration runs by default (--runs overrides); the seeds repeat
//                so that npm start prints p-values and still ends within 90 s on 2 cores
//   load         LoadOptions without url: requests, concurrency, keepAlive...
//   warmup       { requests, concurrency } sent before the measured window (default 4 requests, 2 at a time)
//   variants     [{ label, path, config?, server?, sweep? }]: the strategies compared; sweep: false runs
//                a variant once, outside the axes (a reference line beside the sweep)
//   axes         { name: values[] }: every variant runs at every combination. concurrency, requests and
//                keepAlive set the load; threadpoolSize sets UV_THREADPOOL_SIZE at spawn; probeConnection
//                ('load', 'own') puts the probe on the load's HTTP/2 connection or on its own; a name in
//                serverAxes is a server option at spawn; any other name is added to the route's query string (delay=5)
//   serverAxes   { axis: '--option' }: axes the server takes as a `syncbench serve` option (the seed servers read no query)
//   calibration  { op: 'bcrypt', cost } | { op: 'readfile', bytes } | { op: 'bcryptjs', cost }: what one
//                request costs, timed alone, for the physical ceiling in the verdict line
//   rateSweep    { stepSeconds, capacitySeconds, capacityConcurrency, sloP99Ms }: an open-loop sweep whose
//                axes.offered are fractions of each variant's capacity, measured first by a closed-loop run
//   probe        true: during every measured run, a light open-loop load on the same server's
//                /__syncbench/health (lib/run/prober.js): how long everyone else waits (--no-probe turns it off)

const BCRYPT_COST = 10
const READFILE_BYTES = 4 * 1024 * 1024

/** @type {import('./experiment-loader.js').Experiment[]} */
export const experiments = [
  {
    name: 'seed-bcrypt',
    title: 'Seed 001: bcrypt hashSync vs hash in Express',
    description: 'tests seed 001 (bcrypt.hash serves 2.29x hashSync, 24.65 vs 10.75 req/s) on the article\'s own Express app (seed-bcrypt), ab -k -c 20 -n 250 on /sync then /async',
    table: 'seed-001',
    baseline: 'sync',
    runs: 2,
    server: { app: 'seed-bcrypt' },
    load: { requests: 250, concurrency: 20, keepAlive: true },
    probe: true,
    variants: [
      { label: 'sync', path: '/sync', config: { strategy: 'sync', workload: 'bcrypt' } },
      { label: 'async', path: '/async', config: { strategy: 'async', workload: 'bcrypt' } }
    ],
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'seed-readfile',
    title: 'Seed 002: readFile vs readFileSync vs setTimeout(readFileSync)',
    description: 'tests seed 002 (readFile 71.15 req/s, about 2.7x readFileSync 26.50 and fake async 27.10) on the article\'s own three node:http servers (seed-readfile), ab -n 1000 -c 100 each',
    table: 'seed-002',
    baseline: 'readFileSync',
    runs: 5,
    reference: 'readFile',
    server: { app: 'seed-readfile' },
    load: { requests: 1000, concurrency: 100 },
    probe: true,
    variants: [
      { label: 'readFile', path: '/', server: { args: ['--only', 'readfile'] }, config: { strategy: 'async', workload: 'readfile' } },
      { label: 'readFileSync', path: '/', server: { args: ['--only', 'readfilesync'] }, config: { strategy: 'sync', workload: 'readfile' } },
      { label: 'fake async', path: '/', server: { args: ['--only', 'fake-async'] }, config: { strategy: 'fake-async', workload: 'readfile' } }
    ],
    calibration: { op: 'readfile', bytes: READFILE_BYTES }
  },
  {
    name: 'delay-sweep',
    title: 'Seed 002\'s note: does the fake-async setTimeout delay matter?',
    description: 'tests seed 002\'s note (no difference from 1 to 5 ms, at 10 ms we lose 2 req/s) on the article\'s own node:http fake-async server (seed-readfile --only fake-async --delay 0, 1, 2, 5, 10), ab -n 1000 -c 100, each delay against 0; its readFileSync server is the reference line',
    table: 'generic',
    baseline: 'fake-async',
    // three runs: a 2 req/s difference (7%) needs a p-value, not one run
    runs: 3,
    server: { app: 'seed-readfile', args: ['--only', 'fake-async'] },
    load: { requests: 1000, concurrency: 100 },
    variants: [
      { label: 'fake-async', path: '/', config: { strategy: 'fake-async', workload: 'readfile' } },
      { label: 'readFileSync', path: '/', server: { args: ['--only', 'readfilesync'] }, config: { strategy: 'sync', workload: 'readfile' }, sweep: false }
    ],
    axes: { delay: [0, 1, 2, 5, 10] },
    serverAxes: { delay: '--delay' },
    calibration: { op: 'readfile', bytes: READFILE_BYTES }
  },
  {
    name: 'concurrency-sweep',
    title: 'bcrypt strategies from 1 to 100 requests in flight',
    description: 'tests seed 001 beyond -c 20 (async gains only with requests in flight to overlap) on the lab (Express), c = 1, 2, 5, 10, 20, 50, 100 for sync, async and fake-async bcrypt, -k -n 100',
    table: 'generic',
    baseline: 'sync',
    server: { app: 'lab' },
    load: { requests: 100, keepAlive: true },
    variants: [
      { label: 'sync', path: '/bcrypt/sync', config: { strategy: 'sync', workload: 'bcrypt' } },
      { label: 'async', path: '/bcrypt/async', config: { strategy: 'async', workload: 'bcrypt' } },
      { label: 'fake-async', path: '/bcrypt/fake-async', config: { strategy: 'fake-async', workload: 'bcrypt' } }
    ],
    axes: { concurrency: [1, 2, 5, 10, 20, 50, 100] },
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'threadpool-sweep',
    title: 'Async bcrypt with 1 to 16 libuv threads',
    description: 'tests why seed 001\'s async wins (bcrypt.hash runs on libuv\'s thread pool, so cores, not the pool, set its ceiling) on the lab (Express), UV_THREADPOOL_SIZE = 1, 2, 4, 8, 16 for async bcrypt, -k -c 20 -n 100',
    table: 'generic',
    baseline: 'async',
    server: { app: 'lab' },
    load: { requests: 100, concurrency: 20, keepAlive: true },
    variants: [
      { label: 'async', path: '/bcrypt/async', config: { strategy: 'async', workload: 'bcrypt' } }
    ],
    axes: { threadpoolSize: [1, 2, 4, 8, 16] },
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'strategies',
    title: 'Every lab strategy side by side',
    description: 'tests both seeds\' conclusion (sync blocks, async does not) for every way out the lab offers, on the lab (Express): bcrypt (and bcryptjs), readfile and wait under sync, async, fake-async, immediate, promises, stream and worker pool, -k -c 20 -n 100',
    table: 'generic',
    baseline: 'sync',
    server: { app: 'lab' },
    load: { requests: 100, concurrency: 20, keepAlive: true },
    variants: [
      ...['sync', 'async', 'fake-async', 'immediate', 'worker'].map((s) => strategy('bcrypt', s)),
      // bcryptjs is the pure-JS answer to the same work: compared within the bcrypt group.
      { label: 'bcryptjs sync', path: '/bcryptjs/sync', config: { strategy: 'bcryptjs-sync', workload: 'bcrypt' } },
      { label: 'bcryptjs async', path: '/bcryptjs/async', config: { strategy: 'bcryptjs-async', workload: 'bcrypt' } },
      ...['sync', 'async', 'fake-async', 'immediate', 'promises', 'stream', 'worker'].map((s) => strategy('readfile', s)),
      ...['sync', 'async', 'fake-async', 'immediate', 'worker'].map((s) => strategy('wait', s))
    ],
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'thread-cost',
    title: 'Seed 002\'s readers: what does a blocked thread cost?',
    description: 'tests the readers\' claim under seed 002 (a thread blocked per request costs memory, 8 MB stacks, and context switches an event loop avoids) on the lab (node:http): 10 ms waits, one event loop (async) against worker pools of 1, 2, 5, 10 and 20 threads (thread per request at c = 20), -k -c 20 -n 400',
    table: 'thread-cost',
    baseline: 'async',
    runs: 2,
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { requests: 400, concurrency: 20, keepAlive: true },
    // enough warm-up requests to start every worker of the largest pool before the measured window
    warmup: { requests: 40, concurrency: 20 },
    variants: [
      { label: 'worker', path: '/wait/worker?ms=10', config: { strategy: 'worker', workload: 'wait' } },
      { label: 'async', path: '/wait/async?ms=10', config: { strategy: 'async', workload: 'wait' }, sweep: false }
    ],
    axes: { poolSize: [1, 2, 5, 10, 20] },
    serverAxes: { poolSize: '--pool-size' }
  },
  {
    name: 'rate-sweep',
    title: 'What the closed loop hides: bcrypt sync, async and worker at offered rates',
    description: 'tests what the seeds\' closed loop hides (coordinated omission): on the lab (Express), each of sync, async and worker bcrypt first runs 3 s closed loop (-c 8) for its capacity, then is offered 10% to 120% of it in an open loop (wrk2\'s -R, 20 connections, 3 s of requests a step), corrected p50, p99 and p99.9 at each step; capacity at an SLO: the highest rate whose p99 stays under --slo-p99 (500 ms)',
    table: 'rate-sweep',
    baseline: 'sync',
    server: { app: 'lab' },
    load: { concurrency: 20, keepAlive: true },
    variants: ['sync', 'async', 'worker'].map((s) => ({ label: s, path: `/bcrypt/${s}`, config: { strategy: s, workload: 'bcrypt' } })),
    // 21 steps of 3 s of requests, plus 3 capacity runs and the calibration: about 2 minutes on 2 cores
    axes: { offered: [0.1, 0.25, 0.5, 0.75, 0.9, 1.05, 1.2] },
    rateSweep: { stepSeconds: 3, capacitySeconds: 3, capacityConcurrency: 8, sloP99Ms: 500 },
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'h2-head-of-line',
    title: 'HTTP/2: does a sync handler hold up the other streams of its connection?',
    description: 'tests head-of-line blocking at the application level over HTTP/2 on the lab (node:http over h2c): sync against async bcrypt loaded over one connection of 10 streams (-c 1 --streams 10 -n 60), the probe (/__syncbench/health, 10 req/s, corrected) on the load\'s own connection and on connections of its own',
    table: 'h2-head-of-line',
    baseline: 'sync',
    server: { app: 'lab', args: ['--framework', 'http'] },
    load: { requests: 60, concurrency: 1, http2: true, streams: 10 },
    probe: true,
    variants: [
      { label: 'sync', path: '/bcrypt/sync', config: { strategy: 'sync', workload: 'bcrypt' } },
      { label: 'async', path: '/bcrypt/async', config: { strategy: 'async', workload: 'bcrypt' } }
    ],
    // the probe's streams beside the load's on its one session, then on connections of their own
    axes: { probeConnection: ['load', 'own'] },
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  }
]

/**
 * @param {string} workload
 * @param {string} name a lab strategy
 * @returns {import('./experiment-loader.js').Variant}
 */
function strategy (workload, name) {
  return { label: `${workload} ${name}`, path: `/${workload}/${name}`, config: { strategy: name, workload } }
}

/** What `npm start` runs: the two seed articles. */
export const defaultExperiments = ['seed-bcrypt', 'seed-readfile']
