/*
 * engine.h - the one I/O engine interface.
 *
 * An engine is a const table of function pointers with a name and the one
 * capability flag the core reads; all engines are registered in
 * st_engines[] (engines.c: the only place an optional engine's #ifdef
 * lives) and checked once when one is chosen. What only one engine needs
 * stays with it: the posix engine's system-call seam is engine_posix.h,
 * the nfs:// parser lnfs_url.h. Engines keep their state in handles: a rank state made by
 * setup() for one combination, and a thread state per I/O thread, owned by
 * that thread (libnfs contexts are not thread-safe). Paths are relative to
 * the target; an engine never touches anything outside it.
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
#include <sys/types.h>

#define ST_EC_NEEDS_TARGET_DIR 0x1u /* target is a local path that must exist */

#define ST_OPEN_READ 0x1u
#define ST_OPEN_WRITE 0x2u
#define ST_OPEN_CREATE 0x4u /* create, truncate */
#define ST_OPEN_DIRECT 0x8u /* bypass the client cache */
#define ST_OPEN_LAYOUT 0x10u /* untimed set-up write: any way that works may be used */

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
	unsigned caps;	  /* ST_EC_* */

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

extern const struct st_engine *const st_engines[];

/* The engine of that name, or NULL. */
const struct st_engine *st_engine_find(const char *name);

/* Why this build has no engine of that name (an optional one it was built
 * without), or NULL. */
const char *st_engine_left_out(const char *name);

/* 0 when every entry of e is filled in; otherwise -1 with the missing one. */
int st_engine_check(const struct st_engine *e, const char **missing);

extern const struct st_engine st_engine_posix;
extern const struct st_engine st_engine_null;
extern const struct st_engine st_engine_libnfs;

#endif
