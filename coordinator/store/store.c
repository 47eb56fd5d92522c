/*
 * store.c - opening and closing a store (see store.h): the file checked,
 * the connection made (its SQL functions; read-only: its authorizer), the
 * journal mode and the migration (schema.c), and the statements every row
 * is written with, prepared once from the column tables (rows.c).
 *
 * The rest of the API is by concern: run.c (the run row, its hosts and
 * its end), abort.c (marking a run aborted from another thread),
 * baseline.c (the baseline rows), combo.c (a combination's rows), hash.c
 * (the audit).
 */
#include "store.h"

#include "db.h"
#include "hash.h"
#include "histblob.h"
#include "live.h"
#include "rows.h"
#include "schema.h"

#include "../../common/options.h"
#include "../../common/units.h"
#include "../../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "version.h" /* generated: $(BUILD)/gen/version.h (the Makefile) */

/* The one object that includes the generated version: a new commit
 * rebuilds this file alone of store/. */
const char st_store_version[] = ST_VERSION;

static int prepare(struct st_store *s, sqlite3_stmt **st, const char *sql, char *err, size_t n)
{
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(s->db));
	return 0;
}

/* The INSERT of `rows` rows of kind k, then extra (nextra more names). */
static int prepare_kind(struct st_store *s, sqlite3_stmt **st, const struct st_row_kind *k,
			int rows, const char *const *extra, int nextra, char *err, size_t n)
{
	char *sql = st_row_insert_sql(k, rows, extra, nextra);
	if (!sql)
		return st_db_fail(err, n, "store: out of memory");
	int rc = prepare(s, st, sql, err, n);
	free(sql);
	return rc;
}

/* The combo INSERT: its own columns, then one per sweep option and
 * <name>_eff for an NFS option's effective value (combo.c binds them in
 * the same order). */
static int prepare_combo(struct st_store *s, char *err, size_t n)
{
	const char *names[2 * ST_OPT_COUNT];
	char eff[ST_OPT_COUNT][80];
	int k = 0;
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		names[k++] = st_options[i].name;
		if (st_options[i].flags & ST_OF_NFS) {
			snprintf(eff[i], sizeof(eff[i]), "%s_eff", st_options[i].name);
			names[k++] = eff[i];
		}
	}
	return prepare_kind(s, &s->ins_combo, &st_rows_combo, 1, names, k, err, n);
}

static int prepare_all(struct st_store *s, char *err, size_t n)
{
	if (prepare_combo(s, err, n) ||
	    prepare_kind(s, &s->ins_host, &st_rows_host, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_baseline, &st_rows_baseline, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_eff, &st_rows_eff, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_failure, &st_rows_failure, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_phase, &st_rows_phase, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_rank, &st_rows_rank, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_ranks, &st_rows_rank, ST_STORE_BATCH, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_thread, &st_rows_thread, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_threads, &st_rows_thread, ST_STORE_BATCH, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_interval, &st_rows_interval_pack, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_sample, &st_rows_sample, 1, NULL, 0, err, n) ||
	    prepare_kind(s, &s->ins_rpc, &st_rows_rpc, 1, NULL, 0, err, n) ||
	    prepare(s, &s->set_stored, "UPDATE combo SET stored_ns = ? WHERE combo_id = ?", err,
		    n) ||
	    prepare(s, &s->set_row_hash, "UPDATE combo SET row_hash = ?2 WHERE combo_id = ?1", err,
		    n) ||
	    prepare(s, &s->set_config_hash, "UPDATE run SET config_hash = ?2 WHERE run_id = ?1",
		    err, n) ||
	    prepare(s, &s->set_baseline_hash, "UPDATE run SET baseline_hash = ?2 WHERE run_id = ?1",
		    err, n) ||
	    prepare(s, &s->set_result_hash, "UPDATE run SET result_hash = ?2 WHERE run_id = ?1",
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
 * moment and committed its schema would have. The files are those of the
 * store's file after links are resolved (where SQLite made them): a
 * symlink given as --db stays, dangling as it was when nothing was made. */
static void remove_unborn(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	struct stat st, wal;
	char side[ST_STR_MAX + 16];
	char *real = realpath(path, NULL);
	if (!real)
		return; /* nothing was made */
	snprintf(side, sizeof(side), "%s-wal", real);
	if ((stat(real, &st) == 0 && st.st_size > 4096) || (stat(side, &wal) == 0 && wal.st_size > 0)) {
		free(real);
		return;
	}
	unlink(real);
	for (size_t i = 0; i < ST_ARRAY_LEN(sfx); i++) {
		snprintf(side, sizeof(side), "%s%s", real, sfx[i]);
		unlink(side);
	}
	free(real);
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

/* The migration first, in the journal mode the store is in (at rest a
 * rollback journal: a migration that fails leaves the file byte for byte as
 * it was); then WAL: readers never block the writer; FULL: a committed
 * combination survives a power cut, not only a crash. Changing the journal
 * mode needs the store to itself for a moment, and SQLite answers BUSY at
 * once (no busy handler) when another run holds it in a way that could
 * deadlock: try again for as long as the busy timeout. */
static int make_writable(sqlite3 *db, char *err, size_t n)
{
	int64_t give_up = st_now_ns() + 30000000000LL;
	for (;;) {
		int rc = st_db_exec(db, "PRAGMA foreign_keys = ON", err, n)
				 ? -(sqlite3_extended_errcode(db) & 0xff)
				 : st_schema_migrate(db, err, n);
		if (!rc && st_db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", err,
				      n))
			rc = -(sqlite3_extended_errcode(db) & 0xff);
		if (!rc)
			return 0;
		if ((rc != -SQLITE_BUSY && rc != -SQLITE_LOCKED) || st_now_ns() > give_up)
			return -1;
		struct timespec ts = { 0, 20000000 + (st_now_ns() % 30000000) };
		nanosleep(&ts, NULL);
	}
}

struct st_store *st_store_open(const char *path, int readonly, char *err, size_t n)
{
	struct st_store *s = calloc(1, sizeof(*s));
	if (!s) {
		st_db_fail(err, n, "store: out of memory");
		return NULL;
	}
	s->readonly = readonly;
	if (!(s->path = strdup(path))) {
		free(s);
		st_db_fail(err, n, "store: out of memory");
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
	int rc = readonly ? st_db_open_read(path, &s->db)
			  : sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
					    NULL);
	if (rc != SQLITE_OK) {
		st_db_fail(err, n, "--db: cannot open '%s': %s", path,
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
		if (st_db_query_int(s->db, "PRAGMA user_version", &v)) {
			st_db_fail(err, n, "--db: '%s': %s", path, sqlite3_errmsg(s->db));
			goto fail_close;
		}
		if (v == 0 || v > ST_SCHEMA_VERSION) {
			st_db_fail(err, n,
				   "--db: '%s' is not a store this stcluster can read (schema %lld)",
				   path, (long long)v);
			goto fail_close;
		}
		return s;
	}
	if (make_writable(s->db, err, n))
		goto fail_close;
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

int st_store_audit(struct st_store *s, const char *run_id, struct st_audit *a, char *err,
		   size_t n)
{
	return st_hash_audit(&s->h, s->db, run_id, a, err, n);
}
