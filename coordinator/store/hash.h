/*
 * hash.h - the store's hashes of its own rows (private to store/: the writers
 * write them in the transactions that write the rows, st_store_audit
 * recomputes them). What each hash covers is listed in hash.c.
 *
 * A hasher holds the statements that read each hashed table, prepared
 * once on one connection, and two digest contexts. hex arguments are
 * ST_HASH_HEX bytes. Every function returns 0, or -1 with err.
 */
#ifndef ST_HASH_H
#define ST_HASH_H

#include "audit.h"
#include "digest.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct st_hasher;

/* NULL with err when a hashed table is missing or out of memory. */
struct st_hasher *st_hasher_new(sqlite3 *db, char *err, size_t n);
void st_hasher_free(struct st_hasher *h); /* accepts NULL */

/* run.config_hash of the rows as they are now (*hosts: host rows, or NULL). */
int st_hash_config(struct st_hasher *h, const char *run_id, char hex[ST_HASH_HEX],
		   int64_t *hosts, char *err, size_t n);

/* run.baseline_hash of the rows as they are now (*rows counted, or NULL). */
int st_hash_baselines(struct st_hasher *h, const char *run_id, char hex[ST_HASH_HEX],
		      int64_t *rows, char *err, size_t n);

/* combo.row_hash of one combination's rows in every result table. */
int st_hash_combo(struct st_hasher *h, int64_t combo_id, char hex[ST_HASH_HEX], char *err,
		  size_t n);

/* The hashes stored with the run ("" where NULL); *found = 0 when there is
 * no such run. A run without config_hash has no hashes. */
int st_hash_stored(struct st_hasher *h, const char *run_id, char cfg[ST_HASH_HEX],
		   char base[ST_HASH_HEX], char res[ST_HASH_HEX], int *found, char *err,
		   size_t n);

/* Step q, an UPDATE ... SET <hash> = ?2 WHERE <key> = ?1, with the key as
 * text, or as the integer key when text is NULL. */
int st_hash_set(sqlite3_stmt *q, const char *text, int64_t key, const char *hex, char *err,
		size_t n);

/* Rebuild run.result_hash from the stored outcome, baseline hash and row
 * hashes, and store it with set_result (inside the caller's transaction). */
int st_hash_refresh_result(struct st_hasher *h, sqlite3_stmt *set_result, const char *run_id,
			   const char *baseline_hex, char *err, size_t n);

/* st_store_audit on connection db; *hp is made on first use (a store of
 * schema version 1 has no hash columns, and needs none). */
int st_hash_audit(struct st_hasher **hp, sqlite3 *db, const char *run_id, struct st_audit *a,
		  char *err, size_t n);

#endif
