/*
 * scope.h - a statement over the store's tables and views, run on the rows
 * of some combinations only (issue 14: a per-run command costs what its
 * runs hold, not the store's whole history).
 *
 * The head is "WITH <table> AS (its rows of those combinations), ...,
 * <view> AS (the view's own text from sql/views.sql), ... ": a CTE shadows
 * the table or view of its name in the statement, so the views, the named
 * queries and every join after the head read the chosen rows alone, with
 * the same formulas (one text: views.sql). SQLite pushes no filter into a
 * view's GROUP BY, so without it a view aggregates every run ever stored.
 */
#ifndef ST_REPORT_SCOPE_H
#define ST_REPORT_SCOPE_H

#include "../../common/strbuf.h"

#include <sqlite3.h>

/*
 * Append to b the head of statement `sql` for the combinations `combos`
 * selects: an SQL condition on the columns of main.combo ("run_id = ?1";
 * its parameters are the statement's). The caller appends sql after it: a
 * SELECT (a WITH of its own goes inside a subquery). The head holds the
 * views sql names and those they read, and the tables any of them name,
 * those of the store at hand: with combo_id, its rows of the combinations;
 * with run_id only (run, host, baseline), those of their runs.
 */
void st_scope_head(sqlite3 *db, const char *combos, const char *sql, struct st_strbuf *b);

/* 1 when the store's combo lacks columns this stcluster reads (no run of
 * this version opened it): every statement then goes through the head,
 * which has them as NULL. */
int st_scope_combo_is_old(sqlite3 *db);

#endif
