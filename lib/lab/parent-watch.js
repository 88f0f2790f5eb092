// A child that outlives its parent: the runner can be SIGKILLed, and the child's main thread may be
// stuck in the very handler being measured, so neither an IPC 'disconnect' listener nor a signal
// handler of the main thread would ever run. A small worker thread polls the parent pid instead and
// ends the whole process (SIGKILL to itself works while the main thread is blocked).
import { Worker } from 'node:worker_threads'

/** How often the watchdog looks at the parent: well inside the 5 s a child may outlive it. */
export const PARENT_POLL_MS = 250

// CommonJS, run by the worker (`eval: true`). The parent is gone when this process was re-parented
// (ppid changed: to PID 1 or a subreaper) or the parent's pid no longer exists. An ancestor further up
// (a user's app started through `npm start` or a shell) is watched by its pid alone. Process groups
// posted to the worker (a user's app in its own group) are SIGKILLed first: they would outlive us.
const WATCHDOG = `
const { workerData, parentPort } = require('node:worker_threads')
const { ppid, intervalMs, ancestor, group } = workerData
const groups = []
parentPort.on('message', (pgid) => groups.push(pgid))
setInterval(() => {
  let gone = !ancestor && process.ppid !== ppid
  if (!gone) {
    try { process.kill(ppid, 0) } catch (err) { gone = err.code === 'ESRCH' }
  }
  if (!gone) return
  for (const pgid of groups) {
    try { process.kill(-pgid, 'SIGKILL') } catch {}
  }
  process.kill(group ? -process.pid : process.pid, 'SIGKILL')
}, intervalMs)
`

/**
 * Start the watchdog thread of this process: once the parent is gone, this process is SIGKILLed
 * within about `intervalMs`. The thread never keeps the process alive (unref'd); it adds one OS
 * thread to the process (the server's `threads` metric counts it, the same in every run).
 * @param {{ parent?: string, intervalMs?: number, ancestor?: boolean, group?: boolean }} [options]
 *   parent: the parent's pid as it passed it on the command line. Better than this process's ppid at
 *   start: a parent that died before the child started has already left it re-parented.
 *   ancestor: `parent` may be further up than the parent (a shell or npm in between): only its pid is watched.
 *   group: SIGKILL this process's whole process group, not only this process (this process leads
 *   its group: lib/run/tools/tool-guard.js, whose tool runs in its group)
 * @returns {{ worker: Worker, killGroupToo: (pgid: number) => void }}
 *   killGroupToo: SIGKILL this process group too, before this process, once the parent is gone
 */
export function watchParent ({ parent, intervalMs = PARENT_POLL_MS, ancestor = false, group = false } = {}) {
  const ppid = Number(parent) > 0 ? Number(parent) : process.ppid
  const worker = new Worker(WATCHDOG, { eval: true, workerData: { ppid, intervalMs, ancestor, group }, stdout: true, stderr: true })
  worker.unref()
  return { worker, killGroupToo: (pgid) => worker.postMessage(pgid) }
}
