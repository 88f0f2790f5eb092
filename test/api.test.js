// The package's public API, imported by its name as a user would (package.json "exports").
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import * as api from 'syncbench'
import { startHttpServer } from './helper.js'

test('index.js exports exactly the curated API: no chart, SVG or PNG internals', () => {
  assert.deepEqual(Object.keys(api).sort(), [
    'ConnectError', 'ExperimentError', 'InvalidOptionError', 'InvalidUrlError', 'MAX_CONCURRENCY',
    'MissingArgumentError', 'NativeIoError', 'RESULTS_SCHEMA', 'ResultsError', 'ServerExitedError', 'ServerMetricsError',
    'ServerStartError', 'SyncbenchError', 'TimeoutError', 'UnknownOptionError', 'appNames', 'builtinExperiment',
    'compareResults', 'defaultExperiments', 'defaultOptions', 'errorCodes', 'experiments', 'formatAbReport',
    'listExperiments', 'loadExperimentFile', 'loadWorkload', 'loadtest', 'mergeLoadResults', 'openSharedConnection', 'parseAbArgs', 'readResultsFile',
    'renderSummaryMarkdown', 'runExperiments', 'spawnServer', 'startApp', 'summarize', 'summarizeResults',
    'validateExperiment', 'version', 'welchTTest', 'writeReport'
  ].sort())
})

test('every error code has its value under errorCodes, and every thrown code its class', () => {
  for (const [key, code] of Object.entries(api.errorCodes)) assert.equal(code, `SB_ERR_${key}`)
  const classes = [api.InvalidOptionError, api.UnknownOptionError, api.MissingArgumentError, api.InvalidUrlError,
    api.ConnectError, api.TimeoutError, api.ServerStartError, api.ServerExitedError, api.ServerMetricsError,
    api.ExperimentError, api.ResultsError, api.NativeIoError]
  const codes = classes.map((Class) => {
    const err = new Class('x')
    assert.ok(err instanceof api.SyncbenchError)
    assert.equal(err.name, 'SyncbenchError')
    return err.code
  })
  assert.equal(new Set(codes).size, classes.length)
  for (const code of codes) assert.ok(Object.values(api.errorCodes).includes(code))
})

test('parseAbArgs + loadtest + formatAbReport through the package name', async () => {
  const body = 'hello'
  const server = await startHttpServer((req, res) => {
    res.writeHead(200, { 'Content-Length': body.length })
    res.end(body)
  })
  after(() => server.close())
  const { options } = api.parseAbArgs(['-k', '-c', '2', '-n', '10', server.url])
  const result = await api.loadtest(options)
  assert.equal(result.completeRequests, 10)
  assert.equal(result.keepAliveRequests, 10)
  assert.equal(result.htmlTransferredBytes, 10 * body.length)
  assert.match(api.formatAbReport(result, {}), /^Complete requests: {6}10$/m)
})

test('SyncbenchError carries a stable code', async () => {
  await assert.rejects(api.loadtest({ url: 'ftp://127.0.0.1/' }), (err) => err instanceof api.SyncbenchError && err.code === 'SB_ERR_INVALID_URL')
  await assert.rejects(api.loadtest({ url: 'ftp://127.0.0.1/' }), api.InvalidUrlError)
})

test('a run ab would abort rejects with ConnectError and its partial result on the declared field', async () => {
  const err = await api.loadtest({ url: 'http://127.0.0.1:1/', requests: 2 }).then(() => null, (e) => e)
  assert.ok(err instanceof api.ConnectError)
  assert.equal(err.code, api.errorCodes.CONNECT)
  assert.equal(err.result.completeRequests, 0)
  assert.equal(err.result.aborted, true)
})
