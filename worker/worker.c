/*
 * worker.c - the pinned I/O thread pool and the one phase loop.
 *
 * The phase loop is written once, with the direction and the order
 * (sequential or a seeded permutation) as parameters: every data phase
 * (write, read, their random forms, and the mixed rw/randrw, whose calls
 * read or write as --rwmix interleaves them) is the same loop over the
 * blocks of a file, and every metadata phase (create, stat, open, remove)
 * the same loop over --files names. Both loops end a call the same way
 * (account): latency histogram, bytes and calls, each direction apart,
 * the interval series (common/interval.h), and nothing at all for a call
 * that started inside --ramp. A data phase stops at the end of its file,
 * or with --runtime at its end (wrapping to the start of the file
 * meanwhile, as fio's time_based), at the deadline, or when --stonewall
 * says another client is done.
 *
 * Where a thread's blocks are: its own file (file-per-thread), or with
 * --layout shared its region of the one file all threads of all client
 * ranks share: thread g = client index x threads + thread owns bytes
 * [g x size, (g+1) x size) (segmented), or every block k at
 * (k x all threads + g) x block (strided, IOR's segment layout with one
 * transfer per block). What is written there is st_data_fill's pattern
 * (common/data.h) of (run seed, owner rank, thread, offset), made anew for
 * every block, so --verify checks every pattern.
 *
 * Each thread pins itself first and only then allocates and touches its
 * buffer, so the buffer's pages live where the thread runs. Threads wait
 * on a generation counter for the next command; the main thread waits
 * until none is busy.
 */
#include "worker.h"

#include "../common/data.h"
#include "../common/interval.h"
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

enum { CMD_NONE, CMD_PHASE, CMD_LAYOUT, CMD_META_PREP, CMD_META_CLEAN, CMD_QUIT };

struct io_thread {
	struct st_worker *w;
	int index;		     /* thread number in the rank */
	pthread_t tid;		     /* the thread */
	int started;		     /* pthread_create succeeded */
	void *ts;		     /* engine thread state */
	unsigned char *buf;	     /* aligned, touched I/O buffer */
	size_t buflen;		     /* its bytes: the block, or a metadata file if larger */
	int buf_dirty;		     /* a read wrote buf (--data zero clears it before a write) */
	struct st_data_pool pool;    /* the pattern's base chunks its writes take (none: zero, dedupe) */
	char cpuset[64];	     /* binding it got */
	struct st_prepare_status ps; /* how its preparation went */
	_Atomic uint64_t live;	     /* bytes so far in this phase (progress only) */
	int counted;		     /* a call of this phase counted (past --ramp) */
	int64_t first_ns;	     /* when that call started, local clock */
	uint64_t meta_lo, meta_hi;   /* its metadata files f<lo> .. f<hi-1> exist */
	int meta_dirs;		     /* its metadata directories exist */
	struct st_hist hist_read;    /* latency of its reads in this phase */
	struct st_hist hist_write;   /* and of its writes */
	struct st_iv_series iv;	     /* this phase's calls per interval */
	int timed;		     /* the engine times the calls: 1 into res.hist, 2 ramp_hist */
	struct st_hist ramp_hist;    /* what it timed during --ramp (not figures) */
	struct st_thread_result res; /* result of the last phase */
	/* --iodepth N > 1 through the engine's queue (aio_* in engine.h) */
	void *aq;		     /* the queue, NULL: one call at a time */
	char io_mode[64];	     /* what issues its calls (and why not a queue) */
	unsigned char *qbufs;	     /* aq: N aligned, touched buffers of a block */
	struct st_aio_req *reqs;     /* aq: N requests, one per buffer */
	struct st_aio_req **idle;    /* aq: the requests not in flight (a stack) */
	struct st_aio_req **done;    /* aq: what a reap returns */
	int depth, nidle;	     /* aq: N, and how many are idle */
};

struct st_worker {
	struct st_worker_args a;
	const struct st_engine *e;
	void *rs; /* engine rank state */
	int nthreads;
	int64_t block, size;	      /* bytes */
	int64_t pattern;	      /* --data (common/data.h) */
	int shared, strided;	      /* --layout shared, --access strided */
	int64_t rwmix;		      /* mixed phases: % of calls that read */
	int64_t nfiles, file_size;    /* metadata: files per thread, bytes each */
	int64_t fanout;		      /* metadata: subdirectories (1: none) */
	int64_t runtime_ns, ramp_ns;  /* 0: not asked */
	int64_t interval_ns;	      /* --interval */
	int keep;		      /* --keep on: leave the files */
	int dir_made;		      /* this rank created run_dir */
	int files_made;		      /* threads may have created data files */
	int meta_made;		      /* threads made metadata directories */
	struct io_thread *t;

	pthread_mutex_t mu;
	pthread_cond_t cmd_cv;	/* main -> threads: new command */
	pthread_cond_t done_cv; /* threads -> main: one finished */
	uint64_t gen;		/* command generation */
	int cmd, phase;		/* current command */
	int64_t deadline_ns;	/* local clock: stop issuing I/O after this */
	int64_t measure_ns;	/* local clock: calls that start before are the ramp */
	int64_t until_ns;	/* local clock: --runtime is over (INT64_MAX: no runtime) */
	_Atomic int stop;	/* --stonewall: another client is done */
	int busy;		/* threads still working on the command */
	int phase_started;	/* the phase begun by st_worker_phase_begin */
	int64_t release_ns;	/* its barrier release, local clock */
	int64_t cpu_user0, cpu_sys0; /* process CPU at its start, us */
	struct st_iv_series *rank_iv; /* the threads' series merged */
	struct st_interval *iv;	      /* the rank's intervals of the last phase */
	size_t niv;
};

static int64_t or_default(int64_t v, int64_t def)
{
	return v == ST_UNSET ? def : v;
}

void st_worker_file_path(const char *run_dir, int rank, int thread, char *buf, size_t n)
{
	snprintf(buf, n, "%s/r%d.t%d", run_dir, rank, thread);
}

void st_worker_meta_dir(const char *run_dir, int rank, int thread, char *buf, size_t n)
{
	snprintf(buf, n, "%s/r%d.t%d.d", run_dir, rank, thread);
}

/* The data file a thread of `owner` works on. */
static void data_path(const struct st_worker *w, int owner, int thread, char *buf, size_t n)
{
	if (w->shared)
		snprintf(buf, n, "%s/shared", w->a.run_dir);
	else
		st_worker_file_path(w->a.run_dir, owner, thread, buf, n);
}

/* The subdirectory (-1: none) file i of a thread is in. */
static int64_t meta_subdir(const struct st_worker *w, uint64_t i)
{
	if (w->fanout <= 1)
		return -1;
	uint64_t per = ((uint64_t)w->nfiles + (uint64_t)w->fanout - 1) / (uint64_t)w->fanout;
	return (int64_t)(i / per);
}

/* File i of the metadata files of (owner, thread), as a path for messages. */
static void meta_path(const struct st_worker *w, int owner, int thread, uint64_t i, char *buf,
		      size_t n)
{
	char dir[ST_STR_MAX];
	st_worker_meta_dir(w->a.run_dir, owner, thread, dir, sizeof(dir));
	int64_t d = meta_subdir(w, i);
	if (d < 0)
		snprintf(buf, n, "%s/f%llu", dir, (unsigned long long)i);
	else
		snprintf(buf, n, "%s/d%lld/f%llu", dir, (long long)d, (unsigned long long)i);
}

int st_worker_threads(const struct st_worker *w)
{
	return w ? w->nthreads : 0;
}

static int is_meta(int phase)
{
	return ((1u << phase) & ST_PHASES_META) != 0;
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
		uint64_t blk[256];
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
	o->depth = or_default(c->v[ST_OPT_IODEPTH], 1);
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
		    w->e->prefetch(t->ts, fh, (size_t)w->block,
				   block_offset(w, t->index, o->owner_client, b)) < 0) {
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
	st_hist_init(&t->hist_read);
	st_hist_init(&t->hist_write);
	st_iv_init(&t->iv, t->w->measure_ns, t->w->interval_ns);
	t->counted = 0;
	st_copy(r->cpuset, sizeof(r->cpuset), t->cpuset);
	st_copy(r->io_mode, sizeof(r->io_mode), t->io_mode);
	atomic_store_explicit(&t->live, 0, memory_order_relaxed);
}

/* A call is over, from t0 to t1 (local clock): into the figures, unless it
 * started inside the ramp. While an engine times its calls itself
 * (t->timed: time_calls, a data phase) it puts their latency in r->hist;
 * during a --ramp it puts them in t->ramp_hist, and from the first call
 * counted on in r->hist (that call: as the worker timed it). */
static void account(struct io_thread *t, int64_t t0, int64_t t1, uint64_t bytes, int read)
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

/* The bytes of a write at off of this thread's file (len bytes): from its
 * pool (only each chunk's stamp is written anew), else made in buf. */
static const unsigned char *make_data(struct io_thread *t, uint64_t off, size_t len)
{
	struct st_worker *w = t->w;
	if (w->pattern == ST_DATA_ZERO) {
		if (t->buf_dirty)
			memset(t->buf, 0, t->buflen);
		t->buf_dirty = 0;
		return t->buf;
	}
	const unsigned char *p = st_data_pool_block(&t->pool, off, len);
	if (p)
		return p;
	st_data_fill(t->buf, len, w->pattern, w->a.run_seed, w->a.rank, t->index, off);
	return t->buf;
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

/* The blocks of the file in their order, each call timed; stops at the end
 * of the file (with --runtime: when it is over), the first error, a short
 * transfer, the phase deadline or the stonewall. */
static void blocks(struct io_thread *t, struct block_order *o, void *fh, int phase, int layout,
		   int write, int mixed, int owner)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	int verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON;
	uint64_t pass = 0, calls = 0;
	for (;;) {
		if (o->k >= o->nblocks) {
			if (layout || !w->runtime_ns || !o->nblocks)
				break;
			order_init(o, t, phase, 0, write || mixed, o->owner_client, ++pass);
		}
		int64_t t0 = st_now_ns();
		if (!layout && t0 >= w->until_ns)
			break; /* --runtime is over: the bytes done count */
		uint64_t off = block_offset(w, t->index, o->owner_client, order_next(o, t, fh));
		if (!layout && t0 > w->deadline_ns) {
			r->flags |= ST_TF_DEADLINE;
			set_error(r, ETIMEDOUT, ST_OP_DEADLINE, phase, off);
			break;
		}
		if (!layout && atomic_load_explicit(&w->stop, memory_order_relaxed)) {
			r->flags |= ST_TF_STONEWALL;
			break;
		}
		int wr = write || (mixed && !mix_reads(calls, w->rwmix));
		calls++;
		const unsigned char *src = NULL;
		if (wr) { /* outside the timed call, inside the phase */
			src = make_data(t, off, (size_t)w->block);
			t0 = st_now_ns();
		}
		int short_err;
		ssize_t n = transfer(t, fh, src, off, &short_err);
		int64_t t1 = st_now_ns();
		if (!wr) {
			t->buf_dirty = 1;
			if (verify && n == w->block &&
			    st_data_check(t->buf, (size_t)w->block, w->pattern, w->a.run_seed, owner,
					  t->index, off) &&
			    !r->bad_blocks++)
				r->first_bad_offset = off;
		}
		if (n < 0) {
			set_error(r, (int)-n, wr ? ST_OP_WRITE : ST_OP_READ, phase, off);
			break;
		}
		account(t, t0, t1, (uint64_t)n, !wr);
		if (short_err) {
			set_error(r, short_err, wr ? ST_OP_WRITE : ST_OP_READ, phase, off + (uint64_t)n);
			break;
		}
		if (n < w->block) {
			/* a short transfer the engine could not complete: for a read,
			 * the file is shorter than it should be */
			set_error(r, wr ? EIO : ENODATA, ST_OP_SHORT, phase, off + (uint64_t)n);
			break;
		}
	}
}

/* The same through the engine's queue (--iodepth N > 1): up to N requests
 * in flight, each in a buffer of its own, issued in the order's sequence
 * (a permutation still visits every block once; --runtime goes round again)
 * and completed in any order; each request's latency runs from its issue to
 * its completion. Stops issuing at the first error, a short transfer, the
 * end of --runtime, the deadline or the stonewall, and waits for what is in
 * flight. */
static void blocks_queued(struct io_thread *t, struct block_order *o, void *fh, int phase,
			  int layout, int write, int mixed, int owner)
{
	struct st_worker *w = t->w;
	const struct st_engine *e = w->e;
	struct st_thread_result *r = &t->res;
	int verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON;
	int inflight = 0, stop = 0;
	uint64_t pass = 0, calls = 0;
	while (!stop || inflight) {
		while (!stop && t->nidle) {
			if (o->k >= o->nblocks) {
				if (layout || !w->runtime_ns || !o->nblocks) {
					stop = 1;
					break;
				}
				order_init(o, t, phase, 0, write || mixed, o->owner_client, ++pass);
			}
			int64_t now = st_now_ns();
			if (!layout && now >= w->until_ns) {
				stop = 1; /* --runtime is over: the bytes done count */
				break;
			}
			uint64_t off = block_offset(w, t->index, o->owner_client, order_next(o, t, fh));
			if (!layout && now > w->deadline_ns) {
				r->flags |= ST_TF_DEADLINE;
				set_error(r, ETIMEDOUT, ST_OP_DEADLINE, phase, off);
				stop = 1;
				break;
			}
			if (!layout && atomic_load_explicit(&w->stop, memory_order_relaxed)) {
				r->flags |= ST_TF_STONEWALL;
				stop = 1;
				break;
			}
			int wr = write || (mixed && !mix_reads(calls, w->rwmix));
			calls++;
			struct st_aio_req *q = t->idle[--t->nidle];
			q->len = (size_t)w->block;
			q->off = off;
			q->write = wr;
			if (wr) /* before its issue, inside the phase */
				memcpy(q->buf, make_data(t, off, q->len), q->len);
			q->issued_ns = st_now_ns();
			int rc = e->aio_submit(t->aq, fh, q);
			if (rc < 0) {
				t->idle[t->nidle++] = q;
				set_error(r, -rc, wr ? ST_OP_WRITE : ST_OP_READ, phase, off);
				stop = 1;
				break;
			}
			inflight++;
		}
		if (!inflight)
			break;
		int got = e->aio_reap(t->aq, 1, t->done, t->depth);
		if (got < 0) {
			/* the queue itself failed: its requests may still be in the
			 * kernel's hands, so their buffers stay until the thread ends */
			set_error(r, -got, write ? ST_OP_WRITE : ST_OP_READ, phase, 0);
			t->depth = 0;
			break;
		}
		for (int i = 0; i < got; i++) {
			struct st_aio_req *q = t->done[i];
			ssize_t n = q->res;
			inflight--;
			t->idle[t->nidle++] = q;
			if (!q->write && verify && n == w->block &&
			    st_data_check(q->buf, q->len, w->pattern, w->a.run_seed, owner, t->index,
					  q->off) &&
			    !r->bad_blocks++)
				r->first_bad_offset = q->off;
			if (n < 0) {
				set_error(r, (int)-n, q->write ? ST_OP_WRITE : ST_OP_READ, phase, q->off);
				stop = 1;
				continue;
			}
			account(t, q->issued_ns, q->done_ns, (uint64_t)n, !q->write);
			if (n < w->block) {
				/* cut short by an error, or (a read) the file is shorter */
				set_error(r, q->err ? q->err : q->write ? EIO : ENODATA,
					  q->err ? (q->write ? ST_OP_WRITE : ST_OP_READ) : ST_OP_SHORT,
					  phase, q->off + (uint64_t)n);
				stop = 1;
			}
		}
	}
}

/* Times of a phase into the result: from the open (with --ramp: from the
 * first call counted) to the close, on the common timeline. */
static void result_end(struct io_thread *t, int64_t start, int64_t end, int ramped)
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

/* The one data phase loop: open, every block, fsync (phases that write,
 * with --fsync on), close, all inside the timed span. `layout` writes the
 * file untimed during preparation. */
static void run_data_phase(struct io_thread *t, int phase, int layout)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	struct st_thread_result *r = &t->res;
	unsigned bit = 1u << phase;
	int mixed = !layout && (bit & ST_PHASES_MIXED);
	int write = layout || (bit & ST_PHASES_WRITE);
	result_begin(t, phase);

	/* a mixed phase reads what it writes: its own file */
	int reorder = !write && !mixed && c->v[ST_OPT_REORDER] == ST_ON;
	int owner = reorder ? w->a.partner : w->a.rank;
	char path[ST_STR_MAX];
	data_path(w, owner, t->index, path, sizeof(path));
	unsigned flags = write ? ST_OPEN_WRITE : mixed ? ST_OPEN_READ | ST_OPEN_WRITE : ST_OPEN_READ;
	if (layout || phase == ST_PHASE_WRITE)
		flags |= ST_OPEN_CREATE;
	if (w->shared)
		flags |= ST_OPEN_SHARED;
	if (layout)
		flags |= ST_OPEN_LAYOUT;
	if (c->v[ST_OPT_DIRECT] == ST_ON)
		flags |= ST_OPEN_DIRECT;
	struct block_order o;
	order_init(&o, t, phase, layout, write || mixed,
		   reorder ? w->a.partner_client : w->a.client_index, 0);

	/* an engine that times its calls: into r->hist, or (--ramp) first into
	 * t->ramp_hist (account() switches at the first call counted) */
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
		set_error(r, -rc, ST_OP_OPEN, phase, 0);
	} else {
		if ((flags & ST_OPEN_DIRECT) && !direct)
			r->flags |= ST_TF_DIRECT_FALLBACK;
		if (t->aq && t->depth) {
			blocks_queued(t, &o, fh, phase, layout, write, mixed, owner);
			if (t->depth)
				w->e->aio_file_done(t->aq, fh, r->io_mode, sizeof(r->io_mode));
		} else {
			blocks(t, &o, fh, phase, layout, write, mixed, owner);
		}
		if ((write || mixed) && c->v[ST_OPT_FSYNC] == ST_ON && !r->error.err) {
			rc = w->e->fsync(t->ts, fh);
			if (rc < 0)
				set_error(r, -rc, ST_OP_FSYNC, phase, 0);
		}
		rc = w->e->close(t->ts, fh);
		if (rc < 0)
			set_error(r, -rc, ST_OP_CLOSE, phase, 0);
		if (w->e->events)
			r->flags |= w->e->events(t->ts);
	}
	int64_t end = st_now_ns();
	if (t->timed)
		w->e->time_calls(t->ts, NULL);
	t->timed = 0;
	result_end(t, start, end, !layout && w->ramp_ns > 0);
}

/*
 * The one metadata phase loop: each of the thread's files in turn, in its
 * directory (the subdirectories of --fanout one after the other, each
 * opened as the loop reaches it: inside the phase's span, outside every
 * call's latency). stat and open, with --reorder on, go to the files of
 * the rank whose data files this one reads. `untimed`: preparation or
 * cleanup (no deadline; the results are not figures).
 */
static void run_meta_phase(struct io_thread *t, int phase, int untimed)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	struct st_thread_result *r = &t->res;
	result_begin(t, phase);
	int op = phase == ST_PHASE_CREATE ? ST_META_CREATE
		 : phase == ST_PHASE_STAT ? ST_META_STAT
		 : phase == ST_PHASE_OPEN ? ST_META_OPEN
					  : ST_META_REMOVE;
	static const int err_op[] = { [ST_META_CREATE] = ST_OP_CREATE, [ST_META_STAT] = ST_OP_STAT,
				      [ST_META_OPEN] = ST_OP_OPEN, [ST_META_REMOVE] = ST_OP_REMOVE };
	int reorder = (op == ST_META_STAT || op == ST_META_OPEN) && c->v[ST_OPT_REORDER] == ST_ON;
	int owner = reorder ? w->a.partner : w->a.rank;
	int verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON;
	size_t len = (size_t)w->file_size;
	unsigned flags = c->v[ST_OPT_FSYNC] == ST_ON && len ? ST_META_FSYNC : 0;
	uint64_t lo = 0, hi = (uint64_t)w->nfiles;
	if (op == ST_META_REMOVE) {
		lo = t->meta_lo;
		hi = t->meta_hi;
	}
	if (op == ST_META_CREATE)
		t->meta_lo = t->meta_hi = 0;

	char dir[ST_STR_MAX];
	st_worker_meta_dir(w->a.run_dir, owner, t->index, dir, sizeof(dir));
	int64_t start = st_now_ns();
	void *top = NULL, *dh = NULL;
	int64_t cur = -1;
	int rc = w->e->dir_open(t->ts, NULL, dir, 0, &top);
	if (rc < 0)
		set_error(r, -rc, ST_OP_OPEN, phase, 0);
	dh = top;
	for (uint64_t i = lo; rc == 0 && i < hi; i++) {
		if (!untimed && st_now_ns() > w->deadline_ns) {
			r->flags |= ST_TF_DEADLINE;
			set_error(r, ETIMEDOUT, ST_OP_DEADLINE, phase, i);
			break;
		}
		int64_t d = meta_subdir(w, i);
		if (d != cur) {
			if (dh != top)
				w->e->dir_close(t->ts, dh);
			dh = top;
			if (d >= 0) {
				char sub[32];
				snprintf(sub, sizeof(sub), "d%lld", (long long)d);
				rc = w->e->dir_open(t->ts, top, sub, 0, &dh);
				if (rc < 0) {
					dh = top;
					set_error(r, -rc, ST_OP_OPEN, phase, i);
					break;
				}
			}
			cur = d;
		}
		char name[32];
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		uint64_t foff = i << 32; /* where file i's bytes are in the data pattern */
		void *data = t->buf;
		if (op == ST_META_CREATE && len)
			data = (void *)make_data(t, foff, len);
		int64_t t0 = st_now_ns();
		ssize_t n = w->e->meta(t->ts, dh, op, name, data, len, flags);
		int64_t t1 = st_now_ns();
		if (n < 0) {
			set_error(r, (int)-n, err_op[op], phase, i);
			break;
		}
		if (op == ST_META_OPEN && len) {
			t->buf_dirty = 1;
			if ((size_t)n < len) {
				set_error(r, ENODATA, ST_OP_SHORT, phase, i);
				break;
			}
			if (verify && st_data_check(t->buf, len, w->pattern, w->a.run_seed, owner,
						    t->index, foff) &&
			    !r->bad_blocks++)
				r->first_bad_offset = i;
		}
		if (op == ST_META_CREATE)
			t->meta_hi = i + 1;
		if (op == ST_META_REMOVE)
			t->meta_lo = i + 1;
		account(t, t0, t1, (uint64_t)n, op == ST_META_OPEN);
	}
	if (dh != top)
		w->e->dir_close(t->ts, dh);
	w->e->dir_close(t->ts, top);
	if (w->e->events)
		r->flags |= w->e->events(t->ts);
	result_end(t, start, st_now_ns(), 0);
}

/* Preparation of the metadata phases (untimed): the thread's directory and
 * its subdirectories; without a create phase, the files too. An error is
 * left in t->res. */
static void meta_prep(struct io_thread *t)
{
	struct st_worker *w = t->w;
	result_begin(t, ST_PHASE_CREATE);
	char dir[ST_STR_MAX];
	st_worker_meta_dir(w->a.run_dir, w->a.rank, t->index, dir, sizeof(dir));
	void *top = NULL;
	int rc = w->e->dir_open(t->ts, NULL, dir, 1, &top);
	if (rc < 0) {
		set_error(&t->res, -rc, ST_OP_MKDIR, -1, 0);
		return;
	}
	t->meta_dirs = 1;
	for (int64_t k = 0; w->fanout > 1 && k < w->fanout; k++) {
		char sub[32];
		void *dh = NULL;
		snprintf(sub, sizeof(sub), "d%lld", (long long)k);
		rc = w->e->dir_open(t->ts, top, sub, 1, &dh);
		if (rc < 0) {
			set_error(&t->res, -rc, ST_OP_MKDIR, -1, (uint64_t)k);
			break;
		}
		w->e->dir_close(t->ts, dh);
	}
	w->e->dir_close(t->ts, top);
	if (!rc && !(w->a.phases & (1u << ST_PHASE_CREATE)))
		run_meta_phase(t, ST_PHASE_CREATE, 1);
}

/* After the combination (untimed): the thread's metadata files that are
 * left, its subdirectories, its directory. Best effort: what cannot be
 * removed stays (st_worker_remove_run_dir tries the directory again). */
static void meta_clean(struct io_thread *t)
{
	struct st_worker *w = t->w;
	if (!t->meta_dirs)
		return;
	if (t->meta_hi > t->meta_lo)
		run_meta_phase(t, ST_PHASE_REMOVE, 1);
	char dir[ST_STR_MAX], leaf[64];
	st_worker_meta_dir(w->a.run_dir, w->a.rank, t->index, dir, sizeof(dir));
	void *dh = NULL;
	if (w->fanout > 1 && w->e->dir_open(t->ts, NULL, dir, 0, &dh) == 0) {
		for (int64_t k = 0; k < w->fanout; k++) {
			snprintf(leaf, sizeof(leaf), "d%lld", (long long)k);
			w->e->meta(t->ts, dh, ST_META_RMDIR, leaf, NULL, 0, 0);
		}
		w->e->dir_close(t->ts, dh);
	}
	if (w->e->dir_open(t->ts, NULL, w->a.run_dir, 0, &dh) == 0) {
		snprintf(leaf, sizeof(leaf), "r%d.t%d.d", w->a.rank, t->index);
		w->e->meta(t->ts, dh, ST_META_RMDIR, leaf, NULL, 0, 0);
		w->e->dir_close(t->ts, dh);
	}
	t->meta_dirs = 0;
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

/* --iodepth N > 1 with an engine that has a queue: the thread's queue and
 * its N buffers (allocated and touched after pinning, as the first one);
 * where the engine cannot make one here, the thread issues one call at a
 * time and its io_mode says why. An engine with a queue but depth 1: "sync". */
static void queue_init(struct io_thread *t)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	int depth = c->v[ST_OPT_IODEPTH] == ST_UNSET ? 1 : (int)c->v[ST_OPT_IODEPTH];
	if (!w->e->aio_init)
		return;
	st_copy(t->io_mode, sizeof(t->io_mode), "sync");
	if (depth <= 1 || w->e->aio_init(t->ts, depth, &t->aq, t->io_mode, sizeof(t->io_mode)) < 0)
		return;
	size_t stride = ((size_t)w->block + 4095) & ~(size_t)4095;
	void *p = NULL;
	t->reqs = calloc((size_t)depth, sizeof(*t->reqs));
	t->idle = calloc((size_t)depth, sizeof(*t->idle));
	t->done = calloc((size_t)depth, sizeof(*t->done));
	int rc = posix_memalign(&p, 4096, stride * (size_t)depth);
	if (rc || !t->reqs || !t->idle || !t->done) {
		prepare_fail(&t->ps, rc ? rc : ENOMEM, ST_OP_ALLOC,
			     "thread %d: %d buffers of %lld bytes (--iodepth): %s", t->index, depth,
			     (long long)w->block, strerror(rc ? rc : ENOMEM));
		free(p);
		return;
	}
	t->qbufs = p;
	for (int i = 0; i < depth; i++) {
		t->reqs[i].buf = t->qbufs + stride * (size_t)i;
		memcpy(t->reqs[i].buf, t->buf, (size_t)w->block); /* the same data, touched */
		t->idle[i] = &t->reqs[i];
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
		t->buflen = (size_t)(w->block > w->file_size ? w->block : w->file_size);
		rc = posix_memalign(&p, 4096, t->buflen);
		if (rc)
			prepare_fail(&t->ps, rc, ST_OP_ALLOC, "thread %d: buffer of %zu bytes: %s",
				     t->index, t->buflen, strerror(rc));
		t->buf = p;
	}
	if (!t->ps.err && st_data_pool_init(&t->pool, w->pattern, w->a.run_seed, w->a.rank, t->index,
					     t->buflen))
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
		if (!t->ps.err) {
			if (cmd == CMD_PHASE && is_meta(phase))
				run_meta_phase(t, phase, 0);
			else if (cmd == CMD_PHASE || cmd == CMD_LAYOUT)
				run_data_phase(t, phase, cmd == CMD_LAYOUT);
			else if (cmd == CMD_META_PREP)
				meta_prep(t);
			else if (cmd == CMD_META_CLEAN)
				meta_clean(t);
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
	const struct st_combo *c = a->combo;
	w->a = *a;
	w->e = a->engine;
	w->block = c->v[ST_OPT_BLOCK];
	w->size = c->v[ST_OPT_SIZE];
	w->pattern = c->v[ST_OPT_DATA];
	w->shared = or_default(c->v[ST_OPT_LAYOUT], ST_LAYOUT_FPT) == ST_LAYOUT_SHARED;
	w->strided = or_default(c->v[ST_OPT_ACCESS], ST_ACCESS_SEGMENTED) == ST_ACCESS_STRIDED;
	w->rwmix = or_default(c->v[ST_OPT_RWMIX], 50);
	w->nfiles = or_default(c->v[ST_OPT_FILES], 1000);
	w->file_size = or_default(c->v[ST_OPT_FILE_SIZE], 0);
	w->fanout = or_default(c->v[ST_OPT_FANOUT], 1);
	w->runtime_ns = or_default(c->v[ST_OPT_RUNTIME], 0);
	w->ramp_ns = or_default(c->v[ST_OPT_RAMP], 0);
	w->interval_ns = a->cfg->o[ST_OPT_INTERVAL].v[0];
	w->keep = a->cfg->o[ST_OPT_KEEP].v[0] == ST_ON;
	w->nthreads = a->role == ST_ROLE_CLIENT ? (int)c->v[ST_OPT_THREADS] : 0;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cmd_cv, NULL);
	pthread_cond_init(&w->done_cv, NULL);

	/* a server or idle rank does no client I/O: no engine (with --mount
	 * its host never mounts the target, which may not even exist there) */
	if (a->role != ST_ROLE_CLIENT)
		return w;
	struct st_engine_env env = { .cfg = a->cfg, .combo = c, .rank = a->rank, .eff = &ps->eff,
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
	const char *slash = strrchr(a->run_dir, '/');
	if (slash && w->keep) {
		/* --keep: the combination's directory, under the run's */
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
		return w;
	}

	w->t = calloc((size_t)w->nthreads, sizeof(*w->t));
	w->rank_iv = malloc(sizeof(*w->rank_iv));
	w->iv = calloc(ST_IV_SLOTS, sizeof(*w->iv));
	if (!w->t || !w->rank_iv || !w->iv) {
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

	/* data phases that need a file but come without a write phase: lay out untimed */
	unsigned phases = a->phases;
	if ((phases & ST_PHASES_DATA) && !(phases & (1u << ST_PHASE_WRITE))) {
		command(w, CMD_LAYOUT, ST_PHASE_WRITE);
		command_error(w, ps, "laying out the file");
		for (int i = 0; i < w->nthreads; i++)
			if (w->t[i].res.flags & ST_TF_DIRECT_FALLBACK)
				ps->flags |= ST_TF_DIRECT_FALLBACK;
	}
	/* the metadata phases' directories (and files, without a create phase) */
	if (!ps->err && (phases & ST_PHASES_META)) {
		if (!w->e->dir_open)
			prepare_fail(ps, EOPNOTSUPP, ST_OP_PREPARE, "the %s engine has no metadata "
								    "phases", w->e->name);
		else {
			command(w, CMD_META_PREP, ST_PHASE_CREATE);
			command_error(w, ps, "preparing the metadata files");
		}
	}
	return w;
}

void st_worker_phase_begin(struct st_worker *w, int phase, int64_t release_local_ns)
{
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
 * common timeline, each ending at its width or at the rank's last call. */
static void rank_intervals(struct st_worker *w, const struct st_rank_result *rr)
{
	struct st_iv_series *s = w->rank_iv;
	st_iv_init(s, w->measure_ns, w->interval_ns);
	for (int i = 0; i < w->nthreads; i++)
		st_iv_merge(s, &w->t[i].iv);
	int64_t origin = w->measure_ns - w->a.clock_offset_ns;
	w->niv = 0;
	for (uint32_t k = 0; k < s->n && rr->ops; k++) {
		struct st_interval *x = &w->iv[w->niv++];
		x->t_ns = origin + (int64_t)k * s->width_ns;
		x->end_ns = x->t_ns + s->width_ns;
		if (x->end_ns > rr->end_ns)
			x->end_ns = rr->end_ns > x->t_ns ? rr->end_ns : x->t_ns;
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
		      (bit & (ST_PHASES_READ | 1u << ST_PHASE_STAT | 1u << ST_PHASE_OPEN));
	int owner = reorder ? w->a.partner : w->a.rank;
	for (int i = 0; i < w->nthreads; i++) {
		const struct st_thread_result *r = &w->t[i].res;
		tr[i] = *r;
		rr->bytes += r->bytes;
		rr->ops += r->ops;
		rr->read_bytes += r->read_bytes;
		rr->read_ops += r->read_ops;
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
				if (is_meta(phase)) {
					meta_path(w, owner, i, r->error.offset, path, sizeof(path));
					snprintf(rr->message, sizeof(rr->message), "thread %d: %s %s: %s", i,
						 st_op_names[r->error.op], path, strerror(r->error.err));
				} else {
					data_path(w, owner, i, path, sizeof(path));
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
}

/* "what: ERRNO" appended to left (n bytes), ", " between items */
static void left_add(char *left, size_t n, const char *what, int err)
{
	if (!left || !n)
		return;
	size_t l = strlen(left);
	char e[32];
	snprintf(left + l, n - l, "%s%s: %s", l ? ", " : "", what, st_errno_name(err, e, sizeof(e)));
}

int st_worker_remove_run_dir(const struct st_worker_args *a, int64_t give_up_ns, char *left,
			     size_t n)
{
	if (a->cfg->o[ST_OPT_KEEP].v[0] == ST_ON)
		return 0; /* --keep: the files stay, and so does their directory */
	struct st_effective eff;
	int64_t dl = a->cfg->o[ST_OPT_DEADLINE].v[0];
	struct st_engine_env env = { .cfg = a->cfg, .combo = a->combo, .rank = a->rank,
				     .eff = &eff,
				     .deadline_ns = st_now_ns() + (give_up_ns && give_up_ns < dl ? give_up_ns : dl) };
	void *rs = NULL;
	char msg[200];
	if (left && n)
		left[0] = '\0';
	/* a file whose removal failed after its combination (a soft mount
	 * timing out while the server was away) is removed now: any file this
	 * rank can have made, under the names only this rank uses (and the
	 * shared file, which any rank may remove); a metadata directory still
	 * holding files stays */
	const struct st_optval *threads = &a->cfg->o[ST_OPT_THREADS];
	int64_t most = 0, failed = 0;
	for (int i = 0; i < threads->n; i++)
		most = threads->v[i] > most ? threads->v[i] : most;
	int rc = a->engine->setup(&env, &rs, msg, sizeof(msg));
	if (rc < 0) {
		char what[400], first[ST_STR_MAX];
		st_worker_file_path(a->run_dir, a->rank, 0, first, sizeof(first));
		snprintf(what, sizeof(what), "%s%s (this rank's files, if any: the target did not answer, %s)",
			 first, most > 1 ? ".." : "", msg);
		left_add(left, n, what, -rc);
		return rc;
	}
	for (int64_t i = 0; i < most; i++) {
		char path[ST_STR_MAX];
		st_worker_file_path(a->run_dir, a->rank, (int)i, path, sizeof(path));
		int u = a->engine->unlink(rs, path);
		if (u < 0 && u != -ENOENT) {
			left_add(left, n, path, -u);
			failed = u;
		}
		st_worker_meta_dir(a->run_dir, a->rank, (int)i, path, sizeof(path));
		u = a->engine->rmdir(rs, path);
		if (u < 0 && u != -ENOENT) {
			left_add(left, n, path, -u);
			failed = u;
		}
	}
	char shared[ST_STR_MAX];
	snprintf(shared, sizeof(shared), "%s/shared", a->run_dir);
	int u = a->engine->unlink(rs, shared); /* every rank tries: gone already is fine */
	/* another rank removed the run directory between this rank's lookup of
	 * it and of the file (libnfs: ESTALE; `make demo` named the file left
	 * behind on a clean run): looked up again from the root, it is gone */
	if (u == -ESTALE)
		u = a->engine->unlink(rs, shared);
	if (u < 0 && u != -ENOENT) {
		left_add(left, n, shared, -u);
		failed = u;
	}
	rc = a->engine->rmdir(rs, a->run_dir);
	if (rc == -ESTALE) /* as the shared file: removed by another rank meanwhile */
		rc = a->engine->rmdir(rs, a->run_dir);
	a->engine->teardown(rs);
	/* the directory itself: another rank's files still in it are that
	 * rank's to name; gone already is fine */
	if (rc == -ENOENT || rc == -ENOTEMPTY || rc == -EEXIST)
		rc = 0;
	else if (rc < 0)
		left_add(left, n, a->run_dir, -rc);
	return failed ? (int)failed : rc;
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
				data_path(w, w->a.rank, 0, path, sizeof(path));
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
