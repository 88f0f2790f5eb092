// The ready CI workflows of examples/ci (docs/ci.md): each parses as YAML, holds only the keys its
// platform documents where it uses them, runs the recipe (the base checked out beside the change, one
// interleaved run of both, the gate on its one results file), and every syncbench command line in it
// parses with syncbench's own parser, so the workflows cannot drift from the CLI.
//   GitHub Actions: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax
//   GitLab CI/CD:   https://docs.gitlab.com/ci/yaml/
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { parse } from 'yaml'
import { shellWords } from '../scripts/docs.js'
import { parseAppOption } from '../lib/run/experiment-loader.js'
import { checkCommandLine, scriptCommandLines } from './fixtures/command-lines.js'

const read = async (/** @type {string} */ name) => parse(await readFile(new URL(`../examples/ci/${name}`, import.meta.url), 'utf8'))
const github = await read('github-actions.yml')
const gitlab = await read('gitlab-ci.yml')

/**
 * Every syncbench command line of some scripts, checked; the problems found.
 * @param {string[]} scripts
 */
async function commandProblems (scripts) {
  const problems = []
  for (const line of scripts.flatMap(scriptCommandLines)) {
    const { checked, problem } = await checkCommandLine(line)
    assert.ok(checked, `not a syncbench command: ${line}`)
    if (problem !== null) problems.push(problem)
  }
  return problems
}

/**
 * The recipe's two syncbench commands in a workflow's scripts: one run of a "before" app and an
 * "after" app, and the compare of its one results folder with the gate.
 * @param {string[]} scripts
 */
function checkRecipe (scripts) {
  const lines = scripts.flatMap(scriptCommandLines).map(shellWords)
  const runs = lines.filter((w) => w[1] === 'run')
  assert.equal(runs.length, 1, 'one run measures both versions, interleaved')
  const [run] = runs
  const valueOf = (/** @type {string[]} */ words, /** @type {string} */ flag) => words[words.indexOf(flag) + 1]
  const apps = parseAppOption(run.flatMap((w, i) => run[i - 1] === '--app' ? [w] : []))
  assert.deepEqual(apps.map((a) => a.name), ['before', 'after'], 'the base first: the first --app is the baseline')
  assert.match(apps[0].command, /\.\.\/base\b/, 'before runs the base checked out in ../base')
  assert.doesNotMatch(apps[1].command, /\.\.\/base\b/)
  assert.ok(Number(valueOf(run, '--runs')) >= 3, 'the gate needs 3 runs a side for an interval')
  const out = valueOf(run, '--out')
  const compares = lines.filter((w) => w[1] === 'compare')
  assert.ok(compares.length >= 1)
  for (const compare of compares) {
    // one file: its apps compared, after against before
    assert.deepEqual(compare.slice(2).filter((w, i, all) => !w.startsWith('-') && !all[i - 1]?.startsWith('-')), [out], compare.join(' '))
    assert.match(valueOf(compare, '--fail-if-slower'), /^\d+%$/)
  }
  return compares
}

test('GitHub Actions: the keys the workflow syntax documents, on pull_request, allowed to comment', () => {
  assert.deepEqual(Object.keys(github).filter((k) => !['name', 'run-name', 'on', 'permissions', 'env', 'defaults', 'concurrency', 'jobs'].includes(k)), [])
  const on = github.on
  assert.ok(on === 'pull_request' || (Array.isArray(on) ? on : Object.keys(on)).includes('pull_request'), 'runs on pull_request')
  const jobs = Object.entries(github.jobs)
  assert.equal(jobs.length, 1)
  const [[id, job]] = jobs
  assert.match(id, /^[A-Za-z_][\w-]*$/, 'a job id starts with a letter or _ and holds alphanumerics, - and _')
  const jobKeys = ['name', 'permissions', 'needs', 'if', 'runs-on', 'environment', 'concurrency', 'outputs', 'env', 'defaults', 'steps', 'timeout-minutes', 'strategy', 'continue-on-error', 'container', 'services']
  assert.deepEqual(Object.keys(job).filter((k) => !jobKeys.includes(k)), [])
  assert.equal(typeof job['runs-on'], 'string')
  // the comment: a pull request's comments are written through the token's pull-requests permission
  assert.equal((job.permissions ?? github.permissions)['pull-requests'], 'write')
  const stepKeys = ['id', 'if', 'name', 'uses', 'run', 'working-directory', 'shell', 'with', 'env', 'continue-on-error', 'timeout-minutes']
  for (const step of job.steps) {
    assert.deepEqual(Object.keys(step).filter((k) => !stepKeys.includes(k)), [], JSON.stringify(step))
    assert.ok(('uses' in step) !== ('run' in step), `a step either uses an action or runs a script: ${JSON.stringify(step)}`)
    // the official actions, each at a pinned major version
    if ('uses' in step) assert.match(step.uses, /^actions\/[\w-]+@v\d+$/)
    assert.ok(!step['continue-on-error'], 'no step hides a failure')
  }
})

test('GitHub Actions: the recipe: the PR\'s base in a worktree, both installed, one interleaved run, the gate, the comment, the artifact', async () => {
  const steps = github.jobs[Object.keys(github.jobs)[0]].steps
  const uses = steps.filter((s) => s.uses).map((s) => s.uses)
  for (const action of ['actions/checkout@v4', 'actions/setup-node@v4', 'actions/upload-artifact@v4']) assert.ok(uses.includes(action), action)
  assert.equal(String(steps.find((s) => s.uses === 'actions/setup-node@v4').with['node-version']), '22', 'the recommended line')
  const index = (/** @type {(s: any) => boolean} */ f) => { const i = steps.findIndex(f); assert.ok(i >= 0); return i }
  // the pull request's base (base.sha), not the commit before the push, passed through env rather
  // than pasted into the script
  const base = index((s) => /git worktree add \.\.\/base "\$BASE_SHA"/.test(s.run ?? ''))
  assert.equal(steps[base].env.BASE_SHA, '$' + '{{ github.event.pull_request.base.sha }}', 'a GitHub expression, not a shell variable')
  const installs = steps.filter((s) => /\bnpm ci\b/.test(s.run ?? ''))
  assert.deepEqual(installs.map((s) => /cd \.\.\/base/.test(s.run) || s['working-directory'] === '../base'), [false, true], 'npm ci in each')
  const scripts = steps.filter((s) => s.run).map((s) => s.run)
  const [compare] = checkRecipe(scripts)
  assert.deepEqual([compare.includes('--step-summary'), compare[compare.indexOf('--format') + 1]], [true, 'markdown'])
  // the gate's step exits with compare's code (3: slower), after writing it for the steps that follow
  const gate = index((s) => /syncbench compare/.test(s.run ?? ''))
  assert.ok(base < gate && index((s) => /syncbench run/.test(s.run ?? '')) < gate)
  assert.ok(steps[gate].id)
  assert.match(steps[gate].run, /> comparison\.md\n/)
  assert.match(steps[gate].run, /echo "exit-code=\$code" >> "\$GITHUB_OUTPUT"\nexit "\$code"\n$/)
  // the comment and the artifact run whatever the gate said, the comment only when it decided
  const comment = steps[index((s) => s.uses?.startsWith('actions/github-script@'))]
  assert.ok(steps.indexOf(comment) > gate)
  assert.match(comment.if, /^always\(\) && /)
  assert.ok(comment.if.includes(`steps.${steps[gate].id}.outputs.exit-code == '3'`))
  assert.match(comment.with.script, /readFileSync\('comparison\.md'/)
  const artifact = steps[index((s) => s.uses === 'actions/upload-artifact@v4')]
  assert.equal(artifact.if, 'always()')
  assert.deepEqual(artifact.with.path.trim().split('\n'), ['results/', 'comparison.md'])
  assert.deepEqual(await commandProblems(scripts), [])
})

test('GitLab CI: the keys the .gitlab-ci.yml reference documents, a job for merge request pipelines with a JUnit report', () => {
  const globalKeys = ['default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script']
  const jobs = Object.entries(gitlab).filter(([k]) => !globalKeys.includes(k))
  assert.ok(Array.isArray(gitlab.stages))
  assert.equal(jobs.length, 1)
  const [[, job]] = jobs
  const jobKeys = ['after_script', 'allow_failure', 'artifacts', 'before_script', 'cache', 'coverage', 'dependencies', 'environment', 'extends', 'id_tokens', 'image', 'inherit', 'interruptible', 'needs', 'parallel', 'release', 'resource_group', 'retry', 'rules', 'script', 'secrets', 'services', 'stage', 'tags', 'timeout', 'trigger', 'variables', 'when']
  assert.deepEqual(Object.keys(job).filter((k) => !jobKeys.includes(k)), [])
  assert.ok(gitlab.stages.includes(job.stage))
  assert.ok(Array.isArray(job.script) && job.script.every((s) => typeof s === 'string'))
  assert.equal(job.image, 'node:22', 'the recommended line')
  assert.ok(job.rules.some((r) => r.if === '$CI_PIPELINE_SOURCE == "merge_request_event"'), 'runs in merge request pipelines')
  assert.deepEqual(Object.keys(job.artifacts).filter((k) => !['paths', 'exclude', 'expire_in', 'expose_as', 'name', 'public', 'access', 'reports', 'untracked', 'when'].includes(k)), [])
  assert.equal(job.artifacts.when, 'always', 'kept when the gate fails the job')
  assert.equal(typeof job.artifacts.reports.junit, 'string')
  assert.deepEqual(job.artifacts.paths, ['results/', 'comparison.md'])
})

test('GitLab CI: the recipe: the MR\'s diff base in a worktree, both installed, one interleaved run, the markdown, the gate as JUnit', async () => {
  const job = gitlab[Object.keys(gitlab).find((k) => k !== 'stages')]
  const script = job.script
  const at = (/** @type {RegExp} */ re) => { const i = script.findIndex((s) => re.test(s)); assert.ok(i >= 0, String(re)); return i }
  const base = at(/^git worktree add \.\.\/base "\$CI_MERGE_REQUEST_DIFF_BASE_SHA"$/)
  assert.ok(at(/^npm ci$/) > base && at(/^\(cd \.\.\/base && npm ci\)$/) > base, 'npm ci in each')
  assert.equal(job.variables.GIT_DEPTH, '0', 'the base must be in the clone')
  const compares = checkRecipe(script)
  assert.deepEqual(compares.map((c) => c[c.indexOf('--format') + 1]), ['markdown', 'junit'])
  // the markdown's exit 3 is left to the gate (any other code stops the job); the gate's own exit fails it
  assert.match(script[at(/--format markdown/)], / > comparison\.md \|\| \[ \$\? -eq 3 \]$/)
  const junit = compares[1]
  assert.equal(junit[junit.indexOf('--out') + 1], job.artifacts.reports.junit)
  assert.doesNotMatch(script[at(/--format junit/)], /\|\||;|&/)
  assert.equal(at(/--format junit/), script.length - 1, 'the gate is the last line: the job\'s exit is its')
  assert.deepEqual(await commandProblems(script), [])
})

test('the command check refuses what syncbench does not know; a script\'s line is cut at its shell operators', async () => {
  assert.deepEqual(await checkCommandLine('syncbench compare results --fail-if-slower 5% --format junit --out junit.xml --step-summary'), { checked: true, problem: null })
  assert.match((await checkCommandLine('syncbench compare results --formt markdown')).problem ?? '', /unknown option "--formt"/)
  assert.match((await checkCommandLine('syncbench compare results --format markdown --fail-if-slower 5%%')).problem ?? '', /--fail-if-slower must be a percentage/)
  assert.match((await checkCommandLine('syncbench run --app x="node s.js" --step-summary')).problem ?? '', /unknown option "--step-summary"/)
  // a script's line is cut at the first shell operator outside quotes, a continued line joined
  assert.deepEqual(scriptCommandLines('set +e\nnpx syncbench run --app a="cd ../b && node s.js" \\\n  --runs 3 > log || true\necho syncbench run'),
    ['syncbench run --app a="cd ../b && node s.js" --runs 3'])
})
