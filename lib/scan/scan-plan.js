// What syncbench scan will send, decided before anything is sent: the routes discovery found, the
// documents' routes (--openapi, --har) and the routes named on the command line (--request, --path),
// merged into one list, each with its concrete path, or skipped with the reason and the flag that
// would send it.
//
// Two routes are one when their methods and their patterns' shapes are equal: the same literal
// segments, and parameters at the same positions whatever their names (/users/:id is
// /users/{userId}). A document's or a named route's concrete path (/users/42) joins the route whose
// pattern it fits best (the most literal segments: /users/me before /users/:id).
//
// A parameter takes the value of --param NAME=VALUE (by any name it has in any source), else a
// document's example at its position. An optional one (Express's :id?, Express 5's {/:id}) is left
// out. A wildcard (*, *splat, (.*), :path*) has no value to invent: skipped, unless a document or a
// named route gives a concrete path it fits.
//
// Safety: GET and HEAD are sent. POST, PUT and PATCH with --allow-writes and a body (a document's
// example, a HAR's postData, or -p after the route's --request). DELETE only when named by --request,
// and with --allow-writes. Other methods (OPTIONS, TRACE...) only when named. app.all's routes are
// planned as GET.
import { invalidOption } from '../errors.js'
import { redactUrl } from '../redact.js'
import { cutMiddle } from '../report/text-table.js'
import { TEXT_WIDTH, wrap } from '../report/wrap.js'

/** @typedef {import('../types.js').DocumentRoute} DocumentRoute */
/** @typedef {import('../types.js').PlannedRoute} PlannedRoute */
/** @typedef {import('../run/app-requests.js').AppRoute} AppRoute */
/**
 * A route discovery found (lib/scan/discover.js).
 * @typedef {{ method: string, path: string, framework: string, file?: string, line?: number }} FoundRoute
 */

/** Methods whose requests write, and need a body to be sent. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
/** The widest key column of the plan's lines: a longer key loses its middle. */
const KEY_MAX = 32
/** Joins what wrap must not break apart (a request line, a flag and its value). */
const NBSP = '\u00a0'
/** A parameter's name in --param, as Express, OpenAPI and the HAR reader write them. */
const PARAM_NAME = /^[A-Za-z_$][\w$.-]*$/

/**
 * One segment of a pattern: a literal, a parameter (with its name), an optional parameter or a wildcard.
 * @typedef {{ kind: 'literal', text: string } | { kind: 'param', name: string } | { kind: 'optional', name: string } | { kind: 'wildcard' }} Segment
 */

/**
 * A route being planned: its sources merged.
 * @typedef {object} Entry
 * @property {string} method
 * @property {string} pattern
 * @property {Segment[]} segments
 * @property {string[]} from
 * @property {{ file: string, line: number }|null} declared
 * @property {Map<number, Set<string>>} names     each parameter position's names in every source
 * @property {Map<number, string>} examples       each parameter position's example value (decoded)
 * @property {Map<number, string>} shared         the same, from the routes of the same path with other
 *                                                methods (an example names a resource, whatever is done to it)
 * @property {string|null} concrete               a concrete path a document gave for a wildcard route
 * @property {string} query
 * @property {string[]|undefined} headers
 * @property {{ contentType: string, text: string }|undefined} body
 * @property {AppRoute|null} named                the route named on the command line, which wins
 * @property {string|null} label                  the key, when not "METHOD pattern": a second named route
 *                                                that fits the same pattern
 */

/**
 * --param's values, NAME=VALUE each, as a map. Throws InvalidOptionError (exit 2) on a malformed one,
 * or on a name given twice.
 * @param {readonly string[]} values
 * @returns {Record<string, string>}
 */
export function parseParamOption (values) {
  /** @type {Record<string, string>} */
  const params = {}
  for (const value of values) {
    const eq = value.indexOf('=')
    const name = eq === -1 ? '' : value.slice(0, eq)
    const v = eq === -1 ? '' : value.slice(eq + 1)
    if (!PARAM_NAME.test(name) || v === '') throw invalidOption('--param', value, 'must be NAME=VALUE, as in --param id=42')
    if (/[\0\r\n]/.test(v)) throw invalidOption('--param', value.replace(/\r/g, '\\r').replace(/\n/g, '\\n'), 'must hold its value on one line')
    if (Object.hasOwn(params, name)) throw invalidOption('--param', value, `gives ${name} a second time (${name}=${params[name]} first)`)
    params[name] = v
  }
  return params
}

/**
 * The segments of a pattern (no query: ":id?" is an optional parameter). Express 5's optional groups
 * ("{/:id}", "{.:ext}") are left out first.
 * @param {string} pattern
 * @returns {Segment[]}
 */
export function patternSegments (pattern) {
  const path = pattern.replace(/\{[^{}]*[/.:*][^{}]*\}/g, (group) => /^\{[\w$.-]+\*\d*\}$/.test(group) ? group : '')
  return path.split('/').map((text) => {
    /** @type {RegExpExecArray|null} */
    let m
    if ((m = /^:([\w$.-]+?)(\(.*\))?\?$/.exec(text)) || (m = /^\{([\w$.-]+)\?\}$/.exec(text))) return { kind: 'optional', name: m[1] }
    if (/^:[\w$.-]+?(\(.*\))?[*+]$/.test(text) || /^\{[\w$.-]+\*\d*\}$/.test(text)) return { kind: 'wildcard' }
    if ((m = /^:([\w$.-]+?)(\(.*\))?$/.exec(text)) || (m = /^\{([\w$.-]+)\}$/.exec(text))) return { kind: 'param', name: m[1] }
    // "*", Express 5's "*splat", path-to-regexp's "(.*)"
    if (/[*(]/.test(text)) return { kind: 'wildcard' }
    return { kind: 'literal', text }
  })
}

/**
 * A pattern's shape: what makes two patterns one route (parameters by position, not by name).
 * @param {string} method
 * @param {Segment[]} segments
 */
function shapeKey (method, segments) {
  return `${method} ${segments.map((s) => s.kind === 'literal' ? `=${s.text}` : s.kind).join('/')}`
}

/**
 * How well a concrete path fits a pattern: the number of literal segments it matches, or -1 when it
 * does not fit. Optional segments are left out of both; a wildcard last takes the rest.
 * @param {Segment[]} segments the pattern's
 * @param {string[]} concrete  the path's segments
 */
function fit (segments, concrete) {
  const pattern = segments.filter((s) => s.kind !== 'optional')
  let score = 0
  for (const [i, s] of pattern.entries()) {
    if (s.kind === 'wildcard' && i === pattern.length - 1) return concrete.length >= i ? score : -1
    if (i >= concrete.length) return -1
    if (s.kind === 'literal') {
      if (s.text !== concrete[i]) return -1
      score++
    } else if (concrete[i] === '') {
      return -1
    }
  }
  return pattern.length === concrete.length ? score : -1
}

/** @param {string} text */
function decoded (text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * The plan: every route of every source, once, in order (discovery's, then the documents' new ones,
 * then the named new ones), each with the path it will be sent to or the reason it will not.
 * @param {object} o
 * @param {readonly FoundRoute[]} [o.found]         discovery's routes
 * @param {readonly DocumentRoute[]} [o.documents]  --openapi's and --har's
 * @param {Record<string, string>} [o.params]       --param's (parseParamOption)
 * @param {boolean} [o.allowWrites]                  --allow-writes
 * @param {readonly AppRoute[]} [o.named]           --request / --path routes (parseAppRequests)
 * @returns {PlannedRoute[]}
 */
export function planScan ({ found = [], documents = [], params = {}, allowWrites = false, named = [] }) {
  /** @type {Entry[]} */
  const entries = []
  /** @type {Map<string, Entry>} */
  const byShape = new Map()
  /** @type {Map<string, Map<number, string>>} each path shape's examples, whatever the method */
  const byPath = new Map()
  /**
   * @param {string} method
   * @param {string} pattern
   * @param {Segment[]} segments
   * @returns {Entry}
   */
  const add = (method, pattern, segments) => {
    const path = shapeKey('', segments)
    const shared = byPath.get(path) ?? new Map()
    byPath.set(path, shared)
    /** @type {Entry} */
    const entry = { method, pattern, segments, from: [], declared: null, names: new Map(), examples: new Map(), shared, concrete: null, query: '', headers: undefined, body: undefined, named: null, label: null }
    entries.push(entry)
    byShape.set(shapeKey(method, segments), entry)
    return entry
  }
  /**
   * The entry a concrete path fits best, if any.
   * @param {string} method
   * @param {string[]} concrete
   */
  const fitting = (method, concrete) => {
    /** @type {Entry|null} */
    let best = null
    let bestScore = -1
    for (const e of entries) {
      if (e.method !== method) continue
      const score = fit(e.segments, concrete)
      if (score > bestScore) { best = e; bestScore = score }
    }
    return best
  }

  for (const r of found) {
    const method = r.method.toUpperCase() === 'ALL' ? 'GET' : r.method.toUpperCase()
    const segments = patternSegments(r.path)
    const entry = byShape.get(shapeKey(method, segments)) ?? add(method, r.path, segments)
    addSource(entry, r.framework)
    nameParams(entry, segments)
    if (entry.declared === null && r.file !== undefined && r.line !== undefined) entry.declared = { file: r.file, line: r.line }
  }

  for (const d of documents) {
    const method = d.method.toUpperCase()
    const segments = patternSegments(d.path)
    let entry = byShape.get(shapeKey(method, segments))
    const concrete = concreteSegments(segments, d.params ?? {})
    if (entry === undefined && concrete !== null) {
      entry = fitting(method, concrete) ?? undefined
      // a wildcard route takes one concrete path; the next ones a document gives are routes of their
      // own, rather than lost in it (a catch-all serves many pages)
      if (entry !== undefined && entry.concrete !== null) entry = undefined
      if (entry !== undefined) takeConcrete(entry, concrete)
    }
    if (entry === undefined) entry = add(method, d.path, segments)
    addSource(entry, d.from)
    if (entry.segments === segments || shapeKey(method, entry.segments) === shapeKey(method, segments)) {
      nameParams(entry, segments)
      for (const [i, s] of segments.entries()) {
        const value = s.kind === 'param' ? d.params?.[s.name] : undefined
        if (value !== undefined && !entry.examples.has(i)) entry.examples.set(i, value)
        if (value !== undefined && !entry.shared.has(i)) entry.shared.set(i, value)
      }
    }
    if (entry.query === '' && d.query) entry.query = d.query
    if (entry.headers === undefined && d.headers !== undefined && d.headers.length > 0) entry.headers = [...d.headers]
    if (entry.body === undefined && d.body !== undefined) entry.body = { ...d.body }
  }

  for (const r of named) {
    const method = r.method.toUpperCase()
    const [pathPart] = r.path.split('?')
    const segments = patternSegments(pathPart)
    let entry = byShape.get(shapeKey(method, segments))
    if (entry === undefined && segments.every((s) => s.kind === 'literal')) {
      entry = fitting(method, pathPart.split('/')) ?? undefined
    }
    if (entry !== undefined && entry.named !== null) {
      // a second named route of one pattern (another id, other credentials) is planned on its own,
      // its label its name (parseAppRequests keeps those distinct); a label is shown and saved
      // everywhere, so a credential in its query is starred, with its digest to keep two apart
      const second = add(method, pathPart, segments)
      second.label = r.name ?? redactUrl(`${method} ${r.path}`, true)
      Object.assign(second, { pattern: entry.pattern, names: entry.names, examples: entry.examples, shared: entry.shared, declared: entry.declared })
      second.from.push(...entry.from.filter((f) => f !== 'request'))
      byShape.set(shapeKey(method, entry.segments), entry)
      entry = second
    }
    if (entry === undefined) entry = add(method, pathPart, segments)
    addSource(entry, 'request')
    entry.named = r
  }

  return entries.map((e) => planned(e, params, allowWrites))
}

/** @param {Entry} entry @param {string} source */
function addSource (entry, source) {
  if (!entry.from.includes(source)) entry.from.push(source)
}

/**
 * Record the names a source gives the entry's parameter positions.
 * @param {Entry} entry
 * @param {Segment[]} segments the source's, of the entry's shape
 */
function nameParams (entry, segments) {
  for (const [i, s] of segments.entries()) {
    if (s.kind !== 'param' && s.kind !== 'optional') continue
    const names = entry.names.get(i) ?? new Set()
    names.add(s.name)
    entry.names.set(i, names)
  }
}

/**
 * A document's path as concrete segments: its parameters at their examples, null when one has none
 * or the path has a wildcard.
 * @param {Segment[]} segments
 * @param {Record<string, string>} values
 * @returns {string[]|null}
 */
function concreteSegments (segments, values) {
  /** @type {string[]} */
  const out = []
  for (const s of segments) {
    if (s.kind === 'literal') out.push(s.text)
    else if (s.kind === 'param' && values[s.name] !== undefined) out.push(encodeURIComponent(values[s.name]))
    else if (s.kind !== 'optional') return null
  }
  return out
}

/**
 * A concrete path that fits an entry: its values become the examples of the entry's parameters, and
 * the whole path the entry's own when the entry has a wildcard.
 * @param {Entry} entry
 * @param {string[]} concrete
 */
function takeConcrete (entry, concrete) {
  const pattern = entry.segments.filter((s) => s.kind !== 'optional')
  if (pattern.some((s) => s.kind === 'wildcard')) {
    if (entry.concrete === null) entry.concrete = concrete.join('/')
    return
  }
  let i = 0
  for (const [k, s] of entry.segments.entries()) {
    if (s.kind === 'optional') continue
    if (s.kind === 'param' && !entry.examples.has(k)) entry.examples.set(k, decoded(concrete[i]))
    if (s.kind === 'param' && !entry.shared.has(k)) entry.shared.set(k, decoded(concrete[i]))
    i++
  }
}

/**
 * @param {Entry} e
 * @param {Record<string, string>} params
 * @param {boolean} allowWrites
 * @returns {PlannedRoute}
 */
function planned (e, params, allowWrites) {
  const key = e.label ?? `${e.method} ${e.pattern}`
  const named = e.named
  const headers = named !== null ? named.headers : e.headers
  const body = named !== null
    ? (named.body !== undefined ? { contentType: named.contentType ?? 'text/plain', text: named.body.toString('utf8') } : undefined)
    : e.body
  /** @type {PlannedRoute} */
  const route = { key, method: e.method, pattern: e.pattern, path: null, from: e.from, declared: e.declared, skipped: null }
  if (headers !== undefined && headers.length > 0) route.headers = [...headers]
  if (body !== undefined) route.body = body
  const refused = safety(e, body !== undefined, allowWrites)
  if (refused !== null) return { ...route, skipped: refused }
  const filled = named !== null ? fillNamed(e, named.path, params) : fillPattern(e, params)
  if ('skipped' in filled) return { ...route, skipped: filled.skipped }
  return { ...route, path: filled.path }
}

/**
 * Why a route's method keeps it from being sent, or null.
 * @param {Entry} e
 * @param {boolean} hasBody
 * @param {boolean} allowWrites
 * @returns {{ reason: string, flag?: string }|null}
 */
function safety (e, hasBody, allowWrites) {
  const m = e.method
  const named = e.named !== null
  if (m === 'GET' || m === 'HEAD') return null
  if (BODY_METHODS.has(m)) {
    if (!allowWrites) return { reason: `a write (${m})`, flag: '--allow-writes' }
    if (!hasBody) return { reason: 'a write with no body', flag: `--request "${m} ${e.pattern}" -p FILE` }
    return null
  }
  if (m === 'DELETE') {
    if (!named) return { reason: 'DELETE runs only when named by --request', flag: `--request "DELETE ${e.pattern}"${allowWrites ? '' : ' --allow-writes'}` }
    if (!allowWrites) return { reason: 'a write (DELETE)', flag: '--allow-writes' }
    return null
  }
  if (named) return null
  return { reason: `${m} is sent only when named by --request`, flag: `--request "${m} ${e.pattern}"` }
}

/**
 * The path a route's pattern becomes: its parameters filled, its optional ones left out, its wildcard
 * replaced by a concrete path a document gave; or why it cannot be.
 * @param {Entry} e
 * @param {Record<string, string>} params
 * @returns {{ path: string } | { skipped: { reason: string, flag?: string } }}
 */
function fillPattern (e, params) {
  const query = e.query === '' ? '' : `?${e.query}`
  if (e.concrete !== null) return { path: e.concrete + query }
  if (e.segments.some((s) => s.kind === 'wildcard')) {
    return { skipped: { reason: 'a wildcard path', flag: `--request "${e.method} ${e.pattern.replace(/\*.*$|\(\.\*\).*$|:[\w$.-]+[*+].*$|\{[\w$.-]+\*\d*\}.*$/, '...')}"` } }
  }
  return fillSegments(e, e.segments, params, query)
}

/**
 * A named route's path, any parameter in it (--request "GET /users/:id") filled as a pattern's.
 * @param {Entry} e
 * @param {string} path
 * @param {Record<string, string>} params
 * @returns {{ path: string } | { skipped: { reason: string, flag?: string } }}
 */
function fillNamed (e, path, params) {
  const q = path.indexOf('?')
  const [pathPart, query] = q === -1 ? [path, ''] : [path.slice(0, q), path.slice(q)]
  const segments = patternSegments(pathPart)
  if (segments.every((s) => s.kind === 'literal')) return { path }
  if (segments.some((s) => s.kind === 'wildcard')) return { skipped: { reason: 'a wildcard path', flag: `--request "${e.method} ${pathPart}"` } }
  return fillSegments(e, segments, params, query)
}

/**
 * @param {Entry} e
 * @param {Segment[]} segments
 * @param {Record<string, string>} params
 * @param {string} query with its "?", or ''
 * @returns {{ path: string } | { skipped: { reason: string, flag?: string } }}
 */
function fillSegments (e, segments, params, query) {
  /** @type {string[]} */
  const parts = []
  /** @type {string[]} */
  const missing = []
  for (const [i, s] of segments.entries()) {
    if (s.kind === 'literal') parts.push(s.text)
    else if (s.kind === 'param') {
      const names = [s.name, ...(e.names.get(i) ?? [])]
      const given = names.find((n) => Object.hasOwn(params, n))
      const value = given !== undefined ? params[given] : e.examples.get(i) ?? e.shared.get(i)
      if (value === undefined) missing.push(s.name)
      else parts.push(encodeURIComponent(value))
    }
  }
  if (missing.length > 0) {
    return { skipped: { reason: `needs ${missing.map((n) => `:${n}`).join(' and ')}`, flag: missing.map((n) => `--param ${n}=VALUE`).join(' ') } }
  }
  return { path: (parts.join('/') || '/') + query }
}

/**
 * The plan as printed before anything is sent (and by --dry-run): a line saying how many routes are
 * sent and skipped, then one per route: its key, then what will be sent (the path, its query's
 * credentials starred; the names of its headers, never their values; its body's type and size) or
 * why it is skipped and the flag that would send it. Lines fit `width` columns: a long key loses its
 * middle, a long reason wraps under itself, a flag too long to sit beside the key has a line of its own.
 * @param {readonly PlannedRoute[]} plan
 * @param {{ width?: number }} [options]
 * @returns {string[]}
 */
export function planText (plan, { width = TEXT_WIDTH } = {}) {
  const sent = plan.filter((r) => r.skipped === null).length
  const skipped = plan.length - sent
  const lines = [wrap(`The plan: ${count(plan.length, 'route')}, ${sent} to send one at a time, ${skipped} skipped.`, width)]
  const keyWidth = Math.min(KEY_MAX, Math.max(0, ...plan.map((r) => r.key.length)))
  const indent = ' '.repeat(2 + keyWidth + 2)
  const room = width - indent.length
  for (const r of plan) {
    const flag = r.skipped?.flag === undefined ? '' : `(${r.skipped.flag})`
    // a flag too long for the column beside the key goes on a line of its own, under the route
    const flagApart = flag.length > room - 2
    // the request line stays whole on its line, its path cut in the middle if it alone is too long
    const what = r.skipped === null
      ? sentText(r, room)
      : `skipped: ${r.skipped.reason}${flag === '' || flagApart ? '' : ` ${flag.replace(/ /g, NBSP)}`}`
    const text = wrap(what, room, '  ').split('\n').map((l) => cutMiddle(l.replace(/\u00a0/g, ' '), room))
    lines.push(`  ${cutMiddle(r.key, keyWidth).padEnd(keyWidth)}  ${text[0]}`.trimEnd())
    for (const more of text.slice(1)) lines.push(indent + more)
    if (flag !== '' && flagApart) lines.push(`    ${cutMiddle(flag, width - 4)}`)
  }
  return lines.flatMap((l) => l.split('\n'))
}

/**
 * What a planned route sends, in words: "GET /users/42?limit=10, headers Accept, Cookie, a 24-byte
 * application/json body", the request line held together by no-break spaces (wrap breaks elsewhere).
 * @param {PlannedRoute} r
 * @param {number} room the columns a line has
 */
function sentText (r, room) {
  const path = redactUrl(r.path ?? r.pattern)
  const parts = [`${r.method}${NBSP}${cutMiddle(path, Math.max(8, room - r.method.length - 2)).replace(/ /g, NBSP)}`]
  if (r.headers !== undefined && r.headers.length > 0) {
    parts.push(`header${r.headers.length === 1 ? '' : 's'} ${r.headers.map((h) => h.slice(0, h.indexOf(':')).trim()).join(', ')}`)
  }
  if (r.body !== undefined) parts.push(`a ${Buffer.byteLength(r.body.text)}-byte ${r.body.contentType} body`)
  return parts.join(', ')
}

/** @param {number} n @param {string} word */
function count (n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
