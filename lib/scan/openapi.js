// Routes from an OpenAPI document (--openapi): OpenAPI 3.0 and 3.1, JSON or YAML, validated and its
// $refs dereferenced by @readme/openapi-parser. Each operation is a route; its path's parameters and
// its required query parameters take their values from the document's examples, its request body
// from its example. Swagger 2.0 is refused: its parameters and bodies are shaped otherwise (in: body,
// basePath), and converters to 3.0 exist.
//
// The document is read alone: a $ref to another file or a URL is left unresolved (its example is then
// unknown), so reading a document never fetches anything.
//
// The first server's path is the prefix of every path: OpenAPI's paths are relative to the server's
// URL, so a document whose server is https://api.example.com/v1 and whose path is /users describes
// GET /v1/users. A server variable in that path takes its default; a server URL with no path (or none
// at all) adds nothing.
import { validate, dereference } from '@readme/openapi-parser'
import { firstLine } from '../errors.js'
import { documentError, lineOfPair, lineOfPointer, pointerAtLine, pointerText, readDocument } from './document-file.js'

/** @typedef {import('../types.js').DocumentRoute} DocumentRoute */

const FLAG = '--openapi'
/** An operation's keys in a path item (OpenAPI 3.0 and 3.1). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
/**
 * What the parser is told: no file and no URL beyond the document itself. A path parameter declared
 * in another file is then not seen, so its absence is no error here: the route is read, and its
 * parameter waits for --param.
 */
const PARSER_OPTIONS = Object.freeze({
  resolve: { external: false },
  validate: { rules: { openapi: { 'path-parameters-not-in-parameters': /** @type {'warning'} */ ('warning') } } }
})

/**
 * The routes an OpenAPI document describes, in the document's order (paths, then methods as
 * METHODS lists them), and the notes to print about how it was read (the server path put before
 * every path). Throws InvalidOptionError, one line naming the file and line, when the file cannot be
 * read, is not JSON or YAML, is not OpenAPI 3.0 or 3.1, or is not a valid document.
 * @param {string} file
 * @returns {Promise<{ routes: DocumentRoute[], notes: string[] }>}
 */
export async function readOpenapi (file) {
  const { text, data } = await readDocument(FLAG, file)
  const version = checkVersion(file, text, data)
  // the parser throws on what it cannot judge at all (a $ref it cannot follow to its end, say)
  const result = await validate(/** @type {any} */ (structuredClone(data)), PARSER_OPTIONS).catch((err) => {
    throw documentError(FLAG, file, null, `not a valid OpenAPI ${version} document: ${firstLine(err)}`, err)
  })
  if (!result.valid) {
    const { line, reason } = await invalidAt(text, data, result.errors[0]?.message ?? 'invalid')
    throw documentError(FLAG, file, line, `not a valid OpenAPI ${version} document: ${reason}`)
  }
  const api = /** @type {Record<string, any>} */ (await dereference(/** @type {any} */ (structuredClone(data)), PARSER_OPTIONS))
  const prefix = serverPrefix(api.servers)
  /** @type {DocumentRoute[]} */
  const routes = []
  /** @type {string[]} */
  const notes = prefix === '' ? [] : [`${file}: every path under ${prefix}, the path of its first server`]
  for (const [template, item] of Object.entries(api.paths ?? {})) {
    if (item === null || typeof item !== 'object') continue
    for (const method of METHODS) {
      const operation = item[method]
      if (operation === null || typeof operation !== 'object') continue
      const { route, unknown } = operationRoute(prefix + template, method.toUpperCase(), [...(item.parameters ?? []), ...(operation.parameters ?? [])], operation.requestBody)
      routes.push(route)
      if (unknown.length > 0) {
        notes.push(`${file}: ${route.method} ${route.path} is sent without its required query parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}: no example`)
      }
    }
  }
  return { routes, notes }
}

/**
 * The document's OpenAPI version, "3.0" or "3.1"; anything else refused at the line that says it.
 * @param {string} file
 * @param {string} text
 * @param {unknown} data
 * @returns {string}
 */
function checkVersion (file, text, data) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw documentError(FLAG, file, 1, 'not an OpenAPI document: it holds no object')
  }
  const doc = /** @type {Record<string, unknown>} */ (data)
  if (doc.swagger !== undefined) {
    throw documentError(FLAG, file, lineOfPointer(text, ['swagger']), `Swagger ${String(doc.swagger)}: scan reads OpenAPI 3.0 and 3.1 only (convert it to OpenAPI 3 first)`)
  }
  if (doc.openapi === undefined) throw documentError(FLAG, file, 1, 'not an OpenAPI document: no "openapi" field')
  const m = /^3\.([01])(\.|$)/.exec(String(doc.openapi))
  if (m === null) {
    throw documentError(FLAG, file, lineOfPointer(text, ['openapi']), `OpenAPI ${String(doc.openapi)}: scan reads OpenAPI 3.0 and 3.1 only`)
  }
  return `3.${m[1]}`
}

/**
 * Where the parser's first error is, and what it says, on one line. The parser words three kinds:
 * a broken $ref ('Missing $ref pointer "#/x"'), its own rules naming an operation (`/paths/users/get`,
 * the path's leading "/" dropped), and the schema's errors, whose message is a first line then a code
 * frame of the dereferenced document written as JSON with two spaces (its line marked ">"): that line
 * gives the JSON pointer, and the pointer the line in the user's file.
 * @param {string} text the user's file
 * @param {unknown} data
 * @param {string} message
 * @returns {Promise<{ line: number|null, reason: string }>}
 */
async function invalidAt (text, data, message) {
  const first = message.split('\n')[0].replace(/^[A-Z][A-Z ]+ (?=[a-z`'"])/, '')
  const ref = /^Missing \$ref pointer "([^"]+)"/.exec(first)
  if (ref !== null) return { line: lineOfPair(text, '$ref', ref[1]), reason: first }
  const named = /`\/paths\/([^`]*)`/.exec(first)
  if (named !== null) {
    const pointer = operationPointer(data, named[1])
    return { line: pointer === null ? null : lineOfPointer(text, pointer), reason: first }
  }
  const marked = /^> +(\d+) \|/m.exec(message)
  if (marked === null) return { line: null, reason: first }
  // the document as the parser wrote it in its code frame
  const api = await dereference(/** @type {any} */ (structuredClone(data)), { ...PARSER_OPTIONS, dereference: { circular: 'ignore' } }).catch(() => null)
  if (api === null) return { line: null, reason: first }
  const pointer = pointerAtLine(JSON.stringify(api, null, 2), Number(marked[1]))
  if (pointer === null) return { line: null, reason: first }
  return { line: lineOfPointer(text, pointer), reason: `at ${pointerText(pointer) || '/'}: ${first}` }
}

/**
 * The pointer of an operation the parser names as "users/{id}/get": the longest path template that
 * starts it, then the rest.
 * @param {unknown} data
 * @param {string} named
 * @returns {string[]|null}
 */
function operationPointer (data, named) {
  const paths = Object.keys(/** @type {{ paths?: object }} */ (data).paths ?? {}).sort((a, b) => b.length - a.length)
  const template = paths.find((p) => named === p.slice(1) || named.startsWith(p.slice(1) + '/'))
  if (template === undefined) return null
  const rest = named.slice(template.length)
  return ['paths', template, ...rest.split('/').filter(Boolean)]
}

/**
 * The path of the first server's URL, without its trailing "/", its variables at their defaults.
 * @param {unknown} servers
 */
function serverPrefix (servers) {
  if (!Array.isArray(servers) || servers.length === 0) return ''
  const server = servers[0]
  if (server === null || typeof server !== 'object' || typeof server.url !== 'string') return ''
  /** @type {Record<string, { default?: unknown }>} */
  const variables = server.variables ?? {}
  const url = server.url.replace(/\{([^}]+)\}/g, (/** @type {string} */ whole, /** @type {string} */ name) => {
    const value = variables[name]?.default
    return value === undefined ? whole : String(value)
  })
  // an absolute URL's path, or the relative URL itself ("/api/v1", "api/v1")
  let pathname = url
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(url)
  if (scheme !== null) pathname = url.slice(scheme[0].length)
  pathname = pathname.replace(/[?#].*$/s, '')
  if (pathname !== '' && !pathname.startsWith('/')) pathname = '/' + pathname
  return pathname.replace(/\/+$/, '')
}

/**
 * One operation as a route: its template's {name} as :name, the examples of its path parameters and
 * of its required query parameters, and its request body's example; and the required query
 * parameters that have no example (sent without them: an invented value is no better).
 * @param {string} template
 * @param {string} method
 * @param {any[]} parameters the path item's then the operation's (the operation's win)
 * @param {any} requestBody
 * @returns {{ route: DocumentRoute, unknown: string[] }}
 */
function operationRoute (template, method, parameters, requestBody) {
  /** @type {Map<string, any>} */
  const byKey = new Map()
  for (const p of parameters) {
    if (p !== null && typeof p === 'object' && typeof p.name === 'string') byKey.set(`${p.in} ${p.name}`, p)
  }
  /** @type {Record<string, string>} */
  const params = {}
  const query = new URLSearchParams()
  /** @type {string[]} */
  const unknown = []
  for (const p of byKey.values()) {
    const value = exampleOf(p)
    if (value === undefined && p.in === 'query' && p.required === true) unknown.push(p.name)
    if (value === undefined) continue
    if (p.in === 'path') {
      const text = scalarText(value)
      if (text !== undefined) params[p.name] = text
    } else if (p.in === 'query' && p.required === true) {
      for (const v of Array.isArray(value) ? value : [value]) {
        const text = scalarText(v)
        if (text !== undefined) query.append(p.name, text)
      }
    }
  }
  /** @type {DocumentRoute} */
  const route = {
    method,
    path: template.replace(/\{([^}/]+)\}/g, ':$1'),
    from: 'openapi',
    query: query.toString()
  }
  if (Object.keys(params).length > 0) route.params = params
  const body = bodyOf(requestBody)
  if (body !== undefined) route.body = body
  return { route, unknown }
}

/**
 * A parameter's or media type's example: its own `example`, its first `examples` entry's value, then
 * its schema's `example`, first `examples` item (JSON Schema's, in 3.1), `default` and first `enum`.
 * @param {any} holder
 * @returns {unknown}
 */
function exampleOf (holder) {
  if (holder === null || typeof holder !== 'object') return undefined
  if (holder.example !== undefined) return holder.example
  if (holder.examples !== null && typeof holder.examples === 'object' && !Array.isArray(holder.examples)) {
    for (const entry of Object.values(holder.examples)) {
      if (entry !== null && typeof entry === 'object' && entry.value !== undefined) return entry.value
    }
  }
  const schema = holder.schema
  if (schema === null || typeof schema !== 'object') return undefined
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  return undefined
}

/**
 * A parameter's value as text: a string, number or boolean; anything else has no one way to be written.
 * @param {unknown} value
 * @returns {string|undefined}
 */
function scalarText (value) {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** Media types whose example is sent as JSON. @param {string} type */
const isJson = (type) => /^application\/(.+\+)?json$/i.test(type)
/** Media types whose example is sent as the text it is. @param {string} type */
const isText = (type) => /^text\//i.test(type) || /^application\/(xml|.+\+xml)$/i.test(type)
const FORM = 'application/x-www-form-urlencoded'

/**
 * The request body's example: application/json first, then another JSON type, a form or a text type.
 * @param {any} requestBody
 * @returns {{ contentType: string, text: string }|undefined}
 */
function bodyOf (requestBody) {
  const content = requestBody?.content
  if (content === null || typeof content !== 'object') return undefined
  const types = Object.keys(content).sort((a, b) => rank(a) - rank(b))
  for (const type of types) {
    const value = exampleOf(content[type])
    if (value === undefined) continue
    if (isJson(type)) return { contentType: type, text: JSON.stringify(value) }
    if (type.toLowerCase() === FORM && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const form = new URLSearchParams()
      for (const [k, v] of Object.entries(value)) {
        const t = scalarText(v)
        if (t !== undefined) form.append(k, t)
      }
      return { contentType: type, text: form.toString() }
    }
    if ((isText(type) || type.toLowerCase() === FORM) && typeof value === 'string') return { contentType: type, text: value }
  }
  return undefined
}

/** The order media types are tried in. @param {string} type */
function rank (type) {
  if (type.toLowerCase() === 'application/json') return 0
  if (isJson(type)) return 1
  if (type.toLowerCase() === FORM) return 2
  if (isText(type)) return 3
  return 4
}
