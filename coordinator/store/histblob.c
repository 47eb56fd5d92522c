/*
 * histblob.c - the sparse encoding of stored latency histograms, and the SQL
 * function that reads both encodings (see histblob.h).
 */
#include "histblob.h"

#include <stdint.h>
#include <string.h>

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* The varint at *p (before end) into *v: 0, or -1 when it runs past end or past 64 bits. */
static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		unsigned char b = *(*p)++;
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

size_t st_histblob_encode(const struct st_hist *h, unsigned char *buf)
{
	unsigned char *p = buf;
	p = put_varint(p, h->count);
	p = put_varint(p, h->sum_ns);
	p = put_varint(p, h->min_ns);
	p = put_varint(p, h->max_ns);
	int prev = -1;
	for (int b = 0; b < ST_HIST_BUCKETS; b++)
		if (h->bucket[b]) {
			p = put_varint(p, (uint64_t)(b - prev));
			p = put_varint(p, h->bucket[b]);
			prev = b;
		}
	return (size_t)(p - buf);
}

int st_histblob_decode(const void *blob, size_t len, int enc, struct st_hist *h)
{
	if (enc == 0) {
		if (!blob || len != sizeof(*h))
			return -1;
		memcpy(h, blob, sizeof(*h));
		return 0;
	}
	if (enc != ST_HISTBLOB_SPARSE || !blob)
		return -1;
	const unsigned char *p = blob, *end = p + len;
	memset(h, 0, sizeof(*h));
	if (get_varint(&p, end, &h->count) || get_varint(&p, end, &h->sum_ns) ||
	    get_varint(&p, end, &h->min_ns) || get_varint(&p, end, &h->max_ns))
		return -1;
	uint64_t total = 0;
	int64_t at = -1;
	while (p < end) {
		uint64_t d, c;
		if (get_varint(&p, end, &d) || get_varint(&p, end, &c) || d == 0 || c == 0 ||
		    d > (uint64_t)(ST_HIST_BUCKETS - 1 - at))
			return -1;
		at += (int64_t)d;
		h->bucket[at] = c;
		total += c;
	}
	return total == h->count ? 0 : -1;
}

/* The aggregate's state: the merge so far (SQLite zeroes it at first use). */
struct quantile_agg {
	int started;
	double q;
	struct st_hist h;
};

static void quantile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct quantile_agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!a->started) {
		a->started = 1;
		a->q = sqlite3_value_double(argv[2]);
		st_hist_init(&a->h);
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	struct st_hist h;
	int enc = sqlite3_value_type(argv[1]) == SQLITE_NULL ? 0 : sqlite3_value_int(argv[1]);
	const void *blob = sqlite3_value_blob(argv[0]);
	if (st_histblob_decode(blob, (size_t)sqlite3_value_bytes(argv[0]), enc, &h)) {
		sqlite3_result_error(ctx, "st_hist_quantile: not a stored histogram (hist, hist_enc)", -1);
		return;
	}
	st_hist_merge(&a->h, &h);
}

static void quantile_final(sqlite3_context *ctx)
{
	struct quantile_agg *a = sqlite3_aggregate_context(ctx, 0);
	if (!a || !a->h.count || a->q < 0 || a->q > 1) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_int64(ctx, (sqlite3_int64)st_hist_quantile(&a->h, a->q));
}

int st_histblob_functions(sqlite3 *db)
{
	return sqlite3_create_function(db, "st_hist_quantile", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				       NULL, NULL, quantile_step, quantile_final);
}
