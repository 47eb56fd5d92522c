/*
 * advise_print.c - `stcluster advise`: the subcommand, and what advise.c
 * decided as text (table), markdown or JSON, with the line to paste.
 */
#include "advise.h"
#include "json.h"
#include "query.h"
#include "subcmd.h"
#include "where.h"

#include "../../common/options.h"
#include "../../common/strbuf.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "../store/runs.h"
#include "../store/store.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the line to paste ---- */

/* Option id = v as mount(8) -o text: "rsize=1048576", the word of a flag
 * pair ("async", "soft", "noac"), "vers=4.2". */
static void mount_word(const struct st_adv *a, int id, int64_t v, struct st_strbuf *b)
{
	char t[ST_ADV_TEXT];
	st_adv_value(a, id, v, t, sizeof(t));
	const char *sep = b->len ? "," : "";
	if (id == ST_OPT_SYNC || id == ST_OPT_HARD || id == ST_OPT_AC)
		st_strbuf_addf(b, "%s%s", sep, t);
	else if (st_options[id].type == ST_T_SIZE)
		st_strbuf_addf(b, "%s%s=%lld", sep, st_options[id].name, (long long)v);
	else
		st_strbuf_addf(b, "%s%s=%s", sep, st_options[id].name, t);
}

/* " --opt v" for each option of the best in class: an NFS client option
 * (nfs 1: rwsize too, which a mount line has in -o as rsize and wsize) or
 * not (0), varying ones only unless all; rwsize, where set, names rsize
 * and wsize. */
static void option_args(const struct st_adv *a, const struct st_adv_cell *c, int nfs, int all,
			struct st_strbuf *b)
{
	for (int id = 0; id < ST_OPT_COUNT; id++) {
		/* --mount-opts is in the mount line's -o; a set's options are
		 * given, not its name */
		int is_nfs = !!(st_options[id].needs & ST_NEEDS_NFS);
		if (c->v[id] == ST_UNSET || (!all && !a->vary[id]) || is_nfs != nfs ||
		    st_options[id].type == ST_T_STRING || st_adv_implied(c, id))
			continue;
		char t[ST_ADV_TEXT];
		st_adv_value(a, id, c->v[id], t, sizeof(t));
		st_strbuf_addf(b, " --%s %s", st_options[id].name, t);
	}
}

void st_advise_line(const struct st_adv *a, const struct st_adv_phase *p, char *buf, size_t n)
{
	const struct st_config *cfg = a->cfg;
	const struct st_adv_cell *c = &p->cell[p->best];
	struct st_strbuf b = { 0 };
	const char *engine = cfg->o[ST_OPT_ENGINE].n ? cfg->o[ST_OPT_ENGINE].s : "posix";
	if (cfg->o[ST_OPT_MOUNT].n) {
		struct st_strbuf o = { 0 };
		for (int id = 0; id < ST_OPT_COUNT; id++)
			if (c->v[id] != ST_UNSET && (st_options[id].flags & ST_OF_NFS))
				mount_word(a, id, c->v[id], &o);
		if (c->v[ST_OPT_MOUNT_OPTS] != ST_UNSET)
			st_strbuf_addf(&o, "%s%s", o.len ? "," : "",
				       st_optval_str(&cfg->o[ST_OPT_MOUNT_OPTS], (int)c->v[ST_OPT_MOUNT_OPTS]));
		st_strbuf_addf(&b, "mount -t %s%s%s %s %s",
			       cfg->o[ST_OPT_FSTYPE].n ? cfg->o[ST_OPT_FSTYPE].s : "nfs",
			       o.len ? " -o " : "", o.p ? o.p : "", cfg->o[ST_OPT_MOUNT].s,
			       cfg->o[ST_OPT_TARGET].s);
		st_strbuf_release(&o);
		struct st_strbuf w = { 0 };
		option_args(a, c, 0, 0, &w);
		if (w.len)
			st_strbuf_addf(&b, "   (measured with%s)", w.p);
		st_strbuf_release(&w);
	} else {
		st_strbuf_addf(&b, "stcluster --engine %s", engine);
		if (cfg->o[ST_OPT_TARGET].n)
			st_strbuf_addf(&b, " --target '%s'", cfg->o[ST_OPT_TARGET].s);
		option_args(a, c, 1, !strcmp(engine, "libnfs"), &b);
		option_args(a, c, 0, 0, &b);
	}
	st_copy(buf, n, b.oom ? "(out of memory)" : b.p ? b.p : "");
	st_strbuf_release(&b);
}

/* "rsize=1m nconnect=4" for the varying options of cell c. */
static void cell_text(const struct st_adv *a, const struct st_adv_cell *c, const char *sep,
		      char *buf, size_t n)
{
	struct st_strbuf b = { 0 };
	for (int id = 0; id < ST_OPT_COUNT; id++)
		if (a->vary[id]) {
			char t[ST_ADV_TEXT];
			st_adv_value(a, id, c->v[id], t, sizeof(t));
			st_strbuf_addf(&b, "%s%s=%s", b.len ? sep : "", st_options[id].name, t);
		}
	st_copy(buf, n, b.oom ? "?" : b.p ? b.p : "(one combination)");
	st_strbuf_release(&b);
}

static const char *kind_word(enum st_adv_kind k)
{
	return k == ST_ADV_MATTERS ? "matters"
	       : k == ST_ADV_FLAT  ? "does not matter"
	       : k == ST_ADV_UNDECIDED ? "undecided"
				       : "not paired";
}

static const char *class_word(enum st_adv_class c)
{
	return c == ST_ADV_WORSE ? "worse" : c == ST_ADV_SAME ? "within noise" : "undecided";
}

/* ---- text and markdown ---- */

struct pr {
	FILE *out;
	int md;
	const char *unit;
};

/* One labelled line: "  label   text" (table), "- **label**: text" (markdown). */
static void line(const struct pr *o, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void line(const struct pr *o, const char *label, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (o->md)
		fprintf(o->out, "- **%s**: ", label);
	else
		fprintf(o->out, "  %-12s ", label);
	vfprintf(o->out, fmt, ap);
	fputc('\n', o->out);
	va_end(ap);
}

static void print_gain(const struct st_adv *a, const struct st_adv_phase *p, const struct pr *o)
{
	const struct st_adv_cell *b = &p->cell[p->best];
	if (p->ref < 0)
		return;
	char rt[512];
	cell_text(a, &p->cell[p->ref], ", ", rt, sizeof(rt));
	const char *what = p->ref_defaults ? "the defaults" : "the median combination";
	if (p->ref == p->best) {
		line(o, "gain", "the best is %s (%s)", what, rt);
		return;
	}
	const struct st_adv_cell *r = &p->cell[p->ref];
	double pct = r->mean > 0 ? 100 * (b->mean - r->mean) / r->mean : NAN;
	if (!p->ref_ok) {
		line(o, "gain", "%+.1f %% over %s (%s, %.1f %s); significance unknown: fewer than 2 "
				"iterations",
		     pct, what, rt, r->mean, o->unit);
		return;
	}
	line(o, "gain",
	     "%+.1f %% (95 %% interval %+.1f to %+.1f %%) over %s (%s, %.1f %s): %s (Welch's t-test "
	     "over the iterations, p = %.2g)",
	     pct, 100 * p->vs.lo / r->mean, 100 * p->vs.hi / r->mean, what, rt, r->mean, o->unit,
	     p->vs.p < 0.05 ? "significant" : "not significant, within noise", p->vs.p);
}

static void print_option(const struct st_adv *a, const struct st_adv_phase *p,
			 const struct st_adv_option *op, const struct pr *o)
{
	struct st_strbuf b = { 0 };
	char bv[ST_ADV_TEXT];
	st_adv_value(a, op->id, p->cell[p->best].v[op->id], bv, sizeof(bv));
	st_strbuf_addf(&b, "%s: %s (best %s", st_options[op->id].name, kind_word(op->kind), bv);
	for (int t = 0; t < op->nalt; t++) {
		const struct st_adv_alt *x = &op->alt[t];
		char v[ST_ADV_TEXT];
		st_adv_value(a, op->id, x->v, v, sizeof(v));
		st_strbuf_addf(&b, "; %s %+.1f %%", v, x->pct);
		if (!isnan(x->lo_pct))
			st_strbuf_addf(&b, " [%+.1f, %+.1f] p = %.2g", x->lo_pct, x->hi_pct, x->p);
		st_strbuf_addf(&b, " %s", class_word(x->cls));
	}
	if (op->kind == ST_ADV_UNPAIRED)
		st_strbuf_put(&b, "; no combination differs from the best in it alone");
	st_strbuf_put(&b, ")");
	line(o, "option", "%s", b.oom ? "(out of memory)" : b.p);
	st_strbuf_release(&b);
}

static void print_inter(const struct st_adv *a, const struct st_adv_phase *p, const struct pr *o)
{
	const struct st_adv_cell *b = &p->cell[p->best];
	for (int k = 0; k < p->ninter; k++) {
		const struct st_adv_inter *it = &p->inter[k];
		char a2[ST_ADV_TEXT], a1[ST_ADV_TEXT], b1[ST_ADV_TEXT], b2[ST_ADV_TEXT];
		st_adv_value(a, it->a, it->a2, a2, sizeof(a2));
		st_adv_value(a, it->a, b->v[it->a], a1, sizeof(a1));
		st_adv_value(a, it->b, b->v[it->b], b1, sizeof(b1));
		st_adv_value(a, it->b, it->b2, b2, sizeof(b2));
		line(o, "interaction",
		     "%s x %s interact: %s %s -> %s gains %+.1f %% at %s=%s, %+.1f %% at %s=%s "
		     "(p = %.2g, Bonferroni over %d tests)",
		     st_options[it->a].name, st_options[it->b].name, st_options[it->a].name, a2, a1,
		     it->gain_best, st_options[it->b].name, b1, it->gain_other,
		     st_options[it->b].name, b2, it->p, p->ntests);
	}
	if (!p->ninter && p->ntests)
		line(o, "interaction", "none beyond the noise (%d tests)", p->ntests);
	else if (!p->ninter)
		line(o, "interaction", "none tested (no 2 x 2 of combinations with 2 iterations "
				       "each around the best)");
}

static void print_bottleneck(const struct st_adv_phase *p, const struct pr *o)
{
	const struct st_adv_cell *b = &p->cell[p->best];
	if (!b->verdict[0] && isnan(b->pct_limit)) {
		line(o, "bottleneck", "not measured (the run has no baselines)");
		return;
	}
	if (!isnan(b->pct_limit) && b->pct_limit >= 90)
		line(o, "bottleneck", "%s: at %.0f %% of the measured limit, further tuning of the "
				      "client will not help",
		     b->verdict, b->pct_limit);
	else
		line(o, "bottleneck", "%s", b->verdict[0] ? b->verdict : "-");
}

static void print_phase(const struct st_adv *a, const struct st_adv_phase *p, const struct pr *o)
{
	fprintf(o->out, o->md ? "\n### %s\n\n" : "phase %s\n", p->phase);
	if (p->best < 0) {
		line(o, "best", "no figures: every iteration of every combination failed");
		return;
	}
	const struct st_adv_cell *b = &p->cell[p->best];
	char l[2048], ct[512];
	st_advise_line(a, p, l, sizeof(l));
	cell_text(a, b, " ", ct, sizeof(ct));
	line(o, "use", o->md ? "`%s`" : "%s", l);
	if (isnan(p->ci))
		line(o, "expect", "%.1f %s with %s (1 iteration: no interval)", b->mean, o->unit, ct);
	else if (b->mean - p->ci < 0) /* no throughput is below 0: the noise is too large */
		line(o, "expect", "%.1f %s, 95 %% interval up to %.1f, its lower end below 0: too wide "
				  "to use (%d iterations), with %s",
		     b->mean, o->unit, b->mean + p->ci, b->n, ct);
	else
		line(o, "expect", "%.1f %s, 95 %% interval %.1f to %.1f (%d iterations), with %s",
		     b->mean, o->unit, b->mean - p->ci, b->mean + p->ci, b->n, ct);
	print_gain(a, p, o);
	for (int k = 0; k < p->nopt; k++)
		print_option(a, p, &p->opt[k], o);
	print_inter(a, p, o);
	print_bottleneck(p, o);
	if (p->next_iters)
		line(o, "undecided", "next run: %s (%lld combination%s)%s", p->next_run,
		     (long long)p->next_combos, p->next_combos == 1 ? "" : "s",
		     b->n < 2 ? "; the noise is unknown with 1 iteration" : "");
	else
		line(o, "undecided", "nothing: every option is decided at %d iterations", b->n);
}

/* ---- --format json: sql/schema.json's advise document, in base units ---- */

static void js_num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.15g", v);
}

static void js_pair(FILE *out, double lo, double hi)
{
	if (isnan(lo) || isnan(hi)) {
		fputs("null", out);
		return;
	}
	fputc('[', out);
	js_num(out, lo);
	fputc(',', out);
	js_num(out, hi);
	fputc(']', out);
}

/* A phase's figure in base units: MB/s as bytes per second (ops/s as it is). */
static double js_base(const struct st_adv_phase *p, double v)
{
	return p->ops ? v : v * 1e6;
}

/* An option's value as report's options objects give it: sizes, counts and
 * durations as integers (bytes, ns), words as text, unset as null. */
static void js_value(const struct st_adv *a, int id, int64_t v, FILE *out)
{
	enum st_opt_type t = st_options[id].type;
	if (v == ST_UNSET) {
		fputs("null", out);
	} else if (t == ST_T_SIZE || t == ST_T_COUNT || t == ST_T_DURATION) {
		fprintf(out, "%lld", (long long)v);
	} else {
		char text[ST_ADV_TEXT];
		st_adv_value(a, id, v, text, sizeof(text));
		st_json_string(out, text);
	}
}

static void js_key(int id, FILE *out)
{
	char key[64];
	st_json_opt_key(id, key, sizeof(key));
	st_json_string(out, key);
}

/* Every sweep option of the combination (null where unset), as report's. */
static void js_options(const struct st_adv *a, const struct st_adv_cell *c, FILE *out)
{
	fputc('{', out);
	int first = 1;
	for (int id = 0; id < ST_OPT_COUNT; id++)
		if (st_options[id].flags & ST_OF_SWEEP) {
			fputs(first ? "" : ",", out);
			js_key(id, out);
			fputc(':', out);
			js_value(a, id, c->v[id], out);
			first = 0;
		}
	fputc('}', out);
}

static void js_reference(const struct st_adv *a, const struct st_adv_phase *p, FILE *out)
{
	if (p->ref < 0 || p->best < 0) {
		fputs("null", out);
		return;
	}
	const struct st_adv_cell *r = &p->cell[p->ref], *b = &p->cell[p->best];
	fprintf(out, "{\"kind\":\"%s\",\"options\":", p->ref_defaults ? "defaults" : "median");
	js_options(a, r, out);
	fputs(",\"figure\":", out);
	js_num(out, js_base(p, r->mean));
	fputs(",\"gain_pct\":", out);
	js_num(out, r->mean > 0 ? 100 * (b->mean - r->mean) / r->mean : NAN);
	fputs(",\"gain_ci95_pct\":", out);
	if (p->ref_ok && r->mean > 0)
		js_pair(out, 100 * p->vs.lo / r->mean, 100 * p->vs.hi / r->mean);
	else
		fputs("null", out);
	fputs(",\"p\":", out);
	js_num(out, p->ref_ok ? p->vs.p : NAN);
	fprintf(out, ",\"significant\":%s}",
		!p->ref_ok ? "null" : p->vs.p < 0.05 ? "true" : "false");
}

static void js_option(const struct st_adv *a, const struct st_adv_phase *p,
		      const struct st_adv_option *op, FILE *out)
{
	fputs("{\"option\":", out);
	js_key(op->id, out);
	fprintf(out, ",\"verdict\":\"%s\",\"best\":", kind_word(op->kind));
	js_value(a, op->id, p->cell[p->best].v[op->id], out);
	fputs(",\"values\":[", out);
	for (int t = 0; t < op->nalt; t++) {
		const struct st_adv_alt *x = &op->alt[t];
		fprintf(out, "%s{\"value\":", t ? "," : "");
		js_value(a, op->id, x->v, out);
		fprintf(out, ",\"iterations\":%d,\"figure\":", x->n);
		js_num(out, js_base(p, x->mean));
		fputs(",\"diff_pct\":", out);
		js_num(out, x->pct);
		fputs(",\"diff_ci95_pct\":", out);
		js_pair(out, x->lo_pct, x->hi_pct);
		fputs(",\"p\":", out);
		js_num(out, x->p);
		fprintf(out, ",\"class\":\"%s\"}", class_word(x->cls));
	}
	fputs("]}", out);
}

static void js_inter(const struct st_adv *a, const struct st_adv_phase *p, FILE *out)
{
	fputc('[', out);
	for (int k = 0; k < p->ninter; k++) {
		const struct st_adv_inter *it = &p->inter[k];
		fputs(k ? ",{\"options\":[" : "{\"options\":[", out);
		js_key(it->a, out);
		fputc(',', out);
		js_key(it->b, out);
		fputs("],\"from\":", out);
		js_value(a, it->a, it->a2, out);
		fputs(",\"other\":", out);
		js_value(a, it->b, it->b2, out);
		fputs(",\"gain_pct_at_best\":", out);
		js_num(out, it->gain_best);
		fputs(",\"gain_pct_at_other\":", out);
		js_num(out, it->gain_other);
		fputs(",\"p\":", out);
		js_num(out, it->p);
		fputc('}', out);
	}
	fprintf(out, "],\"interaction_tests\":%d,\"comparisons\":%d", p->ntests, p->ncomparisons);
}

/* The best combination, its command line and what the run says of it
 * (null, [] and 0 for a phase with no combination that measured). */
static void js_best(const struct st_adv *a, const struct st_adv_phase *p, FILE *out)
{
	if (p->best < 0) {
		fputs("\"best\":null,\"line\":null", out);
		return;
	}
	const struct st_adv_cell *b = &p->cell[p->best];
	fputs("\"best\":{\"options\":", out);
	js_options(a, b, out);
	fputs(",\"figure\":", out);
	js_num(out, js_base(p, b->mean));
	fputs(",\"ci95\":", out);
	js_pair(out, js_base(p, b->mean - p->ci), js_base(p, b->mean + p->ci));
	fprintf(out, ",\"iterations\":%d},\"line\":", b->n);
	char l[2048];
	st_advise_line(a, p, l, sizeof(l));
	st_json_string(out, l);
}

static void js_phase(const struct st_adv *a, const struct st_adv_phase *p, FILE *out)
{
	fprintf(out, "{\"phase\":\"%s\",\"figure_unit\":\"%s\",", p->phase,
		p->ops ? "ops_per_s" : "bytes_per_s");
	js_best(a, p, out);
	fputs(",\"reference\":", out);
	js_reference(a, p, out);
	fputs(",\"options\":[", out);
	for (int k = 0; p->best >= 0 && k < p->nopt; k++) {
		if (k)
			fputc(',', out);
		js_option(a, p, &p->opt[k], out);
	}
	fputs("],\"interactions\":", out);
	js_inter(a, p, out);
	const struct st_adv_cell *b = p->best >= 0 ? &p->cell[p->best] : NULL;
	fputs(",\"bottleneck\":", out);
	if (b && (b->verdict[0] || !isnan(b->pct_limit))) {
		fputs("{\"verdict\":", out);
		st_json_string(out, b->verdict);
		fputs(",\"pct_of_limit\":", out);
		js_num(out, b->pct_limit);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs(",\"next_run\":", out);
	if (b && p->next_iters) {
		fputs("{\"arguments\":", out);
		st_json_string(out, p->next_run);
		fprintf(out, ",\"combinations\":%lld,\"iterations\":%d}", (long long)p->next_combos,
			p->next_iters);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

static int js_document(const struct st_adv *a, FILE *out)
{
	fprintf(out, "{\"schema_version\":%d,\"command\":\"advise\",\"run_id\":",
		ST_JSON_SCHEMA_VERSION);
	st_json_string(out, a->run);
	fprintf(out, ",\"summary\":{\"test\":\"welch\",\"alpha\":0.05,\"margin_pct\":%g,\"shuffled\":%s,",
		100 * ST_ADV_MARGIN, a->cfg->o[ST_OPT_SHUFFLE].n ? "true" : "false");
	if (a->stage >= 0)
		fprintf(out, "\"search_stage\":%d},\"rows\":[", a->stage);
	else
		fputs("\"search_stage\":null},\"rows\":[", out);
	for (int k = 0; k < a->nphase; k++) {
		if (k)
			fputc(',', out);
		js_phase(a, &a->ph[k], out);
	}
	fputs("]}\n", out);
	return ferror(out) ? 1 : 0;
}

int st_advise_print(const struct st_adv *a, int json, int markdown, FILE *out)
{
	if (json)
		return js_document(a, out);
	fprintf(out, markdown ? "## advise: run %s\n\n" : "advise: run %s\n", a->title);
	fprintf(out, "%sdecided by Welch's t-test over the iterations at 95 %%: each value against the "
		     "best, the other\n%soptions as the best's; within noise: the difference's 95 %% "
		     "interval inside +-%g %%; Bonferroni over\n%sa phase's comparisons and, on the log "
		     "scale, its interaction tests%s\n",
		markdown ? "" : "(", markdown ? "" : " ", 100 * ST_ADV_MARGIN, markdown ? "" : " ",
		markdown ? "" : ")");
	if (a->stage > 0)
		fprintf(out, "%sa --search halving run: from its stage %d, the last, at full length; the "
			     "shorter runs of\n%sstages 0-%d only chose what it measured%s\n",
			markdown ? "\n" : "(", a->stage, markdown ? "" : " ", a->stage - 1,
			markdown ? "" : ")");
	if (!a->cfg->o[ST_OPT_SHUFFLE].n)
		fprintf(out, "%sthe run had no --shuffle: a combination's iterations ran back to back, "
			     "and a burst of load\n%son the machine may have hit them all%s\n",
			markdown ? "\n" : "(", markdown ? "" : " ", markdown ? "" : ")");
	for (int k = 0; k < a->nphase; k++) {
		struct pr o = { .out = out, .md = markdown, .unit = a->ph[k].ops ? "ops/s" : "MB/s" };
		print_phase(a, &a->ph[k], &o);
	}
	return ferror(out) ? 1 : 0;
}

/* ---- the subcommand ---- */

int st_cmd_advise(const struct st_subargs *a)
{
	char where[4096], err[ST_ERR_MAX], run[64];
	if (a->where && !a->where[strspn(a->where, " \t\n")]) {
		fprintf(stderr, "stcluster advise: --where: empty expression\n");
		return 2;
	}
	if (a->where && st_where_translate(a->where, where, sizeof(where), err, sizeof(err))) {
		fprintf(stderr, "stcluster advise: --where: %s\n", err);
		return 2;
	}
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	sqlite3 *db = st_store_db(s);
	if (st_run_resolve(db, a->run, run, sizeof(run), err, sizeof(err))) {
		fprintf(stderr, "stcluster advise: --run: %s\n", err);
		st_store_close(s);
		return 2;
	}
	struct st_adv *adv = calloc(1, sizeof(*adv));
	int rc = 1;
	if (!adv) {
		fprintf(stderr, "stcluster advise: out of memory\n");
	} else if (st_advise_load(db, run, a->phase, a->where ? where : NULL, adv, err,
				  sizeof(err))) {
		fprintf(stderr, "stcluster advise: %s%s\n", a->where ? "--where: " : "", err);
		rc = a->where ? 2 : 1;
	} else {
		st_run_title(db, run, adv->title, sizeof(adv->title));
		rc = st_advise_print(adv, a->format == ST_FMT_JSON, a->format == ST_FMT_MARKDOWN,
				     stdout);
		if (!adv->nphase)
			fprintf(stderr, "stcluster advise: run %.8s has no figures%s%s\n", run,
				a->phase || a->where ? " for " : "",
				a->phase && a->where ? "that phase and --where"
				: a->phase	     ? "that phase"
				: a->where	     ? "--where"
						     : "");
	}
	if (adv)
		st_advise_free(adv);
	free(adv);
	st_store_close(s);
	return rc;
}
