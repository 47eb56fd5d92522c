/*
 * worker.c - the pool of pinned I/O threads that runs one combination's
 * phases (see worker.h; the loops each thread runs are phase.c and
 * phase_meta.c, the names of its files rundir.c).
 *
 * Each thread pins itself first and only then allocates and touches its
 * buffer, so the buffer's pages live where the thread runs. Threads wait
 * on a generation counter for the next command; the main thread waits
 * until none is busy. A command is given to every thread at once and the
 * main thread reads their results only after all are done.
 */
#include "pool.h"

#include "../common/phaseopt.h"
#include "../common/util.h"
#include "pin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int st_worker_threads(const struct st_worker *w)
{
	return w ? w->nthreads : 0;
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

/* --iodepth N > 1 with an engine that has a queue: the thread's N buffers
 * (allocated and touched after pinning, as the first one), then its queue,
 * which is given them (the engine may register them with the kernel); where
 * the engine cannot make one here, the buffers go, the thread issues one
 * call at a time and its io_mode says why. An engine with a queue but depth
 * 1: "sync". */
static void queue_init(struct io_thread *t)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	int depth = c->v[ST_OPT_IODEPTH] == ST_UNSET ? 1 : (int)c->v[ST_OPT_IODEPTH];
	if (!w->e->aio_init)
		return;
	st_copy(t->io_mode, sizeof(t->io_mode), "sync");
	if (depth <= 1)
		return;
	size_t stride = ((size_t)w->max_block + 4095) & ~(size_t)4095;
	void *p = NULL;
	t->reqs = calloc((size_t)depth, sizeof(*t->reqs));
	t->idle = calloc((size_t)depth, sizeof(*t->idle));
	t->done = calloc((size_t)depth, sizeof(*t->done));
	int rc = posix_memalign(&p, 4096, stride * (size_t)depth);
	if (rc || !t->reqs || !t->idle || !t->done) {
		prepare_fail(&t->ps, rc ? rc : ENOMEM, ST_OP_ALLOC,
			     "thread %d: %d buffers of %lld bytes (--iodepth): %s", t->index, depth,
			     (long long)w->max_block, strerror(rc ? rc : ENOMEM));
		free(p);
		return;
	}
	t->qbufs = p;
	for (int i = 0; i < depth; i++) {
		t->reqs[i].buf = t->qbufs + stride * (size_t)i;
		memcpy(t->reqs[i].buf, t->buf, (size_t)w->max_block); /* the same data, touched */
		t->idle[i] = &t->reqs[i];
	}
	if (w->e->aio_init(t->ts, depth, t->qbufs, stride, &t->aq, t->io_mode, sizeof(t->io_mode)) < 0) {
		t->aq = NULL;
		free(t->qbufs);
		t->qbufs = NULL;
		return;
	}
	t->depth = t->nidle = depth;
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
		t->buflen = (size_t)(w->max_block > w->file_size ? w->max_block : w->file_size);
		rc = posix_memalign(&p, 4096, t->buflen);
		if (rc)
			prepare_fail(&t->ps, rc, ST_OP_ALLOC, "thread %d: buffer of %zu bytes: %s",
				     t->index, t->buflen, strerror(rc));
		t->buf = p;
	}
	struct st_data_key key = pool_data_key(w, w->a.rank, t->index);
	if (!t->ps.err && st_data_pool_init(&t->pool, &key))
		prepare_fail(&t->ps, ENOMEM, ST_OP_ALLOC, "thread %d: data pool: out of memory",
			     t->index);
	if (!t->ps.err) {
		memset(t->buf, 0, t->buflen); /* touched here, and --data zero's bytes */
		rc = w->e->thread_init(w->rs, t->index, &t->ts, msg, sizeof(msg));
		if (rc < 0)
			prepare_fail(&t->ps, -rc, ST_OP_PREPARE, "thread %d: %s", t->index,
				     msg[0] ? msg : strerror(-rc));
	}
	if (!t->ps.err)
		queue_init(t);

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
		int64_t u0, s0, u1, s1;
		st_thread_cpu_us(&u0, &s0);
		if (!t->ps.err) {
			if (cmd == CMD_PHASE && pool_is_meta(phase))
				pool_meta_phase(t, phase, 0);
			else if (cmd == CMD_PHASE || cmd == CMD_LAYOUT)
				pool_data_phase(t, phase, cmd == CMD_LAYOUT);
			else if (cmd == CMD_META_PREP)
				pool_meta_prep(t);
			else if (cmd == CMD_META_CLEAN)
				pool_meta_clean(t);
		}
		st_thread_cpu_us(&u1, &s1);
		if (cmd == CMD_PHASE) { /* the phase's own: the thread's, not the process's */
			t->res.cpu_user_us = u1 - u0;
			t->res.cpu_sys_us = s1 - s0;
		}
		pthread_mutex_lock(&w->mu);
	}
	if (t->aq)
		w->e->aio_fini(t->aq);
	/* a queue that failed with requests in flight: its buffers stay (t->depth 0) */
	if (!t->aq || t->depth)
		free(t->qbufs);
	free(t->reqs);
	free(t->idle);
	free(t->done);
	if (t->ts)
		w->e->thread_fini(t->ts);
	st_data_pool_free(&t->pool);
	free(t->buf);
	return NULL;
}

/* Give every thread a command; command_wait waits for them. */
static void command_start(struct st_worker *w, int cmd, int phase)
{
	pthread_mutex_lock(&w->mu);
	w->cmd = cmd;
	w->phase = phase;
	if (cmd == CMD_LAYOUT ||
	    (cmd == CMD_PHASE && ((1u << phase) & (ST_PHASES_WRITE | ST_PHASES_MIXED))))
		w->files_made = 1;
	if (cmd == CMD_META_PREP)
		w->meta_made = 1;
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
	/* done_cv waits on the monotonic clock (st_cond_init): a step of the
	 * wall clock moves no limit */
	while (w->busy > 0 && st_cond_wait_until(&w->done_cv, &w->mu, until_ns) != ETIMEDOUT)
		;
	int done = w->busy == 0;
	pthread_mutex_unlock(&w->mu);
	return done;
}

/* An untimed command (preparation, cleanup): no deadline, nothing is ramp. */
static void command(struct st_worker *w, int cmd, int phase)
{
	w->deadline_ns = INT64_MAX;
	w->measure_ns = INT64_MIN;
	w->until_ns = INT64_MAX;
	atomic_store_explicit(&w->stop, 0, memory_order_relaxed);
	command_start(w, cmd, phase);
	if (cmd != CMD_QUIT)
		command_wait(w, INT64_MAX);
}

/* The first error a command left in a thread's result: into ps. */
static void command_error(struct st_worker *w, struct st_prepare_status *ps, const char *what)
{
	for (int i = 0; i < w->nthreads; i++)
		if (w->t[i].res.error.err) {
			const struct st_error *e = &w->t[i].res.error;
			prepare_fail(ps, e->err, (int)e->op, "thread %d: %s: %s %s", i, what,
				     st_op_names[e->op], strerror(e->err));
			break;
		}
}

/* The figures a phase may have of its own (phaseopt.h), from combination
 * c: the base's, or a phase's (a.combo then points to it). */
static void phase_values(struct st_worker *w, const struct st_combo *c)
{
	w->a.combo = c;
	w->block = c->v[ST_OPT_BLOCK];
	w->rwmix = pool_or_default(c->v[ST_OPT_RWMIX], 50);
	w->runtime_ns = pool_or_default(c->v[ST_OPT_RUNTIME], 0);
	w->ramp_ns = pool_or_default(c->v[ST_OPT_RAMP], 0);
}

/* w's values as phase runs it: its combination with its own values. */
static void phase_enter(struct st_worker *w, int phase)
{
	st_phase_combo(w->a.cfg, phase, w->base, &w->pc);
	phase_values(w, &w->pc);
}

/* A worker for combination a->combo: its figures read from the combination
 * once, its lock and conditions made; NULL when out of memory. */
static struct st_worker *worker_new(const struct st_worker_args *a)
{
	struct st_worker *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	const struct st_combo *c = a->combo;
	w->a = *a;
	w->e = a->engine;
	w->base = c;
	phase_values(w, c);
	w->max_block = st_phase_max_block(a->cfg, a->phases, c);
	w->size = c->v[ST_OPT_SIZE];
	w->pattern = c->v[ST_OPT_DATA];
	w->dedupe_unit = (uint64_t)(a->cfg->o[ST_OPT_DEDUPE_UNIT].n ? a->cfg->o[ST_OPT_DEDUPE_UNIT].v[0]
								    : w->block);
	w->compress_chunk = (uint64_t)(a->cfg->o[ST_OPT_COMPRESS_CHUNK].n
					       ? a->cfg->o[ST_OPT_COMPRESS_CHUNK].v[0]
					       : w->block);
	w->shared = pool_or_default(c->v[ST_OPT_LAYOUT], ST_LAYOUT_FPT) == ST_LAYOUT_SHARED;
	w->strided = pool_or_default(c->v[ST_OPT_ACCESS], ST_ACCESS_SEGMENTED) == ST_ACCESS_STRIDED;
	w->nfiles = pool_or_default(c->v[ST_OPT_FILES], 1000);
	w->file_size = pool_or_default(c->v[ST_OPT_FILE_SIZE], 0);
	w->fanout = pool_or_default(c->v[ST_OPT_FANOUT], 1);
	/* unset: one level of --fanout subdirectories when there are any */
	w->depth = (int)pool_or_default(c->v[ST_OPT_DEPTH], w->fanout > 1 ? 1 : 0);
	w->leaves = 1;
	for (int k = 0; k < w->depth; k++)
		w->leaves *= w->fanout;
	w->shared_dir = pool_or_default(c->v[ST_OPT_DIR_MODE], ST_DIR_UNIQUE) == ST_DIR_SHARED;
	w->interval_ns = a->cfg->o[ST_OPT_INTERVAL].v[0];
	w->keep = a->cfg->o[ST_OPT_KEEP].v[0] == ST_ON;
	w->nthreads = a->role == ST_ROLE_CLIENT ? (int)c->v[ST_OPT_THREADS] : 0;
	pthread_mutex_init(&w->mu, NULL);
	if (st_cond_init(&w->cmd_cv)) {
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	if (st_cond_init(&w->done_cv)) {
		pthread_cond_destroy(&w->cmd_cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

/* The engine set up for the combination, and the run's directory (--keep:
 * the combination's, under the run's). 0, or -1 with ps filled in (and no
 * threads to start). */
static int engine_and_dir(struct st_worker *w, struct st_prepare_status *ps)
{
	const struct st_worker_args *a = &w->a;
	struct st_engine_env env = { .cfg = a->cfg, .combo = a->combo, .rank = a->rank,
				     .eff = &ps->eff,
				     .deadline_ns = st_now_ns() + a->cfg->o[ST_OPT_DEADLINE].v[0] };
	char msg[200] = "";
	int rc = w->e->setup(&env, &w->rs, msg, sizeof(msg));
	if (rc < 0) {
		prepare_fail(ps, -rc, ST_OP_PREPARE, "%s engine: %s", w->e->name,
			     msg[0] ? msg : strerror(-rc));
		w->nthreads = 0;
		return -1;
	}
	if (w->nthreads == 0)
		return 0;
	const char *slash = strrchr(a->run_dir, '/');
	if (slash && w->keep) {
		char parent[ST_STR_MAX];
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - a->run_dir), a->run_dir);
		w->e->mkdir(w->rs, parent); /* EEXIST: another rank, or an earlier combination */
	}
	rc = w->e->mkdir(w->rs, a->run_dir);
	if (rc == 0)
		w->dir_made = 1;
	else if (rc != -EEXIST) {
		prepare_fail(ps, -rc, ST_OP_MKDIR, "mkdir %s: %s", a->run_dir, strerror(-rc));
		w->nthreads = 0;
		return -1;
	}
	return 0;
}

/* The I/O threads started, each pinned and prepared (every thread starts
 * busy and reports once its preparation is done). 0, or -1 with ps: the
 * first failure, the pool's own (out of memory: no threads) or a thread's. */
static int start_threads(struct st_worker *w, struct st_prepare_status *ps)
{
	w->t = calloc((size_t)w->nthreads, sizeof(*w->t));
	w->rank_iv = malloc(sizeof(*w->rank_iv));
	w->iv = calloc(ST_IV_SLOTS, sizeof(*w->iv));
	if (!w->t || !w->rank_iv || !w->iv) {
		prepare_fail(ps, ENOMEM, ST_OP_ALLOC, "out of memory");
		w->nthreads = 0;
		return -1;
	}
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < w->nthreads; i++) {
		struct io_thread *t = &w->t[i];
		t->w = w;
		t->index = i;
		t->ps.version = ST_WIRE_VERSION;
		int rc = pthread_create(&t->tid, NULL, io_thread_main, t);
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
	return ps->err ? -1 : 0;
}

/* Are the files laid out to --size, untimed, before the first phase? For
 * data phases that come without a write phase, and (as fio lays out a file
 * before a time_based job) when a phase that reads follows a write that may
 * stop before --size: --runtime, or --stonewall with another client. The
 * write phase then writes over the laid-out file, so a read, in any order,
 * of any rank's file (--reorder) or region (--layout shared), finds every
 * block written and --verify's pattern in it, however far the write got. */
static int needs_layout(const struct st_worker *w)
{
	unsigned phases = w->a.phases;
	const struct st_combo *c = w->a.combo;
	if (!(phases & ST_PHASES_DATA))
		return 0;
	if (!(phases & (1u << ST_PHASE_WRITE)))
		return 1;
	struct st_combo wc; /* the write phase's (its own --runtime: phaseopt.h) */
	st_phase_combo(w->a.cfg, ST_PHASE_WRITE, w->base, &wc);
	int cut = pool_or_default(wc.v[ST_OPT_RUNTIME], 0) > 0 ||
		  (c->v[ST_OPT_STONEWALL] == ST_ON && w->a.nclients > 1);
	/* an engine without a target keeps no files: its reads meet no end of
	 * file, and a layout would only spend its delays (the null engine) */
	if (w->e->caps & ST_EC_NO_TARGET)
		return 0;
	return cut && (phases & (ST_PHASES_READ | ST_PHASES_MIXED));
}

/* What the phases need before the first: the files, laid out untimed
 * (needs_layout); the metadata phases' directories (and files, without a
 * create phase). */
static void prepare_files(struct st_worker *w, struct st_prepare_status *ps)
{
	unsigned phases = w->a.phases;
	if (needs_layout(w)) {
		w->laid_out = 1;
		phase_enter(w, ST_PHASE_WRITE); /* laid out as the write phase writes */
		command(w, CMD_LAYOUT, ST_PHASE_WRITE);
		phase_values(w, w->base);
		command_error(w, ps, "laying out the file");
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].res.flags & ST_TF_DIRECT_FALLBACK)
				ps->flags |= ST_TF_DIRECT_FALLBACK;
	}
	if (!ps->err && (phases & ST_PHASES_META)) {
		if (!st_engine_has_meta(w->e)) /* the job skips them: st_engine_unsupported */
			prepare_fail(ps, EOPNOTSUPP, ST_OP_PREPARE, "the %s engine has no metadata "
								    "phases", w->e->name);
		else {
			command(w, CMD_META_PREP, ST_PHASE_CREATE);
			command_error(w, ps, "preparing the metadata files");
		}
	}
}

struct st_worker *st_worker_prepare(const struct st_worker_args *a,
				    struct st_prepare_status *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->version = ST_WIRE_VERSION;
	struct st_worker *w = worker_new(a);
	if (!w) {
		prepare_fail(ps, ENOMEM, ST_OP_ALLOC, "out of memory");
		return NULL;
	}
	/* a server or idle rank does no client I/O: no engine (with --mount
	 * its host never mounts the target, which may not even exist there) */
	if (a->role != ST_ROLE_CLIENT)
		return w;
	if (engine_and_dir(w, ps) == 0 && w->nthreads > 0 && start_threads(w, ps) == 0)
		prepare_files(w, ps);
	return w;
}

void st_worker_phase_begin(struct st_worker *w, int phase, int64_t release_local_ns)
{
	phase_enter(w, phase);
	w->phase_started = phase;
	w->release_ns = release_local_ns;
	w->niv = 0;
	if (w->nthreads == 0)
		return;
	int data = ((1u << phase) & ST_PHASES_DATA) != 0;
	w->deadline_ns = release_local_ns + w->a.cfg->o[ST_OPT_DEADLINE].v[0];
	w->measure_ns = release_local_ns + (data ? w->ramp_ns : 0);
	w->until_ns = data && w->runtime_ns ? w->measure_ns + w->runtime_ns : INT64_MAX;
	atomic_store_explicit(&w->stop, 0, memory_order_relaxed);
	w->wearout = data && w->runtime_ns &&
		     w->a.combo->v[ST_OPT_STONEWALL] == ST_STONEWALL_WEAROUT;
	w->at_stop = 0;
	atomic_store(&w->wear_target, -1);
	for (int i = 0; i < w->nthreads; i++)
		w->t[i].wear = 0;
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

int st_worker_wear_ready(struct st_worker *w, uint64_t *most)
{
	pthread_mutex_lock(&w->mu);
	int ready = w->at_stop == w->busy;
	*most = 0;
	for (int i = 0; ready && i < w->nthreads; i++)
		if (w->t[i].wear && w->t[i].stop_calls > *most)
			*most = w->t[i].stop_calls;
	pthread_mutex_unlock(&w->mu);
	return ready;
}

void st_worker_wear_go(struct st_worker *w, uint64_t calls)
{
	atomic_store(&w->wear_target, (int64_t)calls);
}

void st_worker_stop(struct st_worker *w)
{
	atomic_store_explicit(&w->stop, 1, memory_order_relaxed);
}

const struct st_interval *st_worker_intervals(const struct st_worker *w, size_t *n)
{
	*n = w ? w->niv : 0;
	return w ? w->iv : NULL;
}

void st_worker_phase(struct st_worker *w, int phase, int64_t release_local_ns,
		     struct st_rank_result *rr, struct st_thread_result *tr)
{
	st_worker_phase_begin(w, phase, release_local_ns);
	st_worker_phase_wait(w, INT64_MAX);
	st_worker_phase_end(w, rr, tr);
}

/* The rank's intervals of the phase: its threads' series merged, on the
 * common timeline, each ending at its width or at the rank's last call
 * (what follows it, fsync/COMMIT and close, is the phase's tail: the store
 * adds it as an interval of its own). */
static void rank_intervals(struct st_worker *w, const struct st_rank_result *rr)
{
	struct st_iv_series *s = w->rank_iv;
	st_iv_init(s, w->measure_ns, w->interval_ns);
	int64_t last = INT64_MIN;
	for (int i = 0; i < w->nthreads; i++) {
		st_iv_merge(s, &w->t[i].iv);
		if (w->t[i].last_ns > last)
			last = w->t[i].last_ns;
	}
	int64_t origin = w->measure_ns - w->a.clock_offset_ns;
	int64_t end = last > INT64_MIN ? last - w->a.clock_offset_ns : rr->end_ns;
	if (end > rr->end_ns)
		end = rr->end_ns;
	w->niv = 0;
	for (uint32_t k = 0; k < s->n && rr->ops; k++) {
		struct st_interval *x = &w->iv[w->niv++];
		x->t_ns = origin + (int64_t)k * s->width_ns;
		x->end_ns = x->t_ns + s->width_ns;
		if (x->end_ns > end)
			x->end_ns = end > x->t_ns ? end : x->t_ns;
		x->width_ns = s->width_ns;
		x->rank = w->a.rank;
		x->idx = k;
		x->bytes = s->s[k].bytes;
		x->ops = s->s[k].ops;
		x->read_bytes = s->s[k].read_bytes;
		x->read_ops = s->s[k].read_ops;
	}
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
	st_hist_init(&rr->hist_read);
	st_hist_init(&rr->hist_write);
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
	unsigned bit = 1u << phase;
	int reorder = w->a.combo->v[ST_OPT_REORDER] == ST_ON &&
		      (bit & (ST_PHASES_READ | 1u << ST_PHASE_STAT | 1u << ST_PHASE_OPEN |
			       1u << ST_PHASE_DIRSTAT | 1u << ST_PHASE_READDIR));
	int owner = reorder ? w->a.partner : w->a.rank;
	for (int i = 0; i < w->nthreads; i++) {
		const struct st_thread_result *r = &w->t[i].res;
		tr[i] = *r;
		rr->bytes += r->bytes;
		rr->ops += r->ops;
		rr->read_bytes += r->read_bytes;
		rr->read_ops += r->read_ops;
		rr->io_cpu_user_us += r->cpu_user_us;
		rr->io_cpu_sys_us += r->cpu_sys_us;
		rr->flags |= r->flags;
		if (r->start_ns < rr->start_ns)
			rr->start_ns = r->start_ns;
		if (r->end_ns > rr->end_ns)
			rr->end_ns = r->end_ns;
		st_hist_merge(&rr->hist, &r->hist);
		st_hist_merge(&rr->hist_read, &w->t[i].hist_read);
		st_hist_merge(&rr->hist_write, &w->t[i].hist_write);
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
				if (pool_is_meta(phase)) {
					pool_meta_path(w, phase, owner, i, r->error.offset, path, sizeof(path));
					snprintf(rr->message, sizeof(rr->message), "thread %d: %s %s: %s", i,
						 st_op_names[r->error.op], path, strerror(r->error.err));
				} else {
					pool_data_path(w, owner, i, path, sizeof(path));
					snprintf(rr->message, sizeof(rr->message),
						 "thread %d: %s %s at offset %llu: %s", i,
						 st_op_names[r->error.op], path,
						 (unsigned long long)r->error.offset, strerror(r->error.err));
				}
			}
			rr->error.count += r->error.count;
		}
	}
	rank_intervals(w, rr);
	phase_values(w, w->base);
}

int st_worker_touched(const struct st_worker *w)
{
	return w && (w->dir_made || w->files_made);
}

void st_worker_finish(struct st_worker *w)
{
	if (!w)
		return;
	if (w->t) {
		if (w->meta_made && !w->keep)
			command(w, CMD_META_CLEAN, ST_PHASE_REMOVE);
		command(w, CMD_QUIT, 0);
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].started)
				pthread_join(w->t[i].tid, NULL);
	}
	if (w->rs) {
		/* only this rank's own files (the shared one: the first client's);
		 * the run directory stays until the run ends */
		if (w->files_made && !w->keep) {
			char path[ST_STR_MAX];
			if (w->shared && w->a.client_index == 0) {
				pool_data_path(w, w->a.rank, 0, path, sizeof(path));
				w->e->unlink(w->rs, path);
			}
			for (int i = 0; !w->shared && i < w->nthreads; i++) {
				st_worker_file_path(w->a.run_dir, w->a.rank, i, path, sizeof(path));
				w->e->unlink(w->rs, path);
			}
		}
		w->e->teardown(w->rs);
	}
	free(w->t);
	free(w->rank_iv);
	free(w->iv);
	pthread_cond_destroy(&w->done_cv);
	pthread_cond_destroy(&w->cmd_cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
