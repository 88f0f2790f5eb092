// The lab's workloads x strategies as plain functions. A workload knows how to do its work
// synchronously (`sync(params) -> body`) and, where Node has one, through an asynchronous API;
// the generic strategies (fake-async, immediate, worker) are built from `sync`.
import fs from 'node:fs'
import crypto from 'node:crypto'
import bcrypt from 'bcrypt'
import bcryptjs from 'bcryptjs'
import { MAX_FILE_SIZE } from './data-file.js'
import { strategies } from './strategies.js'

/**
 * @typedef {object} ParamSpec
 * @property {number} min
 * @property {number} max
 * @property {number} [default]     absent: the lab fills it in (readfile's size comes from --file-size)
 * @property {'integer'|'size'} type   size accepts 4194304, 4m, 4MiB (lib/lab/data-file.js parseSize)
 * @property {string} unit
 * @property {string} description
 */

/** @typedef {(err: Error|null, body?: string) => void} Done */

const sleeper = new Int32Array(new SharedArrayBuffer(4))

/**
 * Blocks this thread for `ms`: a synchronous driver call without the driver.
 * @param {number} ms
 */
export function blockingWait (ms) {
  Atomics.wait(sleeper, 0, 0, ms)
}

const readBody = (/** @type {number} */ bytes) => `read ${bytes} bytes`
const waitBody = (/** @type {number} */ ms) => `waited ${ms} ms`
/** @param {{ iterations: number }} p @returns {[string, string, number, number, string]} */
const pbkdf2Args = (p) => ['secret', 'syncbench-salt', p.iterations, 32, 'sha256']

// readfile reads a prefix of the lab's one data file, as readFile reads a whole file: open, read into
// one buffer of `size` bytes until full, close (lib/lab/data-file.js keeps the cache to one file).

/** @param {string} file @param {number} got @param {number} size */
const shortRead = (file, got, size) => new Error(`${file} ended after ${got} of ${size} bytes`)

/**
 * @param {string} file
 * @param {number} size
 * @returns {number} the bytes read: `size`
 */
function readPrefixSync (file, size) {
  const fd = fs.openSync(file, 'r')
  try {
    const buffer = Buffer.allocUnsafe(size)
    let got = 0
    for (let n = 1; got < size && n > 0; got += n) n = fs.readSync(fd, buffer, got, size - got, got)
    if (got < size) throw shortRead(file, got, size)
    return got
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * @param {string} file
 * @param {number} size
 * @param {Done} done
 */
function readPrefix (file, size, done) {
  fs.open(file, 'r', (err, fd) => {
    if (err) return done(err)
    const buffer = Buffer.allocUnsafe(size)
    /** @param {Error|null} err @param {number} got */
    const finish = (err, got) => fs.close(fd, () => done(err ?? (got < size ? shortRead(file, got, size) : null), readBody(got)))
    /** @param {number} got */
    const step = (got) => {
      if (got >= size) return finish(null, got)
      fs.read(fd, buffer, got, size - got, got, (err, n) => err || n === 0 ? finish(err, got) : step(got + n))
    }
    step(0)
  })
}

/**
 * @param {string} file
 * @param {number} size
 * @returns {Promise<number>}
 */
async function readPrefixPromise (file, size) {
  const handle = await fs.promises.open(file, 'r')
  try {
    const buffer = Buffer.allocUnsafe(size)
    let got = 0
    for (let n = 1; got < size && n > 0; got += n) n = (await handle.read(buffer, got, size - got, got)).bytesRead
    if (got < size) throw shortRead(file, got, size)
    return got
  } finally {
    await handle.close()
  }
}

/**
 * Each workload: what it models, its parameters, `sync` (returns the body), and the asynchronous
 * strategies it has beyond the generic ones. `async`/`promises`/`stream` take (params, done).
 * @type {Record<string, { description: string, params: Record<string, ParamSpec>, sync: (p: any) => string, async?: (p: any, done: Done) => void, promises?: (p: any, done: Done) => void, stream?: (p: any, done: Done) => void }>}
 */
export const workloads = {
  bcrypt: {
    description: "native bcrypt hash of 'secret' (the seed's workload); async runs on libuv's thread pool",
    params: { cost: { type: 'integer', min: 4, max: 15, default: 10, unit: 'log2 rounds', description: 'bcrypt cost factor' } },
    sync: (p) => bcrypt.hashSync('secret', p.cost),
    async: (p, done) => bcrypt.hash('secret', p.cost).then((hash) => done(null, hash), done)
  },
  bcryptjs: {
    description: "pure-JS bcrypt hash of 'secret': its async API still runs on the main thread, in slices",
    params: { cost: { type: 'integer', min: 4, max: 15, default: 10, unit: 'log2 rounds', description: 'bcrypt cost factor' } },
    sync: (p) => bcryptjs.hashSync('secret', p.cost),
    async: (p, done) => bcryptjs.hash('secret', p.cost).then((hash) => done(null, hash), done)
  },
  readfile: {
    description: 'read `size` bytes of the generated data file into memory (the French seed reads it whole); async and promises use the thread pool',
    params: { size: { type: 'size', min: 0, max: MAX_FILE_SIZE, unit: 'bytes', description: 'bytes read: a prefix of one cached file, the largest size asked so far' } },
    sync: (p) => readBody(readPrefixSync(p.file, p.size)),
    async: (p, done) => readPrefix(p.file, p.size, done),
    promises: (p, done) => readPrefixPromise(p.file, p.size).then((bytes) => done(null, readBody(bytes)), done),
    // Streams into a counting sink rather than to the client, so every readfile strategy sends the same small body.
    stream: (p, done) => {
      if (p.size === 0) return readPrefix(p.file, 0, done) // createReadStream cannot end before byte 0
      let bytes = 0
      fs.createReadStream(p.file, { start: 0, end: p.size - 1 })
        .on('data', (chunk) => { bytes += chunk.length })
        .on('error', done)
        .on('end', () => bytes === p.size ? done(null, readBody(bytes)) : done(shortRead(p.file, bytes, p.size)))
    }
  },
  pbkdf2: {
    description: 'node:crypto PBKDF2-SHA256 of a fixed password: CPU work; async runs on the thread pool',
    params: { iterations: { type: 'integer', min: 1, max: 10_000_000, default: 100_000, unit: 'iterations', description: 'PBKDF2 iterations' } },
    sync: (p) => crypto.pbkdf2Sync(...pbkdf2Args(p)).toString('hex'),
    async: (p, done) => crypto.pbkdf2(...pbkdf2Args(p), (err, key) => err ? done(err) : done(null, key.toString('hex')))
  },
  wait: {
    description: 'pure waiting, no CPU: Atomics.wait blocks like a synchronous driver call, a timer waits like an asynchronous one',
    params: { ms: { type: 'integer', min: 0, max: 10_000, default: 50, unit: 'ms', description: 'how long to wait' } },
    sync: (p) => { blockingWait(p.ms); return waitBody(p.ms) },
    async: (p, done) => setTimeout(() => done(null, waitBody(p.ms)), p.ms)
  }
}

/**
 * The `delay` parameter of the fake-async strategy.
 * @type {ParamSpec}
 */
export const delayParam = { type: 'integer', min: 0, max: 10_000, default: 0, unit: 'ms', description: 'setTimeout delay before the synchronous work' }

export { strategies }

/**
 * Strategies a workload offers, in the order of `strategies`.
 * @param {string} name
 * @returns {string[]}
 */
export function strategiesOf (name) {
  const w = workloads[name]
  return Object.keys(strategies).filter((s) => (s !== 'async' && s !== 'promises' && s !== 'stream') || typeof w[s] === 'function')
}

/**
 * Run one workload with one strategy. `sync` calls `done` before returning; the others later.
 * @param {string} workload
 * @param {string} strategy
 * @param {Record<string, any>} params   validated, with `file` for readfile
 * @param {{ runInWorker: (task: { workload: string, params: object }) => Promise<string> }} context
 * @param {Done} done
 */
export function execute (workload, strategy, params, context, done) {
  const w = workloads[workload]
  const guarded = () => {
    let body
    try {
      body = w.sync(params)
    } catch (err) {
      return done(/** @type {Error} */ (err))
    }
    done(null, body)
  }
  if (strategy === 'sync') guarded()
  else if (strategy === 'fake-async') setTimeout(guarded, params.delay)
  else if (strategy === 'immediate') setImmediate(guarded)
  else if (strategy === 'worker') context.runInWorker({ workload, params }).then((body) => done(null, body), done)
  else {
    const run = w[/** @type {'async'|'promises'|'stream'} */ (strategy)]
    if (run) run(params, done)
    else done(new Error(`${workload} has no ${strategy} strategy`))
  }
}
