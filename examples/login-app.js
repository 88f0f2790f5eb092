// A small Express app with the route that blocks most real servers: a login that checks a bcrypt hash
// on the event loop. POST /login compares synchronously, POST /login-async on libuv's thread pool; both
// answer a bearer token for GET /me. GET /health does no work. Listens on $PORT (syncbench run --app
// sets 0: a free port). BCRYPT_ROUNDS sets the hash's cost (default 10, bcrypt's).
//
//   syncbench run --app "node examples/login-app.js" --request "POST /login" \
//     -p examples/login.json -T application/json --path /health --weight 4 --mix --profile
import { randomBytes } from 'node:crypto'
import express from 'express'
import bcrypt from 'bcrypt'

const ROUNDS = Number(process.env.BCRYPT_ROUNDS ?? 10)
// One user, its password hashed once at start.
const USER = { name: 'ada', hash: bcrypt.hashSync('correct horse', ROUNDS) }
/** bearer token -> user name */
const sessions = new Map()

function checkPasswordSync (password) {
  return bcrypt.compareSync(password, USER.hash)
}

/** @param {import('express').Response} res */
function login (res, user, ok) {
  if (user !== USER.name || !ok) return res.status(401).json({ error: 'wrong user or password' })
  const token = randomBytes(16).toString('hex')
  sessions.set(token, user)
  // a bounded session store: the oldest goes first
  if (sessions.size > 10_000) sessions.delete(sessions.keys().next().value)
  res.json({ token })
}

const app = express()
app.use(express.json())

app.post('/login', (req, res) => {
  const { user, password } = req.body ?? {}
  login(res, user, typeof password === 'string' && checkPasswordSync(password))
})

app.post('/login-async', async (req, res, next) => {
  const { user, password } = req.body ?? {}
  try {
    login(res, user, typeof password === 'string' && await bcrypt.compare(password, USER.hash))
  } catch (err) {
    next(err)
  }
})

app.get('/me', (req, res) => {
  const token = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1]
  const user = token === undefined ? undefined : sessions.get(token) ?? (token === process.env.DEMO_TOKEN ? USER.name : undefined)
  if (user === undefined) return res.status(401).json({ error: 'no session' })
  res.json({ user })
})

app.get('/health', (req, res) => { res.send('ok') })

app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1')
