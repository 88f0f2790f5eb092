// The lab's strategies as data: what each does (the lab's route list), the colour it keeps in every
// chart of a report, and whether its work runs on the server's event loop (then one core is its
// ceiling, whatever the machine has). lib/report reads the colours and the event-loop flag from here
// and names no strategy itself. No imports: a report loads this without loading a workload.

/**
 * @typedef {object} StrategyStyle
 * @property {string} color         Tableau 10: readable in grey scale and by most colour-blind readers
 * @property {boolean} onEventLoop  the work blocks the server's main thread, at once or later
 */

/** @typedef {StrategyStyle & { description: string }} Strategy */

/**
 * The lab's strategies, in the order its routes list them (lib/lab/workloads.js builds them).
 * @type {Record<string, Strategy>}
 */
const LAB = {
  sync: { description: 'the synchronous API, on the main thread', color: '#d62728', onEventLoop: true },
  async: { description: 'the callback or promise API', color: '#1f77b4', onEventLoop: false },
  'fake-async': { description: 'setTimeout(sync, delay): returns at once, then blocks the loop anyway', color: '#ff7f0e', onEventLoop: true },
  immediate: { description: 'setImmediate(sync): the same trick on the check phase', color: '#8c564b', onEventLoop: true },
  promises: { description: 'the fs.promises API', color: '#9467bd', onEventLoop: false },
  stream: { description: 'fs.createReadStream piped into a counting sink', color: '#17becf', onEventLoop: false },
  worker: { description: 'the synchronous API in a worker-thread pool (piscina, --pool-size)', color: '#2ca02c', onEventLoop: false }
}

/**
 * Strategy names that experiments give lab routes: the strategies experiment charts bcryptjs's
 * /bcryptjs/sync and /bcryptjs/async beside bcrypt's (both hash on the main thread: bcryptjs's async
 * API only slices the work); worker-pool is the worker strategy's name in the README's first line.
 * @type {Record<string, StrategyStyle>}
 */
const ALIASES = {
  'bcryptjs-sync': { color: '#e377c2', onEventLoop: true },
  'bcryptjs-async': { color: '#bcbd22', onEventLoop: true },
  'worker-pool': { color: LAB.worker.color, onEventLoop: false }
}

/**
 * The lab's strategies and what each does.
 * @type {Record<string, string>}
 */
export const strategies = Object.fromEntries(Object.entries(LAB).map(([name, s]) => [name, s.description]))

/**
 * Colour and event-loop flag of every strategy name a results file's config.strategy may hold.
 * @type {ReadonlyMap<string, StrategyStyle>}
 */
export const strategyStyles = new Map(Object.entries({ ...LAB, ...ALIASES }).map(([name, { color, onEventLoop }]) => [name, { color, onEventLoop }]))
