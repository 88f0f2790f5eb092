// How `syncbench run --app "<command>"` turns the command into a process, without a shell unless it
// needs one: words are split on whitespace; '...' keeps everything literally, "..." keeps spaces (a
// backslash escapes " and \ inside it), a backslash outside quotes escapes the next character. A
// command with a shell's syntax in it (| & ; < > ( ) $ ` * ? [ ] { } ~ # !, a newline, or a leading
// NAME=value assignment) runs as `sh -c <command>` (cmd.exe /d /s /c on Windows) instead, so it
// means what it means in a terminal.
import { InvalidOptionError } from '../errors.js'

const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~#!\n]/

/**
 * @param {string} command
 * @param {string} flag how messages name the option ("--app")
 * @returns {{ file: string, args: string[], shell: boolean }}  with shell, `file` is the whole command for spawn's `shell: true`
 */
export function parseCommand (command, flag = '--app') {
  if (command.trim() === '') throw new InvalidOptionError(`${flag} needs a command such as "node server.js", got "${command}"`)
  const words = splitWords(command, flag)
  if (SHELL_SYNTAX.test(unquotedText(command)) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    // child_process's own `shell: true`: sh -c on POSIX, cmd.exe /d /s /c on Windows.
    return { file: command, args: [], shell: true }
  }
  return { file: words[0], args: words.slice(1), shell: false }
}

/**
 * @param {string} command
 * @param {string} flag
 * @returns {string[]}
 */
function splitWords (command, flag) {
  const { words, unclosed } = shellWords(command)
  if (unclosed) throw new InvalidOptionError(`${flag} has an unclosed ${unclosed} quote, got "${command}"`)
  return words
}

/**
 * Split a command line into words as a POSIX shell does for the simple cases: '...' and "..."
 * quoting (in "...", a backslash escapes " and \), a backslash escaping the next character outside
 * quotes. A quote left open runs to the end of the line and is named in `unclosed`, for the caller to
 * refuse (a user's --app command) or accept (a line of the docs cut from a multi-line command).
 * @param {string} command
 * @returns {{ words: string[], unclosed: '"'|"'"|null }}
 */
export function shellWords (command) {
  /** @type {string[]} */
  const words = []
  let word = ''
  let inWord = false
  /** @type {'"'|"'"|null} */
  let quote = null
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]
    if (quote === "'") {
      if (ch === "'") quote = null
      else word += ch
    } else if (quote === '"') {
      if (ch === '"') quote = null
      else if (ch === '\\' && (command[i + 1] === '"' || command[i + 1] === '\\')) word += command[++i]
      else word += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      inWord = true
    } else if (ch === '\\' && i + 1 < command.length) {
      word += command[++i]
      inWord = true
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += ch
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return { words, unclosed: quote }
}

/**
 * The command without its quoted parts: a "|" inside quotes is an argument, not a pipe.
 * @param {string} command
 */
function unquotedText (command) {
  return command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, '')
}
