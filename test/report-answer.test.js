// The answer first: report.html opens with a plain-language summary (what was measured, the verdicts,
// whether each seed article reproduces) before any table, and summary.md and report.html show the
// articles' own figures beside this machine's with the reproduce line, its reason and the rule.
// Through the real CLI (syncbench report) on the fixed results file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { parseHTML } from 'linkedom'
import { runCli } from './helper.js'
import { fixturePath, tempDir } from './fixtures/report-helpers.js'
import { REPRODUCE_RULE } from '../lib/report/articles.js'

/** @param {import('node:test').TestContext} t */
async function report (t) {
  const dir = await tempDir(t)
  const { code, stderr } = await runCli(['report', fixturePath, '--out', dir, '--no-png', '-q'])
  assert.equal(code, 0, stderr)
  return {
    md: await readFile(path.join(dir, 'summary.md'), 'utf8'),
    html: await readFile(path.join(dir, 'report.html'), 'utf8')
  }
}

test('summary.md: each seed article\'s figures beside this machine\'s, its reproduce line with the reason, and the rule', async (t) => {
  const { md } = await report(t)
  const bcrypt = md.slice(md.indexOf('## Seed 001'), md.indexOf('## Seed 002'))
  assert.match(bcrypt, /^\*\*seed-bcrypt: seed 001 \(Jino Antony, 2020\) beside this machine, requests per second\*\*$/m)
  assert.match(bcrypt, /^\| Configuration \| article \| here \| here 95% CI \/ p \|$/m)
  assert.match(bcrypt, /^\| sync \| 10\.75 \| 13\.93 \| [\d.]+\.\.[\d.]+ \|$/m)
  assert.match(bcrypt, /^\| async \/ sync \| 2\.29x \| 2\.02x \| 95% CI [\d.]+x\.\.[\d.]+x, p = [\d.e-]+ \*\*\* \|$/m)
  assert.match(bcrypt, /^> seed 001 \(Jino Antony, 2020\) reproduces: "async mode performs better than sync mode" holds \(2\.02x here, .*the gain is the cores/m)
  const readfile = md.slice(md.indexOf('## Seed 002'))
  assert.match(readfile, /^\| readFile \| 71\.15 \| 213\.63 \|/m)
  assert.match(readfile, /^\| fake async \| 27\.10 \| 93\.43 \|/m)
  assert.match(readfile, /^> seed 002 \(naholyr, 2012\) reproduces: .*"setTimeout\(readFileSync\) gains nothing over readFileSync" holds/m)
  assert.equal(md.split(REPRODUCE_RULE).length - 1, 1, 'the rule once, after the articles')
  assert.ok(md.indexOf(REPRODUCE_RULE) > md.lastIndexOf('> seed 002'))
})

test('report.html opens with the answer in a few sentences, then the articles beside this machine in each seed\'s section', async (t) => {
  const { html } = await report(t)
  const { document } = parseHTML(html)
  const answer = document.querySelector('#answer')
  assert.ok(answer, 'a section with the answer')
  const firstTable = document.querySelector('table')
  // before any table: the answer section precedes the first table in document order
  assert.ok(answer.compareDocumentPosition(firstTable) & 4, 'the answer comes before any table')
  assert.equal(answer.querySelectorAll('table').length, 0)
  const text = answer.textContent.replace(/\s+/g, ' ')
  assert.match(text, /7 experiments/, 'what was measured')
  assert.match(text, /Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz, 2 usable cores, Node 20\.20\.2/)
  assert.match(text, /Seed 001 \(Jino Antony, 2020, "Async vs Sync NodeJs: A Simple Benchmark"\) reproduces here: async mode performs better than sync mode \(2\.02x here, 2\.29x in the article\)\./)
  assert.match(text, /Seed 002 \(naholyr, 2012, .*\) reproduces here: readFile serves about 3 times what readFileSync does \(2\.24x here, 2\.68x in the article\); setTimeout\(readFileSync\) gains nothing over readFileSync \(0\.98x here, 1\.02x in the article\)\./)
  const verdicts = [...answer.querySelectorAll('li')].map((li) => [li.querySelector('a').getAttribute('href'), li.querySelector('a').textContent, li.textContent])
  assert.equal(verdicts.length, 7, 'one verdict per experiment, its name linked to its section')
  assert.deepEqual(verdicts[0].slice(0, 2), ['#seed-bcrypt', 'seed-bcrypt'])
  assert.match(verdicts[0][2], /^seed-bcrypt: async is 2\.02x sync/)

  const section = document.querySelector('#seed-readfile')
  const captions = [...section.querySelectorAll('caption')].map((c) => c.textContent)
  assert.ok(captions.includes('seed-readfile: seed 002 (naholyr, 2012) beside this machine, requests per second'), captions.join(' | '))
  const rows = [...section.querySelectorAll('table.article tbody tr')].map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent))
  assert.deepEqual(rows.slice(0, 3), [['readFile', '71.15', '213.63'], ['readFileSync', '26.50', '95.27'], ['fake async', '27.10', '93.43']])
  const line = section.querySelector('p.reproduce')
  assert.match(line.textContent, /^seed 002 \(naholyr, 2012\) reproduces: "readFile serves about 3 times what readFileSync does" holds .*: the thread pool overlaps the reads/)
  assert.equal(section.querySelector('p.rule').textContent, REPRODUCE_RULE)
  assert.equal(document.querySelectorAll('p.reproduce').length, 2, 'one line per seed')
  assert.equal(document.querySelector('#delay-sweep p.reproduce'), null, 'no article beside the other experiments')
})
