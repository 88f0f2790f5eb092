// The package's public API, imported by its name as a user would (package.json "exports").
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import * as api from 'syncbench'
import { startHttpServer } from './helper.js'

test('index.js exports exactly the documented API', () => {
  assert.deepEqual(Object.keys(api).sort(), [
    'RESULTS_SCHEMA', 'SyncbenchError', 'appNames', 'builtinExperiment', 'chartsFor', 'collectEnvironment',
    'compareResults', 'createServerMetrics', 'defaultExperiments', 'experimentTables', 'experiments',
    'formatAbReport', 'listExperiments', 'loadExperimentFile', 'loadWorkload', 'loadtest', 'parseAbArgs',
    'readResultsFile', 'renderChartSvg', 'renderHtml', 'renderReport', 'renderSummaryMarkdown', 'runExperiments',
    'spawnServer', 'startApp', 'summarize', 'summarizeResults', 'svgToPng', 'textCharts', 'validateExperiment',
    'version', 'welchTTest'
  ].sort())
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
})
