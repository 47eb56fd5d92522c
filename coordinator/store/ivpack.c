/*
 * ivpack.c - one rank's intervals of a phase as one row (see ivpack.h).
 */
#include "ivpack.h"

#include "columns.h"
#include "db.h"
#include "rows.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/interval.h"

_Static_assert(ST_IVP_MAX > ST_IV_SLOTS + 1, "interval_seq holds every series and its tail");

/* Mode 'c': four characters of base 94 hold 0 .. 94^4 - 1, a residual
 * plus C_HALF (94^4 / 2); the view subtracts 39037480 (C_HALF and the
 * last character's 32) */
#define C_HALF 39037448LL
_Static_assert(C_HALF * 2 == 94LL * 94 * 94 * 94, "mode c's four characters");

/* Residual i of field f (0 when its text is NULL), as the view reads it
 * (ivpack.h): after the mode character, 'a' one character a residual
 * (code point - 79), 'b' two ((c1 - 32) x 94 + c2 - 32 - 4418), 'c'
 * four (c1 .. c4 - 32 as digits of base 94, less 39037448), 'd' a decimal
 * of (length - 1) / n characters. */
static int64_t residual(const struct st_ivpack *p, int f, int64_t i)
{
	const unsigned char *s = (const unsigned char *)p->text[f];
	if (!s || p->n <= 0 || i < 0 || i >= p->n)
		return 0;
	if (s[0] == 'a')
		return (int64_t)s[1 + i] - 79;
	if (s[0] == 'b')
		return ((int64_t)s[1 + 2 * i] - 32) * 94 + (int64_t)s[2 + 2 * i] - 32 - 4418;
	if (s[0] == 'c') {
		int64_t v = 0;
		for (int k = 0; k < 4; k++)
			v = v * 94 + (int64_t)s[1 + 4 * i + k] - 32;
		return v - C_HALF;
	}
	size_t w = (strlen((const char *)s) - 1) / (size_t)p->n;
	char piece[32];
	if (!w || w >= sizeof(piece))
		return 0;
	memcpy(piece, s + 1 + (size_t)i * w, w);
	piece[w] = '\0';
	return strtoll(piece, NULL, 10);
}

/* a + b x c, as SQLite computes it: -1 where it overflows (SQLite would
 * go on in floating point) */
static int mul_add(int64_t a, int64_t b, int64_t c, int64_t *out)
{
	int64_t m;
	return __builtin_mul_overflow(b, c, &m) || __builtin_add_overflow(a, m, out) ? -1 : 0;
}

int st_ivpack_get(const struct st_ivpack *p, int64_t i, struct st_interval *x)
{
	memset(x, 0, sizeof(*x));
	if (i < 0 || i >= p->n + (p->has_tail != 0))
		return -1;
	int tail = i == p->n;
	int64_t j = tail ? p->n - 1 : i, v, ops, rops, rbytes, wops;
	x->rank = p->rank;
	x->idx = (uint32_t)(p->idx0 + i);
	if (__builtin_add_overflow(p->width_ns, residual(p, ST_IVP_WIDTH, j), &x->width_ns))
		return -1;
	if (tail) {
		x->t_ns = p->last_end_ns;
		x->end_ns = p->tail_end_ns;
		return 0;
	}
	if (mul_add(p->t0_ns, i, p->width_ns, &v) ||
	    __builtin_add_overflow(v, residual(p, ST_IVP_T, i), &x->t_ns))
		return -1;
	if (i == p->n - 1)
		x->end_ns = p->last_end_ns;
	else if (mul_add(p->t0_ns, i + 1, p->width_ns, &v) ||
		 __builtin_add_overflow(v, residual(p, ST_IVP_END, i), &x->end_ns))
		return -1;
	if (__builtin_add_overflow(p->ops0, residual(p, ST_IVP_OPS, i), &ops) ||
	    mul_add(residual(p, ST_IVP_ROPS, i), p->rops_k, ops, &rops) ||
	    mul_add(residual(p, ST_IVP_RBYTES, i), p->rbytes_k, rops, &rbytes) ||
	    (p->wbytes_k ? __builtin_sub_overflow(ops, rops, &wops) : (wops = 0)) ||
	    mul_add(rbytes, p->wbytes_k, wops, &v) ||
	    __builtin_add_overflow(v, residual(p, ST_IVP_WBYTES, i), &v))
		return -1;
	x->ops = (uint64_t)ops;
	x->read_ops = (uint64_t)rops;
	x->read_bytes = (uint64_t)rbytes;
	x->bytes = (uint64_t)v;
	return 0;
}

void st_ivpack_free(struct st_ivpack *p)
{
	for (int f = 0; f < ST_IVP_FIELDS; f++) {
		free((void *)p->text[f]);
		p->text[f] = NULL;
	}
}

/* The residual of field f in record x (index i): what the formula of
 * ivpack.h leaves. -1 where it overflows. */
static int field_residual(const struct st_ivpack *p, int f, int64_t i, const struct st_interval *x,
			  int64_t *r)
{
	int64_t v, ops = (int64_t)x->ops, rops = (int64_t)x->read_ops, wops;
	int64_t rbytes = (int64_t)x->read_bytes, bytes = (int64_t)x->bytes;
	switch (f) {
	case ST_IVP_T:
		return mul_add(p->t0_ns, i, p->width_ns, &v) || __builtin_sub_overflow(x->t_ns, v, r);
	case ST_IVP_END:
		*r = 0;
		return i == p->n - 1 ? 0
				     : mul_add(p->t0_ns, i + 1, p->width_ns, &v) ||
					       __builtin_sub_overflow(x->end_ns, v, r);
	case ST_IVP_WIDTH:
		return __builtin_sub_overflow(x->width_ns, p->width_ns, r);
	case ST_IVP_OPS:
		return __builtin_sub_overflow(ops, p->ops0, r);
	case ST_IVP_ROPS:
		return mul_add(0, p->rops_k, ops, &v) || __builtin_sub_overflow(rops, v, r);
	case ST_IVP_RBYTES:
		return mul_add(0, p->rbytes_k, rops, &v) || __builtin_sub_overflow(rbytes, v, r);
	default:
		/* the view multiplies ops - read_ops only by a factor not 0 */
		if (!p->wbytes_k)
			return __builtin_sub_overflow(bytes, rbytes, r);
		return __builtin_sub_overflow(ops, rops, &wops) ||
		       mul_add(rbytes, p->wbytes_k, wops, &v) || __builtin_sub_overflow(bytes, v, r);
	}
}

/* Field f's text (ivpack.h): its mode, then each record's residual, in
 * one character where all of them lie in -47 .. 46, two in -4418 .. 4417,
 * four in -39037448 .. 39037447 (a fast engine's intervals of a million
 * calls and its last one of a few took decimals of 7 characters), else
 * right-aligned decimals of the widest's width; NULL when all are 0.
 * 0, or -1 (overflow: *over 1; or out of memory). */
static int field_text(struct st_ivpack *p, int f, const struct st_interval *v, int *over)
{
	int w = 0;
	int64_t r, lo = 0, hi = 0;
	char buf[32];
	for (int64_t i = 0; i < p->n; i++) {
		if (field_residual(p, f, i, &v[i], &r))
			return *over = 1, -1;
		int l = r ? snprintf(buf, sizeof(buf), "%" PRId64, r) : 0;
		if (l > w)
			w = l;
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
	}
	if (!w)
		return 0;
	char mode = lo >= -47 && hi <= 46 ? 'a'
		    : lo >= -4418 && hi <= 4417 ? 'b'
		    : lo >= -C_HALF && hi < C_HALF ? 'c' : 'd';
	size_t each = mode == 'a' ? 1 : mode == 'b' ? 2 : mode == 'c' ? 4 : (size_t)w;
	char *s = malloc((size_t)p->n * each + 2);
	if (!s)
		return -1;
	s[0] = mode;
	for (int64_t i = 0; i < p->n; i++) {
		char *o = s + 1 + (size_t)i * each;
		field_residual(p, f, i, &v[i], &r);
		if (mode == 'a') {
			o[0] = (char)(r + 79);
		} else if (mode == 'b') {
			o[0] = (char)((r + 4418) / 94 + 32);
			o[1] = (char)((r + 4418) % 94 + 32);
		} else if (mode == 'c') {
			int64_t u = r + C_HALF;
			for (int k = 3; k >= 0; k--, u /= 94)
				o[k] = (char)(u % 94 + 32);
		} else {
			snprintf(o, each + 1, "%*" PRId64, w, r);
		}
	}
	s[1 + (size_t)p->n * each] = '\0';
	p->text[f] = s;
	return 0;
}

/* The calls' base, the middle of their range, and the multipliers that
 * leave no residual in the common case: a phase's calls of one size each
 * way (0 where none divides). */
static void pick_factors(struct st_ivpack *p, const struct st_interval *v)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	p->rops_k = 1;
	for (int64_t i = 0; i < p->n; i++) {
		lo = (int64_t)v[i].ops < lo ? (int64_t)v[i].ops : lo;
		hi = (int64_t)v[i].ops > hi ? (int64_t)v[i].ops : hi;
		if (v[i].read_ops != v[i].ops)
			p->rops_k = 0;
	}
	/* the middle: residuals of either sign, the fewest characters; rounded
	 * up, as the modes' ranges reach one further below 0 than above it */
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	p->ops0 = (int64_t)((uint64_t)lo + span / 2 + (span & 1));
	for (int64_t i = 0; i < p->n && !p->rbytes_k; i++)
		if ((int64_t)v[i].read_ops > 0 && (int64_t)v[i].read_bytes >= 0 &&
		    (int64_t)v[i].read_bytes % (int64_t)v[i].read_ops == 0)
			p->rbytes_k = (int64_t)v[i].read_bytes / (int64_t)v[i].read_ops;
	for (int64_t i = 0; i < p->n && !p->wbytes_k; i++) {
		int64_t o = (int64_t)(v[i].ops - v[i].read_ops),
			b = (int64_t)(v[i].bytes - v[i].read_bytes);
		if (o > 0 && b >= 0 && b % o == 0)
			p->wbytes_k = b / o;
	}
}

/* The record's fields as the view gives them back, compared. */
static int same(const struct st_interval *a, const struct st_interval *b)
{
	return a->t_ns == b->t_ns && a->end_ns == b->end_ns && a->width_ns == b->width_ns &&
	       a->rank == b->rank && a->idx == b->idx && a->bytes == b->bytes &&
	       a->ops == b->ops && a->read_bytes == b->read_bytes && a->read_ops == b->read_ops;
}

static int texts(struct st_ivpack *p, const struct st_interval *v, char *err, size_t n)
{
	for (int f = 0; f < ST_IVP_FIELDS; f++) {
		int over = 0;
		if (!field_text(p, f, v, &over))
			continue;
		if (!over)
			return st_db_fail(err, n, "store: out of memory");
		/* a multiplier that overflows: the value itself is the residual */
		if (f == ST_IVP_OPS && p->ops0)
			p->ops0 = 0;
		else if (f == ST_IVP_ROPS && p->rops_k)
			p->rops_k = 0;
		else if (f == ST_IVP_RBYTES && p->rbytes_k)
			p->rbytes_k = 0;
		else if (f == ST_IVP_WBYTES && p->wbytes_k)
			p->wbytes_k = 0;
		else
			return st_db_fail(err, n, "store: rank %d's intervals overflow 64 bits",
					  p->rank);
		st_ivpack_free(p);
		f = -1; /* again: a factor changed feeds the later fields */
	}
	return 0;
}

int st_ivpack_make(const struct st_interval *v, size_t m, struct st_ivpack *p, char *err,
		   size_t n)
{
	memset(p, 0, sizeof(*p));
	if (m < 1 || v[0].idx >= ST_IVP_MAX || m > ST_IVP_MAX - v[0].idx)
		return st_db_fail(err, n, "store: rank %d's intervals %u to %zu (at most %d)",
				  m ? v[0].rank : 0, m ? v[0].idx : 0, m ? v[0].idx + m - 1 : 0,
				  ST_IVP_MAX - 1);
	p->idx0 = v[0].idx;
	for (size_t i = 0; i < m; i++)
		if (v[i].idx != v[0].idx + i || v[i].rank != v[0].rank)
			return st_db_fail(err, n,
					  "store: rank %d's interval %zu has index %u (of rank %d): "
					  "not one after the other",
					  v[0].rank, i, v[i].idx, v[i].rank);
	const struct st_interval *z = &v[m - 1];
	p->has_tail = m >= 2 && !z->bytes && !z->ops && !z->read_bytes && !z->read_ops &&
		      z->t_ns == v[m - 2].end_ns && z->width_ns == v[m - 2].width_ns;
	p->n = (int64_t)m - p->has_tail;
	p->tail_end_ns = p->has_tail ? z->end_ns : 0;
	p->rank = v[0].rank;
	p->t0_ns = v[0].t_ns;
	p->width_ns = v[0].width_ns;
	p->last_end_ns = v[p->n - 1].end_ns;
	pick_factors(p, v);
	if (texts(p, v, err, n))
		return -1;
	for (size_t i = 0; i < m; i++) {
		struct st_interval x;
		if (st_ivpack_get(p, (int64_t)i, &x) || !same(&x, &v[i])) {
			st_ivpack_free(p);
			return st_db_fail(err, n, "store: rank %d's interval %zu cannot be packed",
					  p->rank, i);
		}
	}
	return 0;
}

/* ---- schema version 9: the rows of version 4's table, packed ---- */

struct migration {
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct st_interval v[ST_IVP_MAX];
	size_t m;
	int64_t combo;
	char phase[64];
};

static int flush(struct migration *g, char *err, size_t n)
{
	if (!g->m)
		return 0;
	struct st_ivpack p;
	if (st_ivpack_make(g->v, g->m, &p, err, n))
		return -1;
	struct st_row_key key = { .combo_id = g->combo, .phase = g->phase };
	st_bind_interval_pack(g->ins, &key, &p);
	int rc = st_db_step(g->db, g->ins, err, n);
	st_ivpack_free(&p);
	g->m = 0;
	return rc;
}

static int migrate_rows(struct migration *g, sqlite3_stmt *q, char *err, size_t n)
{
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t combo = sqlite3_column_int64(q, 0);
		const char *phase = (const char *)sqlite3_column_text(q, 1);
		int32_t rank = sqlite3_column_int(q, 2);
		for (int c = 0; c < 11; c++)
			if (sqlite3_column_type(q, c) == SQLITE_NULL)
				return st_db_fail(err, n,
						  "store: interval of combination %" PRId64
						  ", rank %d has a NULL %s",
						  combo, rank, sqlite3_column_name(q, c));
		if (g->m && (combo != g->combo || strcmp(phase, g->phase) || rank != g->v[0].rank ||
			     g->m == ST_IVP_MAX))
			if (flush(g, err, n))
				return -1;
		g->combo = combo;
		snprintf(g->phase, sizeof(g->phase), "%s", phase);
		g->v[g->m++] = (struct st_interval){
			.rank = rank,
			.idx = (uint32_t)sqlite3_column_int64(q, 3),
			.t_ns = sqlite3_column_int64(q, 4),
			.end_ns = sqlite3_column_int64(q, 5),
			.width_ns = sqlite3_column_int64(q, 6),
			.bytes = (uint64_t)sqlite3_column_int64(q, 7),
			.ops = (uint64_t)sqlite3_column_int64(q, 8),
			.read_bytes = (uint64_t)sqlite3_column_int64(q, 9),
			.read_ops = (uint64_t)sqlite3_column_int64(q, 10),
		};
	}
	if (rc != SQLITE_DONE)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(g->db));
	return flush(g, err, n);
}

int st_ivpack_migrate(sqlite3 *db, char *err, size_t n)
{
	struct migration *g = calloc(1, sizeof(*g));
	if (!g)
		return st_db_fail(err, n, "store: out of memory");
	g->db = db;
	sqlite3_stmt *q = NULL;
	char *sql = st_row_insert_sql(&st_rows_interval_pack, 1, NULL, 0);
	int rc = -1;
	if (!sql)
		st_db_fail(err, n, "store: out of memory");
	else if (sqlite3_prepare_v2(db, sql, -1, &g->ins, NULL) != SQLITE_OK ||
		 sqlite3_prepare_v2(db,
				    "SELECT combo_id, phase, rank, idx, t_ns, end_ns, width_ns, bytes, "
				    "ops, read_bytes, read_ops FROM interval "
				    "ORDER BY combo_id, phase, rank, idx",
				    -1, &q, NULL) != SQLITE_OK)
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	else if (!migrate_rows(g, q, err, n))
		rc = st_db_exec(db, "DROP TABLE interval", err, n);
	sqlite3_finalize(q);
	sqlite3_finalize(g->ins);
	free(sql);
	free(g);
	return rc;
}
