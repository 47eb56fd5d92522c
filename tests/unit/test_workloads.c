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

/* The key of rank 3, thread 1's file (seed 0x5eed), in units and chunks of 4 KiB. */
static struct st_data_key key4k(int64_t pattern)
{
	return (struct st_data_key){ .v = pattern, .seed = 0x5eed, .rank = 3, .thread = 1,
				     .dedupe_unit = 4096, .compress_chunk = 4096 };
}

/* A "file" of FILE_BYTES of key k written as the worker does, block after
 * block, from a pool (or without one). */
static unsigned char *make_file_key(const struct st_data_key *k, size_t block, int pooled)
{
	unsigned char *f = malloc(FILE_BYTES);
	struct st_data_pool p;
	if (!f || (pooled && st_data_pool_init(&p, k))) {
		free(f);
		return NULL;
	}
	for (size_t off = 0; off < FILE_BYTES; off += block) {
		size_t len = FILE_BYTES - off < block ? FILE_BYTES - off : block;
		st_data_fill(f + off, len, k, pooled ? &p : NULL, off);
	}
	if (pooled)
		st_data_pool_free(&p);
	return f;
}

static unsigned char *make_file(int64_t pattern, size_t block)
{
	struct st_data_key k = key4k(pattern);
	return make_file_key(&k, block, 1);
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

/* the unit cmp_unit compares in (qsort takes no context) */
static _Thread_local size_t cmp_len;

static int cmp_unit(const void *a, const void *b)
{
	return memcmp(*(const unsigned char *const *)a, *(const unsigned char *const *)b, cmp_len);
}

/* Units / distinct units: what a dedupe in units of `unit` bytes finds. */
static double dedupe_ratio_in(const unsigned char *f, size_t unit)
{
	size_t n = FILE_BYTES / unit, distinct = 0;
	const unsigned char **p = malloc(n * sizeof(*p));
	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		p[i] = f + i * unit;
	cmp_len = unit;
	qsort(p, n, sizeof(*p), cmp_unit);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || memcmp(p[i], p[i - 1], unit) != 0;
	free(p);
	return (double)n / (double)distinct;
}

static double dedupe_ratio(const unsigned char *f)
{
	return dedupe_ratio_in(f, 4096);
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
	struct st_data_key k = key4k(v);
	CHECK(st_data_check(a + 8192, 65536, &k, NULL, 8192) == 0);
	CHECK(st_data_check(a + 12345, 777, &k, NULL, 12345) == 0);
	a[9000] ^= 1;
	CHECK(st_data_check(a + 8192, 65536, &k, NULL, 8192) == 1);
	a[9000] ^= 1;
	struct st_data_key r = key4k(ST_DATA_RANDOM);
	unsigned char *x = make_file(ST_DATA_RANDOM, 65536);
	r.rank = 2;
	CHECK(x && st_data_check(x, 65536, &r, NULL, 0) > 0);
	r.rank = 3;
	r.thread = 0;
	CHECK(x && st_data_check(x, 65536, &r, NULL, 0) > 0);
	r.thread = 1;
	CHECK(x && st_data_check(x + 4096, 4096, &r, NULL, 0) > 0);
	/* a block 1 MiB (the base words' period) away is another block */
	CHECK(x && st_data_check(x + (1u << 20), 65536, &r, NULL, 0) > 0);
	struct st_data_key zk = key4k(ST_DATA_ZERO);
	unsigned char zero[100] = { 0 };
	CHECK(st_data_check(zero, sizeof(zero), &zk, NULL, 0) == 0);
	zero[99] = 1;
	CHECK(st_data_check(zero, sizeof(zero), &zk, NULL, 0) == 1);
	free(a);
	free(b);
	free(c);
	free(x);
}

/* The pool a thread writes from gives the bytes made without one, block
 * after block, aligned or not, across the 1 MiB period, larger than it; a
 * pool of another key gives the right bytes too (made without it). */
static void data_pool_is_fill(void)
{
	static const struct {
		const char *pattern;
		size_t block;
	} cases[] = {
		{ "random", 4096 },	 { "random", 1 << 20 },	     { "random", 3u << 20 },
		{ "compress:30", 1000 }, { "dedupe:40", 65536 },     { "compress:50", 100 },
		{ "random", 4100 },	 { "compress:20+dedupe:30", 12345 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_data_key k = key4k(pattern(cases[i].pattern));
		k.dedupe_unit = k.compress_chunk = 12288;
		unsigned char *a = make_file_key(&k, cases[i].block, 1);
		unsigned char *b = make_file_key(&k, cases[i].block, 0);
		CHECK(a && b && !memcmp(a, b, FILE_BYTES));
		struct st_data_key other = k;
		other.thread = 9;
		struct st_data_pool p;
		CHECK(st_data_pool_init(&p, &other) == 0);
		CHECK(a && st_data_check(a, FILE_BYTES, &k, &p, 0) == 0);
		st_data_pool_free(&p);
		free(a);
		free(b);
	}
	struct st_data_pool z;
	struct st_data_key zk = key4k(ST_DATA_ZERO);
	CHECK(st_data_pool_init(&z, &zk) == 0 && !z.base[0]);
	st_data_pool_free(&z);
}

/* random never repeats an 8-byte word in a file (4 MiB here: the 1 MiB
 * base words' period four times over); dedupe and compress in units and
 * chunks of 128 KiB (ZFS's records) give what was asked in those units */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void data_units_of_128k(void)
{
	unsigned char *f = make_file(ST_DATA_RANDOM, 65536);
	CHECK(f != NULL);
	if (f) {
		size_t n = FILE_BYTES / 8, same = 0;
		qsort(f, n, 8, cmp_u64);
		for (size_t i = 1; i < n; i++)
			same += !memcmp(f + 8 * i, f + 8 * (i - 1), 8);
		CHECK(same == 0);
		if (same)
			fprintf(stderr, "    %zu repeated words\n", same);
	}
	free(f);
	struct st_data_key k = key4k(pattern("dedupe:50"));
	k.dedupe_unit = 128 << 10;
	f = make_file_key(&k, 1 << 20, 1);
	/* 32 units: 16 the duplicate, 16 unique */
	CHECK(f && near(dedupe_ratio_in(f, 128 << 10), 32.0 / 17, 0.001));
	free(f);
	k = key4k(pattern("compress:50"));
	k.compress_chunk = 128 << 10;
	f = make_file_key(&k, 1 << 20, 1);
	CHECK(f && near(zlib_ratio(f), 2.0, 0.1));
	free(f);
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

	/* the combinations are distinct by value (issue 19): --access means
	 * nothing beside file-per-thread, and two sets alike are refused */
	st_config_defaults(&c);
	CHECK(setv(&c, "layout", "file-per-thread,shared", err) == 0);
	CHECK(setv(&c, "access", "segmented,strided", err) == 0);
	CHECK(setv(&c, "threads", "1,2", err) == 0);
	CHECK_EQ_INT(st_plan_combos(&c), 6);
	for (uint64_t i = 0; i < st_plan_combos(&c); i++)
		for (uint64_t j = 0; j < i; j++) {
			struct st_combo a, b;
			st_plan_combo(&c, i, &a);
			st_plan_combo(&c, j, &b);
			CHECK(memcmp(a.v, b.v, sizeof(a.v)) != 0);
		}
	st_plan_combo(&c, 5, &k);
	CHECK(k.v[ST_OPT_THREADS] == 2 && k.v[ST_OPT_LAYOUT] == ST_LAYOUT_SHARED &&
	      k.v[ST_OPT_ACCESS] == ST_ACCESS_STRIDED);
	st_plan_combo(&c, 3, &k);
	CHECK(k.v[ST_OPT_THREADS] == 2 && k.v[ST_OPT_LAYOUT] == ST_LAYOUT_FPT &&
	      k.v[ST_OPT_ACCESS] == ST_UNSET);
	char *alike[] = { "stcluster", "--set", "block=4k", "--set", "block=4096", NULL };
	st_config_defaults(&c);
	CHECK(st_config_parse_args(&c, 5, alike, err, sizeof(err)) == 0);
	CHECK(st_config_check(&c, err, sizeof(err)) == -1 && strstr(err, "the same combination"));

	/* a set's name is its level, its text without one; the pairs are the same */
	st_config_defaults(&c);
	CHECK(setv(&c, "set", "v3.tcp:vers=3,data=compress:50;data=compress:50", err) == 0);
	char name[ST_STR_MAX], text[64];
	CHECK(strcmp(st_set_name(&c.o[ST_OPT_SET], 0, name, sizeof(name)), "v3.tcp") == 0);
	CHECK(strcmp(st_set_name(&c.o[ST_OPT_SET], 1, name, sizeof(name)), "data=compress:50") == 0);
	st_plan_combo(&c, 0, &k);
	st_opt_value_text(&c, ST_OPT_SET, k.v[ST_OPT_SET], text, sizeof(text));
	CHECK(k.v[ST_OPT_VERS] == ST_VERS_3 && strcmp(text, "v3.tcp") == 0);
	st_plan_combo(&c, 1, &k);
	st_opt_value_text(&c, ST_OPT_DATA, k.v[ST_OPT_DATA], text, sizeof(text));
	CHECK(k.v[ST_OPT_VERS] == ST_UNSET && strcmp(text, "compress:50") == 0);

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
		{ "set", ":vers=3", "no name before ':'" },
		{ "set", "a b:vers=3", "the name 'a b' may hold letters" },
		{ "set", "v:vers=3;v:vers=4", "two sets are named 'v'" },
		{ "set", "vers=3;vers=3", "value 'vers=3' is listed twice" },
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
	{ "data: random repeats no word; dedupe and compress in 128k units", data_units_of_128k },
	{ "intervals: widen ten times, keep every call; normalize", intervals_widen_and_keep_the_sums },
	{ "options: --set sets (named) and --rwsize in the matrix, clashes refused", sets_and_tied_sizes },
	{ NULL, NULL },
};
