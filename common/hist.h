/*
 * hist.h - mergeable latency histogram with logarithmic buckets.
 *
 * Values are nanoseconds. Values below 8 get a bucket each; above, every
 * power of two is split into 8 linear sub-buckets, so a bucket is at most
 * 12.5 % wide and a percentile read from it is within ~6 % of the truth.
 * Count, sum, min and max are exact. Merging is bucket-wise addition, so
 * per-thread histograms merge into per-rank and per-phase ones exactly.
 * The struct is fixed-width and pointer-free (it crosses MPI).
 */
#ifndef ST_HIST_H
#define ST_HIST_H

#include <stdint.h>

#define ST_HIST_SUB_BITS 3
#define ST_HIST_MAX_EXP 44 /* values up to 2^44 ns (~4.9 h) */
#define ST_HIST_BUCKETS (8 + (ST_HIST_MAX_EXP - ST_HIST_SUB_BITS) * 8)

struct st_hist {
	uint64_t count;	 /* number of values */
	uint64_t sum_ns; /* sum of values, ns */
	uint64_t min_ns; /* smallest value, ns (UINT64_MAX when empty) */
	uint64_t max_ns; /* largest value, ns */
	uint64_t bucket[ST_HIST_BUCKETS];
};

void st_hist_init(struct st_hist *h);
void st_hist_add(struct st_hist *h, uint64_t ns);
void st_hist_merge(struct st_hist *into, const struct st_hist *from);
/* Bucket index of a value, and the [lo, hi] range a bucket covers. */
int st_hist_bucket(uint64_t ns);
void st_hist_bucket_range(int b, uint64_t *lo, uint64_t *hi);
/* Value at quantile q in [0,1] (0 when empty); q = 1 gives the exact max. */
uint64_t st_hist_quantile(const struct st_hist *h, double q);

#endif
