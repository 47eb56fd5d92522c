/*
 * schema.c - what a store file must be, and making it so: the checks that
 * refuse another application's database, a damaged or a newer store
 * without writing a byte, and the migration of an older one (see schema.h).
 *
 * Invariants: a store of version v is migrated to ST_SCHEMA_VERSION in one
 * transaction, by migrations[v + 1 ..] in order; a column a migration adds
 * is NULL in every row written before, so their audit hashes stay valid.
 */
#include "schema.h"

#include "db.h"
#include "ivpack.h"
#include "store.h"

#include "../../common/options.h"
#include "../../common/phaseopt.h"
#include "../../common/strbuf.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Migrations: entry v turns a store of version v-1 into version v. Version 1
 * is sql/schema.sql itself; later versions append their ALTER statements
 * (and sql/schema.sql has their result, for a new store). A column is also
 * one row of its table in store/rows.c: tests/unit/test_rows.c holds a
 * migrated store to a new one. */
static const char *const migrations[] = {
	NULL,
	NULL,
	/* 2: the hashes `stcluster audit` checks; NULL in the runs written before */
	"ALTER TABLE run ADD COLUMN config_hash TEXT; "
	"ALTER TABLE run ADD COLUMN baseline_hash TEXT; "
	"ALTER TABLE run ADD COLUMN result_hash TEXT; "
	"ALTER TABLE combo ADD COLUMN row_hash TEXT;",
	/* 3 (issue 14): how each thread issued its calls (--iodepth through
	 * io_uring, libaio, or one at a time); NULL in the rows written before */
	"ALTER TABLE thread_result ADD COLUMN io_mode TEXT;",
	/* 4 (issue 13)'s workloads: each direction of a mixed phase apart, the
	 * stonewall, throughput over time; NULL (no rows) in the runs before */
	"ALTER TABLE phase_run ADD COLUMN read_lat_p50_ns INTEGER; "
	"ALTER TABLE phase_run ADD COLUMN read_lat_p99_ns INTEGER; "
	"ALTER TABLE phase_run ADD COLUMN write_lat_p50_ns INTEGER; "
	"ALTER TABLE phase_run ADD COLUMN write_lat_p99_ns INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN read_bytes INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN read_ops INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN read_lat_p50_ns INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN read_lat_p99_ns INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN write_lat_p50_ns INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN write_lat_p99_ns INTEGER; "
	"ALTER TABLE rank_result ADD COLUMN stonewall_hit INTEGER; "
	"ALTER TABLE thread_result ADD COLUMN read_bytes INTEGER; "
	"ALTER TABLE thread_result ADD COLUMN read_ops INTEGER; "
	"CREATE TABLE interval (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), "
	"phase TEXT NOT NULL, rank INTEGER NOT NULL, idx INTEGER NOT NULL, t_ns INTEGER NOT NULL, "
	"end_ns INTEGER NOT NULL, width_ns INTEGER NOT NULL, bytes INTEGER, ops INTEGER, "
	"read_bytes INTEGER, read_ops INTEGER, PRIMARY KEY (combo_id, phase, rank, idx));",
	/* 5 (issue 11): what a run could not remove at its end; how many TCP
	 * streams a network baseline used. NULL in the rows written before */
	"ALTER TABLE run ADD COLUMN cleanup TEXT; "
	"ALTER TABLE baseline ADD COLUMN streams INTEGER;",
	/* 6 (issue 10): what went over the wire (rpc_stat), the kernel's overrides
	 * explained, and why a cache drop was done that way; NULL (no rows)
	 * in the runs written before, so their hashes stay */
	"ALTER TABLE effective_option ADD COLUMN note TEXT; "
	"ALTER TABLE phase_run ADD COLUMN cache_drop_note TEXT; "
	"ALTER TABLE rank_result ADD COLUMN cache_drop TEXT; "
	"ALTER TABLE rank_result ADD COLUMN cache_drop_note TEXT; "
	"CREATE TABLE rpc_stat (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), "
	"phase TEXT NOT NULL, rank INTEGER NOT NULL, source TEXT NOT NULL, op TEXT NOT NULL, "
	"ops INTEGER, trans INTEGER, major_timeouts INTEGER, bytes_sent INTEGER, "
	"bytes_recv INTEGER, queue_us INTEGER, rtt_us INTEGER, exe_us INTEGER, errors INTEGER, "
	"file_sync INTEGER, data_sync INTEGER, unstable INTEGER, stable_basis TEXT, "
	"xprts INTEGER, connects INTEGER, sends INTEGER, recvs INTEGER, bad_xids INTEGER, "
	"backlog_u INTEGER, note TEXT, rtt_hist BLOB, "
	"PRIMARY KEY (combo_id, phase, rank, source, op));",
	/* 7 (issue 14): rank_result.hist in a sparse encoding, named per row
	 * (NULL: the struct's bytes, as every row written before); the baselines
	 * of one run found by index. No stored row is rewritten. */
	"ALTER TABLE rank_result ADD COLUMN hist_enc INTEGER; "
	"CREATE INDEX IF NOT EXISTS baseline_run ON baseline(run_id);",
	/* 8 (issue 21): the stage of --search halving that measured a
	 * combination; NULL in a full sweep and in every run written before
	 * (added in st_schema_migrate, by add_column: a store made older by
	 * hand for a test may keep the column) */
	NULL,
	/* 9 (issue 22): a rank's intervals of a phase in one row (store/ivpack.h),
	 * the table interval's rows moved there by st_ivpack_migrate and read
	 * back through the view of that name, each as it was (their hashes hold) */
	"DROP VIEW IF EXISTS interval_summary; DROP VIEW IF EXISTS interval_rank; "
	"CREATE TABLE interval_pack (combo_id INTEGER NOT NULL REFERENCES combo(combo_id), "
	"phase TEXT NOT NULL, rank INTEGER NOT NULL, idx0 INTEGER NOT NULL, n INTEGER NOT NULL, "
	" t0_ns INTEGER NOT NULL, "
	"width_ns INTEGER NOT NULL, last_end_ns INTEGER NOT NULL, tail_end_ns INTEGER, "
	"ops0 INTEGER NOT NULL, rops_k INTEGER NOT NULL, rbytes_k INTEGER NOT NULL, "
	"wbytes_k INTEGER NOT NULL, t_r TEXT, end_r TEXT, width_r TEXT, ops_r TEXT, rops_r TEXT, "
	"rbytes_r TEXT, wbytes_r TEXT, PRIMARY KEY (combo_id, phase, rank)) WITHOUT ROWID; "
	"CREATE TABLE interval_seq (i INTEGER PRIMARY KEY); "
	"INSERT INTO interval_seq (i) WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL "
	"SELECT i + 1 FROM k WHERE i < 1023) SELECT i FROM k;",
	/* 10 (issue 22): interval_pack's residuals in a mode of four
	 * characters ('c', ivpack.h), which only the views of this version
	 * read: nothing to change but them (made anew below), and no stored
	 * row is rewritten; an older stcluster refuses the store */
	NULL,
};
_Static_assert(ST_ARRAY_LEN(migrations) == ST_SCHEMA_VERSION + 1,
	       "one migration per schema version: ST_SCHEMA_VERSION and migrations[] disagree");

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An stcluster store or an empty database: anything
 * else is another application's, which a run must not touch (setting WAL
 * alone rewrites its header). Read-only; the newest run's row is read
 * through, so a damaged file shows (st_store_check_path has checked its
 * length against the header). 0 or -1 with err. */
static int check_ours(const char *path, char *err, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	int64_t uv = 0;
	if (st_db_open_read(path, &db) != SQLITE_OK) {
		st_db_fail(err, n, "--db: cannot open '%s': %s", path,
			   db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	/* the version as SQLite reads it: the file's own first page is stale
	 * while a run has the store in WAL mode */
	if (st_db_query_int(db, "PRAGMA user_version", &uv))
		goto damaged;
	if (uv > ST_SCHEMA_VERSION) {
		st_db_fail(err, n,
			   "--db: '%s' has schema version %lld; this stcluster knows up to %d (upgrade it)",
			   path, (long long)uv, ST_SCHEMA_VERSION);
		goto out;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT COUNT(*), COUNT(CASE WHEN name IN ('run', 'combo') THEN 1 END) "
			       "FROM sqlite_schema WHERE type = 'table'",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto damaged;
	int64_t tables = sqlite3_column_int64(st, 0), ours = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	if ((uv == 0 && tables) || (uv > 0 && ours != 2)) {
		st_db_fail(err, n, "--db: '%s' is a SQLite database, but not an stcluster store",
			   path);
		goto out;
	}
	/* the newest run's row, its plan's overflow pages too: all of them,
	 * every run's, would make each command's cost the store's history */
	if (uv > 0 && (sqlite3_prepare_v2(db,
					  "SELECT COUNT(*), MAX(length(plan)) FROM "
					  "(SELECT plan FROM run ORDER BY rowid DESC LIMIT 1)",
					  -1, &st, NULL) != SQLITE_OK ||
		       sqlite3_step(st) != SQLITE_ROW))
		goto damaged;
	rc = 0;
	goto out;
damaged:;
	/* another process's lock held past the busy timeout is not damage */
	int code = sqlite3_extended_errcode(db) & 0xff;
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		st_db_fail(err, n, "--db: '%s' is locked: another process held it for 30 s (%s)",
			   path, sqlite3_errmsg(db));
	else
		st_db_fail(err, n, "--db: '%s' is damaged: %s", path, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int st_store_check_path(const char *path, int need_write, char *err, size_t n)
{
	char dir[ST_STR_MAX];
	struct stat st;
	if (st_copy(dir, sizeof(dir), path))
		return st_db_fail(err, n, "--db: path is too long");
	const char *d = dirname(dir);
	if (stat(d, &st) || !S_ISDIR(st.st_mode))
		return st_db_fail(err, n, "--db: directory '%s' does not exist", d);
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return st_db_fail(err, n, "--db: cannot stat '%s': %s", path,
					  strerror(errno));
		if (!need_write)
			return st_db_fail(err, n, "--db: no store at '%s' (run a sweep first)",
					  path);
		if (access(d, W_OK | X_OK))
			return st_db_fail(err, n, "--db: directory '%s' is not writable", d);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return st_db_fail(err, n, "--db: '%s' is not a regular file", path);
	if (access(path, need_write ? R_OK | W_OK : R_OK))
		return st_db_fail(err, n, "--db: '%s' is not %s", path,
				  need_write ? "writable" : "readable");
	/* WAL needs to create PATH-wal and PATH-shm beside the store */
	if (need_write && access(d, W_OK | X_OK))
		return st_db_fail(err, n, "--db: directory '%s' is not writable", d);
	if (st.st_size == 0)
		return 0;
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return st_db_fail(err, n, "--db: cannot open '%s': %s", path, strerror(errno));
	ssize_t got = read(fd, h, sizeof(h));
	close(fd);
	if (got != (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0)
		return st_db_fail(err, n, "--db: '%s' is not a SQLite database", path);
	uint32_t uv = be32(h + 60);
	if (uv > ST_SCHEMA_VERSION)
		return st_db_fail(err, n,
				  "--db: '%s' has schema version %u; this stcluster knows up to %d (upgrade it)",
				  path, uv, ST_SCHEMA_VERSION);
	/* the header's page count is valid when its "version valid for" field
	 * is the change counter; a file shorter than that lost its end. Not
	 * while the WAL holds frames (more than its 32-byte header): a
	 * checkpoint the disk filled up in writes the header before the pages
	 * it could not, which SQLite still reads from the WAL; then reading
	 * the store through SQLite (check_ours) tells. */
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint64_t pages = be32(h + 28), want = (uint64_t)(page == 1 ? 65536 : page) * pages;
	int framed = st_db_wal_has_frames(path);
	if (!framed && be32(h + 92) == be32(h + 24) && pages && (uint64_t)st.st_size < want)
		return st_db_fail(err, n,
				  "--db: '%s' is damaged: %lld bytes where its header says %llu (truncated?)",
				  path, (long long)st.st_size, (unsigned long long)want);
	return check_ours(path, err, n);
}

static const char *column_type(int id)
{
	return st_options[id].type == ST_T_ENUM || st_options[id].type == ST_T_STRING ||
			       st_options[id].type == ST_T_DATA
		       ? "TEXT"
		       : "INTEGER";
}

static int add_column(sqlite3 *db, const char *table, const char *name, const char *type,
		      char *err, size_t n)
{
	char sql[256];
	int64_t have = 0;
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name = '%s'",
		 table, name);
	if (st_db_query_int(db, sql, &have))
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	if (have)
		return 0;
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN \"%s\" %s", table, name, type);
	return st_db_exec(db, sql, err, n);
}

const struct st_later_column st_later_columns[] = {
	/* a phase's own values ([phase] sections: common/phaseopt.h); NULL:
	 * the combination's */
	{ "phase_run", "phase_block", "INTEGER" },
	{ "phase_run", "phase_direct", "TEXT" },
	{ "phase_run", "phase_fsync", "TEXT" },
	{ "phase_run", "phase_rwmix", "INTEGER" },
	{ "phase_run", "phase_runtime", "INTEGER" },
	{ "phase_run", "phase_ramp", "INTEGER" },
	{ "run", "abort_rank", "INTEGER" },
	{ "run", "abort_reason", "TEXT" },
	/* (issue 22) the I/O threads' own CPU apart from the process's */
	{ "rank_result", "io_cpu_user_us", "INTEGER" },
	{ "rank_result", "io_cpu_sys_us", "INTEGER" },
	{ "thread_result", "cpu_user_us", "INTEGER" },
	{ "thread_result", "cpu_sys_us", "INTEGER" },
};
const size_t st_later_ncolumns = ST_ARRAY_LEN(st_later_columns);

/* One combo column per sweep option, and <name>_eff for an NFS option's
 * effective value; st_later_columns: add the ones an older store lacks. */
static int add_columns(sqlite3 *db, char *err, size_t n)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		char eff[80];
		snprintf(eff, sizeof(eff), "%s_eff", st_options[i].name);
		if (add_column(db, "combo", st_options[i].name, column_type(i), err, n) ||
		    ((st_options[i].flags & ST_OF_NFS) &&
		     add_column(db, "combo", eff, column_type(i), err, n)))
			return -1;
	}
	for (size_t i = 0; i < st_later_ncolumns; i++)
		if (add_column(db, st_later_columns[i].table, st_later_columns[i].name,
			       st_later_columns[i].type, err, n))
			return -1;
	return 0;
}

static const char *const view_names[] = { "phase_value", "phase_flags", "rpc_flag",
					  "option_override", "rpc_mix", "rpc_summary", "phase_cpu", "verdict",
					  "server_parts", "server_summary", "result", "phase_summary",
					  "client_result", "run_summary", "interval_summary", "interval_rank",
					  "interval", "phase_tail" };

/* views.sql's result again, its c.* the combo's columns by name, those a
 * phase may have of its own (phase_value's) as the phase's value. */
static int result_view(sqlite3 *db, char *err, size_t n)
{
	const char *head = strstr(st_sql_views, "CREATE VIEW result AS");
	const char *star = head ? strstr(head, "c.*") : NULL;
	const char *end = star ? strchr(star, ';') : NULL;
	if (!end)
		return st_db_fail(err, n, "store: views.sql has no result view of c.*");
	struct st_strbuf b = ST_STRBUF_INIT;
	st_strbuf_addf(&b, "DROP VIEW result; %.*s", (int)(star - head), head);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('combo') ORDER BY cid", -1,
			       &q, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	for (int k = 0; sqlite3_step(q) == SQLITE_ROW; k++) {
		const char *c = (const char *)sqlite3_column_text(q, 0);
		int id = c ? st_opt_find(c) : -1;
		if (k)
			st_strbuf_put(&b, ", ");
		if (id >= 0 && st_phase_key(id))
			st_strbuf_addf(&b, "COALESCE(p.\"phase_%s\", c.\"%s\") AS \"%s\"", c, c, c);
		else
			st_strbuf_addf(&b, "c.\"%s\"", c ? c : "");
	}
	sqlite3_finalize(q);
	st_strbuf_addf(&b, "%.*s;", (int)(end - star - 3), star + 3);
	int rc = b.oom ? st_db_fail(err, n, "store: out of memory") : st_db_exec(db, b.p, err, n);
	st_strbuf_release(&b);
	return rc;
}

int st_schema_migrate(sqlite3 *db, char *err, size_t n)
{
	int64_t v = 0, tables = 0;
	int rc = st_db_begin(db, err, n);
	if (rc)
		return rc;
	if (st_db_query_int(db, "PRAGMA user_version", &v) ||
	    st_db_query_int(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'",
			    &tables)) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
		goto rollback;
	}
	if (v > ST_SCHEMA_VERSION) {
		st_db_fail(err, n, "store has schema version %lld; this stcluster knows up to %d",
			   (long long)v, ST_SCHEMA_VERSION);
		goto rollback;
	}
	if (v == 0) {
		if (tables) {
			st_db_fail(err, n,
				   "store: the database has tables but is not an stcluster store");
			goto rollback;
		}
		if (st_db_exec(db, st_sql_schema, err, n))
			goto rollback;
	} else {
		for (int64_t k = v + 1; k <= ST_SCHEMA_VERSION; k++)
			if ((migrations[k] && st_db_exec(db, migrations[k], err, n)) ||
			    (k == 8 && add_column(db, "combo", "stage", "INTEGER", err, n)) ||
			    (k == 9 && st_ivpack_migrate(db, err, n)))
				goto rollback;
	}
	/* "last" and "last~N" find their run by it (an index no version needs) */
	if (add_columns(db, err, n) ||
	    st_db_exec(db, "CREATE INDEX IF NOT EXISTS run_started ON run(started_at)", err, n))
		goto rollback;
	for (size_t i = 0; i < ST_ARRAY_LEN(view_names); i++) {
		char sql[128];
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS %s", view_names[i]);
		if (st_db_exec(db, sql, err, n))
			goto rollback;
	}
	if (st_db_exec(db, st_sql_views, err, n) || result_view(db, err, n))
		goto rollback;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", ST_SCHEMA_VERSION);
	if (st_db_exec(db, sql, err, n) || st_db_exec(db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:;
	/* the failing statement's code, before ROLLBACK resets it: BUSY is retried */
	int code = sqlite3_extended_errcode(db) & 0xff;
	st_db_rollback(db);
	return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -code : -1;
}
