/*
 * options.c - everything the options table (options_table.c) drives: the
 * parsers of the command line, plan files and --set, the checks that need
 * no engine and the matrix (see options.h; --help and the plan text a run
 * stores are options_text.c's).
 */
#include "options.h"
#include "search.h"
#include "phaseopt.h"

#include "data.h"
#include "units.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int st_opt_find(const char *name)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (strcmp(st_options[i].name, name) == 0)
			return i;
	return -1;
}

int st_opt_is_list(const struct st_opt_def *d)
{
	return (d->flags & (ST_OF_SWEEP | ST_OF_LIST)) != 0;
}

int st_opt_fail(char *err, size_t n, const char *where, const char *fmt, ...)
{
	size_t off = 0;
	if (where) {
		snprintf(err, n, "%s: ", where);
		off = strlen(err);
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + off, n - off, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse one element of option d's value. */
static int parse_one(const struct st_opt_def *d, const char *s, int64_t *v, char *err,
		     size_t n, const char *where)
{
	const char *why = "invalid";
	int rc = 0;
	switch (d->type) {
	case ST_T_SIZE:
		rc = st_parse_size(s, v, &why);
		if (rc)
			return st_opt_fail(err, n, where, "--%s: invalid size '%s' (%s)", d->name, s, why);
		break;
	case ST_T_COUNT:
		rc = st_parse_count(s, v, &why);
		if (rc)
			return st_opt_fail(err, n, where, "--%s: invalid number '%s' (%s)", d->name, s, why);
		break;
	case ST_T_DURATION:
		rc = st_parse_duration(s, d->unit_ns, v, &why);
		if (rc)
			return st_opt_fail(err, n, where, "--%s: invalid duration '%s' (%s)", d->name, s,
				    why);
		break;
	case ST_T_DATA:
		if (st_data_parse(s, v, &why))
			return st_opt_fail(err, n, where, "--%s: invalid pattern '%s' (%s)", d->name, s, why);
		return 0;
	case ST_T_ERRNO: {
		int e;
		if (st_errno_parse(s, &e))
			return st_opt_fail(err, n, where, "--%s: unknown errno '%s' (use a name like EIO)",
				    d->name, s);
		*v = e;
		return 0;
	}
	case ST_T_ENUM:
		for (int i = 0; d->aliases && d->aliases[i]; i += 2)
			if (strcmp(d->aliases[i], s) == 0)
				s = d->aliases[i + 1];
		for (int i = 0; d->choices[i]; i++)
			if (strcmp(d->choices[i], s) == 0) {
				*v = i;
				return 0;
			}
		{
			char allowed[256] = "";
			for (int i = 0; d->choices[i]; i++) {
				if (i)
					strncat(allowed, ", ", sizeof(allowed) - strlen(allowed) - 1);
				strncat(allowed, d->choices[i], sizeof(allowed) - strlen(allowed) - 1);
			}
			return st_opt_fail(err, n, where, "--%s: unknown value '%s' (one of: %s)", d->name, s,
				    allowed);
		}
	default:
		return st_opt_fail(err, n, where, "--%s: internal: no parser", d->name);
	}
	if (d->align && *v % d->align) {
		char a[32];
		st_format_size(d->align, a, sizeof(a));
		return st_opt_fail(err, n, where, "--%s: '%s' is not a multiple of %s", d->name, s, a);
	}
	if (d->max > d->min && (*v < d->min || *v > d->max)) {
		char lo[32], hi[32];
		if (d->type == ST_T_SIZE) {
			st_format_size(d->min, lo, sizeof(lo));
			st_format_size(d->max, hi, sizeof(hi));
		} else if (d->type == ST_T_DURATION) {
			st_format_duration(d->min, lo, sizeof(lo));
			st_format_duration(d->max, hi, sizeof(hi));
		} else {
			snprintf(lo, sizeof(lo), "%lld", (long long)d->min);
			snprintf(hi, sizeof(hi), "%lld", (long long)d->max);
		}
		return st_opt_fail(err, n, where, "--%s: '%s' is out of range (%s to %s)", d->name, s, lo,
			    hi);
	}
	return 0;
}

int st_opt_parse_value(int id, const char *text, int64_t *v, char *err, size_t n)
{
	return parse_one(&st_options[id], text, v, err, n, NULL);
}

/*
 * One --set: "key=value,key=value", each key a sweep option (not set,
 * not a text one) given once, each value one value its own parser takes.
 * vals[id] gets each value (ST_UNSET for the keys not named). 0, or -1
 * with one line in err.
 */
/*
 * The name of a set "NAME:key=v,..." (its level in the store and the
 * analyses): the letters, digits, '.', '_' and '-' before the first ':'
 * when no '=' comes before it; without one, the set's text. *body: where
 * its pairs start. 0, or -1 with one line in err (a ':' with no name).
 */
static int set_name(const char *text, char *name, size_t n, const char **body, char *err,
		    size_t errn, const char *where)
{
	const char *colon = strchr(text, ':'), *eq = strchr(text, '=');
	*body = text;
	if (!colon || (eq && eq < colon)) {
		st_copy(name, n, text);
		return 0;
	}
	size_t len = (size_t)(colon - text);
	if (len == 0 || len >= n || len > ST_SET_NAME_MAX)
		return st_opt_fail(err, errn, where, "--set '%s': %s", text,
			    len ? "the name before ':' is too long" : "no name before ':'");
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)text[i]) && !strchr("._-", text[i]))
			return st_opt_fail(err, errn, where,
				    "--set '%s': the name '%.*s' may hold letters, digits, '.', "
				    "'_' and '-' only",
				    text, (int)len, text);
	memcpy(name, text, len);
	name[len] = '\0';
	*body = colon + 1;
	return 0;
}

static int set_parse(const char *text, int64_t vals[ST_OPT_COUNT], char *err, size_t errn,
		     const char *where)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		vals[i] = ST_UNSET;
	char name[ST_SET_NAME_MAX + 1];
	const char *body;
	if (set_name(text, name, sizeof(name), &body, err, errn, where))
		return -1;
	for (const char *p = body;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char pair[256], why[ST_ERR_MAX];
		if (len == 0 || len >= sizeof(pair))
			return st_opt_fail(err, errn, where, "--set '%s': %s", text,
				    len ? "a value is too long" : "empty element (KEY=V,KEY=V)");
		memcpy(pair, p, len);
		pair[len] = '\0';
		char *eq = strchr(pair, '=');
		if (!eq || eq == pair || !eq[1])
			return st_opt_fail(err, errn, where, "--set '%s': '%s' is not KEY=VALUE", text, pair);
		*eq = '\0';
		/* a plan file may put spaces around the words */
		char *key = pair, *val = eq + 1;
		while (isspace((unsigned char)*key))
			key++;
		for (char *e = eq; e > key && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		while (isspace((unsigned char)*val))
			val++;
		for (char *e = val + strlen(val); e > val && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		int id = st_opt_find(key);
		if (id < 0 || !(st_options[id].flags & ST_OF_SWEEP) || id == ST_OPT_SET ||
		    st_options[id].type == ST_T_STRING)
			return st_opt_fail(err, errn, where,
				    "--set '%s': '%s' is not an option a set can give (a sweep option "
				    "with one value: block, vers, rsize, ...)",
				    text, key);
		if (vals[id] != ST_UNSET)
			return st_opt_fail(err, errn, where, "--set '%s': '%s' is given twice", text, key);
		if (parse_one(&st_options[id], val, &vals[id], why, sizeof(why), NULL))
			return st_opt_fail(err, errn, where, "--set '%s': %s", text, why);
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* A string list option's text into *ov (the values NUL-separated in s, v[i]
 * the offset of value i), each value checked; ov unchanged on error. */
static int set_string_list(int id, const char *text, int from_args, struct st_optval *ov,
			   const char *where, char *err, size_t errn)
{
	const struct st_opt_def *d = &st_options[id];
	struct st_optval nv = { 0 };
	size_t off = 0;
	char sep = d->sep ? d->sep : ',';
	for (const char *p = text;;) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return st_opt_fail(err, errn, where, "--%s: empty element in list '%s'", d->name, text);
		if (off + len + 1 > sizeof(nv.s) || nv.n == ST_MAX_VALUES)
			return st_opt_fail(err, errn, where, "--%s: list is too long", d->name);
		for (int i = 0; i < nv.n; i++)
			if (strlen(nv.s + nv.v[i]) == len && !memcmp(nv.s + nv.v[i], p, len))
				return st_opt_fail(err, errn, where, "--%s: value '%.*s' is listed twice",
					    d->name, (int)len, p);
		memcpy(nv.s + off, p, len);
		nv.s[off + len] = '\0';
		nv.v[nv.n++] = (int64_t)off;
		off += len + 1;
		if (!end)
			break;
		p = end + 1;
	}
	for (int i = 0; id == ST_OPT_SET && i < nv.n; i++) {
		int64_t vals[ST_OPT_COUNT];
		if (set_parse(st_optval_str(&nv, i), vals, err, errn, where))
			return -1;
		/* a set's name is its level: two sets of one name would be one */
		char a[ST_STR_MAX], b[ST_STR_MAX];
		st_set_name(&nv, i, a, sizeof(a));
		for (int k = 0; k < i; k++)
			if (strcmp(a, st_set_name(&nv, k, b, sizeof(b))) == 0)
				return st_opt_fail(err, errn, where, "--set: two sets are named '%s'", a);
	}
	nv.from_args = from_args;
	*ov = nv;
	return 0;
}

int st_config_set(struct st_config *cfg, int id, const char *text, int from_args,
		  const char *where, char *err, size_t errn)
{
	const struct st_opt_def *d = &st_options[id];
	struct st_optval *ov = &cfg->o[id];
	if (!from_args && ov->from_args)
		return 0; /* the command line wins over the plan */
	if (d->type == ST_T_FLAG) {
		ov->n = 1;
		ov->v[0] = 1;
		ov->from_args = from_args;
		return 0;
	}
	if (d->type == ST_T_STRING) {
		/* a run stores its options as plan text, a line per option with
		 * the spaces at both ends trimmed: text it cannot keep is refused */
		size_t len = strlen(text);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
				return st_opt_fail(err, errn, where, "--%s: control character 0x%02x in the value",
					    d->name, (unsigned)(unsigned char)text[i]);
			else if ((unsigned char)text[i] == 0xc2 && (unsigned char)text[i + 1] >= 0x80 &&
				 (unsigned char)text[i + 1] <= 0x9f) /* C1, U+0080-U+009F in UTF-8 */
				return st_opt_fail(err, errn, where,
					    "--%s: control character U+%04X in the value", d->name,
					    (unsigned)(unsigned char)text[i + 1]);
		if (len && (text[0] == ' ' || text[len - 1] == ' '))
			return st_opt_fail(err, errn, where, "--%s: value '%s' begins or ends with a space",
				    d->name, text);
	}
	if (d->type == ST_T_STRING && st_opt_is_list(d))
		return set_string_list(id, text, from_args, ov, where, err, errn);
	if (d->type == ST_T_STRING) {
		if (strlen(text) >= sizeof(ov->s))
			return st_opt_fail(err, errn, where, "--%s: value is longer than %zu bytes", d->name,
				    sizeof(ov->s) - 1);
		if (id != ST_OPT_LABEL && !*text)
			return st_opt_fail(err, errn, where, "--%s: empty value", d->name);
		st_copy(ov->s, sizeof(ov->s), text);
		ov->n = 1;
		ov->from_args = from_args;
		return 0;
	}
	struct st_optval nv = { 0 };
	const char *p = text;
	for (;;) {
		const char *comma = st_opt_is_list(d) ? strchr(p, ',') : NULL;
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char elem[128];
		if (len == 0)
			return st_opt_fail(err, errn, where, "--%s: empty element in list '%s'", d->name,
				    text);
		if (len >= sizeof(elem))
			return st_opt_fail(err, errn, where, "--%s: value '%.40s...' is too long", d->name, p);
		memcpy(elem, p, len);
		elem[len] = '\0';
		if (nv.n == ST_MAX_VALUES)
			return st_opt_fail(err, errn, where, "--%s: more than %d values", d->name,
				    ST_MAX_VALUES);
		int64_t v;
		if (parse_one(d, elem, &v, err, errn, where))
			return -1;
		for (int i = 0; i < nv.n; i++)
			if (nv.v[i] == v)
				return st_opt_fail(err, errn, where, "--%s: value '%s' is listed twice", d->name,
					    elem);
		nv.v[nv.n++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	nv.from_args = from_args;
	*ov = nv;
	return 0;
}

void st_config_defaults(struct st_config *cfg)
{
	char err[ST_ERR_MAX];
	memset(cfg, 0, sizeof(*cfg));
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!st_options[i].def ||
		    !st_config_set(cfg, i, st_options[i].def, 0, NULL, err, sizeof(err)))
			continue;
		/* a bug in the table, not in the user's input (test_options runs this) */
		fprintf(stderr, "stcluster: internal: bad default for --%s: %s\n", st_options[i].name,
			err);
		abort();
	}
}

int st_config_parse_args(struct st_config *cfg, int argc, char **argv, char *err,
			 size_t errn)
{
	unsigned char given[ST_OPT_COUNT] = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2) != 0 || !a[2])
			return st_opt_fail(err, errn, NULL, "unexpected argument '%s' (options start with --)",
				    a);
		char name[64];
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (len >= sizeof(name))
			return st_opt_fail(err, errn, NULL, "unknown option '%.60s'", a);
		memcpy(name, a + 2, len);
		name[len] = '\0';
		int id = st_opt_find(name);
		if (id < 0)
			return st_opt_fail(err, errn, NULL, "unknown option '--%s' (see --help)", name);
		if (given[id]++ && id != ST_OPT_SET)
			return st_opt_fail(err, errn, NULL, "--%s: given twice (give it once%s)", name,
				    st_opt_is_list(&st_options[id]) ? ", with a list: a,b" : "");
		const char *val;
		if (st_options[id].type == ST_T_FLAG) {
			if (eq)
				return st_opt_fail(err, errn, NULL, "--%s takes no value", name);
			val = "";
		} else if (eq) {
			val = eq + 1;
		} else {
			if (i + 1 >= argc)
				return st_opt_fail(err, errn, NULL, "--%s: missing value (%s)", name,
					    st_options[id].arg);
			val = argv[++i];
		}
		if (id == ST_OPT_SET && given[id] > 1) {
			/* each --set is one more set: the sets so far, ';', this one */
			char all[ST_STR_MAX];
			size_t off = 0;
			for (int k = 0; k < cfg->o[id].n && off < sizeof(all); k++)
				off += (size_t)snprintf(all + off, sizeof(all) - off, "%s;",
							st_optval_str(&cfg->o[id], k));
			if (off + strlen(val) >= sizeof(all))
				return st_opt_fail(err, errn, NULL, "--set: the sets are longer than %zu bytes",
					    sizeof(all) - 1);
			st_copy(all + off, sizeof(all) - off, val);
			if (st_config_set(cfg, id, all, 1, NULL, err, errn))
				return -1;
			continue;
		}
		if (st_config_set(cfg, id, val, 1, NULL, err, errn))
			return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int st_config_parse_plan(struct st_config *cfg, const char *text, const char *fname,
			 char *err, size_t errn)
{
	int lineno = 0, first_line[ST_OPT_COUNT] = { 0 }, plan_lines = 0, section = -1;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[ST_STR_MAX + 128], where[ST_STR_MAX + 32];
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", fname, lineno);
		if (len >= sizeof(line))
			return st_opt_fail(err, errn, where, "line too long");
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : p + len;
		/* '#' starts a comment; "\#" is a '#' of the value (st_config_dump
		 * writes one so) */
		char *w = line;
		for (const char *r = line; *r && *r != '#'; r++) {
			if (r[0] == '\\' && r[1] == '#')
				r++;
			*w++ = *r;
		}
		*w = '\0';
		char *l = trim(line);
		if (!*l)
			continue;
		/* until a line has a key stcluster knows, the file may be anything
		 * (--plan /etc/shadow, a conf that links to it): its text is
		 * never shown, only its line number */
		if (*l == '[') { /* a phase's own values from here (phaseopt.h) */
			if (st_phase_section(cfg, l, lineno, plan_lines, where, &section, err, errn))
				return -1;
			continue;
		}
		char *eq = strchr(l, '=');
		if (!eq && !plan_lines)
			return st_opt_fail(err, errn, where, "expected 'key = value' (not a plan file?)");
		if (!eq)
			return st_opt_fail(err, errn, where, "expected 'key = value', got '%s'", l);
		*eq = '\0';
		char *key = trim(l), *val = trim(eq + 1);
		if (section >= 0) {
			if (st_phase_set(cfg, section, key, val, plan_lines, where, err, errn))
				return -1;
			plan_lines++;
			continue;
		}
		int id = st_opt_find(key);
		if ((id < 0 || (st_options[id].flags & ST_OF_NO_PLAN)) &&
		    !plan_lines && strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(key))
			return st_opt_fail(err, errn, where, "unknown key (not a plan file?)");
		if (id < 0 || (st_options[id].flags & ST_OF_NO_PLAN))
			return st_opt_fail(err, errn, where, "unknown key '%s'", key);
		plan_lines++;
		if (first_line[id])
			return st_opt_fail(err, errn, where, "key '%s' is given twice (first on line %d)", key,
				    first_line[id]);
		first_line[id] = lineno;
		if (st_options[id].type == ST_T_FLAG) {
			if (strcmp(val, "on") && strcmp(val, "off") && strcmp(val, "true") &&
			    strcmp(val, "false"))
				return st_opt_fail(err, errn, where, "--%s: expected on or off, got '%s'", key,
					    val);
			if (!strcmp(val, "off") || !strcmp(val, "false"))
				continue;
		}
		/* spaces around commas are fine in a file ("4k, 1m"); inside a
		 * value they are not ("1 0 k" is no size, not 10k) */
		char packed[ST_STR_MAX + 128];
		size_t k = 0;
		for (char *c = val; *c && k + 1 < sizeof(packed); c++) {
			if (st_options[id].type != ST_T_STRING && isspace((unsigned char)*c)) {
				const char *next = c;
				while (isspace((unsigned char)*next))
					next++;
				if ((k && packed[k - 1] == ',') || *next == ',' || !*next)
					continue;
			}
			packed[k++] = *c;
		}
		packed[k] = '\0';
		if (st_config_set(cfg, id, packed, 0, where, err, errn))
			return -1;
	}
	return 0;
}

/* The largest value option id takes, given or in a set (ST_UNSET: none). */
static int64_t largest(const struct st_config *cfg, int id)
{
	int64_t m = ST_UNSET;
	for (int k = 0; k < cfg->o[id].n; k++)
		m = cfg->o[id].v[k] > m ? cfg->o[id].v[k] : m;
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t v;
		if (st_set_lookup(cfg, k, id, &v) && v > m)
			m = v;
	}
	return m;
}

/* Does option id take value v anywhere (its list, or a set)? */
static int takes(const struct st_config *cfg, int id, int64_t v)
{
	for (int k = 0; k < cfg->o[id].n; k++)
		if (cfg->o[id].v[k] == v)
			return 1;
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t x;
		if (st_set_lookup(cfg, k, id, &x) && x == v)
			return 1;
	}
	return 0;
}

/* Was option i given (command line or plan), not only its default? A set
 * may give an option that only has its default. */
static int given_by_user(const struct st_config *cfg, int i)
{
	const struct st_optval *ov = &cfg->o[i];
	const struct st_opt_def *d = &st_options[i];
	if (!ov->n)
		return 0;
	if (ov->from_args || !d->def || ov->n != 1 || d->type == ST_T_STRING)
		return 1;
	int64_t v;
	char err[ST_ERR_MAX];
	return parse_one(d, d->def, &v, err, sizeof(err), NULL) || v != ov->v[0];
}

/* Issue 13's options: each only where it means something, so a sweep never
 * repeats a combination under another name. */
static int workload_check(const struct st_config *cfg, char *err, size_t errn)
{
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		const char *text = st_optval_str(&cfg->o[ST_OPT_SET], k);
		int64_t vals[ST_OPT_COUNT];
		set_parse(text, vals, err, errn, NULL); /* parsed when it was set */
		for (int i = 0; i < ST_OPT_COUNT; i++)
			if (vals[i] != ST_UNSET && given_by_user(cfg, i))
				return st_opt_fail(err, errn, NULL, "--%s: given as an option and in --set '%s' "
							     "(give it in one place)",
					    st_options[i].name, text);
		if ((vals[ST_OPT_RWSIZE] != ST_UNSET || cfg->o[ST_OPT_RWSIZE].n) &&
		    (vals[ST_OPT_RSIZE] != ST_UNSET || vals[ST_OPT_WSIZE] != ST_UNSET))
			return st_opt_fail(err, errn, NULL, "--set '%s': rwsize is rsize and wsize together: "
						     "give rwsize or rsize/wsize", text);
		if (vals[ST_OPT_RWSIZE] != ST_UNSET && (cfg->o[ST_OPT_RSIZE].n || cfg->o[ST_OPT_WSIZE].n))
			return st_opt_fail(err, errn, NULL, "--set '%s': rwsize is rsize and wsize together: "
						     "give rwsize or rsize/wsize", text);
	}
	if (cfg->o[ST_OPT_RWSIZE].n && (cfg->o[ST_OPT_RSIZE].n || cfg->o[ST_OPT_WSIZE].n))
		return st_opt_fail(err, errn, NULL, "--rwsize: sets rsize and wsize together: give it or "
					     "--rsize/--wsize, not both");
	unsigned ph = st_config_phases(cfg);
	static const struct {
		int id;
		unsigned phases;
		const char *what;
	} needs[] = {
		{ ST_OPT_FILES, ST_PHASES_META, "the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir)" },
		{ ST_OPT_FILE_SIZE, ST_PHASES_META, "the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir)" },
		{ ST_OPT_FANOUT, ST_PHASES_META, "the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir)" },
		{ ST_OPT_DIR_MODE, ST_PHASES_META, "the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir)" },
		{ ST_OPT_DEPTH, ST_PHASES_META, "the metadata phases (create, stat, readdir, open, remove, mkdir, dirstat, rmdir)" },
		{ ST_OPT_LAYOUT, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_ACCESS, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_RWMIX, ST_PHASES_MIXED, "the mixed phases (rw, randrw)" },
		{ ST_OPT_RUNTIME, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_RAMP, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_STONEWALL, ST_PHASES_DATA, "the data phases" },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(needs); i++)
		if (st_config_given(cfg, needs[i].id) && !(ph & needs[i].phases))
			return st_opt_fail(err, errn, NULL, "--%s: only for %s, and --phases has none",
				    st_options[needs[i].id].name, needs[i].what);
	if (st_config_given(cfg, ST_OPT_ACCESS) && !takes(cfg, ST_OPT_LAYOUT, ST_LAYOUT_SHARED))
		return st_opt_fail(err, errn, NULL, "--access: only with --layout shared (a file per thread "
					     "is read and written in one piece)");
	if (takes(cfg, ST_OPT_STONEWALL, ST_STONEWALL_WEAROUT) && !st_config_given(cfg, ST_OPT_RUNTIME))
		return st_opt_fail(err, errn, NULL, "--stonewall wearout: goes on after the end of "
					     "--runtime (IOR's -D); give --runtime");
	if (takes(cfg, ST_OPT_STONEWALL, ST_ON) && st_config_given(cfg, ST_OPT_RUNTIME))
		return st_opt_fail(err, errn, NULL, "--stonewall on: a time-based phase (--runtime) has no "
					     "first client to stop at; give one or the other");
	int64_t fo = largest(cfg, ST_OPT_FANOUT), dp = largest(cfg, ST_OPT_DEPTH), leaves = 1;
	for (int64_t k = 0; fo != ST_UNSET && dp != ST_UNSET && k < dp && leaves <= ST_META_LEAVES_MAX; k++)
		leaves *= fo;
	if (leaves > ST_META_LEAVES_MAX)
		return st_opt_fail(err, errn, NULL, "--depth %lld with --fanout %lld: more than %d leaf "
					     "directories per thread", (long long)dp, (long long)fo,
			    ST_META_LEAVES_MAX);
	int64_t rt = largest(cfg, ST_OPT_RUNTIME), rp = largest(cfg, ST_OPT_RAMP);
	int64_t span = (rt == ST_UNSET ? 0 : rt) + (rp == ST_UNSET ? 0 : rp);
	if (span >= cfg->o[ST_OPT_DEADLINE].v[0]) {
		char d[32], x[32];
		st_format_duration(cfg->o[ST_OPT_DEADLINE].v[0], d, sizeof(d));
		st_format_duration(span, x, sizeof(x));
		return st_opt_fail(err, errn, NULL, "--%s: %s of runtime and ramp does not end before "
					     "--deadline %s",
			    rt != ST_UNSET ? "runtime" : "ramp", x, d);
	}
	return 0;
}

int st_config_given(const struct st_config *cfg, int id)
{
	if (cfg->o[id].n)
		return 1;
	for (int k = 0; (st_options[id].flags & ST_OF_SWEEP) && k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t v;
		if (st_set_lookup(cfg, k, id, &v))
			return 1;
	}
	return 0;
}

const char *st_set_name(const struct st_optval *ov, int set, char *buf, size_t n)
{
	const char *body;
	char err[ST_ERR_MAX];
	if (set_name(st_optval_str(ov, set), buf, n, &body, err, sizeof(err), NULL))
		st_copy(buf, n, st_optval_str(ov, set));
	return buf;
}

int st_set_lookup(const struct st_config *cfg, int set, int id, int64_t *v)
{
	int64_t vals[ST_OPT_COUNT];
	char err[ST_ERR_MAX];
	if (set < 0 || set >= cfg->o[ST_OPT_SET].n ||
	    set_parse(st_optval_str(&cfg->o[ST_OPT_SET], set), vals, err, sizeof(err), NULL) ||
	    vals[id] == ST_UNSET)
		return 0;
	*v = vals[id];
	return 1;
}

int st_db_name_check(const char *path, char *err, size_t errn)
{
	if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
		return st_opt_fail(err, errn, NULL,
			    "--db: '%s' is SQLite's name of a memory or URI store, not a file's "
			    "path (a file of that name: ./%s)",
			    path, path);
	return 0;
}

/* Two --set sets that make the same combination, compared by value
 * (block=4k and block=4096): the sweep would run it twice. Every other
 * sweep option has the same values beside each set, so comparing the
 * first combination of each set compares them all. */
static int sets_differ(const struct st_config *cfg, char *err, size_t errn)
{
	const struct st_optval *sets = &cfg->o[ST_OPT_SET];
	uint64_t stride = 1; /* mixed radix: the sweep options after SET vary faster */
	for (int i = ST_OPT_SET + 1; i < ST_OPT_COUNT; i++)
		if ((st_options[i].flags & ST_OF_SWEEP) && cfg->o[i].n)
			stride *= (uint64_t)cfg->o[i].n;
	for (int k = 1; k < sets->n; k++)
		for (int l = 0; l < k; l++) {
			struct st_combo a, b;
			st_plan_combo(cfg, (uint64_t)k * stride, &a);
			st_plan_combo(cfg, (uint64_t)l * stride, &b);
			a.v[ST_OPT_SET] = b.v[ST_OPT_SET];
			if (memcmp(a.v, b.v, sizeof(a.v)) == 0)
				return st_opt_fail(err, errn, NULL,
					    "--set '%s': the same combination as --set '%s'",
					    st_optval_str(sets, k), st_optval_str(sets, l));
		}
	return 0;
}

/* --server-export: each value a list of exportfs -o options, each one
 * exports(5) names (a KEY=V where it takes a value): a typo must stop the
 * run here, not fail every combination on the server. */
static int server_export_check(const struct st_config *cfg, char *err, size_t errn)
{
	static const char *const words[] = {
		"secure", "insecure", "rw", "ro", "async", "sync", "wdelay", "no_wdelay", "hide",
		"nohide", "crossmnt", "subtree_check", "no_subtree_check", "secure_locks",
		"insecure_locks", "auth_nlm", "no_auth_nlm", "pnfs", "no_pnfs", "security_label",
		"root_squash", "no_root_squash", "all_squash", "no_all_squash", "acl", "no_acl",
		"rdirplus", "nordirplus", "mountpoint", "mp", "=fsid", "=anonuid", "=anongid",
		"=sec", "=refer", "=replicas", "=mountpoint", "=mp", NULL,
	};
	const struct st_optval *ov = &cfg->o[ST_OPT_SERVER_EXPORT];
	for (int i = 0; i < ov->n; i++) {
		const char *val = st_optval_str(ov, i);
		for (const char *p = val; *p;) {
			size_t len = strcspn(p, ","), key = strcspn(p, ",=");
			int ok = 0;
			for (int k = 0; words[k] && !ok; k++) {
				int takes_v = words[k][0] == '=';
				const char *w = words[k] + takes_v;
				ok = strlen(w) == key && !strncmp(p, w, key) &&
				     (takes_v ? key + 1 < len : key == len);
			}
			if (!ok)
				return st_opt_fail(err, errn, NULL,
					    "--server-export '%s': '%.*s' is not an exportfs -o option "
					    "(exports(5): sync, async, no_wdelay, rw, ro, root_squash, "
					    "fsid=N, sec=..., ...)",
					    val, (int)len, p);
			p += len + (p[len] == ',');
		}
	}
	return 0;
}

int st_config_check(const struct st_config *cfg, char *err, size_t errn)
{
	if (cfg->o[ST_OPT_RESUME].n)
		for (int i = 0; i < ST_OPT_COUNT; i++)
			if (cfg->o[i].from_args && i != ST_OPT_RESUME && i != ST_OPT_DB &&
			    i != ST_OPT_QUIET && i != ST_OPT_DEADLINE)
				return st_opt_fail(err, errn, NULL,
					    "--%s: a resumed run keeps its stored options (only --db, "
					    "--quiet and --deadline may be given with --resume)",
					    st_options[i].name);
	if (!cfg->o[ST_OPT_DB].n)
		return st_opt_fail(err, errn, NULL, "--db: missing");
	if (st_db_name_check(cfg->o[ST_OPT_DB].s, err, errn))
		return -1;
	if (cfg->o[ST_OPT_MOUNT].n && strstr(cfg->o[ST_OPT_MOUNT].s, "://"))
		return st_opt_fail(err, errn, NULL,
			    "--mount: '%s' is a URL; --mount takes what mount(8) does "
			    "(server:/export; an nfs:// URL is the --target of --engine libnfs)",
			    cfg->o[ST_OPT_MOUNT].s);
	if (workload_check(cfg, err, errn) || server_export_check(cfg, err, errn))
		return -1;
	/* --fstype is the type --mount mounts: alone it would change nothing */
	const struct st_optval *ft = &cfg->o[ST_OPT_FSTYPE];
	if (!cfg->o[ST_OPT_MOUNT].n && ft->n &&
	    (ft->from_args || strcmp(ft->s, st_options[ST_OPT_FSTYPE].def) != 0))
		return st_opt_fail(err, errn, NULL, "--fstype: '%s' is the type --mount mounts; without "
					     "--mount nothing is mounted (give --mount SOURCE)",
			    ft->s);
	if (cfg->o[ST_OPT_MOUNT_OVER].n && !cfg->o[ST_OPT_MOUNT].n)
		return st_opt_fail(err, errn, NULL, "--mount-over: only with --mount SOURCE");
	if (st_search_check(cfg, err, errn))
		return -1;
	uint64_t n = st_plan_combos(cfg);
	if (n * (uint64_t)cfg->o[ST_OPT_ITERATIONS].v[0] > 1000000)
		return st_opt_fail(err, errn, NULL,
			    "the matrix has %llu combinations x %lld iterations: over 1000000",
			    (unsigned long long)n, (long long)cfg->o[ST_OPT_ITERATIONS].v[0]);
	return sets_differ(cfg, err, errn) ? -1 : st_phase_check(cfg, err, errn);
}

/* Does one of the --set sets give option id a value? */
static int in_a_set(const struct st_config *cfg, int id)
{
	int64_t v;
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++)
		if (st_set_lookup(cfg, k, id, &v))
			return 1;
	return 0;
}

int st_config_chosen(const struct st_config *cfg, int id)
{
	const struct st_optval *ov = &cfg->o[id];
	const struct st_opt_def *d = &st_options[id];
	int set = in_a_set(cfg, id);
	if (!ov->n || !d->def || set)
		return ov->n || set;
	if (d->type == ST_T_STRING)
		return st_opt_is_list(d) || strcmp(ov->s, d->def) != 0;
	int64_t v;
	char err[ST_ERR_MAX];
	return ov->n != 1 || parse_one(d, d->def, &v, err, sizeof(err), NULL) || v != ov->v[0];
}

void st_config_given_text(const struct st_config *cfg, int id, char *buf, size_t n)
{
	const struct st_opt_def *d = &st_options[id];
	const struct st_optval *ov = &cfg->o[id];
	const char sep[2] = { d->sep ? d->sep : ',', '\0' };
	char v[256];
	size_t off = 0;
	buf[0] = '\0';
	for (int k = 0; k < ov->n && off < n; k++) {
		if (d->type == ST_T_STRING)
			st_copy(v, sizeof(v), st_opt_is_list(d) ? st_optval_str(ov, k) : ov->s);
		else if (d->type == ST_T_FLAG)
			st_copy(v, sizeof(v), "on");
		else
			st_opt_value_text(cfg, id, ov->v[k], v, sizeof(v));
		off += (size_t)snprintf(buf + off, n - off, "%s%s", k ? sep : "", v);
	}
	for (int k = 0; !ov->n && k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t x;
		if (!st_set_lookup(cfg, k, id, &x))
			continue;
		st_opt_value_text(cfg, id, x, v, sizeof(v));
		off = (size_t)snprintf(buf, n, "%s (--set '%s')", v,
				       st_optval_str(&cfg->o[ST_OPT_SET], k));
		break;
	}
	if (off >= n && n >= 4)
		memcpy(buf + n - 4, "...", 4);
}

/* --access means something only with --layout shared: the two are one
 * dimension of the matrix, each access beside shared and one beside every
 * other layout (file-per-thread,shared x segmented,strided: 3, not 4).
 * Its size, or 0 when they are not both given. */
static uint64_t layout_access_size(const struct st_config *cfg)
{
	const struct st_optval *l = &cfg->o[ST_OPT_LAYOUT], *a = &cfg->o[ST_OPT_ACCESS];
	uint64_t n = 0;
	for (int k = 0; a->n && k < l->n; k++)
		n += l->v[k] == ST_LAYOUT_SHARED ? (uint64_t)a->n : 1;
	return n;
}

/* Element r of that dimension into c (beside any layout but shared, no
 * access: the combination is the one without --access). */
static void layout_access(const struct st_config *cfg, uint64_t r, struct st_combo *c)
{
	const struct st_optval *l = &cfg->o[ST_OPT_LAYOUT], *a = &cfg->o[ST_OPT_ACCESS];
	for (int k = 0; k < l->n; k++) {
		uint64_t w = l->v[k] == ST_LAYOUT_SHARED ? (uint64_t)a->n : 1;
		if (r < w) {
			c->v[ST_OPT_LAYOUT] = l->v[k];
			c->v[ST_OPT_ACCESS] = l->v[k] == ST_LAYOUT_SHARED ? a->v[r] : ST_UNSET;
			return;
		}
		r -= w;
	}
}

uint64_t st_plan_combos(const struct st_config *cfg)
{
	uint64_t n = 1, la = layout_access_size(cfg);
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if ((st_options[i].flags & ST_OF_SWEEP) && cfg->o[i].n) {
			if (la && (i == ST_OPT_LAYOUT || i == ST_OPT_ACCESS)) {
				n *= i == ST_OPT_ACCESS ? la : 1;
				continue;
			}
			n *= (uint64_t)cfg->o[i].n;
			if (n > 1000000000ULL)
				return n; /* enough to refuse; avoids overflow */
		}
	return n;
}

void st_plan_combo(const struct st_config *cfg, uint64_t index, struct st_combo *c)
{
	memset(c, 0, sizeof(*c));
	c->version = ST_COMBO_VERSION;
	c->index = (uint32_t)index;
	c->stage = -1;
	/* mixed radix, last sweep option varies fastest */
	uint64_t la = layout_access_size(cfg);
	_Static_assert(ST_OPT_ACCESS == ST_OPT_LAYOUT + 1, "layout and access are one digit");
	for (int i = ST_OPT_COUNT - 1; i >= 0; i--) {
		if (!(st_options[i].flags & ST_OF_SWEEP) || (la && i == ST_OPT_LAYOUT))
			continue;
		if (la && i == ST_OPT_ACCESS) {
			layout_access(cfg, index % la, c);
			index /= la;
			continue;
		}
		uint64_t n = (uint64_t)cfg->o[i].n;
		if (n == 0) {
			c->v[i] = ST_UNSET;
			continue;
		}
		/* a string list's value is its index in the list */
		c->v[i] = st_options[i].type == ST_T_STRING ? (int64_t)(index % n)
							    : cfg->o[i].v[index % n];
		index /= n;
	}
	/* a --set gives its options their values; rwsize is rsize and wsize */
	if (c->v[ST_OPT_SET] != ST_UNSET) {
		int64_t vals[ST_OPT_COUNT];
		char err[ST_ERR_MAX];
		if (!set_parse(st_optval_str(&cfg->o[ST_OPT_SET], (int)c->v[ST_OPT_SET]), vals, err,
			       sizeof(err), NULL))
			for (int i = 0; i < ST_OPT_COUNT; i++)
				if (vals[i] != ST_UNSET)
					c->v[i] = vals[i];
	}
	if (c->v[ST_OPT_RWSIZE] != ST_UNSET)
		c->v[ST_OPT_RSIZE] = c->v[ST_OPT_WSIZE] = c->v[ST_OPT_RWSIZE];
}

const char *st_optval_str(const struct st_optval *ov, int i)
{
	return i >= 0 && i < ov->n ? ov->s + ov->v[i] : "";
}

void st_opt_value_text(const struct st_config *cfg, int id, int64_t v, char *buf, size_t n)
{
	const struct st_opt_def *d = &st_options[id];
	if (v == ST_UNSET) {
		snprintf(buf, n, "-");
		return;
	}
	switch (d->type) {
	case ST_T_STRING:
		/* a set is its name */
		if (id == ST_OPT_SET)
			st_set_name(&cfg->o[id], (int)v, buf, n);
		else
			snprintf(buf, n, "%s", st_optval_str(&cfg->o[id], (int)v));
		break;
	case ST_T_SIZE: st_format_size(v, buf, n); break;
	case ST_T_DURATION: st_format_duration(v, buf, n); break;
	case ST_T_ENUM: snprintf(buf, n, "%s", d->choices[v]); break;
	case ST_T_DATA: st_data_text(v, buf, n); break;
	case ST_T_ERRNO: {
		/* st_errno_name writes num only for a value it has no name for */
		char num[16];
		snprintf(buf, n, "%s", st_errno_name((int)v, num, sizeof(num)));
		break;
	}
	default: snprintf(buf, n, "%lld", (long long)v); break;
	}
}

void st_combo_text(const struct st_config *cfg, const struct st_combo *c, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < ST_OPT_COUNT && off + 1 < n; i++) {
		/* a set's and rwsize's values show as the options they give */
		if (!(st_options[i].flags & ST_OF_SWEEP) || c->v[i] == ST_UNSET || i == ST_OPT_SET ||
		    i == ST_OPT_RWSIZE)
			continue;
		char v[256];
		st_opt_value_text(cfg, i, c->v[i], v, sizeof(v));
		off += (size_t)snprintf(buf + off, n - off, "%s%s=%s", off ? " " : "",
					st_options[i].name, v);
	}
}

unsigned st_config_phases(const struct st_config *cfg)
{
	unsigned m = 0;
	for (int i = 0; i < cfg->o[ST_OPT_PHASES].n; i++)
		m |= 1u << cfg->o[ST_OPT_PHASES].v[i];
	return m;
}
