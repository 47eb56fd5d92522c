/*
 * where.c - history --where: the user's SQL expression, with values of the
 * sweep options written as a user writes them (rsize=1m, sync=async)
 * rewritten to what the store holds (see where.h).
 */
#include "where.h"

#include "../../common/options.h"
#include "../../common/strbuf.h"
#include "../../common/units.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A sweep option: a column of combo. */
static int is_column_option(int i)
{
	return (st_options[i].flags & ST_OF_SWEEP) != 0;
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_word(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* A sweep option by its column name; -1 if none. */
static int sweep_option(const char *name, size_t len)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (is_column_option(i) && strlen(st_options[i].name) == len &&
		    strncasecmp(st_options[i].name, name, len) == 0)
			return i;
	return -1;
}

/* Write value token tok (len bytes; quoted: tok is inside the quotes) of
 * option id as SQL: a size as bytes, a duration as ns, an enum word as a
 * string (a --data pattern is quoted: data = 'compress:50'). */
static void put_value(struct st_strbuf *b, int id, const char *tok, size_t len, int quoted)
{
	char v[128];
	if (len < sizeof(v)) {
		memcpy(v, tok, len);
		v[len] = '\0';
		if (st_options[id].type == ST_T_SIZE) {
			int64_t bytes;
			const char *why;
			if (st_parse_size(v, &bytes, &why) == 0) {
				st_strbuf_addf(b, "%lld", (long long)bytes);
				return;
			}
		} else if (st_options[id].type == ST_T_DURATION) {
			/* stored in ns: "runtime=10" is ten seconds, as on the command line */
			int64_t ns;
			const char *why;
			if (st_parse_duration(v, st_options[id].unit_ns, &ns, &why) == 0) {
				st_strbuf_addf(b, "%lld", (long long)ns);
				return;
			}
		} else if (st_options[id].type == ST_T_DATA && !quoted) {
			st_strbuf_addf(b, "'%s'", v); /* data=compress:50 */
			return;
		} else if (st_options[id].type == ST_T_ENUM && !quoted) {
			for (int k = 0; st_options[id].choices[k]; k++)
				if (strcmp(st_options[id].choices[k], v) == 0) {
					st_strbuf_addf(b, "'%s'", v);
					return;
				}
		}
	}
	st_strbuf_addf(b, quoted ? "'%.*s'" : "%.*s", (int)len, tok);
}

/* Where a translation stands after the tokens so far. */
enum where_state {
	W_NONE,	 /* nothing pending */
	W_NAME,	 /* after an option's name */
	W_OP,	 /* after its comparison operator: a value comes */
	W_IN,	 /* after IN */
	W_LIST,	 /* inside IN's list: values come */
};

struct where_tr {
	struct st_strbuf b;    /* the translation so far */
	enum where_state state;
	int opt;	       /* the last sweep option named; -1 none */
};

/* Is the next token a value of the option named last? */
static int in_value(const struct where_tr *t)
{
	return (t->state == W_OP || t->state == W_LIST) && t->opt >= 0;
}

/* A string literal at p ('' is a quote inside it); past it. */
static const char *tr_string(struct where_tr *t, const char *p)
{
	const char *q = p + 1;
	while (*q && !(q[0] == '\'' && q[1] != '\''))
		q += q[0] == '\'' ? 2 : 1;
	if (in_value(t))
		put_value(&t->b, t->opt, p + 1, (size_t)(q - p - 1), 1);
	else
		st_strbuf_addf(&t->b, "%.*s", (int)(q - p + (*q ? 1 : 0)), p);
	if (t->state == W_OP)
		t->state = W_NONE;
	return *q ? q + 1 : q;
}

/* A word at p, bare or "quoted": a name (an option's, or another), IN or
 * NOT after an option's name, or a bare value after its operator; past it. */
static const char *tr_word(struct where_tr *t, const char *p)
{
	const char *s = p, *name = p;
	size_t len;
	int quoted = *p == '"';
	if (quoted) {
		const char *q = strchr(p + 1, '"');
		if (!q)
			q = p + strlen(p);
		name = p + 1;
		len = (size_t)(q - name);
		p = *q ? q + 1 : q;
	} else {
		/* a --data pattern is one word: compress:50+dedupe:25 */
		const char *more = in_value(t) && st_options[t->opt].type == ST_T_DATA ? ":+" : "";
		while (isalnum((unsigned char)*p) || *p == '_' || (*p && strchr(more, *p)))
			p++;
		len = (size_t)(p - s);
	}
	int id = sweep_option(name, len);
	if (!quoted) {
		if (t->state == W_NAME && len == 2 && strncasecmp(s, "IN", 2) == 0) {
			st_strbuf_addf(&t->b, "%.2s", s);
			t->state = W_IN;
			return p;
		}
		if (t->state == W_NAME && len == 3 && strncasecmp(s, "NOT", 3) == 0) {
			st_strbuf_addf(&t->b, "%.3s", s);
			return p;
		}
		if (in_value(t)) {
			put_value(&t->b, t->opt, s, len, 0);
			if (t->state == W_OP)
				t->state = W_NONE;
			return p;
		}
	}
	st_strbuf_addf(&t->b, "%.*s", (int)(p - s), s);
	t->state = id >= 0 ? W_NAME : W_NONE;
	t->opt = id >= 0 ? id : t->opt;
	return p;
}

/* A number at p (with what follows it in one word: 4k, 1.5m); past it. */
static const char *tr_number(struct where_tr *t, const char *p)
{
	const char *s = p;
	while (is_word((unsigned char)*p))
		p++;
	if (in_value(t))
		put_value(&t->b, t->opt, s, (size_t)(p - s), 0);
	else
		st_strbuf_addf(&t->b, "%.*s", (int)(p - s), s);
	if (t->state != W_LIST)
		t->state = W_NONE;
	return p;
}

/* A comparison operator at p (=, <>, !=, <=, ...); past it. */
static const char *tr_operator(struct where_tr *t, const char *p)
{
	const char *s = p;
	while (*p && strchr("=<>!", *p))
		p++;
	st_strbuf_addf(&t->b, "%.*s", (int)(p - s), s);
	t->state = t->state == W_NAME ? W_OP : W_NONE;
	return p;
}

/* Any other character c: white space, a parenthesis, a comma. */
static void tr_other(struct where_tr *t, char c)
{
	if (isspace((unsigned char)c))
		; /* changes nothing pending */
	else if (c == '(' && t->state == W_IN)
		t->state = W_LIST;
	else if (c == ')' && t->state == W_LIST)
		t->state = W_NONE;
	else if (!(c == ',' && t->state == W_LIST))
		t->state = W_NONE;
	st_strbuf_addf(&t->b, "%c", c);
}

int st_where_translate(const char *in, char *out, size_t n, char *err, size_t errn)
{
	struct where_tr t = { .b = ST_STRBUF_INIT, .state = W_NONE, .opt = -1 };
	const char *p = in;
	while (*p) {
		unsigned char c = (unsigned char)*p;
		if (c == '\'') {
			p = tr_string(&t, p);
		} else if (c == '"' || is_ident_start(c)) {
			p = tr_word(&t, p);
		} else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
			p = tr_number(&t, p);
		} else if (strchr("=<>!", c)) {
			p = tr_operator(&t, p);
		} else if (c == ';') {
			/* SQLite would compile the first statement and ignore the rest */
			snprintf(err, errn, "';' ends a statement: give one expression, without ';'");
			st_strbuf_release(&t.b);
			return -1;
		} else {
			tr_other(&t, *p++);
		}
	}
	int rc = 0;
	if (t.b.oom || t.b.len >= n) {
		snprintf(err, errn, "expression is too long");
		rc = -1;
	} else {
		memcpy(out, t.b.p ? t.b.p : "", t.b.len + 1);
	}
	st_strbuf_release(&t.b);
	return rc;
}
