// Shared test helpers: real servers on 127.0.0.1 port 0 and the real CLI in a child process.
import http from 'node:http'
import net from 'node:net'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const binPath = fileURLToPath(new URL('../bin/syncbench.js', import.meta.url))

/**
 * Start a node:http server on 127.0.0.1:0.
 * @param {http.RequestListener} handler
 * @returns {Promise<{ server: http.Server, port: number, url: string, close: () => Promise<void> }>}
 */
export async function startHttpServer (handler) {
  const server = http.createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

/**
 * Start a raw TCP server that answers with whatever `onConnection` writes: for responses node:http
 * would never produce (wrong Content-Length, HTTP/1.0 close-delimited, resets, silence).
 * @param {(socket: net.Socket) => void} onConnection
 */
export async function startRawServer (onConnection) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    onConnection(socket)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()) })
  }
}

/** A port on 127.0.0.1 that nothing listens on (bound, read, then released). */
export async function closedPort () {
  const server = net.createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Run the real CLI: `node bin/syncbench.js ...args`.
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, cwd?: string, input?: string }} [options]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string }>}
 */
export async function runCli (args, options = {}) {
  const child = spawn(process.execPath, [binPath, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  child.stdin.end(options.input ?? '')
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  const [code, signal] = await once(child, 'close')
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}

/**
 * Run an external command (ab, wrk) and collect its output.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ timeoutMs?: number }} [options]
 */
export async function runCommand (cmd, args, options = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  const [code, signal] = await once(child, 'close')
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}
