/*
 * worker.c - the pinned I/O thread pool and the one phase loop.
 *
 * The phase loop is written once, with the direction and the order
 * (sequential or a seeded permutation) as parameters. Each thread pins
 * itself first and only then allocates and touches its buffer, so the
 * buffer's pages live where the thread runs. Threads wait on a generation
 * counter for the next command; the main thread waits until none is busy.
 */
#include "worker.h"

#include "../common/permute.h"
#include "../common/util.h"
#include "pin.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CMD_NONE, CMD_PHASE, CMD_LAYOUT, CMD_QUIT };

struct io_thread {
	struct st_worker *w;
	int index;		     /* thread number in the rank */
	pthread_t tid;		     /* the thread */
	int started;		     /* pthread_create succeeded */
	void *ts;		     /* engine thread state */
	unsigned char *buf;	     /* aligned, touched I/O buffer */
	char cpuset[64];	     /* binding it got */
	struct st_prepare_status ps; /* how its preparation went */
	_Atomic uint64_t live;	     /* bytes so far in this phase (progress only) */
	struct st_thread_result res; /* result of the last phase */
};

struct st_worker {
	struct st_worker_args a;
	const struct st_engine *e;
	void *rs; /* engine rank state */
	int nthreads;
	int64_t block, size; /* bytes */
	int dir_made;	     /* this rank created run_dir */
	int files_made;	     /* threads may have created files */
	struct io_thread *t;

	pthread_mutex_t mu;
	pthread_cond_t cmd_cv;	/* main -> threads: new command */
	pthread_cond_t done_cv; /* threads -> main: one finished */
	uint64_t gen;		/* command generation */
	int cmd, phase;		/* current command */
	int64_t deadline_ns;	/* local clock: stop issuing I/O after this */
	int busy;		/* threads still working on the command */
	int phase_started;	/* the phase begun by st_worker_phase_begin */
	int64_t release_ns;	/* its barrier release, local clock */
	int64_t cpu_user0, cpu_sys0; /* process CPU at its start, us */
};

void st_worker_file_path(const char *run_dir, int rank, int thread, char *buf, size_t n)
{
	snprintf(buf, n, "%s/r%d.t%d", run_dir, rank, thread);
}

int st_worker_threads(const struct st_worker *w)
{
	return w ? w->nthreads : 0;
}

static int phase_is_write(int phase)
{
	return phase == ST_PHASE_WRITE || phase == ST_PHASE_REWRITE ||
	       phase == ST_PHASE_RANDWRITE;
}

static int phase_is_random(int phase)
{
	return phase == ST_PHASE_RANDREAD || phase == ST_PHASE_RANDWRITE;
}

static void set_error(struct st_thread_result *r, int err, int op, int phase, uint64_t off)
{
	if (!r->error.err) {
		r->error.err = err;
		r->error.op = (uint32_t)op;
		r->error.phase = phase;
		r->error.offset = off;
	}
	r->error.count++;
}

static void fill_buffer(unsigned char *buf, size_t len, int random, uint64_t seed)
{
	if (!random) {
		memset(buf, 0, len);
		return;
	}
	uint64_t x = st_mix64(seed);
	for (size_t i = 0; i + 8 <= len; i += 8) {
		x = st_mix64(x);
		memcpy(buf + i, &x, 8);
	}
	for (size_t i = len & ~(size_t)7; i < len; i++)
		buf[i] = (unsigned char)st_mix64(x + i);
}

/* The pattern: 8-byte words, each a hash of (seed, rank, thread, offset),
 * so a block read from the wrong place, file or rank is caught too. */
static uint64_t pattern_word(uint64_t seed, int rank, int thread, uint64_t off)
{
	return st_mix64(seed ^ ((uint64_t)rank << 48) ^ ((uint64_t)thread << 40) ^ off);
}

void st_pattern_fill(void *buf, size_t len, uint64_t seed, int rank, int thread, uint64_t off)
{
	unsigned char *b = buf;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = pattern_word(seed, rank, thread, off + i);
		memcpy(b + i, &w, len - i < 8 ? len - i : 8);
	}
}

int st_pattern_check(const void *buf, size_t len, uint64_t seed, int rank, int thread,
		     uint64_t off)
{
	const unsigned char *b = buf;
	int bad = 0;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = pattern_word(seed, rank, thread, off + i);
		bad += memcmp(b + i, &w, len - i < 8 ? len - i : 8) != 0;
	}
	return bad;
}

/* The order a thread visits its file's blocks in: sequential, or a seeded
 * permutation (random phases). With --iodepth N on reads, the next N-1
 * blocks of that order are announced to an engine that can read ahead; the
 * ring holds them until their turn. */
struct block_order {
	uint64_t nblocks;	 /* blocks in the file */
	uint64_t k;		 /* blocks handed out so far */
	int random;		 /* permutation (else sequential) */
	struct st_permute perm;	 /* random: the order */
	int ahead;		 /* announce blocks to the engine's prefetch */
	int64_t depth;		 /* --iodepth */
	uint64_t generated;	 /* ahead: blocks taken from the order so far */
	struct {
		uint64_t blk[256];
		unsigned head, n;
	} ring;			 /* ahead: blocks announced, not yet read */
};

static void order_init(struct block_order *o, const struct io_thread *t, int phase, int layout,
		       int write)
{
	const struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	memset(o, 0, sizeof(*o));
	o->nblocks = (uint64_t)(w->size / w->block);
	o->random = !layout && phase_is_random(phase);
	if (o->random)
		st_permute_init(&o->perm, o->nblocks,
				st_mix64((uint64_t)w->a.cfg->o[ST_OPT_SEED].v[0]) ^
					((uint64_t)w->a.rank << 32) ^ ((uint64_t)t->index << 16) ^
					(uint64_t)phase);
	o->depth = c->v[ST_OPT_IODEPTH] == ST_UNSET ? 1 : c->v[ST_OPT_IODEPTH];
	o->ahead = !write && o->depth > 1 && w->e->prefetch;
}

/* The next block to transfer (the caller hands out nblocks of them). */
static uint64_t order_next(struct block_order *o, const struct io_thread *t, void *fh)
{
	const struct st_worker *w = t->w;
	o->k++;
	if (!o->ahead)
		return o->random ? st_permute_next(&o->perm) : o->k - 1;
	while (o->ring.n < (unsigned)o->depth && o->generated < o->nblocks) {
		uint64_t b = o->random ? st_permute_next(&o->perm) : o->generated;
		o->generated++;
		o->ring.blk[(o->ring.head + o->ring.n++) % 256] = b;
		if (o->ring.n > 1 &&
		    w->e->prefetch(t->ts, fh, (size_t)w->block, b * (uint64_t)w->block) < 0) {
			/* no room now: the rest is read when its turn comes */
			break;
		}
	}
	uint64_t blk = o->ring.blk[o->ring.head];
	o->ring.head = (o->ring.head + 1) % 256;
	o->ring.n--;
	return blk;
}

/* A thread's result for a phase, before its first call. */
static void result_begin(struct io_thread *t, int phase)
{
	struct st_thread_result *r = &t->res;
	memset(r, 0, sizeof(*r));
	r->version = ST_WIRE_VERSION;
	r->rank = (uint32_t)t->w->a.rank;
	r->thread = (uint32_t)t->index;
	r->phase = (uint32_t)phase;
	st_hist_init(&r->hist);
	st_copy(r->cpuset, sizeof(r->cpuset), t->cpuset);
	atomic_store_explicit(&t->live, 0, memory_order_relaxed);
}

/* One block's call: the bytes moved, or -errno. A short transfer moved
 * what it could; as with write(2) and read(2), the call for the rest says
 * why (ENOSPC, EDQUOT, EFBIG; a soft mount's EIO or ETIMEDOUT): that errno
 * goes to *short_err. A read whose rest finds the end of file (0) is short
 * with no errno. */
static ssize_t transfer(struct io_thread *t, void *fh, int write, uint64_t off, int *short_err)
{
	struct st_worker *w = t->w;
	ssize_t n = write ? w->e->pwrite(t->ts, fh, t->buf, (size_t)w->block, off)
			  : w->e->pread(t->ts, fh, t->buf, (size_t)w->block, off);
	*short_err = 0;
	while (n > 0 && n < w->block) {
		ssize_t m = write ? w->e->pwrite(t->ts, fh, t->buf + n, (size_t)(w->block - n),
						 off + (uint64_t)n)
				  : w->e->pread(t->ts, fh, t->buf + n, (size_t)(w->block - n),
						off + (uint64_t)n);
		if (m <= 0) {
			*short_err = m < 0 ? (int)-m : 0;
			break;
		}
		n += m;
	}
	return n;
}

/* Every block of the file in its order, each call timed; stops at the
 * first error, a short transfer or the phase deadline. */
static void blocks(struct io_thread *t, struct block_order *o, void *fh, int phase, int layout,
		   int write, int owner)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	int verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON;
	while (o->k < o->nblocks) {
		uint64_t off = order_next(o, t, fh) * (uint64_t)w->block;
		int64_t t0 = st_now_ns();
		if (!layout && t0 > w->deadline_ns) {
			r->flags |= ST_TF_DEADLINE;
			set_error(r, ETIMEDOUT, ST_OP_DEADLINE, phase, off);
			break;
		}
		if (verify && write) { /* outside the timed call, inside the phase */
			st_pattern_fill(t->buf, (size_t)w->block, w->a.run_seed, w->a.rank, t->index,
					off);
			t0 = st_now_ns();
		}
		int short_err;
		ssize_t n = transfer(t, fh, write, off, &short_err);
		int64_t t1 = st_now_ns();
		if (verify && !write && n == w->block &&
		    st_pattern_check(t->buf, (size_t)w->block, w->a.run_seed, owner, t->index, off)) {
			if (!r->bad_blocks++)
				r->first_bad_offset = off;
		}
		if (n < 0) {
			set_error(r, (int)-n, write ? ST_OP_WRITE : ST_OP_READ, phase, off);
			break;
		}
		st_hist_add(&r->hist, (uint64_t)(t1 - t0));
		r->bytes += (uint64_t)n;
		/* a relaxed store: a plain move, no fence, for the progress line */
		atomic_store_explicit(&t->live, r->bytes, memory_order_relaxed);
		r->ops++;
		if (short_err) {
			set_error(r, short_err, write ? ST_OP_WRITE : ST_OP_READ, phase, off + (uint64_t)n);
			break;
		}
		if (n < w->block) {
			/* a short transfer the engine could not complete: for a read,
			 * the file is shorter than it should be */
			set_error(r, write ? EIO : ENODATA, ST_OP_SHORT, phase, off + (uint64_t)n);
			break;
		}
	}
}

/* The one phase loop: open, every block, fsync (write phases, with
 * --fsync on), close, all inside the timed span. `layout` writes the file
 * untimed during preparation. */
static void run_phase(struct io_thread *t, int phase, int layout)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	struct st_thread_result *r = &t->res;
	int write = layout || phase_is_write(phase);
	result_begin(t, phase);

	char path[ST_STR_MAX];
	int owner = (!write && c->v[ST_OPT_REORDER] == ST_ON) ? w->a.partner : w->a.rank;
	st_worker_file_path(w->a.run_dir, owner, t->index, path, sizeof(path));
	unsigned flags = write ? ST_OPEN_WRITE : ST_OPEN_READ;
	if (layout || phase == ST_PHASE_WRITE)
		flags |= ST_OPEN_CREATE;
	if (layout)
		flags |= ST_OPEN_LAYOUT;
	if (c->v[ST_OPT_DIRECT] == ST_ON)
		flags |= ST_OPEN_DIRECT;
	struct block_order o;
	order_init(&o, t, phase, layout, write);

	int64_t start = st_now_ns();
	void *fh = NULL;
	int direct = 0;
	int rc = w->e->open(t->ts, path, flags, &fh, &direct);
	if (rc < 0) {
		set_error(r, -rc, ST_OP_OPEN, phase, 0);
	} else {
		if ((flags & ST_OPEN_DIRECT) && !direct)
			r->flags |= ST_TF_DIRECT_FALLBACK;
		blocks(t, &o, fh, phase, layout, write, owner);
		if (write && c->v[ST_OPT_FSYNC] == ST_ON && !r->error.err) {
			rc = w->e->fsync(t->ts, fh);
			if (rc < 0)
				set_error(r, -rc, ST_OP_FSYNC, phase, 0);
		}
		rc = w->e->close(t->ts, fh);
		if (rc < 0)
			set_error(r, -rc, ST_OP_CLOSE, phase, 0);
	}
	int64_t end = st_now_ns();
	r->start_ns = start - w->a.clock_offset_ns;
	r->end_ns = end - w->a.clock_offset_ns;
	r->last_cpu = -1;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (set && hwloc_get_last_cpu_location(w->a.topo, set, HWLOC_CPUBIND_THREAD) == 0)
		r->last_cpu = hwloc_bitmap_first(set);
	hwloc_bitmap_free(set);
}

static void prepare_fail(struct st_prepare_status *ps, int err, int op, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void prepare_fail(struct st_prepare_status *ps, int err, int op, const char *fmt, ...)
{
	if (ps->err)
		return;
	ps->err = err;
	ps->op = (uint32_t)op;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->message, sizeof(ps->message), fmt, ap);
	va_end(ap);
}

static void *io_thread_main(void *arg)
{
	struct io_thread *t = arg;
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	int last_cpu, rc;
	char msg[200] = "";

	/* pin first, then allocate and touch: the pages follow the thread */
	rc = st_pin_self(w->a.topo, (enum st_bind)c->v[ST_OPT_BIND], w->a.local_rank,
			 w->nthreads, t->index, t->cpuset, sizeof(t->cpuset), &last_cpu);
	if (rc < 0)
		prepare_fail(&t->ps, -rc, ST_OP_PIN, "thread %d: bind to %s: %s", t->index,
			     st_options[ST_OPT_BIND].choices[c->v[ST_OPT_BIND]], strerror(-rc));
	if (!t->ps.err) {
		void *p = NULL;
		rc = posix_memalign(&p, 4096, (size_t)w->block);
		if (rc)
			prepare_fail(&t->ps, rc, ST_OP_ALLOC, "thread %d: buffer of %lld bytes: %s",
				     t->index, (long long)w->block, strerror(rc));
		t->buf = p;
	}
	if (!t->ps.err) {
		fill_buffer(t->buf, (size_t)w->block, c->v[ST_OPT_DATA] == ST_DATA_RANDOM,
			    (uint64_t)w->a.cfg->o[ST_OPT_SEED].v[0] ^ ((uint64_t)w->a.rank << 20) ^
				    (uint64_t)t->index);
		rc = w->e->thread_init(w->rs, t->index, &t->ts, msg, sizeof(msg));
		if (rc < 0)
			prepare_fail(&t->ps, -rc, ST_OP_PREPARE, "thread %d: %s", t->index,
				     msg[0] ? msg : strerror(-rc));
	}

	uint64_t seen = 0;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		w->busy--;
		pthread_cond_signal(&w->done_cv);
		while (w->gen == seen)
			pthread_cond_wait(&w->cmd_cv, &w->mu);
		seen = w->gen;
		int cmd = w->cmd, phase = w->phase;
		pthread_mutex_unlock(&w->mu);
		if (cmd == CMD_QUIT)
			break;
		if (!t->ps.err)
			run_phase(t, phase, cmd == CMD_LAYOUT);
		pthread_mutex_lock(&w->mu);
	}
	if (t->ts)
		w->e->thread_fini(t->ts);
	free(t->buf);
	return NULL;
}

/* Give every thread a command; command_wait waits for them. */
static void command_start(struct st_worker *w, int cmd, int phase)
{
	pthread_mutex_lock(&w->mu);
	w->cmd = cmd;
	w->phase = phase;
	if (cmd == CMD_LAYOUT || (cmd == CMD_PHASE && phase_is_write(phase)))
		w->files_made = 1;
	w->busy = 0;
	for (int i = 0; i < w->nthreads; i++)
		w->busy += w->t[i].started;
	w->gen++;
	pthread_cond_broadcast(&w->cmd_cv);
	pthread_mutex_unlock(&w->mu);
}

/* Wait until every thread has done the command, at most until the local
 * clock reads until_ns (INT64_MAX: no limit). 1 when all are done. */
static int command_wait(struct st_worker *w, int64_t until_ns)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy > 0) {
		if (until_ns == INT64_MAX) {
			pthread_cond_wait(&w->done_cv, &w->mu);
			continue;
		}
		/* done_cv waits on CLOCK_REALTIME: convert the monotonic limit */
		int64_t left = until_ns - st_now_ns();
		if (left <= 0)
			break;
		int64_t wall = st_wall_ns() + left;
		struct timespec ts = { wall / 1000000000, wall % 1000000000 };
		pthread_cond_timedwait(&w->done_cv, &w->mu, &ts);
	}
	int done = w->busy == 0;
	pthread_mutex_unlock(&w->mu);
	return done;
}

static void command(struct st_worker *w, int cmd, int phase)
{
	command_start(w, cmd, phase);
	if (cmd != CMD_QUIT)
		command_wait(w, INT64_MAX);
}

struct st_worker *st_worker_prepare(const struct st_worker_args *a,
				    struct st_prepare_status *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->version = ST_WIRE_VERSION;
	struct st_worker *w = calloc(1, sizeof(*w));
	if (!w) {
		prepare_fail(ps, ENOMEM, ST_OP_ALLOC, "out of memory");
		return NULL;
	}
	w->a = *a;
	w->e = a->engine;
	w->block = a->combo->v[ST_OPT_BLOCK];
	w->size = a->combo->v[ST_OPT_SIZE];
	w->nthreads = a->role == ST_ROLE_CLIENT ? (int)a->combo->v[ST_OPT_THREADS] : 0;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cmd_cv, NULL);
	pthread_cond_init(&w->done_cv, NULL);

	/* a server or idle rank does no client I/O: no engine (with --mount
	 * its host never mounts the target, which may not even exist there) */
	if (a->role != ST_ROLE_CLIENT)
		return w;
	struct st_engine_env env = { .cfg = a->cfg, .combo = a->combo, .rank = a->rank,
				     .eff = &ps->eff,
				     .deadline_ns = st_now_ns() + a->cfg->o[ST_OPT_DEADLINE].v[0] };
	char msg[200] = "";
	int rc = w->e->setup(&env, &w->rs, msg, sizeof(msg));
	if (rc < 0) {
		prepare_fail(ps, -rc, ST_OP_PREPARE, "%s engine: %s", w->e->name,
			     msg[0] ? msg : strerror(-rc));
		w->nthreads = 0;
		return w;
	}
	if (w->nthreads == 0)
		return w;
	rc = w->e->mkdir(w->rs, a->run_dir);
	if (rc == 0)
		w->dir_made = 1;
	else if (rc != -EEXIST) {
		prepare_fail(ps, -rc, ST_OP_MKDIR, "mkdir %s: %s", a->run_dir, strerror(-rc));
		w->nthreads = 0;
		return w;
	}

	w->t = calloc((size_t)w->nthreads, sizeof(*w->t));
	if (!w->t) {
		prepare_fail(ps, ENOMEM, ST_OP_ALLOC, "out of memory");
		w->nthreads = 0;
		return w;
	}
	/* every thread starts busy and reports once its preparation is done */
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < w->nthreads; i++) {
		struct io_thread *t = &w->t[i];
		t->w = w;
		t->index = i;
		t->ps.version = ST_WIRE_VERSION;
		rc = pthread_create(&t->tid, NULL, io_thread_main, t);
		if (rc) {
			prepare_fail(ps, rc, ST_OP_PREPARE, "start thread %d: %s", i, strerror(rc));
			break;
		}
		t->started = 1;
		w->busy++;
	}
	while (w->busy > 0)
		pthread_cond_wait(&w->done_cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < w->nthreads; i++)
		if (w->t[i].ps.err) {
			prepare_fail(ps, w->t[i].ps.err, (int)w->t[i].ps.op, "%s", w->t[i].ps.message);
			break;
		}
	if (ps->err)
		return w;

	/* phases that need a file but come without a write phase: lay out untimed */
	unsigned phases = a->phases;
	if (phases && !(phases & (1u << ST_PHASE_WRITE))) {
		w->deadline_ns = INT64_MAX;
		command(w, CMD_LAYOUT, ST_PHASE_WRITE);
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].res.error.err) {
				const struct st_error *e = &w->t[i].res.error;
				prepare_fail(ps, e->err, (int)e->op, "thread %d: laying out the file: %s %s",
					     i, st_op_names[e->op], strerror(e->err));
				break;
			}
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].res.flags & ST_TF_DIRECT_FALLBACK)
				ps->flags |= ST_TF_DIRECT_FALLBACK;
	}
	return w;
}

void st_worker_phase_begin(struct st_worker *w, int phase, int64_t release_local_ns)
{
	w->phase_started = phase;
	w->release_ns = release_local_ns;
	if (w->nthreads == 0)
		return;
	w->deadline_ns = release_local_ns + w->a.cfg->o[ST_OPT_DEADLINE].v[0];
	/* the engine's RPC counts start with the phase (not the layout's) */
	for (int i = 0; w->e->thread_rpc && i < w->nthreads; i++)
		if (w->t[i].ts)
			w->e->thread_rpc(w->t[i].ts, NULL);
	st_cpu_us(&w->cpu_user0, &w->cpu_sys0);
	command_start(w, CMD_PHASE, phase);
}

int st_worker_rpc(struct st_worker *w, struct st_rpc_result *out)
{
	if (!w || !w->e || !w->e->thread_rpc || w->nthreads == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	out->version = ST_WIRE_VERSION;
	out->rank = (uint32_t)w->a.rank;
	out->phase = (uint32_t)w->phase_started;
	out->source = ST_RPC_LIBNFS;
	out->basis = ST_RPC_BASIS_MEASURED;
	for (int h = 0; h < ST_RPC_HISTS; h++)
		st_hist_init(&out->hist[h]);
	for (int i = 0; i < w->nthreads; i++)
		if (w->t[i].ts)
			w->e->thread_rpc(w->t[i].ts, out);
	return 1;
}

int st_worker_phase_wait(struct st_worker *w, int64_t until_ns)
{
	return w->nthreads == 0 || command_wait(w, until_ns);
}

uint64_t st_worker_live_bytes(struct st_worker *w)
{
	uint64_t sum = 0;
	for (int i = 0; i < w->nthreads; i++)
		sum += atomic_load_explicit(&w->t[i].live, memory_order_relaxed);
	return sum;
}

void st_worker_phase(struct st_worker *w, int phase, int64_t release_local_ns,
		     struct st_rank_result *rr, struct st_thread_result *tr)
{
	st_worker_phase_begin(w, phase, release_local_ns);
	st_worker_phase_wait(w, INT64_MAX);
	st_worker_phase_end(w, rr, tr);
}

void st_worker_phase_end(struct st_worker *w, struct st_rank_result *rr,
			 struct st_thread_result *tr)
{
	int phase = w->phase_started;
	int64_t release_local_ns = w->release_ns;
	memset(rr, 0, sizeof(*rr));
	rr->version = ST_WIRE_VERSION;
	rr->rank = (uint32_t)w->a.rank;
	rr->phase = (uint32_t)phase;
	rr->role = (uint32_t)w->a.role;
	rr->release_ns = release_local_ns - w->a.clock_offset_ns;
	st_hist_init(&rr->hist);
	if (w->nthreads == 0)
		return;
	int64_t u1, s1;
	st_cpu_us(&u1, &s1);
	rr->cpu_user_us = u1 - w->cpu_user0;
	rr->cpu_sys_us = s1 - w->cpu_sys0;
	rr->nthreads = (uint32_t)w->nthreads;
	rr->start_ns = INT64_MAX;
	rr->end_ns = INT64_MIN;
	rr->first_bad_thread = -1;
	for (int i = 0; i < w->nthreads; i++) {
		const struct st_thread_result *r = &w->t[i].res;
		tr[i] = *r;
		rr->bytes += r->bytes;
		rr->ops += r->ops;
		rr->flags |= r->flags;
		if (r->start_ns < rr->start_ns)
			rr->start_ns = r->start_ns;
		if (r->end_ns > rr->end_ns)
			rr->end_ns = r->end_ns;
		st_hist_merge(&rr->hist, &r->hist);
		if (r->bad_blocks && rr->first_bad_thread < 0) {
			rr->first_bad_thread = i;
			rr->first_bad_offset = r->first_bad_offset;
		}
		rr->bad_blocks += r->bad_blocks;
		if (r->error.err) {
			if (!rr->error.err) {
				rr->error = r->error;
				rr->error.count = 0;
				char path[ST_STR_MAX];
				int owner = (!phase_is_write(phase) && w->a.combo->v[ST_OPT_REORDER] == ST_ON)
						    ? w->a.partner
						    : w->a.rank;
				st_worker_file_path(w->a.run_dir, owner, i, path, sizeof(path));
				snprintf(rr->message, sizeof(rr->message),
					 "thread %d: %s %s at offset %llu: %s", i,
					 st_op_names[r->error.op], path,
					 (unsigned long long)r->error.offset, strerror(r->error.err));
			}
			rr->error.count += r->error.count;
		}
	}
}

int st_worker_remove_run_dir(const struct st_worker_args *a)
{
	struct st_effective eff;
	struct st_engine_env env = { .cfg = a->cfg, .combo = a->combo, .rank = a->rank,
				     .eff = &eff,
				     .deadline_ns = st_now_ns() + a->cfg->o[ST_OPT_DEADLINE].v[0] };
	void *rs = NULL;
	char msg[200];
	int rc = a->engine->setup(&env, &rs, msg, sizeof(msg));
	if (rc < 0)
		return rc;
	/* a file whose removal failed after its combination (a soft mount
	 * timing out while the server was away) is removed now: any file this
	 * rank can have made, under the names only this rank uses */
	const struct st_optval *threads = &a->cfg->o[ST_OPT_THREADS];
	int64_t most = 0;
	for (int i = 0; i < threads->n; i++)
		most = threads->v[i] > most ? threads->v[i] : most;
	for (int64_t i = 0; i < most; i++) {
		char path[ST_STR_MAX];
		st_worker_file_path(a->run_dir, a->rank, (int)i, path, sizeof(path));
		a->engine->unlink(rs, path);
	}
	rc = a->engine->rmdir(rs, a->run_dir);
	a->engine->teardown(rs);
	return rc == -ENOENT || rc == -ENOTEMPTY ? 0 : rc;
}

void st_worker_finish(struct st_worker *w)
{
	if (!w)
		return;
	if (w->t) {
		command(w, CMD_QUIT, 0);
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].started)
				pthread_join(w->t[i].tid, NULL);
	}
	if (w->rs) {
		/* only this rank's own files; the run directory stays until the run ends */
		if (w->files_made)
			for (int i = 0; i < w->nthreads; i++) {
				char path[ST_STR_MAX];
				st_worker_file_path(w->a.run_dir, w->a.rank, i, path, sizeof(path));
				w->e->unlink(w->rs, path);
			}
		w->e->teardown(w->rs);
	}
	free(w->t);
	pthread_cond_destroy(&w->done_cv);
	pthread_cond_destroy(&w->cmd_cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
