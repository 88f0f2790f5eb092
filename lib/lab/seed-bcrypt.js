// The first seed article's app, as published: Express with native bcrypt, one route hashing
// synchronously and one asynchronously (on libuv's thread pool).
import express from 'express'
import bcrypt from 'bcrypt'

export const SEED_BCRYPT_PORT = 3000

/**
 * The seed's Express app. Only `app.listen(3000, ...)` is left out: syncbench hosts the app itself
 * (lib/lab/http-host.js, which is what app.listen does) so the port, the host and the metrics
 * route can be added without touching the handlers below.
 */
export function createSeedBcryptApp () {
  const app = express()

  app.get('/sync', (req, res) => {
    const hashed = bcrypt.hashSync('secret', 10)
    return res.send(hashed)
  })

  app.get('/async', async (req, res) => {
    const hashed = await bcrypt.hash('secret', 10)
    return res.send(hashed)
  })

  return app
}

/** What the terminal line lists after "listening on". */
export const seedBcryptRoutes = ['GET /sync', 'GET /async']
