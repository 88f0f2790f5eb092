// A process looking at its own objects through node:inspector (lib/lab/route-reader.js uses it inside
// a user's app): what JavaScript alone cannot see, the variables a function closes over and the file
// and line where a function was written. One session per discovery, disconnected by close(): nothing
// stays enabled after it (Debugger is on only while the scripts are listed, then disabled at once).
// A value is handed to the inspector through one holder object, reached once through a temporary
// global that is deleted before anything else runs; the objects the inspector pins for it are
// released with their group on close().
import { Session } from 'node:inspector/promises'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import { types } from 'node:util'

const GROUP = 'syncbench-routes'

/**
 * @typedef {object} SelfInspector
 * @property {(fn: Function) => Promise<{ file: string, line: number }|null>} locate
 *   where a function was written: an absolute file path and a 1-based line; null for Node's own
 *   modules and code with no file (eval, native)
 * @property {(fn: Function) => Promise<Record<string, unknown>[]>} closure
 *   the scopes a function closes over, innermost first, each as an object of its variables
 *   (the global scope left out; an arrow function's `this` is never among them: V8 does not list it)
 * @property {() => Promise<void>} close
 */

/**
 * @returns {Promise<SelfInspector>}
 */
export async function openSelfInspector () {
  const session = new Session()
  session.connect()
  /** @type {Map<string, string>} scriptId -> url */
  const scripts = new Map()
  /** @param {{ params: { scriptId: string, url: string } }} event */
  const onScript = ({ params }) => { scripts.set(params.scriptId, params.url) }
  session.on('Debugger.scriptParsed', onScript)
  try {
    // Enabling the debugger reports every script loaded so far, before its answer; a script loaded
    // after this (a route added from a module imported later) is located as unknown.
    await session.post('Debugger.enable')
  } finally {
    await session.post('Debugger.disable').catch(() => {})
    session.off('Debugger.scriptParsed', onScript)
  }
  /** @type {{ current: unknown, taken: unknown }} */
  const holder = { current: undefined, taken: undefined }
  const key = `__syncbench_holder_${process.pid}_${Date.now()}`
  /** @type {string} */
  let holderId
  try {
    /** @type {any} */ (globalThis)[key] = holder
    const { result } = await session.post('Runtime.evaluate', { expression: `globalThis[${JSON.stringify(key)}]`, objectGroup: GROUP })
    holderId = /** @type {string} */ (result.objectId)
  } finally {
    delete (/** @type {any} */ (globalThis))[key]
  }

  /**
   * The inspector's handle on a value of this process.
   * @param {unknown} value
   */
  const objectIdOf = async (value) => {
    holder.current = value
    try {
      const { result } = await session.post('Runtime.callFunctionOn', { objectId: holderId, functionDeclaration: 'function () { return this.current }', objectGroup: GROUP })
      return result.objectId
    } finally {
      holder.current = undefined
    }
  }
  /** @param {Function} fn */
  const internals = async (fn) => {
    const objectId = await objectIdOf(fn)
    if (!objectId) return []
    const { internalProperties } = await session.post('Runtime.getProperties', { objectId, ownProperties: true })
    return internalProperties ?? []
  }

  return {
    async locate (fn) {
      const found = (await internals(fn)).find((p) => p.name === '[[FunctionLocation]]')
      const where = /** @type {{ scriptId: string, lineNumber: number }|undefined} */ (found?.value?.value)
      if (!where) return null
      const file = filePath(scripts.get(where.scriptId))
      return file ? { file, line: where.lineNumber + 1 } : null
    },
    async closure (fn) {
      const scopes = (await internals(fn)).find((p) => p.name === '[[Scopes]]')
      if (!scopes?.value?.objectId) return []
      holder.taken = undefined
      await session.post('Runtime.callFunctionOn', {
        objectId: holderId,
        functionDeclaration: 'function (scopes) { this.taken = scopes }',
        arguments: [{ objectId: scopes.value.objectId }]
      })
      // The inspector's scope list is an array with no prototype: read by index.
      const list = /** @type {{ length?: number } & Record<number, { description?: string, object?: Record<string, unknown> }>} */ (holder.taken ?? {})
      holder.taken = undefined
      /** @type {Record<string, unknown>[]} */
      const scopesFound = []
      for (let i = 0; i < (list.length ?? 0); i++) {
        const scope = list[i]
        if (scope && scope.description !== 'Global' && scope.object && typeof scope.object === 'object') scopesFound.push(scope.object)
      }
      return scopesFound
    },
    async close () {
      await session.post('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => {})
      session.disconnect()
    }
  }
}

/**
 * A property's value when it is data (own or inherited), never by calling a getter: the objects a
 * discovery looks at are the app's, and a getter may do anything (connect, count, throw). A Proxy
 * is never read (its traps are the app's code too).
 * @param {unknown} value
 * @param {string} name
 * @returns {any}
 */
export function dataProperty (value, name) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || types.isProxy(value)) return undefined
  for (let o = value; o !== null; o = Object.getPrototypeOf(o)) {
    const descriptor = Object.getOwnPropertyDescriptor(o, name)
    if (descriptor) return 'value' in descriptor ? descriptor.value : undefined
  }
  return undefined
}

/**
 * A script's URL as an absolute file path; undefined for Node's own modules and code with no file.
 * @param {string|undefined} url
 */
function filePath (url) {
  if (!url) return undefined
  if (url.startsWith('file://')) return fileURLToPath(url)
  // CommonJS modules are named by their path.
  return path.isAbsolute(url) ? url : undefined
}
