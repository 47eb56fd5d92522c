/*
 * screen.h - the report as a person reads it (issue 21 item 3): a table of
 * at most 120 characters a row (fewer on a narrower terminal, or COLUMNS):
 * the options that vary, the phase, the aggregate scaled to one unit per
 * column (--units si|iec), the slowest and fastest client, IOPS, latency
 * percentiles, the verdict as a short code explained once below, and every
 * longer note as a numbered footnote. `report --wide` is the table of
 * every column instead (report.c).
 */
#ifndef ST_REPORT_SCREEN_H
#define ST_REPORT_SCREEN_H

#include "json.h"
#include "query.h"

#include <sqlite3.h>
#include <stdio.h>

#define ST_SCREEN_WIDTH 120 /* characters a row at most */

/* What the screen table shows, beside the statement's rows. */
struct st_screen {
	const char *run;	 /* the run's id, for the heading */
	int nopts;		 /* option columns the statement has after seq, iteration */
	const char *opt_names[64];
	const struct st_pcts *pcts;
	int iec;		 /* --units iec: 2^10 multiples (MiB/s), else 10^3 (MB/s) */
	const char *columns;	 /* --columns LIST, or NULL: all that fit */
	int width;		 /* characters a row at most */
};

/*
 * Print the rows of sql (prepared with p) as the screen table. The
 * statement's columns, in order: seq, iteration (NULL: one iteration),
 * the nopts options (as text), phase, status, aggregate MB/s, slowest and
 * fastest client MB/s, IOPS, each percentile of pcts in ns, the max in ns,
 * verdict, flags, note. 0; 1 after an SQL error (printed); 2 when
 * --columns names a column there is not (printed).
 */
int st_screen_print(sqlite3 *db, const char *sql, const struct st_qparams *p,
		    const struct st_screen *s, FILE *out);

/* The width of a screen table: ST_SCREEN_WIDTH, or less: COLUMNS from
 * the environment when it is set, else the terminal's width when standard
 * output is one (at least 40 either way). */
int st_screen_width(void);

#endif
