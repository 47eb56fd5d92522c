/*
 * html.h - the HTML report of one run (`stcluster report --html FILE`):
 * one self-contained page, inline SVG charts and CSS, no script and no
 * network fetch, every text escaped.
 */
#ifndef ST_HTML_H
#define ST_HTML_H

#include <sqlite3.h>
#include <stdio.h>

/* Write the report of run `run` (a resolved id) to out. 0, or -1 with err. */
int st_html_report(sqlite3 *db, const char *run, FILE *out, char *err, size_t n);

/* `report --html PATH`: resolve `want` (as st_run_resolve), write PATH ("-":
 * standard output). The page is written to a temporary file beside PATH
 * (links followed), which then replaces PATH in one rename: PATH is never
 * half written. Refused (exit status 2, one line): PATH is the store
 * db_path (the same file, through any link), is not a regular file (a
 * FIFO, a directory), or exists and is not a page stcluster wrote, unless
 * force. Returns the exit status: 0, 1 (SQL or write error), 2 (no such
 * run, a refused PATH); the message is printed. */
int st_html_report_file(sqlite3 *db, const char *want, const char *path, const char *db_path,
			int force);

#endif
