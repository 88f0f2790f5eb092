// Where experiments come from: the built-in list, a user's --experiment file (.js default export or
// .json), or a --workload module of handlers (served by lib/lab/workload-host.js in the server child;
// the runner asks that child for the handler names). Every definition is validated here, so the
// runner only ever sees a well-formed one.
import path from 'node:path'
import { readFile, stat } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { ExperimentError, InvalidOptionError, firstLine, invalidOption, systemCode } from '../errors.js'
import { experiments as builtins } from './experiments.js'
import { workloadHandlerNames } from './runner.js'
import { LOAD_AXES, OFFERED_AXIS } from './plan.js'
import { checkLoadOption, checkLoadOptions, keySpelling } from '../load/options.js'

/**
 * @typedef {object} Variant
 * @property {string} label
 * @property {string} path                 route with optional query, e.g. "/bcrypt/async?cost=4"
 * @property {Record<string, string|number|boolean>} [config]
 * @property {Partial<ServerSpec>} [server] merged over the experiment's server
 * @property {boolean} [sweep]             false: run once, outside the axes (a reference beside the sweep, e.g.
 *                                         readFileSync beside fake async's delays); default true
 */

/**
 * @typedef {object} ServerSpec
 * @property {string} [app]                 a `syncbench serve` app: seed-bcrypt, seed-readfile, lab
 * @property {string} [workload]            absolute path of a --workload module (served by lib/lab/workload-host.js)
 * @property {string[]} [args]
 * @property {Record<string, string>} [env]
 */

/**
 * How a rate-sweep finds its rates and judges them.
 * @typedef {object} RateSweep
 * @property {number} stepSeconds          each step sends offered rate x stepSeconds intended requests
 * @property {number} capacitySeconds      the closed-loop run that measures a variant's capacity (req/s), -t
 * @property {number} capacityConcurrency  its connections
 * @property {number} sloP99Ms             the p99 a variant must stay under to sustain a rate (--slo-p99 overrides)
 */

/**
 * @typedef {object} Experiment
 * @property {string} name
 * @property {string} title
 * @property {string} description
 * @property {'seed-001'|'seed-002'|'generic'|'thread-cost'|'rate-sweep'} [table]
 * @property {string} [baseline]           a variant label or config.strategy
 * @property {string} [reference]          seed-002: the 100% row
 * @property {number} [runs]             repeats of each configuration unless --runs says otherwise
 * @property {ServerSpec} server
 * @property {Record<string, any>} [load]  LoadOptions without url, checked by lib/load/options.js (a file's
 *                                         load section may carry notes of its own, so not Partial<LoadOptions>)
 * @property {{ requests: number, concurrency: number }} [warmup]
 * @property {Variant[]} variants
 * @property {Record<string, (string|number|boolean)[]>} [axes]
 * @property {Record<string, string>} [serverAxes]  axes the server takes as a `syncbench serve` option at spawn
 *                                         rather than in the query string: { delay: '--delay' } (a seed server reads no query)
 * @property {import('./calibrate.js').CalibrationSpec} [calibration]
 * @property {RateSweep} [rateSweep]      an open-loop sweep: axes.offered are fractions of each variant's capacity,
 *                                         measured first by a closed-loop run (lib/run/runner.js); builtin engine only
 * @property {boolean} [probe]             run the probe (lib/run/probe.js) beside every measured load unless
 *                                         --no-probe says otherwise (default false; --probe turns it on)
 */

const TABLES = ['seed-001', 'seed-002', 'generic', 'thread-cost', 'rate-sweep']
const OPS = ['bcrypt', 'bcryptjs', 'readfile']

/** @returns {Experiment[]} */
export function listExperiments () {
  return builtins
}

/**
 * @param {string} name
 * @returns {Experiment}
 */
export function builtinExperiment (name) {
  const found = builtins.find((e) => e.name === name)
  if (!found) {
    throw new ExperimentError(`unknown experiment "${name}" (try: ${[...builtins.map((e) => e.name), 'all'].join(', ')}; see syncbench run --list)`)
  }
  return found
}

/** The files an --experiment may import; anything else but .json is refused before it could run. */
const MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs']

/**
 * Load a user's experiment file: a .json file, or a module whose default export is one experiment
 * or an array of them.
 * @param {string} file as given on the command line
 * @param {string} cwd
 * @returns {Promise<Experiment[]>}
 */
export async function loadExperimentFile (file, cwd) {
  const abs = await existingFile('--experiment', file, cwd)
  const ext = path.extname(abs).toLowerCase()
  // import() runs any file it is given (an extensionless one as CommonJS): only modules are imported
  if (ext !== '.json' && !MODULE_EXTENSIONS.includes(ext)) {
    throw new ExperimentError(`--experiment ${file}: must be a .json file or a module (${MODULE_EXTENSIONS.join(', ')})`)
  }
  let data
  try {
    if (ext === '.json') data = JSON.parse(await readFile(abs, 'utf8'))
    else data = (await import(pathToFileURL(abs).href)).default
  } catch (err) {
    throw new ExperimentError(`--experiment ${file} cannot be loaded: ${firstLine(err)}`, { cause: err })
  }
  const list = Array.isArray(data) ? data : [data]
  return list.map((e, i) => {
    const v = validateExperiment(e, `--experiment ${file}${list.length > 1 ? ` [${i}]` : ''}`)
    // A workload module named in the file is found next to the file, wherever syncbench runs from.
    if (v.server.workload) v.server = { ...v.server, workload: path.resolve(path.dirname(abs), v.server.workload) }
    return v
  })
}

/**
 * Build the experiment that serves and compares a --workload module's handlers (one route per exported
 * function, named after it).
 * @param {string} file
 * @param {string} cwd
 * @param {{ baseline?: string }} [options] baseline: the handler the others are compared with (--baseline;
 *        default sync, else the first export); it must be one of the module's handlers
 * @returns {Promise<Experiment>}
 */
export async function loadWorkload (file, cwd, { baseline } = {}) {
  const abs = await existingFile('--workload', file, cwd)
  const exported = await workloadHandlerNames(abs, file)
  if (baseline !== undefined && !exported.includes(baseline)) {
    throw invalidOption('--baseline', baseline, `must be one of the handlers ${file} exports: ${exported.join(', ')}`)
  }
  const first = baseline ?? (exported.includes('sync') ? 'sync' : exported[0])
  // A module namespace lists its exports alphabetically: put the baseline (usually sync) first.
  const names = [...exported].sort((a, b) => Number(b === first) - Number(a === first))
  return validateExperiment({
    name: 'workload',
    title: `Your handlers: ${path.basename(abs)}`,
    description: `${names.join(', ')} from ${file}`,
    table: 'generic',
    baseline: first,
    server: { workload: abs },
    load: { requests: 200, concurrency: 10, keepAlive: true },
    variants: names.map((n) => ({ label: n, path: `/${encodeURIComponent(n)}`, config: { strategy: n, workload: path.basename(abs) } }))
  }, `--workload ${file}`)
}

/**
 * Check an experiment definition and fill its defaults.
 * @param {any} e
 * @param {string} where names the source in error messages
 * @returns {Experiment}
 */
export function validateExperiment (e, where) {
  /** @param {string} what @param {unknown} [cause] */
  const bad = (what, cause) => new ExperimentError(`${where}: ${what}`, cause === undefined ? undefined : { cause })
  /**
   * The load options' own rules (lib/load/options.js), as the CLI and loadtest() apply them. The file
   * is what is wrong, so an ExperimentError, with the option's InvalidOptionError as its cause.
   * @param {() => void} check
   */
  const checkLoad = (check) => {
    try {
      check()
    } catch (err) {
      if (err instanceof InvalidOptionError) throw bad(err.message, err)
      throw err
    }
  }
  if (!e || typeof e !== 'object') throw bad('an experiment must be an object')
  // the name becomes file names (charts/<name>-throughput.png) and HTML ids: short, and of safe characters
  if (typeof e.name !== 'string' || !/^[\w.-]{1,64}$/.test(e.name)) throw bad(`name must be 1 to 64 letters, digits, "-", "_" or ".", got "${e.name}"`)
  if (e.table !== undefined && !TABLES.includes(e.table)) throw bad(`table must be one of ${TABLES.join(', ')}, got "${e.table}"`)
  if (!e.server || (typeof e.server.app !== 'string' && typeof e.server.workload !== 'string')) throw bad('server.app must name a syncbench serve app (seed-bcrypt, seed-readfile, lab)')
  if (!Array.isArray(e.variants) || e.variants.length === 0) throw bad('variants must be a non-empty array')
  const labels = new Set()
  for (const v of e.variants) {
    if (!v || typeof v.label !== 'string' || v.label === '') throw bad('every variant needs a label')
    if (labels.has(v.label)) throw bad(`variant label "${v.label}" appears twice`)
    if (v.sweep !== undefined && typeof v.sweep !== 'boolean') throw bad(`variant "${v.label}": sweep must be true or false, got "${v.sweep}"`)
    labels.add(v.label)
    if (typeof v.path !== 'string' || !v.path.startsWith('/')) throw bad(`variant "${v.label}": path must start with "/", got "${v.path}"`)
  }
  if (e.runs !== undefined && !(Number.isInteger(e.runs) && e.runs > 0 && e.runs <= 1000)) throw bad(`runs must be an integer from 1 to 1000, got "${e.runs}"`)
  const load = { ...e.load }
  checkLoad(() => checkLoadOptions(load, keySpelling('load.')))
  if (e.warmup !== null && typeof e.warmup === 'object') checkLoad(() => checkLoadOptions(e.warmup, keySpelling('warmup.')))
  const axes = e.axes ?? {}
  for (const [name, values] of Object.entries(axes)) {
    if (!Array.isArray(values) || values.length === 0) throw bad(`axes.${name} must be a non-empty array`)
    // a sweep over a load option (concurrency, requests, keepAlive): every point must be a value it takes
    if (Object.hasOwn(LOAD_AXES, name)) checkLoad(() => { for (const v of values) checkLoadOption(LOAD_AXES[name], v, keySpelling('axes.')) })
  }
  for (const [name, flag] of Object.entries(e.serverAxes ?? {})) {
    if (!Object.hasOwn(axes, name)) throw bad(`serverAxes.${name} names no axis (axes: ${Object.keys(axes).join(', ') || 'none'})`)
    if (typeof flag !== 'string' || !/^--[a-z][\w-]*$/.test(flag)) throw bad(`serverAxes.${name} must be a syncbench serve option such as "--delay", got "${flag}"`)
  }
  if (e.rateSweep !== undefined) checkRateSweep(e, bad)
  else if (Object.hasOwn(e.axes ?? {}, OFFERED_AXIS)) throw bad(`axes.${OFFERED_AXIS} are fractions of a measured capacity: they need a rateSweep section`)
  if (e.probe !== undefined && typeof e.probe !== 'boolean') throw bad(`probe must be true or false, got "${e.probe}"`)
  if (e.calibration !== undefined && !OPS.includes(e.calibration?.op)) throw bad(`calibration.op must be one of ${OPS.join(', ')}, got "${e.calibration?.op}"`)
  const baseline = e.baseline ?? e.variants[0].label
  return {
    table: 'generic',
    description: '',
    ...e,
    title: e.title ?? e.name,
    baseline,
    load,
    axes,
    warmup: { requests: 4, concurrency: 2, ...e.warmup }
  }
}

/** The bounds of a rateSweep's numbers. */
const RATE_SWEEP_FIELDS = /** @type {const} */ ({ stepSeconds: 3600, capacitySeconds: 3600, capacityConcurrency: 20000, sloP99Ms: 3_600_000 })

/**
 * A rateSweep section and its offered axis: positive numbers within bounds, fractions of capacity.
 * @param {any} e
 * @param {(what: string) => Error} bad
 */
function checkRateSweep (e, bad) {
  const sweep = e.rateSweep
  if (!sweep || typeof sweep !== 'object') throw bad('rateSweep must be an object')
  for (const [field, max] of Object.entries(RATE_SWEEP_FIELDS)) {
    const v = sweep[field]
    const integer = field === 'capacityConcurrency'
    if (typeof v !== 'number' || !(v > 0) || v > max || (integer && !Number.isInteger(v))) {
      throw bad(`rateSweep.${field} must be a positive ${integer ? 'integer' : 'number'} up to ${max}, got "${v}"`)
    }
  }
  const offered = e.axes?.[OFFERED_AXIS]
  if (!Array.isArray(offered) || offered.length === 0) throw bad(`a rateSweep needs axes.${OFFERED_AXIS}: the offered rates as fractions of each variant's capacity (0.1 ... 1.2)`)
  for (const f of offered) if (typeof f !== 'number' || !(f > 0) || f > 100) throw bad(`axes.${OFFERED_AXIS} must be fractions of capacity above 0 (1 = the capacity), got "${f}"`)
  if (e.load?.rate !== undefined) throw bad('load.rate cannot be given with a rateSweep: its rates come from the measured capacity')
}

/**
 * @param {string} flag
 * @param {string} file as given on the command line
 * @param {string} cwd
 * @returns {Promise<string>} its absolute path
 */
async function existingFile (flag, file, cwd) {
  const abs = path.resolve(cwd, file)
  let info
  try {
    info = await stat(abs)
  } catch (err) {
    if (systemCode(err) === undefined) throw err
    throw new ExperimentError(`${flag} ${file}: no such file`)
  }
  if (!info.isFile()) throw new ExperimentError(`${flag} ${file}: not a file`)
  return abs
}
