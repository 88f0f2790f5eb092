// nginx as a bench target: the fastest server at hand, so that an open-loop generator's limit is its
// own, not the server's. One worker, in the foreground, everything (config, pid, logs, temp files) in a
// temporary directory, on 127.0.0.1 only. nginx cannot listen on port 0: a free port is taken from the
// kernel first (a tiny race with other programs, acceptable for a benchmark).
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The nginx executable, or null when it is not installed. */
export function findNginx () {
  for (const exe of ['nginx', '/usr/sbin/nginx']) {
    if (spawnSync(exe, ['-v'], { stdio: 'ignore' }).error === undefined) return exe
  }
  return null
}

async function freePort () {
  const server = net.createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Wait until something accepts connections on the port (nginx prints nothing when ready). @param {number} port */
async function waitListening (port) {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true) })
      s.on('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nginx did not listen on 127.0.0.1:${port} within 5 s`)
}

/**
 * Start nginx answering "hello world\n" on every path (200, Content-Length, keep-alive for good).
 * @param {string} exe
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startNginx (exe) {
  const dir = mkdtempSync(join(tmpdir(), 'syncbench-nginx-'))
  const port = await freePort()
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:${port};
    location / { default_type text/plain; return 200 "hello world\\n"; }
  }
}
`)
  const child = spawn(exe, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] })
  const exited = once(child, 'exit')
  try {
    await Promise.race([waitListening(port), exited.then(([code]) => { throw new Error(`nginx exited with code ${code}`) })])
  } catch (err) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
