/*
 * srvopts.h - the server options (--server-threads, --server-export) on a
 * host that runs the kernel's NFS server (knfsd): applied by the server
 * rank before the clients mount, read back, and the server's own settings
 * restored at the end.
 *
 * The pure part parses `exportfs -v` text. The adapter writes
 * /proc/fs/nfsd/threads and runs exportfs(8) through posix_spawn with an
 * argument vector (never a shell); it needs root. The first change records
 * what the server had (its thread count, the export's client and options),
 * and st_srv_restore puts exactly that back, only what was changed.
 *
 * Every function returns 0 or a negative errno value, with one line in msg
 * on failure.
 */
#ifndef ST_SRVOPTS_H
#define ST_SRVOPTS_H

#include "../common/options.h"
#include "../common/wire.h"

#include <stddef.h>
#include <stdint.h>

#define ST_NFSD_THREADS_FILE "/proc/fs/nfsd/threads"

/* What a server host had before the first change, and what was changed. */
struct st_srv_state {
	int threads_saved;	/* threads holds the server's own count */
	int64_t threads;
	int export_saved;	/* path, client, opts hold the export as it was */
	char path[256];		/* the export's path on the server */
	char client[128];	/* its client as exportfs -o takes it ("*" for <world>) */
	char opts[512];		/* its options as exportfs -v showed them */
};

/* The export of the exportfs -v text that holds path (the longest export
 * path that is path or a directory above it): its path, client and
 * options. 0, or -ENOENT when no export holds path. */
int st_exportfs_find(const char *text, const char *path, char *epath, size_t en, char *client,
		     size_t cn, char *opts, size_t on);

/* The export path the clients of this run use: --server-dir, else the
 * path of --mount SOURCE (server:/path), else that of an nfs:// --target;
 * "" when the run names none. */
void st_srv_export_path(const struct st_config *cfg, char *buf, size_t n);

/* Combination c's server options on this host (rank and hostname for the
 * message): writes the thread count, re-exports the export holding path
 * with the options given over its own, and reads back what is in force
 * into eff (eff->v[ST_OPT_SERVER_THREADS], eff->server_export). */
int st_srv_apply(struct st_srv_state *s, const struct st_config *cfg, const struct st_combo *c,
		 const char *path, struct st_effective *eff, char *msg, size_t n);

/* Put back what st_srv_apply changed (nothing when it changed nothing). */
int st_srv_restore(struct st_srv_state *s, char *msg, size_t n);

#endif
