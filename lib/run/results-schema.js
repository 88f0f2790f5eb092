// The JSON Schemas shipped in schemas/ (results.schema.json, load-result.schema.json: draft 2020-12, $id
// = the files' `schema` field) and the one check of a results file against them, done before anything
// reads it: a hand-edited, truncated or foreign file gets one line naming the field and what is wrong
// ("/runs/0/load/timePerRequestMs must be number, got null") instead of a TypeError in a chart.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ResultsError } from '../errors.js'
import { createHistogram, decodeHistogram } from '../load/histogram.js'

/** @typedef {import('ajv').ErrorObject} ErrorObject */
/** @typedef {import('ajv').ValidateFunction} ValidateFunction */

const SCHEMA_DIR = new URL('../../schemas/', import.meta.url)

/**
 * Ajv's draft 2020-12 class, required when a schema is first compiled: importing ajv (about a hundred
 * modules) costs a process that validates nothing (help, usage errors, a run's parent) ~0.1 s of CPU.
 * @returns {typeof import('ajv/dist/2020.js').Ajv2020}
 */
export function ajv2020 () {
  return createRequire(import.meta.url)('ajv/dist/2020.js').Ajv2020
}

/** @type {{ results: ValidateFunction, load: ValidateFunction }|null} */
let compiled = null

/** Compiled once, on first use: `syncbench ab` and `syncbench run` never pay for it. */
function validators () {
  if (compiled) return compiled
  /** @param {string} name */
  const read = (name) => JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8'))
  const ajv = new (ajv2020())({ allErrors: false, strict: true, allowUnionTypes: true })
  ajv.addSchema(read('load-result.schema.json'))
  ajv.addSchema(read('results.schema.json'))
  compiled = {
    results: /** @type {ValidateFunction} */ (ajv.getSchema('syncbench/results@1')),
    load: /** @type {ValidateFunction} */ (ajv.getSchema('syncbench/load-result@1'))
  }
  return compiled
}

/**
 * Check a parsed results file against schemas/results.schema.json.
 * @param {unknown} data
 * @param {string} file  named at the start of the message
 * @returns {asserts data is import('../types.js').ResultsFile}
 */
export function validateResults (data, file) {
  const validate = validators().results
  if (!validate(data)) throw new ResultsError(`${file}: ${describeSchemaError(validate.errors ?? [], data)}`)
  const problem = contentProblem(/** @type {import('../types.js').ResultsFile} */ (data))
  if (problem) throw new ResultsError(`${file}: ${problem}`)
}

/**
 * What a JSON Schema cannot say about a results file that matches it: a run's latencyHistogram (and an
 * open-loop run's latencyHistogramUncorrected, and the same of its probe's load) must
 * decode (HdrHistogram's compressed base64, 1 us to 1 hour), a server's series must be parallel
 * arrays, each with one entry per sample of `t`, and its loopBlocks spans must each end after they
 * start, in order, without overlap. Checked here, at the door, so that a hand-edited file
 * fails in one line naming the field rather than deep in a chart or a merged percentile.
 * @param {import('../types.js').ResultsFile} data  already valid against the schema
 * @returns {string|null}
 */
export function contentProblem (data) {
  for (const [i, run] of data.runs.entries()) {
    // the run's load and its probe's (both merged across runs: lib/analysis/latency.js), and an open-loop
    // run's (-R) latencyHistogramUncorrected, the twin of its latencyHistogram
    /** @type {[string, unknown][]} */
    const histograms = [['load/latencyHistogram', run.load?.latencyHistogram], ['load/latencyHistogramUncorrected', run.load?.latencyHistogramUncorrected],
      ['probe/load/latencyHistogram', run.probe?.load?.latencyHistogram], ['probe/load/latencyHistogramUncorrected', run.probe?.load?.latencyHistogramUncorrected]]
    for (const [where, histogram] of histograms) {
      if (typeof histogram !== 'string') continue
      try {
        // added to a histogram of syncbench's layout, as lib/analysis/latency.js merges the runs
        createHistogram().add(decodeHistogram(histogram))
      } catch (err) {
        return `/runs/${i}/${where} (run ${JSON.stringify(run.id)}) is not an HdrHistogram compressed base64 histogram of 1 us to 1 hour (${err instanceof Error ? err.message : err})`
      }
    }
    const series = run.server?.series
    if (series) {
      for (const key of /** @type {const} */ (['loopDelayMaxMs', 'cpuPercent', 'rssBytes'])) {
        if (series[key].length !== series.t.length) {
          return `/runs/${i}/server/series/${key} has ${series[key].length} samples, /runs/${i}/server/series/t has ${series.t.length}: the arrays are parallel`
        }
      }
    }
    const spans = run.server?.loopBlocks?.spans ?? []
    for (const [j, [from, to]] of spans.entries()) {
      if (to < from || (j > 0 && from < spans[j - 1][1])) {
        return `/runs/${i}/server/loopBlocks/spans/${j} is ${JSON.stringify([from, to])}${j > 0 ? ` after ${JSON.stringify(spans[j - 1])}` : ''}: spans end after they start, in order, without overlap`
      }
    }
  }
  return null
}

/**
 * Check a LoadResult (syncbench ab --json, loadtest()) against schemas/load-result.schema.json.
 * @param {unknown} data
 * @returns {string|null} what is wrong, in one line, or null when it is valid
 */
export function loadResultProblem (data) {
  const validate = validators().load
  return validate(data) ? null : describeSchemaError(validate.errors ?? [], data)
}

/**
 * One line from ajv's errors: the deepest failure (an `anyOf` of null or an object reports both branches;
 * the one that went furthest into the data is the one the writer meant), its JSON pointer and the value found.
 * @param {ErrorObject[]} errors
 * @param {unknown} data
 * @param {(pointer: string) => string} [spell] how a place in the data is named (default: its JSON pointer, "/" for the root)
 * @returns {string}
 */
export function describeSchemaError (errors, data, spell = (pointer) => pointer || '/') {
  const real = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf')
  if (real.length === 0) return errors[0] ? `${spell(errors[0].instancePath)} ${errors[0].message}` : 'does not match the schema'
  const depth = (/** @type {ErrorObject} */ e) => e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0)
  const deepest = Math.max(...real.map(depth))
  const at = real.filter((e) => depth(e) === deepest)
  const e = at.find((x) => x.propertyName !== undefined) ?? at[0]
  const where = spell(e.instancePath)
  const value = valueAt(data, e.instancePath)
  if (at.every((x) => x.keyword === 'type')) {
    const types = [...new Set(at.flatMap((x) => [x.params.type].flat()))]
    return `${where} must be ${orList(types)}, got ${describeValue(value)}`
  }
  // a key that is not allowed (propertyNames): ajv names the key beside the failing keyword
  if (e.propertyName !== undefined) return `${where} has a key ${JSON.stringify(e.propertyName)} that ${e.message}`
  switch (e.keyword) {
    case 'required': return `${spell(`${e.instancePath}/${e.params.missingProperty}`)} is missing`
    case 'additionalProperties': return `${where} has an unexpected key "${e.params.additionalProperty}"`
    case 'const': return `${where} must be ${JSON.stringify(e.params.allowedValue)}, got ${describeValue(value)}`
    case 'minItems': return e.params.limit === 1 ? `${where} must not be empty` : `${where} must have at least ${e.params.limit} items, got ${describeValue(value)}`
    case 'maxItems': return `${where} must have at most ${e.params.limit} items, got ${Array.isArray(value) ? value.length : describeValue(value)}`
    case 'uniqueItems': return `${where} has the same value twice (items ${e.params.j} and ${e.params.i})`
    case 'enum': return `${where} must be one of ${e.params.allowedValues.map((/** @type {unknown} */ v) => JSON.stringify(v)).join(', ')}, got ${describeValue(value)}`
    default: return `${where} ${e.message}, got ${describeValue(value)}`
  }
}

/**
 * "a", "a or b", "a, b or c".
 * @param {string[]} items
 */
function orList (items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}

/**
 * The value at a JSON pointer (ajv's instancePath), or undefined.
 * @param {unknown} data
 * @param {string} pointer
 * @returns {unknown}
 */
function valueAt (data, pointer) {
  let v = /** @type {any} */ (data)
  for (const part of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined
    v = v[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return v
}

/**
 * "null", "string \"abc\"", "number 1.5", "array", "object" for a message.
 * @param {unknown} v
 * @returns {string}
 */
function describeValue (v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${v}`
  return typeof v
}
