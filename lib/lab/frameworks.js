// The frameworks whose routes lib/lab/route-reader.js can list from inside an app's process, one
// adapter module each (lib/lab/frameworks/<name>.js). Adding a framework: its module, and one line here.
import express from './frameworks/express.js'
import fastify from './frameworks/fastify.js'
import koa from './frameworks/koa.js'
import hapi from './frameworks/hapi.js'

/**
 * One framework's reader.
 * @typedef {object} FrameworkAdapter
 * @property {import('../types.js').FrameworkName} name
 * @property {string} packageName  the npm package whose package.json names the version
 * @property {(value: unknown) => boolean} recognise  is this the framework's app (or router) object?
 *   Recognised by shape: the framework may be loaded from the app's own node_modules, or twice.
 * @property {(value: any, tools: ListTools) => Promise<FrameworkListing>} list  its routes
 * @property {() => void} [watch]  called by the preload when it starts, for a framework whose
 *   objects can only be seen being created (Fastify's routes are final once it listens)
 * @property {(server: unknown) => unknown[]} [roots]  what watch saw that belongs to this server
 */

/**
 * @typedef {object} ListTools
 * @property {(fn: Function) => Promise<Record<string, unknown>[]>} closure  the variables a function closes over (lib/lab/self-inspect.js)
 */

/**
 * What an adapter lists: routes with the functions that may be their handler, in the order they run.
 * @typedef {object} FrameworkListing
 * @property {string} [version]  when the framework says it (else read from its package.json)
 * @property {{ method: string, path: string, handlers: Function[] }[]} routes
 * @property {string[]} notes  what could not be read (a path that cannot be recovered), one line each
 */

/** @type {FrameworkAdapter[]} */
export const frameworks = [
  express,
  fastify,
  koa,
  hapi
]
