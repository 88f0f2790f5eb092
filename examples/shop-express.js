// A small shop on Express with routes of every kind `syncbench scan` should tell apart: four that hold
// the event loop in different ways (a serialisation, a compression, a key derivation, a password check)
// beside cheap ones, in routers nested under /api. Listens on $PORT (scan and run --app set 0: a free
// port).
//
//   syncbench scan --app "node examples/shop-express.js" --param id=7
import { gzipSync } from 'node:zlib'
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import express from 'express'
import bcrypt from 'bcrypt'

// A catalogue big enough that serialising all of it takes tens of milliseconds.
const PRODUCTS = Array.from({ length: 40_000 }, (_, id) => ({
  id,
  name: `product ${id}`,
  price: (id % 997) / 10,
  tags: ['red', 'large', 'sale'].slice(0, 1 + (id % 3)),
  description: 'a product description long enough to weigh something in a serialised catalogue'
}))
const USER = { name: 'ada', hash: bcrypt.hashSync('correct horse', 10) }

const products = express.Router()
products.get('/', (req, res) => { res.json(PRODUCTS.slice(0, 20)) })
products.get('/:id', (req, res) => {
  const product = PRODUCTS[Number(req.params.id)]
  if (!product) return res.status(404).json({ error: 'no such product' })
  res.json(product)
})
products.delete('/:id', (req, res) => { res.status(204).end() })

const reports = express.Router()
// serialisation: the whole catalogue through JSON.stringify on the main thread
reports.get('/catalogue', (req, res) => {
  const body = JSON.stringify(PRODUCTS)
  res.type('json').send(body)
})
// compression: a large page gzipped synchronously
reports.get('/export.gz', (req, res) => {
  const page = Buffer.from(JSON.stringify(PRODUCTS.slice(0, 8000)))
  res.type('application/gzip').send(gzipSync(page, { level: 9 }))
})

const api = express.Router()
api.use('/products', products)
api.use('/reports', reports)
// key derivation: an API key's hash, 100,000 rounds of PBKDF2, synchronously
api.get('/keys/derive', (req, res) => {
  const key = pbkdf2Sync(String(req.query.key ?? 'demo-key'), 'shop-salt', 100_000, 32, 'sha512')
  res.json({ key: key.toString('hex') })
})
// a password check: bcrypt on the main thread
api.post('/login', (req, res) => {
  const { user, password } = req.body ?? {}
  const ok = user === USER.name && typeof password === 'string' && bcrypt.compareSync(password, USER.hash)
  if (!ok) return res.status(401).json({ error: 'wrong user or password' })
  res.json({ token: randomBytes(16).toString('hex') })
})

const app = express()
app.use(express.json())
app.use('/api', api)
app.route('/health')
  .get((req, res) => { res.send('ok') })
  .head((req, res) => { res.end() })

app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1')
