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

int st_where_translate(const char *in, char *out, size_t n, char *err, size_t errn)
{
	/* state: 0 = nothing pending; 1 = after an option's name; 2 = after its
	 * comparison operator; 3 = after IN; 4 = inside IN's list */
	int state = 0, opt = -1;
	struct st_strbuf b = { 0 };
	const char *p = in;
	while (*p) {
		unsigned char c = (unsigned char)*p;
		if (isspace(c)) {
			st_strbuf_addf(&b, "%c", c);
			p++;
			continue;
		}
		if (c == '\'') {
			/* a string literal ('' is a quote inside it) */
			const char *q = p + 1;
			while (*q && !(q[0] == '\'' && q[1] != '\''))
				q += q[0] == '\'' ? 2 : 1;
			if ((state == 2 || state == 4) && opt >= 0)
				put_value(&b, opt, p + 1, (size_t)(q - p - 1), 1);
			else
				st_strbuf_addf(&b, "%.*s", (int)(q - p + (*q ? 1 : 0)), p);
			p = *q ? q + 1 : q;
			if (state == 2)
				state = 0;
			continue;
		}
		if (c == '"' || is_ident_start(c)) {
			const char *s = p, *name = p;
			size_t len;
			if (c == '"') {
				const char *q = strchr(p + 1, '"');
				if (!q)
					q = p + strlen(p);
				name = p + 1;
				len = (size_t)(q - name);
				p = *q ? q + 1 : q;
			} else {
				while (isalnum((unsigned char)*p) || *p == '_')
					p++;
				len = (size_t)(p - s);
			}
			int id = sweep_option(name, len);
			if (c != '"') {
				/* a bare word: IN / NOT after a name, or a value after an operator */
				if (state == 1 && len == 2 && strncasecmp(s, "IN", 2) == 0) {
					st_strbuf_addf(&b, "%.2s", s);
					state = 3;
					continue;
				}
				if (state == 1 && len == 3 && strncasecmp(s, "NOT", 3) == 0) {
					st_strbuf_addf(&b, "%.3s", s);
					continue;
				}
				if ((state == 2 || state == 4) && opt >= 0) {
					put_value(&b, opt, s, len, 0);
					if (state == 2)
						state = 0;
					continue;
				}
			}
			st_strbuf_addf(&b, "%.*s", (int)(p - s), s);
			state = id >= 0 ? 1 : 0;
			opt = id >= 0 ? id : opt;
			continue;
		}
		if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
			const char *s = p;
			while (is_word((unsigned char)*p))
				p++;
			if ((state == 2 || state == 4) && opt >= 0)
				put_value(&b, opt, s, (size_t)(p - s), 0);
			else
				st_strbuf_addf(&b, "%.*s", (int)(p - s), s);
			if (state != 4)
				state = 0;
			continue;
		}
		if (strchr("=<>!", c)) {
			const char *s = p;
			while (*p && strchr("=<>!", *p))
				p++;
			st_strbuf_addf(&b, "%.*s", (int)(p - s), s);
			state = state == 1 ? 2 : 0;
			continue;
		}
		if (c == ';') {
			/* SQLite would compile the first statement and ignore the rest */
			snprintf(err, errn, "';' ends a statement: give one expression, without ';'");
			st_strbuf_release(&b);
			return -1;
		}
		if (c == '(' && state == 3)
			state = 4;
		else if (c == ')' && state == 4)
			state = 0;
		else if (!(c == ',' && state == 4))
			state = 0;
		st_strbuf_addf(&b, "%c", c);
		p++;
	}
	int rc = 0;
	if (b.oom || b.len >= n) {
		snprintf(err, errn, "expression is too long");
		rc = -1;
	} else {
		memcpy(out, b.p ? b.p : "", b.len + 1);
	}
	st_strbuf_release(&b);
	return rc;
}
