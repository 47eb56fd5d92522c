/*
 * db.h - the store's handle and the SQLite helpers every file of store/
 * shares (private to store/; store.h is the API).
 *
 * The handle's statements are prepared once, when a store is opened
 * read-write (store.c), and reused for every row; each is reset and its
 * bindings cleared after every step, so a parameter a row does not bind is
 * NULL. Every helper returns 0, or -1 (some -SQLITE_BUSY) with err set
 * ("store: " and sqlite3_errmsg).
 */
#ifndef ST_STORE_DB_H
#define ST_STORE_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Rows of a combination's ranks and threads go ST_STORE_BATCH to a statement
 * (one statement, one VDBE run for them all), the rest one by one: rank 0's
 * cost per combination is the rows, not a statement per rank. */
#define ST_STORE_BATCH 32

struct st_store {
	sqlite3 *db;
	int readonly;
	/* one row of each kind (store/rows.h), ST_STORE_BATCH rows of ranks, of threads */
	sqlite3_stmt *ins_host, *ins_baseline, *ins_combo, *ins_eff, *ins_failure, *ins_phase;
	sqlite3_stmt *ins_rank, *ins_ranks, *ins_thread, *ins_threads;
	sqlite3_stmt *ins_interval, *ins_sample, *ins_rpc;
	sqlite3_stmt *set_stored; /* combo.stored_ns */
	sqlite3_stmt *set_row_hash, *set_config_hash, *set_baseline_hash, *set_result_hash;
	struct st_hasher *h; /* read-write: from the open on; read-only: from the first audit */
	char *path;	     /* as opened: the live locks are beside it */
};

/* The stcluster version a run stores (git describe; store.c). */
extern const char st_store_version[];

/* printf into err; returns -1. */
int st_db_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* sqlite3_exec of sql (several statements). */
int st_db_exec(sqlite3 *db, const char *sql, char *err, size_t n);

/* BEGIN IMMEDIATE, tried again for 30 s while another run has the store:
 * SQLite answers BUSY without its busy handler in states that could
 * deadlock (seen with several runs opening and closing one store at once).
 * -SQLITE_BUSY or -SQLITE_LOCKED when it gave up. */
int st_db_begin(sqlite3 *db, char *err, size_t n);

/* ROLLBACK, whatever state the transaction is in; cannot fail. */
void st_db_rollback(sqlite3 *db);

/* The first column of the first row of sql (0 when there is none). 0 or
 * -1, err left to the caller (sqlite3_errmsg). */
int st_db_query_int(sqlite3 *db, const char *sql, int64_t *out);

/* Step st to its end, then reset it and clear its bindings. */
int st_db_step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t n);

/* Bind text (TRANSIENT), or NULL when v is NULL. */
void st_db_bind_text(sqlite3_stmt *st, int i, const char *v);

/* Does the WAL of the store at path (beside its file after links are
 * resolved, where SQLite keeps it) hold frames, more than its header? */
int st_db_wal_has_frames(const char *path);

/* sqlite3_open_v2 read-only, the busy timeout set (30 s). A store left in
 * WAL mode (a run that was killed or aborted) with no WAL frames, whose
 * directory the user cannot write, SQLite will not read: it would make
 * PATH-shm first. Its file alone then holds every committed row, and it
 * is opened immutable (nothing to lock, no -shm). SQLITE_OK or SQLite's
 * code, *db set as sqlite3_open_v2 sets it. */
int st_db_open_read(const char *path, sqlite3 **db);

#endif
