// A throwaway self-signed certificate for `syncbench serve --tls`, made in this process at start.
// Node can make keys and sign but not write an X.509 certificate, so the few DER structures of one are
// written here (RFC 5280): a P-256 key, CN=syncbench, valid from an hour ago for a day, and a
// subjectAltName naming localhost, 127.0.0.1 and ::1 (plus the address bound), so a client that checks
// the name against the certificate finds it. Load generators do not check the chain (ab never does).
import crypto from 'node:crypto'
import net from 'node:net'

/** ecdsa-with-SHA256 (1.2.840.10045.4.3.2) */
const ECDSA_SHA256 = [1, 2, 840, 10045, 4, 3, 2]
const COMMON_NAME = [2, 5, 4, 3]
const SUBJECT_ALT_NAME = [2, 5, 29, 17]
const HOUR_MS = 3600_000

/**
 * @param {string[]} [hosts]  more names or addresses the certificate should name (the --host bound)
 * @returns {{ key: string, cert: string }} PEM
 */
export function selfSignedCertificate (hosts = []) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const algorithm = der(0x30, oid(ECDSA_SHA256))
  const name = der(0x30, der(0x31, der(0x30, oid(COMMON_NAME), der(0x0c, Buffer.from('syncbench')))))
  const now = Date.now()
  const serial = crypto.randomBytes(16)
  // A positive INTEGER: the top bit clear (and not zero, as RFC 5280 asks).
  serial[0] = (serial[0] & 0x7f) | 0x01
  const tbs = der(0x30,
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    algorithm,
    name,
    der(0x30, utcTime(new Date(now - HOUR_MS)), utcTime(new Date(now + 24 * HOUR_MS))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, der(0x30, der(0x30, oid(SUBJECT_ALT_NAME), der(0x04, der(0x30, ...altNames(hosts))))))
  )
  const signature = crypto.sign('sha256', tbs, privateKey)
  const certificate = der(0x30, tbs, algorithm, der(0x03, Buffer.from([0]), signature))
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? []
  return {
    key: /** @type {string} */ (privateKey.export({ type: 'pkcs8', format: 'pem' })),
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`
  }
}

/**
 * GeneralNames: dNSName [2] for a name, iPAddress [7] for an address, each once.
 * @param {string[]} hosts
 */
function altNames (hosts) {
  const all = [...new Set(['localhost', '127.0.0.1', '::1', ...hosts])]
  return all.map((host) => {
    if (net.isIPv4(host)) return der(0x87, Buffer.from(host.split('.').map(Number)))
    if (net.isIPv6(host)) return der(0x87, ipv6Bytes(host))
    return der(0x82, Buffer.from(host, 'ascii'))
  })
}

/**
 * The 16 bytes of an IPv6 address ("::" expanded; an IPv4 tail such as ::ffff:1.2.3.4 read as two groups).
 * @param {string} address
 */
function ipv6Bytes (address) {
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`)
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  const bytes = Buffer.alloc(16)
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2))
  return bytes
}

/**
 * One DER element: tag, definite length, content.
 * @param {number} tag
 * @param {...Buffer} parts
 */
function der (tag, ...parts) {
  const content = Buffer.concat(parts)
  const n = content.length
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff])
  return Buffer.concat([Buffer.from([tag]), length, content])
}

/**
 * An OBJECT IDENTIFIER: the first two arcs in one byte, the others in base 128.
 * @param {number[]} arcs
 */
function oid (arcs) {
  const bytes = [arcs[0] * 40 + arcs[1]]
  for (const arc of arcs.slice(2)) {
    const digits = [arc & 0x7f]
    for (let rest = arc >>> 7; rest > 0; rest >>>= 7) digits.unshift((rest & 0x7f) | 0x80)
    bytes.push(...digits)
  }
  return der(0x06, Buffer.from(bytes))
}

/**
 * UTCTime, YYMMDDHHMMSSZ (dates before 2050, as RFC 5280 asks of UTCTime).
 * @param {Date} date
 */
function utcTime (date) {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'
  return der(0x17, Buffer.from(text, 'ascii'))
}
