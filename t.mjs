import { spawn } from 'node:child_process'
import http2 from 'node:http2'
import https from 'node:https'
const args = process.argv.slice(2)
const child = spawn(process.execPath, ['bin/syncbench.js', 'serve', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
let out = ''
child.stdout.on('data', async (d) => {
  out += d
  if (!out.includes('HTTP/2')) return
  console.log(out)
  const url = /listening on (\S+)/.exec(out)[1]
  const paths = process.env.P.split(',')
  const c = http2.connect(url, { rejectUnauthorized: false })
  for (const p of paths) {
    await new Promise((resolve) => {
      const r = c.request({ ':path': p })
      let body = ''
      r.on('response', (h) => { body += h[':status'] + ' ' + h['content-type'] + ' ' })
      r.on('data', (x) => body += x)
      r.on('end', () => { console.log(p, body.slice(0, 100).replace(/\n/g, ' ')); resolve() })
      r.on('error', (e) => { console.log(p, 'error', e.message); resolve() })
    })
  }
  c.close()
  if (url.startsWith('https')) {
    await new Promise((resolve) => https.get(url + paths[0], { rejectUnauthorized: false }, (res) => { let b = ''; res.on('data', x => b += x); res.on('end', () => { console.log('h1 fallback', res.httpVersion, res.statusCode, b.slice(0, 50)); resolve() }) }))
  }
  child.kill('SIGTERM')
})
