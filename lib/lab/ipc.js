// The child side of the IPC protocol between a server syncbench forked and its parent (the runner):
//   child -> parent  { type: 'syncbench:ready', servers: [{ name, url, port }], env, ...info }
//   parent -> child  { type: 'syncbench:metrics', id, reset, server? }
//   child -> parent  { type: 'syncbench:metrics', id, metrics }
//   child -> parent  { type: 'syncbench:error', code, message }   (then the child exits non-zero)
// The shapes are ServerHandle's in lib/types.js.

export const READY = 'syncbench:ready'
export const METRICS = 'syncbench:metrics'
export const ERROR = 'syncbench:error'

/**
 * @typedef {{ send?: Function, on: Function, off: Function, connected?: boolean }} Channel
 *   `process` in a forked child
 */

/**
 * Announce the servers and answer metrics requests until `stop()`.
 * @param {Channel} channel
 * @param {object} options
 * @param {{ name: string, url: string, port: number }[]} options.servers
 * @param {import('../types.js').Environment} options.env
 * @param {(request: { reset: boolean, server?: string }) => import('../types.js').ServerMetrics | Promise<import('../types.js').ServerMetrics>} options.read
 * @param {() => void} [options.onDisconnect] the parent is gone: nobody will stop this server, so stop it
 * @param {Record<string, unknown>} [options.info] more fields for the ready message (the workload server's handler names)
 * @returns {{ stop: () => void }}
 */
export function serveIpc (channel, { servers, env, read, onDisconnect, info }) {
  const onMessage = async (message) => {
    if (!message || message.type !== METRICS) return
    let metrics
    try {
      metrics = await read({ reset: message.reset === true, server: message.server })
    } catch (err) {
      send(channel, { type: ERROR, id: message.id, code: err.code || 'SB_ERR_SERVER_METRICS', message: err.message })
      return
    }
    send(channel, { type: METRICS, id: message.id, metrics })
  }
  const disconnected = () => onDisconnect?.()
  channel.on('message', onMessage)
  channel.on('disconnect', disconnected)
  send(channel, { ...info, type: READY, servers: servers.map(({ name, url, port }) => ({ name, url, port })), env })
  return {
    stop () {
      channel.off('message', onMessage)
      channel.off('disconnect', disconnected)
    }
  }
}

/**
 * Tell the parent why the server could not start.
 * @param {Channel} channel
 * @param {{ code?: string, message?: string }} err
 * @returns {Promise<void>} once the message is handed to the channel, so the child can exit after it
 */
export function sendError (channel, err) {
  return new Promise((resolve) => {
    if (!channel.connected || !channel.send) return resolve()
    channel.send({ type: ERROR, code: err.code || 'SB_ERR_SERVER_START', message: String(err.message || err) }, () => resolve())
  })
}

function send (channel, message) {
  // The parent may have gone between a request and its answer; nothing is left to tell.
  if (channel.connected && channel.send) channel.send(message, () => {})
}
