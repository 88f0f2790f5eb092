// Routes from a browser's HAR export (--har, HAR 1.2): its requests replayed as they were sent,
// grouped by route. A route's pattern is its URL's path with the segments that name one thing among
// many made parameters :id, :id2, ... in order (ID_SEGMENT says which); the first request of a route
// gives its example values, its query, its headers and its body.
//
// A page talks to several origins (its API, a CDN, an analytics service): the origin most requests
// went to is the app's, and the others are left out, each named in a note. Requests other than
// http(s) (data:, blob:, ws:) are left out too.
//
// Headers are kept as the browser sent them, cookies and credentials included (the plan stars them
// where it prints them), except those that belong to one connection or that the load generator
// writes itself: HTTP/2's pseudo-headers (":authority", ":path"...), Host, Connection, Keep-Alive,
// Proxy-Connection, Transfer-Encoding, TE, Trailer, Upgrade, Content-Length, and the Content-Type of a
// request whose body goes with its own type. Accept-Encoding stays: a browser's requests ask for
// compressed answers, and compressing is work the server does.
import { documentError, lineOfPointer, readDocument } from './document-file.js'

/** @typedef {import('../types.js').DocumentRoute} DocumentRoute */

const FLAG = '--har'

/** Headers left out of a replayed request (lower case); pseudo-headers are left out by their ":". */
export const DROPPED_HEADERS = Object.freeze(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length'])

/**
 * A path segment that names one thing among many, made a parameter: a number ("42"), a UUID
 * ("3f2a...-..."), or a run of at least 16 hexadecimal digits (a MongoDB ObjectId has 24, a hash 32
 * or more; a shorter hex word such as "cafe" or "deadbeef" is as likely a name as an id).
 */
export const ID_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$/i

/**
 * The routes of a HAR file and the notes to print about what was left out.
 * @param {string} file
 * @returns {Promise<{ routes: DocumentRoute[], notes: string[] }>}
 */
export async function readHar (file) {
  const { text, data } = await readDocument(FLAG, file, { json: true })
  const entries = /** @type {{ log?: { entries?: unknown } }} */ (data)?.log?.entries
  if (!Array.isArray(entries)) {
    throw documentError(FLAG, file, lineOfPointer(text, ['log']) ?? 1, 'not a HAR file: no log.entries list')
  }
  /** @type {{ url: URL, request: Record<string, any> }[]} */
  const requests = []
  for (const [i, entry] of entries.entries()) {
    const request = entry?.request
    if (request === null || typeof request !== 'object' || typeof request.method !== 'string' || typeof request.url !== 'string') {
      throw documentError(FLAG, file, lineOfPointer(text, ['log', 'entries', String(i)]), `not a HAR file: entry ${i} has no request with a method and a url`)
    }
    let url
    try {
      url = new URL(request.url)
    } catch {
      throw documentError(FLAG, file, lineOfPointer(text, ['log', 'entries', String(i), 'request', 'url']), `entry ${i}'s url "${request.url}" is not a URL`)
    }
    if (url.protocol === 'http:' || url.protocol === 'https:') requests.push({ url, request })
  }
  /** @type {Map<string, number>} */
  const origins = new Map()
  for (const { url } of requests) origins.set(url.origin, (origins.get(url.origin) ?? 0) + 1)
  // the most requests; a tie to the origin met first
  let app = ''
  for (const [origin, n] of origins) if (app === '' || n > /** @type {number} */ (origins.get(app))) app = origin
  const notes = [...origins].filter(([origin]) => origin !== app)
    .map(([origin, n]) => `${file}: left out ${n} request${n === 1 ? '' : 's'} to ${origin} (the app's origin is taken as ${app}, where most went)`)
  /** @type {Map<string, DocumentRoute>} */
  const routes = new Map()
  for (const { url, request } of requests) {
    if (url.origin !== app) continue
    const method = request.method.toUpperCase()
    const { pattern, params } = routePattern(url.pathname)
    const key = `${method} ${pattern}`
    if (routes.has(key)) continue
    /** @type {DocumentRoute} */
    const route = { method, path: pattern, from: 'har', query: url.search.slice(1) }
    if (Object.keys(params).length > 0) route.params = params
    const body = postBody(request.postData)
    const headers = headerLines(request.headers, body !== undefined)
    if (headers.length > 0) route.headers = headers
    if (body !== undefined) route.body = body
    routes.set(key, route)
  }
  return { routes: [...routes.values()], notes }
}

/**
 * A URL path as a route's pattern: each ID_SEGMENT made :id, :id2, :id3... in order, its value kept
 * decoded ("/users/42/orders/7" -> "/users/:id/orders/:id2", { id: '42', id2: '7' }).
 * @param {string} pathname as the URL writes it (percent-encoded)
 * @returns {{ pattern: string, params: Record<string, string> }}
 */
export function routePattern (pathname) {
  /** @type {Record<string, string>} */
  const params = {}
  let n = 0
  const pattern = pathname.split('/').map((segment) => {
    if (!ID_SEGMENT.test(segment)) return segment
    n++
    const name = n === 1 ? 'id' : `id${n}`
    params[name] = segment
    return `:${name}`
  }).join('/')
  return { pattern, params }
}

/**
 * The request's headers as lines, less those DROPPED_HEADERS names, the pseudo-headers, and the
 * Content-Type when the body carries its own.
 * @param {unknown} headers HAR's [{ name, value }]
 * @param {boolean} withBody
 * @returns {string[]}
 */
function headerLines (headers, withBody) {
  if (!Array.isArray(headers)) return []
  /** @type {string[]} */
  const lines = []
  for (const h of headers) {
    if (h === null || typeof h !== 'object' || typeof h.name !== 'string' || typeof h.value !== 'string') continue
    const name = h.name.trim()
    const lower = name.toLowerCase()
    if (name === '' || name.startsWith(':') || DROPPED_HEADERS.includes(lower)) continue
    if (withBody && lower === 'content-type') continue
    // a header line is one line; a value with a line break in it would split the request
    if (/[\r\n]/.test(h.value)) continue
    lines.push(`${name}: ${h.value}`)
  }
  return lines
}

/**
 * The body of a request: postData's text, or its form params written as a form when it has no text.
 * @param {unknown} postData
 * @returns {{ contentType: string, text: string }|undefined}
 */
function postBody (postData) {
  if (postData === null || typeof postData !== 'object') return undefined
  const p = /** @type {{ mimeType?: unknown, text?: unknown, params?: unknown }} */ (postData)
  const contentType = typeof p.mimeType === 'string' && p.mimeType !== '' ? p.mimeType : 'application/octet-stream'
  if (typeof p.text === 'string') return { contentType, text: p.text }
  if (Array.isArray(p.params) && /^application\/x-www-form-urlencoded/i.test(contentType)) {
    const form = new URLSearchParams()
    for (const param of p.params) if (typeof param?.name === 'string') form.append(param.name, typeof param.value === 'string' ? param.value : '')
    return { contentType, text: form.toString() }
  }
  return undefined
}
