/*
 * scope.c - the head that runs a statement on some combinations' rows only
 * (scope.h).
 */
#include "scope.h"

#include "../store/store.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 1 when table has a column of that name */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int yes = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Past white space and -- comments. */
static const char *skip_blank(const char *p, const char *end)
{
	for (;;) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		return p;
	}
}

/* One statement of views.sql, [p, end) with its ';': when it is
 * "CREATE VIEW name AS body;", ", name AS (body)" into b. */
static void view_cte(const char *p, const char *end, struct st_strbuf *b)
{
	p = skip_blank(p, end);
	if (end - p < 12 || strncasecmp(p, "CREATE VIEW", 11) || !isspace((unsigned char)p[11]))
		return;
	p = skip_blank(p + 11, end);
	const char *name = p;
	while (p < end && !isspace((unsigned char)*p))
		p++;
	int nlen = (int)(p - name);
	p = skip_blank(p, end);
	if (end - p < 3 || strncasecmp(p, "AS", 2) || !isspace((unsigned char)p[2]))
		return;
	const char *body = p + 2, *stop = end - 1; /* the ';' */
	st_strbuf_addf(b, ",\n%.*s AS (%.*s\n)", nlen, name, (int)(stop - body), body);
}

/* Every view of views.sql, in its order (a view reads those before it). */
static void views(struct st_strbuf *b)
{
	const char *s = st_sql_views, *start = s;
	for (const char *p = strchr(s, ';'); p; p = strchr(p + 1, ';')) {
		/* a ';' inside a string or a comment does not end a statement */
		char *text = strndup(start, (size_t)(p + 1 - start));
		if (!text) {
			b->oom = 1;
			return;
		}
		int complete = sqlite3_complete(text);
		free(text);
		if (!complete)
			continue;
		view_cte(start, p + 1, b);
		start = p + 1;
	}
}

void st_scope_head(sqlite3 *db, const char *combos, struct st_strbuf *b)
{
	st_strbuf_addf(b, "WITH combo AS (SELECT * FROM main.combo WHERE (%s))", combos);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name <> "
			       "'combo' AND name NOT LIKE 'sqlite%' ORDER BY name",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			if (!t)
				continue;
			if (has_column(db, t, "combo_id"))
				st_strbuf_addf(b, ",\n\"%s\" AS (SELECT * FROM main.\"%s\" WHERE combo_id IN "
						  "(SELECT combo_id FROM combo))",
					       t, t);
			else if (has_column(db, t, "run_id"))
				/* run keeps its rowid: the queries take the last run by
				 * (started_at, rowid) */
				st_strbuf_addf(b, ",\n\"%s\" AS (SELECT *%s FROM main.\"%s\" WHERE run_id IN "
						  "(SELECT run_id FROM combo))",
					       t, strcmp(t, "run") ? "" : ", rowid AS rowid", t);
		}
		sqlite3_finalize(st);
	}
	views(b);
	st_strbuf_put(b, "\n");
}
