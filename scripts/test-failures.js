// A node:test reporter that writes one block per failed test: its file, its name and the first lines
// of its error. npm test (scripts/test.js) runs it beside the spec reporter and prints what it wrote
// after the pass/fail lines, so the end of a long log, which is what a CI page keeps, names what
// failed. A suite whose tests failed is not repeated: its failed tests are named themselves.
import path from 'node:path'

const MESSAGE_LINES = 6

/**
 * @param {string} text
 */
function firstLines (text) {
  const lines = text.split('\n')
  const kept = lines.slice(0, MESSAGE_LINES).map((line) => `    ${line}`)
  if (lines.length > MESSAGE_LINES) kept.push(`    … ${lines.length - MESSAGE_LINES} more lines`)
  return kept.join('\n')
}

/**
 * @param {AsyncIterable<{ type: string, data: any }>} source
 */
export default async function * failures (source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue
    const { name, file, details } = event.data
    const error = details?.error
    if (error?.failureType === 'subtestsFailed') continue
    const where = file ? path.relative(process.cwd(), file) : '(no file)'
    const label = file && path.basename(name) === path.basename(file) ? where : `${where}: ${name}`
    const message = String(error?.cause?.message ?? error?.cause ?? error?.message ?? 'failed')
    yield `✖ ${label}\n${firstLines(message)}\n`
  }
}
