/* Histogram: bucket ranges, merge = add-all, quantiles near the truth. */
#include "../../common/hist.h"
#include "../../common/permute.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

static void buckets_contiguous(void)
{
	uint64_t prev_hi = 0;
	for (int b = 0; b < ST_HIST_BUCKETS - 1; b++) {
		uint64_t lo, hi;
		st_hist_bucket_range(b, &lo, &hi);
		if (b)
			CHECK_EQ_INT(lo, prev_hi + 1);
		CHECK(st_hist_bucket((uint64_t)lo) == b);
		CHECK(st_hist_bucket((uint64_t)hi) == b);
		if (lo >= 8)
			CHECK((double)(hi - lo + 1) / (double)lo <= 0.125 + 1e-9);
		prev_hi = hi;
	}
	CHECK(st_hist_bucket(UINT64_MAX) == ST_HIST_BUCKETS - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void merge_and_quantiles(void)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct st_hist all, a, b;
	st_hist_init(&all);
	st_hist_init(&a);
	st_hist_init(&b);
	for (int i = 0; i < N; i++) {
		/* log-uniform from 1 us to 100 ms: the range real latencies span */
		double u = (double)(st_mix64((uint64_t)i) >> 11) / 9007199254740992.0;
		v[i] = (uint64_t)(1000.0 * pow(1e5, u));
		st_hist_add(&all, v[i]);
		st_hist_add(i % 3 ? &a : &b, v[i]);
	}
	st_hist_merge(&a, &b);
	CHECK(a.count == all.count && a.sum_ns == all.sum_ns);
	CHECK(a.min_ns == all.min_ns && a.max_ns == all.max_ns);
	for (int k = 0; k < ST_HIST_BUCKETS; k++)
		CHECK(a.bucket[k] == all.bucket[k]);
	qsort(v, N, sizeof(*v), cmp_u64);
	double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	for (int i = 0; i < 4; i++) {
		uint64_t truth = v[(size_t)(qs[i] * N) - 1];
		uint64_t got = st_hist_quantile(&all, qs[i]);
		double rel = (double)got / (double)truth - 1.0;
		if (rel > 0.0625 || rel < -0.0625)
			fprintf(stderr, "    q%.3f: got %llu, true %llu\n", qs[i],
				(unsigned long long)got, (unsigned long long)truth);
		CHECK(rel <= 0.0625 && rel >= -0.0625);
	}
	CHECK(st_hist_quantile(&all, 1.0) == v[N - 1]);
	CHECK(st_hist_quantile(&all, 0.0) == v[0]);
	struct st_hist empty;
	st_hist_init(&empty);
	CHECK(st_hist_quantile(&empty, 0.5) == 0);
	st_hist_merge(&all, &empty);
	CHECK(all.count == N);
	free(v);
}

const struct unit_test unit_hist[] = {
	{ "hist: buckets contiguous, at most 12.5% wide", buckets_contiguous },
	{ "hist: merge equals adding all; quantiles within 6.25%", merge_and_quantiles },
	{ NULL, NULL },
};
