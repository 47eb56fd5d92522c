/*
 * sampler.h - what a server rank watches while the clients run: CPU
 * (user, system, iowait), bytes per network interface, bytes and ops per
 * disk with its busy share and queue, the CPU of the NFS server process (ganesha.nfsd in this
 * network namespace, or the kernel's nfsd threads) and, where the kernel
 * serves NFS, the calls its nfsd received per operation (metric
 * "nfsd_calls", device "v3 WRITE", "v4 COMMIT", ...: a count over the
 * interval, not a rate; only intervals with calls have a point) and its
 * thread pool (pool_stats).
 *
 * st_sampler_tick reads /proc once and appends one point per metric with
 * the rate over the interval since the previous tick. The first tick only
 * primes the counters (struct st_sample, in wire.h: the points cross MPI).
 * State lives in the handle; nothing is global.
 */
#ifndef ST_SAMPLER_H
#define ST_SAMPLER_H

#include "../common/wire.h"

#include <stddef.h>
#include <stdint.h>

struct st_sampler;

/* A sampler with room for at most max_points points (later ones dropped
 * and counted). NULL when out of memory. */
struct st_sampler *st_sampler_new(size_t max_points);
void st_sampler_free(struct st_sampler *s); /* accepts NULL */

/* The export's own disk: the whole disk that holds path (from its st_dev
 * through /sys/dev/block), whose intervals get a point "export_disk"
 * beside its own, so a verdict can name the disk the export is on and no
 * other. 0, or -1 when path is on no block device (tmpfs) or not here. */
int st_sampler_export(struct st_sampler *s, const char *path);

/* Forget the points (the counters stay primed). */
void st_sampler_reset(struct st_sampler *s);

/* Read /proc now; offset_ns converts the local clock to the common one. */
void st_sampler_tick(struct st_sampler *s, int64_t offset_ns);

const struct st_sample *st_sampler_points(const struct st_sampler *s, size_t *n);

/* Since the last reset: how often the NFS server's processes changed (one
 * that was not there before, or none left: the server restarted or went
 * away); each is also a point "nfsd_restarts". */
int st_sampler_restarts(const struct st_sampler *s);
size_t st_sampler_dropped(const struct st_sampler *s);

/* The kernel NFS server's calls per operation, as /proc/net/rpc/nfsd
 * counts them: "proc3" (the 22 NFSv3 procedures, NULL first) and
 * "proc4ops" (NFSv4 operations by number, all minor versions together). */
#define ST_NFSD_V3_OPS 22
#define ST_NFSD_V4_OPS 76
struct st_nfsd_calls {
	uint64_t v3[ST_NFSD_V3_OPS], v4[ST_NFSD_V4_OPS];
	int have3, have4; /* the line was there */
};

/* Parse the text of /proc/net/rpc/nfsd into *c: 0, or -1 when it holds
 * neither line (no kernel NFS server). A line with fewer counts than it
 * announces, or more than the tables hold, is left out. */
int st_nfsd_calls_parse(const char *text, struct st_nfsd_calls *c);
/* The name of NFSv3 procedure i or NFSv4 operation i (vers 3 or 4) as
 * mountstats spells it (WRITE, COMMIT, ...); NULL when there is none. */
const char *st_nfsd_call_name(int vers, int i);

/* /proc/fs/nfsd/pool_stats summed over its pools into sum: packets
 * arrived, sockets enqueued, threads woken, threads timed out. The number
 * of pools read (0: none; the "#" header is skipped). */
int st_nfsd_pool_parse(const char *text, uint64_t sum[4]);

#endif
