/*
 * html_data.c - the data the HTML page shows (see html_data.h): every
 * statement of the page, each run through query.h, and the effects shaped
 * into the axes the charts draw.
 *
 * Figures come from the named queries (top.sql, effects.sql) and the
 * views, so the page says what `report --top` and `effects` say. A
 * statement that reads a view is scoped to the run's rows (scope.h): a
 * view's GROUP BY would otherwise aggregate every run ever stored.
 */
#include "html_data.h"
#include "query.h"

#include "../../common/strbuf.h"
#include "../../common/util.h"
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing array ---- */

void *html_vec_push(struct html_vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 32;
		char *np = realloc(v->p, cap * v->size);
		if (!np)
			return NULL;
		v->p = np;
		v->cap = cap;
	}
	void *e = v->p + v->n++ * v->size;
	memset(e, 0, v->size);
	return e;
}

void html_vec_release(struct html_vec *v)
{
	free(v->p);
	v->p = NULL;
	v->n = v->cap = 0;
}

/* ---- columns ---- */

static void copy_col(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	st_copy(buf, n, t ? (const char *)t : "");
}

static double col_d(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int html_phase_index(const char *name)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (name && strcmp(name, st_phase_names[p]) == 0)
			return p;
	return -1;
}

/* Into b: head, "(\n<query text without its final ;>\n)", tail. */
static void wrap(struct st_strbuf *b, const char *head, const char *query, const char *tail)
{
	size_t l = strlen(query);
	while (l && (query[l - 1] == ';' || query[l - 1] == '\n' || query[l - 1] == ' ' ||
		     query[l - 1] == '\t'))
		l--;
	st_strbuf_addf(b, "%s(\n%.*s\n)%s", head, (int)l, query, tail);
}

/* Into b: the SQL text of the label of a combination over the columns of
 * combo, each named with prefix ("c." where another table of the
 * statement has a column of an option's name: phase_summary's threads). */
static void label_sql(const struct html_page *pg, const char *prefix, const char *phase,
		      struct st_strbuf *b)
{
	int any = 0;
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!pg->vary[i])
			continue;
		/* phase (a prefix, "" too): the phase's own value where it has one */
		struct st_strbuf e = { 0 };
		st_opt_col_sql(&e, i, prefix, phase);
		st_strbuf_addf(b,
			       st_options[i].type == ST_T_SIZE
				       ? "%s'%s%s=' || COALESCE(st_size(%s), '-')"
				       : "%s'%s%s=' || COALESCE(CAST(%s AS TEXT), '-')",
			       any ? " || " : "", any ? " " : "", st_options[i].name,
			       e.oom ? "NULL" : e.p);
		b->oom |= e.oom;
		st_strbuf_release(&e);
		any = 1;
	}
	if (!any)
		st_strbuf_put(b, "''");
}

/* Rows about the page's run (:run); scoped: over the run's rows only. */
static long page_rows(const struct html_page *pg, const char *sql, int scoped, st_query_row_fn row,
		      void *ctx, char *err, size_t n)
{
	struct st_qparams p = { .scope = scoped ? "run_id = :run" : NULL, .run = pg->run };
	return st_query_rows(pg->db, sql, &p, row, ctx, err, n);
}

/* ---- the bars: top.sql's rows, and the combinations that failed ---- */

static int bar_row(sqlite3_stmt *st, void *ctx)
{
	struct html_page *pg = ctx;
	struct html_bar *b = html_vec_push(&pg->bars);
	if (!b)
		return -1;
	b->combo = sqlite3_column_int(st, 0);
	b->phase = html_phase_index((const char *)sqlite3_column_text(st, 1));
	copy_col(st, 2, b->label, sizeof(b->label));
	b->mbps = col_d(st, 3);
	b->sd = col_d(st, 4);
	b->cmin = col_d(st, 5);
	b->cmax = col_d(st, 6);
	b->clients = sqlite3_column_int(st, 7);
	b->n = sqlite3_column_int(st, 8);
	b->iters = sqlite3_column_int(st, 9);
	b->pct = col_d(st, 10);
	copy_col(st, 11, b->verdict, sizeof(b->verdict));
	b->ccpu = col_d(st, 12);
	b->ccpm = col_d(st, 13);
	b->scpu = col_d(st, 14);
	b->scpm = col_d(st, 15);
	b->iocpm = col_d(st, 16);
	if (b->phase >= 0)
		pg->has_phase[b->phase] = 1;
	return 0;
}

static int failed_row(sqlite3_stmt *st, void *ctx)
{
	struct html_page *pg = ctx;
	struct html_bar *b = html_vec_push(&pg->bars);
	if (!b)
		return -1;
	b->combo = sqlite3_column_int(st, 0);
	b->phase = -1;
	copy_col(st, 1, b->label, sizeof(b->label));
	b->mbps = b->sd = b->cmin = b->cmax = b->pct = NAN;
	b->ccpu = b->ccpm = b->iocpm = b->scpu = b->scpm = NAN;
	snprintf(b->verdict, sizeof(b->verdict), "failed: %s",
		 sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
	return 0;
}

static int load_bars(struct html_page *pg, char *err, size_t n)
{
	struct st_strbuf head = { 0 }, sql = { 0 }, failed = { 0 };
	st_strbuf_put(&head, "SELECT matrix_index, phase, ");
	label_sql(pg, "", "", &head); /* top.sql's rows: each phase's values */
	st_strbuf_put(&head, ", mbps, sd_mbps, min_client_mbps, max_client_mbps, clients, n, "
			     "iterations, pct_of_limit, verdict, client_cpu_pct, "
			     "client_cpu_us_per_mb, server_cpu_pct, server_cpu_us_per_mb, "
			     "io_cpu_us_per_mb FROM ");
	/* the metadata phases count operations, not bytes: their own section */
	wrap(&sql, head.p ? head.p : "", st_sql_q_top,
	     " WHERE phase NOT IN " HTML_META_PHASES " ORDER BY matrix_index, phase_order");
	/* combinations that failed to prepare have no phase at all */
	st_strbuf_put(&failed, "SELECT matrix_index, ");
	label_sql(pg, "", NULL, &failed);
	st_strbuf_put(&failed, ", message FROM combo WHERE run_id = :run AND status = 'failed' "
			       "GROUP BY matrix_index ORDER BY matrix_index");
	int rc = -1;
	if (page_rows(pg, head.oom || sql.oom ? NULL : sql.p, 1, bar_row, pg, err, n) >= 0 &&
	    page_rows(pg, failed.oom ? NULL : failed.p, 1, failed_row, pg, err, n) >= 0)
		rc = 0;
	st_strbuf_release(&head);
	st_strbuf_release(&sql);
	st_strbuf_release(&failed);
	return rc;
}

static int cmp_bar(const void *a, const void *b)
{
	const struct html_bar *x = a, *y = b;
	if (x->combo != y->combo)
		return x->combo < y->combo ? -1 : 1;
	return x->phase - y->phase;
}

/* ---- the effects: effects.sql's rows ---- */

static int eff_row(sqlite3_stmt *st, void *ctx)
{
	struct html_page *pg = ctx;
	struct html_eff *e = html_vec_push(&pg->effs);
	if (!e)
		return -1;
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	e->phase = html_phase_index((const char *)sqlite3_column_text(st, 0));
	e->inter = kind && strcmp(kind, "interaction") == 0;
	e->oa = st_opt_find((const char *)sqlite3_column_text(st, 2));
	copy_col(st, 3, e->la, sizeof(e->la));
	int t = sqlite3_column_type(st, 4);
	e->ka = t == SQLITE_INTEGER || t == SQLITE_FLOAT ? sqlite3_column_double(st, 4) : NAN;
	e->ob = e->inter ? st_opt_find((const char *)sqlite3_column_text(st, 5)) : -1;
	copy_col(st, 6, e->lb, sizeof(e->lb));
	e->mbps = col_d(st, 7);
	e->sd = col_d(st, 8);
	e->lo = col_d(st, 9);
	e->hi = col_d(st, 10);
	e->effect = col_d(st, 11);
	e->effect_pct = col_d(st, 12);
	e->n = sqlite3_column_int(st, 13);
	if (e->phase < 0 || e->oa < 0 || (e->inter && e->ob < 0))
		pg->effs.n--; /* not a row this binary knows how to draw */
	return 0;
}

static int load_effects(struct html_page *pg, char *err, size_t n)
{
	struct st_strbuf sql = { 0 };
	wrap(&sql,
	     "SELECT phase, kind, factor_a, level_a, key_a, factor_b, level_b, mbps, "
	     "sd_mbps, min_mbps, max_mbps, effect, effect_pct, n FROM ",
	     st_sql_q_effects,
	     " WHERE phase NOT IN " HTML_META_PHASES
	     " ORDER BY phase_order, kind = 'interaction', ord_a, ord_b, key_a, key_b");
	long rows = page_rows(pg, sql.oom ? NULL : sql.p, 1, eff_row, pg, err, n);
	st_strbuf_release(&sql);
	return rows < 0 ? -1 : 0;
}

int html_page_load(struct html_page *pg, sqlite3 *db, const char *run, char *err, size_t n)
{
	memset(pg, 0, sizeof(*pg));
	pg->db = db;
	pg->run = run;
	pg->bars.size = sizeof(struct html_bar);
	pg->effs.size = sizeof(struct html_eff);
	if (st_analysis_functions(db, err, n) || st_run_varying(db, run, pg->vary, err, n) < 0 ||
	    load_bars(pg, err, n) || load_effects(pg, err, n))
		return -1;
	if (pg->bars.n) /* a run of metadata phases alone has none: no array to sort */
		qsort(pg->bars.p, pg->bars.n, pg->bars.size, cmp_bar);
	return 0;
}

void html_page_release(struct html_page *pg)
{
	html_vec_release(&pg->bars);
	html_vec_release(&pg->effs);
}

/* ---- the effects, shaped for the charts ---- */

size_t html_main_rows(const struct html_page *pg, int opt, int phase, const struct html_eff **out,
		      size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->effs.n && k < max; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (!e->inter && e->oa == opt && (phase < 0 || e->phase == phase))
			out[k++] = e;
	}
	return k;
}

/* Where a level of option opt sorts: its number, or its place among the
 * option's choices (off before on, sync before async). */
static double level_rank(int opt, const char *text, double key)
{
	if (!isnan(key))
		return key;
	const char *const *ch = st_options[opt].choices;
	for (int k = 0; ch && ch[k]; k++)
		if (strcmp(ch[k], text) == 0)
			return k;
	return NAN;
}

/* (A phase may lack some levels: its rows alone would not give the full axis.) */
size_t html_levels_of(const struct html_page *pg, int opt, const char *lv[], double key[], size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (e->inter || e->oa != opt)
			continue;
		size_t j = 0;
		while (j < k && strcmp(lv[j], e->la) != 0)
			j++;
		if (j < k || k == max)
			continue;
		/* insert in order; text levels that are no choice keep their order */
		double r = level_rank(opt, e->la, e->ka);
		size_t at = k;
		while (at > 0 && !isnan(r)) {
			double q = level_rank(opt, lv[at - 1], key[at - 1]);
			if (isnan(q) || q <= r)
				break;
			at--;
		}
		memmove(lv + at + 1, lv + at, (k - at) * sizeof(*lv));
		memmove(key + at + 1, key + at, (k - at) * sizeof(*key));
		lv[at] = e->la;
		key[at] = e->ka;
		k++;
	}
	return k;
}

size_t html_level_pos(const char *lv[], size_t n, const char *l)
{
	for (size_t j = 0; j < n; j++)
		if (strcmp(lv[j], l) == 0)
			return j;
	return n;
}

void html_sort_by_level(const struct html_eff **rows, size_t nr, const char *lv[], size_t nl)
{
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && html_level_pos(lv, nl, rows[j - 1]->la) >
						      html_level_pos(lv, nl, rows[j]->la);
		     j--) {
			const struct html_eff *t = rows[j];
			rows[j] = rows[j - 1];
			rows[j - 1] = t;
		}
}

int html_strongest(const struct html_page *pg, int p, int not)
{
	int best = -1;
	double be = -1;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct html_eff *e = HTML_AT(pg->effs, struct html_eff, i);
		if (e->inter || e->phase != p || e->oa == not || isnan(e->effect))
			continue;
		if (e->effect > be) {
			be = e->effect;
			best = e->oa;
		}
	}
	return best;
}

/* ---- one phase of one combination over time ---- */

struct series_load {
	struct html_series *s;
	double origin; /* the earliest interval's start, ns */
	int last_rank;
};

static int tpoint_row(sqlite3_stmt *st, void *ctx)
{
	struct series_load *l = ctx;
	struct html_tpoint *p = html_vec_push(&l->s->pts);
	if (!p)
		return -1;
	p->rank = sqlite3_column_int(st, 0);
	p->t0 = sqlite3_column_double(st, 1);
	p->t1 = sqlite3_column_double(st, 2);
	p->v = col_d(st, l->s->meta ? 4 : 3);
	p->stall = sqlite3_column_int(st, 5);
	if (p->t0 < l->origin)
		l->origin = p->t0;
	if (p->rank != l->last_rank && p->rank >= 0)
		l->s->ranks++;
	l->last_rank = p->rank;
	return 0;
}

int html_series_load(sqlite3 *db, int64_t combo, const char *phase, struct html_series *s,
		     char *err, size_t n)
{
	/* the views over this combination's intervals only (scope.h): their
	 * window functions would rank every interval ever stored */
	static const char sql[] = "SELECT -1, t_ns, end_ns, mbps, iops, stall FROM interval_summary "
				  "WHERE combo_id = :combo AND phase = :phase UNION ALL "
				  "SELECT rank, t_ns, end_ns, mbps, iops, stall FROM interval_rank "
				  "WHERE combo_id = :combo AND phase = :phase ORDER BY 1, 2";
	struct st_qparams p = { .scope = "combo_id = :combo", .combo = combo, .phase = phase };
	memset(s, 0, sizeof(*s));
	s->pts.size = sizeof(struct html_tpoint);
	s->meta = strstr(HTML_META_PHASES, phase) != NULL;
	struct series_load l = { .s = s, .origin = INFINITY, .last_rank = -2 };
	if (st_query_rows(db, sql, &p, tpoint_row, &l, err, n) < 0) {
		html_vec_release(&s->pts);
		return -1;
	}
	/* the last interval of a series may be a sliver (the calls that ended
	 * after the others): its rate says little, and is not drawn */
	double width = 0;
	for (size_t i = 0; i < s->pts.n; i++) {
		struct html_tpoint *q = HTML_AT(s->pts, struct html_tpoint, i);
		width = q->t1 - q->t0 > width ? q->t1 - q->t0 : width;
	}
	for (size_t i = 0; i < s->pts.n; i++) {
		struct html_tpoint *q = HTML_AT(s->pts, struct html_tpoint, i);
		if (q->t1 - q->t0 < width / 2)
			q->v = NAN;
		q->t0 = (q->t0 - l.origin) / 1e9;
		q->t1 = (q->t1 - l.origin) / 1e9;
		s->tmax = q->t1 > s->tmax ? q->t1 : s->tmax;
		s->vmax = !isnan(q->v) && q->v > s->vmax ? q->v : s->vmax;
		s->stalls += q->stall && q->rank >= 0;
		s->all_stalls += q->stall && q->rank < 0;
	}
	return 0;
}

/* ---- the plain tables ---- */

static int cells_row(sqlite3_stmt *st, void *ctx)
{
	struct html_rows *r = ctx;
	size_t ncol = (size_t)sqlite3_column_count(st);
	if (r->nrow == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct html_cell *nc = realloc(r->cell, cap * (ncol ? ncol : 1) * sizeof(*nc));
		if (!nc)
			return -1;
		r->cell = nc;
		r->cap = cap;
	}
	r->ncol = ncol;
	struct html_cell *c = HTML_CELL(r, r->nrow, 0);
	for (size_t i = 0; i < ncol; i++) {
		/* the type first: after a conversion it is undefined */
		int t = sqlite3_column_type(st, (int)i);
		c[i] = (struct html_cell){ NULL, NAN, 0 };
		if (t == SQLITE_NULL)
			continue;
		c[i].i = sqlite3_column_int64(st, (int)i);
		c[i].num = sqlite3_column_double(st, (int)i);
		const unsigned char *s = sqlite3_column_text(st, (int)i);
		c[i].text = s ? strdup((const char *)s) : NULL;
		if (!c[i].text) {
			for (size_t j = 0; j < i; j++)
				free(c[j].text);
			return -1;
		}
	}
	r->nrow++;
	return 0;
}

void html_rows_release(struct html_rows *r)
{
	for (size_t i = 0; i < r->nrow * r->ncol; i++)
		free(r->cell[i].text);
	free(r->cell);
	memset(r, 0, sizeof(*r));
}

static int rows_load(const struct html_page *pg, const char *sql, int scoped, struct html_rows *r,
		     char *err, size_t n)
{
	memset(r, 0, sizeof(*r));
	if (page_rows(pg, sql, scoped, cells_row, r, err, n) >= 0)
		return 0;
	html_rows_release(r);
	return -1;
}

/* rows_load of "head <the combination's label, from c.> tail"; phase: the
 * prefix of the row's phase_run (its own values: a [phase] section's), or
 * NULL for a row of the combination */
static int labelled_load(const struct html_page *pg, const char *head, const char *phase,
			 const char *tail, int scoped, struct html_rows *r, char *err, size_t n)
{
	struct st_strbuf sql = { 0 };
	st_strbuf_put(&sql, head);
	label_sql(pg, "c.", phase, &sql);
	st_strbuf_put(&sql, tail);
	int rc = rows_load(pg, sql.oom ? NULL : sql.p, scoped, r, err, n);
	st_strbuf_release(&sql);
	return rc;
}

int html_load_run(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return rows_load(pg,
			 "SELECT run_id, COALESCE(NULLIF(label, ''), run_id), started_at, finished_at, "
			 "status, engine, target, phases, iterations, nranks, nhosts, "
			 "(SELECT COUNT(*) FROM combo c WHERE c.run_id = r.run_id), combos_planned, "
			 "stcluster_version, command, plan, "
			 "(SELECT COUNT(stage) FROM combo c WHERE c.run_id = r.run_id) "
			 "FROM run r WHERE run_id = :run",
			 0, r, err, n);
}

int html_load_baselines(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return rows_load(pg,
			 "SELECT kind, direction, server_rank, client_ranks, bytes, seconds, mbps, note "
			 "FROM baseline WHERE run_id = :run ORDER BY kind, direction, server_rank",
			 0, r, err, n);
}

/* The metadata phases: operations per second per combination. */
int html_load_meta(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return labelled_load(pg, "SELECT c.seq + 1, ", NULL,
			     ", s.phase, s.iops, s.min_client_iops, s.max_client_iops, s.lat_p50_ns, "
			     "s.lat_p99_ns, s.ops, s.errors FROM combo c JOIN phase_summary s "
			     "USING (combo_id) WHERE c.run_id = :run AND s.phase IN " HTML_META_PHASES
			     " ORDER BY c.seq, s.phase_order",
			     1, r, err, n);
}

/* Each phase's RPC mix, the figures of its READ, WRITE and COMMIT, its
 * flags, and the calls a kernel NFS server counted over it (its server
 * ranks' nfsd_calls, every version's): the phases with mix or flags. */
int html_load_wire(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return labelled_load(pg, "SELECT c.seq + 1, ", "pv.",
		      ", s.phase, s.agg_mbps, m.mix, "
		      "(SELECT group_concat(op || ' ' || printf('%.0f', ops_per_s) || '/s ' || "
		      "printf('%.0f', kib_per_op) || ' KiB/op RTT ' || printf('%.2f', avg_rtt_ms) || "
		      "' exe ' || printf('%.2f', avg_exe_ms) || ' ms' || CASE WHEN op = 'WRITE' AND "
		      "pct_file_sync IS NOT NULL THEN ' ' || printf('%.0f', pct_file_sync) || '% "
		      "FILE_SYNC' || CASE WHEN stable_basis = 'inferred' THEN ' (inferred)' ELSE '' END "
		      "ELSE '' END, '; ') FROM rpc_summary r WHERE r.combo_id = s.combo_id AND r.phase = "
		      "s.phase AND r.op IN ('READ', 'WRITE', 'COMMIT') AND r.ops > 0), "
		      "f.flag_text, "
		      "(SELECT group_concat(op || ' ' || n, ', ') FROM (SELECT substr(x.device, 4) AS op, "
		      "CAST(SUM(x.value) AS INTEGER) AS n FROM sample x WHERE x.combo_id = s.combo_id "
		      "AND x.phase = s.phase AND x.metric = 'nfsd_calls' GROUP BY x.device "
		      "ORDER BY n DESC, op)) "
		      "FROM phase_summary s JOIN combo c ON c.combo_id = s.combo_id "
		      "JOIN phase_run pv ON pv.combo_id = s.combo_id AND pv.phase = s.phase "
		      "LEFT JOIN (SELECT combo_id, phase, group_concat(mix, ' | ') AS mix FROM rpc_mix "
		      "GROUP BY combo_id, phase) m ON m.combo_id = s.combo_id AND m.phase = s.phase "
		      "LEFT JOIN phase_flags f ON f.combo_id = s.combo_id AND f.phase = s.phase "
		      "WHERE c.run_id = :run AND (m.mix IS NOT NULL OR f.flag_text IS NOT NULL) "
		      "ORDER BY c.seq, s.phase_order",
		      1, r, err, n);
}

/* The server's side of each phase, per server rank that saw its export's
 * disk or a kernel NFS server's pool: the phases with either. */
int html_load_server(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return labelled_load(pg, "SELECT c.seq + 1, ", "pv.",
		      ", s.phase, s.agg_mbps, COALESCE(h.hostname, 'rank ' || p.rank), p.export_disk, "
		      "p.disk_busy_pct, p.disk_write_mbps, p.disk_read_mbps, p.disk_queue, "
		      "p.nfsd_threads, p.nfsd_arrived, p.nfsd_waited_pct, p.cpu_busy_pct "
		      "FROM phase_summary s JOIN combo c ON c.combo_id = s.combo_id "
		      "JOIN server_parts p ON p.combo_id = s.combo_id AND p.phase = s.phase "
		      "JOIN phase_run pv ON pv.combo_id = s.combo_id AND pv.phase = s.phase "
		      "LEFT JOIN host h ON h.run_id = c.run_id AND h.rank = p.rank "
		      "WHERE c.run_id = :run AND (p.export_disk IS NOT NULL OR p.nfsd_threads IS NOT NULL) "
		      "ORDER BY c.seq, s.phase_order, p.rank",
		      1, r, err, n);
}

int html_load_failures(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return rows_load(pg,
			 "SELECT c.seq + 1, c.iteration + 1, COALESCE(p.phase, ''), "
			 "COALESCE(p.status, c.status), COALESCE(p.message, c.message, '') "
			 "FROM combo c LEFT JOIN phase_run p ON p.combo_id = c.combo_id AND p.status <> 'ok' "
			 "WHERE c.run_id = :run AND (c.status <> 'ok' AND (c.status = 'failed' OR "
			 "p.phase IS NOT NULL)) ORDER BY c.seq, p.phase_order",
			 0, r, err, n);
}

int html_load_hosts(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return rows_load(pg,
			 "SELECT rank, hostname, role, cores, pus, numa_nodes, "
			 "ROUND(mem_bytes / 1073741824.0, 1), kernel, cpu_model, addresses, "
			 "iface, mtu, speed_mbps, clock_offset_ns "
			 "FROM host WHERE run_id = :run ORDER BY rank",
			 0, r, err, n);
}

/* The combinations with intervals: combo_id, seq, label, their phases
 * (comma list, in order), the widest interval (ns). The tables alone: no
 * view, so no scope. */
int html_load_timed(const struct html_page *pg, struct html_rows *r, char *err, size_t n)
{
	return labelled_load(pg, "SELECT c.combo_id, c.seq + 1, ", NULL,
			    ", (SELECT group_concat(phase) FROM (SELECT DISTINCT "
			    "i.phase, p.phase_order FROM interval i JOIN phase_run p ON p.combo_id = "
			    "i.combo_id AND p.phase = i.phase WHERE i.combo_id = c.combo_id ORDER BY "
			    "p.phase_order)), (SELECT MAX(width_ns) FROM interval i WHERE i.combo_id = "
			    "c.combo_id) FROM combo c WHERE c.run_id = :run AND EXISTS (SELECT 1 FROM "
			    "interval i WHERE i.combo_id = c.combo_id) ORDER BY c.seq",
			     0, r, err, n);
}
