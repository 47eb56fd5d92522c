/*
 * phase.c - the one data phase loop, and what every phase's calls go
 * through (see pool.h).
 *
 * The loop is written once, with the direction and the order (sequential
 * or a seeded permutation) as parameters: every data phase (write, read,
 * their random forms, and the mixed rw/randrw, whose calls read or write
 * as --rwmix interleaves them) is the same loop over the blocks of a file;
 * with --iodepth N > 1 and an engine queue, the same blocks in the same
 * order go through the queue instead. Every call ends the same way
 * (pool_account, shared with the metadata loop): latency histogram, bytes
 * and calls, each direction apart, the interval series
 * (common/interval.h), and nothing at all for a call that started inside
 * --ramp. A data phase stops at the end of its file, or with --runtime at
 * its end (wrapping to the start of the file meanwhile, as fio's
 * time_based), at the deadline, or when --stonewall says another client
 * is done.
 *
 * Where a thread's blocks are: its own file (file-per-thread), or with
 * --layout shared its region of the one file all threads of all client
 * ranks share: thread g = client index x threads + thread owns bytes
 * [g x size, (g+1) x size) (segmented), or every block k at
 * (k x all threads + g) x block (strided, IOR's segment layout with one
 * transfer per block). What is written there is st_data_fill's pattern
 * (common/data.h) of (run seed, owner rank, thread, offset), made anew for
 * every block from the thread's pool, so --verify checks every pattern.
 */
#include "pool.h"

#include "../common/permute.h"
#include "../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pool_data_path(const struct st_worker *w, int owner, int thread, char *buf, size_t n)
{
	if (w->shared)
		snprintf(buf, n, "%s/shared", w->a.run_dir);
	else
		st_worker_file_path(w->a.run_dir, owner, thread, buf, n);
}

void pool_set_error(struct st_thread_result *r, int err, int op, int phase, uint64_t off)
{
	if (!r->error.err) {
		r->error.err = err;
		r->error.op = (uint32_t)op;
		r->error.phase = phase;
		r->error.offset = off;
	}
	r->error.count++;
}

/* Does call k of a mixed phase read? Exactly pct of every 100 calls do,
 * spread evenly (the calls that write fill the gaps). */
static int mix_reads(uint64_t k, int64_t pct)
{
	return (k + 1) * (uint64_t)pct / 100 > k * (uint64_t)pct / 100;
}

/* Where block blk of thread `thread` of client `owner_client` is in its file. */
static uint64_t block_offset(const struct st_worker *w, int thread, int owner_client,
			     uint64_t blk)
{
	uint64_t b = (uint64_t)w->block;
	if (!w->shared)
		return blk * b;
	uint64_t g = (uint64_t)owner_client * (uint64_t)w->nthreads + (uint64_t)thread;
	if (w->strided)
		return (blk * (uint64_t)w->a.nclients * (uint64_t)w->nthreads + g) * b;
	return g * (uint64_t)w->size + blk * b;
}

/* The order a thread visits its file's blocks in: sequential, or a seeded
 * permutation (random phases; with --runtime each pass over the file has
 * its own). With --iodepth N on reads, the next N-1 blocks of that order
 * are announced to an engine that can read ahead; the ring holds them
 * until their turn. */
struct block_order {
	uint64_t nblocks;	 /* blocks in the file */
	uint64_t k;		 /* blocks handed out so far */
	int random;		 /* permutation (else sequential) */
	struct st_permute perm;	 /* random: the order */
	int ahead;		 /* announce blocks to the engine's prefetch */
	int64_t depth;		 /* --iodepth */
	int owner_client;	 /* shared file: whose region */
	uint64_t generated;	 /* ahead: blocks taken from the order so far */
	struct {
		uint64_t blk[ST_IODEPTH_MAX];
		unsigned head, n;
	} ring;			 /* ahead: blocks announced, not yet read */
};

static void order_init(struct block_order *o, const struct io_thread *t, int phase, int layout,
		       int write, int owner_client, uint64_t pass)
{
	const struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	memset(o, 0, sizeof(*o));
	o->nblocks = (uint64_t)(w->size / w->block);
	o->random = !layout && ((1u << phase) & ST_PHASES_RANDOM);
	o->owner_client = owner_client;
	if (o->random)
		st_permute_init(&o->perm, o->nblocks,
				(st_mix64((uint64_t)w->a.cfg->o[ST_OPT_SEED].v[0]) ^
				 ((uint64_t)w->a.rank << 32) ^ ((uint64_t)t->index << 16) ^
				 (uint64_t)phase) +
					(pass ? st_mix64(pass) : 0));
	o->depth = pool_or_default(c->v[ST_OPT_IODEPTH], 1);
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
		o->ring.blk[(o->ring.head + o->ring.n++) % ST_IODEPTH_MAX] = b;
		if (o->ring.n > 1 &&
		    w->e->prefetch(t->ts, fh, (size_t)w->block,
				   block_offset(w, t->index, o->owner_client, b)) < 0) {
			/* no room now: the rest is read when its turn comes */
			break;
		}
	}
	uint64_t blk = o->ring.blk[o->ring.head];
	o->ring.head = (o->ring.head + 1) % ST_IODEPTH_MAX;
	o->ring.n--;
	return blk;
}

/* A thread's result for a phase, before its first call. */
void pool_result_begin(struct io_thread *t, int phase)
{
	struct st_thread_result *r = &t->res;
	memset(r, 0, sizeof(*r));
	r->version = ST_WIRE_VERSION;
	r->rank = (uint32_t)t->w->a.rank;
	r->thread = (uint32_t)t->index;
	r->phase = (uint32_t)phase;
	st_hist_init(&r->hist);
	st_hist_init(&t->hist_read);
	st_hist_init(&t->hist_write);
	st_iv_init(&t->iv, t->w->measure_ns, t->w->interval_ns);
	t->counted = 0;
	t->last_ns = INT64_MIN;
	st_copy(r->cpuset, sizeof(r->cpuset), t->cpuset);
	st_copy(r->io_mode, sizeof(r->io_mode), t->io_mode);
	atomic_store_explicit(&t->live, 0, memory_order_relaxed);
}

/* A call is over, from t0 to t1 (local clock): into the figures, unless it
 * started inside the ramp. While an engine times its calls itself
 * (t->timed: time_calls, a data phase) it puts their latency in r->hist;
 * during a --ramp it puts them in t->ramp_hist, and from the first call
 * counted on in r->hist (that call: as the worker timed it). */
void pool_account(struct io_thread *t, int64_t t0, int64_t t1, uint64_t bytes, int read)
{
	struct st_thread_result *r = &t->res;
	if (t0 < t->w->measure_ns)
		return;
	if (!t->counted) {
		t->counted = 1;
		t->first_ns = t0;
		if (t->timed == 2) {
			t->w->e->time_calls(t->ts, &r->hist);
			st_hist_add(&r->hist, (uint64_t)(t1 - t0));
			t->timed = 1;
		}
	}
	if (!t->timed)
		st_hist_add(&r->hist, (uint64_t)(t1 - t0));
	st_hist_add(read ? &t->hist_read : &t->hist_write, (uint64_t)(t1 - t0));
	if (t1 > t->last_ns)
		t->last_ns = t1;
	r->bytes += bytes;
	r->ops++;
	if (read) {
		r->read_bytes += bytes;
		r->read_ops++;
	}
	if (t->w->measure_ns != INT64_MIN) /* untimed commands keep no series */
		st_iv_add(&t->iv, t1, bytes, read);
	/* a relaxed store: a plain move, no fence, for the progress line */
	atomic_store_explicit(&t->live, r->bytes, memory_order_relaxed);
}

/* What the bytes of (owner, thread)'s file are made of. */
struct st_data_key pool_data_key(const struct st_worker *w, int owner, int thread)
{
	return (struct st_data_key){ .v = w->pattern, .seed = w->a.run_seed, .rank = owner,
				     .thread = thread, .dedupe_unit = w->dedupe_unit,
				     .compress_chunk = w->compress_chunk };
}

/* The bytes of a write at off of this thread's file (len bytes) into dst. */
static void make_data(struct io_thread *t, unsigned char *dst, uint64_t off, size_t len)
{
	struct st_data_key k = pool_data_key(t->w, t->w->a.rank, t->index);
	st_data_fill(dst, len, &k, &t->pool, off);
}

/* The same in buf (with --data zero, cleared only after a read wrote it). */
const unsigned char *pool_make_data(struct io_thread *t, uint64_t off, size_t len)
{
	if (t->w->pattern == ST_DATA_ZERO) {
		if (t->buf_dirty)
			memset(t->buf, 0, t->buflen);
		t->buf_dirty = 0;
		return t->buf;
	}
	make_data(t, t->buf, off, len);
	return t->buf;
}

/* --verify: how many words of a read of (owner, thread)'s file at off differ. */
uint64_t pool_check(struct io_thread *t, const void *buf, size_t len, int owner, uint64_t off)
{
	struct st_data_key k = pool_data_key(t->w, owner, t->index);
	return st_data_check(buf, len, &k, &t->pool, off);
}

/* One block's call (a write of src, or a read into buf): the bytes moved,
 * or -errno. A short transfer moved what it could; as with write(2) and
 * read(2), the call for the rest says why (ENOSPC, EDQUOT, EFBIG; a soft
 * mount's EIO or ETIMEDOUT): that errno goes to *short_err. A read whose
 * rest finds the end of file (0) is short with no errno. */
static ssize_t transfer(struct io_thread *t, void *fh, const unsigned char *src, uint64_t off,
			int *short_err)
{
	struct st_worker *w = t->w;
	ssize_t n = src ? w->e->pwrite(t->ts, fh, src, (size_t)w->block, off)
			: w->e->pread(t->ts, fh, t->buf, (size_t)w->block, off);
	*short_err = 0;
	while (n > 0 && n < w->block) {
		ssize_t m = src ? w->e->pwrite(t->ts, fh, src + n, (size_t)(w->block - n),
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

/* One data phase of one thread, as its loops see it. */
struct data_run {
	int phase;	  /* ST_PHASE_* */
	int layout;	  /* the untimed set-up write of preparation */
	int write, mixed; /* every call writes; calls read or write as --rwmix says */
	int owner;	  /* rank whose data the file holds (--verify) */
	int verify;	  /* --verify on */
	uint64_t pass;	  /* --runtime: passes over the file begun again */
	uint64_t calls;	  /* calls handed out */
};

/* --runtime is over: does the thread go on (--stonewall wearout)? At the
 * stop it waits (its calls counted, the deadline watched) until its rank
 * has learnt the most calls any thread of any rank had made, then goes on
 * to as many. */
static int wear_on(struct io_thread *t, const struct data_run *d)
{
	struct st_worker *w = t->w;
	if (!w->wearout)
		return 0;
	if (!t->wear) {
		pthread_mutex_lock(&w->mu);
		t->stop_calls = d->calls;
		t->wear = 1;
		w->at_stop++;
		pthread_mutex_unlock(&w->mu);
	}
	int64_t target;
	while ((target = atomic_load(&w->wear_target)) < 0) {
		if (st_now_ns() > w->deadline_ns)
			return 1; /* next_call sets the deadline's error */
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	t->wear = 2;
	return d->calls < (uint64_t)target;
}

/* The next call of the phase: 1 with its offset, whether it writes, and
 * t0 when it was asked for (local clock); 0 when the phase stops here: at
 * the end of the file (with --runtime: its file again, from the start),
 * the end of --runtime, the deadline or the stonewall (those two leave
 * their flag, the deadline its error). */
static int next_call(struct io_thread *t, struct block_order *o, void *fh, struct data_run *d,
		     uint64_t *off, int *wr, int64_t *t0)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	if (o->k >= o->nblocks) {
		if (d->layout || !w->runtime_ns || !o->nblocks)
			return 0;
		order_init(o, t, d->phase, 0, d->write || d->mixed, o->owner_client, ++d->pass);
	}
	*t0 = st_now_ns();
	if (!d->layout && *t0 >= w->until_ns) {
		if (!wear_on(t, d))
			return 0; /* --runtime is over: the bytes done count */
		*t0 = st_now_ns(); /* after the wait at the stop */
	}
	*off = block_offset(w, t->index, o->owner_client, order_next(o, t, fh));
	if (!d->layout && *t0 > w->deadline_ns) {
		r->flags |= ST_TF_DEADLINE;
		pool_set_error(r, ETIMEDOUT, ST_OP_DEADLINE, d->phase, *off);
		return 0;
	}
	if (!d->layout && atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		r->flags |= ST_TF_STONEWALL;
		return 0;
	}
	*wr = d->write || (d->mixed && !mix_reads(d->calls, w->rwmix));
	d->calls++;
	return 1;
}

/* The blocks of the file in their order, each call timed; stops where
 * next_call says, at the first error or a short transfer. */
static void blocks(struct io_thread *t, struct block_order *o, void *fh, struct data_run *d)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	uint64_t off;
	int wr;
	int64_t t0;
	while (next_call(t, o, fh, d, &off, &wr, &t0)) {
		const unsigned char *src = NULL;
		if (wr) { /* outside the timed call, inside the phase */
			src = pool_make_data(t, off, (size_t)w->block);
			t0 = st_now_ns();
		}
		int short_err;
		ssize_t n = transfer(t, fh, src, off, &short_err);
		int64_t t1 = st_now_ns();
		if (!wr) {
			t->buf_dirty = 1;
			if (d->verify && n == w->block &&
			    pool_check(t, t->buf, (size_t)w->block, d->owner, off) &&
			    !r->bad_blocks++)
				r->first_bad_offset = off;
		}
		if (n < 0) {
			pool_set_error(r, (int)-n, wr ? ST_OP_WRITE : ST_OP_READ, d->phase, off);
			break;
		}
		pool_account(t, t0, t1, (uint64_t)n, !wr);
		if (short_err) {
			pool_set_error(r, short_err, wr ? ST_OP_WRITE : ST_OP_READ, d->phase,
				       off + (uint64_t)n);
			break;
		}
		if (n < w->block) {
			/* a short transfer the engine could not complete: for a read,
			 * the file is shorter than it should be */
			pool_set_error(r, wr ? EIO : ENODATA, ST_OP_SHORT, d->phase, off + (uint64_t)n);
			break;
		}
	}
}

/* One more request into the engine's queue, from an idle buffer: 1 when it
 * is in flight, 0 when the phase stops issuing (next_call said so, or the
 * queue refused it: its error set). */
static int queue_issue(struct io_thread *t, struct block_order *o, void *fh, struct data_run *d)
{
	struct st_worker *w = t->w;
	uint64_t off;
	int wr;
	int64_t now;
	if (!next_call(t, o, fh, d, &off, &wr, &now))
		return 0;
	struct st_aio_req *q = t->idle[--t->nidle];
	q->len = (size_t)w->block;
	q->off = off;
	q->write = wr;
	if (wr) /* before its issue, inside the phase */
		make_data(t, q->buf, off, q->len);
	q->issued_ns = st_now_ns();
	int rc = w->e->aio_submit(t->aq, fh, q);
	if (rc < 0) {
		t->idle[t->nidle++] = q;
		pool_set_error(&t->res, -rc, wr ? ST_OP_WRITE : ST_OP_READ, d->phase, off);
		return 0;
	}
	return 1;
}

/* The got requests a reap returned: their buffers idle again, each one
 * checked and counted. 1 when one of them stops the phase (an error, or
 * a short transfer). */
static int queue_complete(struct io_thread *t, struct data_run *d, int got)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	int stop = 0;
	for (int i = 0; i < got; i++) {
		struct st_aio_req *q = t->done[i];
		ssize_t n = q->res;
		t->idle[t->nidle++] = q;
		if (!q->write && d->verify && n == w->block &&
		    pool_check(t, q->buf, q->len, d->owner, q->off) &&
		    !r->bad_blocks++)
			r->first_bad_offset = q->off;
		if (n < 0) {
			pool_set_error(r, (int)-n, q->write ? ST_OP_WRITE : ST_OP_READ, d->phase, q->off);
			stop = 1;
			continue;
		}
		pool_account(t, q->issued_ns, q->done_ns, (uint64_t)n, !q->write);
		if (n < w->block) {
			/* cut short by an error, or (a read) the file is shorter */
			pool_set_error(r, q->err ? q->err : q->write ? EIO : ENODATA,
				       q->err ? (q->write ? ST_OP_WRITE : ST_OP_READ) : ST_OP_SHORT,
				       d->phase, q->off + (uint64_t)n);
			stop = 1;
		}
	}
	return stop;
}

/* The same through the engine's queue (--iodepth N > 1): up to N requests
 * in flight, each in a buffer of its own, issued in the order's sequence
 * (a permutation still visits every block once; --runtime goes round again)
 * and completed in any order; each request's latency runs from its issue to
 * its completion. Stops issuing at the first error, a short transfer, the
 * end of --runtime, the deadline or the stonewall, and waits for what is in
 * flight. */
static void blocks_queued(struct io_thread *t, struct block_order *o, void *fh,
			  struct data_run *d)
{
	int inflight = 0, stop = 0;
	while (!stop || inflight) {
		while (!stop && t->nidle) {
			if (!queue_issue(t, o, fh, d))
				stop = 1;
			else
				inflight++;
		}
		if (!inflight)
			break;
		int got = t->w->e->aio_reap(t->aq, 1, t->done, t->depth);
		if (got < 0) {
			/* the queue itself failed: its requests may still be in the
			 * kernel's hands, so their buffers stay until the thread ends */
			pool_set_error(&t->res, -got, d->write ? ST_OP_WRITE : ST_OP_READ, d->phase, 0);
			t->depth = 0;
			break;
		}
		inflight -= got;
		stop |= queue_complete(t, d, got);
	}
}

/* Times of a phase into the result: from the open (with --ramp: from the
 * first call counted) to the close, on the common timeline. */
void pool_result_end(struct io_thread *t, int64_t start, int64_t end, int ramped)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	if (ramped)
		start = t->counted ? t->first_ns : end;
	r->start_ns = start - w->a.clock_offset_ns;
	r->end_ns = end - w->a.clock_offset_ns;
	r->last_cpu = -1;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (set && hwloc_get_last_cpu_location(w->a.topo, set, HWLOC_CPUBIND_THREAD) == 0)
		r->last_cpu = hwloc_bitmap_first(set);
	hwloc_bitmap_free(set);
}

/* How the file is opened for the phase (ST_OPEN_*). */
static unsigned open_flags(const struct st_worker *w, const struct data_run *d)
{
	unsigned flags = d->write ? ST_OPEN_WRITE
			 : d->mixed ? ST_OPEN_READ | ST_OPEN_WRITE
				    : ST_OPEN_READ;
	/* a file laid out in preparation keeps its bytes (no truncation) */
	if (d->layout || (d->phase == ST_PHASE_WRITE && !w->laid_out))
		flags |= ST_OPEN_CREATE;
	if (w->shared)
		flags |= ST_OPEN_SHARED;
	if (d->layout)
		flags |= ST_OPEN_LAYOUT;
	if (w->a.combo->v[ST_OPT_DIRECT] == ST_ON)
		flags |= ST_OPEN_DIRECT;
	return flags;
}

/* The open file's part of the phase: every block, fsync (phases that
 * write, with --fsync on), close. */
static void data_file(struct io_thread *t, struct block_order *o, void *fh, struct data_run *d)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	if (t->aq && t->depth) {
		blocks_queued(t, o, fh, d);
		if (t->depth)
			w->e->aio_file_done(t->aq, fh, r->io_mode, sizeof(r->io_mode));
	} else {
		blocks(t, o, fh, d);
	}
	if ((d->write || d->mixed) && w->a.combo->v[ST_OPT_FSYNC] == ST_ON && !r->error.err) {
		int rc = w->e->fsync(t->ts, fh);
		if (rc < 0)
			pool_set_error(r, -rc, ST_OP_FSYNC, d->phase, 0);
	}
	int rc = w->e->close(t->ts, fh);
	if (rc < 0)
		pool_set_error(r, -rc, ST_OP_CLOSE, d->phase, 0);
	if (w->e->events)
		r->flags |= w->e->events(t->ts);
}

/* The one data phase loop: open, every block, fsync, close, all inside
 * the timed span. `layout` writes the file untimed during preparation. */
void pool_data_phase(struct io_thread *t, int phase, int layout)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	struct st_thread_result *r = &t->res;
	unsigned bit = 1u << phase;
	struct data_run d = { .phase = phase, .layout = layout,
			      .mixed = !layout && (bit & ST_PHASES_MIXED),
			      .write = layout || (bit & ST_PHASES_WRITE),
			      .verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON };
	pool_result_begin(t, phase);

	/* a mixed phase reads what it writes: its own file */
	int reorder = !d.write && !d.mixed && c->v[ST_OPT_REORDER] == ST_ON;
	d.owner = reorder ? w->a.partner : w->a.rank;
	char path[ST_STR_MAX];
	pool_data_path(w, d.owner, t->index, path, sizeof(path));
	unsigned flags = open_flags(w, &d);
	struct block_order o;
	order_init(&o, t, phase, layout, d.write || d.mixed,
		   reorder ? w->a.partner_client : w->a.client_index, 0);

	/* an engine that times its calls: into r->hist, or (--ramp) first into
	 * t->ramp_hist (pool_account switches at the first call counted) */
	t->timed = 0;
	if (w->e->time_calls) {
		int ramped = !layout && w->ramp_ns > 0;
		t->timed = ramped ? 2 : 1;
		w->e->time_calls(t->ts, ramped ? &t->ramp_hist : &r->hist);
	}
	int64_t start = st_now_ns();
	void *fh = NULL;
	int direct = 0;
	int rc = w->e->open(t->ts, path, flags, &fh, &direct);
	if (rc < 0) {
		pool_set_error(r, -rc, ST_OP_OPEN, phase, 0);
	} else {
		if ((flags & ST_OPEN_DIRECT) && !direct)
			r->flags |= ST_TF_DIRECT_FALLBACK;
		data_file(t, &o, fh, &d);
	}
	int64_t end = st_now_ns();
	if (t->timed)
		w->e->time_calls(t->ts, NULL);
	t->timed = 0;
	pool_result_end(t, start, end, !layout && w->ramp_ns > 0);
}
