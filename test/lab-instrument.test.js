// lib/lab/instrument.js, the preload that measures a user's own server: the first HTTP server found
// (not a plain TCP server opened before it), and the by-hand mode (`node --import syncbench/instrument`)
// with its metrics on a separate loopback port.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { spawnAppServer } from '../lib/lab/spawn.js'
import { closedPort, httpGet } from './helper.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-instrument-'))
after(() => rm(dir, { recursive: true, force: true }))

test('the first HTTP server is the one reported, not a TCP server the app opened before it; metrics count its requests', async () => {
  const app = path.join(dir, 'two-servers.mjs')
  await writeFile(app, `import net from 'node:net'
import http from 'node:http'
net.createServer((s) => s.end()).listen(0, '127.0.0.1', () => {
  http.createServer((req, res) => res.end('http')).listen(0, '127.0.0.1')
})
`)
  // this Node.js, as the assertion below expects (the PATH's node may be another version)
  const handle = await spawnAppServer({ command: `${process.execPath} ${app}`, name: 'two', log: path.join(dir, 'two.log') })
  try {
    const { url } = handle.servers[0]
    assert.equal((await httpGet(url + '/')).body, 'http')
    await handle.metrics({ reset: true })
    for (let i = 0; i < 3; i++) await httpGet(url + '/')
    const metrics = await handle.metrics()
    assert.equal(metrics.requests, 3)
    assert.equal(handle.env.node, process.versions.node)
  } finally {
    await handle.stop()
  }
})

test('by hand: node --import syncbench/instrument app.js serves its metrics on SYNCBENCH_METRICS_PORT', async () => {
  const appPort = await closedPort()
  const metricsPort = await closedPort()
  const child = spawn(process.execPath, ['--import', 'syncbench/instrument', 'test/fixtures/apps/http-app.js'], {
    cwd: root,
    env: { ...process.env, PORT: String(appPort), SYNCBENCH_METRICS_PORT: String(metricsPort), HASH_ITERATIONS: '100' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const exited = once(child, 'exit')
  try {
    const metricsUrl = `http://127.0.0.1:${metricsPort}/__syncbench`
    let env = null
    for (let i = 0; i < 200 && env === null; i++) {
      env = await httpGet(`${metricsUrl}/env`).then((r) => JSON.parse(r.body), () => null)
      if (env === null) await delay(50)
    }
    assert.ok(env, `the metrics port never answered: ${stderr}`)
    assert.equal(env.node, process.versions.node)
    await httpGet(`${metricsUrl}/metrics?reset=1`)
    for (let i = 0; i < 4; i++) assert.equal((await httpGet(`http://127.0.0.1:${appPort}/hash`)).status, 200)
    const metrics = JSON.parse((await httpGet(`${metricsUrl}/metrics`)).body)
    assert.equal(metrics.requests, 4)
    assert.ok(metrics.eventLoopDelay.max >= 0)
    assert.equal((await httpGet(`${metricsUrl}/nothing`)).status, 404)
  } finally {
    child.kill()
    await exited
  }
})
