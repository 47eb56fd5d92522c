/*
 * strbuf.h - one growable string, for text built piece by piece (SQL
 * statements, --where rewrites).
 *
 * An allocation that fails sets oom and makes every later append a no-op:
 * the caller checks oom once, at the end, instead of after every append.
 * p is NUL-terminated whenever it is not NULL. No state outside the struct.
 */
#ifndef ST_STRBUF_H
#define ST_STRBUF_H

#include <stddef.h>

struct st_strbuf {
	char *p;	  /* the text, NUL-terminated; NULL until something is added */
	size_t len, cap;  /* bytes of text, bytes allocated */
	int oom;	  /* an allocation failed: p holds what fit */
};
#define ST_STRBUF_INIT { NULL, 0, 0, 0 }

/* Append s. */
void st_strbuf_put(struct st_strbuf *b, const char *s);

/* Append printf-style. */
void st_strbuf_addf(struct st_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Free the text; b is empty again (and usable). Accepts an empty b. */
void st_strbuf_release(struct st_strbuf *b);

#endif
