import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { runCli } from './helper.js'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

test('--version prints the package version', async () => {
  const { code, stdout } = await runCli(['--version'])
  assert.equal(code, 0)
  assert.equal(stdout, `syncbench ${pkg.version}\n`)
})

test('--help lists every command', async () => {
  const { code, stdout, stderr } = await runCli(['--help'])
  assert.equal(code, 0)
  assert.equal(stderr, '')
  for (const name of ['run', 'ab', 'serve', 'report', 'compare']) assert.match(stdout, new RegExp(`^  ${name} `, 'm'))
})

test('an unknown command is one line on stderr and exit 2', async () => {
  const { code, stdout, stderr } = await runCli(['frobnicate'])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.match(stderr, /^syncbench: unknown command "frobnicate"/)
  assert.equal(stderr.trim().split('\n').length, 1)
})
