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
};
#define ST_REPORT_OPTS_INIT { "./stcluster.db", "last", NULL, 0, ST_FMT_TABLE, NULL }

/* The report of one run: 0; 1 after an SQL error; 2 when there is no such run. */
int st_report_print(sqlite3 *db, const struct st_report_opts *o, FILE *out);

#endif
