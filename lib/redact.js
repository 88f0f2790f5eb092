// The one rule for the credentials a user passes: what syncbench writes or prints shows `***` in their
// place. The requests themselves are never touched; redaction happens where data leaves: the options a
// LoadResult echoes, the argv recorded in results.json and shown on report.html, the document path
// of ab's report, the labels of routes, and the text the CLI prints.
//
// What counts as a credential: -A and -P (basic auth, proxy auth), -C (each cookie's value), the
// values of the headers in SECRET_HEADERS and of those named by --secret-header, a URL's user info,
// and the query parameters in SECRET_PARAMS.
//
// Where a value decides whether two results measured the same thing (syncbench merge refuses parts
// whose headers differ), the structured copy keeps a digest beside the stars, `***~1a2b3c4d`: the
// first 32 bits of scrypt(value, salt). scrypt rather than a plain hash, because a password given to -A
// may be short enough to guess: each guess costs milliseconds of memory-hard work instead of
// nanoseconds. The salt is SYNCBENCH_SECRET_SALT when set, else a constant of syncbench's; it cannot be
// random per file, since two runs made apart (the shards of one distributed run, on other machines)
// must give the same digest for the same credential. With SYNCBENCH_SECRET_SALT set to a value kept
// as secret as the credentials (docs/formats.md), the digest cannot be checked against guesses at all
// by whoever reads the file. 32 bits tell two credentials apart (a chance in 4 billion of two giving
// one digest) and say little more about a long one: many values share each digest.
import { createRequire } from 'node:module'

/** Headers whose value is a credential (lower case). */
export const SECRET_HEADERS = Object.freeze(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token'])
/** Query parameters whose value is a credential (lower case). */
export const SECRET_PARAMS = Object.freeze(['token', 'access_token', 'api_key', 'key', 'sig'])
/** What stands for a credential. */
export const STARS = '***'

/** Headers whose value keeps its first word (the scheme: `Basic ***`, `Bearer ***`). */
const SCHEMED = new Set(['authorization', 'proxy-authorization'])
/** A value redacted already, with or without its digest: left as it is, so redaction can be repeated. */
const REDACTED = /^\*\*\*(~[0-9a-f]{8})?$/
/** The shortest credential starred in free text (secretsOfArgv). */
const MIN_SCRUBBED = 8
/** The salt of the digest when SYNCBENCH_SECRET_SALT is not set. */
const DEFAULT_SALT = 'syncbench/secret-digest/1'
/** scrypt's cost: 2^12 blocks of 128 * 8 bytes, 4 MiB and 5 to 20 ms a value (a run pays it once per credential, after its load). */
const SCRYPT = Object.freeze({ N: 1 << 12, r: 8, p: 1 })

/** @type {Map<string, string>} each value's digest, computed once per process and salt */
const digests = new Map()

/**
 * The stars standing for a value, with its digest when asked (`***~1a2b3c4d`).
 * @param {string} value
 * @param {boolean} [digest]
 * @returns {string}
 */
export function redactValue (value, digest = false) {
  if (REDACTED.test(value)) return value
  return digest ? `${STARS}~${digestOf(value)}` : STARS
}

/**
 * The first 32 bits of scrypt(value, salt) in hex (the comment at the top says why).
 * @param {string} value
 */
export function digestOf (value) {
  const salt = process.env.SYNCBENCH_SECRET_SALT || DEFAULT_SALT
  const key = `${salt}\0${value}`
  let hex = digests.get(key)
  if (hex === undefined) {
    // node:crypto loaded on the first credential only: its start-up CPU is not every ab run's to pay
    const { scryptSync } = /** @type {typeof import('node:crypto')} */ (createRequire(import.meta.url)('node:crypto'))
    hex = scryptSync(value, salt, 4, SCRYPT).toString('hex')
    digests.set(key, hex)
  }
  return hex
}

/**
 * The header names whose values are credentials: the common ones and the user's (--secret-header).
 * @param {readonly string[]} [extra]
 * @returns {Set<string>}
 */
export function secretHeaderSet (extra = []) {
  return new Set([...SECRET_HEADERS, ...extra.map((n) => n.trim().toLowerCase())])
}

/**
 * A header line "Name: value" with a credential's value starred; any other line as it is.
 * Authorization keeps its scheme: `Authorization: Basic ***`.
 * @param {string} line
 * @param {Set<string>} secret  lower-case names (secretHeaderSet)
 * @param {boolean} [digest]
 */
export function redactHeader (line, secret, digest = false) {
  const colon = line.indexOf(':')
  if (colon <= 0) return line
  const name = line.slice(0, colon)
  const lower = name.trim().toLowerCase()
  if (!secret.has(lower)) return line
  const value = line.slice(colon + 1).trim()
  if (lower === 'cookie' || lower === 'set-cookie') return `${name}: ${redactCookies(value, digest)}`
  const scheme = SCHEMED.has(lower) ? /^([A-Za-z][\w.+-]*)\s+(\S.*)$/.exec(value) : null
  if (scheme !== null) return `${name}: ${scheme[1]} ${redactValue(scheme[2], digest)}`
  return `${name}: ${redactValue(value, digest)}`
}

/**
 * A -H value as an error quotes it, well formed or not: a line with no "Name:" cannot say which part
 * is the value, so all but its first word is starred ("X-Api-Key ***"), and a single word wholly.
 * @param {string} line
 */
export function redactHeaderLine (line) {
  if (line.indexOf(':') > 0) return redactHeader(line, secretHeaderSet())
  const word = /^\s*\S+/.exec(line)
  if (word === null) return line
  return word[0].length === line.length ? STARS : `${word[0]} ${STARS}`
}

/**
 * Cookies "a=1; b=2" (a -C value or a Cookie header) with each value starred, the names kept.
 * @param {string} text
 * @param {boolean} [digest]
 */
export function redactCookies (text, digest = false) {
  return text.split(';').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq === -1) return pair.trim() === '' ? pair : redactValue(pair.trim(), digest)
    return `${pair.slice(0, eq)}=${redactValue(pair.slice(eq + 1), digest)}`
  }).join(';')
}

/**
 * A URL, or a path with its query ("/login?token=..."), with its user info and the values of the
 * query parameters named like credentials starred. Anything else stays as written.
 * @param {string} url
 * @param {boolean} [digest]
 */
export function redactUrl (url, digest = false) {
  let out = url
  // scheme://user:pass@host (or ab's host without a scheme): the user info is what precedes the
  // last "@" of the authority
  const authority = out.startsWith('/') ? null : /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#\s]*)/i.exec(out)
  if (authority !== null) {
    const at = authority[2].lastIndexOf('@')
    if (at !== -1) out = (authority[1] ?? '') + redactValue(authority[2].slice(0, at), digest) + out.slice(authority[0].length - authority[2].length + at)
  }
  const query = out.indexOf('?')
  if (query === -1) return out
  const hash = out.indexOf('#', query)
  const end = hash === -1 ? out.length : hash
  const params = out.slice(query + 1, end).split('&').map((param) => {
    const eq = param.indexOf('=')
    if (eq === -1) return param
    let name = param.slice(0, eq)
    try { name = decodeURIComponent(name.replace(/\+/g, ' ')) } catch {}
    return SECRET_PARAMS.includes(name.toLowerCase()) ? `${param.slice(0, eq)}=${redactValue(param.slice(eq + 1), digest)}` : param
  })
  return out.slice(0, query + 1) + params.join('&') + out.slice(end)
}

/**
 * @typedef {{ headers?: readonly string[], cookies?: readonly string[], auth?: string, proxyAuth?: string }} RequestCredentials
 *   what a request's options may carry as credentials: the run's, or one route's of a mix
 */

/**
 * The load options as a LoadResult echoes them: every credential starred with its digest (merge
 * compares them), the request itself unchanged; a mix's routes alike, each with its own path, name
 * and request options. Any object with these optional fields.
 * @template {RequestCredentials & { url?: string, secretHeaders?: readonly string[], routes?: readonly (RequestCredentials & { path: string, name?: string })[] }} T
 * @param {T} options
 * @returns {T}
 */
export function redactLoadOptions (options) {
  const secret = secretHeaderSet(options.secretHeaders)
  const out = redactCredentials(options, secret)
  if (out.url !== undefined) out.url = redactUrl(out.url, true)
  if (out.routes !== undefined) {
    out.routes = out.routes.map((r) => {
      const route = { ...redactCredentials(r, secret), path: redactUrl(r.path, true) }
      if (r.name !== undefined) route.name = redactUrl(r.name)
      return route
    })
  }
  return out
}

/**
 * A copy with the credentials among its request options starred with their digests.
 * @template {RequestCredentials} T
 * @param {T} options
 * @param {Set<string>} secret  the credential headers' names
 * @returns {T}
 */
function redactCredentials (options, secret) {
  const out = { ...options }
  if (out.headers !== undefined) out.headers = out.headers.map((h) => redactHeader(h, secret, true))
  if (out.cookies !== undefined) out.cookies = out.cookies.map((c) => redactCookies(c, true))
  if (out.auth !== undefined) out.auth = redactValue(out.auth, true)
  if (out.proxyAuth !== undefined) out.proxyAuth = redactValue(out.proxyAuth, true)
  return out
}

/**
 * A request's head as ab -v 2 shows it: the request line's query and the credential headers starred.
 * @param {string} head  "GET /path HTTP/1.0\r\nName: value\r\n..."
 * @param {readonly string[]} [secretHeaders]  --secret-header's names
 */
export function redactRequestHead (head, secretHeaders) {
  const secret = secretHeaderSet(secretHeaders)
  return head.split('\r\n').map((line, i) => {
    if (i > 0) return redactHeader(line, secret)
    const parts = line.split(' ')
    if (parts.length > 1) parts[1] = redactUrl(parts[1])
    return parts.join(' ')
  }).join('\r\n')
}

/**
 * An HTTP/2 request's headers as -v 2 shows them under --http2, a line each (pseudo-headers first; no
 * CRLF: HTTP/2 has no header text):
 * :path's query and the credential headers starred, as redactRequestHead does.
 * @param {import('node:http2').OutgoingHttpHeaders} headers
 * @param {readonly string[]} [secretHeaders]  --secret-header's names
 */
export function redactHttp2Headers (headers, secretHeaders) {
  const secret = secretHeaderSet(secretHeaders)
  const lines = []
  const pseudoFirst = Object.entries(headers).sort(([a], [b]) => Number(!a.startsWith(':')) - Number(!b.startsWith(':')))
  for (const [name, value] of pseudoFirst) {
    for (const one of Array.isArray(value) ? value : [value]) {
      lines.push(name === ':path' ? `${name}: ${redactUrl(String(one))}` : redactHeader(`${name}: ${one}`, secret))
    }
  }
  return lines.join('\n')
}

/** The flags whose value is a credential, as typed (ab's and run's spellings). */
const SECRET_FLAGS = new Map([['-A', 'auth'], ['--auth', 'auth'], ['-P', 'auth'], ['--proxy-auth', 'auth'], ['-C', 'cookie'], ['--cookie', 'cookie'], ['-H', 'header'], ['--header', 'header']])
/** The other one-letter flags that take a value (ab's and run's): in a cluster they take the rest. */
const VALUE_FLAGS = new Set('nctsTpuvgemRZf')
const SECRET_HEADER_FLAG = '--secret-header'

/**
 * The credentials a command line holds: the argument holding each, where its value starts in it, and
 * its kind. Reads ab's getopt clusters (`-Auser:pass`), `--flag value` and `--flag=value`.
 * @param {readonly string[]} argv
 */
function argvSecrets (argv) {
  /** @type {{ index: number, start: number, kind: string, value: string }[]} */
  const found = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') break
    /** @type {string|undefined} */
    let kind
    let start = 0
    let index = i
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      kind = SECRET_FLAGS.get(eq === -1 ? arg : arg.slice(0, eq))
      if (kind === undefined) continue
      if (eq === -1) { index = ++i; start = 0 } else start = eq + 1
    } else if (/^-[A-Za-z]/.test(arg)) {
      // a cluster: the first flag of SECRET_FLAGS in it takes the rest, as getopt reads it
      for (let j = 1; j < arg.length; j++) {
        kind = SECRET_FLAGS.get(`-${arg[j]}`)
        if (kind === undefined && VALUE_FLAGS.has(arg[j])) break
        if (kind === undefined) continue
        if (j + 1 < arg.length) start = j + 1
        else { index = ++i; start = 0 }
        break
      }
      if (kind === undefined) continue
    } else continue
    if (index >= argv.length) break
    found.push({ index, start, kind, value: argv[index].slice(start) })
  }
  return found
}

/**
 * The names --secret-header gives on a command line.
 * @param {readonly string[]} argv
 */
export function secretHeaderNames (argv) {
  const names = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === SECRET_HEADER_FLAG && i + 1 < argv.length) names.push(argv[++i])
    else if (argv[i].startsWith(`${SECRET_HEADER_FLAG}=`)) names.push(argv[i].slice(SECRET_HEADER_FLAG.length + 1))
  }
  return names
}

/**
 * A command line as results.json records it and report.html shows it: each credential starred with
 * its digest, everything else as typed. A -H line with no name cannot say which part is the value:
 * it is starred whole.
 * @param {readonly string[]} argv
 * @returns {string[]}
 */
export function redactArgv (argv) {
  const secret = secretHeaderSet(secretHeaderNames(argv))
  // URLs first (a --target, ab's URL, a -H Referer's): the flags below star the rest of their values
  const out = argv.map((arg) => /:\/\/|\?/.test(arg) ? redactUrl(arg, true) : arg)
  for (const { index, start, kind } of argvSecrets(argv)) {
    const value = out[index].slice(start)
    let shown
    if (kind === 'auth') shown = redactValue(value, true)
    else if (kind === 'cookie') shown = redactCookies(value, true)
    else shown = value.indexOf(':') > 0 ? redactHeader(value, secret, true) : redactValue(value, true)
    out[index] = out[index].slice(0, start) + shown
  }
  return out
}

/**
 * The credentials of a command line as raw text, to keep out of what is printed: each value, a
 * basic-auth value's base64 as an Authorization header carries it, a URL's user info and its
 * credential parameters. Values shorter than 8 characters are left out: a password "test" would star
 * every "test" of a report, and what is printed is starred by its writer already (this is the net
 * under the writers, lib/cli/output.js guardOutput).
 * @param {readonly string[]} argv
 * @returns {string[]}
 */
export function secretsOfArgv (argv) {
  const secret = secretHeaderSet(secretHeaderNames(argv))
  /** @type {string[]} */
  const values = []
  for (const { kind, value } of argvSecrets(argv)) {
    if (kind === 'auth') {
      values.push(value, value.trimStart(), Buffer.from(value.trimStart()).toString('base64'))
      const colon = value.indexOf(':')
      if (colon !== -1) values.push(value.slice(colon + 1))
    } else if (kind === 'cookie') {
      for (const pair of value.split(';')) values.push(pair.slice(pair.indexOf('=') + 1).trim())
    } else {
      const colon = value.indexOf(':')
      if (colon <= 0) { values.push(value); continue }
      if (!secret.has(value.slice(0, colon).trim().toLowerCase())) continue
      const v = value.slice(colon + 1).trim()
      values.push(v, v.replace(/^[A-Za-z][\w.+-]*\s+/, ''))
    }
  }
  for (const arg of argv) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(arg)
    if (m !== null) values.push(m[1], ...m[1].split(':'))
    const query = arg.indexOf('?')
    if (query === -1) continue
    for (const param of arg.slice(query + 1).split('#')[0].split('&')) {
      const eq = param.indexOf('=')
      if (eq !== -1 && SECRET_PARAMS.includes(param.slice(0, eq).toLowerCase())) values.push(param.slice(eq + 1))
    }
  }
  // the longest first, so a value inside another is not starred half
  return [...new Set(values.filter((v) => v.length >= MIN_SCRUBBED && !REDACTED.test(v)))].sort((a, b) => b.length - a.length)
}

/**
 * Text with every one of the secrets starred.
 * @param {string} text
 * @param {readonly string[]} secrets  from secretsOfArgv
 */
export function scrubText (text, secrets) {
  let out = text
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(STARS)
  return out
}
