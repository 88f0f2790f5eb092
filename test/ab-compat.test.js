// syncbench ab against the real ab (apache2-utils), same server, same options: the deterministic
// figures of both reports must be equal and their labels must come in the same order.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, runCommand, startHttpServer } from './helper.js'

const abMissing = (() => {
  const probe = spawnSync('ab', ['-V'], { encoding: 'utf8' })
  if (probe.error) return `ab is not installed: ${probe.error.code} (apt-get install apache2-utils)`
  return /ApacheBench, Version 2\.3/.test(probe.stdout) ? null : `ab is not ApacheBench 2.3: ${probe.stdout.split('\n')[0]}`
})()

/**
 * Read an ab-format report: the value of each "Label:   value" line, and the sequence of labels
 * and table rows (ab's timing-dependent ERROR / WARNING notes left out).
 * @param {string} text
 */
function parseReport (text) {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.startsWith('Server Software:'))
  assert.notEqual(start, -1, `no report in:\n${text}`)
  /** @type {Record<string, string>} */
  const values = {}
  const labels = []
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]
    if (/^(ERROR|WARNING): /.test(line)) { i++; continue }
    let m
    if ((m = /^([A-Z][\w -]*[\w)]):(?: +(.*))?$/.exec(line))) {
      if (!(m[1] in values)) values[m[1]] = m[2] ?? ''
      labels.push(m[1])
    } else if ((m = /^ +(\d+)%/.exec(line))) {
      labels.push(`${m[1]}%`)
    } else if (line.startsWith('   (Connect:')) {
      values.failures = line.trim()
      labels.push('(failures)')
    } else if (line.startsWith('                        ')) {
      labels.push(line.trim().replace(/^[\d.]+ /, ''))
    } else if (line.trim() !== '') {
      labels.push(line.trim())
    }
  }
  return { values, labels }
}

const DETERMINISTIC = ['Server Hostname', 'Server Port', 'Document Path', 'Document Length', 'Concurrency Level',
  'Complete requests', 'Failed requests', 'Non-2xx responses', 'Keep-Alive requests', 'Total transferred', 'Total body sent', 'HTML transferred']

/**
 * Run both tools on the same URL with the same flags (one after the other, each after a server reset).
 * @param {string[]} flags
 * @param {string} url
 * @param {() => void} [reset] brings the server back to its initial state
 */
async function both (flags, url, reset = () => {}) {
  reset()
  const ab = await runCommand('ab', [...flags, url])
  assert.equal(ab.code, 0, ab.stderr)
  reset()
  const sb = await runCli(['ab', ...flags, url])
  assert.equal(sb.code, 0, sb.stderr)
  return { ab: parseReport(ab.stdout), sb: parseReport(sb.stdout), abText: ab.stdout, sbText: sb.stdout }
}

function assertSame (ab, sb, t) {
  for (const label of DETERMINISTIC) {
    assert.equal(sb.values[label], ab.values[label], `${label}: ab says "${ab.values[label]}", syncbench says "${sb.values[label]}"`)
  }
  assert.equal(sb.values.failures, ab.values.failures)
  assert.deepEqual(sb.labels, ab.labels)
  t.diagnostic(DETERMINISTIC.filter((l) => l in ab.values).map((l) => `${l}: ${ab.values[l]}`).join('; '))
  // Requests per second: expected within about 10% of ab's on longer runs, never asserted (timing
  // never decides a test); shown so a reader of the test output can see it.
  const rps = (r) => Number.parseFloat(r.values['Requests per second'])
  t.diagnostic(`Requests per second: ab ${rps(ab)}, syncbench ${rps(sb)} (ratio ${(rps(sb) / rps(ab)).toFixed(2)})`)
}

describe('syncbench ab matches ab 2.3', { skip: abMissing ?? false }, () => {
  let server
  let served = 0
  before(async () => {
    server = await startHttpServer((req, res) => {
      served++
      if (req.url.startsWith('/missing')) {
        res.statusCode = 404
        res.setHeader('Content-Length', 9)
        return res.end('not found')
      }
      if (req.url.startsWith('/variable')) {
        // 10..16 bytes: the same set of lengths for every run of n requests, and a fixed header size
        const body = 'v'.repeat(10 + (served % 7))
        res.setHeader('Content-Length', body.length)
        return res.end(body)
      }
      res.setHeader('Content-Length', 12)
      res.end('hello world\n')
    })
  })
  after(() => server.close())
  const reset = () => { served = 0 }

  test('keep-alive run (-k, Content-Length server)', async (t) => {
    const { ab, sb } = await both(['-k', '-c', '10', '-n', '500'], `${server.url}hello?q=1`)
    assert.equal(ab.values['Keep-Alive requests'], '500')
    assertSame(ab, sb, t)
  })

  test('without keep-alive', async (t) => {
    const { ab, sb } = await both(['-c', '5', '-n', '200', '-q'], server.url)
    assert.equal(ab.values['Keep-Alive requests'], undefined)
    assertSame(ab, sb, t)
  })

  test('non-2xx responses, -S and -d', async (t) => {
    const { ab, sb } = await both(['-k', '-S', '-d', '-c', '4', '-n', '100'], `${server.url}missing`)
    assert.equal(ab.values['Non-2xx responses'], '100')
    assertSame(ab, sb, t)
  })

  test('POST a body with -p and -T: Total body sent and the kb/s sent lines', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'syncbench-compat-'))
    try {
      const file = join(dir, 'body.json')
      await writeFile(file, JSON.stringify({ user: 'ab', password: 'secret' }))
      const { ab, sb } = await both(['-k', '-p', file, '-T', 'application/json', '-c', '2', '-n', '50'], `${server.url}login`)
      assert.ok(Number(ab.values['Total body sent']) > 50 * 36)
      assert.ok(ab.labels.includes('kb/s sent') && ab.labels.includes('kb/s total'))
      assertSame(ab, sb, t)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('variable length: -l accepts it, without -l the Length failures match (one connection)', async (t) => {
    const withL = await both(['-l', '-c', '1', '-n', '70'], `${server.url}variable`, reset)
    assert.equal(withL.ab.values['Document Length'], 'Variable')
    assertSame(withL.ab, withL.sb, t)
    const withoutL = await both(['-c', '1', '-n', '70'], `${server.url}variable`, reset)
    assert.notEqual(withoutL.ab.values['Failed requests'], '0')
    assertSame(withoutL.ab, withoutL.sb, t)
  })
})
