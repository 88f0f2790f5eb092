// schemas/experiment.schema.json (draft 2020-12, $id syncbench/experiment@1): the shape of one
// experiment definition, checked before anything runs. What a schema cannot say (load values by the
// load options' rules, server args by syncbench serve's, names that must match) is checked after it by
// validateExperiment (lib/run/experiment-loader.js).
import { readFileSync } from 'node:fs'
import { ajv2020, describeSchemaError } from './results-schema.js'

/** @type {import('ajv').ValidateFunction|null} */
let compiled = null

/** Compiled once, on the first experiment file: a built-in experiment never pays for it. */
function validator () {
  if (compiled) return compiled
  const schema = JSON.parse(readFileSync(new URL('../../schemas/experiment.schema.json', import.meta.url), 'utf8'))
  compiled = new (ajv2020())({ allErrors: false, strict: true, allowUnionTypes: true }).compile(schema)
  return compiled
}

/**
 * A place in an experiment as its author writes it: "/variants/0/server/args/1" -> "variants[0].server.args[1]".
 * @param {string} pointer a JSON pointer (ajv's instancePath); "" is the experiment itself
 * @returns {string}
 */
export function fieldPath (pointer) {
  if (pointer === '') return 'the experiment'
  let out = ''
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`
  }
  return out
}

/**
 * Check one experiment definition against schemas/experiment.schema.json.
 * @param {unknown} data
 * @returns {string|null} what is wrong, in one line naming the field and the value, or null
 */
export function experimentSchemaProblem (data) {
  const validate = validator()
  return validate(data) ? null : describeSchemaError(validate.errors ?? [], data, fieldPath)
}
