/*
 * hash.c - the hashes `stcluster audit` checks: which rows each covers,
 * computed from the rows (see hash.h; digest.h has the serialization).
 */
#include "hash.h"

#include "../../common/util.h"
#include "db.h"
#include "digest.h"
#include "rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What each hash covers (digest.h has the serialization):
 *
 *   run.config_hash    the run row's columns as the run begins (st_rows_run,
 *                      store/rows.c, in its order) but its outcome, and the
 *                      run's host rows; written when the run begins
 *   combo.row_hash     the combination's rows in every table of
 *                      combo_tables; written in the transaction that stores
 *                      the combination, so no combination is ever stored
 *                      without it
 *   run.baseline_hash  the run's baseline rows; written with each baseline
 *   run.result_hash    the run's run_outcome_columns, its baseline_hash and
 *                      every (seq, row_hash) in seq order; written with the
 *                      run's start and end, each baseline and combination
 *
 * A table's rows are hashed with every column in cid order (so an option
 * column added to combo later is covered as it comes) except the hash
 * columns and combo_id: a surrogate key, by which the rows are selected (a
 * combination is named by its run_id and seq, which are covered). The rows
 * are in the order of the table's key; a table without one is ordered by
 * every column. Every table of sql/schema.sql is here (test_store.c alters
 * each column of each table in turn and expects the audit to see it).
 *
 * A table a later schema version added (rpc_stat, version 3) is hashed only
 * when the combination has rows in it: the combinations stored before have
 * none, and their hashes stay as they were written.
 *
 * A hash is only refreshed from the rows when the stored one still matched
 * them (a --resume adds hosts, a baseline adds a row): a change made in
 * between stays visible. The result hash is rebuilt from the stored row
 * hashes, which the audit checks one by one.
 *
 * A table a later schema version added ("later") names itself in a hash
 * only with its first row, so a combination stored before it existed (no
 * rows there) keeps its hash; a store of an older version, read-only,
 * has no such table, and it is left out.
 */
struct hashed_table {
	const char *table;
	const char *by;	   /* the column that selects the rows (?1) */
	const char *order; /* the key columns; NULL: no key, every column */
	int later;	   /* added after version 2: named with its first row only */
};

static const struct hashed_table combo_tables[] = {
	{ "combo", "combo_id", "run_id, seq", 0 },
	{ "effective_option", "combo_id", "rank, option", 0 },
	{ "combo_failure", "combo_id", "rank", 0 },
	{ "phase_run", "combo_id", "phase", 0 },
	{ "rank_result", "combo_id", "phase, rank", 0 },
	{ "thread_result", "combo_id", "phase, rank, thread", 0 },
	{ "sample", "combo_id", NULL, 0 },
	{ "interval", "combo_id", "phase, rank, idx", 1 }, /* version 4 */
	{ "rpc_stat", "combo_id", "phase, rank, source, op", 1 }, /* version 6 */
};
static const struct hashed_table run_table = { "run", "run_id", "run_id", 0 };
static const struct hashed_table host_table = { "host", "run_id", "rank", 0 };
static const struct hashed_table baseline_table = { "baseline", "run_id", NULL, 0 };

/* The run row's outcome: what its end (or an abort, or a resume) sets.
 * Its configuration is every other column it begins with. */
static const char *const run_outcome_columns[] = { "status", "finished_at", "abort_rank",
						   "abort_reason", "cleanup", NULL };
static const char *const unhashed_columns[] = { "combo_id", "row_hash", "config_hash",
						"baseline_hash", "result_hash", NULL };

/* One table's rows for one key: a statement and its column names. */
struct hq {
	const char *table;
	int later;	  /* hashed_table.later */
	int absent;	  /* a later table this (older, read-only) store lacks */
	sqlite3_stmt *st;
	char **names;
	int ncols;
};

struct st_hasher {
	struct st_digest *d; /* config, baselines, a combination */
	struct st_digest *r; /* the result, built while combinations are hashed */
	struct hq config, outcome, host, baseline;
	struct hq combo[ST_ARRAY_LEN(combo_tables)];
	sqlite3_stmt *list;   /* a run's combinations by seq: combo_id, seq, row_hash */
	sqlite3_stmt *hashes; /* a run's config_hash, baseline_hash, result_hash */
};

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

static void put_ident(FILE *f, const char *name)
{
	fputc('"', f);
	for (; *name; name++) {
		if (*name == '"')
			fputc('"', f);
		fputc(*name, f);
	}
	fputc('"', f);
}

static int hq_add_name(struct hq *q, const char *name)
{
	char **nn = realloc(q->names, (size_t)(q->ncols + 1) * sizeof(*nn));
	if (!nn)
		return -1;
	q->names = nn;
	if (!(q->names[q->ncols] = strdup(name)))
		return -1;
	q->ncols++;
	return 0;
}

/* q's column names: cols, those of them the table has, or with cols NULL
 * every column of the table but the unhashed ones, in cid order. */
static int hq_columns(sqlite3 *db, struct hq *q, const struct hashed_table *t,
		      const char *const *cols, char *err, size_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       cols ? "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2"
				    : "SELECT name FROM pragma_table_info(?1) ORDER BY cid",
			       -1, &st, NULL) != SQLITE_OK)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, t->table, -1, SQLITE_STATIC);
	int rc = SQLITE_DONE, oom = 0;
	/* a column a later version added is absent from an older store
	 * (read-only): it hashes as NULL there, which is as no field */
	for (; cols && *cols && !oom; cols++) {
		sqlite3_bind_text(st, 2, *cols, -1, SQLITE_STATIC);
		int there = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
		oom = there && hq_add_name(q, *cols);
	}
	while (!cols && !oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		oom = name && !listed(unhashed_columns, name) && hq_add_name(q, name);
	}
	sqlite3_finalize(st);
	if (oom)
		return st_db_fail(err, n, "store: out of memory");
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	return 0;
}

static void put_names(FILE *f, const struct hq *q)
{
	for (int i = 0; i < q->ncols; i++) {
		if (i)
			fputs(", ", f);
		put_ident(f, q->names[i]);
	}
}

/* cols: the columns, or NULL for every column of the table but the
 * unhashed ones. */
static int hq_prepare(sqlite3 *db, struct hq *q, const struct hashed_table *t,
		      const char *const *cols, char *err, size_t n)
{
	q->table = t->table;
	q->later = t->later;
	if (hq_columns(db, q, t, cols, err, n))
		return -1;
	if (q->ncols == 0 && t->later) {
		q->absent = 1;
		return 0;
	}
	if (q->ncols == 0)
		return st_db_fail(err, n, "store: table %s is missing", t->table);
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);
	if (!f)
		return st_db_fail(err, n, "store: out of memory");
	fputs("SELECT ", f);
	put_names(f, q);
	fputs(" FROM ", f);
	put_ident(f, t->table);
	fputs(" WHERE ", f);
	put_ident(f, t->by);
	fputs(" = ?1 ORDER BY ", f);
	if (t->order)
		fputs(t->order, f);
	else
		put_names(f, q);
	if (fclose(f) || !sql) {
		free(sql);
		return st_db_fail(err, n, "store: out of memory");
	}
	int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &q->st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return st_db_fail(err, n, "store: hashing %s: %s", t->table, sqlite3_errmsg(db));
	return 0;
}

static void hq_free(struct hq *q)
{
	sqlite3_finalize(q->st);
	for (int i = 0; i < q->ncols; i++)
		free(q->names[i]);
	free(q->names);
}

void st_hasher_free(struct st_hasher *h)
{
	if (!h)
		return;
	st_digest_free(h->d);
	st_digest_free(h->r);
	hq_free(&h->config);
	hq_free(&h->outcome);
	hq_free(&h->host);
	hq_free(&h->baseline);
	for (size_t i = 0; i < ST_ARRAY_LEN(combo_tables); i++)
		hq_free(&h->combo[i]);
	sqlite3_finalize(h->list);
	sqlite3_finalize(h->hashes);
	free(h);
}

/* The run's configuration columns: those it begins with but the outcome,
 * in their order; NULL-terminated, to free (NULL: out of memory). */
static const char **config_columns(void)
{
	const char **cols = calloc((size_t)st_rows_run.ncols + 1, sizeof(*cols));
	int k = 0;
	for (int i = 0; cols && i < st_rows_run.ncols; i++)
		if (!listed(run_outcome_columns, st_rows_run.cols[i].name))
			cols[k++] = st_rows_run.cols[i].name;
	return cols;
}

struct st_hasher *st_hasher_new(sqlite3 *db, char *err, size_t n)
{
	struct st_hasher *h = calloc(1, sizeof(*h));
	const char **cfg = config_columns();
	if (!h || !cfg || !(h->d = st_digest_new()) || !(h->r = st_digest_new())) {
		st_db_fail(err, n, "store: out of memory");
		st_hasher_free(h);
		free(cfg);
		return NULL;
	}
	int bad = hq_prepare(db, &h->config, &run_table, cfg, err, n) ||
		  hq_prepare(db, &h->outcome, &run_table, run_outcome_columns, err, n) ||
		  hq_prepare(db, &h->host, &host_table, NULL, err, n) ||
		  hq_prepare(db, &h->baseline, &baseline_table, NULL, err, n);
	free(cfg);
	for (size_t i = 0; !bad && i < ST_ARRAY_LEN(combo_tables); i++)
		bad = hq_prepare(db, &h->combo[i], &combo_tables[i], NULL, err, n);
	if (!bad &&
	    (sqlite3_prepare_v3(db,
				"SELECT combo_id, seq, row_hash FROM combo WHERE run_id = ?1 ORDER BY seq",
				-1, SQLITE_PREPARE_PERSISTENT, &h->list, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v3(db,
				"SELECT config_hash, baseline_hash, result_hash FROM run WHERE run_id = ?1",
				-1, SQLITE_PREPARE_PERSISTENT, &h->hashes, NULL) != SQLITE_OK))
		bad = st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	if (bad) {
		st_hasher_free(h);
		return NULL;
	}
	return h;
}

/* The rows of q for one key (text, or the integer when text is NULL), as
 * the field 'T' <table> and one row after another; *rows counts them. */
static int hq_digest(struct st_digest *d, struct hq *q, const char *text, int64_t key,
		     int64_t *rows, char *err, size_t n)
{
	if (q->absent) {
		if (rows)
			*rows = 0;
		return 0;
	}
	if (text)
		sqlite3_bind_text(q->st, 1, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(q->st, 1, key);
	if (!q->later)
		st_digest_field(d, 'T', q->table, strlen(q->table));
	int64_t k = 0;
	int rc;
	while ((rc = sqlite3_step(q->st)) == SQLITE_ROW) {
		if (q->later && !k)
			st_digest_field(d, 'T', q->table, strlen(q->table));
		st_digest_row(d, q->st, (const char *const *)q->names, q->ncols);
		k++;
	}
	if (rc != SQLITE_DONE)
		st_db_fail(err, n, "store: hashing %s: %s", q->table,
			   sqlite3_errmsg(sqlite3_db_handle(q->st)));
	sqlite3_reset(q->st);
	sqlite3_clear_bindings(q->st);
	if (rows)
		*rows = k;
	return rc == SQLITE_DONE ? 0 : -1;
}

static int finish(struct st_digest *d, char hex[ST_HASH_HEX], char *err, size_t n)
{
	return st_digest_finish(d, hex) ? st_db_fail(err, n, "store: SHA-256 (libcrypto) failed")
					: 0;
}

int st_hash_config(struct st_hasher *h, const char *run_id, char hex[ST_HASH_HEX],
		   int64_t *hosts, char *err, size_t n)
{
	if (st_digest_start(h->d, "config"))
		return st_db_fail(err, n, "store: SHA-256 (libcrypto) failed");
	if (hq_digest(h->d, &h->config, run_id, 0, NULL, err, n) ||
	    hq_digest(h->d, &h->host, run_id, 0, hosts, err, n))
		return -1;
	return finish(h->d, hex, err, n);
}

int st_hash_baselines(struct st_hasher *h, const char *run_id, char hex[ST_HASH_HEX],
		      int64_t *rows, char *err, size_t n)
{
	if (st_digest_start(h->d, "baselines"))
		return st_db_fail(err, n, "store: SHA-256 (libcrypto) failed");
	if (hq_digest(h->d, &h->baseline, run_id, 0, rows, err, n))
		return -1;
	return finish(h->d, hex, err, n);
}

int st_hash_combo(struct st_hasher *h, int64_t combo_id, char hex[ST_HASH_HEX], char *err,
		  size_t n)
{
	if (st_digest_start(h->d, "combination"))
		return st_db_fail(err, n, "store: SHA-256 (libcrypto) failed");
	for (size_t i = 0; i < ST_ARRAY_LEN(combo_tables); i++)
		if (hq_digest(h->d, &h->combo[i], NULL, combo_id, NULL, err, n))
			return -1;
	return finish(h->d, hex, err, n);
}

/* A hash inside another: the field 'h' with its hex, or 'n' when none. */
static void hash_field(struct st_digest *d, const char *hex)
{
	if (hex && *hex)
		st_digest_field(d, 'h', hex, strlen(hex));
	else
		st_digest_field(d, 'n', "", 0);
}

/* The result hash: result_begin, result_add for each combination by seq,
 * then finish(h->r). */
static int result_begin(struct st_hasher *h, const char *run_id, const char *baseline_hex,
			char *err, size_t n)
{
	if (st_digest_start(h->r, "result"))
		return st_db_fail(err, n, "store: SHA-256 (libcrypto) failed");
	if (hq_digest(h->r, &h->outcome, run_id, 0, NULL, err, n))
		return -1;
	hash_field(h->r, baseline_hex);
	return 0;
}

static void result_add(struct st_hasher *h, int64_t seq, const char *row_hex)
{
	char num[32];
	int l = snprintf(num, sizeof(num), "%lld", (long long)seq);
	st_digest_field(h->r, 's', num, (size_t)l);
	hash_field(h->r, row_hex);
}

/* A stored hash: "" when NULL; a value that is no hash at all (another
 * length) becomes "malformed", which no hash equals. */
static void column_hex(sqlite3_stmt *st, int i, char hex[ST_HASH_HEX])
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	if (t && strlen(t) != ST_HASH_HEX - 1)
		t = "malformed";
	st_copy(hex, ST_HASH_HEX, t ? t : "");
}

/* The hashes stored with the run; *found = 0 when there is no such run. A
 * run without config_hash has no hashes: an older stcluster began it. */
int st_hash_stored(struct st_hasher *h, const char *run_id, char cfg[ST_HASH_HEX],
		   char base[ST_HASH_HEX], char res[ST_HASH_HEX], int *found, char *err,
		   size_t n)
{
	sqlite3_bind_text(h->hashes, 1, run_id, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(h->hashes);
	*found = rc == SQLITE_ROW;
	cfg[0] = base[0] = res[0] = '\0';
	if (*found) {
		column_hex(h->hashes, 0, cfg);
		column_hex(h->hashes, 1, base);
		column_hex(h->hashes, 2, res);
	} else if (rc != SQLITE_DONE) {
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(sqlite3_db_handle(h->hashes)));
	}
	sqlite3_reset(h->hashes);
	sqlite3_clear_bindings(h->hashes);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* UPDATE ... SET <hash> = ?2 WHERE <key> = ?1 */
int st_hash_set(sqlite3_stmt *q, const char *text, int64_t key, const char *hex, char *err,
		size_t n)
{
	if (text)
		sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(q, 1, key);
	sqlite3_bind_text(q, 2, hex, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(q);
	if (rc != SQLITE_DONE)
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(sqlite3_db_handle(q)));
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Rebuild run.result_hash from the stored outcome, baseline hash and row
 * hashes (inside the caller's transaction). */
int st_hash_refresh_result(struct st_hasher *h, sqlite3_stmt *set_result, const char *run_id,
			   const char *baseline_hex, char *err, size_t n)
{
	if (result_begin(h, run_id, baseline_hex, err, n))
		return -1;
	sqlite3_bind_text(h->list, 1, run_id, -1, SQLITE_TRANSIENT);
	int rc;
	while ((rc = sqlite3_step(h->list)) == SQLITE_ROW) {
		char hex[ST_HASH_HEX];
		column_hex(h->list, 2, hex);
		result_add(h, sqlite3_column_int64(h->list, 1), hex);
	}
	if (rc != SQLITE_DONE)
		st_db_fail(err, n, "store: %s", sqlite3_errmsg(sqlite3_db_handle(h->list)));
	sqlite3_reset(h->list);
	sqlite3_clear_bindings(h->list);
	char hex[ST_HASH_HEX];
	if (rc != SQLITE_DONE || finish(h->r, hex, err, n))
		return -1;
	return st_hash_set(set_result, run_id, 0, hex, err, n);
}

static struct st_audit_item *audit_add(struct st_audit *a, const char *what, int64_t seq,
				       const char *stored, const char *computed)
{
	struct st_audit_item *it = realloc(a->items, (a->n + 1) * sizeof(*it));
	if (!it)
		return NULL;
	a->items = it;
	it = &a->items[a->n++];
	memset(it, 0, sizeof(*it));
	it->what = what;
	it->seq = seq;
	st_copy(it->stored, sizeof(it->stored), stored);
	st_copy(it->computed, sizeof(it->computed), computed);
	it->state = !*stored			   ? ST_AUDIT_MISSING
		    : strcmp(stored, computed) == 0 ? ST_AUDIT_OK
						   : ST_AUDIT_DIFFERS;
	a->altered += it->state != ST_AUDIT_OK;
	return it;
}

static int run_text_int(sqlite3 *db, const char *sql, const char *run_id, char *text, size_t tn,
			int64_t *v)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (text) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			st_copy(text, tn, t ? t : "");
		}
		*v = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* What the combinations' items found: how many, and the seqs none was
 * stored for ("3, 4, ..."). */
struct audit_seqs {
	int64_t combos, gaps;
	char gap_text[160];
};

/* An item per combination, in seq order, each also added to the result
 * hash begun in h->r. */
static int audit_combos(struct st_hasher *h, sqlite3 *db, const char *run_id, struct st_audit *a,
			struct audit_seqs *q, char *err, size_t n)
{
	int64_t next = 0;
	int rc, bad = 0;
	sqlite3_bind_text(h->list, 1, run_id, -1, SQLITE_TRANSIENT);
	while (!bad && (rc = sqlite3_step(h->list)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(h->list, 1);
		char stored[ST_HASH_HEX], hex[ST_HASH_HEX];
		column_hex(h->list, 2, stored);
		if (st_hash_combo(h, sqlite3_column_int64(h->list, 0), hex, err, n)) {
			bad = 1;
			break;
		}
		if (!audit_add(a, "combination", seq, stored, hex)) {
			bad = st_db_fail(err, n, "audit: out of memory");
			break;
		}
		result_add(h, seq, hex);
		/* seqs are stored in order from 0: a hole is a combination removed */
		for (; next < seq; next++, q->gaps++) {
			size_t l = strlen(q->gap_text);
			if (q->gaps < 8)
				snprintf(q->gap_text + l, sizeof(q->gap_text) - l, "%s%lld",
					 q->gaps ? ", " : "", (long long)next);
			else if (q->gaps == 8)
				snprintf(q->gap_text + l, sizeof(q->gap_text) - l, ", ...");
		}
		next = seq + 1;
		q->combos++;
	}
	if (!bad && rc != SQLITE_DONE)
		bad = st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	sqlite3_reset(h->list);
	sqlite3_clear_bindings(h->list);
	return bad ? -1 : 0;
}

/* The result item's note: the status, the combinations, the missing ones. */
static void result_note(struct st_audit_item *it, sqlite3 *db, const char *run_id,
			const struct audit_seqs *q)
{
	char status[32] = "";
	int64_t planned = 0;
	run_text_int(db, "SELECT status, combos_planned FROM run WHERE run_id = ?1", run_id, status,
		     sizeof(status), &planned);
	size_t l = (size_t)snprintf(it->note, sizeof(it->note), "status %s, %lld combination%s",
				    status, (long long)q->combos, q->combos == 1 ? "" : "s");
	if (q->gaps)
		l += (size_t)snprintf(it->note + l, sizeof(it->note) - l,
				      "; none stored for seq %s", q->gap_text);
	if (strcmp(status, "complete") || q->combos >= planned || l >= sizeof(it->note))
		return;
	/* --search halving plans its race's most: a complete race measures fewer */
	int64_t staged = 0;
	run_text_int(db, "SELECT NULL, COUNT(stage) FROM combo WHERE run_id = ?1", run_id, NULL, 0,
		     &staged);
	snprintf(it->note + l, sizeof(it->note) - l,
		 staged ? "; of at most %lld (--search halving)" : "; %lld planned", (long long)planned);
}

/* The items, in one read transaction (SAVEPOINT: also inside a caller's). */
static int audit_run(struct st_hasher *h, sqlite3 *db, const char *run_id, struct st_audit *a,
		     char *err, size_t n)
{
	char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX], hex[ST_HASH_HEX];
	char base_now[ST_HASH_HEX];
	int found;
	int64_t rows = 0, with_hash = 0;
	if (st_hash_stored(h, run_id, cfg, base, res, &found, err, n))
		return -1;
	if (!found)
		return st_db_fail(err, n, "no run '%s' in the store", run_id);
	if (run_text_int(db,
			 "SELECT NULL, COUNT(*) FROM combo WHERE run_id = ?1 AND row_hash IS NOT NULL",
			 run_id, NULL, 0, &with_hash))
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	a->hashed = cfg[0] || base[0] || res[0] || with_hash;
	if (!a->hashed)
		return 0;
	struct st_audit_item *it;
	if (st_hash_config(h, run_id, hex, &rows, err, n))
		return -1;
	if (!(it = audit_add(a, "config", -1, cfg, hex)))
		return st_db_fail(err, n, "audit: out of memory");
	snprintf(it->note, sizeof(it->note), "the run's configuration and %lld host row%s",
		 (long long)rows, rows == 1 ? "" : "s");
	if (st_hash_baselines(h, run_id, base_now, &rows, err, n))
		return -1;
	if (!(it = audit_add(a, "baselines", -1, base, base_now)))
		return st_db_fail(err, n, "audit: out of memory");
	snprintf(it->note, sizeof(it->note), "%lld baseline row%s", (long long)rows,
		 rows == 1 ? "" : "s");

	/* every combination, and the result hash over the recomputed ones */
	struct audit_seqs q = { 0 };
	if (result_begin(h, run_id, base_now, err, n) || audit_combos(h, db, run_id, a, &q, err,
								      n) ||
	    finish(h->r, hex, err, n))
		return -1;
	if (!(it = audit_add(a, "result", -1, res, hex)))
		return st_db_fail(err, n, "audit: out of memory");
	result_note(it, db, run_id, &q);
	return 0;
}

int st_hash_audit(struct st_hasher **hp, sqlite3 *db, const char *run_id, struct st_audit *a,
		  char *err, size_t n)
{
	memset(a, 0, sizeof(*a));
	int64_t have = 0;
	/* a store of schema version 1 (opened read-only, not migrated) */
	if (st_db_query_int(db,
			    "SELECT COUNT(*) FROM pragma_table_info('run') WHERE name = 'config_hash'",
			    &have))
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	if (st_db_exec(db, "SAVEPOINT st_audit", err, n))
		return -1;
	int rc = 0;
	if (have && !*hp && !(*hp = st_hasher_new(db, err, n)))
		rc = -1;
	else if (have)
		rc = audit_run(*hp, db, run_id, a, err, n);
	else {
		int64_t runs = 0;
		run_text_int(db, "SELECT NULL, COUNT(*) FROM run WHERE run_id = ?1", run_id, NULL,
			     0, &runs);
		if (!runs)
			rc = st_db_fail(err, n, "no run '%s' in the store", run_id);
	}
	sqlite3_exec(db, "RELEASE st_audit", NULL, NULL, NULL);
	if (rc)
		st_audit_free(a);
	return rc;
}

void st_audit_free(struct st_audit *a)
{
	free(a->items);
	a->items = NULL;
	a->n = 0;
}
