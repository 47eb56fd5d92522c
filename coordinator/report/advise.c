/*
 * advise.c - what `stcluster advise` decides (see advise.h): a run's
 * figures per phase and combination, the best, the reference it is
 * measured against, which options matter, which interact, and the
 * smallest next run that would decide what is left.
 */
#include "advise.h"
#include "query.h"
#include "json.h"

#include "../../common/options.h"
#include "../../common/strbuf.h"
#include "../../common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 0.05

/* An option advise reads: every sweep option, a word of text (--mount-opts,
 * --set) as its index in the run's plan, as a combination holds it. */
static int loaded(int id)
{
	return (st_options[id].flags & ST_OF_SWEEP) != 0;
}

/* An option advise analyses: each but --set, whose options are (the values
 * a set gives are the ones to paste; its name is shown beside them) */
static int analysed(int id)
{
	return loaded(id) && id != ST_OPT_SET;
}

double st_adv_sd(const struct st_adv_cell *c)
{
	return c->n > 1 ? sqrt(c->m2 / (c->n - 1)) : NAN;
}

void st_adv_value(const struct st_adv *a, int id, int64_t v, char *buf, size_t n)
{
	st_opt_value_text(a->cfg, id, v, buf, n);
}

int st_adv_implied(const struct st_adv_cell *c, int id)
{
	return (id == ST_OPT_RSIZE || id == ST_OPT_WSIZE) && c->v[ST_OPT_RWSIZE] != ST_UNSET;
}

/* Does option id take its value from another in every cell (rsize and
 * wsize under --rwsize): one dimension, judged as that one? */
static int implied_everywhere(const struct st_adv *a, int id)
{
	int any = 0;
	for (int k = 0; k < a->nphase; k++)
		for (int c = 0; c < a->ph[k].ncell; c++) {
			if (!st_adv_implied(&a->ph[k].cell[c], id))
				return 0;
			any = 1;
		}
	return any;
}

/* ---- loading ---- */

struct loader {
	struct st_adv *a;
	int cols[ST_OPT_COUNT]; /* option ids in column order, from column 5 */
	int ncols;
	int oom;
};

/* The index in the plan's list of option id's text t (a set by its name);
 * ST_UNSET when the plan does not have it. */
static int64_t text_index(const struct st_config *cfg, int id, const char *t)
{
	const struct st_optval *ov = &cfg->o[id];
	for (int k = 0; k < ov->n; k++) {
		char name[ST_ERR_MAX];
		const char *x = id == ST_OPT_SET ? st_set_name(ov, k, name, sizeof(name))
						 : st_optval_str(ov, k);
		if (x && !strcmp(x, t))
			return k;
	}
	return ST_UNSET;
}

/* The value of an option's column: an integer as it is, a word as its
 * parser reads it, text as its index in the plan, NULL unset. */
static int64_t column_value(const struct st_config *cfg, sqlite3_stmt *row, int col, int id)
{
	if (sqlite3_column_type(row, col) == SQLITE_NULL)
		return ST_UNSET;
	if (sqlite3_column_type(row, col) == SQLITE_INTEGER)
		return sqlite3_column_int64(row, col);
	const char *t = (const char *)sqlite3_column_text(row, col);
	if (t && st_options[id].type == ST_T_STRING)
		return text_index(cfg, id, t);
	char err[ST_ERR_MAX];
	int64_t v;
	return t && st_opt_parse_value(id, t, &v, err, sizeof(err)) == 0 ? v : ST_UNSET;
}

/* The phase named by row's column 0, appended when it is new. */
static struct st_adv_phase *row_phase(struct st_adv *a, const char *name)
{
	if (a->nphase && !strcmp(a->ph[a->nphase - 1].phase, name))
		return &a->ph[a->nphase - 1];
	if (a->nphase == ST_PHASE_COUNT)
		return NULL;
	struct st_adv_phase *p = &a->ph[a->nphase++];
	memset(p, 0, sizeof(*p));
	st_copy(p->phase, sizeof(p->phase), name);
	p->ops = 0; /* a metadata phase: its figure is operations per second */
	for (int k = 0; k < ST_PHASE_COUNT; k++)
		if (!strcmp(name, st_phase_names[k]))
			p->ops = ((1u << k) & ST_PHASES_META) != 0;
	p->ref = -1;
	return p;
}

/* Columns: phase, matrix_index, figure, pct_of_limit, verdict, options. */
static int load_row(sqlite3_stmt *row, void *ctx)
{
	struct loader *l = ctx;
	const char *name = (const char *)sqlite3_column_text(row, 0);
	struct st_adv_phase *p = row_phase(l->a, name ? name : "?");
	if (!p)
		return 0;
	int64_t index = sqlite3_column_int64(row, 1);
	if (!p->ncell || p->cell[p->ncell - 1].index != index) {
		if ((p->ncell & (p->ncell - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
			void *m = realloc(p->cell, sizeof(*p->cell) * (p->ncell ? 2 * p->ncell : 1));
			if (!m)
				return -1;
			p->cell = m;
		}
		struct st_adv_cell *c = &p->cell[p->ncell++];
		memset(c, 0, sizeof(*c));
		c->index = index;
		for (int i = 0; i < ST_OPT_COUNT; i++)
			c->v[i] = ST_UNSET;
		for (int k = 0; k < l->ncols; k++)
			c->v[l->cols[k]] = column_value(l->a->cfg, row, 5 + k, l->cols[k]);
		c->pct_limit = NAN;
	}
	struct st_adv_cell *c = &p->cell[p->ncell - 1];
	if (sqlite3_column_type(row, 2) != SQLITE_NULL) {
		double x = sqlite3_column_double(row, 2), d = x - c->mean;
		c->n++;
		c->mean += d / c->n;
		c->m2 += d * (x - c->mean);
	}
	if (sqlite3_column_type(row, 3) != SQLITE_NULL) { /* the mean over the iterations */
		double x = sqlite3_column_double(row, 3);
		c->npct++;
		c->pct_limit = c->npct == 1 ? x : c->pct_limit + (x - c->pct_limit) / c->npct;
	}
	const char *v = (const char *)sqlite3_column_text(row, 4);
	if (v && !c->verdict[0])
		st_copy(c->verdict, sizeof(c->verdict), v);
	return 0;
}

static int load_rows(sqlite3 *db, const char *run, const char *phase, const char *where,
		     struct st_adv *a, char *err, size_t n)
{
	struct loader l = { .a = a };
	struct st_strbuf b = { 0 };
	st_strbuf_put(&b, "SELECT p.phase, c.matrix_index, CASE WHEN p.status = 'ok' THEN CASE WHEN "
			  ST_JSON_META("p.phase") " THEN s.iops ELSE "
			  "s.agg_mbps END END, v.pct_of_limit, v.verdict");
	/* a phase's own values (a [phase] section) are the options it ran with */
	const char *own = st_query_phase_values(db) ? "p." : NULL;
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (loaded(i)) {
			st_strbuf_put(&b, ", ");
			st_opt_col_sql(&b, i, "c.", own);
			l.cols[l.ncols++] = i;
		}
	st_strbuf_put(&b, " FROM combo c JOIN phase_run p ON p.combo_id = c.combo_id "
			  "LEFT JOIN phase_summary s ON s.combo_id = p.combo_id AND s.phase = p.phase "
			  "LEFT JOIN verdict v ON v.combo_id = p.combo_id AND v.phase = p.phase "
			  "WHERE c.run_id = :run AND c.status <> 'skipped' AND p.status <> 'skipped' "
			  "AND (:phase IS NULL OR p.phase = :phase) AND (c.stage IS NULL OR c.stage = "
			  "(SELECT MAX(stage) FROM combo WHERE run_id = :run))");
	if (where)
		st_strbuf_addf(&b, " AND c.combo_id IN (SELECT combo_id FROM combo WHERE run_id = "
				   ":run AND (%s))",
			       where);
	st_strbuf_put(&b, " ORDER BY p.phase_order, c.matrix_index, c.iteration");
	struct st_qparams q = { .scope = "run_id = :run", .run = run, .phase = phase };
	long rows = st_query_rows(db, b.oom ? NULL : b.p, &q, load_row, &l, err, n);
	st_strbuf_release(&b);
	return rows < 0 ? -1 : 0;
}

/* The run's stored plan, parsed: what its options were (engine, target,
 * mount) and how their values are written. */
static int load_plan(sqlite3 *db, const char *run, struct st_adv *a, char *err, size_t n)
{
	sqlite3_stmt *st;
	struct st_qparams q = { .run = run };
	if (st_query_prepare(db, "SELECT plan FROM run WHERE run_id = :run", &q, &st, err, n))
		return -1;
	a->cfg = malloc(sizeof(*a->cfg));
	if (!a->cfg) {
		sqlite3_finalize(st);
		snprintf(err, n, "out of memory");
		return -1;
	}
	st_config_defaults(a->cfg);
	int rc = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		char perr[ST_ERR_MAX];
		/* a plan an older stcluster wrote may not parse whole: the
		 * defaults then stand for what it does not give */
		if (st_config_parse_plan(a->cfg, (const char *)sqlite3_column_text(st, 0), "plan",
					 perr, sizeof(perr)))
			st_config_defaults(a->cfg);
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- deciding ---- */

/* The cell of phase p with the values of `like` but option id (and id2,
 * when >= 0) set to v (v2); -1 none. */
static int find_cell(const struct st_adv *a, const struct st_adv_phase *p, const int64_t *like,
		     int id, int64_t v, int id2, int64_t v2)
{
	for (int c = 0; c < p->ncell; c++) {
		const int64_t *x = p->cell[c].v;
		int same = x[id] == v && (id2 < 0 || x[id2] == v2);
		for (int i = 0; i < ST_OPT_COUNT && same; i++)
			if (a->vary[i] && i != id && i != id2)
				same = x[i] == like[i];
		if (same)
			return c;
	}
	return -1;
}

/* Which options take two values or more in some phase. */
static void find_varying(struct st_adv *a)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		/* a halving run's last stage holds the few its stages kept: an option
		 * its plan sweeps is one the run chose, constant there or not */
		if (implied_everywhere(a, i))
			continue;
		a->vary[i] = a->stage >= 0 && analysed(i) && a->cfg->o[i].n > 1;
		a->nvary += a->vary[i];
		if (a->vary[i])
			continue;
		for (int k = 0; k < a->nphase && !a->vary[i]; k++)
			for (int c = 1; c < a->ph[k].ncell && analysed(i); c++)
				if (a->ph[k].cell[c].v[i] != a->ph[k].cell[0].v[i]) {
					a->vary[i] = 1;
					break;
				}
		a->nvary += a->vary[i];
	}
}

/* An alternative cell against the best; worse when p < alpha. */
static void judge_alt(const struct st_adv_cell *best, const struct st_adv_cell *c, double alpha,
		      struct st_adv_alt *alt)
{
	alt->n = c->n;
	alt->mean = c->mean;
	alt->pct = best->mean > 0 ? 100 * (c->mean - best->mean) / best->mean : NAN;
	alt->lo_pct = alt->hi_pct = alt->p = NAN;
	alt->cls = ST_ADV_OPEN;
	struct st_welch w;
	if (best->mean <= 0 || c->n == 0 ||
	    st_welch_test(best->mean, st_adv_sd(best), best->n, c->mean, st_adv_sd(c), c->n, &w))
		return;
	alt->p = w.p;
	alt->lo_pct = 100 * w.lo / best->mean;
	alt->hi_pct = 100 * w.hi / best->mean;
	/* within the margin first: a difference shown to be under it does not
	 * matter, even where it is shown not to be 0 */
	if (alt->lo_pct >= -100 * ST_ADV_MARGIN && alt->hi_pct <= 100 * ST_ADV_MARGIN)
		alt->cls = ST_ADV_SAME;
	else if (w.p < alpha && w.diff < 0)
		alt->cls = ST_ADV_WORSE;
}

/* The cell of each alternative value of option id at the best's other
 * values, into alts[] (at most ST_MAX_VALUES); how many. */
static int alternatives(const struct st_adv *a, const struct st_adv_phase *p, int id, int alts[])
{
	const struct st_adv_cell *best = &p->cell[p->best];
	int m = 0;
	for (int c = 0; c < p->ncell && m < ST_MAX_VALUES; c++) {
		const struct st_adv_cell *x = &p->cell[c];
		if (x->v[id] != best->v[id] && find_cell(a, p, best->v, id, x->v[id], -1, 0) == c)
			alts[m++] = c;
	}
	return m;
}

/* Each varying option at the best's other values; "worse" at p < 0.05
 * over the comparisons of the phase (Bonferroni). */
static void judge_options(const struct st_adv *a, struct st_adv_phase *p)
{
	const struct st_adv_cell *best = &p->cell[p->best];
	int alts[ST_MAX_VALUES];
	p->ncomparisons = 0;
	for (int id = 0; id < ST_OPT_COUNT; id++)
		if (a->vary[id])
			p->ncomparisons += alternatives(a, p, id, alts);
	double alpha = ALPHA / (p->ncomparisons ? p->ncomparisons : 1);
	for (int id = 0; id < ST_OPT_COUNT; id++) {
		if (!a->vary[id])
			continue;
		struct st_adv_option *o = &p->opt[p->nopt++];
		o->id = id;
		o->nalt = alternatives(a, p, id, alts);
		int worse = 0, same = 0;
		for (int k = 0; k < o->nalt; k++) {
			struct st_adv_alt *alt = &o->alt[k];
			alt->v = p->cell[alts[k]].v[id];
			judge_alt(best, &p->cell[alts[k]], alpha, alt);
			worse += alt->cls == ST_ADV_WORSE;
			same += alt->cls == ST_ADV_SAME;
		}
		o->kind = !o->nalt	      ? ST_ADV_UNPAIRED
			  : worse	      ? ST_ADV_MATTERS
			  : same == o->nalt ? ST_ADV_FLAT
					      : ST_ADV_UNDECIDED;
	}
}

/* ln of a cell's mean and the variance of that estimate (delta method);
 * -1 when it has fewer than 2 iterations or no figure. */
static int log_mean(const struct st_adv_cell *c, double *l, double *var)
{
	if (c->n < 2 || c->mean <= 0)
		return -1;
	double sd = st_adv_sd(c);
	*l = log(c->mean);
	*var = sd * sd / (c->n * c->mean * c->mean);
	return 0;
}

/* The interaction contrast of options i, j at the best, for alternatives
 * vi, vj: 0 and *it filled (p, the gains), or -1 (a cell is missing). */
static int contrast(const struct st_adv *a, const struct st_adv_phase *p, int i, int64_t vi, int j,
		    int64_t vj, struct st_adv_inter *it)
{
	const struct st_adv_cell *best = &p->cell[p->best];
	int k[4] = { p->best, find_cell(a, p, best->v, i, vi, -1, 0),
		     find_cell(a, p, best->v, j, vj, -1, 0),
		     find_cell(a, p, best->v, i, vi, j, vj) };
	double l[4], var[4], se2 = 0, df = 0;
	for (int c = 0; c < 4; c++) {
		if (k[c] < 0 || log_mean(&p->cell[k[c]], &l[c], &var[c]))
			return -1;
		se2 += var[c];
		df += p->cell[k[c]].n - 1;
	}
	double x = l[0] - l[1] - l[2] + l[3];
	it->a = i;
	it->b = j;
	it->a2 = vi;
	it->b2 = vj;
	it->gain_best = 100 * (exp(l[0] - l[1]) - 1);
	it->gain_other = 100 * (exp(l[2] - l[3]) - 1);
	it->p = se2 > 0 ? st_t_p2(x / sqrt(se2), df) : (x != 0 ? 0 : 1);
	return 0;
}

/* Every pair of varying options, every pair of alternatives; keep each
 * pair's strongest, then those that pass Bonferroni over all tests. */
static void judge_interactions(const struct st_adv *a, struct st_adv_phase *p)
{
	struct st_adv_inter found[ST_ADV_INTER];
	int nfound = 0;
	for (int x = 0; x < p->nopt; x++)
		for (int y = x + 1; y < p->nopt; y++) {
			struct st_adv_inter strongest = { .p = 2 };
			const struct st_adv_option *o = &p->opt[x], *q = &p->opt[y];
			for (int s = 0; s < o->nalt; s++)
				for (int t = 0; t < q->nalt; t++) {
					struct st_adv_inter it;
					if (contrast(a, p, o->id, o->alt[s].v, q->id, q->alt[t].v, &it))
						continue;
					p->ntests++;
					if (it.p < strongest.p)
						strongest = it;
				}
			if (strongest.p <= 1 && nfound < ST_ADV_INTER)
				found[nfound++] = strongest;
		}
	for (int f = 0; f < nfound; f++)
		if (found[f].p < ALPHA / (p->ntests ? p->ntests : 1))
			p->inter[p->ninter++] = found[f];
}

/* The default of option id, where stcluster or nfs(5) on Linux has one:
 * 1 and *v, or 0. */
static int default_of(int id, int64_t *v)
{
	static const struct {
		int id;
		const char *v;
	} nfs[] = {
		{ ST_OPT_VERS, "4.2" }, { ST_OPT_PROTO, "tcp" },  { ST_OPT_RSIZE, "1m" },
		{ ST_OPT_WSIZE, "1m" }, { ST_OPT_SYNC, "async" }, { ST_OPT_HARD, "hard" },
		{ ST_OPT_TIMEO, "600" }, { ST_OPT_RETRANS, "2" },  { ST_OPT_NCONNECT, "1" },
		{ ST_OPT_AC, "ac" },
	};
	char err[ST_ERR_MAX];
	const char *t = st_options[id].def;
	for (size_t i = 0; i < ST_ARRAY_LEN(nfs); i++)
		if (nfs[i].id == id)
			t = nfs[i].v;
	return t && st_opt_parse_value(id, t, v, err, sizeof(err)) == 0;
}

static int by_mean(const void *x, const void *y)
{
	double a = ((const struct st_adv_cell *)x)->mean, b = ((const struct st_adv_cell *)y)->mean;
	return a < b ? -1 : a > b;
}

/* The reference: the combination of the defaults, else the median one. */
static void find_reference(const struct st_adv *a, struct st_adv_phase *p)
{
	for (int c = 0; c < p->ncell && p->ref < 0; c++) {
		int is = p->cell[c].n > 0;
		for (int i = 0; i < ST_OPT_COUNT && is; i++) {
			int64_t d;
			if (a->vary[i])
				is = default_of(i, &d) && p->cell[c].v[i] == d;
		}
		if (is) {
			p->ref = c;
			p->ref_defaults = 1;
		}
	}
	if (p->ref < 0) {
		struct st_adv_cell *sorted = malloc(sizeof(*sorted) * (size_t)p->ncell);
		int m = 0;
		for (int c = 0; sorted && c < p->ncell; c++)
			if (p->cell[c].n > 0)
				sorted[m++] = p->cell[c];
		if (m) {
			qsort(sorted, (size_t)m, sizeof(*sorted), by_mean);
			for (int c = 0; c < p->ncell; c++)
				if (p->cell[c].index == sorted[(m - 1) / 2].index)
					p->ref = c;
		}
		free(sorted);
	}
	const struct st_adv_cell *b = &p->cell[p->best];
	if (p->ref >= 0 && p->ref != p->best) {
		const struct st_adv_cell *r = &p->cell[p->ref];
		p->ref_ok = !st_welch_test(r->mean, st_adv_sd(r), r->n, b->mean, st_adv_sd(b), b->n,
					   &p->vs);
	}
}

/* The relative variance (sd / mean)^2 of the figure pooled over the cells
 * of phase p with 2 iterations or more; NAN none. */
static double pooled_rel_var(const struct st_adv_phase *p)
{
	double ss = 0;
	int df = 0;
	for (int c = 0; c < p->ncell; c++) {
		const struct st_adv_cell *x = &p->cell[c];
		if (x->n > 1 && x->mean > 0) {
			ss += x->m2 / (x->mean * x->mean);
			df += x->n - 1;
		}
	}
	return df ? ss / df : NAN;
}

/* Iterations per combination for a Welch test at 95 % to tell, with 80 %
 * power, a difference d (a fraction of the best) from 0, or to show it
 * within the margin, whichever needs fewer: n = 2 (z.975 + z.8)^2 s2 / d^2
 * and 2 z.975^2 s2 / (margin - d)^2, s2 the relative variance. 3 to 100. */
static int iterations_to_decide(double d, double s2)
{
	if (isnan(s2))
		return 3;
	double z = 1.96, zb = 0.8416, nd = INFINITY, ne = INFINITY;
	if (d > 0)
		nd = 2 * (z + zb) * (z + zb) * s2 / (d * d);
	if (d < ST_ADV_MARGIN)
		ne = 2 * z * z * s2 / ((ST_ADV_MARGIN - d) * (ST_ADV_MARGIN - d));
	double need = ceil(fmin(nd, ne));
	return need < 3 ? 3 : need > 100 ? 100 : (int)need;
}

/* The iterations alternative alt of option id needs (iterations_to_decide,
 * with the two cells' own noise, else the phase's pooled). */
static int alt_iterations(const struct st_adv *a, const struct st_adv_phase *p, int id,
			  const struct st_adv_alt *alt, double pooled)
{
	const struct st_adv_cell *best = &p->cell[p->best];
	int x = find_cell(a, p, best->v, id, alt->v, -1, 0);
	double s2 = pooled;
	if (x >= 0 && p->cell[x].n > 1 && best->n > 1 && p->cell[x].mean > 0 && best->mean > 0) {
		const struct st_adv_cell *c = &p->cell[x];
		double sb = st_adv_sd(best) / best->mean, sc = st_adv_sd(c) / c->mean;
		s2 = (sb * sb + sc * sc) / 2;
	}
	return iterations_to_decide(fabs(alt->pct) / 100, s2);
}

/* " --set 'k=v,...'": the best's values of the varying options, option id
 * at v (id < 0: the best itself). */
static void star_set(const struct st_adv *a, const struct st_adv_phase *p, int id, int64_t v,
		     struct st_strbuf *b)
{
	const struct st_adv_cell *best = &p->cell[p->best];
	st_strbuf_put(b, " --set '");
	for (int k = 0, n = 0; k < p->nopt; k++) {
		char t[ST_ADV_TEXT];
		int o = p->opt[k].id;
		if (st_options[o].type == ST_T_STRING) /* a set cannot give it (its own list) */
			continue;
		st_adv_value(a, o, o == id ? v : best->v[o], t, sizeof(t));
		st_strbuf_addf(b, "%s%s=%s", n++ ? "," : "", st_options[o].name, t);
	}
	st_strbuf_put(b, "'");
}

/* " --opt 'best,alt,...'": option k of p at the best's value and each value
 * of alt[0..nalt) (its list separator: ';' for --mount-opts). */
static void value_list(const struct st_adv *a, const struct st_adv_phase *p, int k,
		       const int64_t *alt, int nalt, struct st_strbuf *b)
{
	int id = p->opt[k].id;
	char v[ST_ADV_TEXT], sep = st_options[id].sep ? st_options[id].sep : ',';
	st_adv_value(a, id, p->cell[p->best].v[id], v, sizeof(v));
	const char *q = st_options[id].type == ST_T_STRING ? "'" : "";
	st_strbuf_addf(b, " --%s %s%s", st_options[id].name, q, v);
	for (int t = 0; t < nalt; t++) {
		st_adv_value(a, id, alt[t], v, sizeof(v));
		st_strbuf_addf(b, "%c%s", sep, v);
	}
	st_strbuf_put(b, q);
}

/* The values of option k of p left to decide: its open alternatives and
 * the unpaired values un[0..nun) (they do not overlap). Their count. */
static int open_values(const struct st_adv_phase *p, int k, const int64_t *un, int nun,
		       int64_t *out)
{
	int n = 0;
	for (int t = 0; t < p->opt[k].nalt; t++)
		if (p->opt[k].alt[t].cls == ST_ADV_OPEN)
			out[n++] = p->opt[k].alt[t].v;
	for (int u = 0; u < nun; u++)
		out[n++] = un[u];
	return n;
}

/* The next run's options into b: with one option open its list; with more
 * (two a set can give), a star of --set sets (each open value alone, and the
 * best), crossed with the list of each text option (a set cannot give one).
 * Its combinations. */
static int64_t next_options(const struct st_adv *a, const struct st_adv_phase *p, int open_opts,
			    int64_t un[][4], const int *nun, struct st_strbuf *b)
{
	int64_t vals[ST_MAX_VALUES + 4], combos = 1, star = 1;
	int plain = 0, open_plain = 0; /* options a set can give, of them open */
	for (int k = 0; k < p->nopt; k++)
		open_plain += st_options[p->opt[k].id].type != ST_T_STRING &&
			      open_values(p, k, un[k], nun[k], vals) > 0;
	if (open_plain < 2) /* a star of one option is its list */
		open_opts = 1;
	for (int k = 0; k < p->nopt && open_opts > 1; k++) {
		if (st_options[p->opt[k].id].type == ST_T_STRING)
			continue;
		int n = open_values(p, k, un[k], nun[k], vals);
		for (int t = 0; t < n; t++)
			star_set(a, p, p->opt[k].id, vals[t], b);
		star += n;
		plain++;
	}
	if (plain)
		star_set(a, p, -1, 0, b);
	for (int k = 0; k < p->nopt; k++)
		if (open_opts <= 1 || st_options[p->opt[k].id].type == ST_T_STRING) {
			int n = open_values(p, k, un[k], nun[k], vals);
			value_list(a, p, k, vals, n, b);
			combos *= 1 + n;
		}
	return combos * star;
}

/*
 * The smallest next run that decides what is open: with one option open,
 * its best value and the undecided ones (the other options at the best's);
 * with more, a star: the best and each undecided value alone, as --set
 * sets, with the other values of an option no combination pairs with the
 * best. The iterations the closest call needs. Nothing open and the noise
 * known: next_iters 0.
 */
static void next_run(const struct st_adv *a, struct st_adv_phase *p)
{
	const struct st_adv_cell *best = &p->cell[p->best];
	double pooled = pooled_rel_var(p);
	int need = best->n < 2 ? 3 : 0, open_opts = 0;
	for (int k = 0; k < p->nopt; k++) {
		int any = 0;
		for (int t = 0; t < p->opt[k].nalt; t++)
			if (p->opt[k].alt[t].cls == ST_ADV_OPEN) {
				int it = alt_iterations(a, p, p->opt[k].id, &p->opt[k].alt[t], pooled);
				need = it > need ? it : need;
				any = 1;
			}
		open_opts += any;
	}
	/* an option no combination pairs with the best: its other values
	 * at the best's other values (the noise as pooled) */
	int64_t unpaired[ST_OPT_COUNT][4];
	int nun[ST_OPT_COUNT] = { 0 };
	for (int k = 0; k < p->nopt; k++) {
		int id = p->opt[k].id;
		if (p->opt[k].kind != ST_ADV_UNPAIRED)
			continue;
		for (int c = 0; c < p->ncell && nun[k] < 4; c++) {
			int64_t v = p->cell[c].v[id], seen = v == best->v[id];
			for (int u = 0; u < nun[k] && !seen; u++)
				seen = unpaired[k][u] == v;
			if (!seen)
				unpaired[k][nun[k]++] = v;
		}
		if (nun[k]) {
			need = need > iterations_to_decide(0, pooled) ? need : iterations_to_decide(0, pooled);
			open_opts += 2; /* as a star, always */
		}
	}
	struct st_strbuf b = { 0 };
	int64_t combos = next_options(a, p, open_opts, unpaired, nun, &b);
	p->next_iters = need;
	p->next_combos = need ? combos : 0;
	if (need)
		st_strbuf_addf(&b, " --iterations %d%s", need,
			       a->cfg->o[ST_OPT_SHUFFLE].n ? "" : " --shuffle 1");
	st_copy(p->next_run, sizeof(p->next_run),
		b.oom ? "(out of memory)" : b.p ? b.p + (b.p[0] == ' ') : "");
	st_strbuf_release(&b);
}

static void decide(struct st_adv *a, struct st_adv_phase *p)
{
	p->best = -1;
	for (int c = 0; c < p->ncell; c++)
		if (p->cell[c].n > 0 && (p->best < 0 || p->cell[c].mean > p->cell[p->best].mean))
			p->best = c;
	if (p->best < 0)
		return; /* every iteration of every combination failed */
	const struct st_adv_cell *b = &p->cell[p->best];
	p->ci = st_ci95(st_adv_sd(b), b->n);
	find_reference(a, p);
	judge_options(a, p);
	judge_interactions(a, p);
	next_run(a, p);
}

int st_advise_load(sqlite3 *db, const char *run, const char *phase, const char *where,
		   struct st_adv *a, char *err, size_t n)
{
	memset(a, 0, sizeof(*a));
	st_copy(a->run, sizeof(a->run), run);
	a->stage = -1;
	sqlite3_stmt *st;
	/* --search halving: the last stage's runs are the long, repeated ones */
	if (sqlite3_prepare_v2(db, "SELECT MAX(stage) FROM combo WHERE run_id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			a->stage = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (load_plan(db, run, a, err, n) || load_rows(db, run, phase, where, a, err, n))
		return -1;
	find_varying(a);
	for (int k = 0; k < a->nphase; k++)
		decide(a, &a->ph[k]);
	return 0;
}

void st_advise_free(struct st_adv *a)
{
	for (int k = 0; k < a->nphase; k++)
		free(a->ph[k].cell);
	free(a->cfg);
	a->nphase = 0;
	a->cfg = NULL;
}
