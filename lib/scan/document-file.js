// The documents scan reads routes from (--openapi, --har): read whole as input files are, parsed as
// JSON or YAML, and refused in one line naming the flag, the file, the line and the reason. Both
// formats' nodes can be found again by JSON pointer, so an error found after parsing (an OpenAPI
// document that is not valid, a HAR without entries) names its line too.
//
// JSON.parse is the JSON parser: the yaml package reads JSON as YAML 1.2 and accepts what JSON does
// not ({"a": } is a mapping with a null there). V8 gives the position of most JSON errors and not of
// "Unexpected token": that one is found as the shortest start of the text that already fails.
import path from 'node:path'
import { LineCounter, parseDocument, isMap, isSeq, isPair, isScalar } from 'yaml'
import { InvalidOptionError } from '../errors.js'
import { readInputFile } from '../fs-input.js'

/**
 * A document read and parsed.
 * @typedef {object} DocumentFile
 * @property {string} flag   the option that named it: --openapi, --har
 * @property {string} file   as given
 * @property {string} text
 * @property {unknown} data  the parsed value
 */

/**
 * The error of a document that scan cannot use: "--openapi api.yaml:12: reason" (no line when none
 * is known). A usage error (exit 2): the file is what the user gave.
 * @param {string} flag
 * @param {string} file
 * @param {number|null} line 1-based
 * @param {string} reason one line
 * @param {unknown} [cause]
 */
export function documentError (flag, file, line, reason, cause) {
  const where = line === null ? file : `${file}:${line}`
  return new InvalidOptionError(`${flag} ${where}: ${reason.replace(/\s*\n\s*/g, ' ')}`, cause === undefined ? undefined : { cause })
}

/**
 * Read `file` and parse it: as JSON when asked (a HAR file is JSON whatever its name), when its name
 * ends in .json, or when it does not end in .yaml or .yml and its first character opens a JSON object
 * or array (a YAML document rarely starts so); as YAML otherwise.
 * @param {string} flag
 * @param {string} file
 * @param {{ json?: boolean }} [options]
 * @returns {Promise<DocumentFile>}
 */
export async function readDocument (flag, file, { json: onlyJson = false } = {}) {
  const raw = await readInputFile(file, { fail: (message, cause) => documentError(flag, file, null, message, cause) })
  // a UTF-8 byte order mark (Windows editors write one) is not part of the document
  const text = raw.replace(/^\uFEFF/, '')
  const ext = path.extname(file).toLowerCase()
  const json = onlyJson || ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && /^\s*[[{]/.test(text))
  return { flag, file, text, data: json ? parseJson(flag, file, text) : parseYaml(flag, file, text) }
}

/**
 * @param {string} flag
 * @param {string} file
 * @param {string} text
 * @returns {unknown}
 */
function parseJson (flag, file, text) {
  try {
    return JSON.parse(text)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    const at = jsonErrorOffset(text, err.message)
    throw documentError(flag, file, lineAt(text, at), `not JSON: ${jsonReason(err.message)}`, err)
  }
}

/**
 * V8's message without what a line number says better: its position and line, or its quote of the text.
 * "Unexpected token '}', "{"a": }" is not valid JSON" -> "Unexpected token '}'" (a long text's quote
 * starts with "...").
 * @param {string} message
 */
function jsonReason (message) {
  return message.replace(/ (in JSON )?at position \d+.*$/s, '').replace(/^(Unexpected token .*?), (\.\.\.)?".*$/s, '$1')
}

/**
 * The offset of a JSON syntax error: V8's position when it gives one, else the end of the shortest
 * start of the text that fails other than by ending early (a start that fails so fails at the same
 * character in every longer one, so the search halves).
 * @param {string} text
 * @param {string} message the error's
 */
function jsonErrorOffset (text, message) {
  const position = / at position (\d+)/.exec(message)
  if (position !== null) return Number(position[1])
  if (/Unexpected end of JSON input/.test(message)) return text.length
  /** @param {number} n */
  const failsWithin = (n) => {
    try {
      JSON.parse(text.slice(0, n))
      return false
    } catch (err) {
      const m = String(/** @type {Error} */ (err).message)
      if (/Unexpected end of JSON input/.test(m)) return false
      const at = / at position (\d+)/.exec(m)
      // an error at the very end of the start is the start ending early, not the text failing
      return at === null || Number(at[1]) < n
    }
  }
  let lo = 1
  let hi = text.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (failsWithin(mid)) hi = mid
    else lo = mid + 1
  }
  return lo - 1
}

/**
 * The 1-based line of an offset.
 * @param {string} text
 * @param {number} offset
 */
export function lineAt (text, offset) {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * @param {string} flag
 * @param {string} file
 * @param {string} text
 * @returns {unknown}
 */
function parseYaml (flag, file, text) {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false })
  const first = doc.errors[0]
  if (first !== undefined) {
    throw documentError(flag, file, lines.linePos(first.pos[0]).line, `not YAML: ${first.message}`, first)
  }
  // toJS refuses an alias expanded past its limit (a "billion laughs" document) as an error
  try {
    return doc.toJS()
  } catch (err) {
    throw documentError(flag, file, null, `not YAML: ${/** @type {Error} */ (err).message}`, err)
  }
}

/**
 * The line of the node a JSON pointer names in the document's text, or of the deepest node on its way
 * that exists (a pointer into a $ref's target ends at the $ref). JSON is read here as YAML, for its
 * positions: the text parsed already, so both read it alike.
 * @param {string} text
 * @param {readonly string[]} pointer the pointer's tokens, unescaped
 * @returns {number|null} 1-based, null when not even the first token is found
 */
export function lineOfPointer (text, pointer) {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false })
  /** @type {unknown} */
  let node = doc.contents
  /** @type {number|null} */
  let found = null
  for (const token of pointer) {
    /** @type {unknown} */
    let next
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === token)
      if (pair !== undefined && isScalar(pair.key) && pair.key.range) found = lines.linePos(pair.key.range[0]).line
      next = pair?.value
    } else if (isSeq(node) && /^\d+$/.test(token)) {
      next = node.items[Number(token)]
      const range = /** @type {{ range?: [number, number, number] | null }} */ (next ?? {}).range
      if (range) found = lines.linePos(range[0]).line
    }
    if (next === undefined || next === null) break
    node = next
  }
  return found
}

/**
 * The line of the first `"key": value` pair, at any depth, whose value is the given string: where a
 * broken $ref is written.
 * @param {string} text
 * @param {string} key
 * @param {string} value
 * @returns {number|null}
 */
export function lineOfPair (text, key, value) {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false })
  /** @type {number|null} */
  let found = null
  /** @param {unknown} node */
  const visit = (node) => {
    if (found !== null) return
    if (isMap(node)) {
      for (const p of node.items) {
        if (isScalar(p.key) && p.key.value === key && isScalar(p.value) && p.value.value === value && p.key.range) {
          found = lines.linePos(p.key.range[0]).line
          return
        }
        visit(p.value)
      }
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item)
    }
  }
  visit(doc.contents)
  return found
}

/**
 * The JSON pointer of the node that starts on a line of a JSON text: a member's key, or an array's
 * element; the outermost one when several start there ("get": { names the member, not its object).
 * @param {string} text
 * @param {number} line 1-based
 * @returns {string[]|null} the pointer's tokens
 */
export function pointerAtLine (text, line) {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false })
  /** @param {{ range?: [number, number, number] | null } | null | undefined} node */
  const startLine = (node) => node?.range ? lines.linePos(node.range[0]).line : null
  /** @param {{ range?: [number, number, number] | null } | null | undefined} node */
  const endLine = (node) => node?.range ? lines.linePos(node.range[1]).line : null
  /**
   * @param {unknown} node
   * @param {string[]} at
   * @returns {string[]|null}
   */
  const find = (node, at) => {
    if (isMap(node)) {
      for (const p of node.items) {
        const key = isScalar(p.key) ? String(p.key.value) : ''
        if (startLine(/** @type {any} */ (p.key)) === line) return [...at, key]
        const end = endLine(/** @type {any} */ (p.value))
        if (end !== null && end >= line) return find(p.value, [...at, key])
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) {
        if (startLine(/** @type {any} */ (item)) === line) return [...at, String(i)]
        const end = endLine(/** @type {any} */ (item))
        if (end !== null && end >= line) return find(item, [...at, String(i)])
      }
    }
    return null
  }
  return find(doc.contents, [])
}

/**
 * A pointer's tokens written as a JSON pointer: "/paths/~1users~1{id}/get".
 * @param {readonly string[]} tokens
 */
export function pointerText (tokens) {
  return tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('')
}
