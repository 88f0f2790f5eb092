// Modules a plain `syncbench ab` run on an IP address does not load (the resolver, the HTTP/1.1
// framing) are loaded on demand by loadtest(): the runs that need them still work, and only they load them.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { loadtest } from '../lib/load/loadtest.js'
import { startHttpServer, runCommand, binPath } from './helper.js'

const closers = []
after(() => Promise.all(closers.map((close) => close())))

async function helloServer () {
  const s = await startHttpServer((req, res) => {
    res.writeHead(200, { 'Content-Length': 5 })
    res.end('hello')
  })
  closers.push(s.close)
  return s
}

test('a host name is resolved before the run (localhost, from the hosts file)', async () => {
  const s = await helloServer()
  const r = await loadtest({ url: `http://localhost:${s.port}/`, requests: 4, concurrency: 2, keepAlive: true })
  assert.equal(r.completeRequests, 4)
  assert.equal(r.server.hostname, 'localhost')
  assert.deepEqual(r.statusCodes, { 200: 4 })
})

test('--http1.1 frames by Content-Length with its framing module loaded on demand', async () => {
  const s = await helloServer()
  const r = await loadtest({ url: s.url, requests: 6, concurrency: 2, keepAlive: true, http11: true })
  assert.equal(r.completeRequests, 6)
  assert.equal(r.keepAliveRequests, 6)
  assert.equal(r.htmlTransferredBytes, 30)
})

/**
 * Run the real CLI with a module resolve hook that records every module loaded (user-land imports and
 * node: built-ins imported as modules) and return their URLs.
 * @param {string[]} args
 */
async function modulesLoadedBy (args, printed = /^Complete requests: +4$/m) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-lazy-'))
  try {
    const log = path.join(dir, 'modules.txt')
    const hooks = `import { appendFileSync } from 'node:fs'
      export async function resolve (specifier, context, next) {
        const result = await next(specifier, context)
        appendFileSync(${JSON.stringify(log)}, result.url + '\\n')
        return result
      }`
    // CommonJS packages loaded with require() do not pass the resolve hook: their files are listed at exit
    const register = `import { register, createRequire } from 'node:module'
      import { appendFileSync } from 'node:fs'
      register(${JSON.stringify('data:text/javascript,' + encodeURIComponent(hooks))})
      const { cache } = createRequire(${JSON.stringify(import.meta.url)})
      process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(cache).map((f) => f + '\\n').join('')))`
    const { code, stdout, stderr } = await runCommand(process.execPath, ['--import', 'data:text/javascript,' + encodeURIComponent(register), binPath, ...args])
    assert.equal(code, 0, stderr)
    assert.match(stdout, printed)
    return new Set((await readFile(log, 'utf8')).trim().split('\n'))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

test('what is loaded on demand, and only then: the resolver for a host name, the HTTP/1.1 framing for --http1.1, TLS for https://', async () => {
  const s = await helloServer()
  const lazy = {
    resolver: (m) => m.has('node:dns/promises') || m.has('node:dns'),
    framing: (m) => [...m].some((u) => u.endsWith('/lib/load/http11.js') || u.endsWith('/lib/load/chunked-decoder.js')),
    tls: (m) => m.has('node:tls') || [...m].some((u) => u.endsWith('/lib/load/tls.js'))
  }
  const plain = await modulesLoadedBy(['ab', '-n', '4', '-c', '2', s.url])
  assert.ok([...plain].some((u) => u.endsWith('/lib/load/loadtest.js')), 'the hook records the CLI\'s own modules')
  assert.equal(lazy.resolver(plain), false, 'a run on an IP address loaded the resolver')
  assert.equal(lazy.framing(plain), false, 'a run without --http1.1 loaded the HTTP/1.1 framing')
  assert.equal(lazy.tls(plain), false, 'an http:// run loaded node:tls')

  const named = await modulesLoadedBy(['ab', '-n', '4', '-c', '2', `http://localhost:${s.port}/`])
  assert.equal(lazy.resolver(named), true, 'a host name needs the resolver')
  assert.equal(lazy.framing(named), false)

  const http11 = await modulesLoadedBy(['ab', '--http1.1', '-n', '4', '-c', '2', s.url])
  assert.equal(lazy.framing(http11), true, '--http1.1 needs its framing')
  assert.equal(lazy.resolver(http11), false)
})

test('hdr-histogram-js is loaded only when the run\'s histogram is read (--json), never for ab\'s report', async () => {
  const s = await helloServer()
  const hdr = (m) => [...m].some((u) => u.includes('/node_modules/hdr-histogram-js/'))
  assert.equal(hdr(await modulesLoadedBy(['ab', '-n', '4', '-c', '2', s.url])), false, 'ab\'s report needs no encoding')
  assert.equal(hdr(await modulesLoadedBy(['ab', '--json', '-n', '4', '-c', '2', s.url], /"completeRequests": 4,/)), true, '--json prints the encoding')
})

test('the atomic writer (and node:crypto behind its temporary names) is loaded only for -g, -e and --hdr-log', async () => {
  const s = await helloServer()
  const atomic = (m) => m.has('node:crypto') || [...m].some((u) => u.endsWith('/lib/fs-atomic.js'))
  assert.equal(atomic(await modulesLoadedBy(['ab', '-n', '4', '-c', '2', s.url])), false, 'a plain run writes no file')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-lazy-g-'))
  try {
    assert.equal(atomic(await modulesLoadedBy(['ab', '-g', path.join(dir, 'g.tsv'), '-n', '4', '-c', '2', s.url])), true, '-g writes its file atomically')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
