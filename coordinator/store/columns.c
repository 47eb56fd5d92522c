/*
 * columns.c - a row kind's INSERT text and binds, from its column table
 * (see columns.h).
 */
#include "columns.h"

#include "histblob.h"

#include "../../common/strbuf.h"
#include "../../common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_name(struct st_strbuf *b, const char *name)
{
	st_strbuf_put(b, "\"");
	st_strbuf_put(b, name);
	st_strbuf_put(b, "\"");
}

char *st_row_insert_sql(const struct st_row_kind *k, int rows, const char *const *extra, int nextra)
{
	struct st_strbuf b = ST_STRBUF_INIT;
	int per_row = k->ncols + nextra;
	st_strbuf_addf(&b, "%s INTO %s (", k->verb, k->table);
	for (int i = 0; i < per_row; i++) {
		if (i)
			st_strbuf_put(&b, ", ");
		put_name(&b, i < k->ncols ? k->cols[i].name : extra[i - k->ncols]);
	}
	st_strbuf_put(&b, ") VALUES ");
	for (int r = 0; r < rows; r++) {
		st_strbuf_put(&b, r ? ", (" : "(");
		for (int i = 0; i < per_row; i++)
			st_strbuf_put(&b, i ? ", ?" : "?");
		st_strbuf_put(&b, ")");
	}
	if (b.oom) {
		st_strbuf_release(&b);
		return NULL;
	}
	return b.p;
}

/* The integer a field holds, whatever its width and sign. */
static int64_t field_int(const struct st_column *c, const void *p)
{
	switch (c->type) {
	case ST_COL_I32: return *(const int32_t *)p;
	case ST_COL_U32: return *(const uint32_t *)p;
	case ST_COL_I64: return *(const int64_t *)p;
	case ST_COL_U64: {
		uint64_t v = *(const uint64_t *)p;
		return (int64_t)v;
	}
	default: return 0;
	}
}

static int null_number(enum st_col_null rule, double v)
{
	return (rule == ST_NULL_ZERO && v == 0) || (rule == ST_NULL_NEGATIVE && v < 0) ||
	       (rule == ST_NULL_NOT_POSITIVE && v <= 0);
}

static void bind_int(sqlite3_stmt *q, int i, const struct st_column *c, int64_t v)
{
	char buf[16];
	switch (c->as) {
	case ST_AS_NAME:
		sqlite3_bind_text(q, i, c->names[v >= 0 && v < c->nnames ? v : 0], -1,
				  SQLITE_TRANSIENT);
		return;
	case ST_AS_FLAG: sqlite3_bind_int(q, i, ((uint64_t)v & c->mask) != 0); return;
	case ST_AS_ERRNO_NAME:
		if (v)
			sqlite3_bind_text(q, i, st_errno_name((int)v, buf, sizeof(buf)), -1,
					  SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(q, i);
		return;
	default:
		if (null_number(c->null_if, (double)v))
			sqlite3_bind_null(q, i);
		else
			sqlite3_bind_int64(q, i, v);
		return;
	}
}

static void bind_text(sqlite3_stmt *q, int i, const struct st_column *c, const char *s, size_t len)
{
	if (!s || (c->null_if == ST_NULL_EMPTY && len == 0))
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_text(q, i, s, (int)len, SQLITE_TRANSIENT);
}

static void bind_hist(sqlite3_stmt *q, int i, const struct st_column *c, const struct st_hist *h)
{
	if (!h || (!h->count && c->as != ST_AS_COUNT)) {
		sqlite3_bind_null(q, i);
		return;
	}
	unsigned char blob[ST_HISTBLOB_MAX];
	switch (c->as) {
	case ST_AS_COUNT: sqlite3_bind_int64(q, i, (sqlite3_int64)h->count); break;
	case ST_AS_MEAN: sqlite3_bind_int64(q, i, (sqlite3_int64)(h->sum_ns / h->count)); break;
	case ST_AS_QUANTILE:
		sqlite3_bind_int64(q, i, (sqlite3_int64)st_hist_quantile(h, c->q));
		break;
	case ST_AS_MAX: sqlite3_bind_int64(q, i, (sqlite3_int64)h->max_ns); break;
	case ST_AS_SPARSE:
		/* tens of bytes, not the struct's 2,720 */
		sqlite3_bind_blob(q, i, blob, (int)st_histblob_encode(h, blob), SQLITE_TRANSIENT);
		break;
	case ST_AS_SPARSE_ENC: sqlite3_bind_int(q, i, ST_HISTBLOB_SPARSE); break;
	case ST_AS_RAW: sqlite3_bind_blob(q, i, h, (int)sizeof(*h), SQLITE_TRANSIENT); break;
	default: sqlite3_bind_null(q, i); break;
	}
}

static void bind_column(sqlite3_stmt *q, int i, const struct st_column *c, const void *p)
{
	switch (c->type) {
	case ST_COL_REAL: {
		double v = *(const double *)p;
		if (null_number(c->null_if, v))
			sqlite3_bind_null(q, i);
		else
			sqlite3_bind_double(q, i, v);
		break;
	}
	case ST_COL_CHARS: bind_text(q, i, c, p, strnlen(p, c->size)); break;
	case ST_COL_STR: {
		const char *s = *(const char *const *)p;
		bind_text(q, i, c, s, s ? strlen(s) : 0);
		break;
	}
	case ST_COL_HIST: bind_hist(q, i, c, p); break;
	case ST_COL_HIST_PTR: bind_hist(q, i, c, *(const struct st_hist *const *)p); break;
	default: bind_int(q, i, c, field_int(c, p)); break;
	}
}

void st_row_bind(sqlite3_stmt *q, int first, const struct st_row_kind *k, const void *key,
		 const void *row)
{
	for (int i = 0; i < k->ncols; i++) {
		const struct st_column *c = &k->cols[i];
		if (c->when && !c->when(row))
			sqlite3_bind_null(q, first + i + 1);
		else
			bind_column(q, first + i + 1, c,
				    (const char *)(c->src == ST_KEY ? key : row) + c->off);
	}
}

/* The declared type a column's binding gives, or NULL when it has none. */
static const char *bound_as(const struct st_column *c)
{
	int hist = c->type == ST_COL_HIST || c->type == ST_COL_HIST_PTR;
	int text = c->type == ST_COL_CHARS || c->type == ST_COL_STR;
	int integer = !hist && !text && c->type != ST_COL_REAL;
	switch (c->as) {
	case ST_AS_VALUE:
		return hist ? NULL : text ? "TEXT" : c->type == ST_COL_REAL ? "REAL" : "INTEGER";
	case ST_AS_NAME: return integer && c->names && c->nnames > 0 ? "TEXT" : NULL;
	case ST_AS_ERRNO_NAME: return integer ? "TEXT" : NULL;
	case ST_AS_FLAG: return integer && c->mask ? "INTEGER" : NULL;
	case ST_AS_QUANTILE: return hist && c->q >= 0 && c->q <= 1 ? "INTEGER" : NULL;
	case ST_AS_COUNT:
	case ST_AS_MEAN:
	case ST_AS_MAX:
	case ST_AS_SPARSE_ENC: return hist ? "INTEGER" : NULL;
	case ST_AS_SPARSE:
	case ST_AS_RAW: return hist ? "BLOB" : NULL;
	}
	return NULL;
}

int st_row_kind_check(const struct st_row_kind *k, char *err, size_t n)
{
	for (int i = 0; i < k->ncols; i++) {
		const struct st_column *c = &k->cols[i];
		const char *as = bound_as(c);
		if (!as || strcmp(as, c->decl) != 0) {
			snprintf(err, n, "%s.%s: declared %s, bound as %s", k->table, c->name,
				 c->decl, as ? as : "nothing valid");
			return -1;
		}
	}
	return 0;
}
