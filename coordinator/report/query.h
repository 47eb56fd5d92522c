/*
 * query.h - the one way report/ runs a statement over the store: its text,
 * read over the rows of some combinations only (scope.h) or as it is, its
 * named parameters bound from one struct, and each row handed to a
 * callback. A parameter, the scope or an error message is handled here
 * once, not at every query.
 *
 * Parameters are named (:run, :phase, ...), never numbered: a statement
 * that is a named query of sql/queries/ wrapped in a SELECT of its own
 * takes the same names, and no one counts positions.
 */
#ifndef ST_REPORT_QUERY_H
#define ST_REPORT_QUERY_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a statement reads and the values of its parameters. Each parameter
 * is bound where the text names it; an unset one (NULL, or 0 for :top)
 * stays NULL, which the named queries read as "all".
 */
struct st_qparams {
	const char *scope;	   /* a condition on the columns of main.combo ("run_id = :run"):
				    * the statement reads those combinations' rows alone (scope.h);
				    * NULL: the store as it is */
	const char *run;	   /* :run, a resolved run id */
	const char *run_a, *run_b; /* :run_a, :run_b (compare) */
	const char *phase;	   /* :phase */
	int64_t combo;		   /* :combo, a combo_id */
	int top;		   /* :top, the best N; 0 unset */
	int window;		   /* :window, always bound (0: every earlier run) */
};

/* Prepare sql (NULL: it could not be built, out of memory) with p's scope
 * and parameters. 0, or -1 with err (SQLite's message, or "out of
 * memory") and *st NULL. The caller finalizes *st. */
int st_query_prepare(sqlite3 *db, const char *sql, const struct st_qparams *p, sqlite3_stmt **st,
		     char *err, size_t n);

/* Called with each row (its columns readable until it returns): 0 goes on,
 * 1 stops here (the rest is not wanted), -1 stops the query because the row
 * could not be kept (out of memory). */
typedef int (*st_query_row_fn)(sqlite3_stmt *row, void *ctx);

/* Prepare sql as st_query_prepare and hand each row to row(row, ctx). The
 * number of rows handed over, or -1 with err (SQLite's message, "out of
 * memory"); those handed over before an error stay with the callback's ctx. */
long st_query_rows(sqlite3 *db, const char *sql, const struct st_qparams *p, st_query_row_fn row,
		   void *ctx, char *err, size_t n);

/* The first column of the first row as an integer, into *v (0 when there
 * is no row or it is NULL): 1 (a row), 0 (none), or -1 with err. */
int st_query_int(sqlite3 *db, const char *sql, const struct st_qparams *p, int64_t *v, char *err,
		 size_t n);

/* Does the store keep the phases' own values (phase_run.phase_block, ...,
 * common/phaseopt.h)? A store no run of this stcluster has opened lacks
 * them (a reader does not migrate it): then every phase has its
 * combination's. */
int st_query_phase_values(sqlite3 *db);

#endif
