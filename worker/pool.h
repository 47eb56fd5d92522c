/*
 * pool.h - the worker's own header (worker/worker.c, the pool of pinned
 * I/O threads and its commands; phase.c and phase_meta.c, the phase loops
 * each thread runs; rundir.c, the names of a rank's files and their
 * removal; nothing else includes it).
 *
 * Ownership. The calling (MPI) thread owns struct st_worker and gives
 * commands; each I/O thread owns its struct io_thread, and only that
 * thread touches it while a command runs (the main thread reads the
 * results once command_wait says every thread is done, and `live` at any
 * time, relaxed). The I/O threads never touch MPI.
 */
#ifndef ST_POOL_H
#define ST_POOL_H

#include "worker.h"

#include "../common/data.h"
#include "../common/interval.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

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
	struct st_data_pool pool;    /* the base words of its file's bytes (none: zero) */
	char cpuset[64];	     /* binding it got */
	struct st_prepare_status ps; /* how its preparation went */
	_Atomic uint64_t live;	     /* bytes so far in this phase (progress only) */
	int counted;		     /* a call of this phase counted (past --ramp) */
	int64_t first_ns;	     /* when that call started, local clock */
	int64_t last_ns;	     /* when the last call counted ended, local clock */
	int wear;		     /* --stonewall wearout: 1 at the stop, waiting; 2 going on */
	uint64_t stop_calls;	     /* its calls at the end of --runtime (wear) */
	uint64_t meta_lo, meta_hi;   /* its metadata files f<lo> .. f<hi-1> exist */
	uint64_t mdir_lo, mdir_hi;   /* and its directories m<lo> .. m<hi-1> (mkdir) */
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
	const struct st_combo *base;  /* the combination (a.combo: the phase's while one runs) */
	struct st_combo pc;	      /* the phase's: base with its own values (phaseopt.h) */
	int64_t block, size;	      /* bytes (block: the phase's) */
	int64_t max_block;	      /* the largest block of any phase: the buffers' size */
	int64_t pattern;	      /* --data (common/data.h) */
	uint64_t dedupe_unit;	      /* --dedupe-unit (unset: the block) */
	uint64_t compress_chunk;      /* --compress-chunk (unset: the block) */
	int shared, strided;	      /* --layout shared, --access strided */
	int64_t rwmix;		      /* mixed phases: % of calls that read */
	int64_t nfiles, file_size;    /* metadata: files per thread, bytes each */
	int64_t fanout;		      /* metadata: subdirectories per level of the tree */
	int depth;		      /* metadata: levels of the tree (0: none; <= ST_META_DEPTH_MAX) */
	int64_t leaves;		      /* fanout^depth */
	int shared_dir;		      /* metadata: --dir-mode shared */
	int64_t runtime_ns, ramp_ns;  /* 0: not asked */
	int64_t interval_ns;	      /* --interval */
	int keep;		      /* --keep on: leave the files */
	int dir_made;		      /* this rank created run_dir */
	int files_made;		      /* threads may have created data files */
	int laid_out;		      /* the files were laid out to --size in preparation */
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
	int wearout;		/* --stonewall wearout: go on after --runtime to wear_target */
	int at_stop;		/* wearout: threads waiting at the end of --runtime (mu) */
	_Atomic int64_t wear_target; /* wearout: calls each thread goes on to (-1: not yet) */
	int busy;		/* threads still working on the command */
	int phase_started;	/* the phase begun by st_worker_phase_begin */
	int64_t release_ns;	/* its barrier release, local clock */
	int64_t cpu_user0, cpu_sys0; /* process CPU at its start, us */
	struct st_iv_series *rank_iv; /* the threads' series merged */
	struct st_interval *iv;	      /* the rank's intervals of the last phase */
	size_t niv;
};

static inline int64_t pool_or_default(int64_t v, int64_t def)
{
	return v == ST_UNSET ? def : v;
}

static inline int pool_is_meta(int phase)
{
	return ((1u << phase) & ST_PHASES_META) != 0;
}

/* ---- what every phase loop shares (phase.c) ---- */

/* The first error of a phase into r (op ST_OP_*, off its offset or file
 * number); every error counts. */
void pool_set_error(struct st_thread_result *r, int err, int op, int phase, uint64_t off);

/* A thread's result for a phase, before its first call. */
void pool_result_begin(struct io_thread *t, int phase);

/* A call is over, from t0 to t1 (local clock): into the figures, unless it
 * started inside the ramp. */
void pool_account(struct io_thread *t, int64_t t0, int64_t t1, uint64_t bytes, int read);

/* The bytes of a write at off of this thread's file (len bytes). */
const unsigned char *pool_make_data(struct io_thread *t, uint64_t off, size_t len);

/* What the bytes of (owner, thread)'s file are made of. */
struct st_data_key pool_data_key(const struct st_worker *w, int owner, int thread);

/* --verify: how many words of a read of (owner, thread)'s file at off differ
 * from what was written there (0: all match). */
uint64_t pool_check(struct io_thread *t, const void *buf, size_t len, int owner, uint64_t off);

/* Times of a phase into the result, on the common timeline. */
void pool_result_end(struct io_thread *t, int64_t start, int64_t end, int ramped);

/* The data file a thread of `owner` works on. */
void pool_data_path(const struct st_worker *w, int owner, int thread, char *buf, size_t n);

/* ---- the phase loops ---- */

/* The one data phase loop (phase.c); layout: the untimed set-up write. */
void pool_data_phase(struct io_thread *t, int phase, int layout);

/* The one metadata phase loop (phase_meta.c); untimed: preparation or
 * cleanup. An engine without the metadata calls gets none: EOPNOTSUPP. */
void pool_meta_phase(struct io_thread *t, int phase, int untimed);
/* The thread's metadata directories (and files, without a create phase);
 * an error is left in t->res. */
void pool_meta_prep(struct io_thread *t);
/* What is left of them after the combination, best effort. */
void pool_meta_clean(struct io_thread *t);
/* File i (directory i, in a directory phase) of (owner, thread), as a path
 * for messages. */
void pool_meta_path(const struct st_worker *w, int phase, int owner, int thread, uint64_t i,
		    char *buf, size_t n);

#endif
