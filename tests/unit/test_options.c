/* The options table: lists, limits, plan files, the matrix and its order. */
#include "../../common/options.h"
#include "../../common/search.h"
#include "../../worker/engine.h"
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int set(struct st_config *c, const char *name, const char *val, char *err)
{
	return st_config_set(c, st_opt_find(name), val, 1, NULL, err, ST_ERR_MAX);
}

/* What the compiler cannot see across the table's rows and the code that
 * reads them: a missed field or a row that contradicts another place. */
static void table_is_consistent(void)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		CHECK(d->name && d->help && *d->help);
		CHECK(!strchr(d->help, '\n')); /* --help prints it as one line */
		CHECK(st_opt_find(d->name) == i);
		/* the store keeps requested and effective values per sweep column */
		CHECK(!(d->flags & ST_OF_NFS) || (d->flags & ST_OF_SWEEP));
		CHECK(!((d->flags & ST_OF_SWEEP) && (d->flags & ST_OF_LIST)));
		CHECK(!d->sep || (d->flags & (ST_OF_SWEEP | ST_OF_LIST)));
		CHECK(!(d->needs & ~ST_NEEDS_ALL));
		CHECK((d->type == ST_T_FLAG) == (d->arg == NULL));
		if (d->type == ST_T_ENUM)
			CHECK(d->choices && d->choices[0]);
		/* an enum's placeholder, when it lists the words ("on|off"), lists
		 * them all, in any order */
		if (d->type == ST_T_ENUM && strchr(d->arg, '|')) {
			int listed = 0, words = 0, found = 0;
			for (const char *p = d->arg; *p; p += *p == '|') {
				size_t len = strcspn(p, "|");
				listed++;
				for (int k = 0; d->choices[k]; k++)
					found += strlen(d->choices[k]) == len &&
						 !strncmp(d->choices[k], p, len);
				p += len;
			}
			while (d->choices[words])
				words++;
			if (listed != words || found != words)
				fprintf(stderr, "    --%s %s: not its %d words\n", d->name, d->arg, words);
			CHECK(listed == words && found == words);
		}
		if (d->type != ST_T_FLAG && d->type != ST_T_STRING && d->type != ST_T_ENUM &&
		    d->type != ST_T_ERRNO && d->type != ST_T_DATA)
			CHECK(d->max >= d->min);
	}
	struct st_config c;
	st_config_defaults(&c); /* dies on a bad default */
	CHECK(c.o[ST_OPT_BLOCK].n == 1 && c.o[ST_OPT_BLOCK].v[0] == 1 << 20);
	CHECK(st_plan_combos(&c) == 1);
}

static void lists_and_errors(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	CHECK(set(&c, "block", "4k,64k,1m", err) == 0);
	CHECK(c.o[ST_OPT_BLOCK].n == 3 && c.o[ST_OPT_BLOCK].v[1] == 65536);
	CHECK(set(&c, "threads", "1,2,4", err) == 0);
	CHECK(set(&c, "direct", "on,off", err) == 0);
	CHECK(st_plan_combos(&c) == 18);

	static const struct {
		const char *opt, *val, *must;
	} bad[] = {
		{ "block", "12q", "--block" },	      { "block", "-1m", "'-1m'" },
		{ "block", "0", "out of range" },     { "block", "4k,,1m", "empty element" },
		{ "block", "4k,", "empty element" },  { "block", ",4k", "empty element" },
		{ "block", "2g", "out of range" },    { "size", "99999999999999999999", "too large" },
		{ "threads", "0", "out of range" },   { "threads", "100000", "out of range" },
		{ "threads", "two", "--threads" },    { "direct", "maybe", "one of: off, on" },
		{ "bind", "socket", "--bind" },	      { "phases", "write,erase", "'erase'" },
		{ "block", "4k,4k", "listed twice" }, { "iterations", "0", "--iterations" },
		{ "deadline", "10x", "--deadline" },  { "null-error", "EWHAT", "--null-error" },
		{ "data", "", "--data" },
		/* string values a stored plan could not keep */
		{ "target", "/srv/x\f", "control character 0x0c" },
		{ "label", "two\nlines", "control character 0x0a" },
		{ "label", "csi \xc2\x9b[2J", "control character U+009B" },
		{ "label", "\xc2\x80", "control character U+0080" },
		{ "servers", "a,b\r", "control character" },
		{ "label", " x", "begins or ends with a space" },
		{ "mount-opts", "a=1;b=2 ", "begins or ends with a space" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct st_config before = c;
		err[0] = '\0';
		int rc = set(&c, bad[i].opt, bad[i].val, err);
		CHECK(rc == -1);
		if (!strstr(err, bad[i].must))
			fprintf(stderr, "    --%s %s: message '%s' lacks '%s'\n", bad[i].opt, bad[i].val,
				err, bad[i].must);
		CHECK(strstr(err, bad[i].must) != NULL);
		CHECK(strchr(err, '\n') == NULL);
		CHECK(memcmp(&before, &c, sizeof(c)) == 0); /* a refused value changes nothing */
	}
	/* nfs(5)'s spelling of NFSv4.0 is version 4 */
	CHECK(set(&c, "vers", "3,4.0", err) == 0);
	CHECK(c.o[ST_OPT_VERS].n == 2 && c.o[ST_OPT_VERS].v[1] == ST_VERS_4);
	CHECK(set(&c, "vers", "4,4.0", err) == -1 && strstr(err, "twice"));
	/* UTF-8 whose bytes 0x80-0x9f are continuation bytes is text, not C1 */
	CHECK(set(&c, "label", "caf\xc3\xa9 \xe2\x82\xac \xc3\x9b", err) == 0);
}

static void args_parsing(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	char *ok[] = { "stcluster", "--target", "/tmp", "--block=4k,8k", "--dry-run", NULL };
	CHECK(st_config_parse_args(&c, 5, ok, err, sizeof(err)) == 0);
	CHECK(c.o[ST_OPT_BLOCK].n == 2 && c.o[ST_OPT_DRY_RUN].n == 1);
	CHECK(strcmp(c.o[ST_OPT_TARGET].s, "/tmp") == 0);

	char *unknown[] = { "stcluster", "--blok", "4k", NULL };
	CHECK(st_config_parse_args(&c, 3, unknown, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--blok") != NULL);
	char *missing[] = { "stcluster", "--block", NULL };
	CHECK(st_config_parse_args(&c, 2, missing, err, sizeof(err)) == -1);
	CHECK(strstr(err, "missing value") != NULL);
	char *stray[] = { "stcluster", "4k", NULL };
	CHECK(st_config_parse_args(&c, 2, stray, err, sizeof(err)) == -1);
	char *flagval[] = { "stcluster", "--dry-run=yes", NULL };
	CHECK(st_config_parse_args(&c, 2, flagval, err, sizeof(err)) == -1);
}

static void plan_files(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	char *args[] = { "stcluster", "--threads", "8", NULL };
	CHECK(st_config_parse_args(&c, 3, args, err, sizeof(err)) == 0);
	const char *plan = "# a plan\n"
			   "target = /srv/x   # trailing comment\n"
			   "\n"
			   "block = 4k, 1m\n"
			   "threads = 1,2\n" /* the command line said 8: it wins */
			   "label = nfs1 after the upgrade \\#2 # not this\n"
			   "dry-run = on\n";
	CHECK(st_config_parse_plan(&c, plan, "p.conf", err, sizeof(err)) == 0);
	CHECK(strcmp(c.o[ST_OPT_TARGET].s, "/srv/x") == 0);
	CHECK(c.o[ST_OPT_BLOCK].n == 2 && c.o[ST_OPT_BLOCK].v[1] == 1 << 20);
	CHECK(c.o[ST_OPT_THREADS].n == 1 && c.o[ST_OPT_THREADS].v[0] == 8);
	CHECK(strcmp(c.o[ST_OPT_LABEL].s, "nfs1 after the upgrade #2") == 0);
	CHECK(c.o[ST_OPT_DRY_RUN].n == 1);

	CHECK(st_config_parse_plan(&c, "blok = 4k\n", "p.conf", err, sizeof(err)) == -1);
	CHECK(strstr(err, "p.conf:1") && strstr(err, "blok"));
	CHECK(st_config_parse_plan(&c, "\n\nblock 4k\n", "p.conf", err, sizeof(err)) == -1);
	CHECK(strstr(err, "p.conf:3") != NULL);
	CHECK(st_config_parse_plan(&c, "plan = other.conf\n", "p.conf", err, sizeof(err)) == -1);
	CHECK(st_config_parse_plan(&c, "size = 1q\n", "p.conf", err, sizeof(err)) == -1);
	CHECK(strstr(err, "--size") != NULL);
}

static void dump_round_trip(void)
{
	struct st_config a, b;
	char err[ST_ERR_MAX];
	st_config_defaults(&a);
	CHECK(set(&a, "target", "/srv/bench", err) == 0);
	CHECK(set(&a, "block", "4k,1m", err) == 0);
	CHECK(set(&a, "phases", "write,randread", err) == 0);
	CHECK(set(&a, "deadline", "90", err) == 0);
	/* an errno with a name: its text once came from the previous value's */
	CHECK(set(&a, "null-delay", "250us", err) == 0);
	CHECK(set(&a, "null-error", "EIO", err) == 0);
	/* a list element longer than 255 bytes was once cut in the dump */
	char opts[600];
	memset(opts, 'o', sizeof(opts) - 1);
	opts[sizeof(opts) - 1] = '\0';
	memcpy(opts, "a=1;", 4);
	CHECK(set(&a, "mount-opts", opts, err) == 0);
	/* a '#' in a value is not a comment of the dump */
	CHECK(set(&a, "label", "run #3 of a\\#b", err) == 0);
	CHECK(set(&a, "servers", "nfs#1,nfs2", err) == 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	st_config_dump(&a, f);
	fclose(f);
	st_config_defaults(&b);
	CHECK(st_config_parse_plan(&b, text, "dump", err, sizeof(err)) == 0);
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		CHECK_EQ_INT(b.o[i].n, a.o[i].n);
		for (int k = 0; k < a.o[i].n; k++)
			CHECK_EQ_INT(b.o[i].v[k], a.o[i].v[k]);
		for (int k = 0; st_options[i].type == ST_T_STRING && k < a.o[i].n; k++)
			CHECK(strcmp(st_optval_str(&a.o[i], k), st_optval_str(&b.o[i], k)) == 0);
	}
	free(text);
}

static void value_text_of_errno(void)
{
	struct st_config c;
	char buf[32] = "stale";
	st_config_defaults(&c);
	st_opt_value_text(&c, ST_OPT_NULL_ERROR, EIO, buf, sizeof(buf));
	CHECK(strcmp(buf, "EIO") == 0);
}

static void errno_without_name(void)
{
	struct st_config c;
	char err[ST_ERR_MAX], buf[32];
	st_config_defaults(&c);
	CHECK(set(&c, "null-error", "512", err) == 0);
	st_opt_value_text(&c, ST_OPT_NULL_ERROR, c.o[ST_OPT_NULL_ERROR].v[0], buf, sizeof(buf));
	CHECK(strcmp(buf, "E512") == 0);
	/* the text written (the stored plan's) reads back */
	CHECK(set(&c, "null-error", buf, err) == 0);
	CHECK_EQ_INT(c.o[ST_OPT_NULL_ERROR].v[0], 512);
	CHECK(set(&c, "null-error", "E", err) == -1);
	CHECK(set(&c, "null-error", "E0", err) == -1);
	CHECK(set(&c, "null-error", "E-5", err) == -1);
}

static void matrix_order(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	CHECK(set(&c, "block", "4k,1m", err) == 0);
	CHECK(set(&c, "threads", "1,2,3", err) == 0);
	CHECK(st_plan_combos(&c) == 6);
	/* the first option in table order varies slowest */
	int64_t want[6][2] = { { 4096, 1 }, { 4096, 2 }, { 4096, 3 },
			       { 1 << 20, 1 }, { 1 << 20, 2 }, { 1 << 20, 3 } };
	for (int i = 0; i < 6; i++) {
		struct st_combo k;
		st_plan_combo(&c, (uint64_t)i, &k);
		CHECK_EQ_INT(k.v[ST_OPT_BLOCK], want[i][0]);
		CHECK_EQ_INT(k.v[ST_OPT_THREADS], want[i][1]);
		CHECK_EQ_INT(k.index, i);
	}
	struct st_combo k;
	char text[512];
	st_plan_combo(&c, 4, &k);
	st_combo_text(&c, &k, text, sizeof(text));
	CHECK(strstr(text, "block=1m") && strstr(text, "threads=2"));
	CHECK(st_config_phases(&c) == ((1u << ST_PHASE_WRITE) | (1u << ST_PHASE_READ)));
}

static void checks_without_fs(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	const struct st_engine *e = NULL;
	st_config_defaults(&c);
	CHECK(st_config_check(&c, err, sizeof(err)) == 0); /* the engine's own checks come next */
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--target: missing") != NULL);
	CHECK(set(&c, "target", "/tmp", err) == 0);
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == 0);
	CHECK(e == st_engines[0]); /* the default */
	CHECK(set(&c, "null-delay", "1ms", err) == 0);
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1); /* the default takes no knob */
	CHECK(strstr(err, "--null-delay: only for --engine null (given: 1ms, with --engine posix)"));
	CHECK(set(&c, "engine", "null", err) == 0);
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == 0);
	CHECK(e == &st_engine_null);
	CHECK(set(&c, "engine", "ceph", err) == 0); /* a name: the registry says which */
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--engine: unknown value 'ceph' (one of: posix, null") != NULL);
}

/* Each choice option's words sit at the index its enum names (options_table.c
 * writes them so, and a _Static_assert holds each list's length to its
 * enum): no hole, the word a value means, and every choice option here. */
static void choices_match_their_enums(void)
{
	static const struct {
		int id, count;
		int value;
		const char *word;
	} lists[] = {
		{ ST_OPT_DIRECT, ST_ON_OFF_COUNT, ST_ON, "on" },
		{ ST_OPT_FSYNC, ST_ON_OFF_COUNT, ST_OFF, "off" },
		{ ST_OPT_REORDER, ST_ON_OFF_COUNT, ST_ON, "on" },
		{ ST_OPT_VERIFY, ST_ON_OFF_COUNT, ST_ON, "on" },
		{ ST_OPT_BASELINE, ST_ON_OFF_COUNT, ST_OFF, "off" },
		{ ST_OPT_BIND, ST_BIND_COUNT, ST_BIND_NUMA, "numa" },
		{ ST_OPT_VERS, ST_VERS_COUNT, ST_VERS_4_1, "4.1" },
		{ ST_OPT_PROTO, ST_PROTO_COUNT, ST_PROTO_RDMA, "rdma" },
		{ ST_OPT_SYNC, ST_SYNC_COUNT, ST_SYNC_ASYNC, "async" },
		{ ST_OPT_HARD, ST_HARD_COUNT, ST_HARD_SOFT, "soft" },
		{ ST_OPT_AC, ST_AC_COUNT, ST_AC_NOAC, "noac" },
		{ ST_OPT_PROGRESS, ST_PROGRESS_COUNT, ST_PROGRESS_PLAIN, "plain" },
		{ ST_OPT_PHASES, ST_PHASE_COUNT, ST_PHASE_RANDREAD, "randread" },
		{ ST_OPT_LAYOUT, ST_LAYOUT_COUNT, ST_LAYOUT_SHARED, "shared" },
		{ ST_OPT_ACCESS, ST_ACCESS_COUNT, ST_ACCESS_STRIDED, "strided" },
		{ ST_OPT_DIR_MODE, ST_DIR_MODE_COUNT, ST_DIR_SHARED, "shared" },
		{ ST_OPT_STONEWALL, ST_STONEWALL_COUNT, ST_STONEWALL_WEAROUT, "wearout" },
		{ ST_OPT_KEEP, ST_ON_OFF_COUNT, ST_OFF, "off" },
		{ ST_OPT_OUTPUT_FORMAT, ST_OUT_COUNT, ST_OUT_JSON, "json" },
		{ ST_OPT_SEARCH, ST_SEARCH_COUNT, ST_SEARCH_HALVING, "halving" },
	};
	int seen = 0;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const char *const *c = st_options[lists[i].id].choices;
		for (int k = 0; k < lists[i].count; k++)
			CHECK(c[k] != NULL);
		CHECK(c[lists[i].count] == NULL);
		CHECK(strcmp(c[lists[i].value], lists[i].word) == 0);
	}
	for (int i = 0; i < ST_OPT_COUNT; i++)
		seen += st_options[i].type == ST_T_ENUM;
	CHECK_EQ_INT(seen, (int)(sizeof(lists) / sizeof(lists[0])));
}

/* --search halving on 27 combinations: 27 at 1/9 of the length once, the
 * best 9 at 1/3 once, the best 3 at full length 3 times; seqs and
 * iteration numbers follow on; 45 runs, 3 + 3 + 9 = 15 full runs' worth. */
static void halving_plan(void)
{
	struct st_config *c = calloc(1, sizeof(*c));
	char err[ST_ERR_MAX];
	if (!c)
		return;
	st_config_defaults(c);
	CHECK(set(c, "block", "4k", err) == 0 && set(c, "size", "1m", err) == 0);
	CHECK(set(c, "threads", "1,2,3", err) == 0 && set(c, "rsize", "64k,256k,1m", err) == 0);
	CHECK(set(c, "nconnect", "1,2,4", err) == 0 && set(c, "search", "halving", err) == 0);
	struct st_search_plan p;
	st_search_plan(c, &p);
	CHECK_EQ_INT(p.nstages, 3);
	static const uint64_t keep[] = { 27, 9, 3 }, scale[] = { 9, 3, 1 }, seq0[] = { 0, 27, 36 };
	static const uint32_t iters[] = { 1, 1, 3 }, first[] = { 0, 1, 2 };
	for (int s = 0; s < 3 && p.nstages == 3; s++) {
		CHECK(p.stage[s].keep == keep[s] && p.stage[s].scale == scale[s]);
		CHECK(p.stage[s].seq0 == seq0[s] && p.stage[s].iterations == iters[s]);
		CHECK(p.stage[s].first_iteration == first[s]);
		CHECK(p.stage[s].max_iterations == (s == 2 ? 6u : 1u));
	}
	/* the last stage's race: 3 rounds of its 3, up to 6 */
	CHECK(p.runs == 54 && p.full_runs > 23.99 && p.full_runs < 24.01);
	CHECK(p.min_full_runs > 14.99 && p.min_full_runs < 15.01);
	struct st_combo k;
	st_plan_combo(c, 0, &k);
	CHECK(k.stage == -1);
	st_search_scale(&p, 0, &k);
	CHECK(k.stage == 0 && k.v[ST_OPT_SIZE] == 112 * 1024); /* 1m / 9, in whole 4k blocks */
	CHECK(st_config_check(c, err, sizeof(err)) == 0);
	CHECK(set(c, "budget", "26", err) == 0 && st_config_check(c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--budget: 26 ") == err);
	int64_t runs, ns;
	CHECK(st_search_budget("20m", &runs, &ns, err, sizeof(err)) == 0 && runs == 0 &&
	      ns == 1200000000000LL);
	CHECK(st_search_budget("45", &runs, &ns, err, sizeof(err)) == 0 && runs == 45 && ns == 0);
	CHECK(st_search_budget("0", &runs, &ns, err, sizeof(err)) == -1);
	CHECK(st_search_budget("xyz", &runs, &ns, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--budget: invalid value 'xyz'") == err);
	/* blocks of 4k and 12k: every stage-0 run moves the same bytes, the
	 * nearest multiple of both (12k) to 1m / 27 (37.9k): 36k */
	st_config_defaults(c);
	CHECK(set(c, "block", "4k,12k", err) == 0 && set(c, "size", "1m", err) == 0);
	CHECK(set(c, "threads", "1,2,3", err) == 0 && set(c, "rsize", "64k,256k,1m", err) == 0);
	CHECK(set(c, "nconnect", "1,2,4", err) == 0 && set(c, "search", "halving", err) == 0);
	st_search_plan(c, &p);
	CHECK(p.size_unit == 12 * 1024 && p.stage[0].scale == 27);
	int blocks = 0;
	for (uint32_t i = 0; i < 54; i++) {
		st_plan_combo(c, i, &k);
		blocks |= k.v[ST_OPT_BLOCK] == 4096 ? 1 : k.v[ST_OPT_BLOCK] == 12288 ? 2 : 4;
		st_search_scale(&p, 0, &k);
		CHECK(k.v[ST_OPT_SIZE] == 36 * 1024);
	}
	CHECK(blocks == 3);
	free(c);
}

const struct unit_test unit_options[] = {
	{ "options: table consistent, defaults parse", table_is_consistent },
	{ "options: lists, limits, one-line errors", lists_and_errors },
	{ "options: command line", args_parsing },
	{ "options: plan files, command line wins", plan_files },
	{ "options: dump parses back to the same config", dump_round_trip },
	{ "options: an errno's text is its name", value_text_of_errno },
	{ "options: an errno without a name reads back", errno_without_name },
	{ "options: matrix order", matrix_order },
	{ "options: checks without file system", checks_without_fs },
	{ "options: each choice list matches its enum", choices_match_their_enums },
	{ "options: --search halving's stages, seqs, lengths and budget", halving_plan },
	{ NULL, NULL },
};
