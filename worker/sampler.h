/*
 * sampler.h - what a server rank watches while the clients run: CPU
 * (user, system, iowait), bytes per network interface, bytes and ops per
 * disk, and the CPU of the NFS server process (ganesha.nfsd in this
 * network namespace, or the kernel's nfsd threads).
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

#endif
