// The words of syncbench compare's ratio intervals and CI gates (lib/analysis/gate.js decides the
// throughput's and the capacities', lib/report/kinds/scan.js compareScans the routes' blocking): the
// table cells and the one line that says whether a gate passed.
import { MIN_RUNS_FOR_INTERVAL } from '../analysis/stats.js'

/**
 * "5%", "0.5%", "12.5%": a threshold fraction as the user would type it.
 * @param {number} threshold
 */
export function formatThreshold (threshold) {
  return `${Number((threshold * 100).toPrecision(12))}%`
}

/**
 * The 95% CI of b / a: "0.787x..0.814x" (three decimals: a 5% gate needs to see 0.95 from 0.96); ''
 * without an interval.
 * @param {{ low: number, high: number }} ratio
 */
export function formatRatioInterval ({ low, high }) {
  return Number.isFinite(low) && Number.isFinite(high) ? `${low.toFixed(3)}x..${high.toFixed(3)}x` : ''
}

/** @param {number} x a fraction, as a percentage with one decimal */
const pct = (x) => `${(x * 100).toFixed(1)}%`

/**
 * One configuration's verdict: "slower: 18.6%..21.3% slower, beyond 5%", "equivalent within 5%",
 * "no significant change", "too few runs to decide (2 and 2 runs; 3 a side needed)".
 * @param {import('../analysis/gate.js').GateDecision} decision
 * @param {{ a: { n: number }, b: { n: number }, ratio: { low: number, high: number } }} row
 * @param {number} threshold
 * @param {string} [noun]  what n counts: 'runs', or 'capacities' (found) for the capacities' gate
 * @returns {string}
 */
export function gateText (decision, row, threshold, noun = 'runs') {
  const { low, high } = row.ratio
  const x = formatThreshold(threshold)
  switch (decision.verdict) {
    case 'slower': return `slower: ${pct(1 - high)}..${pct(1 - low)} slower, beyond ${x}`
    case 'slower-within': return `slower by ${pct(1 - high)}..${pct(1 - low)}, not surely beyond ${x}`
    case 'equivalent': return `equivalent within ${x}`
    case 'faster': return `faster: ${pct(low - 1)}..${pct(high - 1)} faster`
    case 'no-change': return 'no significant change'
    case 'too-few-runs': return `too few ${noun} to decide (${row.a.n} and ${row.b.n} ${noun}; ${MIN_RUNS_FOR_INTERVAL} a side needed)`
    case 'no-interval': return 'no interval: a run measured 0 req/s'
    case 'none-found': return 'no rate met the goal in a search of b'
  }
}

/**
 * The gate's one line: "gate --fail-if-slower 5%: failed (exit 3): 1 of 2 configurations slower beyond
 * 5%: seed-bcrypt sync", or "... passed: no configuration slower beyond 5% (3 compared)", naming the
 * undecided ones.
 * @param {import('../analysis/gate.js').GateResult} gate
 * @param {{ experiment: string, label: string }[]} rows
 * @param {number} exitCode  what the CLI exits with when the gate fails
 * @returns {string}
 */
export function gateSummary (gate, rows, exitCode) {
  const x = formatThreshold(gate.threshold)
  const head = `gate --fail-if-slower ${x}`
  const configurations = (/** @type {number} */ n) => `${n} configuration${n === 1 ? '' : 's'}`
  if (gate.failed) {
    const names = gate.slower.map((i) => `${rows[i].experiment} ${rows[i].label}`).join(', ')
    return `${head}: failed (exit ${exitCode}): ${gate.slower.length} of ${configurations(rows.length)} slower beyond ${x}: ${names}`
  }
  const few = gate.undecided.filter((i) => gate.decisions[i].verdict === 'too-few-runs').length
  const zero = gate.undecided.length - few
  const why = [few ? `too few runs, syncbench run --runs ${MIN_RUNS_FOR_INTERVAL} or more` : '', zero ? 'a rate of 0' : ''].filter(Boolean).join('; ')
  const undecided = gate.undecided.length ? `; ${gate.undecided.length} undecided: ${why}` : ''
  return `${head}: passed: no configuration slower beyond ${x} (${rows.length} compared${undecided})`
}

/**
 * The capacities' gate in one line: "gate --fail-if-slower 5% on capacity at p99 < 1 s: failed (exit 3):
 * 1 of 2 configurations: seed-bcrypt sync (no rate met the goal in b)", or "... passed: no configuration
 * slower beyond 5% (2 compared)", naming the undecided ones.
 * @param {import('../analysis/gate.js').GateResult} gate
 * @param {{ experiment: string, label: string }[]} rows
 * @param {string} goal
 * @param {number} exitCode  what the CLI exits with when the gate fails
 * @returns {string}
 */
export function capacityGateSummary (gate, rows, goal, exitCode) {
  const x = formatThreshold(gate.threshold)
  const head = `gate --fail-if-slower ${x} on capacity at ${goal}`
  const configurations = (/** @type {number} */ n) => `${n} configuration${n === 1 ? '' : 's'}`
  if (gate.failed) {
    const why = (/** @type {number} */ i) => gate.decisions[i].verdict === 'none-found' ? 'no rate met the goal in b' : `slower beyond ${x}`
    const names = gate.slower.map((i) => `${rows[i].experiment} ${rows[i].label} (${why(i)})`).join(', ')
    return `${head}: failed (exit ${exitCode}): ${gate.slower.length} of ${configurations(rows.length)}: ${names}`
  }
  const undecided = gate.undecided.length ? `; ${gate.undecided.length} undecided: too few capacities found, syncbench run --capacity --runs ${MIN_RUNS_FOR_INTERVAL} or more` : ''
  return `${head}: passed: no configuration slower beyond ${x} (${rows.length} compared${undecided})`
}

/**
 * Why compare leaves the capacities out, in one line; null when it compares them or neither file has any.
 * @param {ReturnType<typeof import('../analysis/capacity.js').capacityPairing>} pairing
 * @param {number} compared  configurations whose capacities were compared
 * @param {{ file: string, results: import('../types.js').ResultsFile }} a
 * @param {{ file: string, results: import('../types.js').ResultsFile }} b
 * @returns {string|null}
 */
export function capacityPairingNote (pairing, compared, a, b) {
  switch (pairing) {
    case 'only-a': case 'only-b': {
      const [side, s] = pairing === 'only-a' ? ['a', a] : ['b', b]
      return `capacity not compared: only ${side} (${s.file}) holds capacity searches (syncbench run --capacity); req/s compared alone`
    }
    case 'goals-differ':
      return `capacity not compared: a searched at the goal ${a.results.capacity?.goal}, b at ${b.results.capacity?.goal}; a capacity holds for its goal alone; req/s compared alone`
    case 'same':
      return compared ? null : 'capacity not compared: no configuration has capacity searches in both'
    default: return null
  }
}

/**
 * The scans' gate in one line: "gate --fail-if-blocking: failed (exit 3): 1 of 3 routes started blocking:
 * scan GET /report", or "... passed: no route started blocking (3 compared)".
 * @param {import('./kinds/scan.js').ScanChange[]} changes
 * @param {number} exitCode  what the CLI exits with when the gate fails
 * @returns {string}
 */
export function blockingGateSummary (changes, exitCode) {
  const head = 'gate --fail-if-blocking'
  const compared = changes.filter((c) => c.change !== 'only-a' && c.change !== 'only-b')
  const started = compared.filter((c) => c.change === 'started')
  const routes = (/** @type {number} */ n) => `${n} route${n === 1 ? '' : 's'}`
  if (started.length) return `${head}: failed (exit ${exitCode}): ${started.length} of ${routes(compared.length)} started blocking: ${started.map((c) => `${c.experiment} ${c.label}`).join(', ')}`
  return `${head}: passed: no route started blocking (${routes(compared.length)} compared)`
}
