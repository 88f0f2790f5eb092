// deploy/k8s/: the Indexed Job that runs syncbench ab shards and the Job that merges them, parsed as
// YAML (js-yaml) and checked where a mistake would silently measure something else: Indexed completion,
// as many pods at once as shards, JOB_COMPLETION_INDEX into --segment, one --start-at for all, a
// command line syncbench's own parser accepts, the merge reading what the shards write.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import yaml from 'js-yaml'
import { parseAbArgs } from '../lib/ab/ab-args.js'
import { binPath, runCommand, startHttpServer } from './helper.js'

const read = (/** @type {string} */ name) => readFileSync(new URL(`../deploy/k8s/${name}`, import.meta.url), 'utf8')

/**
 * A `sh -c` command's words up to its first redirection or `&&`, with $VARS from `env` (and
 * JOB_COMPLETION_INDEX as Kubernetes sets it) expanded and double quotes removed: enough for the
 * plain commands of these files.
 * @param {string} command @param {Record<string, string>} env
 */
function words (command, env) {
  const expanded = command.replace(/\$(\w+)/g, (_, name) => {
    assert.ok(Object.hasOwn(env, name), `$${name} is not set in the pod`)
    return env[name]
  })
  const list = expanded.split(/\s+/).filter(Boolean).map((w) => w.replace(/^"(.*)"$/, '$1'))
  const end = list.findIndex((w) => w === '>' || w === '&&')
  return end === -1 ? list : list.slice(0, end)
}

test('deploy/k8s/job.yaml: an Indexed Job whose pod i runs shard i/N of syncbench ab, all at one --start-at', () => {
  const docs = yaml.loadAll(read('job.yaml'))
  const job = docs.find((d) => d.kind === 'Job')
  const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim')
  assert.equal(job.apiVersion, 'batch/v1')
  assert.equal(job.spec.completionMode, 'Indexed')
  assert.equal(job.spec.parallelism, job.spec.completions, 'every shard must run at once')
  assert.equal(job.spec.backoffLimit, 0)
  const pod = job.spec.template.spec
  assert.equal(pod.restartPolicy, 'Never')
  const [container] = pod.containers
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]))
  assert.equal(Number(env.SHARDS), job.spec.completions, 'SHARDS is the number of completions')
  const command = [...container.command, ...container.args].join(' ')
  assert.deepEqual(container.command, ['sh', '-c'])
  assert.match(command, /--segment "\$JOB_COMPLETION_INDEX\/\$SHARDS"/)
  assert.match(command, /--start-at "\$START_AT"/)
  assert.match(command, /--json/)
  // every pod's command line, as syncbench parses it (a start a minute ahead, as the comment says)
  const startAt = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z')
  for (let index = 0; index < job.spec.completions; index++) {
    const argv = words(container.args.join(' '), { ...env, START_AT: startAt, JOB_COMPLETION_INDEX: String(index) })
    // no `exec`: the shell must live on to rename the finished file
    assert.deepEqual(argv.slice(0, 2), ['syncbench', 'ab'])
    const { options, output } = parseAbArgs(argv.slice(2))
    assert.deepEqual(options.segment, { index, count: job.spec.completions })
    assert.equal(options.startAt, startAt)
    assert.equal(output.json, true)
  }
  // the shards write where the merge reads
  const volume = pod.volumes.find((v) => v.name === container.volumeMounts[0].name)
  assert.equal(volume.persistentVolumeClaim.claimName, claim.metadata.name)
  assert.deepEqual(claim.spec.accessModes, ['ReadWriteMany'])
  assert.match(command, /\/results\/shard-\$JOB_COMPLETION_INDEX\.json/)
})

test('deploy/k8s/merge-job.yaml merges the shards\' files from the same volume; the image is node:20 + the published package', () => {
  const merge = yaml.load(read('merge-job.yaml'))
  assert.equal(merge.kind, 'Job')
  const pod = merge.spec.template.spec
  const command = [...pod.containers[0].command, ...pod.containers[0].args].join(' ')
  assert.match(command, /syncbench merge \/results\/shard-\*\.json/)
  const shards = yaml.loadAll(read('job.yaml')).find((d) => d.kind === 'Job')
  assert.equal(pod.volumes[0].persistentVolumeClaim.claimName, shards.spec.template.spec.volumes[0].persistentVolumeClaim.claimName)
  assert.equal(pod.containers[0].image, shards.spec.template.spec.containers[0].image)
  const dockerfile = read('Dockerfile')
  assert.match(dockerfile, /^FROM node:20/m)
  assert.match(dockerfile, /npm install --global "syncbench@/)
  // the install runs where a compiler is (the native transport), the pods run the slim image
  assert.match(dockerfile, /^FROM node:20-bookworm AS build$/m)
  assert.match(dockerfile, /^FROM node:20-bookworm-slim$/m)
  assert.match(dockerfile, /^COPY --from=build \/usr\/local\/lib\/node_modules\/syncbench /m)
})

/**
 * Run a container's `sh -c` script as its pod would, here: `syncbench` is this checkout's CLI, the
 * shared volume a temporary folder. Bounded to 60 s.
 * @param {string} script @param {Record<string, string>} env @param {string} volume
 */
async function runPodScript (script, env, volume) {
  const prelude = `syncbench () { "${process.execPath}" "${binPath}" "$@"; }\n`
  return runCommand('sh', ['-c', prelude + script.replaceAll('/results', volume)], { env, timeoutMs: 60_000 })
}

test('the pods\' shell commands, run here with a smaller load: every shard\'s file lands whole on the volume, the merge adds them up', async () => {
  const server = await startHttpServer((req, res) => res.end('ok'))
  const volume = mkdtempSync(path.join(os.tmpdir(), 'syncbench-k8s-'))
  try {
    const job = yaml.loadAll(read('job.yaml')).find((d) => d.kind === 'Job')
    const container = job.spec.template.spec.containers[0]
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]))
    // the same command with a load that ends at once: -n, -c and -R are the only numbers changed
    const script = container.args.join(' ').replace(/-n \d+ -c \d+ -R \d+/, '-n 40 -c 4 -R 400')
    assert.notEqual(script, container.args.join(' '), 'the load options are where this test expects them')
    // 4 s ahead: node starting on a busy machine must not make it more than 1 s past when it is read
    const startAt = new Date(Date.now() + 4000).toISOString()
    const shards = Number(env.SHARDS)
    const runs = await Promise.all(Array.from({ length: shards }, (_, i) => runPodScript(script,
      { ...env, TARGET: server.url, START_AT: startAt, JOB_COMPLETION_INDEX: String(i) }, volume)))
    for (const r of runs) assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(readdirSync(volume).sort(), Array.from({ length: shards }, (_, i) => `shard-${i}.json`).sort())
    const mergeJob = yaml.load(read('merge-job.yaml'))
    const merge = await runPodScript(mergeJob.spec.template.spec.containers[0].args.join(' '), {}, volume)
    assert.equal(merge.code, 0, merge.stderr)
    assert.match(merge.stdout, new RegExp(`^Merged ${shards} results \\(shards ${Array.from({ length: shards }, (_, i) => `${i}/${shards}`).join(', ')}\\)`))
    assert.match(merge.stdout, /\nComplete requests: {6}40\n/)
    const merged = JSON.parse(readFileSync(path.join(volume, 'merged.json'), 'utf8'))
    assert.equal(merged.completeRequests, 40)
    assert.equal(merged.openLoop.targetRate, 400)
  } finally {
    await server.close()
    rmSync(volume, { recursive: true, force: true })
  }
})
