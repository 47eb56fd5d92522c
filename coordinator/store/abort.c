/*
 * abort.c - marking a running run aborted from any thread (see store.h):
 * a connection of its own, opened ahead, so the mark can be written when
 * the process may have a second left, with the result hash that covers it.
 */
#include "store.h"

#include "db.h"
#include "hash.h"

#include "../../common/util.h"

#include <stdio.h>
#include <stdlib.h>

struct st_abort_mark {
	sqlite3 *db;
	sqlite3_stmt *mark, *count, *cleanup;
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
	sqlite3_finalize(m->cleanup);
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
		st_db_fail(err, n, "store: out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "--db: cannot open '%s': %s", path,
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
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db,
			       "UPDATE run SET cleanup = ?1 WHERE run_id = ?2 AND status = 'aborted'",
			       -1, &m->cleanup, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		goto fail;
	}
	st_db_bind_text(m->mark, 4, run_id);
	st_db_bind_text(m->count, 1, run_id);
	st_db_bind_text(m->cleanup, 2, run_id);
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

/* The result hash again over the run's outcome, in the caller's
 * transaction; a failure leaves the old one, which audit then shows. */
static void refresh_hash(struct st_abort_mark *m)
{
	char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX], herr[ST_ERR_MAX];
	int found;
	if (m->h && !st_hash_stored(m->h, m->run_id, cfg, base, res, &found, herr, sizeof(herr)) &&
	    cfg[0])
		st_hash_refresh_result(m->h, m->set_result, m->run_id, base, herr, sizeof(herr));
}

int st_store_abort_mark(struct st_abort_mark *m, int rank, const char *reason, char *err,
			size_t n)
{
	char at[40];
	st_iso_time(st_wall_ns(), at, sizeof(at));
	st_db_bind_text(m->mark, 1, at);
	if (rank >= 0)
		sqlite3_bind_int(m->mark, 2, rank);
	else
		sqlite3_bind_null(m->mark, 2);
	st_db_bind_text(m->mark, 3, reason);
	/* the mark and the result hash that covers it in one transaction (it
	 * waits, as the mark alone would, for a combination being committed);
	 * when it cannot begin, the mark is written alone */
	int tx = sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
	int rc = sqlite3_step(m->mark);
	sqlite3_reset(m->mark);
	if (rc == SQLITE_DONE && tx && sqlite3_changes(m->db) > 0)
		refresh_hash(m);
	if (rc != SQLITE_DONE) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		if (tx)
			sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (tx && sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	int64_t stored = -1;
	if (sqlite3_step(m->count) == SQLITE_ROW)
		stored = sqlite3_column_int64(m->count, 0);
	else
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
	sqlite3_reset(m->count);
	return stored < 0 ? -1 : (int)stored;
}

int st_store_abort_cleanup(struct st_abort_mark *m, const char *cleanup, char *err, size_t n)
{
	if (sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
	st_db_bind_text(m->cleanup, 1, cleanup);
	int rc = sqlite3_step(m->cleanup);
	sqlite3_reset(m->cleanup);
	if (rc == SQLITE_DONE && sqlite3_changes(m->db) > 0)
		refresh_hash(m);
	if (rc != SQLITE_DONE || sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(m->db));
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}
