/*
 * html.c - the HTML report of one run (see html.h).
 *
 * The page is written top to bottom in one pass: the run and its command
 * line, the best combinations, then the charts (aggregate per combination
 * and phase with the per-client spread, main effects, the interaction of
 * the two strongest options, throughput against each swept size), the
 * effects ranking, the bottleneck verdicts and baselines, failures, hosts
 * and the plan. Figures come from the named queries (top.sql, effects.sql)
 * and the tables, so the page says what `report --top` and `effects` say.
 *
 * Invariants: every text that comes from the store or the user goes
 * through esc(); the page loads nothing (no script, no link, no image
 * URL); SVG geometry is computed here, with one shared scale per chart.
 */
#include "html.h"
#include "scope.h"

#include "../../common/options.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../store/runs.h"
#include "analysis.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mark in the head of every page stcluster writes; a file that lacks it
 * was not written by stcluster, and is not replaced without --force. */
#define GENERATOR_MARK "<meta name=\"generator\" content=\"stcluster report --html\">"

/* Tableau-like colours: distinct, and readable on white and in print. */
static const char *const phase_color[ST_PHASE_COUNT] = { "#4e79a7", "#76b7b2", "#f28e2b",
							 "#b07aa1", "#59a14f", "#e15759" };
static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
				       "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#bab0ac" };
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* ---- a growing array of fixed-size elements ---- */

struct vec {
	char *p;
	size_t n, cap, size; /* elements, capacity, bytes per element */
};

/* A new zeroed element at the end; NULL when out of memory. */
static void *vec_push(struct vec *v)
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

static void vec_release(struct vec *v)
{
	free(v->p);
	v->p = NULL;
	v->n = v->cap = 0;
}

#define VEC_AT(v, type, i) ((type *)((v).p + (size_t)(i) * (v).size))

/* ---- text ---- */

/* HTML text and attribute values: & < > " ' escaped; NULL prints nothing. */
static void esc(FILE *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default: fputc(*s, o); break;
		}
	}
}

static void copy_col(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	st_copy(buf, n, t ? (const char *)t : "");
}

static double col_d(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* A figure for a table cell: "812.3", or an en dash when there is none. */
static void num(FILE *o, double v, int decimals)
{
	if (isnan(v))
		fputs("&ndash;", o);
	else
		fprintf(o, "%.*f", decimals, v);
}

static int phase_index(const char *name)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (name && strcmp(name, st_phase_names[p]) == 0)
			return p;
	return -1;
}

/* The phases whose figure is operations per second (SQL list). */
#define META_PHASES "('create', 'stat', 'open', 'remove')"

/* ---- what the page shows ---- */

struct bar {
	int combo;	       /* matrix index */
	int phase;	       /* enum st_phase; -1: the combination failed to prepare */
	char label[512];       /* the options that vary: "threads=2 block=4k" */
	double mbps;	       /* mean aggregate MB/s of the iterations without error; NAN: none */
	double sd;	       /* their standard deviation, MB/s; NAN with fewer than two */
	double cmin, cmax;     /* slowest and fastest client seen, MB/s */
	int clients;	       /* client ranks */
	int n, iters;	       /* iterations without error, iterations stored */
	double pct;	       /* % of the slower part measured alone; NAN: no baseline */
	char verdict[512];     /* bottleneck, error or failure text */
	double ccpu, ccpm;     /* client CPU: % of one CPU per client rank, us per MB (view phase_cpu) */
	double scpu, scpm;     /* server hosts' CPUs busy: % of all, us per MB; NAN: no server rank */
};

struct eff {
	int phase;	       /* enum st_phase */
	int inter;	       /* 0: main effect row; 1: a cell of a pair */
	int oa, ob;	       /* option ids (ob: interactions only) */
	char la[128], lb[128]; /* level text */
	double ka;	       /* level of oa as a number (sizes, counts); NAN for text */
	double mbps, sd, lo, hi; /* mean, sd, min, max of the observations, MB/s */
	double effect, effect_pct; /* of the option or pair, MB/s and % of the phase mean */
	int n;
};

struct page {
	sqlite3 *db;
	const char *run;
	int vary[ST_OPT_COUNT];
	struct vec bars, effs;
	int has_phase[ST_PHASE_COUNT]; /* a bar of this phase exists */
};

/* "(\n<query text without its final ;>\n)" between head and tail; malloc'd. */
static char *wrap(const char *head, const char *query, const char *tail)
{
	size_t l = strlen(query);
	while (l && (query[l - 1] == ';' || query[l - 1] == '\n' || query[l - 1] == ' ' ||
		     query[l - 1] == '\t'))
		l--;
	size_t n = strlen(head) + l + strlen(tail) + 8;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s(\n%.*s\n)%s", head, (int)l, query, tail);
	return s;
}

/* SQL text of the label of a combination: 'threads=' || ... || ' block=' || ... */
static void label_sql(const struct page *pg, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < ST_OPT_COUNT && off + 1 < n; i++) {
		if (!pg->vary[i])
			continue;
		const char *name = st_options[i].name;
		off += (size_t)snprintf(buf + off, n - off,
					st_options[i].type == ST_T_SIZE
						? "%s'%s%s=' || COALESCE(st_size(\"%s\"), '-')"
						: "%s'%s%s=' || COALESCE(CAST(\"%s\" AS TEXT), '-')",
					off ? " || " : "", off ? " " : "", name, name);
	}
	if (!off)
		snprintf(buf, n, "''");
}

/* A query about the page's run (:run), on that run's rows only (scope.h). */
static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err, size_t n)
{
	struct st_strbuf b = { 0 };
	if (sql) {
		st_scope_head(db, "run_id = :run", sql, &b);
		st_strbuf_put(&b, sql);
	}
	if (!sql || b.oom) {
		snprintf(err, n, "out of memory");
		st_strbuf_release(&b);
		return -1;
	}
	int rc = sqlite3_prepare_v2(db, b.p, -1, st, NULL);
	st_strbuf_release(&b);
	if (rc != SQLITE_OK) {
		snprintf(err, n, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

static void bind_run(sqlite3_stmt *st, const char *run)
{
	int k = sqlite3_bind_parameter_index(st, ":run");
	if (k)
		sqlite3_bind_text(st, k, run, -1, SQLITE_TRANSIENT);
}

/* A query about the page's run, its one parameter; NULL if it cannot be
 * prepared. scoped: it reads views (phase_summary, rpc_mix, ...) and names
 * the run as ?1: they are read over the run's rows only (scope.h). */
static sqlite3_stmt *query_of(struct page *pg, const char *sql, int scoped)
{
	struct st_strbuf b = { 0 };
	if (scoped)
		st_scope_head(pg->db, "run_id = ?1", sql, &b);
	st_strbuf_put(&b, sql);
	sqlite3_stmt *st = NULL;
	int rc = b.oom ? SQLITE_NOMEM : sqlite3_prepare_v2(pg->db, b.p, -1, &st, NULL);
	st_strbuf_release(&b);
	if (rc != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, pg->run, -1, SQLITE_TRANSIENT);
	return st;
}

static sqlite3_stmt *run_query(struct page *pg, const char *sql)
{
	return query_of(pg, sql, 0);
}

static int load_bars(struct page *pg, char *err, size_t n)
{
	char label[4096], head[4600];
	label_sql(pg, label, sizeof(label));
	snprintf(head, sizeof(head),
		 "SELECT matrix_index, phase, %s, mbps, sd_mbps, min_client_mbps, max_client_mbps, "
		 "clients, n, iterations, pct_of_limit, verdict, client_cpu_pct, "
		 "client_cpu_us_per_mb, server_cpu_pct, server_cpu_us_per_mb FROM ",
		 label);
	/* the metadata phases count operations, not bytes: their own section */
	char *sql = wrap(head, st_sql_q_top,
			 " WHERE phase NOT IN " META_PHASES " ORDER BY matrix_index, phase_order");
	sqlite3_stmt *st;
	int rc = prepare(pg->db, sql, &st, err, n);
	free(sql);
	if (rc)
		return -1;
	bind_run(st, pg->run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bar *b = vec_push(&pg->bars);
		if (!b) {
			sqlite3_finalize(st);
			snprintf(err, n, "out of memory");
			return -1;
		}
		b->combo = sqlite3_column_int(st, 0);
		b->phase = phase_index((const char *)sqlite3_column_text(st, 1));
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
		if (b->phase >= 0)
			pg->has_phase[b->phase] = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, n, "%s", sqlite3_errmsg(pg->db));
		return -1;
	}
	/* combinations that failed to prepare have no phase at all */
	char sql2[4600];
	snprintf(sql2, sizeof(sql2),
		 "SELECT matrix_index, %s, message FROM combo WHERE run_id = :run AND status = 'failed' "
		 "GROUP BY matrix_index ORDER BY matrix_index",
		 label);
	if (prepare(pg->db, sql2, &st, err, n))
		return -1;
	bind_run(st, pg->run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct bar *b = vec_push(&pg->bars);
		if (!b)
			break;
		b->combo = sqlite3_column_int(st, 0);
		b->phase = -1;
		copy_col(st, 1, b->label, sizeof(b->label));
		b->mbps = b->sd = b->cmin = b->cmax = b->pct = NAN;
		b->ccpu = b->ccpm = b->scpu = b->scpm = NAN;
		snprintf(b->verdict, sizeof(b->verdict), "failed: %s",
			 sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
	}
	sqlite3_finalize(st);
	return 0;
}

static int cmp_bar(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;
	if (x->combo != y->combo)
		return x->combo < y->combo ? -1 : 1;
	return x->phase - y->phase;
}

static int load_effects(struct page *pg, char *err, size_t n)
{
	char *sql = wrap("SELECT phase, kind, factor_a, level_a, key_a, factor_b, level_b, mbps, "
			 "sd_mbps, min_mbps, max_mbps, effect, effect_pct, n FROM ",
			 st_sql_q_effects,
			 " WHERE phase NOT IN " META_PHASES
			 " ORDER BY phase_order, kind = 'interaction', ord_a, ord_b, key_a, key_b");
	sqlite3_stmt *st;
	int rc = prepare(pg->db, sql, &st, err, n);
	free(sql);
	if (rc)
		return -1;
	bind_run(st, pg->run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct eff *e = vec_push(&pg->effs);
		if (!e) {
			sqlite3_finalize(st);
			snprintf(err, n, "out of memory");
			return -1;
		}
		e->phase = phase_index((const char *)sqlite3_column_text(st, 0));
		e->inter = strcmp((const char *)sqlite3_column_text(st, 1), "interaction") == 0;
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
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, n, "%s", sqlite3_errmsg(pg->db));
		return -1;
	}
	return 0;
}

/* ---- chart helpers ---- */

/* A round axis maximum (1, 2 or 5 times a power of ten per step) >= v. */
static void nice_axis(double v, double *max, double *step)
{
	if (!(v > 0) || !isfinite(v))
		v = 1;
	double raw = v / 5, mag = pow(10, floor(log10(raw))), norm = raw / mag;
	*step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	*max = ceil(v / *step - 1e-9) * *step;
}

static void svg_open(FILE *o, int w, int h, const char *what)
{
	fprintf(o,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\" aria-label=\"",
		w, h, w, h);
	esc(o, what);
	fputs("\">\n", o);
}

/* A y axis from 0 to max on [y0 (bottom), y1 (top)] between x0 and x1:
 * grid lines, tick labels and the axis title. */
static void y_axis(FILE *o, double max, double step, int x0, int x1, int y0, int y1,
		   const char *title)
{
	for (double v = 0; v <= max + step / 2; v += step) {
		double y = y0 - (y0 - y1) * v / max;
		fprintf(o,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			"<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.10g</text>\n",
			x0, x1, y, y, x0 - 4, y + 4, v);
	}
	/* the title runs up the axis, clear of the chart's own title lines */
	fprintf(o,
		"<text transform=\"translate(%d,%d) rotate(-90)\" class=\"axis\" "
		"text-anchor=\"middle\">",
		x0 - 34, (y0 + y1) / 2);
	esc(o, title);
	fputs("</text>\n", o);
}

/* ---- the sections ---- */

static void section_run(FILE *o, struct page *pg)
{
	sqlite3_stmt *st = run_query(pg,
					 "SELECT run_id, COALESCE(NULLIF(label, ''), run_id), started_at, finished_at, "
					 "status, engine, target, phases, iterations, nranks, nhosts, "
					 "(SELECT COUNT(*) FROM combo c WHERE c.run_id = r.run_id), combos_planned, "
					 "stcluster_version, command, plan FROM run r WHERE run_id = ?");
	if (!st)
		return;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return;
	}
	fputs("<h1>stcluster: ", o);
	esc(o, (const char *)sqlite3_column_text(st, 1));
	fputs("</h1>\n<table class=\"kv\">\n", o);
	static const struct {
		int col;
		const char *name;
	} rows[] = { { 0, "run" },    { 2, "started" },	 { 3, "finished" }, { 4, "status" },
		     { 5, "engine" }, { 6, "target" },	 { 7, "phases" },   { 8, "iterations" },
		     { 9, "ranks" },  { 10, "hosts" },	 { 13, "stcluster" } };
	for (size_t i = 0; i < ST_ARRAY_LEN(rows); i++) {
		fputs("<tr><th>", o);
		esc(o, rows[i].name);
		fputs("</th><td>", o);
		const char *v = (const char *)sqlite3_column_text(st, rows[i].col);
		if (v && *v)
			esc(o, v);
		else
			fputs("&ndash;", o);
		fputs("</td></tr>\n", o);
	}
	fprintf(o, "<tr><th>combinations</th><td>%d stored of %d planned</td></tr>\n</table>\n",
		sqlite3_column_int(st, 11), sqlite3_column_int(st, 12));
	fputs("<h2>Command line</h2>\n<pre class=\"cmd\">", o);
	esc(o, (const char *)sqlite3_column_text(st, 14));
	fputs("</pre>\n", o);
	fputs("<details><summary>The full effective plan</summary><pre>", o);
	esc(o, (const char *)sqlite3_column_text(st, 15));
	fputs("</pre></details>\n", o);
	sqlite3_finalize(st);
}

static int cmp_best(const void *a, const void *b)
{
	const struct bar *x = *(const struct bar *const *)a, *y = *(const struct bar *const *)b;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	if (isnan(x->mbps) != isnan(y->mbps))
		return isnan(x->mbps) ? 1 : -1;
	if (x->mbps != y->mbps)
		return x->mbps > y->mbps ? -1 : 1;
	return x->combo - y->combo;
}

static void section_best(FILE *o, struct page *pg)
{
	fputs("<h2>Best combinations</h2>\n<p class=\"note\">Per phase, the five highest aggregate "
	      "MB/s (all client bytes / (latest end &minus; earliest start); MB/s = 10<sup>6</sup> "
	      "bytes/s), the mean of the iterations without error with its 95&nbsp;% interval, and "
	      "the slowest and the fastest client; the CPU the phase cost: the client processes' "
	      "(user + sys) as % of one CPU per client rank over the phase's wall, the server "
	      "hosts' CPUs busy as % of all their CPUs (sampled by the server ranks; &ndash; "
	      "without one), and each as CPU &micro;s per MB moved.</p>\n",
	      o);
	size_t nb = pg->bars.n;
	const struct bar **v = calloc(nb ? nb : 1, sizeof(*v));
	if (!v)
		return;
	size_t k = 0;
	for (size_t i = 0; i < nb; i++)
		if (VEC_AT(pg->bars, struct bar, i)->phase >= 0)
			v[k++] = VEC_AT(pg->bars, struct bar, i);
	qsort(v, k, sizeof(*v), cmp_best);
	fputs("<table><tr><th>phase</th><th>#</th><th>combination</th><th class=\"num\">MB/s</th>"
	      "<th class=\"num\">&plusmn;95&nbsp;%</th><th class=\"num\">iterations</th>"
	      "<th class=\"num\">slowest client</th><th class=\"num\">fastest client</th>"
	      "<th class=\"num\">client CPU %</th><th class=\"num\">client &micro;s/MB</th>"
	      "<th class=\"num\">server CPU %</th><th class=\"num\">server &micro;s/MB</th>"
	      "<th>verdict</th></tr>\n",
	      o);
	int place = 0, last = -1;
	for (size_t i = 0; i < k; i++) {
		const struct bar *b = v[i];
		place = b->phase == last ? place + 1 : 1;
		last = b->phase;
		if (place > 5)
			continue;
		fprintf(o, "<tr><td class=\"nw\"><span class=\"sw\" style=\"background:%s\"></span>%s</td>"
			   "<td>%d</td><td class=\"nw\">",
			phase_color[b->phase], st_phase_names[b->phase], place);
		esc(o, b->label);
		fputs("</td><td class=\"num\">", o);
		num(o, b->mbps, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, st_ci95(b->sd, b->n), 1);
		fprintf(o, "</td><td class=\"num\">%d/%d</td><td class=\"num\">", b->n, b->iters);
		num(o, b->cmin, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->cmax, 1);
		const double cpu[] = { b->ccpu, b->ccpm, b->scpu, b->scpm };
		for (size_t c = 0; c < ST_ARRAY_LEN(cpu); c++) {
			fputs("</td><td class=\"num\">", o);
			num(o, cpu[c], c % 2 ? 0 : 1);
		}
		fputs("</td><td>", o);
		if (b->verdict[0])
			esc(o, b->verdict);
		else
			fputs("&ndash;", o); /* no baseline: "Bottleneck verdicts" says why */
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
	free(v);
}

/* Bars charted per phase; every combination is in the phase's table below
 * its chart. At 500 combinations one chart of every bar was 9000 px tall
 * and unsorted: the best setting is what a reader looks for first. */
#define BARS_CHARTED 20

/* One phase's combinations, best first (cmp_best): horizontal bars,
 * whiskers from clients x slowest to clients x fastest client. */
static void chart_phase_bars(FILE *o, const struct bar *const *v, size_t k, double max, double step,
			     int L)
{
	size_t shown = k < BARS_CHARTED ? k : BARS_CHARTED;
	const int W = 1100, bh = 14, gap = 3, top = 26, bottom = 28;
	const int x0 = L, x1 = W - 70;
	int H = top + bottom + (int)shown * (bh + gap);
	int p = v[0]->phase;
	char what[96];
	snprintf(what, sizeof(what), "aggregate MB/s of the %s phase per combination, best first",
		 st_phase_names[p]);
	svg_open(o, W, H, what);
	fprintf(o,
		"<line x1=\"%d\" x2=\"%d\" y1=\"12\" y2=\"12\" class=\"whisker\"/>"
		"<line x1=\"%d\" x2=\"%d\" y1=\"8\" y2=\"16\" class=\"whisker\"/>"
		"<line x1=\"%d\" x2=\"%d\" y1=\"8\" y2=\"16\" class=\"whisker\"/>"
		"<text x=\"%d\" y=\"16\">per-client spread &#215; clients</text>\n",
		x1 - 200, x1 - 170, x1 - 200, x1 - 200, x1 - 170, x1 - 170, x1 - 164);
	for (double t = 0; t <= max + step / 2; t += step) {
		double x = x0 + (x1 - x0) * t / max;
		fprintf(o,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
			"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.10g</text>\n",
			x, x, top - 4, H - bottom + 4, x, H - bottom + 16, t);
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">MB/s</text>\n", x1,
		H - 2);
	int y = top;
	for (size_t i = 0; i < shown; i++, y += bh + gap) {
		const struct bar *b = v[i];
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"label\" text-anchor=\"end\">", x0 - 8,
			y + bh - 3);
		esc(o, b->label);
		fputs("</text>\n", o);
		fprintf(o, "<g class=\"bar\" data-phase=\"%s\" data-combo=\"%d\" data-mbps=\"",
			st_phase_names[p], b->combo);
		if (isnan(b->mbps))
			fputs("\"><title>", o);
		else
			fprintf(o, "%.17g\"><title>", b->mbps);
		esc(o, b->label);
		fprintf(o, ", %s: ", st_phase_names[p]);
		if (isnan(b->mbps)) {
			esc(o, b->verdict);
			fprintf(o,
				"</title><text x=\"%d\" y=\"%d\" class=\"fail\">no figure (errors)"
				"</text></g>\n",
				x0 + 4, y + bh - 3);
			continue;
		}
		fprintf(o, "%.1f MB/s aggregate (mean of %d); per client %.1f to %.1f MB/s, %d clients",
			b->mbps, b->n, b->cmin, b->cmax, b->clients);
		if (!isnan(b->ccpu))
			fprintf(o, "; client CPU %.1f %% of a CPU per client, %.0f us/MB", b->ccpu, b->ccpm);
		if (!isnan(b->scpu))
			fprintf(o, "; server CPU %.1f %% of its CPUs, %.0f us/MB", b->scpu, b->scpm);
		if (b->verdict[0]) {
			fputs("; ", o);
			esc(o, b->verdict);
		}
		double xb = x0 + (x1 - x0) * b->mbps / max;
		fprintf(o, "</title><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", x0,
			y, xb - x0, bh, phase_color[p]);
		double xe = xb;
		if (!isnan(b->cmin) && !isnan(b->cmax) && b->clients > 0) {
			double wl = x0 + (x1 - x0) * b->clients * b->cmin / max;
			double wh = x0 + (x1 - x0) * b->clients * b->cmax / max;
			int cy = y + bh / 2;
			fprintf(o,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>"
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>"
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"whisker\"/>",
				wl, wh, cy, cy, wl, wl, y + 2, y + bh - 2, wh, wh, y + 2, y + bh - 2);
			xe = wh > xe ? wh : xe;
		}
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.1f</text></g>\n", xe + 4,
			y + bh - 3, b->mbps);
	}
	fputs("</svg>\n", o);
}

/* Every combination of one phase, best first, with its place and its
 * figures: the whole ranking the chart above it starts. */
static void table_phase(FILE *o, const struct bar *const *v, size_t k)
{
	int p = v[0]->phase;
	double best = v[0]->mbps;
	fprintf(o, "<details><summary>All %zu combinations of the %s phase, best first</summary>\n", k,
		st_phase_names[p]);
	fprintf(o, "<table class=\"small ranking\" data-phase=\"%s\"><tr><th class=\"num\">#</th>"
		   "<th>combination</th><th class=\"num\">MB/s</th><th class=\"num\">%% of best</th>"
		   "<th class=\"num\">&plusmn;95&nbsp;%%</th><th class=\"num\">slowest client</th>"
		   "<th class=\"num\">fastest client</th><th class=\"num\">client CPU %%</th>"
		   "<th>verdict</th></tr>\n",
		st_phase_names[p]);
	for (size_t i = 0; i < k; i++) {
		const struct bar *b = v[i];
		fprintf(o, "<tr data-combo=\"%d\"><td class=\"num\">%zu</td><td class=\"nw\">", b->combo,
			i + 1);
		esc(o, b->label);
		fputs("</td><td class=\"num\">", o);
		if (isnan(b->mbps))
			fputs("no figure (errors)", o);
		else
			num(o, b->mbps, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, best > 0 ? 100 * b->mbps / best : NAN, 0);
		fputs("</td><td class=\"num\">", o);
		num(o, st_ci95(b->sd, b->n), 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->cmin, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->cmax, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->ccpu, 1);
		fputs("</td><td>", o);
		if (b->verdict[0])
			esc(o, b->verdict);
		else
			fputs("&ndash;", o);
		fputs("</td></tr>\n", o);
	}
	fputs("</table></details>\n", o);
}

/* Aggregate per combination, one group per phase, best first: the best
 * BARS_CHARTED charted on one scale for all phases, every one in a table. */
static void chart_bars(FILE *o, struct page *pg)
{
	fprintf(o,
		"<h2>Aggregate MB/s per combination and phase</h2>\n"
		"<p class=\"note\">Per phase, the combinations best first: the %d highest charted, "
		"every one in the table below its chart (with its place and %% of the best). Bar: "
		"the aggregate (mean of the iterations). Whisker: the per-client spread, scaled to the "
		"aggregate &mdash; from clients &times; the slowest client to clients &times; the "
		"fastest; a short whisker at the bar's end means every client got its share. Hover a "
		"bar for its figures. One scale for every phase.</p>\n",
		BARS_CHARTED);
	size_t nb = pg->bars.n;
	const struct bar **v = calloc(nb ? nb : 1, sizeof(*v));
	if (!v)
		return;
	size_t k = 0, failed = 0, lmax = 8;
	double vmax = 0;
	for (size_t i = 0; i < nb; i++) {
		const struct bar *b = VEC_AT(pg->bars, struct bar, i);
		if (b->phase < 0) {
			failed++;
			continue;
		}
		v[k++] = b;
		lmax = strlen(b->label) > lmax ? strlen(b->label) : lmax;
		if (!isnan(b->mbps) && b->mbps > vmax)
			vmax = b->mbps;
		if (!isnan(b->cmax) && b->clients * b->cmax > vmax)
			vmax = b->clients * b->cmax;
	}
	if (!k && !failed) {
		fputs("<p>No combination of this run has figures.</p>\n", o);
		free(v);
		return;
	}
	qsort(v, k, sizeof(*v), cmp_best);
	int L = (int)(lmax * 6.6) + 16;
	L = L < 120 ? 120 : L > 560 ? 560 : L;
	double max, step;
	nice_axis(vmax, &max, &step);
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && v[j]->phase == v[i]->phase)
			j++;
		fprintf(o, "<h3><span class=\"sw\" style=\"background:%s\"></span>%s: %zu combinations",
			phase_color[v[i]->phase], st_phase_names[v[i]->phase], j - i);
		if (j - i > BARS_CHARTED)
			fprintf(o, ", the best %d charted", BARS_CHARTED);
		fputs("</h3>\n", o);
		chart_phase_bars(o, v + i, j - i, max, step, L);
		table_phase(o, v + i, j - i);
		i = j;
	}
	if (failed) {
		fprintf(o, "<h3>%zu combinations failed to prepare</h3>\n<table class=\"small\">"
			   "<tr><th>combination</th><th>why</th></tr>\n",
			failed);
		for (size_t i = 0; i < nb; i++) {
			const struct bar *b = VEC_AT(pg->bars, struct bar, i);
			if (b->phase >= 0)
				continue;
			fprintf(o, "<tr data-combo=\"%d\" class=\"fail\"><td class=\"nw\">", b->combo);
			esc(o, b->label);
			fputs("</td><td>failed to prepare: ", o);
			esc(o, b->verdict);
			fputs("</td></tr>\n", o);
		}
		fputs("</table>\n", o);
	}
	free(v);
}

/* The main-effect rows of option opt, in level order; returns how many. */
static size_t main_rows(struct page *pg, int opt, int phase, const struct eff **out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->effs.n && k < max; i++) {
		const struct eff *e = VEC_AT(pg->effs, struct eff, i);
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

/* The levels of option opt that have figures in any phase, in order.
 * (A phase may lack some: its rows alone would not give the full axis.) */
static size_t levels_of(struct page *pg, int opt, const char *lv[], double key[], size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct eff *e = VEC_AT(pg->effs, struct eff, i);
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

static size_t level_pos(const char *lv[], size_t n, const char *l)
{
	for (size_t j = 0; j < n; j++)
		if (strcmp(lv[j], l) == 0)
			return j;
	return n;
}

#define MAXLEV 64

/* Put rows in the order of the axis lv (SQL sorted text levels by spelling). */
static void sort_by_level(const struct eff **rows, size_t nr, const char *lv[], size_t nl)
{
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && level_pos(lv, nl, rows[j - 1]->la) >
						      level_pos(lv, nl, rows[j]->la);
		     j--) {
			const struct eff *t = rows[j];
			rows[j] = rows[j - 1];
			rows[j - 1] = t;
		}
}

static void chart_main_effects(FILE *o, struct page *pg)
{
	fputs("<h2>Main effects</h2>\n<p class=\"note\">For each option that varies: the mean "
	      "aggregate MB/s at each of its values, over every other option (one line per "
	      "phase; whiskers: &plusmn; one standard deviation of the observations). A steep "
	      "line is an option that matters; the same scale in every chart.</p>\n",
	      o);
	double vmax = 0;
	int any = 0;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct eff *e = VEC_AT(pg->effs, struct eff, i);
		if (e->inter)
			continue;
		any = 1;
		double top = e->mbps + (isnan(e->sd) ? 0 : e->sd);
		vmax = top > vmax ? top : vmax;
	}
	if (!any) {
		fputs("<p>No option takes two values in this run (or no phase ran without error): "
		      "nothing to compare.</p>\n",
		      o);
		return;
	}
	double max, step;
	nice_axis(vmax, &max, &step);
	fputs("<div class=\"grid\">\n", o);
	for (int opt = 0; opt < ST_OPT_COUNT; opt++) {
		const char *lv[MAXLEV];
		double key[MAXLEV];
		size_t nl = levels_of(pg, opt, lv, key, MAXLEV);
		if (nl < 2)
			continue;
		int np = 0;
		for (int p = 0; p < ST_PHASE_COUNT; p++) {
			const struct eff *rows[MAXLEV];
			np += main_rows(pg, opt, p, rows, MAXLEV) > 0;
		}
		/* title, then one line per phase with its effect, then the plot */
		const int W = 350, x0 = 52, x1 = W - 12, y1 = 34 + 13 * np, H = y1 + 200,
			  y0 = H - 40;
		fputs("<figure>", o);
		svg_open(o, W, H, st_options[opt].name);
		fprintf(o, "<text x=\"8\" y=\"16\" class=\"title\">");
		esc(o, st_options[opt].name);
		fputs("</text>\n", o);
		y_axis(o, max, step, x0, x1, y0, y1, "MB/s");
		double cw = (double)(x1 - x0) / nl;
		for (size_t j = 0; j < nl; j++) {
			fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
				x0 + cw * (j + 0.5), y0 + 16);
			esc(o, lv[j]);
			fputs("</text>\n", o);
		}
		/* the effect per phase, under the title */
		int ty = 30;
		for (int p = 0; p < ST_PHASE_COUNT; p++) {
			const struct eff *rows[MAXLEV];
			if (!main_rows(pg, opt, p, rows, MAXLEV))
				continue;
			fprintf(o,
				"<rect x=\"8\" y=\"%d\" width=\"9\" height=\"9\" fill=\"%s\"/>"
				"<text x=\"22\" y=\"%d\" class=\"tick\">%s: ",
				ty - 8, phase_color[p], ty, st_phase_names[p]);
			if (isnan(rows[0]->effect))
				fputs("one value only had figures</text>\n", o);
			else
				fprintf(o, "effect %.1f MB/s (%.0f %% of the mean)</text>\n",
					rows[0]->effect, rows[0]->effect_pct);
			ty += 13;
		}
		int pi = 0;
		for (int p = 0; p < ST_PHASE_COUNT; p++) {
			const struct eff *rows[MAXLEV];
			size_t nr = main_rows(pg, opt, p, rows, MAXLEV);
			if (!nr)
				continue;
			sort_by_level(rows, nr, lv, nl);
			double dx = (pi++ - (np - 1) / 2.0) * 5;
			fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
				phase_color[p]);
			for (size_t r = 0; r < nr; r++) {
				size_t j = level_pos(lv, nl, rows[r]->la);
				fprintf(o, "%.1f,%.1f ", x0 + cw * (j + 0.5) + dx,
					y0 - (y0 - y1) * rows[r]->mbps / max);
			}
			fputs("\"/>\n", o);
			for (size_t r = 0; r < nr; r++) {
				size_t j = level_pos(lv, nl, rows[r]->la);
				double x = x0 + cw * (j + 0.5) + dx, y = y0 - (y0 - y1) * rows[r]->mbps / max;
				if (!isnan(rows[r]->sd)) {
					double ya = y0 - (y0 - y1) * (rows[r]->mbps - rows[r]->sd) / max;
					double yb = y0 - (y0 - y1) * (rows[r]->mbps + rows[r]->sd) / max;
					ya = ya > y0 ? y0 : ya;
					fprintf(o,
						"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
						"stroke=\"%s\" stroke-opacity=\"0.6\"/>",
						x, x, ya, yb, phase_color[p]);
				}
				fprintf(o,
					"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, ",
					x, y, phase_color[p], st_phase_names[p]);
				esc(o, st_options[opt].name);
				fputc('=', o);
				esc(o, rows[r]->la);
				fprintf(o, ": %.1f MB/s (sd %.1f, n %d)</title></circle>\n", rows[r]->mbps,
					isnan(rows[r]->sd) ? 0.0 : rows[r]->sd, rows[r]->n);
			}
		}
		fputs("</svg></figure>\n", o);
	}
	fputs("</div>\n", o);
}

/* The option with the largest main effect in phase p other than `not`; -1. */
static int strongest(struct page *pg, int p, int not)
{
	int best = -1;
	double be = -1;
	for (size_t i = 0; i < pg->effs.n; i++) {
		const struct eff *e = VEC_AT(pg->effs, struct eff, i);
		if (e->inter || e->phase != p || e->oa == not || isnan(e->effect))
			continue;
		if (e->effect > be) {
			be = e->effect;
			best = e->oa;
		}
	}
	return best;
}

static void chart_interactions(FILE *o, struct page *pg)
{
	fputs("<h2>Interaction of the two strongest options</h2>\n<p class=\"note\">Per phase, the "
	      "mean aggregate MB/s of each pair of values of the two options with the largest main "
	      "effects. Parallel lines: the options act independently; lines that converge, "
	      "diverge or cross: the effect of one depends on the other.</p>\n<div class=\"grid\">\n",
	      o);
	int drawn = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		int a = strongest(pg, p, -1), b = a < 0 ? -1 : strongest(pg, p, a);
		if (a < 0 || b < 0)
			continue;
		const char *la[MAXLEV], *lb[MAXLEV];
		double ka[MAXLEV], kb[MAXLEV];
		size_t na = levels_of(pg, a, la, ka, MAXLEV), nb = levels_of(pg, b, lb, kb, MAXLEV);
		/* the cells: rows of the pair, in table order (oa < ob) */
		double cell[MAXLEV][MAXLEV];
		int have[MAXLEV][MAXLEV] = { { 0 } };
		double vmax = 0, effect = NAN, effect_pct = NAN;
		for (size_t i = 0; i < pg->effs.n; i++) {
			const struct eff *e = VEC_AT(pg->effs, struct eff, i);
			if (!e->inter || e->phase != p ||
			    !((e->oa == a && e->ob == b) || (e->oa == b && e->ob == a)))
				continue;
			const char *va = e->oa == a ? e->la : e->lb, *vb = e->oa == a ? e->lb : e->la;
			size_t ia = level_pos(la, na, va), ib = level_pos(lb, nb, vb);
			if (ia >= na || ib >= nb)
				continue;
			cell[ia][ib] = e->mbps;
			have[ia][ib] = 1;
			vmax = e->mbps > vmax ? e->mbps : vmax;
			effect = e->effect;
			effect_pct = e->effect_pct;
		}
		double max, step;
		nice_axis(vmax, &max, &step);
		const int W = 540, H = 310, x0 = 52, x1 = W - 130, y0 = H - 42, y1 = 48;
		char what[256];
		snprintf(what, sizeof(what), "%s: %s and %s", st_phase_names[p], st_options[a].name,
			 st_options[b].name);
		fputs("<figure>", o);
		svg_open(o, W, H, what);
		fprintf(o, "<text x=\"8\" y=\"16\" class=\"title\">%s: ", st_phase_names[p]);
		esc(o, st_options[a].name);
		fputs(" &#215; ", o);
		esc(o, st_options[b].name);
		if (isnan(effect))
			fputs("</text><text x=\"8\" y=\"31\" class=\"tick\">one value of an option only "
			      "had figures: no interaction to measure</text>\n",
			      o);
		else
			fprintf(o, "</text><text x=\"8\" y=\"31\" class=\"tick\">interaction effect "
				   "%.1f MB/s (%.0f %% of the phase mean)</text>\n",
				effect, effect_pct);
		y_axis(o, max, step, x0, x1, y0, y1, "MB/s");
		double cw = (double)(x1 - x0) / na;
		for (size_t j = 0; j < na; j++) {
			fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
				x0 + cw * (j + 0.5), y0 + 16);
			esc(o, la[j]);
			fputs("</text>\n", o);
		}
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">", (x0 + x1) / 2,
			y0 + 34);
		esc(o, st_options[a].name);
		fputs("</text>\n", o);
		for (size_t k = 0; k < nb; k++) {
			const char *c = palette[k % NPALETTE];
			fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
			for (size_t j = 0; j < na; j++)
				if (have[j][k])
					fprintf(o, "%.1f,%.1f ", x0 + cw * (j + 0.5),
						y0 - (y0 - y1) * cell[j][k] / max);
			fputs("\"/>\n", o);
			for (size_t j = 0; j < na; j++)
				if (have[j][k]) {
					fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
						x0 + cw * (j + 0.5), y0 - (y0 - y1) * cell[j][k] / max, c);
					esc(o, st_options[a].name);
					fputc('=', o);
					esc(o, la[j]);
					fputs(", ", o);
					esc(o, st_options[b].name);
					fputc('=', o);
					esc(o, lb[k]);
					fprintf(o, ": %.1f MB/s</title></circle>\n", cell[j][k]);
				}
			int ly = y1 + 8 + 18 * (int)k;
			fprintf(o,
				"<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
				"stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">",
				x1 + 14, x1 + 34, ly, ly, c, x1 + 40, ly + 4);
			esc(o, st_options[b].name);
			fputc('=', o);
			esc(o, lb[k]);
			fputs("</text>\n", o);
		}
		fputs("</svg></figure>\n", o);
		drawn++;
	}
	fputs("</div>\n", o);
	if (!drawn)
		fputs("<p>Fewer than two options vary in this run: no interaction to show.</p>\n", o);
}

/* Throughput against each swept size (transfer size, rsize, wsize, file
 * size), on a log2 axis: one line per phase through the level means, the
 * band from the lowest to the highest observation at each size. */
static void chart_sizes(FILE *o, struct page *pg)
{
	static const int sizes[] = { ST_OPT_BLOCK, ST_OPT_RSIZE, ST_OPT_WSIZE, ST_OPT_SIZE };
	int drawn = 0;
	for (size_t s = 0; s < ST_ARRAY_LEN(sizes); s++) {
		int opt = sizes[s];
		const char *lv[MAXLEV];
		double key[MAXLEV];
		size_t nl = levels_of(pg, opt, lv, key, MAXLEV);
		if (nl < 2 || isnan(key[0]))
			continue;
		if (!drawn++)
			fputs("<h2>Throughput against size</h2>\n<p class=\"note\">Mean aggregate MB/s "
			      "at each swept size (log scale), one line per phase; the band spans the "
			      "lowest to the highest observation at that size, over every other "
			      "option.</p>\n<div class=\"grid\">\n",
			      o);
		double kmin = key[0], kmax = key[0], vmax = 0;
		for (size_t j = 1; j < nl; j++) {
			kmin = key[j] < kmin ? key[j] : kmin;
			kmax = key[j] > kmax ? key[j] : kmax;
		}
		for (size_t i = 0; i < pg->effs.n; i++) {
			const struct eff *e = VEC_AT(pg->effs, struct eff, i);
			if (!e->inter && e->oa == opt && e->hi > vmax)
				vmax = e->hi;
		}
		if (!(kmax > kmin) || !(kmin > 0))
			continue;
		double max, step;
		nice_axis(vmax, &max, &step);
		const int W = 540, H = 310, x0 = 56, x1 = W - 24, y0 = H - 44, y1 = 48;
		double lmin = log2(kmin), lspan = log2(kmax) - lmin;
		char what[128];
		snprintf(what, sizeof(what), "aggregate MB/s against %s", st_options[opt].name);
		fputs("<figure>", o);
		svg_open(o, W, H, what);
		fputs("<text x=\"8\" y=\"16\" class=\"title\">", o);
		esc(o, what);
		fputs("</text>\n", o);
		int lx = 8;
		for (int p = 0; p < ST_PHASE_COUNT; p++) {
			const struct eff *rows[MAXLEV];
			if (main_rows(pg, opt, p, rows, MAXLEV) < 2)
				continue;
			fprintf(o,
				"<rect x=\"%d\" y=\"23\" width=\"9\" height=\"9\" fill=\"%s\"/>"
				"<text x=\"%d\" y=\"31\" class=\"tick\">%s</text>\n",
				lx, phase_color[p], lx + 13, st_phase_names[p]);
			lx += 24 + 7 * (int)strlen(st_phase_names[p]);
		}
		y_axis(o, max, step, x0, x1, y0, y1, "MB/s");
		for (size_t j = 0; j < nl; j++) {
			double x = x0 + 10 + (x1 - x0 - 20) * (log2(key[j]) - lmin) / lspan;
			fprintf(o,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
				"<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">",
				x, x, y0, y1, x, y0 + 16);
			esc(o, lv[j]);
			fputs("</text>\n", o);
		}
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">", (x0 + x1) / 2,
			y0 + 34);
		esc(o, st_options[opt].name);
		fputs(" (log scale)</text>\n", o);
		for (int p = 0; p < ST_PHASE_COUNT; p++) {
			const struct eff *rows[MAXLEV];
			size_t nr = main_rows(pg, opt, p, rows, MAXLEV);
			if (nr < 2)
				continue;
			sort_by_level(rows, nr, lv, nl);
			/* band: along the maxima, back along the minima */
			fprintf(o, "<polygon fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\" points=\"",
				phase_color[p]);
			for (size_t r = 0; r < nr; r++)
				fprintf(o, "%.1f,%.1f ",
					x0 + 10 + (x1 - x0 - 20) * (log2(rows[r]->ka) - lmin) / lspan,
					y0 - (y0 - y1) * rows[r]->hi / max);
			for (size_t r = nr; r-- > 0;)
				fprintf(o, "%.1f,%.1f ",
					x0 + 10 + (x1 - x0 - 20) * (log2(rows[r]->ka) - lmin) / lspan,
					y0 - (y0 - y1) * rows[r]->lo / max);
			fprintf(o, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
				phase_color[p]);
			for (size_t r = 0; r < nr; r++)
				fprintf(o, "%.1f,%.1f ",
					x0 + 10 + (x1 - x0 - 20) * (log2(rows[r]->ka) - lmin) / lspan,
					y0 - (y0 - y1) * rows[r]->mbps / max);
			fputs("\"/>\n", o);
			for (size_t r = 0; r < nr; r++) {
				fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, ",
					x0 + 10 + (x1 - x0 - 20) * (log2(rows[r]->ka) - lmin) / lspan,
					y0 - (y0 - y1) * rows[r]->mbps / max, phase_color[p],
					st_phase_names[p]);
				esc(o, st_options[opt].name);
				fputc('=', o);
				esc(o, rows[r]->la);
				fprintf(o, ": %.1f MB/s (%.1f to %.1f)</title></circle>\n", rows[r]->mbps,
					rows[r]->lo, rows[r]->hi);
			}
		}
		fputs("</svg></figure>\n", o);
	}
	if (drawn)
		fputs("</div>\n", o);
}

static int cmp_effect(const void *a, const void *b)
{
	const struct eff *x = *(const struct eff *const *)a, *y = *(const struct eff *const *)b;
	if (x->inter != y->inter)
		return x->inter - y->inter;
	if (isnan(x->effect) != isnan(y->effect))
		return isnan(x->effect) ? 1 : -1; /* not measurable: last */
	if (!isnan(x->effect) && x->effect != y->effect)
		return x->effect > y->effect ? -1 : 1;
	return x->oa != y->oa ? x->oa - y->oa : x->ob - y->ob;
}

static void section_ranking(FILE *o, struct page *pg)
{
	fputs("<h2>Which option matters</h2>\n<p class=\"note\">Effect: the largest minus the "
	      "smallest mean over an option's values (main), or over a pair's cells of what the "
	      "two main effects leave unexplained (interaction), in MB/s and in % of the phase "
	      "mean; largest first. The same figures as <code>stcluster effects</code>.</p>\n",
	      o);
	const struct eff **v = calloc(pg->effs.n ? pg->effs.n : 1, sizeof(*v));
	if (!v)
		return;
	int any = 0;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		/* one entry per option or pair: its first row in this phase (rows
		 * of one option or pair are adjacent) */
		size_t k = 0;
		for (size_t i = 0; i < pg->effs.n; i++) {
			const struct eff *e = VEC_AT(pg->effs, struct eff, i);
			const struct eff *prev = i ? VEC_AT(pg->effs, struct eff, i - 1) : NULL;
			if (e->phase != p)
				continue;
			if (prev && prev->phase == p && prev->inter == e->inter && prev->oa == e->oa &&
			    prev->ob == e->ob)
				continue;
			v[k++] = e;
		}
		if (!k)
			continue;
		qsort(v, k, sizeof(*v), cmp_effect);
		if (!any++)
			fputs("<div class=\"grid\">\n", o);
		fprintf(o,
			"<table><tr><th colspan=\"3\"><span class=\"sw\" style=\"background:%s\">"
			"</span>%s</th></tr>\n<tr><th>option</th><th class=\"num\">effect MB/s</th>"
			"<th class=\"num\">%%</th></tr>\n",
			phase_color[p], st_phase_names[p]);
		for (size_t i = 0; i < k; i++) {
			fputs(v[i]->inter ? "<tr class=\"pair\"><td>" : "<tr><td>", o);
			esc(o, st_options[v[i]->oa].name);
			if (v[i]->inter) {
				fputs(" &#215; ", o);
				esc(o, st_options[v[i]->ob].name);
			}
			fputs("</td><td class=\"num\">", o);
			num(o, v[i]->effect, 1);
			fputs("</td><td class=\"num\">", o);
			num(o, v[i]->effect_pct, 1);
			fputs("</td></tr>\n", o);
		}
		fputs("</table>\n", o);
	}
	free(v);
	if (any)
		fputs("</div>\n", o);
	else
		fputs("<p>No option varies in this run.</p>\n", o);
}

static void section_verdicts(FILE *o, struct page *pg)
{
	fputs("<h2>Bottleneck verdicts</h2>\n", o);
	sqlite3_stmt *st;
	int nbase = 0;
	if ((st = run_query(pg,
			 "SELECT kind, direction, server_rank, client_ranks, bytes, seconds, mbps, note "
			 "FROM baseline WHERE run_id = ? ORDER BY kind, direction, server_rank"))) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (!nbase++)
				fputs("<p class=\"note\">The parts measured alone before the sweep "
				      "(network: TCP streams client to server; disk: the server's disk "
				      "under the export):</p>\n<table><tr><th>kind</th><th>direction</th>"
				      "<th>server rank</th><th>client ranks</th><th class=\"num\">MB/s</th>"
				      "<th>note</th></tr>\n",
				      o);
			fputs("<tr>", o);
			for (int c = 0; c < 4; c++) {
				fputs("<td>", o);
				esc(o, (const char *)sqlite3_column_text(st, c));
				fputs("</td>", o);
			}
			fputs("<td class=\"num\">", o);
			num(o, col_d(st, 6), 1);
			fputs("</td><td>", o);
			esc(o, (const char *)sqlite3_column_text(st, 7));
			fputs("</td></tr>\n", o);
		}
		sqlite3_finalize(st);
	}
	if (nbase)
		fputs("</table>\n", o);
	int nv = 0, all = 0;
	for (size_t i = 0; i < pg->bars.n; i++) {
		const struct bar *b = VEC_AT(pg->bars, struct bar, i);
		all += b->phase >= 0 && !isnan(b->pct);
	}
	for (size_t i = 0; i < pg->bars.n; i++) {
		const struct bar *b = VEC_AT(pg->bars, struct bar, i);
		if (b->phase < 0 || isnan(b->pct))
			continue;
		/* at hundreds of combinations, one row each is a page of its own */
		if (!nv++ && all > BARS_CHARTED)
			fprintf(o, "<details><summary>The verdict of each of the %d phases run</summary>\n",
				all);
		if (nv == 1)
			fputs("<table><tr><th>combination</th><th>phase</th><th class=\"num\">MB/s</th>"
			      "<th class=\"num\">% of limit</th><th>verdict</th></tr>\n",
			      o);
		fputs("<tr><td>", o);
		esc(o, b->label);
		fprintf(o, "</td><td>%s</td><td class=\"num\">", st_phase_names[b->phase]);
		num(o, b->mbps, 1);
		fputs("</td><td class=\"num\">", o);
		num(o, b->pct, 0);
		fputs("</td><td>", o);
		esc(o, b->verdict);
		fputs("</td></tr>\n", o);
	}
	if (nv)
		fputs(all > BARS_CHARTED ? "</table></details>\n" : "</table>\n", o);
	else
		fputs("<p>No verdict: this run measured no baseline (no rank ran on an NFS server host, "
		      "or --baseline off), so there is no limit to compare the aggregate with.</p>\n",
		      o);
}

/* What went over the wire, beside each phase's MB/s: its RPC mix, the
 * figures of its READ, WRITE and COMMIT as nfsiostat gives them, and what
 * contradicts the request (flagged). A store without those views (last
 * written by an older stcluster, read as it is) shows nothing. */
static void section_wire(FILE *o, struct page *pg)
{
	char label[4096], sql[8192];
	label_sql(pg, label, sizeof(label));
	snprintf(sql, sizeof(sql),
		 "SELECT c.seq + 1, %s, s.phase, s.agg_mbps, m.mix, "
		 "(SELECT group_concat(op || ' ' || printf('%%.0f', ops_per_s) || '/s ' || "
		 "printf('%%.0f', kib_per_op) || ' KiB/op RTT ' || printf('%%.2f', avg_rtt_ms) || "
		 "' exe ' || printf('%%.2f', avg_exe_ms) || ' ms' || CASE WHEN op = 'WRITE' AND "
		 "pct_file_sync IS NOT NULL THEN ' ' || printf('%%.0f', pct_file_sync) || '%% "
		 "FILE_SYNC' || CASE WHEN stable_basis = 'inferred' THEN ' (inferred)' ELSE '' END "
		 "ELSE '' END, '; ') FROM rpc_summary r WHERE r.combo_id = s.combo_id AND r.phase = "
		 "s.phase AND r.op IN ('READ', 'WRITE', 'COMMIT') AND r.ops > 0), "
		 "f.flag_text "
		 "FROM phase_summary s JOIN combo c ON c.combo_id = s.combo_id "
		 "LEFT JOIN (SELECT combo_id, phase, group_concat(mix, ' | ') AS mix FROM rpc_mix "
		 "GROUP BY combo_id, phase) m ON m.combo_id = s.combo_id AND m.phase = s.phase "
		 "LEFT JOIN phase_flags f ON f.combo_id = s.combo_id AND f.phase = s.phase "
		 "WHERE c.run_id = ?1 AND (m.mix IS NOT NULL OR f.flag_text IS NOT NULL) "
		 "ORDER BY c.seq, s.phase_order",
		 label);
	sqlite3_stmt *st = query_of(pg, sql, 1);
	if (!st)
		return;
	int k = 0, flagged = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!k++)
			fputs("<h2>What went over the wire</h2>\n<p class=\"note\">Each phase's NFS calls "
			      "(the kernel client's /proc/self/mountstats over the phase, or the libnfs "
			      "engine's own count): ops/s, KiB per call, average RTT and execute time as "
			      "nfsiostat computes them, and the stable_how of the WRITEs (measured by "
			      "libnfs; inferred from the COMMITs for the kernel, which does not split "
			      "WRITE by it). With O_DIRECT Linux sends FILE_SYNC when one write fits one "
			      "WRITE RPC and UNSTABLE + COMMIT otherwise, whatever --sync says. Flagged: "
			      "what contradicts the request.</p>\n<table class=\"small\"><tr><th "
			      "class=\"num\">seq</th><th>combination</th><th>phase</th><th "
			      "class=\"num\">MB/s</th><th>RPC mix</th><th>per call</th><th>flags</th>"
			      "</tr>\n",
			      o);
		const char *flags = (const char *)sqlite3_column_text(st, 6);
		flagged += flags != NULL;
		fprintf(o, "<tr%s><td class=\"num\">%d</td><td>", flags ? " class=\"flag\"" : "",
			sqlite3_column_int(st, 0));
		esc(o, (const char *)sqlite3_column_text(st, 1));
		fputs("</td><td>", o);
		esc(o, (const char *)sqlite3_column_text(st, 2));
		fputs("</td><td class=\"num\">", o);
		num(o, col_d(st, 3), 1);
		for (int c = 4; c < 7; c++) {
			fputs("</td><td>", o);
			esc(o, (const char *)sqlite3_column_text(st, c));
		}
		fputs("</td></tr>\n", o);
	}
	sqlite3_finalize(st);
	if (k)
		fprintf(o, "</table>\n<p class=\"note\">%d of %d phases flagged.</p>\n", flagged, k);
}

static void section_failures(FILE *o, struct page *pg)
{
	sqlite3_stmt *st = run_query(pg,
					 "SELECT c.seq + 1, c.iteration + 1, COALESCE(p.phase, ''), "
					 "COALESCE(p.status, c.status), COALESCE(p.message, c.message, '') "
					 "FROM combo c LEFT JOIN phase_run p ON p.combo_id = c.combo_id AND p.status <> 'ok' "
					 "WHERE c.run_id = ? AND (c.status <> 'ok' AND (c.status = 'failed' OR p.phase IS NOT NULL)) "
					 "ORDER BY c.seq, p.phase_order");
	if (!st)
		return;
	int k = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!k++)
			fputs("<h2>Failures</h2>\n<table><tr><th class=\"num\">seq</th>"
			      "<th class=\"num\">iteration</th><th>phase</th><th>status</th>"
			      "<th>message</th></tr>\n",
			      o);
		fprintf(o, "<tr><td class=\"num\">%d</td><td class=\"num\">%d</td><td>",
			sqlite3_column_int(st, 0), sqlite3_column_int(st, 1));
		for (int c = 2; c < 5; c++) {
			esc(o, (const char *)sqlite3_column_text(st, c));
			fputs(c < 4 ? "</td><td>" : "</td></tr>\n", o);
		}
	}
	sqlite3_finalize(st);
	if (k)
		fputs("</table>\n", o);
}

static void section_hosts(FILE *o, struct page *pg)
{
	sqlite3_stmt *st = run_query(pg,
					 "SELECT rank, hostname, role, cores, pus, numa_nodes, "
					 "ROUND(mem_bytes / 1073741824.0, 1), kernel, cpu_model, addresses, "
					 "iface, mtu, speed_mbps, clock_offset_ns "
					 "FROM host WHERE run_id = ? ORDER BY rank");
	if (!st)
		return;
	fputs("<h2>Hosts</h2>\n<table class=\"small\"><tr><th class=\"num\">rank</th><th>host</th><th>role</th>"
	      "<th class=\"num\">cores</th><th class=\"num\">PUs</th><th class=\"num\">NUMA</th>"
	      "<th class=\"num\">memory GiB</th><th>kernel</th><th>CPU</th><th>addresses</th>"
	      "<th>interface</th><th class=\"num\">MTU</th><th class=\"num\">Mbit/s</th>"
	      "<th class=\"num\">clock offset &micro;s</th></tr>\n",
	      o);
	while (sqlite3_step(st) == SQLITE_ROW) {
		fputs("<tr>", o);
		for (int c = 0; c < 14; c++) {
			int t = sqlite3_column_type(st, c);
			int numeric = c == 0 || (c >= 3 && c <= 6) || c >= 11;
			fputs(numeric ? "<td class=\"num\">" : "<td>", o);
			if (c == 13 && t != SQLITE_NULL)
				fprintf(o, "%.1f", sqlite3_column_double(st, c) / 1e3);
			else
				esc(o, (const char *)sqlite3_column_text(st, c));
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	sqlite3_finalize(st);
	fputs("</table>\n", o);
}

/* The metadata phases: operations per second per combination (not MB/s:
 * their own table, apart from the charts of bytes). */
static void section_meta(FILE *o, struct page *pg)
{
	char label[4096], sql[6000];
	label_sql(pg, label, sizeof(label));
	snprintf(sql, sizeof(sql),
		 "SELECT c.seq + 1, %s, s.phase, s.iops, s.min_client_iops, s.max_client_iops, "
		 "s.lat_p50_ns, s.lat_p99_ns, s.ops, s.errors FROM combo c JOIN phase_summary s "
		 "USING (combo_id) WHERE c.run_id = ?1 AND s.phase IN " META_PHASES
		 " ORDER BY c.seq, s.phase_order",
		 label);
	sqlite3_stmt *st = query_of(pg, sql, 1);
	if (!st)
		return;
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!rows++)
			fputs("<h2>Metadata operations per second</h2>\n<p class=\"note\">Aggregate: "
			      "all clients' operations over the phase's span; per client: each "
			      "client's own; latency of one operation.</p>\n<table class=\"small\"><tr>"
			      "<th class=\"num\">seq</th><th>options</th><th>phase</th>"
			      "<th class=\"num\">ops/s</th><th class=\"num\">slowest client</th>"
			      "<th class=\"num\">fastest client</th><th class=\"num\">p50 &micro;s</th>"
			      "<th class=\"num\">p99 &micro;s</th><th class=\"num\">operations</th>"
			      "<th class=\"num\">errors</th></tr>\n",
			      o);
		fprintf(o, "<tr><td class=\"num\">%d</td><td>", sqlite3_column_int(st, 0));
		esc(o, (const char *)sqlite3_column_text(st, 1));
		fputs("</td><td>", o);
		esc(o, (const char *)sqlite3_column_text(st, 2));
		fputs("</td>", o);
		for (int c = 3; c < 10; c++) {
			fputs("<td class=\"num\">", o);
			num(o, col_d(st, c) / (c == 6 || c == 7 ? 1e3 : 1), c == 6 || c == 7 ? 1 : 0);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	if (rows)
		fputs("</table>\n", o);
	sqlite3_finalize(st);
}

/* One point of a series over time: an interval. */
struct tpoint {
	int rank;	/* client rank; -1: the aggregate */
	double t0, t1;	/* seconds from the phase's first interval */
	double v;	/* MB/s, or operations/s */
	int stall;
};

#define TS_MAX_COMBOS 50 /* combinations drawn over time; the rest: the query in the note */

/* One phase of one combination over time: each client's line, the
 * aggregate's thicker one, stalls as red marks. */
static void ts_phase(FILE *o, struct page *pg, int64_t combo, const char *phase)
{
	int meta = strstr(META_PHASES, phase) != NULL;
	/* the views over this combination's intervals only (scope.h): their
	 * window functions would rank every interval ever stored */
	static const char series[] = "SELECT -1, t_ns, end_ns, mbps, iops, stall FROM interval_summary "
				"WHERE combo_id = ?1 AND phase = ?2 UNION ALL "
				"SELECT rank, t_ns, end_ns, mbps, iops, stall FROM interval_rank "
				"WHERE combo_id = ?1 AND phase = ?2 ORDER BY 1, 2";
	struct st_strbuf sql = { 0 };
	st_scope_head(pg->db, "combo_id = ?1", series, &sql);
	st_strbuf_put(&sql, series);
	sqlite3_stmt *st = NULL;
	int rc = sql.oom ? SQLITE_NOMEM : sqlite3_prepare_v2(pg->db, sql.p, -1, &st, NULL);
	st_strbuf_release(&sql);
	if (rc != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, combo);
	sqlite3_bind_text(st, 2, phase, -1, SQLITE_TRANSIENT);
	struct vec pts = { .size = sizeof(struct tpoint) };
	double origin = INFINITY, tmax = 0, vmax = 0;
	int nstall = 0, ranks = 0, last_rank = -2;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct tpoint *p = vec_push(&pts);
		if (!p)
			break;
		p->rank = sqlite3_column_int(st, 0);
		p->t0 = sqlite3_column_double(st, 1);
		p->t1 = sqlite3_column_double(st, 2);
		p->v = col_d(st, meta ? 4 : 3);
		p->stall = sqlite3_column_int(st, 5);
		if (p->t0 < origin)
			origin = p->t0;
		if (p->rank != last_rank && p->rank >= 0)
			ranks++;
		last_rank = p->rank;
	}
	sqlite3_finalize(st);
	/* the last interval of a series may be a sliver (the calls that ended
	 * after the others): its rate says little, and is not drawn */
	double width = 0;
	for (size_t i = 0; i < pts.n; i++) {
		struct tpoint *p = VEC_AT(pts, struct tpoint, i);
		width = p->t1 - p->t0 > width ? p->t1 - p->t0 : width;
	}
	int all_stalls = 0;
	for (size_t i = 0; i < pts.n; i++) {
		struct tpoint *p = VEC_AT(pts, struct tpoint, i);
		if (p->t1 - p->t0 < width / 2)
			p->v = NAN;
		p->t0 = (p->t0 - origin) / 1e9;
		p->t1 = (p->t1 - origin) / 1e9;
		tmax = p->t1 > tmax ? p->t1 : tmax;
		vmax = !isnan(p->v) && p->v > vmax ? p->v : vmax;
		nstall += p->stall && p->rank >= 0;
		all_stalls += p->stall && p->rank < 0;
	}
	const int W = 360, H = 190, x0 = 52, x1 = W - 10, y0 = H - 30, y1 = 30;
	double vm, vs, tm, ts;
	nice_axis(vmax, &vm, &vs);
	nice_axis(tmax, &tm, &ts);
	char what[128];
	snprintf(what, sizeof(what), "%s over time: %s", phase, meta ? "operations/s" : "MB/s");
	fputs("<figure>", o);
	svg_open(o, W, H, what);
	fprintf(o, "<text x=\"%d\" y=\"16\" class=\"title\">", x0);
	esc(o, phase);
	fprintf(o, "</text><text x=\"%d\" y=\"16\" class=\"tick\" text-anchor=\"end\">stalls: %d "
		   "of all, %d of a client</text>\n",
		x1, all_stalls, nstall);
	y_axis(o, vm, vs, x0, x1, y0, y1, meta ? "operations/s" : "MB/s");
	for (double t = 0; t <= tm + ts / 2; t += ts)
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.10g</text>\n",
			x0 + (x1 - x0) * t / tm, y0 + 14, t);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">s</text>\n", x1, H - 2);
	/* the clients' lines first, the aggregate's over them */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < pts.n;) {
			const struct tpoint *p = VEC_AT(pts, struct tpoint, i);
			size_t j = i;
			while (j < pts.n && VEC_AT(pts, struct tpoint, j)->rank == p->rank)
				j++;
			if ((p->rank < 0) == (pass == 1)) {
				const char *col = p->rank < 0 ? "#222" : palette[p->rank % (int)NPALETTE];
				fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"",
					col, p->rank < 0 ? "2.2" : "1");
				for (size_t k = i; k < j; k++) {
					const struct tpoint *q = VEC_AT(pts, struct tpoint, k);
					if (!isnan(q->v))
						fprintf(o, "%.1f,%.1f ",
							x0 + (x1 - x0) * (q->t0 + q->t1) / 2 / tm,
							y0 - (y0 - y1) * q->v / vm);
				}
				fputs("\"/>\n", o);
				for (size_t k = i; k < j; k++) {
					const struct tpoint *q = VEC_AT(pts, struct tpoint, k);
					if (!q->stall || isnan(q->v))
						continue;
					double v = isnan(q->v) ? 0 : q->v;
					fprintf(o, "<circle class=\"stall\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" "
						   "fill=\"#d62728\"><title>stall: ",
						x0 + (x1 - x0) * (q->t0 + q->t1) / 2 / tm,
						y0 - (y0 - y1) * v / vm, p->rank < 0 ? "4" : "2.5");
					if (p->rank < 0)
						fputs("all clients", o);
					else
						fprintf(o, "rank %d", p->rank);
					fprintf(o, ", %.3g to %.3g s: %.4g %s</title></circle>\n", q->t0, q->t1, v,
						meta ? "operations/s" : "MB/s");
				}
			}
			i = j;
		}
	}
	fputs("</svg><figcaption class=\"note\">black: all clients", o);
	if (ranks > 1 && ranks <= 8)
		for (size_t i = 0; i < pts.n; i++) {
			const struct tpoint *p = VEC_AT(pts, struct tpoint, i);
			if (p->rank >= 0 && (i == 0 || VEC_AT(pts, struct tpoint, i - 1)->rank != p->rank))
				fprintf(o, ", <span class=\"sw\" style=\"background:%s\"></span>rank %d",
					palette[p->rank % (int)NPALETTE], p->rank);
		}
	fputs("</figcaption></figure>\n", o);
	vec_release(&pts);
}

/* Throughput over time (the elbencho live view, kept): for each
 * combination, each phase's intervals. */
static void chart_time_series(FILE *o, struct page *pg)
{
	char label[4096], sql[6000];
	label_sql(pg, label, sizeof(label));
	snprintf(sql, sizeof(sql),
		 "SELECT c.combo_id, c.seq + 1, %s, (SELECT group_concat(phase) FROM (SELECT DISTINCT "
		 "i.phase, p.phase_order FROM interval i JOIN phase_run p ON p.combo_id = i.combo_id AND "
		 "p.phase = i.phase WHERE i.combo_id = c.combo_id ORDER BY p.phase_order)), "
		 "(SELECT MAX(width_ns) FROM interval i WHERE i.combo_id = c.combo_id) "
		 "FROM combo c WHERE c.run_id = ?1 AND EXISTS (SELECT 1 FROM interval i WHERE "
		 "i.combo_id = c.combo_id) ORDER BY c.seq",
		 label);
	sqlite3_stmt *st = run_query(pg, sql);
	if (!st)
		return; /* a store an older stcluster wrote: no intervals */
	int shown = 0, more = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (shown == TS_MAX_COMBOS) {
			more++;
			continue;
		}
		if (!shown++)
			fputs("<h2>Throughput over time</h2>\n<p class=\"note\">Each client's MB/s "
			      "(operations/s for the metadata phases) per interval, and all clients' "
			      "(black), from the start of the phase's figures (after --ramp). A red mark "
			      "is a stall: an interval under half the median of that client's (or, while "
			      "every client runs, all clients') whole intervals in the phase.</p>\n",
			      o);
		char w[32] = "";
		st_format_duration(sqlite3_column_int64(st, 4), w, sizeof(w));
		fprintf(o, "<details%s><summary>seq %d: ", shown <= 4 ? " open" : "",
			sqlite3_column_int(st, 1));
		esc(o, (const char *)sqlite3_column_text(st, 2));
		fputs(" (intervals of ", o);
		esc(o, w);
		fputs(")</summary><div class=\"grid\">\n", o);
		const char *phases = (const char *)sqlite3_column_text(st, 3);
		char list[256];
		st_copy(list, sizeof(list), phases ? phases : "");
		for (char *save = NULL, *ph = strtok_r(list, ",", &save); ph; ph = strtok_r(NULL, ",", &save))
			ts_phase(o, pg, sqlite3_column_int64(st, 0), ph);
		fputs("</div></details>\n", o);
	}
	sqlite3_finalize(st);
	if (more)
		fprintf(o, "<p class=\"note\">%d more combinations: <code>stcluster query \"SELECT * "
			   "FROM interval_summary\"</code>.</p>\n",
			more);
}

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
	"margin:24px auto;max-width:1160px;padding:0 16px}\n"
	"h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 6px;"
	"border-bottom:1px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:18px 0 4px}\n"
	"table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 8px;text-align:left;"
	"border-bottom:1px solid #e6e6e6;vertical-align:top}th{background:#f4f4f4}\n"
	"table.kv th{background:none;font-weight:600;padding-right:16px}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums}.nw{white-space:nowrap}\n"
	"pre{background:#f6f6f6;padding:8px 10px;white-space:pre-wrap;word-break:break-all;"
	"margin:4px 0}\n"
	".note{color:#555;margin:4px 0 8px}.grid{display:flex;flex-wrap:wrap;gap:14px;"
	"align-items:flex-start}\n"
	"figure{margin:0;border:1px solid #eee;padding:4px}\n"
	".sw{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
	"svg{max-width:100%;height:auto}svg text{font-family:system-ui,sans-serif;font-size:11px;"
	"fill:#333}\n"
	"svg .title{font-size:13px;font-weight:600}svg .tick{fill:#555}svg .axis{fill:#555}\n"
	"svg .label{font-family:ui-monospace,monospace;font-size:11px}svg .value{fill:#222}\n"
	"svg .fail{fill:#b00020}svg .grid{stroke:#e4e4e4}svg .whisker{stroke:#222;"
	"stroke-width:1.3}\n"
	"tr.pair td{color:#555}tr.fail td{color:#b00020}summary{cursor:pointer;color:#333}table.small td{font-size:12px}footer{color:#888;margin-top:28px;font-size:12px}\n"
	"tr.flag td{background:#fff3e0}tr.flag td:last-child{color:#b00020}\n";

int st_html_report(sqlite3 *db, const char *run, FILE *out, char *err, size_t n)
{
	struct page pg = { .db = db, .run = run };
	pg.bars.size = sizeof(struct bar);
	pg.effs.size = sizeof(struct eff);
	int rc = -1;
	if (st_analysis_functions(db, err, n) || st_run_varying(db, run, pg.vary, err, n) < 0 ||
	    load_bars(&pg, err, n) || load_effects(&pg, err, n))
		goto out;
	qsort(pg.bars.p, pg.bars.n, pg.bars.size, cmp_bar);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" GENERATOR_MARK
	      "\n<title>"
	      "stcluster report ",
	      out);
	esc(out, run);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	section_run(out, &pg);
	section_best(out, &pg);
	chart_bars(out, &pg);
	chart_main_effects(out, &pg);
	chart_interactions(out, &pg);
	chart_sizes(out, &pg);
	section_meta(out, &pg);
	chart_time_series(out, &pg);
	section_ranking(out, &pg);
	section_verdicts(out, &pg);
	section_wire(out, &pg);
	section_failures(out, &pg);
	section_hosts(out, &pg);
	fputs("<footer>Written by <code>stcluster report --html</code> from the store; MB/s = "
	      "10<sup>6</sup> bytes per second.</footer>\n</body>\n</html>\n",
	      out);
	rc = 0;
out:
	vec_release(&pg.bars);
	vec_release(&pg.effs);
	return rc;
}

/* Whether the regular file at path is a page stcluster wrote: the mark is
 * in its first 4 KiB. */
static int is_our_page(const char *path)
{
	char head[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (got <= 0)
		return 0;
	head[got] = '\0';
	return strstr(head, GENERATOR_MARK) != NULL;
}

/* Where `--html path` may write, or -1 after one line on stderr: never the
 * store (the same file, through any link), never a file that is not a
 * regular one, and an existing file only when stcluster wrote it or with
 * --force. The page goes to a temporary file beside the target (real:
 * the path with links followed), which then replaces it in one rename. */
static int html_target(const char *path, const char *db_path, int force, char *real, size_t n)
{
	struct stat st, dbst;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "stcluster report: --html: cannot use '%s': %s\n", path,
				strerror(errno));
			return -1;
		}
		/* a dangling link would make a file where it points: write where it points */
		char link[4096];
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l >= 0) {
			fprintf(stderr, "stcluster report: --html: '%s' is a link to '%.*s', which does "
					"not exist\n",
				path, (int)l, link);
			return -1;
		}
		st_copy(real, n, path);
		return 0;
	}
	if (db_path && stat(db_path, &dbst) == 0 && st.st_dev == dbst.st_dev &&
	    st.st_ino == dbst.st_ino) {
		fprintf(stderr, "stcluster report: --html: '%s' is the store itself (%s); give another "
				"file\n",
			path, db_path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "stcluster report: --html: '%s' is not a regular file\n", path);
		return -1;
	}
	char *r = realpath(path, NULL);
	if (!r || st_copy(real, n, r)) {
		fprintf(stderr, "stcluster report: --html: cannot resolve '%s'\n", path);
		free(r);
		return -1;
	}
	free(r);
	if (!force && !is_our_page(real)) {
		fprintf(stderr, "stcluster report: --html: '%s' exists and is not a page stcluster "
				"wrote (--force replaces it)\n",
			path);
		return -1;
	}
	return 0;
}

int st_html_report_file(sqlite3 *db, const char *want, const char *path, const char *db_path,
			int force)
{
	char run[64], err[ST_ERR_MAX], real[4096], tmp[4200];
	if (st_run_resolve(db, want, run, sizeof(run), err, sizeof(err))) {
		fprintf(stderr, "stcluster report: --run: %s\n", err);
		return 2;
	}
	if (strcmp(path, "-") == 0) {
		int rc = st_html_report(db, run, stdout, err, sizeof(err));
		if (rc)
			fprintf(stderr, "stcluster report: --html: %s\n", err);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "stcluster report: --html: writing to standard output failed\n");
			return 1;
		}
		return rc ? 1 : 0;
	}
	if (html_target(path, db_path, force, real, sizeof(real)))
		return 2;
	/* beside the target, so the rename stays on its file system */
	snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", real);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "stcluster report: --html: cannot write beside '%s': %s\n", path,
			strerror(errno));
		return 2;
	}
	/* a page is for reading: the mode a new file gets (mkstemp makes 0600) */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	FILE *out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(tmp);
		fprintf(stderr, "stcluster report: --html: %s\n", strerror(errno));
		return 1;
	}
	int rc = st_html_report(db, run, out, err, sizeof(err));
	if (rc)
		fprintf(stderr, "stcluster report: --html: %s\n", err);
	int werr = ferror(out);
	if (fclose(out) || werr) {
		fprintf(stderr, "stcluster report: --html: writing '%s' failed: %s\n", path,
			strerror(errno ? errno : EIO));
		unlink(tmp);
		return 1;
	}
	if (rc) {
		unlink(tmp);
		return 1;
	}
	if (rename(tmp, real)) {
		fprintf(stderr, "stcluster report: --html: cannot replace '%s': %s\n", path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}
