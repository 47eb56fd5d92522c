/*
 * sampler.h - what a server rank watches while the clients run: CPU
 * (user, system, iowait), bytes per network interface, bytes and ops per
 * disk, and the CPU of the NFS server process (ganesha.nfsd in this
 * network namespace, or the kernel's nfsd threads).
 *
 * st_sampler_tick reads /proc once and appends one point per metric with
 * the rate over the interval since the previous tick. The first tick only
 * primes the counters. State lives in the handle; nothing is global.
 */
#ifndef ST_SAMPLER_H
#define ST_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

/* One sampled value: a rate over the interval ending at t_ns. Crosses MPI. */
struct st_sample {
	int64_t t_ns;	  /* end of the interval, common timeline (ns) */
	int32_t rank;	  /* MPI rank that sampled (set by the job) */
	int32_t pad;
	char metric[24];  /* cpu_user_pct, cpu_sys_pct, cpu_iowait_pct, net_rx_mbps,
			     net_tx_mbps, disk_read_mbps, disk_write_mbps,
			     disk_read_iops, disk_write_iops, nfsd_cpu_pct */
	char device[24];  /* interface or disk; "" for host-wide metrics */
	double value;	  /* percent of all CPUs, or 10^6 bytes/s, or ops/s */
};

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
size_t st_sampler_dropped(const struct st_sampler *s);

#endif
