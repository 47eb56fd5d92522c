/*
 * scope.c - the head that runs a statement on some combinations' rows only
 * (scope.h).
 */
#include "scope.h"

#include "../../common/options.h"
#include "../store/store.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_VIEWS 64

/* A view of views.sql: its name and its text after AS. */
struct view {
	const char *name, *body;
	int nlen, blen;
	int used; /* the statement reads it, or a view it reads does */
};

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

/* ", NULL AS <column>" for each combo column this stcluster reads that the
 * store's combo lacks: a store no run of this version opened (read-only,
 * it is never migrated) has neither combo.stage (version 8) nor the
 * columns of the sweep options added since (a run adds them on open). */
static void combo_missing(sqlite3 *db, struct st_strbuf *b)
{
	sqlite3_stmt *st;
	struct st_strbuf have = ST_STRBUF_INIT;
	st_strbuf_put(&have, ",");
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('combo')", -1, &st, NULL) !=
	    SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		st_strbuf_addf(&have, "%s,", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	for (int i = -1; !have.oom && i < ST_OPT_COUNT; i++) {
		if (i >= 0 && !(st_options[i].flags & ST_OF_SWEEP))
			continue;
		for (int eff = 0; eff < 2; eff++) {
			char name[96];
			if (i < 0 && eff)
				break;
			if (eff && !(st_options[i].flags & ST_OF_NFS))
				continue;
			snprintf(name, sizeof(name), ",%s%s,", i < 0 ? "stage" : st_options[i].name,
				 eff ? "_eff" : "");
			if (!strstr(have.p, name))
				st_strbuf_addf(b, ", NULL AS \"%.*s\"", (int)strlen(name) - 2, name + 1);
		}
	}
	st_strbuf_release(&have);
}

/* ", NULL AS <column>" for each of st_later_columns of table t that the
 * store lacks. */
static void later_missing(sqlite3 *db, const char *t, struct st_strbuf *b)
{
	for (size_t i = 0; i < st_later_ncolumns; i++)
		if (!strcmp(st_later_columns[i].table, t) &&
		    !has_column(db, t, st_later_columns[i].name))
			st_strbuf_addf(b, ", NULL AS \"%s\"", st_later_columns[i].name);
}

int st_scope_combo_is_old(sqlite3 *db)
{
	return !has_column(db, "combo", "stage");
}

static int ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* 1 when [text, text + len) names `name` (nlen bytes) as a whole word. */
static int mentions(const char *text, size_t len, const char *name, size_t nlen)
{
	for (const char *p = text, *end = text + len; (size_t)(end - p) >= nlen; p++)
		if (!strncasecmp(p, name, nlen) && (p == text || !ident(p[-1])) &&
		    (p + nlen == end || !ident(p[nlen])))
			return 1;
	return 0;
}

/* 1 when sql or a view in use names `name`. */
static int named(const char *sql, const struct view *v, int n, const char *name, size_t nlen)
{
	if (mentions(sql, strlen(sql), name, nlen))
		return 1;
	for (int i = 0; i < n; i++)
		if (v[i].used && mentions(v[i].body, (size_t)v[i].blen, name, nlen))
			return 1;
	return 0;
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

/* One statement of views.sql, [p, end) with its ';': a view when it is
 * "CREATE VIEW name AS body;". 0, or -1 when it is something else. */
static int parse_view(const char *p, const char *end, struct view *v)
{
	p = skip_blank(p, end);
	if (end - p < 12 || strncasecmp(p, "CREATE VIEW", 11) || !isspace((unsigned char)p[11]))
		return -1;
	p = skip_blank(p + 11, end);
	v->name = p;
	while (p < end && !isspace((unsigned char)*p))
		p++;
	v->nlen = (int)(p - v->name);
	p = skip_blank(p, end);
	if (end - p < 3 || strncasecmp(p, "AS", 2) || !isspace((unsigned char)p[2]))
		return -1;
	v->body = p + 2;
	v->blen = (int)(end - 1 - v->body); /* without the ';' */
	v->used = 0;
	return 0;
}

/* Every view of views.sql, in its order (a view reads those before it);
 * how many, or -1 out of memory. */
static int views(struct view *v, int max)
{
	const char *start = st_sql_views;
	int n = 0;
	for (const char *p = strchr(start, ';'); p && n < max; p = strchr(p + 1, ';')) {
		/* a ';' inside a string or a comment does not end a statement */
		char *text = strndup(start, (size_t)(p + 1 - start));
		if (!text)
			return -1;
		int complete = sqlite3_complete(text);
		free(text);
		if (!complete)
			continue;
		if (parse_view(start, p + 1, &v[n]) == 0)
			n++;
		start = p + 1;
	}
	return n;
}

void st_scope_head(sqlite3 *db, const char *combos, const char *sql, struct st_strbuf *b)
{
	struct view v[MAX_VIEWS];
	int n = views(v, MAX_VIEWS);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	/* the views the statement reads, and those they read, to a fixpoint:
	 * every one in the head would cost its parsing in every statement */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = n - 1; i >= 0; i--)
			if (!v[i].used && named(sql, v, n, v[i].name, (size_t)v[i].nlen))
				v[i].used = changed = 1;
	}
	st_strbuf_put(b, "WITH combo AS (SELECT *");
	combo_missing(db, b);
	st_strbuf_addf(b, " FROM main.combo WHERE (%s))", combos);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name <> "
			       "'combo' AND name NOT LIKE 'sqlite%' ORDER BY name",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			/* a view that is a table in an older store (interval
			 * before version 9): the table's rows go in the head, and
			 * the view's text, which reads a table that store has
			 * not, does not */
			for (int i = 0; t && i < n; i++)
				if ((size_t)v[i].nlen == strlen(t) && !strncmp(v[i].name, t, strlen(t)))
					v[i].used = 0;
			if (!t || !named(sql, v, n, t, strlen(t)))
				continue;
			/* a store no run of this stcluster opened lacks the
			 * columns added since its version: NULL, as in the rows
			 * written before them (phase_run.phase_*: the
			 * combination's values, as every phase of it ran) */
			struct st_strbuf nulls = ST_STRBUF_INIT;
			later_missing(db, t, &nulls);
			if (has_column(db, t, "combo_id"))
				st_strbuf_addf(b, ",\n\"%s\" AS (SELECT *%s FROM main.\"%s\" WHERE combo_id IN "
						  "(SELECT combo_id FROM combo))",
					       t, nulls.p ? nulls.p : "", t);
			else if (has_column(db, t, "run_id"))
				/* run keeps its rowid: the queries take the last run by
				 * (started_at, rowid) */
				st_strbuf_addf(b, ",\n\"%s\" AS (SELECT *%s%s FROM main.\"%s\" WHERE run_id IN "
						  "(SELECT run_id FROM combo))",
					       t, strcmp(t, "run") ? "" : ", rowid AS rowid",
					       nulls.p ? nulls.p : "", t);
			b->oom |= nulls.oom;
			st_strbuf_release(&nulls);
		}
		sqlite3_finalize(st);
	}
	for (int i = 0; i < n; i++)
		if (v[i].used)
			st_strbuf_addf(b, ",\n%.*s AS (%.*s\n)", v[i].nlen, v[i].name, v[i].blen,
				       v[i].body);
	st_strbuf_put(b, "\n");
}
