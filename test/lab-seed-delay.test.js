// seed-readfile's fake-async server with a delay parameter (--delay): the article's handler at the
// default 0, its setTimeout delay otherwise, and the option's checks.
import { test, mock } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { fakeAsyncHandler } from '../lib/lab/seed-readfile.js'
import { parseServeArgs } from '../lib/lab/serve-args.js'
import { spawnServer } from '../lib/lab/spawn.js'
import { httpGet } from './helper.js'

/** A response that records what the handler sent. */
function fakeResponse () {
  return { status: 0, body: null, writeHead (status) { this.status = status }, end (body) { this.body = body } }
}

test('fake-async answers after setTimeout(delay): 0 by default (the article), --delay otherwise', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-delay-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'data.bin')
  await writeFile(file, 'x')
  mock.timers.enable({ apis: ['setTimeout'] })
  t.after(() => mock.timers.reset())

  const published = fakeResponse()
  fakeAsyncHandler(file)({}, published)
  assert.equal(published.body, null, 'never synchronously')
  mock.timers.tick(0)
  assert.equal(published.body, 'Coucou gamin')

  const delayed = fakeResponse()
  fakeAsyncHandler(file, 10)({}, delayed)
  mock.timers.tick(9)
  assert.equal(delayed.body, null, 'not before the delay')
  mock.timers.tick(1)
  assert.equal(delayed.status, 200)
  assert.equal(delayed.body, 'Coucou gamin')
})

test('--delay: seed-readfile only, an integer from 0 to 10000, named in the error', () => {
  assert.equal(parseServeArgs(['seed-readfile', '--only', 'fake-async', '--delay', '5']).delay, 5)
  assert.equal(parseServeArgs(['seed-readfile']).delay, undefined)
  assert.throws(() => parseServeArgs(['lab', '--delay', '5']), { code: 'SB_ERR_INVALID_OPTION', message: /--delay applies to seed-readfile only, got "5"/ })
  for (const bad of ['-1', '1.5', 'ten', '10001']) {
    assert.throws(() => parseServeArgs(['seed-readfile', '--delay', bad]), { code: 'SB_ERR_INVALID_OPTION', message: /--delay/ }, bad)
  }
})

test('a server child runs the fake-async server with --delay and answers as the article\'s does', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-delay-'))
  const server = await spawnServer({ app: 'seed-readfile', args: ['--only', 'fake-async', '--delay', '5', '--file-size', '4k', '--cache-dir', dir] })
  t.after(async () => { await server.stop(); await rm(dir, { recursive: true, force: true }) })
  const res = await httpGet(server.servers[0].url + '/')
  assert.equal(res.status, 200)
  assert.equal(res.body, 'Coucou gamin')
})
