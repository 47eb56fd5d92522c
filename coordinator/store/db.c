/*
 * db.c - the SQLite helpers of store/ (see db.h).
 */
#include "db.h"

#include "../../common/util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int st_db_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

int st_db_exec(sqlite3 *db, const char *sql, char *err, size_t n)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		st_db_fail(err, n, "store: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int st_db_begin(sqlite3 *db, char *err, size_t n)
{
	int64_t give_up = st_now_ns() + 30000000000LL;
	for (;;) {
		if (!st_db_exec(db, "BEGIN IMMEDIATE", err, n))
			return 0;
		int code = sqlite3_extended_errcode(db) & 0xff;
		if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || st_now_ns() > give_up)
			return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -code : -1;
		struct timespec ts = { 0, 10000000 + (st_now_ns() % 20000000) };
		nanosleep(&ts, NULL);
	}
}

void st_db_rollback(sqlite3 *db)
{
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int st_db_query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int st_db_step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t n)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return st_db_fail(err, n, "store: %s", sqlite3_errmsg(db));
	return 0;
}

void st_db_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int st_db_wal_has_frames(const char *path)
{
	char *real = realpath(path, NULL), wal[PATH_MAX + 8];
	struct stat st;
	int w = real ? snprintf(wal, sizeof(wal), "%s-wal", real) : -1;
	free(real);
	return w > 0 && (size_t)w < sizeof(wal) && stat(wal, &st) == 0 && st.st_size > 32;
}

/* The header's read and write versions (bytes 18, 19) say WAL: 2 and 2. */
static int header_says_wal(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, h, sizeof(h));
	close(fd);
	return got == (ssize_t)sizeof(h) && h[18] == 2 && h[19] == 2;
}

/* "file:PATH?immutable=1", PATH resolved and percent-encoded. */
static char *immutable_uri(const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return NULL;
	size_t len = strlen(real);
	char *uri = malloc(3 * len + 32);
	if (uri) {
		char *o = uri + sprintf(uri, "file:");
		for (const unsigned char *c = (const unsigned char *)real; *c; c++)
			if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') || strchr("/._-~", *c))
				*o++ = (char)*c;
			else
				o += sprintf(o, "%%%02X", *c);
		strcpy(o, "?immutable=1");
	}
	free(real);
	return uri;
}

int st_db_open_read(const char *path, sqlite3 **db)
{
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return rc;
	/* a probe without the busy handler: the caller's first read waits */
	int64_t v;
	int probe = st_db_query_int(*db, "PRAGMA user_version", &v);
	int code = sqlite3_extended_errcode(*db) & 0xff;
	sqlite3_busy_timeout(*db, 30000);
	if (!probe)
		return SQLITE_OK;
	if ((code != SQLITE_READONLY && code != SQLITE_CANTOPEN) || !header_says_wal(path) ||
	    st_db_wal_has_frames(path))
		return SQLITE_OK; /* the caller's first read says why */
	char *uri = immutable_uri(path);
	if (!uri)
		return SQLITE_OK;
	sqlite3_close(*db);
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc == SQLITE_OK)
		sqlite3_busy_timeout(*db, 30000);
	return rc;
}
