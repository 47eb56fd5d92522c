/*
 * The store: schema creation and migration, refusing what is not a store,
 * the aggregate views checked against figures worked out by hand, and the
 * hashes `stcluster audit` checks.
 */
#include "../../common/options.h"
#include "../../coordinator/store/digest.h"
#include "../../coordinator/store/hash.h"
#include "../../coordinator/store/live.h"
#include "../../coordinator/store/histblob.h"
#include "../../coordinator/store/store.h"
#include "unit.h"

#include "../../common/util.h"

#include <fcntl.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double qd(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = NAN;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
		return NAN;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int near(double got, double want, double rel)
{
	int ok = fabs(got - want) <= rel * fabs(want);
	if (!ok)
		fprintf(stderr, "    got %.9g, want %.9g\n", got, want);
	return ok;
}

static void slurp(const char *path, char *buf, size_t n, ssize_t *len)
{
	int fd = open(path, O_RDONLY);
	*len = fd >= 0 ? read(fd, buf, n) : -1;
	if (fd >= 0)
		close(fd);
}

static void schema_and_migration(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/s.db", unit_tmpdir());
	CHECK(st_store_check_path(path, 1, err, sizeof(err)) == 0);
	CHECK(st_store_check_path(path, 0, err, sizeof(err)) == -1); /* reading needs a store */
	CHECK(access(path, F_OK) != 0);				      /* checks create nothing */
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	sqlite3 *db = st_store_db(s);
	CHECK(qd(db, "PRAGMA user_version") == ST_SCHEMA_VERSION);
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (st_options[i].flags & ST_OF_SWEEP) {
			char sql[256];
			snprintf(sql, sizeof(sql),
				 "SELECT COUNT(*) FROM pragma_table_info('combo') WHERE name = '%s'",
				 st_options[i].name);
			CHECK(qd(db, sql) == 1);
		}
	/* an older store: without the views and without one option column */
	CHECK(sqlite3_exec(db,
			   "DROP VIEW phase_tail; DROP VIEW phase_flags; DROP VIEW rpc_flag; DROP VIEW option_override; "
			   "DROP VIEW rpc_mix; DROP VIEW rpc_summary; DROP VIEW phase_cpu; "
			   "DROP VIEW verdict; DROP VIEW server_summary; DROP VIEW result; "
			   "DROP VIEW phase_summary; DROP VIEW client_result; "
			   "DROP VIEW run_summary; ALTER TABLE combo DROP COLUMN data",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(qd(db, "SELECT COUNT(*) FROM pragma_table_info('combo') WHERE name = 'data'") == 0);
	st_store_close(s);
	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	db = st_store_db(s);
	CHECK(qd(db, "SELECT COUNT(*) FROM pragma_table_info('combo') WHERE name = 'data'") == 1);
	CHECK(qd(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'view'") == 18);
	st_store_close(s);
	/* read-only open works and writes nothing */
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	CHECK(sqlite3_exec(st_store_db(s), "CREATE TABLE x(a)", NULL, NULL, NULL) != SQLITE_OK);
	st_store_close(s);
}

static void refuses_foreign_files(void)
{
	char dir[512], path[600], err[ST_ERR_MAX], before[4096], after[4096];
	ssize_t lb, la;
	snprintf(dir, sizeof(dir), "%s", unit_tmpdir());

	/* a text file */
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	FILE *f = fopen(path, "w");
	fputs("these are my notes, not a database\n", f);
	fclose(f);
	slurp(path, before, sizeof(before), &lb);
	CHECK(st_store_check_path(path, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not a SQLite database") != NULL);
	slurp(path, after, sizeof(after), &la);
	CHECK(lb == la && memcmp(before, after, (size_t)lb) == 0);

	/* a store of a newer schema */
	snprintf(path, sizeof(path), "%s/new.db", dir);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE t(a); PRAGMA user_version = 99", NULL, NULL, NULL);
	sqlite3_close(db);
	CHECK(st_store_check_path(path, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "schema version 99") != NULL);
	CHECK(st_store_open(path, 0, err, sizeof(err)) == NULL);

	/* another application's database */
	snprintf(path, sizeof(path), "%s/other.db", dir);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE customers(name)", NULL, NULL, NULL);
	sqlite3_close(db);
	CHECK(st_store_open(path, 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not an stcluster store") != NULL);

	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/missing/s.db", dir);
	CHECK(st_store_check_path(path, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "does not exist") != NULL);
	struct stat st;
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK(stat(path, &st) != 0);
}

static struct st_rank_result rank(int r, int role, uint64_t bytes, uint64_t ops, double s,
				  double e)
{
	struct st_rank_result x;
	memset(&x, 0, sizeof(x));
	x.version = ST_WIRE_VERSION;
	x.rank = (uint32_t)r;
	x.role = (uint32_t)role;
	x.nthreads = role == ST_ROLE_CLIENT ? 1 : 0;
	x.bytes = bytes;
	x.ops = ops;
	x.start_ns = (int64_t)(s * 1e9);
	x.end_ns = (int64_t)(e * 1e9);
	x.release_ns = -1000 * r;
	st_hist_init(&x.hist);
	for (uint64_t i = 0; i < ops; i++)
		st_hist_add(&x.hist, 1000000 + 1000 * (uint64_t)r);
	return x;
}

/* The CPU a phase cost (view phase_cpu), by hand: client CPU as % of one CPU
 * per client over the phase's wall and per MB; the server host's CPUs busy
 * and nfsd's share as sampled, counted once though two server ranks on one
 * host both sampled it, and per MB by the host's PUs. */
static void phase_cpu_by_hand(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/cpu.db", unit_tmpdir());
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	struct st_config cfg;
	st_config_defaults(&cfg);
	st_config_set(&cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err));
	struct st_host_info hosts[4];
	memset(hosts, 0, sizeof(hosts));
	const char *names[4] = { "c0", "c1", "srv", "srv" };
	for (int r = 0; r < 4; r++) {
		snprintf(hosts[r].hostname, sizeof(hosts[r].hostname), "%s", names[r]);
		hosts[r].pus = r >= 2 ? 4 : 2;
	}
	int roles[4] = { ST_ROLE_CLIENT, ST_ROLE_CLIENT, ST_ROLE_SERVER, ST_ROLE_SERVER };
	int partners[4] = { 0, 1, 2, 3 };
	int64_t offs[4] = { 0 }, rtts[4] = { 0 };
	struct st_run_record run = { .run_id = "run-cpu", .cfg = &cfg, .command = "test",
				     .nranks = 4, .nhosts = 3, .combos_planned = 1, .hosts = hosts,
				     .roles = roles, .clock_offset_ns = offs, .clock_rtt_ns = rtts,
				     .partners = partners };
	CHECK(st_store_begin_run(s, &run, err, sizeof(err)) == 0);
	/*
	 * r0: 100 MB in [0, 1] s, 0.4 s of CPU; r1: 100 MB in [0, 2] s, 0.6 s:
	 * wall 2 s, 1 s of CPU over 2 clients x 2 s = 25 %; 1e6 us / 200 MB = 5000 us/MB.
	 * srv (4 PUs), sampled by ranks 2 and 3 alike: user 20 then 30 %, sys 10 %,
	 * nfsd 5 then 15 %: busy 35 %, nfsd 10 %; 35 % x 4 PUs x 2 s = 2.8 s of
	 * CPU / 200 MB = 14000 us/MB (28000 if the host counted twice); nfsd 4000.
	 */
	struct st_rank_result rr[4] = {
		rank(0, ST_ROLE_CLIENT, 100000000, 100, 0.0, 1.0),
		rank(1, ST_ROLE_CLIENT, 100000000, 100, 0.0, 2.0),
		rank(2, ST_ROLE_SERVER, 0, 0, 0.0, 2.0),
		rank(3, ST_ROLE_SERVER, 0, 0, 0.0, 2.0),
	};
	rr[0].cpu_user_us = 300000;
	rr[0].cpu_sys_us = 100000;
	rr[1].cpu_user_us = 500000;
	rr[1].cpu_sys_us = 100000;
	rr[2].cpu_user_us = rr[3].cpu_user_us = 999999; /* a server rank's own CPU: not the server's */
	struct st_sample sm[12];
	memset(sm, 0, sizeof(sm));
	const char *metric[3] = { "cpu_user_pct", "cpu_sys_pct", "nfsd_cpu_pct" };
	const double value[3][2] = { { 20, 30 }, { 10, 10 }, { 5, 15 } };
	int k = 0;
	for (int r = 2; r < 4; r++)
		for (int m = 0; m < 3; m++)
			for (int t = 0; t < 2; t++, k++) {
				sm[k].t_ns = 1000000000 * (int64_t)(t + 1);
				sm[k].rank = r;
				snprintf(sm[k].metric, sizeof(sm[k].metric), "%s", metric[m]);
				sm[k].value = value[m][t];
			}
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = rr, .samples = sm,
				      .nsamples = (size_t)k };
	struct st_combo c;
	st_plan_combo(&cfg, 0, &c);
	struct st_combo_record rec = { .run_id = "run-cpu", .combo = &c, .status = "ok",
				       .nranks = 4, .phases = &ph, .nphases = 1, .roles = roles };
	CHECK(st_store_combo(s, &rec, err, sizeof(err)) == 0);
	sqlite3 *db = st_store_db(s);
	char sql[256];
#define Q(col) (snprintf(sql, sizeof(sql), "SELECT %s FROM phase_cpu WHERE phase = 'write'", col), \
		qd(db, sql))
	CHECK(near(Q("client_cpu_pct"), 25.0, 1e-9));
	CHECK(near(Q("client_cpu_us_per_mb"), 5000.0, 1e-9));
	CHECK(near(Q("server_cpu_pct"), 35.0, 1e-9));
	CHECK(near(Q("nfsd_cpu_pct"), 10.0, 1e-9));
	CHECK(near(Q("server_cpu_us_per_mb"), 14000.0, 1e-9));
	CHECK(near(Q("nfsd_cpu_us_per_mb"), 4000.0, 1e-9));
#undef Q
	st_store_close(s);
}

static void aggregates_by_hand(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/agg.db", unit_tmpdir());
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	struct st_config cfg;
	st_config_defaults(&cfg);
	st_config_set(&cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err));
	struct st_host_info hosts[4];
	memset(hosts, 0, sizeof(hosts));
	int roles[4] = { 0, 0, 0, ST_ROLE_SERVER }, partners[4] = { 1, 2, 0, 3 };
	int64_t offs[4] = { 0 }, rtts[4] = { 0 };
	struct st_run_record run = { .run_id = "run-a", .cfg = &cfg, .command = "test",
				     .started_wall_ns = 0, .nranks = 4, .nhosts = 4,
				     .combos_planned = 1, .hosts = hosts, .roles = roles,
				     .clock_offset_ns = offs, .clock_rtt_ns = rtts,
				     .partners = partners };
	CHECK(st_store_begin_run(s, &run, err, sizeof(err)) == 0);

	/*
	 * r0: 100 MB in [0, 1.0] s -> 100 MB/s; r1: 150 MB in [0.1, 1.6] -> 100 MB/s;
	 * r2: 50 MB in [0, 2.0] -> 25 MB/s; r3 is a server: never counted.
	 * aggregate = 300 MB / 2.0 s = 150 MB/s; iops = 300 / 2 = 150
	 * first done at 1.0 s: 100 + 150 * 0.9/1.5 + 50 * 1.0/2.0 = 215 MB in 1.0 s
	 * fairness = 25 / 100; Jain = 225^2 / (3 * (100^2 + 100^2 + 25^2)) = 0.818181...
	 */
	struct st_rank_result rr[4] = {
		rank(0, ST_ROLE_CLIENT, 100000000, 100, 0.0, 1.0),
		rank(1, ST_ROLE_CLIENT, 150000000, 150, 0.1, 1.6),
		rank(2, ST_ROLE_CLIENT, 50000000, 50, 0.0, 2.0),
		rank(3, ST_ROLE_SERVER, 999999999, 7, 0.0, 0.5),
	};
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = rr };
	struct st_combo c;
	st_plan_combo(&cfg, 0, &c);
	struct st_combo_record rec = { .run_id = "run-a", .combo = &c, .status = "ok",
				       .nranks = 4, .phases = &ph, .nphases = 1 };
	CHECK(st_store_combo(s, &rec, err, sizeof(err)) == 0);
	sqlite3 *db = st_store_db(s);
	const char *w = " FROM phase_summary WHERE phase = 'write'";
	char sql[256];
#define Q(col) (snprintf(sql, sizeof(sql), "SELECT %s%s", col, w), qd(db, sql))
	CHECK(near(Q("agg_mbps"), 150.0, 1e-9));
	CHECK(near(Q("last_done_mbps"), 150.0, 1e-9));
	CHECK(near(Q("first_done_mbps"), 215.0, 1e-9));
	CHECK(near(Q("iops"), 150.0, 1e-9));
	CHECK(near(Q("min_client_mbps"), 25.0, 1e-9));
	CHECK(near(Q("max_client_mbps"), 100.0, 1e-9));
	CHECK(near(Q("mean_client_mbps"), 75.0, 1e-9));
	CHECK(near(Q("fairness"), 0.25, 1e-9));
	CHECK(near(Q("jain"), 50625.0 / 61875.0, 1e-9));
	CHECK(near(Q("clients"), 3, 0));
	CHECK(near(Q("bytes"), 300000000.0, 0));
	CHECK(near(Q("skew_ns"), 3000.0, 0)); /* releases at start - 1000 * rank, all ranks */
	/* latencies: 100 calls at 1.000 ms, 150 at 1.001, 50 at 1.002 (+ server's 7 at 1.003) */
	CHECK(near(Q("lat_p50_ns"), 1001000.0, 0.0625));
	CHECK(near(Q("lat_max_ns"), 1003000.0, 0));
#undef Q
	/* a failed combination: valid rows with NULL figures */
	struct st_prepare_status ps[4];
	memset(ps, 0, sizeof(ps));
	ps[2].err = 5;
	snprintf(ps[2].message, sizeof(ps[2].message), "injected");
	c.seq = 1;
	struct st_combo_record bad = { .run_id = "run-a", .combo = &c, .status = "failed",
				       .message = "rank 2: injected", .nranks = 4, .prep = ps };
	CHECK(st_store_combo(s, &bad, err, sizeof(err)) == 0);
	CHECK(qd(db, "SELECT COUNT(*) FROM combo_failure WHERE rank = 2 AND errno_name = 'EIO'") == 1);
	CHECK(qd(db, "SELECT COUNT(*) FROM combo WHERE status = 'failed'") == 1);
	/* the same seq twice is refused, and the refused transaction leaves nothing */
	CHECK(st_store_combo(s, &bad, err, sizeof(err)) == -1);
	CHECK(qd(db, "SELECT COUNT(*) FROM combo") == 2);
	CHECK(st_store_end_run(s, "run-a", "complete", NULL, err, sizeof(err)) == 0);
	CHECK(qd(db, "SELECT COUNT(*) FROM run_summary WHERE status = 'complete' AND combos_stored = 2") == 1);
	st_store_close(s);
}

/* SHA-256 is libcrypto's: the FIPS 180-2 vectors, so a wrong digest (or a
 * wrong hex conversion) fails here, not only as a mismatch later. */
static void sha256_known_vectors(void)
{
	char hex[ST_HASH_HEX];
	CHECK(st_sha256_hex("abc", 3, hex) == 0);
	CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
	CHECK(st_sha256_hex("", 0, hex) == 0);
	CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	CHECK(st_sha256_hex(two, strlen(two), hex) == 0);
	CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
}

static sqlite3_stmt *one_row(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
		return NULL;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* The hash of rows given as SQL (each statement one row, in order). */
static void rows_hash(sqlite3 *db, const char *const *sqls, int nrows, char hex[ST_HASH_HEX])
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	struct st_digest *d = st_digest_new();
	hex[0] = '\0';
	if (!d)
		return;
	st_digest_start(d, "test");
	for (int i = 0; i < nrows; i++) {
		sqlite3_stmt *st = one_row(db, sqls[i]);
		if (st)
			st_digest_row(d, st, names, sqlite3_column_count(st));
		sqlite3_finalize(st);
	}
	if (st_digest_finish(d, hex))
		hex[0] = '\0';
	st_digest_free(d);
}

/* The canonical bytes of one row, byte for byte as digest.h describes them,
 * and their SHA-256 as `sha256sum` prints it for the same 142 bytes. */
static void canonical_row_serialization(void)
{
	static const char want[] =
		"V\0\0\0\0\0\0\0\x16" "stcluster-audit-1 test"
		"R"
		"c\0\0\0\0\0\0\0\x01" "a" "i\0\0\0\0\0\0\0\x01" "1"
		/* b is NULL: absent */
		"c\0\0\0\0\0\0\0\x01" "c" "t\0\0\0\0\0\0\0\x01" "x"
		"c\0\0\0\0\0\0\0\x01" "d" "f\0\0\0\0\0\0\0\x08" "\x3f\xf8\0\0\0\0\0\0" /* 1.5 */
		"c\0\0\0\0\0\0\0\x01" "e" "b\0\0\0\0\0\0\0\x02" "\x00\xff"
		"c\0\0\0\0\0\0\0\x01" "f" "i\0\0\0\0\0\0\0\x02" "-7"
		"E";
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	struct st_digest *d = st_digest_new();
	CHECK(d != NULL);
	sqlite3_stmt *st = one_row(db, "SELECT 1, NULL, 'x', 1.5, x'00ff', -7");
	CHECK(st != NULL);
	if (!d || !st) {
		sqlite3_finalize(st);
		st_digest_free(d);
		sqlite3_close(db);
		return;
	}
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	st_digest_capture(d, 1);
	CHECK(st_digest_start(d, "test") == 0);
	st_digest_row(d, st, names, 6);
	sqlite3_finalize(st);
	char hex[ST_HASH_HEX], direct[ST_HASH_HEX];
	CHECK(st_digest_finish(d, hex) == 0);
	size_t len;
	const unsigned char *got = st_digest_bytes(d, &len);
	CHECK_EQ_INT(len, sizeof(want) - 1);
	CHECK(got && len == sizeof(want) - 1 && memcmp(got, want, len) == 0);
	/* printf 'V\0\0...E' > row.bin; sha256sum row.bin */
	CHECK(strcmp(hex, "826e149b2e1c78b84ae06a6ed36fd68154fe9a1772e5b7db2107d2092e2dd2c7") == 0);
	CHECK(st_sha256_hex(want, sizeof(want) - 1, direct) == 0);
	CHECK(strcmp(hex, direct) == 0);
	st_digest_free(d);

	/* every difference a stored value can have changes the hash */
	const char *base[] = { "SELECT 1, 2", "SELECT 3, 4" };
	const char *variants[][2] = {
		{ "SELECT 1, NULL", "SELECT 3, 4" },	  /* NULL <-> value */
		{ "SELECT 1, 0", "SELECT 3, 4" },	  /* 0 <-> 2 */
		{ "SELECT 1, '2'", "SELECT 3, 4" },	  /* text <-> integer */
		{ "SELECT 1, 2.0", "SELECT 3, 4" },	  /* real <-> integer */
		{ "SELECT 1, x'02'", "SELECT 3, 4" },	  /* blob <-> integer */
		{ "SELECT 3, 4", "SELECT 1, 2" },	  /* rows swapped */
		{ "SELECT 2, 1", "SELECT 3, 4" },	  /* values swapped between columns */
		{ "SELECT 1, 2", "SELECT 3, 4 " },	  /* the same: must match */
	};
	char h0[ST_HASH_HEX], h[ST_HASH_HEX], z1[ST_HASH_HEX], z2[ST_HASH_HEX];
	rows_hash(db, base, 2, h0);
	CHECK(strlen(h0) == 64);
	for (size_t i = 0; i < ST_ARRAY_LEN(variants); i++) {
		rows_hash(db, variants[i], 2, h);
		int same = strcmp(h, h0) == 0, want_same = i == ST_ARRAY_LEN(variants) - 1;
		if (same != want_same)
			fprintf(stderr, "    variant %zu: %s\n", i, same ? "same hash" : "different hash");
		CHECK(same == want_same);
	}
	/* one row of NULL and none, '' and NULL: a NULL is not nothing */
	const char *nul[] = { "SELECT NULL, NULL" }, *empty[] = { "SELECT '', NULL" };
	rows_hash(db, nul, 1, z1);
	rows_hash(db, nul, 0, z2);
	CHECK(strcmp(z1, z2) != 0);
	rows_hash(db, empty, 1, z2);
	CHECK(strcmp(z1, z2) != 0);
	sqlite3_close(db);
}

/* ---- hashes and audit ---- */

/* A run with a row in every table: hosts, a baseline, a combination that
 * ran (effective options, phases, ranks, threads, server samples) and one
 * that failed to prepare. */
struct fixture {
	struct st_config cfg;
	struct st_host_info hosts[3];
	int roles[3], partners[3];
	int64_t offs[3], rtts[3];
	struct st_rank_result rr[3];
	struct st_thread_result tr[2];
	struct st_sample samples[2];
	struct st_interval iv[2];
	struct st_prepare_status prep[3];
	struct st_rpc_result rpc[3];
	struct st_combo combo;
};

static void fixture_init(struct fixture *f)
{
	char err[ST_ERR_MAX];
	memset(f, 0, sizeof(*f));
	st_config_defaults(&f->cfg);
	st_config_set(&f->cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err));
	for (int r = 0; r < 3; r++) {
		snprintf(f->hosts[r].hostname, sizeof(f->hosts[r].hostname), "host%d", r);
		f->hosts[r].cores = 2;
		f->roles[r] = r == 2 ? ST_ROLE_SERVER : ST_ROLE_CLIENT;
		f->partners[r] = r;
		f->offs[r] = 10 * r;
		f->rtts[r] = 100 + r;
	}
	f->rr[0] = rank(0, ST_ROLE_CLIENT, 1000, 10, 0.0, 1.0);
	f->rr[1] = rank(1, ST_ROLE_CLIENT, 2000, 20, 0.0, 1.5);
	f->rr[2] = rank(2, ST_ROLE_SERVER, 0, 0, 0.0, 1.5);
	for (int t = 0; t < 2; t++) {
		f->tr[t].rank = (uint32_t)t;
		f->tr[t].bytes = 1000u * (unsigned)(t + 1);
		f->tr[t].ops = 10;
		f->tr[t].end_ns = 1000000000;
		snprintf(f->tr[t].cpuset, sizeof(f->tr[t].cpuset), "%d", t);
	}
	for (int k = 0; k < 2; k++) {
		f->samples[k].t_ns = 100000000 * (k + 1);
		f->samples[k].rank = 2;
		snprintf(f->samples[k].metric, sizeof(f->samples[k].metric), "cpu_user_pct");
		f->samples[k].value = 12.5 * (k + 1);
	}
	for (int k = 0; k < 2; k++) {
		f->iv[k] = (struct st_interval){ .t_ns = 100 * k, .end_ns = 100 * k + 100,
						 .width_ns = 100, .rank = k, .idx = 0,
						 .bytes = 4096u * (unsigned)(k + 1), .ops = (unsigned)k + 1,
						 .read_bytes = 1, .read_ops = 1 };
	}
	for (int r = 0; r < 3; r++) {
		st_effective_set(&f->prep[r].eff, ST_OPT_RSIZE, 65536);
		f->prep[r].eff.max[ST_OPT_RSIZE] = 1 << 20;
		snprintf(f->prep[r].eff.options, sizeof(f->prep[r].eff.options), "rw,rsize=65536");
		snprintf(f->prep[r].eff.added, sizeof(f->prep[r].eff.added), "nolock");
		snprintf(f->prep[r].eff.note, sizeof(f->prep[r].eff.note),
			 "rsize: 131072 asked, 65536 granted; lock: nolock added");
	}
	snprintf(f->rr[0].cache_drop, sizeof(f->rr[0].cache_drop), "remount");
	snprintf(f->rr[0].cache_drop_note, sizeof(f->rr[0].cache_drop_note), "a new superblock");
	/* what went over the wire: the kernel's counts on rank 0, libnfs's on rank 1 */
	for (int r = 0; r < 2; r++) {
		struct st_rpc_result *x = &f->rpc[r];
		x->version = ST_WIRE_VERSION;
		x->rank = (uint32_t)r;
		x->source = r == 0 ? ST_RPC_MOUNTSTATS : ST_RPC_LIBNFS;
		x->basis = r == 0 ? ST_RPC_BASIS_INFERRED : ST_RPC_BASIS_MEASURED;
		x->nops = 2;
		x->xprts = 1;
		x->connects = 1;
		x->sends = x->recvs = 12;
		x->bad_xids = 0;
		x->backlog_u = 3;
		snprintf(x->note, sizeof(x->note), "fixture");
		snprintf(x->op[0].name, sizeof(x->op[0].name), "WRITE");
		x->op[0].ops = x->op[0].trans = 10;
		x->op[0].bytes_sent = 1000 + 1200;
		x->op[0].bytes_recv = 1100;
		x->op[0].queue_us = 5;
		x->op[0].rtt_us = 700;
		x->op[0].exe_us = 800;
		x->op[0].file_sync = 10;
		snprintf(x->op[1].name, sizeof(x->op[1].name), "COMMIT");
		x->op[1].ops = x->op[1].trans = 2;
		for (int h = 0; h < ST_RPC_HISTS; h++)
			st_hist_init(&x->hist[h]);
		st_hist_add(&x->hist[1], 70000);
	}
	st_plan_combo(&f->cfg, 0, &f->combo);
}

static int fixture_begin(struct st_store *s, struct fixture *f, const char *run_id, int nranks,
			 int resume)
{
	char err[ST_ERR_MAX];
	struct st_run_record run = { .run_id = run_id, .cfg = &f->cfg, .command = "test",
				     .started_wall_ns = 1, .nranks = nranks, .nhosts = nranks,
				     .combos_planned = 3, .hosts = f->hosts, .roles = f->roles,
				     .clock_offset_ns = f->offs, .clock_rtt_ns = f->rtts,
				     .partners = f->partners, .resume = resume };
	int rc = st_store_begin_run(s, &run, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    begin run: %s\n", err);
	return rc;
}

static int fixture_combo(struct st_store *s, struct fixture *f, const char *run_id, uint32_t seq,
			 int failed)
{
	char err[ST_ERR_MAX];
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = f->rr, .threads = f->tr,
				      .nthreads = 2, .gathered_ns = 5, .samples = f->samples,
				      .nsamples = 2, .intervals = f->iv, .nintervals = 2, .rpc = f->rpc, .nrpc = 3 };
	f->combo.seq = seq;
	memset(&f->prep[1].err, 0, sizeof(f->prep[1].err));
	if (failed) {
		f->prep[1].err = 5;
		snprintf(f->prep[1].message, sizeof(f->prep[1].message), "injected");
	}
	struct st_combo_record rec = { .run_id = run_id, .cfg = &f->cfg, .combo = &f->combo,
				       .status = failed ? "failed" : "ok", .nranks = 3,
				       .prep = f->prep, .phases = failed ? NULL : &ph,
				       .nphases = failed ? 0 : 1, .roles = f->roles };
	int rc = st_store_combo(s, &rec, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    combo %u: %s\n", seq, err);
	return rc;
}

/* SQL that takes from a store what schema version 4 added (the views first:
 * they name the columns). */
/* SQL that takes from a store what schema version 9 added (issue 22's
 * packed intervals): the table interval again, with the rows the view gave
 * (the views that read it first) */
#define V9_ADDED                                                                             \
	"DROP VIEW IF EXISTS phase_tail; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; "          \
	"CREATE TEMP TABLE iv_keep AS SELECT * FROM interval; DROP VIEW interval; "           \
	"DROP TABLE interval_pack; DROP TABLE interval_seq; "                                \
	"CREATE TABLE interval (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), "      \
	"phase TEXT NOT NULL, rank INTEGER NOT NULL, idx INTEGER NOT NULL, t_ns INTEGER NOT NULL, " \
	"end_ns INTEGER NOT NULL, width_ns INTEGER NOT NULL, bytes INTEGER, ops INTEGER, "   \
	"read_bytes INTEGER, read_ops INTEGER, PRIMARY KEY (combo_id, phase, rank, idx)); "  \
	"INSERT INTO interval SELECT * FROM iv_keep; DROP TABLE iv_keep; "

/* SQL that takes from a store what schema version 7 added (issue 14's
 * sparse histograms: the column; the rows keep what they hold) */
/* SQL that takes from a store what schema version 8 added (issue 21: combo.stage; the
 * result view first, which names every column of combo) */
#define V8_ADDED "DROP VIEW IF EXISTS result; ALTER TABLE combo DROP COLUMN stage; "

#define V7_ADDED "ALTER TABLE rank_result DROP COLUMN hist_enc; DROP INDEX baseline_run; "

/* SQL that takes from a store what schema version 5 added (issue 11) */
#define V5_ADDED "ALTER TABLE run DROP COLUMN cleanup; ALTER TABLE baseline DROP COLUMN streams; "

#define V4_ADDED                                                                            \
	"DROP VIEW IF EXISTS phase_cpu; DROP VIEW IF EXISTS verdict; DROP VIEW IF EXISTS server_summary; DROP VIEW IF EXISTS result; "                   \
	"DROP VIEW IF EXISTS phase_summary; DROP VIEW IF EXISTS client_result; DROP VIEW IF EXISTS run_summary; "         \
	"DROP VIEW IF EXISTS phase_tail; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; DROP TABLE interval; "        \
	"ALTER TABLE phase_run DROP COLUMN read_lat_p50_ns; "                                \
	"ALTER TABLE phase_run DROP COLUMN read_lat_p99_ns; "                                \
	"ALTER TABLE phase_run DROP COLUMN write_lat_p50_ns; "                               \
	"ALTER TABLE phase_run DROP COLUMN write_lat_p99_ns; "                               \
	"ALTER TABLE rank_result DROP COLUMN read_bytes; "                                   \
	"ALTER TABLE rank_result DROP COLUMN read_ops; "                                     \
	"ALTER TABLE rank_result DROP COLUMN read_lat_p50_ns; "                              \
	"ALTER TABLE rank_result DROP COLUMN read_lat_p99_ns; "                              \
	"ALTER TABLE rank_result DROP COLUMN write_lat_p50_ns; "                             \
	"ALTER TABLE rank_result DROP COLUMN write_lat_p99_ns; "                             \
	"ALTER TABLE rank_result DROP COLUMN stonewall_hit; "                                \
	"ALTER TABLE thread_result DROP COLUMN read_bytes; "                                 \
	"ALTER TABLE thread_result DROP COLUMN read_ops; "

/* Altered items of the audit of run_id (-1 when the audit failed). */
static int altered(struct st_store *s, const char *run_id, int *hashed)
{
	char err[ST_ERR_MAX];
	struct st_audit a;
	if (st_store_audit(s, run_id, &a, err, sizeof(err))) {
		fprintf(stderr, "    audit: %s\n", err);
		return -1;
	}
	int k = a.altered;
	if (hashed)
		*hashed = a.hashed;
	st_audit_free(&a);
	return k;
}

static struct st_store *fixture_store(const char *name, struct fixture *f)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/%s", unit_tmpdir(), name);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "    open: %s\n", err);
		return NULL;
	}
	fixture_init(f);
	if (fixture_begin(s, f, "run-h", 3, 0) ||
	    st_store_baseline(s, "run-h", "net_all", "c2s", 2, "0,1", 1000000, 0.5, NULL, 4, err,
			      sizeof(err)) ||
	    st_store_baseline(s, "run-h", "disk", "write", 2, NULL, 0, 0, "O_DIRECT refused", 0, err,
			      sizeof(err)) ||
	    fixture_combo(s, f, "run-h", 0, 0) || fixture_combo(s, f, "run-h", 1, 1) ||
	    st_store_end_run(s, "run-h", "complete", "rank 1 (host h1): d/r1.t0: ETIMEDOUT", err, sizeof(err))) {
		st_store_close(s);
		return NULL;
	}
	return s;
}

/* Every column of every table of the schema, altered in turn (NULL <-> a
 * value, a number +1000, text + 'x'): the audit must see each change. A
 * table added to the schema without a row here, or a column the hashes do
 * not cover, fails this test. */
static void audit_sees_every_column(void)
{
	struct fixture f;
	struct st_store *s = fixture_store("every.db", &f);
	CHECK(s != NULL);
	if (!s)
		return;
	sqlite3 *db = st_store_db(s);
	int hashed = 0;
	CHECK_EQ_INT(altered(s, "run-h", &hashed), 0);
	CHECK(hashed == 1);
	/* a combination's id may change below: foreign keys would refuse it */
	CHECK(sqlite3_exec(db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_stmt *tables;
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT t.name, c.name FROM sqlite_schema t, pragma_table_info(t.name) c "
				 "WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%' ORDER BY t.name, c.cid",
				 -1, &tables, NULL) == SQLITE_OK);
	int columns = 0, tried = 0, missed = 0;
	while (sqlite3_step(tables) == SQLITE_ROW) {
		char table[64], col[64], sql[512];
		snprintf(table, sizeof(table), "%s", sqlite3_column_text(tables, 0));
		snprintf(col, sizeof(col), "%s", sqlite3_column_text(tables, 1));
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM \"%s\"", table);
		if (qd(db, sql) < 1) {
			fprintf(stderr, "    table %s has no row in the fixture\n", table);
			missed++;
			continue;
		}
		/* the run is found by its id: changing it loses the run, not a hash */
		if (strcmp(table, "run") == 0 && strcmp(col, "run_id") == 0)
			continue;
		columns++;
		static const char *const changes[] = {
			"CASE WHEN \"%2$s\" IS NULL THEN 0 WHEN typeof(\"%2$s\") IN ('integer', 'real') "
			"THEN \"%2$s\" + 1000 WHEN typeof(\"%2$s\") = 'blob' THEN x'00' "
			"ELSE \"%2$s\" || 'x' END",
			"NULL",
		};
		for (size_t k = 0; k < ST_ARRAY_LEN(changes); k++) {
			char set[400];
			snprintf(set, sizeof(set), changes[k], table, col);
			snprintf(sql, sizeof(sql),
				 "UPDATE \"%s\" SET \"%s\" = %s WHERE rowid = (SELECT MIN(rowid) FROM \"%s\") "
				 "AND (%s) IS NOT \"%s\"",
				 table, col, set, table, set, col);
			CHECK(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
			/* NOT NULL refuses NULL; nothing to change is no case either */
			if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
			    sqlite3_changes(db) == 1) {
				tried++;
				int got = altered(s, "run-h", NULL);
				if (got < 1) {
					fprintf(stderr, "    %s.%s = %s: the audit saw nothing\n", table, col,
						k ? "NULL" : "changed");
					missed++;
				}
			}
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		}
	}
	sqlite3_finalize(tables);
	CHECK_EQ_INT(missed, 0);
	CHECK(columns > 100); /* every table's columns were reached */
	CHECK(tried >= columns);
	/* rows swapped: two ranks' bytes exchanged */
	CHECK(sqlite3_exec(db,
			   "BEGIN; UPDATE rank_result SET bytes = CASE rank WHEN 0 THEN 2000 ELSE 1000 END "
			   "WHERE rank IN (0, 1)",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(altered(s, "run-h", NULL) >= 1);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	/* a row deleted, a row added */
	CHECK(sqlite3_exec(db, "BEGIN; DELETE FROM thread_result WHERE thread = 0 AND rank = 1", NULL,
			   NULL, NULL) == SQLITE_OK);
	CHECK(altered(s, "run-h", NULL) >= 1);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	CHECK(sqlite3_exec(db,
			   "BEGIN; INSERT INTO sample SELECT combo_id, phase, rank, t_ns + 1, metric, "
			   "device, value FROM sample LIMIT 1",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(altered(s, "run-h", NULL) >= 1);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	CHECK_EQ_INT(altered(s, "run-h", NULL), 0); /* and all is back */
	st_store_close(s);
}

/* Which items an audit finds altered, as "config baselines seq:1 result". */
static void altered_items(struct st_store *s, const char *run_id, char *buf, size_t n)
{
	char err[ST_ERR_MAX];
	struct st_audit a;
	buf[0] = '\0';
	if (st_store_audit(s, run_id, &a, err, sizeof(err))) {
		snprintf(buf, n, "error: %s", err);
		return;
	}
	for (size_t i = 0; i < a.n; i++) {
		if (a.items[i].state == ST_AUDIT_OK)
			continue;
		size_t l = strlen(buf);
		if (a.items[i].seq >= 0)
			snprintf(buf + l, n - l, "%sseq:%lld", l ? " " : "", (long long)a.items[i].seq);
		else
			snprintf(buf + l, n - l, "%s%s", l ? " " : "", a.items[i].what);
	}
	st_audit_free(&a);
}

/* A crash between combinations, then --resume with more ranks: every hash
 * matches. A change made before the resume is not covered up by it. */
static void audit_resume_and_tampering(void)
{
	char path[512], err[ST_ERR_MAX], got[256];
	snprintf(path, sizeof(path), "%s/resume.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(fixture_begin(s, &f, "run-r", 2, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-r", 0, 0) == 0);
	/* the run dies here: running, one combination stored */
	CHECK_EQ_INT(altered(s, "run-r", NULL), 0);
	st_store_close(s);
	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(fixture_begin(s, &f, "run-r", 3, 1) == 0); /* a third host this time */
	CHECK(st_store_baseline(s, "run-r", "disk", "read", 2, NULL, 10, 1.0, NULL, 0, err,
				sizeof(err)) == 0);
	CHECK(fixture_combo(s, &f, "run-r", 1, 0) == 0);
	CHECK(st_store_end_run(s, "run-r", "complete", NULL, err, sizeof(err)) == 0);
	sqlite3 *db = st_store_db(s);
	CHECK(qd(db, "SELECT COUNT(*) FROM host WHERE run_id = 'run-r'") == 3);
	altered_items(s, "run-r", got, sizeof(got));
	CHECK(strcmp(got, "") == 0);

	/* altered, then resumed: the resume's new hashes do not bless it */
	CHECK(sqlite3_exec(db,
			   "UPDATE host SET hostname = 'elsewhere' WHERE rank = 0; "
			   "UPDATE baseline SET mbps = 99; UPDATE run SET status = 'aborted'",
			   NULL, NULL, NULL) == SQLITE_OK);
	altered_items(s, "run-r", got, sizeof(got));
	CHECK(strcmp(got, "config baselines result") == 0);
	CHECK(fixture_begin(s, &f, "run-r", 3, 1) == 0);
	CHECK(st_store_baseline(s, "run-r", "disk", "write", 2, NULL, 10, 1.0, NULL, 0, err,
				sizeof(err)) == 0);
	CHECK(fixture_combo(s, &f, "run-r", 2, 0) == 0);
	CHECK(st_store_end_run(s, "run-r", "complete", NULL, err, sizeof(err)) == 0);
	altered_items(s, "run-r", got, sizeof(got));
	if (strcmp(got, "config baselines result") != 0)
		fprintf(stderr, "    after the resume: altered '%s'\n", got);
	CHECK(strcmp(got, "config baselines result") == 0);

	/* a combination whose hash is gone, in a run that has hashes */
	CHECK(sqlite3_exec(db, "UPDATE combo SET row_hash = NULL WHERE seq = 1", NULL, NULL, NULL) ==
	      SQLITE_OK);
	altered_items(s, "run-r", got, sizeof(got));
	CHECK(strcmp(got, "config baselines seq:1 result") == 0);
	/* an unknown run is an error, not an audit */
	struct st_audit a;
	CHECK(st_store_audit(s, "no-such-run", &a, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no run 'no-such-run'") != NULL);
	st_store_close(s);
}

/* A run marked aborted by the watch's own connection (a rank died) has
 * the mark in its result hash: it audits ok, and so does its --resume. */
static void audit_aborted_run(void)
{
	char path[512], err[ST_ERR_MAX], got[256];
	snprintf(path, sizeof(path), "%s/aborted.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(fixture_begin(s, &f, "run-x", 3, 0) == 0);
	struct st_abort_mark *m = st_store_abort_mark_open(path, "run-x", err, sizeof(err));
	CHECK(m != NULL);
	CHECK(fixture_combo(s, &f, "run-x", 0, 0) == 0);
	if (m) {
		CHECK_EQ_INT(st_store_abort_mark(m, 2, "rank 2 ended", err, sizeof(err)), 1);
		CHECK_EQ_INT(st_store_abort_mark(m, 1, "again", err, sizeof(err)), 1); /* no change */
		st_store_abort_mark_close(m);
	}
	sqlite3 *db = st_store_db(s);
	CHECK(qd(db, "SELECT COUNT(*) FROM run WHERE status = 'aborted' AND abort_rank = 2") == 1);
	altered_items(s, "run-x", got, sizeof(got));
	if (*got)
		fprintf(stderr, "    aborted run: altered '%s'\n", got);
	CHECK(strcmp(got, "") == 0);
	CHECK(fixture_begin(s, &f, "run-x", 3, 1) == 0);
	CHECK(fixture_combo(s, &f, "run-x", 1, 0) == 0);
	CHECK(st_store_end_run(s, "run-x", "complete", NULL, err, sizeof(err)) == 0);
	altered_items(s, "run-x", got, sizeof(got));
	CHECK(strcmp(got, "") == 0);
	/* the reason is kept after the resume, and covered */
	CHECK(sqlite3_exec(db, "UPDATE run SET abort_reason = 'someone else'", NULL, NULL, NULL) ==
	      SQLITE_OK);
	altered_items(s, "run-x", got, sizeof(got));
	CHECK(strcmp(got, "result") == 0);
	st_store_close(s);
}

static const char *qs(sqlite3 *db, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
	}
	return buf;
}

/* The RPC views over stored rows: nfsiostat's figures (rpc_summary), the
 * mix beside MB/s (rpc_mix) and what contradicts the request (rpc_flag):
 * sync asked but UNSTABLE sent, a read after a cache drop that sent no
 * READ, an option overridden, major timeouts and retransmissions. */
static void rpc_views(void)
{
	char path[512], err[ST_ERR_MAX], buf[1024];
	snprintf(path, sizeof(path), "%s/rpc.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	st_config_set(&f.cfg, ST_OPT_SYNC, "sync", 1, NULL, err, sizeof(err));
	st_plan_combo(&f.cfg, 0, &f.combo);
	/* rank 0's write phase: 10 WRITEs UNSTABLE and 2 COMMITs in 1 s */
	f.rpc[0].op[0].file_sync = 0;
	f.rpc[0].op[0].unstable = 10;
	f.rpc[1].source = ST_RPC_NONE;
	/* and 2 of them timed out in full, 3 were sent again */
	f.rpc[0].op[0].timeouts = 2;
	f.rpc[0].op[0].trans = f.rpc[0].op[0].ops + 3;
	/* and the other operations it sent, each named in the mix (the most
	 * first), none lumped as "other" */
	f.rpc[0].nops = 4;
	snprintf(f.rpc[0].op[2].name, sizeof(f.rpc[0].op[2].name), "GETATTR");
	f.rpc[0].op[2].ops = f.rpc[0].op[2].trans = 3;
	snprintf(f.rpc[0].op[3].name, sizeof(f.rpc[0].op[3].name), "LOOKUP");
	f.rpc[0].op[3].ops = f.rpc[0].op[3].trans = 5;
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	sqlite3 *db = st_store_db(s);
	CHECK(fixture_begin(s, &f, "run-v", 3, 0) == 0);
	struct st_rank_result rd[3];
	memcpy(rd, f.rr, sizeof(rd));
	for (int r = 0; r < 3; r++)
		rd[r].phase = ST_PHASE_READ;
	struct st_rpc_result rpc_rd[3];
	memcpy(rpc_rd, f.rpc, sizeof(rpc_rd));
	snprintf(rpc_rd[0].op[0].name, sizeof(rpc_rd[0].op[0].name), "READ");
	rpc_rd[0].op[0].ops = 0; /* the cache answered */
	rpc_rd[0].op[0].unstable = 0;
	for (int r = 0; r < 3; r++) { /* every call answered the first time */
		rpc_rd[r].op[0].timeouts = 0;
		rpc_rd[r].op[0].trans = rpc_rd[r].op[0].ops;
	}
	struct st_phase_record ph[2] = {
		{ .phase = ST_PHASE_WRITE, .ranks = f.rr, .threads = f.tr, .nthreads = 2,
		  .gathered_ns = 5, .rpc = f.rpc, .nrpc = 3 },
		{ .phase = ST_PHASE_READ, .ranks = rd, .threads = f.tr, .nthreads = 2,
		  .gathered_ns = 6, .rpc = rpc_rd, .nrpc = 3 },
	};
	struct st_combo_record rec = { .run_id = "run-v", .cfg = &f.cfg, .combo = &f.combo,
				       .status = "ok", .nranks = 3, .prep = f.prep, .phases = ph,
				       .nphases = 2, .roles = f.roles };
	CHECK(st_store_combo(s, &rec, err, sizeof(err)) == 0);
	/* the write phase spans 0..1.5 s (clients 0 and 1) */
	CHECK_EQ_INT(qd(db, "SELECT ops FROM rpc_summary WHERE phase = 'write' AND op = 'WRITE'"), 10);
	CHECK(strcmp(qs(db, "SELECT ROUND(ops_per_s, 2) FROM rpc_summary WHERE phase = 'write' AND "
			    "op = 'WRITE'", buf, sizeof(buf)), "6.67") == 0);
	CHECK(strcmp(qs(db, "SELECT ROUND(kib_per_op, 3) FROM rpc_summary WHERE phase = 'write' AND "
			    "op = 'WRITE'", buf, sizeof(buf)), "0.322") == 0); /* 3300 B / 1024 / 10 */
	CHECK(strcmp(qs(db, "SELECT avg_rtt_ms || ' ' || avg_exe_ms || ' ' || pct_file_sync || ' ' || "
			    "stable_basis FROM rpc_summary WHERE phase = 'write' AND op = 'WRITE'",
			    buf, sizeof(buf)), "0.07 0.08 0.0 inferred") == 0);
	if (strcmp(buf, "0.07 0.08 0.0 inferred"))
		fprintf(stderr, "    summary: %s\n", buf);
	qs(db, "SELECT mix FROM rpc_mix WHERE phase = 'write'", buf, sizeof(buf));
	const char *mix = "WRITE 10 x 0 KiB ~UNSTABLE, COMMIT 2, READ 0, LOOKUP 5, GETATTR 3, retrans 3, "
			  "timeouts 2";
	if (strcmp(buf, mix))
		fprintf(stderr, "    mix: %s\n", buf);
	CHECK(strcmp(buf, mix) == 0);
	qs(db, "SELECT group_concat(phase || ':' || flag, '|') FROM (SELECT COALESCE(phase, '-') AS "
	       "phase, flag FROM rpc_flag ORDER BY flag, detail)",
	   buf, sizeof(buf));
	const char *want = "write:NFS major timeouts or retransmissions|"
			   "read:read after a cache drop sent no READs|-:requested != effective|"
			   "-:requested != effective|write:sync asked, UNSTABLE sent";
	if (strcmp(buf, want))
		fprintf(stderr, "    flags: %s\n", buf);
	CHECK(strcmp(buf, want) == 0);
	qs(db, "SELECT group_concat(detail, '|') FROM rpc_flag WHERE flag = 'requested != effective'",
	   buf, sizeof(buf));
	CHECK(strstr(buf, "lock: (not asked) -> nolock (nolock added) on ranks 0,1,2") != NULL);
	CHECK(strstr(buf, "rsize: (not asked) -> 64k (131072 asked, 65536 granted)") != NULL);
	qs(db, "SELECT detail FROM rpc_flag WHERE flag LIKE 'sync%'", buf, sizeof(buf));
	CHECK(strstr(buf, "10 of 10 WRITEs UNSTABLE, 2 COMMITs (O_DIRECT: ") != NULL);
	/* each phase's line: its own flags and its combination's */
	CHECK_EQ_INT(qd(db, "SELECT flags FROM phase_flags WHERE phase = 'write'"), 4);
	CHECK_EQ_INT(qd(db, "SELECT flags FROM phase_flags WHERE phase = 'read'"), 3);
	qs(db, "SELECT detail FROM rpc_flag WHERE flag LIKE 'NFS%'", buf, sizeof(buf));
	if (strncmp(buf, "2 major timeouts, 3 retransmissions (", 37))
		fprintf(stderr, "    timeouts: %s\n", buf);
	CHECK(strncmp(buf, "2 major timeouts, 3 retransmissions (", 37) == 0);
	st_store_close(s);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* What schema version 6 added (issue 10), taken away again, every view first
 * (they name the columns; the store makes them anew when it opens). */
#define V6_ADDED \
	"DROP VIEW IF EXISTS phase_flags; DROP VIEW IF EXISTS rpc_flag; DROP VIEW IF EXISTS option_override; " \
	"DROP VIEW IF EXISTS rpc_mix; DROP VIEW IF EXISTS rpc_summary; DROP VIEW IF EXISTS phase_cpu; " \
	"DROP VIEW IF EXISTS verdict; DROP VIEW IF EXISTS server_summary; DROP VIEW IF EXISTS result; " \
	"DROP VIEW IF EXISTS phase_summary; DROP VIEW IF EXISTS client_result; DROP VIEW IF EXISTS run_summary; " \
	"DROP VIEW IF EXISTS phase_tail; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; " \
	"DROP TABLE rpc_stat; ALTER TABLE effective_option DROP COLUMN note; "             \
	"ALTER TABLE phase_run DROP COLUMN cache_drop_note; "                              \
	"ALTER TABLE rank_result DROP COLUMN cache_drop; "                                 \
	"ALTER TABLE rank_result DROP COLUMN cache_drop_note; "

/* A store of schema version 2: its run, hashed without the rpc_stat rows
 * and the note columns version 3 added, audits ok before and after the
 * migration (a table added later is hashed only when it has rows), and a
 * new run in the migrated store has them, hashed. */
static void rehash_run(sqlite3 *db, const char *run);

static void audit_version_2_store(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/v2.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	/* what version 2 could write: no RPC counts, no notes */
	memset(f.rpc, 0, sizeof(f.rpc));
	for (int r = 0; r < 3; r++) {
		f.prep[r].eff.note[0] = f.prep[r].eff.added[0] = '\0';
		f.rr[r].cache_drop_note[0] = '\0';
	}
	f.rr[0].cache_drop[0] = '\0';
	CHECK(fixture_begin(s, &f, "run-2", 2, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-2", 0, 0) == 0);
	CHECK(st_store_end_run(s, "run-2", "complete", NULL, err, sizeof(err)) == 0);
	CHECK(sqlite3_exec(st_store_db(s),
			   V9_ADDED V6_ADDED V4_ADDED "ALTER TABLE thread_result DROP COLUMN io_mode; " V5_ADDED V8_ADDED V7_ADDED
			   "PRAGMA user_version = 2",
			   NULL, NULL, NULL) == SQLITE_OK);
	rehash_run(st_store_db(s), "run-2");
	st_store_close(s);
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	int hashed = 0;
	CHECK_EQ_INT(altered(s, "run-2", &hashed), 0);
	CHECK(hashed == 1);
	st_store_close(s);
	s = st_store_open(path, 0, err, sizeof(err)); /* migrates to the current version */
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(qd(st_store_db(s), "PRAGMA user_version") == ST_SCHEMA_VERSION);
	CHECK_EQ_INT(altered(s, "run-2", &hashed), 0);
	fixture_init(&f);
	CHECK(fixture_begin(s, &f, "run-3", 2, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-3", 0, 0) == 0);
	CHECK_EQ_INT(altered(s, "run-3", &hashed), 0);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM rpc_stat") == 6);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM effective_option WHERE option = 'lock' AND "
				 "effective = 'nolock' AND note = 'nolock added'") == 3);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM effective_option WHERE option = 'rsize' AND "
				 "note = '131072 asked, 65536 granted'") == 3);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM rank_result WHERE cache_drop = 'remount' AND "
				 "cache_drop_note = 'a new superblock'") == 1);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM phase_run WHERE cache_drop_note = 'a new "
				 "superblock'") == 1);
	/* a change of an RPC row is seen */
	CHECK(sqlite3_exec(st_store_db(s), "UPDATE rpc_stat SET unstable = 1 WHERE op = 'WRITE'",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(altered(s, "run-3", NULL) >= 1);
	CHECK_EQ_INT(altered(s, "run-2", NULL), 0);
	st_store_close(s);
}

/* A store of schema version 1 (no hash columns): audited read-only as it
 * is, "no hashes", and left unchanged; migrated by the next run, its old
 * run still has none and the new run has them all; resuming the old run
 * keeps it without (half a run hashed would look altered). */
static void audit_older_store(void)
{
	char path[512], err[ST_ERR_MAX];
	size_t cap = 4 << 20;
	char *before = malloc(cap), *after = malloc(cap);
	CHECK(before && after);
	if (!before || !after) {
		free(before);
		free(after);
		return;
	}
	snprintf(path, sizeof(path), "%s/v1.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		goto out;
	CHECK(fixture_begin(s, &f, "run-old", 2, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-old", 0, 0) == 0);
	/* what version 1 wrote: the same rows, without the hash columns and
	 * without what versions 3 to 6 added (io_mode; issue 13's table and columns;
	 * run.cleanup, baseline.streams; issue 10's rpc_stat and notes) */
	CHECK(sqlite3_exec(st_store_db(s),
			   V9_ADDED V6_ADDED V4_ADDED
			   "ALTER TABLE run DROP COLUMN config_hash; "
			   "ALTER TABLE run DROP COLUMN baseline_hash; "
			   "ALTER TABLE run DROP COLUMN result_hash; "
			   "ALTER TABLE combo DROP COLUMN row_hash; "
			   "ALTER TABLE thread_result DROP COLUMN io_mode; " V5_ADDED V8_ADDED V7_ADDED "PRAGMA user_version = 1",
			   NULL, NULL, NULL) == SQLITE_OK);
	st_store_close(s);

	ssize_t lb, la;
	slurp(path, before, cap, &lb);
	CHECK(lb > 0 && lb < (ssize_t)cap);
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		goto out;
	int hashed = 1;
	CHECK_EQ_INT(altered(s, "run-old", &hashed), 0);
	CHECK(hashed == 0);
	struct st_audit a;
	CHECK(st_store_audit(s, "nope", &a, err, sizeof(err)) == -1);
	st_store_close(s);
	slurp(path, after, cap, &la);
	CHECK(la == lb && lb > 0 && memcmp(before, after, (size_t)lb) == 0);

	s = st_store_open(path, 0, err, sizeof(err)); /* migrates to the current version */
	CHECK(s != NULL);
	if (!s)
		goto out;
	CHECK(qd(st_store_db(s), "PRAGMA user_version") == ST_SCHEMA_VERSION);
	CHECK(fixture_begin(s, &f, "run-new", 2, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-new", 0, 0) == 0);
	CHECK_EQ_INT(altered(s, "run-new", &hashed), 0);
	CHECK(hashed == 1);
	CHECK(fixture_begin(s, &f, "run-old", 2, 1) == 0);
	CHECK(fixture_combo(s, &f, "run-old", 1, 0) == 0);
	CHECK(st_store_end_run(s, "run-old", "complete", NULL, err, sizeof(err)) == 0);
	CHECK_EQ_INT(altered(s, "run-old", &hashed), 0);
	CHECK(hashed == 0);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM combo WHERE row_hash IS NOT NULL") == 1);
	st_store_close(s);
out:
	free(before);
	free(after);
}

/* The hashes of run's combinations and result, made anew from the rows as
 * they are now: a store made older by dropping columns gets the hashes that
 * older version would have written. */
static void rehash_run(sqlite3 *db, const char *run)
{
	char err[ST_ERR_MAX], hex[ST_HASH_HEX], cfg[ST_HASH_HEX], base[ST_HASH_HEX],
		res[ST_HASH_HEX], sql[200];
	struct st_hasher *h = st_hasher_new(db, err, sizeof(err));
	sqlite3_stmt *set_row = NULL, *set_res = NULL;
	int found = 0;
	CHECK(h != NULL);
	CHECK(sqlite3_prepare_v2(db, "UPDATE combo SET row_hash = ?2 WHERE combo_id = ?1", -1,
				 &set_row, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "UPDATE run SET result_hash = ?2 WHERE run_id = ?1", -1,
				 &set_res, NULL) == SQLITE_OK);
	snprintf(sql, sizeof(sql), "SELECT combo_id FROM combo WHERE run_id = '%s'", run);
	int64_t id = (int64_t)qd(db, sql);
	CHECK(h && st_hash_combo(h, id, hex, err, sizeof(err)) == 0 &&
	      st_hash_set(set_row, NULL, id, hex, err, sizeof(err)) == 0 &&
	      st_hash_stored(h, run, cfg, base, res, &found, err, sizeof(err)) == 0 &&
	      st_hash_refresh_result(h, set_res, run, base, err, sizeof(err)) == 0);
	sqlite3_finalize(set_row);
	sqlite3_finalize(set_res);
	st_hasher_free(h);
}

/* Version 2 -> 3 (thread_result.io_mode): a run stored before keeps its
 * rows and hashes (the new column is NULL there, so its audit is ok); a
 * run stored after records each thread's mode. */
static void migrates_io_mode(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/v2.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	/* rows without histograms: their hist_enc is NULL, so dropping the
	 * column (version 4's) leaves the bytes their hashes cover as version 2 had them */
	for (int r = 0; r < 3; r++)
		st_hist_init(&f.rr[r].hist);
	CHECK(fixture_begin(s, &f, "run-v2", 3, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-v2", 0, 0) == 0);
	CHECK(st_store_end_run(s, "run-v2", "complete", NULL, err, sizeof(err)) == 0);
	CHECK(sqlite3_exec(st_store_db(s),
			   V9_ADDED V6_ADDED V4_ADDED "ALTER TABLE thread_result DROP COLUMN io_mode; " V5_ADDED V8_ADDED V7_ADDED
			   "PRAGMA user_version = 2",
			   NULL, NULL, NULL) == SQLITE_OK);
	rehash_run(st_store_db(s), "run-v2");
	double rows = qd(st_store_db(s), "SELECT COUNT(*) FROM thread_result");
	st_store_close(s);

	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(qd(st_store_db(s), "PRAGMA user_version") == ST_SCHEMA_VERSION);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM thread_result WHERE io_mode IS NULL") == rows);
	CHECK_EQ_INT(altered(s, "run-v2", NULL), 0);
	snprintf(f.tr[0].io_mode, sizeof(f.tr[0].io_mode), "io_uring");
	snprintf(f.tr[1].io_mode, sizeof(f.tr[1].io_mode), "sync (io_uring_setup: EPERM; io_setup: ENOSYS)");
	CHECK(fixture_begin(s, &f, "run-v3", 3, 0) == 0);
	CHECK(fixture_combo(s, &f, "run-v3", 0, 0) == 0);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM thread_result t JOIN combo c USING (combo_id) "
				 "WHERE c.run_id = 'run-v3' AND (io_mode = 'io_uring' OR io_mode LIKE "
				 "'sync (io_uring_setup: EPERM;%')") == 2);
	CHECK_EQ_INT(altered(s, "run-v3", NULL), 0);
	CHECK_EQ_INT(altered(s, "run-v2", NULL), 0);
	st_store_close(s);
}

/* A combination of 70 ranks and 70 threads: its rows go 32 a statement,
 * then one by one; every row is there with its own values, and audits ok. */
static void many_ranks_batched(void)
{
	char path[512], err[ST_ERR_MAX];
	enum { N = 70 };
	snprintf(path, sizeof(path), "%s/many.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	static struct st_host_info hosts[N];
	static struct st_rank_result rr[N];
	static struct st_thread_result tr[N];
	static struct st_prepare_status prep[N];
	int roles[N], partners[N];
	int64_t offs[N], rtts[N];
	for (int r = 0; r < N; r++) {
		snprintf(hosts[r].hostname, sizeof(hosts[r].hostname), "h%d", r);
		roles[r] = ST_ROLE_CLIENT;
		partners[r] = r;
		offs[r] = rtts[r] = r;
		rr[r] = rank(r, ST_ROLE_CLIENT, 1000u + (unsigned)r, 10, 0.0, 1.0);
		memset(&tr[r], 0, sizeof(tr[r]));
		tr[r].rank = (uint32_t)r;
		tr[r].bytes = 1000u + (unsigned)r;
		tr[r].ops = 10;
		snprintf(tr[r].io_mode, sizeof(tr[r].io_mode), "m%d", r);
	}
	struct st_run_record run = { .run_id = "run-many", .cfg = &f.cfg, .command = "test",
				     .started_wall_ns = 1, .nranks = N, .nhosts = N,
				     .combos_planned = 1, .hosts = hosts, .roles = roles,
				     .clock_offset_ns = offs, .clock_rtt_ns = rtts,
				     .partners = partners };
	CHECK(st_store_begin_run(s, &run, err, sizeof(err)) == 0);
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = rr, .threads = tr,
				      .nthreads = N, .gathered_ns = 5 };
	struct st_combo_record rec = { .run_id = "run-many", .cfg = &f.cfg, .combo = &f.combo,
				       .status = "ok", .nranks = N, .prep = prep, .phases = &ph,
				       .nphases = 1, .roles = roles };
	CHECK(st_store_combo(s, &rec, err, sizeof(err)) == 0);
	sqlite3 *db = st_store_db(s);
	CHECK(qd(db, "SELECT COUNT(*) FROM rank_result WHERE bytes = 1000 + rank") == N);
	CHECK(qd(db, "SELECT COUNT(*) FROM thread_result WHERE bytes = 1000 + rank AND io_mode = 'm' || rank") == N);
	CHECK(qd(db, "SELECT COUNT(DISTINCT rank) FROM rank_result") == N);
	CHECK(qd(db, "SELECT bytes FROM phase_summary") == N * 1000 + N * (N - 1) / 2);
	CHECK_EQ_INT(altered(s, "run-many", NULL), 0);
	st_store_close(s);
}

/* A store of version 2 (before issue 13's table and columns): its runs'
 * hashes hold read-only (no interval table to hash) and after the
 * migration to version 4 (a table added later names itself in a hash only
 * with its first row). */
static void audit_version2_store_across_the_migration(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/v2.db", unit_tmpdir());
	struct fixture f;
	fixture_init(&f);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(fixture_begin(s, &f, "run-2", 2, 0) == 0);
	/* version 2 stored no intervals */
	char werr[ST_ERR_MAX];
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = f.rr, .threads = f.tr,
				      .nthreads = 2, .gathered_ns = 5 };
	struct st_combo_record rec = { .run_id = "run-2", .cfg = &f.cfg, .combo = &f.combo,
				       .status = "ok", .nranks = 3, .prep = f.prep, .phases = &ph,
				       .nphases = 1, .roles = f.roles };
	CHECK(st_store_combo(s, &rec, werr, sizeof(werr)) == 0);
	CHECK(st_store_end_run(s, "run-2", "complete", NULL, err, sizeof(err)) == 0);
	sqlite3 *db = st_store_db(s);
	CHECK(sqlite3_exec(db, V9_ADDED V6_ADDED V4_ADDED "ALTER TABLE thread_result DROP COLUMN io_mode; " V5_ADDED V8_ADDED V7_ADDED
			       "PRAGMA user_version = 2", NULL, NULL, NULL) == SQLITE_OK);
	/* the hashes version 2 wrote: of these rows, without the columns it had not */
	rehash_run(db, "run-2");
	st_store_close(s);
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	int hashed = 0;
	CHECK_EQ_INT(altered(s, "run-2", &hashed), 0);
	CHECK(hashed == 1);
	st_store_close(s);
	s = st_store_open(path, 0, err, sizeof(err)); /* migrates to the current version */
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(qd(st_store_db(s), "PRAGMA user_version") == ST_SCHEMA_VERSION);
	CHECK(qd(st_store_db(s), "SELECT COUNT(*) FROM interval") == 0);
	CHECK_EQ_INT(altered(s, "run-2", &hashed), 0);
	/* and a row added there now is seen */
	CHECK(sqlite3_exec(st_store_db(s),
			   "INSERT INTO interval_pack (combo_id, phase, rank, idx0, n, t0_ns, width_ns, "
			   "last_end_ns, ops0, rops_k, rbytes_k, wbytes_k) "
			   "SELECT combo_id, 'write', 0, 0, 1, 0, 1, 1, 0, 0, 0, 0 FROM combo",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(altered(s, "run-2", &hashed) > 0);
	st_store_close(s);
}

struct holder {
	sqlite3 *db;
	int ms;
};

/* One run of 4 ranks (3 clients, a server) and one write phase of rr into s. */
static int hist_run(struct st_store *s, const char *run_id, struct st_rank_result *rr)
{
	char err[ST_ERR_MAX];
	struct st_config cfg;
	st_config_defaults(&cfg);
	st_config_set(&cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err));
	struct st_host_info hosts[4];
	memset(hosts, 0, sizeof(hosts));
	int roles[4] = { 0, 0, 0, ST_ROLE_SERVER }, partners[4] = { 1, 2, 0, 3 };
	int64_t offs[4] = { 0 }, rtts[4] = { 0 };
	struct st_run_record run = { .run_id = run_id, .cfg = &cfg, .command = "test",
				     .nranks = 4, .nhosts = 4, .combos_planned = 1, .hosts = hosts,
				     .roles = roles, .clock_offset_ns = offs, .clock_rtt_ns = rtts,
				     .partners = partners };
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = rr };
	struct st_combo c;
	st_plan_combo(&cfg, 0, &c);
	struct st_combo_record rec = { .run_id = run_id, .combo = &c, .status = "ok",
				       .nranks = 4, .phases = &ph, .nphases = 1 };
	return st_store_begin_run(s, &run, err, sizeof(err)) ||
	       st_store_combo(s, &rec, err, sizeof(err)) ||
	       st_store_end_run(s, run_id, "complete", NULL, err, sizeof(err));
}

/* The percentiles a store answers for run_id, as one text: per rank the
 * stored lat_p50/p99/max and those of its hist blob, per phase phase_run's
 * and those of every rank's blob merged (enc: the hist_enc column, or NULL
 * for a store without it). Also checks that the blobs' figures equal the
 * stored columns. */
static void hist_figures(sqlite3 *db, const char *run_id, const char *enc, char *out, size_t n)
{
	char inner[1600], sql[1700];
	snprintf(inner, sizeof(inner),
		 "SELECT r.rank || ':' || r.lat_p50_ns || '/' || r.lat_p99_ns || '/' || r.lat_max_ns || '=' "
		 "|| st_hist_quantile(r.hist, %s, 0.5) || '/' || st_hist_quantile(r.hist, %s, 0.99) || '/' "
		 "|| st_hist_quantile(r.hist, %s, 1) AS x, "
		 "(r.lat_p50_ns = st_hist_quantile(r.hist, %s, 0.5) AND r.lat_p99_ns = st_hist_quantile(r.hist, %s, 0.99) "
		 "AND r.lat_max_ns = st_hist_quantile(r.hist, %s, 1)) AS same "
		 "FROM rank_result r JOIN combo c USING (combo_id) WHERE c.run_id = '%s' AND r.hist IS NOT NULL "
		 "GROUP BY r.combo_id, r.rank "
		 "UNION ALL SELECT 'phase:' || p.lat_p50_ns || '/' || p.lat_p90_ns || '/' || p.lat_p99_ns || '/' || p.lat_max_ns, "
		 "p.lat_p50_ns = st_hist_quantile(r.hist, %s, 0.5) AND p.lat_p90_ns = st_hist_quantile(r.hist, %s, 0.9) "
		 "AND p.lat_p99_ns = st_hist_quantile(r.hist, %s, 0.99) AND p.lat_max_ns = st_hist_quantile(r.hist, %s, 1) "
		 "FROM phase_run p JOIN rank_result r USING (combo_id, phase) JOIN combo c USING (combo_id) "
		 "WHERE c.run_id = '%s' GROUP BY p.combo_id, p.phase",
		 enc, enc, enc, enc, enc, enc, run_id, enc, enc, enc, enc, run_id);
	snprintf(sql, sizeof(sql), "SELECT group_concat(x, ' ') FROM (%s)", inner);
	sqlite3_stmt *st = NULL;
	out[0] = '\0';
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	/* 3 client ranks with a histogram and the phase: every figure equal */
	snprintf(sql, sizeof(sql), "SELECT SUM(same) FROM (%s)", inner);
	CHECK(qd(db, sql) == 4);
}

/* Version 6 -> 7 (sparse histograms): a store whose rank rows hold the
 * struct's bytes, as version 6 wrote them, answers the same percentiles
 * before and after the migration, which rewrites none of its rows; a run
 * stored after writes the sparse encoding, far smaller, with the same
 * percentiles for the same histograms. */
static void migrates_sparse_histograms(void)
{
	char path[512], err[ST_ERR_MAX], before[1024], mid[1024], after[1024], fresh[1024];
	snprintf(path, sizeof(path), "%s/v6.db", unit_tmpdir());
	/* spread latencies: 1 us .. ~20 ms, a different mix per rank */
	struct st_rank_result rr[4] = {
		rank(0, ST_ROLE_CLIENT, 100000000, 0, 0.0, 1.0),
		rank(1, ST_ROLE_CLIENT, 150000000, 0, 0.1, 1.6),
		rank(2, ST_ROLE_CLIENT, 50000000, 0, 0.0, 2.0),
		rank(3, ST_ROLE_SERVER, 0, 0, 0.0, 0.5),
	};
	uint64_t x = 12345;
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 5000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			st_hist_add(&rr[r].hist, 1000 + (x >> 33) % (uint64_t)(2000000 * (r + 1)) * (uint64_t)(r + 1) +
						    (i % 97 == 0 ? 15000000 : 0));
			rr[r].ops++;
		}
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(hist_run(s, "run-v3", rr) == 0);
	/* what version 6 wrote: every histogram as the struct's bytes (the old
	 * writer bound &rr->hist, sizeof(rr->hist)), no hist_enc column */
	sqlite3 *db = st_store_db(s);
	sqlite3_stmt *up = NULL;
	CHECK(sqlite3_prepare_v2(db, "UPDATE rank_result SET hist = ?2 WHERE rank = ?1", -1, &up, NULL) == SQLITE_OK);
	for (int r = 0; up && r < 4; r++) {
		sqlite3_bind_int(up, 1, r);
		if (rr[r].hist.count)
			sqlite3_bind_blob(up, 2, &rr[r].hist, sizeof(rr[r].hist), SQLITE_STATIC);
		else
			sqlite3_bind_null(up, 2);
		CHECK(sqlite3_step(up) == SQLITE_DONE);
		sqlite3_reset(up);
	}
	sqlite3_finalize(up);
	CHECK(sqlite3_exec(db, V9_ADDED V8_ADDED V7_ADDED "PRAGMA user_version = 6",
			   NULL, NULL, NULL) == SQLITE_OK);
	double old_bytes = qd(db, "SELECT SUM(length(hist)) FROM rank_result");
	CHECK(old_bytes == 3.0 * sizeof(struct st_hist));
	st_store_close(s);

	/* before the migration (read-only: a version 6 store as it is) */
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	hist_figures(st_store_db(s), "run-v3", "NULL", before, sizeof(before));
	st_store_close(s);
	/* the migration: a run opens it */
	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	db = st_store_db(s);
	CHECK(qd(db, "PRAGMA user_version") == ST_SCHEMA_VERSION);
	CHECK(qd(db, "SELECT COUNT(*) FROM rank_result WHERE hist_enc IS NULL") == 4);
	CHECK(qd(db, "SELECT SUM(length(hist)) FROM rank_result") == old_bytes); /* not rewritten */
	hist_figures(db, "run-v3", "r.hist_enc", mid, sizeof(mid));
	CHECK(strcmp(before, mid) == 0);
	CHECK(strlen(before) > 40);
	/* a new run of the same histograms: sparse, the same figures */
	CHECK(hist_run(s, "run-v4", rr) == 0);
	CHECK(qd(db, "SELECT COUNT(*) FROM rank_result r JOIN combo c USING (combo_id) "
		     "WHERE c.run_id = 'run-v4' AND hist_enc = 1") == 3);
	hist_figures(db, "run-v3", "r.hist_enc", after, sizeof(after));
	hist_figures(db, "run-v4", "r.hist_enc", fresh, sizeof(fresh));
	CHECK(strcmp(before, after) == 0);
	CHECK(strcmp(before, fresh) == 0);
	double new_bytes = qd(db, "SELECT SUM(length(hist)) FROM rank_result r JOIN combo c USING (combo_id) "
				  "WHERE c.run_id = 'run-v4'");
	CHECK(new_bytes > 0 && new_bytes < old_bytes / 4);
	CHECK(qd(db, "SELECT MAX(length(hist)) FROM rank_result WHERE hist_enc = 1") < 1024);
	if (strcmp(before, fresh))
		fprintf(stderr, "    before %s\n    fresh  %s\n", before, fresh);
	st_store_close(s);
}

/* The sparse encoding: every histogram back exactly; blobs that are not one refused. */
static void sparse_histogram_blobs(void)
{
	struct st_hist h, back;
	unsigned char buf[ST_HISTBLOB_MAX];
	st_hist_init(&h);
	CHECK(st_histblob_decode(buf, st_histblob_encode(&h, buf), ST_HISTBLOB_SPARSE, &back) == 0);
	CHECK(memcmp(&h, &back, sizeof(h)) == 0);
	/* every bucket, the largest counts: the bound holds */
	for (int b = 0; b < ST_HIST_BUCKETS; b++)
		h.bucket[b] = UINT64_MAX / ST_HIST_BUCKETS;
	h.count = (UINT64_MAX / ST_HIST_BUCKETS) * ST_HIST_BUCKETS;
	h.sum_ns = h.min_ns = h.max_ns = UINT64_MAX;
	size_t n = st_histblob_encode(&h, buf);
	CHECK(n <= ST_HISTBLOB_MAX);
	CHECK(st_histblob_decode(buf, n, ST_HISTBLOB_SPARSE, &back) == 0 && memcmp(&h, &back, sizeof(h)) == 0);
	st_hist_init(&h);
	st_hist_add(&h, 3);
	st_hist_add(&h, 1000000);
	st_hist_add(&h, 1000000);
	st_hist_add(&h, (uint64_t)1 << 43);
	n = st_histblob_encode(&h, buf);
	CHECK(n < 32);
	CHECK(st_histblob_decode(buf, n, ST_HISTBLOB_SPARSE, &back) == 0 && memcmp(&h, &back, sizeof(h)) == 0);
	CHECK(st_histblob_decode(buf, n - 1, ST_HISTBLOB_SPARSE, &back) == -1); /* cut short */
	CHECK(st_histblob_decode(buf, n, 7, &back) == -1);			/* unknown encoding */
	CHECK(st_histblob_decode(buf, n, 0, &back) == -1);			/* not the struct's length */
	CHECK(st_histblob_decode(&h, sizeof(h), 0, &back) == 0 && memcmp(&h, &back, sizeof(h)) == 0);
	unsigned char bad[ST_HISTBLOB_MAX];
	memcpy(bad, buf, n);
	bad[0] = 5; /* count 5: the buckets hold 4 */
	CHECK(st_histblob_decode(bad, n, ST_HISTBLOB_SPARSE, &back) == -1);
	/* a bucket past the last: count 1, sums, then distance 400 */
	unsigned char far[] = { 1, 1, 1, 1, 0x90, 0x03, 1 };
	CHECK(st_histblob_decode(far, sizeof(far), ST_HISTBLOB_SPARSE, &back) == -1);
	unsigned char zero[] = { 1, 1, 1, 1, 0, 1 }; /* distance 0: the same bucket twice */
	CHECK(st_histblob_decode(zero, sizeof(zero), ST_HISTBLOB_SPARSE, &back) == -1);
	unsigned char ok[] = { 1, 9, 9, 9, 10, 1 }; /* bucket 9 */
	CHECK(st_histblob_decode(ok, sizeof(ok), ST_HISTBLOB_SPARSE, &back) == 0 && back.bucket[9] == 1);
}

static void *release_later(void *arg)
{
	struct holder *h = arg;
	usleep((useconds_t)h->ms * 1000);
	sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/* Another run holds the store (a read transaction in rollback-journal mode,
 * as a run that is closing leaves it) while this one opens it: switching to
 * WAL gets SQLITE_BUSY at once, without the busy handler; the open must wait
 * and succeed, not fail with "database is locked". */
static void open_waits_for_a_busy_store(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/busy.db", unit_tmpdir());
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	st_store_close(s); /* leaves it in rollback-journal mode */
	struct holder h = { NULL, 300 };
	CHECK(sqlite3_open(path, &h.db) == SQLITE_OK);
	CHECK(sqlite3_exec(h.db, "BEGIN; SELECT COUNT(*) FROM run;", NULL, NULL, NULL) == SQLITE_OK);
	pthread_t t;
	pthread_create(&t, NULL, release_later, &h);
	int64_t t0 = st_now_ns();
	s = st_store_open(path, 0, err, sizeof(err));
	if (!s)
		fprintf(stderr, "    open failed: %s\n", err);
	CHECK(s != NULL);
	CHECK(st_now_ns() - t0 >= 250000000); /* it waited for the other run */
	pthread_join(t, NULL);
	st_store_close(s);
	sqlite3_close(h.db);
}

/* t_rank0_lock_says_whether_a_run_is_live: held, a second holder is told
 * the run is live, by whatever name of the store it asks (a symlink, a
 * hard link); released or its holder killed, it is not; the last holder
 * removes the file */
static void live_lock(void)
{
	char db[600], live[640], other[620], sym[620], hard[620], err[ST_ERR_MAX];
	const char *dir = unit_tmpdir();
	snprintf(db, sizeof(db), "%s/s.db", dir);
	snprintf(other, sizeof(other), "%s/other.db", dir);
	snprintf(sym, sizeof(sym), "%s/link.db", dir);
	snprintf(hard, sizeof(hard), "%s/hard.db", dir);
	struct st_live *a = NULL, *b = NULL, *c = NULL;
	CHECK(st_live_check(db, "run-a", err, sizeof(err)) == 0); /* no store: nothing live */
	CHECK(st_live_hold(db, "run-a", &a, err, sizeof(err)) == -1 && !a);
	FILE *f = fopen(db, "w");
	CHECK(f && fclose(f) == 0);
	f = fopen(other, "w");
	CHECK(f && fclose(f) == 0);
	struct stat st;
	CHECK(stat(db, &st) == 0);
	snprintf(live, sizeof(live), "%s/.stcluster-%llu.live", dir,
		 (unsigned long long)st.st_ino);
	CHECK(symlink("s.db", sym) == 0 && link(db, hard) == 0);
	CHECK(st_live_check(db, "run-a", err, sizeof(err)) == 0); /* no lock file: nothing live */
	CHECK(st_live_hold(sym, "run-a", &a, err, sizeof(err)) == 0 && a);
	CHECK(access(live, F_OK) == 0); /* the file's, not the link's */
	CHECK(st_live_hold(db, "run-b", &b, err, sizeof(err)) == 0 && b);
	CHECK(st_live_check(db, "run-a", err, sizeof(err)) == 1);
	CHECK(st_live_check(hard, "run-a", err, sizeof(err)) == 1);
	CHECK(st_live_check(other, "run-a", err, sizeof(err)) == 0); /* another store */
	CHECK(st_live_hold(db, "run-a", &c, err, sizeof(err)) == 1 && !c);
	CHECK(st_live_hold(hard, "run-a", &c, err, sizeof(err)) == 1 && !c);
	st_live_release(a);
	CHECK(st_live_check(db, "run-a", err, sizeof(err)) == 0);
	CHECK(access(live, F_OK) == 0); /* run-b still holds it */
	st_live_release(b);
	CHECK(access(live, F_OK) != 0);
	/* a holder that is killed holds nothing */
	int pipefd[2];
	CHECK(pipe(pipefd) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct st_live *k = NULL;
		char ok = st_live_hold(db, "run-k", &k, err, sizeof(err)) == 0 ? 'y' : 'n';
		if (write(pipefd[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char got = 0;
	CHECK(read(pipefd[0], &got, 1) == 1 && got == 'y');
	CHECK(st_live_check(db, "run-k", err, sizeof(err)) == 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(st_live_check(db, "run-k", err, sizeof(err)) == 0);
	close(pipefd[0]);
	close(pipefd[1]);
	unlink(live);
	unlink(sym);
	unlink(hard);
	unlink(other);
	unlink(db);
	rmdir(dir);
}

const struct unit_test unit_store[] = {
	{ "store: t_rank0_lock_says_whether_a_run_is_live", live_lock },
	{ "store: opening waits for another run holding the store", open_waits_for_a_busy_store },
	{ "store: schema created, migrated, views rebuilt", schema_and_migration },
	{ "store: foreign files refused and left unchanged", refuses_foreign_files },
	{ "store: aggregate, first-done, fairness, Jain, IOPS by hand", aggregates_by_hand },
	{ "store: t_phase_cpu_client_and_server_share_of_the_wall_and_per_mb", phase_cpu_by_hand },
	{ "store: SHA-256 (libcrypto) gives the FIPS 180-2 vectors", sha256_known_vectors },
	{ "store: canonical row bytes and their SHA-256; every change changes it", canonical_row_serialization },
	{ "store: audit sees a change of every column of every table", audit_sees_every_column },
	{ "store: audit after a crash and --resume; earlier changes stay visible", audit_resume_and_tampering },
	{ "store: audit of a schema 1 store: no hashes, unchanged; migrated", audit_older_store },
	{ "store: a schema 2 store gains thread_result.io_mode; its runs still audit ok", migrates_io_mode },
	{ "store: a schema 6 store's histograms give the same percentiles after migration; new rows sparse", migrates_sparse_histograms },
	{ "store: sparse histogram blobs round-trip exactly; malformed ones refused", sparse_histogram_blobs },
	{ "store: 70 ranks' rows, 32 a statement then one by one: every row, its values", many_ranks_batched },
	{ "store: a schema 2 run's hashes hold across the migration to 4",
	  audit_version2_store_across_the_migration },
	{ "store: a schema 2 store's runs audit ok after the migration to 6", audit_version_2_store },
	{ "store: the RPC views: nfsiostat's figures, the mix, the flags", rpc_views },
	{ "store: audit of a run marked aborted, and of its --resume", audit_aborted_run },
	{ NULL, NULL },
};
