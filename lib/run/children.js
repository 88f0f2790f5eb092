// The processes a run starts (server children, calibration children, ab/wrk/autocannon). Each gets
// its own process group, so no terminal signal reaches it: whoever ends the runner early (a second
// Ctrl-C) ends them here first, and a runner that exits takes them along (a server would stop when its
// IPC channel closes, but not while a handler blocks its event loop).
/** @type {Set<import('node:child_process').ChildProcess>} */
const live = new Set()
/** Process groups of users' apps (--app), started by a server child in a group of their own. @type {Set<number>} */
const groups = new Set()

/**
 * Each child leads its process group (they are all started detached): the whole group is signalled, so
 * what a child started (ab under its guard, tools/tool-guard.js) goes with it.
 * @param {NodeJS.Signals} [signal]
 */
const killAll = (signal = 'SIGKILL') => {
  for (const child of live) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    try {
      process.kill(-(/** @type {number} */ (child.pid)), signal)
    } catch {
      // not a group leader after all, or the group is gone: the child itself
      child.kill(signal)
    }
  }
  // A server child killed here cannot end its app any more (an app that is not Node has no watchdog of its own).
  for (const pgid of groups) {
    try { process.kill(-pgid, signal) } catch {}
  }
}

/**
 * Remember `child` until it exits.
 * @param {import('node:child_process').ChildProcess} child
 * @returns {import('node:child_process').ChildProcess}
 */
export function track (child) {
  if (live.size + groups.size === 0) process.on('exit', onExit)
  live.add(child)
  child.once('exit', () => forget(child))
  child.once('error', () => forget(child))
  return child
}

/** @param {import('node:child_process').ChildProcess} child */
function forget (child) {
  live.delete(child)
  if (live.size + groups.size === 0) process.off('exit', onExit)
}

/**
 * Remember a process group (a user's app) until the returned function is called once its server child
 * is gone: it SIGKILLs whatever of the group is left (an app that is not Node and ignored SIGTERM
 * while the server child was cut short, after a Ctrl-C) and forgets it.
 * @param {number} pgid
 * @returns {() => void}
 */
export function trackGroup (pgid) {
  if (live.size + groups.size === 0) process.on('exit', onExit)
  groups.add(pgid)
  return () => {
    try { process.kill(-pgid, 'SIGKILL') } catch {}
    groups.delete(pgid)
    if (live.size + groups.size === 0) process.off('exit', onExit)
  }
}

function onExit () {
  killAll()
}

/**
 * Kill every helper process still running (SIGKILL by default).
 * @param {NodeJS.Signals} [signal]
 */
export function killChildren (signal) {
  killAll(signal)
}
