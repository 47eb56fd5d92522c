/* Histogram: bucket ranges, merge = add-all, quantiles near the truth. */
#include "../../common/hist.h"
#include "../../common/permute.h"
#include "../../common/wire.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A phase's results packed for the gather (wire.h): back byte for byte,
 * a few hundred bytes when few buckets are filled, and a pack cut short,
 * with bytes left over or a bucket out of range is refused. */
static void results_pack_round_trip(void)
{
	struct st_rank_result rr, rr2;
	struct st_thread_result tr[3], tr2[3];
	memset(&rr, 0, sizeof(rr));
	memset(tr, 0, sizeof(tr));
	rr.version = ST_WIRE_VERSION;
	rr.rank = 7;
	rr.bytes = 12345;
	snprintf(rr.message, sizeof(rr.message), "thread 1: read at offset 4096: EIO");
	st_hist_init(&rr.hist);
	for (int i = 0; i < 3; i++) {
		tr[i].version = ST_WIRE_VERSION;
		tr[i].thread = (uint32_t)i;
		snprintf(tr[i].io_mode, sizeof(tr[i].io_mode), "io_uring");
		st_hist_init(&tr[i].hist);
		for (uint64_t v = 1; v < 5000000; v = v * 3 + (uint64_t)i) {
			st_hist_add(&tr[i].hist, v);
			st_hist_add(&rr.hist, v);
		}
	}
	size_t bound = st_results_bound(3);
	unsigned char *buf = malloc(bound + 16);
	CHECK(buf != NULL);
	if (!buf)
		return;
	size_t n = st_results_pack(&rr, tr, 3, buf);
	CHECK(n <= bound && n < 4 * sizeof(tr[0]) / 2);
	CHECK(st_results_count(buf, n) == 3);
	memset(&rr2, 0xee, sizeof(rr2));
	memset(tr2, 0xee, sizeof(tr2));
	CHECK(st_results_unpack(buf, n, &rr2, tr2) == 0);
	CHECK(memcmp(&rr, &rr2, sizeof(rr)) == 0 && memcmp(tr, tr2, sizeof(tr)) == 0);
	CHECK(st_results_unpack(buf, n - 1, &rr2, tr2) == -1);
	CHECK(st_results_unpack(buf, n + 1, &rr2, tr2) == -1);
	CHECK(st_results_count(buf, 3) == -1);
	/* the rank result's first bucket pair: an index past the last bucket */
	size_t at = 4 + offsetof(struct st_rank_result, hist) + offsetof(struct st_hist, bucket) + 2;
	uint16_t bad = ST_HIST_BUCKETS;
	memcpy(buf + at, &bad, 2);
	CHECK(st_results_unpack(buf, n, &rr2, tr2) == -1);
	/* a rank without threads whose histogram has one bucket (its read and
	 * write ones empty): its fixed part and a few dozen bytes, a tenth of
	 * the struct */
	st_hist_init(&rr.hist);
	st_hist_add(&rr.hist, 1000000);
	n = st_results_pack(&rr, NULL, 0, buf);
	CHECK(n < offsetof(struct st_rank_result, hist) + 120 && n < sizeof(rr) / 10 &&
	      st_results_unpack(buf, n, &rr2, tr2) == 0 && rr2.hist.bucket[st_hist_bucket(1000000)] == 1);
	free(buf);
}

/* A rank's whole phase in one pack: results, RPC counts, samples and
 * intervals come back byte for byte; no RPC counts is 11 KB less; sizes
 * that do not add up, or an RPC part of another size, are refused. */
static void phase_pack_round_trip(void)
{
	struct st_rank_result rr, rr2;
	struct st_thread_result tr[2], tr2[2];
	struct st_rpc_result rpc, rpc2;
	struct st_sample sm[3], sm2[3];
	struct st_interval iv[5], iv2[5];
	memset(&rr, 0, sizeof(rr));
	memset(tr, 0, sizeof(tr));
	memset(&rpc, 0, sizeof(rpc));
	memset(sm, 0, sizeof(sm));
	rr.version = tr[0].version = tr[1].version = rpc.version = ST_WIRE_VERSION;
	rr.bytes = 1 << 20;
	st_hist_init(&rr.hist);
	st_hist_add(&rr.hist, 4000000);
	st_hist_init(&tr[0].hist);
	st_hist_init(&tr[1].hist);
	rpc.source = 1;
	rpc.rank = 3;
	for (int i = 0; i < 3; i++)
		sm[i].t_ns = 100 * i + 1;
	for (int i = 0; i < 5; i++) {
		memset(&iv[i], 0, sizeof(iv[i]));
		iv[i].t_ns = 1000 * i;
		iv[i].width_ns = 1000;
	}
	struct st_phase_pack p = { .rr = &rr, .tr = tr, .nt = 2, .rpc = &rpc, .samples = sm,
				   .nsamples = 3, .iv = iv, .niv = 5 };
	unsigned char *buf = malloc(st_phase_pack_bound(&p) + 1); /* +1: a misaligned start */
	CHECK(buf != NULL);
	if (!buf)
		return;
	unsigned char *at = buf + 1;
	size_t n = st_phase_pack_put(&p, at);
	CHECK(n <= st_phase_pack_bound(&p));
	struct st_phase_parts pt;
	CHECK(st_phase_pack_parts(at, n, &pt) == 0);
	CHECK(pt.rpc && pt.nsamples == 3 && pt.niv == 5);
	CHECK(st_results_count(pt.results, pt.results_len) == 2);
	CHECK(st_results_unpack(pt.results, pt.results_len, &rr2, tr2) == 0);
	CHECK(memcmp(&rr, &rr2, sizeof(rr)) == 0 && memcmp(tr, tr2, sizeof(tr)) == 0);
	memcpy(&rpc2, pt.rpc, sizeof(rpc2));
	memcpy(sm2, pt.samples, sizeof(sm2));
	memcpy(iv2, pt.iv, sizeof(iv2));
	CHECK(memcmp(&rpc, &rpc2, sizeof(rpc)) == 0 && memcmp(sm, sm2, sizeof(sm)) == 0 &&
	      memcmp(iv, iv2, sizeof(iv)) == 0);
	CHECK(st_phase_pack_parts(at, n - 1, &pt) == -1 && st_phase_pack_parts(at, n + 1, &pt) == -1);
	CHECK(st_phase_pack_parts(at, 15, &pt) == -1);
	uint32_t bad = 100; /* an RPC part that is not one struct */
	memcpy(at + 4, &bad, 4);
	CHECK(st_phase_pack_parts(at, n - sizeof(rpc) + 100, &pt) == -1);
	/* none counted, no samples: the rank's results and intervals only */
	p.rpc = NULL;
	p.nsamples = 0;
	size_t m = st_phase_pack_put(&p, at);
	CHECK(m == n - sizeof(rpc) - sizeof(sm));
	CHECK(st_phase_pack_parts(at, m, &pt) == 0 && !pt.rpc && pt.nsamples == 0 && pt.niv == 5);
	free(buf);
}

/* st_effective.known has a bit for every option, the last one too (a
 * 64-bit mask held exactly 64: one more and its bit shifted past). */
static void effective_known_every_option(void)
{
	for (int id = 0; id < ST_OPT_COUNT; id++) {
		struct st_effective e;
		memset(&e, 0, sizeof(e));
		CHECK(!st_effective_any(&e));
		st_effective_set(&e, id, 7);
		CHECK(st_effective_any(&e) && e.v[id] == 7);
		for (int k = 0; k < ST_OPT_COUNT; k++)
			CHECK(st_effective_known(&e, k) == (k == id));
	}
	CHECK(sizeof(((struct st_effective *)0)->known) * 8 >= ST_OPT_COUNT);
}

const struct unit_test unit_hist[] = {
	{ "hist: buckets contiguous, at most 12.5% wide", buckets_contiguous },
	{ "hist: merge equals adding all; quantiles within 6.25%", merge_and_quantiles },
	{ "wire: a phase's results packed for the gather: round trip, size, malformed refused", results_pack_round_trip },
	{ "wire: a rank's phase in one pack: round trip, no RPC counts, malformed refused", phase_pack_round_trip },
	{ "wire: the effective options' bit set has a bit for every option", effective_known_every_option },
	{ NULL, NULL },
};
