/*
 * store.c - the SQLite store (see store.h).
 */
#include "store.h"

#include "hash.h"
#include "histblob.h"
#include "live.h"

#include "../../common/units.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "version.h" /* generated: $(BUILD)/gen/version.h (the Makefile) */

/* Migrations: entry v turns a store of version v-1 into version v. Version 1
 * is sql/schema.sql itself; later versions append their ALTER statements
 * (and sql/schema.sql has their result, for a new store). */
static const char *const migrations[ST_SCHEMA_VERSION + 1] = {
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
};

struct st_store {
	sqlite3 *db;
	int readonly;
	sqlite3_stmt *ins_combo, *ins_failure, *ins_phase, *ins_rank, *ins_thread;
	sqlite3_stmt *ins_ranks, *ins_threads; /* STORE_BATCH rows a statement (issue 14) */
	sqlite3_stmt *ins_host, *set_stored, *ins_eff, *ins_sample, *ins_baseline;
	sqlite3_stmt *set_row_hash, *set_config_hash, *set_baseline_hash, *set_result_hash;
	sqlite3_stmt *ins_interval;
	sqlite3_stmt *ins_rpc;
	struct st_hasher *h; /* read-write: from the open on; read-only: from the first audit */
	char *path;	     /* as opened: the live locks are beside it */
};

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out);

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An stcluster store or an empty database: anything
 * else is another application's, which a run must not touch (setting WAL
 * alone rewrites its header). Read-only; the run table is read through,
 * so a damaged file shows. 0 or -1 with err. */
static int check_ours(const char *path, char *err, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	int64_t uv = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fail(err, n, "--db: cannot open '%s': %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(db, 30000);
	/* the version as SQLite reads it: the file's own first page is stale
	 * while a run has the store in WAL mode */
	if (query_int(db, "PRAGMA user_version", &uv))
		goto damaged;
	if (uv > ST_SCHEMA_VERSION) {
		fail(err, n, "--db: '%s' has schema version %lld; this stcluster knows up to %d (upgrade it)",
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
		fail(err, n, "--db: '%s' is a SQLite database, but not an stcluster store", path);
		goto out;
	}
	if (uv > 0 && (sqlite3_prepare_v2(db, "SELECT COUNT(*), MAX(length(plan)) FROM run", -1, &st,
					  NULL) != SQLITE_OK ||
		       sqlite3_step(st) != SQLITE_ROW))
		goto damaged;
	rc = 0;
	goto out;
damaged:
	fail(err, n, "--db: '%s' is damaged: %s", path, sqlite3_errmsg(db));
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
		return fail(err, n, "--db: path is too long");
	const char *d = dirname(dir);
	if (stat(d, &st) || !S_ISDIR(st.st_mode))
		return fail(err, n, "--db: directory '%s' does not exist", d);
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return fail(err, n, "--db: cannot stat '%s': %s", path, strerror(errno));
		if (!need_write)
			return fail(err, n, "--db: no store at '%s' (run a sweep first)", path);
		if (access(d, W_OK | X_OK))
			return fail(err, n, "--db: directory '%s' is not writable", d);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return fail(err, n, "--db: '%s' is not a regular file", path);
	if (access(path, need_write ? R_OK | W_OK : R_OK))
		return fail(err, n, "--db: '%s' is not %s", path, need_write ? "writable" : "readable");
	/* WAL needs to create PATH-wal and PATH-shm beside the store */
	if (need_write && access(d, W_OK | X_OK))
		return fail(err, n, "--db: directory '%s' is not writable", d);
	if (st.st_size == 0)
		return 0;
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, n, "--db: cannot open '%s': %s", path, strerror(errno));
	ssize_t got = read(fd, h, sizeof(h));
	close(fd);
	if (got != (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0)
		return fail(err, n, "--db: '%s' is not a SQLite database", path);
	uint32_t uv = be32(h + 60);
	if (uv > ST_SCHEMA_VERSION)
		return fail(err, n,
			    "--db: '%s' has schema version %u; this stcluster knows up to %d (upgrade it)",
			    path, uv, ST_SCHEMA_VERSION);
	/* the header's page count is valid when its "version valid for" field
	 * is the change counter; a file shorter than that lost its end */
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint64_t pages = be32(h + 28), want = (uint64_t)(page == 1 ? 65536 : page) * pages;
	if (be32(h + 92) == be32(h + 24) && pages && (uint64_t)st.st_size < want)
		return fail(err, n,
			    "--db: '%s' is damaged: %lld bytes where its header says %llu (truncated?)",
			    path, (long long)st.st_size, (unsigned long long)want);
	return check_ours(path, err, n);
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t n)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail(err, n, "store: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* BEGIN IMMEDIATE, tried again while another run has the store: SQLite
 * answers BUSY without its busy handler in states that could deadlock
 * (seen with several runs opening and closing one store at once). */
static int begin(sqlite3 *db, char *err, size_t n)
{
	int64_t give_up = st_now_ns() + 30000000000LL;
	for (;;) {
		if (!exec(db, "BEGIN IMMEDIATE", err, n))
			return 0;
		int code = sqlite3_extended_errcode(db) & 0xff;
		if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || st_now_ns() > give_up)
			return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -code : -1;
		struct timespec ts = { 0, 10000000 + (st_now_ns() % 20000000) };
		nanosleep(&ts, NULL);
	}
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
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
	if (query_int(db, sql, &have))
		return fail(err, n, "store: %s", sqlite3_errmsg(db));
	if (have)
		return 0;
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN \"%s\" %s", table, name, type);
	return exec(db, sql, err, n);
}

/* One combo column per sweep option, and <name>_eff for an NFS option's
 * effective value; the run's abort columns: add the ones an older store
 * lacks (nullable columns need no schema version). */
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
	return add_column(db, "run", "abort_rank", "INTEGER", err, n) ||
	       add_column(db, "run", "abort_reason", "TEXT", err, n);
}

static const char *const view_names[] = { "phase_flags", "rpc_flag", "option_override",
					  "rpc_mix", "rpc_summary", "phase_cpu", "verdict",
					  "server_summary", "result", "phase_summary", "client_result",
					  "run_summary", "interval_summary", "interval_rank" };

static int migrate(sqlite3 *db, char *err, size_t n)
{
	int64_t v = 0, tables = 0;
	int rc = begin(db, err, n);
	if (rc)
		return rc;
	if (query_int(db, "PRAGMA user_version", &v) ||
	    query_int(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'", &tables)) {
		fail(err, n, "store: %s", sqlite3_errmsg(db));
		goto rollback;
	}
	if (v > ST_SCHEMA_VERSION) {
		fail(err, n, "store has schema version %lld; this stcluster knows up to %d",
		     (long long)v, ST_SCHEMA_VERSION);
		goto rollback;
	}
	if (v == 0) {
		if (tables) {
			fail(err, n, "store: the database has tables but is not an stcluster store");
			goto rollback;
		}
		if (exec(db, st_sql_schema, err, n))
			goto rollback;
	} else {
		for (int64_t k = v + 1; k <= ST_SCHEMA_VERSION; k++)
			if (migrations[k] && exec(db, migrations[k], err, n))
				goto rollback;
	}
	if (add_columns(db, err, n))
		goto rollback;
	for (size_t i = 0; i < ST_ARRAY_LEN(view_names); i++) {
		char sql[128];
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS %s", view_names[i]);
		if (exec(db, sql, err, n))
			goto rollback;
	}
	if (exec(db, st_sql_views, err, n))
		goto rollback;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", ST_SCHEMA_VERSION);
	if (exec(db, sql, err, n) || exec(db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:;
	/* the failing statement's code, before ROLLBACK resets it: BUSY is retried */
	int code = sqlite3_extended_errcode(db) & 0xff;
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -code : -1;
}

static int prepare(struct st_store *s, sqlite3_stmt **st, const char *sql, char *err, size_t n)
{
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	return 0;
}

/* The rows of a combination's ranks and threads go in STORE_BATCH at a time
 * (one statement, one VDBE run for them all), the rest one by one: rank 0's
 * cost per combination is the rows, not a statement per rank. */
#define STORE_BATCH 32
#define RANK_COLS 37
#define RANK_INSERT                                                                             \
	"INSERT INTO rank_result (combo_id, phase, rank, role, nthreads, bytes, ops, release_ns, " \
	"start_ns, end_ns, cpu_user_us, cpu_sys_us, direct_fallback, deadline_hit, errno, "      \
	"errno_name, err_op, err_offset, err_count, message, lat_mean_ns, lat_p50_ns, "          \
	"lat_p99_ns, lat_max_ns, hist, bad_blocks, first_bad_offset, read_bytes, read_ops, "     \
	"read_lat_p50_ns, read_lat_p99_ns, write_lat_p50_ns, write_lat_p99_ns, stonewall_hit, "  \
	"cache_drop, cache_drop_note, hist_enc) "                                                \
	"VALUES "
#define THREAD_COLS 19
#define THREAD_INSERT                                                                          \
	"INSERT INTO thread_result (combo_id, phase, rank, thread, bytes, ops, start_ns, end_ns, " \
	"cpuset, last_cpu, errno, err_op, err_offset, lat_p50_ns, lat_p99_ns, lat_max_ns, "      \
	"io_mode, read_bytes, read_ops) VALUES "

/* head, then `rows` groups of `cols` placeholders */
static int prepare_rows(struct st_store *s, sqlite3_stmt **st, const char *head, int cols,
			int rows, char *err, size_t n)
{
	size_t len = strlen(head) + (size_t)rows * ((size_t)cols * 3 + 4) + 1;
	char *sql = malloc(len), *p;
	if (!sql)
		return fail(err, n, "store: out of memory");
	p = sql + sprintf(sql, "%s", head);
	for (int r = 0; r < rows; r++) {
		*p++ = r ? ',' : ' ';
		*p++ = '(';
		for (int c = 0; c < cols; c++)
			p += sprintf(p, c ? ",?" : "?");
		*p++ = ')';
	}
	*p = '\0';
	int rc = prepare(s, st, sql, err, n);
	free(sql);
	return rc;
}

static int prepare_all(struct st_store *s, char *err, size_t n)
{
	char cols[4096] = "", marks[1024] = "";
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		size_t l = strlen(cols);
		snprintf(cols + l, sizeof(cols) - l, ", \"%s\"", st_options[i].name);
		l = strlen(marks);
		snprintf(marks + l, sizeof(marks) - l, ", ?");
		if (st_options[i].flags & ST_OF_NFS) {
			l = strlen(cols);
			snprintf(cols + l, sizeof(cols) - l, ", \"%s_eff\"", st_options[i].name);
			l = strlen(marks);
			snprintf(marks + l, sizeof(marks) - l, ", ?");
		}
	}
	char sql[8192];
	snprintf(sql, sizeof(sql),
		 "INSERT INTO combo (run_id, seq, matrix_index, iteration, status, message, "
		 "started_at, finished_at, direct_fallback, mount_options%s) "
		 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?%s)",
		 cols, marks);
	if (prepare(s, &s->ins_combo, sql, err, n) ||
	    prepare(s, &s->ins_failure,
		    "INSERT INTO combo_failure (combo_id, rank, errno, errno_name, op, message) "
		    "VALUES (?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->ins_phase,
		    "INSERT INTO phase_run (combo_id, phase, phase_order, status, release_min_ns, "
		    "release_max_ns, skew_ns, lat_count, lat_mean_ns, lat_p50_ns, lat_p90_ns, "
		    "lat_p99_ns, lat_max_ns, gathered_ns, message, cache_drop, read_lat_p50_ns, "
		    "read_lat_p99_ns, write_lat_p50_ns, write_lat_p99_ns, cache_drop_note) VALUES (?, "
		    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare_rows(s, &s->ins_rank, RANK_INSERT, RANK_COLS, 1, err, n) ||
	    prepare_rows(s, &s->ins_ranks, RANK_INSERT, RANK_COLS, STORE_BATCH, err, n) ||
	    prepare_rows(s, &s->ins_thread, THREAD_INSERT, THREAD_COLS, 1, err, n) ||
	    prepare_rows(s, &s->ins_threads, THREAD_INSERT, THREAD_COLS, STORE_BATCH, err, n) ||
	    prepare(s, &s->ins_interval,
		    "INSERT INTO interval (combo_id, phase, rank, idx, t_ns, end_ns, width_ns, bytes, "
		    "ops, read_bytes, read_ops) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->ins_host,
		    "INSERT OR IGNORE INTO host (run_id, rank, hostname, addresses, role, local_rank, "
		    "local_size, cores, pus, numa_nodes, mem_bytes, kernel, cpu_model, pid, "
		    "clock_offset_ns, clock_rtt_ns, read_partner, rmem_max, wmem_max, tcp_rmem, "
		    "tcp_wmem, sunrpc_slots, iface, mtu, speed_mbps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
		    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->set_stored, "UPDATE combo SET stored_ns = ? WHERE combo_id = ?", err, n) ||
	    prepare(s, &s->ins_eff,
		    "INSERT INTO effective_option (combo_id, rank, option, requested, effective, "
		    "maximum, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->ins_sample,
		    "INSERT INTO sample (combo_id, phase, rank, t_ns, metric, device, value) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->ins_baseline,
		    "INSERT INTO baseline (run_id, kind, direction, server_rank, client_ranks, bytes, "
		    "seconds, mbps, note, streams) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    err, n) ||
	    prepare(s, &s->set_row_hash, "UPDATE combo SET row_hash = ?2 WHERE combo_id = ?1", err,
		    n) ||
	    prepare(s, &s->set_config_hash, "UPDATE run SET config_hash = ?2 WHERE run_id = ?1", err,
		    n) ||
	    prepare(s, &s->set_baseline_hash, "UPDATE run SET baseline_hash = ?2 WHERE run_id = ?1",
		    err, n) ||
	    prepare(s, &s->set_result_hash, "UPDATE run SET result_hash = ?2 WHERE run_id = ?1", err,
		    n) ||
	    prepare(s, &s->ins_rpc,
		    "INSERT INTO rpc_stat (combo_id, phase, rank, source, op, ops, trans, "
		    "major_timeouts, bytes_sent, bytes_recv, queue_us, rtt_us, exe_us, errors, "
		    "file_sync, data_sync, unstable, stable_basis, xprts, connects, sends, recvs, "
		    "bad_xids, backlog_u, note, rtt_hist) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
		    "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
		    "?26)",
		    err, n))
		return -1;
	/* after the migration: the combo table has every option column */
	s->h = st_hasher_new(s->db, err, n);
	return s->h ? 0 : -1;
}

/* SQL function st_size(bytes): "4k", "1m" (for readable reports). */
static void sql_size(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	char buf[32];
	st_format_size(sqlite3_value_int64(argv[0]), buf, sizeof(buf));
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/*
 * A read-only store reads and nothing else: not even a copy somewhere else
 * (VACUUM INTO, which SQLITE_OPEN_READONLY allows), a temporary table, an
 * attached file or a setting. The authorizer allows reading tables and
 * views, functions, recursive queries, transactions (on a read-only
 * connection, one snapshot for several reads) and the pragmas that only report;
 * st_store_statement_reads() refuses the statements SQLite asks no
 * authorizer about (VACUUM). The one exception, an UPDATE of sqlite_master,
 * is SQLite declaring a table-valued pragma's columns to itself
 * (pragma_table_info): it writes nothing.
 */
static int read_only_authorizer(void *arg, int code, const char *a, const char *b, const char *db,
				const char *trigger)
{
	(void)arg;
	(void)db;
	(void)trigger;
	/* pragmas whose argument names an object: they read whatever it is */
	static const char *const reading[] = {
		"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
		"foreign_key_list", "foreign_key_check", "database_list", "function_list",
		"pragma_list", "collation_list", "module_list", "compile_options", "integrity_check",
		"quick_check", NULL
	};
	/* pragmas that set a value when given one: only without it */
	static const char *const reporting[] = { "user_version", "schema_version", "application_id",
						 "page_count", "page_size", "freelist_count",
						 "encoding", "data_version", NULL };
	switch (code) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION: /* a read transaction: one snapshot for several statements */
	case SQLITE_SAVEPOINT:
		return SQLITE_OK;
	case SQLITE_UPDATE:
		return a && (!strcmp(a, "sqlite_master") || !strcmp(a, "sqlite_temp_master"))
			       ? SQLITE_OK
			       : SQLITE_DENY;
	case SQLITE_PRAGMA:
		for (int i = 0; a && reading[i]; i++)
			if (strcmp(a, reading[i]) == 0)
				return SQLITE_OK;
		for (int i = 0; a && !b && reporting[i]; i++)
			if (strcmp(a, reporting[i]) == 0)
				return SQLITE_OK;
		return SQLITE_DENY;
	default:
		return SQLITE_DENY;
	}
}

int st_store_statement_reads(sqlite3_stmt *st)
{
	return st && sqlite3_stmt_readonly(st);
}

/* A new store whose making failed (a full file system): its files go, so
 * nothing is left behind. Only while it holds nothing: at most one page and
 * no WAL content, which another run that made the same store at the same
 * moment and committed its schema would have. */
static void remove_unborn(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	struct stat st, wal;
	char side[ST_STR_MAX + 16];
	snprintf(side, sizeof(side), "%s-wal", path);
	if (stat(path, &st) == 0 && st.st_size > 4096)
		return;
	if (stat(side, &wal) == 0 && wal.st_size > 0)
		return;
	unlink(path);
	for (size_t i = 0; i < ST_ARRAY_LEN(sfx); i++) {
		snprintf(side, sizeof(side), "%s%s", path, sfx[i]);
		unlink(side);
	}
}

/* SQL function st_run_live(run_id): 1 when the run's rank 0 holds its
 * live lock (store/live.h), 0 when no process does, NULL when that
 * cannot be told. Reads the lock file beside this connection's store. */
static void sql_run_live(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *path = sqlite3_db_filename(sqlite3_context_db_handle(ctx), "main");
	const char *run = (const char *)sqlite3_value_text(argv[0]);
	char err[ST_ERR_MAX];
	int live = path && *path && run ? st_live_check(path, run, err, sizeof(err)) : -1;
	if (live < 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int(ctx, live);
}

struct st_store *st_store_open(const char *path, int readonly, char *err, size_t n)
{
	struct st_store *s = calloc(1, sizeof(*s));
	if (!s) {
		fail(err, n, "store: out of memory");
		return NULL;
	}
	s->readonly = readonly;
	if (!(s->path = strdup(path))) {
		free(s);
		fail(err, n, "store: out of memory");
		return NULL;
	}
	struct stat before;
	int created = !readonly && stat(path, &before) != 0 && errno == ENOENT;
	/* another application's database, a damaged or a newer store: refused
	 * before the first write (setting WAL rewrites the header) */
	if (!readonly && !created && st_store_check_path(path, 1, err, n)) {
		free(s->path);
		free(s);
		return NULL;
	}
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		fail(err, n, "--db: cannot open '%s': %s", path,
		     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail_close;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_create_function(s->db, "st_size", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				sql_size, NULL, NULL);
	sqlite3_create_function(s->db, "st_run_live", 1, SQLITE_UTF8, NULL, sql_run_live, NULL,
				NULL);
	st_histblob_functions(s->db); /* st_hist_quantile(hist, hist_enc, q): both encodings */
	sqlite3_busy_timeout(s->db, 30000);
	if (readonly) {
		int64_t v = 0;
		sqlite3_set_authorizer(s->db, read_only_authorizer, NULL);
		sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 0);
		if (query_int(s->db, "PRAGMA user_version", &v)) {
			fail(err, n, "--db: '%s': %s", path, sqlite3_errmsg(s->db));
			goto fail_close;
		}
		if (v == 0 || v > ST_SCHEMA_VERSION) {
			fail(err, n, "--db: '%s' is not a store this stcluster can read (schema %lld)",
			     path, (long long)v);
			goto fail_close;
		}
		return s;
	}
	/* WAL: readers never block the writer; FULL: a committed combination
	 * survives a power cut, not only a crash. Changing the journal mode
	 * needs the store to itself for a moment, and SQLite answers BUSY at
	 * once (no busy handler) when another run holds it in a way that could
	 * deadlock: try again for as long as the busy timeout. */
	int64_t give_up = st_now_ns() + 30000000000LL;
	for (;;) {
		int rc = exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
				     "PRAGMA foreign_keys = ON",
			      err, n)
				 ? -(sqlite3_extended_errcode(s->db) & 0xff)
				 : migrate(s->db, err, n);
		if (!rc)
			break;
		if ((rc != -SQLITE_BUSY && rc != -SQLITE_LOCKED) || st_now_ns() > give_up)
			goto fail_close;
		struct timespec ts = { 0, 20000000 + (st_now_ns() % 30000000) };
		nanosleep(&ts, NULL);
	}
	if (prepare_all(s, err, n))
		goto fail_close;
	return s;
fail_close:
	st_store_close(s);
	if (created)
		remove_unborn(path);
	return NULL;
}

void st_store_close(struct st_store *s)
{
	if (!s)
		return;
	/* Leave the store in rollback-journal mode when no one else has it
	 * open: readers of a WAL store create PATH-wal and PATH-shm (and leave
	 * them), which a read-only `query` must not do. Another open
	 * connection makes this fail harmlessly; WAL returns on the next run. */
	if (!s->readonly && s->db)
		sqlite3_exec(s->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	sqlite3_finalize(s->ins_combo);
	sqlite3_finalize(s->ins_failure);
	sqlite3_finalize(s->ins_phase);
	sqlite3_finalize(s->ins_rank);
	sqlite3_finalize(s->ins_thread);
	sqlite3_finalize(s->ins_ranks);
	sqlite3_finalize(s->ins_threads);
	sqlite3_finalize(s->ins_host);
	sqlite3_finalize(s->set_stored);
	sqlite3_finalize(s->ins_eff);
	sqlite3_finalize(s->ins_sample);
	sqlite3_finalize(s->ins_baseline);
	sqlite3_finalize(s->set_row_hash);
	sqlite3_finalize(s->set_config_hash);
	sqlite3_finalize(s->set_baseline_hash);
	sqlite3_finalize(s->set_result_hash);
	sqlite3_finalize(s->ins_interval);
	sqlite3_finalize(s->ins_rpc);
	st_hasher_free(s->h);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

sqlite3 *st_store_db(struct st_store *s)
{
	return s->db;
}

/* Bind helpers: positional, 1-based, in the order of the statement. */
static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int step(struct st_store *s, sqlite3_stmt *st, char *err, size_t n)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	return 0;
}

static void iso(int64_t wall_ns, char *buf, size_t n)
{
	st_iso_time(wall_ns, buf, n);
}

/* Inside a writer's transaction: every other run whose row says running
 * but whose rank 0 holds no lock (killed, its host gone) is recorded as
 * aborted, with its result hash refreshed as an abort mark refreshes it.
 * A run whose lock cannot be tested is left as it is. */
static int record_dead_runs(struct st_store *s, const char *run_id, const char *at, char *err,
			    size_t n)
{
	sqlite3_stmt *list = NULL, *mark = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT run_id, config_hash FROM run WHERE status = 'running' "
				      "AND run_id <> ?1",
			       -1, &list, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "UPDATE run SET status = 'aborted', abort_rank = 0, abort_reason = ?2 "
			       "WHERE run_id = ?1 AND status = 'running'",
			       -1, &mark, NULL) != SQLITE_OK) {
		fail(err, n, "store: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	bind_text(list, 1, run_id);
	int step_rc;
	while ((step_rc = sqlite3_step(list)) == SQLITE_ROW) {
		char dead[64], why[ST_ERR_MAX], reason[512];
		st_copy(dead, sizeof(dead), (const char *)sqlite3_column_text(list, 0));
		int hashed = sqlite3_column_type(list, 1) != SQLITE_NULL;
		if (st_live_check(s->path, dead, why, sizeof(why)) != 0)
			continue;
		snprintf(reason, sizeof(reason),
			 "rank 0 gone: no process held the run's lock when run %.8s began at %s "
			 "(rank 0 was killed, or its host failed)",
			 run_id, at);
		bind_text(mark, 1, dead);
		bind_text(mark, 2, reason);
		if (step(s, mark, err, n))
			goto out;
		char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX];
		int found;
		if (hashed && (st_hash_stored(s->h, dead, cfg, base, res, &found, err, n) ||
			       st_hash_refresh_result(s->h, s->set_result_hash, dead, base, err, n)))
			goto out;
	}
	if (step_rc != SQLITE_DONE) {
		fail(err, n, "store: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(list);
	sqlite3_finalize(mark);
	return rc;
}

int st_store_begin_run(struct st_store *s, const struct st_run_record *r, char *err, size_t n)
{
	char at[40], phases[256] = "", *plan = NULL;
	size_t plan_len = 0;
	iso(r->started_wall_ns, at, sizeof(at));
	const struct st_config *cfg = r->cfg;
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (st_config_phases(cfg) & (1u << p)) {
			size_t l = strlen(phases);
			snprintf(phases + l, sizeof(phases) - l, "%s%s", l ? "," : "", st_phase_names[p]);
		}
	FILE *mf = open_memstream(&plan, &plan_len);
	if (!mf)
		return fail(err, n, "store: out of memory");
	st_config_dump(cfg, mf);
	fclose(mf);

	sqlite3_stmt *st = NULL;
	/* hashes: a new run has them; a resumed one keeps what it had (a run
	 * an older stcluster began stays without) */
	char cfg_stored[ST_HASH_HEX] = "", base_stored[ST_HASH_HEX] = "", res_stored[ST_HASH_HEX];
	char cfg_before[ST_HASH_HEX] = "", hex[ST_HASH_HEX];
	int hashed = 1, found;
	if (begin(s->db, err, n))
		goto out;
	if (record_dead_runs(s, r->run_id, at, err, n))
		goto rollback;
	if (r->resume) {
		if (st_hash_stored(s->h, r->run_id, cfg_stored, base_stored, res_stored, &found, err,
				   n))
			goto rollback;
		hashed = cfg_stored[0] != '\0';
		if (hashed && st_hash_config(s->h, r->run_id, cfg_before, NULL, err, n))
			goto rollback;
		/* the run row is the first part's; it is running again. A row that
		 * still said running lost its rank 0 (its lock was free, or this
		 * resume could not hold it): that is recorded as its abort */
		if (sqlite3_prepare_v2(s->db,
				       "UPDATE run SET status = 'running', finished_at = NULL, "
				       "abort_rank = CASE WHEN status = 'running' AND abort_reason IS NULL "
				       "THEN 0 ELSE abort_rank END, "
				       "abort_reason = CASE WHEN status = 'running' AND abort_reason IS NULL "
				       "THEN 'rank 0 gone: the run still said running, and no process held "
				       "its lock' ELSE abort_reason END WHERE run_id = ?",
				       -1, &st, NULL) != SQLITE_OK) {
			fail(err, n, "store: %s", sqlite3_errmsg(s->db));
			goto rollback;
		}
		bind_text(st, 1, r->run_id);
	} else {
		if (sqlite3_prepare_v2(s->db,
				       "INSERT INTO run (run_id, started_at, status, label, command, plan, "
				       "engine, target, phases, iterations, nranks, nhosts, combos_planned, "
				       "stcluster_version) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, "
				       "?, ?)",
				       -1, &st, NULL) != SQLITE_OK) {
			fail(err, n, "store: %s", sqlite3_errmsg(s->db));
			goto rollback;
		}
		bind_text(st, 1, r->run_id);
		bind_text(st, 2, at);
		bind_text(st, 3, cfg->o[ST_OPT_LABEL].s);
		bind_text(st, 4, r->command);
		bind_text(st, 5, plan);
		bind_text(st, 6, st_options[ST_OPT_ENGINE].choices[cfg->o[ST_OPT_ENGINE].v[0]]);
		bind_text(st, 7, cfg->o[ST_OPT_TARGET].s);
		bind_text(st, 8, phases);
		sqlite3_bind_int64(st, 9, cfg->o[ST_OPT_ITERATIONS].v[0]);
		sqlite3_bind_int(st, 10, r->nranks);
		sqlite3_bind_int(st, 11, r->nhosts);
		sqlite3_bind_int64(st, 12, (sqlite3_int64)r->combos_planned);
		bind_text(st, 13, ST_VERSION);
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		fail(err, n, "store: %s", sqlite3_errmsg(s->db));
		goto rollback;
	}
	for (int i = 0; i < r->nranks; i++) {
		const struct st_host_info *h = &r->hosts[i];
		sqlite3_stmt *q = s->ins_host;
		bind_text(q, 1, r->run_id);
		sqlite3_bind_int(q, 2, i);
		bind_text(q, 3, h->hostname);
		bind_text(q, 4, h->addresses);
		bind_text(q, 5, st_role_names[r->roles[i]]);
		sqlite3_bind_int(q, 6, h->local_rank);
		sqlite3_bind_int(q, 7, h->local_size);
		sqlite3_bind_int(q, 8, h->cores);
		sqlite3_bind_int(q, 9, h->pus);
		sqlite3_bind_int(q, 10, h->numa_nodes);
		sqlite3_bind_int64(q, 11, h->mem_bytes);
		bind_text(q, 12, h->kernel);
		bind_text(q, 13, h->cpu_model);
		sqlite3_bind_int(q, 14, h->pid);
		sqlite3_bind_int64(q, 15, r->clock_offset_ns[i]);
		sqlite3_bind_int64(q, 16, r->clock_rtt_ns[i]);
		sqlite3_bind_int(q, 17, r->partners[i]);
		if (h->rmem_max >= 0)
			sqlite3_bind_int64(q, 18, h->rmem_max);
		if (h->wmem_max >= 0)
			sqlite3_bind_int64(q, 19, h->wmem_max);
		bind_text(q, 20, h->tcp_rmem[0] ? h->tcp_rmem : NULL);
		bind_text(q, 21, h->tcp_wmem[0] ? h->tcp_wmem : NULL);
		if (h->sunrpc_slots >= 0)
			sqlite3_bind_int(q, 22, h->sunrpc_slots);
		bind_text(q, 23, h->iface[0] ? h->iface : NULL);
		if (h->mtu > 0)
			sqlite3_bind_int(q, 24, h->mtu);
		if (h->speed_mbps > 0)
			sqlite3_bind_int(q, 25, h->speed_mbps);
		if (step(s, q, err, n))
			goto rollback;
	}
	if (hashed) {
		/* resumed: the hosts of this part are added to the hash, unless
		 * the stored one no longer matched (then it stays, and shows) */
		if (st_hash_config(s->h, r->run_id, hex, NULL, err, n))
			goto rollback;
		if ((!r->resume || strcmp(cfg_before, cfg_stored) == 0) &&
		    st_hash_set(s->set_config_hash, r->run_id, 0, hex, err, n))
			goto rollback;
		if (!r->resume) {
			if (st_hash_baselines(s->h, r->run_id, base_stored, NULL, err, n) ||
			    st_hash_set(s->set_baseline_hash, r->run_id, 0, base_stored, err, n))
				goto rollback;
		}
		/* the status (running again) is in the result hash */
		if (st_hash_refresh_result(s->h, s->set_result_hash, r->run_id, base_stored, err, n))
			goto rollback;
	}
	if (exec(s->db, "COMMIT", err, n))
		goto rollback;
	sqlite3_finalize(st);
	free(plan);
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	free(plan);
	return -1;
}

int st_store_baseline(struct st_store *s, const char *run_id, const char *kind,
		      const char *direction, int server_rank, const char *clients, uint64_t bytes,
		      double seconds, const char *note, int streams, char *err, size_t n)
{
	/* the row and the hashes that cover it in one transaction */
	char cfg[ST_HASH_HEX], stored[ST_HASH_HEX], res[ST_HASH_HEX], before[ST_HASH_HEX] = "",
		after[ST_HASH_HEX];
	int found;
	if (begin(s->db, err, n))
		return -1;
	if (st_hash_stored(s->h, run_id, cfg, stored, res, &found, err, n) ||
	    (cfg[0] && st_hash_baselines(s->h, run_id, before, NULL, err, n)))
		goto rollback;
	sqlite3_stmt *q = s->ins_baseline;
	bind_text(q, 1, run_id);
	bind_text(q, 2, kind);
	bind_text(q, 3, direction);
	sqlite3_bind_int(q, 4, server_rank);
	bind_text(q, 5, clients);
	sqlite3_bind_int64(q, 6, (sqlite3_int64)bytes);
	if (seconds > 0) {
		sqlite3_bind_double(q, 7, seconds);
		sqlite3_bind_double(q, 8, (double)bytes / seconds / 1e6);
	}
	bind_text(q, 9, note);
	if (streams > 0)
		sqlite3_bind_int(q, 10, streams);
	if (step(s, q, err, n))
		goto rollback;
	if (cfg[0]) {
		/* refreshed only when the stored hash still matched the rows */
		if (strcmp(before, stored) == 0 &&
		    (st_hash_baselines(s->h, run_id, after, NULL, err, n) ||
		     st_hash_set(s->set_baseline_hash, run_id, 0, after, err, n)))
			goto rollback;
		if (st_hash_refresh_result(s->h, s->set_result_hash, run_id,
					   strcmp(before, stored) == 0 ? after : stored, err, n))
			goto rollback;
	}
	if (exec(s->db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int st_store_resume_plan(const char *path, const char *id_or_prefix, char *run_id, size_t idn,
			 char **plan, char *err, size_t n)
{
	if (st_store_check_path(path, 1, err, n))
		return -1;
	struct st_store *s = st_store_open(path, 1, err, n);
	if (!s)
		return -1;
	sqlite3_stmt *st;
	int found = 0, rc = -1;
	char status[32] = "", why[ST_ERR_MAX];
	if (sqlite3_prepare_v2(s->db,
			       /* a prefix by substr, not LIKE: '%' and '_' mean themselves */
			       "SELECT run_id, status, plan FROM run "
			       "WHERE ?1 <> '' AND substr(run_id, 1, length(?1)) = ?1 "
			       "ORDER BY run_id LIMIT 2",
			       -1, &st, NULL) != SQLITE_OK) {
		fail(err, n, "--resume: %s", sqlite3_errmsg(s->db));
		st_store_close(s);
		return -1;
	}
	bind_text(st, 1, id_or_prefix);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (found++)
			break;
		st_copy(run_id, idn, (const char *)sqlite3_column_text(st, 0));
		st_copy(status, sizeof(status), (const char *)sqlite3_column_text(st, 1));
		const char *p = (const char *)sqlite3_column_text(st, 2);
		*plan = strdup(p ? p : "");
	}
	sqlite3_finalize(st);
	st_store_close(s);
	if (found == 0)
		fail(err, n, "--resume: no run '%s' in %s", id_or_prefix, path);
	else if (found > 1)
		fail(err, n, "--resume: '%s' matches several runs; give more of the id", id_or_prefix);
	else if (strcmp(status, "complete") == 0)
		fail(err, n, "--resume: run %s is complete; nothing to resume", run_id);
	else if (st_live_check(path, run_id, why, sizeof(why)) == 1)
		fail(err, n, "--resume: run %s is still running (its rank 0 holds the run's lock): two "
			     "jobs would write the same combinations",
		     run_id);
	else if (!*plan)
		fail(err, n, "--resume: out of memory");
	else
		rc = 0;
	if (rc && found == 1) {
		free(*plan);
		*plan = NULL;
	}
	return rc;
}

int64_t st_store_baseline_rows(struct st_store *s, const char *run_id)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM baseline WHERE run_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	bind_text(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int st_store_stored_seqs(struct st_store *s, const char *run_id, uint64_t total,
			 unsigned char **stored, char *err, size_t n)
{
	sqlite3_stmt *st;
	*stored = calloc(total ? total : 1, 1);
	if (!*stored)
		return fail(err, n, "store: out of memory");
	if (sqlite3_prepare_v2(s->db, "SELECT seq FROM combo WHERE run_id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	bind_text(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		if (seq >= 0 && (uint64_t)seq < total)
			(*stored)[seq] = 1;
	}
	sqlite3_finalize(st);
	return 0;
}

int st_store_run_counts(struct st_store *s, const char *run_id, struct st_run_counts *c,
			char *err, size_t n)
{
	sqlite3_stmt *st;
	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT combos_stored, combos_ok, combos_error, combos_failed, "
			       "combos_skipped, combos_unverified FROM run_summary WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	bind_text(st, 1, run_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int64_t *v[] = { &c->stored, &c->ok, &c->error, &c->failed, &c->skipped, &c->unverified };
		for (int i = 0; i < 6; i++)
			*v[i] = sqlite3_column_int64(st, i);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(err, n, "store: no run %s", run_id);
}

int st_store_end_run(struct st_store *s, const char *run_id, const char *status,
		     const char *cleanup, char *err, size_t n)
{
	char at[40], cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX];
	int found;
	iso(st_wall_ns(), at, sizeof(at));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "UPDATE run SET status = ?, finished_at = ?, cleanup = ? WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	if (begin(s->db, err, n)) {
		sqlite3_finalize(st);
		return -1;
	}
	bind_text(st, 1, status);
	bind_text(st, 2, at);
	bind_text(st, 3, cleanup);
	bind_text(st, 4, run_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	/* the status and the finish time are in the result hash */
	if (rc != SQLITE_DONE)
		fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	else if (!st_hash_stored(s->h, run_id, cfg, base, res, &found, err, n) &&
		 (!cfg[0] || !st_hash_refresh_result(s->h, s->set_result_hash, run_id, base, err, n)) &&
		 !exec(s->db, "COMMIT", err, n))
		return 0;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct st_abort_mark {
	sqlite3 *db;
	sqlite3_stmt *mark, *count;
	struct st_hasher *h;	 /* the result hash covers the mark (NULL: not hashed) */
	sqlite3_stmt *set_result; /* with h */
	char run_id[64];
};

void st_store_abort_mark_close(struct st_abort_mark *m)
{
	if (!m)
		return;
	sqlite3_finalize(m->mark);
	sqlite3_finalize(m->count);
	sqlite3_finalize(m->set_result);
	st_hasher_free(m->h);
	sqlite3_close(m->db);
	free(m);
}

struct st_abort_mark *st_store_abort_mark_open(const char *path, const char *run_id, char *err,
					       size_t n)
{
	struct st_abort_mark *m = calloc(1, sizeof(*m));
	if (!m) {
		fail(err, n, "store: out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fail(err, n, "--db: cannot open '%s': %s", path,
		     m->db ? sqlite3_errmsg(m->db) : "out of memory");
		goto fail;
	}
	/* the main thread may be committing a combination: that takes
	 * milliseconds. NORMAL: the mark needs to outlive the process, which
	 * a WAL commit does without an fsync (mpirun's SIGKILL may be near). */
	sqlite3_busy_timeout(m->db, 10000);
	if (sqlite3_exec(m->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db,
			       "UPDATE run SET status = 'aborted', finished_at = ?, abort_rank = ?, "
			       "abort_reason = ? WHERE run_id = ? AND status = 'running'",
			       -1, &m->mark, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db, "SELECT COUNT(*) FROM combo WHERE run_id = ?", -1, &m->count,
			       NULL) != SQLITE_OK) {
		fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		goto fail;
	}
	bind_text(m->mark, 4, run_id);
	bind_text(m->count, 1, run_id);
	/* the store was migrated by the run's own connection before: the
	 * hasher finds its tables. Should it fail, the mark is still written
	 * (audit will then show the result hash as not matching). */
	char herr[ST_ERR_MAX];
	st_copy(m->run_id, sizeof(m->run_id), run_id);
	m->h = st_hasher_new(m->db, herr, sizeof(herr));
	if (m->h && sqlite3_prepare_v2(m->db, "UPDATE run SET result_hash = ?2 WHERE run_id = ?1", -1,
				       &m->set_result, NULL) != SQLITE_OK) {
		st_hasher_free(m->h);
		m->h = NULL;
	}
	return m;
fail:
	st_store_abort_mark_close(m);
	return NULL;
}

int st_store_abort_mark(struct st_abort_mark *m, int rank, const char *reason, char *err,
			size_t n)
{
	char at[40];
	iso(st_wall_ns(), at, sizeof(at));
	bind_text(m->mark, 1, at);
	if (rank >= 0)
		sqlite3_bind_int(m->mark, 2, rank);
	else
		sqlite3_bind_null(m->mark, 2);
	bind_text(m->mark, 3, reason);
	/* the mark and the result hash that covers it in one transaction (it
	 * waits, as the mark alone would, for a combination being committed);
	 * when it cannot begin, the mark is written alone */
	int tx = sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
	int rc = sqlite3_step(m->mark);
	sqlite3_reset(m->mark);
	if (rc == SQLITE_DONE && tx && m->h && sqlite3_changes(m->db) > 0) {
		char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX], herr[ST_ERR_MAX];
		int found;
		/* a failure here leaves the old result hash, which audit shows */
		if (!st_hash_stored(m->h, m->run_id, cfg, base, res, &found, herr, sizeof(herr)) &&
		    cfg[0])
			st_hash_refresh_result(m->h, m->set_result, m->run_id, base, herr, sizeof(herr));
	}
	if (rc != SQLITE_DONE) {
		fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		if (tx)
			sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (tx && sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	int64_t stored = -1;
	if (sqlite3_step(m->count) == SQLITE_ROW)
		stored = sqlite3_column_int64(m->count, 0);
	else
		fail(err, n, "store: %s", sqlite3_errmsg(m->db));
	sqlite3_reset(m->count);
	return stored < 0 ? -1 : (int)stored;
}

/* An option value in its column's type: NULL when unset, enum and string
 * values as text, numbers as integers. */
static void bind_value(sqlite3_stmt *st, int i, const struct st_config *cfg, int id, int64_t v)
{
	if (v == ST_UNSET)
		sqlite3_bind_null(st, i);
	else if (st_options[id].type == ST_T_ENUM)
		bind_text(st, i, st_options[id].choices[v]);
	else if (st_options[id].type == ST_T_DATA) {
		char text[64];
		st_opt_value_text(cfg, id, v, text, sizeof(text));
		bind_text(st, i, text);
	}
	else if (st_options[id].type == ST_T_STRING)
		bind_text(st, i, st_optval_str(&cfg->o[id], (int)v));
	else
		sqlite3_bind_int64(st, i, v);
}

static void bind_errno(sqlite3_stmt *st, int i_num, int i_name, int err)
{
	char buf[16];
	sqlite3_bind_int(st, i_num, err);
	if (err)
		bind_text(st, i_name, st_errno_name(err, buf, sizeof(buf)));
	else
		sqlite3_bind_null(st, i_name);
}

/* One rank_result row's values into q, from parameter o + 1 on. */
static void bind_rank_row(sqlite3_stmt *q, int o, int64_t combo_id, const char *phase,
			  const struct st_rank_result *rr)
{
	sqlite3_bind_int64(q, o + 1, combo_id);
	bind_text(q, o + 2, phase);
	sqlite3_bind_int(q, o + 3, (int)rr->rank);
	bind_text(q, o + 4, st_role_names[rr->role]);
	sqlite3_bind_int(q, o + 5, (int)rr->nthreads);
	sqlite3_bind_int64(q, o + 6, (sqlite3_int64)rr->bytes);
	sqlite3_bind_int64(q, o + 7, (sqlite3_int64)rr->ops);
	sqlite3_bind_int64(q, o + 8, rr->release_ns);
	if (rr->nthreads || rr->role == ST_ROLE_SERVER) {
		sqlite3_bind_int64(q, o + 9, rr->start_ns);
		sqlite3_bind_int64(q, o + 10, rr->end_ns);
	}
	sqlite3_bind_int64(q, o + 11, rr->cpu_user_us);
	sqlite3_bind_int64(q, o + 12, rr->cpu_sys_us);
	sqlite3_bind_int(q, o + 13, (rr->flags & ST_TF_DIRECT_FALLBACK) != 0);
	sqlite3_bind_int(q, o + 14, (rr->flags & ST_TF_DEADLINE) != 0);
	bind_errno(q, o + 15, o + 16, rr->error.err);
	if (rr->error.err) {
		bind_text(q, o + 17, st_op_names[rr->error.op]);
		sqlite3_bind_int64(q, o + 18, (sqlite3_int64)rr->error.offset);
		bind_text(q, o + 20, rr->message);
	}
	sqlite3_bind_int64(q, o + 19, (sqlite3_int64)rr->error.count);
	sqlite3_bind_int64(q, o + 26, (sqlite3_int64)rr->bad_blocks);
	if (rr->bad_blocks)
		sqlite3_bind_int64(q, o + 27, (sqlite3_int64)rr->first_bad_offset);
	if (rr->hist.count) {
		sqlite3_bind_int64(q, o + 21, (sqlite3_int64)(rr->hist.sum_ns / rr->hist.count));
		sqlite3_bind_int64(q, o + 22, (sqlite3_int64)st_hist_quantile(&rr->hist, 0.5));
		sqlite3_bind_int64(q, o + 23, (sqlite3_int64)st_hist_quantile(&rr->hist, 0.99));
		sqlite3_bind_int64(q, o + 24, (sqlite3_int64)rr->hist.max_ns);
		/* sparse (histblob.h): tens of bytes, not the struct's 2,720 */
		unsigned char blob[ST_HISTBLOB_MAX];
		size_t len = st_histblob_encode(&rr->hist, blob);
		sqlite3_bind_blob(q, o + 25, blob, (int)len, SQLITE_TRANSIENT);
		sqlite3_bind_int(q, o + 37, ST_HISTBLOB_SPARSE);
	}
	if (rr->nthreads) {
		sqlite3_bind_int64(q, o + 28, (sqlite3_int64)rr->read_bytes);
		sqlite3_bind_int64(q, o + 29, (sqlite3_int64)rr->read_ops);
		sqlite3_bind_int(q, o + 34, (rr->flags & ST_TF_STONEWALL) != 0);
	}
	if (rr->hist_read.count && rr->hist_write.count) {
		sqlite3_bind_int64(q, o + 30, (sqlite3_int64)st_hist_quantile(&rr->hist_read, 0.5));
		sqlite3_bind_int64(q, o + 31, (sqlite3_int64)st_hist_quantile(&rr->hist_read, 0.99));
		sqlite3_bind_int64(q, o + 32, (sqlite3_int64)st_hist_quantile(&rr->hist_write, 0.5));
		sqlite3_bind_int64(q, o + 33, (sqlite3_int64)st_hist_quantile(&rr->hist_write, 0.99));
	}
	if (rr->cache_drop[0])
		bind_text(q, o + 35, rr->cache_drop);
	if (rr->cache_drop_note[0])
		bind_text(q, o + 36, rr->cache_drop_note);
}

/* One thread_result row's values into q, from parameter o + 1 on. */
static void bind_thread_row(sqlite3_stmt *q, int o, int64_t combo_id, const char *phase,
			    const struct st_thread_result *t)
{
	sqlite3_bind_int64(q, o + 1, combo_id);
	bind_text(q, o + 2, phase);
	sqlite3_bind_int(q, o + 3, (int)t->rank);
	sqlite3_bind_int(q, o + 4, (int)t->thread);
	sqlite3_bind_int64(q, o + 5, (sqlite3_int64)t->bytes);
	sqlite3_bind_int64(q, o + 6, (sqlite3_int64)t->ops);
	sqlite3_bind_int64(q, o + 7, t->start_ns);
	sqlite3_bind_int64(q, o + 8, t->end_ns);
	bind_text(q, o + 9, t->cpuset);
	sqlite3_bind_int(q, o + 10, t->last_cpu);
	sqlite3_bind_int(q, o + 11, t->error.err);
	if (t->error.err) {
		bind_text(q, o + 12, st_op_names[t->error.op]);
		sqlite3_bind_int64(q, o + 13, (sqlite3_int64)t->error.offset);
	}
	if (t->hist.count) {
		sqlite3_bind_int64(q, o + 14, (sqlite3_int64)st_hist_quantile(&t->hist, 0.5));
		sqlite3_bind_int64(q, o + 15, (sqlite3_int64)st_hist_quantile(&t->hist, 0.99));
		sqlite3_bind_int64(q, o + 16, (sqlite3_int64)t->hist.max_ns);
	}
	bind_text(q, o + 17, t->io_mode[0] ? t->io_mode : NULL);
	sqlite3_bind_int64(q, o + 18, (sqlite3_int64)t->read_bytes);
	sqlite3_bind_int64(q, o + 19, (sqlite3_int64)t->read_ops);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* One rank's RPC counts of a phase: a row per operation, one for the
 * transports. */
static int store_rpc(struct st_store *s, int64_t combo_id, const char *phase,
		     const struct st_rpc_result *x, char *err, size_t n)
{
	if (x->source == ST_RPC_NONE || x->source > ST_RPC_LIBNFS)
		return 0;
	const char *src = st_rpc_source_names[x->source];
	sqlite3_stmt *q = s->ins_rpc;
	for (uint32_t i = 0; i < x->nops && i < ST_RPC_OPS; i++) {
		const struct st_rpc_op *o = &x->op[i];
		char name[sizeof(o->name) + 1];
		st_copy(name, sizeof(name), o->name);
		sqlite3_bind_int64(q, 1, combo_id);
		bind_text(q, 2, phase);
		sqlite3_bind_int(q, 3, (int)x->rank);
		bind_text(q, 4, src);
		bind_text(q, 5, name);
		bind_u64(q, 6, o->ops);
		bind_u64(q, 7, o->trans);
		bind_u64(q, 8, o->timeouts);
		bind_u64(q, 9, o->bytes_sent);
		bind_u64(q, 10, o->bytes_recv);
		bind_u64(q, 11, o->queue_us);
		bind_u64(q, 12, o->rtt_us);
		bind_u64(q, 13, o->exe_us);
		bind_u64(q, 14, o->errors);
		if (strcmp(name, "WRITE") == 0 && x->basis != ST_RPC_BASIS_NONE &&
		    x->basis <= ST_RPC_BASIS_INFERRED) {
			bind_u64(q, 15, o->file_sync);
			bind_u64(q, 16, o->data_sync);
			bind_u64(q, 17, o->unstable);
			bind_text(q, 18, st_rpc_basis_names[x->basis]);
		}
		/* libnfs: the time of each call of the three it makes */
		static const char *const timed[ST_RPC_HISTS] = { "READ", "WRITE", "COMMIT" };
		for (int h = 0; h < ST_RPC_HISTS; h++)
			if (x->source == ST_RPC_LIBNFS && !strcmp(name, timed[h]) && x->hist[h].count)
				sqlite3_bind_blob(q, 26, &x->hist[h], sizeof(x->hist[h]), SQLITE_STATIC);
		if (step(s, q, err, n))
			return -1;
	}
	sqlite3_bind_int64(q, 1, combo_id);
	bind_text(q, 2, phase);
	sqlite3_bind_int(q, 3, (int)x->rank);
	bind_text(q, 4, src);
	bind_text(q, 5, "xprt");
	sqlite3_bind_int(q, 19, (int)x->xprts);
	bind_u64(q, 20, x->connects);
	bind_u64(q, 21, x->sends);
	bind_u64(q, 22, x->recvs);
	bind_u64(q, 23, x->bad_xids);
	bind_u64(q, 24, x->backlog_u);
	char note[sizeof(x->note) + 1];
	st_copy(note, sizeof(note), x->note);
	if (note[0])
		bind_text(q, 25, note);
	return step(s, q, err, n);
}

/* The item "name: why" of an effective note ("a: x; b: y"), into out; 0 or
 * -1 when there is none. */
static int note_for(const char *note, const char *name, char *out, size_t n)
{
	size_t l = strlen(name);
	for (const char *p = note; p && *p;) {
		const char *end = strstr(p, "; ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > l + 2 && strncmp(p, name, l) == 0 && p[l] == ':' && p[l + 1] == ' ') {
			snprintf(out, n, "%.*s", (int)(len - l - 2), p + l + 2);
			return 0;
		}
		p = end ? end + 2 : NULL;
	}
	return -1;
}

static int store_phase(struct st_store *s, int64_t combo_id, int nranks,
		       const struct st_phase_record *p, char *err, size_t n)
{
	const char *phase = st_phase_names[p->phase];
	int64_t rmin = INT64_MAX, rmax = INT64_MIN;
	int any_err = 0;
	char first_msg[ST_ERR_MAX] = "";
	struct st_hist h, hr, hw;
	st_hist_init(&h);
	st_hist_init(&hr);
	st_hist_init(&hw);
	for (int r = 0; r < nranks; r++) {
		const struct st_rank_result *rr = &p->ranks[r];
		if (rr->release_ns < rmin)
			rmin = rr->release_ns;
		if (rr->release_ns > rmax)
			rmax = rr->release_ns;
		int wrong = rr->error.err != 0 || rr->bad_blocks != 0 || (rr->flags & ST_TF_SERVER_RESTART);
		any_err |= wrong;
		if (!first_msg[0] && wrong)
			st_rank_result_message(rr, first_msg, sizeof(first_msg));
		st_hist_merge(&h, &rr->hist);

		st_hist_merge(&hr, &rr->hist_read);
		st_hist_merge(&hw, &rr->hist_write);
	}
	/* the rows, STORE_BATCH a statement while there are that many left */
	for (int r = 0; r < nranks;) {
		int k = nranks - r >= STORE_BATCH ? STORE_BATCH : 1;
		sqlite3_stmt *q = k > 1 ? s->ins_ranks : s->ins_rank;
		for (int i = 0; i < k; i++)
			bind_rank_row(q, i * RANK_COLS, combo_id, phase, &p->ranks[r + i]);
		if (step(s, q, err, n))
			return -1;
		r += k;
	}
	for (int t = 0; t < p->nthreads;) {
		int k = p->nthreads - t >= STORE_BATCH ? STORE_BATCH : 1;
		sqlite3_stmt *q = k > 1 ? s->ins_threads : s->ins_thread;
		for (int i = 0; i < k; i++)
			bind_thread_row(q, i * THREAD_COLS, combo_id, phase, &p->threads[t + i]);
		if (step(s, q, err, n))
			return -1;
		t += k;
	}
	sqlite3_stmt *q = s->ins_phase;
	sqlite3_bind_int64(q, 1, combo_id);
	bind_text(q, 2, phase);
	sqlite3_bind_int(q, 3, p->phase);
	bind_text(q, 4, any_err ? "error" : "ok");
	sqlite3_bind_int64(q, 5, rmin);
	sqlite3_bind_int64(q, 6, rmax);
	sqlite3_bind_int64(q, 7, rmax - rmin);
	sqlite3_bind_int64(q, 8, (sqlite3_int64)h.count);
	if (h.count) {
		sqlite3_bind_int64(q, 9, (sqlite3_int64)(h.sum_ns / h.count));
		sqlite3_bind_int64(q, 10, (sqlite3_int64)st_hist_quantile(&h, 0.5));
		sqlite3_bind_int64(q, 11, (sqlite3_int64)st_hist_quantile(&h, 0.9));
		sqlite3_bind_int64(q, 12, (sqlite3_int64)st_hist_quantile(&h, 0.99));
		sqlite3_bind_int64(q, 13, (sqlite3_int64)h.max_ns);
	}
	sqlite3_bind_int64(q, 14, p->gathered_ns);
	bind_text(q, 15, first_msg[0] ? first_msg : NULL);
	for (int r = 0; r < nranks; r++)
		if (p->ranks[r].cache_drop[0]) {
			bind_text(q, 16, p->ranks[r].cache_drop);
			if (p->ranks[r].cache_drop_note[0])
				bind_text(q, 21, p->ranks[r].cache_drop_note);
			break;
		}
	if (hr.count && hw.count) {
		sqlite3_bind_int64(q, 17, (sqlite3_int64)st_hist_quantile(&hr, 0.5));
		sqlite3_bind_int64(q, 18, (sqlite3_int64)st_hist_quantile(&hr, 0.99));
		sqlite3_bind_int64(q, 19, (sqlite3_int64)st_hist_quantile(&hw, 0.5));
		sqlite3_bind_int64(q, 20, (sqlite3_int64)st_hist_quantile(&hw, 0.99));
	}
	if (step(s, q, err, n))
		return -1;
	for (size_t i = 0; i < p->nintervals; i++) {
		const struct st_interval *x = &p->intervals[i];
		sqlite3_stmt *f = s->ins_interval;
		sqlite3_bind_int64(f, 1, combo_id);
		bind_text(f, 2, phase);
		sqlite3_bind_int(f, 3, x->rank);
		sqlite3_bind_int64(f, 4, x->idx);
		sqlite3_bind_int64(f, 5, x->t_ns);
		sqlite3_bind_int64(f, 6, x->end_ns);
		sqlite3_bind_int64(f, 7, x->width_ns);
		sqlite3_bind_int64(f, 8, (sqlite3_int64)x->bytes);
		sqlite3_bind_int64(f, 9, (sqlite3_int64)x->ops);
		sqlite3_bind_int64(f, 10, (sqlite3_int64)x->read_bytes);
		sqlite3_bind_int64(f, 11, (sqlite3_int64)x->read_ops);
		if (step(s, f, err, n))
			return -1;
	}
	for (int r = 0; p->rpc && r < nranks; r++)
		if (store_rpc(s, combo_id, phase, &p->rpc[r], err, n))
			return -1;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct st_sample *x = &p->samples[i];
		sqlite3_stmt *f = s->ins_sample;
		sqlite3_bind_int64(f, 1, combo_id);
		bind_text(f, 2, phase);
		sqlite3_bind_int(f, 3, x->rank);
		sqlite3_bind_int64(f, 4, x->t_ns);
		bind_text(f, 5, x->metric);
		bind_text(f, 6, x->device);
		sqlite3_bind_double(f, 7, x->value);
		if (step(s, f, err, n))
			return -1;
	}
	return 0;
}

int st_store_combo(struct st_store *s, const struct st_combo_record *c, char *err, size_t n)
{
	char t0[40], t1[40];
	iso(c->started_wall_ns, t0, sizeof(t0));
	iso(c->finished_wall_ns, t1, sizeof(t1));
	if (begin(s->db, err, n))
		return -1;
	sqlite3_stmt *q = s->ins_combo;
	bind_text(q, 1, c->run_id);
	sqlite3_bind_int(q, 2, (int)c->combo->seq);
	sqlite3_bind_int(q, 3, (int)c->combo->index);
	sqlite3_bind_int(q, 4, (int)c->combo->iteration);
	bind_text(q, 5, c->status);
	bind_text(q, 6, c->message);
	bind_text(q, 7, t0);
	bind_text(q, 8, t1);
	sqlite3_bind_int(q, 9, c->direct_fallback);
	/* effective values: those of the first client rank that knows them */
	const struct st_effective *eff = NULL;
	for (int r = 0; c->prep && r < c->nranks && !eff; r++)
		if (!c->roles || c->roles[r] == ST_ROLE_CLIENT)
			eff = &c->prep[r].eff;
	if (eff && eff->options[0])
		bind_text(q, 10, eff->options);
	int col = 11;
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		bind_value(q, col++, c->cfg, i, c->combo->v[i]);
		if (st_options[i].flags & ST_OF_NFS)
			bind_value(q, col++, c->cfg, i,
				   eff && (eff->known >> i & 1) ? eff->v[i] : ST_UNSET);
	}
	if (step(s, q, err, n))
		goto rollback;
	int64_t combo_id = sqlite3_last_insert_rowid(s->db);
	for (int r = 0; c->prep && r < c->nranks; r++) {
		const struct st_effective *e = &c->prep[r].eff;
		for (int i = 0; i < ST_OPT_COUNT; i++) {
			if (!(st_options[i].flags & ST_OF_NFS) ||
			    (c->combo->v[i] == ST_UNSET && !(e->known >> i & 1)))
				continue;
			char req[256], got[256];
			sqlite3_stmt *f = s->ins_eff;
			sqlite3_bind_int64(f, 1, combo_id);
			sqlite3_bind_int(f, 2, r);
			bind_text(f, 3, st_options[i].name);
			if (c->combo->v[i] != ST_UNSET) {
				st_opt_value_text(c->cfg, i, c->combo->v[i], req, sizeof(req));
				bind_text(f, 4, req);
			}
			if (e->known >> i & 1) {
				st_opt_value_text(c->cfg, i, e->v[i], got, sizeof(got));
				bind_text(f, 5, got);
			}
			if (e->max[i])
				sqlite3_bind_int64(f, 6, e->max[i]);
			char why[sizeof(e->note)];
			if (note_for(e->note, st_options[i].name, why, sizeof(why)) == 0)
				bind_text(f, 7, why);
			if (step(s, f, err, n))
				goto rollback;
		}
		/* an option the mount driver added unasked: nolock, a 'lock' row */
		if (e->added[0]) {
			char why[sizeof(e->note)], added[sizeof(e->added) + 1];
			st_copy(added, sizeof(added), e->added);
			sqlite3_stmt *f = s->ins_eff;
			sqlite3_bind_int64(f, 1, combo_id);
			sqlite3_bind_int(f, 2, r);
			bind_text(f, 3, "lock");
			bind_text(f, 5, added);
			if (note_for(e->note, "lock", why, sizeof(why)) == 0)
				bind_text(f, 7, why);
			if (step(s, f, err, n))
				goto rollback;
		}
	}
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		if (!(c->skipped_phases >> p & 1))
			continue;
		sqlite3_stmt *f = s->ins_phase;
		sqlite3_bind_int64(f, 1, combo_id);
		bind_text(f, 2, st_phase_names[p]);
		sqlite3_bind_int(f, 3, p);
		bind_text(f, 4, "skipped");
		bind_text(f, 15, c->skip_message);
		if (step(s, f, err, n))
			goto rollback;
	}
	for (int r = 0; c->prep && r < c->nranks; r++) {
		const struct st_prepare_status *p = &c->prep[r];
		if (!p->err)
			continue;
		sqlite3_stmt *f = s->ins_failure;
		sqlite3_bind_int64(f, 1, combo_id);
		sqlite3_bind_int(f, 2, r);
		bind_errno(f, 3, 4, p->err);
		bind_text(f, 5, st_op_names[p->op < ST_OP_COUNT ? p->op : 0]);
		bind_text(f, 6, p->message);
		if (step(s, f, err, n))
			goto rollback;
	}
	for (int i = 0; i < c->nphases; i++)
		if (store_phase(s, combo_id, c->nranks, &c->phases[i], err, n))
			goto rollback;
	/* rank 0's clock is the common timeline (its offset is 0) */
	sqlite3_bind_int64(s->set_stored, 1, st_now_ns());
	sqlite3_bind_int64(s->set_stored, 2, combo_id);
	if (step(s, s->set_stored, err, n))
		goto rollback;
	/* its hash, and the run's result hash, in this same transaction */
	char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX], hex[ST_HASH_HEX];
	int found;
	if (st_hash_stored(s->h, c->run_id, cfg, base, res, &found, err, n))
		goto rollback;
	if (cfg[0] && (st_hash_combo(s->h, combo_id, hex, err, n) ||
		       st_hash_set(s->set_row_hash, NULL, combo_id, hex, err, n) ||
		       st_hash_refresh_result(s->h, s->set_result_hash, c->run_id, base, err, n)))
		goto rollback;
	if (exec(s->db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int st_store_audit(struct st_store *s, const char *run_id, struct st_audit *a, char *err,
		   size_t n)
{
	return st_hash_audit(&s->h, s->db, run_id, a, err, n);
}
