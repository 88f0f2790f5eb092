// A node:test reporter that writes one block per failed test: its file, its name and the first and
// last lines of its error (an assertion that quotes a child's whole stderr has its cause at the end). npm test (scripts/test.js) runs it beside the spec reporter and prints what it wrote
// after the pass/fail lines, so the end of a long log, which is what a CI page keeps, names what
// failed. A suite whose tests failed is not repeated: its failed tests are named themselves.
import path from 'node:path'

/** How many lines of an error are kept from its start, and as many from its end. */
const MESSAGE_LINES = 4

/**
 * An error's text, indented; a long one as its first and last lines.
 * @param {string} text
 */
function shortened (text) {
  const lines = text.split('\n')
  const kept = lines.length <= 2 * MESSAGE_LINES
    ? lines
    : [...lines.slice(0, MESSAGE_LINES), `… ${lines.length - 2 * MESSAGE_LINES} lines left out`, ...lines.slice(-MESSAGE_LINES)]
  return kept.map((line) => `    ${line}`).join('\n')
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
    yield `✖ ${label}\n${shortened(message)}\n`
  }
}
