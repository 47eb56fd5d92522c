/*
 * json.c - SQL of the subcommands' JSON rows, and --percentiles (see json.h).
 */
#include "json.h"

#include "../../common/options.h"
#include "../../common/phaseopt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_pcts_parse(const char *text, struct st_pcts *p, char *err, size_t n)
{
	const char *s = text ? text : ST_PCT_DEFAULT;
	p->n = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		char item[64];
		snprintf(item, sizeof(item), "%.*s", (int)(len < 63 ? len : 63), s);
		char *end;
		errno = 0;
		double q = strtod(item, &end);
		if (len == 0 || len > 32 || *end || errno || !(q > 0 && q < 100)) {
			snprintf(err, n, "'%.*s' is not a percentile (a number above 0 and below 100)",
				 (int)(len < 40 ? len : 40), s);
			return -1;
		}
		if (p->n == ST_PCT_MAX) {
			snprintf(err, n, "more than %d percentiles", ST_PCT_MAX);
			return -1;
		}
		p->q[p->n++] = q;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

void st_pct_label(double q, char *buf, size_t n)
{
	snprintf(buf, n, "p%.10g", q);
}

void st_json_pct_sql(struct st_strbuf *b, double q)
{
	st_strbuf_addf(b,
		       "(SELECT st_hist_quantile(r.hist, r.hist_enc, %.10g) FROM rank_result r "
		       "WHERE r.combo_id = c.combo_id AND r.phase = p.phase AND r.role = 'client')",
		       q / 100.0);
}

void st_opt_col_sql(struct st_strbuf *b, int id, const char *combo, const char *phase)
{
	if (phase && st_phase_key(id))
		st_strbuf_addf(b, "COALESCE(%s\"phase_%s\", %s\"%s\")", phase, st_options[id].name,
			       combo, st_options[id].name);
	else
		st_strbuf_addf(b, "%s\"%s\"", combo, st_options[id].name);
}

void st_json_options_sql(struct st_strbuf *b, const char *prefix)
{
	st_json_options_phase_sql(b, prefix, NULL);
}

void st_json_opt_key(int id, char *key, size_t n)
{
	snprintf(key, n, "%s", st_options[id].name);
	for (char *k = key; *k; k++)
		if (*k == '-')
			*k = '_';
}

void st_json_options_phase_sql(struct st_strbuf *b, const char *prefix, const char *phase)
{
	const char *sep = "";
	st_strbuf_put(b, "json_object(");
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		char key[64];
		st_json_opt_key(i, key, sizeof(key));
		st_strbuf_addf(b, "%s'%s', ", sep, key);
		st_opt_col_sql(b, i, prefix, phase);
		sep = ", ";
	}
	st_strbuf_put(b, ")");
}

void st_json_pcts_sql(struct st_strbuf *b, const struct st_pcts *p)
{
	st_strbuf_put(b, "json_array(");
	for (int i = 0; i < p->n; i++) {
		st_strbuf_addf(b, "%sjson_object('percentile', %.10g, 'ns', ", i ? ", " : "", p->q[i]);
		st_json_pct_sql(b, p->q[i]);
		st_strbuf_put(b, ")");
	}
	st_strbuf_put(b, ")");
}
