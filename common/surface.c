/*
 * surface.c - the response surface of the null engine (surface.h): its
 * text, and the delay it gives a combination.
 */
#include "surface.h"

#include "permute.h"
#include "units.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000LL

static int bad(char *err, size_t n, const char *fname, int line, const char *what,
	       const char *text)
{
	snprintf(err, n, "--null-surface: %s:%d: %s '%s'", fname, line, what, text);
	return -1;
}

/* "key=v,key=v" into term t; the words of line `line`. */
static int parse_keys(char *keys, struct st_surface_term *t, const char *fname, int line,
		      char *err, size_t n)
{
	char why[ST_ERR_MAX];
	for (char *p = keys; p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		char *eq = strchr(p, '=');
		if (!eq || eq == p || !eq[1])
			return bad(err, n, fname, line, "a factor's keys are key=value, not", p);
		*eq = '\0';
		int id = st_opt_find(p);
		if (id < 0 || !(st_options[id].flags & ST_OF_SWEEP) || id == ST_OPT_SET ||
		    st_options[id].type == ST_T_STRING)
			return bad(err, n, fname, line,
				   "not a sweep option with one value (block, vers, rsize, ...):", p);
		if (t->nkeys == ST_SURFACE_KEYS)
			return bad(err, n, fname, line, "more than 4 keys in one factor at", p);
		for (int k = 0; k < t->nkeys; k++)
			if (t->id[k] == id)
				return bad(err, n, fname, line, "a key given twice in one factor:", p);
		if (st_opt_parse_value(id, eq + 1, &t->v[t->nkeys], why, sizeof(why))) {
			snprintf(err, n, "--null-surface: %s:%d: %s", fname, line, why);
			return -1;
		}
		t->id[t->nkeys++] = id;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* A number in (lo, hi) (lo itself when lo_ok): 0, or -1. */
static int parse_real(const char *s, double lo, int lo_ok, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || x < lo || (!lo_ok && x == lo) || x >= hi)
		return -1;
	*out = x;
	return 0;
}

/* One statement: its words w[0..nw-1]. */
static int parse_statement(char **w, int nw, struct st_surface *s, int *have_base,
			   const char *fname, int line, char *err, size_t n)
{
	const char *why = "invalid";
	if (!strcmp(w[0], "base") && nw == 2) {
		int64_t v;
		if (st_parse_duration(w[1], 1000, &v, &why) || v <= 0 || v > 10 * SEC)
			return bad(err, n, fname, line, "base: a duration above 0 up to 10s, not",
				   w[1]);
		s->base_ns = v;
		*have_base = 1;
	} else if (!strcmp(w[0], "noise") && nw == 2) {
		if (parse_real(w[1], 0, 1, 1, &s->noise))
			return bad(err, n, fname, line, "noise: a fraction from 0 to below 1, not",
				   w[1]);
	} else if (!strcmp(w[0], "seed") && nw == 2) {
		int64_t v;
		if (st_parse_count(w[1], &v, &why))
			return bad(err, n, fname, line, "seed: a whole number, not", w[1]);
		s->seed = (uint64_t)v;
	} else if (!strcmp(w[0], "factor") && nw == 3) {
		if (s->nterms == ST_SURFACE_TERMS)
			return bad(err, n, fname, line, "more than 64 factors at", w[1]);
		struct st_surface_term *t = &s->term[s->nterms];
		memset(t, 0, sizeof(*t));
		if (parse_keys(w[1], t, fname, line, err, n))
			return -1;
		if (parse_real(w[2], 0, 0, 1e6, &t->factor))
			return bad(err, n, fname, line, "factor: a number above 0, not", w[2]);
		s->nterms++;
	} else {
		return bad(err, n, fname, line,
			   "expected 'base DURATION', 'factor KEY=V[,KEY=V] F', 'noise F' or "
			   "'seed N', not",
			   w[0]);
	}
	return 0;
}

int st_surface_parse(const char *text, const char *fname, struct st_surface *s, char *err,
		     size_t n)
{
	memset(s, 0, sizeof(*s));
	s->seed = 1;
	char *copy = strdup(text);
	if (!copy) {
		snprintf(err, n, "--null-surface: %s: out of memory", fname);
		return -1;
	}
	int have_base = 0, line = 0, rc = 0;
	for (char *p = copy, *next; p && !rc; p = next) {
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		line++;
		char *hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		char *w[4];
		int nw = 0;
		for (char *sp, *tok = strtok_r(p, " \t\r", &sp); tok; tok = strtok_r(NULL, " \t\r", &sp))
			if (nw < 4)
				w[nw++] = tok;
			else
				nw = 4; /* too many words: refused below as a whole */
		if (nw)
			rc = parse_statement(w, nw, s, &have_base, fname, line, err, n);
	}
	free(copy);
	if (!rc && !have_base) {
		snprintf(err, n, "--null-surface: %s: no 'base DURATION' line", fname);
		rc = -1;
	}
	return rc;
}

int st_surface_load(const char *path, struct st_surface *s, char *err, size_t n)
{
	char *text = NULL;
	int rc = st_read_file(path, &text);
	if (rc) {
		snprintf(err, n, "--null-surface: cannot read '%s' (%s)", path, strerror(-rc));
		return -1;
	}
	rc = st_surface_parse(text, path, s, err, n);
	free(text);
	return rc;
}

double st_surface_factor(const struct st_surface *s, const int64_t *v)
{
	double f = 1;
	for (int i = 0; i < s->nterms; i++) {
		const struct st_surface_term *t = &s->term[i];
		int holds = 1;
		for (int k = 0; k < t->nkeys && holds; k++)
			holds = v[t->id[k]] == t->v[k];
		if (holds)
			f *= t->factor;
	}
	return f;
}

double st_surface_draw(const struct st_surface *s, const struct st_combo *c, int rank)
{
	uint64_t h = st_mix64(s->seed ^ st_mix64(((uint64_t)c->index << 20) ^ c->iteration) ^
			      st_mix64((uint64_t)rank + 0x9e37));
	return (double)(h >> 11) / (double)(1ULL << 52) - 1.0; /* [-1, 1) */
}

int64_t st_surface_delay_ns(const struct st_surface *s, const struct st_combo *c, int rank)
{
	double d = (double)s->base_ns * st_surface_factor(s, c->v) *
		   (1 + s->noise * st_surface_draw(s, c, rank));
	if (d > 100.0 * SEC)
		d = 100.0 * SEC;
	return d < 1 ? 1 : (int64_t)d;
}
