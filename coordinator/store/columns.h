/*
 * columns.h - a stored row kind as a table of its columns (private to
 * store/). The INSERT text and every bind of a row are made from its
 * table, so a column is one row of it and no parameter is ever numbered
 * or counted by hand: parameter i of a row is column i of its table.
 *
 * A column names its SQL column and the type sql/schema.sql declares for
 * it, and says where its value comes from: a field at an offset in the
 * row's struct (ST_ROW) or in the key the store adds to it (ST_KEY: the
 * run, the combination, the phase), read as the field's own C type
 * (ST_FIELD takes it from the field, so the two cannot disagree); how the
 * value is shown (as it is, as the name of an enum value, as a flag, a
 * histogram's quantile, ...); and when it is NULL instead (a condition of
 * the field's value, and one of the whole row).
 *
 * Invariants: a column's value is bound with the SQLite type its
 * declaration names (st_row_kind_check holds each column to it), a NULL is
 * never a 0 or '' and the other way round: the audit hashes each stored
 * value with its type (digest.h). tests/unit/test_rows.c holds every table
 * to the schema and pins the rows a run writes.
 */
#ifndef ST_COLUMNS_H
#define ST_COLUMNS_H

#include "../../common/hist.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The C type of the field a column reads. */
enum st_col_type {
	ST_COL_I32,	 /* int32_t */
	ST_COL_U32,	 /* uint32_t */
	ST_COL_I64,	 /* int64_t */
	ST_COL_U64,	 /* uint64_t: stored as SQLite's signed 64 bits, as a cast gives */
	ST_COL_REAL,	 /* double */
	ST_COL_CHARS,	 /* char array: its text, up to its NUL or its end */
	ST_COL_STR,	 /* const char *: its text; NULL is NULL */
	ST_COL_HIST,	 /* struct st_hist */
	ST_COL_HIST_PTR, /* const struct st_hist *; NULL: no histogram */
};

/* The C type of an expression, as enum st_col_type; another type does not
 * compile. */
#define ST_COL_TYPE_OF(x)                                                                          \
	_Generic((x), int32_t: ST_COL_I32, uint32_t: ST_COL_U32, int64_t: ST_COL_I64,     \
		 uint64_t: ST_COL_U64, double: ST_COL_REAL, char *: ST_COL_CHARS,         \
		 const char *: ST_COL_STR, struct st_hist: ST_COL_HIST,                   \
		 const struct st_hist *: ST_COL_HIST_PTR)

/* Field f of struct type T as a column's source (with .src). */
#define ST_FIELD(T, f)                                                                             \
	.off = offsetof(T, f), .size = sizeof(((T *)0)->f), .type = ST_COL_TYPE_OF(((T *)0)->f)

/* How the value is shown in its column. */
enum st_col_as {
	ST_AS_VALUE,	  /* as it is */
	ST_AS_NAME,	  /* integer: names[value] (out of range: names[0]) */
	ST_AS_FLAG,	  /* integer: 1 when value & mask, else 0 */
	ST_AS_ERRNO_NAME, /* integer errno: its name ("EIO"); NULL for 0 */
	ST_AS_COUNT,	  /* histogram: its count (0 too) */
	ST_AS_MEAN,	  /* histogram: sum_ns / count */
	ST_AS_QUANTILE,	  /* histogram: the value at quantile q */
	ST_AS_MAX,	  /* histogram: max_ns */
	ST_AS_SPARSE,	  /* histogram: the sparse blob of store/histblob.h */
	ST_AS_SPARSE_ENC, /* histogram: ST_HISTBLOB_SPARSE, the encoding ST_AS_SPARSE writes */
	ST_AS_RAW,	  /* histogram: the struct's bytes (rpc_stat.rtt_hist) */
};
/* Every histogram column but ST_AS_COUNT is NULL for an empty histogram
 * (count 0), as every one is for a NULL ST_COL_HIST_PTR. */

/* When a value is stored as NULL, by itself. */
enum st_col_null {
	ST_NULL_NEVER,
	ST_NULL_EMPTY,	      /* text "" */
	ST_NULL_ZERO,	      /* number 0 */
	ST_NULL_NEGATIVE,     /* number < 0 */
	ST_NULL_NOT_POSITIVE, /* number <= 0 */
};

enum st_col_src { ST_ROW, ST_KEY };

struct st_column {
	const char *name; /* the SQL column */
	const char *decl; /* its type in sql/schema.sql: INTEGER, TEXT, REAL or BLOB */
	enum st_col_src src;
	size_t off, size; /* of the field in its struct (ST_FIELD) */
	enum st_col_type type;
	enum st_col_as as;
	enum st_col_null null_if;
	int (*when)(const void *row); /* NULL: always; else the column is NULL unless it holds */
	const char *const *names;     /* ST_AS_NAME: nnames entries */
	int nnames;
	uint32_t mask; /* ST_AS_FLAG */
	double q;      /* ST_AS_QUANTILE */
};

struct st_row_kind {
	const char *table;	      /* its SQL table */
	const char *verb;	      /* "INSERT", or "INSERT OR IGNORE" */
	const struct st_column *cols; /* in the order of its parameters */
	int ncols;
	const char *later; /* the table's columns no INSERT of this kind sets ("a b"): an
			      UPDATE sets them, or they are the options table's (combo) */
};

/* The kind's INSERT statement of `rows` rows, each of its columns and then
 * `extra` (nextra names more, bound by the caller after the kind's own),
 * malloc'd; NULL when out of memory. */
char *st_row_insert_sql(const struct st_row_kind *k, int rows, const char *const *extra,
			int nextra);

/* Bind one row, from key and row (the structs the kind's columns read), to
 * parameters first + 1 .. first + ncols of q. A column that is NULL is
 * bound NULL. */
void st_row_bind(sqlite3_stmt *q, int first, const struct st_row_kind *k, const void *key,
		 const void *row);

/* 0 when every column of k is bound as the type it declares, with what its
 * presentation needs (names, a quantile); else -1 and why in err. */
int st_row_kind_check(const struct st_row_kind *k, char *err, size_t n);

#endif
