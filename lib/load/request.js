// The request bytes, built once per run exactly as ab 2.3 writes them (support/ab.c, test()):
// request line, [Connection], Cookie, auth lines, [Content-length, Content-type], the -H lines,
// then whichever of Host, User-Agent and Accept no -H line replaced, then the blank line and the body.
import net from 'node:net'
import { InvalidUrlError } from '../errors.js'

/**
 * @typedef {object} Target
 * @property {string} hostname   as ab prints it ("Server Hostname"), IPv6 without brackets
 * @property {string} hostField  as the Host header writes it, IPv6 in brackets
 * @property {number} port
 * @property {string} path       everything after the authority, byte for byte (ab does not normalise it)
 * @property {boolean} tls       an https:// URL
 */

/**
 * Split an http:// or https:// URL the way ab's parse_url does: the authority up to the first "/",
 * the raw rest as the path. A URL without a path gets "/" (ab refuses it; the CLI decides what to accept).
 * @param {string} url
 * @returns {Target}
 */
export function parseTarget (url) {
  const scheme = typeof url === 'string' ? /^https?:\/\//i.exec(url) : null
  if (scheme === null) {
    throw new InvalidUrlError(`url must be an http:// or https:// URL, got "${url}"`)
  }
  // new URL() below drops a CR or LF silently; the path is sent byte for byte and would carry them
  if (/[\r\n]/.test(url)) throw new InvalidUrlError(`url must be on one line, got "${JSON.stringify(url).slice(1, -1)}"`)
  const tls = scheme[0].length === 8
  const rest = url.slice(scheme[0].length)
  const slash = rest.indexOf('/')
  const authority = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? '/' : rest.slice(slash)
  let parsed
  try {
    parsed = new URL(`http://${authority}/`)
  } catch {
    throw new InvalidUrlError(`url has an invalid host or port, got "${url}"`)
  }
  if (parsed.username || parsed.password || !parsed.hostname) {
    throw new InvalidUrlError(`url has an invalid host or port, got "${url}"`)
  }
  const hostField = parsed.hostname
  const hostname = hostField.startsWith('[') ? hostField.slice(1, -1) : hostField
  const port = parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port)
  return { hostname, hostField, port, path, tls }
}

/** @param {string} line @param {string} name lower case, with the colon */
function startsWithName (line, name) {
  return line.slice(0, name.length).toLowerCase() === name
}

/**
 * The value of the Authorization header of -A (and of Proxy-Authorization of -P), as ab writes it: ab
 * strips leading white space from the credentials, then encodes their bytes in base64.
 * @param {string} credentials "user:password"
 */
export function basicAuth (credentials) {
  return `Basic ${Buffer.from(credentials.replace(/^\s+/, ''), 'latin1').toString('base64')}`
}

/**
 * The request head as a string (latin1), for tests and -v: see buildRequest.
 * @param {import('./options.js').NormalizedLoadOptions} options normalised (see loadtest.js)
 * @param {Target} target
 */
export function requestHead (options, target) {
  const method = options.method
  const http11 = options.http11 === true
  let head = `${method} ${target.path} HTTP/1.${http11 ? 1 : 0}\r\n`
  if (http11) {
    // Keep-alive is HTTP/1.1's default: only its absence needs saying.
    if (!options.keepAlive) head += 'Connection: close\r\n'
  } else if (options.keepAlive) {
    head += 'Connection: Keep-Alive\r\n'
  }
  // The contract joins every -C into one Cookie header; ab itself keeps only the last -C.
  if (options.cookies.length > 0) head += `Cookie: ${options.cookies.join('; ')}\r\n`
  if (options.auth !== undefined) head += `Authorization: ${basicAuth(options.auth)}\r\n`
  if (options.proxyAuth !== undefined) head += `Proxy-Authorization: ${basicAuth(options.proxyAuth)}\r\n`
  if (options.body) {
    // ab's spelling, lower-case "length" and "type".
    head += `Content-length: ${options.body.length}\r\n`
    head += `Content-type: ${options.contentType ?? 'text/plain'}\r\n`
  }
  let hasHost = false
  let hasAgent = false
  let hasAccept = false
  for (const line of options.headers) {
    head += `${line}\r\n`
    if (startsWithName(line, 'host:')) hasHost = true
    else if (startsWithName(line, 'accept:')) hasAccept = true
    else if (startsWithName(line, 'user-agent:')) hasAgent = true
  }
  // ab's colonhost: the port unless it is the scheme's default
  if (!hasHost) head += `Host: ${target.hostField}${target.port === (target.tls ? 443 : 80) ? '' : `:${target.port}`}\r\n`
  if (!hasAgent) head += 'User-Agent: ApacheBench/2.3\r\n'
  if (!hasAccept) head += 'Accept: */*\r\n'
  return head + '\r\n'
}

/**
 * The whole request (head and body) in one Buffer, written as is for every request of the run.
 * @param {import('./options.js').NormalizedLoadOptions} options normalised (see loadtest.js)
 * @param {Target} target
 * @returns {Buffer}
 */
export function buildRequest (options, target) {
  const head = Buffer.from(requestHead(options, target), 'latin1')
  return options.body ? Buffer.concat([head, options.body]) : head
}

/** @param {string} hostname */
export function isIpAddress (hostname) {
  return net.isIP(hostname) !== 0
}
