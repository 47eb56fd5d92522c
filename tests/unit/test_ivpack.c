/*
 * test_ivpack.c - the intervals packed a rank and phase to a row (schema
 * version 9, store/ivpack.h): the view `interval` gives back every row as
 * stored, the views over it answer as they did over the table, an older
 * store's rows migrate unchanged in meaning (their audit holds), and a
 * migration that cannot keep them leaves the file byte for byte.
 */
#include "../../common/options.h"
#include "../../common/util.h"
#include "../../coordinator/store/ivpack.h"
#include "../../coordinator/store/rows.h"
#include "../../coordinator/store/store.h"
#include "unit.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define W 100000000LL	/* 100 ms intervals */
#define T0 1000000000LL /* the barrier release */
#define NIV 12		/* intervals a rank */

/* A run of three client ranks of known calls (the null engine's with a
 * fixed delay: 100 calls of 4 KiB an interval), each phase's intervals:
 * rank 0 ends its calls half-way through interval 11 and closes 300 ms
 * later (its tail); rank 1 completes no call in intervals 4-6; rank 2 is
 * mixed (50 reads of 8 KiB, 50 writes of 4 KiB an interval) and completes
 * 10 calls in interval 5. */
struct planted {
	struct st_config cfg;
	struct st_combo combo;
	struct st_host_info hosts[3];
	int roles[3], partners[3];
	int64_t offs[3], rtts[3];
	struct st_rank_result rr[3];
	struct st_prepare_status prep[3];
	struct st_interval iv[3 * NIV];
	uint64_t bytes[3];
};

static void plant(struct planted *p)
{
	char err[ST_ERR_MAX];
	memset(p, 0, sizeof(*p));
	st_config_defaults(&p->cfg);
	st_config_set(&p->cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err));
	st_plan_combo(&p->cfg, 0, &p->combo);
	for (int r = 0; r < 3; r++) {
		snprintf(p->hosts[r].hostname, sizeof(p->hosts[r].hostname), "host%d", r);
		p->hosts[r].cores = 2;
		p->roles[r] = ST_ROLE_CLIENT;
		p->partners[r] = r;
		struct st_rank_result *x = &p->rr[r];
		x->version = ST_WIRE_VERSION;
		x->rank = (uint32_t)r;
		x->role = ST_ROLE_CLIENT;
		x->nthreads = 1;
		x->start_ns = T0;
		st_hist_init(&x->hist);
		st_hist_init(&x->hist_read);
		st_hist_init(&x->hist_write);
		for (int k = 0; k < NIV; k++) {
			struct st_interval *v = &p->iv[r * NIV + k];
			uint64_t ops = r == 1 && k >= 4 && k <= 6 ? 0 : r == 2 && k == 5 ? 10 : 100;
			if (k == NIV - 1)
				ops = 50;
			uint64_t rops = r == 2 ? ops / 2 : 0;
			*v = (struct st_interval){ .t_ns = T0 + k * W, .end_ns = T0 + (k + 1) * W,
						   .width_ns = W, .rank = r, .idx = (uint32_t)k,
						   .ops = ops, .read_ops = rops,
						   .read_bytes = rops * 8192,
						   .bytes = rops * 8192 + (ops - rops) * 4096 };
			if (k == NIV - 1)
				v->end_ns = v->t_ns + W / 2;
			x->ops += v->ops;
			x->bytes += v->bytes;
		}
		x->end_ns = p->iv[r * NIV + NIV - 1].end_ns + (r == 0 ? 3 * W : 0);
		p->bytes[r] = x->bytes;
	}
}

static struct st_store *store_planted(const char *path, struct planted *p)
{
	char err[ST_ERR_MAX];
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "    open: %s\n", err);
		return NULL;
	}
	struct st_run_record run = { .run_id = "run-iv", .cfg = &p->cfg, .command = "test",
				     .started_wall_ns = 1, .nranks = 3, .nhosts = 3,
				     .combos_planned = 1, .hosts = p->hosts, .roles = p->roles,
				     .clock_offset_ns = p->offs, .clock_rtt_ns = p->rtts,
				     .partners = p->partners };
	struct st_phase_record ph = { .phase = ST_PHASE_WRITE, .ranks = p->rr,
				      .gathered_ns = 5, .intervals = p->iv,
				      .nintervals = 3 * NIV };
	struct st_combo_record rec = { .run_id = "run-iv", .cfg = &p->cfg, .combo = &p->combo,
				       .status = "ok", .nranks = 3, .prep = p->prep,
				       .phases = &ph, .nphases = 1, .roles = p->roles };
	if (st_store_begin_run(s, &run, err, sizeof(err)) ||
	    st_store_combo(s, &rec, err, sizeof(err)) ||
	    st_store_end_run(s, "run-iv", "complete", NULL, err, sizeof(err))) {
		fprintf(stderr, "    store: %s\n", err);
		st_store_close(s);
		return NULL;
	}
	return s;
}

/* The rows of sql, each column's type and value, one line a row. */
static char *rows_text(sqlite3 *db, const char *sql)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	sqlite3_stmt *st = NULL;
	if (!f)
		return NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fprintf(f, "error: %s", sqlite3_errmsg(db));
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++)
			fprintf(f, "%s%d:%s", c ? "|" : "", sqlite3_column_type(st, c),
				sqlite3_column_type(st, c) == SQLITE_NULL
					? ""
					: (const char *)sqlite3_column_text(st, c));
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	fclose(f);
	return out;
}

static int64_t q1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int altered(struct st_store *s)
{
	char err[ST_ERR_MAX];
	struct st_audit a;
	if (st_store_audit(s, "run-iv", &a, err, sizeof(err))) {
		fprintf(stderr, "    audit: %s\n", err);
		return -1;
	}
	int k = a.altered + !a.hashed;
	st_audit_free(&a);
	return k;
}

/* what the views answer of the planted run */
#define ANSWERS_RANK "SELECT * FROM interval_rank ORDER BY combo_id, phase, rank, idx"
#define ANSWERS_ALL "SELECT * FROM interval_summary ORDER BY combo_id, phase, tail, idx"

/* The store as version 7 had it: the table interval with the rows the view
 * gives, and no packed rows (the views that read it dropped first). */
#define TO_V7                                                                                  \
	"DROP VIEW IF EXISTS phase_tail; DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; "            \
	"CREATE TEMP TABLE iv_keep AS SELECT * FROM interval; DROP VIEW interval; "             \
	"DROP TABLE interval_pack; DROP TABLE interval_seq; "                                  \
	"CREATE TABLE interval (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), "        \
	"phase TEXT NOT NULL, rank INTEGER NOT NULL, idx INTEGER NOT NULL, "                   \
	"t_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, width_ns INTEGER NOT NULL, "          \
	"bytes INTEGER, ops INTEGER, read_bytes INTEGER, read_ops INTEGER, "                   \
	"PRIMARY KEY (combo_id, phase, rank, idx)); "                                          \
	"INSERT INTO interval SELECT * FROM iv_keep; DROP TABLE iv_keep; "

/* The views interval_rank and interval_summary as sql/views.sql has them,
 * over the table interval of a version 7 store. */
static int old_views(sqlite3 *db)
{
	const char *a = strstr(st_sql_views, "CREATE VIEW interval_rank");
	const char *b = a ? strstr(a, "CREATE VIEW rpc_summary") : NULL;
	if (!b)
		return -1;
	char *sql = strndup(a, (size_t)(b - a));
	int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : -1;
	free(sql);
	return rc;
}

/* The planted run through the store's writer: the view gives each
 * interval back as planted and the rank's tail after it, the stalls are the
 * planted ones, each rank's bytes its own, and the views answer over the
 * packed rows as they do over version 7's table of the same rows. */
static void packed_intervals_answer_as_rows(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/iv.db", unit_tmpdir());
	struct planted *p = malloc(sizeof(*p));
	CHECK(p != NULL);
	if (!p)
		return;
	plant(p);
	struct st_store *s = store_planted(path, p);
	CHECK(s != NULL);
	if (!s) {
		free(p);
		return;
	}
	sqlite3 *db = st_store_db(s);
	/* one row a rank, and every interval back as it was */
	CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM interval_pack"), 3);
	sqlite3_stmt *st = NULL;
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT rank, idx, t_ns, end_ns, width_ns, bytes, ops, read_bytes, "
				 "read_ops FROM interval ORDER BY rank, idx",
				 -1, &st, NULL) == SQLITE_OK);
	int k = 0, bad = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int tail = k == NIV; /* rank 0's 13th */
		const struct st_interval *v = &p->iv[k < NIV ? k : k - 1];
		int64_t want[9] = { v->rank, tail ? NIV : v->idx, tail ? v->end_ns : v->t_ns,
				    tail ? p->rr[0].end_ns : v->end_ns, v->width_ns,
				    tail ? 0 : (int64_t)v->bytes, tail ? 0 : (int64_t)v->ops,
				    tail ? 0 : (int64_t)v->read_bytes,
				    tail ? 0 : (int64_t)v->read_ops };
		for (int c = 0; c < 9; c++)
			if (sqlite3_column_type(st, c) != SQLITE_INTEGER ||
			    sqlite3_column_int64(st, c) != want[c]) {
				if (!bad++)
					fprintf(stderr, "    row %d column %d: %lld, planted %lld\n", k,
						c, (long long)sqlite3_column_int64(st, c),
						(long long)want[c]);
			}
		k++;
	}
	sqlite3_finalize(st);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(k, 3 * NIV + 1);
	/* the planted stalls, interval counts and bytes */
	char *stalls = rows_text(db, "SELECT rank, idx FROM interval_rank WHERE stall ORDER BY rank, idx");
	CHECK(stalls && strcmp(stalls, "1:1|1:4\n1:1|1:5\n1:1|1:6\n1:2|1:5\n") == 0);
	if (stalls && strcmp(stalls, "1:1|1:4\n1:1|1:5\n1:1|1:6\n1:2|1:5\n"))
		fprintf(stderr, "    stalls:\n%s", stalls);
	free(stalls);
	CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM interval_rank WHERE rank = 0 AND tail"), 1);
	for (int r = 0; r < 3; r++) {
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT SUM(bytes) FROM interval WHERE rank = %d", r);
		CHECK_EQ_INT(q1(db, sql), (int64_t)p->bytes[r]);
	}
	CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM interval_summary WHERE stall"), 0);
	CHECK_EQ_INT(q1(db, "SELECT MAX(stalled_clients) FROM interval_summary"), 2); /* interval 5 */
	/* a few bytes an interval: only the calls vary */
	CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM interval_pack WHERE t_r IS NOT NULL OR end_r IS NOT "
			    "NULL OR width_r IS NOT NULL OR rbytes_r IS NOT NULL OR wbytes_r IS NOT NULL"),
		     0);
	CHECK(q1(db, "SELECT SUM(length(ops_r)) + SUM(COALESCE(length(rops_r), 0)) FROM "
		     "interval_pack") <= 3 * 3 * NIV);
	char *rank_new = rows_text(db, ANSWERS_RANK), *all_new = rows_text(db, ANSWERS_ALL);
	CHECK_EQ_INT(altered(s), 0);
	/* the same rows in version 7's table, read by the same views */
	CHECK(sqlite3_exec(db, TO_V7, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(old_views(db) == SQLITE_OK);
	char *rank_old = rows_text(db, ANSWERS_RANK), *all_old = rows_text(db, ANSWERS_ALL);
	CHECK(rank_new && rank_old && strcmp(rank_new, rank_old) == 0);
	CHECK(all_new && all_old && strcmp(all_new, all_old) == 0);
	CHECK(rank_new && strlen(rank_new) > 1000 && all_new && strlen(all_new) > 100);
	CHECK_EQ_INT(altered(s), 0); /* the hash of the rows, whichever form holds them */
	free(rank_old);
	free(all_old);

	/* a version 7 store of them: read-only as it is; migrated by a run */
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 7", NULL, NULL, NULL) == SQLITE_OK);
	st_store_close(s);
	char err[ST_ERR_MAX];
	s = st_store_open(path, 1, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_INT(altered(s), 0);
		st_store_close(s);
	}
	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		db = st_store_db(s);
		CHECK_EQ_INT(q1(db, "PRAGMA user_version"), ST_SCHEMA_VERSION);
		CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'interval' "
				    "AND type = 'view'"),
			     1);
		CHECK_EQ_INT(q1(db, "SELECT COUNT(*) FROM interval_pack"), 3);
		char *rank_mig = rows_text(db, ANSWERS_RANK), *all_mig = rows_text(db, ANSWERS_ALL);
		CHECK(rank_new && rank_mig && strcmp(rank_new, rank_mig) == 0);
		CHECK(all_new && all_mig && strcmp(all_new, all_mig) == 0);
		CHECK_EQ_INT(altered(s), 0);
		free(rank_mig);
		free(all_mig);
		st_store_close(s);
	}
	free(rank_new);
	free(all_new);
	free(p);
}

static char *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	*len = 0;
	if (!f)
		return NULL;
	FILE *m = open_memstream(&b, len);
	int c;
	while (m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (m)
		fclose(m);
	fclose(f);
	return b;
}

/* A version 7 store whose intervals cannot be packed (rank 1's skip an
 * index, as no stcluster wrote them): the migration says so, and the file
 * is as it was, byte for byte, with nothing beside it. */
static void failed_migration_leaves_the_file(void)
{
	char path[512], side[600], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/iv7.db", unit_tmpdir());
	struct planted *p = malloc(sizeof(*p));
	CHECK(p != NULL);
	if (!p)
		return;
	plant(p);
	struct st_store *s = store_planted(path, p);
	free(p);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(sqlite3_exec(st_store_db(s),
			   TO_V7 "DELETE FROM interval WHERE rank = 1 AND idx = 6; "
				 "PRAGMA user_version = 7",
			   NULL, NULL, NULL) == SQLITE_OK);
	st_store_close(s);
	size_t n0, n1;
	char *before = file_bytes(path, &n0);
	s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s == NULL);
	if (s)
		st_store_close(s);
	else if (!strstr(err, "not one after the other"))
		fprintf(stderr, "    the message: %s\n", err);
	CHECK(s != NULL || strstr(err, "rank 1's interval 6 has index 7") != NULL);
	char *after = file_bytes(path, &n1);
	CHECK(before && after && n0 == n1 && n0 > 0 && memcmp(before, after, n0) == 0);
	free(before);
	free(after);
	const char *const ends[] = { "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < ST_ARRAY_LEN(ends); i++) {
		snprintf(side, sizeof(side), "%s%s", path, ends[i]);
		CHECK(access(side, F_OK) != 0);
	}
}

/* Records the worker never makes, each packed and given back exactly by the
 * C reader and by the view: a clamped end, widths that vary, an index
 * that starts at 5, a lone interval, calls of every size, counts past
 * INT64_MAX (stored as SQLite's signed 64 bits) and factors that would
 * overflow; and a gap in the indexes refused. */
static void odd_records_round_trip(void)
{
	enum { CASES = 7, M = 6 };
	struct st_interval c[CASES][M];
	size_t m[CASES] = { M, M, 1, M, 3, M, M };
	/* the calls' residuals about their middle: case 5 at the ends of mode
	 * 'c' (4 characters: -39037448 .. 39037447; a fast engine's seconds of
	 * a million calls and its last one of a few), case 6 one past them
	 * (decimals) */
	const int64_t res5[M] = { -39037448, 39037447, -4419, 4418, 0, 123456 };
	const int64_t res6[M] = { -39037449, 39037447, 0, 1, -2, 3 };
	const char mode[CASES] = { 0, 0, 0, 0, 0, 'c', 'd' };
	memset(c, 0, sizeof(c));
	for (int k = 0; k < M; k++) {
		c[0][k] = (struct st_interval){ .t_ns = 7 + k * 10, .end_ns = 7 + k * 10 + 10,
						.width_ns = 10, .rank = 4, .idx = 5 + (uint32_t)k,
						.ops = 3u * (unsigned)k, .read_ops = (unsigned)k,
						.read_bytes = 17u * (unsigned)k + 1,
						.bytes = 40u * (unsigned)k + 3 };
		c[1][k] = (struct st_interval){ .t_ns = -50 + k * 1000 + (k == 3), .end_ns = -50 + k * 1000,
						.width_ns = 1000 * (k % 2 + 1), .rank = 1,
						.idx = (uint32_t)k, .ops = 1, .bytes = 1 };
		/* 3 bytes a call in interval 0; 3 x 2^62 overflows in interval 1 */
		c[3][k] = (struct st_interval){ .t_ns = k, .end_ns = k + 1, .width_ns = 1, .rank = 2,
						.idx = (uint32_t)k, .ops = ((uint64_t)1 << 61) << (k % 2),
						.bytes = (uint64_t)3 << 61 };
		if (k == 5)
			c[3][k] = (struct st_interval){ .t_ns = k, .end_ns = k + 1, .width_ns = 1,
							.rank = 2, .idx = 5, .ops = UINT64_MAX - 1,
							.read_ops = (uint64_t)1 << 62,
							.read_bytes = UINT64_MAX,
							.bytes = (uint64_t)INT64_MAX + 1 };
	}
	for (int k = 0; k < M; k++) {
		/* the base is the middle of the range (rounded up): 40000000 in
		 * case 5, 39999999 in case 6, whose residuals reach 39037448 */
		int64_t o5 = 40000000 + res5[k], o6 = 40000000 + res6[k];
		c[5][k] = (struct st_interval){ .t_ns = k * 1000, .end_ns = k * 1000 + 1000,
						.width_ns = 1000, .rank = 0, .idx = (uint32_t)k,
						.ops = (uint64_t)o5, .bytes = (uint64_t)o5 * 4096 };
		c[6][k] = (struct st_interval){ .t_ns = k * 1000, .end_ns = k * 1000 + 1000,
						.width_ns = 1000, .rank = 0, .idx = (uint32_t)k,
						.ops = (uint64_t)o6, .bytes = (uint64_t)o6 * 4096 };
	}
	c[2][0] = (struct st_interval){ .t_ns = 5, .end_ns = 5, .width_ns = 100, .rank = 9,
					.idx = 0, .ops = 1, .bytes = 4096 };
	for (int k = 0; k < 3; k++)
		c[4][k] = (struct st_interval){ .t_ns = k * 100, .end_ns = k * 100 + 100,
						.width_ns = 100, .rank = 3, .idx = (uint32_t)k,
						.ops = 9, .bytes = 9 * 512 };
	c[4][2] = (struct st_interval){ .t_ns = 200, .end_ns = 900, .width_ns = 100, .rank = 3,
					.idx = 2 }; /* a tail */
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/odd.db", unit_tmpdir());
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	sqlite3 *db = st_store_db(s);
	CHECK(sqlite3_exec(db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) == SQLITE_OK);
	char *sql = st_row_insert_sql(&st_rows_interval_pack, 1, NULL, 0);
	sqlite3_stmt *ins = NULL, *sel = NULL;
	CHECK(sql && sqlite3_prepare_v2(db, sql, -1, &ins, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT rank, idx, t_ns, end_ns, width_ns, bytes, ops, read_bytes, "
				 "read_ops FROM interval WHERE combo_id = ?1 ORDER BY idx",
				 -1, &sel, NULL) == SQLITE_OK);
	free(sql);
	for (int i = 0; ins && sel && i < CASES; i++) {
		struct st_ivpack p;
		int rc = st_ivpack_make(c[i], m[i], &p, err, sizeof(err));
		CHECK_EQ_INT(rc, 0);
		if (rc) {
			fprintf(stderr, "    case %d: %s\n", i, err);
			continue;
		}
		CHECK_EQ_INT(p.has_tail, i == 4);
		if (mode[i]) {
			const char *t = p.text[ST_IVP_OPS];
			CHECK(t && t[0] == mode[i]);
			if (t && mode[i] == 'c')
				CHECK_EQ_INT(strlen(t), 1 + 4 * M);
		}
		struct st_row_key key = { .combo_id = i + 1, .phase = "write" };
		st_bind_interval_pack(ins, &key, &p);
		CHECK(sqlite3_step(ins) == SQLITE_DONE);
		sqlite3_reset(ins);
		st_ivpack_free(&p);
		sqlite3_bind_int(sel, 1, i + 1);
		size_t k = 0;
		while (sqlite3_step(sel) == SQLITE_ROW) {
			const struct st_interval *v = &c[i][k < m[i] ? k : 0];
			int64_t want[9] = { v->rank, v->idx, v->t_ns, v->end_ns, v->width_ns,
					    (int64_t)v->bytes, (int64_t)v->ops,
					    (int64_t)v->read_bytes, (int64_t)v->read_ops };
			for (int col = 0; col < 9; col++)
				if (sqlite3_column_type(sel, col) != SQLITE_INTEGER ||
				    sqlite3_column_int64(sel, col) != want[col]) {
					fprintf(stderr, "    case %d row %zu column %d: %lld (%d), %lld\n",
						i, k, col, (long long)sqlite3_column_int64(sel, col),
						sqlite3_column_type(sel, col), (long long)want[col]);
					unit_failures++;
				}
			k++;
		}
		sqlite3_reset(sel);
		CHECK_EQ_INT(k, m[i]);
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	/* a gap refused */
	struct st_ivpack p;
	c[0][3].idx = 20;
	CHECK(st_ivpack_make(c[0], M, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not one after the other") != NULL);
	st_store_close(s);
}

const struct unit_test unit_ivpack[] = {
	{ "ivpack: planted intervals through the store answer as version 7's rows, migrated too",
	  packed_intervals_answer_as_rows },
	{ "ivpack: a migration that cannot keep an interval leaves the file byte for byte",
	  failed_migration_leaves_the_file },
	{ "ivpack: odd records round-trip exactly through the row and the view; a gap refused",
	  odd_records_round_trip },
	{ NULL, NULL },
};
