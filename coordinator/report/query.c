/*
 * query.c - a statement of report/, prepared, bound and stepped in one
 * place (see query.h).
 */
#include "query.h"
#include "scope.h"

#include "../../common/options.h"

#include <string.h>

#include "../../common/strbuf.h"
#include "../../common/util.h"

#include <stdio.h>

static void bind_params(sqlite3_stmt *st, const struct st_qparams *p)
{
	const struct {
		const char *name, *value;
	} texts[] = { { ":run", p->run }, { ":run_a", p->run_a }, { ":run_b", p->run_b },
		      { ":phase", p->phase } };
	for (size_t i = 0; i < ST_ARRAY_LEN(texts); i++) {
		int k = sqlite3_bind_parameter_index(st, texts[i].name);
		if (k && texts[i].value)
			sqlite3_bind_text(st, k, texts[i].value, -1, SQLITE_TRANSIENT);
	}
	int k = sqlite3_bind_parameter_index(st, ":combo");
	if (k)
		sqlite3_bind_int64(st, k, p->combo);
	k = sqlite3_bind_parameter_index(st, ":top");
	if (k && p->top)
		sqlite3_bind_int(st, k, p->top);
	k = sqlite3_bind_parameter_index(st, ":window");
	if (k)
		sqlite3_bind_int(st, k, p->window);
}

int st_query_prepare(sqlite3 *db, const char *sql, const struct st_qparams *p, sqlite3_stmt **st,
		     char *err, size_t n)
{
	*st = NULL;
	struct st_strbuf b = { 0 };
	if (sql) {
		/* a store without the phases' own values is read through the scope,
		 * whose phase_run has them as NULL (scope.c), over every run */
		const char *scope = p->scope;
		if (!scope && !strncmp(sql, "SELECT", 6) &&
		    ((strstr(sql, "phase_") && !st_query_phase_values(db)) ||
		     st_scope_combo_is_old(db)))
			scope = "1";
		if (scope)
			st_scope_head(db, scope, sql, &b);
		st_strbuf_put(&b, sql);
	}
	if (!sql || b.oom) {
		snprintf(err, n, "out of memory");
		st_strbuf_release(&b);
		return -1;
	}
	int rc = sqlite3_prepare_v2(db, b.p, -1, st, NULL);
	st_strbuf_release(&b);
	if (rc != SQLITE_OK) {
		snprintf(err, n, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(*st);
		*st = NULL;
		return -1;
	}
	bind_params(*st, p);
	return 0;
}

long st_query_rows(sqlite3 *db, const char *sql, const struct st_qparams *p, st_query_row_fn row,
		   void *ctx, char *err, size_t n)
{
	sqlite3_stmt *st;
	if (st_query_prepare(db, sql, p, &st, err, n))
		return -1;
	long rows = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r = row(st, ctx);
		if (r < 0) {
			snprintf(err, n, "out of memory");
			sqlite3_finalize(st);
			return -1;
		}
		rows++;
		if (r > 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, n, "%s", sqlite3_errmsg(db));
		rows = -1;
	}
	sqlite3_finalize(st);
	return rows;
}

static int first_int(sqlite3_stmt *row, void *ctx)
{
	int64_t *v = ctx;
	*v = sqlite3_column_int64(row, 0);
	return 1;
}

int st_query_int(sqlite3 *db, const char *sql, const struct st_qparams *p, int64_t *v, char *err,
		 size_t n)
{
	*v = 0;
	long rows = st_query_rows(db, sql, p, first_int, v, err, n);
	if (rows < 0)
		*v = 0;
	return rows < 0 ? -1 : rows > 0;
}

int st_query_phase_values(sqlite3 *db)
{
	/* by SQLite itself: st_query_prepare asks this */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM pragma_table_info('phase_run') WHERE name = "
				   "'phase_block'",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	int have = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return have;
}
