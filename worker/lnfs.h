/*
 * lnfs.h - the libnfs engine's own header (worker/engine_libnfs.c, the
 * engine glue, and worker/lnfs_rpc.c, its call pipeline; nothing else
 * includes it): the contexts, the plan one combination runs with, and the
 * raw NFSv3 call pipeline with its invariants.
 *
 * Data path. NFSv3 files are opened through libnfs's high-level API only
 * to learn their file handle (a v3 handle is valid on any connection to the
 * server); every READ, WRITE and COMMIT is then a raw NFSv3 RPC sent by
 * lnfs_rpc.c with its own poll/rpc_service loop, so the size and stability
 * of each call on the wire are exactly what the options say (a short READ
 * or WRITE is sent again for the rest). NFSv4 reads go through libnfs's
 * nfs_pread_async (the raw layer is v3 only), one READ per call.
 *
 * Ownership. libnfs contexts are not thread-safe, so every context has one
 * owner: the rank's own NFSv3 context does mkdir, rmdir and unlink (main
 * thread only); each I/O thread owns its contexts, its call slots and the
 * files it opens, and only that thread touches them.
 */
#ifndef ST_LNFS_H
#define ST_LNFS_H

#include "../common/hist.h"
#include "../common/options.h"
#include "lnfs_url.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sys/time.h> /* libnfs.h needs struct timeval first */

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

/* libnfs's exported calls the engine makes, typed by its headers: loaded at
 * run time (lnfs_lib_load), never linked, so a host without libnfs starts
 * the binary and runs the other engines (issue 19) */
#define LNFS_CALLS(X)                                                                     \
	X(nfs_init_context) X(nfs_destroy_context) X(nfs_parse_url_dir) X(nfs_destroy_url) \
	X(nfs_get_error) X(nfs_set_version) X(nfs_set_autoreconnect) X(nfs_set_timeout)    \
	X(nfs4_set_client_name) X(nfs_mount_async) X(nfs_get_fd) X(nfs_which_events)       \
	X(nfs_service) X(nfs_get_rpc_context) X(nfs_get_readmax) X(nfs_get_writemax)       \
	X(nfs_stat64) X(nfs_access) X(nfs_open2) X(nfs_close) X(nfs_get_fh) X(nfs_mkdir2)  \
	X(nfs_rmdir) X(nfs_unlink) X(nfs_pread_async) X(rpc_get_fd) X(rpc_which_events)    \
	X(rpc_service) X(rpc_disconnect) X(rpc_nfs3_read_async) X(rpc_nfs3_write_async)    \
	X(rpc_nfs3_commit_async) X(rpc_nfs3_lookup_async) X(rpc_nfs3_create_async)         \
	X(rpc_nfs3_mkdir_async) X(rpc_nfs3_getattr_async) X(rpc_nfs3_remove_async)         \
	X(rpc_nfs3_rmdir_async) X(rpc_nfs3_readdirplus_async) X(nfsstat3_to_errno)

#define LNFS_CALL_PTR(f) __typeof__(f) *f;
struct lnfs_lib {
	void *dl; /* dlopen's handle (NULL: not loaded) */
	LNFS_CALLS(LNFS_CALL_PTR)
};
#undef LNFS_CALL_PTR

/* Load libnfs (the soname the headers belong to, LNFS_SONAME): 0, or
 * -errno with one line in why naming the library and what to install. */
int lnfs_lib_load(struct lnfs_lib *l, char *why, size_t n);
void lnfs_lib_unload(struct lnfs_lib *l);

#define LNFS_MAX_CONN ST_NCONNECT_MAX  /* contexts per thread: one may hold --nconnect's all */
#define LNFS_LIBNFS_MAX (1u << 20)     /* libnfs 4.0's largest READ/WRITE */
#define LNFS_POLL_MS 100	       /* libnfs expires calls only inside rpc_service */
#define LNFS_GRACE_NS 2000000000LL     /* past a call's bound before the engine steps in */
#define NS_PER_MS 1000000LL

/* What one combination runs with: the effective settings. */
struct lnfs_plan {
	const struct lnfs_lib *lib; /* the loaded libnfs every context calls */
	struct st_nfs_url u;
	char url[ST_STR_MAX];	/* the --target text (libnfs reads the ports from it) */
	int vers;		/* 3 or 4 */
	int stable;		/* FILE_SYNC (sync) or UNSTABLE (async) */
	int soft;		/* 0 hard, 1 soft */
	int64_t soft_ns;	/* soft: longest wait of one call, ns */
	int64_t timeo;		/* deciseconds */
	int64_t retrans;	/* retransmissions */
	uint32_t rsize, wsize;	/* bytes per READ / WRITE call */
	uint32_t readmax, writemax; /* the server's (libnfs-capped) maxima, bytes */
	int conns;		/* contexts per thread */
	int iodepth;		/* calls in flight per thread */
	int64_t deadline_ns;	/* --deadline: bound of a phase, ns */
};

/* One libnfs context and its connection. */
struct lnfs_conn {
	const struct lnfs_lib *lib; /* its calls (the plan's) */
	struct nfs_context *nfs;    /* NULL: not connected */
	struct rpc_context *rpc; /* its RPC layer (raw calls) */
	int dead;		 /* lost for good (soft): calls on it fail at once */
	int inflight;		 /* calls of ours waiting on it */
};

struct lnfs_rank {
	struct lnfs_lib lib;	/* libnfs, loaded for this rank's combination */
	struct lnfs_plan p;
	struct lnfs_conn ns;	/* NFSv3: mkdir, rmdir, unlink (main thread) */
	int64_t setup_deadline; /* local clock: threads connect by then */
	int rank;		/* MPI rank (NFSv4 client names) */
};

/* What a call on the wire does. The metadata calls name an entry of the
 * file's directory (LOOKUP, CREATE, MKDIR, REMOVE, RMDIR), ask the file's
 * attributes (GETATTR), or list the directory (READDIRPLUS: the next
 * entries after the list's cookie, each with its attributes). */
enum lnfs_call_kind {
	CALL_READ,
	CALL_WRITE,
	CALL_COMMIT,
	CALL_READ4,
	CALL_LOOKUP,
	CALL_CREATE,
	CALL_MKDIR,
	CALL_GETATTR,
	CALL_REMOVE,
	CALL_RMDIR,
	CALL_READDIRPLUS
};

struct lnfs_thread;
struct lnfs_file;

/* A pread or pwrite in progress: what its calls report into. */
struct lnfs_xfer {
	uint64_t end;	 /* off + len */
	uint64_t eof_at; /* lowest offset a read found the end of file at */
	int err;	 /* first error, -errno */
};

/* One read or write the worker asked for (a block: one call, or several of
 * rsize/wsize): timed from its first call's issue to its last call's
 * completion, when the worker wants the times (time_calls). Its calls may
 * outlive the pread/pwrite (read-ahead, write-behind): the record lives
 * until the last is done. */
struct lnfs_blk {
	int64_t issued_ns; /* local clock: its first call was queued */
	int pending;	   /* calls of it not done */
	int err;	   /* one of them failed: not timed */
	int used;	   /* the record is taken */
};

/* One READ, WRITE or COMMIT on the wire. A slot is busy from the moment it
 * is queued until libnfs has called its callback - also when the context
 * is destroyed under it (libnfs then cancels it) - so slots live as long
 * as the thread. */
struct lnfs_call {
	struct lnfs_thread *t;
	struct lnfs_file *f;
	struct lnfs_xfer *x;	  /* the pread/pwrite waiting for it; NULL once returned */
	int busy;		  /* queued, callback not run yet */
	int kind;		  /* CALL_* */
	int conn;		  /* index into the file's contexts */
	uint64_t off;		  /* file offset, bytes */
	uint32_t count;		  /* bytes asked for */
	unsigned char *dst;	  /* READ: where the data goes */
	const unsigned char *src; /* WRITE: the data; NULL once pwrite returned */
	int64_t bound_ns;	  /* local clock: libnfs times the call out by then */
	struct lnfs_blk *blk;	  /* the read or write it is part of (NULL: COMMIT) */
	const char *name;	  /* metadata: the entry of the directory f */
	struct lnfs_file *res;	  /* LOOKUP, CREATE, MKDIR: gets the handle (fh3_len 0: none came) */
	int64_t sent_ns;	  /* local clock: when it was queued (its time on the wire) */
};

/* What one thread's calls of one kind (an NFS operation) did: the engine's
 * own RPC counts, as rpc_stat stores them. */
struct lnfs_kind_stats {
	uint64_t ops;	     /* calls answered (or failed) */
	uint64_t trans;	     /* calls sent, and resent by libnfs after a reconnection */
	uint64_t timeouts;   /* calls libnfs expired */
	uint64_t errors;     /* calls that ended in an error */
	uint64_t bytes_sent; /* payload: WRITE data */
	uint64_t bytes_recv; /* payload: READ data */
	uint64_t time_ns;    /* summed, queued to reply */
	uint64_t file_sync, data_sync, unstable; /* WRITE: calls sent with each stable_how */
	struct st_hist hist; /* each call's time, queued to reply */
};

/* READ, WRITE and COMMIT first: the first ST_RPC_HISTS keep their call
 * times for rpc_stat's histograms (common/wire.h) */
enum {
	LNFS_K_READ,
	LNFS_K_WRITE,
	LNFS_K_COMMIT,
	LNFS_K_LOOKUP,
	LNFS_K_CREATE,
	LNFS_K_MKDIR,
	LNFS_K_GETATTR,
	LNFS_K_REMOVE,
	LNFS_K_RMDIR,
	LNFS_K_READDIRPLUS,
	LNFS_K_COUNT
};

struct lnfs_stats {
	struct lnfs_kind_stats k[LNFS_K_COUNT];
	uint64_t lost;	/* connections lost (rpc_service failed) */
};

/* A block read ahead (--iodepth > 1): its READ is in flight or done, the
 * data waits in buf for the pread of exactly [off, off + len). */
struct lnfs_ra {
	uint64_t off;	    /* file offset, bytes */
	size_t len;	    /* bytes */
	unsigned char *buf; /* len bytes (kept for the next block) */
	size_t cap;	    /* bytes allocated in buf */
	struct lnfs_xfer x; /* what its call found */
	int used;	    /* a prefetch owns this slot */
};

struct lnfs_file {
	struct lnfs_conn *conns;	   /* the contexts its calls go over */
	int nconns;			   /* how many */
	int v4;				   /* read through libnfs's NFSv4 API */
	int layout;			   /* opened for the worker's untimed layout */
	struct nfsfh *h4[LNFS_MAX_CONN];   /* v4: the file opened on each context */
	char fh3[NFS3_FHSIZE];		   /* v3: file handle (good on any context) */
	uint32_t fh3_len;		   /* bytes of fh3 in use */
	int err;			   /* first error of a call whose pwrite returned */
	int uncommitted;		   /* writes answered UNSTABLE since the last COMMIT */
	int have_verf;			   /* verf holds the write verifier */
	int restarted;			   /* the verifier changed: the server restarted */
	char verf[NFS3_WRITEVERFSIZE];
	struct lnfs_ra *ra;		   /* read-ahead slots (iodepth of them), or NULL */
	int nra;
	struct lnfs_list *list;		   /* a directory's listing in progress, or NULL */
};

/* A directory's listing (the readdir phase): the names of the last
 * READDIRPLUS reply ("." and ".." left out), NUL-separated in names[0,
 * len), handed out from pos; where the next call starts (cookie, the
 * server's cookie verifier) and whether the last reply was the end. */
struct lnfs_list {
	char *names;
	size_t len, cap, pos;
	uint64_t cookie;
	char verf[NFS3_COOKIEVERFSIZE];
	int eof;
};

struct lnfs_thread {
	const struct lnfs_rank *r;
	int index;			    /* thread number in the rank */
	struct lnfs_conn io[LNFS_MAX_CONN]; /* contexts of the combination's version */
	int nio;			    /* of them in use (0: v4, not made yet) */
	struct lnfs_conn lay;		    /* vers 4: NFSv3 context for the layout */
	int rr;				    /* round robin: next context */
	struct lnfs_call *calls;	    /* iodepth slots */
	int ncalls;			    /* = iodepth */
	int inflight;	       /* busy slots */
	unsigned events;       /* ST_TF_* met since the engine was last asked */
	int64_t call_deadline; /* local clock: no call waits past this (from open) */
	struct lnfs_blk *blks; /* ncalls + 1 records: each busy one has a call in flight */
	struct st_hist *lat;   /* where each read's and write's time goes (NULL: nowhere) */
	struct lnfs_stats stats; /* its calls since the engine last handed them over */
};

/* ---- contexts (lnfs_rpc.c) ---- */

/* Milliseconds until deadline (local clock), at least 1: libnfs reads 0 or
 * less as "no timeout". */
int lnfs_ms_until(int64_t deadline);

/* Connect and mount `path` (NULL: the URL's) with NFS version vers, giving
 * up at deadline; soft: no reconnection; client: the NFSv4 client name (or
 * NULL). 0, or -errno with one line in msg. The mount is driven by the
 * pipeline's own loop (not libnfs's synchronous nfs_mount), so a server
 * that accepts and never answers, or never accepts, cannot hold it past
 * the deadline. */
int lnfs_conn_open(struct lnfs_conn *c, const struct lnfs_plan *p, const char *path, int vers,
		   int soft, const char *client, int64_t deadline, char *msg, size_t n);

/* Destroy the context (which cancels what is in flight); no UMNT. The
 * connection is then closed (c->nfs NULL). */
void lnfs_conn_close(struct lnfs_conn *c);

/* Bound a synchronous libnfs call (open, close, mkdir...) on c: its RPCs
 * expire at deadline, capped by the soft limit. */
void lnfs_sync_bound(const struct lnfs_plan *p, struct lnfs_conn *c, int64_t deadline);

/* A synchronous call's result, as -errno: libnfs reports an expired RPC as
 * EINTR or EFAULT; say ETIMEDOUT when the bound passed, else EIO. */
int lnfs_sync_result(int rc, int64_t started, int64_t deadline, const struct lnfs_plan *p);

/* ---- the call pipeline (lnfs_rpc.c) ---- */

/* A live context of the file, round-robin; -1 when none is left. */
int lnfs_pick_conn(struct lnfs_thread *t, const struct lnfs_file *f);

/* Read (dst) or write (src) [off, off+len) of f in calls of `size` bytes,
 * kind CALL_READ, CALL_READ4 or CALL_WRITE, at most t->ncalls in flight.
 * Writes return once their last call is queued when iodepth > 1 (an error
 * of such a call comes back from the next call on the file). Bytes done (a
 * read stops at the end of file), or -errno. */
ssize_t lnfs_xfer(struct lnfs_thread *t, struct lnfs_file *f, int kind, unsigned char *dst,
		  const unsigned char *src, size_t len, uint64_t off, uint32_t size);

/* Wait for every call of f, then COMMIT what the server holds unstably.
 * 0 or -errno (the first error of a call, or the COMMIT's). */
int lnfs_settle(struct lnfs_thread *t, struct lnfs_file *f);

/* --iodepth read-ahead: start the READ of [off, off+len) into a slot of f
 * (only a block that fits in one call, only into a free call slot): 0,
 * -EAGAIN when there is no room now, or -errno. */
int lnfs_ra_start(struct lnfs_thread *t, struct lnfs_file *f, size_t len, uint64_t off);

/* The block [off, off+len) when a read-ahead slot has it: waits for its
 * READ, copies it to buf, sets *got (bytes, or -errno) and returns 1;
 * 0 when no slot has that block. */
int lnfs_ra_take(struct lnfs_thread *t, struct lnfs_file *f, void *buf, size_t len, uint64_t off,
		 ssize_t *got);

/* Drop f's read-ahead slots (their calls have been drained). */
void lnfs_ra_free(struct lnfs_file *f);

/* A record for one read or write issued now (NULL when none is free: it is
 * then not timed); it ends, adding its time to t->lat, when its last call
 * is done (lnfs_blk_settle ends one that got no call in flight). */
struct lnfs_blk *lnfs_blk_begin(struct lnfs_thread *t);
void lnfs_blk_settle(struct lnfs_thread *t, struct lnfs_blk *b);
/* One metadata call (CALL_LOOKUP ... CALL_READDIRPLUS) on directory (or,
 * for GETATTR, file) f, waited for: the handle a LOOKUP, CREATE or MKDIR
 * returns goes to res; a READDIRPLUS's entries to f->list. 0 or -errno. */
int lnfs_meta_call(struct lnfs_thread *t, struct lnfs_file *f, int kind, const char *name,
		   struct lnfs_file *res);

#endif
