/*
 * engine.h - the one I/O engine interface.
 *
 * An engine is a const table of function pointers with a name, its
 * capability flags and the classes of options it takes (ST_NEEDS_* of
 * common/options.h: the options table names no engine, each engine says
 * what it takes here); all engines are registered in st_engines[]
 * (engines.c: the only place an optional engine's #ifdef lives), and
 * st_engine_choose picks the one --engine names and checks the options
 * against what it takes, once, before anything runs. What only one engine
 * needs stays with it: the posix engine's system-call seam is
 * engine_posix.h, the nfs:// parser lnfs_url.h. Engines keep their state
 * in handles: a rank state made by setup() for one combination, and a
 * thread state per I/O thread, owned by that thread (libnfs contexts are
 * not thread-safe). Paths are relative to the target; an engine never
 * touches anything outside it.
 *
 * Every call returns 0 (or a byte count) on success and -errno on failure;
 * setup/thread_init also write one line of text into msg.
 */
#ifndef ST_ENGINE_H
#define ST_ENGINE_H

#include "../common/options.h"
#include "../common/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define ST_EC_NEEDS_TARGET_DIR 0x1u /* target is a local path that must exist */
#define ST_EC_NO_TARGET 0x2u	    /* runs without --target (it does no I/O on one) */

#define ST_OPEN_READ 0x1u
#define ST_OPEN_WRITE 0x2u
#define ST_OPEN_CREATE 0x4u /* create, truncate */
#define ST_OPEN_DIRECT 0x8u /* bypass the client cache */
#define ST_OPEN_LAYOUT 0x10u /* untimed set-up write: any way that works may be used */
#define ST_OPEN_SHARED 0x20u /* with CREATE: others open the file at once: create, never truncate */

/* Metadata operations (the metadata phases; engine.meta). */
enum st_meta_op { ST_META_CREATE, ST_META_STAT, ST_META_OPEN, ST_META_REMOVE, ST_META_RMDIR,
		  ST_META_MKDIR };
#define ST_META_FSYNC 0x1u   /* CREATE: fsync the data before close */
#define ST_META_CLEANUP 0x2u /* RMDIR: the untimed cleanup's, not a phase's */

/* One request of an engine's queue (aio_* below). The worker fills the
 * first four fields and issued_ns; the engine sets res and done_ns when it
 * completes. buf is the worker's: block-sized and 4096-aligned, not touched
 * by the engine once the request is reaped. */
struct st_aio_req {
	void *buf;	   /* the data */
	size_t len;	   /* bytes */
	uint64_t off;	   /* file offset, bytes */
	int write;	   /* 1 write, 0 read */
	ssize_t res;	   /* bytes moved (short: the end of file, or err), or -errno */
	int err;	   /* errno that cut a transfer short after some bytes, else 0 */
	int64_t issued_ns; /* local clock: when the worker queued it */
	int64_t done_ns;   /* local clock: when the engine saw it complete */
	size_t done;	   /* engine's: bytes moved so far (a short transfer goes on) */
	void *slot;	   /* engine's: its own handle of the request */
};

/* What an engine gets to set itself up for one combination on one rank. */
struct st_engine_env {
	const struct st_config *cfg;	  /* run options */
	const struct st_combo *combo;	  /* this combination */
	int rank;			  /* MPI rank */
	struct st_effective *eff;	  /* out: what the options really are */
	int64_t deadline_ns;		  /* local clock: give up connecting after this */
};

struct st_engine {
	const char *name; /* as given to --engine */
	const char *help; /* one line: what it is, for --help and the man page */
	unsigned caps;	  /* ST_EC_* */
	/* The option classes (ST_NEEDS_*) it applies itself, and those it
	 * applies once --mount has mounted --target for it (the mount driver
	 * hands them to mount(8)); an option of any other class is refused. */
	unsigned takes, takes_mounted;

	/* The phases (mask of 1u << ST_PHASE_*) this engine cannot run for
	 * combination c, and why; 0 = all. A pure function of its arguments, so
	 * every rank gives the same answer. NULL: the engine runs everything. */
	unsigned (*unsupported)(const struct st_config *cfg, const struct st_combo *c, char *why,
				size_t n);

	/* Rank 0, before anything is created: is --target usable (for an engine
	 * without ST_EC_NEEDS_TARGET_DIR)? 0, or -1 with one line in err naming
	 * the option and the value. Must end within the given deadline. NULL:
	 * nothing to check. */
	int (*validate)(const struct st_config *cfg, int64_t deadline_ns, char *err, size_t n);

	/* Can it run on this host (a library it loads at run time is there)?
	 * 0, or -1 with why ("libnfs.so.13 not found ..."): --help says so.
	 * NULL: always. */
	int (*available)(char *why, size_t n);

	int (*setup)(const struct st_engine_env *env, void **rank_state, char *msg, size_t n);
	void (*teardown)(void *rank_state); /* accepts NULL */
	int (*thread_init)(void *rank_state, int thread, void **thread_state, char *msg,
			   size_t n);
	void (*thread_fini)(void *thread_state); /* accepts NULL */

	/* Open path; *direct_used says whether the cache bypass was granted. */
	int (*open)(void *ts, const char *path, unsigned flags, void **fh, int *direct_used);
	ssize_t (*pwrite)(void *ts, void *fh, const void *buf, size_t len, uint64_t off);
	ssize_t (*pread)(void *ts, void *fh, void *buf, size_t len, uint64_t off);
	int (*fsync)(void *ts, void *fh);
	int (*close)(void *ts, void *fh);

	/* Optional (NULL: none). Start reading [off, off+len) now, so that with
	 * --iodepth N a thread keeps N calls in flight across blocks: the worker
	 * announces the blocks it will read next (in its order, sequential or
	 * random), and a later pread of exactly that range takes the data. 0,
	 * -EAGAIN when the engine has no room now (the block is then simply read
	 * when its turn comes), or -errno. close() discards what was not taken. */
	int (*prefetch)(void *ts, void *fh, size_t len, uint64_t off);

	/* Optional (NULL: the worker times each call itself, from before the
	 * call to its return). An engine whose calls stay in flight past their
	 * pread/pwrite (read-ahead, write-behind) times them itself: until told
	 * otherwise it adds each read's and write's issue-to-completion time
	 * (ns) to h, NULL: stop. The worker calls it before a phase opens its
	 * file and after it closes it; h lives as long. */
	void (*time_calls)(void *ts, struct st_hist *h);

	/* Optional, all or none: a queue that keeps --iodepth N > 1 requests
	 * of a thread in flight, each in a buffer of the worker's own (see
	 * struct st_aio_req). aio_init makes one for the calling I/O thread: 0
	 * with *q and mode saying what it is ("io_uring fixed"), or -errno when
	 * the engine cannot here, mode saying why (the worker then issues one
	 * call at a time). bufs holds the worker's depth buffers, stride bytes
	 * apart (4096-aligned), alive until aio_fini; every request's buf is the
	 * start of one of them, so the engine may register them with the kernel
	 * once. aio_submit queues one request of file fh (the queue sends
	 * it at the next reap): 0 or -errno. aio_reap sends what is queued and
	 * waits for at least min completions (fewer only when fewer are in
	 * flight), puts up to max of them in done: how many, or -errno.
	 * aio_file_done (fh about to be closed, nothing of it in flight) says
	 * what served fh's requests in mode ("io_uring", or a fallback and
	 * why) and forgets fh. aio_fini accepts NULL. */
	int (*aio_init)(void *ts, int depth, void *bufs, size_t stride, void **q, char *mode,
			size_t n);
	int (*aio_submit)(void *q, void *fh, struct st_aio_req *r);
	int (*aio_reap)(void *q, int min, struct st_aio_req **done, int max);
	void (*aio_file_done)(void *q, void *fh, char *mode, size_t n);
	void (*aio_fini)(void *q);
	/*
	 * The metadata phases (optional, all three or none: st_engine_check
	 * refuses an engine with some; one with none has its metadata phases
	 * skipped, st_engine_unsupported says so, and the worker never calls
	 * them). Thread calls, on the thread state. A directory
	 * handle names a directory: `name` relative to the target (parent
	 * NULL), or the entry `name` of parent's directory; create: make it
	 * first (an existing one: -EEXIST). dir_close accepts NULL.
	 */
	int (*dir_open)(void *ts, void *parent, const char *name, int create, void **dh);
	void (*dir_close)(void *ts, void *dh);
	/*
	 * One operation on the entry `name` of directory dh, as a client's
	 * system call would do it:
	 *   ST_META_CREATE  create the file (it must not exist), write len
	 *                   bytes of buf (0: none), fsync with ST_META_FSYNC,
	 *                   close: len
	 *   ST_META_STAT    its attributes: 0
	 *   ST_META_OPEN    open it, read up to len bytes into buf, close: the
	 *                   bytes read
	 *   ST_META_REMOVE  unlink it: 0
	 *   ST_META_RMDIR   remove the empty directory `name`: 0
	 *   ST_META_MKDIR   make the directory `name` (it must not exist): 0
	 * or -errno.
	 */
	ssize_t (*meta)(void *ts, void *dh, int op, const char *name, void *buf, size_t len,
			unsigned flags);
	/* Optional (NULL: none; the readdir phase is then skipped, and
	 * st_engine_unsupported says so). The next entry of directory dh's
	 * listing, "." and ".." left out, with its attributes fetched as `ls -l`
	 * fetches them: 1 with its name in name, 0 at the end, or -errno. The
	 * first call on a handle starts its one listing at the beginning.
	 * want: entries the worker still expects there; an engine that keeps
	 * no files (null) lists that many, the others what the directory holds. */
	int (*dir_next)(void *ts, void *dh, uint64_t want, char *name, size_t n);
	/* Optional (NULL: none). The ST_TF_* flags of what this thread's calls
	 * met since it was last asked (the worker asks after each phase's
	 * close): ST_TF_SERVER_RESTART when the server's write verifier changed,
	 * that is, it restarted during the phase (its figure then includes the
	 * outage). */
	unsigned (*events)(void *ts);
	/* Optional (NULL: the engine counts no RPCs of its own). Add what this
	 * thread's calls did since the last call (lnfs: per READ, WRITE and
	 * COMMIT) into `into` - whose header and histograms st_worker_rpc set
	 * up - and start counting afresh; into NULL: forget it. Only between
	 * phases, while the thread is idle (the worker's command lock orders
	 * it after the thread's last call). */
	void (*thread_rpc)(void *thread_state, struct st_rpc_result *into);

	/* Name-space operations of the rank (main thread only). */
	int (*mkdir)(void *rank_state, const char *path);
	int (*rmdir)(void *rank_state, const char *path);
	int (*unlink)(void *rank_state, const char *path);
};

/* Every engine of this build, NULL-terminated; the first is the default. */
extern const struct st_engine *const st_engines[];

/* The engine of that name, or NULL. */
const struct st_engine *st_engine_find(const char *name);

/*
 * The engine cfg names (--engine; not given: st_engines[0]) and whether the
 * options suit it: st_config_check's checks, then --target when the engine
 * needs one, then every option given other than its default whose class
 * (st_opt_def.needs) the engine does not take. 0 with *e set, or -1 with
 * one line in err naming the option, its value and the engines that take
 * it. A pure function of cfg, so every rank comes to the same answer.
 */
int st_engine_choose(const struct st_config *cfg, const struct st_engine **e, char *err,
		     size_t n);

/* --help's list of the engines: name and help, a line each (and those this
 * build left out, saying why). */
void st_engines_help(FILE *out);

/* The engines of this build that take an option of class mask `needs`, as a
 * message lists them: "posix with --mount, null or libnfs" ("" when none). */
void st_engine_takers(unsigned needs, char *buf, size_t n);

/* Why this build has no engine of that name (an optional one it was built
 * without), or NULL. */
const char *st_engine_left_out(const char *name);

/* 0 when every entry of e is filled in (of an optional group, all or
 * none); otherwise -1 with the missing one. */
int st_engine_check(const struct st_engine *e, const char **missing);

/* 1 when e has the metadata calls (dir_open, dir_close, meta). */
int st_engine_has_meta(const struct st_engine *e);

/* The phases among `phases` (1u << ST_PHASE_*) engine e cannot run for
 * combination c, and why in one line ("" when none): the metadata phases
 * when it has no metadata calls, then what its unsupported() says. A pure
 * function of its arguments, so every rank gives the same answer. */
unsigned st_engine_unsupported(const struct st_engine *e, const struct st_config *cfg,
			       const struct st_combo *c, unsigned phases, char *why, size_t n);

extern const struct st_engine st_engine_posix;
extern const struct st_engine st_engine_null;
extern const struct st_engine st_engine_libnfs;

#endif
