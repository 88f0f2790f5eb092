// The French seed article's three node:http servers, as published: fs.readFile on 8081,
// fs.readFileSync on 8082, and the "fake async" setTimeout(readFileSync, 0) on 8083. Only the
// path changes: the article's '/path/to/file' becomes the generated data file (lib/lab/data-file.js).
// The fake-async server takes the setTimeout delay as a parameter (--delay), for the article's own note
// ("no difference from 1 to 5 ms, at 10 ms we lose 2 req/s"); its default, 0, is the published handler.
// The bare writeHead + end('Coucou gamin') sets no Content-Length, so Node closes every HTTP/1.0
// connection and ab -k gets no keep-alive here: that is the seed's behaviour, kept on purpose.
import fs from 'node:fs'

/** The servers by name (the `--only` values), their seed port and what each does. */
export const seedReadfileServers = {
  readfile: { port: 8081, description: 'fs.readFile' },
  readfilesync: { port: 8082, description: 'fs.readFileSync in try/catch' },
  'fake-async': { port: 8083, description: 'setTimeout(readFileSync, delay), delay 0 as published (--delay)' }
}

/** @typedef {keyof typeof seedReadfileServers} ReadfileServerName */

/**
 * Is `name` one of the servers (an own name: "toString" is not one)?
 * @param {string} name
 * @returns {name is ReadfileServerName}
 */
export function isReadfileServer (name) {
  return Object.hasOwn(seedReadfileServers, name)
}

/**
 * @param {string} file
 * @returns {import('node:http').RequestListener}
 */
export function readFileHandler (file) {
  return function (req, res) {
    fs.readFile(file, function (err, content) {
      const status = err ? 500 : 200
      res.writeHead(status, { 'Content-Type': 'text/plain' })
      res.end('Coucou gamin')
    })
  }
}

/**
 * @param {string} file
 * @returns {import('node:http').RequestListener}
 */
export function readFileSyncHandler (file) {
  return function (req, res) {
    let status, content
    try {
      // eslint-disable-next-line no-unused-vars -- the seed reads the file and ignores its content
      content = fs.readFileSync(file)
      status = 200
    } catch (err) {
      status = 500
    }
    res.writeHead(status, { 'Content-Type': 'text/plain' })
    res.end('Coucou gamin')
  }
}

/**
 * @param {string} file
 * @param {number} [delay=0] the setTimeout delay, ms: 0 is the article's published handler
 * @returns {import('node:http').RequestListener}
 */
export function fakeAsyncHandler (file, delay = 0) {
  return function (req, res) {
    setTimeout(function () {
      let status, content
      try {
        // eslint-disable-next-line no-unused-vars -- the seed reads the file and ignores its content
        content = fs.readFileSync(file)
        status = 200
      } catch (err) {
        status = 500
      }
      res.writeHead(status, { 'Content-Type': 'text/plain' })
      res.end('Coucou gamin')
    }, delay)
  }
}

/**
 * @param {ReadfileServerName} name
 * @param {string} file
 * @param {number} [delay=0] fake-async's setTimeout delay, ms (the other two have none)
 */
export function seedReadfileHandler (name, file, delay = 0) {
  if (name === 'readfile') return readFileHandler(file)
  if (name === 'readfilesync') return readFileSyncHandler(file)
  return fakeAsyncHandler(file, delay)
}
