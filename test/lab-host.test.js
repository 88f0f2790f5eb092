// lib/lab/http-host.js: listening errors become one clear SyncbenchError; once listening, the server's
// own 'error' listeners are the app's business (none left behind by the start-up).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { hostServer } from '../lib/lab/http-host.js'
import { createServerMetrics, collectEnvironment } from '../lib/lab/metrics.js'
import { startHttpServer, httpGet } from './helper.js'

const options = (port) => ({ name: 'test', handler: (req, res) => res.end('ok'), metrics: createServerMetrics(), env: collectEnvironment(), port, host: '127.0.0.1' })

test('after listening, no start-up listener is left on the server\'s error event', async () => {
  const o = options(0)
  const hosted = await hostServer(o)
  try {
    assert.equal(hosted.server.listenerCount('error'), 0, 'a later server error must not be swallowed')
    assert.equal((await httpGet(hosted.url + '/')).body, 'ok')
  } finally {
    await hosted.close()
    o.metrics.close()
  }
})

test('a busy port: SB_ERR_SERVER_START naming the port', async () => {
  const busy = await startHttpServer((req, res) => res.end())
  const o = options(busy.port)
  try {
    await assert.rejects(hostServer(o), { code: 'SB_ERR_SERVER_START', message: `test: --port ${busy.port} is already in use on 127.0.0.1 (EADDRINUSE)` })
  } finally {
    o.metrics.close()
    await busy.close()
  }
})
