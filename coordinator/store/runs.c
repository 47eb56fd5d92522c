/*
 * runs.c - which run a subcommand means, and the facts about a run that
 * headings and column choices need (see runs.h).
 */
#include "runs.h"

#include "../../common/options.h"
#include "../../common/units.h"
#include "../../common/util.h"

#include <stdio.h>
#include <string.h>

int st_run_resolve(sqlite3 *db, const char *want, char *id, size_t n, char *err, size_t errn)
{
	long long back = -1;
	if (strcmp(want, "last") == 0) {
		back = 0;
	} else if (strncmp(want, "last~", 5) == 0) {
		int64_t k;
		const char *why;
		if (st_parse_count(want + 5, &k, &why) || k > 1000000) {
			snprintf(err, errn, "invalid run '%s' (last~N: N runs before the last)", want);
			return -1;
		}
		back = k;
	} else if (!*want) {
		snprintf(err, errn, "empty run id");
		return -1;
	}
	sqlite3_stmt *st;
	/* a prefix by substr, not LIKE: '_' and '%' in the text mean themselves;
	 * the range bounds it in the key's index (U+10FFFF sorts after every
	 * other character), so it reads the ids that match, not every run's */
	const char *sql = back >= 0 ? "SELECT run_id FROM run ORDER BY started_at DESC, rowid DESC "
				      "LIMIT 1 OFFSET ?1"
				    : "SELECT run_id FROM run WHERE run_id >= ?1 AND "
				      "run_id < ?1 || char(1114111) AND "
				      "substr(run_id, 1, length(?1)) = ?1 ORDER BY run_id LIMIT 2";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errn, "%s", sqlite3_errmsg(db));
		return -1;
	}
	if (back >= 0)
		sqlite3_bind_int64(st, 1, back);
	else
		sqlite3_bind_text(st, 1, want, -1, SQLITE_TRANSIENT);
	int found = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (found++ == 0)
			st_copy(id, n, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (found == 0) {
		snprintf(err, errn, "no run '%s' in the store", want);
		return -1;
	}
	if (found > 1) {
		snprintf(err, errn, "'%s' matches several runs; give more of the id", want);
		return -1;
	}
	return 0;
}

/* "a1b2c3d4 (label, 2026-11-30T02:02, 3 iterations)" */
void st_run_title(sqlite3 *db, const char *run, char *buf, size_t n)
{
	sqlite3_stmt *st;
	snprintf(buf, n, "%.8s", run);
	if (sqlite3_prepare_v2(db,
			       "SELECT COALESCE(NULLIF(label, ''), 'no label'), substr(started_at, 1, 16), "
			       "(SELECT COALESCE(MAX(iteration), 0) + 1 FROM combo c WHERE c.run_id = r.run_id) "
			       "FROM run r WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, n, "%.8s (%s, %s, %d iteration%s)", run, sqlite3_column_text(st, 0),
			 sqlite3_column_text(st, 1), sqlite3_column_int(st, 2),
			 sqlite3_column_int(st, 2) == 1 ? "" : "s");
	sqlite3_finalize(st);
}

/* One integer from a statement with one text parameter; 0 on any error. */
static int64_t run_int(sqlite3 *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int st_run_iterations(sqlite3 *db, const char *run)
{
	return (int)run_int(db, "SELECT COALESCE(MAX(iteration), 0) + 1 FROM combo WHERE run_id = ?",
			      run);
}

int st_run_has_baseline(sqlite3 *db, const char *run)
{
	return run_int(db, "SELECT COUNT(*) FROM baseline WHERE run_id = ? AND mbps > 0", run) > 0;
}

int st_run_has_mixed(sqlite3 *db, const char *run)
{
	return run_int(db,
		       "SELECT COUNT(*) FROM phase_run p JOIN combo c USING (combo_id) "
		       "WHERE c.run_id = ? AND p.phase IN ('rw', 'randrw')",
		       run) > 0;
}

long long st_run_stalls(sqlite3 *db, const char *run)
{
	/* a store an older stcluster last wrote has no interval views: 0 */
	return run_int(db,
		       "SELECT COUNT(*) FROM interval_rank i JOIN combo c USING (combo_id) "
		       "WHERE c.run_id = ? AND i.stall",
		       run);
}
