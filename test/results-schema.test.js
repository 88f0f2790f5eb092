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

/**
 * The field paths of `value` that `schema` does not name: each key must be a property of its object's
 * schema, or fall under an additionalProperties schema (config, statusCodes...). $refs are followed
 * (within a file, and load-result@1 from results), anyOf takes the branch of the value's type.
 * @param {unknown} value
 * @param {any} schema
 * @param {Record<string, any>} files  $id -> schema
 * @param {any} root  the schema file `#/` refers to
 * @param {string} [at]
 * @returns {string[]}
 */
function undocumented (value, schema, files, root, at = '') {
  if (schema.$ref) {
    const [file, pointer = ''] = schema.$ref.split('#')
    const base = file ? files[file] : root
    const target = pointer.split('/').slice(1).reduce((o, k) => o[k], base)
    return undocumented(value, target, files, base, at)
  }
  if (schema.anyOf) {
    const branch = schema.anyOf.find((b) => value === null ? b.type === 'null' : b.type !== 'null')
    return branch ? undocumented(value, branch, files, root, at) : [at]
  }
  if (value === null || typeof value !== 'object') return []
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => undocumented(v, schema.items, files, root, `${at}/${i}`)) : []
  return Object.entries(value).flatMap(([k, v]) => {
    const sub = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : null)
    return sub ? undocumented(v, sub, files, root, `${at}/${k}`) : [`${at}/${k}`]
  })
}

const schemaFiles = () => ({ 'load-result@1': readSchema('load-result.schema.json'), 'results@1': readSchema('results.schema.json') })

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

test('the schemas name every field the current code writes (syncbench run, the report fixture)', () => {
  const files = schemaFiles()
  const file = real()
  // the fixture is a real file from this code: it has the fields added since the schemas were first written
  assert.equal(typeof file.runs[0].load.latencyHistogram, 'string')
  assert.ok(file.runs[0].server.series && file.runs[0].server.contextSwitches && file.experiments[0].calibration.timings)
  assert.ok('invalid' in file.runs[0] && 'allowErrors' in file.options)
  for (const data of [file, JSON.parse(readFileSync(fixturePath, 'utf8'))]) {
    assert.deepEqual(undocumented(data, files['results@1'], files, files['results@1']), [])
  }
  // loopBlocks (lib/lab/loop-blocks.js), newer than the fixture: named and valid
  const blocked = real()
  blocked.runs[0].server.loopBlocks = { thresholdMs: 20, spans: [[0, 61.2], [80.4, 141]], mergedGapMs: 0, routes: [{ route: 'POST /login', ms: 118, blocks: 2 }] }
  assert.ok(compile().results(blocked), JSON.stringify(compile().results.errors))
  assert.deepEqual(undocumented(blocked, files['results@1'], files, files['results@1']), [])
  // a scan's plan (lib/report/kinds/scan.js) and the memory at the window's start (lib/lab/metrics.js): named and valid
  const scanned = real()
  scanned.experiments[0].table = 'scan'
  scanned.experiments[0].scan = {
    budgetMs: 90000,
    frameworks: [{ name: 'express', version: '5.1.0' }],
    tried: ['express'],
    notes: [],
    routes: [
      { key: 'POST /login', method: 'POST', pattern: '/login', path: '/login', from: ['express', 'openapi'], declared: { file: 'app.js', line: 12 }, headers: ['Accept: application/json'], body: { contentType: 'application/json', text: '{}' }, skipped: null },
      { key: 'GET /users/:id', method: 'GET', pattern: '/users/:id', path: null, from: ['express'], declared: null, skipped: { reason: 'needs :id', flag: '--param id=VALUE' } }
    ]
  }
  Object.assign(scanned.runs[0].server.memory, { startRssBytes: 50e6, startHeapUsedBytes: 8e6 })
  assert.ok(compile().results(scanned), JSON.stringify(compile().results.errors))
  assert.deepEqual(undocumented(scanned, files['results@1'], files, files['results@1']), [])
  // optional where older files lack them, so older files still validate
  const { results } = compile()
  const old = real()
  for (const run of old.runs) {
    delete run.load.latencyHistogram
    delete run.server.series
    delete run.server.contextSwitches
    delete run.invalid
  }
  for (const key of ['timings', 'opMsMin', 'opMsMax', 'ceilingLowRps', 'ceilingHighRps', 'opCpuMsMin']) delete old.experiments[0].calibration[key]
  assert.ok(results(old), JSON.stringify(results.errors))
})

test('syncbench ab --json output validates against load-result.schema.json', async () => {
  const { load } = compile()
  const server = await startHttpServer((req, res) => {
    res.statusCode = req.url === '/missing' ? 404 : 200
    res.end('hello')
  })
  try {
    // -R: the open loop's fields (latencyUncorrected, openLoop, latencyHistogramUncorrected, options.rate)
    for (const args of [['-n', '10', '-c', '2'], ['-k', '-n', '10', '-c', '3'], ['--http1.1', '-n', '5'], ['-R', '200', '-k', '-n', '10', '-c', '2']]) {
      for (const route of ['', 'missing']) {
        const { code, stdout, stderr } = await runCli(['ab', '--json', ...args, server.url + route])
        assert.equal(code, 0, stderr)
        const result = JSON.parse(stdout)
        assert.ok(load(result), `${args.join(' ')} ${route}: ${JSON.stringify(load.errors)}`)
        assert.equal(typeof result.latencyHistogram, 'string', 'the histogram is in the JSON')
        if (args[0] === '-R') assert.ok(result.openLoop && result.latencyUncorrected && typeof result.latencyHistogramUncorrected === 'string', 'the open loop is in the JSON')
        const files = schemaFiles()
        assert.deepEqual(undocumented(result, files['load-result@1'], files, files['load-result@1']), [], 'every field named')
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
    // was: 'not a syncbench results file (schema "syncbench/results@1", expected "syncbench/results@1")'
    [(r) => { delete r.runs }, '/runs is missing'],
    [(r) => { r.runs = [null] }, '/runs/0 must be object, got null'],
    [(r) => { r.runs[1].server.memory = 'lots' }, '/runs/1/server/memory must be object, got string "lots"'],
    [(r) => { r.runs[0].load = 5 }, '/runs/0/load must be null or object, got number 5'],
    [(r) => { r.runs[0].load.percentiles['42'] = 1 }, '/runs/0/load/percentiles has an unexpected key "42"'],
    [(r) => { r.experiments[0].table = 'seed-003' }, '/experiments/0/table must be one of "seed-001", "seed-002", "generic", "thread-cost", "rate-sweep", "h2-head-of-line", "app", "scan", got string "seed-003"'],
    [(r) => { r.runs[0].config.strategy = null }, '/runs/0/config/strategy must be string, number or boolean, got null'],
    // the fields added since the schemas were first written, and what a schema cannot check
    [(r) => { r.runs[0].load.latencyHistogram = 42 }, '/runs/0/load/latencyHistogram must be string or null, got number 42'],
    [(r) => { r.runs[1].load.latencyHistogram = r.runs[1].load.latencyHistogram.slice(0, 24) }, /^\/runs\/1\/load\/latencyHistogram \(run "seed-bcrypt\/async#1"\) is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour \(.+\)$/],
    [(r) => { r.runs[0].load.latencyHistogram = 'not base64!' }, /^\/runs\/0\/load\/latencyHistogram \(run "seed-bcrypt\/sync#1"\) is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour \(.+\)$/],
    [(r) => { r.runs[0].load.latencyHistogramUncorrected = 'not base64!' }, /^\/runs\/0\/load\/latencyHistogramUncorrected \(run "seed-bcrypt\/sync#1"\) is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour \(.+\)$/],
    [(r) => { r.runs[0].load.openLoop = { targetRate: 100, achievedRate: 99, lateRequests: -1, lateThresholdMs: 5 } }, '/runs/0/load/openLoop/lateRequests must be >= 0, got number -1'],
    [(r) => { r.runs[0].server.series.t = 'x' }, '/runs/0/server/series/t must be array, got string "x"'],
    [(r) => { r.runs[1].server.series.cpuPercent.pop() }, /^\/runs\/1\/server\/series\/cpuPercent has \d+ samples, \/runs\/1\/server\/series\/t has \d+: the arrays are parallel$/],
    [(r) => { r.runs[0].server.series.rssBytes[0] = null }, '/runs/0/server/series/rssBytes/0 must be number, got null'],
    [(r) => { r.runs[0].server.loopBlocks = { thresholdMs: 20, spans: [[5]], mergedGapMs: 0 } }, '/runs/0/server/loopBlocks/spans/0 must have at least 2 items, got array'],
    [(r) => { r.runs[1].server.loopBlocks = { thresholdMs: 20, spans: [[0, 50], [40, 90]], mergedGapMs: 0 } }, '/runs/1/server/loopBlocks/spans/1 is [40,90] after [0,50]: spans end after they start, in order, without overlap'],
    [(r) => { r.runs[0].server.loopBlocks = { thresholdMs: 20, spans: [[30, 10]], mergedGapMs: 0 } }, '/runs/0/server/loopBlocks/spans/0 is [30,10]: spans end after they start, in order, without overlap'],
    [(r) => { r.runs[0].server.contextSwitches.voluntary = '3' }, '/runs/0/server/contextSwitches/voluntary must be integer, got string "3"'],
    [(r) => { r.experiments[0].calibration.timings = [null] }, '/experiments/0/calibration/timings/0 must be object, got null'],
    [(r) => { r.experiments[0].calibration.ceilingHighRps = 'fast' }, '/experiments/0/calibration/ceilingHighRps must be number, got string "fast"'],
    [(r) => { r.experiments[0].scan = { budgetMs: 1000, frameworks: [], tried: [], notes: [], routes: [{ key: 'GET /a', method: 'GET', pattern: '/a', path: '/a', from: [], declared: null }] } }, '/experiments/0/scan/routes/0/skipped is missing']
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
      if (typeof message === 'string') assert.equal(stderr, `syncbench ${args[0]}: ${file}: ${message}\n`)
      else {
        assert.ok(stderr.startsWith(`syncbench ${args[0]}: ${file}: `) && stderr.endsWith('\n') && stderr.split('\n').length === 2, stderr)
        assert.match(stderr.slice(`syncbench ${args[0]}: ${file}: `.length, -1), message)
      }
    }
  }
})
