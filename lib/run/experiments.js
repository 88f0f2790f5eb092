// The built-in experiments, as plain data: which server to start, which routes to load, with which
// options, along which sweep axes. A user's --experiment file has exactly this shape (README: "Experiments").
//
// Fields of an experiment:
//   name, title, description   what --list shows
//   table        'seed-001' | 'seed-002' | 'generic': which comparison table the terminal and summary.md print
//   baseline     the variant label (or config.strategy) the others are compared with, at the same axis
//                point and config.workload (ratio, Welch t-test); a one-variant sweep compares with its first point
//   reference    seed-002 only: the row that is 100% (the article's "Asynchrone")
//   server       { app, args?, env? } started fresh for every run (lib/lab/spawn.js), or { workload } for a
//                handlers module (lib/lab/workload-host.js); a variant may override it
//   runs         how many times each configuration runs by default (--runs overrides); the seeds repeat
//                so that npm start prints p-values and still ends within 90 s on 2 cores
//   load         LoadOptions without url: requests, concurrency, keepAlive...
//   warmup       { requests, concurrency } sent before the measured window (default 4 requests, 2 at a time)
//   variants     [{ label, path, config?, server? }]: the strategies compared
//   axes         { name: values[] }: every variant runs at every combination. concurrency, requests and
//                keepAlive set the load; threadpoolSize sets UV_THREADPOOL_SIZE at spawn; any other
//                name is added to the route's query string (delay=5)
//   calibration  { op: 'bcrypt', cost } | { op: 'readfile', bytes } | { op: 'bcryptjs', cost }: what one
//                request costs, timed alone, for the physical ceiling in the verdict line

const BCRYPT_COST = 10
const READFILE_BYTES = 4 * 1024 * 1024

/** @type {import('./experiment-loader.js').Experiment[]} */
export const experiments = [
  {
    name: 'seed-bcrypt',
    title: 'Seed 001: bcrypt hashSync vs hash in Express',
    description: 'the seed-bcrypt app, ab -k -c 20 -n 250 on /sync then /async',
    table: 'seed-001',
    baseline: 'sync',
    runs: 2,
    server: { app: 'seed-bcrypt' },
    load: { requests: 250, concurrency: 20, keepAlive: true },
    variants: [
      { label: 'sync', path: '/sync', config: { strategy: 'sync', workload: 'bcrypt' } },
      { label: 'async', path: '/async', config: { strategy: 'async', workload: 'bcrypt' } }
    ],
    calibration: { op: 'bcrypt', cost: BCRYPT_COST }
  },
  {
    name: 'seed-readfile',
    title: 'Seed 002: readFile vs readFileSync vs setTimeout(readFileSync)',
    description: 'the seed-readfile servers, ab -n 1000 -c 100 on readFile, readFileSync, fake async',
    table: 'seed-002',
    baseline: 'readFileSync',
    runs: 5,
    reference: 'readFile',
    server: { app: 'seed-readfile' },
    load: { requests: 1000, concurrency: 100 },
    variants: [
      { label: 'readFile', path: '/', server: { args: ['--only', 'readfile'] }, config: { strategy: 'async', workload: 'readfile' } },
      { label: 'readFileSync', path: '/', server: { args: ['--only', 'readfilesync'] }, config: { strategy: 'sync', workload: 'readfile' } },
      { label: 'fake async', path: '/', server: { args: ['--only', 'fake-async'] }, config: { strategy: 'fake-async', workload: 'readfile' } }
    ],
    calibration: { op: 'readfile', bytes: READFILE_BYTES }
  },
  {
    name: 'delay-sweep',
    title: 'Fake async: does the setTimeout delay matter?',
    description: 'setTimeout(readFileSync, delay) with delays 0, 1, 2, 5, 10 ms, ab -n 1000 -c 100',
    table: 'generic',
    baseline: 'fake-async',
    server: { app: 'lab' },
    load: { requests: 1000, concurrency: 100 },
    variants: [
      { label: 'fake-async', path: '/readfile/fake-async', config: { strategy: 'fake-async', workload: 'readfile' } }
    ],
    axes: { delay: [0, 1, 2, 5, 10] },
    calibration: { op: 'readfile', bytes: READFILE_BYTES }
  },
  {
    name: 'concurrency-sweep',
    title: 'bcrypt strategies from 1 to 100 requests in flight',
    description: 'c = 1, 2, 5, 10, 20, 50, 100 for sync, async and fake-async bcrypt, -n 100',
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
    description: 'UV_THREADPOOL_SIZE = 1, 2, 4, 8, 16 for async bcrypt, set at process start, -k -c 20 -n 100',
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
    description: 'bcrypt (and bcryptjs), readfile and wait under every lab strategy (sync, async, fake-async, immediate, promises, stream, worker pool), -k -c 20 -n 100',
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
