/*
 * interval.h - throughput over time: bytes and calls per interval.
 *
 * Every I/O thread keeps a series of at most ST_IV_SLOTS intervals of one
 * width from an origin (the start of the phase's figures); a call counts
 * in the interval its end falls in. When a phase outgrows the slots, the
 * series merges them ten at a time and goes on ten times wider, so memory
 * stays bounded whatever the phase's length: with the default 100 ms,
 * intervals are 100 ms for a minute, then 1 s up to ten minutes, 10 s up
 * to 100 minutes. Widths are always --interval x 10^k, so series of
 * different widths (threads, ranks) merge exactly into the wider one.
 *
 * Plain C, no state; the wire form of one rank's interval is
 * struct st_interval (wire.h).
 */
#ifndef ST_INTERVAL_H
#define ST_INTERVAL_H

#include "wire.h"

#include <stddef.h>
#include <stdint.h>

#define ST_IV_SLOTS 600 /* intervals a series holds before it widens them */

struct st_iv_slot {
	uint64_t bytes;	     /* moved by the calls that ended in it */
	uint64_t ops;	     /* those calls */
	uint64_t read_bytes; /* of them, read */
	uint64_t read_ops;
};

struct st_iv_series {
	int64_t origin_ns; /* start of interval 0 (any one clock: the caller's) */
	int64_t width_ns;  /* of every interval */
	uint32_t n;	   /* intervals in use: the last one with a call, + 1 */
	struct st_iv_slot s[ST_IV_SLOTS];
};

/* An empty series from origin in intervals of width (> 0). */
void st_iv_init(struct st_iv_series *s, int64_t origin_ns, int64_t width_ns);

/* A call that ended at end_ns (>= origin; earlier counts in interval 0). */
void st_iv_add(struct st_iv_series *s, int64_t end_ns, uint64_t bytes, int read);

/* Widen s to `width` (width_ns x 10^k, >= width_ns): merge intervals. */
void st_iv_widen(struct st_iv_series *s, int64_t width);

/* Add `from` (the same origin) into `into`; both end at the wider width. */
void st_iv_merge(struct st_iv_series *into, struct st_iv_series *from);

/* Rank 0: the intervals of every rank, gathered rank after rank (each
 * rank's in order of idx, of one width): every rank's widened to the
 * widest, in place. Returns how many remain. */
size_t st_iv_normalize(struct st_interval *v, size_t n);

#endif
