// A table on a terminal, fitted to TEXT_WIDTH columns (lib/report/wrap.js). summary.md and report.html
// show every column under its full header and may be as wide as they need; a terminal in 80 to 120
// columns wraps a wider line into noise. So a terminal shows a table's short headers (Table.short) and
// its shorter cells where it has them (Table.textRows), and leaves out the columns it can do without
// (Table.hidden); under the table it says once what the short headers leave unsaid (Table.note), what a
// column says in every row, and where the rest is. What is still too wide splits into parts that each
// repeat the row's name, first where the table groups its columns (Table.parts); a cell that fits no
// part is cut, marked "…", and said to be whole elsewhere.
import { TEXT_WIDTH, wrap } from './wrap.js'

/** The spaces between two columns. */
const GAP = 2

/** The widest first column (a configuration, a route) before its middle is cut: the rest need room. */
const LABEL_MAX = 40

/** Where a terminal's left-out columns and cut cells are whole: syncbench run writes both. */
export const WHOLE_IN_REPORTS = 'summary.md and report.html'

/**
 * The text cut to `max` characters at its end, "…" marking the cut.
 * @param {string} text
 * @param {number} max
 */
export function cutEnd (text, max) {
  return text.length <= max ? text : text.slice(0, Math.max(0, max - 1)) + '…'
}

/**
 * The text cut to `max` characters in its middle, keeping its start and its end (a path's file and
 * line, a route's last segment), "…" marking the cut.
 * @param {string} text
 * @param {number} max
 */
export function cutMiddle (text, max) {
  if (text.length <= max) return text
  const tail = Math.floor((max - 1) / 2)
  return text.slice(0, max - 1 - tail) + '…' + text.slice(text.length - tail)
}

/** A text column the same in every row is said once under the table when it is at least this long. */
const COMMON_MIN = 12

/** A column is cut rather than the table split when at least this much of it still fits. */
const CUT_MIN = 24

/**
 * The table as a terminal shows it: its title wrapped, then its columns in one or more parts of at most
 * `width` columns each, then its note, the left-out columns and, if a cell was cut, where it is whole.
 * @param {import('./tables.js').Table} table
 * @param {{ width?: number, whole?: string, keys?: number }} [options]
 *        whole: where the left-out columns and the cut cells can be read (WHOLE_IN_REPORTS by default);
 *        keys: how many leading columns name a row (compare's experiment and configuration), repeated in every part
 * @returns {string}
 */
export function renderTerminal (table, { width = TEXT_WIDTH, whole = WHOLE_IN_REPORTS, keys = 1 } = {}) {
  const title = wrap(table.title, width)
  if (table.columns.length === 0) return title + '\n'
  const headers = table.short ?? table.columns
  const body = table.textRows ?? table.rows
  const keyColumns = table.columns.map((_, i) => i).slice(0, keys)
  // a text column that says the same in every row ("merged histograms of 3 runs") is said once, under the table
  const common = table.columns.map((_, i) => i >= keys && table.align[i] === 'left' && body.length > 1 &&
    (body[0][i] ?? '').length >= COMMON_MIN && body.every((r) => r[i] === body[0][i]))
  // and a column whose terminal cells are all empty (its figure folded into another's) is left out
  const shown = table.columns.map((_, i) => i).filter((i) => i >= keys && !table.hidden?.[i] && !common[i] && body.some((r) => (r[i] ?? '') !== ''))
  let cut = false
  /** @param {number} i @param {number} max @param {(text: string, max: number) => string} how */
  const column = (i, max, how) => {
    const header = cutEnd(headers[i], max)
    const cells = body.map((r) => how(r[i] ?? '', max))
    if (header !== headers[i] || cells.some((c, r) => c !== (body[r][i] ?? ''))) cut = true
    return { header, cells, width: Math.max(header.length, ...cells.map((c) => c.length)) }
  }
  // the row's name: a long one loses its middle (a route's or a file's end says most)
  const keyed = keyColumns.map((i) => column(i, Math.min(LABEL_MAX, width), cutMiddle))
  const labelWidth = keyed.reduce((sum, c) => sum + c.width, 0) + GAP * (keyed.length - 1)
  // a cell may fill a part of its own beside the row's name
  const cellMax = Math.max(1, width - labelWidth - GAP)
  const columns = new Map(shown.map((i) => [i, column(i, cellMax, cutEnd)]))
  /** @param {number[]} part */
  const partWidth = (part) => labelWidth + part.reduce((sum, i) => sum + GAP + /** @type {{ width: number }} */ (columns.get(i)).width, 0)
  // one column too wide for the rest to fit beside it, yet left a fair width: cut it, not the table
  const over = partWidth(shown) - width
  const widest = shown.reduce((a, i) => a === -1 || /** @type {{ width: number }} */ (columns.get(i)).width > /** @type {{ width: number }} */ (columns.get(a)).width ? i : a, -1)
  if (over > 0 && widest !== -1 && /** @type {{ width: number }} */ (columns.get(widest)).width - over >= CUT_MIN) {
    columns.set(widest, column(widest, /** @type {{ width: number }} */ (columns.get(widest)).width - over, cutEnd))
  }
  const parts = splitWhereWide(groups(shown, table.parts), (part) => partWidth(part) <= width)
  const lines = [title]
  for (const [n, part] of parts.entries()) {
    if (n > 0) lines.push('')
    const cols = [...keyed, ...part.map((i) => /** @type {{ header: string, cells: string[], width: number }} */ (columns.get(i)))]
    const align = [...keyColumns, ...part].map((i) => table.align[i])
    /** @param {string[]} cells */
    const line = (cells) => cells.map((c, k) => align[k] === 'right' ? c.padStart(cols[k].width) : c.padEnd(cols[k].width)).join(' '.repeat(GAP)).trimEnd()
    lines.push(line(cols.map((c) => c.header)))
    lines.push(cols.map((c) => '-'.repeat(c.width)).join(' '.repeat(GAP)))
    for (const r of body.keys()) lines.push(line(cols.map((c) => c.cells[r])))
  }
  const left = table.columns.filter((_, i) => i >= keys && table.hidden?.[i] && !common[i])
  const notes = [
    ...headers.flatMap((h, i) => common[i] ? [`${h}, every row: ${body[0][i]}.`] : []),
    table.note ?? '',
    left.length ? `Also in ${whole}: ${left.join(', ')}.` : '',
    cut ? `"…" marks text cut to fit, whole in ${whole}.` : ''
  ].filter(Boolean)
  for (const note of notes) lines.push(wrap(note, width))
  return lines.join('\n') + '\n'
}

/**
 * The shown columns in the groups the table marks (a group starts at a column whose `parts` flag is
 * set), as one group when it marks none.
 * @param {number[]} shown
 * @param {boolean[]|undefined} starts
 * @returns {number[][]}
 */
function groups (shown, starts) {
  /** @type {number[][]} */
  const out = []
  for (const i of shown) {
    if (out.length === 0 || starts?.[i]) out.push([i])
    else out[out.length - 1].push(i)
  }
  return out
}

/**
 * Groups joined while they fit side by side, then any group still too wide split column by column:
 * the parts a terminal prints one under the other.
 * @param {number[][]} grouped
 * @param {(part: number[]) => boolean} fits
 * @returns {number[][]}
 */
function splitWhereWide (grouped, fits) {
  if (grouped.length === 0) return [[]]
  const whole = grouped.flat()
  if (fits(whole)) return [whole]
  /** @type {number[][]} */
  const parts = []
  for (const group of grouped) {
    const last = parts[parts.length - 1]
    if (last && fits([...last, ...group])) last.push(...group)
    else parts.push([...group])
  }
  return parts.flatMap((part) => {
    if (fits(part)) return [part]
    /** @type {number[][]} */
    const split = [[]]
    for (const i of part) {
      const current = split[split.length - 1]
      if (current.length === 0 || fits([...current, i])) current.push(i)
      else split.push([i])
    }
    return split
  })
}

/**
 * A line of text (not a table's) fitted to `width` columns: the directories of its paths cut in their
 * middle first, longest path first, each keeping its last segment ("file.js:12"), then the line's end.
 * "Where the event loop went" names functions by their files, and a package's file under
 * node_modules can be most of a terminal's width.
 * @param {string} line
 * @param {number} [width]
 * @returns {string}
 */
export function fitLine (line, width = TEXT_WIDTH) {
  let fitted = line
  const paths = [...new Set(line.match(/[^\s()]*\/[^\s()]*/g) ?? [])].sort((a, b) => b.length - a.length)
  for (const path of paths) {
    const over = fitted.length - width
    if (over <= 0) break
    const slash = path.lastIndexOf('/')
    // the directories lose their middle (their start and the package nearest the file say most),
    // keeping at least a character each side of the "…"
    const keep = Math.max(3, slash - over)
    if (keep >= slash) continue
    fitted = fitted.replace(path, cutMiddle(path.slice(0, slash), keep) + path.slice(slash))
  }
  return cutEnd(fitted, width)
}
