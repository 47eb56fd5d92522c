/*
 * output.c - rows of a statement as table, csv, json or markdown (see
 * output.h). Every format stays valid with NULL cells: null in JSON, empty
 * in CSV and in a table. Every value is printed whole, however long: a
 * cell is SQLite's own text of it (a number is printed into a small buffer).
 */
#include "output.h"

#include <stdlib.h>
#include <string.h>

const char *const st_format_names[ST_FMT_COUNT] = {
	[ST_FMT_TABLE] = "table", [ST_FMT_CSV] = "csv", [ST_FMT_JSON] = "json",
	[ST_FMT_MARKDOWN] = "markdown",
};

int st_format_find(const char *name)
{
	for (int i = 0; i < ST_FMT_COUNT; i++)
		if (strcmp(st_format_names[i], name) == 0)
			return i;
	return -1;
}

/* One printed cell: the text of a column value, "" for NULL; SQLite's own
 * text (valid until the next step), or num's for a number. */
static const char *cell_text(sqlite3_stmt *st, int i, char num[32])
{
	const char *t;
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: return "";
	case SQLITE_INTEGER:
		snprintf(num, 32, "%lld", (long long)sqlite3_column_int64(st, i));
		return num;
	case SQLITE_FLOAT: snprintf(num, 32, "%.10g", sqlite3_column_double(st, i)); return num;
	default:
		t = (const char *)sqlite3_column_text(st, i);
		return t ? t : "";
	}
}

static void csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	int len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		  : p[0] >= 0xf0 && p[0] <= 0xf4			   ? 4
									   : 0;
	for (int i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

void st_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = utf8_len(p);
		if (len == 0) {
			/* not UTF-8 (a label typed in Latin-1): JSON must be, so the
			 * byte becomes the replacement character */
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fwrite(p, 1, (size_t)len, out);
		p += len;
	}
	fputc('"', out);
}

/* JSON text SQLite made (json_object), as it is but for a byte that is not
 * UTF-8 (SQLite passes a Latin-1 label through): such bytes are only ever
 * inside its strings, where the escape of the replacement character
 * stands for them. */
static void json_raw(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = utf8_len(p);
		if (len == 0) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)len, out);
		p += len;
	}
}

struct rows {
	int ncol, nrow, cap;
	char **cell;  /* nrow * ncol strings */
	int *numeric; /* per column: right-align */
};

static void rows_free(struct rows *r)
{
	for (int i = 0; i < r->nrow * r->ncol; i++)
		free(r->cell[i]);
	free(r->cell);
	free(r->numeric);
}

static void print_error(sqlite3_stmt *st)
{
	fprintf(stderr, "stcluster: query: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
}

static int print_csv(sqlite3_stmt *st, FILE *out)
{
	int ncol = sqlite3_column_count(st), rc;
	char num[32];
	for (int i = 0; i < ncol; i++) {
		if (i)
			fputc(',', out);
		csv_field(out, sqlite3_column_name(st, i));
	}
	if (ncol)
		fputc('\n', out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			if (i)
				fputc(',', out);
			csv_field(out, cell_text(st, i, num));
		}
		fputc('\n', out);
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The rows of st as a JSON array: each one its column 0's text, a JSON
 * object (raw), or an object of its columns. */
static int print_json(sqlite3_stmt *st, int raw, FILE *out)
{
	int ncol = sqlite3_column_count(st), rc, first = 1;
	char num[32];
	fputs("[", out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (raw) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			fputs(first ? "\n  " : ",\n  ", out);
			json_raw(out, t ? t : "null");
			first = 0;
			continue;
		}
		fputs(first ? "\n  {" : ",\n  {", out);
		for (int i = 0; i < ncol; i++) {
			if (i)
				fputs(", ", out);
			st_json_string(out, sqlite3_column_name(st, i));
			fputs(": ", out);
			int t = sqlite3_column_type(st, i);
			const char *text = cell_text(st, i, num);
			if (t == SQLITE_NULL)
				fputs("null", out);
			else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
				fputs(text, out);
			else
				st_json_string(out, text);
		}
		fputs("}", out);
		first = 0;
	}
	fputs(first ? "]\n" : "\n]\n", out);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Every row of st into r (a copy of each cell), for the aligned formats.
 * 0, or -1: an SQL error (*sql set) or out of memory. */
static int collect(sqlite3_stmt *st, struct rows *r, int *sql)
{
	int ncol = r->ncol, rc;
	char num[32];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->nrow == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 64;
			char **nc = realloc(r->cell, (size_t)r->cap * (size_t)ncol * sizeof(char *));
			if (!nc)
				return -1;
			r->cell = nc;
		}
		for (int i = 0; i < ncol; i++) {
			int t = sqlite3_column_type(st, i);
			if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
				r->numeric[i] = 1;
			r->cell[r->nrow * ncol + i] = strdup(cell_text(st, i, num));
		}
		r->nrow++;
		for (int i = 0; i < ncol; i++)
			if (!r->cell[(r->nrow - 1) * ncol + i])
				return -1;
	}
	*sql = rc != SQLITE_DONE;
	return *sql ? -1 : 0;
}

/* A markdown cell: its '|' escaped. */
static void markdown_cell(FILE *out, const char *c)
{
	for (; *c; c++)
		if (*c == '|')
			fputs("\\|", out);
		else
			fputc(*c, out);
}

/* The rows of r aligned in columns of width w (table), or as a markdown
 * table. */
static void print_aligned(sqlite3_stmt *st, const struct rows *r, const int *w,
			  enum st_format f, const char *note, FILE *out)
{
	int ncol = r->ncol;
	if (note)
		fprintf(out, f == ST_FMT_MARKDOWN ? "%s\n\n" : "# %s\n", note);
	const char *sep = f == ST_FMT_MARKDOWN ? " | " : "  ";
	if (f == ST_FMT_MARKDOWN)
		fputs("| ", out);
	for (int i = 0; i < ncol; i++)
		fprintf(out, "%s%-*s", i ? sep : "", w[i], sqlite3_column_name(st, i));
	fputs(f == ST_FMT_MARKDOWN ? " |\n" : "\n", out);
	if (f == ST_FMT_MARKDOWN) {
		fputs("|", out);
		for (int i = 0; i < ncol; i++) {
			fputc(r->numeric[i] ? ' ' : ':', out);
			for (int k = 0; k < w[i]; k++)
				fputc('-', out);
			fputs(r->numeric[i] ? ":|" : " |", out);
		}
		fputc('\n', out);
	}
	for (int k = 0; k < r->nrow; k++) {
		if (f == ST_FMT_MARKDOWN)
			fputs("| ", out);
		for (int i = 0; i < ncol; i++) {
			const char *c = r->cell[k * ncol + i];
			if (f == ST_FMT_MARKDOWN && strchr(c, '|')) {
				fputs(i ? sep : "", out);
				markdown_cell(out, c);
			} else if (r->numeric[i])
				fprintf(out, "%s%*s", i ? sep : "", w[i], c);
			else if (i == ncol - 1 && f == ST_FMT_TABLE)
				fprintf(out, "%s%s", i ? sep : "", c);
			else
				fprintf(out, "%s%-*s", i ? sep : "", w[i], c);
		}
		fputs(f == ST_FMT_MARKDOWN ? " |\n" : "\n", out);
	}
}

static int print_table(sqlite3_stmt *st, enum st_format f, const char *note, FILE *out)
{
	int ncol = sqlite3_column_count(st), sql = 0;
	struct rows r = { .ncol = ncol };
	r.numeric = calloc((size_t)(ncol ? ncol : 1), sizeof(int));
	int *w = calloc((size_t)(ncol ? ncol : 1), sizeof(int));
	if (!r.numeric || !w || collect(st, &r, &sql)) {
		if (sql)
			print_error(st);
		else
			fprintf(stderr, "stcluster: out of memory\n");
		rows_free(&r);
		free(w);
		return -1;
	}
	for (int i = 0; i < ncol; i++) {
		w[i] = (int)strlen(sqlite3_column_name(st, i));
		for (int k = 0; k < r.nrow; k++) {
			int l = (int)strlen(r.cell[k * ncol + i]);
			if (l > w[i])
				w[i] = l;
		}
	}
	print_aligned(st, &r, w, f, note, out);
	free(w);
	rows_free(&r);
	return 0;
}

int st_print_rows(sqlite3_stmt *st, enum st_format f, const char *note, FILE *out)
{
	if (f == ST_FMT_TABLE || f == ST_FMT_MARKDOWN)
		return print_table(st, f, note, out);
	if (f == ST_FMT_JSON)
		return st_print_json_doc(st, "query", NULL, NULL, 0, out);
	if (print_csv(st, out) == 0)
		return 0;
	print_error(st);
	return -1;
}

int st_print_json_doc(sqlite3_stmt *st, const char *cmd, const char *run, const char *summary,
		      int raw, FILE *out)
{
	fprintf(out, "{\"schema_version\": %d, \"command\": ", ST_JSON_SCHEMA_VERSION);
	st_json_string(out, cmd);
	fputs(", \"run_id\": ", out);
	if (run)
		st_json_string(out, run);
	else
		fputs("null", out);
	fprintf(out, ", \"summary\": %s,\n\"rows\": ", summary ? summary : "null");
	int rc = st ? print_json(st, raw, out) : (fputs("[]\n", out), 0);
	fputs("}\n", out);
	if (rc)
		print_error(st);
	return rc;
}
