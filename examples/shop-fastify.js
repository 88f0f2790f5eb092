// The shop of shop-express.js on Fastify: the same four routes that hold the event loop (a
// serialisation, a compression, a key derivation, a password check) beside cheap ones, in plugins
// registered with prefixes. Listens on $PORT (scan and run --app set 0: a free port).
//
//   syncbench scan --app "node examples/shop-fastify.js" --param id=7
import { gzipSync } from 'node:zlib'
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import bcrypt from 'bcrypt'

const PRODUCTS = Array.from({ length: 40_000 }, (_, id) => ({
  id,
  name: `product ${id}`,
  price: (id % 997) / 10,
  tags: ['red', 'large', 'sale'].slice(0, 1 + (id % 3)),
  description: 'a product description long enough to weigh something in a serialised catalogue'
}))
const USER = { name: 'ada', hash: bcrypt.hashSync('correct horse', 10) }

/** @param {import('fastify').FastifyInstance} app */
async function products (app) {
  app.get('/', async () => PRODUCTS.slice(0, 20))
  app.get('/:id', async (req, reply) => {
    const product = PRODUCTS[Number(/** @type {{ id: string }} */ (req.params).id)]
    if (!product) return reply.code(404).send({ error: 'no such product' })
    return product
  })
  app.delete('/:id', async (req, reply) => reply.code(204).send())
}

/** @param {import('fastify').FastifyInstance} app */
async function reports (app) {
  // serialisation: the whole catalogue through JSON.stringify on the main thread
  app.get('/catalogue', async (req, reply) => {
    const body = JSON.stringify(PRODUCTS)
    return reply.type('application/json').send(body)
  })
  // compression: a large page gzipped synchronously
  app.get('/export.gz', async (req, reply) => {
    const page = Buffer.from(JSON.stringify(PRODUCTS.slice(0, 8000)))
    return reply.type('application/gzip').send(gzipSync(page, { level: 9 }))
  })
}

/** @param {import('fastify').FastifyInstance} app */
async function api (app) {
  await app.register(products, { prefix: '/products' })
  await app.register(reports, { prefix: '/reports' })
  // key derivation: 100,000 rounds of PBKDF2, synchronously
  app.get('/keys/derive', async (req) => {
    const key = pbkdf2Sync(String(/** @type {{ key?: string }} */ (req.query).key ?? 'demo-key'), 'shop-salt', 100_000, 32, 'sha512')
    return { key: key.toString('hex') }
  })
  // a password check: bcrypt on the main thread
  app.post('/login', async (req, reply) => {
    const { user, password } = /** @type {{ user?: string, password?: string }} */ (req.body ?? {})
    const ok = user === USER.name && typeof password === 'string' && bcrypt.compareSync(password, USER.hash)
    if (!ok) return reply.code(401).send({ error: 'wrong user or password' })
    return { token: randomBytes(16).toString('hex') }
  })
}

const app = Fastify()
await app.register(api, { prefix: '/api' })
app.get('/health', async () => 'ok')

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' })
