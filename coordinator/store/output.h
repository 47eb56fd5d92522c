/*
 * output.h - what every read-only subcommand prints rows in: table (the
 * default, aligned), csv, json (an array of objects) or markdown.
 */
#ifndef ST_OUTPUT_H
#define ST_OUTPUT_H

#include <sqlite3.h>
#include <stdio.h>

enum st_format { ST_FMT_TABLE, ST_FMT_CSV, ST_FMT_JSON, ST_FMT_MARKDOWN, ST_FMT_COUNT };

/* "table", "csv", "json", "markdown", indexed by enum st_format. */
extern const char *const st_format_names[ST_FMT_COUNT];

/* The format of that name, or -1. */
int st_format_find(const char *name);

/* Print every row of a prepared statement in a format; 0, or -1 with the
 * SQLite error printed to stderr. `note` is printed above a table
 * (table and markdown formats only). */
int st_print_rows(sqlite3_stmt *st, enum st_format f, const char *note, FILE *out);

/*
 * The JSON document every subcommand prints with --format json (schema:
 * sql/schema.json, its version ST_JSON_SCHEMA_VERSION):
 *   {"schema_version": 1, "command": CMD, "run_id": RUN or null,
 *    "summary": SUMMARY or null, "rows": [...]}
 * raw: the first column of each row of st is a JSON object SQL made
 * (json_object), printed as it is; else each row is an object of st's
 * columns (query). summary: a JSON object's text, or NULL. 0, or -1 with
 * the SQLite error printed to stderr.
 */
#define ST_JSON_SCHEMA_VERSION 1
int st_print_json_doc(sqlite3_stmt *st, const char *cmd, const char *run, const char *summary,
		      int raw, FILE *out);

/* s as a JSON string, quoted and escaped. */
void st_json_string(FILE *out, const char *s);

#endif
