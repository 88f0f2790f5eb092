// Prose wrapped at one width: the verdicts, notes and table titles of syncbench run's answer and of
// syncbench report --text, and the lines npm run docs writes above a recorded block. A table keeps its
// own width (its rows are not prose), and summary.md and report.html leave the wrapping to their reader.

/** The columns prose fills on a terminal and in the docs' generated lines. */
export const TEXT_WIDTH = 100

/**
 * Words wrapped at `width` columns; a word longer than that keeps a line of its own, and a line break
 * already in the text is kept. Every line after the first starts with `hang`: two spaces make a
 * list item's continuation lines stand back from the next item's first line.
 * @param {string} text
 * @param {number} [width]
 * @param {string} [hang]
 * @returns {string}
 */
export function wrap (text, width = TEXT_WIDTH, hang = '') {
  /** @type {string[]} */
  const lines = []
  for (const paragraph of text.split('\n')) {
    const start = lines.length === 0 ? '' : hang
    let line = start
    for (const word of paragraph.split(' ')) {
      if (line !== start && line.length + 1 + word.length > width) {
        lines.push(line)
        line = hang + word
      } else {
        line = line === start ? line + word : `${line} ${word}`
      }
    }
    lines.push(line)
  }
  return lines.join('\n')
}
