// syncbench's native transport for TCP and unix sockets: the engine's sockets on libuv directly,
// their events handed to JavaScript in batches, one call per turn of the event loop instead of one
// per read.
//
// Why it exists (npm run bench, nginx on one core, the generator on the other, 2-core VM): with
// node:net, syncbench ab -k -c 50 spent 5.4 us of CPU per request where wrk -t1 spends 4.8, and
// without keep-alive 62.6 us where ab spends 28.6. The kernel's share was about the same as theirs;
// the difference was Node's per-read callback (MakeCallback, async hooks, a microtask checkpoint),
// the WriteWrap object and stream state of every write, and a net.Socket per connection. Here a
// read lands in a shared arena, a write is uv_try_write of the caller's buffer, and a connection is
// a malloc'd uv_tcp_t. The measured effect is in README's bench table and bench/run.js.
//
// The engine keeps all of ab's logic in JavaScript (lib/load/native-io.js is the other half): this
// file only moves bytes and reports what libuv reports, in order, per socket.
//
// Events: EV_FIELDS int32s each in a shared Int32Array: type, slot, serial, a, b.
//   EV_CONNECT  the connect succeeded (reading has started)
//   EV_READ     a = offset in the arena, b = bytes
//   EV_EOF      the peer closed its side
//   EV_ERROR    a = libuv's negative errno, b = SYS_CONNECT | SYS_READ | SYS_WRITE
//   EV_DRAIN    a write that had to wait is done (one per such write, in order)
// Each event's time (uv_hrtime, in ms, the clock of performance.now()) is in a Float64Array beside
// them, stamped when libuv reported it: the engine times a response by when it was read, not by when
// its batch reached JavaScript.
// A slot is the caller's number for one connection; serial numbers its successive sockets, so that an
// event queued for a socket the caller has since closed and reopened is recognised and dropped.
//
// Memory, who owns what (each buffer's owner and lifetime is also written beside it below):
//   io_t        one per thread (per N-API environment), malloc'd at module init, freed once the
//               environment's cleanup hook has closed every handle and the last close has called back.
//   events, times, arena   ArrayBuffers created by init(): owned by V8, kept alive by io->resource (a
//               strong reference) for the life of the environment; C writes them, JavaScript reads
//               them during the callback only.
//   overflow    malloc'd by the io, grown on demand: events queued while the shared buffer is full
//               (JavaScript can queue any number while it handles one batch). Nothing is ever dropped.
//   sock_t      malloc'd per connection, returned to io->pool by its close callback, reused; freed
//               with the io.
//   write_t     one per uv_write in flight (a socket may have several: a request written behind a
//               response that came before the previous request's body was written), from io->wpool;
//               returned there by its write callback, which libuv calls before the socket's close
//               callback (with UV_ECANCELED after a close).
//   written bytes   the caller's Buffer: JavaScript keeps it referenced from write() until this socket's
//               EV_DRAIN or EV_ERROR for it, or until it closes the socket (lib/load/native-io.js);
//               libuv reads it only while the socket is open (uv_close stops all I/O at once).
//
// Failures: a call from JavaScript with bad arguments, or an N-API call that fails, throws
// SB_ERR_NATIVE_IO with the reason; a state the code relies on never happening aborts the process
// with napi_fatal_error and a message naming it (nothing is dropped or skipped silently).
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

enum { EV_CONNECT = 1, EV_READ = 2, EV_EOF = 3, EV_ERROR = 4, EV_DRAIN = 5 };
enum { SYS_CONNECT = 1, SYS_READ = 2, SYS_WRITE = 3 };
#define EV_FIELDS 5
#define EV_CAPACITY 4096
// Node reads 64 KiB at a time; so does this. The arena holds at least one such read: it is handed
// to JavaScript (and so emptied) before a read could overflow it.
#define READ_SIZE 65536
#define ARENA_SIZE (4 * READ_SIZE)
// Events queued while JavaScript handles a batch (a refused connect reported at once, say) are handed
// over in the same turn, up to this many more batches; the rest wait for the next turn (the idle
// handle makes it come at once), so that JavaScript queueing events endlessly cannot starve the loop.
// Reads are always handed over before the flush returns: the arena they point into is then reused.
#define MAX_REFLUSH 64
// The flush is started from libuv's callbacks when the shared buffer has fewer free slots than this.
#define FLUSH_MARGIN 4

#define FATAL(what) napi_fatal_error("syncbench native/io.c", NAPI_AUTO_LENGTH, what, NAPI_AUTO_LENGTH)

typedef struct io_s io_t;

// Where a connection goes: an IP address and port, or (--unix) a unix socket's path.
typedef struct {
  int pipe;
  struct sockaddr_storage addr;
  char path[sizeof ((struct sockaddr_un*) 0)->sun_path];
} target_t;

typedef struct sock_s {
  union { uv_tcp_t tcp; uv_pipe_t pipe; } h; // a stream either way: uv_stream_t* casts of &h
  uv_connect_t connect_req;
  io_t* io;
  int32_t slot; // -1 once closed
  int32_t serial;
  int nodelay;
  int read_on_connect; // a unix socket starts reading once connected (see js_connect)
  struct sock_s* next; // in the io's pool of closed sockets
} sock_t;

typedef struct write_s {
  uv_write_t req;
  sock_t* sock; // valid until the callback: libuv calls it before the socket's close callback
  int32_t serial; // the socket's serial when written (the sock_t is reused after its close)
  struct write_s* next; // in the io's pool
} write_t;

// One event as the shared buffers hold it, for the overflow.
typedef struct {
  int32_t f[EV_FIELDS];
  double time;
} event_t;

struct io_s {
  napi_env env;
  uv_loop_t* loop;
  napi_ref callback;
  napi_ref resource; // holds events, times and arena (the ArrayBuffers below) alive
  napi_async_context async_context;
  int32_t* events; // V8's (an ArrayBuffer of init()), EV_CAPACITY events
  double* times; // V8's, EV_CAPACITY times
  size_t nevents;
  event_t* overflow; // malloc'd, novf of capacity_ovf used; freed with the io
  size_t novf;
  size_t capacity_ovf;
  uint8_t* arena; // V8's, ARENA_SIZE bytes that reads land in
  size_t arena_used;
  size_t unread; // EV_READ events queued and not yet handed to JavaScript (the arena is in use)
  sock_t** socks; // malloc'd, nsocks entries, by slot; grown by get_slot; freed with the io
  size_t nsocks;
  int32_t next_serial;
  uv_check_t check;
  uv_idle_t idle;
  target_t* targets; // malloc'd, ntargets entries; freed with the io
  size_t ntargets;
  sock_t* pool; // closed sockets, reused: no malloc and free per connection
  write_t* wpool; // finished writes, reused
  size_t closing; // sockets whose close has not called back yet
  int flushing;
  int closed; // the environment is going away
  int check_closed;
};

static void throw_error (napi_env env, const char* message) {
  napi_throw_error(env, "SB_ERR_NATIVE_IO", message);
}

// An N-API call that failed in a function JavaScript called: throw (unless it already threw) with
// the call and N-API's reason, instead of returning undefined as if all were well.
static void throw_failed (napi_env env, const char* call) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  const napi_extended_error_info* info = NULL;
  char message[256];
  napi_get_last_error_info(env, &info);
  snprintf(message, sizeof message, "native/io.c: %s failed: %s", call, info != NULL && info->error_message != NULL ? info->error_message : "unknown N-API error");
  throw_error(env, message);
}

#define CHECK(call) do { if ((call) != napi_ok) { throw_failed(env, #call); return NULL; } } while (0)
// The same in a callback from libuv, where there is no JavaScript caller to throw to.
#define MUST(call) do { if ((call) != napi_ok) FATAL(#call " failed"); } while (0)

static io_t* get_io (napi_env env) {
  void* data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) FATAL("no instance data: the module was not initialised");
  return (io_t*) data;
}

static void flush (io_t* io);

static void idle_cb (uv_idle_t* handle) { (void) handle; }

static int queued (const io_t* io) { return io->nevents > 0 || io->novf > 0; }

// Queue an event. It goes to the shared buffer while that has room and nothing waits in the overflow
// (the order is kept), else to the overflow. Never flushes: it may be called from a function
// JavaScript called, and handing events to JavaScript from there would re-enter it.
static void queue_event (io_t* io, int32_t type, sock_t* sock, int32_t a, int32_t b) {
  double time = (double) uv_hrtime() / 1e6;
  if (io->nevents < EV_CAPACITY && io->novf == 0) {
    int32_t* e = io->events + io->nevents * EV_FIELDS;
    e[0] = type;
    e[1] = sock->slot;
    e[2] = sock->serial;
    e[3] = a;
    e[4] = b;
    io->times[io->nevents] = time;
    io->nevents++;
  } else {
    if (io->novf == io->capacity_ovf) {
      size_t n = io->capacity_ovf ? io->capacity_ovf * 2 : EV_CAPACITY;
      event_t* grown = realloc(io->overflow, n * sizeof(event_t));
      if (grown == NULL) FATAL("out of memory for the event overflow");
      io->overflow = grown;
      io->capacity_ovf = n;
    }
    event_t* e = &io->overflow[io->novf++];
    e->f[0] = type;
    e->f[1] = sock->slot;
    e->f[2] = sock->serial;
    e->f[3] = a;
    e->f[4] = b;
    e->time = time;
  }
  if (type == EV_READ) io->unread++;
  // an event queued outside libuv's poll phase (from a call made by JavaScript) must not wait for
  // the next I/O: an active idle handle makes the next poll return at once
  if (!uv_is_active((uv_handle_t*) &io->idle)) uv_idle_start(&io->idle, idle_cb);
}

// From libuv's callbacks (never while JavaScript runs): hand the queue over when it is nearly full.
static void queue_and_flush (io_t* io, int32_t type, sock_t* sock, int32_t a, int32_t b) {
  queue_event(io, type, sock, a, b);
  if (io->nevents + FLUSH_MARGIN >= EV_CAPACITY) flush(io);
}

// The first n events of the shared buffer have been handed over: move the rest to the front, then
// as much of the overflow as fits behind them.
static void consume (io_t* io, size_t n) {
  for (size_t i = 0; i < n; i++) if (io->events[i * EV_FIELDS] == EV_READ) io->unread--;
  size_t rest = io->nevents - n;
  if (rest > 0) {
    memmove(io->events, io->events + n * EV_FIELDS, rest * EV_FIELDS * sizeof(int32_t));
    memmove(io->times, io->times + n, rest * sizeof(double));
  }
  io->nevents = rest;
  size_t take = EV_CAPACITY - rest < io->novf ? EV_CAPACITY - rest : io->novf;
  for (size_t i = 0; i < take; i++) {
    memcpy(io->events + (rest + i) * EV_FIELDS, io->overflow[i].f, sizeof io->overflow[i].f);
    io->times[rest + i] = io->overflow[i].time;
  }
  if (take > 0) {
    memmove(io->overflow, io->overflow + take, (io->novf - take) * sizeof(event_t));
    io->novf -= take;
    io->nevents += take;
  }
  // the arena is free once no read waits to be handed over
  if (io->unread == 0) io->arena_used = 0;
}

// Hand the queued events to JavaScript: callback(count), as many batches as it takes for every read
// and up to MAX_REFLUSH for the rest.
static void flush (io_t* io) {
  if (io->flushing || !queued(io) || io->closed) return;
  io->flushing = 1;
  napi_env env = io->env;
  napi_handle_scope scope;
  MUST(napi_open_handle_scope(env, &scope));
  napi_value callback, resource, count, result;
  MUST(napi_get_reference_value(env, io->callback, &callback));
  MUST(napi_get_reference_value(env, io->resource, &resource));
  for (int round = 0; io->nevents > 0 && (round < MAX_REFLUSH || io->unread > 0) && !io->closed; round++) {
    size_t n = io->nevents;
    MUST(napi_create_uint32(env, (uint32_t) n, &count));
    napi_status status = napi_make_callback(env, io->async_context, resource, callback, 1, &count, &result);
    if (status == napi_pending_exception) {
      // the engine's handler threw: Node's uncaught-exception path, as for an exception in a
      // node:net listener; the events it had are consumed as handled
      napi_value err;
      MUST(napi_get_and_clear_last_exception(env, &err));
      napi_fatal_exception(env, err);
    } else if (status != napi_ok) {
      FATAL("napi_make_callback failed: the events could not be handed to JavaScript");
    }
    consume(io, n);
  }
  MUST(napi_close_handle_scope(env, scope));
  io->flushing = 0;
}

static void check_cb (uv_check_t* handle) {
  io_t* io = (io_t*) handle->data;
  flush(io);
  if (!queued(io)) uv_idle_stop(&io->idle);
}

// Every read lands in the arena, at the first 8-byte boundary after the reads not yet handed over.
static void alloc_cb (uv_handle_t* handle, size_t suggested, uv_buf_t* buf) {
  (void) suggested;
  io_t* io = ((sock_t*) handle->data)->io;
  // read_cb hands the queue over (which frees the arena) whenever less than READ_SIZE is left
  if (ARENA_SIZE - io->arena_used < READ_SIZE) FATAL("read arena full: a read was not handed over");
  buf->base = (char*) io->arena + io->arena_used;
  buf->len = READ_SIZE;
}

static void read_cb (uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  sock_t* sock = (sock_t*) stream->data;
  io_t* io = sock->io;
  if (sock->slot < 0 || nread == 0) return;
  if (nread > 0) {
    size_t offset = (size_t) ((uint8_t*) buf->base - io->arena);
    queue_event(io, EV_READ, sock, (int32_t) offset, (int32_t) nread);
    // the next read starts on an 8-byte boundary: the engine's header cache compares 32-bit words
    io->arena_used = (offset + (size_t) nread + 7) & ~(size_t) 7;
    if (ARENA_SIZE - io->arena_used < READ_SIZE || io->nevents + FLUSH_MARGIN >= EV_CAPACITY) flush(io);
  } else if (nread == UV_EOF) {
    queue_and_flush(io, EV_EOF, sock, 0, 0);
  } else {
    queue_and_flush(io, EV_ERROR, sock, (int32_t) nread, SYS_READ);
  }
}

static void connect_cb (uv_connect_t* req, int status) {
  sock_t* sock = (sock_t*) req->data;
  if (sock->slot < 0 || status == UV_ECANCELED) return;
  if (status < 0) {
    queue_and_flush(sock->io, EV_ERROR, sock, status, SYS_CONNECT);
    return;
  }
  // setsockopt on a socket just connected fails only if the socket is gone: the connect failed
  int r = sock->nodelay ? uv_tcp_nodelay(&sock->h.tcp, 1) : 0;
  if (r < 0) { queue_and_flush(sock->io, EV_ERROR, sock, r, SYS_CONNECT); return; }
  if (sock->read_on_connect) {
    r = uv_read_start((uv_stream_t*) &sock->h, alloc_cb, read_cb);
    if (r < 0) { queue_and_flush(sock->io, EV_ERROR, sock, r, SYS_READ); return; }
  }
  queue_and_flush(sock->io, EV_CONNECT, sock, 0, 0);
}

static void write_cb (uv_write_t* req, int status) {
  write_t* w = (write_t*) req->data;
  sock_t* sock = w->sock;
  io_t* io = sock->io;
  int32_t serial = w->serial;
  w->next = io->wpool;
  io->wpool = w;
  // a socket closed since (its callbacks run before its close callback, so sock is still its own)
  if (sock->slot < 0 || sock->serial != serial || status == UV_ECANCELED) return;
  if (status < 0) queue_and_flush(io, EV_ERROR, sock, status, SYS_WRITE);
  else queue_and_flush(io, EV_DRAIN, sock, 0, 0);
}

static void free_io (io_t* io) {
  while (io->pool != NULL) {
    sock_t* next = io->pool->next;
    free(io->pool);
    io->pool = next;
  }
  while (io->wpool != NULL) {
    write_t* next = io->wpool->next;
    free(io->wpool);
    io->wpool = next;
  }
  free(io->overflow);
  free(io->socks);
  free(io->targets);
  free(io);
}

static void close_cb (uv_handle_t* handle) {
  sock_t* sock = (sock_t*) handle->data;
  io_t* io = sock->io;
  sock->next = io->pool;
  io->pool = sock;
  io->closing--;
  if (io->closed && io->check_closed && io->closing == 0) free_io(io);
}

static void close_sock (io_t* io, sock_t* sock) {
  io->socks[sock->slot] = NULL;
  sock->slot = -1;
  io->closing++;
  uv_close((uv_handle_t*) &sock->h, close_cb);
}

#define MAX_SLOT (1 << 24)

static int get_slot (napi_env env, napi_value value, io_t* io, int32_t* slot) {
  if (napi_get_value_int32(env, value, slot) != napi_ok || *slot < 0 || *slot >= MAX_SLOT) {
    throw_error(env, "slot must be an integer from 0 to 16777215");
    return 0;
  }
  if ((size_t) *slot >= io->nsocks) {
    size_t n = io->nsocks ? io->nsocks : 64;
    while (n <= (size_t) *slot) n *= 2;
    sock_t** socks = realloc(io->socks, n * sizeof(sock_t*));
    if (socks == NULL) { throw_error(env, "out of memory"); return 0; }
    memset(socks + io->nsocks, 0, (n - io->nsocks) * sizeof(sock_t*));
    io->socks = socks;
    io->nsocks = n;
  }
  return 1;
}

// The number of this target in the io's table, added if new; -1 when out of memory (thrown).
static int64_t add_target (napi_env env, io_t* io, const target_t* t) {
  size_t i = 0;
  while (i < io->ntargets && memcmp(&io->targets[i], t, sizeof *t) != 0) i++;
  if (i == io->ntargets) {
    target_t* targets = realloc(io->targets, (io->ntargets + 1) * sizeof *t);
    if (targets == NULL) { throw_error(env, "out of memory"); return -1; }
    io->targets = targets;
    io->targets[io->ntargets++] = *t;
  }
  return (int64_t) i;
}

// target(address, port, ipv6): the number of this numeric address and port, for connect().
static napi_value js_target (napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  int32_t port;
  bool ipv6;
  char address[64]; // the longest numeric IPv6 address with a zone fits; a longer string is refused
  size_t len;
  CHECK(napi_get_value_string_utf8(env, argv[0], address, sizeof address, &len));
  CHECK(napi_get_value_int32(env, argv[1], &port));
  CHECK(napi_get_value_bool(env, argv[2], &ipv6));
  if (len >= sizeof address - 1) { throw_error(env, "not a numeric address (too long)"); return NULL; }
  if (port < 0 || port > 65535) { throw_error(env, "port must be from 0 to 65535"); return NULL; }
  target_t t;
  memset(&t, 0, sizeof t);
  int r = ipv6 ? uv_ip6_addr(address, port, (struct sockaddr_in6*) &t.addr) : uv_ip4_addr(address, port, (struct sockaddr_in*) &t.addr);
  if (r < 0) { throw_error(env, "not a numeric address"); return NULL; }
  int64_t i = add_target(env, io, &t);
  if (i < 0) return NULL;
  napi_value id;
  CHECK(napi_create_uint32(env, (uint32_t) i, &id));
  return id;
}

// targetPipe(path): the number of this unix socket, for connect(); null when the path is too long
// for a unix socket address (the caller keeps node:net, which says why).
static napi_value js_target_pipe (napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  target_t t;
  memset(&t, 0, sizeof t);
  t.pipe = 1;
  size_t len;
  napi_value result;
  // the path's length first: a longer one would be cut to fit the buffer
  CHECK(napi_get_value_string_utf8(env, argv[0], NULL, 0, &len));
  if (len >= sizeof t.path) {
    CHECK(napi_get_null(env, &result));
    return result;
  }
  CHECK(napi_get_value_string_utf8(env, argv[0], t.path, sizeof t.path, &len));
  int64_t i = add_target(env, io, &t);
  if (i < 0) return NULL;
  CHECK(napi_create_uint32(env, (uint32_t) i, &result));
  return result;
}

// connect(slot, target, nodelay): a new socket for the slot (whose previous one is closed first) to
// a target(); returns its serial, negated when no socket could be made (no descriptor: EMFILE, say).
// Failures, immediate ones included, arrive as EV_ERROR events.
static napi_value js_connect (napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  int32_t slot;
  uint32_t target;
  bool nodelay;
  if (!get_slot(env, argv[0], io, &slot)) return NULL;
  CHECK(napi_get_value_uint32(env, argv[1], &target));
  CHECK(napi_get_value_bool(env, argv[2], &nodelay));
  if (target >= io->ntargets) { throw_error(env, "no such target"); return NULL; }
  if (io->socks[slot] != NULL) close_sock(io, io->socks[slot]);
  sock_t* sock = io->pool;
  if (sock != NULL) io->pool = sock->next;
  else if ((sock = malloc(sizeof(sock_t))) == NULL) { throw_error(env, "out of memory"); return NULL; }
  memset(sock, 0, sizeof(sock_t));
  const target_t* t = &io->targets[target];
  int r = t->pipe ? uv_pipe_init(io->loop, &sock->h.pipe, 0) : uv_tcp_init(io->loop, &sock->h.tcp);
  if (r < 0) { sock->next = io->pool; io->pool = sock; throw_error(env, uv_strerror(r)); return NULL; }
  sock->h.tcp.data = sock;
  sock->connect_req.data = sock;
  sock->io = io;
  sock->slot = slot;
  sock->nodelay = nodelay && !t->pipe;
  sock->serial = io->next_serial = io->next_serial == INT32_MAX ? 1 : io->next_serial + 1;
  io->socks[slot] = sock;
  if (t->pipe) {
    // uv_pipe_connect reports every failure, the socket's creation included, to connect_cb: reading
    // starts there, once there is a connected socket to read
    sock->read_on_connect = 1;
    uv_pipe_connect(&sock->connect_req, &sock->h.pipe, t->path, connect_cb);
  } else {
    r = uv_tcp_connect(&sock->connect_req, &sock->h.tcp, (const struct sockaddr*) &t->addr, connect_cb);
    // Reading starts now, not once connected: libuv then registers the socket with epoll once for
    // both (connected, readable) and changes it once, where starting after the connect costs an ADD
    // that fails with EEXIST and a MOD: one system call less per connection. Nothing is read before
    // the connect's event (the server answers what we write after it); a failed connect's socket is
    // closed by the caller before the next poll. (uv_tcp_connect returning 0 means the socket exists.)
    if (r == 0) r = uv_read_start((uv_stream_t*) &sock->h, alloc_cb, read_cb);
    if (r < 0) queue_event(io, EV_ERROR, sock, r, SYS_CONNECT);
  }
  uv_os_fd_t fd;
  int has_descriptor = uv_fileno((uv_handle_t*) &sock->h, &fd) == 0;
  napi_value serial;
  CHECK(napi_create_int32(env, has_descriptor ? sock->serial : -sock->serial, &serial));
  return serial;
}

// write(slot, buffer): true when the kernel took it all at once; false when the rest is being written
// (EV_DRAIN when done; the buffer must stay alive and unchanged until then, or until the socket is
// closed) or it failed (EV_ERROR). A write while an earlier one is still going is queued behind it.
static napi_value js_write (napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  int32_t slot;
  void* data;
  size_t len;
  if (!get_slot(env, argv[0], io, &slot)) return NULL;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  if (len > UINT_MAX) { throw_error(env, "a write of more than 4 GiB"); return NULL; }
  sock_t* sock = io->socks[slot];
  napi_value result;
  if (sock == NULL) { throw_error(env, "write on a closed slot"); return NULL; }
  uv_buf_t buf = uv_buf_init((char*) data, (unsigned int) len);
  // (UV_EAGAIN while an earlier write is queued: this one then queues behind it, in order)
  int r = uv_try_write((uv_stream_t*) &sock->h, &buf, 1);
  if (r == (int) len) {
    CHECK(napi_get_boolean(env, true, &result));
    return result;
  }
  if (r == UV_EAGAIN) r = 0;
  if (r >= 0) {
    write_t* w = io->wpool;
    if (w != NULL) io->wpool = w->next;
    else if ((w = malloc(sizeof(write_t))) == NULL) { throw_error(env, "out of memory"); return NULL; }
    w->req.data = w;
    w->sock = sock;
    w->serial = sock->serial;
    buf.base += r;
    buf.len -= r;
    r = uv_write(&w->req, (uv_stream_t*) &sock->h, &buf, 1, write_cb);
    if (r < 0) { w->next = io->wpool; io->wpool = w; } // not queued: no callback will return it
  }
  if (r < 0) queue_event(io, EV_ERROR, sock, r, SYS_WRITE);
  CHECK(napi_get_boolean(env, false, &result));
  return result;
}

// close(slot): close its socket, if any; nothing more is reported for it.
static napi_value js_close (napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  int32_t slot;
  if (!get_slot(env, argv[0], io, &slot)) return NULL;
  if (io->socks[slot] != NULL) close_sock(io, io->socks[slot]);
  return NULL;
}

static void noop_finalize (napi_env env, void* data, void* hint) { (void) env; (void) data; (void) hint; }

// now(): uv_hrtime in ms, to relate the events' times to performance.now().
static napi_value js_now (napi_env env, napi_callback_info info) {
  (void) info;
  napi_value now;
  CHECK(napi_create_double(env, (double) uv_hrtime() / 1e6, &now));
  return now;
}

// init(callback): once per thread; returns [events ArrayBuffer, times ArrayBuffer, arena ArrayBuffer].
static napi_value js_init (napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  io_t* io = get_io(env);
  if (io->callback != NULL) { throw_error(env, "already initialised in this thread"); return NULL; }
  napi_valuetype type;
  CHECK(napi_typeof(env, argv[0], &type));
  if (type != napi_function) { throw_error(env, "init takes a function"); return NULL; }
  napi_value events, times, arena, resource, name, buffers;
  CHECK(napi_create_arraybuffer(env, EV_CAPACITY * EV_FIELDS * sizeof(int32_t), (void**) &io->events, &events));
  CHECK(napi_create_arraybuffer(env, EV_CAPACITY * sizeof(double), (void**) &io->times, &times));
  CHECK(napi_create_arraybuffer(env, ARENA_SIZE, (void**) &io->arena, &arena));
  CHECK(napi_create_object(env, &resource));
  CHECK(napi_set_named_property(env, resource, "events", events));
  CHECK(napi_set_named_property(env, resource, "times", times));
  CHECK(napi_set_named_property(env, resource, "arena", arena));
  CHECK(napi_create_string_utf8(env, "syncbench:io", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_get_uv_event_loop(env, &io->loop));
  CHECK(napi_create_reference(env, resource, 1, &io->resource));
  CHECK(napi_async_init(env, resource, name, &io->async_context));
  CHECK(napi_create_reference(env, argv[0], 1, &io->callback));
  uv_check_init(io->loop, &io->check);
  io->check.data = io;
  uv_check_start(&io->check, check_cb);
  uv_unref((uv_handle_t*) &io->check);
  uv_idle_init(io->loop, &io->idle);
  io->idle.data = io;
  CHECK(napi_create_array_with_length(env, 3, &buffers));
  CHECK(napi_set_element(env, buffers, 0, events));
  CHECK(napi_set_element(env, buffers, 1, times));
  CHECK(napi_set_element(env, buffers, 2, arena));
  return buffers;
}

static void on_check_closed (uv_handle_t* handle) {
  io_t* io = (io_t*) handle->data;
  io->check_closed = 1;
  if (io->closing == 0) free_io(io);
}

// The thread's environment is going away (process exit, a worker's end): close every handle; the io
// is freed when the last close has called back.
static void cleanup (void* data) {
  io_t* io = (io_t*) data;
  io->closed = 1;
  for (size_t i = 0; i < io->nsocks; i++) if (io->socks[i] != NULL) close_sock(io, io->socks[i]);
  if (io->loop == NULL) { free_io(io); return; }
  uv_close((uv_handle_t*) &io->idle, NULL);
  uv_close((uv_handle_t*) &io->check, on_check_closed);
}

static napi_value init (napi_env env, napi_value exports) {
  io_t* io = calloc(1, sizeof(io_t));
  if (io == NULL) { throw_error(env, "out of memory"); return NULL; }
  io->env = env;
  if (napi_set_instance_data(env, io, noop_finalize, NULL) != napi_ok) { free(io); throw_failed(env, "napi_set_instance_data"); return NULL; }
  CHECK(napi_add_env_cleanup_hook(env, cleanup, io));
  napi_property_descriptor props[] = {
    { "init", NULL, js_init, NULL, NULL, NULL, napi_default, NULL },
    { "now", NULL, js_now, NULL, NULL, NULL, napi_default, NULL },
    { "target", NULL, js_target, NULL, NULL, NULL, napi_default, NULL },
    { "targetPipe", NULL, js_target_pipe, NULL, NULL, NULL, napi_default, NULL },
    { "connect", NULL, js_connect, NULL, NULL, NULL, napi_default, NULL },
    { "write", NULL, js_write, NULL, NULL, NULL, napi_default, NULL },
    { "close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL }
  };
  CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  return exports;
}

NAPI_MODULE_INIT () { return init(env, exports); }
