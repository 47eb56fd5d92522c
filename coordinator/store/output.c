/*
 * output.c - rows of a statement as table, csv, json or markdown (see
 * output.h). Every format stays valid with NULL cells: null in JSON, empty
 * in CSV and in a table.
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

/* One printed cell: text of a column value. */
static void cell_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: buf[0] = '\0'; break;
	case SQLITE_INTEGER: snprintf(buf, n, "%lld", (long long)sqlite3_column_int64(st, i)); break;
	case SQLITE_FLOAT: snprintf(buf, n, "%.10g", sqlite3_column_double(st, i)); break;
	default: snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, i)); break;
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

int st_print_rows(sqlite3_stmt *st, enum st_format f, const char *note, FILE *out)
{
	int ncol = sqlite3_column_count(st), rc, first = 1;
	char buf[4096];
	struct rows r = { .ncol = ncol };
	r.numeric = calloc((size_t)(ncol ? ncol : 1), sizeof(int));
	if (!r.numeric)
		return -1;
	if (f == ST_FMT_JSON)
		fputs("[", out);
	if (f == ST_FMT_CSV)
		for (int i = 0; i < ncol; i++) {
			if (i)
				fputc(',', out);
			csv_field(out, sqlite3_column_name(st, i));
		}
	if (f == ST_FMT_CSV && ncol)
		fputc('\n', out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (f == ST_FMT_CSV) {
			for (int i = 0; i < ncol; i++) {
				if (i)
					fputc(',', out);
				cell_text(st, i, buf, sizeof(buf));
				csv_field(out, buf);
			}
			fputc('\n', out);
		} else if (f == ST_FMT_JSON) {
			fputs(first ? "\n  {" : ",\n  {", out);
			for (int i = 0; i < ncol; i++) {
				if (i)
					fputs(", ", out);
				st_json_string(out, sqlite3_column_name(st, i));
				fputs(": ", out);
				int t = sqlite3_column_type(st, i);
				cell_text(st, i, buf, sizeof(buf));
				if (t == SQLITE_NULL)
					fputs("null", out);
				else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
					fputs(buf, out);
				else
					st_json_string(out, buf);
			}
			fputs("}", out);
		} else {
			if (r.nrow == r.cap) {
				r.cap = r.cap ? 2 * r.cap : 64;
				char **nc = realloc(r.cell, (size_t)r.cap * (size_t)ncol * sizeof(char *));
				if (!nc) {
					rows_free(&r);
					return -1;
				}
				r.cell = nc;
			}
			for (int i = 0; i < ncol; i++) {
				int t = sqlite3_column_type(st, i);
				if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
					r.numeric[i] = 1;
				cell_text(st, i, buf, sizeof(buf));
				r.cell[r.nrow * ncol + i] = strdup(buf);
			}
			r.nrow++;
		}
		first = 0;
	}
	if (f == ST_FMT_JSON)
		fputs(first ? "]\n" : "\n]\n", out);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "stcluster: query: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
		rows_free(&r);
		return -1;
	}
	if (f == ST_FMT_TABLE || f == ST_FMT_MARKDOWN) {
		int *w = calloc((size_t)(ncol ? ncol : 1), sizeof(int));
		if (!w) {
			rows_free(&r);
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
				fputc(r.numeric[i] ? ' ' : ':', out);
				for (int k = 0; k < w[i]; k++)
					fputc('-', out);
				fputs(r.numeric[i] ? ":|" : " |", out);
			}
			fputc('\n', out);
		}
		for (int k = 0; k < r.nrow; k++) {
			if (f == ST_FMT_MARKDOWN)
				fputs("| ", out);
			for (int i = 0; i < ncol; i++) {
				const char *c = r.cell[k * ncol + i];
				if (f == ST_FMT_MARKDOWN && strchr(c, '|')) {
					fputs(i ? sep : "", out);
					for (; *c; c++)
						fputs(*c == '|' ? "\\|" : (char[2]){ *c, 0 }, out);
					continue;
				}
				if (r.numeric[i])
					fprintf(out, "%s%*s", i ? sep : "", w[i], c);
				else if (i == ncol - 1 && f == ST_FMT_TABLE)
					fprintf(out, "%s%s", i ? sep : "", c);
				else
					fprintf(out, "%s%-*s", i ? sep : "", w[i], c);
			}
			fputs(f == ST_FMT_MARKDOWN ? " |\n" : "\n", out);
		}
		free(w);
	}
	rows_free(&r);
	return 0;
}
