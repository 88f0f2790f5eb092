// Child process of runTool (shape.js): runs an external load tool (ab, wrk, autocannon) in this
// process's own process group and ends the group when the runner is gone. The runner may be SIGKILLed,
// which leaves it no chance to end the tool, and a tool waiting on a blocked server would run on for
// its own timeout (ab's -s, 30 s) or duration (wrk's -d, an hour). The watchdog thread of
// lib/lab/parent-watch.js checks the runner's pid and SIGKILLs this group within about 250 ms of its end.
//   node tool-guard.js <runner pid> <command> [args...]
// The tool's stdout and stderr are this process's (the runner reads them); its exit code is this one's.
import os from 'node:os'
import { spawn } from 'node:child_process'
import { watchParent } from '../../lab/parent-watch.js'

const [parent, cmd, ...args] = process.argv.slice(2)
watchParent({ parent, group: true })
const tool = spawn(cmd, args, { stdio: 'inherit' })
// The runner signals the whole group (SIGINT: ab and wrk print what they measured, as after a Ctrl-C in
// a terminal); the tool acts on it and this process follows the tool out.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) process.on(signal, () => {})
tool.on('error', (err) => {
  // not installed (ENOENT), not executable (EACCES): the tools' adapters report the last stderr line
  process.stderr.write(`cannot run ${cmd} (${/** @type {NodeJS.ErrnoException} */ (err).code ?? err.message})\n`)
  process.exitCode = 127
})
tool.on('exit', (code, signal) => {
  process.exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0)
})
