#!/usr/bin/env node
// Thin entry point: pick the command, hand it argv and the streams, turn errors into one line and an exit code.
import { commands, topLevelHelp, version } from '../lib/cli/commands.js'
import { describeError, guardOutput } from '../lib/cli/output.js'

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env }
// `syncbench ... | head` closes the pipe early: that is the reader's choice, not an error to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => { if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0); else throw err })
}
const [name, ...rest] = process.argv.slice(2)
// what the command line holds as credentials (-A, -H "Authorization: ...", user:pass@) is never printed
guardOutput(rest, [process.stdout, process.stderr])

try {
  let code = 0
  if (name === undefined) {
    // No command is a usage error: the help goes to stderr so a script sees an empty stdout.
    io.stderr.write(topLevelHelp())
    code = 2
  } else if (name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(topLevelHelp())
  } else if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`syncbench ${version}\n`)
  } else if (!Object.hasOwn(commands, name)) {
    io.stderr.write(`syncbench: unknown command "${name}" (try: ${Object.keys(commands).join(', ')}; see syncbench --help)\n`)
    code = 2
  } else {
    const command = await commands[name].load()
    code = await command.main(rest, io)
  }
  process.exitCode = code
} catch (err) {
  const { line, exitCode } = describeError(err, Object.hasOwn(commands, name) ? name : undefined)
  io.stderr.write(line + '\n')
  process.exitCode = exitCode
}
