// npm run mutate: StrykerJS plants small bugs (mutants) one at a time in the rules the figures come from
// (bounds and predict, the gate, validity, per-route figures, the routes of blocking spans, how a mix
// shares its connections) and runs the fast unit test files on each; a mutant no test notices is a rule
// no test holds. Not part of npm test: 7 to 17 minutes on 2 cores. npx fetches it at pinned
// versions: as a devDependency it would re-resolve much of the lock file, and npm test never needs it.
// The report: reports/mutation.html and reports/mutation.json. Widen `mutate` (all of lib/analysis) and
// `tap.testFiles` for a fuller picture, at the cost of hours.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  // node:test files run as plain node scripts print TAP, which the tap runner reads
  tap: {
    testFiles: ['test/analysis-bounds.test.js', 'test/analysis-edges-2.test.js', 'test/load-routes.test.js', 'test/run-profile.test.js'],
    nodeArgs: []
  },
  mutate: [
    'lib/analysis/bounds.js',
    'lib/analysis/gate.js',
    'lib/analysis/validity.js',
    'lib/analysis/routes-summary.js',
    // combineRoutes: the routes of blocking spans added over runs
    'lib/analysis/profile.js',
    'lib/load/routes.js'
  ],
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'html', 'json', 'progress-append-only'],
  htmlReporter: { fileName: 'reports/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation.json' },
  timeoutMS: 30_000,
  // tsconfig.json left out of the sandbox: Stryker would rewrite it with typescript imported from its own
  // folder (npx's), where there is none; no test file run here reads it
  ignorePatterns: ['bench', 'docs', 'examples', 'results', 'reports', 'tsconfig*.json'],
  tempDirName: '.stryker-tmp'
}
