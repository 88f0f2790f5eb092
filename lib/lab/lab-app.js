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

/**
 * @param {{ framework?: 'express'|'http', fileSize?: number, poolSize?: number, cacheDir?: string }} [options]
 * @returns {Promise<{ handler: import('node:http').RequestListener, routes: ReturnType<typeof labRoutes>, close: () => Promise<void> }>}
 */
export async function createLab (options = {}) {
  const framework = options.framework ?? 'express'
  const poolSize = options.poolSize ?? os.availableParallelism()
  const routes = labRoutes(options)
  const byPath = new Map(routes.map((r) => [r.path, r]))
  /** @type {Map<number, string|Promise<string>>} size -> the data file, or its creation under way */
  const files = new Map()
  // The default file exists before the first request, so no measured request pays for its creation.
  files.set(options.fileSize ?? DEFAULT_FILE_SIZE, await ensureDataFile(options.fileSize ?? DEFAULT_FILE_SIZE, options))

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

  const listing = JSON.stringify({ app: 'lab', framework, poolSize, routes, metrics: '/__syncbench/metrics', env: '/__syncbench/env' }, null, 2) + '\n'

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
    const file = files.get(params.size)
    if (typeof file === 'string') return execute(route.workload, route.strategy, { ...params, file }, context, done)
    // A new size: generate it (asynchronously, shared by concurrent requests) before the strategy runs.
    const creating = file ?? ensureDataFile(params.size, options).then((path) => { files.set(params.size, path); return path })
    files.set(params.size, creating)
    creating.then((path) => execute(route.workload, route.strategy, { ...params, file: path }, context, done), (err) => {
      files.delete(params.size)
      done(err)
    })
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
