/*
 * hist.c - logarithmic latency histogram (see hist.h).
 */
#include "hist.h"

#include <string.h>

void st_hist_init(struct st_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

int st_hist_bucket(uint64_t ns)
{
	if (ns < 8)
		return (int)ns;
	int e = 63 - __builtin_clzll(ns);
	if (e >= ST_HIST_MAX_EXP)
		return ST_HIST_BUCKETS - 1;
	int sub = (int)((ns >> (e - ST_HIST_SUB_BITS)) & 7);
	return 8 + (e - ST_HIST_SUB_BITS) * 8 + sub;
}

void st_hist_bucket_range(int b, uint64_t *lo, uint64_t *hi)
{
	if (b < 8) {
		*lo = *hi = (uint64_t)b;
		return;
	}
	int e = (b - 8) / 8 + ST_HIST_SUB_BITS, sub = (b - 8) % 8;
	uint64_t width = 1ULL << (e - ST_HIST_SUB_BITS);
	*lo = (1ULL << e) + (uint64_t)sub * width;
	*hi = *lo + width - 1;
}

void st_hist_add(struct st_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[st_hist_bucket(ns)]++;
}

void st_hist_merge(struct st_hist *into, const struct st_hist *from)
{
	if (!from->count)
		return;
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->min_ns < into->min_ns)
		into->min_ns = from->min_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
	for (int i = 0; i < ST_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

uint64_t st_hist_quantile(const struct st_hist *h, double q)
{
	if (!h->count)
		return 0;
	if (q >= 1.0)
		return h->max_ns;
	if (q <= 0.0)
		return h->min_ns;
	/* rank of the wanted value, 1-based, nearest-rank definition */
	uint64_t want = (uint64_t)(q * (double)h->count);
	if ((double)want < q * (double)h->count)
		want++;
	if (want == 0)
		want = 1;
	uint64_t seen = 0;
	for (int b = 0; b < ST_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= want) {
			uint64_t lo, hi;
			st_hist_bucket_range(b, &lo, &hi);
			uint64_t mid = lo + (hi - lo) / 2;
			if (mid < h->min_ns)
				mid = h->min_ns;
			if (mid > h->max_ns)
				mid = h->max_ns;
			return mid;
		}
	}
	return h->max_ns;
}
