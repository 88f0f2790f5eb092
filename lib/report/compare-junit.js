// `syncbench compare --format junit --out FILE`: the comparison as JUnit XML, the report format CI
// systems (GitLab's test reports, Jenkins, GitHub test-report actions) show per test. One testsuite
// per experiment, one testcase per configuration (a mix's route, a capacity, a scanned route), and a
// <failure> for each one a gate fails, with the gate's words as its message. Written by hand: the
// format is a few elements, and escapeXml below is the one rule it needs.
import { gateText, gateSummary, capacityGateSummary, blockingGateSummary } from './compare-gate.js'
import { formatPValue } from './phrases.js'

/**
 * Text as XML character data or an attribute value: the five special characters as entities, and the
 * characters XML 1.0 cannot hold at all (controls other than tab, newline and carriage return, lone
 * surrogates, U+FFFE and U+FFFF) as U+FFFD, since no escape makes them legal.
 * @param {string} text
 * @returns {string}
 */
export function escapeXml (text) {
  return String(text)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
}

/**
 * `name="value"` pairs of an element. Tabs and line ends as character references: a parser turns
 * them into spaces in an attribute otherwise.
 * @param {Record<string, string|number>} attrs
 */
function attributes (attrs) {
  const value = (/** @type {string|number} */ v) => escapeXml(String(v)).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;')
  return Object.entries(attrs).map(([k, v]) => ` ${k}="${value(v)}"`).join('')
}

/**
 * @typedef {object} Case
 * @property {string} suite      the experiment
 * @property {string} name       the configuration
 * @property {Record<string, string>} properties
 * @property {{ message: string, detail: string }|null} failure
 */

/**
 * The comparison as a JUnit XML document.
 * @param {import('./compare-markdown.js').CompareReport} report
 * @returns {string}
 */
export function compareJunit (report) {
  const { rows, gate, capacity, failExit } = report
  const fixed = (/** @type {number} */ x) => Number.isFinite(x) ? x.toFixed(2) : ''
  /** @type {Case[]} */
  const cases = rows.map((r, i) => ({
    suite: r.experiment,
    name: r.label,
    properties: {
      'a req/s': fixed(r.a.mean),
      'b req/s': fixed(r.b.mean),
      'b / a': Number.isFinite(r.ratio.ratio) ? r.ratio.ratio.toFixed(4) : '',
      'b / a 95% CI': Number.isFinite(r.ratio.low) ? `${r.ratio.low.toFixed(4)}..${r.ratio.high.toFixed(4)}` : '',
      p: formatPValue(r.test.p),
      ...(gate && { gate: gateText(gate.decisions[i], r, gate.threshold) })
    },
    failure: gate?.decisions[i].fails ? { message: gateText(gate.decisions[i], r, gate.threshold), detail: gateSummary(gate, rows, failExit) } : null
  }))
  capacity.rows.forEach((r, i) => {
    const g = capacity.gate
    cases.push({
      suite: r.experiment,
      name: `${r.label} capacity at ${capacity.goal}`,
      properties: {
        'a capacity req/s': r.a.n ? fixed(r.a.interval.geometricMean) : 'none',
        'b capacity req/s': r.b.n ? fixed(r.b.interval.geometricMean) : 'none',
        p: formatPValue(r.test.p),
        ...(g && { gate: gateText(g.decisions[i], r, g.threshold, 'capacities') })
      },
      failure: g?.decisions[i].fails ? { message: gateText(g.decisions[i], r, g.threshold, 'capacities'), detail: capacityGateSummary(g, capacity.rows, capacity.goal, failExit) } : null
    })
  })
  for (const c of report.changes.filter((x) => x.change !== 'only-a' && x.change !== 'only-b')) {
    const ms = (/** @type {number|null} */ x) => x === null ? '' : x.toFixed(1)
    cases.push({
      suite: c.experiment,
      name: c.label,
      properties: { 'a loop p99 ms': ms(c.a), 'b loop p99 ms': ms(c.b), change: c.change },
      failure: report.failIfBlocking && c.change === 'started'
        ? { message: `${c.label} started blocking`, detail: blockingGateSummary(report.changes, failExit) }
        : null
    })
  }
  const suites = [...new Set(cases.map((c) => c.suite))]
  const failures = (/** @type {Case[]} */ list) => list.filter((c) => c.failure !== null).length
  const out = ['<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'syncbench compare', tests: cases.length, failures: failures(cases) })}>`]
  for (const suite of suites) {
    const own = cases.filter((c) => c.suite === suite)
    out.push(`  <testsuite${attributes({ name: suite, tests: own.length, failures: failures(own), errors: 0, skipped: 0 })}>`)
    for (const c of own) {
      out.push(`    <testcase${attributes({ classname: c.suite, name: c.name })}>`)
      out.push('      <properties>')
      for (const [name, value] of Object.entries(c.properties)) out.push(`        <property${attributes({ name, value })}/>`)
      out.push('      </properties>')
      if (c.failure) out.push(`      <failure${attributes({ message: c.failure.message, type: 'syncbench-gate' })}>${escapeXml(c.failure.detail)}</failure>`)
      out.push('    </testcase>')
    }
    out.push('  </testsuite>')
  }
  out.push('</testsuites>')
  return out.join('\n') + '\n'
}
