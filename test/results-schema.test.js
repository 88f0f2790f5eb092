// The JSON Schemas in schemas/: shipped in the package, $id = the files' `schema` field, matching what the
// runner and `syncbench ab --json` really write; syncbench report and compare check a file against them
// before anything else, so a malformed one is one line naming the field, never a stack trace.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { runCli, startHttpServer } from './helper.js'
import { fixturePath } from './fixtures/report-helpers.js'

const root = new URL('../', import.meta.url)
const readSchema = (name) => JSON.parse(readFileSync(new URL(`schemas/${name}`, root), 'utf8'))
const realPath = new URL('fixtures/real-results.json', import.meta.url).pathname
const real = () => JSON.parse(readFileSync(realPath, 'utf8'))

/** A validator built here from the shipped files alone, as a user of the schemas would build it. */
function compile () {
  const ajv = new Ajv2020({ allowUnionTypes: true })
  ajv.addSchema(readSchema('load-result.schema.json'))
  ajv.addSchema(readSchema('results.schema.json'))
  return { results: ajv.getSchema('syncbench/results@1'), load: ajv.getSchema('syncbench/load-result@1') }
}

let dir
before(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'syncbench-schema-')) })
after(() => rm(dir, { recursive: true, force: true }))

test('the schemas are shipped, draft 2020-12, $id = the schema field, results referencing load-result', async () => {
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'))
  assert.ok(pkg.files.includes('schemas'), 'package.json "files" ships schemas/')
  assert.ok(pkg.dependencies.ajv, 'ajv is a dependency')
  const results = readSchema('results.schema.json')
  const load = readSchema('load-result.schema.json')
  assert.equal(results.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.equal(load.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.equal(results.$id, 'syncbench/results@1')
  assert.equal(load.$id, 'syncbench/load-result@1')
  assert.deepEqual(results.properties.schema, { const: 'syncbench/results@1' })
  assert.deepEqual(load.properties.schema, { const: 'syncbench/load-result@1' })
  assert.match(JSON.stringify(results.$defs.run.properties.load), /"\$ref":"load-result@1"/)
  // Open where other fields are coming, closed where the set of keys is fixed.
  assert.notEqual(results.additionalProperties, false)
  assert.notEqual(load.additionalProperties, false)
  assert.equal(load.properties.percentiles.additionalProperties, false)
})

test('what syncbench run wrote, and the report fixture, validate', () => {
  const { results } = compile()
  assert.ok(results(real()), JSON.stringify(results.errors))
  assert.ok(results(JSON.parse(readFileSync(fixturePath, 'utf8'))), JSON.stringify(results.errors))
})

test('syncbench ab --json output validates against load-result.schema.json', async () => {
  const { load } = compile()
  const server = await startHttpServer((req, res) => {
    res.statusCode = req.url === '/missing' ? 404 : 200
    res.end('hello')
  })
  try {
    for (const args of [['-n', '10', '-c', '2'], ['-k', '-n', '10', '-c', '3'], ['--http1.1', '-n', '5']]) {
      for (const route of ['', 'missing']) {
        const { code, stdout, stderr } = await runCli(['ab', '--json', ...args, server.url + route])
        assert.equal(code, 0, stderr)
        const result = JSON.parse(stdout)
        assert.ok(load(result), `${args.join(' ')} ${route}: ${JSON.stringify(load.errors)}`)
      }
    }
  } finally {
    await server.close()
  }
})

test('a results file with a wrong field: one line naming its path, exit 1, for report and compare', async () => {
  const cases = [
    [(r) => { r.runs[0].load.timePerRequestMs = null }, '/runs/0/load/timePerRequestMs must be number, got null'],
    [(r) => { delete r.environment }, '/environment is missing'],
    [(r) => { r.runs = [null] }, '/runs/0 must be object, got null'],
    [(r) => { r.runs[1].server.memory = 'lots' }, '/runs/1/server/memory must be object, got string "lots"'],
    [(r) => { r.runs[0].load = 5 }, '/runs/0/load must be null or object, got number 5'],
    [(r) => { r.runs[0].load.percentiles['42'] = 1 }, '/runs/0/load/percentiles has an unexpected key "42"'],
    [(r) => { r.experiments[0].table = 'seed-003' }, '/experiments/0/table must be one of "seed-001", "seed-002", "generic", "thread-cost", got string "seed-003"'],
    [(r) => { r.runs[0].config.strategy = null }, '/runs/0/config/strategy must be string, number or boolean, got null']
  ]
  for (const [i, [mutate, message]] of cases.entries()) {
    const data = real()
    mutate(data)
    const file = path.join(dir, `bad-${i}.json`)
    await writeFile(file, JSON.stringify(data))
    for (const args of [['report', file, '--out', path.join(dir, 'out')], ['compare', realPath, file]]) {
      const { code, stdout, stderr } = await runCli(args)
      assert.equal(code, 1, `${args[0]} ${message}: ${stderr}`)
      assert.equal(stdout, '')
      assert.equal(stderr, `syncbench ${args[0]}: ${file}: ${message}\n`)
    }
  }
})
