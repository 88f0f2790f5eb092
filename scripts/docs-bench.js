// docs/benchmarks.md's "Measured here" tables, from the invocations of bench/run.js --json recorded in
// docs/recorded/bench-*.json (scripts/docs.js writes them: generate="bench-nginx" or
// "bench-open-loop" or "bench-dashboard"). A capacity figure from one invocation is one draw of a noisy machine, so every
// cell is the median of the invocations with their lowest and highest beside it.
import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { wrap } from '../lib/report/wrap.js'
import { rateInterval, ratioInterval, sd } from '../lib/analysis/stats.js'
import { costText } from '../bench/dashboard-overhead.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const RECORDED = 'docs/recorded'

/** The part of a record each block shows. @type {Record<string, string>} */
const PARTS = { nginx: 'nginx', 'open-loop': 'openLoop', dashboard: 'dashboard' }

/**
 * @typedef {object} BenchRecord  what bench/run.js --json writes
 * @property {string} schema
 * @property {string} createdAt
 * @property {string[]} argv
 * @property {{ node: string, cpuModel: string, cpuCount: number }} environment
 * @property {string} transport
 * @property {string} timedBy
 * @property {string} [recordedFrom]  set where the figures were taken from the printed tables, not written by --json
 * @property {Record<string, any>} parts
 */

/**
 * The recorded invocations that hold a part, oldest first.
 * @param {string} part  a key of the record's parts
 * @param {string} dir  relative to the repository, or absolute
 * @returns {Promise<{ file: string, record: BenchRecord }[]>}
 */
async function invocations (part, dir) {
  const names = (await readdir(path.resolve(root, dir))).filter((n) => /^bench-.*\.json$/.test(n)).sort()
  const out = []
  for (const name of names) {
    const file = path.join(dir, name)
    const record = /** @type {BenchRecord} */ (JSON.parse(await readFile(path.resolve(root, file), 'utf8')))
    if (record.schema !== 'syncbench/bench@1') throw new Error(`${file}: not a bench/run.js --json record (schema ${JSON.stringify(record.schema)})`)
    if (record.parts[part]) out.push({ file, record })
  }
  return out.sort((a, b) => a.record.createdAt.localeCompare(b.record.createdAt))
}

/** @param {number[]} xs */
function median (xs) {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/**
 * "3.41 (3.30..3.52)": the median, then the lowest and the highest; '' where no invocation has it.
 * @param {(number|null|undefined)[]} values
 * @param {number} digits
 */
function spread (values, digits) {
  const xs = values.filter(/** @returns {v is number} */ (v) => typeof v === 'number' && Number.isFinite(v))
  if (xs.length === 0) return ''
  const f = (/** @type {number} */ v) => v.toFixed(digits)
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)]
  return lo === hi ? f(lo) : `${f(median(xs))} (${f(lo)}..${f(hi)})`
}

/**
 * @param {string[]} head
 * @param {string[][]} rows
 */
function markdownTable (head, rows) {
  const line = (/** @type {string[]} */ cells) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n') + '\n'
}

/**
 * The line above a table: when, where, which command, how many invocations, the files.
 * @param {{ file: string, record: BenchRecord }[]} list
 * @param {string} from the folder of the page that links to the files
 */
function recordedLine (list, from) {
  const envs = new Set(list.map(({ record: { environment: e } }) => `${e.cpuModel} (${e.cpuCount} cores), Node ${e.node}`))
  if (envs.size > 1) throw new Error(`${list.map((i) => i.file).join(', ')}: recorded on different machines or Node.js versions (${[...envs].join('; ')}); a spread across them means nothing`)
  const dates = [...new Set(list.map(({ record }) => record.createdAt.slice(0, 10)))]
  const commands = [...new Set(list.map(({ record }) => `\`node bench/run.js ${record.argv.join(' ')}\``))]
  const transports = [...new Set(list.map(({ record }) => record.transport))]
  const links = list.map(({ file }) => `[${path.basename(file)}](${path.relative(from, file)})`).join(', ')
  // a record taken from the printed tables says so: its figures are rounded as the tables round them
  const printed = list.some(({ record }) => record.recordedFrom) ? ' (taken from the tables it printed, rounded as they are)' : ''
  return wrap(`Recorded ${dates.join(', ')} on ${[...envs][0]}, syncbench's ${transports.join(' and ')} transport, timed by ${list[0].record.timedBy}: ` +
    `${list.length} invocation${list.length === 1 ? '' : 's'} of ${commands.join(' and ')}${printed} (${links}). ` +
    'Each cell is the median of the invocations, then their lowest..highest. These figures are a property of that machine at that time.')
}

/**
 * The block generate="bench-<part>" holds.
 * @param {string} name  'nginx' or 'open-loop'
 * @param {string} from  the folder of the page (its links are relative to it)
 * @param {string} [dir]  where the records are
 * @returns {Promise<string>}
 */
export async function benchBlock (name, from, dir = RECORDED) {
  const part = PARTS[name]
  if (!part) throw new Error(`generate="bench-${name}": no such part (${Object.keys(PARTS).map((p) => `bench-${p}`).join(', ')})`)
  const list = await invocations(part, dir)
  if (list.length === 0) throw new Error(`generate="bench-${name}": no ${dir}/bench-*.json holds it: record some with node bench/run.js --only ${name} --json ${dir}/bench-${name}-1.json`)
  const head = recordedLine(list, from) + '\n\n'
  const parts = list.map((i) => i.record.parts[part])
  return head + (part === 'nginx' ? nginxTable(parts) : part === 'openLoop' ? openLoopTable(parts) : dashboardTable(parts))
}

/**
 * CPU per request of each generator against nginx, and its ratio to its reference.
 * @param {any[]} parts  each invocation's parts.nginx
 */
function nginxTable (parts) {
  const names = /** @type {string[]} */ (parts[0].rows.map((/** @type {any} */ r) => r.generator))
  const rows = names.map((name) => {
    const of = parts.map((p) => p.rows.find((/** @type {any} */ r) => r.generator === name)).filter(Boolean)
    /** @param {string} key */
    const all = (key) => of.map((r) => r[key])
    return [name, spread(all('cpuUsPerRequest'), 2), spread(all('xReference'), 2), spread(all('steadyUsPerRequest'), 2), spread(all('steadyXReference'), 2), of[0].reference ?? '', spread(all('peakRssMiB'), 1)]
  })
  const rounds = [...new Set(parts.map((p) => p.rounds))].join(', ')
  return markdownTable(['generator (core 0; nginx on core 1)', 'CPU us/request', 'x reference', 'steady state us/request', 'x reference (steady)', 'reference', 'peak RSS MiB'], rows) +
    `\n${wrap(`Each invocation: ${rounds} round${rounds === '1' ? '' : 's'} of about ${parts[0].seconds} s per generator, start-up included in "CPU us/request" and taken off in "steady state".`)}\n`
}

/**
 * The highest rate held within 1%, and the rates every invocation tried.
 * @param {any[]} parts  each invocation's parts.openLoop
 */
function openLoopTable (parts) {
  const held = parts.map((p) => /** @type {number} */ (p.held))
  const atLeast = parts.some((p) => p.missed === null)
  const targets = /** @type {number[]} */ (parts[0].rates.map((/** @type {any} */ r) => r.target)).filter((t) => parts.every((p) => p.rates.some((/** @type {any} */ r) => r.target === t)))
  const rows = targets.map((t) => {
    const of = parts.map((p) => p.rates.find((/** @type {any} */ r) => r.target === t))
    /** @param {string} key */
    const all = (key) => of.map((r) => r[key])
    return [String(t), spread(all('achieved'), 1), `${of.filter((r) => r.withinOnePercent).length} of ${of.length}`, spread(all('cpuPercent'), 1), spread(all('late'), 0), spread(all('p99Ms'), 2), spread(all('uncorrectedP99Ms'), 2)]
  })
  const each = parts.map((p) => p.missed === null ? `at least ${p.held}` : `${p.held} (${p.missed} missed)`).join(', ')
  const line = `The highest rate one generator held within 1%, against ${parts[0].server} at -c ${parts[0].concurrency}: ${atLeast ? 'at least ' : ''}` +
    `${spread(held, 0)} req/s; each invocation's: ${each}.`
  return wrap(line) + '\n\n' + markdownTable(['target req/s', 'achieved req/s', 'within 1%', 'generator CPU % of a core', 'late requests', 'corrected p99 ms', 'uncorrected p99 ms'], rows)
}

/**
 * CPU per request without the dashboard and with a page open on it, and their ratio with its 95%
 * confidence interval, as bench/dashboard-overhead.js measured them.
 * @param {any[]} parts  each invocation's parts.dashboard
 */
function dashboardTable (parts) {
  const gm = (/** @type {number[]} */ xs) => rateInterval(xs).geometricMean
  /** @param {string} name @param {string} key */
  const row = (name, key) => {
    const runs = parts.flatMap((p) => p[key])
    return [name, spread(parts.map((p) => gm(p[key])), 2), `${Math.min(...runs).toFixed(2)}..${Math.max(...runs).toFixed(2)}`, String(runs.length)]
  }
  const table = markdownTable(['syncbench ab -k -c 50', 'CPU us/request (geometric mean)', 'lowest..highest run', 'runs'], [
    row('without --dashboard', 'withoutUs'),
    row('--dashboard, a page open', 'pageOpenUs')
  ])
  // every run of every invocation (one machine and Node.js: recordedLine refuses records of others)
  const pooled = ratioInterval(parts.flatMap((p) => p.pageOpenUs), parts.flatMap((p) => p.withoutUs))
  const each = parts.length === 1 ? costText(parts[0]) : `${costText(pooled)} over the ${parts.reduce((n, p) => n + p.rounds, 0)} rounds of the ${parts.length} invocations (each one's: ${parts.map(costText).join('; ')})`
  const own = parts.map((p) => p.ownWork)
  const p0 = parts[0]
  /** the sd of the logarithm of a kind's runs, as a percentage: how far one run is from the next @param {string} key */
  const noise = (key) => `${(sd(parts.flatMap((p) => p[key]).map(Math.log)) * 100).toFixed(1)}%`
  const line = `With a page open, CPU per request changed by ${each}: the ratio of the geometric means, ` +
    `with the confidence interval of Welch's t on the logarithms; one run differs from the next by ${noise('withoutUs')} without and ${noise('pageOpenUs')} with a page (sd of the logarithm). The dashboard's own work, timed directly: ${spread(own.map((o) => o.usPerRequest * 1000), 1)} ns a request ` +
    `(${spread(own.map((o) => o.share * 100), 2)}%): starting it, ${spread(own.map((o) => o.startMs), 1)} ms of CPU once, and each second ` +
    `${spread(own.map((o) => o.readUs), 0)} µs reading the counts and ${spread(own.map((o) => o.pushUs), 0)} µs pushing it to a page (measured at second ${p0.ownWork.shown} of a run; a push carries the new second only). ` +
    `Each invocation: ${spread(parts.map((p) => p.rounds), 0)} rounds, each a run without and a run with a page, alternated; each run ${p0.requests.toLocaleString('en-US')} requests${p0.pinned ? ', the generator on core 0, nginx and Chromium on core 1' : ''}; ` +
    `every run waits ${p0.startDelayS} s before its load while the page loads (median ${spread(parts.map((p) => p.pageShownMs), 0)} ms to show the run).`
  return table + '\n' + wrap(line) + '\n'
}
