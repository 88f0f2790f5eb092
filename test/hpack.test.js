// HPACK (lib/load/hpack.js): the decoder on RFC 7541 Appendix C's examples (the spec's test vectors,
// with and without Huffman, evictions included), its refusals of malformed blocks (each edge tried on
// both sides), and the request block encoder read back by the decoder.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { HpackDecoder, encodeRequestBlock, huffmanCodes } from '../lib/load/hpack.js'

/** @param {string} hex spaces allowed */
const bytes = (hex) => Buffer.from(hex.replace(/\s+/g, ''), 'hex')
/** @param {string} s */
const raw = (s) => Buffer.from(s, 'latin1').toString('hex')
/** A literal string without Huffman: length (under 127) and bytes, in hex. @param {string} s */
const lit = (s) => s.length.toString(16).padStart(2, '0') + raw(s)

/**
 * Decode blocks in order on one decoder: each one's fields and the table's size after it.
 * @param {HpackDecoder} d @param {Buffer} block
 */
function decode (d, block) {
  d.fields = []
  const ok = d.decode(block, 0, block.length)
  assert.equal(d.error, '', d.error)
  assert.equal(ok, true)
  return { fields: d.fields, used: d.used, status: d.status, contentLength: d.contentLength }
}

const REQUEST_1 = [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']]
const REQUEST_2 = [...REQUEST_1, ['cache-control', 'no-cache']]
const REQUEST_3 = [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']]
const DATE_1 = 'Mon, 21 Oct 2013 20:13:21 GMT'
const DATE_2 = 'Mon, 21 Oct 2013 20:13:22 GMT'
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'
const RESPONSE_1 = [[':status', '302'], ['cache-control', 'private'], ['date', DATE_1], ['location', 'https://www.example.com']]
const RESPONSE_2 = [[':status', '307'], ['cache-control', 'private'], ['date', DATE_1], ['location', 'https://www.example.com']]
const RESPONSE_3 = [[':status', '200'], ['cache-control', 'private'], ['date', DATE_2], ['location', 'https://www.example.com'],
  ['content-encoding', 'gzip'], ['set-cookie', COOKIE]]

test('RFC 7541 C.3: requests without Huffman, the dynamic table growing', () => {
  const d = new HpackDecoder()
  assert.deepEqual(decode(d, bytes('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d')).fields, REQUEST_1)
  assert.equal(d.used, 57)
  assert.deepEqual(decode(d, bytes('8286 84be 5808 6e6f 2d63 6163 6865')).fields, REQUEST_2)
  assert.equal(d.used, 110)
  assert.deepEqual(decode(d, bytes('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65')).fields, REQUEST_3)
  assert.equal(d.used, 164)
})

test('RFC 7541 C.4: the same requests with Huffman', () => {
  const d = new HpackDecoder()
  assert.deepEqual(decode(d, bytes('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')).fields, REQUEST_1)
  assert.deepEqual(decode(d, bytes('8286 84be 5886 a8eb 1064 9cbf')).fields, REQUEST_2)
  assert.deepEqual(decode(d, bytes('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')).fields, REQUEST_3)
  assert.equal(d.used, 164)
})

test('RFC 7541 C.5: responses without Huffman in a 256-byte table, with evictions; :status picked out', () => {
  const d = new HpackDecoder(256)
  const first = decode(d, bytes(`4803${raw('302')} 58${lit('private')} 61${lit(DATE_1)} 6e${lit('https://www.example.com')}`))
  assert.deepEqual(first.fields, RESPONSE_1)
  assert.deepEqual([first.used, first.status, first.contentLength], [222, 302, -1])
  // (":status", "302") is evicted to make room for (":status", "307")
  const second = decode(d, bytes('4803 3330 37c1 c0bf'))
  assert.deepEqual(second.fields, RESPONSE_2)
  assert.deepEqual([second.used, second.status], [222, 307])
  const third = decode(d, bytes(`88c1 61${lit(DATE_2)} c0 5a04${raw('gzip')} 7738${raw(COOKIE)}`))
  assert.deepEqual(third.fields, RESPONSE_3)
  assert.deepEqual([third.used, third.status], [215, 200])
})

test('RFC 7541 C.6: the same responses with Huffman', () => {
  const d = new HpackDecoder(256)
  const first = decode(d, bytes(`4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
    2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`))
  assert.deepEqual(first.fields, RESPONSE_1)
  assert.deepEqual([first.used, first.status], [222, 302])
  const second = decode(d, bytes('4883 640e ffc1 c0bf'))
  assert.deepEqual(second.fields, RESPONSE_2)
  assert.deepEqual([second.used, second.status], [222, 307])
  const third = decode(d, bytes(`88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
    77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`))
  assert.deepEqual(third.fields, RESPONSE_3)
  assert.deepEqual([third.used, third.status], [215, 200])
})

test('the Huffman codes derived from the lengths are Appendix B\'s', () => {
  const codes = huffmanCodes()
  // a sample of Appendix B's rows, every length's first or last among them
  const rows = { 0: 0x1ff8, 1: 0x7fffd8, 9: 0xffffea, 10: 0x3ffffffc, 32: 0x14, 47: 0x18, 48: 0x0, 92: 0x7fff0, 116: 0x9, 128: 0xfffe6, 153: 0x1fffdc, 195: 0x7fff1, 199: 0x1ffffec, 220: 0xffffffd, 254: 0x7fffff0, 255: 0x3ffffee, 256: 0x3fffffff }
  for (const [sym, code] of Object.entries(rows)) assert.equal(codes[Number(sym)], code, `symbol ${sym}`)
})

test('RFC 7541 C.1: integers with a prefix, one byte and several', () => {
  const d = new HpackDecoder()
  d.pos = 0
  assert.equal(d.integer(bytes('ea'), 1, 5), 10)
  d.pos = 0
  assert.equal(d.integer(bytes('1f9a0a'), 3, 5), 1337)
  assert.equal(d.pos, 3)
  d.pos = 0
  assert.equal(d.integer(bytes('2a'), 1, 8), 42)
})

test('integers: 2^31-1 is read, 2^31 is refused; one that runs past the block is refused', () => {
  const d = new HpackDecoder()
  // 2^31 - 1 with a 7-bit prefix: 127 + 2147483520 = 127 + 0x7fffff80
  d.pos = 0
  assert.equal(d.integer(bytes('7f 80 ff ff ff 07'), 6, 7), 2 ** 31 - 1)
  d.pos = 0
  assert.equal(d.integer(bytes('7f 81 ff ff ff 07'), 6, 7), -1)
  assert.match(d.error, /too large/)
  d.pos = 0
  assert.equal(d.integer(bytes('7f 80'), 2, 7), -1)
  assert.match(d.error, /past the block/)
})

/** @param {HpackDecoder} d @param {string} hex */
function refused (d, hex) {
  const block = bytes(hex)
  assert.equal(d.decode(block, 0, block.length), false)
  return d.error
}

test('malformed blocks are refused with a reason: index 0, an index past the table, strings past the block', () => {
  assert.match(refused(new HpackDecoder(), '80'), /index 0/)
  // 61 static entries and an empty dynamic table: 62 is past it, 61 is not
  assert.match(refused(new HpackDecoder(), 'be'), /index 62 past the table's 61/)
  assert.equal(new HpackDecoder().decode(bytes('bd'), 0, 1), true)
  assert.match(refused(new HpackDecoder(), '0403 2f61'), /a string of 3 bytes runs past the block/)
  assert.equal(new HpackDecoder().decode(bytes('0402 2f61'), 0, 4), true)
  assert.match(refused(new HpackDecoder(), '04'), /a string is missing/)
})

test('table size updates: up to SETTINGS_HEADER_TABLE_SIZE and only before the first field', () => {
  // 4096 = 31 + 4065: 3f e1 1f
  const d = new HpackDecoder(4096)
  assert.equal(d.decode(bytes('3fe11f 88'), 0, 4), true)
  assert.equal(d.status, 200)
  assert.match(refused(new HpackDecoder(4096), '3fe21f 88'), /a table size of 4097 over the 4096 allowed/)
  assert.match(refused(new HpackDecoder(), '88 20'), /a table size update after a field/)
  // a size update to 0 empties the table
  const e = new HpackDecoder()
  decode(e, bytes('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))
  assert.equal(e.used, 55)
  decode(e, bytes('20 88'))
  assert.equal(e.used, 0)
  assert.match(refused(e, 'be'), /past the table/)
})

test('an entry larger than the table empties it and is not added', () => {
  const d = new HpackDecoder(64)
  decode(d, bytes(`40${lit('a')}${lit('b')}`))
  assert.equal(d.used, 34)
  // 32 + 1 + 32 = 65 > 64
  decode(d, bytes(`40${lit('c')}${lit('d'.repeat(32))}`))
  assert.deepEqual([d.used, d.count], [0, 0])
  // 32 + 1 + 31 = 64 fits exactly
  decode(d, bytes(`40${lit('c')}${lit('d'.repeat(31))}`))
  assert.deepEqual([d.used, d.count], [64, 1])
})

test('Huffman padding: up to 7 one bits pass; 8, or a zero bit, or EOS are refused', () => {
  // 'a' is 00011: 0x1f pads it with three ones
  assert.deepEqual(decode(new HpackDecoder(), bytes('0481 1f')).fields, [[':path', 'a']])
  // "0%%" is 00000 010101 010101 (17 bits) and 7 ones: 0x02 0xaa 0xff
  assert.deepEqual(decode(new HpackDecoder(), bytes('0483 02aa ff')).fields, [[':path', '0%%']])
  // "00000000" is 40 zero bits: a byte of 8 ones after it is too much padding
  assert.deepEqual(decode(new HpackDecoder(), bytes('0485 0000 0000 00')).fields, [[':path', '00000000']])
  assert.match(refused(new HpackDecoder(), '0486 0000 0000 00ff'), /padded with other than up to 7 one bits/)
  // the padding must be ones: 'a' then 000
  assert.match(refused(new HpackDecoder(), '0481 18'), /padded with other than/)
  // EOS (30 ones) inside a string
  assert.match(refused(new HpackDecoder(), '0484 ffffffff'), /EOS in a Huffman string/)
})

test('picks out :status and content-length; a duplicate or malformed :status reads as none', () => {
  const d = new HpackDecoder()
  // :status 404 (static 13), content-length: 12 (literal without indexing, static name 28)
  decode(d, bytes(`8d 0f0d${lit('12')}`))
  assert.deepEqual([d.status, d.contentLength], [404, 12])
  decode(d, bytes(`88 0f0d${lit('1x')}`))
  assert.deepEqual([d.status, d.contentLength], [200, -1])
  decode(d, bytes('88 8d'))
  assert.equal(d.status, 0)
  decode(d, bytes(`08${lit('20')}`))
  assert.equal(d.status, 0)
  // three digits, the first not 0
  decode(d, bytes(`08${lit('099')}`))
  assert.equal(d.status, 0)
  decode(d, bytes(`08${lit('100')}`))
  assert.equal(d.status, 100)
  // a content-length of up to 15 digits
  decode(d, bytes(`88 0f0d${lit('9'.repeat(15))}`))
  assert.equal(d.contentLength, 999_999_999_999_999)
  decode(d, bytes(`88 0f0d${lit('1'.repeat(16))}`))
  assert.equal(d.contentLength, -1)
  decode(d, bytes(`88 0f0d${lit('')}`))
  assert.equal(d.contentLength, -1)
  // indexed into the dynamic table: the entry keeps its number
  decode(d, bytes(`48${lit('503')} 5c${lit('7')}`))
  assert.deepEqual([d.status, d.contentLength], [503, 7])
  decode(d, bytes('bf be'))
  assert.deepEqual([d.status, d.contentLength], [503, 7])
})

test('the request block: static references and literals without indexing, names lowercased, read back whole', () => {
  const block = encodeRequestBlock({ method: 'GET', scheme: 'http', authority: 'www.example.com', path: '/', headers: [['User-Agent', 'syncbench'], ['X-Custom', 'v']] })
  assert.equal(block.toString('hex'), `8286 01${lit('www.example.com')} 84 0f2b${lit('syncbench')} 00${lit('x-custom')}${lit('v')}`.replace(/\s+/g, ''))
  const d = new HpackDecoder()
  assert.deepEqual(decode(d, block).fields, [[':method', 'GET'], [':scheme', 'http'], [':authority', 'www.example.com'], [':path', '/'], ['user-agent', 'syncbench'], ['x-custom', 'v']])
  // nothing indexed: the decoder's table stays empty
  assert.equal(d.used, 0)
  // a value of 127 bytes or more takes a length over several bytes
  const long = encodeRequestBlock({ method: 'POST', scheme: 'https', authority: 'a', path: `/${'p'.repeat(200)}` })
  assert.deepEqual(decode(new HpackDecoder(), long).fields, [[':method', 'POST'], [':scheme', 'https'], [':authority', 'a'], [':path', `/${'p'.repeat(200)}`]])
})
