// The first seed article's app, as published: Express with native bcrypt, one route hashing
// synchronously and one asynchronously (on libuv's thread pool).
// @ts-expect-error express ships no types (and @types/express is no dependency): ExpressResponse below
import express from 'express'
import bcrypt from 'bcrypt'

export const SEED_BCRYPT_PORT = 3000

/**
 * The part of Express's response the seed's handlers use.
 * @typedef {import('node:http').ServerResponse & { send: (body: string) => void }} ExpressResponse
 */

/**
 * The seed's Express app. Only `app.listen(3000, ...)` is left out: syncbench hosts the app itself
 * (lib/lab/http-host.js, which is what app.listen does) so the port, the host and the metrics
 * route can be added without touching the handlers below.
 * @returns {import('node:http').RequestListener} an Express app is one
 */
export function createSeedBcryptApp () {
  const app = express()

  app.get('/sync', (/** @type {import('node:http').IncomingMessage} */ req, /** @type {ExpressResponse} */ res) => {
    const hashed = bcrypt.hashSync('secret', 10)
    return res.send(hashed)
  })

  app.get('/async', async (/** @type {import('node:http').IncomingMessage} */ req, /** @type {ExpressResponse} */ res) => {
    const hashed = await bcrypt.hash('secret', 10)
    return res.send(hashed)
  })

  return app
}

/** What the terminal line lists after "listening on". */
export const seedBcryptRoutes = ['GET /sync', 'GET /async']
