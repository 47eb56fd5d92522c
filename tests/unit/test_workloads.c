/* Issue 13's pure parts: the --data patterns against a real compressor
 * (zlib), the interval series, option sets and tied dimensions. */
#include "../../common/data.h"
#include "../../common/interval.h"
#include "../../common/options.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FILE_BYTES (4u << 20)

/* A "file" of FILE_BYTES written as the worker does, block after block. */
static unsigned char *make_file(int64_t pattern, size_t block)
{
	unsigned char *f = malloc(FILE_BYTES);
	if (!f)
		return NULL;
	for (size_t off = 0; off < FILE_BYTES; off += block) {
		size_t len = FILE_BYTES - off < block ? FILE_BYTES - off : block;
		st_data_fill(f + off, len, pattern, 0x5eed, 3, 1, off);
	}
	return f;
}

/* What zlib (level 6) makes of it in 128 KiB records, as a file system
 * that compresses per record: bytes in / bytes out. */
static double zlib_ratio(const unsigned char *f)
{
	const size_t rec = 128 << 10;
	uLongf cap = compressBound(rec);
	unsigned char *out = malloc(cap);
	double in = 0, outb = 0;
	for (size_t off = 0; out && off < FILE_BYTES; off += rec) {
		uLongf n = cap;
		if (compress2(out, &n, f + off, rec, 6) != Z_OK)
			break;
		in += (double)rec;
		outb += (double)n;
	}
	free(out);
	return outb > 0 ? in / outb : 0;
}

static int cmp_chunk(const void *a, const void *b)
{
	return memcmp(*(const unsigned char *const *)a, *(const unsigned char *const *)b,
		      ST_DATA_CHUNK);
}

/* Chunks / distinct chunks: what a dedupe at 4 KiB finds. */
static double dedupe_ratio(const unsigned char *f)
{
	size_t n = FILE_BYTES / ST_DATA_CHUNK, distinct = 0;
	const unsigned char **p = malloc(n * sizeof(*p));
	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		p[i] = f + i * ST_DATA_CHUNK;
	qsort(p, n, sizeof(*p), cmp_chunk);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || memcmp(p[i], p[i - 1], ST_DATA_CHUNK) != 0;
	free(p);
	return (double)n / (double)distinct;
}

static int near(double got, double want, double tol)
{
	if (got >= want - tol && got <= want + tol)
		return 1;
	fprintf(stderr, "    %.3f is not %.3f +- %.3f\n", got, want, tol);
	return 0;
}

static int64_t pattern(const char *text)
{
	int64_t v = -1;
	const char *why;
	CHECK(st_data_parse(text, &v, &why) == 0);
	return v;
}

static void data_ratios_with_zlib(void)
{
	/* what was asked: 100 / (100 - PCT); 0: not checked (zlib also finds the
	 * duplicate chunks that fall in its 32 KiB window, as any compressor
	 * does: with dedupe it compresses at least as much as asked) */
	static const struct {
		const char *pattern;
		double compress, dedupe;
	} cases[] = {
		{ "random", 1.0, 1.0 },		  { "compress:50", 2.0, 1.0 },
		{ "compress:75", 4.0, 1.0 },	  { "dedupe:50", 0, 2.0 },
		{ "dedupe:75", 0, 4.0 },	  { "compress:50+dedupe:50", 0, 2.0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *f = make_file(pattern(cases[i].pattern), 64 << 10);
		CHECK(f != NULL);
		if (!f)
			continue;
		/* compress:50 compresses 2.0 +- 0.1 (the tolerance), and
		 * each ratio within 5 %; dedupe within 1 % (one chunk more) */
		double z = zlib_ratio(f), d = dedupe_ratio(f);
		int ok = (cases[i].compress ? near(z, cases[i].compress, cases[i].compress * 0.05)
					    : z > 1.5) &&
			 near(d, cases[i].dedupe, cases[i].dedupe * 0.01);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "    %-22s zlib %.3f:1, dedupe %.3f:1\n", cases[i].pattern, z, d);
		free(f);
	}
	unsigned char *z = make_file(ST_DATA_ZERO, 1 << 20);
	CHECK(z && zlib_ratio(z) > 100);
	free(z);
}

static void data_same_bytes_any_block(void)
{
	/* the bytes of a file do not depend on the transfer size, aligned or not */
	int64_t v = pattern("compress:40+dedupe:30");
	unsigned char *a = make_file(v, 4096), *b = make_file(v, 1000), *c = make_file(v, 1 << 20);
	CHECK(a && b && c && !memcmp(a, b, FILE_BYTES) && !memcmp(a, c, FILE_BYTES));
	/* check: 0 on the bytes written, some on one byte changed, on another
	 * rank's, thread's or offset's bytes */
	CHECK(st_data_check(a + 8192, 65536, v, 0x5eed, 3, 1, 8192) == 0);
	CHECK(st_data_check(a + 12345, 777, v, 0x5eed, 3, 1, 12345) == 0);
	a[9000] ^= 1;
	CHECK(st_data_check(a + 8192, 65536, v, 0x5eed, 3, 1, 8192) == 1);
	a[9000] ^= 1;
	int64_t r = ST_DATA_RANDOM;
	unsigned char *x = make_file(r, 65536);
	CHECK(x && st_data_check(x, 65536, r, 0x5eed, 2, 1, 0) > 0);
	CHECK(x && st_data_check(x, 65536, r, 0x5eed, 3, 0, 0) > 0);
	CHECK(x && st_data_check(x + 4096, 4096, r, 0x5eed, 3, 1, 0) > 0);
	unsigned char zero[100] = { 0 };
	CHECK(st_data_check(zero, sizeof(zero), ST_DATA_ZERO, 1, 0, 0, 0) == 0);
	zero[99] = 1;
	CHECK(st_data_check(zero, sizeof(zero), ST_DATA_ZERO, 1, 0, 0, 0) == 1);
	free(a);
	free(b);
	free(c);
	free(x);
}

/* The pool a thread writes from gives st_data_fill's bytes, block after
 * block, aligned or not, across the 1 MiB period, larger than it. */
static void data_pool_is_fill(void)
{
	static const struct {
		const char *pattern;
		size_t block;
		uint64_t off;
	} cases[] = {
		{ "random", 4096, 0 },		 { "random", 1 << 20, 3u << 20 },
		{ "random", 65536, 1040384 },	 { "compress:30", 1000, 12345 },
		{ "random", 3u << 20, 5u << 20 }, { "compress:75", 8192, (1u << 20) - 4096 },
		{ "random", 4096, 4100 },	 { "compress:50", 100, 4090 },
	};
	size_t most = 3u << 20;
	unsigned char *want = malloc(most);
	CHECK(want != NULL);
	for (size_t i = 0; want && i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_data_pool p;
		int64_t v = pattern(cases[i].pattern);
		CHECK(st_data_pool_init(&p, v, 77, 2, 5, cases[i].block) == 0 && p.p);
		/* the same window twice over, the second time after other blocks */
		for (int round = 0; round < 2; round++) {
			for (uint64_t o = cases[i].off; o < cases[i].off + 3 * cases[i].block; o += cases[i].block) {
				const unsigned char *got = st_data_pool_block(&p, o, cases[i].block);
				st_data_fill(want, cases[i].block, v, 77, 2, 5, o);
				CHECK(got && !memcmp(got, want, cases[i].block));
				if (!got || memcmp(got, want, cases[i].block))
					fprintf(stderr, "    %s block %zu at %llu differs\n", cases[i].pattern,
						cases[i].block, (unsigned long long)o);
			}
		}
		st_data_pool_free(&p);
	}
	free(want);
	/* no pool for zero and dedupe: the slow way */
	struct st_data_pool z;
	CHECK(st_data_pool_init(&z, ST_DATA_ZERO, 1, 0, 0, 4096) == 0 && !z.p);
	CHECK(st_data_pool_init(&z, pattern("dedupe:10"), 1, 0, 0, 4096) == 0 && !z.p);
	CHECK(st_data_pool_block(&z, 0, 4096) == NULL);
	st_data_pool_free(&z);
}

static void data_text_round_trip(void)
{
	static const char *const good[] = { "zero", "random", "compress:1", "dedupe:99",
					    "compress:50+dedupe:25" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char buf[64];
		int64_t v = pattern(good[i]);
		CHECK(st_data_valid(v));
		st_data_text(v, buf, sizeof(buf));
		CHECK(strcmp(buf, good[i]) == 0);
	}
	CHECK(pattern("dedupe:25+compress:50") == pattern("compress:50+dedupe:25"));
	static const char *const bad[] = { "ones", "compress", "compress:", "compress:0",
					   "compress:100", "compress:5x", "dedupe:10+dedupe:20",
					   "compress:10+", "+dedupe:5", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v;
		const char *why = NULL;
		CHECK(st_data_parse(bad[i], &v, &why) == -1 && why && *why);
	}
}

static void intervals_widen_and_keep_the_sums(void)
{
	static struct st_iv_series s, t;
	st_iv_init(&s, 1000, 100);
	uint64_t bytes = 0, ops = 0;
	/* calls ending over 100 000 ns at width 100: 1000 intervals, more than
	 * the 600 slots: the series goes ten times wider, nothing is lost */
	for (int64_t e = 1000; e < 101000; e += 37) {
		st_iv_add(&s, e, 4096, (e / 37) % 3 == 0);
		bytes += 4096;
		ops++;
	}
	CHECK_EQ_INT(s.width_ns, 1000);
	CHECK(s.n <= ST_IV_SLOTS && s.n == 100);
	uint64_t sb = 0, so = 0, sr = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		sb += s.s[i].bytes;
		so += s.s[i].ops;
		sr += s.s[i].read_ops;
	}
	CHECK(sb == bytes && so == ops && sr > 0 && sr < ops);
	/* a narrower series merges into the wider width */
	st_iv_init(&t, 1000, 100);
	st_iv_add(&t, 1000 + 250, 1, 0);
	st_iv_merge(&t, &s);
	CHECK_EQ_INT(t.width_ns, 1000);
	CHECK(t.s[0].ops == s.s[0].ops + 1);

	/* rank 0 widens every rank's to the widest */
	struct st_interval v[6] = {
		{ .t_ns = 0, .end_ns = 10, .width_ns = 10, .rank = 0, .idx = 0, .bytes = 1, .ops = 1 },
		{ .t_ns = 10, .end_ns = 20, .width_ns = 10, .rank = 0, .idx = 1, .bytes = 2, .ops = 1 },
		{ .t_ns = 100, .end_ns = 105, .width_ns = 10, .rank = 0, .idx = 10, .bytes = 4, .ops = 1 },
		{ .t_ns = 3, .end_ns = 103, .width_ns = 100, .rank = 1, .idx = 0, .bytes = 8, .ops = 1 },
		{ .t_ns = 103, .end_ns = 150, .width_ns = 100, .rank = 1, .idx = 1, .bytes = 16, .ops = 1 },
	};
	size_t n = st_iv_normalize(v, 5);
	CHECK_EQ_INT(n, 4);
	CHECK(v[0].rank == 0 && v[0].idx == 0 && v[0].bytes == 3 && v[0].width_ns == 100 &&
	      v[0].end_ns == 20);
	CHECK(v[1].rank == 0 && v[1].idx == 1 && v[1].t_ns == 100 && v[1].bytes == 4);
	CHECK(v[2].rank == 1 && v[2].bytes == 8 && v[3].bytes == 16 && v[3].end_ns == 150);
}

static int setv(struct st_config *c, const char *name, const char *val, char *err)
{
	return st_config_set(c, st_opt_find(name), val, 1, NULL, err, ST_ERR_MAX);
}

static void sets_and_tied_sizes(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	char *argv[] = { "stcluster", "--engine", "null", "--set", "vers=3,rsize=64k",
			 "--set", "vers=4.2, nconnect=4", "--block", "4k,1m", NULL };
	CHECK(st_config_parse_args(&c, 9, argv, err, sizeof(err)) == 0);
	CHECK_EQ_INT(c.o[ST_OPT_SET].n, 2);
	CHECK_EQ_INT(st_plan_combos(&c), 4);
	struct st_combo k;
	st_plan_combo(&c, 0, &k); /* block 4k, set 0 */
	CHECK(k.v[ST_OPT_VERS] == ST_VERS_3 && k.v[ST_OPT_RSIZE] == 65536 &&
	      k.v[ST_OPT_NCONNECT] == ST_UNSET && k.v[ST_OPT_BLOCK] == 4096);
	st_plan_combo(&c, 1, &k); /* block 4k, set 1 */
	CHECK(k.v[ST_OPT_VERS] == ST_VERS_4_2 && k.v[ST_OPT_RSIZE] == ST_UNSET &&
	      k.v[ST_OPT_NCONNECT] == 4);
	CHECK(st_config_given(&c, ST_OPT_NCONNECT) && !st_config_given(&c, ST_OPT_WSIZE));

	st_config_defaults(&c);
	CHECK(setv(&c, "rwsize", "64k,1m", err) == 0);
	CHECK_EQ_INT(st_plan_combos(&c), 2);
	st_plan_combo(&c, 1, &k);
	CHECK(k.v[ST_OPT_RSIZE] == 1 << 20 && k.v[ST_OPT_WSIZE] == 1 << 20);

	static const struct {
		const char *opt, *val, *must;
	} bad[] = {
		{ "set", "vers=3,rsize=64q", "--rsize: invalid size '64q'" },
		{ "set", "vers", "'vers' is not KEY=VALUE" },
		{ "set", "target=/x", "'target' is not an option a set can give" },
		{ "set", "vers=3,vers=4", "'vers' is given twice" },
		{ "set", "vers=3;;vers=4", "empty element" },
		{ "data", "compress:0", "--data: invalid pattern 'compress:0'" },
		{ "layout", "striped", "--layout: unknown value 'striped'" },
		{ "rwmix", "101", "--rwmix: '101' is out of range" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st_config_defaults(&c);
		err[0] = '\0';
		CHECK(setv(&c, bad[i].opt, bad[i].val, err) == -1 && strstr(err, bad[i].must));
		if (!strstr(err, bad[i].must))
			fprintf(stderr, "    --%s %s: '%s'\n", bad[i].opt, bad[i].val, err);
	}
	/* and what only the whole configuration can tell */
	static const struct {
		const char *opt, *val, *opt2, *val2, *must;
	} clash[] = {
		{ "rwsize", "64k", "rsize", "1m", "--rwsize: sets rsize and wsize together" },
		{ "set", "rsize=64k", "rsize", "1m", "--rsize: given as an option and in --set" },
		{ "rwmix", "70", "phases", "write,read", "--rwmix: only for the mixed phases" },
		{ "files", "10", "phases", "write", "--files: only for the metadata phases" },
		{ "access", "strided", "layout", "file-per-thread", "--access: only with --layout shared" },
		{ "stonewall", "on", "runtime", "5", "--stonewall on: a time-based phase" },
		{ "runtime", "10", "deadline", "5", "does not end before --deadline" },
	};
	for (size_t i = 0; i < sizeof(clash) / sizeof(clash[0]); i++) {
		st_config_defaults(&c);
		setv(&c, "engine", "null", err);
		CHECK(setv(&c, clash[i].opt, clash[i].val, err) == 0);
		CHECK(setv(&c, clash[i].opt2, clash[i].val2, err) == 0);
		err[0] = '\0';
		CHECK(st_config_check(&c, err, sizeof(err)) == -1 && strstr(err, clash[i].must));
		if (!strstr(err, clash[i].must))
			fprintf(stderr, "    --%s %s --%s %s: '%s'\n", clash[i].opt, clash[i].val,
				clash[i].opt2, clash[i].val2, err);
	}
}

const struct unit_test unit_workloads[] = {
	{ "data: zlib and dedupe get the ratios asked", data_ratios_with_zlib },
	{ "data: the same bytes whatever the block; check finds changes", data_same_bytes_any_block },
	{ "data: pattern text round trip, bad patterns refused", data_text_round_trip },
	{ "data: a thread's pool gives the pattern's bytes", data_pool_is_fill },
	{ "intervals: widen ten times, keep every call; normalize", intervals_widen_and_keep_the_sums },
	{ "options: --set sets and --rwsize in the matrix, clashes refused", sets_and_tied_sizes },
	{ NULL, NULL },
};
