/*
 * ivpack.h - one rank's intervals of one phase as one row of interval_pack
 * (private to store/; schema version 9, mode 'c' since 10, issue 22): the
 * view `interval` (sql/views.sql) gives the rows back, each as it was given.
 *
 * Record i (idx idx0 + i, i 0 .. n-1) is rebuilt from the row's columns
 * and, per field, a residual: the i-th of the field's equal-width pieces
 * of its text, after a mode character: 'a' one character a residual (its
 * code point - 79: -47 .. 46), 'b' two ((c1 - 32) x 94 + c2 - 32 - 4418:
 * -4418 .. 4417), 'c' four (c1 .. c4 - 32 as the digits of a number in
 * base 94, less 39037448: -39037448 .. 39037447), 'd' a signed decimal
 * right-aligned in spaces, (length - 1) / n characters each. Every
 * character is printable ASCII (32 .. 125).
 * NULL text: every residual is 0, and nothing is stored for it:
 *   t_ns       t0_ns + i x width_ns + r_t
 *   end_ns     t0_ns + (i + 1) x width_ns + r_end; the last: last_end_ns
 *   width_ns   width_ns + r_width
 *   ops        ops0 + r_ops
 *   read_ops   rops_k x ops + r_rops
 *   read_bytes rbytes_k x read_ops + r_rbytes
 *   bytes      read_bytes + wbytes_k x (ops - read_ops) + r_wbytes
 * The intervals the worker makes leave every residual 0 but the ops' (a
 * phase's calls of one size): one or two bytes an interval. When tail_end_ns is
 * not NULL a record n follows, the phase's tail: idx n, from last_end_ns to
 * tail_end_ns, width_ns as record n-1's, no calls.
 *
 * Invariant: st_ivpack_make checks that the row gives back every record
 * exactly, with the arithmetic the view does (none of it overflows, which
 * in SQL would turn an integer into a real); what it cannot keep exactly
 * it refuses with a message, never stores otherwise.
 */
#ifndef ST_IVPACK_H
#define ST_IVPACK_H

#include "../../common/wire.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The fields with a residual text, in the order of st_ivpack.text. */
enum { ST_IVP_T, ST_IVP_END, ST_IVP_WIDTH, ST_IVP_OPS, ST_IVP_ROPS, ST_IVP_RBYTES, ST_IVP_WBYTES,
       ST_IVP_FIELDS };

/* The records a row holds at most, its tail included: interval_seq's rows
 * (sql/schema.sql), more than a series ever has (common/interval.h). */
#define ST_IVP_MAX 1024

/* One row of interval_pack (key: combo_id, phase). */
struct st_ivpack {
	int32_t rank;
	int64_t idx0; /* the first record's idx (0 but in tests) */
	int64_t n;    /* records but the tail */
	int64_t t0_ns, width_ns, last_end_ns;
	int64_t tail_end_ns; /* has_tail: the tail's end */
	int32_t has_tail;
	int64_t ops0, rops_k, rbytes_k, wbytes_k;
	const char *text[ST_IVP_FIELDS]; /* malloc'd; NULL: every residual 0 */
};

/* Pack v[0 .. m) (m >= 1): one rank's records in order of idx, 0 .. m-1,
 * the last one perhaps its tail (no calls, from the record before's end,
 * of its width). 0, or -1 with err (p holds nothing to free). */
int st_ivpack_make(const struct st_interval *v, size_t m, struct st_ivpack *p, char *err,
		   size_t n);

/* Record i of p (0 .. n - 1 + has_tail) as the view gives it. 0, or -1 when
 * the view's arithmetic would overflow there. */
int st_ivpack_get(const struct st_ivpack *p, int64_t i, struct st_interval *x);

void st_ivpack_free(struct st_ivpack *p);

/* Schema version 9's migration: every row of the table `interval` into
 * interval_pack, then the table dropped (the caller's transaction; the view
 * of that name comes with the views). 0, or -1 with err. */
int st_ivpack_migrate(sqlite3 *db, char *err, size_t n);

#endif
