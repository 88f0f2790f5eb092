// The lab server: GET /<workload>/<strategy>?params on Express or bare node:http, GET / listing
// every route with its parameters, JSON errors with the right status.
import os from 'node:os'
// @ts-expect-error express ships no types (and @types/express is no dependency): ExpressApp below
import express from 'express'
import { Piscina } from 'piscina'
import { workloads, strategies, strategiesOf, delayParam, execute } from './workloads.js'
import { ensureDataFile, parseSize, DEFAULT_FILE_SIZE } from './data-file.js'
import { errorCodes } from '../errors.js'
import { formatBytes } from '../format.js'

/**
 * One parameter of a lab route, as GET / lists it.
 * @typedef {object} RouteParam
 * @property {string} name
 * @property {'integer'|'size'} type
 * @property {number} default
 * @property {number} min
 * @property {number} max
 * @property {string} unit
 * @property {string} description
 */

/**
 * @typedef {object} LabRoute
 * @property {'GET'} method
 * @property {string} path        /<workload>/<strategy>
 * @property {string} workload
 * @property {string} strategy
 * @property {string} description
 * @property {RouteParam[]} params
 */

/**
 * A route's answer: `json` bodies are serialized, others are sent as text.
 * @typedef {(status: number, body: unknown, json: boolean) => void} Send
 */

/**
 * What the lab uses of Express's request, response and application (express ships no types).
 * @typedef {import('node:http').IncomingMessage & { url: string, path: string }} ExpressRequest
 * @typedef {import('node:http').ServerResponse & { status: (code: number) => ExpressResponse, type: (type: string) => ExpressResponse, json: (body: unknown) => void, send: (body: unknown) => void }} ExpressResponse
 * @typedef {import('node:http').RequestListener & { disable: (setting: string) => void, get: (path: string, handler: (req: ExpressRequest, res: ExpressResponse) => void) => void, use: (handler: Function) => void }} ExpressApp
 */

/**
 * The route table, as GET / shows it.
 * @param {{ fileSize?: number }} [options]
 * @returns {LabRoute[]}
 */
export function labRoutes (options = {}) {
  /** @type {LabRoute[]} */
  const routes = []
  for (const [workload, w] of Object.entries(workloads)) {
    for (const strategy of strategiesOf(workload)) {
      const params = { ...w.params }
      if (workload === 'readfile') params.size = { ...params.size, default: options.fileSize ?? DEFAULT_FILE_SIZE }
      if (strategy === 'fake-async') params.delay = delayParam
      routes.push({
        method: 'GET',
        path: `/${workload}/${strategy}`,
        workload,
        strategy,
        description: `${w.description}; ${strategy}: ${strategies[strategy]}`,
        // Every parameter has its default here: readfile's size, the only one without, got it above.
        params: Object.entries(params).map(([name, p]) => ({ name, type: p.type, default: /** @type {number} */ (p.default), min: p.min, max: p.max, unit: p.unit, description: p.description }))
      })
    }
  }
  return routes
}

/**
 * Validate a route's query. Every parameter is optional; unknown or repeated ones are errors.
 * @param {LabRoute} route
 * @param {URLSearchParams} searchParams
 * @returns {{ params: Record<string, number> } | { error: { status: number, code: string, parameter: string, message: string } }}
 */
export function parseParams (route, searchParams) {
  /** @type {Record<string, number>} */
  const params = {}
  const specs = new Map(route.params.map((p) => [p.name, p]))
  for (const name of new Set(searchParams.keys())) {
    if (!specs.has(name)) return badParam(name, `${route.path} has no parameter "${name}" (parameters: ${[...specs.keys()].join(', ') || 'none'})`)
    if (searchParams.getAll(name).length > 1) return badParam(name, `${name} is given more than once`)
  }
  for (const [name, spec] of specs) {
    const raw = searchParams.get(name)
    if (raw === null) { params[name] = spec.default; continue }
    const value = spec.type === 'size' ? parseSize(raw) : /^\d+$/.test(raw) ? Number(raw) : null
    const range = spec.type === 'size' ? `${spec.min} to ${formatBytes(spec.max)}` : `${spec.min} to ${spec.max}`
    if (value === null || value < spec.min || value > spec.max) {
      return badParam(name, `${name} must be ${spec.type === 'size' ? 'a size' : 'an integer'} from ${range} (${spec.unit}), got "${raw}"`)
    }
    params[name] = value
  }
  return { params }
}

/**
 * @param {string} parameter
 * @param {string} message
 */
function badParam (parameter, message) {
  return { error: { status: 400, code: errorCodes.BAD_PARAMETER, parameter, message } }
}

/** The default of `serve --memory-budget`: the bytes readfile requests may hold at once. */
export const DEFAULT_MEMORY_BUDGET = 1024 * 1024 * 1024

/**
 * @param {{ framework?: 'express'|'http', fileSize?: number, poolSize?: number, cacheDir?: string, memoryBudget?: number }} [options]
 * @returns {Promise<{ handler: import('node:http').RequestListener, routes: ReturnType<typeof labRoutes>, close: () => Promise<void> }>}
 */
export async function createLab (options = {}) {
  const framework = options.framework ?? 'express'
  const poolSize = options.poolSize ?? os.availableParallelism()
  const routes = labRoutes(options)
  const byPath = new Map(routes.map((r) => [r.path, r]))
  // One data file, the largest size asked so far; a readfile request reads a prefix of it (`size`
  // bytes), so the cache holds one file whatever the sizes asked (lib/lab/data-file.js).
  // The default file exists before the first request, so no measured request pays for its creation.
  const firstSize = options.fileSize ?? DEFAULT_FILE_SIZE
  let largest = { size: firstSize, path: await ensureDataFile(firstSize, options) }
  /** @type {Promise<string>|null} a larger file's creation, which every readfile request waits for */
  let growing = null
  // Requests reading the file now: a larger file is created only once they are done, as creating it
  // evicts the current one from the cache.
  let reading = 0
  /** @type {(() => void)[]} */
  let idle = []
  // The bytes the admitted readfile requests hold or will hold (each reads `size` bytes into memory).
  const budget = options.memoryBudget ?? DEFAULT_MEMORY_BUDGET
  let inFlight = 0

  /**
   * The data file to read `size` bytes from: at once when it is long enough and nothing grows it;
   * else after the creations under way, one at a time, so a size is never written twice.
   * @param {number} size
   * @returns {string|Promise<string>}
   */
  function fileFor (size) {
    if (growing === null && size <= largest.size) return largest.path
    const next = (growing ?? Promise.resolve('')).catch(() => '').then(async () => {
      if (size <= largest.size) return largest.path
      if (reading > 0) await new Promise((resolve) => idle.push(() => resolve(undefined)))
      const path = await ensureDataFile(size, options)
      largest = { size, path }
      return path
    })
    growing = next
    const settle = () => { if (growing === next) growing = null }
    next.then(settle, settle)
    return next
  }

  // Created on the first worker request so the other strategies run without idle worker threads.
  /** @type {Piscina|undefined} */
  let pool
  /** @type {Parameters<typeof execute>[3]} */
  const context = {
    runInWorker (task) {
      pool ??= new Piscina({ filename: new URL('./worker-task.js', import.meta.url).href, minThreads: poolSize, maxThreads: poolSize })
      return pool.run(task)
    }
  }

  const listing = JSON.stringify({ app: 'lab', framework, poolSize, routes, metrics: '/__syncbench/metrics', env: '/__syncbench/env', health: '/__syncbench/health' }, null, 2) + '\n'

  /**
   * Runs a validated request; `send(status, body, json)` answers it.
   * @param {string} pathname
   * @param {string} search
   * @param {Send} send
   */
  function serve (pathname, search, send) {
    const route = byPath.get(pathname)
    if (!route) return send(404, { error: { code: errorCodes.NOT_FOUND, message: `no route ${pathname} (GET / lists the routes)` } }, true)
    const parsed = parseParams(route, new URLSearchParams(search))
    if ('error' in parsed) return send(400, { error: { code: parsed.error.code, parameter: parsed.error.parameter, message: parsed.error.message } }, true)
    const params = parsed.params
    /** @type {import('./workloads.js').Done} */
    const done = (err, body) => err
      ? send(500, { error: { code: errorCodes.WORKLOAD, message: `${route.path}: ${err.message}` } }, true)
      : send(200, body, false)
    if (route.workload !== 'readfile') return execute(route.workload, route.strategy, params, context, done)
    if (inFlight + params.size > budget) {
      return send(503, {
        error: {
          code: errorCodes.MEMORY_BUDGET,
          parameter: 'size',
          budget,
          message: `readfile size=${params.size} would take the bytes read at once to ${formatBytes(inFlight + params.size)}, over the memory budget of ${formatBytes(budget)} (serve --memory-budget); retry later or with a smaller size`
        }
      }, true)
    }
    inFlight += params.size
    let released = false
    /** @type {import('./workloads.js').Done} */
    const release = (err, body) => {
      // once, whatever ends the request: the workload's answer or its error (a client that went away
      // does not stop the read, so its bytes are held until the read ends)
      if (!released) {
        released = true
        inFlight -= params.size
      }
      done(err, body)
    }
    /** @param {string} file */
    const read = (file) => {
      reading++
      execute(route.workload, route.strategy, { ...params, file }, context, (err, body) => {
        if (--reading === 0 && idle.length > 0) { const waiting = idle; idle = []; for (const wake of waiting) wake() }
        release(err, body)
      })
    }
    const file = fileFor(params.size)
    if (typeof file === 'string') return read(file)
    // A larger size: generated (asynchronously, shared by concurrent requests) before the strategy runs.
    file.then(read, (err) => release(err))
  }

  const handler = framework === 'express' ? expressHandler(serve, listing) : httpHandler(serve, listing)
  return { handler, routes, close: async () => { await pool?.destroy() } }
}

/**
 * @param {string} url
 * @returns {[string, string]} path and query (without "?")
 */
function splitUrl (url) {
  const q = url.indexOf('?')
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)]
}

/**
 * @param {(pathname: string, search: string, send: Send) => void} serve
 * @param {string} listing
 * @returns {import('node:http').RequestListener}
 */
function httpHandler (serve, listing) {
  return (req, res) => {
    /** @type {Send} */
    const reply = (status, body, json) => {
      // a text body is the workload's string (lib/lab/workloads.js Done)
      const text = json ? JSON.stringify(body) + '\n' : /** @type {string} */ (body)
      res.writeHead(status, { 'Content-Type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) })
      res.end(req.method === 'HEAD' ? undefined : text)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, { error: { code: errorCodes.METHOD, message: `${req.method}: only GET is allowed` } }, true)
    // A server's request always has a url (only a client's message has none).
    const [pathname, search] = splitUrl(/** @type {string} */ (req.url))
    if (pathname === '/') {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(listing) })
      return res.end(req.method === 'HEAD' ? undefined : listing)
    }
    serve(pathname, search, reply)
  }
}

/**
 * @param {(pathname: string, search: string, send: Send) => void} serve
 * @param {string} listing
 * @returns {import('node:http').RequestListener}
 */
function expressHandler (serve, listing) {
  /** @type {ExpressApp} */
  const app = express()
  app.disable('x-powered-by')
  app.get('/', (req, res) => res.type('application/json').send(listing))
  app.get('/:workload/:strategy', (req, res) => {
    const [pathname, search] = splitUrl(req.url)
    serve(pathname, search, (status, body, json) => json ? res.status(status).json(body) : res.status(status).type('text/plain').send(body))
  })
  app.use((/** @type {ExpressRequest} */ req, /** @type {ExpressResponse} */ res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return res.status(405).json({ error: { code: errorCodes.METHOD, message: `${req.method}: only GET is allowed` } })
    res.status(404).json({ error: { code: errorCodes.NOT_FOUND, message: `no route ${req.path} (GET / lists the routes)` } })
  })
  // Express's default error page is HTML with a stack; the lab answers JSON like everywhere else.
  // Express calls a handler of four parameters with what a route threw (an http-errors error has `status`).
  app.use((/** @type {Error & { status?: number }} */ err, /** @type {ExpressRequest} */ req, /** @type {ExpressResponse} */ res, /** @type {() => void} */ next) => {
    res.status(err.status || 500).json({ error: { code: errorCodes.WORKLOAD, message: err.message } })
  })
  return app
}
