// https:// targets, as ab built with OpenSSL loads them (support/ab.c, USE_SSL): one TLS client
// context for the run (ab's -Z cipher list, -f protocol), the certificate NOT verified (ab never
// verifies it), SNI from the Host (ab's tls_sni: a -H Host if given, else the URL's host, none for an
// IP address), a full handshake per connection (no session reuse, as ab), and what ab's report says
// of the first handshake that completed: "SSL/TLS Protocol", "Server Temp Key", "TLS Server Name".
// Loaded by loadtest.js for https:// only: a plain http:// run never loads node:tls.
import tls from 'node:tls'
import net from 'node:net'
import { invalidOption } from '../errors.js'

/**
 * ab's -f values (ab 2.3 with OpenSSL >= 1.1: TLS_client_method with both bounds set), as Node's
 * minVersion / maxVersion. ab's default is ALL; SSL2 and SSL3 are not in Node's OpenSSL at all.
 * @type {Readonly<Record<import('../types.js').TlsProtocol, [tls.SecureVersion, tls.SecureVersion]>>}
 */
export const TLS_PROTOCOLS = Object.freeze({
  ALL: ['TLSv1', 'TLSv1.3'],
  TLS1: ['TLSv1', 'TLSv1'],
  'TLS1.1': ['TLSv1.1', 'TLSv1.1'],
  'TLS1.2': ['TLSv1.2', 'TLSv1.2'],
  'TLS1.3': ['TLSv1.3', 'TLSv1.3']
})

/** TLS 1.3's default suites (Node's), kept beside a -Z list of older ciphers as ab keeps them. */
const TLS13_DEFAULT_SUITES = tls.DEFAULT_CIPHERS.split(':').filter((name) => name.startsWith('TLS_')).join(':')

/**
 * The `ciphers` option of Node's context for ab's -Z. ab gives -Z to SSL_CTX_set_ciphersuites under
 * -f TLS1.3 and to SSL_CTX_set_cipher_list otherwise, which leaves TLS 1.3's suites at their default;
 * Node takes both lists in one string (TLS_* names are TLS 1.3 suites) and, given no TLS 1.3 suite,
 * would cap the protocol at TLS 1.2: so the defaults are added back, as ab has them.
 * @param {string} ciphers @param {import('../types.js').TlsProtocol} protocol
 */
function nodeCiphers (ciphers, protocol) {
  if (protocol === 'TLS1.3' || ciphers.split(':').some((name) => name.startsWith('TLS_'))) return ciphers
  return `${TLS13_DEFAULT_SUITES}:${ciphers}`
}

/**
 * The run's TLS context from -Z and -f, checked: a cipher list OpenSSL matches to nothing is refused
 * before any connection (ab: "error setting ciphersuite list", exit 1; a bad command line here).
 * @param {{ ciphers?: string, tlsProtocol?: import('../types.js').TlsProtocol }} o
 * @param {{ ciphers: string, tlsProtocol: string }} spelled how the caller names -Z and -f in messages
 * @returns {tls.SecureContext}
 */
export function secureContext (o, spelled) {
  const protocol = o.tlsProtocol ?? 'ALL'
  const [minVersion, maxVersion] = TLS_PROTOCOLS[protocol]
  if (o.ciphers === undefined) return tls.createSecureContext({ minVersion, maxVersion })
  if (protocol === 'TLS1.3' && o.ciphers.split(':').some((name) => !name.startsWith('TLS_'))) {
    throw invalidOption(spelled.ciphers, o.ciphers, `with ${spelled.tlsProtocol} TLS1.3 must list TLS 1.3 suites (such as TLS_AES_128_GCM_SHA256), as ab's SSL_CTX_set_ciphersuites takes`)
  }
  try {
    return tls.createSecureContext({ minVersion, maxVersion, ciphers: nodeCiphers(o.ciphers, protocol) })
  } catch (err) {
    const reason = /** @type {{ reason?: string }} */ (err).reason ?? /** @type {Error} */ (err).message
    throw invalidOption(spelled.ciphers, o.ciphers, `must be an OpenSSL cipher list this Node.js knows (${reason}; see openssl ciphers)`)
  }
}

/**
 * ab's tls_sni: the -H Host header's value if one is given, else the URL's host; none for an IP
 * address (RFC 6066 allows host names only). A Host value's port is not part of the name.
 * @param {string} hostname the URL's, IPv6 without brackets
 * @param {readonly string[]} headers -H lines
 * @returns {string|null}
 */
export function serverName (hostname, headers) {
  let name = hostname
  for (const line of headers) {
    if (line.slice(0, 5).toLowerCase() === 'host:') name = line.slice(5).trim().replace(/^\[(.*)\](:\d*)?$/, '$1').replace(/^([^:]*):\d*$/, '$1')
  }
  return name === '' || net.isIP(name) !== 0 ? null : name
}

/**
 * The secret bits of a cipher, as OpenSSL's SSL_CIPHER_get_bits gives them (ab prints them last on its
 * SSL/TLS Protocol line); Node does not expose them, so they are read from the cipher's OpenSSL name.
 * @param {string} name
 */
export function cipherBits (name) {
  if (/NULL/.test(name)) return 0
  if (/(AES|CAMELLIA|ARIA)[_-]?256|CHACHA20/.test(name)) return 256
  if (/(AES|CAMELLIA|ARIA|SEED)[_-]?128|^SEED-|-SEED-/.test(name)) return 128
  if (/DES-CBC3|3DES/.test(name)) return 112
  return 0
}

/**
 * ab's "Server Temp Key" text for the key exchange's ephemeral key ('' when there is none, as with an
 * RSA key exchange: ab then prints no line). OpenSSL 3's ab prints an X25519 / X448 key by its name,
 * another EC key as "ECDH <group>", a DH key as "DH". A key-encapsulation group (the post-quantum
 * hybrids of OpenSSL 3.5, X25519MLKEM768) has no ephemeral key of a size: Node 24 names the group
 * alone (type "TLSGroup"), Node 22 gives nothing; the line then says the group's name, without bits.
 * @param {tls.EphemeralKeyInfo|{}|null} key
 */
export function tempKeyText (key) {
  if (key === null || !('type' in key)) return ''
  const info = /** @type {{ type: string, name?: string, size?: number }} */ (key)
  const size = typeof info.size === 'number' && Number.isFinite(info.size) ? info.size : null
  if (size === null) return info.name ?? ''
  if (info.type === 'DH') return `DH ${size} bits`
  if (info.name === 'X25519' || info.name === 'X448') return `${info.name} ${size} bits`
  return `${info.type} ${info.name ?? '?'} ${size} bits`
}

/**
 * What LoadResult.tls says of the first handshake of the run.
 * @param {tls.TLSSocket} socket just secured
 * @returns {Omit<import('../types.js').TlsInfo, 'serverName'>}
 */
export function handshakeInfo (socket) {
  const cipher = socket.getCipher()
  const certificate = /** @type {{ bits?: number }} */ (socket.getPeerCertificate())
  return {
    protocol: socket.getProtocol() ?? '',
    cipher: cipher.name,
    certificateBits: certificate.bits ?? 0,
    cipherBits: cipherBits(cipher.name),
    serverTempKey: tempKeyText(socket.getEphemeralKeyInfo())
  }
}
