import { readFileSync } from 'node:fs'

/** syncbench's version, from package.json: one place for the CLI, the results files and the JSON. */
export const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
