/*
 * strbuf.c - one growable string (see strbuf.h).
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void st_strbuf_put(struct st_strbuf *b, const char *s)
{
	size_t l = strlen(s);
	if (b->oom)
		return;
	if (b->len + l + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + l + 1)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, l + 1);
	b->len += l;
}

void st_strbuf_addf(struct st_strbuf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int l = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (l < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)l < sizeof(small)) {
		st_strbuf_put(b, small);
		return;
	}
	char *big = malloc((size_t)l + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)l + 1, fmt, ap);
	va_end(ap);
	st_strbuf_put(b, big);
	free(big);
}


void st_strbuf_release(struct st_strbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}
