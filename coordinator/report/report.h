/*
 * report.h - the report of one run, as `stcluster report` prints it and a
 * run prints when it ends; `report`, `runs` and `query` are in subcmd.h.
 */
#ifndef ST_REPORT_H
#define ST_REPORT_H

#include "../store/output.h"

#include <sqlite3.h>
#include <stdio.h>

struct st_report_opts {
	const char *db;	   /* store path */
	const char *run;   /* run id, unique prefix, or "last" */
	const char *phase; /* only this phase, or NULL */
	int top;	   /* best N rows by aggregate MB/s; 0 = all, in run order */
	enum st_format format;
	const char *html;  /* write the HTML report to this file ("-": stdout), or NULL */
	const char *percentiles; /* --percentiles "50,90,99.9", or NULL: 50,99 */
	const char *units;	 /* --units si|iec (NULL: si) */
	const char *columns;	 /* --columns LIST (screen.h), or NULL */
	int wide;		 /* --wide: the table of every column */
};
#define ST_REPORT_OPTS_INIT { "./stcluster.db", "last", NULL, 0, ST_FMT_TABLE, NULL, NULL, NULL, NULL, 0 }

/* The report of one run: 0; 1 after an SQL error; 2 when there is no such
 * run or --percentiles is not a list of them. */
int st_report_print(sqlite3 *db, const struct st_report_opts *o, FILE *out);

/* What a run prints when it ends: per phase, the best, median and worst
 * combination and the best one's options (report/summary.c). 0, or 1 after
 * an SQL error. */
int st_report_summary(sqlite3 *db, const char *run, FILE *out);

#endif
